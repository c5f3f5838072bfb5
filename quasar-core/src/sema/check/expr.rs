//! Expressions: literals and their types (manual §3.2: `1` is `int`, `1.0` is `scalar`,
//! `[1, 2, 3]` is `ivec3`), names, operators with constant folding, matrices and cells,
//! lambdas as values, field access, type checks `e : T`, and types used as values.

use super::scope::{FnLowerer, NameRef};
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Const};
use crate::sema::types::{join, promote, FnType, Type};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind, NumberValue};
use crate::syntax::lexer::decode_number;

impl<'c, 'a> FnLowerer<'c, 'a> {
    pub fn lower_expr(&mut self, e: &'a Expr) -> ir::Expr {
        crate::stack::guard(|| self.lower_expr_unguarded(e))
    }

    fn lower_expr_unguarded(&mut self, e: &'a Expr) -> ir::Expr {
        if let Some(v) = self.prelowered.remove(&(e as *const Expr)) {
            return v;
        }
        if !self.cx.rules.is_empty() {
            if let Some(v) = self.lower_reduced(e) {
                return v;
            }
        }
        self.lower_expr_kind(e)
    }

    /// `e` lowered as written (no reduction applied at its root).
    pub(super) fn lower_expr_kind(&mut self, e: &'a Expr) -> ir::Expr {
        let span = e.span;
        match &e.kind {
            ExprKind::Number(text) => lower_number(text, span),
            ExprKind::Str(s) => {
                ir::Expr::new(ir::ExprKind::Const(Const::Str(s.clone())), Type::String, span)
            }
            ExprKind::Ident(name) => self.lower_name(name, span),
            ExprKind::Placeholder => {
                self.invalid(span, "`_` can only appear where a value is assigned or matched")
            }
            ExprKind::Colon => self.invalid(span, "`:` can only be used as an index"),
            ExprKind::Spread(_) => self.invalid(
                span,
                "the spread operator `...` can only be used in arguments, indices and matrices",
            ),
            ExprKind::Unknown => ir::Expr::new(
                ir::ExprKind::TypeValue,
                Type::TypeValue(Box::new(Type::Unknown)),
                span,
            ),
            ExprKind::Range { start, step, end } => {
                self.lower_range(start, step.as_deref(), end, span)
            }
            ExprKind::Unary { op, operand } => self.lower_unary(*op, operand, span),
            ExprKind::Binary { op, lhs, rhs } => self.lower_binary(*op, lhs, rhs, span),
            ExprKind::Ternary { cond, then, otherwise } => {
                let cond = self.lower_condition(cond);
                let then = self.lower_expr(then);
                let otherwise = self.lower_expr(otherwise);
                let ty = join(&then.ty, &otherwise.ty);
                // (Two function values of other types: `common_fn_type.rs` gives the variable
                // they are assigned to one function type, or says why not.)
                let fn_values = super::common_fn_type::is_fn_value(&then.ty)
                    && super::common_fn_type::is_fn_value(&otherwise.ty);
                if ty == Type::Unknown
                    && then.ty != Type::Unknown
                    && otherwise.ty != Type::Unknown
                    && !fn_values
                {
                    let d = Diagnostic::warning(
                        span,
                        format!(
                            "the branches of `?:` have different types: {} and {}",
                            then.ty, otherwise.ty
                        ),
                    );
                    self.report(d);
                }
                let kind = ir::ExprKind::Ternary {
                    cond: Box::new(cond),
                    then: Box::new(then),
                    otherwise: Box::new(otherwise),
                };
                ir::Expr::new(kind, ty, span)
            }
            ExprKind::Assign { op, lhs, rhs } => {
                if let ExprKind::Matrix(_) = lhs.kind {
                    return self.invalid(
                        span,
                        "a destructuring assignment `[a, b] = …` cannot be used as a value",
                    );
                }
                let (place, value) = self.lower_assignment(*op, lhs, rhs);
                let ty = place.ty.clone();
                let kind = ir::ExprKind::Assign {
                    place: Box::new(place),
                    op: super::operators::ir_assign(*op),
                    value: Box::new(value),
                };
                ir::Expr::new(kind, ty, span)
            }
            ExprKind::Annotated { expr, ty } => self.lower_type_check(expr, ty, span),
            ExprKind::Call { .. } => self.lower_call(e),
            ExprKind::Index { base, indices } => self.lower_index_expr(e, base, indices),
            ExprKind::Field { base, name } => self.lower_field(base, name, span),
            ExprKind::Dims { .. } | ExprKind::Modified { .. } => match self.expr_as_type(e) {
                Some(t) => {
                    ir::Expr::new(ir::ExprKind::TypeValue, Type::TypeValue(Box::new(t)), span)
                }
                None => self.invalid(span, "this is neither a value nor a type"),
            },
            ExprKind::Matrix(items) => self.lower_matrix(items, span),
            ExprKind::Cell(items) => {
                let items: Vec<ir::Expr> = items.iter().map(|i| self.lower_expr(i)).collect();
                let ty = Type::CellTuple(items.iter().map(|i| i.ty.clone()).collect());
                ir::Expr::new(ir::ExprKind::Cell(items), ty, span)
            }
            ExprKind::Paren(items) if items.len() == 1 => self.lower_expr(&items[0]),
            ExprKind::Paren(items) => {
                let items: Vec<ir::Expr> = items.iter().map(|i| self.lower_expr(i)).collect();
                let ty = items.last().map(|i| i.ty.clone()).unwrap_or(Type::Void);
                ir::Expr::new(ir::ExprKind::Sequence(items), ty, span)
            }
            ExprKind::Tuple(_) => self.invalid(
                span,
                "a parenthesised list `(a, b)` is only valid as lambda parameters or match values",
            ),
            ExprKind::Lambda(l) => self.lower_lambda_value(l, span),
        }
    }

