//! The numeric traits the built-ins are generic over, implemented for Quasar's element types:
//!
//! | trait | implemented for | gives |
//! |---|---|---|
//! | [`Arith`] | `i8 … i64`, `u8 … u64`, `f32`, `f64`, `Complex<f32>`, `Complex<f64>` | `+ - *`, 0, 1, the type sums are computed in |
//! | [`Field`] | `f32`, `f64`, `Complex<f32>`, `Complex<f64>` | `/` |
//! | [`Real`] | the integers, `f32`, `f64` | order: `min max mod floor ceil round frac sign saturate` |
//! | [`Math`] | `f32`, `f64`, `Complex<f32>`, `Complex<f64>` | `sqrt exp log sin … pow` |
//! | [`Float`] | `f32`, `f64` (`scalar` in single and double mode) | `atan2`, conversions to and from `f64` |
//! | [`Magnitude`] | every [`Arith`] type | `abs real imag conj` |
//! | [`Cast<U>`] | every pair of numbers, `f16`, real → complex, complex → complex | `int(x)`, `float(x)`, `complex(x)` |
//!
//! Integer arithmetic wraps on overflow (Quasar's `int'unchecked`, and what a GPU does), so no
//! input makes a built-in panic. Floating-point arithmetic is IEEE.

use quasar_runtime::{f16, Complex, Element};
use std::fmt::Debug;

/// Numbers with `+ - *`: Quasar's `int`, `intN`, `uintN`, `scalar`, `cscalar` elements.
pub trait Arith: Element + PartialEq + Debug {
    /// The additive identity.
    const ZERO: Self;
    /// The multiplicative identity.
    const ONE: Self;
    /// The type that `sum`, `prod` and `cumsum` compute in and return, as the type checker's
    /// rules say: the narrow integer types (`int8 … uint16`) and `int` give `int` (`i32`),
    /// the others stay as they are.
    type Calc: Arith;
    /// `self + o` (wrapping for integers).
    fn add(self, o: Self) -> Self;
    /// `self - o` (wrapping for integers).
    fn sub(self, o: Self) -> Self;
    /// `self * o` (wrapping for integers).
    fn mul(self, o: Self) -> Self;
    /// `-self` (wrapping for integers; `0 - x` for unsigned ones).
    fn neg(self) -> Self;
    /// The value in the computation type.
    fn calc(self) -> Self::Calc;
    /// `isnan`: whether the value is (or, for complex numbers, has a part that is) NaN.
    fn is_nan(self) -> bool;
    /// `isinf`: whether the value is (or has a part that is) infinite.
    fn is_inf(self) -> bool;
    /// One step of a compensated running sum: `(sum, comp)` is a double-word accumulator
    /// (floats: `sum` is the rounded running sum and `comp` the part of it that did not fit,
    /// so partial sums stay accurate to about one ulp however long the sum runs). Integers
    /// need no compensation (`comp` stays 0).
    #[inline]
    fn add_compensated(sum: &mut Self, comp: &mut Self, x: Self) {
        let _ = comp;
        *sum = sum.add(x);
    }
    /// A packed, vectorised kernel for `c = a · b` (row-major `m × k` and `k × n` slices, an
    /// `m × n` result), called as `(a, b, c, m, k, n)`, where the type has one: `f32` and
    /// `f64` use `matrixmultiply` (which `ndarray` already builds).
    #[inline]
    fn packed_product() -> Option<ProductKernel<Self>> {
        None
    }
}

/// See [`Arith::packed_product`].
pub type ProductKernel<T> = fn(&[T], &[T], &mut [T], usize, usize, usize);

/// Numbers with a division: `scalar` and `cscalar` (integer `/` gives a `scalar` in Quasar, so
/// the code generator converts integers first).
pub trait Field: Arith {
    /// `self / o`.
    fn div(self, o: Self) -> Self;
    /// `n` as this type (for `mean`).
    fn from_count(n: usize) -> Self;
}

