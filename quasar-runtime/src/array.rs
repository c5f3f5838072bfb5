//! [`Array<T>`]: Quasar's `vec/mat/cube/cube{n}[T]`. Row-major, zero-based, up to 16
//! dimensions, shared by reference (`clone` is cheap; [`Array::copy`] copies the elements),
//! backed by one logical buffer that may be valid on the host, on a GPU or both (see
//! `residency.rs`). Reading from Rust brings the data back from a GPU lazily.

use crate::element::{ElemInfo, Element};
use crate::error::{Error, Result};
use crate::hostmem::{host_vec, HostMem};
use crate::launch::Access;
use crate::residency::{Buffer, Residency};
use crate::shape::Shape;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// An n-dimensional array shared by reference: Quasar's `vec/mat/cube/cube{n}[T]`.
/// Row-major, zero-based, up to 16 dimensions; `clone` shares the elements and
/// [`Array::copy`] copies them. The elements live in one logical buffer that may be valid on
/// the host, on a GPU or both; kernels make it valid where they run, and reading from Rust
/// brings it back lazily.
///
/// Mutation goes through `&self` (arrays are reference types in Quasar); conflicting host
/// borrows are reported as [`Error::Borrowed`], like a `RefCell`.
pub struct Array<T: Element> {
    buf: Arc<Buffer>,
    shape: Shape,
    _t: PhantomData<T>,
}

impl<T: Element> Clone for Array<T> {
    /// Another reference to the same elements (no copy).
    fn clone(&self) -> Self {
        Array { buf: self.buf.clone(), shape: self.shape, _t: PhantomData }
    }
}

