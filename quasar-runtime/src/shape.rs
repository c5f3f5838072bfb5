//! [`Shape`]: the dimensions of an array (row-major, at most [`MAX_DIMS`]).

use crate::error::{Error, Result};
use std::fmt;

/// The most dimensions an array can have.
pub const MAX_DIMS: usize = 16;

/// The extents of an array, first dimension first. The last dimension is contiguous
/// (row-major). Stored inline (no allocation) so that cloning an array is cheap.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// The extents; those past `ndim` are always 1 (`numel`, `stride` and `==` rely on it).
    dims: [usize; MAX_DIMS],
    ndim: u8,
}

impl Shape {
    /// A shape with the given extents. Fails for more than [`MAX_DIMS`] dimensions or an element
    /// count (or byte count of `elem_size`-byte elements) that overflows `isize`.
    pub fn new(dims: &[usize]) -> Result<Shape> {
        if dims.len() > MAX_DIMS {
            return Err(Error::shape(
                dims,
                format!("{} dimensions, at most {MAX_DIMS}", dims.len()),
            ));
        }
        let mut numel: usize = 1;
        for &d in dims {
            numel = numel
                .checked_mul(d)
                .filter(|&n| n <= isize::MAX as usize)
                .ok_or_else(|| Error::shape(dims, "the number of elements overflows"))?;
        }
        let mut s = Shape { dims: [1; MAX_DIMS], ndim: dims.len() as u8 };
        s.dims[..dims.len()].copy_from_slice(dims);
        Ok(s)
    }

    /// The shape `[0]` of an empty vector.
    pub const fn empty() -> Shape {
        let mut dims = [1; MAX_DIMS];
        dims[0] = 0;
        Shape { dims, ndim: 1 }
    }

    /// The extents, one per dimension.
    #[inline]
    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.ndim as usize]
    }

    /// The number of dimensions (0 for a scalar-shaped array of one element).
    #[inline]
    pub fn ndim(&self) -> usize {
        self.ndim as usize
    }

    /// The extent of dimension `d`; dimensions past the last one have extent 1, as in Quasar's
    /// `size(x, d)`.
    #[inline]
    pub fn dim(&self, d: usize) -> usize {
        if d < MAX_DIMS {
            self.dims[d]
        } else {
            1
        }
    }

    /// The number of elements.
    #[inline]
    pub fn numel(&self) -> usize {
        // Over all MAX_DIMS extents (those past `ndim` are 1): a fixed-length product that
        // compiles to straight-line code, where the first `ndim` gave a loop (unrolled and
        // vectorised by LLVM in every kernel function that asks, issue 19).
        self.dims.iter().product()
    }

    /// The distance in elements between neighbours along dimension `d` (row-major).
    #[inline]
    pub fn stride(&self, d: usize) -> usize {
        // As `numel`: the extents past `ndim` are 1.
        self.dims.iter().skip(d + 1).product()
    }

    /// All strides, in elements.
    pub fn strides(&self) -> Vec<usize> {
        (0..self.ndim()).map(|d| self.stride(d)).collect()
    }

    /// This shape seen as an array of `rank` dimensions, the way a Quasar parameter of that
    /// rank sees its argument (manual §2.2: `vec` ⊂ `mat` ⊂ `cube`):
    /// * a vector is a row: `[n]` as a matrix is `[1, n]`, as a cube `[1, n, 1]`;
    /// * other shapes gain trailing dimensions of 1 (`[m, n]` as a cube is `[m, n, 1]`);
    /// * a shape with more dimensions fits when the extra trailing ones are 1 (`[m, n, 1]` as
    ///   a matrix), and any shape with at most one extent other than 1 fits a vector.
    ///
    /// `None` when it does not fit (`[m, n, 3]` as a matrix).
    pub fn as_rank(&self, rank: usize) -> Option<Shape> {
        let dims = self.dims();
        let n = dims.len();
        if n == rank {
            return Some(*self);
        }
        let out: Vec<usize> = if n < rank {
            let mut v = if n == 1 && rank >= 2 { vec![1, dims[0]] } else { dims.to_vec() };
            v.resize(rank, 1);
            v
        } else if dims[rank..].iter().all(|&d| d == 1) {
            dims[..rank].to_vec()
        } else if rank == 1 && dims.iter().filter(|&&d| d != 1).count() <= 1 {
            vec![self.numel()]
        } else {
            return None;
        };
        Shape::new(&out).ok()
    }

    /// The linear (row-major) offset of `index`, checked. `index` may have:
    /// one entry (a linear index), as many entries as dimensions, more entries (the extra ones
    /// must be 0), or fewer (the last one then runs over the remaining dimensions, as in
    /// MATLAB). Returns `None` when out of range.
    pub fn offset(&self, index: &[i64]) -> Option<usize> {
        let n = index.len();
        if n == 0 {
            return if self.numel() == 1 { Some(0) } else { None };
        }
        if self.ndim() == 1 && n >= 2 {
            // A vector indexed as a matrix is a row: `v[0, j]`.
            return self.as_rank(n)?.offset(index);
        }
        let nd = self.ndim();
        let mut off: usize = 0;
        for (k, &i) in index.iter().enumerate() {
            let extent = if k + 1 == n {
                // The last index covers every remaining dimension.
                self.dims().iter().skip(k).product::<usize>()
            } else if k < nd {
                self.dims[k]
            } else {
                1
            };
            if i < 0 || i as u64 >= extent as u64 {
                return None;
            }
            off = off * extent + i as usize;
        }
        Some(off)
    }
}