    /// A call with several results used as one value stands for its first result, as in
    /// MATLAB; a call with no result cannot be used as a value.
    pub fn single_value(&mut self, v: ir::Expr) -> ir::Expr {
        match &v.ty {
            Type::Tuple(ts) if ts.is_empty() => {
                let d = Diagnostic::error(v.span, "this call has no result to use as a value")
                    .with_note("the function has no outputs (`function [] = …`)");
                self.report(d);
                unknown(v.span)
            }
            Type::Tuple(ts) => {
                let (ty, span) = (ts[0].clone(), v.span);
                ir::Expr::new(ir::ExprKind::TupleField { tuple: Box::new(v), index: 0 }, ty, span)
            }
            _ => v,
        }
    }

    /// Reports `msg` and returns a `??` stand-in.
    pub fn invalid(&mut self, span: Span, msg: &str) -> ir::Expr {
        let d = Diagnostic::error(span, msg);
        self.report(d);
        unknown(span)
    }

    pub(super) fn lower_name(&mut self, name: &str, span: Span) -> ir::Expr {
        if let Some(v) = self.reduction_binding(name) {
            return v;
        }
        if let Some(v) = self.closure_field_name(name, span) {
            return v;
        }
        if !self.names.contains_key(name) {
            // A generic size parameter (`N` of `f[N](x : vec(N))`) used as a value.
            if let Some(&n) = self.sizes.get(name) {
                return ir::Expr::new(ir::ExprKind::Const(Const::Int(n as i64)), Type::INT, span);
            }
            if let Some(Type::Param(p)) = self.type_params.get(name) {
                // Unbound (a generic check): a number or a type, known only per instance.
                let ty = Type::Param(p.clone());
                return ir::Expr::new(ir::ExprKind::TypeValue, ty, span);
            }
        }
        match self.resolve_name(name, span) {
            Some(NameRef::Local(id)) => {
                let ty = self.local_type(id).clone();
                if ty == Type::Void {
                    self.void_reads.push((id, span));
                }
                ir::Expr::new(ir::ExprKind::Local(id), ty, span)
            }
            Some(NameRef::Constant(ty, c)) => ir::Expr::new(ir::ExprKind::Const(c), ty, span),
            Some(NameRef::Functions(ids)) => self.function_value(&ids, name, span),
            Some(NameRef::TypeDef(_)) | None if self.expr_as_type_name(name).is_some() => {
                let t = self.expr_as_type_name(name).unwrap_or(Type::Unknown);
                ir::Expr::new(ir::ExprKind::TypeValue, Type::TypeValue(Box::new(t)), span)
            }
            Some(NameRef::Builtin(sig)) => {
                let ty = Type::Function(Box::new(FnType {
                    kind: if sig.device {
                        ast::FunctionKind::Device
                    } else {
                        ast::FunctionKind::Host
                    },
                    params: vec![Type::Unknown],
                    variadic: true,
                    results: vec![Type::Unknown],
                }));
                ir::Expr::new(ir::ExprKind::BuiltinRef(sig.builtin), ty, span)
            }
            Some(NameRef::TypeDef(_)) | None => {
                let mut d = self.cx.undefined(name, span, false);
                // Only a plain undefined name (not one an unavailable import explains).
                if d.message.starts_with("undefined ") {
                    if let Some(similar) = self.similar_name(name) {
                        d = d.with_note(format!("did you mean `{similar}`?"));
                    }
                }
                self.report(d);
                unknown(span)
            }
        }
    }