/// An integer usable as an array index (`int` is `i32` in generated code).
pub trait IndexInt: Copy {
    /// As an `i64` (saturating).
    fn to_i64(self) -> i64;
}
macro_rules! index_int {
    ($($t:ty),*) => { $( impl IndexInt for $t {
        #[inline] fn to_i64(self) -> i64 { i64::try_from(self).unwrap_or(i64::MAX) }
    } )* };
}
index_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl<T: Element> Array<T> {
    fn from_host(shape: Shape, host: HostMem) -> Array<T> {
        Array { buf: Buffer::new(host, ElemInfo::of::<T>()), shape, _t: PhantomData }
    }

    /// An empty vector (shape `[0]`), without allocating elements: what a variable holds before
    /// its first assignment. Never fails.
    pub fn empty() -> Array<T> {
        let buf = Buffer::new_zeroed(HostMem::empty(), ElemInfo::of::<T>());
        Array { buf, shape: Shape::empty(), _t: PhantomData }
    }

    /// An array of zeros (for every element type, the all-zero value).
    pub fn zeros(shape: &[usize]) -> Result<Array<T>> {
        let s = Shape::new(shape)?;
        let bytes = byte_len::<T>(&s)?;
        let host = HostMem::zeroed(bytes, std::mem::align_of::<T>())?.holding::<T>();
        let a =
            Array { buf: Buffer::new_zeroed(host, ElemInfo::of::<T>()), shape: s, _t: PhantomData };
        // `{!alloc mode=gpu}` before this allocation.
        crate::control::place_new(&a.buf)?;
        Ok(a)
    }

    /// Quasar's `uninit`: an array whose elements are unspecified (valid values of `T`, not
    /// necessarily zero) until the program writes them. A large one reuses the block of a
    /// freed array of the same type and size when one is kept, which saves the page faults and
    /// zeroing of new memory; otherwise it is zero.
    pub fn uninit(shape: &[usize]) -> Result<Array<T>> {
        let s = Shape::new(shape)?;
        let bytes = byte_len::<T>(&s)?;
        let (host, zero) = HostMem::uninit::<T>(bytes, std::mem::align_of::<T>())?;
        let buf = if zero {
            Buffer::new_zeroed(host, ElemInfo::of::<T>())
        } else {
            Buffer::new(host, ElemInfo::of::<T>())
        };
        let a = Array { buf, shape: s, _t: PhantomData };
        crate::control::place_new(&a.buf)?;
        Ok(a)
    }

    /// An array with every element `v`.
    pub fn from_elem(shape: &[usize], v: T) -> Result<Array<T>> {
        let a = Array::zeros(shape)?;
        a.host_view_mut()?.fill(v);
        Ok(a)
    }

    /// An array taking ownership of `data` (no copy); `data.len()` must be the element count.
    pub fn from_vec(shape: &[usize], data: Vec<T>) -> Result<Array<T>> {
        let s = Shape::new(shape)?;
        if data.len() != s.numel() {
            return Err(Error::shape(
                shape,
                format!("it has {} elements but {} values were given", s.numel(), data.len()),
            ));
        }
        Ok(Array::from_host(s, HostMem::from_vec(data)?))
    }

    /// An array whose element at linear index `i` is `f(i)`.
    pub fn from_fn(shape: &[usize], mut f: impl FnMut(usize) -> T) -> Result<Array<T>> {
        let s = Shape::new(shape)?;
        let mut v = host_vec(s.numel())?;
        v.extend((0..s.numel()).map(&mut f));
        Array::from_vec(shape, v)
    }

    /// The shape (extents per dimension).
    pub fn shape(&self) -> &[usize] {
        self.shape.dims()
    }
    pub(crate) fn shape_ref(&self) -> &Shape {
        &self.shape
    }
    pub(crate) fn buffer(&self) -> &Arc<Buffer> {
        &self.buf
    }
    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.ndim()
    }
    /// `size(x, d)`: the extent of dimension `d` (1 past the last dimension).
    pub fn size(&self, d: usize) -> usize {
        self.shape.dim(d)
    }
    /// `numel(x)`: the number of elements.
    pub fn numel(&self) -> usize {
        self.shape.numel()
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.numel() == 0
    }
    /// The identifier of the array's elements (shared by clones and reshapes), as in the
    /// profile's per-array table ([`crate::Profile::array`]).
    pub fn id(&self) -> u64 {
        self.buf.id
    }
    /// Whether `self` and `other` share their elements.
    pub fn same_data(&self, other: &Array<T>) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf)
    }

    /// A deep copy (on the host; the copy is valid on the host only).
    pub fn copy(&self) -> Result<Array<T>> {
        let n = self.buf.bytes;
        let host = HostMem::zeroed(n, std::mem::align_of::<T>())?.holding::<T>();
        let dst = host.ptr();
        // SAFETY: both blocks hold n bytes and do not overlap.
        self.buf.host_read(|src| unsafe { std::ptr::copy_nonoverlapping(src, dst, n) })?;
        Ok(Array::from_host(self.shape, host))
    }

    /// The same elements with another shape of the same element count (no copy).
    pub fn reshape(&self, shape: &[usize]) -> Result<Array<T>> {
        let s = Shape::new(shape)?;
        if s.numel() != self.numel() {
            return Err(Error::ShapeMismatch {
                operation: "reshape".into(),
                left: self.shape().to_vec(),
                right: shape.to_vec(),
            });
        }
        Ok(Array { buf: self.buf.clone(), shape: s, _t: PhantomData })
    }

    /// The same elements seen by a parameter of `rank` dimensions ([`Shape::as_rank`]: a
    /// vector is a row; extra trailing dimensions must be 1). `param` names the parameter
    /// and `declared` its type for the error ([`Error::TypeCheck`]) when the shape does not
    /// fit. No copy.
    pub fn with_rank(&self, rank: usize, param: &str, declared: &str) -> Result<Array<T>> {
        match self.shape.as_rank(rank) {
            Some(shape) => Ok(Array { buf: self.buf.clone(), shape, _t: PhantomData }),
            None => Err(Error::TypeCheck {
                what: param.to_string(),
                expected: declared.to_string(),
                found: format!("an array of shape {}", self.shape),
            }),
        }
    }

    fn offset<I: IndexInt>(&self, index: &[I]) -> Result<usize> {
        let idx: Vec<i64> = index.iter().map(|i| i.to_i64()).collect();
        self.shape.offset(&idx).ok_or_else(|| Error::IndexOutOfRange {
            array: "array".into(),
            index: idx,
            shape: self.shape().to_vec(),
            location: None,
        })
    }

    /// Checked read of one element (`'checked`, the host default). `index` may be linear, full,
    /// or partial as in Quasar; out of range is [`Error::IndexOutOfRange`]. Each call takes the
    /// buffer's lock: for loops over many elements use [`host_view`](Self::host_view).
    pub fn get<I: IndexInt>(&self, index: &[I]) -> Result<T> {
        let off = self.offset(index)?;
        // SAFETY: off < numel; the host copy is valid while the closure runs.
        self.buf.host_read(|p| unsafe { (p as *const T).add(off).read() })
    }

    /// Checked write of one element; the device copy (if any) becomes stale.
    pub fn set<I: IndexInt>(&self, index: &[I], v: T) -> Result<()> {
        let off = self.offset(index)?;
        // SAFETY: as in `get`, and the copy is not borrowed.
        self.buf.host_write(|p| unsafe { (p as *mut T).add(off).write(v) })
    }

    /// The elements in row-major order (a copy).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let view = self.host_view()?;
        let mut v = host_vec(view.len())?;
        v.extend_from_slice(&view);
        Ok(v)
    }

    /// The elements as an owned `ndarray` array (always a copy; use
    /// [`HostView::as_ndarray`] to borrow without copying).
    pub fn to_ndarray(&self) -> Result<ndarray::ArrayD<T>> {
        let v = self.to_vec()?;
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(self.shape()), v)
            .map_err(|e| Error::shape(self.shape(), e.to_string()))
    }

    /// Takes an owned `ndarray` array. No copy when it is in standard (row-major, contiguous)
    /// layout and starts at the beginning of its storage; otherwise the elements are copied.
    pub fn from_ndarray<D: ndarray::Dimension>(a: ndarray::Array<T, D>) -> Result<Array<T>> {
        let shape = a.shape().to_vec();
        if a.is_standard_layout() {
            let (v, off) = a.into_raw_vec_and_offset();
            if off.unwrap_or(0) == 0 && v.len() == shape.iter().product::<usize>() {
                return Array::from_vec(&shape, v);
            }
            let s = Shape::new(&shape)?;
            let start = off.unwrap_or(0);
            let mut w = host_vec(s.numel())?;
            w.extend_from_slice(&v[start..start + s.numel()]);
            return Array::from_vec(&shape, w);
        }
        let mut w = host_vec(a.len())?;
        w.extend(a.iter().copied());
        Array::from_vec(&shape, w)
    }

    /// Copies the elements of an `ndarray` view (any layout).
    pub fn from_ndarray_view<D: ndarray::Dimension>(
        a: ndarray::ArrayView<'_, T, D>,
    ) -> Result<Array<T>> {
        let mut w = host_vec(a.len())?;
        w.extend(a.iter().copied());
        Array::from_vec(a.shape(), w)
    }

    /// Borrows the host copy for reading (bringing it back from a GPU if needed). While the
    /// view lives, writes to the array (host or kernel) fail with [`Error::Borrowed`].
    pub fn host_view(&self) -> Result<HostView<'_, T>> {
        let p = self.buf.borrow_host(Access::Read, crate::profiler::HOST_READ, false)?;
        Ok(HostView { array: self, ptr: p as *const T })
    }

    /// Borrows the host copy for writing; other copies become stale. While the view lives,
    /// any other access fails with [`Error::Borrowed`].
    pub fn host_view_mut(&self) -> Result<HostViewMut<'_, T>> {
        let p = self.buf.borrow_host(Access::ReadWrite, crate::profiler::HOST_READ, false)?;
        Ok(HostViewMut { array: self, ptr: p as *mut T })
    }

    /// Where the data is valid.
    pub fn residency(&self) -> Residency {
        self.buf.residency()
    }

    /// Waits until no device operation on this array is in flight.
    pub fn sync(&self) -> Result<()> {
        self.buf.sync()
    }
}

