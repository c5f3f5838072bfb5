//! Reductions whose pattern is an assignment, tried at assignment statements: property
//! setters (manual §7.3.2, `(a.length = b) = (a = point(…))`) and the definition-assignment
//! of chapter 15 (`(y := x) = y = compute(x, size(y))`).
//!
//! The pattern's target is a variable of the reduction, or a field of one; it matches an
//! assignment to a variable that already holds a value (or to that variable's field). The
//! variable is bound to the assigned variable itself, so that the replacement may assign to
//! it (`a = …`). A `where` clause that folds to a constant selects at compile time; any other
//! becomes an `if`, the assignment as written being the last alternative (§4.9.4).

use super::expr::unknown;
use super::reductions::{truthy, RootKey, MAX_REDUCTION_DEPTH};
use super::reductions_match::peel;
use super::scope::FnLowerer;
use crate::diagnostics::Diagnostic;
use crate::ir::{self, LocalId};
use crate::sema::types::Type;
use crate::span::Span;
use crate::syntax::ast::{AssignOp, Expr, ExprKind};

impl<'c, 'a> FnLowerer<'c, 'a> {
    /// `lhs op= rhs` rewritten by a reduction, or `None` when no rule has an assignment of
    /// this shape as its pattern (the caller lowers it as written).
    pub(super) fn lower_reduced_assign(
        &mut self,
        op: AssignOp,
        lhs: &'a Expr,
        rhs: &'a Expr,
        span: Span,
    ) -> Option<ir::Stmt> {
        let (target, field) = match &lhs.kind {
            ExprKind::Ident(n) => (n, None),
            ExprKind::Field { base, name } => match &base.kind {
                ExprKind::Ident(n) => (n, Some(name.name.clone())),
                _ => return None,
            },
            _ => return None,
        };
        let key = RootKey::Assign(op, field);
        let candidates: Vec<usize> =
            (0..self.cx.rules.len()).filter(|&i| self.cx.rules[i].tried_at(&key)).collect();
        if candidates.is_empty() {
            return None;
        }
        let target_value = self.assigned_variable(target, lhs.span)?;
        if self.reduction_depth >= MAX_REDUCTION_DEPTH {
            let d = Diagnostic::error(span, "reductions keep rewriting this assignment")
                .with_note("reductions may not rewrite into each other in a cycle (manual §4.9.3)");
            self.report(d);
            let v = unknown(span);
            return Some(ir::Stmt { kind: ir::StmtKind::Expr(v), span });
        }
        let value = self.lower_expr(rhs);
        let values = [target_value, self.value_of(value.clone())];
        let matches = self.matching_rules(&candidates, &values, &[]);
        let mut branches: Vec<(ir::Expr, ir::Stmt)> = Vec::new();
        let mut last = None;
        for m in matches {
            let def = m.def;
            let (cond, stmt) = self.with_match(m, |l, def| {
                let cond = def.condition.as_ref().map(|c| l.lower_condition(c));
                let stmt = match cond.as_ref().and_then(|c| c.constant().map(truthy)) {
                    Some(false) => None,
                    _ => Some(l.lower_replacement_stmt(&def.replacement, span)),
                };
                (cond, stmt)
            });
            let verdict = cond.as_ref().map(|c| c.constant().map(truthy));
            match (verdict, stmt, cond) {
                (Some(None), Some(s), Some(c)) => {
                    self.record_applied(span, None, def, true);
                    branches.push((c, s));
                }
                (_, Some(s), _) => {
                    self.record_applied(span, None, def, false);
                    last = Some(s);
                    break;
                }
                _ => {}
            }
        }
        let mut stmt = match last {
            Some(s) => s,
            None => {
                // As written, the value already lowered.
                let key = rhs as *const Expr;
                self.prelowered.insert(key, value);
                let s = self.lower_assign_as_written(op, lhs, rhs, span);
                self.prelowered.remove(&key);
                s
            }
        };
        for (cond, then) in branches.into_iter().rev() {
            let kind = ir::StmtKind::If { cond, then_body: vec![then], else_body: vec![stmt] };
            stmt = ir::Stmt { kind, span };
        }
        Some(stmt)
    }

    /// The variable an assignment pattern's target matches: one that holds a value already.
    fn assigned_variable(&mut self, name: &str, span: Span) -> Option<ir::Expr> {
        if let Some(v) = self.reduction_binding(name) {
            return matches!(peel(&v).kind, ir::ExprKind::Local(_)).then_some(v);
        }
        let id = *self.names.get(name)?;
        let ty = self.local_type(id).clone();
        if matches!(ty, Type::Void) {
            return None;
        }
        Some(ir::Expr::new(ir::ExprKind::Local(id), ty, span))
    }

    /// A replacement of an assignment pattern, as a statement (an assignment, or a value
    /// computed for its effect).
    fn lower_replacement_stmt(&mut self, e: &'a Expr, span: Span) -> ir::Stmt {
        match &e.kind {
            ExprKind::Paren(items) if items.len() == 1 => {
                self.lower_replacement_stmt(&items[0], span)
            }
            ExprKind::Assign { op, lhs, rhs } => self.lower_assign(*op, lhs, rhs, span),
            _ => {
                let v = self.lower_expr(e);
                ir::Stmt { kind: ir::StmtKind::Expr(v), span }
            }
        }
    }

    /// The local that assigning to `name` writes while a replacement is lowered: the variable
    /// its reduction variable was bound to. `Some(Err(()))` when that variable is bound to a
    /// value that is no variable (after reporting it).
    pub(super) fn reduction_target(
        &mut self,
        name: &str,
        span: Span,
    ) -> Option<Result<LocalId, ()>> {
        let v = self.reduction_binding(name)?;
        if let ir::ExprKind::Local(id) = peel(&v).kind {
            return Some(Ok(id));
        }
        let d = Diagnostic::error(
            span,
            format!("cannot assign to `{name}`: the reduction's variable stands for a value here, not a variable"),
        )
        .with_note("a reduction's replacement may assign only to a variable that its pattern matched as the target of an assignment");
        self.report(d);
        Some(Err(()))
    }
}
