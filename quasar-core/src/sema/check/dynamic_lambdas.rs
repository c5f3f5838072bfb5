//! Untyped lambdas stored in cells of type `vec[??]` on the host (`c = cell(2); c[0] = x ->
//! x + 1`, or `c : vec[??] = {x -> x + 1, x -> 2 * x}`). A dynamic value holds function
//! values of a known function type, whose calls find the function type taking their
//! arguments at run time; an untyped lambda is no one function (`closure_class.rs`). It is
//! stored as its instance for the argument types of the calls through the cell's elements in
//! the same function (`c[k](t)`); where these calls tell no one tuple of types, the store is
//! an error that names the lambda and the cell.

use super::closure_class::{closure_index, with_setup};
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, ExprKind, LocalId};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast;

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Records the argument types of a call through an element of local `id` (`c[k](t)`); a
    /// new tuple makes another pass, so that the lambdas stored before the call take it.
    pub(super) fn note_cell_call(&mut self, id: LocalId, types: &[Type]) {
        if types.iter().any(|t| !t.is_concrete()) {
            return;
        }
        let calls = self.cell_calls.entry(id).or_default();
        if !calls.iter().any(|c| c == types) {
            calls.push(types.to_vec());
            self.changed = true;
        }
    }

    /// Whether local `id` is a cell whose elements are dynamic values (`vec[??]`, declared or
    /// made by `cell(n)`).
    pub(super) fn is_dynamic_cell(&self, id: LocalId) -> bool {
        let dynamic = |t: &Type| matches!(t, Type::Array(a) if a.elem == Type::Unknown);
        dynamic(&self.locals[id.0 as usize].ty)
            || self.declared[id.0 as usize].as_ref().is_some_and(dynamic)
    }

    /// Whether the cell `value` assigned to local `id` by `lhs` holds untyped lambdas that are
    /// stored as dynamic values: host code, and `lhs` declares `vec[??]` or the function
    /// calls through the elements of `id`.
    pub(super) fn stores_lambdas_dynamically(
        &mut self,
        lhs: &ast::Expr,
        id: LocalId,
        value: &ir::Expr,
    ) -> bool {
        let ExprKind::Cell(items) = &value.kind else { return false };
        if self.in_device_code() || !items.iter().any(|i| closure_index(&i.ty).is_some()) {
            return false;
        }
        let declared = match &lhs.kind {
            ast::ExprKind::Annotated { ty, .. } => {
                matches!(self.resolve_type_quiet(ty), Type::Array(a) if a.elem == Type::Unknown)
            }
            _ => false,
        };
        declared || self.cell_calls.contains_key(&id)
    }

    /// `value` stored as an element of the dynamic cell `cell`: an untyped lambda becomes its
    /// instance for the calls through the cell's elements; any other value stays as it is.
    pub(super) fn lambda_into_dynamic_cell(
        &mut self,
        value: ir::Expr,
        cell: LocalId,
        span: Span,
    ) -> ir::Expr {
        if let ExprKind::Cell(items) = value.kind {
            let items: Vec<ir::Expr> =
                items.into_iter().map(|i| self.lambda_into_dynamic_cell(i, cell, span)).collect();
            let ty = Type::CellTuple(items.iter().map(|i| i.ty.clone()).collect());
            return ir::Expr::new(ExprKind::Cell(items), ty, value.span);
        }
        let Some(index) = closure_index(&value.ty) else { return value };
        let name = self.locals[cell.0 as usize].name.clone();
        let calls = self.cell_calls.get(&cell).cloned().unwrap_or_default();
        let types = match calls.as_slice() {
            [types] => types.clone(),
            [] => {
                let d = Diagnostic::error(
                    value.span,
                    format!("a lambda without parameter types stored in `{name}`, a cell of `??` values, needs the types of its parameters"),
                )
                .with_label(format!("this is {}", value.ty))
                .with_note(format!("no call through the elements of `{name}` in this function (`{name}[k](x)`) tells them; give the lambda's parameters types (`(x : scalar) -> …`)"));
                self.report(d);
                return value;
            }
            many => {
                let list: Vec<String> = many
                    .iter()
                    .map(|ts| {
                        let ts: Vec<String> = ts.iter().map(Type::to_string).collect();
                        format!("({})", ts.join(", "))
                    })
                    .collect();
                let d = Diagnostic::error(
                    value.span,
                    format!("a lambda without parameter types stored in `{name}`, a cell of `??` values, is called with different argument types"),
                )
                .with_label(format!("the calls through `{name}` pass {}", list.join(" and ")))
                .with_note("a cell of `??` values holds one function per element; give the lambda's parameters types (`(x : scalar) -> …`)");
                self.report(d);
                return value;
            }
        };
        let lambda = self.cx.closure_classes[index].lambda;
        if !self.lambda_arity_fits(lambda.params(), types.len(), value.span) {
            return value;
        }
        let Some(id) = self.instantiate_closure_class(index, &value.ty, types, None) else {
            return value;
        };
        // (Each element its own temporary: at the lambda's position.)
        let at = value.span;
        let (setup, captures) = self.fields_as_captures(value, id, at);
        let ty = self.instance_type(id);
        with_setup(setup, ir::Expr::new(ExprKind::Closure { function: id, captures }, ty, span))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{errors, signatures};

    #[test]
    fn a_lambda_stored_in_a_dynamic_cell_is_instantiated_for_the_calls_through_it() {
        let src = "function y = run(t : scalar)\n    c = cell(1)\n    c[0] = x -> x + 1\n    y = c[0](t)\nendfunction\n";
        assert!(errors(src).is_empty(), "{:?}", errors(src));
        assert!(signatures(src).contains("<lambda@3:12>(x : scalar)"), "{}", signatures(src));
    }

    #[test]
    fn each_lambda_of_a_cell_literal_called_through_takes_the_call_s_types() {
        let src = "function y = run(n : int)\n    c = {x -> 3 * x, x -> x + 7}\n    y = c[0](n) - c[1](n)\nendfunction\n";
        assert!(errors(src).is_empty(), "{:?}", errors(src));
        let sigs = signatures(src);
        for l in ["<lambda@2:10>(x : int)", "<lambda@2:22>(x : int)"] {
            assert!(sigs.contains(l), "{sigs}");
        }
    }
}
