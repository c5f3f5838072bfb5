//! Shared memory designators (manual §9.2), rewritten into the low-level form before type
//! checking, as the manual's own expansion does:
//!
//! * `S : 'shared = uninit(dims…)` at the top level of a kernel body is `S = shared(dims…)`;
//! * `S : 'shared = zeros(dims…)` is `S = shared_zeros(dims…)` followed by `syncthreads`
//!   (the block's threads fill it);
//! * a later top-level `A[:] op= S` ("gather and store") is distributed over the block's
//!   threads: `syncthreads`, then each thread handles the elements `t, t + n, …` where `t` is
//!   its index in the block and `n` the block's size (from `blkpos`/`blkdim`, added to the
//!   kernel's special parameters when it does not declare them). With `+=` the threads of
//!   all blocks combine atomically, as every `+=` on array elements in a kernel does.
//!
//! * `S : 'shared = expr` with any other initialiser is a fetch and broadcast
//!   (`shared_fetch.rs`): the block computes `expr` into shared memory, its threads sharing
//!   the elements, then synchronises.
//!
//! * a top-level `for` loop that fills designated variables is shared by the block's threads
//!   (`shared_calc.rs`).
//!
//! Designators in loops and in device functions are compile errors that say what to write
//! instead.

use super::shared_calc::share_loop;
use super::shared_fetch::{add_params, fetch, store, Env};
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{
    Arg, AssignOp, BinaryOp, CallStyle, Expr, ExprKind, FunctionDef, FunctionKind, Ident, Param,
    Program, Stmt, StmtKind, TypeExpr, TypeKind,
};
use std::borrow::Cow;

/// `program` with its shared memory designators rewritten (borrowed when it has none).
pub(super) fn rewrite<'p>(program: &'p Program, diags: &mut Vec<Diagnostic>) -> Cow<'p, Program> {
    if !any_designator(&program.body) {
        return Cow::Borrowed(program);
    }
    let mut p = program.clone();
    rewrite_body(&mut p.body, diags, &Env::new(), FunctionKind::Host);
    Cow::Owned(p)
}

/// Whether `body` (nested functions included) declares a `'shared` variable.
fn any_designator(body: &[Stmt]) -> bool {
    body.iter().any(|s| designator(s).is_some() || children(s).into_iter().any(any_designator))
}

/// The statement bodies inside `s`, nested function bodies included.
fn children(s: &Stmt) -> Vec<&[Stmt]> {
    match &s.kind {
        StmtKind::If { branches, else_body } => {
            branches.iter().map(|(_, b)| b.as_slice()).chain(else_body.as_deref()).collect()
        }
        StmtKind::For { body, .. }
        | StmtKind::While { body, .. }
        | StmtKind::Repeat { body, .. } => {
            vec![body]
        }
        StmtKind::Match { arms, .. } => arms.iter().map(|a| a.body.as_slice()).collect(),
        StmtKind::Try { body, catch_body, .. } => vec![body, catch_body],
        StmtKind::Function(f) => vec![&f.body],
        _ => Vec::new(),
    }
}

/// `S : 'shared = init`: the name, its span and the initialiser.
fn designator(s: &Stmt) -> Option<(String, Span, &Expr)> {
    let StmtKind::Expr(Expr { kind: ExprKind::Assign { op: AssignOp::Assign, lhs, rhs }, .. }) =
        &s.kind
    else {
        return None;
    };
    let ExprKind::Annotated { expr, ty } = &lhs.kind else { return None };
    let ExprKind::Ident(name) = &expr.kind else { return None };
    is_shared(ty).then(|| (name.clone(), expr.span, rhs.as_ref()))
}

fn is_shared(ty: &TypeExpr) -> bool {
    ty.modifiers.iter().any(|m| m.name.name == "shared")
}

