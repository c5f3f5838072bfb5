//! Scalar functions for generated code, in kernels (hot loops) and host code alike.
//!
//! Every function is `#[inline(always)]`. The float routines avoid libm calls and
//! data-dependent branches so that LLVM vectorises the loop around them:
//! transcendental functions come from [`crate::math`]; `floor ceil round frac` use the
//! `x + 2^p - 2^p` rounding trick (baseline x86-64 has no `roundps`, so `f32::floor` would be a
//! call per element). The rounding, ordering and NaN rules are the built-ins' (documented in
//! [`crate::builtins`]), so host and kernel code agree:
//!
//! * `round` rounds halves away from zero; `frac(x) = x - floor(x)`, kept in `[0, 1)`;
//! * `mod(x, y)` has the sign of the divisor and `mod(x, 0) = x`;
//! * `min`/`max` ignore a NaN (CUDA's `fminf`); `clamp(NaN, lo, hi) = lo`;
//! * integer arithmetic wraps (`abs(i32::MIN) = i32::MIN`), nothing panics.

use crate::builtins::num::Math as NumMath;
pub use crate::builtins::num::{Arith, Cast, Float, Magnitude, Real};
use crate::math::Math as FastMath;
use quasar_runtime::Complex;

/// Transcendental functions: the branch-free routines of [`crate::math`] for `f32`/`f64`,
/// `num_complex` for `Complex<f32>`/`Complex<f64>`. Associated functions (not methods), so
/// that `x.exp()` keeps meaning `std`'s method.
pub trait RtMath: Copy {
    /// `e^x`.
    fn exp(x: Self) -> Self;
    /// `2^x`.
    fn exp2(x: Self) -> Self;
    /// Natural logarithm.
    fn log(x: Self) -> Self;
    /// Base-2 logarithm.
    fn log2(x: Self) -> Self;
    /// Base-10 logarithm.
    fn log10(x: Self) -> Self;
    /// Sine.
    fn sin(x: Self) -> Self;
    /// Cosine.
    fn cos(x: Self) -> Self;
    /// Tangent.
    fn tan(x: Self) -> Self;
    /// Arc sine.
    fn asin(x: Self) -> Self;
    /// Arc cosine.
    fn acos(x: Self) -> Self;
    /// Arc tangent.
    fn atan(x: Self) -> Self;
    /// Hyperbolic sine.
    fn sinh(x: Self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(x: Self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(x: Self) -> Self;
    /// Square root.
    fn sqrt(x: Self) -> Self;
    /// `x^y`.
    fn pow(x: Self, y: Self) -> Self;
    /// `x^y` with fused multiply-adds (kernels compiled for CPUs with FMA call this one).
    fn pow_fma(x: Self, y: Self) -> Self {
        Self::pow(x, y)
    }
}

/// `floor ceil round frac` for every real number (integers are unchanged, `frac` is 0).
pub trait RtRound: Real {
    /// Largest integer `<= x`.
    fn floor(x: Self) -> Self;
    /// Smallest integer `>= x`.
    fn ceil(x: Self) -> Self;
    /// Nearest integer, halves away from zero.
    fn round(x: Self) -> Self;
    /// `x - floor(x)`, in `[0, 1)`.
    fn frac(x: Self) -> Self;
}

/// `scalar`: `f32`, or `f64` in double mode. Everything the scalar functions need.
pub trait RtFloat: RtMath + RtRound + Float + Magnitude<Part = Self> {
    /// Four-quadrant arc tangent of `y / x`.
    fn atan2(y: Self, x: Self) -> Self;
}

/// `sinh` in `f64`, for `f32` and `f64` (`f32` rounds the result once more: < 0.51 ulp).
/// Below 1 a Taylor polynomial (no cancellation); above, `h = e^a / 2` as
/// `exp(a - 1) * (e / 2)` (`a - 1` is exact for `a >= 1`, and `exp` overflows only where
/// `sinh` does), then `h - 1 / (4h)`.
#[inline(always)]
fn sinh64(x: f64) -> f64 {
    let a = x.abs();
    let a2 = a * a;
    // 1/3!, 1/5!, … 1/17!: the next term is below 1e-17 relative for a < 1.
    let mut p = 1.0 / 355_687_428_096_000.0;
    for c in [
        1.0 / 1_307_674_368_000.0,
        1.0 / 6_227_020_800.0,
        1.0 / 39_916_800.0,
        1.0 / 362_880.0,
        1.0 / 5_040.0,
        1.0 / 120.0,
        1.0 / 6.0,
    ] {
        p = p * a2 + c;
    }
    let small = a + a * a2 * p;
    let h = FastMath::exp(a - 1.0) * (std::f64::consts::E / 2.0);
    let big = h - 0.25 / h;
    let r = if a < 1.0 { small } else { big };
    r.copysign(x)
}

/// `cosh` in `f64`: `h + 1 / (4h)` with `h = e^|x| / 2` as in [`sinh64`].
#[inline(always)]
fn cosh64(x: f64) -> f64 {
    let h = FastMath::exp(x.abs() - 1.0) * (std::f64::consts::E / 2.0);
    h + 0.25 / h
}

/// One-argument trait functions that call the same-named function of another trait.
macro_rules! forward {
    ($tr:ident: $($f:ident)*) => { $(
        #[inline(always)]
        fn $f(x: Self) -> Self {
            $tr::$f(x)
        }
    )* };
}

macro_rules! rt_float {
    ($t:ident, $big:expr, $sinh:expr, $cosh:expr) => {
        impl RtMath for $t {
            forward!(FastMath: exp exp2 log log2 log10 sin cos tan asin acos atan tanh sqrt);
            #[inline(always)]
            fn sinh(x: $t) -> $t {
                $sinh(x)
            }
            #[inline(always)]
            fn cosh(x: $t) -> $t {
                $cosh(x)
            }
            #[inline(always)]
            fn pow(x: $t, y: $t) -> $t {
                FastMath::pow(x, y)
            }
            #[inline(always)]
            fn pow_fma(x: $t, y: $t) -> $t {
                FastMath::pow_fma(x, y)
            }
        }
        impl RtRound for $t {
            #[inline(always)]
            fn floor(x: $t) -> $t {
                let r = rint(x);
                // The sign of `x` keeps `floor(-0.0) = -0.0`.
                (if r > x { r - 1.0 } else { r }).copysign(x)
            }
            #[inline(always)]
            fn ceil(x: $t) -> $t {
                let r = rint(x);
                // The sign of `x` gives `ceil(-0.5) = -0.0`.
                (if r < x { r + 1.0 } else { r }).copysign(x)
            }
            #[inline(always)]
            fn round(x: $t) -> $t {
                let a = x.abs();
                let t = <$t as RtRound>::floor(a);
                // `a - t` is exact below 2^p; from 2^p on every value is an integer.
                let r = if a - t >= 0.5 { t + 1.0 } else { t };
                if a < $big {
                    r.copysign(x)
                } else {
                    x
                }
            }
            #[inline(always)]
            fn frac(x: $t) -> $t {
                let r = x - <$t as RtRound>::floor(x);
                // A tiny negative `x` gives `1 - tiny`, which can round to 1.
                if r >= 1.0 {
                    1.0 - $t::EPSILON / 2.0
                } else {
                    r
                }
            }
        }
        impl RtFloat for $t {
            #[inline(always)]
            fn atan2(y: $t, x: $t) -> $t {
                FastMath::atan2(y, x)
            }
        }
        /// Round to nearest, ties to even: `|x| + 2^p - 2^p` for `|x| < 2^p`; larger values,
        /// infinities and NaN are integers (or NaN) already.
        #[inline(always)]
        fn rint(x: $t) -> $t {
            let a = x.abs();
            if a < $big {
                ((a + $big) - $big).copysign(x)
            } else {
                x
            }
        }

        impl RtMath for Complex<$t> {
            forward!(NumMath: exp exp2 log log2 log10 sin cos tan asin acos atan sinh cosh tanh sqrt);
            #[inline(always)]
            fn pow(x: Self, y: Self) -> Self {
                NumMath::pow(x, y)
            }
        }
    };
}

mod f32_impl {
    use super::*;
    rt_float!(f32, 8_388_608.0f32, |x: f32| sinh64(x as f64) as f32, |x: f32| cosh64(x as f64)
        as f32);
}
mod f64_impl {
    use super::*;
    rt_float!(f64, 4_503_599_627_370_496.0f64, sinh64, cosh64);
}

macro_rules! rt_round_int {
    ($($t:ty),*) => { $(
        impl RtRound for $t {
            #[inline(always)] fn floor(x: $t) -> $t { x }
            #[inline(always)] fn ceil(x: $t) -> $t { x }
            #[inline(always)] fn round(x: $t) -> $t { x }
            #[inline(always)] fn frac(_: $t) -> $t { 0 }
        }
    )* };
}
rt_round_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! unary {
    ($bound:ident: $($name:ident),*) => { $(
        #[doc = concat!("Quasar's `", stringify!($name), "(x)`.")]
        #[inline(always)]
        pub fn $name<T: $bound>(x: T) -> T {
            <T as $bound>::$name(x)
        }
    )* };
}
unary!(RtMath: exp, exp2, log, log2, log10, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, sqrt);
unary!(RtRound: floor, ceil, round, frac);

/// `pow(x, y)` = `x .^ y` (a negative real base with a non-integer exponent gives NaN).
#[inline(always)]
pub fn pow<T: RtMath>(x: T, y: T) -> T {
    <T as RtMath>::pow(x, y)
}

/// [`pow`] with fused multiply-adds: only for code compiled with the `fma` target feature
/// (elsewhere each fused operation is a libm call).
#[inline(always)]
pub fn pow_fma<T: RtMath>(x: T, y: T) -> T {
    <T as RtMath>::pow_fma(x, y)
}

/// [`pow_fma`] when `FMA`, else [`pow`]: the one generic copy of a kernel's hot loop calls this
/// and is instantiated once per choice (`rows::<true>` runs only where `fma` is enabled).
#[inline(always)]
pub fn pow_sel<const FMA: bool, T: RtMath>(x: T, y: T) -> T {
    if FMA {
        pow_fma(x, y)
    } else {
        pow(x, y)
    }
}

/// `atan2(y, x)`: the angle of `(x, y)` in `[-pi, pi]`.
#[inline(always)]
pub fn atan2<T: RtFloat>(y: T, x: T) -> T {
    <T as RtFloat>::atan2(y, x)
}

/// `abs(x)`: integers wrap (`abs(i32::MIN) = i32::MIN`); a complex number gives its modulus.
#[inline(always)]
pub fn abs<T: Magnitude>(x: T) -> T::Part {
    Magnitude::abs(x)
}

/// `mod(x, y)`: the remainder with the sign of `y` (MATLAB); `mod(x, 0) = x`.
#[inline(always)]
pub fn modulo<T: Real>(x: T, y: T) -> T {
    x.modulo(y)
}

/// `min(a, b)`: a NaN loses to a number.
#[inline(always)]
pub fn min<T: Real>(a: T, b: T) -> T {
    a.min2(b)
}

/// `max(a, b)`: a NaN loses to a number.
#[inline(always)]
pub fn max<T: Real>(a: T, b: T) -> T {
    a.max2(b)
}

/// `clamp(x, lo, hi)` = `min(max(x, lo), hi)` (so a NaN `x` gives `lo`).
#[inline(always)]
pub fn clamp<T: Real>(x: T, lo: T, hi: T) -> T {
    x.max2(lo).min2(hi)
}

/// `saturate(x)`: `x` clamped to `[0, 1]` (NaN gives 0).
#[inline(always)]
pub fn saturate<T: Real>(x: T) -> T {
    x.saturate()
}

/// `sign(x)`: -1, 0 or 1 (NaN stays NaN).
#[inline(always)]
pub fn sign<T: Real>(x: T) -> T {
    x.sign()
}

/// `isnan(x)`: 1 when `x` (or a part of it) is NaN, else 0.
#[inline(always)]
pub fn isnan<T: Arith>(x: T) -> i32 {
    x.is_nan() as i32
}

/// `isinf(x)`: 1 when `x` (or a part of it) is infinite, else 0.
#[inline(always)]
pub fn isinf<T: Arith>(x: T) -> i32 {
    x.is_inf() as i32
}

/// `isfinite(x)`: 1 when `x` is neither NaN nor infinite (integers always are), else 0.
#[inline(always)]
pub fn isfinite<T: Arith>(x: T) -> i32 {
    !(x.is_nan() || x.is_inf()) as i32
}

/// `real(x)`: the real part (a real number itself).
#[inline(always)]
pub fn real<T: Magnitude>(x: T) -> T::Part {
    x.real()
}

/// `imag(x)`: the imaginary part (0 for a real number).
#[inline(always)]
pub fn imag<T: Magnitude>(x: T) -> T::Part {
    x.imag()
}

/// `conj(x)`: the complex conjugate (a real number unchanged).
#[inline(always)]
pub fn conj<T: Magnitude>(x: T) -> T {
    x.conj()
}

/// `complex(re, im)`.
#[inline(always)]
pub fn complex<T>(re: T, im: T) -> Complex<T> {
    Complex::new(re, im)
}

/// A scalar conversion (`int(x)`, `float(x)`, `uint8(x)`…) with the rules of [`Cast`]:
/// floats truncate toward zero and saturate, NaN gives 0, integers wrap.
#[inline(always)]
pub fn cast<U, T: Cast<U>>(x: T) -> U {
    x.cast()
}
