//! CPU kernels: feature detection (their hot loops are compiled for AVX2+FMA and, where needed,
//! baseline x86-64, dispatched at run time), the split of a row into border and interior, and the
//! lanes of kernel outputs in a row's hot loop.

use quasar_runtime::{Reduce, Reducible, Result};
use std::cell::Cell;

/// Whether this CPU runs the AVX2+FMA version of generated kernels (checked once, cached; out
/// of line: one call per launch, and the cache's code stays here instead of in every kernel).
#[inline(never)]
pub fn has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static DETECTED: OnceLock<bool> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            std::env::var_os("QUASAR_NO_AVX2").is_none()
                && std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The version of a kernel's hot loop that this CPU runs: `avx2` (AVX2+FMA) or `base`
/// (`QUASAR_NO_AVX2` turns the wider one off).
#[inline]
pub fn pick<T>(base: T, avx2: T) -> T {
    if has_avx2_fma() {
        avx2
    } else {
        base
    }
}

/// `$with` when the crate is built with the `x86-baseline-copies` feature (`quasar`'s, forwarded
/// here), else `$without`: generated kernels choose with it whether a hot loop that has an
/// AVX2+FMA copy also gets a baseline x86-64 copy. A `macro_rules!` in this crate, not an option
/// of the proc macro, so that the feature is decided where Cargo unifies it and the macro's
/// cached output stays the same; the copy not chosen is dropped before type checking, so it
/// costs no compile time.
#[cfg(feature = "x86-baseline-copies")]
#[doc(hidden)]
#[macro_export]
macro_rules! __qstd_x86_baseline_copies {
    ($with:expr, $without:expr) => {
        $with
    };
}

/// See the version with the `x86-baseline-copies` feature.
#[cfg(not(feature = "x86-baseline-copies"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __qstd_x86_baseline_copies {
    ($with:expr, $without:expr) => {
        $without
    };
}

#[doc(hidden)]
pub use crate::__qstd_x86_baseline_copies as x86_baseline_copies;

/// Whether position `p` offset by `lo` and by `hi` stays inside `0..n` (a row of a kernel's
/// interior, along one of the outer dimensions).
#[inline(always)]
pub fn inside(p: usize, lo: i64, hi: i64, n: usize) -> bool {
    p as i64 + lo >= 0 && (p as i64 + hi) < n as i64
}

/// Runs one row `r` of a kernel with an interior path: `interior` once over `[lo, hi)` and
/// `border` over each other segment of `r` (`[r.start, lo)` and `[hi, r.end)`, when not
/// empty), or `border` over all of `r` when `ok` is false or the interior is empty. `lo` is
/// the largest of `los`, `hi` the smallest of `his`; they include `r.start` and `r.end`.
///
/// Called once per row with the kernel's code as trait objects, so it is compiled here once
/// and not inlined into every kernel of the user's crate (issue 19: each generic copy was ~350
/// lines of LLVM IR per kernel and row loop, for a few calls per row).
#[inline(never)]
pub fn split_row(
    r: std::ops::Range<usize>,
    los: &[i64],
    his: &[i64],
    ok: bool,
    border: &mut dyn FnMut(usize, usize) -> Result<()>,
    interior: &mut dyn FnMut(usize, usize) -> Result<()>,
) -> Result<()> {
    let lo = los.iter().fold(r.start as i64, |a, &b| a.max(b));
    let hi = his.iter().fold(r.end as i64, |a, &b| a.min(b));
    if ok && lo < hi {
        let (lo, hi) = (lo as usize, hi as usize);
        if r.start < lo {
            border(r.start, lo)?;
        }
        interior(lo, hi)?;
        if hi < r.end {
            border(hi, r.end)?;
        }
    } else if !r.is_empty() {
        border(r.start, r.end)?;
    }
    Ok(())
}

/// The positions along the trailing dimensions of flat index `j` of a row-major run whose
/// extents are `dims` (the border threads of a kernel's flat loop).
#[inline(always)]
pub fn unflatten<const N: usize>(mut j: usize, dims: &[usize]) -> [usize; N] {
    let mut p = [0; N];
    for k in (0..N).rev() {
        p[k] = j % dims[k];
        j /= dims[k];
    }
    p
}

/// Lanes of one kernel output in the hot loop of a CPU row ([`lanes`]): `L` independent
/// running values, lane 0 starting from the block's slot and the others from the identity of
/// `op`, so that the loop vectorises (LLVM never reorders floating-point additions itself).
/// [`fold`](Lanes::fold) combines them in a fixed tree, so a row's result depends only on its
/// range: deterministic for a fixed launch shape, but the additions are grouped differently
/// from a serial sum (as the library's pairwise `sum` groups them).
pub struct Lanes<T, const L: usize> {
    lanes: [Cell<T>; L],
    op: Reduce,
}

impl<T: Reducible, const L: usize> Lanes<T, L> {
    /// The lanes of an output whose block slot holds `first`, combined with `op`.
    #[inline(always)]
    pub fn new(first: T, op: Reduce) -> Self {
        let id = T::identity(op);
        Lanes { lanes: std::array::from_fn(|l| Cell::new(if l == 0 { first } else { id })), op }
    }

    /// Lane `l` (as [`lanes`] numbers them, `l < L`).
    #[inline(always)]
    pub fn at(&self, l: usize) -> &Cell<T> {
        &self.lanes[l % L]
    }

    /// The lanes combined pairwise: lane `l` with lane `l + L/2`, then `l + L/4`, ….
    #[inline(always)]
    pub fn fold(&self) -> T {
        let mut w = L / 2;
        while w > 0 {
            for l in 0..w {
                let (a, b) = (self.lanes[l].get(), self.lanes[l + w].get());
                // `op` applies to `T` (the launch checked it); else keep `a`.
                self.lanes[l].set(T::combine(self.op, a, b).unwrap_or(a));
            }
            w /= 2;
        }
        self.lanes[0].get()
    }
}

/// Runs `f(p, l)` for `p` in `lo..hi`, where `l = (p - lo) % L` is the lane of a kernel
/// output ([`Lanes`]) that position `p` accumulates into, `L` positions at a time (fewer at
/// the end).
///
/// The inner loop's trip count is `min(hi - i, L)`, not the constant `L`, on purpose: with a
/// constant count LLVM fully unrolls the loop before its loop vectoriser runs (the unrolled
/// lanes become scalar registers and stack slots: 16 lanes gave 16 scalar additions and 16
/// stores per 16 positions, 32 lanes spilled), and a kernel-output `sum` took twice the
/// library's time. With a run-time count the loop vectoriser gets the loop: the lanes stay
/// an array in L1 that each run of `L` positions adds into with vector instructions.
#[inline(always)]
pub fn lanes<const L: usize>(
    lo: usize,
    hi: usize,
    mut f: impl FnMut(usize, usize) -> quasar_runtime::Result<()>,
) -> quasar_runtime::Result<()> {
    let mut i = lo;
    while i < hi {
        let n = (hi - i).min(L);
        for l in 0..n {
            f(i + l, l)?;
        }
        i += n;
    }
    Ok(())
}
