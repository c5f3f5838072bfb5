//! Calls: user functions (overloads, generics `f[T](…)`, instantiation per argument types),
//! lambdas held in variables, function values, built-ins, constructors, methods
//! (`p.scale(2)` is `scale(p, 2)`), `parallel_do`/`serial_do`, and the calling rules between
//! host, device and kernel functions (manual §2.4.1, §4.3).

use super::attributes::schedule_candidates;
use super::expr::unknown;
use super::scope::{FnLowerer, NameRef};
use crate::diagnostics::Diagnostic;
use crate::ir::Special;
use crate::ir::{self, Callee, FunctionId};
use crate::sema::builtins::{self, ArgInfo, BuiltinCall};
use crate::sema::decls::FnDeclId;
use crate::sema::types::{Dim, FnType, Rank, Type};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind, FunctionKind};

/// Types a kernel's parameter list for one launch (or says why it does not fit).
type ParamFill<'f> = &'f dyn Fn(&[ast::Param]) -> Result<Vec<Type>, String>;

/// The weight of an exactly matched parameter in an overload's score (more than any number
/// of parameters matched through subtyping).
const EXACT: usize = 1 << 16;

/// `arg` is of the declared type itself, not of a subtype or a type that converts: the same
/// kind of number, or an array of the same element type and rank.
fn matches_exactly(arg: &Type, declared: &Type) -> bool {
    match (arg, declared) {
        (Type::Array(a), Type::Array(d)) => a.elem == d.elem && a.rank == d.rank,
        (a, d) => a == d,
    }
}

/// The result type of a call to something with these outputs.
pub fn results_type(results: &[Type]) -> Type {
    match results {
        // No value (distinct from `Void`, the type not known yet).
        [] => Type::Tuple(Vec::new()),
        [one] => one.clone(),
        many => Type::Tuple(many.to_vec()),
    }
}

