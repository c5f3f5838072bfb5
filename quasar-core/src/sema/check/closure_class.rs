//! Untyped lambdas as values (manual §1.13, §4.6, §4.10): `w = x -> y -> x + y; w(4)(5)`,
//! `compose = (f, g) -> x -> f(g(x))`, partial application, lambdas passed to functions whose
//! parameters have no types.
//!
//! A lambda with an untyped parameter is not one function but one per tuple of argument
//! types, like a generic function, so its value cannot be one function value. Its value is a
//! *closure class*: an immutable class per lambda (and set of captured names) whose fields are
//! the values the lambda captures, copied where it is evaluated, with the captured values'
//! types as the class's type arguments (`<lambda@1:8>[int]`). The type remembers the lambda:
//!
//! * calling a closure class value instantiates the lambda for the call's argument types and
//!   the captured types (one instance per both), passing the fields as its captures;
//! * where a concrete function type is expected (a parameter or a variable declared
//!   `[scalar -> scalar]`), the value becomes a closure of the instance for the declared
//!   parameter types; a function type with unknown parts (`[?? -> ??]`) keeps the class.
//!
//! Both back ends compile a closure class as any immutable class (a struct; registers on the
//! GPU when its fields are numbers), so nothing past the type checker knows about it.

use super::assign::single_result;
use super::call::results_type;
use super::expr::unknown;
use super::kept_classes::takes_device_fn;
use super::scope::{FnLowerer, OuterEnv};
use super::Checker;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, ClassDef, ExprKind, FunctionId, LocalId, LocalRole, PlaceKind};
use crate::sema::decls::{FnDeclId, ScopeId};
use crate::sema::types::{ClassId, ClassRef, FnType, Type};
use crate::span::Span;
use crate::syntax::ast::{self, FunctionKind};
use std::collections::HashMap;
use std::rc::Rc;

/// What a closure class calls: a lambda, or a nested named `__device__` function taking a
/// device function (manual ch. 15's mean filters, `function y = __device__ algo(input :
/// image, pos : ivec2)` as an `algorithm`), instantiated for the images it is called with.
#[derive(Clone, Copy)]
pub(super) enum ClassFn<'a> {
    Lambda(&'a ast::Lambda),
    Nested(FnDeclId, &'a ast::FunctionDef),
}

impl<'a> ClassFn<'a> {
    pub(super) fn kind(self) -> FunctionKind {
        match self {
            ClassFn::Lambda(l) => l.kind,
            ClassFn::Nested(_, d) => d.kind,
        }
    }

    pub(super) fn params(self) -> &'a [ast::Param] {
        match self {
            ClassFn::Lambda(l) => &l.params,
            ClassFn::Nested(_, d) => &d.params,
        }
    }

    pub(super) fn variadic(self) -> bool {
        self.params().last().is_some_and(|p| p.variadic)
    }
}

/// One closure class: the lambda, where it was defined, and the names it captures (its
/// fields, in the order of its captures).
pub(super) struct ClosureClass<'a> {
    pub(super) lambda: ClassFn<'a>,
    span: Span,
    scope: ScopeId,
    names: Vec<String>,
    /// The environment where the lambda was last evaluated: the lambdas its body calls by
    /// name and the enclosing scopes (the captured names themselves are typed by the class's
    /// arguments).
    env: Rc<OuterEnv<'a>>,
}

/// The name of the closure class of `f` at `span`, as messages show it.
fn class_name(f: ClassFn, span: Span) -> String {
    let what = match f {
        ClassFn::Lambda(_) => "lambda",
        ClassFn::Nested(_, d) => &d.name.name,
    };
    format!("<{what}@{}:{}>", span.line, span.col)
}

/// Whether the lambda `l` is a closure class when used as a value: some parameter has no
/// type and nothing gives it one (a `__kernel__` lambda is launched, never a value).
pub(super) fn is_untyped(l: &ast::Lambda, expected: &[Type], result: &Option<Type>) -> bool {
    l.kind != FunctionKind::Kernel
        && result.is_none()
        && l.params.iter().enumerate().any(|(i, p)| p.ty.is_none() && expected.get(i).is_none())
}

/// The index of the closure class of `ty`, if it is one.
pub(super) fn closure_index(ty: &Type) -> Option<usize> {
    match ty {
        Type::Class(c) if c.id.is_closure() => Some((c.id.0 - ClassId::CLOSURE_BASE) as usize),
        _ => None,
    }
}