/// Ordered numbers: the integers and `scalar`.
pub trait Real: Arith + PartialOrd {
    /// The larger of two values; a NaN loses to a number (IEEE `maxNum`, C's `fmax`, CUDA's
    /// `fmaxf`, MATLAB's `max`): the result is NaN only when both are.
    fn max2(self, o: Self) -> Self;
    /// The smaller of two values, NaN-ignoring like [`max2`](Real::max2).
    fn min2(self, o: Self) -> Self;
    /// Quasar's `mod(x, y)`: the remainder with the sign of the divisor, as in MATLAB. For
    /// `y > 0` the result is in `[0, y)`; `mod(x, 0) = x`.
    fn modulo(self, y: Self) -> Self;
    /// `floor` (integers unchanged).
    fn floor(self) -> Self;
    /// `ceil` (integers unchanged).
    fn ceil(self) -> Self;
    /// `round`: to the nearest integer, halves away from zero (C's `round`, CUDA's `roundf`).
    fn round(self) -> Self;
    /// `frac(x) = x - floor(x)`, in `[0, 1)` (as HLSL's `frac`; 0 for integers).
    fn frac(self) -> Self;
    /// `sign`: -1, 0 or 1 (NaN stays NaN).
    fn sign(self) -> Self;
    /// `saturate`: clamped to `[0, 1]` (NaN gives 0, as on a GPU).
    fn saturate(self) -> Self;
}

/// Transcendental functions of `scalar` and `cscalar` (Quasar gives `scalar` results for
/// integer arguments; the code generator converts integers first).
pub trait Math: Field {
    /// `sqrt`.
    fn sqrt(self) -> Self;
    /// `exp`.
    fn exp(self) -> Self;
    /// `exp2` (power of two).
    fn exp2(self) -> Self;
    /// `log`, the natural logarithm.
    fn log(self) -> Self;
    /// `log2`.
    fn log2(self) -> Self;
    /// `log10`.
    fn log10(self) -> Self;
    /// `sin`.
    fn sin(self) -> Self;
    /// `cos`.
    fn cos(self) -> Self;
    /// `tan`.
    fn tan(self) -> Self;
    /// `asin`.
    fn asin(self) -> Self;
    /// `acos`.
    fn acos(self) -> Self;
    /// `atan`.
    fn atan(self) -> Self;
    /// `sinh`.
    fn sinh(self) -> Self;
    /// `cosh`.
    fn cosh(self) -> Self;
    /// `tanh`.
    fn tanh(self) -> Self;
    /// `pow(x, y)` = `x .^ y` (`powf`; complex: the principal value `exp(y log x)`).
    fn pow(self, y: Self) -> Self;
}

/// `scalar`: `f32`, or `f64` in double mode.
pub trait Float: Real + Math + Field + Cast<f64> + Cast<i32> {
    /// Machine epsilon (Quasar's `eps`).
    const EPS: Self;
    /// A quiet NaN.
    const NAN: Self;
    /// `atan2(y, x)` with `self` as `y`.
    fn atan2(self, x: Self) -> Self;
    /// The nearest value to `v`.
    fn from_f64(v: f64) -> Self;
    /// As `f64` (exact).
    fn to_f64(self) -> f64;
}

/// `abs real imag conj` for every number: complex numbers give their real-valued parts,
/// real numbers are their own real part (with imaginary part 0) and their own conjugate.
pub trait Magnitude: Arith {
    /// The type of `abs`, `real`, `imag`: `T` for `Complex<T>`, itself otherwise.
    type Part: Arith;
    /// `abs`: the absolute value (wrapping for `int::MIN`), the modulus of a complex number.
    fn abs(self) -> Self::Part;
    /// `real`: the real part.
    fn real(self) -> Self::Part;
    /// `imag`: the imaginary part (0 for real numbers).
    fn imag(self) -> Self::Part;
    /// `conj`: the complex conjugate (real numbers unchanged).
    fn conj(self) -> Self;
}

/// An element conversion: `int(x)` (`Cast<i32>`), `float(x)` (`Cast<scalar>`),
/// `complex(x)` (`Cast<Complex<scalar>>`), `uint8(x)`…
///
/// Between real numbers it is Rust's `as`: a float becomes an integer by **truncation toward
/// zero** (the manual: "`int(x)` converts the input argument to integer (using type
/// casting)", i.e. a C cast), saturating at the integer's range, with NaN giving 0 (C leaves
/// those undefined). Integer to integer wraps (two's complement), as `int'unchecked`.
/// Real to complex gives imaginary part 0; `f16` converts through `f32`.
pub trait Cast<U>: Copy {
    /// The converted value.
    fn cast(self) -> U;
}

