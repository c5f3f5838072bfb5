//! Pointwise kernels over several dimensions (`y[pos] = f(x[pos])` on an M x N x 3 image):
//! when `pos` is only ever the whole index of views of the launch's rank, and at run time
//! those views' trailing extents equal the launch's, the trailing dimensions of a block row
//! are one contiguous run. The block function then loops over that run flat, so that the
//! innermost loop is long (and vectorises) even when the last dimension is 3 colour channels.

use crate::ir::walk::walk_block;
use crate::ir::{ExprKind, Function, Index, LocalId, LocalRole, PlaceKind, StmtKind};
use std::cell::Cell;
use std::collections::HashMap;

/// Whether every use of `pos` in `f` is the whole index of a view of rank `d` (`x[pos]`), and
/// no other special parameter is used.
pub(crate) fn pointwise(
    f: &Function,
    pos: LocalId,
    views: &HashMap<LocalId, usize>,
    d: usize,
) -> bool {
    let whole_index = |base: &crate::ir::Expr, indices: &[Index]| {
        matches!(&base.kind, ExprKind::Local(v) if views.get(v) == Some(&d))
            && matches!(indices, [Index::At(i)] if matches!(i.kind, ExprKind::Local(p) if p == pos))
    };
    // Both visitors count (the walker takes them at once).
    let (uses, allowed, ok) = (Cell::new(0usize), Cell::new(0usize), Cell::new(true));
    walk_block(
        &f.body,
        &mut |s| match &s.kind {
            StmtKind::Assign { place, .. } => match &place.kind {
                PlaceKind::Local(l) if *l == pos => ok.set(false),
                PlaceKind::Index { base, indices } if whole_index(base, indices) => {
                    allowed.set(allowed.get() + 1)
                }
                _ => {}
            },
            StmtKind::Destructure { places, .. } => {
                for p in places.iter().flatten() {
                    match &p.kind {
                        PlaceKind::Local(l) if *l == pos => ok.set(false),
                        PlaceKind::Index { base, indices } if whole_index(base, indices) => {
                            allowed.set(allowed.get() + 1)
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        },
        &mut |e| match &e.kind {
            ExprKind::Local(l) if *l == pos => uses.set(uses.get() + 1),
            ExprKind::Local(l) if f.local(*l).role == LocalRole::Special => ok.set(false),
            ExprKind::Index { base, indices } if whole_index(base, indices) => {
                allowed.set(allowed.get() + 1)
            }
            _ => {}
        },
    );
    ok.get() && uses.get() > 0 && uses.get() == allowed.get()
}