    /// A named function used as a value (a function handle).
    fn function_value(
        &mut self,
        ids: &[crate::sema::decls::FnDeclId],
        name: &str,
        span: Span,
    ) -> ir::Expr {
        if ids.len() > 1 {
            let d = Diagnostic::error(
                span,
                format!("`{name}` is overloaded; a handle to it is ambiguous"),
            )
            .with_note("wrap it in a lambda with typed parameters, e.g. `(x : scalar) -> f(x)`");
            self.report(d);
            return unknown(span);
        }
        let decl = ids[0];
        let def = self.cx.decls.function(decl).def;
        let args: Vec<Type> =
            def.params.iter().map(|p| self.cx.declared_param_type(def, p)).collect();
        let env = self.env_for_scope(self.cx.decls.function(decl).parent);
        match self.cx.instantiate(decl, args, Vec::new(), span, env) {
            // A nested function reading the enclosing function's variables: a closure over
            // them, as a lambda would be.
            Some(id) if !self.cx.module.function(id).captures.is_empty() => {
                self.nested_fn_class(decl, id).unwrap_or_else(|| self.closure(id, span))
            }
            Some(id) => {
                let ty = self.instance_type(id);
                ir::Expr::new(ir::ExprKind::FunctionRef(id), ty, span)
            }
            None => unknown(span),
        }
    }

    /// The function type of an instance.
    pub fn instance_type(&self, id: ir::FunctionId) -> Type {
        let f = self.cx.module.function(id);
        let ty = |l: &ir::LocalId| {
            f.locals.get(l.0 as usize).map(|x| x.ty.clone()).unwrap_or(Type::Unknown)
        };
        Type::Function(Box::new(FnType {
            kind: f.kind,
            params: f.params.iter().map(ty).collect(),
            variadic: false,
            results: f.outputs.iter().map(ty).collect(),
        }))
    }