macro_rules! arith_int {
    ($($t:ty => $calc:ty),* $(,)?) => { $(
        impl Arith for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            type Calc = $calc;
            #[inline] fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline] fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline] fn neg(self) -> Self { (0 as $t).wrapping_sub(self) }
            #[inline] fn calc(self) -> $calc { self as $calc }
            #[inline] fn is_nan(self) -> bool { false }
            #[inline] fn is_inf(self) -> bool { false }
        }
        impl Real for $t {
            #[inline] fn max2(self, o: Self) -> Self { if o > self { o } else { self } }
            #[inline] fn min2(self, o: Self) -> Self { if o < self { o } else { self } }
            #[inline]
            #[allow(unused_comparisons)]
            fn modulo(self, y: Self) -> Self {
                if y == 0 {
                    return self;
                }
                let r = self.wrapping_rem(y);
                if r != 0 && ((r < 0) != (y < 0)) { r.wrapping_add(y) } else { r }
            }
            #[inline] fn floor(self) -> Self { self }
            #[inline] fn ceil(self) -> Self { self }
            #[inline] fn round(self) -> Self { self }
            #[inline] fn frac(self) -> Self { 0 }
            #[inline]
            #[allow(unused_comparisons)]
            fn sign(self) -> Self { if self > 0 { 1 } else if self < 0 { (0 as $t).wrapping_sub(1) } else { 0 } }
            #[inline]
            #[allow(unused_comparisons)]
            fn saturate(self) -> Self { if self < 0 { 0 } else if self > 1 { 1 } else { self } }
        }
    )* };
}
arith_int!(i8 => i32, i16 => i32, i32 => i32, i64 => i64,
           u8 => i32, u16 => i32, u32 => u32, u64 => u64);

macro_rules! magnitude_int {
    (signed: $($s:ty),*; unsigned: $($u:ty),*) => {
        $( impl Magnitude for $s {
            type Part = $s;
            #[inline] fn abs(self) -> $s { self.wrapping_abs() }
            #[inline] fn real(self) -> $s { self }
            #[inline] fn imag(self) -> $s { 0 }
            #[inline] fn conj(self) -> $s { self }
        } )*
        $( impl Magnitude for $u {
            type Part = $u;
            #[inline] fn abs(self) -> $u { self }
            #[inline] fn real(self) -> $u { self }
            #[inline] fn imag(self) -> $u { 0 }
            #[inline] fn conj(self) -> $u { self }
        } )*
    };
}
magnitude_int!(signed: i8, i16, i32, i64; unsigned: u8, u16, u32, u64);

