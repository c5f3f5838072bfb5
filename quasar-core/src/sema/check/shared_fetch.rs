//! Fetch and broadcast (manual §9.2.1 item 2): `S : 'shared = expr` at the top level of a
//! kernel body computes `expr` once per block, its elements distributed over the block's
//! threads, into shared memory; after the implied `syncthreads` every thread reads it.
//!
//! The initialiser is an element-wise expression whose shape is known when compiling:
//! slices of arrays with ranges (`A[0..9, 3]`, `img[p + (-2..2), :]` where the `:`
//! dimension has a declared size, `cube(:, :, 3)`), whole arrays of declared size, numbers
//! and scalar variables, the operators `+ - .* ./ .^` (and `*`, `/` with a scalar),
//! element-wise functions and `transpose`. It is rewritten as the manual's expansion does:
//!
//! ```text
//! S = shared(d0, d1)
//! for S__i = <thread index>..<block size>..d0*d1-1
//!     S__k0 = int(floor(S__i / d1)); S__k1 = mod(S__i, d1)
//!     S[S__k0, S__k1] = <expr at S__k0, S__k1>
//! endfor
//! syncthreads
//! ```
//!
//! A scalar initialiser (`s : 'shared = w[3] * 2`) is computed by the block's first thread,
//! stored in a one-element shared array and read by every thread after the barrier.

use super::shared_designators::{arg, assign, binary, call, ident, index, number, stmt};
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    Arg, AssignOp, BinaryOp, Expr, ExprKind, Ident, Param, SizeSpec, Stmt, StmtKind, TypeExpr,
    TypeKind, UnaryOp,
};
use std::collections::HashMap;

/// The arrays a kernel can see with their declared sizes (None: not known when compiling).
pub(super) type Env = HashMap<String, Vec<Option<Expr>>>;

/// The element-wise functions of one argument an initialiser may apply.
const ELEMENTWISE: &[&str] = &[
    "abs", "sqrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
    "sinh", "cosh", "tanh", "floor", "ceil", "round", "frac", "sign", "int",
];

/// Adds `params`' arrays of known rank to `env`.
pub(super) fn add_params(env: &mut Env, params: &[Param]) {
    for p in params {
        match p.ty.as_ref().and_then(array_dims) {
            Some(dims) => {
                env.insert(p.name.name.clone(), dims);
            }
            None => {
                env.remove(&p.name.name);
            }
        }
    }
}

/// The dimensions of an array type (`vec`, `mat(M, N)`, `cube(:, :, 3)`, `vec3`).
fn array_dims(t: &TypeExpr) -> Option<Vec<Option<Expr>>> {
    let TypeKind::Named { name, sizes, .. } = &t.kind else { return None };
    let n = name.name.as_str();
    // `ivec`, `cmat`, `ccube`: integer and complex arrays.
    let stem = match n.strip_prefix(['i', 'c']) {
        Some(rest) if ["vec", "mat", "cube"].iter().any(|k| rest.starts_with(k)) => rest,
        _ => n,
    };
    let rank = match stem {
        "vec" => 1,
        "mat" => 2,
        "cube" => 3,
        _ => {
            // `vec3`, `ivec4`, `cvec2`: fixed-size vectors.
            let len: usize = stem.strip_prefix("vec")?.parse().ok()?;
            return Some(vec![Some(number(&len.to_string(), t.span))]);
        }
    };
    Some(match sizes {
        Some(list) if list.len() == rank => list
            .iter()
            .map(|s| match s {
                SizeSpec::Any => None,
                SizeSpec::Expr(e) => Some(e.clone()),
            })
            .collect(),
        _ => vec![None; rank],
    })
}

