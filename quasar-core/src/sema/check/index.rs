//! Indexing and slicing: `A[i, j]`, `A[:, 0]` (a `vec`), `x[pos]` with `pos : ivec2` on a
//! `mat` (a scalar), `y[m, n, 0..2]` (a `vec3`), `im[...p, 0]`, linear indexing `A[k]`, typed
//! cells, and the places that assignments write to.

use super::expr::unknown;
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, Const};
use crate::sema::types::{ArrayMods, ArrayType, Dim, Rank, Type};
use crate::span::Span;
use crate::syntax::ast::{self, BinaryOp, Expr, ExprKind, UnaryOp};

/// How one subscript addresses the array.
enum Sub {
    /// One position in one dimension (`zero`: the constant 0, which may address a
    /// dimension beyond the array's own, as `A[i, j, 0]` on a matrix).
    Scalar { zero: bool },
    /// A position vector covering this many dimensions (`pos : ivec2`, `...p`).
    Position(usize),
    /// A position vector of unknown length: covers the remaining dimensions.
    Rest,
    /// A dimension kept whole (`:`) or partly (`a..b`), with the length if known.
    Keep(Option<u64>),
    /// Elements picked at run time (`x[x > 0]`): how many is not known.
    Picked,
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    pub fn lower_index_expr(
        &mut self,
        whole: &'a Expr,
        base: &'a Expr,
        indices: &'a [ast::Arg],
    ) -> ir::Expr {
        // `vec[int]`, `cube{4}[int16]`, `stack[T]`: a type with arguments.
        if let Some(t) = self.type_application(whole, base) {
            return ir::Expr::new(
                ir::ExprKind::TypeValue,
                Type::TypeValue(Box::new(t)),
                whole.span,
            );
        }
        let b = self.lower_expr(base);
        let (mut subs, ty) = self.lower_subscripts(&b.ty, indices, whole.span);
        if let Some(e) = self.device_fn_cell_element(&b, &subs, whole.span) {
            return e;
        }
        self.check_texture_read(&b.ty, &subs, whole.span);
        self.integer_position(&b.ty, &mut subs);
        ir::Expr::new(ir::ExprKind::Index { base: Box::new(b), indices: subs }, ty, whole.span)
    }

    /// In a kernel, a position held in a `vecN` read from an array without a hardware
    /// texture (which interpolates or rounds: `transform::texture_reads`) addresses the
    /// element at its integer parts, as kernels index with `ivecN`.
    fn integer_position(&self, base: &Type, subs: &mut [ir::Index]) {
        let texture = base.as_array().is_some_and(|a| a.mods.texture().is_some());
        if texture || !self.in_kernel_context() {
            return;
        }
        let [ir::Index::At(v)] = subs else { return };
        let real =
            matches!(&v.ty, Type::Array(a) if a.rank == Rank::Fixed(1) && a.elem.is_scalar());
        let Some(n) = vector_len(&v.ty).filter(|_| real) else { return };
        let ty = Type::vec_n(Type::INT, n as u64);
        let span = v.span;
        let x = std::mem::replace(v, unknown(span));
        *v = ir::Expr::new(ir::ExprKind::Convert(Box::new(x)), ty, span);
    }

    /// `whole` read as a type when its base names a type rather than a value.
    fn type_application(&mut self, whole: &Expr, base: &Expr) -> Option<Type> {
        let name = match &base.kind {
            ExprKind::Ident(n) => n,
            ExprKind::Dims { base, .. } => match &base.kind {
                ExprKind::Ident(n) => n,
                _ => return None,
            },
            _ => return None,
        };
        if self.names.contains_key(name)
            || self.cx.decls.lookup_function(self.scope, name).is_some()
        {
            return None;
        }
        self.expr_as_type_name(name)?;
        self.expr_as_type(whole)
    }

