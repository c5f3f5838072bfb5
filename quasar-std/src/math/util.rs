//! Helpers shared by the `f32` and `f64` routines. Everything here is `#[inline(always)]` and
//! free of data-dependent branches once optimised: `sel` is a plain `if` on two already
//! computed values, which LLVM turns into a `select` (a blend in vector code), and `horner`
//! loops over a constant array, which is fully unrolled before the loop vectoriser runs.

#[inline(always)]
pub(crate) fn sel32(c: bool, a: f32, b: f32) -> f32 {
    if c {
        a
    } else {
        b
    }
}

#[inline(always)]
pub(crate) fn sel64(c: bool, a: f64, b: f64) -> f64 {
    if c {
        a
    } else {
        b
    }
}

/// `c[0] + x c[1] + x^2 c[2] + …` by Horner's rule (no FMA: baseline x86-64 has none, and a
/// `mul_add` would become a libm call there).
#[inline(always)]
pub(crate) fn horner32<const N: usize>(x: f32, c: &[f32; N]) -> f32 {
    let mut acc = c[N - 1];
    let mut i = N - 1;
    while i > 0 {
        i -= 1;
        acc = acc * x + c[i];
    }
    acc
}

#[inline(always)]
pub(crate) fn horner64<const N: usize>(x: f64, c: &[f64; N]) -> f64 {
    let mut acc = c[N - 1];
    let mut i = N - 1;
    while i > 0 {
        i -= 1;
        acc = acc * x + c[i];
    }
    acc
}

/// `a * b + c`: fused (one rounding, `mul_add`) when `FUSED`, else a multiply and an add.
/// Kernels compiled for CPUs with FMA call the fused versions of the routines; elsewhere a
/// `mul_add` would be a libm call.
#[inline(always)]
pub(crate) fn mad64<const FUSED: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FUSED {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}
