//! Small fixed-size vectors `[T; N]` (Quasar's `vec3`, `ivec2`, `mat(2,2)` …, ≤ 64
//! elements): element-wise helpers that stay in registers and unroll, and conversions to and
//! from [`Array`]s.

use crate::builtins::num::Arith;
use quasar_runtime::{Array, Element, Error, Result};

/// `f` applied to every element.
#[inline(always)]
pub fn map<T, U, const N: usize>(a: [T; N], f: impl Fn(T) -> U) -> [U; N] {
    a.map(f)
}

/// `f` applied to the elements of `a` and `b` pairwise.
#[inline(always)]
pub fn zip<T: Copy, U: Copy, V, const N: usize>(
    a: [T; N],
    b: [U; N],
    f: impl Fn(T, U) -> V,
) -> [V; N] {
    std::array::from_fn(|i| f(a[i], b[i]))
}

/// An integer vector used as an index, every component as `i64` (the `as` conversion of each):
/// one call where generated code would otherwise spell out a cast per component.
#[inline(always)]
pub fn widen<T: IndexInt, const N: usize>(a: [T; N]) -> [i64; N] {
    a.map(T::as_i64)
}

/// The integer element types of index vectors.
pub trait IndexInt: Copy {
    /// `self as i64`.
    fn as_i64(self) -> i64;
}

macro_rules! index_int {
    ($($t:ty)*) => { $(impl IndexInt for $t {
        #[inline(always)]
        fn as_i64(self) -> i64 { self as i64 }
    })* };
}
index_int!(i8 i16 i32 i64 u8 u16 u32 u64 isize usize);

/// Every element `v` (a number broadcast to a vector).
#[inline(always)]
pub fn splat<T: Copy, const N: usize>(v: T) -> [T; N] {
    [v; N]
}

/// The sum of the elements (integers wrap).
#[inline(always)]
pub fn sum<T: Arith, const N: usize>(a: [T; N]) -> T {
    a.iter().fold(T::ZERO, |s, &x| s.add(x))
}

/// The product of the elements (integers wrap).
#[inline(always)]
pub fn prod<T: Arith, const N: usize>(a: [T; N]) -> T {
    a.iter().fold(T::ONE, |s, &x| s.mul(x))
}

/// `dotprod(a, b)` = `sum(a .* b)` (no conjugation, as the built-in).
#[inline(always)]
pub fn dot<T: Arith, const N: usize>(a: [T; N], b: [T; N]) -> T {
    a.iter().zip(&b).fold(T::ZERO, |s, (&x, &y)| s.add(x.mul(y)))
}

/// The vector as an array of shape `shape` (whose element count must be `N`).
pub fn to_array<T: Element, const N: usize>(a: [T; N], shape: &[usize]) -> Result<Array<T>> {
    Array::from_vec(shape, a.to_vec())
}

/// The elements of `a` (named `name` in errors) as a fixed vector; `numel(a)` must be `N`.
pub fn from_array<T: Element, const N: usize>(a: &Array<T>, name: &str) -> Result<[T; N]> {
    let v = a.host_view()?;
    <[T; N]>::try_from(&v[..]).map_err(|_| Error::ShapeMismatch {
        operation: format!("conversion of `{name}` to a vector of {N} elements"),
        left: a.shape().to_vec(),
        right: vec![N],
    })
}
