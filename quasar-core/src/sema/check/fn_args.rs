//! Function values of no one type yet that are passed on to another function: the calls the
//! callee makes through that parameter tell the type (`common_fn_type.rs` finds it from the
//! calls in the function itself).
//!
//! * `f = x -> x + 1; if c; f = x -> 2 * x; endif; apply(f, t)`: `apply(g, x)` calls
//!   `g(x)`, so `f` is `[scalar -> scalar]`;
//! * `apply(c ? inc : dbl, t)`: each branch converted to that type;
//! * `mysum({x -> x + 1, x -> 2 * x}, t)` and `fs = {…}; mysum(fs, t)` where `mysum(fs, x)`
//!   calls `fs[i](x)`: a cell of that function type (`fn_cells.rs`).
//!
//! Each instance keeps the calls through its parameters (`Checker::param_calls`), those of
//! the functions it defines (a kernel lambda calling `f(x[pos])`) included; a function that
//! passes its parameter on passes the callee's on as its own. A callee instantiated for
//! the values as they are, only to read those calls, is a probe: its diagnostics and
//! instances are dropped, as a recursive instance's wrong guess is (`recursion.rs`).

use super::common_fn_type::{is_fn_value, FnCall, ParamCall};
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, ExprKind, FunctionId, LocalId, LocalRole};
use crate::sema::types::{ArrayType, Rank, Type};
use crate::span::Span;

/// How an argument holds function values that have no one type yet.
enum Unsettled {
    /// `c ? inc : dbl`: the branches' values.
    Branches(Vec<(Type, Span)>),
    /// A cell literal of function values (`{x -> x + 1, x -> 2 * x}`).
    CellLiteral(Vec<(Type, Span)>),
    /// A variable holding such a cell.
    CellVariable(LocalId, Vec<(Type, Span)>),
}

