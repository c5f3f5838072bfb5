//! The interior/border partition of a kernel, made by boundary-check elimination
//! (`transform::interior`) and consumed by both back ends: in the *interior* of the launch,
//! where every [`RegionBound`] holds, the accesses in [`Partition::unchecked`] are inside
//! their arrays and need no boundary handling (no clamping, mirroring, wrapping or tests);
//! the *border* runs the body as written. The bounds are loop-invariant: a constant plus
//! multiples of values fixed for the whole launch ([`Term`]), so that a back end evaluates
//! them once per block (CPU) or per thread at entry (GPU).

use super::{LocalId, NodeId};
use std::collections::BTreeSet;

/// A kernel's partition (`ir::Function::partition`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Partition {
    /// The interior is where every one of these holds.
    pub region: Vec<RegionBound>,
    /// The accesses (index expressions and places) needing no boundary handling there.
    pub unchecked: BTreeSet<NodeId>,
    /// Conditions on the launch alone (no position) that the interior needs as well: an
    /// unchecked access indexed by a loop variable whose bound is a run-time value
    /// (`b[k, pos[1]]` for `k = 0..size(a, 1) - 1`) is inside `b` only when the bound is.
    /// When one fails the whole launch runs the border code, which checks every access.
    pub guards: Vec<ExtentGuard>,
    /// Every use of `pos` is inside an unchecked access, indexing array dimension k with launch
    /// dimension k, offset only along dimensions 0 and 1: a CPU kernel over three or more
    /// dimensions may run the interior of a block row as one flat loop (`qstd::rt::block_rows`).
    pub flat: bool,
    /// Every use of `pos` is inside an unchecked access of an array of the launch's rank,
    /// indexing array dimension k with launch dimension k, offset only along dimension 0: a
    /// CPU kernel may run consecutive interior rows of a block as one flat run
    /// (`qstd::rt::block_runs`), the way hand-written code copies a block in one loop.
    pub merge_rows: bool,
}

/// `0 <= pos[launch_dim] + lo` and `pos[launch_dim] + hi < size(base, array_dim)`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegionBound {
    /// A kernel argument (an array) the kernel never reassigns.
    pub base: LocalId,
    /// The dimension of `base` that bounds the position.
    pub array_dim: usize,
    /// The component of `pos` the bound is about.
    pub launch_dim: usize,
    /// Added to the position: the smallest offset of the accesses along it.
    pub lo: Bound,
    /// Added to the position: the largest offset of the accesses along it.
    pub hi: Bound,
}

/// `0 <= lo` and `hi < size(base, array_dim)`: the values of an index that does not depend on
/// the position lie inside that dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtentGuard {
    /// A kernel argument (an array) the kernel never reassigns.
    pub base: LocalId,
    /// The dimension of `base` indexed.
    pub array_dim: usize,
    /// The smallest value of the index.
    pub lo: Bound,
    /// The largest value of the index.
    pub hi: Bound,
}

impl Partition {
    /// Whether some bound constrains launch dimension `d` (a CPU kernel splits its innermost
    /// loop only then).
    pub fn constrains(&self, d: usize) -> bool {
        self.region.iter().any(|c| c.launch_dim == d)
    }

    /// Whether consecutive positions along the innermost launch dimension `last` walk an
    /// array across its rows: an array of rank `rank(base)` ≥ 2 has its contiguous (last)
    /// dimension indexed by another launch dimension and another of its dimensions by `last`
    /// (a transpose, `y[pos[1], pos[0]] = x[pos]`). Each position of a row then touches a
    /// different row of the array, so the CPU runs such a kernel in tiles instead of
    /// whole rows (`run::Kernel::cpu_tiles`).
    pub fn crosses_rows(&self, rank: impl Fn(LocalId) -> Option<usize>, last: usize) -> bool {
        self.region.iter().any(|a| {
            rank(a.base).is_some_and(|r| {
                r >= 2
                    && a.array_dim == r - 1
                    && a.launch_dim != last
                    && self
                        .region
                        .iter()
                        .any(|b| b.base == a.base && b.launch_dim == last && b.array_dim < r - 1)
            })
        })
    }
}

