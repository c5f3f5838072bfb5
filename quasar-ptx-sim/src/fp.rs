//! Floating-point semantics where PTX differs from Rust: canonical NaN results, `min`/`max`
//! with NaN and signed zeros, `cvt` rounding and saturation, half precision, and the `.approx`
//! functions (exact, or pushed to the ISA's stated error bounds).

use crate::inst::{Rnd, Ty};
use half::f16;

/// The canonical NaN PTX arithmetic produces.
pub(crate) const NAN32: u32 = 0x7FFF_FFFF;
pub(crate) const NAN64: u64 = 0x7FFF_FFFF_FFFF_FFFF;

#[inline]
pub(crate) fn canon32(x: f32) -> u64 {
    u64::from(if x.is_nan() { NAN32 } else { x.to_bits() })
}

#[inline]
pub(crate) fn canon64(x: f64) -> u64 {
    if x.is_nan() {
        NAN64
    } else {
        x.to_bits()
    }
}

/// `min`: a NaN operand is ignored (NaN only when both are), and -0.0 < +0.0.
#[inline]
pub(crate) fn min<T: Float>(a: T, b: T) -> Option<T> {
    match (a.nan(), b.nan()) {
        (true, true) => None,
        (true, false) => Some(b),
        (false, true) => Some(a),
        _ if a.zero() && b.zero() => Some(if a.neg() { a } else { b }),
        _ => Some(if a.lt(b) { a } else { b }),
    }
}

/// `max`: as [`min`], with +0.0 > -0.0.
#[inline]
pub(crate) fn max<T: Float>(a: T, b: T) -> Option<T> {
    match (a.nan(), b.nan()) {
        (true, true) => None,
        (true, false) => Some(b),
        (false, true) => Some(a),
        _ if a.zero() && b.zero() => Some(if a.neg() { b } else { a }),
        _ => Some(if a.lt(b) { b } else { a }),
    }
}

/// What `min`/`max` need of `f32` and `f64`.
pub(crate) trait Float: Copy {
    fn nan(self) -> bool;
    fn zero(self) -> bool;
    fn neg(self) -> bool;
    fn lt(self, o: Self) -> bool;
}

macro_rules! float_impl {
    ($t:ty) => {
        impl Float for $t {
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn zero(self) -> bool {
                self == 0.0
            }
            fn neg(self) -> bool {
                self.is_sign_negative()
            }
            fn lt(self, o: Self) -> bool {
                self < o
            }
        }
    };
}
float_impl!(f32);
float_impl!(f64);