impl<'a> Checker<'a> {
    /// The closure class of the lambda at `span` capturing `names`, made on first use.
    fn closure_class(
        &mut self,
        lambda: ClassFn<'a>,
        span: Span,
        scope: ScopeId,
        names: Vec<String>,
        env: Rc<OuterEnv<'a>>,
    ) -> ClassId {
        // (Spans compare equal as metadata: compare the lambdas' positions.)
        let at = |s: Span| (s.file, s.start);
        let found =
            self.closure_classes.iter().position(|c| at(c.span) == at(span) && c.names == names);
        let index = match found {
            Some(i) => {
                self.closure_classes[i].env = env;
                i
            }
            None => {
                let i = self.closure_classes.len();
                let params: Vec<String> = (0..names.len()).map(|k| format!("T{k}")).collect();
                let fields =
                    names.iter().zip(&params).map(|(n, p)| (n.clone(), Type::Param(p.clone())));
                self.module.classes.push(ClassDef {
                    id: ClassId(ClassId::CLOSURE_BASE + i as u32),
                    name: class_name(lambda, span),
                    mutable: false,
                    dynamic: false,
                    parent: None,
                    params: params.clone(),
                    fields: fields.collect(),
                    span,
                });
                self.closure_classes.push(ClosureClass { lambda, span, scope, names, env });
                i
            }
        };
        ClassId(ClassId::CLOSURE_BASE + index as u32)
    }
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// An untyped lambda used as a value: checked once with `??` for its untyped parameters
    /// (which reports the errors of its body and finds what it captures), then the closure
    /// class value holding the captured values.
    pub(super) fn closure_class_value(
        &mut self,
        l: &'a ast::Lambda,
        span: Span,
        args: Vec<Type>,
    ) -> ir::Expr {
        let env = self.env_for_children();
        match self.cx.instantiate_lambda(l, span, self.scope, args, None, env) {
            Some(id) => self.closure_class_of(ClassFn::Lambda(l), span, id),
            None => unknown(span),
        }
    }

    /// The closure class value of the lambda `l` whose instance `id` tells what it captures.
    pub(super) fn closure_class_of(
        &mut self,
        l: ClassFn<'a>,
        span: Span,
        id: FunctionId,
    ) -> ir::Expr {
        let env = self.env_for_children();
        let names = class_fields_of(self.cx.module.function(id));
        let captures: Vec<ir::Expr> = names.iter().map(|n| self.lower_name(n, span)).collect();
        let class = self.cx.closure_class(l, span, self.scope, names.clone(), env);
        let args = captures.iter().map(|c| c.ty.clone()).collect();
        let ty = Type::Class(ClassRef { id: class, name: class_name(l, span), args });
        let fields = names.into_iter().zip(captures).collect();
        ir::Expr::new(ExprKind::Construct { class, fields }, ty, span)
    }

    /// Whether a closure class value fits the function type `ft` as it is (kept as the
    /// class): `ft` has unknown parts (`[?? -> ??]`) and the lambda's number of parameters.
    pub(super) fn closure_fits(&self, from: &Type, ft: &FnType) -> Option<bool> {
        let index = closure_index(from)?;
        let l = self.cx.closure_classes.get(index)?.lambda;
        let arity = ft.variadic || l.variadic() || l.params().len() == ft.params.len();
        if keeps_class(l.kind(), from) || takes_device_fn(l, ft) {
            return Some(arity && kind_fits(l.kind(), ft.kind));
        }
        Some(arity && !Type::Function(Box::new(ft.clone())).is_concrete())
    }

    /// The fields of a closure class value of type `ty` with their types (none for another
    /// type).
    pub(super) fn closure_fields(&self, ty: &Type) -> Vec<(String, Type)> {
        let (Some(index), Type::Class(c)) = (closure_index(ty), ty) else { return Vec::new() };
        let Some(cc) = self.cx.closure_classes.get(index) else { return Vec::new() };
        cc.names.iter().cloned().zip(c.args.iter().cloned()).collect()
    }

