//! Atomic read-modify-write on array elements for CPU kernels (inside kernels,
//! `+= -= *= /= ^^= __= ~= |= &=` on array elements are atomic and return the new value).
//!
//! Elements of 1, 2, 4 or 8 bytes (with natural alignment) use a compare-and-swap loop on the
//! matching atomic integer; others (e.g. `Complex<f64>`, small vectors) take a striped lock
//! keyed by address, so every element type works.

use crate::element::Element;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

macro_rules! cas_loop {
    ($atomic:ty, $bits:ty, $p:expr, $f:expr) => {{
        // SAFETY (caller): `$p` is valid, aligned for the atomic type, and only accessed
        // atomically while this runs.
        let a = unsafe { <$atomic>::from_ptr($p as *mut $bits) };
        let mut old = a.load(Ordering::Relaxed);
        loop {
            // SAFETY: same size as T; every bit pattern is a valid T (Element).
            let new: $bits = unsafe {
                std::mem::transmute_copy(&$f(std::mem::transmute_copy::<$bits, _>(&old)))
            };
            match a.compare_exchange_weak(old, new, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => break unsafe { std::mem::transmute_copy(&new) },
                Err(cur) => old = cur,
            }
        }
    }};
}

/// The arithmetic of atomic compound assignment, as Quasar's operators compute it in kernels:
/// integers wrap (and `x / 0` is 0, as the generated code divides), floats and complex
/// numbers round as usual. (`std::ops` would panic on integer overflow in debug builds.)
pub trait AtomicArith: Copy {
    /// `self + o`.
    fn add(self, o: Self) -> Self;
    /// `self - o`.
    fn sub(self, o: Self) -> Self;
    /// `self * o`.
    fn mul(self, o: Self) -> Self;
    /// `self / o`.
    fn div(self, o: Self) -> Self;
}

macro_rules! atomic_int {
    ($($t:ty),*) => { $(
        impl AtomicArith for $t {
            #[inline] fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline] fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline] fn div(self, o: Self) -> Self { if o == 0 { 0 } else { self.wrapping_div(o) } }
        }
    )* };
}
atomic_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! atomic_float {
    ($($t:ty),*) => { $(
        impl AtomicArith for $t {
            #[inline] fn add(self, o: Self) -> Self { self + o }
            #[inline] fn sub(self, o: Self) -> Self { self - o }
            #[inline] fn mul(self, o: Self) -> Self { self * o }
            #[inline] fn div(self, o: Self) -> Self { self / o }
        }
    )* };
}
atomic_float!(f32, f64, half::f16, num_complex::Complex<f32>, num_complex::Complex<f64>);

/// Floats that may be NaN (integers never are): atomic `^^=`/`__=` ignore a NaN operand as
/// `max`/`min` do (and as the GPU's `max.f32`/`min.f32` in the compare-and-swap loop).
fn is_nan<T: PartialOrd>(x: T) -> bool {
    #[allow(clippy::eq_op)]
    let nan = x != x;
    nan
}

const STRIPES: usize = 64;
static LOCKS: [Mutex<()>; STRIPES] = [const { Mutex::new(()) }; STRIPES];

/// Atomically replaces `*p` by `f(*p)` and returns the new value.
///
/// # Safety
/// `p` is valid and aligned for `T`, and every concurrent access to `*p` goes through this
/// module's functions.
#[inline]
pub unsafe fn update<T: Element>(p: *mut T, f: impl Fn(T) -> T) -> T {
    let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
    match size {
        1 => cas_loop!(AtomicU8, u8, p, f),
        2 if align >= 2 => cas_loop!(AtomicU16, u16, p, f),
        4 if align >= 4 => cas_loop!(AtomicU32, u32, p, f),
        8 if align >= 8 => cas_loop!(AtomicU64, u64, p, f),
        _ => {
            let _g = LOCKS[(p as usize / 8) % STRIPES].lock().unwrap_or_else(|e| e.into_inner());
            let new = f(p.read());
            p.write(new);
            new
        }
    }
}

/// `*p += v` atomically; returns the new value.
///
/// # Safety
/// As for [`update`].
#[inline]
pub unsafe fn add<T: Element + AtomicArith>(p: *mut T, v: T) -> T {
    update(p, |x| AtomicArith::add(x, v))
}

