//! One function type for a variable given several function values that are not one type:
//! two untyped lambdas (`f = x -> x + 1; if c; f = x -> 2 * x; endif; f(t)`), one lambda
//! capturing values of other types (`h = compose(inc, dbl); h = compose(dbl, inc)`), an
//! untyped and a typed lambda.
//!
//! `f = c ? inc : dbl` gives `f` the values of both branches.
//!
//! Each untyped lambda is a closure class of its own (`closure_class.rs`), so the variable
//! has no one type of its own. Its calls in the function tell the parameter types instead:
//! the joined argument types of every call `f(…)`. Each value is instantiated for them, and
//! the joined result types complete the function type. The variable is then treated as if
//! it had been declared with that type (`f : [scalar -> scalar] = x -> x + 1`): every value
//! is converted to it where it is assigned, and a call goes through the function value.
//! Where no call tells the types (the variable is only passed on or captured), or the calls
//! or the results disagree, the first conflicting assignment is an error naming why.

use super::closure_class::closure_index;
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, LocalId, LocalRole};
use crate::sema::decls::ScopeId;
use crate::sema::types::{join, FnType, Type};
use crate::span::Span;
use crate::syntax::ast::FunctionKind;

/// The function values given to one variable without a declared type that have no one
/// type, by where each was assigned (kept across passes: a later pass may refine a type).
#[derive(Default)]
pub(crate) struct FnConflicts {
    values: Vec<(LocalId, Type, Span)>,
    /// The argument types of the calls through each such variable in the current pass: its
    /// own calls (depth 0), calls of what those return (`f(2)(t)`, depth 1), and the calls a
    /// function it is passed to makes through that parameter.
    calls: Vec<(LocalId, FnCall)>,
    /// The parameters of the function being lowered, in order.
    pub(super) params: Vec<LocalId>,
    /// The calls through its parameters in the current pass (`fn_args.rs`).
    pub(super) param_calls: Vec<ParamCall>,
}

/// One call through a function value: its argument types, where it is, and how many calls
/// of results lie between the value and it (`f(x)` 0, `f(x)(y)` 1).
#[derive(Clone, Debug)]
pub(crate) struct FnCall {
    pub(super) types: Vec<Type>,
    pub(super) span: Span,
    pub(super) depth: u8,
}

/// A call, in a function, through its parameter `param` (`f(x)`), or through an element
/// of it (`fs[i](x)`): what a function passed a value that has no one type yet tells about
/// the value (`fn_args.rs`).
#[derive(Clone, Debug)]
pub(crate) struct ParamCall {
    pub(super) param: usize,
    pub(super) element: bool,
    pub(super) call: FnCall,
}

impl FnConflicts {
    pub(super) fn holds(&self, id: LocalId) -> bool {
        self.values.iter().any(|(l, _, _)| *l == id)
    }

    /// Records value `ty` assigned to `id` at `span` (replacing what an earlier pass found
    /// there).
    pub(super) fn record_value(&mut self, id: LocalId, ty: &Type, span: Span) {
        let at = |s: Span| (s.file, s.start);
        match self.values.iter_mut().find(|(l, _, s)| *l == id && at(*s) == at(span)) {
            Some(v) => v.1 = ty.clone(),
            None => self.values.push((id, ty.clone(), span)),
        }
    }

    /// Records a call through variable `id` (which holds values of no one type).
    pub(super) fn record_call(&mut self, id: LocalId, call: FnCall) {
        self.calls.push((id, call));
    }

    pub(super) fn new_pass(&mut self) {
        self.calls.clear();
        self.param_calls.clear();
    }
}