    /// `fn.lut`, the name under which device code captures field `lut` of the closure class
    /// value `fn` of an enclosing function (so that a kernel gets the captured array as an
    /// argument of its own, not inside a class value): the field, read here where `fn` is a
    /// value of this function (`None` elsewhere: the name is then captured as it is).
    pub(super) fn closure_field_name(&mut self, name: &str, span: Span) -> Option<ir::Expr> {
        let (base, field) = name.split_once('.')?;
        if let Some(e) = self.device_fn_cell_name(base, field, span) {
            return Some(e);
        }
        // A value of this function (not one it captures, whose fields it captures in turn
        // under the same name).
        let id = *self.names.get(base)?;
        if self.locals[id.0 as usize].role == LocalRole::Capture {
            return None;
        }
        let b = self.lower_name(base, span);
        let ty = self.closure_fields(&b.ty).into_iter().find(|(f, _)| f == field)?.1;
        let kind = ExprKind::Field { base: Box::new(b), field: field.to_string() };
        Some(ir::Expr::new(kind, ty, span))
    }

    /// `f(args)` where `f` is a closure class value: the lambda instantiated for the argument
    /// types, given the fields of `f` as its captures.
    pub(super) fn call_closure_class(
        &mut self,
        f: ir::Expr,
        args: &'a [ast::Arg],
        span: Span,
    ) -> Option<ir::Expr> {
        let index = closure_index(&f.ty)?;
        let lowered = self.lower_args(args);
        let types = Self::arg_types(&lowered);
        self.note_call_through(&f, &types, span);
        let lambda = self.cx.closure_classes.get(index)?.lambda;
        if !self.lambda_arity_fits(lambda.params(), types.len(), span) {
            return Some(unknown(span));
        }
        let unresolved = |ty| {
            let callee = ir::Callee::Unresolved("<lambda>".into());
            ir::Expr::new(ExprKind::Call { callee, args: lowered.clone() }, ty, span)
        };
        if types.contains(&Type::Void) {
            return Some(unresolved(Type::Void));
        }
        let Some(id) = self.instantiate_closure_class(index, &f.ty, types, None) else {
            return Some(unresolved(Type::Unknown));
        };
        let (setup, captures) = self.fields_as_captures(f, id, span);
        let (setups, mut args) = self.flatten_args(id, lowered, span);
        let inst = self.cx.module.function(id);
        let results: Vec<Type> =
            inst.outputs.iter().map(|o| inst.locals[o.0 as usize].ty.clone()).collect();
        args.extend(captures);
        let call = ir::Expr::new(
            ExprKind::Call { callee: ir::Callee::Function(id), args },
            results_type(&results),
            span,
        );
        let call = super::flat_params::with_setups(setups, call);
        Some(with_setup(setup, call))
    }

    /// A closure class value where the concrete function type `ft` is expected: a closure of
    /// the lambda instantiated for the declared parameter types (the declared result types
    /// the lambdas it returns). Any other value, or a lambda whose number of parameters or
    /// kind does not match, is returned as it is (and reported where it does not fit); with
    /// `keep` (a parameter of a function, which is then instantiated for the value) also a
    /// device lambda capturing an array.
    pub(super) fn coerce_to_fn(
        &mut self,
        value: ir::Expr,
        ft: &FnType,
        span: Span,
        keep: bool,
    ) -> ir::Expr {
        let Some(index) = closure_index(&value.ty) else { return value };
        if !Type::Function(Box::new(ft.clone())).is_concrete() {
            return value;
        }
        let lambda = self.cx.closure_classes[index].lambda;
        if !kind_fits(lambda.kind(), ft.kind)
            || (!lambda.variadic() && lambda.params().len() != ft.params.len())
            || (keep && keeps_class(lambda.kind(), &value.ty))
            || takes_device_fn(lambda, ft)
        {
            return value;
        }
        let result = single_result(ft);
        let Some(id) = self.instantiate_closure_class(index, &value.ty, ft.params.clone(), result)
        else {
            return value;
        };
        let (setup, captures) = self.fields_as_captures(value, id, span);
        let ty = self.instance_type(id);
        let closure = ir::Expr::new(ExprKind::Closure { function: id, captures }, ty, span);
        with_setup(setup, closure)
    }

