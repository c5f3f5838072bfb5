//! Math for kernel loops: `exp exp2 log log2 log10 pow sin cos tan atan atan2 asin acos tanh
//! sqrt rsqrt` for `f32` ([`f32`](mod@f32)) and `f64` ([`f64`](mod@f64)), written so that LLVM
//! vectorises the loop around them (a libm call per element cannot be vectorised and is
//! 2–3× slower).
//!
//! ```
//! use quasar_std::math::f32 as m;
//!
//! let inp: Vec<f32> = (0..1000).map(|i| i as f32 * 0.01).collect();
//! let mut out = vec![0.0; inp.len()];
//! for (o, x) in out.iter_mut().zip(&inp) {
//!     *o = m::exp(*x) * m::sin(*x) + m::pow(*x, 0.45); // one vector loop, no calls
//! }
//! assert!((out[100] - (1f32.exp() * 1f32.sin() + 1.0)).abs() < 1e-5);
//! ```
//!
//! Generic code can use the [`Math`] trait: `Math::exp(x)` for `x: f32` or `f64`.
//!
//! # How the routines are built
//!
//! * Every function is `#[inline(always)]` and free of data-dependent branches and table
//!   look-ups: both sides of every case are computed and one is selected (an `if` on two
//!   computed values becomes a `select`, a blend in vector code); the polynomial coefficients
//!   are constants. Integer work stays within what SSE2 has (32-bit lanes, 64-bit add/shift),
//!   and float-to-integer rounding uses the `x + 1.5·2^23 − 1.5·2^23` trick (or `2^52`).
//! * Argument reduction à la Cody–Waite (constants split so that the products with the
//!   reduction integer are exact), then minimax polynomials fitted by `remez.py` in this
//!   directory (Remez exchange in mpmath; the script reprints every coefficient set).
//! * No FMA: baseline x86-64 has none (`mul_add` would become a libm call there), and Rust
//!   never contracts `a * b + c`. The results are therefore **bit-identical** in the baseline
//!   and the AVX2+FMA versions of a multiversioned kernel.
//! * `f32` `pow` and `tan` and the `sin`/`cos`/`tan` argument reduction compute in `f64`
//!   internally; `f64` `pow`, `tanh`, `tan` and the trigonometric reduction carry
//!   double-double intermediates (exact Dekker products and Knuth sums).
//!
//! # Special values
//!
//! As C99 Annex F / IEEE 754 and the `std` methods: NaN in, NaN out (the payload is not
//! kept); `exp(-inf) = 0`, `exp(+inf) = inf`, overflow gives `inf`; `log(0) = -inf`,
//! `log(x < 0) = NaN`, `log(inf) = inf`; `sin(±0) = ±0`, `sin(±inf) = NaN`; `atan2` handles
//! signed zeros and infinities (`atan2(±0, -0) = ±pi`, `atan2(±inf, -inf) = ±3pi/4`, …);
//! `tanh(±inf) = ±1`; `asin`/`acos` outside `[-1, 1]` are NaN; `rsqrt(±0) = ±inf`.
//! `pow` follows C99 `pow`: `pow(x, ±0) = 1` and `pow(1, y) = 1` even for NaN,
//! `pow(-1, ±inf) = 1`, zeros and infinities of `x` keep their sign only for odd integer `y`.
//! **Quasar's `pow` of a negative finite base with a non-integer exponent is NaN** (there is
//! no complex result; `(-8)^(1/3)` is NaN, not -2); with an integer exponent the sign is
//! negative for odd and positive for even exponents.
//!
//! **Subnormals** are handled, not flushed: as inputs (`log`, `pow`, `sqrt`… scale them up
//! first) and as results (`exp`, `exp2`, `pow` scale by `2^k` in two exact steps, so a
//! subnormal result is rounded once).
//!
//! **Argument range of `sin`, `cos`, `tan`:** the reduction by `pi/2` is exact for
//! `|x| < 2^26·pi/2 ≈ 1.05e8` (the table below). Beyond, it has no Payne–Hanek stage (it would
//! need a table indexed by the exponent): the error grows with `|x|` (absolute error about
//! `|x|·2^-53`), and from `|x| ≈ 2^51` on the results are meaningless, though `sin` and `cos`
//! stay within `[-1, 1]` and are finite. (For `f32` inputs of that size consecutive
//! representable values are already more than `2pi` apart.)
//!
//! # Accuracy
//!
//! Maximum error in ULPs (units in the last place of the correctly rounded result), measured
//! in release builds; the tests (`tests.rs`) assert bounds just above these.
//!
//! * `f32`: against the `f64` function of `std` (accurate to far below 0.01 `f32` ULP), over
//!   **all 2^32 inputs** for the one-argument functions and over 10^7 samples per range for
//!   `pow` and `atan2` (ranges as in `tests.rs`: all magnitudes, any bit pattern, negative base
//!   with integer exponent, results down to subnormals and up to overflow).
//! * `f64`: the true error against mpmath (60 digits, `mpcheck.py`) over 10^5 samples per
//!   range, and the distance from the system libm (glibc) over 10^7 samples per range; glibc
//!   itself is off by up to ~1.7 ULP in `tanh`, ~1.2 in `log10`, so the second column can
//!   exceed the first.
//!
//! | function | `f32` max ULP | `f32` measured over | `f64` max ULP (mpmath) | `f64` vs glibc |
//! |----------|------:|---------------------------------------|------:|---:|
//! | `exp`    | 0.977 | all inputs                            | 0.711 | 1 |
//! | `exp2`   | 1.227 | all inputs                            | 0.746 | 1 |
//! | `log`    | 0.840 | all inputs                            | 0.780 | 1 |
//! | `log2`   | 0.864 | all inputs                            | 0.754 | 1 |
//! | `log10`  | 0.833 | all inputs                            | 0.647 | 2 |
//! | `pow`    | 0.533 | 4·10^7 samples (4 ranges)             | 0.737 | 1 |
//! | `sin`    | 0.969 | all inputs with \|x\| ≤ 1.05e8      | 0.778 | 1 |
//! | `cos`    | 0.947 | all inputs with \|x\| ≤ 1.05e8      | 0.787 | 1 |
//! | `tan`    | 0.501 | all inputs with \|x\| ≤ 1.05e8      | 1.159 | 1 |
//! | `atan`   | 1.880 | all inputs                            | 0.624 | 1 |
//! | `atan2`  | 1.810 | 2·10^7 samples (all magnitudes, any bits) | 1.052 | 1 |
//! | `asin`   | 0.817 | all inputs                            | 0.767 | 1 |
//! | `acos`   | 1.094 | all inputs                            | 1.094 | 1 |
//! | `tanh`   | 1.466 | all inputs                            | 0.682 | 2 |
//! | `sqrt`   | 0.5   | all inputs                            | 0.5   | 0 |
//! | `rsqrt`  | 1.490 | all inputs                            | 1.451 | – |
//!
//! The tests assert these per range (`cases32`/`cases64` in `tests.rs`); the `f32` column comes
//! from the ignored `ulp_report` test with `QUASAR_MATH_EXHAUSTIVE=1`, the `f64` columns from
//! `ulp_report` and `mpcheck.py` (see the head of `tests.rs`).
//!
//! `sqrt` is the `sqrtps`/`sqrtpd` instruction (correctly rounded). `rsqrt` is `1/sqrt(x)`:
//! two correctly rounded operations.
//!
//! # Speed
//!
//! `benches/math.rs`: a loop over 1M elements `*o = f(*x)` with these routines against the
//! same loop with `std`'s methods (libm), in one process, `std/ours` (> 1: these are faster).
//! Baseline x86-64 build (SSE2, no `target-cpu`), and the same loop compiled with AVX2+FMA
//! enabled as a multiversioned kernel is:
//!
//! | loop over 1M elements | baseline: ours ns/elem | `std` ns/elem | `std`/ours | AVX2+FMA: ours ns/elem | `std`/ours |
//! |------------------|------:|------:|-----:|------:|-----:|
//! | `exp` `f32`          | 1.36 |  3.12 | 2.3  | 0.78 | 4.0 |
//! | `log` `f32`          | 2.25 |  3.32 | 1.5  | 1.26 | 2.6 |
//! | `pow(x, 0.45)` `f32` | 7.15 |  6.91 | 0.97 | 3.85 | 1.8 |
//! | `sin` `f32`          | 3.35 | 10.89 | 3.3  | 1.79 | 6.1 |
//! | `exp` `f64`          | 4.76 |  5.76 | 1.2  | 2.79 | 2.1 |
//! | `log` `f64`          | 7.40 |  4.90 | 0.66 | 3.59 | 1.4 |
//! | `pow(x, 0.45)` `f64` | 28.1 | 14.1  | 0.50 | 14.6 | 0.97 |
//! | `sin` `f64`          | 9.73 | 22.8  | 2.3  | 5.05 | 4.5 |
//!
//! (Intel Xeon, 2 cores, glibc libm; inputs: `exp` in [-20, 20], `log` and `pow` in
//! (0, 1000), `sin` in [-100, 100].) All eight loops vectorise: the loop bodies are packed
//! SSE2 (`mulps/addps`, `mulpd/addpd`, `cvtps2pd`, `paddd/psllq`) or AVX2 (`ymm`) code with no
//! calls. Baseline SSE2 has only two `f64` lanes and glibc's `log`, `pow` and `powf` are fast
//! table-driven routines, so `f64` `log`/`pow` and `f32` `pow` (which works in `f64`) only pay
//! off with AVX2; there FMA is not used (see above), which keeps the results identical to the
//! baseline ones.