/// `e`'s dimensions, or None when it is a scalar.
fn shape(e: &Expr, env: &Env) -> Result<Option<Vec<Expr>>, Diagnostic> {
    let e = unparen(e);
    let span = e.span;
    Ok(match &e.kind {
        ExprKind::Number(_) | ExprKind::Field { .. } => None,
        ExprKind::Ident(n) => match env.get(n) {
            Some(dims) => Some(known_dims(n, dims, span)?),
            None => None,
        },
        ExprKind::Index { base, indices } => {
            let mut slots = Vec::new();
            for ix in indices {
                slots.push(slot(&ix.value, env)?);
            }
            if slots.iter().all(|s| matches!(s, Slot::At(_))) {
                return Ok(None);
            }
            let ExprKind::Ident(n) = &base.kind else {
                return Err(unsupported(span, "slicing this value"));
            };
            let declared = env.get(n);
            let mut dims = Vec::new();
            for (d, (s, ix)) in slots.iter().zip(indices).enumerate() {
                match s {
                    Slot::All => {
                        let size = declared.and_then(|ds| ds.get(d).cloned().flatten());
                        dims.push(size.ok_or_else(|| unknown_size(n, d, ix.value.span))?);
                    }
                    Slot::Range { start, end, .. } => dims.push(length(start, end, span)),
                    Slot::At(_) => {}
                }
            }
            Some(dims)
        }
        ExprKind::Unary { op: UnaryOp::Neg | UnaryOp::Plus, operand } => shape(operand, env)?,
        ExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (shape(lhs, env)?, shape(rhs, env)?);
            let elementwise = matches!(
                op,
                BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::ElemMul
                    | BinaryOp::ElemDiv
                    | BinaryOp::ElemPow
            );
            match (a, b, op) {
                (None, None, _) => None,
                (Some(a), Some(b), _) if elementwise && a.len() == b.len() => Some(a),
                (Some(a), None, _)
                    if elementwise || matches!(op, BinaryOp::Mul | BinaryOp::Div) =>
                {
                    Some(a)
                }
                (None, Some(b), _) if elementwise || *op == BinaryOp::Mul => Some(b),
                _ => return Err(unsupported(span, "this operator on arrays")),
            }
        }
        ExprKind::Call { callee, args, .. } => {
            let ExprKind::Ident(f) = &callee.kind else {
                return Err(unsupported(span, "this call"));
            };
            let mut shapes = Vec::new();
            for a in args {
                shapes.push(shape(&a.value, env)?);
            }
            match (f.as_str(), shapes.as_mut_slice()) {
                (_, s) if s.iter().all(Option::is_none) => None,
                ("transpose", [Some(d)]) if d.len() == 2 => Some(vec![d[1].clone(), d[0].clone()]),
                (f, [Some(d)]) if ELEMENTWISE.contains(&f) => Some(std::mem::take(d)),
                ("min" | "max", [a, b]) => match (a.take(), b.take()) {
                    (Some(a), Some(b)) if a.len() == b.len() => Some(a),
                    (Some(a), None) | (None, Some(a)) => Some(a),
                    _ => return Err(unsupported(span, &format!("`{f}` of these arrays"))),
                },
                _ => return Err(unsupported(span, &format!("`{f}` of an array"))),
            }
        }
        _ => return Err(unsupported(span, "this expression")),
    })
}

fn known_dims(n: &str, dims: &[Option<Expr>], span: Span) -> Result<Vec<Expr>, Diagnostic> {
    dims.iter()
        .enumerate()
        .map(|(d, s)| s.clone().ok_or_else(|| unknown_size(n, d, span)))
        .collect()
}

