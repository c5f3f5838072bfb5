//! Element orders of built-ins on small fixed-size arrays in kernels (`transpose(m)`,
//! `sum(m, d)` with `m : mat(2, 3)`), as both back ends compute them over the row-major
//! elements (`[T; N]` on the CPU, registers on the GPU).

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
