//! Reductions: `sum prod mean min max` over all elements, or along one dimension
//! (`sum(x, d)`: the result keeps the rank, with dimension `d` of length 1), and `dotprod`.
//!
//! **Accuracy.** Sums and products are *pairwise*: leaves of [`LEAF`] elements are summed in 8
//! interleaved lanes (which the compiler vectorises), and leaf results are combined in a
//! balanced binary tree, so the rounding error grows like `log2(n)` ulps instead of `n`
//! (10⁷ additions of `0.1f32` are off by ~10⁻⁸ relative instead of 9%). The tree depends only
//! on the length, never on the number of threads: results are reproducible, and the parallel
//! version (rayon, above [`PARALLEL_MIN`] elements) gives exactly the
//! serial result. Along a dimension the same scheme runs over the reduced dimension, 8 rows
//! per leaf, a tile of columns at a time.
//!
//! **NaN.** `sum`/`prod`/`mean` propagate NaNs. `min`/`max` ignore them (IEEE `maxNum`, as
//! MATLAB and CUDA's `fmaxf`): the result is NaN only when every element is NaN.
//!
//! **Empty arrays.** `sum` is 0, `prod` is 1, `mean` is NaN (0/0); `min`/`max` are errors.

use super::num::{Arith, Cast, Field, Real};
use super::par::{for_pieces, PARALLEL_MIN};
use super::{alloc, dim_arg, invalid, mismatch, same_shape};
use quasar_runtime::{Array, Element, Result};

/// Elements per leaf of the pairwise tree.
pub const LEAF: usize = 256;
/// Lanes of a leaf (independent running sums, so that the loop vectorises).
const LANES: usize = 8;
/// Columns per tile in reductions along a dimension.
const TILE: usize = 64;
/// Rows per leaf in reductions along a dimension.
const ROW_LEAF: usize = 8;

/// Folds `x` (each element mapped by `conv`) with the associative `op` over the fixed
/// pairwise tree; `empty` is the result for an empty `x`. No identity element is needed
/// otherwise (so `min`/`max` use the same code).
#[inline]
pub(crate) fn pairwise<T, C, V, O>(x: &[T], empty: C, conv: &V, op: &O) -> C
where
    T: Copy + Sync,
    C: Copy + Send,
    V: Fn(T) -> C + Sync,
    O: Fn(C, C) -> C + Sync,
{
    if x.is_empty() {
        return empty;
    }
    tree(x, conv, op, x.len() >= PARALLEL_MIN)
}

/// The pairwise fold of a non-empty `x`.
fn tree<T, C, V, O>(x: &[T], conv: &V, op: &O, parallel: bool) -> C
where
    T: Copy + Sync,
    C: Copy + Send,
    V: Fn(T) -> C + Sync,
    O: Fn(C, C) -> C + Sync,
{
    let n = x.len();
    if n <= LEAF {
        return leaf(x, conv, op);
    }
    // Split at a multiple of LEAF near the middle: the tree is a function of n only.
    let mid = n.div_ceil(LEAF).div_ceil(2) * LEAF;
    let (l, r) = x.split_at(mid);
    let (a, b) = if parallel && n >= PARALLEL_MIN {
        rayon::join(|| tree(l, conv, op, true), || tree(r, conv, op, true))
    } else {
        (tree(l, conv, op, false), tree(r, conv, op, false))
    };
    op(a, b)
}

/// A leaf: `LANES` interleaved running folds (independent, so the loop vectorises), then
/// combined pairwise. `x` is not empty.
#[inline]
fn leaf<T, C, V, O>(x: &[T], conv: &V, op: &O) -> C
where
    T: Copy,
    C: Copy,
    V: Fn(T) -> C,
    O: Fn(C, C) -> C,
{
    if x.len() < LANES {
        let mut acc = conv(x[0]);
        for &v in &x[1..] {
            acc = op(acc, conv(v));
        }
        return acc;
    }
    let mut lanes: [C; LANES] = std::array::from_fn(|j| conv(x[j]));
    let mut chunks = x[LANES..].chunks_exact(LANES);
    for c in &mut chunks {
        for j in 0..LANES {
            lanes[j] = op(lanes[j], conv(c[j]));
        }
    }
    for (j, &v) in chunks.remainder().iter().enumerate() {
        lanes[j] = op(lanes[j], conv(v));
    }
    let [a, b, c, d, e, f, g, h] = lanes;
    op(op(op(a, b), op(c, d)), op(op(e, f), op(g, h)))
}