/// Rewrites the kernels among the functions defined in `body` (at any depth) and reports
/// designators outside kernel bodies.
/// `env` holds the arrays of the enclosing functions' parameters (a nested kernel reads them).
/// `kind` is the kind of the function `body` belongs to (host for the script).
fn rewrite_body(body: &mut [Stmt], diags: &mut Vec<Diagnostic>, env: &Env, kind: FunctionKind) {
    let mut parallel = false;
    for s in body.iter_mut() {
        let after_parallel = std::mem::replace(&mut parallel, is_parallel_for(s));
        if let (true, StmtKind::For { body, .. }) = (after_parallel, &mut s.kind) {
            // The body of the innermost of perfectly nested loops (`blkdim=[M, N]` over two).
            rewrite_parallel_loop(body, diags);
        }
        if let Some((name, span, _)) = designator(s) {
            // Not at the top level of a kernel body (those were rewritten by `rewrite_kernel`).
            diags.push(misplaced(&name, span, kind));
            continue;
        }
        match &mut s.kind {
            StmtKind::Function(f) => {
                let mut inner = env.clone();
                add_params(&mut inner, &f.params);
                if f.kind == FunctionKind::Kernel {
                    rewrite_kernel(f, diags, &inner);
                }
                rewrite_body(&mut f.body, diags, &inner, f.kind);
            }
            StmtKind::If { branches, else_body } => {
                for (_, b) in branches {
                    rewrite_body(b, diags, env, kind);
                }
                if let Some(b) = else_body {
                    rewrite_body(b, diags, env, kind);
                }
            }
            StmtKind::For { body, .. }
            | StmtKind::While { body, .. }
            | StmtKind::Repeat { body, .. } => rewrite_body(body, diags, env, kind),
            StmtKind::Match { arms, .. } => {
                for a in arms {
                    rewrite_body(&mut a.body, diags, env, kind);
                }
            }
            StmtKind::Try { body, catch_body, .. } => {
                rewrite_body(body, diags, env, kind);
                rewrite_body(catch_body, diags, env, kind);
            }
            _ => {}
        }
    }
}

/// The error for the designator `name : 'shared` where it cannot be, in a function of `kind`:
/// host code has no thread block, device functions take shared memory from their kernel
/// (manual §9.2, table 9.2), and in a kernel only its body's top level allocates.
fn misplaced(name: &str, span: Span, kind: FunctionKind) -> Diagnostic {
    match kind {
        FunctionKind::Host | FunctionKind::ExplicitHost => Diagnostic::error(
            span,
            format!(
                "the shared memory designator `{name} : 'shared` is outside any kernel: shared \
                 memory belongs to a block of GPU threads, which host code does not have"
            ),
        )
        .with_note(
            "declare it at the top level of a `__kernel__` function's body or of a \
             `{!parallel for}` loop's body (manual §9.2); in host code, a plain variable \
             (`S = uninit(M, N, K)`) holds the array",
        ),
        FunctionKind::Device => Diagnostic::error(
            span,
            format!(
                "the shared memory designator `{name} : 'shared` cannot be used in a \
                 `__device__` function (manual §9.2, table 9.2)"
            ),
        )
        .with_note("declare it in the kernel that calls the function and pass it as an argument"),
        FunctionKind::Kernel => Diagnostic::error(
            span,
            format!("the shared memory designator `{name} : 'shared` is not supported here"),
        )
        .with_note(
            "declare designated shared variables at the top level of a `__kernel__` \
             function's body (manual §9.2), or use `shared(dims)` and a loop",
        ),
    }
}

/// Whether `s` is the attribute `{!parallel for…}`.
fn is_parallel_for(s: &Stmt) -> bool {
    let StmtKind::Attribute(a) = &s.kind else { return false };
    a.items.iter().any(|i| {
        let words: Vec<&str> = i.name.iter().map(|w| w.name.as_str()).collect();
        words == ["parallel", "for"]
    })
}