macro_rules! float {
    ($($t:ident: $gemm:ident),*) => { $(
        impl Arith for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            type Calc = $t;
            #[inline] fn add(self, o: Self) -> Self { self + o }
            #[inline] fn sub(self, o: Self) -> Self { self - o }
            #[inline] fn mul(self, o: Self) -> Self { self * o }
            #[inline] fn neg(self) -> Self { -self }
            #[inline] fn calc(self) -> $t { self }
            #[inline] fn is_nan(self) -> bool { $t::is_nan(self) }
            #[inline] fn is_inf(self) -> bool { $t::is_infinite(self) }
            #[inline]
            fn add_compensated(sum: &mut Self, comp: &mut Self, x: Self) {
                // (sum, comp) is a double-word number: TwoSum gives the exact error of
                // sum + x, which joins comp; FastTwoSum renormalises so that `sum` carries
                // the rounded value and `comp` stays below half an ulp of it.
                let t = *sum + x;
                let bp = t - *sum;
                let err = (*sum - (t - bp)) + (x - bp);
                let lo = *comp + err;
                let s = t + lo;
                *comp = lo - (s - t);
                *sum = s;
            }
            fn packed_product() -> Option<ProductKernel<Self>> {
                Some(|a, b, c, m, k, n| {
                    assert!(a.len() >= m * k && b.len() >= k * n && c.len() >= m * n);
                    // SAFETY: the slices hold the row-major matrices whose strides are given
                    // (their lengths checked above); `c` is borrowed mutably, so nothing else
                    // writes it meanwhile.
                    unsafe {
                        matrixmultiply::$gemm(
                            m, k, n, 1.0, a.as_ptr(), k as isize, 1, b.as_ptr(), n as isize, 1,
                            0.0, c.as_mut_ptr(), n as isize, 1,
                        );
                    }
                })
            }
        }
        impl Field for $t {
            #[inline] fn div(self, o: Self) -> Self { self / o }
            #[inline] fn from_count(n: usize) -> Self { n as $t }
        }
        impl Real for $t {
            #[inline] fn max2(self, o: Self) -> Self { $t::max(self, o) }
            #[inline] fn min2(self, o: Self) -> Self { $t::min(self, o) }
            #[inline]
            fn modulo(self, y: Self) -> Self {
                if y == 0.0 {
                    return self;
                }
                // `%` is the exact IEEE remainder with the sign of `self`.
                let r = self % y;
                if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                    let s = r + y;
                    // A tiny remainder of the other sign can round to `y` itself.
                    if s == y { 0.0 } else { s }
                } else {
                    r
                }
            }
            #[inline] fn floor(self) -> Self { $t::floor(self) }
            #[inline] fn ceil(self) -> Self { $t::ceil(self) }
            #[inline] fn round(self) -> Self { $t::round(self) }
            #[inline]
            fn frac(self) -> Self {
                let r = self - $t::floor(self);
                // A tiny negative `self` gives `1 - tiny`, which can round to 1.
                if r >= 1.0 { 1.0 - $t::EPSILON / 2.0 } else { r }
            }
            #[inline]
            fn sign(self) -> Self {
                if self > 0.0 { 1.0 } else if self < 0.0 { -1.0 } else { self }
            }
            #[inline]
            fn saturate(self) -> Self {
                if self >= 1.0 { 1.0 } else if self > 0.0 { self } else { 0.0 }
            }
        }
        impl Math for $t {
            #[inline] fn sqrt(self) -> Self { $t::sqrt(self) }
            #[inline] fn exp(self) -> Self { $t::exp(self) }
            #[inline] fn exp2(self) -> Self { $t::exp2(self) }
            #[inline] fn log(self) -> Self { $t::ln(self) }
            #[inline] fn log2(self) -> Self { $t::log2(self) }
            #[inline] fn log10(self) -> Self { $t::log10(self) }
            #[inline] fn sin(self) -> Self { $t::sin(self) }
            #[inline] fn cos(self) -> Self { $t::cos(self) }
            #[inline] fn tan(self) -> Self { $t::tan(self) }
            #[inline] fn asin(self) -> Self { $t::asin(self) }
            #[inline] fn acos(self) -> Self { $t::acos(self) }
            #[inline] fn atan(self) -> Self { $t::atan(self) }
            #[inline] fn sinh(self) -> Self { $t::sinh(self) }
            #[inline] fn cosh(self) -> Self { $t::cosh(self) }
            #[inline] fn tanh(self) -> Self { $t::tanh(self) }
            #[inline] fn pow(self, y: Self) -> Self { $t::powf(self, y) }
        }
        impl Float for $t {
            const EPS: Self = $t::EPSILON;
            const NAN: Self = $t::NAN;
            #[inline] fn atan2(self, x: Self) -> Self { $t::atan2(self, x) }
            #[inline] fn from_f64(v: f64) -> Self { v as $t }
            #[inline] fn to_f64(self) -> f64 { self as f64 }
        }
        impl Magnitude for $t {
            type Part = $t;
            #[inline] fn abs(self) -> $t { $t::abs(self) }
            #[inline] fn real(self) -> $t { self }
            #[inline] fn imag(self) -> $t { 0.0 }
            #[inline] fn conj(self) -> $t { self }
        }

        impl Arith for Complex<$t> {
            const ZERO: Self = Complex { re: 0.0, im: 0.0 };
            const ONE: Self = Complex { re: 1.0, im: 0.0 };
            type Calc = Complex<$t>;
            #[inline] fn add(self, o: Self) -> Self { self + o }
            #[inline] fn sub(self, o: Self) -> Self { self - o }
            #[inline] fn mul(self, o: Self) -> Self { self * o }
            #[inline] fn neg(self) -> Self { -self }
            #[inline] fn calc(self) -> Self { self }
            #[inline] fn is_nan(self) -> bool { self.re.is_nan() || self.im.is_nan() }
            #[inline] fn is_inf(self) -> bool { self.re.is_infinite() || self.im.is_infinite() }
            #[inline]
            fn add_compensated(sum: &mut Self, comp: &mut Self, x: Self) {
                <$t as Arith>::add_compensated(&mut sum.re, &mut comp.re, x.re);
                <$t as Arith>::add_compensated(&mut sum.im, &mut comp.im, x.im);
            }
        }
        impl Field for Complex<$t> {
            #[inline] fn div(self, o: Self) -> Self { self / o }
            #[inline] fn from_count(n: usize) -> Self { Complex::new(n as $t, 0.0) }
        }
        impl Math for Complex<$t> {
            #[inline] fn sqrt(self) -> Self { Complex::sqrt(self) }
            #[inline] fn exp(self) -> Self { Complex::exp(self) }
            #[inline] fn exp2(self) -> Self { Complex::exp2(self) }
            #[inline] fn log(self) -> Self { Complex::ln(self) }
            #[inline] fn log2(self) -> Self { Complex::log2(self) }
            #[inline] fn log10(self) -> Self { Complex::log10(self) }
            #[inline] fn sin(self) -> Self { Complex::sin(self) }
            #[inline] fn cos(self) -> Self { Complex::cos(self) }
            #[inline] fn tan(self) -> Self { Complex::tan(self) }
            #[inline] fn asin(self) -> Self { Complex::asin(self) }
            #[inline] fn acos(self) -> Self { Complex::acos(self) }
            #[inline] fn atan(self) -> Self { Complex::atan(self) }
            #[inline] fn sinh(self) -> Self { Complex::sinh(self) }
            #[inline] fn cosh(self) -> Self { Complex::cosh(self) }
            #[inline] fn tanh(self) -> Self { Complex::tanh(self) }
            #[inline] fn pow(self, y: Self) -> Self { Complex::powc(self, y) }
        }
        impl Magnitude for Complex<$t> {
            type Part = $t;
            #[inline] fn abs(self) -> $t { self.norm() }
            #[inline] fn real(self) -> $t { self.re }
            #[inline] fn imag(self) -> $t { self.im }
            #[inline] fn conj(self) -> Self { Complex::conj(&self) }
        }
    )* };
}
float!(f32: sgemm, f64: dgemm);

