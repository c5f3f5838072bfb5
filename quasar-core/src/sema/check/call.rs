//! Calls: user functions (overloads, generics `f[T](…)`, instantiation per argument types),
//! lambdas held in variables, function values, built-ins, constructors, methods
//! (`p.scale(2)` is `scale(p, 2)`), `parallel_do`/`serial_do`, and the calling rules between
//! host, device and kernel functions (manual §2.4.1, §4.3).

use super::attributes::schedule_candidates;
use super::expr::unknown;
use super::scope::{FnLowerer, NameRef};
use super::type_value::GenericArg;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Callee, FunctionId};
use crate::sema::builtins::{self, ArgInfo, BuiltinCall};
use crate::sema::decls::FnDeclId;
use crate::sema::types::{Dim, Rank, Type};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind, FunctionKind};

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
            // A reduction's variable bound to a function value (`x |> f = f(x)`).
            ExprKind::Ident(name) if self.reduction_binding(name).is_some() => {
                let f = self.lower_expr(callee);
                self.call_value(f, args, span)
            }
            ExprKind::Ident(name) => self.call_named(name, callee.span, &[], args, span),
            // `f[int](…)`: explicit type arguments of a generic function.
            ExprKind::Index { base, indices } if self.names_function(base) => {
                let ExprKind::Ident(name) = &base.kind else {
                    unreachable!("names_function checked")
                };
                let generic_args = self.lower_generic_args(indices);
                self.call_named(name, base.span, &generic_args, args, span)
            }
            ExprKind::Field { base, name } => self.call_method(base, name, args, span),
            _ => {
                let f = self.lower_expr(callee);
                let call = self.call_value(f, args, span);
                self.note_result_call(callee, args.len(), &call);
                call
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
        self.lower_args_named(args).0
    }

    /// The arguments (a spread of known length expanded) and the name each one was given.
    pub(super) fn lower_args_named(
        &mut self,
        args: &'a [ast::Arg],
    ) -> (Vec<ir::Expr>, Vec<Option<String>>) {
        let mut out = Vec::new();
        let mut names = Vec::new();
        for a in args {
            names.resize(out.len(), None);
            names.push(a.name.as_ref().map(|n| n.name.clone()));
            match &a.value.kind {
                ExprKind::Spread(inner) => {
                    let v = self.lower_expr(inner);
                    match self.spread_elements(v, a.value.span) {
                        Ok(elems) => out.extend(elems),
                        Err(v) => {
                            let v = *v;
                            let ty = v.ty.clone();
                            out.push(ir::Expr::new(
                                ir::ExprKind::Spread(Box::new(v)),
                                ty,
                                a.value.span,
                            ))
                        }
                    }
                }
                _ => {
                    let v = self.lower_expr(&a.value);
                    out.push(self.single_value(v));
                }
            }
        }
        names.resize(out.len(), None);
        (out, names)
    }

    /// The argument types as a function sees them: a spread vector of known length counts
    /// as that many arguments of its element type.
    pub(super) fn arg_types(args: &[ir::Expr]) -> Vec<Type> {
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
        type_args: &[GenericArg],
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
        // A call of an enclosing scope's variable that holds a known lambda instantiates the
        // lambda without capturing the variable (so a recursive lambda, which names itself,
        // does not capture a value of its own not-yet-typed function type).
        if !self.names.contains_key(name) {
            if let Some((lambda, lspan, scope)) =
                self.outer.as_ref().and_then(|o| o.find_lambda(name))
            {
                return self.call_lambda(lambda, lspan, scope, args, span);
            }
        }
        match self.resolve_name(name, name_span) {
            Some(NameRef::Local(id)) => {
                // A variable declared with a function type holds the lambda typed as declared;
                // an untyped one is instantiated for each call's argument types.
                let typed =
                    matches!(self.declared.get(id.0 as usize), Some(Some(Type::Function(_))));
                if let Some(&(lambda, lspan, scope)) =
                    self.lambdas.get(&id).filter(|_| !self.reassigned.contains(&id) && !typed)
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
        type_args: &[GenericArg],
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        let (lowered, names) = self.lower_args_named(args);
        if ids.iter().all(|&id| self.cx.decls.function(id).def.kind == FunctionKind::Kernel) {
            let d = Diagnostic::error(
                span,
                format!("`{name}` is a `__kernel__` function and cannot be called directly"),
            )
            .with_note(format!("launch it with `parallel_do(dims, …, {name})`"));
            self.report(d);
            return unknown(span);
        }
        let Some((decl, ordered)) = self.pick_overload(name, ids, &lowered, &names, span) else {
            return unknown(span);
        };
        let def = self.cx.decls.function(decl).def;
        if !self.check_generic_count(def, type_args.len(), span) {
            return unknown(span);
        }
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
        // Function values of no one type yet: the callee's calls through its parameters
        // decide it (`fn_args.rs`).
        let (ordered, arg_types) = if self.has_unsettled_args(&ordered) {
            let calls = self.probe_param_calls(&mut |me| {
                me.cx.instantiate(decl, arg_types.clone(), type_args.to_vec(), span, env.clone())
            });
            match self.settle_fn_args(ordered, &calls, name) {
                Ok(args) => {
                    let types = Self::arg_types(&args);
                    (args, types)
                }
                Err(true) => return unknown(span),
                Err(false) => return unknown_call(name, Vec::new(), Type::Void, span),
            }
        } else {
            (ordered, arg_types)
        };
        let Some(id) = self.cx.instantiate(decl, arg_types, type_args.to_vec(), span, env) else {
            // Recursion whose result type is still being inferred.
            return ir::Expr::new(
                ir::ExprKind::Call { callee: Callee::Unresolved(name.to_string()), args: ordered },
                Type::Unknown,
                span,
            );
        };
        self.pass_on_param_calls(id, &ordered);
        self.call_instance(id, ordered, span)
    }

    /// A call of instance `id`, passing its captured variables after the arguments.
    pub(super) fn call_instance(
        &mut self,
        id: FunctionId,
        args: Vec<ir::Expr>,
        span: Span,
    ) -> ir::Expr {
        let (setups, mut args) = self.flatten_args(id, args, span);
        args.extend(self.capture_args(id, span));
        let f = self.cx.module.function(id);
        let results: Vec<Type> =
            f.outputs.iter().map(|o| f.locals[o.0 as usize].ty.clone()).collect();
        let call = ir::Expr::new(
            ir::ExprKind::Call { callee: Callee::Function(id), args },
            results_type(&results),
            span,
        );
        super::flat_params::with_setups(setups, call)
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
                let (rest, rest_names) = self.lower_args_named(args);
                lowered.extend(rest);
                let mut names = vec![None];
                names.extend(rest_names);
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
        generic_args: &[GenericArg],
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
        let (mut lowered, names) = self.lower_args_named(args);
        let mut type_args = Vec::new();
        for g in generic_args {
            match g {
                GenericArg::Type(t) => type_args.push(t.clone()),
                GenericArg::Size(n) => {
                    let d = Diagnostic::error(
                        span,
                        format!("`{}[…]` takes types in brackets, not the size {n}", sig.name),
                    )
                    .with_note(format!("usage: {}", sig.usage));
                    self.report(d);
                    type_args.push(Type::Unknown);
                }
            }
        }
        let type_args = type_args.as_slice();
        if sig.builtin == ir::Builtin::Schedule {
            schedule_candidates(&mut lowered);
        }
        self.builtin_type_args(sig.builtin, args, &mut lowered);
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
            .zip(names)
            .map(|(v, name)| ArgInfo { ty: v.ty.clone(), constant: v.constant().cloned(), name })
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
    pub(super) fn construct_type(
        &mut self,
        t: &Type,
        args: &'a [ast::Arg],
        span: Span,
    ) -> ir::Expr {
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
}

/// A call of `name` whose result type is not known yet in this pass.
fn unknown_call(name: &str, args: Vec<ir::Expr>, ty: Type, span: Span) -> ir::Expr {
    ir::Expr::new(
        ir::ExprKind::Call { callee: Callee::Unresolved(name.to_string()), args },
        ty,
        span,
    )
}