/// The value of `bits` of float type `t` (f16, f32 or f64) as an `f64` (exact).
pub(crate) fn float_value(t: Ty, bits: u64) -> f64 {
    match t.bits() {
        16 => f16::from_bits(bits as u16).to_f64(),
        32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// `x` rounded to an integral value by `.rni/.rzi/.rmi/.rpi` (`.rni` is half-to-even).
pub(crate) fn round_integral(x: f64, r: Rnd) -> f64 {
    match r {
        Rnd::Rni => x.round_ties_even(),
        Rnd::Rzi => x.trunc(),
        Rnd::Rmi => x.floor(),
        Rnd::Rpi => x.ceil(),
        _ => x,
    }
}

/// `x` (an integer or an `f64` value) rounded to `f32` by `.rn/.rz/.rm/.rp`.
fn to_f32(x: f64, exact: impl Fn(f32) -> std::cmp::Ordering, r: Rnd) -> f32 {
    let n = x as f32; // nearest, ties to even
    if x.is_nan() || x.is_infinite() {
        return n;
    }
    use std::cmp::Ordering::*;
    match (r, exact(n)) {
        (Rnd::Rz, Greater) if n > 0.0 || (n == f32::INFINITY) => n.next_down(),
        (Rnd::Rz, Less) if n < 0.0 || (n == f32::NEG_INFINITY) => n.next_up(),
        (Rnd::Rm, Greater) => n.next_down(),
        (Rnd::Rp, Less) => n.next_up(),
        _ => n,
    }
}

/// `x` rounded to `f64` by `.rn/.rz/.rm/.rp` from an `i128` (integer sources).
fn int_to_f64(v: i128, r: Rnd) -> f64 {
    let n = v as f64;
    let c = (n as i128).cmp(&v);
    use std::cmp::Ordering::*;
    match (r, c) {
        (Rnd::Rz, Greater) if n > 0.0 => n.next_down(),
        (Rnd::Rz, Less) if n < 0.0 => n.next_up(),
        (Rnd::Rm, Greater) => n.next_down(),
        (Rnd::Rp, Less) => n.next_up(),
        _ => n,
    }
}

/// The range of integer type `t` as `i128`.
fn int_range(t: Ty) -> (i128, i128) {
    let b = t.bits();
    if t.is_signed() {
        (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
    } else {
        (0, (1i128 << b) - 1)
    }
}

/// The integer of type `t` in `bits`.
fn int_value(t: Ty, bits: u64) -> i128 {
    if t.is_signed() {
        i128::from(t.extend(bits) as i64)
    } else {
        i128::from(bits & t.mask())
    }
}

/// `cvt` of `a` (bits of type `st`) to type `dt`: the result's bits (not extended).
pub(crate) fn cvt(dt: Ty, st: Ty, rnd: Rnd, sat: bool, a: u64) -> u64 {
    match (dt.is_float(), st.is_float()) {
        (false, false) => {
            let v = int_value(st, a);
            let v = if sat {
                let (lo, hi) = int_range(dt);
                v.clamp(lo, hi)
            } else {
                v
            };
            (v as u64) & dt.mask()
        }
        (false, true) => {
            // Float to integer: rounded, NaN is 0, out-of-range values saturate.
            let x = round_integral(float_value(st, a), rnd);
            if x.is_nan() {
                return 0;
            }
            let (lo, hi) = int_range(dt);
            let v = if x <= lo as f64 {
                lo
            } else if x >= hi as f64 {
                hi
            } else {
                x as i128
            };
            (v as u64) & dt.mask()
        }
        (true, false) => {
            let v = int_value(st, a);
            let f = match dt.bits() {
                64 => int_to_f64(v, rnd),
                32 => f64::from(to_f32(v as f64, |n| (n as i128).cmp(&v), rnd)),
                _ => f16::from_f64(v as f64).to_f64(),
            };
            float_bits(dt, sat_float(f, sat))
        }
        (true, true) => {
            let x = float_value(st, a);
            let y = if rnd.is_integral() {
                round_integral(x, rnd)
            } else if dt.bits() < st.bits() && dt.bits() == 32 {
                f64::from(to_f32(
                    x,
                    |n| f64::from(n).partial_cmp(&x).unwrap_or(std::cmp::Ordering::Equal),
                    rnd,
                ))
            } else if dt.bits() == 16 {
                f16::from_f64(x).to_f64()
            } else {
                x
            };
            float_bits(dt, sat_float(y, sat))
        }
    }
}

/// `.sat` on a float result: clamped to [0, 1], NaN to +0.
fn sat_float(x: f64, sat: bool) -> f64 {
    if !sat {
        x
    } else if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// The bits of `x` (already representable) in float type `t`; NaN is canonical.
fn float_bits(t: Ty, x: f64) -> u64 {
    match t.bits() {
        16 => {
            if x.is_nan() {
                0x7FFF
            } else {
                u64::from(f16::from_f64(x).to_bits())
            }
        }
        32 => canon32(x as f32),
        _ => canon64(x),
    }
}

/// How `.approx` functions are computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Approx {
    /// Correctly rounded (computed in `f64`).
    #[default]
    Exact,
    /// Moved by the largest error the PTX ISA states for the instruction, in a direction that
    /// depends on the input: tests whose tolerances hold under this mode hold on any GPU.
    Bounds,
}

/// The error bounds the PTX ISA states for the `.approx.f32` functions, as
/// `(relative, absolute)` powers of two (`None` where the bound is of the other kind).
pub(crate) const EX2_REL: f64 = -22.5;
pub(crate) const LG2_ABS: f64 = -22.0;
pub(crate) const SINCOS_ABS: f64 = -20.9;
pub(crate) const RSQRT_REL: f64 = -22.9;
/// `sin.approx`/`cos.approx` meet their bound for |x| up to 100π.
pub(crate) const SINCOS_RANGE: f64 = 100.0 * std::f64::consts::PI;

/// A direction (±1) derived from the input's bits.
fn direction(x: f32) -> f64 {
    let h = x.to_bits().wrapping_mul(0x9E37_79B9);
    if h >> 31 == 0 {
        1.0
    } else {
        -1.0
    }
}

/// An `.approx.f32` function: `exact` is the true value (from `f64`); in [`Approx::Bounds`]
/// mode finite results move by the relative (`rel`) or absolute (`abs`) bound.
pub(crate) fn approx(x: f32, exact: f64, rel: Option<f64>, abs: Option<f64>, mode: Approx) -> u64 {
    let y = match mode {
        Approx::Bounds if exact.is_finite() && x.is_finite() => {
            let s = direction(x);
            let e = rel.map_or(0.0, |r| exact.abs() * r.exp2()) + abs.map_or(0.0, f64::exp2);
            exact + s * e
        }
        _ => exact,
    };
    canon32(y as f32)
}