/// `Cast` between every pair of the listed primitive numbers, with `as`.
macro_rules! cast_prim {
    ($($from:ty),*) => { $( cast_prim!(@to $from; i8, i16, i32, i64, u8, u16, u32, u64, f32, f64); )* };
    (@to $from:ty; $($to:ty),*) => { $(
        impl Cast<$to> for $from {
            #[inline] fn cast(self) -> $to { self as $to }
        }
    )* };
}
cast_prim!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

/// `f16` to and from every primitive number, through `f32` (`f64` directly).
macro_rules! cast_half {
    ($($t:ty),*) => { $(
        impl Cast<$t> for f16 {
            #[inline] fn cast(self) -> $t { self.to_f32() as $t }
        }
        impl Cast<f16> for $t {
            #[inline] fn cast(self) -> f16 { f16::from_f32(self as f32) }
        }
    )* };
}
cast_half!(i8, i16, i32, i64, u8, u16, u32, u64, f32);
impl Cast<f64> for f16 {
    #[inline]
    fn cast(self) -> f64 {
        self.to_f64()
    }
}
impl Cast<f16> for f64 {
    #[inline]
    fn cast(self) -> f16 {
        f16::from_f64(self)
    }
}
impl Cast<f16> for f16 {
    #[inline]
    fn cast(self) -> f16 {
        self
    }
}

/// Real numbers (and `f16`) to complex numbers, imaginary part 0.
macro_rules! cast_complex {
    ($($from:ty),*) => { $(
        impl Cast<Complex<f32>> for $from {
            #[inline] fn cast(self) -> Complex<f32> { Complex::new(Cast::<f32>::cast(self), 0.0) }
        }
        impl Cast<Complex<f64>> for $from {
            #[inline] fn cast(self) -> Complex<f64> { Complex::new(Cast::<f64>::cast(self), 0.0) }
        }
    )* };
}
cast_complex!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, f16);

