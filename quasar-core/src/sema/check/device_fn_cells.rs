//! Cells of `__device__` function values given to kernels (`apply_all({sq, scaled}, x)` whose
//! kernel calls `fs[pos[0]](x[pos[1]])`). A kernel cannot take a cell; a cell whose elements
//! are known where it is made has a type listing each element's type
//! (`{[__device__ scalar -> scalar], …}`), so the function given it is specialised for that
//! many elements, and device code takes the elements as captures of their own (`fs.0`,
//! `fs.1`: function values a kernel takes by value), reading `fs[e]` as `e == 0 ? fs.0 :
//! e == 1 ? fs.1 : …` (the last element past the end, as no bounds are checked in kernels
//! by default).

use super::scope::FnLowerer;
use crate::ir::{self, BinaryOp, Const, ExprKind, LocalRole};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::FunctionKind;

/// The elements' types of `ty`, a cell of `__device__` function values of known length.
pub(super) fn device_fn_cell(ty: &Type) -> Option<&[Type]> {
    let Type::CellTuple(items) = ty else { return None };
    let device = |t: &Type| matches!(t, Type::Function(f) if f.kind == FunctionKind::Device);
    (!items.is_empty() && items.iter().all(device)).then_some(items)
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `fs[e]` in device code where `fs` is a captured cell of device function values: the
    /// element, chosen among the element captures (`None` for any other indexing).
    pub(super) fn device_fn_cell_element(
        &mut self,
        base: &ir::Expr,
        subs: &[ir::Index],
        span: Span,
    ) -> Option<ir::Expr> {
        let ExprKind::Local(l) = base.kind else { return None };
        let local = &self.locals[l.0 as usize];
        if !self.in_device_code() || local.role != LocalRole::Capture {
            return None;
        }
        let n = device_fn_cell(&local.ty)?.len();
        let name = local.name.clone();
        let [ir::Index::At(e)] = subs else { return None };
        let mut items: Vec<ir::Expr> =
            (0..n).map(|k| self.lower_name(&format!("{name}.{k}"), span)).collect();
        if let Some(Const::Int(k)) = e.constant() {
            return Some(items.swap_remove(((*k).max(0) as usize).min(n - 1)));
        }
        // `e == 0 ? fs.0 : (e == 1 ? fs.1 : … fs.(n-1))`, `e` evaluated once.
        let (setup, at) = match e.kind {
            ExprKind::Local(_) => (None, e.clone()),
            _ => {
                let (s, v) = self.stored_in_temporary(e.clone());
                (Some(s), v)
            }
        };
        let mut value = items.pop()?;
        for (k, item) in items.into_iter().enumerate().rev() {
            let k = ir::Expr::new(ExprKind::Const(Const::Int(k as i64)), Type::INT, span);
            let cond =
                ExprKind::Binary { op: BinaryOp::Eq, lhs: Box::new(at.clone()), rhs: Box::new(k) };
            let ty = value.ty.clone();
            let kind = ExprKind::Ternary {
                cond: Box::new(ir::Expr::new(cond, Type::INT, span)),
                then: Box::new(item),
                otherwise: Box::new(value),
            };
            value = ir::Expr::new(kind, ty, span);
        }
        Some(match setup {
            None => value,
            Some(s) => {
                let ty = value.ty.clone();
                ir::Expr::new(ExprKind::Sequence(vec![s, value]), ty, span)
            }
        })
    }

    /// `fs.k`, the element `k` of the cell of device function values `fs` of this function,
    /// as device code captures it (`None` for another name).
    pub(super) fn device_fn_cell_name(
        &mut self,
        base: &str,
        field: &str,
        span: Span,
    ) -> Option<ir::Expr> {
        let id = *self.names.get(base)?;
        let local = &self.locals[id.0 as usize];
        if local.role == LocalRole::Capture {
            return None;
        }
        let items = device_fn_cell(&local.ty)?;
        let k: usize = field.parse().ok()?;
        let ty = items.get(k)?.clone();
        let b = self.lower_name(base, span);
        let index = ir::Expr::new(ExprKind::Const(Const::Int(k as i64)), Type::INT, span);
        let kind = ExprKind::Index { base: Box::new(b), indices: vec![ir::Index::At(index)] };
        Some(ir::Expr::new(kind, ty, span))
    }
}

