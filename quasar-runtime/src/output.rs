//! Kernel output arguments (manual section 4.7): values shared by all threads of a launch that
//! start at zero and are reduced across threads, e.g. `function [s : scalar] = __kernel__ f(…)`.
//! The kernels that the compiler makes of `acc *= …`, `acc ^^= …` and `acc __= …` loops start
//! their outputs at the identity of the reduction instead (1, the smallest or the largest
//! value: [`Start::Identity`]), so that the launch gives the product, maximum or minimum of
//! the threads' values alone.
//!
//! On the CPU (and on the simulated device) every block accumulates into its own slot, set to
//! the start value, with plain arithmetic (the threads of a block run one after another) and
//! the launcher combines the block results with the declared [`Reduce`] operation. On a GPU the
//! slot is one word in device memory set to the start value, and the kernel's PTX combines into
//! it with atomics (`atom.add`, `atom.max`, compare-and-swap loops for the others). Either way
//! the result equals the reduction of all threads' contributions and the start value.

use crate::element::{ElemInfo, Element};
use half::f16;
use num_complex::Complex;

/// How contributions to a kernel output argument are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduce {
    /// `y += v` (the common case).
    Sum,
    /// `y = min(y, v)` (`__=`); note the start value is 0.
    Min,
    /// `y = max(y, v)` (`^^=`); note the start value is 0.
    Max,
    /// `y *= v`; the start value is 0 unless the output starts at the identity
    /// ([`Start::Identity`]).
    Prod,
    /// `y |= v` (integers).
    BitOr,
    /// `y = v`: a thread that assigns a non-zero value wins; when several threads assign
    /// different values one of them is kept, as on a GPU. Serves `any`-style flags.
    Assign,
}

/// An element type that can be a kernel output argument: `scalar`, `cscalar`, `int`, the
/// other integers, `scalar'half`, and the small vectors `vecX`/`ivecX`/`cvecX` (`[T; N]`,
/// combined element-wise).
pub trait Reducible: Element {
    /// `op(acc, v)`, or `None` when `op` does not apply to this type (e.g. `Min` on complex).
    fn combine(op: Reduce, acc: Self, v: Self) -> Option<Self>;
    /// Whether the value is zero (used by [`Reduce::Assign`]).
    fn is_zero(self) -> bool;
    /// The identity of `op`: `combine(op, identity, v) == v` for every `v` (0 for sums, with
    /// `-0.0` for floats so that a sum of `-0.0` stays `-0.0`; the largest value for `Min`, the
    /// smallest for `Max`). The extra lanes of a CPU row loop start at it.
    fn identity(op: Reduce) -> Self;
}

macro_rules! int_reducible {
    ($($t:ty),*) => { $(
        impl Reducible for $t {
            fn combine(op: Reduce, a: Self, b: Self) -> Option<Self> {
                Some(match op {
                    Reduce::Sum => a.wrapping_add(b),
                    Reduce::Prod => a.wrapping_mul(b),
                    Reduce::Min => a.min(b),
                    Reduce::Max => a.max(b),
                    Reduce::BitOr => a | b,
                    Reduce::Assign => if b != 0 { b } else { a },
                })
            }
            fn is_zero(self) -> bool { self == 0 }
            fn identity(op: Reduce) -> Self {
                match op {
                    Reduce::Min => <$t>::MAX,
                    Reduce::Max => <$t>::MIN,
                    Reduce::Prod => 1,
                    _ => 0,
                }
            }
        }
    )* };
}
int_reducible!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_reducible {
    ($($t:ty),*) => { $(
        impl Reducible for $t {
            fn combine(op: Reduce, a: Self, b: Self) -> Option<Self> {
                match op {
                    Reduce::Sum => Some(a + b),
                    Reduce::Prod => Some(a * b),
                    Reduce::Min => Some(a.min(b)),
                    Reduce::Max => Some(a.max(b)),
                    Reduce::BitOr => None,
                    Reduce::Assign => Some(if b != 0.0 { b } else { a }),
                }
            }
            fn is_zero(self) -> bool { self == 0.0 }
            fn identity(op: Reduce) -> Self {
                match op {
                    Reduce::Min => <$t>::INFINITY,
                    Reduce::Max => <$t>::NEG_INFINITY,
                    Reduce::Sum => -0.0,
                    Reduce::Prod => 1.0,
                    _ => 0.0,
                }
            }
        }
    )* };
}
float_reducible!(f32, f64);

