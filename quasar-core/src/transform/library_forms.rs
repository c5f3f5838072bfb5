//! Library calls that the kernel generator writes as loop nests over the elements of their
//! result, which the loop parallelizer then turns into kernels: they run on the device that
//! holds the data, instead of in the library on the host (which downloads the operands from a
//! GPU and leaves the result on the host, for the next kernel to upload again).
//!
//! * `y = transpose(x)` (and `herm_transpose`, the same for real elements) of a real matrix:
//!   `fused[i1, i0] = x[i0, i1]` over the elements of `x`, under a run-time test that `x` has
//!   two dimensions (the library transposes vectors) and, for `f32` elements, that the
//!   scheduler picks the GPU (on the CPU the library's transpose in 8 × 8 AVX2 blocks is
//!   about twice as fast as the kernel). Over `x`'s elements, as a hand-written
//!   transpose kernel: the CPU's tiles then read along rows and write across them, which
//!   stalls less than reading across; each thread still overwrites one element of `fused`
//!   (at its position's components swapped), so the result is not uploaded to a GPU.
//! * `c = a * b`, the product of real matrices: `dot = 0; for k …: dot += a[i0, k] * b[k, i1];
//!   fused[i0, i1] = dot`, under a run-time test that both have two dimensions that agree, and
//!   that the scheduler picks the GPU for its `m·n·k` multiply-adds (`schedule`, manual
//!   §17.2.5). On the CPU the library's product stays: it packs panels of `a` and `b` for a
//!   vectorised micro-kernel, as BLAS does, and was measured 5-8 times faster than the kernel's
//!   strips of row pairs at 512 and 1024 (BENCHMARKS.md).
//!
//! Otherwise the statement runs as written. Operands that are not variables are evaluated
//! once, first.

use super::{assign, assign_kind, binary, call, int, kind, local, loop_nest, Generator, Kind};
use crate::ir::{
    AssignOp, BinaryOp, Builtin, Callee, Const, Expr, ExprKind, Index, LocalId, LoopHint, Place,
    PlaceKind, Stmt, StmtKind,
};
use crate::sema::types::{Precision, Type};
use crate::span::Span;