/// `(c ? f : g)(args)` in device code as `c ? f(args) : g(args)` (a choice among function
/// values made by [`FnLowerer::device_fn_cell_element`]): kernels choose among numbers, not
/// among function values. Only one branch runs, so the arguments are still evaluated once.
pub(super) fn call_each_branch(
    f: ir::Expr,
    args: Vec<ir::Expr>,
    ty: &Type,
    span: Span,
) -> ir::Expr {
    match f.kind {
        ExprKind::Ternary { cond, then, otherwise } => {
            let then = call_each_branch(*then, args.clone(), ty, span);
            let otherwise = call_each_branch(*otherwise, args, ty, span);
            let kind =
                ExprKind::Ternary { cond, then: Box::new(then), otherwise: Box::new(otherwise) };
            ir::Expr::new(kind, ty.clone(), span)
        }
        ExprKind::Sequence(mut items) if !items.is_empty() => {
            let last = items.pop().map(|l| call_each_branch(l, args, ty, span));
            items.extend(last);
            ir::Expr::new(ExprKind::Sequence(items), ty.clone(), span)
        }
        kind => {
            let f = ir::Expr::new(kind, f.ty, f.span);
            let callee = ir::Callee::Value(Box::new(f));
            ir::Expr::new(ExprKind::Call { callee, args }, ty.clone(), span)
        }
    }
}

/// Whether `f` is a choice among function values ([`call_each_branch`] calls each).
pub(super) fn is_choice(f: &ir::Expr) -> bool {
    match &f.kind {
        ExprKind::Ternary { .. } => true,
        ExprKind::Sequence(items) => items.last().is_some_and(is_choice),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{errors, signatures};

    #[test]
    fn a_kernel_takes_the_elements_of_a_cell_of_device_functions() {
        let src = "function y = each(fs : vec[[__device__ scalar -> scalar]], x : scalar)\n    y = zeros(numel(fs))\n    parallel_do(numel(fs), __kernel__ (pos : int) -> y[pos] = fs[pos](x))\nendfunction\nfunction y = run(x : scalar)\n    y = each({__device__ (t : scalar) -> t * t, __device__ (t : scalar) -> t + 1}, x)\nendfunction\n";
        assert!(errors(src).is_empty(), "{:?}", errors(src));
        let sigs = signatures(src);
        assert!(
            sigs.contains("captures fs.0 : [__device__ (scalar) -> (scalar)], fs.1 : [__device__ (scalar) -> (scalar)]"),
            "{sigs}"
        );
        assert!(
            sigs.contains(
                "each(fs : {[__device__ (scalar) -> (scalar)], [__device__ (scalar) -> (scalar)]}"
            ),
            "{sigs}"
        );
    }

    #[test]
    fn a_kernel_parameter_holding_such_a_cell_takes_its_elements() {
        let src = "function y = run(x : scalar)\n    y = zeros(2)\n    fs = {__device__ (t : scalar) -> t * t, __device__ (t : scalar) -> t + 1}\n    parallel_do(2, y, fs, __kernel__ (y : vec, fs : vec[[__device__ scalar -> scalar]], pos : int) -> y[pos] = fs[pos](x))\nendfunction\n";
        assert!(errors(src).is_empty(), "{:?}", errors(src));
        let sigs = signatures(src);
        assert!(
            sigs.contains("(y : vec2, fs.0 : [__device__ (scalar) -> (scalar)], fs.1 : [__device__ (scalar) -> (scalar)], pos : int)"),
            "{sigs}"
        );
    }
}
