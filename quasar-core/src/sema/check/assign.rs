//! Assignments: plain, compound (`+=`), destructuring, to elements and fields; the join of
//! a variable's type with each value stored into it, and the conversion warnings.

use super::operators::ir_assign;
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, LocalId};
use crate::sema::ops::binary_type;
use crate::sema::types::{is_subtype, Type};
use crate::span::Span;
use crate::syntax::ast::{AssignOp, BinaryOp, Expr, ExprKind, FunctionKind};

/// The binary operator a compound assignment applies (`+=` is `+`), if any.
pub fn compound_op(op: AssignOp) -> Option<BinaryOp> {
    Some(match op {
        AssignOp::Add => BinaryOp::Add,
        AssignOp::Sub => BinaryOp::Sub,
        AssignOp::Mul => BinaryOp::Mul,
        AssignOp::Div => BinaryOp::Div,
        AssignOp::Pow => BinaryOp::Pow,
        AssignOp::ElemMul => BinaryOp::ElemMul,
        AssignOp::ElemDiv => BinaryOp::ElemDiv,
        AssignOp::ElemPow => BinaryOp::ElemPow,
        _ => return None,
    })
}

/// `:=` is an assignment as far as the IR is concerned (its meaning comes from reductions).
impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `lhs op= rhs` as a statement, rewritten by a reduction whose pattern it matches.
    pub fn lower_assign(
        &mut self,
        op: AssignOp,
        lhs: &'a Expr,
        rhs: &'a Expr,
        span: Span,
    ) -> ir::Stmt {
        if !self.cx.rules.is_empty() {
            if let Some(s) = self.lower_reduced_assign(op, lhs, rhs, span) {
                return s;
            }
        }
        self.lower_assign_as_written(op, lhs, rhs, span)
    }

    /// `lhs op= rhs` as a statement, no reduction applied at its root.
    pub(super) fn lower_assign_as_written(
        &mut self,
        op: AssignOp,
        lhs: &'a Expr,
        rhs: &'a Expr,
        span: Span,
    ) -> ir::Stmt {
        if let (AssignOp::Assign | AssignOp::Define, ExprKind::Matrix(targets)) = (op, &lhs.kind) {
            return self.lower_destructure(targets, rhs, span);
        }
        let (place, value) = self.lower_assignment(op, lhs, rhs);
        ir::Stmt { kind: ir::StmtKind::Assign { place, op: ir_assign(op), value }, span }
    }

    /// `result += x` on a kernel's array parameter (`result : vec(1)`, manual §11.6) updates
    /// every element of the array in memory, as `result[:] += x` does: the place becomes that
    /// slice.
    fn whole_kernel_array(&self, name: &str, op: AssignOp, span: Span) -> Option<ir::Place> {
        let id = *self.names.get(name)?;
        let local = &self.locals[id.0 as usize];
        let compound = !matches!(op, AssignOp::Assign | AssignOp::Define);
        let vector =
            matches!(&local.ty, Type::Array(a) if a.rank == crate::sema::types::Rank::Fixed(1));
        if !(compound
            && vector
            && self.kind == FunctionKind::Kernel
            && local.role == ir::LocalRole::Param)
        {
            return None;
        }
        let base = ir::Expr::new(ir::ExprKind::Local(id), local.ty.clone(), span);
        let kind = ir::PlaceKind::Index { base: Box::new(base), indices: vec![ir::Index::All] };
        Some(ir::Place::new(kind, local.ty.clone(), span))
    }

    /// The place and the (converted) value of `lhs op= rhs`.
    pub fn lower_assignment(
        &mut self,
        op: AssignOp,
        lhs: &'a Expr,
        rhs: &'a Expr,
    ) -> (ir::Place, ir::Expr) {
        let target = match &lhs.kind {
            ExprKind::Annotated { expr, .. } => expr,
            _ => lhs,
        };
        // `fib = k -> … fib(k - 1) …`: the variable holds this lambda while the lambda is
        // checked, so that it can call itself.
        if let (ExprKind::Lambda(l), ExprKind::Ident(name)) = (&rhs.kind, &target.kind) {
            if let Some(&id) = self.names.get(name) {
                self.lambdas.entry(id).or_insert((l, rhs.span, self.scope));
            }
        }
        let value = match (&rhs.kind, self.declared_fn_type(target)) {
            // `add : [scalar -> scalar -> scalar] = x -> y -> x + y`: the lambda takes the
            // declared parameter types.
            (ExprKind::Lambda(l), Some(ft))
                if !super::kept_classes::takes_device_fn(
                    super::closure_class::ClassFn::Lambda(l),
                    &ft,
                ) =>
            {
                let result = single_result(&ft);
                self.lower_lambda_as(l, rhs.span, &ft.params, result)
            }
            // `f : [int -> int] = g` where `g` holds an untyped lambda: its instance for `int`
            // (each branch of `c ? g : h`).
            (_, Some(ft)) => {
                let value = self.lower_expr(rhs);
                self.coerce_branches_to_fn(value, &ft)
            }
            // `fs : vec[[scalar -> scalar]] = {x -> x + 1, x -> 2 * x}` (`fn_cells.rs`).
            _ => match self.declared_fn_cell(target) {
                Some(t) => {
                    let value = self.lower_expr(rhs);
                    self.coerce_to_declared(value, &t)
                }
                None => self.lower_expr(rhs),
            },
        };
        let value = match (&rhs.kind, &target.kind) {
            (ExprKind::Lambda(_), ExprKind::Ident(_)) if op == AssignOp::Assign => {
                self.snapshot_captures(value, rhs.span)
            }
            _ => value,
        };
        if let ExprKind::Ident(name) = &target.kind {
            if let Some(place) = self.whole_kernel_array(name, op, target.span) {
                let value = self.check_store(&place.ty, op, value, rhs.span);
                return (place, value);
            }
        }
        match &target.kind {
            ExprKind::Ident(name) => {
                // `c : vec[??] = {x -> x + 1, …}`, or such a cell called through in this
                // function (`dynamic_lambdas.rs`).
                let value = match self.names.get(name).copied() {
                    Some(id) if self.stores_lambdas_dynamically(lhs, id, &value) => {
                        let unconverted = value.ty.clone();
                        let value = self.lambda_into_dynamic_cell(value, id, rhs.span);
                        // An earlier pass, before it saw the calls, stored the cell as it was:
                        // not a value the variable holds.
                        let local = &mut self.locals[id.0 as usize];
                        if value.ty != unconverted && local.ty == unconverted {
                            local.ty = Type::Void;
                        }
                        value
                    }
                    _ => value,
                };
                self.assign_to_variable(name, target.span, op, value, rhs)
            }
            ExprKind::Index { .. } | ExprKind::Field { .. } => {
                let place = self.lower_place(target);
                // `fs[k] = x -> x * k` into a cell of a function type (`fn_cells.rs`).
                let value = match &place.ty {
                    t @ Type::Function(_) if op == AssignOp::Assign => {
                        let t = t.clone();
                        self.coerce_to_declared(value, &t)
                    }
                    // `c[0] = x -> x + 1` into a cell of `??` values (`dynamic_lambdas.rs`).
                    Type::Unknown => match place.kind {
                        ir::PlaceKind::Index { ref base, .. } => match base.kind {
                            ir::ExprKind::Local(id) if self.is_dynamic_cell(id) => {
                                self.lambda_into_dynamic_cell(value, id, rhs.span)
                            }
                            _ => value,
                        },
                        _ => value,
                    },
                    _ => value,
                };
                let value = self.check_store(&place.ty, op, value, rhs.span);
                (place, value)
            }
            ExprKind::Placeholder => {
                let place = ir::Place::new(
                    ir::PlaceKind::Local(self.discard_local()),
                    value.ty.clone(),
                    target.span,
                );
                (place, value)
            }
            _ => {
                let d = Diagnostic::error(target.span, "cannot assign to this expression")
                    .with_label("not a variable, an element or a field");
                self.report(d);
                let place = ir::Place::new(
                    ir::PlaceKind::Local(self.discard_local()),
                    Type::Unknown,
                    target.span,
                );
                (place, value)
            }
        }
    }

    /// The declared function type of the variable `target`, if it has one.
    fn declared_fn_type(&self, target: &Expr) -> Option<crate::sema::types::FnType> {
        let ExprKind::Ident(name) = &target.kind else { return None };
        let id = *self.names.get(name)?;
        match self.declared[id.0 as usize].as_ref()? {
            Type::Function(ft) => Some((**ft).clone()),
            _ => None,
        }
    }

    /// The declared type of `target` when it is a cell of function values.
    fn declared_fn_cell(&self, target: &Expr) -> Option<Type> {
        let ExprKind::Ident(name) = &target.kind else { return None };
        let id = *self.names.get(name)?;
        let t = self.declared[id.0 as usize].as_ref()?;
        super::fn_cells::fn_elements(t).is_some().then(|| t.clone())
    }

    /// A scratch local that receives values assigned to `_`.
    fn discard_local(&mut self) -> LocalId {
        match self.names.get("_") {
            Some(&id) => id,
            None => self.add_local("_", Type::Unknown, ir::LocalRole::Var, Span::default()),
        }
    }

    fn assign_to_variable(
        &mut self,
        name: &str,
        span: Span,
        op: AssignOp,
        value: ir::Expr,
        rhs: &'a Expr,
    ) -> (ir::Place, ir::Expr) {
        let value = self.single_value(value);
        let bound = self.reduction_target(name, span);
        let id = match (bound, self.names.get(name)) {
            // `a = …` in a reduction's replacement assigns the variable `a` was matched to.
            (Some(Ok(id)), _) => id,
            (Some(Err(())), _) => {
                let id = self.discard_local();
                return (ir::Place::new(ir::PlaceKind::Local(id), Type::Unknown, span), value);
            }
            (None, Some(&id)) if self.locals[id.0 as usize].role != ir::LocalRole::Capture => id,
            (None, other) => {
                let captured = other.is_some()
                    || self.outer.as_ref().is_some_and(|o| o.vars.contains_key(name));
                let d = if captured {
                    Diagnostic::error(span, format!("cannot modify `{name}`: captured variables are read-only"))
                        .with_label("defined in an enclosing scope")
                        .with_note("pass the value as a parameter and return the new value, or write `name = …` to make a local copy")
                } else {
                    Diagnostic::error(span, format!("undefined variable `{name}`")).with_label(
                        format!(
                            "`{name}` has no value before this `{}`",
                            crate::syntax::printer::assign_op_str(op)
                        ),
                    )
                };
                self.report(d);
                let id = self.discard_local();
                return (ir::Place::new(ir::PlaceKind::Local(id), Type::Unknown, span), value);
            }
        };
        if let ExprKind::Lambda(l) = &rhs.kind {
            if self
                .lambdas
                .insert(id, (l, rhs.span, self.scope))
                .is_some_and(|(old, _, _)| !std::ptr::eq(old, l))
            {
                self.reassigned.insert(id);
            }
        } else if op == AssignOp::Assign {
            self.reassigned.insert(id);
        }
        let current = self.local_type(id).clone();
        let value = match compound_op(op) {
            Some(bin) if current != Type::Void => {
                let result = match binary_type(bin, &current, &value.ty) {
                    Ok(t) => t,
                    Err(msg) => {
                        let d = Diagnostic::error(rhs.span, msg);
                        self.report(d);
                        Type::Unknown
                    }
                };
                // `a = 0; a += x[n]` keeps `a` an int (manual §2.2.3), with a warning.
                if super::convert::converts_implicitly(&result, &current) && result != current {
                    self.warn_conversion(&result, &current, rhs.span);
                    ir::Expr::new(ir::ExprKind::Convert(Box::new(value)), current.clone(), rhs.span)
                } else {
                    ir::Expr::new(value.kind, result, value.span)
                }
            }
            _ => value,
        };
        // A second function value of another type: the variable keeps the first value's
        // type until the pass ends and its calls tell the common function type.
        if self.check_one_lambda_per_variable(id, &value.ty, rhs.span)
            || self.check_fn_branches(id, &value)
        {
            let stored = self.local_type(id).clone();
            return (ir::Place::new(ir::PlaceKind::Local(id), stored, span), value);
        }
        let stored = self.assign_local(id, &value.ty, rhs.span);
        let value = self.convert_to(value, &stored, rhs.span);
        (ir::Place::new(ir::PlaceKind::Local(id), stored, span), value)
    }

    /// Checks a value stored into an element or field of type `target`.
    fn check_store(
        &mut self,
        target: &Type,
        op: AssignOp,
        value: ir::Expr,
        span: Span,
    ) -> ir::Expr {
        let result = match compound_op(op) {
            Some(bin) => match binary_type(bin, target, &value.ty) {
                Ok(t) => t,
                Err(msg) => {
                    let d = Diagnostic::error(span, msg);
                    self.report(d);
                    return value;
                }
            },
            None => value.ty.clone(),
        };
        let fits = is_subtype(&result, target)
            || matches!(target, Type::Void)
            || (target.is_number() && result.is_number())
            // Storing a number into every element of a slice, or a slice into a slice.
            || (matches!(target, Type::Array(_)) && (result.is_number() || matches!(result, Type::Array(_))));
        if !fits {
            let d = Diagnostic::error(
                span,
                format!("type mismatch: cannot store {result} into {target}"),
            )
            .with_label(format!("this is {result}"));
            self.report(d);
            return value;
        }
        if target.is_int() && matches!(result, Type::Scalar(_)) {
            self.warn_conversion(&result, target, span);
        }
        if op == AssignOp::Assign
            && target.is_number()
            && value.ty.is_number()
            && value.ty != *target
        {
            return ir::Expr::new(ir::ExprKind::Convert(Box::new(value)), target.clone(), span);
        }
        value
    }

    pub fn warn_conversion(&mut self, from: &Type, to: &Type, span: Span) {
        let d = Diagnostic::warning(span, format!("implicit conversion from {from} to {to}"))
            .with_label("the value is truncated")
            .with_note("write `int(…)` to convert explicitly, or use a decimal point (`0.0`) to make the variable a scalar");
        self.report(d);
    }

    /// `[a, b, _] = value`
    fn lower_destructure(&mut self, targets: &'a [Expr], rhs: &'a Expr, span: Span) -> ir::Stmt {
        let value = self.lower_expr(rhs);
        let item_types: Vec<Type> = match (&value.ty, &value.kind) {
            (Type::Tuple(ts), _) => ts.clone(),
            (Type::CellTuple(ts), _) => ts.clone(),
            (_, ir::ExprKind::Matrix(items)) => items.iter().map(|i| i.ty.clone()).collect(),
            (Type::Array(a), _) => vec![a.elem.clone(); targets.len()],
            (Type::Unknown, _) => vec![Type::Unknown; targets.len()],
            (t, _) => vec![t.clone()],
        };
        if item_types.len() < targets.len() && !matches!(value.ty, Type::Array(_) | Type::Unknown) {
            let d = Diagnostic::error(
                span,
                format!(
                    "{} values are assigned but the right-hand side gives {}",
                    targets.len(),
                    item_types.len()
                ),
            );
            self.report(d);
        }
        let mut places = Vec::new();
        for (i, t) in targets.iter().enumerate() {
            let ty = item_types.get(i).cloned().unwrap_or(Type::Unknown);
            let target = match &t.kind {
                ExprKind::Annotated { expr, .. } => expr.as_ref(),
                _ => t,
            };
            places.push(match &target.kind {
                ExprKind::Placeholder => None,
                ExprKind::Ident(name) => match self.names.get(name).copied() {
                    Some(id) => {
                        let stored = self.assign_local(id, &ty, target.span);
                        Some(ir::Place::new(ir::PlaceKind::Local(id), stored, target.span))
                    }
                    None => None,
                },
                ExprKind::Index { .. } | ExprKind::Field { .. } => Some(self.lower_place(target)),
                _ => {
                    let d = Diagnostic::error(target.span, "cannot assign to this expression");
                    self.report(d);
                    None
                }
            });
        }
        ir::Stmt { kind: ir::StmtKind::Destructure { places, value }, span }
    }
}

/// The one result type of a function type (an inner lambda body takes its types from it).
pub(super) fn single_result(ft: &crate::sema::types::FnType) -> Option<Type> {
    match ft.results.as_slice() {
        [t] => Some(t.clone()),
        _ => None,
    }
}