    /// Lowers subscripts against a value of type `base`, giving the element or slice type.
    pub fn lower_subscripts(
        &mut self,
        base: &Type,
        indices: &'a [ast::Arg],
        span: Span,
    ) -> (Vec<ir::Index>, Type) {
        let mut subs = Vec::new();
        let mut kinds = Vec::new();
        for arg in indices {
            if let Some(n) = &arg.name {
                let d = Diagnostic::error(n.span, "named arguments are not allowed in an index");
                self.report(d);
            }
            let (index, kind) = if indices.len() == 1 {
                self.lower_only_subscript(&arg.value, base)
            } else {
                self.lower_subscript(&arg.value, false)
            };
            subs.push(index);
            kinds.push(kind);
        }
        let ty = match base {
            Type::Array(a) => self.slice_type(a, &kinds, span),
            Type::CellTuple(items) => match subs.as_slice() {
                [ir::Index::At(e)] => match e.constant() {
                    Some(Const::Int(i)) if (*i as usize) < items.len() && *i >= 0 => {
                        items[*i as usize].clone()
                    }
                    Some(Const::Int(i)) => {
                        let d = Diagnostic::error(
                            span,
                            format!("index {i} is outside this cell of {} elements", items.len()),
                        );
                        self.report(d);
                        Type::Unknown
                    }
                    _ => items
                        .iter()
                        .cloned()
                        .reduce(|x, y| crate::sema::types::join(&x, &y))
                        .unwrap_or(Type::Unknown),
                },
                _ => Type::Unknown,
            },
            Type::Unknown | Type::Void | Type::Param(_) => Type::Unknown,
            Type::String => Type::INT,
            t => {
                let d = Diagnostic::error(span, format!("{t} cannot be indexed"))
                    .with_label("only arrays, cells and strings have elements");
                self.report(d);
                Type::Unknown
            }
        };
        (subs, ty)
    }

    /// The only subscript of `base[e]`. On the host, a comparison or logical expression is a
    /// mask (`x[x > 0]`: the elements where it is non-zero) and an integer vector indexing a
    /// vector lists elements (`x[idx]`); otherwise a vector is a position (`x[pos]`).
    fn lower_only_subscript(&mut self, e: &'a Expr, base: &Type) -> (ir::Index, Sub) {
        let host = !self.in_device_code() && !self.in_kernel_context();
        let is_mask = matches!(
            &e.kind,
            ExprKind::Binary {
                op: BinaryOp::Lt
                    | BinaryOp::Le
                    | BinaryOp::Gt
                    | BinaryOp::Ge
                    | BinaryOp::Eq
                    | BinaryOp::Ne
                    | BinaryOp::And
                    | BinaryOp::Or,
                ..
            } | ExprKind::Unary { op: UnaryOp::Not, .. }
        );
        let base_is_vector = matches!(base, Type::Array(a) if a.rank == Rank::Fixed(1));
        let structural =
            matches!(e.kind, ExprKind::Colon | ExprKind::Range { .. } | ExprKind::Spread(_));
        if !host || structural || !(is_mask || base_is_vector) {
            return self.lower_subscript(e, true);
        }
        let v = self.lower_expr(e);
        match &v.ty {
            Type::Array(m) if is_mask => {
                if !(m.elem.is_number() || m.elem == Type::Unknown) {
                    self.check_index_number(&v);
                }
                let span = v.span;
                let find = ir::ExprKind::Call {
                    callee: ir::Callee::Builtin(ir::Builtin::Find),
                    args: vec![v],
                };
                let indices = ir::Expr::new(find, Type::vec(Type::INT), span);
                (ir::Index::List(indices), Sub::Picked)
            }
            Type::Array(a) if a.rank == Rank::Fixed(1) && a.elem.is_int() && base_is_vector => {
                let len = vector_len(&v.ty).map(|n| n as u64);
                (ir::Index::List(v), Sub::Keep(len))
            }
            _ => self.subscript_of(v, true),
        }
    }

    fn lower_subscript(&mut self, e: &'a Expr, only: bool) -> (ir::Index, Sub) {
        match &e.kind {
            // `x[i, (0..1)]`: parentheses around a range among several subscripts change
            // nothing.
            ExprKind::Paren(inner)
                if !only
                    && matches!(inner.as_slice(), [r] if matches!(r.kind, ExprKind::Range { .. })) =>
            {
                self.lower_subscript(&inner[0], only)
            }
            ExprKind::Colon => (ir::Index::All, Sub::Keep(None)),
            ExprKind::Range { start, step, end } => {
                let start = self.lower_expr(start);
                let step = step.as_ref().map(|s| self.lower_expr(s));
                let end = self.lower_expr(end);
                for part in [Some(&start), step.as_ref(), Some(&end)].into_iter().flatten() {
                    self.check_index_number(part);
                }
                let len =
                    match (start.constant(), end.constant(), step.as_ref().map(|s| s.constant())) {
                        (Some(Const::Int(a)), Some(Const::Int(b)), None) => {
                            Some((b - a + 1).max(0) as u64)
                        }
                        (Some(Const::Int(a)), Some(Const::Int(b)), Some(Some(Const::Int(s))))
                            if *s != 0 =>
                        {
                            Some(((b - a) / s + 1).max(0) as u64)
                        }
                        _ => None,
                    };
                (
                    ir::Index::Range {
                        start: Box::new(start),
                        step: step.map(Box::new),
                        end: Box::new(end),
                    },
                    Sub::Keep(len),
                )
            }
            ExprKind::Spread(inner) => {
                let v = self.lower_expr(inner);
                let kind = vector_len(&v.ty).map(Sub::Position).unwrap_or(Sub::Rest);
                (ir::Index::Spread(v), kind)
            }
            _ => {
                let v = self.lower_expr(e);
                self.subscript_of(v, only)
            }
        }
    }

