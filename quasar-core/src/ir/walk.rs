//! A read-only walk over IR blocks: every statement and every expression, nested ones
//! included. The backends use it for the facts they need before emitting code (barriers,
//! written arguments, function values, array accesses).

use crate::ir::{self, ExprKind, StmtKind};

/// Visits every statement and expression of a block (places' subexpressions included).
pub fn walk_block(
    b: &[ir::Stmt],
    on_stmt: &mut dyn FnMut(&ir::Stmt),
    on_expr: &mut dyn FnMut(&ir::Expr),
) {
    for s in b {
        crate::stack::guard(|| walk_stmt(s, on_stmt, on_expr));
    }
}

fn walk_stmt(s: &ir::Stmt, on_stmt: &mut dyn FnMut(&ir::Stmt), on_expr: &mut dyn FnMut(&ir::Expr)) {
    on_stmt(s);
    let e = |x: &ir::Expr, on_expr: &mut dyn FnMut(&ir::Expr)| walk_expr(x, on_expr);
    match &s.kind {
        StmtKind::Assign { place, value, .. } => {
            walk_place(place, on_expr);
            e(value, on_expr);
        }
        StmtKind::Destructure { places, value } => {
            places.iter().flatten().for_each(|p| walk_place(p, on_expr));
            e(value, on_expr);
        }
        StmtKind::Expr(x) => e(x, on_expr),
        StmtKind::If { cond, then_body, else_body } => {
            e(cond, on_expr);
            walk_block(then_body, on_stmt, on_expr);
            walk_block(else_body, on_stmt, on_expr);
        }
        StmtKind::ForRange { start, step, end, body, .. } => {
            e(start, on_expr);
            e(step, on_expr);
            e(end, on_expr);
            walk_block(body, on_stmt, on_expr);
        }
        StmtKind::ForEach { values, body, .. } => {
            e(values, on_expr);
            walk_block(body, on_stmt, on_expr);
        }
        StmtKind::While { cond, body } => {
            e(cond, on_expr);
            walk_block(body, on_stmt, on_expr);
        }
        StmtKind::Repeat { body, until } => {
            walk_block(body, on_stmt, on_expr);
            walk_expr(until, on_expr);
        }
        StmtKind::Match { scrutinee, arms, default } => {
            e(scrutinee, on_expr);
            for a in arms {
                a.values.iter().for_each(|v| walk_expr(v, on_expr));
                walk_block(&a.body, on_stmt, on_expr);
            }
            if let Some(d) = default {
                walk_block(d, on_stmt, on_expr);
            }
        }
        StmtKind::Try { body, handler, .. } => {
            walk_block(body, on_stmt, on_expr);
            walk_block(handler, on_stmt, on_expr);
        }
        StmtKind::Print(xs) | StmtKind::Error(xs) => xs.iter().for_each(|x| e(x, on_expr)),
        StmtKind::Assert { cond, message } => {
            walk_expr(cond, on_expr);
            message.iter().for_each(|m| walk_expr(m, on_expr));
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Return | StmtKind::SyncThreads => {}
    }
}

fn walk_place(p: &ir::Place, on_expr: &mut dyn FnMut(&ir::Expr)) {
    match &p.kind {
        ir::PlaceKind::Local(_) => {}
        ir::PlaceKind::Index { base, indices } => {
            walk_expr(base, on_expr);
            walk_indices(indices, on_expr);
        }
        ir::PlaceKind::Field { base, .. } => walk_expr(base, on_expr),
    }
}

fn walk_indices(indices: &[ir::Index], on_expr: &mut dyn FnMut(&ir::Expr)) {
    for i in indices {
        match i {
            ir::Index::At(x) | ir::Index::Spread(x) | ir::Index::List(x) => walk_expr(x, on_expr),
            ir::Index::All => {}
            ir::Index::Range { start, step, end } => {
                walk_expr(start, on_expr);
                if let Some(s) = step {
                    walk_expr(s, on_expr);
                }
                walk_expr(end, on_expr);
            }
        }
    }
}

pub fn walk_expr(e: &ir::Expr, on_expr: &mut dyn FnMut(&ir::Expr)) {
    crate::stack::guard(|| {
        on_expr(e);
        let w = |x: &ir::Expr, on_expr: &mut dyn FnMut(&ir::Expr)| walk_expr(x, on_expr);
        match &e.kind {
            ExprKind::Unary { operand, .. } => w(operand, on_expr),
            ExprKind::Binary { lhs, rhs, .. } => {
                w(lhs, on_expr);
                w(rhs, on_expr);
            }
            ExprKind::Convert(x) | ExprKind::Spread(x) => w(x, on_expr),
            ExprKind::TupleField { tuple, .. } => w(tuple, on_expr),
            ExprKind::Call { callee, args } => {
                if let ir::Callee::Value(v) = callee {
                    w(v, on_expr);
                }
                args.iter().for_each(|x| w(x, on_expr));
            }
            ExprKind::ParallelDo { dims, block_dims, args, .. } => {
                w(dims, on_expr);
                if let Some(b) = block_dims {
                    w(b, on_expr);
                }
                args.iter().for_each(|x| w(x, on_expr));
            }
            ExprKind::Index { base, indices } => {
                w(base, on_expr);
                walk_indices(indices, on_expr);
            }
            ExprKind::Field { base, .. } => w(base, on_expr),
            ExprKind::Matrix(xs) | ExprKind::Cell(xs) | ExprKind::Sequence(xs) => {
                xs.iter().for_each(|x| w(x, on_expr))
            }
            ExprKind::Closure { captures, .. } => captures.iter().for_each(|x| w(x, on_expr)),
            ExprKind::Range { start, step, end } => {
                w(start, on_expr);
                if let Some(s) = step {
                    w(s, on_expr);
                }
                w(end, on_expr);
            }
            ExprKind::Ternary { cond, then, otherwise } => {
                w(cond, on_expr);
                w(then, on_expr);
                w(otherwise, on_expr);
            }
            ExprKind::Construct { fields, .. } => fields.iter().for_each(|(_, x)| w(x, on_expr)),
            ExprKind::Assign { place, value, .. } => {
                walk_place(place, on_expr);
                w(value, on_expr);
            }
            ExprKind::Const(_)
            | ExprKind::Local(_)
            | ExprKind::FunctionRef(_)
            | ExprKind::BuiltinRef(_)
            | ExprKind::TypeValue
            | ExprKind::EnumValue { .. } => {}
        }
    });
}
