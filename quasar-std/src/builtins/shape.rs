//! Shape queries: `size numel ndims ind2pos pos2ind`, with Quasar's `int` (`i32`) results.
//! Dimensions are zero-based; dimensions past the last one have extent 1 (`size(x, 5)` of a
//! matrix is 1, as in MATLAB). A count that does not fit an `int` is an error, not a wrap.
//!
//! Fixed-size vectors (`ivec3`) are `[i32; N]` in generated code: [`size_n`], [`ind2pos_n`]
//! and [`pos2ind_n`] take and return those; [`size`], [`ind2pos`], [`pos2ind`] use slices.

use super::{dim_arg, invalid};
use quasar_runtime::{Array, Element, Error, Result};

fn to_int(name: &str, shape: &[usize], v: usize) -> Result<i32> {
    i32::try_from(v)
        .map_err(|_| invalid(name, shape, format!("{v} does not fit in an `int` (i32)")))
}

/// `size(x)`: the extent of every dimension.
pub fn size<T: Element>(x: &Array<T>) -> Result<Vec<i32>> {
    x.shape().iter().map(|&d| to_int("size", x.shape(), d)).collect()
}

/// `size(x)` as an `ivecN`: the extents of the first `N` dimensions (1 past the last one). An
/// array with a non-singleton dimension at `N` or beyond is an error.
pub fn size_n<const N: usize, T: Element>(x: &Array<T>) -> Result<[i32; N]> {
    if x.shape().iter().skip(N).any(|&d| d != 1) {
        return Err(invalid("size", x.shape(), format!("the array has more than {N} dimensions")));
    }
    let mut out = [1i32; N];
    for (d, o) in out.iter_mut().enumerate() {
        *o = to_int("size", x.shape(), x.size(d))?;
    }
    Ok(out)
}

/// `size(x, d)`: the extent of dimension `d` (1 for `d >= ndims(x)`); negative `d` is an error.
pub fn size_dim<T: Element>(x: &Array<T>, d: i32) -> Result<i32> {
    let d = dim_arg("size", x.shape(), d)?;
    to_int("size", x.shape(), x.size(d))
}

/// `size(x, dims)`, e.g. `size(x, 0..1)`: the extents of the listed dimensions.
pub fn size_dims<T: Element>(x: &Array<T>, dims: &[i32]) -> Result<Vec<i32>> {
    dims.iter().map(|&d| size_dim(x, d)).collect()
}

/// `numel(x)`: the number of elements.
pub fn numel<T: Element>(x: &Array<T>) -> Result<i32> {
    to_int("numel", x.shape(), x.numel())
}

/// `ndims(x)`: the number of dimensions.
pub fn ndims<T: Element>(x: &Array<T>) -> i32 {
    x.ndim() as i32
}

/// The element count of `dims` in `i64` (saturating); a negative dimension is an error.
fn count(name: &str, dims: &[i32]) -> Result<i64> {
    let mut n: i64 = 1;
    for &d in dims {
        if d < 0 {
            return Err(Error::InvalidShape {
                shape: Vec::new(),
                reason: format!("`{name}`: the dimension {d} in {dims:?} is negative"),
            });
        }
        n = n.saturating_mul(d as i64);
    }
    Ok(n)
}

fn out_of_range(name: &str, index: Vec<i64>, dims: &[i32]) -> Error {
    Error::IndexOutOfRange {
        array: name.into(),
        index,
        shape: dims.iter().map(|&d| d as usize).collect(),
        location: None,
    }
}

fn ind2pos_into(dims: &[i32], i: i32, pos: &mut [i32]) -> Result<()> {
    let n = count("ind2pos", dims)?;
    if i < 0 || i as i64 >= n {
        return Err(out_of_range("ind2pos", vec![i as i64], dims));
    }
    let mut rem = i;
    for (p, &d) in pos.iter_mut().zip(dims).rev() {
        *p = rem % d;
        rem /= d;
    }
    Ok(())
}

/// `ind2pos(dims, i)`: the position (one coordinate per dimension) of linear index `i` in a
/// row-major array of size `dims` (manual §2.4.3). `i` outside `0..prod(dims)` is an error.
pub fn ind2pos(dims: &[i32], i: i32) -> Result<Vec<i32>> {
    let mut pos = vec![0; dims.len()];
    ind2pos_into(dims, i, &mut pos)?;
    Ok(pos)
}