/// One subscript of a slice.
enum Slot<'e> {
    /// `:`
    All,
    /// `start..end`, plus `offset` (`p + (a..b)`).
    Range { start: &'e Expr, end: &'e Expr, offset: Option<&'e Expr> },
    /// A scalar position.
    At(&'e Expr),
}

fn slot<'e>(e: &'e Expr, env: &Env) -> Result<Slot<'e>, Diagnostic> {
    let e = unparen(e);
    let range = |r: &'e Expr| match &unparen(r).kind {
        ExprKind::Range { start, step: None, end } => Some((start.as_ref(), end.as_ref())),
        _ => None,
    };
    Ok(match &e.kind {
        ExprKind::Colon => Slot::All,
        ExprKind::Range { step: Some(_), .. } => {
            return Err(unsupported(e.span, "a range with a step"))
        }
        _ if range(e).is_some() => {
            let (start, end) = range(e).unwrap_or((e, e));
            Slot::Range { start, end, offset: None }
        }
        ExprKind::Binary { op: BinaryOp::Add, lhs, rhs } if range(rhs).is_some() => {
            let (start, end) = range(rhs).unwrap_or((e, e));
            Slot::Range { start, end, offset: Some(lhs.as_ref()) }
        }
        ExprKind::Binary { op: BinaryOp::Add, lhs, rhs } if range(lhs).is_some() => {
            let (start, end) = range(lhs).unwrap_or((e, e));
            Slot::Range { start, end, offset: Some(rhs.as_ref()) }
        }
        _ if shape(e, env)?.is_some() => {
            return Err(unsupported(e.span, "indexing with a list of positions"))
        }
        _ => Slot::At(e),
    })
}

/// `e` at the position `ks` of its shape (`e` has a shape of `ks.len()` dimensions).
fn element(e: &Expr, ks: &[Expr], env: &Env) -> Result<Expr, Diagnostic> {
    let e = unparen(e);
    let span = e.span;
    if shape(e, env)?.is_none() {
        return Ok(e.clone());
    }
    Ok(match &e.kind {
        ExprKind::Ident(_) => Expr::new(
            ExprKind::Index {
                base: Box::new(e.clone()),
                indices: ks.iter().cloned().map(arg).collect(),
            },
            span,
        ),
        ExprKind::Index { base, indices } => {
            let mut k = ks.iter();
            let mut out = Vec::new();
            for ix in indices {
                let at = match slot(&ix.value, env)? {
                    Slot::At(x) => x.clone(),
                    Slot::All => k.next().cloned().unwrap_or_else(|| number("0", span)),
                    Slot::Range { start, offset, .. } => {
                        let kk = k.next().cloned().unwrap_or_else(|| number("0", span));
                        let first = match offset {
                            Some(o) => binary(BinaryOp::Add, o.clone(), start.clone(), span),
                            None => start.clone(),
                        };
                        binary(BinaryOp::Add, first, kk, span)
                    }
                };
                out.push(Arg { name: ix.name.clone(), value: at });
            }
            Expr::new(ExprKind::Index { base: base.clone(), indices: out }, span)
        }
        ExprKind::Unary { op, operand } => Expr::new(
            ExprKind::Unary { op: *op, operand: Box::new(element(operand, ks, env)?) },
            span,
        ),
        ExprKind::Binary { op, lhs, rhs } => {
            // On elements the operators are the scalar ones.
            let op = match op {
                BinaryOp::ElemMul => BinaryOp::Mul,
                BinaryOp::ElemDiv => BinaryOp::Div,
                BinaryOp::ElemPow => BinaryOp::Pow,
                op => *op,
            };
            paren(binary(op, element(lhs, ks, env)?, element(rhs, ks, env)?, span))
        }
        ExprKind::Call { callee, args, .. } => {
            if matches!(&callee.kind, ExprKind::Ident(f) if f == "transpose") {
                let swapped: Vec<Expr> = ks.iter().rev().cloned().collect();
                let inner = args.first().map(|a| &a.value).unwrap_or(e);
                return element(inner, &swapped, env);
            }
            let mut out = Vec::new();
            for a in args {
                out.push(Arg { name: a.name.clone(), value: element(&a.value, ks, env)? });
            }
            Expr::new(
                ExprKind::Call {
                    callee: callee.clone(),
                    args: out,
                    style: crate::syntax::ast::CallStyle::Paren,
                },
                span,
            )
        }
        _ => return Err(unsupported(span, "this expression")),
    })
}