    /// A lowered value as a subscript: a position vector (several dimensions), an index list
    /// (among several subscripts), or one index.
    fn subscript_of(&mut self, v: ir::Expr, only: bool) -> (ir::Index, Sub) {
        let kind = match &v.ty {
            // Among several subscripts, a vector lists indices in its dimension.
            Type::Array(a) if a.rank == Rank::Fixed(1) && !only => {
                let len = vector_len(&v.ty).map(|n| n as u64);
                return (ir::Index::List(v), Sub::Keep(len));
            }
            Type::Array(a) if a.rank == Rank::Fixed(1) => {
                if !(a.elem.is_int() || a.elem.is_scalar() || a.elem == Type::Unknown) {
                    self.check_index_number(&v);
                }
                vector_len(&v.ty).map(Sub::Position).unwrap_or(Sub::Rest)
            }
            _ => {
                self.check_index_number(&v);
                Sub::Scalar { zero: matches!(v.constant(), Some(Const::Int(0))) }
            }
        };
        (ir::Index::At(v), kind)
    }

    fn check_index_number(&mut self, v: &ir::Expr) {
        let ok = v.ty.is_int()
            || v.ty.is_scalar()
            || matches!(v.ty, Type::Unknown | Type::Void | Type::Param(_));
        if !ok {
            let d =
                Diagnostic::error(v.span, format!("an index must be an integer, found {}", v.ty))
                    .with_label(format!("this is {}", v.ty));
            self.report(d);
        }
    }

