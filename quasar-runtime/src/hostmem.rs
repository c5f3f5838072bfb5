//! Host memory of a buffer: zero-initialised, aligned, or adopted from a `Vec<T>` without copying.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// Alignment of host buffers the runtime allocates itself (a cache line, enough for AVX-512).
pub(crate) const HOST_ALIGN: usize = 64;

/// How to give a [`HostMem`] back.
enum Owner {
    /// Allocated here with this layout (`None` for zero bytes: nothing to free).
    Layout(Option<Layout>),
    /// The storage of a `Vec<T>`; the function rebuilds and drops it.
    Vec { cap: usize, len: usize, free: unsafe fn(*mut u8, usize, usize) },
}

/// An owned block of host memory holding the bytes of a buffer's elements.
pub(crate) struct HostMem {
    ptr: NonNull<u8>,
    bytes: usize,
    owner: Owner,
}

// SAFETY: HostMem is a uniquely owned allocation; access is synchronised by its owner.
unsafe impl Send for HostMem {}
// SAFETY: as above.
unsafe impl Sync for HostMem {}

unsafe fn free_vec<T>(ptr: *mut u8, len: usize, cap: usize) {
    drop(Vec::from_raw_parts(ptr as *mut T, len, cap));
}

impl HostMem {
    /// `bytes` zero bytes aligned to `max(align, HOST_ALIGN)`. Large blocks come from the
    /// allocator's zeroed pages, so this is cheap until the memory is touched.
    pub fn zeroed(bytes: usize, align: usize) -> HostMem {
        let align = align.max(HOST_ALIGN);
        if bytes == 0 {
            // A dangling but well-aligned pointer.
            let ptr = NonNull::new(align as *mut u8).expect("alignment is non-zero");
            return HostMem { ptr, bytes, owner: Owner::Layout(None) };
        }
        let layout = Layout::from_size_align(bytes, align).expect("shape checked the size");
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(p).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        HostMem { ptr, bytes, owner: Owner::Layout(Some(layout)) }
    }

    /// Adopts the storage of `v` without copying.
    pub fn from_vec<T: Copy + 'static>(v: Vec<T>) -> HostMem {
        let mut v = std::mem::ManuallyDrop::new(v);
        let (len, cap) = (v.len(), v.capacity());
        let ptr = NonNull::new(v.as_mut_ptr() as *mut u8).expect("Vec pointers are non-null");
        let bytes = len * std::mem::size_of::<T>();
        HostMem { ptr, bytes, owner: Owner::Vec { cap, len, free: free_vec::<T> } }
    }

    /// The start of the block.
    #[inline]
    pub fn ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Its size in bytes.
    #[inline]
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for HostMem {
    fn drop(&mut self) {
        match self.owner {
            // SAFETY: allocated with exactly this layout.
            Owner::Layout(Some(layout)) => unsafe { dealloc(self.ptr.as_ptr(), layout) },
            Owner::Layout(None) => {}
            // SAFETY: the parts came from a Vec<T> of this T (the function was monomorphised for it).
            Owner::Vec { cap, len, free } => unsafe { free(self.ptr.as_ptr(), len, cap) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_is_zero_and_aligned() {
        let m = HostMem::zeroed(1000, 8);
        assert_eq!(m.ptr() as usize % HOST_ALIGN, 0);
        // SAFETY: 1000 initialised bytes.
        let s = unsafe { std::slice::from_raw_parts(m.ptr(), m.bytes()) };
        assert!(s.iter().all(|&b| b == 0));
        let e = HostMem::zeroed(0, 128);
        assert_eq!(e.ptr() as usize % 128, 0);
    }

    #[test]
    fn adopts_vec_without_copying() {
        let v = vec![1.5f64, 2.5, 3.5];
        let p = v.as_ptr() as *mut u8;
        let m = HostMem::from_vec(v);
        assert_eq!(m.ptr(), p);
        assert_eq!(m.bytes(), 24);
    }
}
