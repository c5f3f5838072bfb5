//! Running reductions: `cumsum` and `cumprod`, along a dimension. The result has the shape of
//! the argument; element `k` along the dimension combines elements `0..=k`.
//!
//! Without a dimension they run along the **first non-singleton dimension**, as in MATLAB
//! (the manual does not say; for Quasar's vectors this is their only dimension, and for a
//! `1 × n` row it is dimension 1). A dimension past the last one has length 1, so the result
//! is the argument itself (converted to the computation type).
//!
//! `cumsum` accumulates floating-point numbers in a double-word (TwoSum with renormalisation,
//! see [`Arith::add_compensated`]): every partial sum is accurate to about one ulp however
//! long the run, instead of drifting with its length. Integers wrap.

use super::num::Arith;
use super::par::{for_pieces, PARALLEL_MIN};
use super::{alloc, dim_arg};
use quasar_runtime::{Array, Element, Result};
use rayon::prelude::*;

/// Columns handled together when running along a dimension that is not the last.
const TILE: usize = 512;

/// `cumsum(x)`: running sums along the first non-singleton dimension.
pub fn cumsum<T: Arith>(x: &Array<T>) -> Result<Array<T::Calc>> {
    cumsum_dim(x, first_non_singleton(x.shape()))
}

/// `cumsum(x, d)`: running sums along dimension `d` (compensated for floats).
pub fn cumsum_dim<T: Arith>(x: &Array<T>, d: i32) -> Result<Array<T::Calc>> {
    scan("cumsum", x, d, <T::Calc as Arith>::ZERO, |sum: &mut T::Calc, comp: &mut T::Calc, v: T| {
        <T::Calc as Arith>::add_compensated(sum, comp, v.calc());
        sum.add(*comp)
    })
}

/// `cumprod(x)`: running products along the first non-singleton dimension.
pub fn cumprod<T: Arith>(x: &Array<T>) -> Result<Array<T::Calc>> {
    cumprod_dim(x, first_non_singleton(x.shape()))
}

/// `cumprod(x, d)`: running products along dimension `d`.
pub fn cumprod_dim<T: Arith>(x: &Array<T>, d: i32) -> Result<Array<T::Calc>> {
    scan("cumprod", x, d, <T::Calc as Arith>::ONE, |acc: &mut T::Calc, _: &mut T::Calc, v: T| {
        *acc = acc.mul(v.calc());
        *acc
    })
}

fn first_non_singleton(shape: &[usize]) -> i32 {
    shape.iter().position(|&d| d != 1).unwrap_or(0) as i32
}