    fn slice_type(&mut self, a: &ArrayType, subs: &[Sub], span: Span) -> Type {
        let covered: Option<usize> = subs.iter().try_fold(0usize, |n, s| match s {
            Sub::Scalar { .. } | Sub::Keep(_) | Sub::Picked => Some(n + 1),
            Sub::Position(k) => Some(n + k),
            Sub::Rest => None,
        });
        // A vector indexed as a matrix is a row (ARCHITECTURE §5): `v[0, j]`, `v[pos]` with
        // `pos : ivec2`.
        let row;
        let a = match (a.rank, covered) {
            (Rank::Fixed(1), Some(c)) if c >= 2 => {
                row = as_row(a);
                &row
            }
            _ => a,
        };
        if let (Rank::Fixed(r), Some(c)) = (a.rank, covered) {
            let extra_are_scalars =
                subs.iter().skip(r as usize).all(|s| matches!(s, Sub::Scalar { zero: true }));
            if c > r as usize && !(extra_are_scalars && subs.len() == c) {
                let d = Diagnostic::error(
                    span,
                    format!(
                        "too many indices: a value of type {} has {r} dimension(s), {c} are given",
                        Type::Array(Box::new(a.clone()))
                    ),
                );
                self.report(d);
                return Type::Unknown;
            }
        }
        let kept: Vec<Option<u64>> = subs
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Sub::Keep(len) => Some(len.or_else(|| {
                    // `:` keeps the dimension's known length.
                    a.shape.as_ref().and_then(|sh| match sh.get(i) {
                        Some(Dim::Known(n)) => Some(*n),
                        _ => None,
                    })
                })),
                Sub::Picked => Some(None),
                _ => None,
            })
            .collect();
        if kept.is_empty() {
            return a.elem.clone();
        }
        let shape: Vec<Dim> =
            kept.iter().map(|k| k.map(Dim::Known).unwrap_or(Dim::Unknown)).collect();
        let has_size = shape.iter().any(|d| matches!(d, Dim::Known(_)));
        Type::Array(Box::new(ArrayType {
            elem: a.elem.clone(),
            rank: Rank::Fixed(kept.len() as u8),
            shape: has_size.then_some(shape),
            mods: ArrayMods::default(),
        }))
    }

    /// In a kernel, the parameter a field chain `p.a.b` starts from (its name), if any.
    fn kernel_param_root(&self, mut e: &ir::Expr) -> Option<String> {
        if self.kind != crate::syntax::ast::FunctionKind::Kernel {
            return None;
        }
        while let ir::ExprKind::Field { base, .. } = &e.kind {
            e = base;
        }
        match &e.kind {
            ir::ExprKind::Local(id) => {
                let l = self.locals.get(id.0 as usize)?;
                (l.role == ir::LocalRole::Param).then(|| l.name.clone())
            }
            _ => None,
        }
    }

    /// The place an assignment writes: an element or slice `A[i]`, or a field `p.x`.
    pub fn lower_place(&mut self, target: &'a Expr) -> ir::Place {
        let span = target.span;
        match &target.kind {
            ExprKind::Index { base, indices } => {
                let b = self.lower_expr(base);
                // `p.v[i] = x` changes the field `v` of `p`.
                if let ir::ExprKind::Field { base: owner, field } = &b.kind {
                    if let Type::Class(c) = &owner.ty {
                        let def = self.class_def(c.id);
                        if !def.mutable && !def.dynamic {
                            let d = Diagnostic::error(span, format!("cannot change the field `{field}` of a `{}` value", def.name))
                                .with_note(format!("`{}` is an immutable class; declare it `mutable class` to change its fields", def.name));
                            self.report(d);
                        } else if let Some(p) = self.kernel_param_root(&b) {
                            let d = Diagnostic::error(
                                span,
                                format!("cannot change the field `{field}` of the kernel parameter `{p}`"),
                            )
                            .with_note(format!("a class value passed to a kernel is a copy; copy it into a local (`q = {p}`) and change that"));
                            self.report(d);
                        }
                    }
                }
                if let Type::Array(a) = &b.ty {
                    if a.mods.is_const {
                        let d = Diagnostic::error(
                            span,
                            format!("cannot write into a `'const` array ({})", b.ty),
                        )
                        .with_note("remove `'const` from the parameter's type to modify it");
                        self.report(d);
                    }
                }
                let (subs, ty) = self.lower_subscripts(&b.ty, indices, span);
                self.check_texture_write(&b.ty, &subs, span);
                ir::Place::new(ir::PlaceKind::Index { base: Box::new(b), indices: subs }, ty, span)
            }
            ExprKind::Field { base, name } => {
                let b = self.lower_expr(base);
                if let Type::Class(c) = &b.ty {
                    let def = self.class_def(c.id);
                    if !def.mutable && !def.dynamic {
                        let d = Diagnostic::error(span, format!("cannot change the field `{}` of a `{}` value", name.name, def.name))
                            .with_note(format!("`{}` is an immutable class; declare it `mutable class` to change its fields", def.name));
                        self.report(d);
                    } else if let Some(p) = self.kernel_param_root(&b) {
                        // A class value passed to a kernel is the launch's copy: its changes
                        // could not reach the caller's object.
                        let d = Diagnostic::error(
                            span,
                            format!(
                                "cannot change the field `{}` of the kernel parameter `{p}`",
                                name.name
                            ),
                        )
                        .with_note(format!(
                            "a class value passed to a kernel is a copy; copy it into a local \
                             (`q = {p}`) and change that, or pass an array of `{}` and write \
                             its elements (`a[pos].{} = …`)",
                            def.name, name.name
                        ));
                        self.report(d);
                    }
                }
                let ty = self.field_type(&b.ty, &name.name, name.span);
                let kind = ir::PlaceKind::Field { base: Box::new(b), field: name.name.clone() };
                ir::Place::new(kind, ty, span)
            }
            _ => {
                let v = self.invalid(span, "cannot assign to this expression");
                let _ = unknown(v.span);
                let kind = ir::PlaceKind::Index { base: Box::new(v), indices: Vec::new() };
                ir::Place::new(kind, Type::Unknown, span)
            }
        }
    }
}

/// A vector type seen as the `1 x n` matrix it is.
fn as_row(a: &ArrayType) -> ArrayType {
    let n = a.shape.as_ref().and_then(|s| s.first().cloned()).unwrap_or(Dim::Unknown);
    ArrayType { rank: Rank::Fixed(2), shape: Some(vec![Dim::Known(1), n]), ..a.clone() }
}

/// The length of a vector type, when known.
fn vector_len(t: &Type) -> Option<usize> {
    match t {
        Type::Array(a) if a.rank == Rank::Fixed(1) => match a.shape.as_deref() {
            Some([Dim::Known(n)]) => Some(*n as usize),
            _ => None,
        },
        _ => None,
    }
}
