//! Calls through values: a variable holding a known lambda (instantiated for the arguments)
//! and a function value of a function type.

use super::call::results_type;
use super::expr::unknown;
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Callee, ExprKind, LocalRole, PlaceKind};
use crate::sema::types::{FnType, Type};
use crate::span::Span;
use crate::syntax::ast::{self, FunctionKind};

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// A call through a variable holding a known lambda: instantiated for these arguments.
    pub(super) fn call_lambda(
        &mut self,
        lambda: &'a ast::Lambda,
        lspan: Span,
        scope: crate::sema::decls::ScopeId,
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        let lowered = self.lower_args(args);
        let types = Self::arg_types(&lowered);
        if !self.lambda_arity_fits(&lambda.params, types.len(), span) {
            return unknown(span);
        }
        if types.contains(&Type::Void) {
            return ir::Expr::new(
                ir::ExprKind::Call { callee: Callee::Unresolved("<lambda>".into()), args: lowered },
                Type::Void,
                span,
            );
        }
        if self.in_device_code() && lambda.kind == FunctionKind::Kernel {
            let d = Diagnostic::error(
                span,
                "a `__kernel__` lambda cannot be called directly; launch it with `parallel_do`",
            );
            self.report(d);
            return unknown(span);
        }
        // Free names of the lambda resolve where it was defined (closures bind at definition).
        let env = self.env_for_scope(scope).unwrap_or_else(|| self.env_for_children());
        match self.cx.instantiate_lambda(lambda, lspan, scope, types, None, env) {
            Some(id) => self.call_bound_instance(id, lowered, span, lspan),
            None => ir::Expr::new(
                ir::ExprKind::Call { callee: Callee::Unresolved("<lambda>".into()), args: lowered },
                Type::Unknown,
                span,
            ),
        }
    }

    /// A call of a function value (a parameter of function type, a field, a returned lambda).
    pub(super) fn call_value(&mut self, f: ir::Expr, args: &'a [ast::Arg], span: Span) -> ir::Expr {
        if matches!(&f.ty, Type::Class(c) if c.id.is_closure()) {
            return self.call_closure_class(f, args, span).unwrap_or_else(|| unknown(span));
        }
        let mut lowered = self.lower_args(args);
        let ty = match &f.ty {
            Type::Function(ft) => {
                // An untyped lambda passed where a function-typed parameter is declared.
                for (a, p) in lowered.iter_mut().zip(&ft.params) {
                    if let Type::Function(pt) = p {
                        let value = std::mem::replace(a, unknown(span));
                        *a = self.coerce_to_fn(value, pt, span, false);
                    }
                }
                let types = Self::arg_types(&lowered);
                self.note_call_through(&f, &types, span);
                self.check_fn_args(ft, &types, span);
                if self.in_device_code()
                    && matches!(ft.kind, FunctionKind::Host | FunctionKind::ExplicitHost)
                    && ft.params != vec![Type::Unknown]
                {
                    let d = Diagnostic::error(
                        span,
                        "cannot call a host function value from a kernel or device function",
                    )
                    .with_note("declare the function type `[__device__ …]`");
                    self.report(d);
                }
                results_type(&ft.results)
            }
            Type::TypeValue(t) => {
                let t = (**t).clone();
                return self.construct_type(&t, args, span);
            }
            Type::Unknown | Type::Void => {
                let types = Self::arg_types(&lowered);
                self.note_call_through(&f, &types, span);
                Type::Unknown
            }
            t => {
                let d = Diagnostic::error(span, format!("a value of type {t} cannot be called"));
                self.report(d);
                Type::Unknown
            }
        };
        if self.in_device_code() && super::device_fn_cells::is_choice(&f) {
            return super::device_fn_cells::call_each_branch(f, lowered, &ty, span);
        }
        ir::Expr::new(
            ir::ExprKind::Call { callee: Callee::Value(Box::new(f)), args: lowered },
            ty,
            span,
        )
    }

    fn check_fn_args(&mut self, ft: &FnType, types: &[Type], span: Span) {
        let arity_ok = if ft.variadic {
            types.len() + 1 >= ft.params.len()
        } else {
            types.len() == ft.params.len()
        };
        if !arity_ok {
            let d = Diagnostic::error(
                span,
                format!(
                    "this function takes {} argument(s) but {} are given",
                    ft.params.len(),
                    types.len()
                ),
            );
            self.report(d);
            return;
        }
        for (i, (a, p)) in types.iter().zip(&ft.params).enumerate() {
            if !self.fits(a, p) {
                let d = Diagnostic::error(
                    span,
                    format!("type mismatch: argument {} should be {p}, found {a}", i + 1),
                );
                self.report(d);
            }
        }
    }

    /// `f = t -> t + a`: the values the lambda captures, copied when it is defined (manual
    /// §4.2: closures bind at definition), so that a later `a = …` does not change what a call
    /// `f(x)` (which instantiates the lambda at the call) sees.
    pub(super) fn snapshot_captures(&mut self, closure: ir::Expr, lspan: Span) -> ir::Expr {
        let (names, captures): (Vec<String>, Vec<ir::Expr>) = match &closure.kind {
            ExprKind::Closure { function, captures } => {
                let f = self.cx.module.function(*function);
                let names = f.captures.iter().map(|c| f.locals[c.0 as usize].name.clone());
                (names.collect(), captures.clone())
            }
            // The closure class of an untyped lambda: its fields are the captured values.
            ExprKind::Construct { class, fields } if class.is_closure() => {
                fields.iter().cloned().unzip()
            }
            _ => return closure,
        };
        if captures.is_empty() {
            return closure;
        }
        let mut items = Vec::new();
        for (name, arg) in names.iter().zip(&captures) {
            let snap = snapshot_name(lspan, name);
            let id = match self.names.get(&snap) {
                Some(&id) => id,
                None => self.add_local(&snap, arg.ty.clone(), LocalRole::Var, lspan),
            };
            let ty = self.assign_local(id, &arg.ty, lspan);
            let place = ir::Place::new(PlaceKind::Local(id), ty.clone(), lspan);
            let assign = ExprKind::Assign {
                place: Box::new(place),
                op: ir::AssignOp::Assign,
                value: Box::new(arg.clone()),
            };
            items.push(ir::Expr::new(assign, ty, lspan));
        }
        let (ty, span) = (closure.ty.clone(), closure.span);
        items.push(closure);
        ir::Expr::new(ExprKind::Sequence(items), ty, span)
    }

    /// A call of instance `id` of the lambda at `lspan`, passing the captured values copied
    /// where the lambda was assigned (else the variables' current values).
    fn call_bound_instance(
        &mut self,
        id: ir::FunctionId,
        args: Vec<ir::Expr>,
        span: Span,
        lspan: Span,
    ) -> ir::Expr {
        let (setups, mut args) = self.flatten_args(id, args, span);
        let f = self.cx.module.function(id);
        let names: Vec<String> =
            f.captures.iter().map(|c| f.locals[c.0 as usize].name.clone()).collect();
        let results: Vec<Type> =
            f.outputs.iter().map(|o| f.locals[o.0 as usize].ty.clone()).collect();
        for n in names {
            let snap = snapshot_name(lspan, &n);
            let known = self.names.contains_key(&snap)
                || self.outer.as_ref().is_some_and(|o| o.find(&snap).is_some());
            args.push(self.lower_name(if known { &snap } else { &n }, span));
        }
        let call = ir::Expr::new(
            ir::ExprKind::Call { callee: Callee::Function(id), args },
            results_type(&results),
            span,
        );
        super::flat_params::with_setups(setups, call)
    }
}

/// The local holding capture `name` of the lambda at `lspan`, as it was at the definition.
fn snapshot_name(lspan: Span, name: &str) -> String {
    format!("<{name}@{}:{}>", lspan.file.0, lspan.start)
}