/// `sum(x)`: the sum of all elements, in the computation type (`int` for the narrow integer
/// types; integers wrap). Pairwise, see the module documentation.
pub fn sum<T: Arith>(x: &Array<T>) -> Result<T::Calc> {
    let v = x.host_view()?;
    Ok(pairwise(&v, <T::Calc as Arith>::ZERO, &T::calc, &<T::Calc as Arith>::add))
}

/// `prod(x)`: the product of all elements (1 for an empty array), pairwise.
pub fn prod<T: Arith>(x: &Array<T>) -> Result<T::Calc> {
    let v = x.host_view()?;
    Ok(pairwise(&v, <T::Calc as Arith>::ONE, &T::calc, &<T::Calc as Arith>::mul))
}

/// `mean(x)`: the average of all elements in `F` (`scalar` for integer and real arrays,
/// `cscalar` for complex ones), NaN for an empty array. The sum is pairwise in `F`.
pub fn mean<T: Element + Cast<F>, F: Field>(x: &Array<T>) -> Result<F> {
    let v = x.host_view()?;
    let s = pairwise(&v, F::ZERO, &<T as Cast<F>>::cast, &F::add);
    Ok(s.div(F::from_count(v.len())))
}

/// `max(x)`: the largest element, ignoring NaNs (NaN when all are); an error when empty.
pub fn max<T: Real>(x: &Array<T>) -> Result<T> {
    extremum("max", x, Real::max2)
}

/// `min(x)`: the smallest element, ignoring NaNs (NaN when all are); an error when empty.
pub fn min<T: Real>(x: &Array<T>) -> Result<T> {
    extremum("min", x, Real::min2)
}

fn extremum<T: Real, O: Fn(T, T) -> T + Sync>(name: &str, x: &Array<T>, op: O) -> Result<T> {
    let v = x.host_view()?;
    if v.is_empty() {
        return Err(invalid(name, x.shape(), "the array is empty"));
    }
    Ok(super::extremum::fold(&v, &op))
}

/// `dotprod(a, b)`: `sum(a .* b)` over two arrays of the same shape (up to trailing
/// singleton dimensions), pairwise.
pub fn dotprod<T: Arith>(a: &Array<T>, b: &Array<T>) -> Result<T::Calc> {
    if !same_shape(a.shape(), b.shape()) {
        return Err(mismatch("dotprod", a.shape(), b.shape()));
    }
    let (av, bv) = (a.host_view()?, b.host_view()?);
    Ok(dot_slices(&av, &bv))
}

/// The pairwise dot product of two slices of the same length.
pub(crate) fn dot_slices<T: Arith>(a: &[T], b: &[T]) -> T::Calc {
    let zero = <T::Calc as Arith>::ZERO;
    dot_tree(a, b, zero, a.len() >= PARALLEL_MIN)
}

fn dot_tree<T: Arith>(a: &[T], b: &[T], zero: T::Calc, parallel: bool) -> T::Calc {
    let n = a.len();
    if n <= LEAF {
        let mut lanes = [zero; LANES];
        let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
        let (ra, rb) = (ca.remainder(), cb.remainder());
        for (x, y) in ca.zip(cb) {
            for j in 0..LANES {
                lanes[j] = lanes[j].add(x[j].calc().mul(y[j].calc()));
            }
        }
        for (j, (x, y)) in ra.iter().zip(rb).enumerate() {
            lanes[j] = lanes[j].add(x.calc().mul(y.calc()));
        }
        let [p, q, r, s, t, u, v, w] = lanes;
        return p.add(q).add(r.add(s)).add(t.add(u).add(v.add(w)));
    }
    let mid = n.div_ceil(LEAF).div_ceil(2) * LEAF;
    let ((al, ar), (bl, br)) = (a.split_at(mid), b.split_at(mid));
    let (x, y) = if parallel && n >= PARALLEL_MIN {
        rayon::join(|| dot_tree(al, bl, zero, true), || dot_tree(ar, br, zero, true))
    } else {
        (dot_tree(al, bl, zero, false), dot_tree(ar, br, zero, false))
    };
    x.add(y)
}

