//! The loops over a CPU block's rows for kernels with an interior path: which positions of a
//! row run the kernel's interior code (its reads cannot leave the arrays) and which the border
//! code, from the reach of the kernel's reads (`transform::interior`'s partition, evaluated
//! at run time by the generated `run`).
//!
//! Compiled here once instead of in every kernel of the user's crate (issue 19): the generated
//! code passes a table of [`Reach`]es and two closures.

use super::cpu::{inside, split_row};
use quasar_runtime::{BlockCtx, Result, Shape};

/// How far a kernel's read reaches from the position along launch dimension `dim`: the
/// position `p` is in the read's interior when `p + lo >= 0` and `p + hi < extent`, the
/// extent of the array dimension it indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// The launch dimension (the component of `pos`).
    pub dim: usize,
    /// The smallest offset added to the position.
    pub lo: i64,
    /// The largest offset added to the position.
    pub hi: i64,
    /// The extent of the array dimension indexed.
    pub extent: usize,
}

impl Reach {
    /// The reach `[lo, hi]` along launch dimension `dim` into an array dimension of `extent`.
    #[inline(always)]
    pub const fn new(dim: usize, lo: i64, hi: i64, extent: usize) -> Reach {
        Reach { dim, lo, hi, extent }
    }
}

/// The code of a segment of a row: the outer positions (every launch dimension but the last)
/// and the range `[lo, hi)` along the last.
pub type Segment<'a> = &'a mut dyn FnMut(&[usize], usize, usize) -> Result<()>;

/// The most launch dimensions.
const MAX_RANK: usize = quasar_runtime::MAX_LAUNCH_DIMS;

/// Runs the positions of block `ctx` of a `d`-dimensional launch: `interior` over the part of
/// each row (along the last dimension) inside every [`Reach`], `border` over the rest.
///
/// `split` false runs `interior` over every whole row instead: the kernel's hot loop has no
/// copy this CPU runs (only AVX2+FMA ones), and `interior` is then the border code, which
/// handles every position.
///
/// `flat`, when given, holds the shapes of the arrays the reaches index, for kernels whose
/// trailing dimensions can be run as one contiguous row (`Partition::flat`: offsets only along
/// dimensions 0 and 1): when the shapes' trailing extents equal the launch's and the block
/// spans them, each row `p0` is one flat run of `dims[1] * … * dims[d-1]` positions;
/// `interior` then gets the outer positions `[p0, 0, …]` and flat indices, and `border` one
/// position at a time (recovered from the flat index).
#[inline(never)]
pub fn block_rows(
    ctx: &BlockCtx<'_>,
    d: usize,
    split: bool,
    reach: &[Reach],
    flat: Option<&[&Shape]>,
    border: Segment<'_>,
    interior: Segment<'_>,
) -> Result<()> {
    debug_assert!((1..=MAX_RANK).contains(&d));
    let dims = &ctx.dims()[..d];
    let reach = if split { reach } else { &[] };
    if let Some(shapes) = flat.filter(|_| split) {
        let spans =
            |k: usize| shapes.iter().all(|s| s.dim(k) == dims[k]) && ctx.range(k) == (0..dims[k]);
        if d >= 2 && (1..d).all(spans) {
            return flat_rows(ctx, d, reach, border, interior);
        }
    }
    row_loop(ctx, d, reach, border, interior, None)
}

