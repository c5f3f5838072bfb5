//! Privatised accumulation (quasar-core `analysis::accumulators`): a CPU block of a kernel
//! that only does `h[i] += v` / `h[i] -= v` on an argument adds into a zeroed private copy of
//! it with plain additions, and adds the copy into the argument once, atomically, at the end
//! of the block. A block privatises only when it has many more positions than the array has
//! elements; otherwise its updates stay atomic on the argument itself.

use quasar_runtime::atomic::{self, AtomicArith};
use quasar_runtime::{BlockCtx, Element, KernelView, Result};

/// At most this many elements are privatised (a block's copy stays in the caches).
const MAX_ELEMENTS: usize = 1 << 16;
/// A block privatises when it has at least this many positions per element.
const POSITIONS_PER_ELEMENT: usize = 16;

/// The private copy for this block: zeroed, as many elements as `v`, or empty when the block
/// updates `v` itself.
pub fn private_buf<T: Element + Default>(v: &KernelView<'_, T>, ctx: &BlockCtx<'_>) -> Vec<T> {
    let n = v.numel();
    let contiguous = (0..v.shape().ndim()).rev().try_fold(1usize, |want, d| {
        (v.dim(d) <= 1 || v.stride(d) == want).then(|| want * v.dim(d))
    });
    if n == 0 || n > MAX_ELEMENTS || contiguous.is_none() {
        return Vec::new();
    }
    match n.checked_mul(POSITIONS_PER_ELEMENT) {
        Some(need) if ctx.threads() >= need => vec![T::default(); n],
        _ => Vec::new(),
    }
}

/// The view the block's threads update and whether it is the private copy `buf` (their
/// additions are then plain ones, see [`acc_add`]).
pub fn private_view<'b, T: Element>(
    v: KernelView<'b, T>,
    buf: &'b mut [T],
) -> Result<(KernelView<'b, T>, bool)> {
    if buf.is_empty() {
        return Ok((v, false));
    }
    let dims: Vec<usize> = (0..v.shape().ndim()).map(|d| v.dim(d)).collect();
    // SAFETY: `buf` holds `numel(dims)` elements (made by `private_buf` for `v`) and outlives
    // the view (`'b`).
    let p = unsafe { KernelView::from_raw(buf.as_mut_ptr(), &dims)? };
    Ok((p, true))
}

/// Adds the block's private copy into `v` (atomically: other blocks do the same).
pub fn private_merge<T: Element + AtomicArith + PartialEq + Default>(
    buf: &[T],
    v: &KernelView<'_, T>,
) {
    let zero = T::default();
    for (i, &x) in buf.iter().enumerate().filter(|(_, x)| **x != zero) {
        // SAFETY: `buf` has `v.numel()` elements (`private_buf`), so `i` is in bounds.
        unsafe { atomic::add(v.as_ptr().add(i), x) };
    }
}

/// `*p += v`: a plain addition into the block's private copy, else atomic.
///
/// # Safety
/// `p` is valid for reads and writes; when `private`, no other thread accesses it meanwhile.
#[inline(always)]
pub unsafe fn acc_add<T: Element + AtomicArith>(private: bool, p: *mut T, v: T) {
    if private {
        // SAFETY: the caller's.
        unsafe { *p = AtomicArith::add(*p, v) };
    } else {
        // SAFETY: the caller's.
        unsafe { atomic::add(p, v) };
    }
}

/// `*p -= v`, as [`acc_add`].
///
/// # Safety
/// As for [`acc_add`].
#[inline(always)]
pub unsafe fn acc_sub<T: Element + AtomicArith>(private: bool, p: *mut T, v: T) {
    if private {
        // SAFETY: the caller's.
        unsafe { *p = AtomicArith::sub(*p, v) };
    } else {
        // SAFETY: the caller's.
        unsafe { atomic::sub(p, v) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_copies_add_into_the_argument() {
        let mut shared = vec![1.0f32, 2.0, 3.0, 4.0];
        // SAFETY: four elements for the view's lifetime.
        let v = unsafe { KernelView::from_raw(shared.as_mut_ptr(), &[4]).unwrap() };
        let mut buf = vec![0.0f32; 4];
        let (p, private) = private_view(v, &mut buf).unwrap();
        assert!(private);
        // SAFETY: in bounds, one thread.
        unsafe {
            acc_add(true, p.as_ptr().add(1), 5.0);
            acc_sub(true, p.as_ptr().add(3), 1.5);
            acc_add(true, p.as_ptr().add(1), 0.5);
        }
        private_merge(&buf, &v);
        assert_eq!(shared, [1.0, 7.5, 3.0, 2.5]);
    }

    #[test]
    fn without_a_private_copy_updates_go_to_the_argument() {
        let mut shared = vec![10i32, 20];
        // SAFETY: two elements for the view's lifetime.
        let v = unsafe { KernelView::from_raw(shared.as_mut_ptr(), &[2]).unwrap() };
        let (p, private) = private_view(v, &mut []).unwrap();
        assert!(!private);
        // SAFETY: in bounds, one thread.
        unsafe {
            acc_add(private, p.as_ptr(), 3);
            acc_sub(private, p.as_ptr().add(1), 25);
        }
        assert_eq!(shared, [13, -5]);
    }
}