/// The statements that fill the designated variable `name` from `init`, and its dimensions
/// when it is an array in shared memory (else a scalar broadcast); `thread` is the thread's index in its
/// block and `size` the block's size.
pub(super) fn fetch(
    name: &str,
    init: &Expr,
    (thread, size): (Expr, Expr),
    env: &Env,
    span: Span,
) -> Result<(Vec<Stmt>, Option<Vec<Expr>>), Diagnostic> {
    let Some(dims) = shape(init, env)? else {
        // A scalar: the first thread computes it, every thread reads it after the barrier.
        let cell = format!("{name}__sh");
        let first = binary(BinaryOp::Eq, thread, number("0", span), span);
        let at0 = index(ident(&cell, span), number("0", span), span);
        let alloc = shared_call(&[number("1", span)], span);
        let stmts = vec![
            stmt(assign(AssignOp::Assign, ident(&cell, span), alloc, span), span),
            Stmt {
                kind: StmtKind::If {
                    branches: vec![(
                        first,
                        vec![stmt(assign(AssignOp::Assign, at0.clone(), init.clone(), span), span)],
                    )],
                    else_body: None,
                },
                span,
            },
            super::shared_designators::syncthreads(span),
            stmt(assign(AssignOp::Assign, ident(name, span), at0, span), span),
        ];
        return Ok((stmts, None));
    };
    let kx: Vec<Expr> = (0..dims.len()).map(|d| ident(&format!("{name}__k{d}"), span)).collect();
    let value = element(init, &kx, env)?;
    let target = Expr::new(
        ExprKind::Index {
            base: Box::new(ident(name, span)),
            indices: kx.into_iter().map(arg).collect(),
        },
        span,
    );
    let fill = stmt(assign(AssignOp::Assign, target, value, span), span);
    let alloc = shared_call(&dims, span);
    let stmts = vec![
        stmt(assign(AssignOp::Assign, ident(name, span), alloc, span), span),
        distribute(name, &dims, (thread, size), fill, span),
        super::shared_designators::syncthreads(span),
    ];
    Ok((stmts, Some(dims)))
}

/// `for P__i = thread..size..numel-1`, with `P__k0…` the row-major position of `P__i` in an
/// array of `dims`, around `fill` (which uses those positions): the block's threads share
/// the elements.
fn distribute(
    prefix: &str,
    dims: &[Expr],
    (thread, size): (Expr, Expr),
    fill: Stmt,
    span: Span,
) -> Stmt {
    let r = dims.len();
    let i = format!("{prefix}__i");
    let product = |ds: &[Expr]| {
        ds.iter().cloned().reduce(|a, b| times(a, b, span)).unwrap_or_else(|| number("1", span))
    };
    let mut body = Vec::new();
    // Row-major positions from the linear index: `k_d = mod(floor(i / (d_{d+1}…)), d_d)`.
    for d in 0..r {
        let lin = ident(&i, span);
        let above = if d + 1 == r {
            lin
        } else {
            let q = binary(BinaryOp::Div, lin, product(&dims[d + 1..]), span);
            call("int", vec![arg(call("floor", vec![arg(q)], span))], span)
        };
        let k =
            if d == 0 { above } else { call("mod", vec![arg(above), arg(dims[d].clone())], span) };
        let kd = format!("{prefix}__k{d}");
        body.push(stmt(assign(AssignOp::Assign, ident(&kd, span), k, span), span));
    }
    body.push(fill);
    let count = product(dims);
    let last = match int_of(&count) {
        Some(n) => number(&(n - 1).to_string(), span),
        None => binary(BinaryOp::Sub, count, number("1", span), span),
    };
    let iter = Expr::new(
        ExprKind::Range {
            start: Box::new(thread),
            step: Some(Box::new(size)),
            end: Box::new(last),
        },
        span,
    );
    Stmt { kind: StmtKind::For { var: Ident { name: i, span }, iter, body }, span }
}