/// A value fixed for the whole launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Term {
    /// An integer parameter or capture that the kernel never assigns.
    Local(LocalId),
    /// `numel(v)` of a view.
    Numel(LocalId),
    /// `size(v, d)` of a view.
    Size(LocalId, usize),
}

/// `c + Σ k·term`, terms sorted and merged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The constant part.
    pub c: i64,
    /// `(k, term)` pairs, sorted by term, no zero `k`.
    pub terms: Vec<(i64, Term)>,
}

impl Bound {
    /// The bound `c`.
    pub fn constant(c: i64) -> Bound {
        Bound { c, terms: Vec::new() }
    }

    /// The bound `1·t`.
    pub fn term(t: Term) -> Bound {
        Bound { c: 0, terms: vec![(1, t)] }
    }

    /// `self + k·other`, or `None` on overflow.
    pub fn add_scaled(&self, other: &Bound, k: i64) -> Option<Bound> {
        let mut terms = self.terms.clone();
        for &(m, t) in &other.terms {
            let m = m.checked_mul(k)?;
            match terms.iter_mut().find(|(_, u)| *u == t) {
                Some(e) => e.0 = e.0.checked_add(m)?,
                None => terms.push((m, t)),
            }
        }
        terms.retain(|(m, _)| *m != 0);
        terms.sort_by_key(|&(_, t)| t);
        Some(Bound { c: self.c.checked_add(other.c.checked_mul(k)?)?, terms })
    }

    /// `-self`, or `None` on overflow.
    pub fn neg(&self) -> Option<Bound> {
        Bound::constant(0).add_scaled(self, -1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transposed_access_crosses_rows_and_a_broadcast_does_not() {
        let bound = |base, array_dim, launch_dim| RegionBound {
            base: LocalId(base),
            array_dim,
            launch_dim,
            lo: Bound::constant(0),
            hi: Bound::constant(0),
        };
        let of = |region: Vec<RegionBound>| Partition { region, ..Partition::default() };
        // Matrices 0 and 1, vector 2; launch dimension 1 is innermost.
        let rank = |l: LocalId| Some(if l.0 == 2 { 1 } else { 2 });
        // `x[pos[1], pos[0]]`.
        assert!(of(vec![bound(0, 0, 1), bound(0, 1, 0)]).crosses_rows(rank, 1));
        // `x[pos]`, and `w[pos[0]]` (a vector: one element per row of positions).
        assert!(!of(vec![bound(0, 0, 0), bound(0, 1, 1), bound(2, 0, 0)]).crosses_rows(rank, 1));
        // `x[pos[0], pos[0]]`, or `y[pos[1], c]` with `x[0, pos[0]]`: nothing runs along a
        // row of positions across the rows of one array.
        assert!(!of(vec![bound(0, 0, 0), bound(0, 1, 0)]).crosses_rows(rank, 1));
        assert!(!of(vec![bound(1, 0, 1), bound(0, 1, 0)]).crosses_rows(rank, 1));
    }

    #[test]
    fn sums_merge_and_cancel_terms() {
        let n = Bound::term(Term::Local(LocalId(3)));
        let m = Bound::term(Term::Numel(LocalId(1)));
        // (numel - 1 - n) - (-n) = numel - 1
        let hi = m.add_scaled(&Bound::constant(-1), 1).unwrap().add_scaled(&n, -1).unwrap();
        let lo = n.neg().unwrap();
        let d = hi.add_scaled(&lo, -1).unwrap();
        assert_eq!(d, Bound { c: -1, terms: vec![(1, Term::Numel(LocalId(1)))] });
        assert_eq!(n.add_scaled(&n, -1).unwrap(), Bound::constant(0));
        assert!(Bound::constant(i64::MAX).add_scaled(&Bound::constant(1), 1).is_none());
    }
}
