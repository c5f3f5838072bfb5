//! The body of a `{!parallel for; blkdim=M}` loop as a kernel: the launch is rounded up to
//! whole blocks, so the threads past the loop's last iteration must skip its statements, yet
//! still reach every `syncthreads` of their block. The guard `cond` (the thread has an
//! iteration) therefore goes around each run of statements between barriers, not around
//! the body; a loop holding a barrier keeps its header (uniform across the block) and is
//! guarded inside. Shared allocations stay unguarded: they belong to the whole block.

use crate::analysis::contains_barrier;
use crate::ir::{Block, Builtin, Callee, Expr, ExprKind, PlaceKind, Stmt, StmtKind};

/// `body` with its statements run only where `cond` holds, barriers kept for every thread.
pub fn guard(body: Block, cond: &Expr) -> Block {
    let mut out = Vec::new();
    let mut run: Block = Vec::new();
    let flush = |run: &mut Block, out: &mut Block| {
        if !run.is_empty() {
            let then_body = std::mem::take(run);
            let span = then_body[0].span;
            let kind = StmtKind::If { cond: cond.clone(), then_body, else_body: Vec::new() };
            out.push(Stmt { kind, span });
        }
    };
    for mut s in body {
        match &mut s.kind {
            StmtKind::SyncThreads => {
                flush(&mut run, &mut out);
                out.push(s);
            }
            StmtKind::ForRange { body, .. } | StmtKind::While { body, .. }
                if contains_barrier(body) =>
            {
                flush(&mut run, &mut out);
                *body = guard(std::mem::take(body), cond);
                out.push(s);
            }
            StmtKind::Assign { place, value, .. }
                if matches!(place.kind, PlaceKind::Local(_)) && is_shared_alloc(value) =>
            {
                flush(&mut run, &mut out);
                out.push(s);
            }
            _ => run.push(s),
        }
    }
    flush(&mut run, &mut out);
    out
}

fn is_shared_alloc(e: &Expr) -> bool {
    matches!(
        &e.kind,
        ExprKind::Call { callee: Callee::Builtin(Builtin::Shared | Builtin::SharedZeros), .. }
    )
}

#[cfg(test)]
mod tests {
    use super::guard;
    use crate::ir::{Const, Expr, ExprKind, Stmt, StmtKind};
    use crate::sema::types::Type;
    use crate::span::Span;

    #[test]
    fn barriers_stay_outside_the_guards() {
        let span = Span::default();
        let e = |v| Expr::new(ExprKind::Const(Const::Int(v)), Type::INT, span);
        let st = |kind| Stmt { kind, span };
        let body = vec![
            st(StmtKind::Expr(e(1))),
            st(StmtKind::Expr(e(2))),
            st(StmtKind::SyncThreads),
            st(StmtKind::Expr(e(3))),
        ];
        let out = guard(body, &e(0));
        let kinds: Vec<&str> = out
            .iter()
            .map(|s| match &s.kind {
                StmtKind::If { then_body, .. } if then_body.len() == 2 => "if2",
                StmtKind::If { .. } => "if1",
                StmtKind::SyncThreads => "sync",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["if2", "sync", "if1"]);
    }
}