/// `*p -= v` atomically; returns the new value.
///
/// # Safety
/// As for [`update`].
#[inline]
pub unsafe fn sub<T: Element + AtomicArith>(p: *mut T, v: T) -> T {
    update(p, |x| AtomicArith::sub(x, v))
}

/// `*p *= v` atomically; returns the new value.
///
/// # Safety
/// As for [`update`].
#[inline]
pub unsafe fn mul<T: Element + AtomicArith>(p: *mut T, v: T) -> T {
    update(p, |x| AtomicArith::mul(x, v))
}

/// `*p /= v` atomically; returns the new value.
///
/// # Safety
/// As for [`update`].
#[inline]
pub unsafe fn div<T: Element + AtomicArith>(p: *mut T, v: T) -> T {
    update(p, |x| AtomicArith::div(x, v))
}

/// `*p ^^= v` (maximum) atomically; returns the new value.
///
/// # Safety
/// As for [`update`].
#[inline]
pub unsafe fn max<T: Element + PartialOrd>(p: *mut T, v: T) -> T {
    update(p, |x| if v > x || (is_nan(x) && !is_nan(v)) { v } else { x })
}

/// `*p __= v` (minimum) atomically; returns the new value.
///
/// # Safety
/// As for [`update`].
#[inline]
pub unsafe fn min<T: Element + PartialOrd>(p: *mut T, v: T) -> T {
    update(p, |x| if v < x || (is_nan(x) && !is_nan(v)) { v } else { x })
}

/// `*p |= v` atomically; returns the new value.
///
/// # Safety
/// As for [`update`].
#[inline]
pub unsafe fn or<T: Element + std::ops::BitOr<Output = T>>(p: *mut T, v: T) -> T {
    update(p, |x| x | v)
}

/// `*p &= v` atomically; returns the new value.
///
/// # Safety
/// As for [`update`].
#[inline]
pub unsafe fn and<T: Element + std::ops::BitAnd<Output = T>>(p: *mut T, v: T) -> T {
    update(p, |x| x & v)
}

/// `*p ~= v` (exclusive or) atomically; returns the new value.
///
/// # Safety
/// As for [`update`].
#[inline]
pub unsafe fn xor<T: Element + std::ops::BitXor<Output = T>>(p: *mut T, v: T) -> T {
    update(p, |x| x ^ v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex;
    use rayon::prelude::*;

    #[test]
    fn concurrent_adds_of_every_width_lose_nothing() {
        let mut i = 0i32;
        let mut f = 0f64;
        let mut h = half::f16::ZERO;
        let mut c = Complex::new(0.0f64, 0.0);
        let mut b = 0u8;
        let (pi, pf, ph, pc, pb) = (
            &mut i as *mut i32 as usize,
            &mut f as *mut f64 as usize,
            &mut h as *mut half::f16 as usize,
            &mut c as *mut Complex<f64> as usize,
            &mut b as *mut u8 as usize,
        );
        (0..1000).into_par_iter().for_each(|k| {
            // SAFETY: all accesses during the loop are atomic.
            unsafe {
                add(pi as *mut i32, 1);
                add(pf as *mut f64, 0.5);
                if k < 100 {
                    add(ph as *mut half::f16, half::f16::ONE);
                }
                add(pc as *mut Complex<f64>, Complex::new(1.0, -1.0));
                or(pb as *mut u8, 1u8 << (k % 8));
            }
        });
        assert_eq!(i, 1000);
        assert_eq!(f, 500.0);
        assert_eq!(h.to_f32(), 100.0);
        assert_eq!(c, Complex::new(1000.0, -1000.0));
        assert_eq!(b, 0xff);
    }

    #[test]
    fn ops_return_the_new_value() {
        let mut x = 10i64;
        // SAFETY: single-threaded.
        unsafe {
            assert_eq!(sub(&mut x, 3), 7);
            assert_eq!(mul(&mut x, 2), 14);
            assert_eq!(div(&mut x, 7), 2);
            assert_eq!(max(&mut x, 5), 5);
            assert_eq!(min(&mut x, -1), -1);
            assert_eq!(and(&mut x, 6), 6);
            assert_eq!(xor(&mut x, 3), 5);
        }
    }
}