impl Generator<'_> {
    /// The statements replacing `y = transpose(x)` or `y = a * b` (see the module
    /// documentation), if `value` is one of them on real matrices.
    pub(super) fn library_form(
        &mut self,
        place: &Place,
        value: &Expr,
        span: Span,
    ) -> Option<Vec<Stmt>> {
        let (transpose, args) = match &value.kind {
            ExprKind::Call {
                callee: Callee::Builtin(b @ (Builtin::Transpose | Builtin::HermTranspose)),
                args,
            } if args.len() == 1 => (Some(*b), vec![&args[0]]),
            ExprKind::Binary { op: BinaryOp::Mul, lhs, rhs } => (None, vec![&**lhs, &**rhs]),
            _ => return None,
        };
        if kind(&value.ty) != Kind::Array(2) || args.iter().any(|a| kind(&a.ty) != Kind::Array(2)) {
            return None;
        }
        let Type::Array(result) = &value.ty else { return None };
        let elem = result.elem.clone();
        let mut out = Vec::new();
        let ops: Vec<Expr> = args.iter().map(|a| self.operand(a, &mut out, span)).collect();
        let vars: Vec<LocalId> =
            (0..2).map(|k| self.local(&format!("i{k}"), Type::INT, span)).collect();
        let at = |v: LocalId| Index::At(local(v, Type::INT, span));
        let size =
            |e: &Expr, d: i64| call(Builtin::Size, vec![e.clone(), int(d, span)], Type::INT, span);
        let two_dims = |e: &Expr| {
            let n = call(Builtin::Ndims, vec![e.clone()], Type::INT, span);
            binary(BinaryOp::Eq, n, int(2, span), Type::INT)
        };
        // `schedule(work, operands…, 2) == 0`: the scheduler runs the kernel on the GPU (manual
        // §17.2.5); on the CPU the library's forms are the faster ones (BENCHMARKS.md).
        let gpu_picked = |work: Expr, operands: &[&Expr]| {
            let mut args = vec![work];
            args.extend(operands.iter().map(|&e| e.clone()));
            args.push(int(2, span));
            let choice = call(Builtin::Schedule, args, Type::INT, span);
            binary(BinaryOp::Eq, choice, int(0, span), Type::INT)
        };
        let element = |e: &Expr, i: LocalId, j: LocalId| {
            let kind = ExprKind::Index { base: Box::new(e.clone()), indices: vec![at(i), at(j)] };
            Expr::new(kind, elem.clone(), span)
        };
        let t = self.local("fused", value.ty.clone(), span);
        let fused_at = |i: LocalId, j: LocalId| {
            let base = Box::new(local(t, value.ty.clone(), span));
            let kind = PlaceKind::Index { base, indices: vec![at(i), at(j)] };
            Place::new(kind, elem.clone(), span)
        };
        // The loops' extents, then the result's.
        let (extents, dims, body, cond, whole) = match transpose {
            Some(b) => {
                let x = &ops[0];
                let write = assign(fused_at(vars[1], vars[0]), element(x, vars[0], vars[1]), span);
                let whole = call(b, vec![x.clone()], value.ty.clone(), span);
                let dims = vec![size(x, 1), size(x, 0)];
                // `f32` elements: on the CPU the library's transpose in AVX2 blocks is faster.
                let cond = if elem == Type::Scalar(Precision::Single) {
                    let n = binary(BinaryOp::Mul, size(x, 0), size(x, 1), Type::INT);
                    binary(BinaryOp::And, two_dims(x), gpu_picked(n, &[x]), Type::INT)
                } else {
                    two_dims(x)
                };
                (vec![size(x, 0), size(x, 1)], dims, vec![write], cond, whole)
            }
            None => {
                let (a, b) = (&ops[0], &ops[1]);
                let dot = self.local("dot", elem.clone(), span);
                let k = self.local("k", Type::INT, span);
                let acc = Place::new(PlaceKind::Local(dot), elem.clone(), span);
                let term = binary(
                    BinaryOp::Mul,
                    element(a, vars[0], k),
                    element(b, k, vars[1]),
                    elem.clone(),
                );
                let add = Stmt { kind: assign_kind(acc.clone(), AssignOp::Add, term), span };
                let zero = Expr::new(ExprKind::Const(Const::Scalar(0.0)), elem.clone(), span);
                let body = vec![
                    assign(acc, zero, span),
                    loop_nest(&[k], &[size(a, 1)], add, span),
                    assign(fused_at(vars[0], vars[1]), local(dot, elem.clone(), span), span),
                ];
                let mn = binary(BinaryOp::Mul, size(a, 0), size(b, 1), Type::INT);
                let work = binary(BinaryOp::Mul, mn, size(a, 1), Type::INT);
                let cond = [
                    two_dims(a),
                    two_dims(b),
                    binary(BinaryOp::Eq, size(a, 1), size(b, 0), Type::INT),
                    gpu_picked(work, &[a, b]),
                ]
                .into_iter()
                .reduce(|c, x| binary(BinaryOp::And, c, x, Type::INT))?;
                let product = ExprKind::Binary {
                    op: BinaryOp::Mul,
                    lhs: Box::new(a.clone()),
                    rhs: Box::new(b.clone()),
                };
                let whole = Expr::new(product, value.ty.clone(), span);
                let extents = vec![size(a, 0), size(b, 1)];
                (extents.clone(), extents, body, cond, whole)
            }
        };
        // The row loop holds the body; the loop over rows holds it.
        let end = binary(BinaryOp::Sub, extents[1].clone(), int(1, span), Type::INT);
        let row = StmtKind::ForRange {
            var: vars[1],
            start: int(0, span),
            step: int(1, span),
            end,
            body,
            hint: LoopHint::Auto,
        };
        let nest = loop_nest(&vars[..1], &extents[..1], Stmt { kind: row, span }, span);
        self.loop_vars.extend(vars);
        let alloc = call(Builtin::Uninit, dims, value.ty.clone(), span);
        let fused_place = Place::new(PlaceKind::Local(t), value.ty.clone(), span);
        let fused = vec![
            assign(fused_place, alloc, span),
            nest,
            assign(place.clone(), local(t, value.ty.clone(), span), span),
        ];
        let as_written = assign(place.clone(), whole, span);
        let kind = StmtKind::If { cond, then_body: fused, else_body: vec![as_written] };
        out.push(Stmt { kind, span });
        crate::ir::number::clear_ids(&mut out);
        Some(out)
    }

    /// A matrix operand as a variable: itself, or a new variable assigned it first.
    fn operand(&mut self, x: &Expr, out: &mut Vec<Stmt>, span: Span) -> Expr {
        let l = match x.kind {
            ExprKind::Local(l) => l,
            _ => {
                let l = self.local("operand", x.ty.clone(), span);
                let place = Place::new(PlaceKind::Local(l), x.ty.clone(), span);
                out.push(assign(place, x.clone(), span));
                l
            }
        };
        local(l, x.ty.clone(), span)
    }
}
