//! The transpose of a matrix of 4-byte elements in 8 × 8 blocks held in AVX2 registers: eight
//! row loads, the block turned with unpack/shuffle/permute steps, eight row stores, so that
//! both the reads and the writes go along rows (a scalar tile writes one element per column).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Writes rows `j0..j0 + rows` of the transpose of the `m × n` row-major matrix `src` into
/// `dst` (`rows × m`, row-major). `T` must be 4 bytes wide; returns `false` (and writes
/// nothing) where this CPU or element type has no such path.
pub(crate) fn transpose_rows<T: Copy>(
    src: &[T],
    m: usize,
    n: usize,
    j0: usize,
    dst: &mut [T],
) -> bool {
    if std::mem::size_of::<T>() != 4 || !crate::rt::has_avx2_fma() {
        return false;
    }
    let rows = dst.len() / m.max(1);
    assert!(src.len() >= m * n && j0 + rows <= n && dst.len() == rows * m);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: AVX2 is present (checked above); the pointers stay inside `src` and `dst`
        // (every block lies within `m × n`, `rows × m`: see `blocks`), and 4-byte elements
        // are moved as bits only.
        unsafe {
            blocks(src.as_ptr().cast::<f32>(), m, n, j0, dst.as_mut_ptr().cast::<f32>(), rows)
        };
        // The edges the 8 × 8 blocks leave: the last `m % 8` columns of each output row, and
        // the last `rows % 8` output rows.
        let (mb, rb) = (m - m % 8, rows - rows % 8);
        for jj in 0..rows {
            let from = if jj < rb { mb } else { 0 };
            for i in from..m {
                dst[jj * m + i] = src[i * n + j0 + jj];
            }
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn blocks(src: *const f32, m: usize, n: usize, j0: usize, dst: *mut f32, rows: usize) {
    for jb in (0..rows - rows % 8).step_by(8) {
        for ib in (0..m - m % 8).step_by(8) {
            // Rows ib..ib+8 of the input at columns j0+jb..+8 become rows jb..jb+8 of the
            // output at columns ib..ib+8.
            let at = |r: usize| src.add((ib + r) * n + j0 + jb);
            let r = [0, 1, 2, 3, 4, 5, 6, 7].map(|k| _mm256_loadu_ps(at(k)));
            let t0 = _mm256_unpacklo_ps(r[0], r[1]);
            let t1 = _mm256_unpackhi_ps(r[0], r[1]);
            let t2 = _mm256_unpacklo_ps(r[2], r[3]);
            let t3 = _mm256_unpackhi_ps(r[2], r[3]);
            let t4 = _mm256_unpacklo_ps(r[4], r[5]);
            let t5 = _mm256_unpackhi_ps(r[4], r[5]);
            let t6 = _mm256_unpacklo_ps(r[6], r[7]);
            let t7 = _mm256_unpackhi_ps(r[6], r[7]);
            let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
            let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
            let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
            let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
            let out = [
                _mm256_permute2f128_ps::<0x20>(s0, s4),
                _mm256_permute2f128_ps::<0x20>(s1, s5),
                _mm256_permute2f128_ps::<0x20>(s2, s6),
                _mm256_permute2f128_ps::<0x20>(s3, s7),
                _mm256_permute2f128_ps::<0x31>(s0, s4),
                _mm256_permute2f128_ps::<0x31>(s1, s5),
                _mm256_permute2f128_ps::<0x31>(s2, s6),
                _mm256_permute2f128_ps::<0x31>(s3, s7),
            ];
            for (k, v) in out.into_iter().enumerate() {
                _mm256_storeu_ps(dst.add((jb + k) * m + ib), v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::transpose_rows;

    #[test]
    fn blocks_and_edges_equal_the_plain_transpose() {
        for (m, n) in [(8, 8), (16, 24), (13, 29), (9, 7), (3, 40), (64, 17)] {
            let src: Vec<u32> = (0..(m * n) as u32).collect();
            // Output rows j0..j0+rows: every row block start and the whole.
            for (j0, rows) in [(0, n), (n / 3, n - n / 3), (0, n.min(8))] {
                let mut dst = vec![u32::MAX; rows * m];
                if !transpose_rows(&src, m, n, j0, &mut dst) {
                    return; // no AVX2 here: nothing to compare
                }
                for jj in 0..rows {
                    for i in 0..m {
                        assert_eq!(dst[jj * m + i], src[i * n + j0 + jj], "{m}x{n}, j0 {j0}");
                    }
                }
            }
        }
    }
}