    /// Instantiates the lambda of closure class `index` for `args`, its captured names typed
    /// by the class's arguments.
    pub(super) fn instantiate_closure_class(
        &mut self,
        index: usize,
        class_ty: &Type,
        args: Vec<Type>,
        result: Option<Type>,
    ) -> Option<FunctionId> {
        let Type::Class(c) = class_ty else { return None };
        let cc = self.cx.closure_classes.get(index)?;
        let (lambda, lspan, scope) = (cc.lambda, cc.span, cc.scope);
        let vars = cc.names.iter().cloned().zip(c.args.iter().cloned()).collect();
        let env = Rc::new(OuterEnv {
            scope,
            vars,
            lambdas: HashMap::new(),
            sizes: cc.env.sizes.clone(),
            type_params: cc.env.type_params.clone(),
            parent: Some(cc.env.clone()),
        });
        let captured = c.args.clone();
        match lambda {
            ClassFn::Lambda(l) => {
                self.cx.instantiate_lambda_capturing(l, lspan, scope, args, result, env, captured)
            }
            ClassFn::Nested(decl, _) => {
                self.cx.instantiate(decl, args, Vec::new(), lspan, Some(env))
            }
        }
    }

    /// The fields of closure value `f` that instance `id` captures, in the order of its
    /// captures; `f` is evaluated once, into a temporary (the setup) unless it is a variable.
    pub(super) fn fields_as_captures(
        &mut self,
        f: ir::Expr,
        id: FunctionId,
        span: Span,
    ) -> (Option<ir::Expr>, Vec<ir::Expr>) {
        let Type::Class(c) = f.ty.clone() else { return (None, Vec::new()) };
        let Some(index) = closure_index(&f.ty) else { return (None, Vec::new()) };
        let inst = self.cx.module.function(id);
        let wanted: Vec<String> =
            inst.captures.iter().map(|c| inst.locals[c.0 as usize].name.clone()).collect();
        let (setup, base) = match f.kind {
            ExprKind::Local(_) => (None, f),
            _ => {
                let name = format!("<fn@{}:{}>", span.line, span.col);
                let tmp = match self.names.get(&name) {
                    Some(&id) => id,
                    None => self.add_local(&name, f.ty.clone(), LocalRole::Var, span),
                };
                let ty = self.assign_local(tmp, &f.ty, span);
                let place = ir::Place::new(PlaceKind::Local(tmp), ty.clone(), span);
                let assign = ExprKind::Assign {
                    place: Box::new(place),
                    op: ir::AssignOp::Assign,
                    value: Box::new(f),
                };
                let setup = ir::Expr::new(assign, ty.clone(), span);
                (Some(setup), ir::Expr::new(ExprKind::Local(tmp), ty, span))
            }
        };
        let names = self.cx.closure_classes[index].names.clone();
        // Device code reads the fields of a captured closure value as captures of their own
        // (`fn.lut`): a kernel cannot take a class value holding an array.
        let dotted = match base.kind {
            ExprKind::Local(l) if self.in_device_code() => {
                let local = &self.locals[l.0 as usize];
                (local.role == LocalRole::Capture).then(|| local.name.clone())
            }
            _ => None,
        };
        let mut captures = Vec::new();
        for n in wanted {
            if let Some(b) = &dotted {
                captures.push(self.lower_name(&format!("{b}.{n}"), span));
                continue;
            }
            let Some(k) = names.iter().position(|m| *m == n) else {
                let d = Diagnostic::error(
                    span,
                    format!("this call of a lambda needs `{n}`, which the lambda value does not hold"),
                )
                .with_note("the lambda captures another variable here than where it was written; give the variable to the lambda as a parameter");
                self.report(d);
                captures.push(unknown(span));
                continue;
            };
            let ty = c.args.get(k).cloned().unwrap_or(Type::Unknown);
            let field = ExprKind::Field { base: Box::new(base.clone()), field: n };
            captures.push(ir::Expr::new(field, ty, span));
        }
        (setup, captures)
    }

    /// Whether variable `id`, given a function value of type `ty` at `span`, now holds an
    /// untyped lambda and another function value (a second untyped lambda, the same one
    /// capturing values of other types, a typed lambda): it has no one type then, and
    /// `common_fn_type.rs` finds the function type its calls imply. A variable with a
    /// declared function type takes each value converted to it instead.
    pub(super) fn check_one_lambda_per_variable(
        &mut self,
        id: LocalId,
        ty: &Type,
        span: Span,
    ) -> bool {
        let is_fn = |t: &Type| closure_index(t).is_some() || matches!(t, Type::Function(_));
        if !is_fn(ty) || self.declared[id.0 as usize].is_some() {
            return false;
        }
        let (first, at) = self.first_fn_values.entry(id).or_insert((ty.clone(), span)).clone();
        // (The same assignment in a later pass may give a more precise type.)
        if (at.file, at.start) == (span.file, span.start) {
            self.first_fn_values.insert(id, (ty.clone(), span));
            if self.fn_conflicts.holds(id) {
                self.fn_conflicts.record_value(id, ty, span);
            }
            return false;
        }
        if first == *ty || (closure_index(&first).is_none() && closure_index(ty).is_none()) {
            return false;
        }
        self.fn_conflicts.record_value(id, &first, at);
        self.fn_conflicts.record_value(id, ty, span);
        true
    }