/// The geometry of a reduction along dimension `d`: `x` seen as `[outer, len, inner]`.
struct Along {
    outer: usize,
    len: usize,
    inner: usize,
    out_shape: Vec<usize>,
}

fn along(name: &str, shape: &[usize], d: i32) -> Result<Along> {
    let d = dim_arg(name, shape, d)?;
    let rank = shape.len().max(d + 1);
    let mut out_shape: Vec<usize> = (0..rank).map(|i| shape.get(i).copied().unwrap_or(1)).collect();
    let len = out_shape[d];
    out_shape[d] = 1;
    let outer = out_shape[..d].iter().product();
    let inner = out_shape[d + 1..].iter().product();
    Ok(Along { outer, len, inner, out_shape })
}

/// Reduces `x` along dimension `d` with `op`, mapping elements by `conv`; `empty` is the
/// result where dimension `d` has length 0.
fn reduce_dim<T, C, V, O>(
    name: &str,
    x: &Array<T>,
    d: i32,
    empty: C,
    conv: V,
    op: O,
) -> Result<Array<C>>
where
    T: Element,
    C: Element,
    V: Fn(T) -> C + Sync,
    O: Fn(C, C) -> C + Sync,
{
    let g = along(name, x.shape(), d)?;
    let out = alloc::<C>(name, &g.out_shape)?;
    let src_view = x.host_view()?;
    let src: &[T] = &src_view;
    let mut dst = out.host_view_mut()?;
    let parallel = src.len() >= PARALLEL_MIN;
    let (len, inner) = (g.len, g.inner);
    if len == 0 {
        dst.fill(empty);
    } else if inner == 1 {
        // Contiguous lines: one pairwise fold per output element.
        let per = (PARALLEL_MIN / len).max(1);
        for_pieces(&mut dst, per, parallel, |k, piece| {
            for (i, o) in piece.iter_mut().enumerate() {
                let line = &src[(k * per + i) * len..][..len];
                *o = tree(line, &conv, &op, false);
            }
        });
    } else {
        // Rows of `inner` elements: pairwise over the rows, a tile of columns at a time.
        for_pieces(&mut dst, inner, parallel && g.outer > 1, |o, row| {
            let base = o * len * inner;
            for_pieces(row, TILE, parallel && g.outer == 1, |t, cols| {
                let w = cols.len();
                let acc = row_tree(src, base + t * TILE, 0, len, inner, w, &conv, &op);
                cols.copy_from_slice(&acc[..w]);
            });
        });
    }
    drop(dst);
    Ok(out)
}

/// The pairwise fold of rows `k0..k1` (at least one) of the tile of `w` columns starting at
/// `base`; entries past `w` are unspecified.
#[allow(clippy::too_many_arguments)]
fn row_tree<T, C, V, O>(
    src: &[T],
    base: usize,
    k0: usize,
    k1: usize,
    inner: usize,
    w: usize,
    conv: &V,
    op: &O,
) -> [C; TILE]
where
    T: Copy,
    C: Copy,
    V: Fn(T) -> C,
    O: Fn(C, C) -> C,
{
    if k1 - k0 <= ROW_LEAF {
        let first = &src[base + k0 * inner..][..w];
        let mut acc = [conv(first[0]); TILE];
        for (a, &v) in acc.iter_mut().zip(first) {
            *a = conv(v);
        }
        for k in k0 + 1..k1 {
            let row = &src[base + k * inner..][..w];
            for (a, &v) in acc.iter_mut().zip(row) {
                *a = op(*a, conv(v));
            }
        }
        return acc;
    }
    let mid = k0 + (k1 - k0).div_ceil(ROW_LEAF).div_ceil(2) * ROW_LEAF;
    let mut l = row_tree(src, base, k0, mid, inner, w, conv, op);
    let r = row_tree(src, base, mid, k1, inner, w, conv, op);
    for (a, &b) in l.iter_mut().zip(&r).take(w) {
        *a = op(*a, b);
    }
    l
}