    fn lower_range(
        &mut self,
        start: &'a Expr,
        step: Option<&'a Expr>,
        end: &'a Expr,
        span: Span,
    ) -> ir::Expr {
        let start = self.lower_expr(start);
        let step = step.map(|s| self.lower_expr(s));
        let end = self.lower_expr(end);
        let mut elem = promote(&start.ty, &end.ty);
        if let Some(s) = &step {
            elem = promote(&elem, &s.ty);
        }
        for part in [Some(&start), step.as_ref(), Some(&end)].into_iter().flatten() {
            if !(part.ty.is_number() || matches!(part.ty, Type::Unknown | Type::Void)) {
                let d = Diagnostic::error(
                    part.span,
                    format!("a range needs numbers, found {}", part.ty),
                );
                self.report(d);
            }
        }
        let len = match (start.constant(), step.as_ref().map(|s| s.constant()), end.constant()) {
            (Some(Const::Int(a)), None, Some(Const::Int(b))) => {
                Some(if b >= a { (b - a + 1) as u64 } else { 0 })
            }
            (Some(Const::Int(a)), Some(Some(Const::Int(s))), Some(Const::Int(b))) if *s != 0 => {
                let n = (b - a) / s + 1;
                Some(n.max(0) as u64)
            }
            _ => None,
        };
        let ty = match len {
            Some(n) => Type::vec_n(elem, n),
            None => Type::vec(elem),
        };
        let kind = ir::ExprKind::Range {
            start: Box::new(start),
            step: step.map(Box::new),
            end: Box::new(end),
        };
        ir::Expr::new(kind, ty, span)
    }

    fn lower_field(&mut self, base: &'a Expr, name: &'a ast::Ident, span: Span) -> ir::Expr {
        // `color.Magenta`: a variant of an enumeration.
        if let ExprKind::Ident(type_name) = &base.kind {
            if let Some(NameRef::TypeDef(index)) = self.resolve_name(type_name, base.span) {
                if let Some(id) = self.enum_id(index) {
                    return match self.enum_variant(id, &name.name) {
                        Some(value) => ir::Expr::new(
                            ir::ExprKind::EnumValue { id, value },
                            Type::Enum(id, type_name.clone()),
                            span,
                        ),
                        None => self.invalid(
                            name.span,
                            &format!("`{type_name}` has no value `{}`", name.name),
                        ),
                    };
                }
            }
        }
        let b = self.lower_expr(base);
        // An exception's message (manual §4.13): a `qexception` value is its message.
        if b.ty == Type::String && name.name == "message" {
            return ir::Expr::new(b.kind, b.ty, span);
        }
        let ty = self.field_type(&b.ty, &name.name, name.span);
        ir::Expr::new(ir::ExprKind::Field { base: Box::new(b), field: name.name.clone() }, ty, span)
    }

    /// The type of field `name` of a value of type `base` (through one pointer).
    pub fn field_type(&mut self, base: &Type, name: &str, span: Span) -> Type {
        let class = match base {
            Type::Class(c) => c.clone(),
            Type::Pointer(inner) => match inner.as_ref() {
                Type::Class(c) => c.clone(),
                _ => return Type::Unknown,
            },
            Type::Unknown | Type::Void | Type::Param(_) => return Type::Unknown,
            Type::ThreadBlock(_) => return self.thread_block_field(name, span),
            Type::String => {
                // `message` is read in `lower_field`; here it is assigned or called.
                let d = match name {
                    "message" => Diagnostic::error(span, "an exception's `message` can be read, not assigned or called"),
                    _ => Diagnostic::error(span, format!("a string has no field `{name}`"))
                        .with_note("the only field of an exception (`qexception`, whose value is its message in this version) is `message`"),
                };
                self.report(d);
                return Type::Unknown;
            }
            t => {
                let d = Diagnostic::error(span, format!("{t} has no field `{name}`"))
                    .with_label("fields exist on class values only");
                self.report(d);
                return Type::Unknown;
            }
        };
        let def = self.class_def(class.id);
        if let Some((_, t)) = def.fields_of(&class.args).into_iter().find(|(f, _)| f == name) {
            return t;
        }
        if def.dynamic {
            return Type::Unknown;
        }
        let fields: Vec<&str> = def.fields.iter().map(|(f, _)| f.as_str()).collect();
        let d = Diagnostic::error(span, format!("`{}` has no field `{name}`", class.name))
            .with_note(format!("its fields are: {}", fields.join(", ")));
        self.report(d);
        Type::Unknown
    }

