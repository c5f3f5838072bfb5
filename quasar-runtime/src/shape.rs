//! [`Shape`]: the dimensions of an array (row-major, at most [`MAX_DIMS`]).

use crate::error::{Error, Result};
use std::fmt;

/// The most dimensions an array can have.
pub const MAX_DIMS: usize = 16;

/// The extents of an array, first dimension first. The last dimension is contiguous
/// (row-major). Stored inline (no allocation) so that cloning an array is cheap.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
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
        self.dims().iter().product()
    }

    /// The distance in elements between neighbours along dimension `d` (row-major).
    #[inline]
    pub fn stride(&self, d: usize) -> usize {
        self.dims().iter().skip(d + 1).product()
    }

    /// All strides, in elements.
    pub fn strides(&self) -> Vec<usize> {
        (0..self.ndim()).map(|d| self.stride(d)).collect()
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