/// [`block_rows`] for a kernel whose interior may run consecutive rows as one
/// (`Partition::merge_rows`: every access is at the position, offset only along dimension 0,
/// into arrays of the launch's rank). When the arrays in `shapes` have the launch's extents
/// along every dimension but the first, the block spans those, and the reaches along them are
/// empty, each maximal run of rows `[a, b)` inside every reach along dimension 0 goes to
/// `interior` at once: outer positions `[a, 0, …]` and flat indices `[0, (b - a) * run)`,
/// `run` the positions of one row (`dims[1] * … * dims[d-1]`); such an index addresses every
/// array where the position it counts to does. The rows outside go to `border`, a row of the
/// last dimension at a time. Otherwise it is [`block_rows`] (with flat rows over three or more
/// dimensions, which the same kernels allow).
///
/// One run per block instead of one per row: a loop ending at every row cost a copy kernel
/// 15-25% of its time on a 1080p image, against hand-written code that copies a block at once.
#[inline(never)]
pub fn block_runs(
    ctx: &BlockCtx<'_>,
    d: usize,
    split: bool,
    reach: &[Reach],
    shapes: &[&Shape],
    border: Segment<'_>,
    interior: Segment<'_>,
) -> Result<()> {
    debug_assert!((1..=MAX_RANK).contains(&d));
    let dims = &ctx.dims()[..d];
    let spans =
        |k: usize| shapes.iter().all(|s| s.dim(k) == dims[k]) && ctx.range(k) == (0..dims[k]);
    // Every position of a row inside along the trailing dimensions (no offsets there).
    let whole = |k: usize| {
        let (lo, hi) = bounds(reach, k, 1);
        lo <= 0 && hi >= dims[k] as i64
    };
    let run: usize = dims[1..].iter().product();
    if !split || d < 2 || run == 0 || !(1..d).all(|k| spans(k) && whole(k)) {
        let flat = if d >= 3 { Some(shapes) } else { None };
        return block_rows(ctx, d, split, reach, flat, border, interior);
    }
    // The flat index is a position component (`i32`) of the kernel's code.
    let most = (i32::MAX as usize / run).max(1);
    let ok =
        |p0: usize| reach.iter().filter(|r| r.dim == 0).all(|r| inside(p0, r.lo, r.hi, r.extent));
    let rows = ctx.range(0);
    let mut outer = [0usize; MAX_RANK];
    let mut a = rows.start;
    while a < rows.end {
        if ok(a) {
            let mut b = a + 1;
            while b < rows.end && b - a < most && ok(b) {
                b += 1;
            }
            outer[0] = a;
            interior(&outer[..d - 1], 0, (b - a) * run)?;
            a = b;
            continue;
        }
        // A border row: its rows along the last dimension, one at a time.
        outer[0] = a;
        let inner = dims[d - 1];
        for i in 0..run / inner {
            let mut rest = i;
            for k in (1..d - 1).rev() {
                outer[k] = rest % dims[k];
                rest /= dims[k];
            }
            border(&outer[..d - 1], 0, inner)?;
        }
        outer[1..].fill(0);
        a += 1;
    }
    Ok(())
}

/// [`block_rows`] for a kernel that runs two rows of positions at once: `pair(outer, lo, hi)`
/// runs the interior segment `[lo, hi)` of the row at `outer` and of the next row along
/// dimension `d - 2` (a matrix product's rows of the result, which share every read of the
/// other matrix: `analysis::lockstep`'s row pairs). Two consecutive rows of the block that
/// are both inside every reach along the outer dimensions run so, their border segments
/// through `border` one row after the other; the other rows as in [`block_rows`]. Without
/// `split`, or over one dimension, it is [`block_rows`] (without flat rows).
#[inline(never)]
pub fn block_row_pairs(
    ctx: &BlockCtx<'_>,
    d: usize,
    split: bool,
    reach: &[Reach],
    border: Segment<'_>,
    interior: Segment<'_>,
    pair: Segment<'_>,
) -> Result<()> {
    debug_assert!((1..=MAX_RANK).contains(&d));
    if !split || d < 2 {
        return block_rows(ctx, d, split, reach, None, border, interior);
    }
    row_loop(ctx, d, reach, border, interior, Some(pair))
}