impl Reducible for f16 {
    fn combine(op: Reduce, a: Self, b: Self) -> Option<Self> {
        f32::combine(op, a.to_f32(), b.to_f32()).map(f16::from_f32)
    }
    fn is_zero(self) -> bool {
        self.to_f32() == 0.0
    }
    fn identity(op: Reduce) -> Self {
        f16::from_f32(f32::identity(op))
    }
}

impl<T: Reducible> Reducible for Complex<T> {
    fn combine(op: Reduce, a: Self, b: Self) -> Option<Self> {
        match op {
            Reduce::Sum => Some(Complex::new(
                T::combine(Reduce::Sum, a.re, b.re)?,
                T::combine(Reduce::Sum, a.im, b.im)?,
            )),
            Reduce::Assign => Some(if b.is_zero() { a } else { b }),
            _ => None,
        }
    }
    fn is_zero(self) -> bool {
        self.re.is_zero() && self.im.is_zero()
    }
    fn identity(op: Reduce) -> Self {
        // (Products of complex outputs are not supported: `combine` says so.)
        Complex::new(T::identity(op), T::identity(op))
    }
}

impl<T: Reducible, const N: usize> Reducible for [T; N] {
    fn combine(op: Reduce, a: Self, b: Self) -> Option<Self> {
        if op == Reduce::Assign {
            return Some(if b.is_zero() { a } else { b });
        }
        let mut out = a;
        for k in 0..N {
            out[k] = T::combine(op, a[k], b[k])?;
        }
        Some(out)
    }
    fn is_zero(self) -> bool {
        self.iter().all(|x| x.is_zero())
    }
    fn identity(op: Reduce) -> Self {
        [T::identity(op); N]
    }
}

/// The value a kernel output starts at (in every block's slot, and in the GPU's word).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Start {
    /// Zero, as the manual says of kernel output arguments.
    Zero,
    /// The identity of the reduction ([`Reducible::identity`]): the launch gives the reduction
    /// of the threads' values alone (the kernels the compiler makes of `acc *= …` loops).
    Identity,
}

/// A type-erased output argument: its type, its reduction, its start and how to combine raw
/// values.
#[derive(Clone, Copy, Debug)]
pub struct OutputSpec {
    pub(crate) elem: ElemInfo,
    /// The reduction.
    pub op: Reduce,
    /// The start value.
    pub start: Start,
    combine: unsafe fn(Reduce, *mut u8, *const u8),
    identity: unsafe fn(Reduce, *mut u8),
}

/// # Safety
/// `acc` and `v` point to valid (possibly unaligned) values of `T`.
unsafe fn combine_raw<T: Reducible>(op: Reduce, acc: *mut u8, v: *const u8) {
    let a = (acc as *const T).read_unaligned();
    let b = (v as *const T).read_unaligned();
    // Support was checked when the spec was made.
    if let Some(r) = T::combine(op, a, b) {
        (acc as *mut T).write_unaligned(r);
    }
}

/// # Safety
/// `p` points to `size_of::<T>()` writable bytes.
unsafe fn identity_raw<T: Reducible>(op: Reduce, p: *mut u8) {
    (p as *mut T).write_unaligned(T::identity(op));
}

impl OutputSpec {
    /// The spec for an output of type `T` reduced with `op`, starting at zero; `None` if `op`
    /// does not apply.
    pub fn new<T: Reducible>(op: Reduce) -> Option<OutputSpec> {
        Self::starting::<T>(op, Start::Zero)
    }

    /// The spec for an output of type `T` reduced with `op` from `start`; `None` if `op` does
    /// not apply.
    pub fn starting<T: Reducible>(op: Reduce, start: Start) -> Option<OutputSpec> {
        let z = zeroed::<T>();
        T::combine(op, z, z)?;
        Some(OutputSpec {
            elem: ElemInfo::of::<T>(),
            op,
            start,
            combine: combine_raw::<T>,
            identity: identity_raw::<T>,
        })
    }

    /// Size of the value in bytes.
    pub fn size(&self) -> usize {
        self.elem.size
    }

    /// The bytes of the start value.
    pub fn start_bytes(&self) -> Vec<u8> {
        let mut v = vec![0u8; self.size()];
        if self.start == Start::Identity {
            // SAFETY: `v` has room for one value of the spec's type.
            unsafe { (self.identity)(self.op, v.as_mut_ptr()) };
        }
        v
    }