/// Calls in nested functions (a kernel lambda, a nested function) through a variable they
/// capture, by the scope that defines the variable, its name and the call's position: the
/// enclosing function's calls too. Kept across passes, since an instance already made is
/// not lowered again (the latest types of each call win).
#[derive(Default)]
pub(crate) struct CapturedCalls(pub(super) Vec<(ScopeId, String, Vec<Type>, Span)>);

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Records a call through `f` with arguments of `types`, where `f` is a variable whose
    /// function values have no one type, or a captured variable holding a function value.
    pub(super) fn note_call_through(&mut self, f: &ir::Expr, types: &[Type], span: Span) {
        let call = FnCall { types: types.to_vec(), span, depth: 0 };
        if let ir::ExprKind::Index { base, .. } = &f.kind {
            if let ir::ExprKind::Local(id) = base.kind {
                if !self.note_param_call(id, true, call) {
                    self.note_cell_call(id, types);
                }
            }
            return;
        }
        let ir::ExprKind::Local(id) = f.kind else { return };
        if self.fn_conflicts.holds(id) {
            self.fn_conflicts.record_call(id, call);
            return;
        }
        if self.note_param_call(id, false, call) {
            return;
        }
        let local = &self.locals[id.0 as usize];
        if local.role != LocalRole::Capture {
            return;
        }
        let Some((_, scope)) = self.outer.as_ref().and_then(|o| o.find(&local.name)) else {
            return;
        };
        let name = local.name.clone();
        let at = |s: Span| (s.file, s.start);
        let calls = &mut self.cx.captured_calls.0;
        match calls.iter_mut().find(|c| c.0 == scope && c.1 == name && at(c.3) == at(span)) {
            Some(c) => c.2 = types.to_vec(),
            None => calls.push((scope, name, types.to_vec(), span)),
        }
    }

    /// After a pass: gives each variable whose function values have no one type the
    /// function type its calls and values imply (so the next pass converts every value to
    /// it), or reports why it has none.
    pub(super) fn settle_common_fn_types(&mut self) {
        let mut ids: Vec<LocalId> = self.fn_conflicts.values.iter().map(|v| v.0).collect();
        ids.sort_by_key(|l| l.0);
        ids.dedup();
        for id in ids {
            if self.declared[id.0 as usize].is_some() {
                continue;
            }
            match self.common_fn_type(id) {
                Ok(Some(ft)) => {
                    let ty = Type::Function(Box::new(ft));
                    self.declared[id.0 as usize] = Some(ty.clone());
                    self.locals[id.0 as usize].ty = ty;
                    self.changed = true;
                }
                // Arguments not typed yet: other errors say why.
                Ok(None) => {}
                Err(d) => self.report(d),
            }
        }
    }

    /// The function type of variable `id` from its calls and values.
    fn common_fn_type(&mut self, id: LocalId) -> Result<Option<FnType>, Diagnostic> {
        let values: Vec<(Type, Span)> = self
            .fn_conflicts
            .values
            .iter()
            .filter(|v| v.0 == id)
            .map(|v| (v.1.clone(), v.2))
            .collect();
        let name = self.locals[id.0 as usize].name.clone();
        let mut calls: Vec<FnCall> =
            self.fn_conflicts.calls.iter().filter(|c| c.0 == id).map(|c| c.1.clone()).collect();
        let nested = self.cx.captured_calls.0.iter().filter(|c| c.0 == self.scope && c.1 == name);
        calls.extend(nested.map(|c| FnCall { types: c.2.clone(), span: c.3, depth: 0 }));
        let (first, second) = match values.as_slice() {
            [a, b, ..] => (a.clone(), b.clone()),
            _ => return Ok(None),
        };
        let declare = format!("declare the variable's function type where it is first assigned (`{name} : [scalar -> scalar] = x -> …`), or give the lambdas' parameters types");
        self.fn_type_of(&values, &calls, 0, &format!("`{name}`")).map_err(|why| {
            Diagnostic::error(
                second.1,
                format!(
                    "`{name}` is given another function value than the lambda without parameter types it holds from {}:{}",
                    first.1.line, first.1.col
                ),
            )
            .with_label(format!("this is {}, `{name}` holds {}", second.0, first.0))
            .with_note(format!("{why}; {declare}"))
        })
    }

    /// The one function type of function values `values` that `calls` at `depth` imply
    /// (their results' type from the calls one deeper, when they return function values of
    /// no one type: `f(2)(t)`), or why there is none. `Ok(None)` while argument types are
    /// not known yet. `what` names the values in messages (`` `f` ``).
    pub(super) fn fn_type_of(
        &mut self,
        values: &[(Type, Span)],
        calls: &[FnCall],
        depth: u8,
        what: &str,
    ) -> Result<Option<FnType>, String> {
        let here: Vec<&FnCall> = calls.iter().filter(|c| c.depth == depth).collect();
        let Some(first) = here.first() else {
            return Err(if depth == 0 {
                format!("its values are different lambdas, and no call of {what} in this function or the functions it defines or is passed to tells the types of their parameters")
            } else {
                format!("its values return different lambdas, and no call of what {what} returns tells the types of their parameters")
            });
        };
        let mut params = first.types.clone();
        for c in &here[1..] {
            if c.types.len() != params.len() {
                return Err(format!(
                    "{what} is called with {} and with {} argument(s) (at {}:{})",
                    params.len(),
                    c.types.len(),
                    c.span.line,
                    c.span.col
                ));
            }
            params = params.iter().zip(&c.types).map(|(p, t)| join(p, t)).collect();
        }
        if params.contains(&Type::Void) {
            return Ok(None);
        }
        if let Some(p) = params.iter().find(|p| !p.is_concrete()) {
            let mut shown: Vec<String> =
                here.iter().map(|c| format!("({})", list(&c.types))).collect();
            shown.dedup();
            return Err(format!(
                "its calls pass {}: no one parameter type ({p}) takes them all",
                shown.join(" and ")
            ));
        }
        let mut results: Option<Vec<Type>> = None;
        let (mut kinds, mut each, mut outs) = (Vec::new(), Vec::new(), Vec::new());
        for (ty, span) in values {
            let Some((kind, out)) = self.results_for(ty, &params) else {
                return Err(format!(
                    "the value assigned at {}:{} ({ty}) cannot be called with ({})",
                    span.line,
                    span.col,
                    list(&params)
                ));
            };
            kinds.push(kind);
            each.push(format!("({})", list(&out)));
            outs.push((out.first().cloned().unwrap_or(Type::Void), *span));
            results = Some(match results {
                None => out,
                Some(r) if r.len() == out.len() => {
                    r.iter().zip(&out).map(|(a, b)| join(a, b)).collect()
                }
                Some(_) => return Err("its values return different numbers of results".into()),
            });
        }
        let mut results = results.unwrap_or_default();
        if results.contains(&Type::Void) {
            return Ok(None);
        }
        // Curried lambdas: the lambdas they return, typed by the calls of what they return.
        let deeper = calls.iter().any(|c| c.depth == depth + 1);
        if results.len() == 1
            && !results[0].is_concrete()
            && deeper
            && outs.iter().all(|(t, _)| is_fn_value(t))
        {
            let what = format!("{what}({})", list(&params));
            match self.fn_type_of(&outs, calls, depth + 1, &what)? {
                Some(inner) => results = vec![Type::Function(Box::new(inner))],
                None => return Ok(None),
            }
        }
        if let Some(r) = results.iter().find(|r| !r.is_concrete()) {
            each.dedup();
            return Err(format!(
                "called with ({}), its values return {}: no one result type ({r})",
                list(&params),
                each.join(" and ")
            ));
        }
        // Device lambdas stay callable from kernels; any other mix is a host function value.
        let kind = match kinds.split_first() {
            Some((k, rest)) if rest.iter().all(|r| r == k) => *k,
            _ => FunctionKind::Host,
        };
        Ok(Some(FnType { kind, params, variadic: false, results }))
    }

    /// The kind and result types of function value `ty` called with `params`.
    fn results_for(&mut self, ty: &Type, params: &[Type]) -> Option<(FunctionKind, Vec<Type>)> {
        if let Some(index) = closure_index(ty) {
            let lambda = self.cx.closure_classes.get(index)?.lambda;
            if !lambda.variadic() && lambda.params().len() != params.len() {
                return None;
            }
            let id = self.instantiate_closure_class(index, ty, params.to_vec(), None)?;
            let f = self.cx.module.function(id);
            let out = f.outputs.iter().map(|o| f.locals[o.0 as usize].ty.clone()).collect();
            return Some((lambda.kind(), out));
        }
        let Type::Function(ft) = ty else { return None };
        let arity = ft.params.len() == params.len() || ft.variadic;
        let fits = params.iter().zip(&ft.params).all(|(a, p)| {
            let (a, p) = (a.clone(), p.clone());
            self.fits(&a, &p)
        });
        (arity && fits).then(|| (ft.kind, ft.results.clone()))
    }
}