/// `sum(x, d)`: sums along dimension `d`; the result has dimension `d` of length 1 (and at
/// least `d + 1` dimensions). Pairwise along `d`.
pub fn sum_dim<T: Arith>(x: &Array<T>, d: i32) -> Result<Array<T::Calc>> {
    reduce_dim("sum", x, d, <T::Calc as Arith>::ZERO, T::calc, <T::Calc as Arith>::add)
}

/// `prod(x, d)`: products along dimension `d` (1 where it is empty).
pub fn prod_dim<T: Arith>(x: &Array<T>, d: i32) -> Result<Array<T::Calc>> {
    reduce_dim("prod", x, d, <T::Calc as Arith>::ONE, T::calc, <T::Calc as Arith>::mul)
}

/// `mean(x, d)`: averages along dimension `d` (NaN where it is empty).
pub fn mean_dim<T: Element + Cast<F>, F: Field>(x: &Array<T>, d: i32) -> Result<Array<F>> {
    let s = reduce_dim("mean", x, d, F::ZERO, <T as Cast<F>>::cast, F::add)?;
    let n = F::from_count(x.size(d as usize));
    {
        let mut v = s.host_view_mut()?;
        for e in v.iter_mut() {
            *e = e.div(n);
        }
    }
    Ok(s)
}

/// `max(x, d)`: the largest elements along dimension `d`, NaN-ignoring; an error when that
/// dimension is empty (and the result is not).
pub fn max_dim<T: Real>(x: &Array<T>, d: i32) -> Result<Array<T>> {
    extremum_dim("max", x, d, Real::max2)
}

/// `min(x, d)`: the smallest elements along dimension `d`, NaN-ignoring.
pub fn min_dim<T: Real>(x: &Array<T>, d: i32) -> Result<Array<T>> {
    extremum_dim("min", x, d, Real::min2)
}

