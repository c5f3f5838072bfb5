//! Array construction and reshaping: `zeros ones uninit czeros cones eye linspace copy
//! deepcopy reshape repmat transpose herm_transpose squeeze`.
//!
//! Dimensions are `&[usize]` (Quasar's `zeros(3, 4)` is `zeros(&[3, 4])`, `zeros(5)` a vector
//! `zeros(&[5])`); [`to_dims`] converts Quasar `int`s, rejecting negative ones.

use super::num::{Arith, Float, Magnitude};
use super::par::{for_pieces, PARALLEL_MIN};
use super::{alloc, alloc_overwritten, invalid, trim};
use quasar_runtime::{Array, Complex, Element, Error, Result};

/// Quasar `int` dimensions (`zeros(n, m)`, `zeros(size(x))`) as array dimensions; a negative
/// one is an error naming the built-in `name`.
pub fn to_dims(name: &str, dims: &[i32]) -> Result<Vec<usize>> {
    dims.iter()
        .enumerate()
        .map(|(k, &d)| {
            usize::try_from(d).map_err(|_| Error::InvalidShape {
                shape: Vec::new(),
                reason: format!(
                    "`{name}`: dimension {k} of {dims:?} is {d}; dimensions must be 0 or more"
                ),
            })
        })
        .collect()
}

/// A dimension given as a `scalar` (`repmat(x, [r, 1])` with a scalar `r`): it must be a whole
/// number, or it is an error naming the built-in `name` (MATLAB's rule).
pub fn float_dim(name: &str, d: f64) -> Result<i32> {
    if d.fract() == 0.0 && d.abs() <= f64::from(i32::MAX) {
        Ok(d as i32)
    } else {
        Err(Error::argument(name, format!("the dimension {d} is not a whole number")))
    }
}

/// `zeros(dims)`: an array of zeros (the all-zero value of any element type).
pub fn zeros<T: Element>(dims: &[usize]) -> Result<Array<T>> {
    alloc("zeros", dims)
}

/// `uninit(dims)`: an array whose contents the program promises to overwrite before reading
/// them ([`Array::uninit`]: a large one may hold the values of a freed array of the same type
/// and size, saving the cost of new zeroed memory).
pub fn uninit<T: Element>(dims: &[usize]) -> Result<Array<T>> {
    alloc_overwritten("uninit", dims)
}

/// `ones(dims)`: an array of ones.
pub fn ones<T: Arith>(dims: &[usize]) -> Result<Array<T>> {
    let a = alloc_overwritten("ones", dims)?;
    a.host_view_mut()?.fill(T::ONE);
    Ok(a)
}

/// `czeros(dims)`: a complex array of zeros (`F` is the `scalar` type).
pub fn czeros<F: Float>(dims: &[usize]) -> Result<Array<Complex<F>>>
where
    Complex<F>: Element,
{
    alloc("czeros", dims)
}

/// `cones(dims)`: a complex array of ones.
pub fn cones<F: Float>(dims: &[usize]) -> Result<Array<Complex<F>>>
where
    Complex<F>: Arith,
{
    let a = alloc_overwritten("cones", dims)?;
    a.host_view_mut()?.fill(<Complex<F> as Arith>::ONE);
    Ok(a)
}

/// `eye(n)`: the `n × n` identity matrix.
pub fn eye<T: Arith>(n: usize) -> Result<Array<T>> {
    eye_rect(n, n)
}

/// `eye(m, n)`: the `m × n` matrix with ones on the main diagonal.
pub fn eye_rect<T: Arith>(m: usize, n: usize) -> Result<Array<T>> {
    let a = alloc("eye", &[m, n])?;
    {
        let mut v = a.host_view_mut()?;
        for i in 0..m.min(n) {
            v[i * n + i] = T::ONE;
        }
    }
    Ok(a)
}

/// `linspace(a, b, n)`: `n` evenly spaced values from `a` to `b` (a vector); the ends are
/// exactly `a` and `b`. `n = 1` gives `[b]` and `n = 0` an empty vector, as in MATLAB.
/// Computed in `f64`.
pub fn linspace<F: Float>(a: F, b: F, n: usize) -> Result<Array<F>> {
    let out = alloc_overwritten::<F>("linspace", &[n])?;
    {
        let mut v = out.host_view_mut()?;
        let (a, b) = (a.to_f64(), b.to_f64());
        let step = if n > 1 { (b - a) / (n - 1) as f64 } else { 0.0 };
        for (i, e) in v.iter_mut().enumerate() {
            *e = F::from_f64(a + i as f64 * step);
        }
        if let Some(last) = v.last_mut() {
            *last = F::from_f64(b);
        }
    }
    Ok(out)
}