fn byte_len<T>(s: &Shape) -> Result<usize> {
    s.numel()
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| Error::shape(s.dims(), "the number of bytes overflows"))
}

impl<T: Element + fmt::Debug> fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Array<{}>{}", T::type_name(), self.shape)?;
        match self.host_view() {
            Ok(v) if v.len() <= 64 => write!(f, " {:?}", &*v),
            Ok(_) => write!(f, " [..]"),
            Err(_) => write!(f, " <borrowed>"),
        }
    }
}

/// A read borrow of an array's host copy: derefs to `&[T]` (row-major).
pub struct HostView<'a, T: Element> {
    array: &'a Array<T>,
    ptr: *const T,
}

impl<'a, T: Element> HostView<'a, T> {
    /// The elements as an `ndarray` view with the array's shape (no copy).
    pub fn as_ndarray(&self) -> ndarray::ArrayViewD<'_, T> {
        ndarray::ArrayViewD::from_shape(ndarray::IxDyn(self.array.shape()), self)
            .expect("the shape matches the element count")
    }
}

impl<T: Element> HostView<'_, T> {
    /// The elements as a device function sees an array parameter of static rank `rank`
    /// (`None`: the array's own), with the extents a kernel gets
    /// ([`crate::ptx::static_extents`]): for host code calling a device function directly.
    /// Generated code only passes it where the function does not write the array.
    pub fn kernel_view(&self, rank: Option<usize>) -> Result<crate::kernel::KernelView<'_, T>> {
        let shape = self.array.shape();
        let dims = crate::ptx::static_extents(shape, rank.unwrap_or(shape.len()));
        // SAFETY: the borrow keeps the host copy valid for the view's lifetime, and nothing
        // writes through the view (above).
        unsafe { crate::kernel::KernelView::from_raw(self.ptr as *mut T, &dims) }
    }
}