/// A store of an expression of designated variables into a slice (manual §9.2: `A[0..9,
/// 0..9] = transpose(B)`), distributed over the block's threads as a fetch is: `None` when
/// `lhs op= rhs` is not one (the target is not a slice, or `rhs` is a scalar); `prefix`
/// names the loop's variables.
pub(super) fn store(
    prefix: &str,
    (lhs, op, rhs): (&Expr, AssignOp, &Expr),
    block: impl FnOnce() -> Result<(Expr, Expr), Diagnostic>,
    env: &Env,
) -> Result<Option<Stmt>, Diagnostic> {
    let span = lhs.span;
    if !matches!(unparen(lhs).kind, ExprKind::Index { .. }) {
        return Ok(None);
    }
    // Not a store: a value the fetch's rules do not cover element by element (`sum(B)`) is
    // computed by each thread as written.
    let (Ok(Some(dims)), Ok(Some(from))) = (shape(lhs, env), shape(rhs, env)) else {
        return Ok(None);
    };
    if dims.len() != from.len() {
        return Err(Diagnostic::error(
            span,
            format!("storing an array of {} dimensions into a slice of {}", from.len(), dims.len()),
        )
        .with_note("give the slice as many ranges as the stored value has dimensions"));
    }
    let kx: Vec<Expr> = (0..dims.len()).map(|d| ident(&format!("{prefix}__k{d}"), span)).collect();
    let target = element(lhs, &kx, env)?;
    let value = element(rhs, &kx, env)?;
    let fill = stmt(assign(op, target, value, span), span);
    Ok(Some(distribute(prefix, &dims, block()?, fill, span)))
}

/// `e` without the parentheses around it.
fn unparen(mut e: &Expr) -> &Expr {
    while let ExprKind::Paren(v) = &e.kind {
        match v.as_slice() {
            [inner] => e = inner,
            _ => break,
        }
    }
    e
}

/// The integer `e` is, when it is a literal (`-1`, `(16)`).
fn int_of(e: &Expr) -> Option<i64> {
    match &unparen(e).kind {
        ExprKind::Number(t) => t.parse().ok(),
        ExprKind::Unary { op: UnaryOp::Neg, operand } => int_of(operand).map(|v| -v),
        _ => None,
    }
}

fn paren(e: Expr) -> Expr {
    let span = e.span;
    Expr::new(ExprKind::Paren(vec![e]), span)
}

/// The number of values of `start..end`, folded when both are literals.
fn length(start: &Expr, end: &Expr, span: Span) -> Expr {
    match (int_of(start), int_of(end)) {
        (Some(a), Some(b)) => number(&(b - a + 1).to_string(), span),
        _ => {
            let diff = binary(BinaryOp::Sub, paren(end.clone()), paren(start.clone()), span);
            paren(binary(BinaryOp::Add, diff, number("1", span), span))
        }
    }
}

/// `a * b`, folded when both are literals.
fn times(a: Expr, b: Expr, span: Span) -> Expr {
    match (int_of(&a), int_of(&b)) {
        (Some(x), Some(y)) => number(&(x * y).to_string(), span),
        _ => paren(binary(BinaryOp::Mul, a, b, span)),
    }
}

fn shared_call(dims: &[Expr], span: Span) -> Expr {
    call("shared", dims.iter().cloned().map(arg).collect(), span)
}

fn unsupported(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("{what} is not supported in the initialiser of a shared memory designator"),
    )
    .with_note(
        "fetch with slices of arrays (`A[0..15, :]`, `img[p + (-2..2)]`), numbers, scalar \
         variables, `+ - .* ./ .^`, element-wise functions and `transpose`; or initialise with \
         `uninit(dims)` and fill it in the kernel",
    )
}

fn unknown_size(n: &str, d: usize, span: Span) -> Diagnostic {
    Diagnostic::error(
        span,
        format!(
            "the size of dimension {d} of `{n}` is not known when compiling, so the shared \
             memory for this designator cannot be sized"
        ),
    )
    .with_note(format!(
        "slice `{n}` with a range of constant length (`{n}[0..15]`), or declare the size in \
         its type (`cube(:, :, 3)`)"
    ))
}