/// `copy(x)`: a new array with the same elements. (For arrays of numbers the manual's
/// "shallow" `copy` and `deepcopy` both copy the elements.)
pub fn copy<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    x.copy()
}

/// `deepcopy(x)`: the same as [`copy`] for arrays of plain elements.
pub fn deepcopy<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    x.copy()
}

/// `reshape(x, dims)`: the same elements (shared, not copied: arrays are references) with
/// another shape; the element count must stay the same.
pub fn reshape<T: Element>(x: &Array<T>, dims: &[usize]) -> Result<Array<T>> {
    let count = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if count != Some(x.numel()) {
        return Err(invalid(
            "reshape",
            dims,
            format!(
                "the array has {} elements (shape {:?}) but the new shape has {}",
                x.numel(),
                x.shape(),
                count.map_or("too many".to_string(), |c| c.to_string())
            ),
        ));
    }
    x.reshape(dims).map_err(|e| match e {
        Error::InvalidShape { shape, reason } => invalid("reshape", &shape, reason),
        e => e,
    })
}

/// `squeeze(x)`: `x` without its singleton dimensions, sharing the elements (an array whose
/// dimensions are all 1 becomes a 1-element vector).
pub fn squeeze<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    let kept: Vec<usize> = x.shape().iter().copied().filter(|&d| d != 1).collect();
    let kept = if kept.is_empty() { vec![1] } else { kept };
    x.reshape(&kept)
}

/// `repmat(x, reps)`: `x` repeated `reps[i]` times along dimension `i`. The result has
/// `max(ndims(x), reps.len())` dimensions (missing ones count as 1).
pub fn repmat<T: Element>(x: &Array<T>, reps: &[usize]) -> Result<Array<T>> {
    let r = x.ndim().max(reps.len()).max(1);
    // A vector is a row: `repmat([1, 2, 3], [2, 1])` is 2 x 3.
    let src_dims: Vec<usize> = match x.shape() {
        [n] if r >= 2 => (0..r).map(|i| if i == 1 { *n } else { 1 }).collect(),
        _ => (0..r).map(|i| x.size(i)).collect(),
    };
    let reps: Vec<usize> = (0..r).map(|i| reps.get(i).copied().unwrap_or(1)).collect();
    let mut out_dims = Vec::with_capacity(r);
    for i in 0..r {
        let d = src_dims[i].checked_mul(reps[i]).ok_or_else(|| {
            invalid("repmat", &src_dims, format!("repeating {reps:?} times overflows"))
        })?;
        out_dims.push(d);
    }
    let out = alloc_overwritten::<T>("repmat", &out_dims)?;
    if out.is_empty() {
        return Ok(out);
    }
    let src_view = x.host_view()?;
    let src: &[T] = &src_view;
    let mut dst = out.host_view_mut()?;
    let (src_row, out_row) = (src_dims[r - 1], out_dims[r - 1]);
    let rows_per_piece = (PARALLEL_MIN / 4 / out_row).max(1);
    let parallel = dst.len() >= PARALLEL_MIN;
    for_pieces(&mut dst, rows_per_piece * out_row, parallel, |k, piece| {
        for (i, row) in piece.chunks_mut(out_row).enumerate() {
            // Decompose the output row number over the leading output dimensions and wrap
            // each coordinate into the source.
            let mut q = k * rows_per_piece + i;
            let (mut p, mut scale) = (0, 1);
            for d in (0..r - 1).rev() {
                let c = q % out_dims[d];
                q /= out_dims[d];
                p += (c % src_dims[d]) * scale;
                scale *= src_dims[d];
            }
            let s = &src[p * src_row..(p + 1) * src_row];
            for rep in row.chunks_mut(src_row) {
                rep.copy_from_slice(s);
            }
        }
    });
    drop(dst);
    Ok(out)
}

/// `transpose(A)`: a new matrix with the dimensions swapped; a vector (length `n`, a column
/// in Quasar) becomes a `1 × n` matrix. More than two non-singleton dimensions is an error.
pub fn transpose<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    transpose_with("transpose", x, true, |v| v)
}

