//! Closure-based shortcuts over [`super::visit::Visit`] for scans that only need to see every
//! statement and expression (nested ones included, places' subexpressions too).

use super::visit::{walk_expr as visit_children, walk_stmt, Visit};
use crate::ir;

struct Closures<'f> {
    on_stmt: &'f mut dyn FnMut(&ir::Stmt),
    on_expr: &'f mut dyn FnMut(&ir::Expr),
}

impl<'a> Visit<'a> for Closures<'_> {
    fn visit_stmt(&mut self, s: &'a ir::Stmt) {
        (self.on_stmt)(s);
        walk_stmt(self, s);
    }
    fn visit_expr(&mut self, e: &'a ir::Expr) {
        (self.on_expr)(e);
        visit_children(self, e);
    }
}

/// Visits every statement and expression of a block, each before its children.
pub fn walk_block(
    b: &[ir::Stmt],
    on_stmt: &mut dyn FnMut(&ir::Stmt),
    on_expr: &mut dyn FnMut(&ir::Expr),
) {
    Closures { on_stmt, on_expr }.visit_block(b);
}

/// Visits `e` and every expression inside it, each before its children.
pub fn walk_expr(e: &ir::Expr, on_expr: &mut dyn FnMut(&ir::Expr)) {
    Closures { on_stmt: &mut |_| {}, on_expr }.visit_expr(e);
}
