//! Automatic kernel generator (manual §17.1.2): an element-wise array expression in host code,
//! `y = a .* x + b .^ 2`, becomes one generated kernel that computes each element in one
//! pass, instead of one library call and one temporary array per operator; `sum(E)`,
//! `mean(E)`, `prod(E)`, `min(E)` and `max(E)` of such an expression become one parallel
//! reduction (the kernel's output, from the identity of the reduction, combined per block on
//! the CPU and atomically on the GPU). `min`/`max` of an empty array run as written (the
//! library's error); of elements that are all NaN they give -inf/+inf where the library gives
//! NaN (both ignore NaNs otherwise).
//!
//! The statement becomes a loop nest over the elements (`fused[i0, i1] = a[i0, i1] * x[i0,
//! i1] + b[i0, i1] .^ 2`), which the loop parallelizer then turns into a kernel and a
//! `parallel_do`, so both back ends compile it like any parallelised loop and the interior
//! pass removes its boundary checks. Operands that are not variables or constants (scalar
//! subexpressions, array-valued calls, slices) are evaluated once before the loop, in source
//! order; scalars become kernel parameters.
//!
//! The fused result equals the library's only when the array operands have equal sizes: that
//! is tested at run time, and when it fails the statement runs as written (the library then
//! broadcasts or reports the mismatch). Only real (`scalar`) arrays of rank 1 to 3 whose size
//! is not fixed at compile time are fused; small fixed vectors (`vec3`) stay as they are.
//!
//! `y = transpose(x)` and the matrix product `c = a * b` of real matrices become such loop
//! nests too (`library_forms.rs`), so that they run as kernels on the device holding the data.
//!
//! The pass runs after the loop parallelizer, so that the loops the programmer wrote are
//! judged as written, and then runs it on the loops it generated only.

use super::parallel_loops::{self, blocks_mut};
use super::PassContext;
use crate::ir::{
    AssignOp, BinaryOp, Block, Builtin, Callee, Const, Expr, ExprKind, Function, FunctionId, Index,
    Local, LocalId, LocalRole, LoopHint, Module, Place, PlaceKind, Stmt, StmtKind, UnaryOp,
};
use crate::sema::types::{Dim, Rank, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;
use std::collections::{HashMap, HashSet};

/// The loop variables of the nests this pass generated, per host function.
pub type Generated = HashMap<FunctionId, HashSet<LocalId>>;

/// Fuses the element-wise array expressions of every host function into kernels.
pub fn run(module: &mut Module, cx: &PassContext) {
    let mut generated = Generated::new();
    for (i, f) in module.functions.iter_mut().enumerate() {
        if f.generic || matches!(f.kind, FunctionKind::Kernel | FunctionKind::Device) {
            continue;
        }
        let mut body = std::mem::take(&mut f.body);
        let mut g = Generator { f, loop_vars: HashSet::new() };
        g.block(&mut body);
        let vars = g.loop_vars;
        f.body = body;
        if !vars.is_empty() {
            generated.insert(FunctionId(i as u32), vars);
        }
    }
    if !generated.is_empty() {
        parallel_loops::parallelize(module, cx, Some(&generated));
    }
}

/// What a value is to the fusion.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A real or integer number: the same for every element.
    Number,
    /// A dynamically sized real array of this rank.
    Array(u8),
    /// Anything else: the expression is not fused.
    Other,
}

fn kind(t: &Type) -> Kind {
    match t {
        Type::Scalar(_) | Type::Int(..) => Kind::Number,
        Type::Array(a) => {
            let dynamic =
                a.shape.as_ref().is_none_or(|s| s.iter().any(|d| !matches!(d, Dim::Known(_))));
            match a.rank {
                Rank::Fixed(r @ 1..=3) if dynamic && matches!(a.elem, Type::Scalar(_)) => {
                    Kind::Array(r)
                }
                _ => Kind::Other,
            }
        }
        _ => Kind::Other,
    }
}