/// `herm_transpose(A)`: the conjugate transpose.
pub fn herm_transpose<T: Magnitude>(x: &Array<T>) -> Result<Array<T>> {
    transpose_with("herm_transpose", x, false, <T as Magnitude>::conj)
}

/// The side of the square tiles the transpose copies through.
const TILE: usize = 32;

/// `plain`: `f` is the identity, so 4-byte elements may move in AVX2 blocks.
fn transpose_with<T: Element, F: Fn(T) -> T + Sync>(
    name: &str,
    x: &Array<T>,
    plain: bool,
    f: F,
) -> Result<Array<T>> {
    if trim(x.shape()).len() > 2 {
        return Err(invalid(name, x.shape(), "expects a vector or a matrix"));
    }
    let (m, n) = (x.size(0), x.size(1));
    let out = alloc_overwritten::<T>(name, &[n, m])?;
    let src_view = x.host_view()?;
    let src: &[T] = &src_view;
    let mut dst = out.host_view_mut()?;
    if m <= 1 || n <= 1 {
        // Same linear order.
        for (d, &s) in dst.iter_mut().zip(src.iter()) {
            *d = f(s);
        }
    } else {
        // Output rows j0..j0+TILE (columns of the input), tile by tile.
        let parallel = dst.len() >= PARALLEL_MIN;
        for_pieces(&mut dst, TILE * m, parallel, |k, piece| {
            let j0 = k * TILE;
            if plain && super::transpose_blocks::transpose_rows(src, m, n, j0, piece) {
                return;
            }
            let jn = piece.len() / m;
            for i0 in (0..m).step_by(TILE) {
                let i1 = (i0 + TILE).min(m);
                for jj in 0..jn {
                    let j = j0 + jj;
                    let row = &mut piece[jj * m..(jj + 1) * m];
                    for i in i0..i1 {
                        row[i] = f(src[i * n + j]);
                    }
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
    use proptest::prelude::*;

    #[test]
    fn scalar_dimensions_must_be_whole() {
        assert_eq!(float_dim("repmat", 3.0).unwrap(), 3);
        let e = float_dim("repmat", 2.5).unwrap_err().to_string();
        assert_eq!(e, "`repmat`: the dimension 2.5 is not a whole number");
    }

    #[test]
    fn constructors() {
        let z = zeros::<f32>(&[2, 3]).unwrap();
        assert_eq!((z.shape(), z.to_vec().unwrap()), (&[2usize, 3][..], vec![0.0; 6]));
        assert_eq!(ones::<i32>(&[4]).unwrap().to_vec().unwrap(), [1; 4]);
        assert_eq!(uninit::<f64>(&[1, 2, 3]).unwrap().shape(), &[1, 2, 3]);
        assert_eq!(cones::<f32>(&[2]).unwrap().get(&[1]).unwrap(), Complex::new(1.0, 0.0));
        assert_eq!(czeros::<f64>(&[2]).unwrap().get(&[0]).unwrap(), Complex::new(0.0, 0.0));
        assert_eq!(eye::<f32>(3).unwrap().to_vec().unwrap(), [1., 0., 0., 0., 1., 0., 0., 0., 1.]);
        let r = eye_rect::<i32>(2, 3).unwrap();
        assert_eq!((r.shape(), r.to_vec().unwrap()), (&[2usize, 3][..], vec![1, 0, 0, 0, 1, 0]));
        let e = zeros::<f32>(&[1; 17]).unwrap_err();
        assert!(e.to_string().contains("`zeros`: 17 dimensions"), "{e}");
        assert!(ones::<f32>(&[usize::MAX, 2]).unwrap_err().to_string().contains("`ones`"));
        assert_eq!(to_dims("zeros", &[3, 0, 2]).unwrap(), [3, 0, 2]);
        let e = to_dims("zeros", &[3, -1]).unwrap_err();
        assert!(e.to_string().contains("`zeros`: dimension 1 of [3, -1] is -1"), "{e}");
    }

    #[test]
    fn linspace_matches_the_manual() {
        let c = linspace(1.0f32, 2.0, 5).unwrap();
        assert_eq!(c.shape(), &[5]);
        assert_eq!(c.to_vec().unwrap(), [1.0, 1.25, 1.5, 1.75, 2.0]);
        assert_eq!(linspace(0.0f64, 1.0, 1).unwrap().to_vec().unwrap(), [1.0]);
        assert!(linspace(0.0f64, 1.0, 0).unwrap().is_empty());
        let l = linspace(0.0f32, 0.3, 4).unwrap().to_vec().unwrap();
        assert_eq!(l, [0.0, 0.1, 0.2, 0.3]);
    }

    #[test]
    fn reshape_shares_and_checks_the_count() {
        let a = Array::from_fn(&[2, 3], |i| i as i32).unwrap();
        let b = reshape(&a, &[3, 2]).unwrap();
        assert!(b.same_data(&a));
        assert_eq!(b.get(&[2, 1]).unwrap(), 5);
        let e = reshape(&a, &[4, 2]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid shape [4, 2]: `reshape`: the array has 6 elements (shape [2, 3]) but the \
             new shape has 8"
        );
        assert!(reshape(&a, &[usize::MAX, 3]).is_err());
        let c = copy(&a).unwrap();
        assert!(!c.same_data(&a) && c.to_vec().unwrap() == a.to_vec().unwrap());
        assert!(!deepcopy(&a).unwrap().same_data(&a));
    }

    #[test]
    fn squeeze_removes_singletons() {
        let a = Array::<f32>::zeros(&[1, 1, 5]).unwrap();
        assert_eq!(squeeze(&a).unwrap().shape(), &[5]);
        assert!(squeeze(&a).unwrap().same_data(&a));
        let b = Array::<f32>::zeros(&[3, 1, 2, 1]).unwrap();
        assert_eq!(squeeze(&b).unwrap().shape(), &[3, 2]);
        assert_eq!(squeeze(&Array::<f32>::zeros(&[1, 1]).unwrap()).unwrap().shape(), &[1]);
    }

    #[test]
    fn repmat_tiles() {
        let a = Array::from_vec(&[2, 2], vec![1, 2, 3, 4]).unwrap();
        let r = repmat(&a, &[2, 3]).unwrap();
        assert_eq!(r.shape(), &[4, 6]);
        assert_eq!(
            r.to_vec().unwrap(),
            [
                1, 2, 1, 2, 1, 2, //
                3, 4, 3, 4, 3, 4, //
                1, 2, 1, 2, 1, 2, //
                3, 4, 3, 4, 3, 4,
            ]
        );
        let v = Array::from_vec(&[3], vec![1.0f32, 2.0, 3.0]).unwrap();
        // A vector is a row: 1 x 3, repeated twice along the third dimension.
        let t = repmat(&v, &[1, 1, 2]).unwrap();
        assert_eq!(t.shape(), &[1, 3, 2]);
        assert_eq!(t.to_vec().unwrap(), [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]);
        assert_eq!(repmat(&v, &[0]).unwrap().shape(), &[0]);
        assert!(repmat(&v, &[usize::MAX, 2]).is_err());
        // Large enough to run in parallel: compare with a direct computation.
        let b = Array::from_fn(&[3, 7, 5], |i| i as u32).unwrap();
        let big = repmat(&b, &[40, 3, 30]).unwrap();
        let bv = big.to_vec().unwrap();
        let (d1, d2) = (21, 150);
        for (i, &e) in bv.iter().enumerate() {
            let (p, q, s) = (i / (d1 * d2), (i / d2) % d1, i % d2);
            assert_eq!(e, ((p % 3) * 35 + (q % 7) * 5 + s % 5) as u32);
        }
    }

    #[test]
    fn transpose_of_matrices_and_vectors() {
        let a = Array::from_fn(&[2, 3], |i| i as f32).unwrap();
        let t = transpose(&a).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.to_vec().unwrap(), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        let v = Array::from_vec(&[3], vec![1, 2, 3]).unwrap();
        let row = transpose(&v).unwrap();
        assert_eq!(row.shape(), &[1, 3]);
        assert!(!row.same_data(&v));
        assert_eq!(transpose(&row).unwrap().shape(), &[3, 1]);
        let e = transpose(&Array::<f32>::zeros(&[2, 2, 2]).unwrap()).unwrap_err();
        assert!(e.to_string().contains("`transpose`: expects a vector or a matrix"), "{e}");
        assert_eq!(transpose(&Array::<f32>::zeros(&[2, 3, 1]).unwrap()).unwrap().shape(), &[3, 2]);
        let z = Array::from_vec(&[1, 2], vec![Complex::new(1.0f32, 2.0), Complex::new(0.0, -1.0)])
            .unwrap();
        let h = herm_transpose(&z).unwrap();
        assert_eq!(h.shape(), &[2, 1]);
        assert_eq!(h.to_vec().unwrap(), [Complex::new(1.0, -2.0), Complex::new(0.0, 1.0)]);
    }

    #[test]
    fn large_transpose_matches_indexing() {
        let (m, n) = (301, 517);
        let a = Array::from_fn(&[m, n], |i| i as u32).unwrap();
        let t = transpose(&a).unwrap().to_vec().unwrap();
        for j in 0..n {
            for i in 0..m {
                assert_eq!(t[j * m + i], (i * n + j) as u32);
            }
        }
    }

    #[test]
    fn built_ins_writing_every_element_are_right_in_a_reused_block() {
        // Above 1 MiB, their results may take the block of a freed array of the same type and
        // size (`Array::uninit`): fill one with other values first, then check every element.
        let (m, n) = (513, 517);
        let stale = || drop(Array::from_elem(&[n, m], 7u32).unwrap());
        let a = Array::from_fn(&[m, n], |i| i as u32).unwrap();
        stale();
        let t = transpose(&a).unwrap().to_vec().unwrap();
        assert!((0..m * n).all(|k| t[(k % n) * m + k / n] == k as u32));
        stale();
        assert!(ones::<u32>(&[n, m]).unwrap().to_vec().unwrap().iter().all(|&x| x == 1));
        let b = Array::from_fn(&[n, m / 3], |i| i as u32).unwrap();
        stale();
        let r = repmat(&b, &[1, 3]).unwrap().to_vec().unwrap();
        assert!((0..n * m).all(|k| r[k] == ((k / m) * (m / 3) + (k % m) % (m / 3)) as u32));
        drop(Array::from_elem(&[m * n], 7.0f32).unwrap());
        let l = linspace(0.0f32, 1.0, m * n).unwrap().to_vec().unwrap();
        assert!(l.windows(2).all(|w| w[0] < w[1]) && l[0] == 0.0 && l[m * n - 1] == 1.0);
    }

    proptest! {
        #[test]
        fn transpose_twice_is_identity(m in 0usize..40, n in 0usize..40, seed in 0u32..1000) {
            let a = Array::from_fn(&[m, n], |i| i as u32 ^ seed).unwrap();
            let back = transpose(&transpose(&a).unwrap()).unwrap();
            prop_assert_eq!(back.shape(), &[m, n][..]);
            prop_assert_eq!(back.to_vec().unwrap(), a.to_vec().unwrap());
        }

        #[test]
        fn reshape_round_trip(dims in proptest::collection::vec(1usize..5, 1..5)) {
            let n: usize = dims.iter().product();
            let a = Array::from_fn(&[n], |i| i as i32).unwrap();
            let r = reshape(&a, &dims).unwrap();
            prop_assert_eq!(r.shape(), &dims[..]);
            let back = reshape(&r, &[n]).unwrap();
            prop_assert_eq!(back.to_vec().unwrap(), a.to_vec().unwrap());
        }

        #[test]
        fn repmat_matches_modular_indexing(
            dims in proptest::collection::vec(1usize..4, 1..4),
            reps in proptest::collection::vec(0usize..4, 0..4),
        ) {
            let a = Array::from_fn(&dims, |i| i as u16).unwrap();
            let r = repmat(&a, &reps).unwrap();
            let rk = dims.len().max(reps.len());
            prop_assert_eq!(r.ndim(), rk);
            let od = r.shape().to_vec();
            let rv = r.to_vec().unwrap();
            for (lin, &e) in rv.iter().enumerate() {
                // Output coordinates, wrapped into the source.
                let mut rem = lin;
                let mut coords = vec![0; rk];
                for d in (0..rk).rev() {
                    coords[d] = rem % od[d];
                    rem /= od[d];
                }
                // A vector is a row (`a.get` reads `[0, j]` of a vector as element j).
                let size = |d: usize| match a.shape() {
                    [n] if rk >= 2 => if d == 1 { *n } else { 1 },
                    _ => a.size(d),
                };
                let src: Vec<i64> = (0..rk).map(|d| (coords[d] % size(d)) as i64).collect();
                prop_assert_eq!(e, a.get(&src).unwrap());
            }
        }
    }
}