/// The rows of a block, each split into border and interior segments; with `pair`, two rows
/// at a time where both are inside along the outer dimensions ([`block_row_pairs`]).
fn row_loop(
    ctx: &BlockCtx<'_>,
    d: usize,
    reach: &[Reach],
    border: Segment<'_>,
    interior: Segment<'_>,
    mut pair: Option<Segment<'_>>,
) -> Result<()> {
    let last = d - 1;
    // The interior of every row along the last dimension (the same for all rows), without
    // allocating: a block can be a single row.
    let (los, his) = bounds(reach, last, 1);
    let mut ranges: [std::ops::Range<usize>; MAX_RANK] = std::array::from_fn(|_| 0..0);
    for (k, r) in ranges.iter_mut().enumerate().take(last) {
        *r = ctx.range(k);
    }
    if ranges[..last].iter().any(|r| r.is_empty()) {
        return Ok(());
    }
    let mut p = [0usize; MAX_RANK];
    for (k, r) in ranges[..last].iter().enumerate() {
        p[k] = r.start;
    }
    let ok_at = |outer: &[usize]| {
        reach.iter().filter(|r| r.dim != last).all(|r| inside(outer[r.dim], r.lo, r.hi, r.extent))
    };
    loop {
        let outer = &p[..last];
        let ok = ok_at(outer);
        // The next row along dimension `last - 1`, when it pairs with this one.
        let mut next = p;
        let paired = match pair.as_mut() {
            Some(pair) if ok && p[last - 1] + 1 < ranges[last - 1].end => {
                next[last - 1] += 1;
                let second = &next[..last];
                ok_at(second).then_some((pair, second))
            }
            _ => None,
        };
        match paired {
            Some((pair, second)) => {
                split_row(
                    ctx.range(last),
                    &[los],
                    &[his],
                    true,
                    &mut |lo, hi| {
                        border(outer, lo, hi)?;
                        border(second, lo, hi)
                    },
                    &mut |lo, hi| pair(outer, lo, hi),
                )?;
                // The odometer below steps past the second row.
                p[last - 1] += 1;
            }
            None => split_row(
                ctx.range(last),
                &[los],
                &[his],
                ok,
                &mut |lo, hi| border(outer, lo, hi),
                &mut |lo, hi| interior(outer, lo, hi),
            )?,
        }
        // The next row: an odometer over the outer dimensions, the last of them fastest.
        let mut k = last;
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            p[k] += 1;
            if p[k] < ranges[k].end {
                break;
            }
            p[k] = ranges[k].start;
        }
    }
}

/// The interior `[lo, hi)` along launch dimension `dim` in steps of `step` positions: the
/// largest `-lo` and the smallest `extent - hi` of its reaches (`split_row` clips them to the
/// row).
fn bounds(reach: &[Reach], dim: usize, step: i64) -> (i64, i64) {
    reach.iter().filter(|r| r.dim == dim).fold((i64::MIN, i64::MAX), |(lo, hi), r| {
        (lo.max(-r.lo * step), hi.min((r.extent as i64 - r.hi) * step))
    })
}