#[cfg(test)]
mod tests {
    use crate::sema::check::tests::errors;
    use crate::span::FileId;

    /// The kernel `src` after the designators' rewrite, printed.
    fn rewritten(src: &str) -> String {
        let parsed = crate::syntax::parse(src, FileId(0));
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let mut diags = Vec::new();
        let p = super::super::shared_designators::rewrite(&parsed.program, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        crate::syntax::printer::print_program(&p)
    }

    #[test]
    fn a_transposed_slice_is_fetched_element_by_element_over_the_block() {
        let p = rewritten(
            "function [] = __kernel__ k(A : mat, a : scalar, y : mat, pos : ivec2)\n  B : 'shared \
             = transpose(a .* A[0..9, 2..7] + 1)\n  y[pos] = B[pos]\nendfunction\n",
        );
        // B is 6 x 10; element (k0, k1) is a * A[k1, 2 + k0] + 1.
        for line in [
            "B = shared(6, 10)",
            "for B__i = blkpos[0] * blkdim[1] + blkpos[1]..blkdim[0] * blkdim[1]..59",
            "B__k0 = int(floor(B__i / 10))",
            "B__k1 = mod(B__i, 10)",
            "B[B__k0, B__k1] = ((a * A[0 + B__k1, 2 + B__k0]) + 1)",
            "syncthreads",
        ] {
            assert!(p.contains(line), "{line} in {p}");
        }
    }

    #[test]
    fn a_store_of_a_designated_variable_into_a_slice_is_shared_by_the_block() {
        let p = rewritten(
            "function [] = __kernel__ k(A : mat, pos : ivec3)\n  B : 'shared = \
             transpose(A[0..9, 2..5])\n  A[0..9, 2..5] = transpose(B) * 2\n  A[pos[0], 0] = \
             sum(B)\nendfunction\n",
        );
        // One barrier between the fetch and the store; A's element (k0, 2 + k1) is B's
        // (k1, k0) times 2; `sum(B)` stays a thread's computation.
        assert_eq!(p.matches("syncthreads").count(), 1, "{p}");
        for line in [
            "for __store1__i = ",
            "__store1__k1 = mod(__store1__i, 4)",
            "A[0 + __store1__k0, 2 + __store1__k1] = (B[__store1__k1, __store1__k0] * 2)",
            "A[pos[0], 0] = sum(B)",
        ] {
            assert!(p.contains(line), "{line} in {p}");
        }
    }

    #[test]
    fn a_window_with_a_declared_channel_count_and_a_scalar_broadcast() {
        let p = rewritten(
            "function [] = __kernel__ k(img : cube(:, :, 3), w : vec, y : cube, pos : ivec2)\n  \
             s : 'shared = img[pos[0] + (-1..1), 4, :]\n  t : 'shared = w[2] * 2\n  y[pos[0], \
             pos[1], 0] = s[0, 0] + t\nendfunction\n",
        );
        for line in [
            "s = shared(3, 3)",
            "s[s__k0, s__k1] = img[pos[0] + -1 + s__k0, 4, s__k1]",
            "t__sh = shared(1)",
            "if blkpos[0] * blkdim[1] + blkpos[1] == 0",
            "t__sh[0] = w[2] * 2",
            "t = t__sh[0]",
        ] {
            assert!(p.contains(line), "{line} in {p}");
        }
    }

    #[test]
    fn what_cannot_be_sized_or_distributed_is_an_error() {
        let e = errors(
            "function [] = __kernel__ k(x : vec, y : vec, pos : int)\n  s : 'shared = x[:]\n  \
             y[pos] = s[0]\nendfunction\n",
        );
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("2:19: the size of dimension 0 of `x` is not known"), "{e:?}");
        let e = errors(
            "function [] = __kernel__ k(x : vec, y : vec, pos : int)\n  s : 'shared = \
             x[0..3] < 1\n  y[pos] = s[0]\nendfunction\n",
        );
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains("2:17: this operator on arrays is not supported in the initialiser"),
            "{e:?}"
        );
    }
}