/// [`ind2pos`] for an `ivecN` size, giving an `ivecN`.
pub fn ind2pos_n<const N: usize>(dims: [i32; N], i: i32) -> Result<[i32; N]> {
    let mut pos = [0; N];
    ind2pos_into(&dims, i, &mut pos)?;
    Ok(pos)
}

/// `pos2ind(dims, pos)`: the linear (row-major) index of position `pos`:
/// `(pos[0] * dims[1] + pos[1]) * dims[2] + …`. Each coordinate must be inside its dimension
/// and `pos` must have one coordinate per dimension.
pub fn pos2ind(dims: &[i32], pos: &[i32]) -> Result<i32> {
    count("pos2ind", dims)?;
    if pos.len() != dims.len() {
        return Err(Error::InvalidShape {
            shape: dims.iter().map(|&d| d as usize).collect(),
            reason: format!(
                "`pos2ind`: the position {pos:?} has {} coordinates for {} dimensions",
                pos.len(),
                dims.len()
            ),
        });
    }
    let mut ind: i64 = 0;
    for (&p, &d) in pos.iter().zip(dims) {
        if p < 0 || p >= d {
            return Err(out_of_range("pos2ind", pos.iter().map(|&p| p as i64).collect(), dims));
        }
        ind = ind * d as i64 + p as i64;
        if ind > i32::MAX as i64 {
            return Err(Error::InvalidShape {
                shape: dims.iter().map(|&d| d as usize).collect(),
                reason: format!("`pos2ind`: the index of {pos:?} does not fit in an `int` (i32)"),
            });
        }
    }
    Ok(ind as i32)
}

/// [`pos2ind`] for `ivecN` arguments.
pub fn pos2ind_n<const N: usize>(dims: [i32; N], pos: [i32; N]) -> Result<i32> {
    pos2ind(&dims, &pos)
}

/// `factorial(n)`: `n!` of a whole number `n >= 0` (as a float: 171! and above are `Inf`, as
/// in MATLAB); anything else is an error naming `factorial`.
pub fn factorial(n: f64) -> Result<f64> {
    if n < 0.0 || n.fract() != 0.0 || n.is_nan() {
        return Err(Error::argument(
            "factorial",
            format!("expects a whole number >= 0, found {n}"),
        ));
    }
    let mut acc = 1.0f64;
    let mut k = 2.0;
    while k <= n && acc.is_finite() {
        acc *= k;
        k += 1.0;
    }
    Ok(acc)
}

