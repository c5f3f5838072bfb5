//! CPU feature detection for generated kernels (compiled for baseline x86-64 and for
//! AVX2+FMA, dispatched at run time as ARCHITECTURE §3 describes).

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
