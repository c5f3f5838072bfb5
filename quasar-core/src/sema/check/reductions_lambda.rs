//! Lambdas in a reduction's replacement that read the reduction's variables
//! (`reduction (a : scalar) -> scaler(a) = y -> a * y`): the lambda is lowered as a function
//! of its own, where the variables' bindings (values of the function the reduction is applied
//! in) do not exist. Each variable the lambda reads is therefore first stored in a variable of
//! this function, under its name, and the lambda captures it by value as closures do.

use super::scope::FnLowerer;
use crate::ir::{self, LocalRole};
use crate::span::Span;
use crate::syntax::ast::{self, Expr, ExprKind};

/// Whether `e` mentions the name `name` anywhere (a conservative test: a lambda parameter of
/// the same name inside only makes a needless capture).
fn names(e: &Expr, name: &str) -> bool {
    let found = std::cell::Cell::new(false);
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Ident(n) if n == name => found.set(true),
            ExprKind::Spread(x) | ExprKind::Annotated { expr: x, .. } => stack.push(x),
            ExprKind::Unary { operand, .. } => stack.push(operand),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Assign { lhs, rhs, .. } => {
                stack.push(lhs);
                stack.push(rhs);
            }
            ExprKind::Ternary { cond, then, otherwise } => {
                stack.extend([&**cond, &**then, &**otherwise]);
            }
            ExprKind::Range { start, step, end } => {
                stack.extend([&**start, &**end]);
                stack.extend(step.as_deref());
            }
            ExprKind::Call { callee: b, args, .. } | ExprKind::Index { base: b, indices: args } => {
                stack.push(b);
                stack.extend(args.iter().map(|a| &a.value));
            }
            ExprKind::Field { base, .. } => stack.push(base),
            ExprKind::Matrix(items)
            | ExprKind::Cell(items)
            | ExprKind::Paren(items)
            | ExprKind::Tuple(items) => stack.extend(items.iter()),
            ExprKind::Lambda(l) => stack.push(&l.body),
            _ => {}
        }
    }
    found.get()
}

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// A lambda used as a value; inside a replacement, capturing the reduction's variables it
    /// reads (stored first in variables of this function).
    pub(super) fn lower_lambda_in_replacement(
        &mut self,
        l: &'a ast::Lambda,
        span: Span,
    ) -> ir::Expr {
        let params: Vec<&str> = l.params.iter().map(|p| p.name.name.as_str()).collect();
        let read: Vec<(String, ir::Expr)> = match self.reduction_frames.last() {
            Some(frame) => frame
                .iter()
                .filter(|(n, _)| !params.contains(&n.as_str()) && names(&l.body, n))
                .cloned()
                .collect(),
            None => Vec::new(),
        };
        if read.is_empty() {
            return self.lower_lambda_as(l, span, &[], None);
        }
        let mut items = Vec::new();
        let mut shadowed = Vec::new();
        for (name, value) in read {
            shadowed.push((name.clone(), self.names.get(&name).copied()));
            let id = self.add_local(&name, value.ty.clone(), LocalRole::Var, span);
            let place = ir::Place::new(ir::PlaceKind::Local(id), value.ty.clone(), span);
            let ty = value.ty.clone();
            let kind = ir::ExprKind::Assign {
                place: Box::new(place),
                op: ir::AssignOp::Assign,
                value: Box::new(value),
            };
            items.push(ir::Expr::new(kind, ty, span));
        }
        // The lambda sees the stored variables, not the bindings.
        let frames = std::mem::take(&mut self.reduction_frames);
        let closure = self.lower_lambda_as(l, span, &[], None);
        self.reduction_frames = frames;
        for (name, before) in shadowed {
            match before {
                Some(id) => self.names.insert(name, id),
                None => self.names.remove(&name),
            };
        }
        let ty = closure.ty.clone();
        items.push(closure);
        ir::Expr::new(ir::ExprKind::Sequence(items), ty, span)
    }
}
