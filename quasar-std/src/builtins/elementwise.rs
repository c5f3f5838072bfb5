//! Element-wise functions: the result has the shape of the argument (a new array).
//!
//! Binary functions take two [`Operand`]s, each an array (`&Array<T>`) or a number (`T`): a
//! number is broadcast over an array; two arrays must have the same shape up to trailing
//! singleton dimensions (`[3]` and `[3, 1]` match, and the result has the longer shape);
//! anything else is a [`ShapeMismatch`](quasar_runtime::Error::ShapeMismatch) error naming
//! the function. Two numbers give a 0-dimensional array of one element.
//!
//! ```
//! use quasar_runtime::Array;
//! use quasar_std::builtins::{add, modulo};
//! let x = Array::from_vec(&[4], vec![-3.0f32, -1.0, 2.0, 5.0]).unwrap();
//! assert_eq!(add(&x, 1.0).unwrap().to_vec().unwrap(), [-2.0, 0.0, 3.0, 6.0]);
//! assert_eq!(modulo(&x, 4.0).unwrap().to_vec().unwrap(), [1.0, 3.0, 2.0, 1.0]);
//! assert!(add(&x, &Array::from_elem(&[2, 2], 0.0).unwrap()).is_err());
//! ```

use super::num::{Arith, Field, Float, Magnitude, Math, Real};
use super::par::{collect_map, collect_zip};
use super::{mismatch, same_shape};
use quasar_runtime::{f16, Array, Complex, Element, Result};

/// An argument of a binary element-wise function: an array, or a number broadcast over the
/// other argument. Made with `.into()` from `&Array<T>` or from a number.
#[derive(Debug)]
pub enum Operand<'a, T: Element> {
    /// A number.
    Scalar(T),
    /// An array.
    Array(&'a Array<T>),
}

impl<T: Element> Clone for Operand<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for Operand<'_, T> {}

impl<'a, T: Element> From<&'a Array<T>> for Operand<'a, T> {
    fn from(a: &'a Array<T>) -> Self {
        Operand::Array(a)
    }
}

macro_rules! scalar_operand {
    ($($t:ty),*) => { $(
        impl From<$t> for Operand<'_, $t> {
            fn from(v: $t) -> Self { Operand::Scalar(v) }
        }
    )* };
}
scalar_operand!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, f16, Complex<f32>, Complex<f64>);

/// `f` applied to every element of `x`: a new array of the same shape. Parallel above
/// [`PARALLEL_MIN`](super::PARALLEL_MIN) elements.
pub fn map<T, U, F>(x: &Array<T>, f: F) -> Result<Array<U>>
where
    T: Element,
    U: Element,
    F: Fn(T) -> U + Sync,
{
    let v = collect_map(&x.host_view()?, &f)?;
    Array::from_vec(x.shape(), v)
}

/// `f` applied to the elements of `a` and `b` pairwise, numbers broadcast (see the module
/// documentation); `name` is the built-in named in errors.
pub fn zip_map<'a, 'b, A, B, U, F>(
    name: &str,
    a: impl Into<Operand<'a, A>>,
    b: impl Into<Operand<'b, B>>,
    f: F,
) -> Result<Array<U>>
where
    A: Element,
    B: Element,
    U: Element,
    F: Fn(A, B) -> U + Sync,
{
    match (a.into(), b.into()) {
        (Operand::Array(x), Operand::Scalar(s)) => map(x, |v| f(v, s)),
        (Operand::Scalar(s), Operand::Array(y)) => map(y, |v| f(s, v)),
        (Operand::Scalar(s), Operand::Scalar(t)) => Array::from_vec(&[], vec![f(s, t)]),
        (Operand::Array(x), Operand::Array(y)) => {
            if !same_shape(x.shape(), y.shape()) {
                return Err(mismatch(name, x.shape(), y.shape()));
            }
            let shape = if y.ndim() > x.ndim() { y.shape() } else { x.shape() };
            let v = collect_zip(&x.host_view()?, &y.host_view()?, &f)?;
            Array::from_vec(shape, v)
        }
    }
}

