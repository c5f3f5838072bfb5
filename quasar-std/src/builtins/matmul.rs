//! `matmul(a, b)`: Quasar's `*` between two arrays, the matrix product.
//!
//! A vector is a row on the left and a column on the right (as the type checker has it):
//!
//! | `a` | `b` | result |
//! |---|---|---|
//! | `m × k` matrix | `k × n` matrix | `m × n` matrix |
//! | `m × k` matrix | vector of `k` | vector of `m` |
//! | vector of `k` | `k × n` matrix | vector of `n` |
//! | vector of `k` | vector of `k` | `1 × 1` matrix |
//!
//! Trailing singleton dimensions are ignored (`[m, k, 1]` is an `m × k` matrix); more
//! dimensions, or inner sizes that differ, are errors naming `matmul`.
//!
//! Real floating-point matrix × matrix products go through `Arith::packed_product` (packed
//! panels of `a` and `b` and a vectorised FMA micro-kernel, the way BLAS does it), one block
//! of rows per thread. The other element types use the loops below.
//!
//! The loops are the cache-friendly `i-k-j` order (the innermost loop runs along rows of `b`
//! and of the result, contiguous, so it vectorises), blocked over `k` and `j` so that a panel of
//! `b` stays in cache, and parallel over blocks of rows with rayon. Matrix × vector is a dot
//! product per row.

use super::num::Arith;
use super::par::{for_pieces, PARALLEL_MIN};
use super::{alloc, invalid, mismatch, trim};
use quasar_runtime::{Array, Result};

/// Rows of `b` (and columns of `a`) per block.
const KC: usize = 256;
/// Columns of `b` and of the result per block.
const NC: usize = 1024;
/// Rows of the result per parallel task.
const MR: usize = 8;

/// The product of `a` and `b`; see the module documentation for the shapes.
pub fn matmul<T: Arith>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let (sa, sb) = (trim(a.shape()), trim(b.shape()));
    if sa.len() > 2 || sb.len() > 2 {
        let bad = if sa.len() > 2 { a.shape() } else { b.shape() };
        return Err(invalid("matmul", bad, "expects vectors or matrices"));
    }
    let a_vec = a.ndim() <= 1;
    let b_vec = b.ndim() <= 1;
    let (m, k) = if a_vec { (1, a.numel()) } else { (a.size(0), a.size(1)) };
    let (k2, n) = if b_vec { (b.numel(), 1) } else { (b.size(0), b.size(1)) };
    if k != k2 {
        return Err(mismatch("matmul", a.shape(), b.shape()));
    }
    let out_shape: Vec<usize> = match (a_vec, b_vec) {
        (false, true) => vec![m],
        (true, false) => vec![n],
        _ => vec![m, n],
    };
    let out = alloc::<T>("matmul", &out_shape)?;
    let av = a.host_view()?;
    let bv = b.host_view()?;
    let mut ov = out.host_view_mut()?;
    let (a, b): (&[T], &[T]) = (&av, &bv);
    let work = m.saturating_mul(n).saturating_mul(k);
    let parallel = work >= 4 * PARALLEL_MIN;
    if m == 0 || n == 0 {
    } else if k == 0 {
        ov.fill(T::ZERO);
    } else if n == 1 {
        // Matrix × column: one dot product per row.
        for_pieces(&mut ov, MR * 16, parallel, |t, piece| {
            for (i, o) in piece.iter_mut().enumerate() {
                let r = t * MR * 16 + i;
                *o = dot_row(&a[r * k..][..k], b);
            }
        });
    } else if m == 1 {
        // Row × matrix: axpy over the rows of b, in parallel over column blocks.
        for_pieces(&mut ov, NC, parallel, |t, cols| {
            let j0 = t * NC;
            for (kk, &x) in a.iter().enumerate() {
                axpy(cols, x, &b[kk * n + j0..][..cols.len()]);
            }
        });
    } else if let Some(product) = T::packed_product() {
        // Real floats: packed panels and a register-blocked FMA micro-kernel per block of
        // rows (one block per thread: each block packs `b` once, whose cost is `k·n` against
        // the block's `rows·k·n` multiply-adds).
        let threads = if parallel { rayon::current_num_threads().max(1) } else { 1 };
        let rows = m.div_ceil(threads).max(1);
        for_pieces(&mut ov, rows * n, parallel, |t, c| {
            let r0 = t * rows;
            let mr = c.len() / n;
            product(&a[r0 * k..(r0 + mr) * k], b, c, mr, k, n);
        });
    } else {
        for_pieces(&mut ov, MR * n, parallel, |t, rows| {
            let i0 = t * MR;
            for j0 in (0..n).step_by(NC) {
                let jw = NC.min(n - j0);
                for k0 in (0..k).step_by(KC) {
                    let kw = KC.min(k - k0);
                    for (ii, orow) in rows.chunks_mut(n).enumerate() {
                        let arow = &a[(i0 + ii) * k + k0..][..kw];
                        let o = &mut orow[j0..j0 + jw];
                        for (kk, &x) in arow.iter().enumerate() {
                            axpy(o, x, &b[(k0 + kk) * n + j0..][..jw]);
                        }
                    }
                }
            }
        });
    }
    drop(ov);
    Ok(out)
}