pub mod f32;
pub mod f64;
mod util;

#[cfg(test)]
mod tests;

use core::primitive::{f32 as F32, f64 as F64};

/// The routines of [`f32`](mod@f32) and [`f64`](mod@f64) behind one trait, for code generic
/// over the scalar type. They are associated functions, not methods, so that `x.exp()` keeps
/// meaning `std`'s method: write `Math::exp(x)` (or `T::exp(x)` with `T: Math`).
pub trait Math: Copy {
    /// `e^x`
    fn exp(x: Self) -> Self;
    /// `2^x`
    fn exp2(x: Self) -> Self;
    /// Natural logarithm.
    fn log(x: Self) -> Self;
    /// Base-2 logarithm.
    fn log2(x: Self) -> Self;
    /// Base-10 logarithm.
    fn log10(x: Self) -> Self;
    /// `x^y` (NaN for a negative finite `x` and a non-integer `y`).
    fn pow(x: Self, y: Self) -> Self;
    /// [`Math::pow`] with fused multiply-adds, for code compiled with FMA (the same results
    /// within the documented error).
    fn pow_fma(x: Self, y: Self) -> Self;
    /// Sine.
    fn sin(x: Self) -> Self;
    /// Cosine.
    fn cos(x: Self) -> Self;
    /// Tangent.
    fn tan(x: Self) -> Self;
    /// Arc tangent.
    fn atan(x: Self) -> Self;
    /// Four-quadrant arc tangent of `y/x`.
    fn atan2(y: Self, x: Self) -> Self;
    /// Arc sine.
    fn asin(x: Self) -> Self;
    /// Arc cosine.
    fn acos(x: Self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(x: Self) -> Self;
    /// Square root.
    fn sqrt(x: Self) -> Self;
    /// `1/sqrt(x)`.
    fn rsqrt(x: Self) -> Self;
}

macro_rules! impl_math {
    ($t:ty, $m:ident, $pow_fma:path) => {
        impl Math for $t {
            #[inline(always)]
            fn exp(x: $t) -> $t {
                $m::exp(x)
            }
            #[inline(always)]
            fn exp2(x: $t) -> $t {
                $m::exp2(x)
            }
            #[inline(always)]
            fn log(x: $t) -> $t {
                $m::log(x)
            }
            #[inline(always)]
            fn log2(x: $t) -> $t {
                $m::log2(x)
            }
            #[inline(always)]
            fn log10(x: $t) -> $t {
                $m::log10(x)
            }
            #[inline(always)]
            fn pow(x: $t, y: $t) -> $t {
                $m::pow(x, y)
            }
            #[inline(always)]
            fn pow_fma(x: $t, y: $t) -> $t {
                $pow_fma(x, y)
            }
            #[inline(always)]
            fn sin(x: $t) -> $t {
                $m::sin(x)
            }
            #[inline(always)]
            fn cos(x: $t) -> $t {
                $m::cos(x)
            }
            #[inline(always)]
            fn tan(x: $t) -> $t {
                $m::tan(x)
            }
            #[inline(always)]
            fn atan(x: $t) -> $t {
                $m::atan(x)
            }
            #[inline(always)]
            fn atan2(y: $t, x: $t) -> $t {
                $m::atan2(y, x)
            }
            #[inline(always)]
            fn asin(x: $t) -> $t {
                $m::asin(x)
            }
            #[inline(always)]
            fn acos(x: $t) -> $t {
                $m::acos(x)
            }
            #[inline(always)]
            fn tanh(x: $t) -> $t {
                $m::tanh(x)
            }
            #[inline(always)]
            fn sqrt(x: $t) -> $t {
                $m::sqrt(x)
            }
            #[inline(always)]
            fn rsqrt(x: $t) -> $t {
                $m::rsqrt(x)
            }
        }
    };
}

impl_math!(F32, f32, f32::pow_fma);
impl_math!(F64, f64, f64::pow);