/// The running fold of `x` along `d`. `step(acc, comp, v)` adds `v` to the state (`acc`, and a
/// compensation `comp` starting at zero) and returns the value to store; `init` starts `acc`.
fn scan<T, C, S>(name: &str, x: &Array<T>, d: i32, init: C, step: S) -> Result<Array<C>>
where
    T: Element,
    C: Arith,
    S: Fn(&mut C, &mut C, T) -> C + Sync,
{
    let d = dim_arg(name, x.shape(), d)?;
    let out = alloc::<C>(name, x.shape())?;
    let len = x.size(d);
    let inner: usize = x.shape().iter().skip(d + 1).product();
    let src_view = x.host_view()?;
    let src: &[T] = &src_view;
    let mut dst = out.host_view_mut()?;
    if dst.is_empty() {
        drop(dst);
        return Ok(out);
    }
    let parallel = dst.len() >= PARALLEL_MIN;
    let block = len * inner;
    let outer = dst.len() / block;
    if inner == 1 {
        // Contiguous lines.
        let lines = (PARALLEL_MIN / len).max(1);
        for_pieces(&mut dst, lines * len, parallel, |k, piece| {
            for (i, line) in piece.chunks_mut(len).enumerate() {
                let s = &src[(k * lines + i) * len..][..len];
                let (mut acc, mut comp) = (init, C::ZERO);
                for (o, &v) in line.iter_mut().zip(s) {
                    *o = step(&mut acc, &mut comp, v);
                }
            }
        });
    } else if parallel && outer == 1 {
        // One block of `len` rows: run over tiles of columns in parallel.
        let mut tiles: Vec<Vec<&mut [C]>> =
            (0..inner.div_ceil(TILE)).map(|_| Vec::with_capacity(len)).collect();
        for row in dst.chunks_mut(inner) {
            for (t, piece) in row.chunks_mut(TILE).enumerate() {
                tiles[t].push(piece);
            }
        }
        tiles.into_par_iter().enumerate().for_each(|(t, rows)| {
            let j0 = t * TILE;
            let mut acc = [init; TILE];
            let mut comp = [C::ZERO; TILE];
            for (k, row) in rows.into_iter().enumerate() {
                let s = &src[k * inner + j0..][..row.len()];
                for (((o, &v), a), c) in row.iter_mut().zip(s).zip(&mut acc).zip(&mut comp) {
                    *o = step(a, c, v);
                }
            }
        });
    } else {
        // Blocks of `len` rows, in parallel over the blocks.
        for_pieces(&mut dst, block, parallel, |o, out_block| {
            let s_block = &src[o * block..][..block];
            let mut acc = vec![init; inner];
            let mut comp = vec![C::ZERO; inner];
            for (row, s) in out_block.chunks_mut(inner).zip(s_block.chunks(inner)) {
                for (((o, &v), a), c) in row.iter_mut().zip(s).zip(&mut acc).zip(&mut comp) {
                    *o = step(a, c, v);
                }
            }
        });
    }
    drop(dst);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Running sums by direct indexing, in f64.
    fn cumsum_ref(v: &[f64], shape: &[usize], d: usize) -> Vec<f64> {
        let len = shape.get(d).copied().unwrap_or(1);
        let inner: usize = shape.iter().skip(d + 1).product();
        let mut out = v.to_vec();
        for i in 0..out.len() {
            if !(i / inner).is_multiple_of(len) {
                out[i] += out[i - inner];
            }
        }
        out
    }

    #[test]
    fn cumsum_along_dimensions() {
        let x = Array::from_vec(&[2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!(cumsum_dim(&x, 0).unwrap().to_vec().unwrap(), [1, 2, 3, 5, 7, 9]);
        assert_eq!(cumsum_dim(&x, 1).unwrap().to_vec().unwrap(), [1, 3, 6, 4, 9, 15]);
        assert_eq!(cumsum_dim(&x, 2).unwrap().to_vec().unwrap(), [1, 2, 3, 4, 5, 6]);
        // The first non-singleton dimension.
        assert_eq!(cumsum(&x).unwrap().to_vec().unwrap(), [1, 2, 3, 5, 7, 9]);
        let row = Array::from_vec(&[1, 4], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(cumsum(&row).unwrap().to_vec().unwrap(), [1.0, 3.0, 6.0, 10.0]);
        let v = Array::from_vec(&[3], vec![2u8, 200, 100]).unwrap();
        assert_eq!(cumsum(&v).unwrap().to_vec().unwrap(), [2i32, 202, 302]);
        assert_eq!(cumprod(&v).unwrap().to_vec().unwrap(), [2i32, 400, 40000]);
        assert_eq!(cumprod_dim(&x, 1).unwrap().to_vec().unwrap(), [1, 2, 6, 4, 20, 120]);
        assert!(cumsum_dim(&x, -2).unwrap_err().to_string().contains("`cumsum`"));
        assert!(cumsum(&Array::<f32>::zeros(&[0, 2]).unwrap()).unwrap().is_empty());
    }

    #[test]
    fn cumsum_matches_reference_on_every_path() {
        for shape in [&[5usize, 7, 3][..], &[70_000], &[3, 40_000], &[40_000, 3], &[2, 200, 300]] {
            let n: usize = shape.iter().product();
            let v: Vec<f64> = (0..n).map(|i| ((i * 37) % 101) as f64 / 7.0 - 5.0).collect();
            let x = Array::from_vec(shape, v.clone()).unwrap();
            for d in 0..shape.len() {
                let got = cumsum_dim(&x, d as i32).unwrap().to_vec().unwrap();
                let want = cumsum_ref(&v, shape, d);
                for (g, w) in got.iter().zip(&want) {
                    assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0), "{shape:?} {d}: {g} {w}");
                }
            }
        }
    }

    #[test]
    fn compensated_cumsum_does_not_drift() {
        let n = 1_000_000;
        let x = Array::from_elem(&[n], 0.1f32).unwrap();
        let c = cumsum(&x).unwrap().to_vec().unwrap();
        let exact = n as f64 * 0.1f32 as f64;
        let rel = ((c[n - 1] as f64 - exact) / exact).abs();
        assert!(rel < 1e-6, "{} vs {exact}", c[n - 1]);
        let mid = (n / 2) as f64 * 0.1f32 as f64;
        assert!(((c[n / 2 - 1] as f64 - mid) / mid).abs() < 1e-6);
    }
}