/// `o += x * b`, element-wise.
#[inline]
fn axpy<T: Arith>(o: &mut [T], x: T, b: &[T]) {
    for (o, &bv) in o.iter_mut().zip(b) {
        *o = o.add(x.mul(bv));
    }
}

/// A dot product in `T`, in 8 interleaved lanes (so that it vectorises).
#[inline]
fn dot_row<T: Arith>(a: &[T], b: &[T]) -> T {
    let mut lanes = [T::ZERO; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for j in 0..8 {
            lanes[j] = lanes[j].add(x[j].mul(y[j]));
        }
    }
    for (j, (&x, &y)) in ra.iter().zip(rb).enumerate() {
        lanes[j] = lanes[j].add(x.mul(y));
    }
    let [p, q, r, s, t, u, v, w] = lanes;
    p.add(q).add(r.add(s)).add(t.add(u).add(v.add(w)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quasar_runtime::Complex;

    fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                c[i * n + j] = (0..k).map(|q| a[i * k + q] * b[q * n + j]).sum();
            }
        }
        c
    }

    fn fill(len: usize, seed: usize) -> Vec<f64> {
        (0..len).map(|i| (((i * 7 + seed * 13) % 23) as f64 - 11.0) / 4.0).collect()
    }

    #[test]
    fn small_products() {
        let a = Array::from_vec(&[2, 2], vec![1.0f32, 2.0, 2.0, 1.0]).unwrap();
        let b = Array::from_vec(&[2, 1], vec![3.0f32, 4.0]).unwrap();
        let c = matmul(&a, &b).unwrap();
        assert_eq!((c.shape(), c.to_vec().unwrap()), (&[2usize, 1][..], vec![11.0, 10.0]));
        let x = Array::from_vec(&[2], vec![3.0f32, 4.0]).unwrap();
        let y = matmul(&a, &x).unwrap();
        assert_eq!((y.shape(), y.to_vec().unwrap()), (&[2usize][..], vec![11.0, 10.0]));
        let r = Array::from_vec(&[3], vec![1, 2, 3]).unwrap();
        let e = Array::from_fn(&[3, 3], |i| (i % 4 == 0) as i32).unwrap();
        let z = matmul(&r, &e).unwrap();
        assert_eq!((z.shape(), z.to_vec().unwrap()), (&[3usize][..], vec![1, 2, 3]));
        let d = matmul(&r, &r).unwrap();
        assert_eq!((d.shape(), d.to_vec().unwrap()), (&[1usize, 1][..], vec![14]));
        let zc = Array::from_vec(&[1, 1], vec![Complex::new(0.0f32, 1.0)]).unwrap();
        assert_eq!(matmul(&zc, &zc).unwrap().to_vec().unwrap(), [Complex::new(-1.0, 0.0)]);
        let t = Array::from_vec(&[2, 2, 1], vec![1, 0, 0, 1]).unwrap();
        assert_eq!(
            matmul(&t, &r.reshape(&[3]).unwrap()).unwrap_err().to_string(),
            "shape mismatch in `matmul`: [2, 2, 1] vs [3]"
        );
        let e = matmul(&Array::<f32>::zeros(&[2, 2, 2]).unwrap(), &a).unwrap_err();
        assert!(e.to_string().contains("`matmul`: expects vectors or matrices"), "{e}");
        let empty = matmul(&Array::<f32>::zeros(&[2, 0]).unwrap(), &Array::zeros(&[0, 3]).unwrap());
        assert_eq!(empty.unwrap().to_vec().unwrap(), [0.0; 6]);
    }

    #[test]
    fn packed_single_precision_products_match_the_naive_triple_loop() {
        // Row blocks of unequal heights (one per thread) and panel remainders.
        for (m, k, n) in [(65, 513, 1100), (5, 3, 2), (301, 17, 257)] {
            let (av, bv) = (fill(m * k, 3), fill(k * n, 4));
            let a = Array::from_fn(&[m, k], |i| av[i] as f32).unwrap();
            let b = Array::from_fn(&[k, n], |i| bv[i] as f32).unwrap();
            let c = matmul(&a, &b).unwrap();
            let want = naive(&av, &bv, m, k, n);
            for (g, w) in c.to_vec().unwrap().iter().zip(&want) {
                assert!((*g as f64 - w).abs() < 1e-3 * (1.0 + w.abs()), "{m}x{k}x{n}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn products_match_the_naive_triple_loop() {
        for (m, k, n) in [(3, 5, 7), (1, 300, 2000), (2000, 300, 1), (65, 513, 1100), (17, 1, 9)] {
            let (av, bv) = (fill(m * k, 1), fill(k * n, 2));
            let a = Array::from_vec(&[m, k], av.clone()).unwrap();
            let b = Array::from_vec(&[k, n], bv.clone()).unwrap();
            let c = matmul(&a, &b).unwrap();
            assert_eq!(c.shape(), &[m, n]);
            let want = naive(&av, &bv, m, k, n);
            for (g, w) in c.to_vec().unwrap().iter().zip(&want) {
                assert!((g - w).abs() < 1e-9, "{m}x{k}x{n}: {g} vs {w}");
            }
        }
    }
}
