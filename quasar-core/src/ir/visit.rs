//! The one traversal of the IR: a read-only [`Visit`] and a [`VisitMut`] (as `syn`'s `visit`
//! and `visit_mut`). Every pass, analysis and back-end scan walks the IR through these, so a
//! new node kind is handled in one place. Each `visit_*` method defaults to the matching
//! `walk_*` function, which visits the children; override a method to see a node and call the
//! `walk_*` function to go on into it.
//!
//! Children are visited in evaluation order: a statement's expressions before its nested
//! blocks, an assignment's place before its value, a call's callee before its arguments.

use super::{Block, Callee, Expr, ExprKind, FunctionId, Index, Place, PlaceKind, Stmt, StmtKind};

/// A read-only visitor.
pub trait Visit<'a> {
    /// Visits each statement of a block in order.
    fn visit_block(&mut self, b: &'a [Stmt]) {
        for s in b {
            self.visit_stmt(s);
        }
    }
    /// Visits a statement; the default visits its children ([`walk_stmt`]).
    fn visit_stmt(&mut self, s: &'a Stmt) {
        walk_stmt(self, s)
    }
    /// Visits an expression; the default visits its children ([`walk_expr`]).
    fn visit_expr(&mut self, e: &'a Expr) {
        walk_expr(self, e)
    }
    /// Visits an assignment target; the default visits its children ([`walk_place`]).
    fn visit_place(&mut self, p: &'a Place) {
        walk_place(self, p)
    }
    /// Visits one subscript; the default visits its expressions ([`walk_index`]).
    fn visit_index(&mut self, i: &'a Index) {
        walk_index(self, i)
    }
    /// A function instance named by the IR: a call, a launch, a closure or a handle.
    fn visit_function_id(&mut self, _id: FunctionId) {}
}

/// Visits the children of a statement in evaluation order.
pub fn walk_stmt<'a, V: Visit<'a> + ?Sized>(v: &mut V, s: &'a Stmt) {
    crate::stack::guard(|| match &s.kind {
        StmtKind::Assign { place, value, .. } => {
            v.visit_place(place);
            v.visit_expr(value);
        }
        StmtKind::Destructure { places, value } => {
            places.iter().flatten().for_each(|p| v.visit_place(p));
            v.visit_expr(value);
        }
        StmtKind::Expr(x) => v.visit_expr(x),
        StmtKind::If { cond, then_body, else_body } => {
            v.visit_expr(cond);
            v.visit_block(then_body);
            v.visit_block(else_body);
        }
        StmtKind::ForRange { start, step, end, body, .. } => {
            v.visit_expr(start);
            v.visit_expr(step);
            v.visit_expr(end);
            v.visit_block(body);
        }
        StmtKind::ForEach { values, body, .. } => {
            v.visit_expr(values);
            v.visit_block(body);
        }
        StmtKind::While { cond, body } => {
            v.visit_expr(cond);
            v.visit_block(body);
        }
        StmtKind::Repeat { body, until } => {
            v.visit_block(body);
            v.visit_expr(until);
        }
        StmtKind::Match { scrutinee, arms, default } => {
            v.visit_expr(scrutinee);
            for a in arms {
                a.values.iter().for_each(|x| v.visit_expr(x));
                v.visit_block(&a.body);
            }
            if let Some(d) = default {
                v.visit_block(d);
            }
        }
        StmtKind::Try { body, handler, .. } => {
            v.visit_block(body);
            v.visit_block(handler);
        }
        StmtKind::Print(xs) | StmtKind::Error(xs) => xs.iter().for_each(|x| v.visit_expr(x)),
        StmtKind::Assert { cond, message } => {
            v.visit_expr(cond);
            message.iter().for_each(|m| v.visit_expr(m));
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Return | StmtKind::SyncThreads => {}
    })
}

/// Visits the expressions inside an assignment target (base, subscripts).
pub fn walk_place<'a, V: Visit<'a> + ?Sized>(v: &mut V, p: &'a Place) {
    match &p.kind {
        PlaceKind::Local(_) => {}
        PlaceKind::Index { base, indices } => {
            v.visit_expr(base);
            indices.iter().for_each(|i| v.visit_index(i));
        }
        PlaceKind::Field { base, .. } => v.visit_expr(base),
    }
}

/// Visits the expressions of one subscript (a value, a range's bounds, a list).
pub fn walk_index<'a, V: Visit<'a> + ?Sized>(v: &mut V, i: &'a Index) {
    match i {
        Index::At(x) | Index::Spread(x) | Index::List(x) => v.visit_expr(x),
        Index::All => {}
        Index::Range { start, step, end } => {
            v.visit_expr(start);
            if let Some(s) = step {
                v.visit_expr(s);
            }
            v.visit_expr(end);
        }
    }
}

/// Visits the children of an expression in evaluation order.
pub fn walk_expr<'a, V: Visit<'a> + ?Sized>(v: &mut V, e: &'a Expr) {
    crate::stack::guard(|| match &e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::BuiltinRef(_)
        | ExprKind::TypeValue
        | ExprKind::EnumValue { .. } => {}
        ExprKind::FunctionRef(id) => v.visit_function_id(*id),
        ExprKind::Unary { operand: x, .. } | ExprKind::Convert(x) | ExprKind::Spread(x) => {
            v.visit_expr(x)
        }
        ExprKind::TupleField { tuple, .. } => v.visit_expr(tuple),
        ExprKind::Field { base, .. } => v.visit_expr(base),
        ExprKind::Binary { lhs, rhs, .. } => {
            v.visit_expr(lhs);
            v.visit_expr(rhs);
        }
        ExprKind::Call { callee, args } => {
            match callee {
                Callee::Function(id) => v.visit_function_id(*id),
                Callee::Value(f) => v.visit_expr(f),
                Callee::Builtin(_) | Callee::Unresolved(_) => {}
            }
            args.iter().for_each(|a| v.visit_expr(a));
        }
        ExprKind::ParallelDo { dims, block_dims, kernel, args } => {
            v.visit_function_id(*kernel);
            v.visit_expr(dims);
            if let Some(b) = block_dims {
                v.visit_expr(b);
            }
            args.iter().for_each(|a| v.visit_expr(a));
        }
        ExprKind::Index { base, indices } => {
            v.visit_expr(base);
            indices.iter().for_each(|i| v.visit_index(i));
        }
        ExprKind::Matrix(xs) | ExprKind::Cell(xs) | ExprKind::Sequence(xs) => {
            xs.iter().for_each(|x| v.visit_expr(x))
        }
        ExprKind::Range { start, step, end } => {
            v.visit_expr(start);
            if let Some(s) = step {
                v.visit_expr(s);
            }
            v.visit_expr(end);
        }
        ExprKind::Ternary { cond, then, otherwise } => {
            v.visit_expr(cond);
            v.visit_expr(then);
            v.visit_expr(otherwise);
        }
        ExprKind::Closure { function, captures } => {
            v.visit_function_id(*function);
            captures.iter().for_each(|c| v.visit_expr(c));
        }
        ExprKind::Construct { fields, .. } => fields.iter().for_each(|(_, x)| v.visit_expr(x)),
        ExprKind::Assign { place, value, .. } => {
            v.visit_place(place);
            v.visit_expr(value);
        }
    })
}

