//! `mat2cell` and `cell2mat` (manual table 14.1, which says only "converts from matrix to
//! cell matrix" and back; they follow MATLAB's functions of the same names).
//!
//! * `mat2cell(A, d0, d1, …)`: the blocks of `A`. `dk` lists the block sizes along dimension
//!   `k` (they must add up to `size(A, k)`); a dimension without a list is one block, so
//!   `mat2cell(A)` is a 1×1 cell holding `A`. The cell array has one element per block, shape
//!   `[numel(d0), numel(d1), …]` (one entry per dimension of `A`), each block an array of
//!   `A`'s rank.
//! * `cell2mat(C)`: the blocks of a cell array put together. Along each dimension, the blocks
//!   of one slice of `C` must have the same size (as MATLAB requires). The elements must be
//!   arrays or numbers (a number is a 1×1 block) of one element type: the first array's, or,
//!   for numbers only, `cscalar` if one is complex, else `scalar` if one is not whole, else
//!   `int`. An empty cell gives an empty matrix.

use crate::value::{AnyArray, Value};
use quasar_runtime::Complex;
use quasar_runtime::{Array, Element, Error, Result};

/// An element type that a cell's blocks can hold.
trait Block: Element + Copy + Default {
    /// `v` as an array of this type (a number as a 1×1 array), if it is one.
    fn block(v: &Value) -> Option<Array<Self>>;
    /// The array as a [`Value`].
    fn wrap(a: Array<Self>) -> Value;
}

fn one<T: Element>(x: T) -> Option<Array<T>> {
    Array::from_vec(&[1, 1], vec![x]).ok()
}

macro_rules! block {
    ($t:ty, $k:ident, |$v:ident| $num:expr) => {
        impl Block for $t {
            fn block(v: &Value) -> Option<Array<$t>> {
                match v {
                    Value::Array(AnyArray::$k(a)) => Some(a.clone()),
                    $v => $num.and_then(one),
                }
            }
            fn wrap(a: Array<$t>) -> Value {
                Value::Array(AnyArray::$k(a))
            }
        }
    };
}
block!(f32, F32, |v| real(v).map(|x| x as f32));
block!(f64, F64, |v| real(v));
block!(i32, I32, |v| match v {
    Value::Int(i) => i32::try_from(*i).ok(),
    _ => None,
});
block!(u8, U8, |v| match v {
    Value::Int(i) => u8::try_from(*i).ok(),
    _ => None,
});
block!(Complex<f32>, C32, |v| cplx(v).map(|z| Complex::new(z.re as f32, z.im as f32)));
block!(Complex<f64>, C64, |v| cplx(v));

fn real(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Scalar(x) => Some(*x),
        _ => None,
    }
}

fn cplx(v: &Value) -> Option<Complex<f64>> {
    match v {
        Value::Complex(z) => Some(*z),
        v => real(v).map(|x| Complex::new(x, 0.0)),
    }
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * shape[k + 1];
    }
    s
}

/// Calls `f` with every multi-index of `shape`, in row-major order.
fn each_index(shape: &[usize], mut f: impl FnMut(&[usize]) -> Result<()>) -> Result<()> {
    if shape.contains(&0) {
        return Ok(());
    }
    let mut at = vec![0; shape.len()];
    loop {
        f(&at)?;
        let mut k = shape.len();
        loop {
            if k == 0 {
                return Ok(());
            }
            k -= 1;
            at[k] += 1;
            if at[k] < shape[k] {
                break;
            }
            at[k] = 0;
        }
    }
}

/// Copies the block of `shape` at `from` in `src` (shape `src_shape`) to `to` in `dst`.
fn copy_block<T: Copy>(
    src: (&[T], &[usize], &[usize]),
    dst: (&mut [T], &[usize], &[usize]),
    shape: &[usize],
) -> Result<()> {
    let (s, ss, from) = src;
    let (d, ds, to) = dst;
    let (sst, dst_st) = (strides(ss), strides(ds));
    each_index(shape, |i| {
        let si: usize = i.iter().zip(from).zip(&sst).map(|((i, o), s)| (i + o) * s).sum();
        let di: usize = i.iter().zip(to).zip(&dst_st).map(|((i, o), s)| (i + o) * s).sum();
        d[di] = s[si];
        Ok(())
    })
}