/// The operands of an element-wise operation on arrays, or `None` for a leaf.
fn operands(e: &Expr) -> Option<Vec<&Expr>> {
    let array = |x: &Expr| matches!(kind(&x.ty), Kind::Array(_));
    match &e.kind {
        ExprKind::Binary { op, lhs, rhs } => {
            let ok = match op {
                BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::ElemMul
                | BinaryOp::ElemDiv
                | BinaryOp::ElemPow => true,
                // The matrix product and division are element-wise with a number.
                BinaryOp::Mul => !array(lhs) || !array(rhs),
                BinaryOp::Div => !array(rhs),
                _ => false,
            };
            ok.then(|| vec![lhs.as_ref(), rhs.as_ref()])
        }
        ExprKind::Unary { op: UnaryOp::Neg | UnaryOp::Plus, operand } => Some(vec![operand]),
        ExprKind::Call { callee: Callee::Builtin(b), args } => {
            let two = matches!(b, Builtin::Min | Builtin::Max) && args.len() == 2;
            (Builtin::ELEMENTWISE.contains(b) || two).then(|| args.iter().collect())
        }
        _ => None,
    }
}

/// Whether `e` (of array rank `rank`) is made of element-wise operations on numbers and
/// arrays of that rank.
fn fusible(e: &Expr, rank: u8) -> bool {
    match kind(&e.ty) {
        Kind::Number => true,
        Kind::Array(r) if r == rank => match operands(e) {
            Some(ops) => ops.into_iter().all(|o| fusible(o, rank)),
            None => true,
        },
        _ => false,
    }
}

struct Generator<'f> {
    f: &'f mut Function,
    loop_vars: HashSet<LocalId>,
}