impl fmt::Debug for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.dims()).finish()
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.dims().iter().map(|d| d.to_string()).collect();
        write!(f, "[{}]", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vector_is_a_row_at_every_higher_rank() {
        let dims = |d: &[usize], r| Shape::new(d).unwrap().as_rank(r).map(|s| s.dims().to_vec());
        assert_eq!(dims(&[3], 2), Some(vec![1, 3]));
        assert_eq!(dims(&[3], 3), Some(vec![1, 3, 1]));
        assert_eq!(dims(&[3], 1), Some(vec![3]));
        assert_eq!(dims(&[2, 3], 3), Some(vec![2, 3, 1]));
        assert_eq!(dims(&[2, 3, 1], 2), Some(vec![2, 3]));
        assert_eq!(dims(&[4, 1], 1), Some(vec![4]));
        assert_eq!(dims(&[1, 4], 1), Some(vec![4]));
        assert_eq!(dims(&[2, 3, 4], 2), None);
        assert_eq!(dims(&[2, 3], 1), None);
        // Element (0, j) of a vector is element j; (1, 0) is outside the row.
        let v = Shape::new(&[3]).unwrap();
        assert_eq!(v.offset(&[0, 2]), Some(2));
        assert_eq!(v.offset(&[1, 0]), None);
        assert_eq!(v.offset(&[0, 1, 0]), Some(1));
        assert_eq!(v.offset(&[2]), Some(2));
    }

    #[test]
    fn shape_queries() {
        let s = Shape::new(&[2, 3, 4]).unwrap();
        assert_eq!(s.dims(), &[2, 3, 4]);
        assert_eq!(s.ndim(), 3);
        assert_eq!(s.numel(), 24);
        assert_eq!(s.strides(), vec![12, 4, 1]);
        assert_eq!(s.dim(7), 1);
        assert_eq!(s.dim(100), 1);
        assert_eq!(s.to_string(), "[2, 3, 4]");
    }

    #[test]
    fn too_many_dims_and_overflow_are_errors() {
        assert!(Shape::new(&[1; 16]).is_ok());
        let e = Shape::new(&[1; 17]).unwrap_err();
        assert!(e.to_string().contains("17 dimensions, at most 16"), "{e}");
        assert!(Shape::new(&[usize::MAX, 2]).is_err());
    }

    #[test]
    fn offsets_full_linear_partial_and_extra() {
        let s = Shape::new(&[2, 3, 4]).unwrap();
        assert_eq!(s.offset(&[1, 2, 3]), Some(23));
        assert_eq!(s.offset(&[23]), Some(23));
        assert_eq!(s.offset(&[24]), None);
        assert_eq!(s.offset(&[1, 11]), Some(23));
        assert_eq!(s.offset(&[1, 2, 3, 0]), Some(23));
        assert_eq!(s.offset(&[1, 2, 3, 1]), None);
        assert_eq!(s.offset(&[-1, 0, 0]), None);
        assert_eq!(s.offset(&[0, 3, 0]), None);
        let scalar = Shape::new(&[]).unwrap();
        assert_eq!(scalar.numel(), 1);
        assert_eq!(scalar.offset(&[]), Some(0));
        assert_eq!(scalar.offset(&[0]), Some(0));
    }
}