impl Cast<Complex<f32>> for Complex<f32> {
    #[inline]
    fn cast(self) -> Complex<f32> {
        self
    }
}
impl Cast<Complex<f64>> for Complex<f64> {
    #[inline]
    fn cast(self) -> Complex<f64> {
        self
    }
}
impl Cast<Complex<f64>> for Complex<f32> {
    #[inline]
    fn cast(self) -> Complex<f64> {
        Complex::new(self.re as f64, self.im as f64)
    }
}
impl Cast<Complex<f32>> for Complex<f64> {
    #[inline]
    fn cast(self) -> Complex<f32> {
        Complex::new(self.re as f32, self.im as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_arithmetic_wraps_instead_of_panicking() {
        assert_eq!(i32::MAX.add(1), i32::MIN);
        assert_eq!(i32::MIN.sub(1), i32::MAX);
        assert_eq!(i32::MIN.neg(), i32::MIN);
        assert_eq!(3u8.neg(), 253);
        assert_eq!(Magnitude::abs(i32::MIN), i32::MIN);
        assert_eq!(200u8.calc() + 100u8.calc(), 300);
        assert_eq!(i32::MIN.modulo(-1), 0);
    }

    #[test]
    fn mod_has_the_sign_of_the_divisor_like_matlab() {
        assert_eq!(7i32.modulo(3), 1);
        assert_eq!((-7i32).modulo(3), 2);
        assert_eq!(7i32.modulo(-3), -2);
        assert_eq!((-7i32).modulo(-3), -1);
        assert_eq!((-6i32).modulo(3), 0);
        assert_eq!(5i32.modulo(0), 5);
        assert_eq!(7u32.modulo(3), 1);
        assert_eq!(5.5f32.modulo(2.0), 1.5);
        assert_eq!((-5.5f32).modulo(2.0), 0.5);
        assert_eq!(5.5f64.modulo(-2.0), -0.5);
        assert_eq!((-1.0f32).modulo(0.0), -1.0);
        // -1e-10 + 1 rounds to 1 in f32: the result stays in [0, 1).
        let m = (-1e-10f32).modulo(1.0);
        assert!((0.0..1.0).contains(&m), "{m}");
        assert!(f32::NAN.modulo(2.0).is_nan());
    }

    #[test]
    fn rounding_functions() {
        assert_eq!(Real::round(2.5f32), 3.0);
        assert_eq!(Real::round(-2.5f32), -3.0);
        assert_eq!(Real::round(0.49999997f32), 0.0);
        assert_eq!(Real::floor(-1.5f64), -2.0);
        assert_eq!(Real::ceil(-1.5f64), -1.0);
        assert_eq!(1.25f32.frac(), 0.25);
        assert_eq!((-1.25f32).frac(), 0.75);
        let f = (-1e-10f32).frac();
        assert!((0.0..1.0).contains(&f), "{f}");
        assert_eq!(7i32.frac(), 0);
        assert_eq!((-3.0f32).sign(), -1.0);
        assert_eq!((-3i32).sign(), -1);
        assert_eq!(0u8.sign(), 0);
        assert_eq!(f32::NAN.saturate(), 0.0);
        assert_eq!(1.5f32.saturate(), 1.0);
    }

    #[test]
    fn int_truncates_toward_zero_and_saturates() {
        assert_eq!(Cast::<i32>::cast(2.9f32), 2);
        assert_eq!(Cast::<i32>::cast(-2.9f32), -2);
        assert_eq!(Cast::<i32>::cast(1e20f32), i32::MAX);
        assert_eq!(Cast::<i32>::cast(f32::NAN), 0);
        assert_eq!(Cast::<u8>::cast(300i32), 44);
        assert_eq!(Cast::<f32>::cast(f16::from_f32(1.5)), 1.5);
        assert_eq!(Cast::<Complex<f32>>::cast(2i32), Complex::new(2.0, 0.0));
        assert_eq!(Cast::<Complex<f32>>::cast(Complex::new(1.0f64, 2.0)), Complex::new(1.0, 2.0));
    }

    #[test]
    fn nan_semantics_of_min_and_max() {
        assert_eq!(f32::NAN.max2(1.0), 1.0);
        assert_eq!(1.0f32.max2(f32::NAN), 1.0);
        assert!(f32::NAN.min2(f32::NAN).is_nan());
        assert!(Complex::new(0.0f32, f32::NAN).is_nan());
        assert!(!3i32.is_nan());
    }

    #[test]
    fn compensated_sum_recovers_lost_bits() {
        let (mut s, mut c) = (0.0f32, 0.0f32);
        for x in [1e8f32, 1.0, -1e8, 1.0] {
            f32::add_compensated(&mut s, &mut c, x);
        }
        assert_eq!(s + c, 2.0);
    }
}