    /// Whether a lambda takes `given` arguments; reports it when not.
    pub(super) fn lambda_arity_fits(
        &mut self,
        params: &[ast::Param],
        given: usize,
        span: Span,
    ) -> bool {
        if given == params.len() || params.last().is_some_and(|p| p.variadic) {
            return true;
        }
        let d = Diagnostic::error(
            span,
            format!("this lambda takes {} argument(s) but {given} are given", params.len()),
        );
        self.report(d);
        false
    }
}

/// The captured names that instance `f` of a lambda keeps as the fields of its closure class:
/// those it reads, and the lambda values without fields it calls directly (`f` and `g` of
/// `x -> f(g(x))` given `inc` and `dbl`), whose types tell which functions the class calls.
fn class_fields_of(f: &ir::Function) -> Vec<String> {
    let read = |l: &ir::Local| f.captures.iter().any(|c| f.locals[c.0 as usize].name == l.name);
    let called = |l: &ir::Local| {
        matches!(&l.ty, Type::Class(c) if c.id.is_closure() && !c.args.iter().any(is_heap_array))
            && l.ty.is_concrete()
            && !l.name.contains('.')
    };
    f.locals
        .iter()
        .filter(|l| l.role == LocalRole::Capture && (read(l) || called(l)))
        .map(|l| l.name.clone())
        .collect()
}

/// Whether a function of kind `lambda` fits a function type of kind `expected`.
pub(super) fn kind_fits(lambda: FunctionKind, expected: FunctionKind) -> bool {
    lambda == expected || matches!(expected, FunctionKind::Host | FunctionKind::ExplicitHost)
}

/// Whether a closure class value stays one where a concrete function type is expected: a
/// `__device__` lambda that captures an array (manual §4.2, the lookup table `lut`). The
/// function it is given to is then instantiated for this lambda, and a kernel there that
/// calls it takes the captured arrays as arguments of its own; a function value could not
/// carry a host array into a kernel.
pub(super) fn keeps_class(kind: FunctionKind, ty: &Type) -> bool {
    kind == FunctionKind::Device
        && matches!(ty, Type::Class(c) if c.args.iter().any(super::kept_classes::holds_heap_array))
}

/// An array that a device function value cannot hold (one not of a small fixed size such as
/// `vec3`, which function values and kernels take by value).
pub(super) fn is_heap_array(t: &Type) -> bool {
    let Type::Array(a) = t else { return false };
    let elements = a.shape.as_ref().and_then(|s| {
        s.iter().try_fold(1u64, |n, d| match d {
            crate::sema::types::Dim::Known(k) => n.checked_mul(*k),
            _ => None,
        })
    });
    elements.is_none_or(|n| n > 64)
}