fn split<T: Block>(a: &Array<T>, dists: &[Vec<usize>]) -> Result<Value> {
    let rank = a.ndim().max(dists.len()).max(1);
    let mut shape = a.shape().to_vec();
    shape.resize(rank, 1);
    let mut sizes = Vec::with_capacity(rank);
    for (k, &n) in shape.iter().enumerate() {
        let d = dists.get(k).cloned().unwrap_or_else(|| vec![n]);
        let sum: usize = d.iter().sum();
        if sum != n {
            return Err(Error::argument(
                "mat2cell",
                format!(
                    "the block sizes {d:?} along dimension {k} add up to {sum}, not to the \
                     array's size {n} there (its shape is {:?})",
                    a.shape()
                ),
            ));
        }
        sizes.push(d);
    }
    let data = a.to_vec()?;
    let cell_shape: Vec<usize> = sizes.iter().map(Vec::len).collect();
    let mut items = Vec::new();
    each_index(&cell_shape, |b| {
        let block: Vec<usize> = b.iter().zip(&sizes).map(|(&i, s)| s[i]).collect();
        let from: Vec<usize> = b.iter().zip(&sizes).map(|(&i, s)| s[..i].iter().sum()).collect();
        let mut out = vec![T::default(); block.iter().product()];
        copy_block((&data, &shape, &from), (&mut out, &block, &vec![0; rank]), &block)?;
        items.push(T::wrap(Array::from_vec(&block, out)?));
        Ok(())
    })?;
    Value::cell(&cell_shape)
        .and_then(|c| {
            for (k, v) in items.into_iter().enumerate() {
                c.set_index(&[k as i64], v)?;
            }
            Ok(c)
        })
        .map_err(|m| Error::argument("mat2cell", m))
}

/// `mat2cell(A, d0, d1, …)`: see the module documentation.
pub fn mat2cell(a: &Value, dists: &[Vec<usize>]) -> Result<Value> {
    match a {
        Value::Array(AnyArray::F32(a)) => split(a, dists),
        Value::Array(AnyArray::F64(a)) => split(a, dists),
        Value::Array(AnyArray::I32(a)) => split(a, dists),
        Value::Array(AnyArray::U8(a)) => split(a, dists),
        Value::Array(AnyArray::C32(a)) => split(a, dists),
        Value::Array(AnyArray::C64(a)) => split(a, dists),
        v => Err(Error::argument("mat2cell", format!("expects an array, found {}", v.type_name()))),
    }
}

fn join<T: Block>(shape: &[usize], items: &[Value]) -> Result<Value> {
    let bad = |m: String| Error::argument("cell2mat", m);
    let mut blocks = Vec::with_capacity(items.len());
    for (k, v) in items.iter().enumerate() {
        let b = T::block(v).ok_or_else(|| {
            bad(format!(
                "element {k} is {}, not an array or number of the first element's type",
                v.type_name()
            ))
        })?;
        blocks.push(b);
    }
    let rank = blocks.iter().map(|b| b.ndim()).chain([shape.len(), 2]).max().unwrap_or(2);
    let mut cshape = shape.to_vec();
    cshape.resize(rank, 1);
    let cst = strides(&cshape);
    let dims_of = |b: &Array<T>| {
        let mut d = b.shape().to_vec();
        d.resize(rank, 1);
        d
    };
    // The size along dimension k of the blocks whose index there is i: the first such block's.
    let mut sizes: Vec<Vec<usize>> = Vec::with_capacity(rank);
    for k in 0..rank {
        sizes.push((0..cshape[k]).map(|i| dims_of(&blocks[i * cst[k]])[k]).collect());
    }
    let total: Vec<usize> = sizes.iter().map(|s| s.iter().sum()).collect();
    let mut out = vec![T::default(); total.iter().product()];
    let mut at = 0;
    each_index(&cshape, |b| {
        let block = &blocks[at];
        at += 1;
        let dims = dims_of(block);
        for (k, (&i, s)) in b.iter().zip(&sizes).enumerate() {
            if dims[k] != s[i] {
                return Err(bad(format!(
                    "the block at {b:?} has size {} along dimension {k}, the others in its \
                     slice have {} (shape {:?})",
                    dims[k],
                    s[i],
                    block.shape()
                )));
            }
        }
        let to: Vec<usize> = b.iter().zip(&sizes).map(|(&i, s)| s[..i].iter().sum()).collect();
        let data = block.to_vec()?;
        copy_block((&data, &dims, &vec![0; rank]), (&mut out, &total, &to), &dims)
    })?;
    Ok(T::wrap(Array::from_vec(&total, out)?))
}

