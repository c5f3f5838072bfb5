//! `min(x)` and `max(x)` of a whole array. Unlike sums they are exact in any grouping (the
//! NaN-ignoring maximum is associative and commutative), so they need not follow the pairwise
//! tree of `reduce.rs`: each chunk is folded in 32 interleaved lanes (four AVX2 vectors of
//! `f32`), in an AVX2 copy where the CPU has it, and the chunks' results combined. The fold of
//! a large array was twice the time of the same maximum as a generated kernel's output
//! (which runs 64 lanes in an AVX2 copy; BENCHMARKS.md, `max`).

use super::num::Real;
use super::par::PARALLEL_MIN;
use rayon::prelude::*;

/// Independent running folds per chunk.
const LANES: usize = 32;
/// Elements per parallel piece.
const CHUNK: usize = 1 << 16;

/// The fold of the non-empty `x` with the NaN-ignoring `op` (`Real::max2`, `Real::min2`).
pub(super) fn fold<T: Real, O: Fn(T, T) -> T + Sync>(x: &[T], op: &O) -> T {
    if x.len() >= PARALLEL_MIN {
        x.par_chunks(CHUNK).map(|c| chunk(c, op)).reduce_with(op).unwrap_or(x[0])
    } else {
        chunk(x, op)
    }
}

/// One chunk, in the AVX2 copy where the CPU has it.
fn chunk<T: Real, O: Fn(T, T) -> T>(x: &[T], op: &O) -> T {
    #[cfg(target_arch = "x86_64")]
    if crate::rt::has_avx2_fma() {
        // SAFETY: the CPU has AVX2 (checked above).
        return unsafe { lanes_avx2(x, op) };
    }
    lanes(x, op)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn lanes_avx2<T: Real, O: Fn(T, T) -> T>(x: &[T], op: &O) -> T {
    lanes(x, op)
}

/// `LANES` running folds over the non-empty `x`, then combined.
#[inline(always)]
fn lanes<T: Real, O: Fn(T, T) -> T>(x: &[T], op: &O) -> T {
    if x.len() < LANES {
        return x[1..].iter().fold(x[0], |a, &v| op(a, v));
    }
    let mut acc: [T; LANES] = std::array::from_fn(|j| x[j]);
    let mut rows = x[LANES..].chunks_exact(LANES);
    for r in &mut rows {
        for j in 0..LANES {
            acc[j] = op(acc[j], r[j]);
        }
    }
    for (j, &v) in rows.remainder().iter().enumerate() {
        acc[j] = op(acc[j], v);
    }
    acc[1..].iter().fold(acc[0], |a, &v| op(a, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_of_every_length_and_with_nans_equal_a_serial_fold() {
        for n in [1usize, 2, 31, 32, 33, 100, 1 << 16, (1 << 17) + 5, PARALLEL_MIN + 77] {
            let x: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1009) as f32 - 500.0).collect();
            let want = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(fold(&x, &Real::max2), want, "max of {n}");
            let want = x.iter().copied().fold(f32::INFINITY, f32::min);
            assert_eq!(fold(&x, &Real::min2), want, "min of {n}");
        }
        // NaNs are ignored, as by the kernels' `^^=`; all NaN gives NaN.
        let mut x = vec![f32::NAN; 100];
        x[57] = 3.0;
        assert_eq!(fold(&x, &Real::max2), 3.0);
        assert!(fold(&[f32::NAN; 40], &Real::max2).is_nan());
        let ints: Vec<i32> = (0..1000).map(|i| (i * 37) % 211 - 100).collect();
        assert_eq!(fold(&ints, &Real::max2), 110);
    }
}