/// A visitor that may change what it visits.
pub trait VisitMut {
    /// Visits each statement of a block in order, allowing changes.
    fn visit_block_mut(&mut self, b: &mut Block) {
        for s in b {
            self.visit_stmt_mut(s);
        }
    }
    /// Visits a statement; the default visits its children ([`walk_stmt_mut`]).
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        walk_stmt_mut(self, s)
    }
    /// Visits an expression; the default visits its children ([`walk_expr_mut`]).
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        walk_expr_mut(self, e)
    }
    /// Visits an assignment target; the default visits its children ([`walk_place_mut`]).
    fn visit_place_mut(&mut self, p: &mut Place) {
        walk_place_mut(self, p)
    }
    /// Visits one subscript; the default visits its expressions ([`walk_index_mut`]).
    fn visit_index_mut(&mut self, i: &mut Index) {
        walk_index_mut(self, i)
    }
    /// A function instance named by the IR, which the visitor may renumber.
    fn visit_function_id_mut(&mut self, _id: &mut FunctionId) {}
}

/// Visits the children of a statement in evaluation order, allowing changes.
pub fn walk_stmt_mut<V: VisitMut + ?Sized>(v: &mut V, s: &mut Stmt) {
    crate::stack::guard(|| match &mut s.kind {
        StmtKind::Assign { place, value, .. } => {
            v.visit_place_mut(place);
            v.visit_expr_mut(value);
        }
        StmtKind::Destructure { places, value } => {
            places.iter_mut().flatten().for_each(|p| v.visit_place_mut(p));
            v.visit_expr_mut(value);
        }
        StmtKind::Expr(x) => v.visit_expr_mut(x),
        StmtKind::If { cond, then_body, else_body } => {
            v.visit_expr_mut(cond);
            v.visit_block_mut(then_body);
            v.visit_block_mut(else_body);
        }
        StmtKind::ForRange { start, step, end, body, .. } => {
            v.visit_expr_mut(start);
            v.visit_expr_mut(step);
            v.visit_expr_mut(end);
            v.visit_block_mut(body);
        }
        StmtKind::ForEach { values, body, .. } => {
            v.visit_expr_mut(values);
            v.visit_block_mut(body);
        }
        StmtKind::While { cond, body } => {
            v.visit_expr_mut(cond);
            v.visit_block_mut(body);
        }
        StmtKind::Repeat { body, until } => {
            v.visit_block_mut(body);
            v.visit_expr_mut(until);
        }
        StmtKind::Match { scrutinee, arms, default } => {
            v.visit_expr_mut(scrutinee);
            for a in arms {
                a.values.iter_mut().for_each(|x| v.visit_expr_mut(x));
                v.visit_block_mut(&mut a.body);
            }
            if let Some(d) = default {
                v.visit_block_mut(d);
            }
        }
        StmtKind::Try { body, handler, .. } => {
            v.visit_block_mut(body);
            v.visit_block_mut(handler);
        }
        StmtKind::Print(xs) | StmtKind::Error(xs) => {
            xs.iter_mut().for_each(|x| v.visit_expr_mut(x))
        }
        StmtKind::Assert { cond, message } => {
            v.visit_expr_mut(cond);
            message.iter_mut().for_each(|m| v.visit_expr_mut(m));
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Return | StmtKind::SyncThreads => {}
    })
}

/// Visits the expressions inside an assignment target, allowing changes.
pub fn walk_place_mut<V: VisitMut + ?Sized>(v: &mut V, p: &mut Place) {
    match &mut p.kind {
        PlaceKind::Local(_) => {}
        PlaceKind::Index { base, indices } => {
            v.visit_expr_mut(base);
            indices.iter_mut().for_each(|i| v.visit_index_mut(i));
        }
        PlaceKind::Field { base, .. } => v.visit_expr_mut(base),
    }
}

/// Visits the expressions of one subscript, allowing changes.
pub fn walk_index_mut<V: VisitMut + ?Sized>(v: &mut V, i: &mut Index) {
    match i {
        Index::At(x) | Index::Spread(x) | Index::List(x) => v.visit_expr_mut(x),
        Index::All => {}
        Index::Range { start, step, end } => {
            v.visit_expr_mut(start);
            if let Some(s) = step {
                v.visit_expr_mut(s);
            }
            v.visit_expr_mut(end);
        }
    }
}

/// Visits the children of an expression in evaluation order, allowing changes.
pub fn walk_expr_mut<V: VisitMut + ?Sized>(v: &mut V, e: &mut Expr) {
    crate::stack::guard(|| match &mut e.kind {
        ExprKind::Const(_)
        | ExprKind::Local(_)
        | ExprKind::BuiltinRef(_)
        | ExprKind::TypeValue
        | ExprKind::EnumValue { .. } => {}
        ExprKind::FunctionRef(id) => v.visit_function_id_mut(id),
        ExprKind::Unary { operand: x, .. } | ExprKind::Convert(x) | ExprKind::Spread(x) => {
            v.visit_expr_mut(x)
        }
        ExprKind::TupleField { tuple, .. } => v.visit_expr_mut(tuple),
        ExprKind::Field { base, .. } => v.visit_expr_mut(base),
        ExprKind::Binary { lhs, rhs, .. } => {
            v.visit_expr_mut(lhs);
            v.visit_expr_mut(rhs);
        }
        ExprKind::Call { callee, args } => {
            match callee {
                Callee::Function(id) => v.visit_function_id_mut(id),
                Callee::Value(f) => v.visit_expr_mut(f),
                Callee::Builtin(_) | Callee::Unresolved(_) => {}
            }
            args.iter_mut().for_each(|a| v.visit_expr_mut(a));
        }
        ExprKind::ParallelDo { dims, block_dims, kernel, args } => {
            v.visit_function_id_mut(kernel);
            v.visit_expr_mut(dims);
            if let Some(b) = block_dims {
                v.visit_expr_mut(b);
            }
            args.iter_mut().for_each(|a| v.visit_expr_mut(a));
        }
        ExprKind::Index { base, indices } => {
            v.visit_expr_mut(base);
            indices.iter_mut().for_each(|i| v.visit_index_mut(i));
        }
        ExprKind::Matrix(xs) | ExprKind::Cell(xs) | ExprKind::Sequence(xs) => {
            xs.iter_mut().for_each(|x| v.visit_expr_mut(x))
        }
        ExprKind::Range { start, step, end } => {
            v.visit_expr_mut(start);
            if let Some(s) = step {
                v.visit_expr_mut(s);
            }
            v.visit_expr_mut(end);
        }
        ExprKind::Ternary { cond, then, otherwise } => {
            v.visit_expr_mut(cond);
            v.visit_expr_mut(then);
            v.visit_expr_mut(otherwise);
        }
        ExprKind::Closure { function, captures } => {
            v.visit_function_id_mut(function);
            captures.iter_mut().for_each(|c| v.visit_expr_mut(c));
        }
        ExprKind::Construct { fields, .. } => {
            fields.iter_mut().for_each(|(_, x)| v.visit_expr_mut(x))
        }
        ExprKind::Assign { place, value, .. } => {
            v.visit_place_mut(place);
            v.visit_expr_mut(value);
        }
    })
}

/// Calls `f` on every function instance a block names.
pub fn function_ids(b: &[Stmt], f: &mut dyn FnMut(FunctionId)) {
    struct Ids<'f>(&'f mut dyn FnMut(FunctionId));
    impl Visit<'_> for Ids<'_> {
        fn visit_function_id(&mut self, id: FunctionId) {
            (self.0)(id)
        }
    }
    Ids(f).visit_block(b);
}
