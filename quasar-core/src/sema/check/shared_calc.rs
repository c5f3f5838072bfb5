//! The "shared calculation" of manual §9.2.1: a `for` loop at the top level of a kernel that
//! fills a designated shared variable (`Sb : 'shared = uninit(M)` then `for L=0..M-1 …
//! Sb[L] = … endfor`) is run once per block, its iterations shared by the block's threads,
//! followed by `syncthreads` so that every thread then reads the whole variable.
//!
//! Only a loop whose effect is the shared variable's elements is shared out: its body writes
//! elements of designated variables and temporaries that nothing reads after the loop (each
//! thread ends with another value of them). Any other loop runs whole on every thread, as
//! written, which gives the same shared values.

use super::params::names_used;
use crate::syntax::ast::{AssignOp, BinaryOp, Expr, ExprKind, Stmt, StmtKind};
use std::collections::HashSet;

/// `s` with its iterations shared by the block's threads (`idx`, the thread's index in its
/// block, and `size`, the block's size), or `None` when `s` is not such a loop. `later` are
/// the kernel's statements after `s`.
pub(super) fn share_loop(
    s: &Stmt,
    later: &[Stmt],
    designated: &[String],
    block: impl FnOnce() -> Option<(Expr, Expr)>,
) -> Option<Stmt> {
    let StmtKind::For { var, iter, body } = &s.kind else { return None };
    let ExprKind::Range { start, step, end } = &iter.kind else { return None };
    if step.as_deref().is_some_and(|st| !matches!(&st.kind, ExprKind::Number(n) if n == "1")) {
        return None;
    }
    let mut w = Writes { designated, temps: HashSet::from([var.name.clone()]), shared: false };
    if !body.iter().all(|s| w.stmt(s)) || !w.shared {
        return None;
    }
    if read_later(later, w.temps) {
        return None;
    }
    let (idx, size) = block()?;
    let span = iter.span;
    let first = Expr::new(
        ExprKind::Binary { op: BinaryOp::Add, lhs: start.clone(), rhs: Box::new(idx) },
        span,
    );
    let shared =
        ExprKind::Range { start: Box::new(first), step: Some(Box::new(size)), end: end.clone() };
    let kind =
        StmtKind::For { var: var.clone(), iter: Expr::new(shared, span), body: body.clone() };
    Some(Stmt { kind, span: s.span })
}

/// What a loop body writes.
struct Writes<'d> {
    designated: &'d [String],
    /// Plain variables assigned (the loop variables included).
    temps: HashSet<String>,
    /// Whether an element of a designated variable is written.
    shared: bool,
}