fn kind_word(k: FunctionKind) -> &'static str {
    match k {
        FunctionKind::Kernel => "__kernel__",
        FunctionKind::Device => "__device__",
        _ => "host",
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    pub fn lower_call(&mut self, e: &'a Expr) -> ir::Expr {
        let ExprKind::Call { callee, args, .. } = &e.kind else {
            unreachable!("lower_call on a call")
        };
        let span = e.span;
        match &callee.kind {
            ExprKind::Ident(name) => self.call_named(name, callee.span, &[], args, span),
            // `f[int](…)`: explicit type arguments of a generic function.
            ExprKind::Index { base, indices } if self.names_function(base) => {
                let ExprKind::Ident(name) = &base.kind else {
                    unreachable!("names_function checked")
                };
                let type_args: Vec<Type> = indices
                    .iter()
                    .map(|a| self.expr_as_type(&a.value).unwrap_or(Type::Unknown))
                    .collect();
                self.call_named(name, base.span, &type_args, args, span)
            }
            ExprKind::Field { base, name } => self.call_method(base, name, args, span),
            _ => {
                let f = self.lower_expr(callee);
                self.call_value(f, args, span)
            }
        }
    }

    fn names_function(&mut self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(n) => {
                !self.names.contains_key(n)
                    && self.cx.decls.lookup_function(self.scope, n).is_some()
            }
            _ => false,
        }
    }

    pub(super) fn lower_args(&mut self, args: &'a [ast::Arg]) -> Vec<ir::Expr> {
        args.iter()
            .map(|a| match &a.value.kind {
                ExprKind::Spread(inner) => {
                    let v = self.lower_expr(inner);
                    let ty = v.ty.clone();
                    ir::Expr::new(ir::ExprKind::Spread(Box::new(v)), ty, a.value.span)
                }
                _ => {
                    let v = self.lower_expr(&a.value);
                    self.single_value(v)
                }
            })
            .collect()
    }

    /// The argument types as a function sees them: a spread vector of known length counts
    /// as that many arguments of its element type.
    fn arg_types(args: &[ir::Expr]) -> Vec<Type> {
        let mut out = Vec::new();
        for a in args {
            match (&a.kind, &a.ty) {
                // `...f(x)`: every result of `f` as an argument.
                (ir::ExprKind::Spread(_), Type::Tuple(ts)) => out.extend(ts.iter().cloned()),
                (ir::ExprKind::Spread(_), Type::Array(arr)) => match arr.shape.as_deref() {
                    Some([Dim::Known(n)]) => {
                        out.extend(std::iter::repeat_n(arr.elem.clone(), *n as usize))
                    }
                    _ => out.push(Type::Unknown),
                },
                _ => out.push(a.ty.clone()),
            }
        }
        out
    }

    fn call_named(
        &mut self,
        name: &str,
        name_span: Span,
        type_args: &[Type],
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        match name {
            "parallel_do" | "serial_do" => return self.parallel_do(name, args, span),
            _ => {}
        }
        if name.starts_with('$') && !self.names.contains_key(name) {
            return self.call_meta(name, name_span, args, span);
        }
        match self.resolve_name(name, name_span) {
            Some(NameRef::Local(id)) => {
                if let Some(&(lambda, lspan, scope)) =
                    self.lambdas.get(&id).filter(|_| !self.reassigned.contains(&id))
                {
                    return self.call_lambda(lambda, lspan, scope, args, span);
                }
                let ty = self.local_type(id).clone();
                let f = ir::Expr::new(ir::ExprKind::Local(id), ty, name_span);
                if matches!(f.ty, Type::Array(_)) {
                    let d = Diagnostic::error(
                        span,
                        format!("`{name}` is an array ({}), not a function", f.ty),
                    )
                    .with_note(format!("index arrays with brackets: `{name}[…]`"));
                    self.report(d);
                    return unknown(span);
                }
                self.call_value(f, args, span)
            }
            Some(NameRef::Functions(ids)) => {
                // Inside a constructor function `function y = point(px, py)`, the call
                // `point(x := px, y := py)` with field names builds the class value itself.
                if !args.is_empty()
                    && args.iter().all(|a| a.name.is_some())
                    && !self.params_named(&ids, args)
                {
                    if let Some(Type::Class(c)) = self.expr_as_type_name(name) {
                        return self.construct(&c, args, span);
                    }
                }
                self.call_user(name, &ids, type_args, args, span)
            }
            Some(NameRef::Builtin(sig)) => self.call_builtin(sig, type_args, args, span),
            Some(NameRef::TypeDef(_)) | Some(NameRef::Constant(..)) | None => {
                if let Some(t) = self.expr_as_type_name(name) {
                    return self.construct_type(&t, args, span);
                }
                if let Some(NameRef::Constant(..)) = self.resolve_name(name, name_span) {
                    let d = Diagnostic::error(
                        name_span,
                        format!("`{name}` is a constant, not a function"),
                    );
                    self.report(d);
                    return unknown(span);
                }
                let mut d = self.cx.undefined(name, name_span, true);
                // Only a plain undefined name (not one an unavailable import explains).
                if d.message.starts_with("undefined ") {
                    if let Some(similar) = self.similar_name(name) {
                        d = d.with_note(format!("did you mean `{similar}`?"));
                    }
                }
                self.report(d);
                self.lower_args(args);
                unknown(span)
            }
        }
    }

    /// Whether some definition in `ids` has a parameter named like each named argument (else
    /// `node(p := a, next := b)` names the fields of the class `node`, also where a function
    /// `node(p, n)` shares a parameter name with it).
    fn params_named(&self, ids: &[FnDeclId], args: &[ast::Arg]) -> bool {
        ids.iter().any(|&id| {
            let params = &self.cx.decls.function(id).def.params;
            args.iter()
                .filter_map(|a| a.name.as_ref())
                .all(|n| params.iter().any(|p| p.name.name == n.name))
        })
    }

    /// A call of a user function: picks the overload and instantiates it.
    fn call_user(
        &mut self,
        name: &str,
        ids: &[FnDeclId],
        type_args: &[Type],
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        let lowered = self.lower_args(args);
        if ids.iter().all(|&id| self.cx.decls.function(id).def.kind == FunctionKind::Kernel) {
            let d = Diagnostic::error(
                span,
                format!("`{name}` is a `__kernel__` function and cannot be called directly"),
            )
            .with_note(format!("launch it with `parallel_do(dims, …, {name})`"));
            self.report(d);
            return unknown(span);
        }
        let names: Vec<Option<String>> =
            args.iter().map(|a| a.name.as_ref().map(|n| n.name.clone())).collect();
        let Some((decl, ordered)) = self.pick_overload(name, ids, &lowered, &names, span) else {
            return unknown(span);
        };
        let def = self.cx.decls.function(decl).def;
        let callee_kind = def.kind;
        match callee_kind {
            FunctionKind::Kernel => {
                let d = Diagnostic::error(
                    span,
                    format!("`{name}` is a `__kernel__` function and cannot be called directly"),
                )
                .with_note(format!("launch it with `parallel_do(dims, …, {name})`"));
                self.report(d);
                return unknown(span);
            }
            FunctionKind::Host | FunctionKind::ExplicitHost if self.in_device_code() => {
                let d = Diagnostic::error(span, format!("cannot call the host function `{name}` from a `{}` function", kind_word(self.kind)))
                    .with_note("kernel and device functions can only call `__device__` functions (manual §2.4.1)")
                    .with_secondary(def.name.span, "defined here as a host function");
                self.report(d);
                return unknown(span);
            }
            _ => {}
        }
        let arg_types = Self::arg_types(&ordered);
        if arg_types.contains(&Type::Void) {
            // An argument's type is not known yet in this pass.
            return ir::Expr::new(
                ir::ExprKind::Call { callee: Callee::Unresolved(name.to_string()), args: ordered },
                Type::Void,
                span,
            );
        }
        let env = self.env_for_scope(self.cx.decls.function(decl).parent);
        let Some(id) = self.cx.instantiate(decl, arg_types, type_args.to_vec(), span, env) else {
            // Recursion whose result type is still being inferred.
            return ir::Expr::new(
                ir::ExprKind::Call { callee: Callee::Unresolved(name.to_string()), args: ordered },
                Type::Unknown,
                span,
            );
        };
        self.call_instance(id, ordered, span)
    }

    /// A call of instance `id`, passing its captured variables after the arguments.
    fn call_instance(&mut self, id: FunctionId, mut args: Vec<ir::Expr>, span: Span) -> ir::Expr {
        args.extend(self.capture_args(id, span));
        let f = self.cx.module.function(id);
        let results: Vec<Type> =
            f.outputs.iter().map(|o| f.locals[o.0 as usize].ty.clone()).collect();
        ir::Expr::new(
            ir::ExprKind::Call { callee: Callee::Function(id), args },
            results_type(&results),
            span,
        )
    }

    /// Chooses among the definitions named `name` the one whose parameters accept the
    /// arguments (preferring the most specific), with the arguments in parameter order.
    fn pick_overload(
        &mut self,
        name: &str,
        ids: &[FnDeclId],
        args: &[ir::Expr],
        names: &[Option<String>],
        span: Span,
    ) -> Option<(FnDeclId, Vec<ir::Expr>)> {
        let mut best: Option<(usize, FnDeclId, Vec<ir::Expr>)> = None;
        let mut last_error = None;
        for &id in ids {
            let def = self.cx.decls.function(id).def;
            match self.match_params(def, args, names) {
                Ok((score, ordered)) => {
                    if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
                        best = Some((score, id, ordered));
                    }
                }
                Err(msg) => last_error = Some(msg),
            }
        }
        if let Some((_, id, ordered)) = best {
            return Some((id, ordered));
        }
        let types: Vec<String> = Self::arg_types(args).iter().map(|t| t.to_string()).collect();
        let mut d = if ids.len() == 1 {
            Diagnostic::error(
                span,
                last_error
                    .unwrap_or_else(|| format!("`{name}` cannot be called with these arguments")),
            )
        } else {
            Diagnostic::error(
                span,
                format!("no definition of `{name}` accepts the arguments ({})", types.join(", ")),
            )
        };
        let label = if ids.len() == 1 { "defined here" } else { "a candidate" };
        for &id in ids {
            let def = self.cx.decls.function(id).def;
            d = d.with_secondary(def.name.span, label);
        }
        self.report(d);
        None
    }

    /// Matches arguments to `def`'s parameters: a score (how many typed parameters matched)
    /// and the arguments in parameter order, or why they do not fit.
    fn match_params(
        &mut self,
        def: &ast::FunctionDef,
        args: &[ir::Expr],
        names: &[Option<String>],
    ) -> Result<(usize, Vec<ir::Expr>), String> {
        if args.iter().any(|a| matches!(a.kind, ir::ExprKind::Spread(_))) {
            return self.match_spread_params(def, args);
        }
        let fname = &def.name.name;
        let params: Vec<&ast::Param> = def
            .params
            .iter()
            .filter(|p| {
                !(def.kind == FunctionKind::Kernel && Special::from_name(&p.name.name).is_some())
            })
            .collect();
        let variadic = params.last().is_some_and(|p| p.variadic);
        let mut slots: Vec<Option<ir::Expr>> = vec![None; params.len()];
        let mut rest = Vec::new();
        let mut positional = 0;
        for (arg, name) in args.iter().zip(names) {
            match name {
                Some(n) => match params.iter().position(|p| p.name.name == *n) {
                    Some(i) => slots[i] = Some(arg.clone()),
                    None => return Err(format!("`{fname}` has no parameter named `{n}`")),
                },
                None => {
                    if variadic && positional + 1 >= params.len() {
                        rest.push(arg.clone());
                    } else if positional < params.len() {
                        slots[positional] = Some(arg.clone());
                    } else {
                        return Err(format!(
                            "`{fname}` takes {} argument(s) but {} are given",
                            params.len(),
                            args.len()
                        ));
                    }
                    positional += 1;
                }
            }
        }
        let mut score = 0;
        let mut ordered = Vec::new();
        for (i, p) in params.iter().enumerate() {
            if p.variadic {
                ordered.append(&mut rest);
                continue;
            }
            let Some(arg) = slots[i].take() else {
                if p.default.is_none() {
                    return Err(format!("missing argument `{}` of `{fname}`", p.name.name));
                }
                // Later arguments given by name after a defaulted one are not supported.
                if slots[i..].iter().any(Option::is_some) {
                    return Err(format!(
                        "argument `{}` of `{fname}` is missing before later named arguments",
                        p.name.name
                    ));
                }
                break;
            };
            if let Some(t) = &p.ty {
                let declared = self.cx.declared_param_type(def, p);
                let _ = t;
                if !self.fits(&arg.ty, &declared) {
                    return Err(format!(
                        "type mismatch: argument `{}` of `{fname}` is declared as {declared}, but the value is {}",
                        p.name.name, arg.ty
                    ));
                }
                if declared.is_concrete() {
                    score += 1;
                    // An exact match outranks one through subtyping or conversion (manual
                    // §4.9.2, rule 2): `f(x : vec)` before `f(x : mat)` for a vector.
                    if matches_exactly(&arg.ty, &declared) {
                        score += EXACT;
                    }
                }
            }
            ordered.push(arg);
        }
        Ok((score, ordered))
    }

    /// Matches arguments that include `...v` spreads positionally, by their expanded types
    /// (`f(...two())` passes both results of `two`); the arguments stay as written.
    fn match_spread_params(
        &mut self,
        def: &ast::FunctionDef,
        args: &[ir::Expr],
    ) -> Result<(usize, Vec<ir::Expr>), String> {
        let fname = &def.name.name;
        let types = Self::arg_types(args);
        let required = def.params.iter().filter(|p| p.default.is_none() && !p.variadic).count();
        let variadic = def.params.last().is_some_and(|p| p.variadic);
        if types.len() < required || (!variadic && types.len() > def.params.len()) {
            return Err(format!(
                "`{fname}` takes {} argument(s) but the spread gives {}",
                def.params.len(),
                types.len()
            ));
        }
        let mut score = 0;
        for (p, t) in def.params.iter().zip(&types) {
            if p.variadic {
                break;
            }
            if p.ty.is_some() {
                let declared = self.cx.declared_param_type(def, p);
                if !self.fits(t, &declared) {
                    return Err(format!("type mismatch: argument `{}` of `{fname}` is declared as {declared}, but the value is {t}", p.name.name));
                }
                score += declared.is_concrete() as usize;
            }
        }
        Ok((score, args.to_vec()))
    }

    /// A call through a variable holding a known lambda: instantiated for these arguments.
    fn call_lambda(
        &mut self,
        lambda: &'a ast::Lambda,
        lspan: Span,
        scope: crate::sema::decls::ScopeId,
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        let lowered = self.lower_args(args);
        let types = Self::arg_types(&lowered);
        if types.len() != lambda.params.len() && !lambda.params.last().is_some_and(|p| p.variadic) {
            let d = Diagnostic::error(
                span,
                format!(
                    "this lambda takes {} argument(s) but {} are given",
                    lambda.params.len(),
                    types.len()
                ),
            );
            self.report(d);
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
        match self.cx.instantiate_lambda(lambda, lspan, scope, types, env) {
            Some(id) => self.call_instance(id, lowered, span),
            None => ir::Expr::new(
                ir::ExprKind::Call { callee: Callee::Unresolved("<lambda>".into()), args: lowered },
                Type::Unknown,
                span,
            ),
        }
    }

    /// A call of a function value (a parameter of function type, a field, a returned lambda).
    fn call_value(&mut self, f: ir::Expr, args: &'a [ast::Arg], span: Span) -> ir::Expr {
        let lowered = self.lower_args(args);
        let ty = match &f.ty {
            Type::Function(ft) => {
                let types = Self::arg_types(&lowered);
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
            Type::Unknown | Type::Void => Type::Unknown,
            t => {
                let d = Diagnostic::error(span, format!("a value of type {t} cannot be called"));
                self.report(d);
                Type::Unknown
            }
        };
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

    /// `p.scale(2)`: a function-typed field, or a method written as a function whose first
    /// parameter is the object (manual §7.3.1).
    fn call_method(
        &mut self,
        base: &'a Expr,
        name: &'a ast::Ident,
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        let b = self.lower_expr(base);
        if matches!(b.ty, Type::ThreadBlock(_)) {
            return self.call_thread_block_method(b, name, args, span);
        }
        let class = match &b.ty {
            Type::Class(c) => Some(c.clone()),
            Type::Pointer(p) => match p.as_ref() {
                Type::Class(c) => Some(c.clone()),
                _ => None,
            },
            _ => None,
        };
        let has_field = class
            .as_ref()
            .is_some_and(|c| self.class_def(c.id).fields.iter().any(|(f, _)| *f == name.name));
        let method = self.cx.decls.lookup_function(self.scope, &name.name).map(<[_]>::to_vec);
        if class.is_some() && !has_field {
            if let Some(ids) = method {
                let mut lowered = vec![b];
                lowered.extend(self.lower_args(args));
                let mut names = vec![None];
                names.extend(args.iter().map(|a| a.name.as_ref().map(|n| n.name.clone())));
                let Some((decl, ordered)) =
                    self.pick_overload(&name.name, &ids, &lowered, &names, span)
                else {
                    return unknown(span);
                };
                let env = self.env_for_scope(self.cx.decls.function(decl).parent);
                let types = Self::arg_types(&ordered);
                return match self.cx.instantiate(decl, types, Vec::new(), span, env) {
                    Some(id) => self.call_instance(id, ordered, span),
                    None => unknown(span),
                };
            }
        }
        if let (Some(c), false) = (&class, has_field) {
            let def = self.class_def(c.id);
            if !def.dynamic {
                let d = Diagnostic::error(name.span, format!("`{}` has no field or method `{}`", def.name, name.name))
                    .with_note(format!("methods are functions whose first parameter is the object: `function y = {}(self : {}, …)`", name.name, def.name));
                self.report(d);
                self.lower_args(args);
                return unknown(span);
            }
        }
        let ty = self.field_type(&b.ty, &name.name, name.span);
        let field = ir::Expr::new(
            ir::ExprKind::Field { base: Box::new(b), field: name.name.clone() },
            ty,
            base.span.to(name.span),
        );
        self.call_value(field, args, span)
    }

    fn call_builtin(
        &mut self,
        sig: &'static builtins::Signature,
        type_args: &[Type],
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        let mut lowered = self.lower_args(args);
        if sig.builtin == ir::Builtin::Schedule {
            schedule_candidates(&mut lowered);
        }
        if self.in_device_code() && !sig.device {
            let d = Diagnostic::error(
                span,
                format!("`{}` cannot be used in a `{}` function", sig.name, kind_word(self.kind)),
            )
            .with_note(
                "it is a host function; compute the value outside the kernel and pass it in",
            );
            self.report(d);
        } else if !self.in_kernel_context() && !sig.host {
            let d = Diagnostic::error(
                span,
                format!(
                    "`{}` can only be used in `__kernel__` and `__device__` functions",
                    sig.name
                ),
            );
            self.report(d);
        }
        let infos: Vec<ArgInfo> = lowered
            .iter()
            .zip(args)
            .map(|(v, a)| ArgInfo {
                ty: v.ty.clone(),
                constant: v.constant().cloned(),
                name: a.name.as_ref().map(|n| n.name.clone()),
            })
            .collect();
        let ty = if infos.iter().any(|i| i.ty == Type::Void) {
            Type::Void
        } else {
            let call =
                BuiltinCall { args: &infos, type_args, in_device_code: self.in_device_code() };
            match (sig.rule)(&call) {
                Ok(t) => t,
                Err(msg) => {
                    let d = Diagnostic::error(span, msg).with_note(format!("usage: {}", sig.usage));
                    self.report(d);
                    Type::Unknown
                }
            }
        };
        ir::Expr::new(
            ir::ExprKind::Call { callee: Callee::Builtin(sig.builtin), args: lowered },
            ty,
            span,
        )
    }

    /// `T(…)` for a type `T`: a class value, or an array of that type with the given size.
    fn construct_type(&mut self, t: &Type, args: &'a [ast::Arg], span: Span) -> ir::Expr {
        match t {
            Type::Class(c) => self.construct(c, args, span),
            Type::Array(a) => {
                let lowered = self.lower_args(args);
                for v in &lowered {
                    if !(v.ty.is_int()
                        || matches!(&v.ty, Type::Array(x) if x.elem.is_int())
                        || matches!(v.ty, Type::Unknown | Type::Void))
                    {
                        let d = Diagnostic::error(
                            v.span,
                            format!("array sizes must be integers, found {}", v.ty),
                        );
                        self.report(d);
                    }
                }
                let consts: Option<Vec<Dim>> = lowered
                    .iter()
                    .map(|v| match v.constant() {
                        Some(ir::Const::Int(n)) if *n >= 0 => Some(Dim::Known(*n as u64)),
                        _ => None,
                    })
                    .collect();
                let mut arr = (**a).clone();
                if let (Some(shape), Rank::Fixed(_)) = (consts, arr.rank) {
                    if !shape.is_empty() {
                        arr.rank = Rank::Fixed(shape.len() as u8);
                        arr.shape = Some(shape);
                    }
                } else if lowered.len() > 1 {
                    arr.rank = Rank::Fixed(lowered.len() as u8);
                }
                let ty = Type::Array(Box::new(arr));
                let kind = ir::ExprKind::Call {
                    callee: Callee::Builtin(ir::Builtin::Uninit),
                    args: lowered,
                };
                ir::Expr::new(kind, ty, span)
            }
            t if t.is_number() => {
                let lowered = self.lower_args(args);
                match lowered.as_slice() {
                    [v] if v.ty.is_number() || matches!(v.ty, Type::Unknown) => {
                        ir::Expr::new(ir::ExprKind::Convert(Box::new(v.clone())), t.clone(), span)
                    }
                    _ => self.invalid(span, &format!("`{t}(…)` converts one number")),
                }
            }
            t => self.invalid(span, &format!("values of type {t} cannot be constructed this way")),
        }
    }

    /// `parallel_do(dims, args…, kernel)`: instantiates the kernel with the argument types,
    /// the special parameters typed after `dims` (`int` or `ivecN`).
    fn parallel_do(&mut self, which: &str, args: &'a [ast::Arg], span: Span) -> ir::Expr {
        if args.len() < 2 {
            return self.invalid(span, &format!("`{which}` needs the dimensions and a kernel function: `{which}(dims, args…, kernel)`"));
        }
        let (dims_arg, rest) = args.split_first().expect("checked length");
        let (kernel_arg, call_args) = rest.split_last().expect("checked length");
        // `[dims, blkdims]`: explicit block dimensions (a matrix of two vectors).
        let whole = self.lower_expr(&dims_arg.value);
        let (dims, block_dims) = match whole.kind {
            ir::ExprKind::Matrix(mut items)
                if items.len() == 2 && items.iter().all(|i| matches!(i.ty, Type::Array(_))) =>
            {
                let blk = items.pop().expect("two items");
                let d = items.pop().expect("two items");
                (d, Some(Box::new(blk)))
            }
            kind => (ir::Expr { kind, ..whole }, None),
        };
        let pos_type = match &dims.ty {
            t if t.is_int() => Type::INT,
            // `parallel_do(numel(x) / 2, …)`: a scalar count is truncated.
            t @ Type::Scalar(_) => {
                self.warn_conversion(t, &Type::INT, dims.span);
                Type::INT
            }
            // A one-element size (`size(v)` of a vector) is a one-dimensional launch.
            Type::Array(a)
                if a.rank == Rank::Fixed(1) && a.shape.as_deref() == Some(&[Dim::Known(1)]) =>
            {
                Type::INT
            }
            Type::Array(a) if a.rank == Rank::Fixed(1) => {
                Type::Array(Box::new(crate::sema::types::ArrayType {
                    elem: Type::INT,
                    ..(**a).clone()
                }))
            }
            Type::Unknown | Type::Void | Type::Param(_) => Type::Unknown,
            t => {
                let d = Diagnostic::error(dims.span, format!("the dimensions of `{which}` must be an int or an integer vector, found {t}"));
                self.report(d);
                Type::Unknown
            }
        };
        let lowered = self.lower_args(call_args);
        let arg_types = Self::arg_types(&lowered);
        let kernel = self.kernel_target(&kernel_arg.value, &arg_types, &pos_type, span);
        let Some(kernel) = kernel else {
            return ir::Expr::new(
                ir::ExprKind::Call { callee: Callee::Unresolved(which.to_string()), args: lowered },
                Type::Unknown,
                span,
            );
        };
        let mut all_args = lowered;
        all_args.extend(self.capture_args(kernel, span));
        let f = self.cx.module.function(kernel);
        let untyped: Vec<(String, Type, Span)> = f
            .params
            .iter()
            .map(|&p| &f.locals[p.0 as usize])
            .filter(|l| !l.ty.is_concrete() && l.ty != Type::Void)
            .map(|l| (l.name.clone(), l.ty.clone(), l.span))
            .collect();
        for (name, ty, pspan) in untyped {
            let d = Diagnostic::error(
                span,
                format!("the type of kernel parameter `{name}` cannot be inferred (it is {ty})"),
            )
            .with_secondary(pspan, format!("add a type annotation here, e.g. `{name} : mat`"))
            .with_note("kernel functions need fully known parameter types");
            self.report(d);
        }
        let f = self.cx.module.function(kernel);
        let results: Vec<Type> =
            f.outputs.iter().map(|o| f.locals[o.0 as usize].ty.clone()).collect();
        let kind =
            ir::ExprKind::ParallelDo { dims: Box::new(dims), block_dims, kernel, args: all_args };
        ir::Expr::new(kind, results_type(&results), span)
    }

    /// Resolves and instantiates the kernel of a `parallel_do`.
    fn kernel_target(
        &mut self,
        e: &'a Expr,
        arg_types: &[Type],
        pos_type: &Type,
        span: Span,
    ) -> Option<FunctionId> {
        // The parameter list to match: explicit ones take the arguments, special ones the
        // launch geometry.
        let fill = |params: &[ast::Param]| -> Result<Vec<Type>, String> {
            let explicit =
                params.iter().filter(|p| Special::from_name(&p.name.name).is_none()).count();
            if explicit != arg_types.len() {
                return Err(format!(
                    "the kernel takes {explicit} argument(s) but `parallel_do` passes {}",
                    arg_types.len()
                ));
            }
            let mut it = arg_types.iter();
            Ok(params
                .iter()
                .map(|p| match Special::from_name(&p.name.name) {
                    Some(s) => s.param_type(pos_type),
                    None => it.next().cloned().unwrap_or(Type::Unknown),
                })
                .collect())
        };
        match &e.kind {
            ExprKind::Ident(name) => match self.resolve_name(name, e.span) {
                Some(NameRef::Functions(ids)) => {
                    let decl = *ids
                        .iter()
                        .find(|&&i| self.cx.decls.function(i).def.kind == FunctionKind::Kernel)?;
                    let def = self.cx.decls.function(decl).def;
                    let types = match fill(&def.params) {
                        Ok(t) => t,
                        Err(msg) => {
                            let d = Diagnostic::error(span, msg)
                                .with_secondary(def.name.span, "the kernel");
                            self.report(d);
                            return None;
                        }
                    };
                    self.check_kernel_args(def.params.as_slice(), &types, def, span);
                    let env = self.env_for_scope(self.cx.decls.function(decl).parent);
                    self.cx.instantiate(decl, types, Vec::new(), span, env)
                }
                Some(NameRef::Local(id)) => {
                    let (lambda, lspan, _) = *self.lambdas.get(&id)?;
                    self.kernel_lambda(lambda, lspan, &fill, span)
                }
                _ => {
                    let d = Diagnostic::error(
                        e.span,
                        format!("`{name}` is not a `__kernel__` function"),
                    )
                    .with_note("the last argument of `parallel_do` is the kernel to run");
                    self.report(d);
                    None
                }
            },
            ExprKind::Lambda(l) => self.kernel_lambda(l, e.span, &fill, span),
            ExprKind::Paren(items) if items.len() == 1 => {
                self.kernel_target(&items[0], arg_types, pos_type, span)
            }
            _ => {
                let d = Diagnostic::error(e.span, "the last argument of `parallel_do` must name a `__kernel__` function or be a `__kernel__` lambda");
                self.report(d);
                None
            }
        }
    }

    fn kernel_lambda(
        &mut self,
        l: &'a ast::Lambda,
        lspan: Span,
        fill: ParamFill,
        span: Span,
    ) -> Option<FunctionId> {
        if l.kind != FunctionKind::Kernel {
            let d = Diagnostic::error(
                lspan,
                "the function launched by `parallel_do` must be a `__kernel__` lambda",
            )
            .with_note("write `__kernel__ (pos : ivec2) -> …`");
            self.report(d);
            return None;
        }
        let types = match fill(&l.params) {
            Ok(t) => t,
            Err(msg) => {
                let d = Diagnostic::error(span, msg);
                self.report(d);
                return None;
            }
        };
        let env = self.env_for_children();
        self.cx.instantiate_lambda(l, lspan, self.scope, types, env)
    }

    fn check_kernel_args(
        &mut self,
        params: &[ast::Param],
        types: &[Type],
        def: &ast::FunctionDef,
        span: Span,
    ) {
        for (p, t) in params.iter().zip(types) {
            if p.ty.is_none() {
                continue;
            }
            let declared = self.cx.declared_param_type(def, p);
            if let Some(s) = Special::from_name(&p.name.name) {
                // `pos : ivec2` over a 3-dimensional launch is fitted (a warning, `geometry.rs`);
                // `pos : vec2` or `blkdim : scalar` does not fit any launch.
                let geometry = |t: &Type| super::geometry::components(t).is_some();
                let lengths_differ = s.is_geometry() && geometry(&declared) && geometry(t);
                if declared.is_concrete()
                    && t.is_concrete()
                    && !lengths_differ
                    && !self.fits(t, &declared)
                {
                    let d = Diagnostic::error(span, format!("kernel parameter `{}` is declared as {declared}, but this launch gives it {t}", p.name.name))
                        .with_secondary(p.span, "declared here")
                        .with_note("positions have one integer per dimension of the `parallel_do` dimensions");
                    self.report(d);
                }
                continue;
            }
            if !self.fits(t, &declared) {
                let d = Diagnostic::error(span, format!("type mismatch: kernel parameter `{}` is declared as {declared}, but `parallel_do` passes {t}", p.name.name))
                    .with_secondary(p.span, "declared here");
                self.report(d);
            }
        }
    }
}