fn extremum_dim<T: Real, O: Fn(T, T) -> T + Sync>(
    name: &str,
    x: &Array<T>,
    d: i32,
    op: O,
) -> Result<Array<T>> {
    let g = along(name, x.shape(), d)?;
    if g.len == 0 && g.outer * g.inner > 0 {
        return Err(invalid(name, x.shape(), format!("dimension {d} is empty")));
    }
    reduce_dim(name, x, d, T::ZERO, |v| v, op)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use quasar_runtime::Complex;

    /// A deterministic pseudo-random f32 in [-1, 1).
    fn noise(i: usize) -> f32 {
        let h = (i as u64 ^ 0x9e37_79b9_7f4a_7c15).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let h = (h ^ (h >> 31)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((h >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    #[test]
    fn sum_of_ten_million_tenths_is_accurate() {
        let n = 10_000_000;
        let x = Array::from_elem(&[n], 0.1f32).unwrap();
        let exact = n as f64 * 0.1f32 as f64;
        let ours = sum(&x).unwrap() as f64;
        let rel = ((ours - exact) / exact).abs();
        assert!(rel < 1e-6, "pairwise sum {ours} vs {exact}: relative error {rel}");
        // A naive running f32 sum is off by far more.
        let naive = x.host_view().unwrap().iter().fold(0.0f32, |a, &b| a + b) as f64;
        let naive_rel = ((naive - exact) / exact).abs();
        assert!(naive_rel > 1e-2, "naive {naive}: {naive_rel}");
        assert!(naive_rel > 1000.0 * rel);
        // The mean too.
        let m: f32 = mean(&x).unwrap();
        assert!((m as f64 / 0.1f32 as f64 - 1.0).abs() < 1e-6, "{m}");
    }

    #[test]
    fn parallel_result_equals_serial_result_bit_for_bit() {
        let n = 3 * PARALLEL_MIN + 12345;
        let v: Vec<f32> = (0..n).map(noise).collect();
        let add = |a: f32, b: f32| a + b;
        let par = pairwise(&v, 0.0, &|e| e, &add);
        let ser = tree(&v, &|e| e, &add, false);
        assert_eq!(par.to_bits(), ser.to_bits());
        let x = Array::from_vec(&[n], v).unwrap();
        assert_eq!(sum(&x).unwrap().to_bits(), ser.to_bits());
    }

    #[test]
    fn sums_products_and_means() {
        let x = Array::from_vec(&[2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert_eq!(sum(&x).unwrap(), 21.0);
        assert_eq!(prod(&x).unwrap(), 720.0);
        assert_eq!(mean::<_, f32>(&x).unwrap(), 3.5);
        let b = Array::from_vec(&[3], vec![200u8, 100, 250]).unwrap();
        assert_eq!(sum(&b).unwrap(), 550i32);
        assert_eq!(mean::<_, f64>(&b).unwrap(), 550.0 / 3.0);
        let i = Array::from_vec(&[2], vec![i32::MAX, 1]).unwrap();
        assert_eq!(sum(&i).unwrap(), i32::MIN);
        let z = Array::from_vec(&[2], vec![Complex::new(1.0f64, 2.0), Complex::new(3.0, -1.0)])
            .unwrap();
        assert_eq!(sum(&z).unwrap(), Complex::new(4.0, 1.0));
        assert_eq!(mean::<_, Complex<f64>>(&z).unwrap(), Complex::new(2.0, 0.5));
        let e = Array::<f32>::zeros(&[0, 3]).unwrap();
        assert_eq!((sum(&e).unwrap(), prod(&e).unwrap()), (0.0, 1.0));
        assert!(mean::<_, f32>(&e).unwrap().is_nan());
        let ints = Array::from_fn(&[100_000], |i| (i % 7) as i32).unwrap();
        assert_eq!(sum(&ints).unwrap(), (0..100_000).map(|i| i % 7).sum::<i32>());
        let a = Array::from_fn(&[1000], |i| noise(i) as f64).unwrap();
        let b = Array::from_fn(&[1000, 1], |i| noise(i + 7) as f64).unwrap();
        let want: f64 = (0..1000).map(|i| noise(i) as f64 * noise(i + 7) as f64).sum();
        assert!((dotprod(&a, &b).unwrap() - want).abs() < 1e-12);
        assert!(dotprod(&a, &Array::<f64>::zeros(&[999]).unwrap()).is_err());
    }

    #[test]
    fn min_max_ignore_nan_and_reject_empty() {
        let x = Array::from_vec(&[5], vec![3.0f32, f32::NAN, -2.0, 7.5, f32::NAN]).unwrap();
        assert_eq!((min(&x).unwrap(), max(&x).unwrap()), (-2.0, 7.5));
        let all_nan = Array::from_elem(&[40], f32::NAN).unwrap();
        assert!(max(&all_nan).unwrap().is_nan());
        let i = Array::from_fn(&[70_000], |k| (k as i32 * 7919) % 10007 - 5000).unwrap();
        let v = i.to_vec().unwrap();
        assert_eq!(max(&i).unwrap(), *v.iter().max().unwrap());
        assert_eq!(min(&i).unwrap(), *v.iter().min().unwrap());
        let e = max(&Array::<f32>::zeros(&[0]).unwrap()).unwrap_err();
        assert_eq!(e.to_string(), "invalid shape [0]: `max`: the array is empty");
    }

    /// `sum(x, d)` by direct indexing, in f64.
    fn sum_dim_ref(x: &Array<f32>, d: usize) -> (Vec<usize>, Vec<f64>) {
        let rank = x.ndim().max(d + 1);
        let dims: Vec<usize> = (0..rank).map(|i| x.size(i)).collect();
        let (outer, len, inner) =
            (dims[..d].iter().product::<usize>(), dims[d], dims[d + 1..].iter().product::<usize>());
        let v = x.to_vec().unwrap();
        let mut out = vec![0.0; outer * inner];
        for o in 0..outer {
            for k in 0..len {
                for j in 0..inner {
                    out[o * inner + j] += v[(o * len + k) * inner + j] as f64;
                }
            }
        }
        let mut shape = dims;
        shape[d] = 1;
        (shape, out)
    }

    #[test]
    fn sum_along_each_dimension_keeps_the_rank() {
        for shape in [&[3usize, 4, 5][..], &[1, 7], &[6], &[2, 300, 3], &[9, 1000], &[40_000, 2]] {
            let x = Array::from_fn(shape, noise).unwrap();
            for d in 0..shape.len() + 2 {
                let s = sum_dim(&x, d as i32).unwrap();
                let (want_shape, want) = sum_dim_ref(&x, d);
                assert_eq!(s.shape(), &want_shape[..], "shape {shape:?} d {d}");
                let len = x.size(d) as f64;
                for (g, w) in s.to_vec().unwrap().iter().zip(&want) {
                    assert!((*g as f64 - w).abs() <= 1e-6 * len.max(1.0), "{g} vs {w}");
                }
            }
        }
        let e = sum_dim(&Array::<f32>::zeros(&[2]).unwrap(), -1).unwrap_err();
        assert!(e.to_string().contains("`sum`: dimension -1 is out of range"), "{e}");
    }

    #[test]
    fn other_reductions_along_a_dimension() {
        let x = Array::from_vec(&[2, 3], vec![1i32, 5, 3, 4, 2, 6]).unwrap();
        assert_eq!(max_dim(&x, 0).unwrap().to_vec().unwrap(), [4, 5, 6]);
        assert_eq!(max_dim(&x, 1).unwrap().to_vec().unwrap(), [5, 6]);
        assert_eq!(min_dim(&x, 0).unwrap().shape(), &[1, 3]);
        assert_eq!(min_dim(&x, 1).unwrap().to_vec().unwrap(), [1, 2]);
        assert_eq!(prod_dim(&x, 1).unwrap().to_vec().unwrap(), [15, 48]);
        let m: Array<f32> = mean_dim(&x, 0).unwrap();
        assert_eq!(m.to_vec().unwrap(), [2.5, 3.5, 4.5]);
        let f = Array::from_vec(&[2, 2], vec![f32::NAN, 1.0, 2.0, f32::NAN]).unwrap();
        assert_eq!(max_dim(&f, 0).unwrap().to_vec().unwrap(), [2.0, 1.0]);
        let empty = Array::<f32>::zeros(&[0, 3]).unwrap();
        assert_eq!(sum_dim(&empty, 0).unwrap().to_vec().unwrap(), [0.0; 3]);
        assert_eq!(prod_dim(&empty, 0).unwrap().to_vec().unwrap(), [1.0; 3]);
        assert!(mean_dim::<_, f32>(&empty, 0).unwrap().to_vec().unwrap()[0].is_nan());
        assert!(max_dim(&empty, 0).unwrap_err().to_string().contains("dimension 0 is empty"));
        assert_eq!(max_dim(&empty, 1).unwrap().shape(), &[0, 1]);
        // Column tiles in parallel (outer == 1) and rows in parallel (outer > 1).
        let big = Array::from_fn(&[100, 1000], |i| (i % 1000) as i32 - (i / 1000) as i32).unwrap();
        let mx = max_dim(&big, 0).unwrap().to_vec().unwrap();
        assert!(mx.iter().enumerate().all(|(j, &v)| v == j as i32));
        let mn = min_dim(&big, 1).unwrap().to_vec().unwrap();
        assert!(mn.iter().enumerate().all(|(i, &v)| v == -(i as i32)));
    }

    proptest! {
        #[test]
        fn pairwise_sum_is_close_to_the_f64_sum(
            v in proptest::collection::vec(-1e3f32..1e3, 0..5000),
        ) {
            let x = Array::from_vec(&[v.len()], v.clone()).unwrap();
            let ours = sum(&x).unwrap() as f64;
            let exact: f64 = v.iter().map(|&e| e as f64).sum();
            let abs: f64 = v.iter().map(|&e| (e as f64).abs()).sum();
            let depth = (LEAF / LANES) as f64 + 3.0 + (v.len().max(1) as f64).log2();
            prop_assert!((ours - exact).abs() <= depth * f32::EPSILON as f64 * abs + 1e-30,
                "{} vs {}", ours, exact);
        }
    }
}
