//! Where a loop nest's variables are read and assigned, for the loop parallelizer: the first
//! use of a variable in a run of statements (is it assigned before any read?), reads outside
//! the nest, and which loop bounds can be computed before the loop.

use crate::ir::AssignOp;
use crate::ir::{
    Block, Builtin, Callee, Const, Expr, ExprKind, Index, LocalId, PlaceKind, Stmt, StmtKind,
};
use std::collections::HashMap;

/// How a run of statements first touches a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Read before anything assigns it.
    Read,
    /// Assigned on every path before any read.
    Assigned,
    /// Neither (or assigned only on some paths, with no read yet).
    Untouched,
}

/// How the statements `b`, run in order, first touch `l`.
pub fn first_use(b: &[Stmt], l: LocalId) -> Use {
    for s in b {
        match stmt_use(s, l) {
            Use::Untouched => {}
            u => return u,
        }
    }
    Use::Untouched
}

fn stmt_use(s: &Stmt, l: LocalId) -> Use {
    let reads = |e: &Expr| reads_expr(e, l);
    match &s.kind {
        StmtKind::Assign { place, op, value } => {
            let own = matches!(place.kind, PlaceKind::Local(p) if p == l);
            let place_reads = match &place.kind {
                PlaceKind::Local(_) => false,
                PlaceKind::Index { base, indices } => {
                    reads(base) || indices.iter().any(|i| reads_index(i, l))
                }
                PlaceKind::Field { base, .. } => reads(base),
            };
            if reads(value) || place_reads || (own && *op != AssignOp::Assign) {
                Use::Read
            } else if own {
                Use::Assigned
            } else {
                Use::Untouched
            }
        }
        StmtKind::If { cond, then_body, else_body } => {
            if reads(cond) {
                return Use::Read;
            }
            match (first_use(then_body, l), first_use(else_body, l)) {
                (Use::Read, _) | (_, Use::Read) => Use::Read,
                (Use::Assigned, Use::Assigned) => Use::Assigned,
                _ => Use::Untouched,
            }
        }
        StmtKind::ForRange { var, start, step, end, body, .. } => {
            if reads(start) || reads(step) || reads(end) {
                Use::Read
            } else if *var == l {
                // Reads in the body see the loop's values; after a loop that ran no
                // iteration the variable keeps its value, so this is no assignment.
                Use::Untouched
            } else if first_use(body, l) == Use::Read {
                Use::Read
            } else {
                Use::Untouched
            }
        }
        _ => {
            let mut found = false;
            crate::ir::walk::walk_block(std::slice::from_ref(s), &mut |_| {}, &mut |e| {
                found |= matches!(e.kind, ExprKind::Local(x) if x == l);
            });
            if found {
                Use::Read
            } else {
                Use::Untouched
            }
        }
    }
}

fn reads_index(i: &Index, l: LocalId) -> bool {
    match i {
        Index::At(e) | Index::List(e) | Index::Spread(e) => reads_expr(e, l),
        Index::All => false,
        Index::Range { start, step, end } => {
            reads_expr(start, l)
                || step.as_ref().is_some_and(|s| reads_expr(s, l))
                || reads_expr(end, l)
        }
    }
}

/// Whether `e` reads the local `l`.
pub fn reads_expr(e: &Expr, l: LocalId) -> bool {
    let mut found = false;
    crate::ir::walk::walk_expr(e, &mut |x| found |= matches!(x.kind, ExprKind::Local(y) if y == l));
    found
}

/// Whether `s` (or anything in it) reads `l`, not counting the statement `skip`.
pub fn reads_outside(s: &Stmt, l: LocalId, skip: *const Stmt) -> bool {
    let mut found = false;
    fn go(s: &Stmt, l: LocalId, skip: *const Stmt, found: &mut bool) {
        if std::ptr::eq(s, skip) || *found {
            return;
        }
        let mut exprs: Vec<&Expr> = Vec::new();
        let mut blocks: Vec<&Block> = Vec::new();
        match &s.kind {
            StmtKind::If { cond, then_body, else_body } => {
                exprs.push(cond);
                blocks.extend([then_body, else_body]);
            }
            StmtKind::ForRange { var, start, step, end, body, .. } => {
                exprs.extend([start, step, end]);
                // Inside a loop over `l`, `l` holds the loop's values.
                if *var != l {
                    blocks.push(body);
                }
            }
            StmtKind::ForEach { values, body, .. } => {
                exprs.push(values);
                blocks.push(body);
            }
            StmtKind::While { cond, body } | StmtKind::Repeat { body, until: cond } => {
                exprs.push(cond);
                blocks.push(body);
            }
            StmtKind::Match { scrutinee, arms, default } => {
                exprs.push(scrutinee);
                exprs.extend(arms.iter().flat_map(|a| a.values.iter()));
                blocks.extend(arms.iter().map(|a| &a.body));
                blocks.extend(default.iter());
            }
            StmtKind::Try { body, handler, .. } => blocks.extend([body, handler]),
            _ => {
                crate::ir::walk::walk_block(std::slice::from_ref(s), &mut |_| {}, &mut |e| {
                    *found |= matches!(e.kind, ExprKind::Local(x) if x == l);
                });
                return;
            }
        }
        *found |= exprs.iter().any(|e| reads_expr(e, l));
        for b in blocks {
            for s in b {
                go(s, l, skip, found);
            }
        }
    }
    go(s, l, skip, &mut found);
    found
}

/// A loop bound computable before the loop: constants, variables the nest does not assign,
/// arithmetic, `size`/`numel`, with no call that could have effects.
pub fn pure_bound(e: &Expr, assigned: &dyn Fn(LocalId) -> bool) -> bool {
    let ok = match &e.kind {
        ExprKind::Const(Const::Int(_)) => return true,
        ExprKind::Local(l) => return !assigned(*l),
        ExprKind::Unary { operand, .. } | ExprKind::Convert(operand) => vec![operand.as_ref()],
        ExprKind::Binary { lhs, rhs, .. } => vec![lhs.as_ref(), rhs.as_ref()],
        ExprKind::Call { callee: Callee::Builtin(Builtin::Size | Builtin::Numel), args } => {
            args.iter().collect()
        }
        _ => return false,
    };
    ok.into_iter().all(|x| pure_bound(x, assigned))
}

/// Locals assigned anywhere in `b` (loop variables included).
pub fn assigned_in(b: &[Stmt]) -> HashMap<LocalId, ()> {
    let out = std::cell::RefCell::new(HashMap::new());
    let add = |l: LocalId| {
        out.borrow_mut().insert(l, ());
    };
    crate::ir::walk::walk_block(
        b,
        &mut |s| match &s.kind {
            StmtKind::Assign { place, .. } => {
                if let PlaceKind::Local(l) = place.kind {
                    add(l);
                }
            }
            StmtKind::Destructure { places, .. } => {
                for p in places.iter().flatten() {
                    if let PlaceKind::Local(l) = p.kind {
                        add(l);
                    }
                }
            }
            StmtKind::ForRange { var, .. } | StmtKind::ForEach { var, .. } => add(*var),
            _ => {}
        },
        &mut |e| {
            if let ExprKind::Assign { place, .. } = &e.kind {
                if let PlaceKind::Local(l) = place.kind {
                    add(l);
                }
            }
        },
    );
    out.into_inner()
}
