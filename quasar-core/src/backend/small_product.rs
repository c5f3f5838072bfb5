//! The matrix product of small fixed-size arrays in kernels (`C * v` with `C : mat(3, 3)`,
//! `v : vec(3)`; manual §4.5 and the `colortransform[N]` example of §6.7), as both back ends
//! compute it: row-major operands, a vector on the left a row and on the right a column, and
//! each result element `sum_k a[i, k] * b[k, j]` accumulated in `k` order.

use crate::sema::types::Type;

/// The most elements of a small array (one register or array slot each).
const MAX_ELEMS: usize = 64;

/// `(rows, inner, cols)` of the product `l * r` of two small arrays of numbers, when both have
/// a fixed shape of at most 64 elements and the inner extents agree.
pub fn shape(l: &Type, r: &Type) -> Option<(usize, usize, usize)> {
    let (a, b) = (dims(l)?, dims(r)?);
    let (rows, k1) = match a.as_slice() {
        [k] => (1, *k),
        [m, k] => (*m, *k),
        _ => return None,
    };
    let (k2, cols) = match b.as_slice() {
        [k] => (*k, 1),
        [k, n] => (*k, *n),
        _ => return None,
    };
    (k1 == k2 && rows * cols <= MAX_ELEMS).then_some((rows, k1, cols))
}

/// The extents of a vector or matrix of numbers with a fixed shape of at most 64 elements.
fn dims(t: &Type) -> Option<Vec<usize>> {
    let d = super::small_layout::shape(t).filter(|_| t.elem().is_number())?;
    (1..=MAX_ELEMS).contains(&d.iter().product()).then_some(d)
}

/// The terms of result element `(i, j)`: the offsets of `a[i, k]` and `b[k, j]` for each `k`.
pub fn terms(
    (_, inner, cols): (usize, usize, usize),
    i: usize,
    j: usize,
) -> impl Iterator<Item = (usize, usize)> {
    (0..inner).map(move |k| (i * inner + k, k * cols + j))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sema::types::Dim;

    fn arr(dims: &[u64]) -> Type {
        Type::array_with_shape(Type::SCALAR, dims.iter().map(|&n| Dim::Known(n)).collect())
    }

    #[test]
    fn matrix_times_vector_matrix_and_row_vector_times_matrix() {
        assert_eq!(shape(&arr(&[3, 3]), &arr(&[3])), Some((3, 3, 1)));
        assert_eq!(shape(&arr(&[2, 3]), &arr(&[3, 4])), Some((2, 3, 4)));
        assert_eq!(shape(&arr(&[3]), &arr(&[3, 2])), Some((1, 3, 2)));
        assert_eq!(shape(&arr(&[2, 3]), &arr(&[2])), None, "inner extents differ");
        assert_eq!(shape(&arr(&[2, 2, 2]), &arr(&[2])), None, "a cube");
        let t: Vec<_> = terms((2, 3, 4), 1, 2).collect();
        assert_eq!(t, [(3, 2), (4, 6), (5, 10)]);
    }
}