/// `(setup; value)`, or `value` without a setup.
pub(super) fn with_setup(setup: Option<ir::Expr>, value: ir::Expr) -> ir::Expr {
    match setup {
        None => value,
        Some(s) => {
            let (ty, span) = (value.ty.clone(), value.span);
            ir::Expr::new(ExprKind::Sequence(vec![s, value]), ty, span)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::errors;

    /// The script's variables as `name : type`, and the instances' signatures; no errors.
    fn checked(src: &str) -> (Vec<String>, String) {
        (super::super::tests::script_vars(src), super::super::tests::signatures(src))
    }

    fn has(vars: &[String], v: &str) -> bool {
        vars.iter().any(|x| x == v)
    }

    #[test]
    fn a_curried_lambda_is_instantiated_per_argument_and_captured_types() {
        let (vars, sigs) =
            checked("add = x -> y -> x + y\na = add(1)(2)\nb = add(1.5)(2)\ng = add(4)\n");
        assert!(has(&vars, "a : int"), "{vars:?}");
        assert!(has(&vars, "b : scalar"), "{vars:?}");
        // The value of `add(4)` remembers the inner lambda and the type of what it captured.
        assert!(has(&vars, "g : <lambda@1:12>[int]"), "{vars:?}");
        // `y -> x + y` for `y : int`, once with `x : int` and once with `x : scalar`.
        let inner = sigs.lines().filter(|l| l.contains("<lambda@1:12>(y : int)")).count();
        assert_eq!(inner, 2, "{sigs}");
    }

    #[test]
    fn composition_and_lambdas_given_to_untyped_parameters() {
        let src = "compose = (f, g) -> x -> f(g(x))\ninc = x -> x + 1\ndbl = x -> 2 * x\nh = compose(inc, dbl)\nr = h(3)\nfunction y = twice(f, x)\n    y = f(f(x))\nendfunction\ns = twice(dbl, 2.5)\n";
        let (vars, sigs) = checked(src);
        assert!(has(&vars, "r : int"), "{vars:?}");
        assert!(has(&vars, "s : scalar"), "{vars:?}");
        assert!(sigs.contains("twice(f : <lambda@3:7>, x : scalar)"), "{sigs}");
    }

    #[test]
    fn a_declared_function_type_takes_the_instance_for_its_parameter_types() {
        let src = "function y = apply(f : [scalar -> scalar], x : scalar)\n    y = f(x)\nendfunction\nk = 3\nr = apply(x -> k * x, 2.0)\nsq = x -> x * x\ng : [scalar -> scalar] = sq\n";
        let (vars, sigs) = checked(src);
        assert!(has(&vars, "r : scalar"), "{vars:?}");
        assert!(sigs.contains("<lambda@5:11>(x : scalar)"), "{sigs}");
        assert!(sigs.contains("<lambda@6:6>(x : scalar)"), "{sigs}");
    }

    #[test]
    fn a_generic_function_type_is_bound_by_the_arguments_before_it() {
        // The manual's `apply[T]` (§8.6): `fn : [__device__ (T, T) -> T]` after `x : T`.
        let src = "function z = apply[T](x : T, y : T, fn : [__device__ (T, T) -> T])\n    z = fn(x, y)\nendfunction\nr = apply(1, 2, __device__ (a, b) -> a + b)\n";
        let (vars, sigs) = checked(src);
        assert!(has(&vars, "r : int"), "{vars:?}");
        assert!(sigs.contains("__device__ <lambda@4:17>(a : int, b : int)"), "{sigs}");
    }

    #[test]
    fn a_lambda_evaluated_with_another_captured_type_is_another_instance() {
        // `s` is an `int`, then a `vec`: the typed lambda and the nested function get an
        // instance for each (the first one's `s : int` would not hold a vector).
        let src = "function f = offset_by(s)\n    f = (u : scalar) -> u + s\nendfunction\nfunction y = outer(s)\n    function z = inner(u)\n        z = s * u\n    endfunction\n    y = inner(3)\nendfunction\na = offset_by(2)(0.5)\nb = offset_by([1.0, 2.0, 4.0])(0.5)\nc = outer(2)\nd = outer([1.0, 2.0, 4.0])\n";
        let (vars, sigs) = checked(src);
        assert!(has(&vars, "a : scalar"), "{vars:?}");
        assert!(has(&vars, "c : int"), "{vars:?}");
        for v in ["b", "d"] {
            assert!(
                vars.iter().any(|x| x.starts_with(&format!("{v} : vec"))),
                "{v} should be a vector: {vars:?}"
            );
        }
        let lambdas = sigs.lines().filter(|l| l.contains("<lambda@2:9>(u : scalar)")).count();
        assert_eq!(lambdas, 2, "{sigs}");
        let inner = sigs.lines().filter(|l| l.contains("inner(u : int)")).count();
        assert_eq!(inner, 2, "{sigs}");
    }

    #[test]
    fn misuses_are_errors_at_the_call() {
        let arity = errors("add = x -> y -> x + y\nr = add(1)(2, 3)\n");
        assert!(
            arity.iter().any(|e| e.contains("this lambda takes 1 argument(s) but 2 are given")),
            "{arity:?}"
        );
        // A host lambda is not a device function value (manual §4.2).
        let kind = errors("function y = run(f : [__device__ scalar -> scalar], x : scalar)\n    y = f(x)\nendfunction\nr = run(x -> 2 * x, 1.0)\n");
        assert!(
            kind.iter().any(|e| e.contains("type mismatch") && e.contains("<lambda@4:9>")),
            "{kind:?}"
        );
    }
}