/// `shuffledims(x, perm)`: the array whose dimension `d` is dimension `perm[d]` of `x`
/// (MATLAB's `permute`, zero-based); `perm` must be a permutation of `0..perm.len()`, at
/// least as long as `x` has dimensions.
pub fn shuffledims<T: quasar_runtime::Element + Copy>(
    x: &Array<T>,
    perm: &[i32],
) -> Result<Array<T>> {
    let n = perm.len();
    let mut seen = vec![false; n];
    for &p in perm {
        match usize::try_from(p).ok().filter(|&p| p < n) {
            Some(p) if !seen[p] => seen[p] = true,
            _ => {
                return Err(Error::argument(
                    "shuffledims",
                    format!(
                        "{perm:?} is not a permutation of the dimensions 0 to {}",
                        n.saturating_sub(1)
                    ),
                ))
            }
        }
    }
    if x.ndim() > n {
        return Err(Error::argument(
            "shuffledims",
            format!("the array has {} dimensions but the permutation {perm:?} only {n}", x.ndim()),
        ));
    }
    let src: Vec<usize> = (0..n).map(|d| if d < x.ndim() { x.size(d) } else { 1 }).collect();
    let dims: Vec<usize> = perm.iter().map(|&p| src[p as usize]).collect();
    let mut strides = vec![1usize; n];
    for d in (0..n.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * src[d + 1];
    }
    let v = x.host_view()?;
    let mut idx = vec![0usize; n];
    let total: usize = dims.iter().product();
    let mut out = Vec::with_capacity(total);
    for _ in 0..total {
        let off: usize = (0..n).map(|d| idx[d] * strides[perm[d] as usize]).sum();
        out.push(v[off]);
        for d in (0..n).rev() {
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Array::from_vec(&dims, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn factorial_and_shuffledims() {
        assert_eq!(factorial(0.0).unwrap(), 1.0);
        assert_eq!(factorial(10.0).unwrap(), 3628800.0);
        assert!(factorial(171.0).unwrap().is_infinite());
        assert_eq!(
            factorial(2.5).unwrap_err().to_string(),
            "`factorial`: expects a whole number >= 0, found 2.5"
        );
        let x = Array::from_fn(&[2, 3, 4], |k| k as i32).unwrap();
        let y = shuffledims(&x, &[2, 0, 1]).unwrap();
        assert_eq!(y.shape(), &[4, 2, 3]);
        // y[c, a, b] = x[a, b, c]
        for a in 0..2 {
            for b in 0..3 {
                for c in 0..4 {
                    assert_eq!(y.get(&[c, a, b]).unwrap(), x.get(&[a, b, c]).unwrap());
                }
            }
        }
        assert!(shuffledims(&x, &[0, 0, 1]).unwrap_err().to_string().starts_with("`shuffledims`"));
    }

    #[test]
    fn sizes() {
        let a = Array::<f32>::zeros(&[4, 5, 6]).unwrap();
        assert_eq!(size(&a).unwrap(), [4, 5, 6]);
        assert_eq!(size_dim(&a, 1).unwrap(), 5);
        assert_eq!(size_dim(&a, 3).unwrap(), 1);
        assert_eq!(size_dim(&a, 15).unwrap(), 1);
        assert!(size_dim(&a, 16).is_err());
        let e = size_dim(&a, -1).unwrap_err();
        assert!(e.to_string().contains("`size`: dimension -1 is out of range"), "{e}");
        assert_eq!(size_dims(&a, &[0, 1]).unwrap(), [4, 5]);
        assert_eq!(numel(&a).unwrap(), 120);
        assert_eq!(ndims(&a), 3);
        assert_eq!(size_n::<4, _>(&a).unwrap(), [4, 5, 6, 1]);
        let v = Array::<f32>::zeros(&[7]).unwrap();
        assert_eq!(size_n::<2, _>(&v).unwrap(), [7, 1]);
        assert!(size_n::<2, _>(&a).is_err());
        assert_eq!(size_n::<2, _>(&Array::<u8>::zeros(&[2, 3, 1]).unwrap()).unwrap(), [2, 3]);
        let e = to_int("numel", &[1 << 31], 1 << 31).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid shape [2147483648]: `numel`: 2147483648 does not fit in an `int` (i32)"
        );
    }

    #[test]
    fn ind2pos_and_pos2ind() {
        assert_eq!(ind2pos(&[2, 3, 4], 23).unwrap(), [1, 2, 3]);
        assert_eq!(ind2pos(&[2, 3, 4], 0).unwrap(), [0, 0, 0]);
        assert_eq!(ind2pos_n([10, 10], 57).unwrap(), [5, 7]);
        assert_eq!(pos2ind(&[2, 3, 4], &[1, 2, 3]).unwrap(), 23);
        assert_eq!(pos2ind_n([10, 10], [5, 7]).unwrap(), 57);
        let e = ind2pos(&[2, 3], 6).unwrap_err();
        assert_eq!(e.to_string(), "index [6] is out of range for `ind2pos` with shape [2, 3]");
        assert!(ind2pos(&[2, 3], -1).is_err());
        assert!(ind2pos(&[2, 0], 0).is_err());
        assert!(ind2pos(&[2, -3], 0).is_err());
        assert!(pos2ind(&[2, 3], &[1, 3]).is_err());
        assert!(pos2ind(&[2, 3], &[1]).unwrap_err().to_string().contains("1 coordinates"));
        assert!(pos2ind(&[65536, 65536], &[65535, 0]).is_err());
        assert_eq!(ind2pos(&[], 0).unwrap(), Vec::<i32>::new());
    }

    proptest! {
        #[test]
        fn ind2pos_pos2ind_round_trip(dims in proptest::collection::vec(1i32..9, 1..5), k in 0usize..1000) {
            let n: i32 = dims.iter().product();
            let i = (k as i32) % n;
            let p = ind2pos(&dims, i).unwrap();
            prop_assert_eq!(pos2ind(&dims, &p).unwrap(), i);
            // And agrees with the runtime's own row-major offsets.
            let shape: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
            let a = Array::from_fn(&shape, |j| j as i32).unwrap();
            prop_assert_eq!(a.get(&p).unwrap(), i);
        }
    }
}