/// [`block_rows`] with each row `p0` one flat run of the trailing dimensions.
fn flat_rows(
    ctx: &BlockCtx<'_>,
    d: usize,
    reach: &[Reach],
    border: Segment<'_>,
    interior: Segment<'_>,
) -> Result<()> {
    let dims = &ctx.dims()[..d];
    // A step along dimension 1 is a run of the dimensions after it.
    let s1: usize = dims[2..].iter().product();
    let run = dims[1] * s1;
    let s1 = s1 as i64;
    let (los, his) = bounds(reach, 1, s1);
    let mut outer = [0usize; MAX_RANK];
    for p0 in ctx.range(0) {
        let ok = reach.iter().filter(|r| r.dim == 0).all(|r| inside(p0, r.lo, r.hi, r.extent));
        split_row(
            0..run,
            &[los],
            &[his],
            ok,
            &mut |lo, hi| {
                // One border position at a time, at the position of flat index `j`.
                for j in lo..hi {
                    let mut rest = j;
                    for k in (1..d).rev() {
                        outer[k] = rest % dims[k];
                        rest /= dims[k];
                    }
                    outer[0] = p0;
                    border(&outer[..d - 1], outer[d - 1], outer[d - 1] + 1)?;
                }
                Ok(())
            },
            &mut |lo, hi| {
                let mut row = [0usize; MAX_RANK];
                row[0] = p0;
                interior(&row[..d - 1], lo, hi)
            },
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quasar_runtime::{launch_with, unchecked, Access, Arg, Array, Kernel, KernelArgs};

    /// Set when the interior got a flat run (longer than the last dimension).
    static FLAT_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    const BORDER: f32 = 1.0;
    const INTERIOR: f32 = 10.0;

    /// Adds `code` at every position `block_rows` hands to a segment, so that a position run
    /// twice, or by both segments, shows. `flat` rows come as flat indices along dimension 1.
    fn record(
        ctx: &BlockCtx<'_>,
        args: &KernelArgs<'_>,
        split: bool,
        reach: &[Reach],
        flat: bool,
    ) -> Result<()> {
        let y = args.view::<f32>(0)?;
        let d = ctx.dims().len();
        let shape = *y.shape();
        let mark = |p: &[usize], code: f32| {
            let off: usize = (0..d).map(|k| p[k] * shape.stride(k)).sum();
            // SAFETY: every position of the launch lies inside `y` (same shape).
            unsafe { unchecked::write(&y, off, unchecked::read(&y, off) + code) };
        };
        let shapes = [&shape];
        let flat = flat.then_some(&shapes[..]);
        block_rows(
            ctx,
            d,
            split,
            reach,
            flat,
            &mut |o, lo, hi| {
                for j in lo..hi {
                    mark(&[o, &[j]].concat(), BORDER);
                }
                Ok(())
            },
            &mut |o, lo, hi| {
                if hi > shape.dim(d - 1) {
                    FLAT_SEEN.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                for j in lo..hi {
                    let flat_row = flat.is_some()
                        && (1..d).all(|k| {
                            shape.dim(k) == ctx.dims()[k] && ctx.range(k) == (0..ctx.dims()[k])
                        });
                    // A flat row: `j` runs over dimensions 1.. (`o` is `[p0, 0, …]`).
                    let p = if flat_row && d == 3 {
                        vec![o[0], j / shape.dim(2), j % shape.dim(2)]
                    } else {
                        [o, &[j]].concat()
                    };
                    mark(&p, INTERIOR);
                }
                Ok(())
            },
        )
    }

    const REACH_2D: [Reach; 3] =
        [Reach::new(0, -1, 1, 7), Reach::new(1, -2, 1, 9), Reach::new(1, 0, 0, 9)];
    const REACH_3D: [Reach; 3] =
        [Reach::new(0, -1, 1, 4), Reach::new(1, -1, 1, 5), Reach::new(2, 0, 0, 3)];

    fn split_2d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record(ctx, args, true, &REACH_2D, false)
    }
    fn whole_2d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record(ctx, args, false, &REACH_2D, false)
    }
    fn flat_3d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record(ctx, args, true, &REACH_3D, true)
    }
    fn rows_3d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record(ctx, args, true, &REACH_3D, false)
    }
    static SPLIT_2D: Kernel = Kernel::new("split_2d", split_2d);
    static WHOLE_2D: Kernel = Kernel::new("whole_2d", whole_2d);
    static FLAT_3D: Kernel = Kernel::new("flat_3d", flat_3d);
    static ROWS_3D: Kernel = Kernel::new("rows_3d", rows_3d);

    /// What `kernel` marked at each position of a launch over `dims`.
    fn marks(kernel: &'static Kernel, dims: &[usize]) -> Vec<f32> {
        let y = Array::<f32>::zeros(dims).unwrap();
        launch_with(kernel, dims, &[Arg::array(&y, Access::ReadWrite)]).unwrap();
        y.to_vec().unwrap()
    }

    /// The expected mark: interior where every reach stays inside.
    fn expected(dims: &[usize], reach: &[Reach]) -> Vec<f32> {
        let n: usize = dims.iter().product();
        (0..n)
            .map(|mut i| {
                let mut p = vec![0; dims.len()];
                for k in (0..dims.len()).rev() {
                    p[k] = i % dims[k];
                    i /= dims[k];
                }
                let inside = reach.iter().all(|r| inside(p[r.dim], r.lo, r.hi, r.extent));
                if inside {
                    INTERIOR
                } else {
                    BORDER
                }
            })
            .collect()
    }

    #[test]
    fn every_position_runs_once_in_the_interior_or_the_border() {
        assert_eq!(marks(&SPLIT_2D, &[7, 9]), expected(&[7, 9], &REACH_2D));
        assert_eq!(marks(&ROWS_3D, &[4, 5, 3]), expected(&[4, 5, 3], &REACH_3D));
        // Flat rows (the trailing extents equal the launch's): the same split.
        assert_eq!(marks(&FLAT_3D, &[4, 5, 3]), expected(&[4, 5, 3], &REACH_3D));
        assert!(FLAT_SEEN.load(std::sync::atomic::Ordering::Relaxed), "no flat row ran");
        // Rows wider and narrower than the reach, and a one-row launch.
        assert_eq!(marks(&SPLIT_2D, &[7, 2]), expected(&[7, 2], &REACH_2D));
        assert_eq!(marks(&SPLIT_2D, &[1, 9]), expected(&[1, 9], &REACH_2D));
    }

    /// Set when the interior got a run of several rows.
    static MERGED_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    /// As [`record`], through [`block_runs`]: the interior's flat index `j` from outer `o`
    /// is the position `j` positions of the trailing dimensions past `[o[0], 0, …]`.
    fn record_runs(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>, reach: &[Reach]) -> Result<()> {
        let y = args.view::<f32>(0)?;
        let d = ctx.dims().len();
        let shape = *y.shape();
        let mark = |p: &[usize], code: f32| {
            let off: usize = (0..d).map(|k| p[k] * shape.stride(k)).sum();
            // SAFETY: every position of the launch lies inside `y` (same shape).
            unsafe { unchecked::write(&y, off, unchecked::read(&y, off) + code) };
        };
        let run: usize = (1..d).map(|k| shape.dim(k)).product();
        let shapes = [&shape];
        block_runs(
            ctx,
            d,
            true,
            reach,
            &shapes,
            &mut |o, lo, hi| {
                for j in lo..hi {
                    mark(&[o, &[j]].concat(), BORDER);
                }
                Ok(())
            },
            &mut |o, lo, hi| {
                let flat = o[1..].iter().all(|&p| p == 0) && (hi > shape.dim(d - 1) || d > 2);
                if hi > run {
                    MERGED_SEEN.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                for j in lo..hi {
                    let p = if flat {
                        let mut p = vec![0; d];
                        let mut rest = o[0] * run + j;
                        for k in (0..d).rev() {
                            p[k] = rest % shape.dim(k);
                            rest /= shape.dim(k);
                        }
                        p
                    } else {
                        [o, &[j]].concat()
                    };
                    mark(&p, INTERIOR);
                }
                Ok(())
            },
        )
    }

    /// Offsets along dimension 0 only (rows merge), and along both (they do not).
    const REACH_ROWS_2D: [Reach; 2] = [Reach::new(0, -1, 2, 7), Reach::new(1, 0, 0, 9)];
    const REACH_ROWS_3D: [Reach; 3] =
        [Reach::new(0, -1, 1, 4), Reach::new(1, 0, 0, 5), Reach::new(2, 0, 0, 3)];
    fn runs_2d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record_runs(ctx, args, &REACH_ROWS_2D)
    }
    fn runs_3d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record_runs(ctx, args, &REACH_ROWS_3D)
    }
    fn runs_split_2d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record_runs(ctx, args, &REACH_2D)
    }
    static RUNS_2D: Kernel = Kernel::new("runs_2d", runs_2d);
    static RUNS_3D: Kernel = Kernel::new("runs_3d", runs_3d);
    static RUNS_SPLIT_2D: Kernel = Kernel::new("runs_split_2d", runs_split_2d);

    /// What `kernel` marked at each position of a launch over `dims` in blocks of `block`.
    fn marks_in_blocks(kernel: &'static Kernel, dims: &[usize], block: &[usize]) -> Vec<f32> {
        let y = Array::<f32>::zeros(dims).unwrap();
        let rt = quasar_runtime::Runtime::global();
        rt.launch(kernel).dims(dims).block(block).arg(&y, Access::ReadWrite).run().unwrap();
        y.to_vec().unwrap()
    }

    #[test]
    fn merged_rows_run_every_position_once_in_the_interior_or_the_border() {
        // Rows 0, 5 and 6 are border rows; the others merge within each block.
        assert_eq!(marks(&RUNS_2D, &[7, 9]), expected(&[7, 9], &REACH_ROWS_2D));
        assert!(MERGED_SEEN.load(std::sync::atomic::Ordering::Relaxed), "no rows merged");
        assert_eq!(marks(&RUNS_3D, &[4, 5, 3]), expected(&[4, 5, 3], &REACH_ROWS_3D));
        // Blocks of a few rows, and blocks that cut the rows (no merging then).
        for block in [[1, 9], [2, 9], [3, 4]] {
            let got = marks_in_blocks(&RUNS_2D, &[7, 9], &block);
            assert_eq!(got, expected(&[7, 9], &REACH_ROWS_2D), "{block:?}");
        }
        // Offsets along the rows: each row split as `block_rows` splits it.
        assert_eq!(marks(&RUNS_SPLIT_2D, &[7, 9]), expected(&[7, 9], &REACH_2D));
    }

    /// Set when a pair of rows ran.
    static PAIR_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    /// As [`record`], through [`block_row_pairs`]: a pair marks both of its rows.
    fn record_pairs(
        ctx: &BlockCtx<'_>,
        args: &KernelArgs<'_>,
        split: bool,
        reach: &[Reach],
    ) -> Result<()> {
        let y = args.view::<f32>(0)?;
        let d = ctx.dims().len();
        let shape = *y.shape();
        let mark = |p: &[usize], code: f32| {
            let off: usize = (0..d).map(|k| p[k] * shape.stride(k)).sum();
            // SAFETY: every position of the launch lies inside `y` (same shape).
            unsafe { unchecked::write(&y, off, unchecked::read(&y, off) + code) };
        };
        let segment = |o: &[usize], lo: usize, hi: usize, code: f32| {
            for j in lo..hi {
                mark(&[o, &[j]].concat(), code);
            }
            Ok(())
        };
        block_row_pairs(
            ctx,
            d,
            split,
            reach,
            &mut |o, lo, hi| segment(o, lo, hi, BORDER),
            &mut |o, lo, hi| segment(o, lo, hi, INTERIOR),
            &mut |o, lo, hi| {
                PAIR_SEEN.store(true, std::sync::atomic::Ordering::Relaxed);
                let mut o2 = o.to_vec();
                o2[d - 2] += 1;
                segment(o, lo, hi, INTERIOR)?;
                segment(&o2, lo, hi, INTERIOR)
            },
        )
    }
    fn pairs_2d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record_pairs(ctx, args, true, &REACH_2D)
    }
    fn pairs_3d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record_pairs(ctx, args, true, &REACH_3D)
    }
    fn pairs_whole_2d(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        record_pairs(ctx, args, false, &REACH_2D)
    }
    static PAIRS_2D: Kernel = Kernel::new("pairs_2d", pairs_2d);
    static PAIRS_3D: Kernel = Kernel::new("pairs_3d", pairs_3d);
    static PAIRS_WHOLE_2D: Kernel = Kernel::new("pairs_whole_2d", pairs_whole_2d);

    #[test]
    fn row_pairs_run_every_position_once_in_the_interior_or_the_border() {
        // Odd and even row counts (a last row without a partner), rows narrower than the
        // reach, one row, three dimensions (pairs along dimension 1).
        for dims in [&[7, 9][..], &[8, 9], &[7, 2], &[1, 9], &[2, 9]] {
            assert_eq!(marks(&PAIRS_2D, dims), expected(dims, &REACH_2D), "{dims:?}");
        }
        assert_eq!(marks(&PAIRS_3D, &[4, 5, 3]), expected(&[4, 5, 3], &REACH_3D));
        assert!(PAIR_SEEN.load(std::sync::atomic::Ordering::Relaxed), "no pair of rows ran");
        // Without a split: whole rows one at a time through `interior`.
        assert_eq!(marks(&PAIRS_WHOLE_2D, &[7, 9]), vec![INTERIOR; 63]);
    }

    #[test]
    fn without_a_split_the_interior_code_runs_every_whole_row() {
        assert_eq!(marks(&WHOLE_2D, &[7, 9]), vec![INTERIOR; 63]);
    }
}
