//! CPU kernels: feature detection (their hot loops are compiled for baseline x86-64, AVX2+FMA
//! and AVX-512, dispatched at run time) and the split of a row into border and interior.

/// Whether this CPU runs the AVX2+FMA version of generated kernels (checked once, cached).
#[inline]
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

/// Whether this CPU runs the AVX-512 version of generated kernels (F, BW, DQ and VL, with AVX2
/// and FMA; checked once, cached). `QUASAR_NO_AVX512` turns it off, `QUASAR_NO_AVX2` too.
#[inline]
pub fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static DETECTED: OnceLock<bool> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            has_avx2_fma()
                && std::env::var_os("QUASAR_NO_AVX512").is_none()
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512dq")
                && std::arch::is_x86_feature_detected!("avx512vl")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The version of a kernel's hot loop that this CPU runs: `avx512`, `avx2` (AVX2+FMA) or
/// `base` (`QUASAR_NO_AVX512`, `QUASAR_NO_AVX2` turn the wider ones off).
#[inline]
pub fn pick<T>(base: T, avx2: T, avx512: T) -> T {
    if has_avx512() {
        avx512
    } else if has_avx2_fma() {
        avx2
    } else {
        base
    }
}

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
#[inline(always)]
pub fn split_row<E, const L: usize, const H: usize>(
    r: std::ops::Range<usize>,
    (los, his, ok): ([i64; L], [i64; H], bool),
    mut border: impl FnMut(usize, usize) -> Result<(), E>,
    interior: impl FnOnce(usize, usize) -> Result<(), E>,
) -> Result<(), E> {
    let lo = los.into_iter().max().unwrap_or(0).max(r.start as i64);
    let hi = his.into_iter().min().unwrap_or(0).min(r.end as i64);
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