/// The body of a `{!parallel for}` loop runs as a kernel, a block of threads at a time
/// (manual §9.2.3.3): its top-level `S : 'shared = uninit(…)` / `zeros(…)` allocate the
/// block's shared memory, as in a kernel.
fn rewrite_parallel_loop(body: &mut Vec<Stmt>, diags: &mut Vec<Diagnostic>) {
    // Perfectly nested loops (`blkdim=[M, N]` over two): the innermost body.
    if let [Stmt { kind: StmtKind::For { body: inner, .. }, .. }] = body.as_mut_slice() {
        return rewrite_parallel_loop(inner, diags);
    }
    let mut out = Vec::with_capacity(body.len());
    for s in std::mem::take(body) {
        let Some((name, name_span, init)) = designator(&s) else {
            out.push(s);
            continue;
        };
        let alloc = match &init.kind {
            ExprKind::Call { callee, args, .. } => match &callee.kind {
                ExprKind::Ident(c) if c == "uninit" => Some(("shared", args.clone())),
                ExprKind::Ident(c) if c == "zeros" => Some(("shared_zeros", args.clone())),
                _ => None,
            },
            _ => None,
        };
        let Some((alloc, args)) = alloc else {
            diags.push(
                Diagnostic::error(
                    name_span,
                    format!("in a `{{!parallel for}}` loop, the shared memory designator `{name} : 'shared` takes `uninit(…)` or `zeros(…)`"),
                )
                .with_note("compute the values in the loop body after allocating the variable"),
            );
            out.push(s);
            continue;
        };
        let span = s.span;
        let call = call(alloc, args, init.span);
        out.push(stmt(assign(AssignOp::Assign, ident(&name, name_span), call, span), span));
        if alloc == "shared_zeros" {
            out.push(syncthreads(span));
        }
    }
    *body = out;
}

/// Rewrites the top-level designators of kernel `f` and the stores of those variables.
fn rewrite_kernel(f: &mut FunctionDef, diags: &mut Vec<Diagnostic>, env: &Env) {
    let mut designated: Vec<String> = Vec::new();
    // The arrays with their sizes, the designated ones included once declared.
    let mut env = env.clone();
    let mut out = Vec::with_capacity(f.body.len());
    let body = std::mem::take(&mut f.body);
    for (i, s) in body.iter().cloned().enumerate() {
        // A loop filling designated variables: shared by the block's threads (§9.2.1).
        let block = |f: &mut FunctionDef| block_thread(f, s.span).ok();
        if let Some(shared) = share_loop(&s, &body[i + 1..], &designated, || block(f)) {
            out.push(shared);
            out.push(syncthreads(s.span));
            continue;
        }
        if let Some((name, name_span, init)) = designator(&s) {
            let span = s.span;
            let (callee, args) = match &init.kind {
                ExprKind::Call { callee, args, .. } => match &callee.kind {
                    ExprKind::Ident(c) => (c.as_str(), args.clone()),
                    _ => ("", Vec::new()),
                },
                _ => ("", Vec::new()),
            };
            let alloc = match callee {
                "uninit" => "shared",
                "zeros" => "shared_zeros",
                _ => {
                    // Fetch and broadcast.
                    let fetched = block_thread(f, span)
                        .and_then(|block| fetch(&name, init, block, &env, span));
                    match fetched {
                        Ok((stmts, dims)) => {
                            out.extend(stmts);
                            if let Some(dims) = dims {
                                env.insert(name.clone(), dims.into_iter().map(Some).collect());
                                designated.push(name);
                            }
                        }
                        Err(d) => {
                            diags.push(d);
                            // Checked on as a plain variable, so that this is the only error.
                            let plain = assign(
                                AssignOp::Assign,
                                ident(&name, name_span),
                                init.clone(),
                                span,
                            );
                            out.push(stmt(plain, span));
                        }
                    }
                    continue;
                }
            };
            let dims = args.iter().map(|a| (a.name.is_none()).then(|| a.value.clone())).collect();
            env.insert(name.clone(), dims);
            let call = call(alloc, args, init.span);
            out.push(stmt(assign(AssignOp::Assign, ident(&name, name_span), call, span), span));
            if alloc == "shared_zeros" {
                out.push(syncthreads(span));
            }
            designated.push(name);
            continue;
        }
        if let Some((target, op, shared)) = gather(&s, &designated) {
            match block_thread(f, s.span) {
                Ok((idx, size)) => {
                    let span = s.span;
                    out.push(syncthreads(span));
                    let var = format!("{shared}__i");
                    let at = |name: &str| index(ident(name, span), ident(&var, span), span);
                    let body = vec![stmt(assign(op, at(&target), at(&shared), span), span)];
                    let last = binary(
                        BinaryOp::Sub,
                        call("numel", vec![arg(ident(&shared, span))], span),
                        number("1", span),
                        span,
                    );
                    let iter = Expr::new(
                        ExprKind::Range {
                            start: Box::new(idx),
                            step: Some(Box::new(size)),
                            end: Box::new(last),
                        },
                        span,
                    );
                    out.push(Stmt {
                        kind: StmtKind::For { var: Ident { name: var, span }, iter, body },
                        span,
                    });
                }
                Err(d) => {
                    diags.push(d);
                    out.push(s);
                }
            }
            continue;
        }
        // `A[0..9, 0..9] = transpose(B)`: a store of designated variables into a slice.
        if let StmtKind::Expr(Expr { kind: ExprKind::Assign { op, lhs, rhs }, .. }) = &s.kind {
            if mentions(rhs, &designated) {
                let prefix = format!("__store{i}");
                let block = || block_thread(f, s.span);
                match store(&prefix, (lhs, *op, rhs), block, &env) {
                    Ok(Some(st)) => {
                        // The block's threads have written the designated variables.
                        if !out.last().is_some_and(is_syncthreads) {
                            out.push(syncthreads(s.span));
                        }
                        out.push(st);
                        continue;
                    }
                    Ok(None) => {}
                    Err(d) => diags.push(d),
                }
            }
        }
        out.push(s);
    }
    f.body = out;
}

