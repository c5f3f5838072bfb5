//! The layout of small fixed-size arrays in kernels (`vec3`, `mat(2, 3)`), as both back ends
//! hold them (row-major: `[T; N]` on the CPU, registers on the GPU): their shape, where a
//! subscript lands, and the element orders of built-ins on them (`transpose(m)`, `sum(m, d)`).

use crate::sema::types::{Dim, Rank, Type};

/// The shape of a fixed-size array type (`[3]` for `vec3`, `[2, 3]` for `mat(2, 3)`): every
/// dimension's extent known.
pub fn shape(t: &Type) -> Option<Vec<usize>> {
    let a = t.as_array()?;
    let Rank::Fixed(r) = a.rank else { return None };
    let dims = a.shape.as_deref()?;
    if dims.len() != r as usize {
        return None;
    }
    dims.iter()
        .map(|d| if let Dim::Known(n) = d { usize::try_from(*n).ok() } else { None })
        .collect()
}

/// The extent and the row-major stride of each of `k` subscripts of an array of `shape`:
/// one subscript is linear, a vector indexed as a matrix is a row, subscripts past the rank
/// have extent 1.
pub fn extents_strides(shape: &[usize], k: usize) -> Vec<(usize, usize)> {
    let len: usize = shape.iter().product();
    if k == 1 {
        return vec![(len, 1)];
    }
    let row;
    let shape = if shape.len() == 1 {
        row = [1, shape[0]];
        &row[..]
    } else {
        shape
    };
    (0..k)
        .map(|d| (shape.get(d).copied().unwrap_or(1), shape.iter().skip(d + 1).product()))
        .collect()
}

/// The source offset of each element of `transpose(x)` for `x` of `shape`: a matrix's rows
/// become columns; a vector keeps its order (a row becomes a column).
pub fn transposed(shape: &[usize]) -> Option<Vec<usize>> {
    match *shape {
        [n] => Some((0..n).collect()),
        [rows, cols] => {
            Some((0..cols).flat_map(|j| (0..rows).map(move |i| i * cols + j)).collect())
        }
        _ => None,
    }
}

/// For a reduction along dimension `d` of an array of `shape` (`sum(m, d)`): for each
/// element of the result (the shape with extent 1 at `d`, row-major), the offsets of the
/// elements it combines, in order. A dimension past the rank has extent 1.
pub fn along(shape: &[usize], d: usize) -> Vec<Vec<usize>> {
    let extent = shape.get(d).copied().unwrap_or(1);
    let inner: usize = shape.iter().skip(d + 1).product();
    let outer: usize = shape.iter().take(d.min(shape.len())).product();
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            out.push((0..extent).map(|k| (o * extent + k) * inner + i).collect());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscripts_are_row_major_and_one_index_is_linear() {
        assert_eq!(extents_strides(&[2, 3], 2), [(2, 3), (3, 1)]);
        assert_eq!(extents_strides(&[2, 3], 1), [(6, 1)]);
        // A vector indexed as a matrix is a row.
        assert_eq!(extents_strides(&[4], 2), [(1, 4), (4, 1)]);
        // Two subscripts of a cube: the second's stride is a row's.
        assert_eq!(extents_strides(&[2, 3, 4], 2), [(2, 12), (3, 4)]);
        // Subscripts past the rank have extent 1.
        assert_eq!(extents_strides(&[2, 3], 3), [(2, 3), (3, 1), (1, 1)]);
    }

    #[test]
    fn transposes_and_reductions_along_a_dimension() {
        // [[0, 1, 2], [3, 4, 5]]' = [[0, 3], [1, 4], [2, 5]]
        assert_eq!(transposed(&[2, 3]), Some(vec![0, 3, 1, 4, 2, 5]));
        assert_eq!(transposed(&[3]), Some(vec![0, 1, 2]));
        assert_eq!(transposed(&[2, 2, 2]), None);
        // Column sums, row sums, and a dimension past the rank.
        assert_eq!(along(&[2, 3], 0), [vec![0, 3], vec![1, 4], vec![2, 5]]);
        assert_eq!(along(&[2, 3], 1), [vec![0, 1, 2], vec![3, 4, 5]]);
        assert_eq!(along(&[2, 3], 2), [[0], [1], [2], [3], [4], [5]]);
        assert_eq!(along(&[2, 2, 2], 1), [vec![0, 2], vec![1, 3], vec![4, 6], vec![5, 7]]);
    }
}