impl Writes<'_> {
    /// Whether `s` writes only designated elements and temporaries (and has no barrier).
    fn stmt(&mut self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Expr(Expr { kind: ExprKind::Assign { lhs, .. }, .. }) => self.place(lhs),
            StmtKind::If { branches, else_body } => {
                branches.iter().all(|(_, b)| b.iter().all(|s| self.stmt(s)))
                    && else_body.iter().flatten().all(|s| self.stmt(s))
            }
            StmtKind::For { var, body, .. } => {
                self.temps.insert(var.name.clone());
                body.iter().all(|s| self.stmt(s))
            }
            StmtKind::While { body, .. } | StmtKind::Repeat { body, .. } => {
                body.iter().all(|s| self.stmt(s))
            }
            StmtKind::Break | StmtKind::Continue => true,
            _ => false,
        }
    }

    fn place(&mut self, lhs: &Expr) -> bool {
        match &lhs.kind {
            ExprKind::Ident(n) => {
                self.temps.insert(n.clone());
                true
            }
            ExprKind::Annotated { expr, .. } => self.place(expr),
            ExprKind::Matrix(items) | ExprKind::Tuple(items) => items.iter().all(|i| self.place(i)),
            ExprKind::Index { base, .. } => match &base.kind {
                ExprKind::Ident(n) if self.designated.contains(n) => {
                    self.shared = true;
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }
}

/// Whether a statement of `later` may read one of `temps` before assigning it: at the top
/// level, `x = …` assigns `x` for what follows, and `for x = …` binds `x` in its body.
fn read_later(later: &[Stmt], mut temps: HashSet<String>) -> bool {
    let hit = |names: Vec<(String, crate::span::Span)>, temps: &HashSet<String>| {
        names.iter().any(|(n, _)| temps.contains(n))
    };
    for s in later {
        let mut names = Vec::new();
        match &s.kind {
            StmtKind::Expr(Expr {
                kind: ExprKind::Assign { op: AssignOp::Assign, lhs, rhs },
                ..
            }) if matches!(lhs.kind, ExprKind::Ident(_)) => {
                names_used(rhs, &mut names);
                if hit(names, &temps) {
                    return true;
                }
                if let ExprKind::Ident(x) = &lhs.kind {
                    temps.remove(x);
                }
            }
            StmtKind::For { var, iter, body } => {
                names_used(iter, &mut names);
                let bound = temps.remove(&var.name);
                body.iter().for_each(|s| stmt_names(s, &mut names));
                if hit(names, &temps) {
                    return true;
                }
                if bound {
                    temps.insert(var.name.clone());
                }
            }
            _ => {
                stmt_names(s, &mut names);
                if hit(names, &temps) {
                    return true;
                }
            }
        }
    }
    false
}

/// The names statement `s` mentions (conservatively: written ones too).
fn stmt_names(s: &Stmt, out: &mut Vec<(String, crate::span::Span)>) {
    let all = |b: &[Stmt], out: &mut Vec<_>| b.iter().for_each(|s| stmt_names(s, out));
    match &s.kind {
        StmtKind::Expr(e) => names_used(e, out),
        StmtKind::If { branches, else_body } => {
            for (c, b) in branches {
                names_used(c, out);
                all(b, out);
            }
            all(else_body.as_deref().unwrap_or_default(), out);
        }
        StmtKind::For { iter, body, .. } => {
            names_used(iter, out);
            all(body, out);
        }
        StmtKind::While { cond, body } => {
            names_used(cond, out);
            all(body, out);
        }
        StmtKind::Repeat { body, until } => {
            all(body, out);
            names_used(until, out);
        }
        StmtKind::Match { scrutinee, arms } => {
            names_used(scrutinee, out);
            arms.iter().for_each(|a| all(&a.body, out));
        }
        StmtKind::Try { body, catch_body, .. } => {
            all(body, out);
            all(catch_body, out);
        }
        // A nested function may read anything: count every name it could.
        StmtKind::Function(f) => all(&f.body, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::share_loop;
    use crate::span::FileId;
    use crate::syntax::ast::{Expr, ExprKind, StmtKind};

    /// Whether the first statement of `body` (a kernel body's statements) is shared out,
    /// with `s` designated.
    fn shared(body: &str) -> bool {
        let parsed = crate::syntax::parse(body, FileId(0));
        assert!(!parsed.has_errors(), "{:?}", parsed.diagnostics);
        let stmts = &parsed.program.body;
        let id = |n: &str| Expr::new(ExprKind::Ident(n.into()), stmts[0].span);
        let out = share_loop(&stmts[0], &stmts[1..], &["s".to_string()], || {
            Some((id("blkpos"), id("blkdim")))
        });
        if let Some(o) = &out {
            let StmtKind::For { iter, .. } = &o.kind else { panic!("not a loop: {o:?}") };
            let ExprKind::Range { step: Some(step), .. } = &iter.kind else { panic!("{iter:?}") };
            assert!(matches!(&step.kind, ExprKind::Ident(n) if n == "blkdim"));
        }
        out.is_some()
    }

    #[test]
    fn only_loops_whose_effect_is_the_shared_elements_are_shared_out() {
        assert!(shared("for i = 0..7\n  t = 2 * i\n  s[i] = t\nendfor\ny[pos] = s[0]\n"));
        // A temporary assigned again before it is read, or a later loop's own variable.
        assert!(shared("for i = 0..7\n  s[i] = i\nendfor\nfor i = 0..2\n  y[i] = s[i]\nendfor\n"));
        assert!(shared("for i = 0..7\n  t = i\n  s[i] = t\nendfor\nt = 1\ny[pos] = t\n"));
        // A temporary read afterwards, a global write, a barrier, a step, no shared write.
        assert!(!shared("for i = 0..7\n  t = i\n  s[i] = t\nendfor\ny[pos] = t\n"));
        assert!(!shared("for i = 0..7\n  s[i] = i\n  y[i] = i\nendfor\n"));
        assert!(!shared("for i = 0..7\n  s[i] = i\n  syncthreads\nendfor\n"));
        assert!(!shared("for i = 0..2..7\n  s[i] = i\nendfor\n"));
        assert!(!shared("for i = 0..7\n  t = i\nendfor\n"));
    }
}