macro_rules! unary {
    ($($(#[$doc:meta])* $name:ident: $bound:ident => $out:ty, $f:expr;)*) => { $(
        $(#[$doc])*
        pub fn $name<T: $bound>(x: &Array<T>) -> Result<Array<$out>> {
            map(x, $f)
        }
    )* };
}

unary! {
    /// `abs(x)`: the absolute value; the modulus for complex numbers (a real array).
    abs: Magnitude => T::Part, <T as Magnitude>::abs;
    /// `sqrt(x)` (NaN for negative reals; the principal root for complex numbers).
    sqrt: Math => T, <T as Math>::sqrt;
    /// `exp(x)`.
    exp: Math => T, <T as Math>::exp;
    /// `exp2(x)`: `2^x`.
    exp2: Math => T, <T as Math>::exp2;
    /// `log(x)`: the natural logarithm.
    log: Math => T, <T as Math>::log;
    /// `log2(x)`.
    log2: Math => T, <T as Math>::log2;
    /// `log10(x)`.
    log10: Math => T, <T as Math>::log10;
    /// `sin(x)`.
    sin: Math => T, <T as Math>::sin;
    /// `cos(x)`.
    cos: Math => T, <T as Math>::cos;
    /// `tan(x)`.
    tan: Math => T, <T as Math>::tan;
    /// `asin(x)`.
    asin: Math => T, <T as Math>::asin;
    /// `acos(x)`.
    acos: Math => T, <T as Math>::acos;
    /// `atan(x)`.
    atan: Math => T, <T as Math>::atan;
    /// `sinh(x)`.
    sinh: Math => T, <T as Math>::sinh;
    /// `cosh(x)`.
    cosh: Math => T, <T as Math>::cosh;
    /// `tanh(x)`.
    tanh: Math => T, <T as Math>::tanh;
    /// `floor(x)` (integers unchanged).
    floor: Real => T, <T as Real>::floor;
    /// `ceil(x)` (integers unchanged).
    ceil: Real => T, <T as Real>::ceil;
    /// `round(x)`: halves away from zero.
    round: Real => T, <T as Real>::round;
    /// `frac(x) = x - floor(x)`, in `[0, 1)`.
    frac: Real => T, <T as Real>::frac;
    /// `sign(x)`: -1, 0 or 1.
    sign: Real => T, <T as Real>::sign;
    /// `saturate(x)`: clamped to `[0, 1]`.
    saturate: Real => T, <T as Real>::saturate;
    /// `-x` (wrapping for integers).
    neg: Arith => T, <T as Arith>::neg;
    /// `isnan(x)`: 1 where the element is NaN (either part, for complex numbers), else 0.
    isnan: Arith => i32, |v: T| v.is_nan() as i32;
    /// `isinf(x)`: 1 where the element is infinite, else 0.
    isinf: Arith => i32, |v: T| v.is_inf() as i32;
    /// `isfinite(x)`: 1 where the element is neither infinite nor NaN, else 0.
    isfinite: Arith => i32, |v: T| !(v.is_inf() || v.is_nan()) as i32;
}

macro_rules! binary {
    ($($(#[$doc:meta])* $name:ident: $bound:ident, $f:expr;)*) => { $(
        $(#[$doc])*
        pub fn $name<'a, 'b, T: $bound>(
            a: impl Into<Operand<'a, T>>,
            b: impl Into<Operand<'b, T>>,
        ) -> Result<Array<T>> {
            zip_map(stringify!($name), a, b, $f)
        }
    )* };
}

binary! {
    /// `a + b` (wrapping for integers).
    add: Arith, <T as Arith>::add;
    /// `a - b` (wrapping for integers).
    sub: Arith, <T as Arith>::sub;
    /// `a .* b` (wrapping for integers).
    mul: Arith, <T as Arith>::mul;
    /// `a ./ b` (IEEE: `x / 0` is ±inf or NaN).
    div: Field, <T as Field>::div;
    /// `a .^ b`, `pow(a, b)`.
    pow: Math, <T as Math>::pow;
    /// `max(a, b)`, element-wise; NaN-ignoring (see [`Real::max2`]).
    maximum: Real, <T as Real>::max2;
    /// `min(a, b)`, element-wise; NaN-ignoring.
    minimum: Real, <T as Real>::min2;
    /// Quasar's `mod(a, b)`: the sign of the divisor, `mod(x, 0) = x` (see [`Real::modulo`]).
    modulo: Real, <T as Real>::modulo;
    /// `atan2(y, x)` with `a` as `y`.
    atan2: Float, <T as Float>::atan2;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn arr<T: Element>(shape: &[usize], v: Vec<T>) -> Array<T> {
        Array::from_vec(shape, v).unwrap()
    }

    fn vals<T: Element>(a: Result<Array<T>>) -> Vec<T> {
        a.unwrap().to_vec().unwrap()
    }

    #[test]
    fn unary_functions_match_std() {
        let v = vec![0.5f32, 1.0, 2.25, 4.0, 9.5];
        let x = arr(&[5], v.clone());
        type Case = (fn(&Array<f32>) -> Result<Array<f32>>, fn(f32) -> f32);
        let cases: [Case; 8] = [
            (sqrt, f32::sqrt),
            (exp, f32::exp),
            (log, f32::ln),
            (log2, f32::log2),
            (sin, f32::sin),
            (cos, f32::cos),
            (tan, f32::tan),
            (floor, f32::floor),
        ];
        for (ours, std) in cases {
            let got = vals(ours(&x));
            let want: Vec<f32> = v.iter().map(|&e| std(e)).collect();
            assert_eq!(got, want);
        }
        assert_eq!(vals(ceil(&x)), [1.0, 1.0, 3.0, 4.0, 10.0]);
        assert_eq!(vals(round(&x)), [1.0, 1.0, 2.0, 4.0, 10.0]);
        assert_eq!(vals(frac(&x)), [0.5, 0.0, 0.25, 0.0, 0.5]);
        assert_eq!(vals(neg(&x))[0], -0.5);
        let m = arr(&[2, 2], vec![-1.5f64, 2.0, -0.0, 3.0]);
        assert_eq!(vals(abs(&m)), [1.5, 2.0, 0.0, 3.0]);
        assert_eq!(abs(&m).unwrap().shape(), &[2, 2]);
        let i = arr(&[3], vec![-4i32, 0, i32::MIN]);
        assert_eq!(vals(abs(&i)), [4, 0, i32::MIN]);
        assert_eq!(vals(sign(&i)), [-1, 0, -1]);
    }

    #[test]
    fn complex_functions() {
        let z = arr(&[2], vec![Complex::new(3.0f32, 4.0), Complex::new(-1.0, 0.0)]);
        assert_eq!(vals(abs(&z)), [5.0, 1.0]);
        let r = vals(sqrt(&z));
        assert!((r[1] - Complex::new(0.0, 1.0)).norm() < 1e-6, "{r:?}");
        let e = vals(exp(&z));
        assert!((e[0] - Complex::new(3.0f32, 4.0).exp()).norm() < 1e-6);
        let p = vals(pow(&z, Complex::new(2.0, 0.0)));
        assert!((p[0] - Complex::new(-7.0, 24.0)).norm() < 1e-3, "{p:?}");
    }

    #[test]
    fn predicates_give_ints() {
        let x = arr(&[4], vec![1.0f32, f32::NAN, f32::INFINITY, -0.0]);
        assert_eq!(vals(isnan(&x)), [0, 1, 0, 0]);
        assert_eq!(vals(isinf(&x)), [0, 0, 1, 0]);
        assert_eq!(vals(isfinite(&x)), [1, 0, 0, 1]);
        let z = arr(&[1], vec![Complex::new(0.0f64, f64::NAN)]);
        assert_eq!(vals(isnan(&z)), [1]);
    }

    #[test]
    fn binary_broadcasts_numbers_and_matches_shapes() {
        let a = arr(&[2, 3], (0..6).map(|i| i as f32).collect());
        let b = arr(&[2, 3], vec![1.0f32; 6]);
        assert_eq!(vals(add(&a, &b)), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(vals(sub(10.0, &a)), [10.0, 9.0, 8.0, 7.0, 6.0, 5.0]);
        assert_eq!(vals(sub(&a, 1.0)), [-1.0, 0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(vals(mul(&a, &a)), [0.0, 1.0, 4.0, 9.0, 16.0, 25.0]);
        assert_eq!(vals(div(&a, 2.0)), [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]);
        assert_eq!(vals(pow(2.0, &a)), [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]);
        assert_eq!(vals(maximum(&a, 2.5)), [2.5, 2.5, 2.5, 3.0, 4.0, 5.0]);
        assert_eq!(vals(minimum(&a, 2.5)), [0.0, 1.0, 2.0, 2.5, 2.5, 2.5]);
        assert_eq!(add(&a, &b).unwrap().shape(), &[2, 3]);
        // Same data on both sides is fine (two read borrows).
        assert_eq!(vals(add(&a, &a))[5], 10.0);
        let e = add(&a, &arr(&[3, 2], vec![0.0f32; 6])).unwrap_err();
        assert_eq!(e.to_string(), "shape mismatch in `add`: [2, 3] vs [3, 2]");
        // Trailing singleton dimensions do not matter; the longer shape wins.
        let v = arr(&[3], vec![1i32, 2, 3]);
        let c = arr(&[3, 1], vec![10i32, 20, 30]);
        let s = add(&v, &c).unwrap();
        assert_eq!(s.shape(), &[3, 1]);
        assert_eq!(s.to_vec().unwrap(), [11, 22, 33]);
        let two = add(1i32, 2i32).unwrap();
        assert_eq!((two.shape().len(), two.to_vec().unwrap()), (0, vec![3]));
        assert_eq!(vals(add(&arr(&[1], vec![i32::MAX]), 1)), [i32::MIN]);
    }

    #[test]
    fn mod_and_atan2() {
        let x = arr(&[5], vec![-7i32, -1, 0, 3, 9]);
        assert_eq!(vals(modulo(&x, 4)), [1, 3, 0, 3, 1]);
        assert_eq!(vals(modulo(&x, -4)), [-3, -1, 0, -1, -3]);
        assert_eq!(vals(modulo(&x, 0)), [-7, -1, 0, 3, 9]);
        let y = arr(&[2], vec![1.0f64, -1.0]);
        let got = vals(atan2(&y, -1.0));
        assert_eq!(got, [1.0f64.atan2(-1.0), (-1.0f64).atan2(-1.0)]);
    }

    #[test]
    fn large_arrays_run_in_parallel_and_agree() {
        let n = 200_003;
        let a = Array::from_fn(&[n], |i| i as f32 * 0.5).unwrap();
        let s = vals(mul(&a, 2.0));
        assert!(s.iter().enumerate().all(|(i, &v)| v == i as f32));
        let b = vals(add(&a, &a));
        assert_eq!(s, b);
        let l = vals(map(&a, |v| v as i64));
        assert_eq!(l[n - 1], ((n - 1) as f32 * 0.5) as i64);
    }

    #[test]
    fn borrowed_output_style_errors_are_reported() {
        let a = arr(&[2], vec![1.0f32, 2.0]);
        let _w = a.host_view_mut().unwrap();
        assert!(sqrt(&a).is_err());
    }

    proptest! {
        #[test]
        fn mod_is_in_range_and_congruent(x in -1000i32..1000, y in 1i32..50) {
            let m = Real::modulo(x, y);
            prop_assert!((0..y).contains(&m));
            prop_assert_eq!((x - m) % y, 0);
            let f = Real::modulo(x as f32 + 0.25, y as f32);
            prop_assert!(f >= 0.0 && f < y as f32);
        }
    }
}