/// The function values of a cell type whose elements are function values, one at least an
/// untyped lambda (which host code cannot hold in a cell as it is).
fn cell_fn_values(ty: &Type, span: Span) -> Option<Vec<(Type, Span)>> {
    let Type::CellTuple(ts) = ty else { return None };
    let untyped = ts.iter().any(|t| super::closure_class::closure_index(t).is_some());
    (untyped && ts.iter().all(is_fn_value)).then(|| ts.iter().map(|t| (t.clone(), span)).collect())
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Records a call through `id` when it is a parameter of this function (`element`: a
    /// call through an element of it); whether it was one.
    pub(super) fn note_param_call(&mut self, id: LocalId, element: bool, call: FnCall) -> bool {
        let Some(param) = self.fn_conflicts.params.iter().position(|p| *p == id) else {
            return false;
        };
        if self.locals[id.0 as usize].role != LocalRole::Param {
            return false;
        }
        self.fn_conflicts.param_calls.push(ParamCall { param, element, call });
        true
    }

    /// The calls through this function's parameters, with those its nested functions make
    /// through them (a kernel lambda calling the parameter `f`).
    pub(super) fn param_calls_with_nested(&mut self) -> Vec<ParamCall> {
        let mut calls = std::mem::take(&mut self.fn_conflicts.param_calls);
        for (param, p) in self.fn_conflicts.params.iter().enumerate() {
            let name = &self.locals[p.0 as usize].name;
            for c in self.cx.captured_calls.0.iter().filter(|c| c.0 == self.scope && c.1 == *name) {
                let call = FnCall { types: c.2.clone(), span: c.3, depth: 0 };
                calls.push(ParamCall { param, element: false, call });
            }
        }
        calls
    }

    /// `f(a)(b)` where `f` is a variable of this function: the call of `f`'s result is a
    /// call one deeper through `f` (curried lambdas of no one type, `common_fn_type.rs`).
    pub(super) fn note_result_call(
        &mut self,
        callee: &crate::syntax::ast::Expr,
        given: usize,
        call: &ir::Expr,
    ) {
        use crate::syntax::ast::ExprKind as A;
        let A::Call { callee: inner, .. } = &callee.kind else { return };
        let A::Ident(name) = &inner.kind else { return };
        // (A call of a closure class value that is not a variable is held in a temporary
        // first: the call is the sequence's last item.)
        let call = match &call.kind {
            ExprKind::Sequence(items) => items.last().unwrap_or(call),
            _ => call,
        };
        let (Some(&id), ExprKind::Call { args, .. }) = (self.names.get(name), &call.kind) else {
            return;
        };
        // (The instance of a lambda also takes its captured values after the arguments.)
        let types = Self::arg_types(&args[..given.min(args.len())]);
        let fc = FnCall { types, span: call.span, depth: 1 };
        if self.fn_conflicts.holds(id) {
            self.fn_conflicts.record_call(id, fc);
        } else {
            self.note_param_call(id, false, fc);
        }
    }

    /// What an argument holds that has no one function type yet.
    fn unsettled(&self, arg: &ir::Expr) -> Option<Unsettled> {
        if let ExprKind::Ternary { .. } = arg.kind {
            let mut out = Vec::new();
            if super::common_fn_type::fn_branches(arg, &mut out)
                && out.iter().any(|b| b.0 != out[0].0)
            {
                return Some(Unsettled::Branches(out));
            }
            return None;
        }
        match &arg.kind {
            ExprKind::Cell(items) => {
                cell_fn_values(&arg.ty, arg.span)?;
                Some(Unsettled::CellLiteral(items.iter().map(|i| (i.ty.clone(), i.span)).collect()))
            }
            ExprKind::Local(id) if self.declared[id.0 as usize].is_none() => {
                Some(Unsettled::CellVariable(*id, cell_fn_values(&arg.ty, arg.span)?))
            }
            _ => None,
        }
    }

    /// Whether some argument holds function values of no one type yet (the callee is then
    /// instantiated as a probe first, [`Self::settle_fn_args`]).
    pub(super) fn has_unsettled_args(&self, args: &[ir::Expr]) -> bool {
        args.iter().any(|a| self.unsettled(a).is_some())
    }

    /// Instantiates a callee for `args` as a probe (`instantiate` makes the instance): its
    /// calls through its parameters, with its diagnostics and instances dropped.
    pub(super) fn probe_param_calls(
        &mut self,
        instantiate: &mut dyn FnMut(&mut Self) -> Option<FunctionId>,
    ) -> Vec<ParamCall> {
        let (diags, first_new) = (self.cx.diags.len(), self.cx.module.functions.len());
        let calls = instantiate(self)
            .and_then(|id| self.cx.param_calls.get(&id).cloned())
            .unwrap_or_default();
        self.cx.diags.truncate(diags);
        self.cx.instances.retain(|_, v| (v.0 as usize) < first_new);
        calls
    }

    /// `args` with each argument that holds function values of no one type converted to the
    /// function type the callee's calls `calls` imply; `Err(false)` when one cannot be yet (a
    /// variable's cell, converted where it is assigned from the next pass on), `Err(true)`
    /// when one has no such type (reported).
    pub(super) fn settle_fn_args(
        &mut self,
        args: Vec<ir::Expr>,
        calls: &[ParamCall],
        callee: &str,
    ) -> Result<Vec<ir::Expr>, bool> {
        let mut out = Vec::new();
        let mut settled = true;
        for (j, arg) in args.into_iter().enumerate() {
            let Some(u) = self.unsettled(&arg) else {
                out.push(arg);
                continue;
            };
            let (values, element) = match &u {
                Unsettled::Branches(v) => (v.clone(), false),
                Unsettled::CellLiteral(v) | Unsettled::CellVariable(_, v) => (v.clone(), true),
            };
            let mine: Vec<FnCall> = calls
                .iter()
                .filter(|c| c.param == j && c.element == element)
                .map(|c| c.call.clone())
                .collect();
            let what = if element { "the cell's elements" } else { "this value" };
            let ft = match self.fn_type_of(&values, &mine, 0, what) {
                Ok(Some(ft)) => ft,
                Ok(None) => {
                    settled = false;
                    out.push(arg);
                    continue;
                }
                Err(why) => {
                    let shown: Vec<String> = values.iter().map(|v| v.0.to_string()).collect();
                    let d = Diagnostic::error(
                        arg.span,
                        format!("these function values passed to `{callee}` have no one type"),
                    )
                    .with_label(format!("these are {}", shown.join(", ")))
                    .with_note(format!(
                        "{why}; declare the type of the parameter of `{callee}` (`f : [scalar -> scalar]`, `fs : vec[[scalar -> scalar]]`), or give the lambdas' parameters types"
                    ));
                    self.report(d);
                    return Err(true);
                }
            };
            match u {
                Unsettled::Branches(_) => out.push(self.coerce_branches_to_fn(arg, &ft)),
                Unsettled::CellLiteral(_) => out.push(self.coerce_to_declared(arg, &fn_cell(ft))),
                Unsettled::CellVariable(id, _) => {
                    // Declared from now on: its assignments convert the cell.
                    let ty = fn_cell(ft);
                    self.declared[id.0 as usize] = Some(ty.clone());
                    self.locals[id.0 as usize].ty = ty;
                    self.changed = true;
                    settled = false;
                    out.push(arg);
                }
            }
        }
        if settled {
            Ok(out)
        } else {
            Err(false)
        }
    }

    /// After a call of instance `id` with `args`: the calls it makes through a parameter
    /// given a variable of no one function type are calls through the variable, and those
    /// through a parameter given this function's parameter are calls through that.
    pub(super) fn pass_on_param_calls(&mut self, id: FunctionId, args: &[ir::Expr]) {
        let Some(calls) = self.cx.param_calls.get(&id).cloned() else { return };
        for c in calls {
            let Some(ExprKind::Local(v)) = args.get(c.param).map(|a| &a.kind) else { continue };
            let v = *v;
            if self.fn_conflicts.holds(v) && !c.element {
                self.fn_conflicts.record_call(v, c.call);
            } else {
                self.note_param_call(v, c.element, c.call);
            }
        }
    }
}

/// `vec[[ft]]`: a cell of function type `ft`.
fn fn_cell(ft: crate::sema::types::FnType) -> Type {
    Type::Array(Box::new(ArrayType {
        elem: Type::Function(Box::new(ft)),
        rank: Rank::Fixed(1),
        shape: None,
        mods: Default::default(),
    }))
}

#[cfg(test)]
mod tests {
    use crate::ir::dump;

    /// The instances' signatures of `src`, which has no errors or warnings.
    fn signatures(src: &str) -> String {
        let c = super::super::tests::checked(src);
        let msgs: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert!(msgs.is_empty(), "diagnostics of {src:?}: {msgs:?}");
        dump::signatures(&c.module)
    }

    #[test]
    fn the_callee_s_calls_type_a_variable_a_choice_and_a_cell_passed_to_it() {
        let src = "function y = apply(g, x)\n    y = g(x)\nendfunction\nfunction y = first(fs, x)\n    y = fs[0](x)\nendfunction\nf = x -> x + 1\nif 1 > 0\n    f = x -> 2 * x\nendif\na = apply(f, 1.5)\nb = apply(1 > 0 ? (x -> x - 1) : (x -> x * x), 2)\nc = first({x -> x / 2, x -> -x}, 0.5)\n";
        let sigs = signatures(src);
        assert!(sigs.contains("apply(g : [(scalar) -> (scalar)], x : scalar)"), "{sigs}");
        assert!(sigs.contains("apply(g : [(int) -> (int)], x : int)"), "{sigs}");
        assert!(
            sigs.contains("first(fs : {[(scalar) -> (scalar)], [(scalar) -> (scalar)]}"),
            "{sigs}"
        );
        // Only the instances for the settled types remain (the probes' are dropped).
        assert!(!sigs.contains("<lambda@7:5>, x"), "{sigs}");
    }

    #[test]
    fn a_callee_written_before_its_caller_is_checked_for_the_callers_types() {
        // Not first with `fs : ??` (whose `y += fs[i](x)` would warn of `??` converted to a
        // scalar): the typed caller is checked first and instantiates it.
        let src = "function y = sum_all(fs, x : scalar)\n    y = 0.0\n    for i = 0..numel(fs)-1\n        y += fs[i](x)\n    endfor\nendfunction\nfunction y = run(t : scalar)\n    y = sum_all({x -> x + 1, x -> 2 * x}, t)\nendfunction\n";
        let sigs = signatures(src);
        assert!(
            sigs.contains("sum_all(fs : {[(scalar) -> (scalar)], [(scalar) -> (scalar)]}"),
            "{sigs}"
        );
    }
}
