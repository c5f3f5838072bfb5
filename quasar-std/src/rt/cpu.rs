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

/// Runs one row `r` of a kernel with an interior path: `interior` once over `[lo, hi)` and
/// `border` at each other position of `r`, or `border` at every position when `ok` is false
/// or the interior is empty. `lo >= r.start` and `hi <= r.end` (the caller clips them).
#[inline(always)]
pub fn split_row<E>(
    r: std::ops::Range<usize>,
    (lo, hi, ok): (i64, i64, bool),
    mut border: impl FnMut(usize) -> Result<(), E>,
    interior: impl FnOnce(usize, usize) -> Result<(), E>,
) -> Result<(), E> {
    if ok && lo < hi {
        let (lo, hi) = (lo as usize, hi as usize);
        for p in r.start..lo {
            border(p)?;
        }
        interior(lo, hi)?;
        for p in hi..r.end {
            border(p)?;
        }
    } else {
        for p in r {
            border(p)?;
        }
    }
    Ok(())
}