impl<T: Element> HostViewMut<'_, T> {
    /// As [`HostView::kernel_view`], for a device function that may write the array.
    pub fn kernel_view(&mut self, rank: Option<usize>) -> Result<crate::kernel::KernelView<'_, T>> {
        let shape = self.array.shape();
        let dims = crate::ptx::static_extents(shape, rank.unwrap_or(shape.len()));
        // SAFETY: the exclusive borrow keeps the host copy valid and ours for the view's
        // lifetime.
        unsafe { crate::kernel::KernelView::from_raw(self.ptr, &dims) }
    }
}

impl<T: Element> Deref for HostView<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the borrow keeps the host copy valid and unwritten; numel elements.
        unsafe { std::slice::from_raw_parts(self.ptr, self.array.numel()) }
    }
}

impl<T: Element> Drop for HostView<'_, T> {
    fn drop(&mut self) {
        self.array.buf.release_host(Access::Read, false);
    }
}

/// A write borrow of an array's host copy: derefs to `&mut [T]` (row-major).
pub struct HostViewMut<'a, T: Element> {
    array: &'a Array<T>,
    ptr: *mut T,
}

impl<'a, T: Element> HostViewMut<'a, T> {
    /// The elements as a mutable `ndarray` view with the array's shape (no copy).
    pub fn as_ndarray_mut(&mut self) -> ndarray::ArrayViewMutD<'_, T> {
        let shape = self.array.shape().to_vec();
        ndarray::ArrayViewMutD::from_shape(ndarray::IxDyn(&shape), self)
            .expect("the shape matches the element count")
    }
}

impl<T: Element> Deref for HostViewMut<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the exclusive borrow keeps the host copy valid and ours alone.
        unsafe { std::slice::from_raw_parts(self.ptr, self.array.numel()) }
    }
}

impl<T: Element> DerefMut for HostViewMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.array.numel()) }
    }
}