impl Generator<'_> {
    fn block(&mut self, b: &mut Block) {
        for mut s in std::mem::take(b) {
            for inner in blocks_mut(&mut s) {
                self.block(inner);
            }
            match self.statement(&s) {
                Some(stmts) => b.extend(stmts),
                None => b.push(s),
            }
        }
    }

    fn local(&mut self, name: &str, ty: Type, span: Span) -> LocalId {
        self.f.locals.push(Local { name: name.to_string(), ty, role: LocalRole::Var, span });
        LocalId(self.f.locals.len() as u32 - 1)
    }

    /// The statements replacing `y = E`, `y = sum(E)` or `y = mean(E)` when `E` fuses.
    fn statement(&mut self, s: &Stmt) -> Option<Vec<Stmt>> {
        let StmtKind::Assign { place, op: AssignOp::Assign, value } = &s.kind else {
            return None;
        };
        if !matches!(place.kind, PlaceKind::Local(_)) {
            return None;
        }
        if let Some(out) = self.library_form(place, value, s.span) {
            return Some(out);
        }
        let (reduce, expr) = match &value.kind {
            ExprKind::Call {
                callee:
                    Callee::Builtin(
                        b @ (Builtin::Sum
                        | Builtin::Mean
                        | Builtin::Prod
                        | Builtin::Min
                        | Builtin::Max),
                    ),
                args,
            } if args.len() == 1 && matches!(value.ty, Type::Scalar(_)) => (Some(*b), &args[0]),
            _ => (None, value),
        };
        let Kind::Array(rank) = kind(&expr.ty) else { return None };
        if operands(expr).is_none() || !fusible(expr, rank) {
            return None;
        }
        let span = s.span;
        let mut out = Vec::new();
        let mut leaves = Vec::new();
        let mut e = expr.clone();
        self.lift(&mut e, &mut out, &mut leaves);
        let first = *leaves.first()?;
        let vars: Vec<LocalId> =
            (0..rank).map(|k| self.local(&format!("i{k}"), Type::INT, span)).collect();
        let at: Vec<Index> = vars.iter().map(|&v| Index::At(local(v, Type::INT, span))).collect();
        let extents: Vec<Expr> = (0..rank).map(|d| extent(first, rank, d, self.f, span)).collect();
        let element = self.element(&e, &at);
        let (init, inner, result) = match reduce {
            None => {
                let t = self.local("fused", e.ty.clone(), span);
                let alloc = call(Builtin::Uninit, extents.clone(), e.ty.clone(), span);
                let base = Box::new(local(t, e.ty.clone(), span));
                let elem = element.ty.clone();
                let target = Place::new(PlaceKind::Index { base, indices: at }, elem, span);
                (
                    assign(Place::new(PlaceKind::Local(t), e.ty.clone(), span), alloc, span),
                    Stmt { kind: assign_kind(target, AssignOp::Assign, element), span },
                    local(t, e.ty.clone(), span),
                )
            }
            Some(b) => {
                let acc = self.local("acc", value.ty.clone(), span);
                // From the identity of the reduction, which the loop parallelizer turns into
                // the kernel's output (`acc op= parallel_do(…)`, the output from the identity).
                let (start, op) = match b {
                    Builtin::Prod => (1.0, AssignOp::Mul),
                    Builtin::Max => (f64::NEG_INFINITY, AssignOp::Max),
                    Builtin::Min => (f64::INFINITY, AssignOp::Min),
                    _ => (0.0, AssignOp::Add),
                };
                let zero = Expr::new(ExprKind::Const(Const::Scalar(start)), value.ty.clone(), span);
                let place = Place::new(PlaceKind::Local(acc), value.ty.clone(), span);
                let mut total = local(acc, value.ty.clone(), span);
                if b == Builtin::Mean {
                    let n = extent(first, 1, 0, self.f, span);
                    total = binary(BinaryOp::Div, total, n, value.ty.clone());
                }
                (
                    assign(place.clone(), zero, span),
                    Stmt { kind: assign_kind(place, op, element), span },
                    total,
                )
            }
        };
        let nest = loop_nest(&vars, &extents, inner, span);
        self.loop_vars.extend(vars);
        let fused = vec![init, nest, assign(place.clone(), result, span)];
        // With several array operands, their sizes must agree for the fused loop to give
        // what the library gives; else the statement runs as written.
        let mut conds: Vec<Expr> = leaves[1..]
            .iter()
            .flat_map(|&l| (0..rank).map(move |d| (l, d)))
            .map(|(l, d)| {
                let (lhs, rhs) =
                    (extent(first, rank, d, self.f, span), extent(l, rank, d, self.f, span));
                binary(BinaryOp::Eq, lhs, rhs, Type::INT)
            })
            .collect();
        // `min`/`max` of no elements are the library's error.
        if matches!(reduce, Some(Builtin::Min | Builtin::Max)) {
            let n = extent(first, 1, 0, self.f, span);
            conds.insert(0, binary(BinaryOp::Gt, n, int(0, span), Type::INT));
        }
        let cond = conds.into_iter().reduce(|c, eq| binary(BinaryOp::And, c, eq, Type::INT));
        match cond {
            None => out.extend(fused),
            Some(cond) => {
                let whole = match reduce {
                    None => e,
                    Some(b) => call(b, vec![e], value.ty.clone(), span),
                };
                let as_written = assign(place.clone(), whole, span);
                let kind = StmtKind::If { cond, then_body: fused, else_body: vec![as_written] };
                out.push(Stmt { kind, span });
            }
        }
        crate::ir::number::clear_ids(&mut out);
        Some(out)
    }

    /// Evaluates the operands of `e` that are not variables or constants once, before the
    /// loop (in `out`), and collects the distinct array variables it reads (`leaves`).
    fn lift(&mut self, e: &mut Expr, out: &mut Vec<Stmt>, leaves: &mut Vec<LocalId>) {
        let array = matches!(kind(&e.ty), Kind::Array(_));
        if array && operands(e).is_some() {
            for_operands_mut(e, &mut |o| self.lift(o, out, leaves));
            return;
        }
        match e.kind {
            ExprKind::Const(_) => return,
            ExprKind::Local(l) => {
                if array && !leaves.contains(&l) {
                    leaves.push(l);
                }
                return;
            }
            _ => {}
        }
        let span = e.span;
        let name = if array { "operand" } else { "value" };
        let l = self.local(name, e.ty.clone(), span);
        let value = std::mem::replace(e, local(l, e.ty.clone(), span));
        out.push(assign(Place::new(PlaceKind::Local(l), value.ty.clone(), span), value, span));
        if array {
            leaves.push(l);
        }
    }

    /// The value of one element of `e`: array variables indexed `at`, operations on numbers.
    fn element(&self, e: &Expr, at: &[Index]) -> Expr {
        let elem = |t: &Type| match t {
            Type::Array(a) => a.elem.clone(),
            t => t.clone(),
        };
        if !matches!(kind(&e.ty), Kind::Array(_)) {
            return e.clone();
        }
        let mut out = e.clone();
        out.ty = elem(&e.ty);
        match &mut out.kind {
            ExprKind::Local(_) => {
                let kind = ExprKind::Index { base: Box::new(e.clone()), indices: at.to_vec() };
                return Expr::new(kind, elem(&e.ty), e.span);
            }
            ExprKind::Binary { op, .. } => {
                *op = match *op {
                    BinaryOp::ElemMul => BinaryOp::Mul,
                    BinaryOp::ElemDiv => BinaryOp::Div,
                    op => op,
                };
            }
            _ => {}
        }
        for_operands_mut(&mut out, &mut |o| *o = self.element(o, at));
        out
    }
}