/// Types as a comma-separated list.
fn list(types: &[Type]) -> String {
    types.iter().map(Type::to_string).collect::<Vec<_>>().join(", ")
}

/// Whether a value of type `ty` is a function value (a closure class or of a function type).
pub(super) fn is_fn_value(ty: &Type) -> bool {
    closure_index(ty).is_some() || matches!(ty, Type::Function(_))
}

/// The types and positions of the function values `c ? g : h` (nested too) may give, when
/// every branch is one.
pub(super) fn fn_branches(e: &ir::Expr, out: &mut Vec<(Type, Span)>) -> bool {
    match &e.kind {
        ir::ExprKind::Ternary { then, otherwise, .. } => {
            fn_branches(then, out) && fn_branches(otherwise, out)
        }
        _ if is_fn_value(&e.ty) => {
            out.push((e.ty.clone(), e.span));
            true
        }
        _ => false,
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// Whether `value`, assigned to `id`, is a `?:` choosing between function values of
    /// other types (recorded as the variable's values, as two assignments would be).
    pub(super) fn check_fn_branches(&mut self, id: LocalId, value: &ir::Expr) -> bool {
        if !matches!(value.kind, ir::ExprKind::Ternary { .. })
            || self.declared[id.0 as usize].is_some()
        {
            return false;
        }
        let mut branches = Vec::new();
        if !fn_branches(value, &mut branches) || branches.iter().all(|b| b.0 == branches[0].0) {
            return false;
        }
        for (ty, span) in &branches {
            self.fn_conflicts.record_value(id, ty, *span);
        }
        // Until the pass ends, calls go through the first branch's value (so that what they
        // compute has a type).
        if self.locals[id.0 as usize].ty == Type::Void {
            self.locals[id.0 as usize].ty = branches[0].0.clone();
            self.changed = true;
        }
        true
    }

    /// `value` where the concrete function type `ft` is expected, each branch of a `?:`
    /// converted on its own (so that both give the one function type).
    pub(super) fn coerce_branches_to_fn(&mut self, value: ir::Expr, ft: &FnType) -> ir::Expr {
        let want = Type::Function(Box::new(ft.clone()));
        let (ty, at) = (value.ty.clone(), value.span);
        match value.kind {
            ir::ExprKind::Ternary { cond, then, otherwise } => {
                let then = self.coerce_branches_to_fn(*then, ft);
                let otherwise = self.coerce_branches_to_fn(*otherwise, ft);
                let ty = if then.ty == want && otherwise.ty == want { want } else { ty };
                let kind = ir::ExprKind::Ternary {
                    cond,
                    then: Box::new(then),
                    otherwise: Box::new(otherwise),
                };
                ir::Expr::new(kind, ty, at)
            }
            // (At the branch's own position: a value that is not a variable is held in a
            // temporary named by it.)
            kind => self.coerce_to_fn(ir::Expr::new(kind, ty, at), ft, at, false),
        }
    }
}