fn is_syncthreads(s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::Expr(Expr { kind: ExprKind::Call { callee, args, .. }, .. })
        if args.is_empty() && matches!(&callee.kind, ExprKind::Ident(c) if c == "syncthreads"))
}

/// Whether `e` reads one of the variables `names` as a whole (not at a position).
fn mentions(e: &Expr, names: &[String]) -> bool {
    match &e.kind {
        ExprKind::Ident(n) => names.contains(n),
        ExprKind::Paren(xs) => xs.iter().any(|x| mentions(x, names)),
        ExprKind::Unary { operand, .. } => mentions(operand, names),
        ExprKind::Binary { lhs, rhs, .. } => mentions(lhs, names) || mentions(rhs, names),
        ExprKind::Call { args, .. } => args.iter().any(|a| mentions(&a.value, names)),
        _ => false,
    }
}

/// `A[:] op= S` with `S` a designated variable: `(A, op, S)`.
fn gather(s: &Stmt, designated: &[String]) -> Option<(String, AssignOp, String)> {
    let StmtKind::Expr(Expr { kind: ExprKind::Assign { op, lhs, rhs }, .. }) = &s.kind else {
        return None;
    };
    let ExprKind::Ident(shared) = &rhs.kind else { return None };
    if !designated.contains(shared) {
        return None;
    }
    let ExprKind::Index { base, indices } = &lhs.kind else { return None };
    let ExprKind::Ident(target) = &base.kind else { return None };
    match indices.as_slice() {
        [Arg { name: None, value: Expr { kind: ExprKind::Colon, .. } }] => {
            Some((target.clone(), *op, shared.clone()))
        }
        _ => None,
    }
}

/// The thread's index in its block and the block's size, from the kernel's `blkpos` and
/// `blkdim` (added as special parameters of the type of `pos` when not declared).
fn block_thread(f: &mut FunctionDef, span: Span) -> Result<(Expr, Expr), Diagnostic> {
    let rank = |t: &TypeExpr| match &t.kind {
        TypeKind::Named { name, .. } => match name.name.as_str() {
            "int" => Some(1),
            "ivec2" => Some(2),
            "ivec3" => Some(3),
            _ => None,
        },
        _ => None,
    };
    let pos = f.params.iter().find(|p| p.name.name == "pos");
    let Some((pos_ty, r)) =
        pos.and_then(|p| p.ty.as_ref()).and_then(|t| Some((t.clone(), rank(t)?)))
    else {
        return Err(Diagnostic::error(
            span,
            "distributing a shared memory designator over the block needs the kernel's position type",
        )
        .with_note("declare the kernel's `pos` parameter as `int`, `ivec2` or `ivec3`"));
    };
    for special in ["blkpos", "blkdim"] {
        if !f.params.iter().any(|p| p.name.name == special) {
            f.params.push(Param {
                name: Ident { name: special.into(), span: f.name.span },
                ty: Some(pos_ty.clone()),
                default: None,
                variadic: false,
                span: f.name.span,
            });
        }
    }
    let comp = |name: &str, k: usize| {
        if r == 1 {
            ident(name, span)
        } else {
            index(ident(name, span), number(&k.to_string(), span), span)
        }
    };
    let (mut idx, mut size) = (comp("blkpos", 0), comp("blkdim", 0));
    for k in 1..r {
        idx = binary(
            BinaryOp::Add,
            binary(BinaryOp::Mul, idx, comp("blkdim", k), span),
            comp("blkpos", k),
            span,
        );
        size = binary(BinaryOp::Mul, size, comp("blkdim", k), span);
    }
    Ok((idx, size))
}