    /// A lambda expression used as a value: instantiated with its declared parameter types,
    /// or, with untyped parameters, a closure class value that each call instantiates
    /// (`closure_class.rs`).
    fn lower_lambda_value(&mut self, l: &'a ast::Lambda, span: Span) -> ir::Expr {
        if !self.reduction_frames.is_empty() {
            return self.lower_lambda_in_replacement(l, span);
        }
        self.lower_lambda_as(l, span, &[], None)
    }

    /// A lambda value whose untyped parameters take `expected` types (from a declared
    /// function type); parameters beyond `expected` stay `??`.
    pub fn lower_lambda_as(
        &mut self,
        l: &'a ast::Lambda,
        span: Span,
        expected: &[Type],
        result: Option<Type>,
    ) -> ir::Expr {
        let args: Vec<Type> = l
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| match &p.ty {
                Some(t) => self.resolve_type(t),
                None => expected.get(i).cloned().unwrap_or(Type::Unknown),
            })
            .collect();
        if super::closure_class::is_untyped(l, expected, &result) {
            return self.closure_class_value(l, span, args);
        }
        let env = self.env_for_children();
        match self.cx.instantiate_lambda(l, span, self.scope, args, result, env) {
            // A `__device__` lambda capturing an array (`lut`, manual §4.2) is specialised
            // on where it is given, as a closure class (`closure_class.rs`).
            Some(id)
                if l.kind == ast::FunctionKind::Device
                    && !self.in_device_code()
                    && self.captures_array(id) =>
            {
                self.closure_class_of(super::closure_class::ClassFn::Lambda(l), span, id)
            }
            Some(id) => self.closure(id, span),
            None => unknown(span),
        }
    }

    /// Whether instance `id` captures an array not of a small fixed size (or a closure class
    /// value holding one).
    fn captures_array(&self, id: ir::FunctionId) -> bool {
        let f = self.cx.module.function(id);
        f.captures.iter().any(|c| super::kept_classes::holds_heap_array(&f.locals[c.0 as usize].ty))
    }

    /// A closure value for instance `id`, capturing what it reads from this scope.
    pub fn closure(&mut self, id: ir::FunctionId, span: Span) -> ir::Expr {
        let ty = self.instance_type(id);
        let captures = self.capture_args(id, span);
        ir::Expr::new(ir::ExprKind::Closure { function: id, captures }, ty, span)
    }

    /// The values for the captured variables of instance `id`, read in this scope.
    pub fn capture_args(&mut self, id: ir::FunctionId, span: Span) -> Vec<ir::Expr> {
        let f = self.cx.module.function(id);
        let names: Vec<String> =
            f.captures.iter().map(|c| f.locals[c.0 as usize].name.clone()).collect();
        names.iter().map(|n| self.lower_name(n, span)).collect()
    }
}

/// A `??` placeholder for an expression that failed to check.
pub fn unknown(span: Span) -> ir::Expr {
    ir::Expr::new(ir::ExprKind::Const(Const::Null), Type::Unknown, span)
}

pub(super) fn lower_number(text: &str, span: Span) -> ir::Expr {
    match decode_number(text) {
        Ok(NumberValue::Int(v)) => match i64::try_from(v) {
            Ok(v) => ir::Expr::new(ir::ExprKind::Const(Const::Int(v)), Type::INT, span),
            Err(_) => {
                ir::Expr::new(ir::ExprKind::Const(Const::Scalar(v as f64)), Type::SCALAR, span)
            }
        },
        Ok(NumberValue::Float(x)) => {
            ir::Expr::new(ir::ExprKind::Const(Const::Scalar(x)), Type::SCALAR, span)
        }
        Ok(NumberValue::Imaginary(x)) => {
            ir::Expr::new(ir::ExprKind::Const(Const::Complex(0.0, x)), Type::CSCALAR, span)
        }
        // The lexer has reported malformed literals already.
        Err(_) => unknown(span),
    }
}