/// `cell2mat(C)`: see the module documentation.
pub fn cell2mat(c: &Value) -> Result<Value> {
    let Value::Cell(cell) = c else {
        return Err(Error::argument(
            "cell2mat",
            format!("expects a cell array, found {}", c.type_name()),
        ));
    };
    let (shape, items) = {
        let g = cell.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        (g.shape.clone(), g.items.clone())
    };
    if items.is_empty() {
        return Ok(f32::wrap(Array::from_vec(&[0, 0], Vec::new())?));
    }
    let first = items.iter().find_map(|v| match v {
        Value::Array(a) => Some(a),
        _ => None,
    });
    match first {
        Some(AnyArray::F32(_)) => join::<f32>(&shape, &items),
        Some(AnyArray::F64(_)) => join::<f64>(&shape, &items),
        Some(AnyArray::I32(_)) => join::<i32>(&shape, &items),
        Some(AnyArray::U8(_)) => join::<u8>(&shape, &items),
        Some(AnyArray::C32(_)) => join::<Complex<f32>>(&shape, &items),
        Some(AnyArray::C64(_)) => join::<Complex<f64>>(&shape, &items),
        None if items.iter().any(|v| matches!(v, Value::Complex(_))) => {
            join::<Complex<f32>>(&shape, &items)
        }
        None if items.iter().any(|v| matches!(v, Value::Scalar(x) if x.fract() != 0.0)) => {
            join::<f32>(&shape, &items)
        }
        None => join::<i32>(&shape, &items),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mat(m: usize, n: usize) -> Value {
        Value::Array(AnyArray::F32(Array::from_fn(&[m, n], |k| k as f32).unwrap()))
    }

    fn block(c: &Value, i: i64, j: i64) -> (Vec<usize>, Vec<f32>) {
        match c.index(&[i, j]).unwrap() {
            Value::Array(AnyArray::F32(a)) => (a.shape().to_vec(), a.to_vec().unwrap()),
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn mat2cell_cuts_blocks_as_matlab_does() {
        // A 3x4 matrix 0..12 cut into rows [1, 2] and columns [3, 1].
        let c = mat2cell(&mat(3, 4), &[vec![1, 2], vec![3, 1]]).unwrap();
        assert_eq!(block(&c, 0, 0), (vec![1, 3], vec![0.0, 1.0, 2.0]));
        assert_eq!(block(&c, 0, 1), (vec![1, 1], vec![3.0]));
        assert_eq!(block(&c, 1, 0), (vec![2, 3], vec![4.0, 5.0, 6.0, 8.0, 9.0, 10.0]));
        assert_eq!(block(&c, 1, 1), (vec![2, 1], vec![7.0, 11.0]));
        // Only rows: MATLAB's n-by-1 cell.
        let rows = mat2cell(&mat(3, 4), &[vec![2, 1]]).unwrap();
        assert_eq!(block(&rows, 1, 0), (vec![1, 4], vec![8.0, 9.0, 10.0, 11.0]));
        let e = mat2cell(&mat(3, 4), &[vec![2, 2]]).unwrap_err().to_string();
        assert!(e.starts_with("`mat2cell`") && e.contains("add up to 4"), "{e}");
    }

    #[test]
    fn cell2mat_puts_the_blocks_back() {
        let a = mat(5, 6);
        let c = mat2cell(&a, &[vec![2, 0, 3], vec![1, 4, 1]]).unwrap();
        let (Value::Array(AnyArray::F32(x)), Value::Array(AnyArray::F32(y))) =
            (&a, &cell2mat(&c).unwrap())
        else {
            panic!()
        };
        assert_eq!((y.shape(), y.to_vec().unwrap()), (x.shape(), x.to_vec().unwrap()));
        let nums = Value::cell(&[2, 2]).unwrap();
        for (k, v) in [1, 2, 3, 4].into_iter().enumerate() {
            nums.set_index(&[k as i64], Value::Int(v)).unwrap();
        }
        let Value::Array(AnyArray::I32(m)) = cell2mat(&nums).unwrap() else { panic!() };
        assert_eq!((m.shape(), m.to_vec().unwrap()), (&[2, 2][..], vec![1, 2, 3, 4]));
        // A block of the wrong height in the first row of blocks.
        let bad = Value::cell_of(vec![mat(2, 2), mat(3, 1)]);
        let e = cell2mat(&bad).unwrap_err().to_string();
        assert!(e.starts_with("`cell2mat`") && e.contains("dimension 0"), "{e}");
    }
}