/// Calls `f` on each operand of an element-wise operation (see [`operands`]).
fn for_operands_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Binary { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::Unary { operand, .. } => f(operand),
        ExprKind::Call { args, .. } => args.iter_mut().for_each(f),
        _ => {}
    }
}

/// `for v0 = 0..extent0 - 1, for v1 = …` around `inner`.
fn loop_nest(vars: &[LocalId], extents: &[Expr], inner: Stmt, span: Span) -> Stmt {
    let mut nest = inner;
    for (&v, n) in vars.iter().zip(extents).rev() {
        let end = binary(BinaryOp::Sub, n.clone(), int(1, span), Type::INT);
        let (start, step, body) = (int(0, span), int(1, span), vec![nest]);
        let kind = StmtKind::ForRange { var: v, start, step, end, body, hint: LoopHint::Auto };
        nest = Stmt { kind, span };
    }
    nest
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr, ty: Type) -> Expr {
    let span = lhs.span;
    Expr::new(ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) }, ty, span)
}

/// The extent of dimension `d` of array `l`: `numel(l)` for a vector (or with `rank` 1, all
/// of its elements), else `size(l, d)`.
fn extent(l: LocalId, rank: u8, d: u8, f: &Function, span: Span) -> Expr {
    let x = local(l, f.local(l).ty.clone(), span);
    if rank == 1 {
        return call(Builtin::Numel, vec![x], Type::INT, span);
    }
    call(Builtin::Size, vec![x, int(d as i64, span)], Type::INT, span)
}

fn local(l: LocalId, ty: Type, span: Span) -> Expr {
    Expr::new(ExprKind::Local(l), ty, span)
}

fn int(v: i64, span: Span) -> Expr {
    Expr::new(ExprKind::Const(Const::Int(v)), Type::INT, span)
}

fn call(b: Builtin, args: Vec<Expr>, ty: Type, span: Span) -> Expr {
    Expr::new(ExprKind::Call { callee: Callee::Builtin(b), args }, ty, span)
}

fn assign_kind(place: Place, op: AssignOp, value: Expr) -> StmtKind {
    StmtKind::Assign { place, op, value }
}

fn assign(place: Place, value: Expr, span: Span) -> Stmt {
    Stmt { kind: assign_kind(place, AssignOp::Assign, value), span }
}

#[path = "library_forms.rs"]
mod library_forms;

#[cfg(test)]
#[path = "kernel_generator_tests.rs"]
mod tests;