impl<T: Element> Drop for HostViewMut<'_, T> {
    fn drop(&mut self) {
        self.array.buf.release_host(Access::ReadWrite, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;
    use num_complex::Complex;

    #[test]
    fn shape_queries_and_checked_indexing() {
        let a = Array::<f32>::from_fn(&[2, 3], |i| i as f32).unwrap();
        assert_eq!(a.shape(), &[2, 3]);
        assert_eq!((a.ndim(), a.numel(), a.size(1), a.size(5)), (2, 6, 3, 1));
        assert_eq!(a.get(&[1, 2]).unwrap(), 5.0);
        assert_eq!(a.get(&[4]).unwrap(), 4.0);
        let e = a.get(&[2, 0]).unwrap_err();
        assert!(matches!(e, Error::IndexOutOfRange { .. }));
        assert_eq!(e.to_string(), "index [2, 0] is out of range for `array` with shape [2, 3]");
        assert!(a.get(&[-1i32, 0]).is_err());
        a.set(&[0, 1], 10.0).unwrap();
        assert_eq!(a.to_vec().unwrap(), vec![0.0, 10.0, 2.0, 3.0, 4.0, 5.0]);
        assert!(a.set(&[6], 1.0).is_err());
    }

    #[test]
    fn host_views_as_a_device_function_sees_its_array_parameters() {
        let a = Array::<f32>::from_fn(&[3], |i| i as f32).unwrap();
        {
            let h = a.host_view().unwrap();
            // A vector given to a `mat` parameter is a row, as a kernel gets it.
            let v = h.kernel_view(Some(2)).unwrap();
            assert_eq!((v.shape().dims(), v.numel()), (&[1, 3][..], 3));
            assert!(a.host_view_mut().is_err(), "the read borrow lasts while the view lives");
        }
        let mut h = a.host_view_mut().unwrap();
        let v = h.kernel_view(None).unwrap();
        // SAFETY: index 2 of 3 elements, the view borrowed for writing.
        unsafe { v.set_unchecked(2, 7.5) };
        drop(h);
        assert_eq!(a.to_vec().unwrap(), vec![0.0, 1.0, 7.5]);
    }

    #[test]
    fn clone_shares_copy_does_not() {
        let a = Array::<i32>::zeros(&[4]).unwrap();
        let b = a.clone();
        let c = a.copy().unwrap();
        b.set(&[0], 7).unwrap();
        assert_eq!(a.get(&[0]).unwrap(), 7);
        assert_eq!(c.get(&[0]).unwrap(), 0);
        assert!(a.same_data(&b) && !a.same_data(&c));
        let r = a.reshape(&[2, 2]).unwrap();
        assert_eq!(r.get(&[0, 0]).unwrap(), 7);
        assert!(a.reshape(&[3]).is_err());
    }

    #[test]
    fn every_element_type() {
        let h = Array::from_elem(&[3], f16::from_f32(1.5)).unwrap();
        assert_eq!(h.get(&[2]).unwrap(), f16::from_f32(1.5));
        let c = Array::from_elem(&[2, 2], Complex::new(1.0f64, -2.0)).unwrap();
        assert_eq!(c.get(&[1, 1]).unwrap().im, -2.0);
        let v = Array::<[f32; 3]>::zeros(&[5]).unwrap();
        assert_eq!(v.get(&[4]).unwrap(), [0.0; 3]);
        let u = Array::<u8>::zeros(&[0]).unwrap();
        assert!(u.is_empty() && u.to_vec().unwrap().is_empty());
        assert!(Array::<u8>::zeros(&[1; 17]).is_err());
        assert!(Array::from_vec(&[2, 2], vec![1u8; 3]).is_err());
    }

    #[test]
    fn ndarray_round_trip_without_copies_where_possible() {
        let nd = ndarray::Array2::from_shape_fn((3, 4), |(i, j)| (i * 10 + j) as f64);
        let p = nd.as_ptr();
        let a = Array::from_ndarray(nd.clone()).unwrap();
        assert_eq!(a.get(&[2, 3]).unwrap(), 23.0);
        {
            let v = a.host_view().unwrap();
            assert_eq!(v.as_ptr(), a.host_view().unwrap().as_ptr());
            assert_eq!(v.as_ndarray(), nd.clone().into_dyn());
        }
        let moved = Array::from_ndarray(nd.clone()).unwrap();
        let _ = p;
        assert_eq!(moved.to_ndarray().unwrap(), nd.clone().into_dyn());
        // Zero copy: the Vec's storage is adopted.
        let owned = ndarray::Array1::from_vec(vec![1u32, 2, 3]);
        let q = owned.as_ptr();
        let b = Array::from_ndarray(owned).unwrap();
        assert_eq!(b.host_view().unwrap().as_ptr(), q);
        // Non-standard layouts are copied.
        let t = Array::from_ndarray(nd.t().to_owned()).unwrap();
        assert_eq!(t.shape(), &[4, 3]);
        assert_eq!(t.get(&[3, 2]).unwrap(), 23.0);
        let tv = Array::from_ndarray_view(nd.t()).unwrap();
        assert_eq!(tv.get(&[3, 2]).unwrap(), 23.0);
    }

    #[test]
    fn host_borrows_behave_like_refcell() {
        let a = Array::<f32>::zeros(&[4]).unwrap();
        {
            let v = a.host_view().unwrap();
            let w = a.host_view().unwrap();
            assert_eq!(v.len(), w.len());
            assert!(matches!(a.set(&[0], 1.0), Err(Error::Borrowed { .. })));
            assert!(a.host_view_mut().is_err());
            assert_eq!(a.get(&[0]).unwrap(), 0.0);
        }
        {
            let mut m = a.host_view_mut().unwrap();
            m[1] = 2.0;
            m.as_ndarray_mut()[[2]] = 3.0;
            assert!(a.get(&[0]).is_err());
            assert!(a.host_view().is_err());
        }
        assert_eq!(a.to_vec().unwrap(), vec![0.0, 2.0, 3.0, 0.0]);
        assert!(format!("{a:?}").starts_with("Array<f32>[4] [0.0, 2.0"));
    }
}