pub(super) fn ident(name: &str, span: Span) -> Expr {
    Expr::new(ExprKind::Ident(name.to_string()), span)
}

pub(super) fn number(text: &str, span: Span) -> Expr {
    Expr::new(ExprKind::Number(text.to_string()), span)
}

pub(super) fn arg(value: Expr) -> Arg {
    Arg { name: None, value }
}

pub(super) fn call(name: &str, args: Vec<Arg>, span: Span) -> Expr {
    Expr::new(
        ExprKind::Call { callee: Box::new(ident(name, span)), args, style: CallStyle::Paren },
        span,
    )
}

pub(super) fn index(base: Expr, i: Expr, span: Span) -> Expr {
    Expr::new(ExprKind::Index { base: Box::new(base), indices: vec![arg(i)] }, span)
}

pub(super) fn binary(op: BinaryOp, lhs: Expr, rhs: Expr, span: Span) -> Expr {
    Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span)
}

pub(super) fn assign(op: AssignOp, lhs: Expr, rhs: Expr, span: Span) -> Expr {
    Expr::new(ExprKind::Assign { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, span)
}

pub(super) fn stmt(e: Expr, span: Span) -> Stmt {
    Stmt { kind: StmtKind::Expr(e), span }
}

pub(super) fn syncthreads(span: Span) -> Stmt {
    stmt(call("syncthreads", Vec::new(), span), span)
}

#[cfg(test)]
mod tests {
    use crate::sema::check::tests::errors;

    #[test]
    fn designators_outside_the_kernel_top_level_are_errors() {
        let e = errors(
            "function [] = __kernel__ k(x : vec, pos : int)\n  if pos > 0\n    s : 'shared = \
             zeros(4)\n  endif\nendfunction\n",
        );
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains("3:5: the shared memory designator `s : 'shared` is not supported here"),
            "{e:?}"
        );
    }

    #[test]
    fn designators_in_host_and_device_code_say_where_they_belong() {
        let e = errors("S : 'shared = uninit(4, 5, 6)\n");
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(
            e[0].contains("1:1: the shared memory designator `S : 'shared` is outside any kernel"),
            "{e:?}"
        );
        let e = errors(
            "function y = __device__ f(x : scalar)\n  s : 'shared = zeros(4)\n  y = x\nendfunction\n",
        );
        assert!(e.iter().any(|m| m.contains("2:3: the shared memory designator `s : 'shared` cannot be used in a `__device__` function")), "{e:?}");
    }

    #[test]
    fn a_parallel_loop_designator_takes_uninit_or_zeros() {
        let src = "function y = f(x : vec)\n  y = 0.0\n  {!parallel for; blkdim=4}\n  for n = 0..7\n    s : 'shared = x[0..3]\n    y += s[0]\n  endfor\nendfunction\n";
        let e = errors(src);
        assert!(e.iter().any(|m| m.contains("5:5: in a `{!parallel for}` loop, the shared memory designator `s : 'shared` takes `uninit(…)` or `zeros(…)`")), "{e:?}");
        assert!(errors(&src.replace("x[0..3]", "uninit(4)")).is_empty());
    }

    #[test]
    fn a_fetch_in_a_kernel_without_a_typed_position_is_an_error() {
        let e = errors(
            "function [] = __kernel__ k(x : vec, pos)\n  s : 'shared = x[0..3]\n  x[pos] \
             = s[0]\nendfunction\n",
        );
        assert!(e.iter().any(|m| m.contains("needs the kernel's position type")), "{e:?}");
    }
}
