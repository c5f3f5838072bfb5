//! Flat-loop collapse for kernels over three or more dimensions (`y[pos] = f(x[pos])` on an
//! M x N x 3 image, or a filter along the rows of one): when every use of `pos` is inside an
//! unchecked access of the partition that indexes dimension k with launch dimension k, offset
//! only along dimensions 0 and 1, the offsets of the interior are exactly the flat ones, so a
//! CPU kernel can loop over the trailing dimensions of a block row as one contiguous run
//! (`Partition::flat`; the loop itself is `qstd::rt::block_rows`).
//!
//! Merged rows go one step further for kernels over two or more dimensions whose every
//! access is at the position itself, offset only along dimension 0 (`y[pos] = f(x[pos])`, a
//! vertical filter): consecutive interior rows of a block are then one contiguous run of
//! every array, so the CPU loops over them at once (`Partition::merge_rows`,
//! `qstd::rt::block_runs`). A loop ending at every row cost as much as 25% of a copy kernel's
//! time on a 1080p image (the exit's misprediction empties the queue of loads in flight).

use crate::ir::partition::{Bound, Partition};
use crate::ir::walk::{walk_block, walk_expr};
use crate::ir::{ExprKind, Function, Index, LocalId, PlaceKind, StmtKind};
use std::cell::Cell;

/// Whether the flat loop applies to kernel `f` with position `pos` and partition `facts`.
pub fn flat_applies(f: &Function, pos: LocalId, facts: &Partition) -> bool {
    let d = crate::analysis::kernel::geometry_rank(&f.local(pos).ty).unwrap_or(0);
    if d < 3 {
        return false; // the ordinary loop is already flat
    }
    let zero = Bound::constant(0);
    let shapes_ok = facts.region.iter().all(|c| {
        c.array_dim == c.launch_dim && (c.launch_dim < 2 || (c.lo == zero && c.hi == zero))
    });
    shapes_ok && pos_only_in_covered_accesses(f, pos, facts)
}

/// Whether consecutive rows of kernel `f` (position `pos`, partition `facts`, `ranks` of its
/// views) may run as one flat run: every bound is about an array of the launch's rank whose
/// dimension k is indexed by launch dimension k, offset only along dimension 0, and `pos`
/// is used only in such accesses (not in arithmetic, whose values the flat index would
/// change). The index of the run's position `j` then addresses every array at row `p0`'s
/// element `j`, exactly as the position `j` rows of `dims[1..]` further does when the arrays'
/// trailing extents are the launch's (which `block_runs` checks).
pub fn rows_merge(
    f: &Function,
    pos: LocalId,
    facts: &Partition,
    ranks: &std::collections::HashMap<LocalId, usize>,
) -> bool {
    let d = crate::analysis::kernel::geometry_rank(&f.local(pos).ty).unwrap_or(0);
    if d < 2 {
        return false; // one dimension is one run already
    }
    let zero = Bound::constant(0);
    let shapes_ok = facts.region.iter().all(|c| {
        c.array_dim == c.launch_dim
            && ranks.get(&c.base) == Some(&d)
            && (c.launch_dim == 0 || (c.lo == zero && c.hi == zero))
    });
    !facts.region.is_empty() && shapes_ok && pos_only_in_covered_accesses(f, pos, facts)
}

fn pos_only_in_covered_accesses(f: &Function, pos: LocalId, facts: &Partition) -> bool {
    let count_pos = |indices: &[Index]| {
        let n = Cell::new(0usize);
        for ix in indices {
            if let Index::At(e) | Index::Spread(e) | Index::List(e) = ix {
                walk_expr(e, &mut |x| {
                    if matches!(x.kind, ExprKind::Local(l) if l == pos) {
                        n.set(n.get() + 1);
                    }
                });
            }
        }
        n.get()
    };
    // Both visitors count (the walker takes them at once).
    let (uses, covered, ok) = (Cell::new(0usize), Cell::new(0usize), Cell::new(true));
    let place = |p: &crate::ir::Place| match &p.kind {
        PlaceKind::Local(l) if *l == pos => ok.set(false),
        PlaceKind::Index { indices, .. } if facts.unchecked.contains(&p.id) => {
            covered.set(covered.get() + count_pos(indices))
        }
        _ => {}
    };
    walk_block(
        &f.body,
        &mut |s| match &s.kind {
            StmtKind::Assign { place: p, .. } => place(p),
            StmtKind::Destructure { places, .. } => places.iter().flatten().for_each(place),
            _ => {}
        },
        &mut |e| match &e.kind {
            ExprKind::Local(l) if *l == pos => uses.set(uses.get() + 1),
            ExprKind::Local(l) if f.local(*l).special().is_some() => ok.set(false),
            ExprKind::Index { indices, .. } if facts.unchecked.contains(&e.id) => {
                covered.set(covered.get() + count_pos(indices))
            }
            _ => {}
        },
    );
    ok.get() && uses.get() > 0 && uses.get() == covered.get()
}