    /// Combines the value at `v` into the value at `acc`.
    ///
    /// # Safety
    /// Both point to `size()` readable bytes holding values of the spec's type; `acc` is writable.
    pub unsafe fn combine_into(&self, acc: *mut u8, v: *const u8) {
        (self.combine)(self.op, acc, v)
    }
}

/// The all-zero value of an element type.
pub(crate) fn zeroed<T: Element>() -> T {
    // SAFETY: `Element` guarantees that all-zero bits are a valid value.
    unsafe { std::mem::zeroed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_per_type() {
        assert_eq!(i32::combine(Reduce::Sum, 3, 4), Some(7));
        assert_eq!(i32::combine(Reduce::Max, -3, 0), Some(0));
        assert_eq!(u8::combine(Reduce::BitOr, 1, 4), Some(5));
        assert_eq!(f32::combine(Reduce::Assign, 0.0, 1.0), Some(1.0));
        assert_eq!(f32::combine(Reduce::Assign, 1.0, 0.0), Some(1.0));
        assert_eq!(f64::combine(Reduce::BitOr, 1.0, 1.0), None);
        let c = Complex::new(1.0f32, 2.0);
        assert_eq!(Complex::combine(Reduce::Sum, c, c), Some(Complex::new(2.0, 4.0)));
        assert_eq!(Complex::combine(Reduce::Max, c, c), None);
        assert_eq!(<[i32; 2]>::combine(Reduce::Min, [1, 5], [2, -1]), Some([1, -1]));
        assert_eq!(f16::combine(Reduce::Sum, f16::ONE, f16::ONE), Some(f16::from_f32(2.0)));
    }

    #[test]
    fn identities_leave_values_unchanged() {
        for op in [Reduce::Sum, Reduce::Min, Reduce::Max] {
            for v in [-3.5f32, 0.0, -0.0, 7.0, f32::INFINITY] {
                let r = f32::combine(op, f32::identity(op), v).unwrap();
                assert_eq!(r.to_bits(), v.to_bits(), "{op:?} {v}");
            }
            for v in [i32::MIN, -1, 0, 5, i32::MAX] {
                assert_eq!(i32::combine(op, i32::identity(op), v), Some(v), "{op:?} {v}");
            }
        }
        assert_eq!(u8::identity(Reduce::Min), 255);
        assert_eq!(<[i64; 2]>::identity(Reduce::Max), [i64::MIN; 2]);
        let c = Complex::new(1.0f64, -2.0);
        assert_eq!(Complex::combine(Reduce::Sum, Complex::identity(Reduce::Sum), c), Some(c));
    }

    #[test]
    fn products_and_start_values() {
        assert_eq!(i32::combine(Reduce::Prod, 3, -4), Some(-12));
        assert_eq!(f64::combine(Reduce::Prod, 1.5, 2.0), Some(3.0));
        assert!(OutputSpec::new::<Complex<f32>>(Reduce::Prod).is_none());
        let start = |op, start| {
            let s = OutputSpec::starting::<f32>(op, start).unwrap();
            f32::from_ne_bytes(s.start_bytes().try_into().unwrap())
        };
        assert_eq!(start(Reduce::Prod, Start::Zero), 0.0);
        assert_eq!(start(Reduce::Prod, Start::Identity), 1.0);
        assert_eq!(start(Reduce::Max, Start::Identity), f32::NEG_INFINITY);
        assert_eq!(start(Reduce::Min, Start::Identity), f32::INFINITY);
        let s = OutputSpec::starting::<i64>(Reduce::Min, Start::Identity).unwrap();
        assert_eq!(s.start_bytes(), i64::MAX.to_ne_bytes());
    }

    #[test]
    fn specs_reject_unsupported_ops_and_combine_raw_bytes() {
        assert!(OutputSpec::new::<Complex<f64>>(Reduce::Min).is_none());
        let s = OutputSpec::new::<f64>(Reduce::Sum).unwrap();
        let mut acc = 1.5f64;
        let v = 2.0f64;
        // SAFETY: both point to f64 values.
        unsafe { s.combine_into(&mut acc as *mut f64 as *mut u8, &v as *const f64 as *const u8) };
        assert_eq!(acc, 3.5);
        assert_eq!(s.size(), 8);
    }
}
