//! Cells of function values (manual §3: `vec[[?? -> ??]]`, `cube[[scalar -> scalar]]`): a cell
//! literal of lambdas without parameter types (`{x -> x + 1, x -> 2 * x}`) where a cell of a
//! concrete function type is declared (a variable, a parameter) holds each lambda converted to
//! that type, as a single lambda is (`closure_class.rs`); a variable holding such a cell is
//! declared with that type. Host code keeps such a cell as a
//! dynamic value whose elements are function values (`backend/rust/dynamic.rs`).

use super::closure_class::closure_index;
use super::scope::FnLowerer;
use crate::ir::{self, ExprKind};
use crate::sema::types::{FnType, Type};

/// The function type of the elements of `ty`, a cell (array) of function values.
pub(super) fn fn_elements(ty: &Type) -> Option<&FnType> {
    match ty {
        Type::Array(a) => match &a.elem {
            Type::Function(ft) => Some(ft),
            _ => None,
        },
        _ => None,
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `value` where a value of the declared type `target` is expected: a function value
    /// converted to a declared function type (each branch of a `?:` on its own), and each
    /// element of a cell of function values to the declared element type.
    pub(super) fn coerce_to_declared(&mut self, value: ir::Expr, target: &Type) -> ir::Expr {
        if let Type::Function(ft) = target {
            return self.coerce_branches_to_fn(value, ft);
        }
        let Some(ft) = fn_elements(target).cloned() else { return value };
        let (ty, at) = (value.ty.clone(), value.span);
        let items = match value.kind {
            ExprKind::Cell(items) => items,
            // A variable holding a cell of untyped lambdas (`fs = {x -> x + 1, …}; mysum(fs,
            // t)`): declared with the expected type from now on, so that the next pass
            // converts the cell where it is assigned.
            ExprKind::Local(id)
                if self.declared[id.0 as usize].is_none()
                    && matches!(&ty, Type::CellTuple(ts) if ts.iter().any(|t| closure_index(t).is_some())) =>
            {
                self.declared[id.0 as usize] = Some(target.clone());
                self.locals[id.0 as usize].ty = target.clone();
                self.changed = true;
                return ir::Expr::new(ExprKind::Local(id), target.clone(), at);
            }
            kind => return ir::Expr::new(kind, ty, at),
        };
        let items: Vec<ir::Expr> =
            items.into_iter().map(|i| self.coerce_branches_to_fn(i, &ft)).collect();
        let ty = Type::CellTuple(items.iter().map(|i| i.ty.clone()).collect());
        ir::Expr::new(ExprKind::Cell(items), ty, at)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::signatures;

    #[test]
    fn untyped_lambdas_in_a_declared_cell_take_its_element_type() {
        let src = "function y = total(fs : vec[[scalar -> scalar]], x : scalar)\n    y = fs[0](x) + fs[1](x)\nendfunction\nfs : vec[[scalar -> scalar]] = {x -> x + 1, x -> 2 * x}\na = total(fs, 1.5)\nb = total({x -> x * x, x -> x - 1}, 2.0)\n";
        let sigs = signatures(src);
        for at in ["<lambda@4:33>", "<lambda@4:45>", "<lambda@6:12>", "<lambda@6:24>"] {
            assert!(sigs.contains(&format!("{at}(x : scalar)")), "{at}: {sigs}");
        }
    }
}
