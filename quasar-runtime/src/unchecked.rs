//! The one place where generated kernels touch array elements without a bounds check of
//! their own. Every element access that the code generator (`quasar-core`,
//! `backend/rust/index.rs`, `view_access`) emits inside an `unsafe` block goes through these
//! functions, so the safety argument is made once, here, instead of at each generated block
//! (generated code is a token stream, which cannot carry `// SAFETY:` comments).
//!
//! # Safety argument
//!
//! Memory safety needs `off < view.numel()`. The generator calls these functions only when
//! one of the following holds:
//!
//! 1. **The access was tested.** The generated `ok` holds exactly when every index
//!    component `i_d` lies in `0..n_d` (`'safe`, `'checked`, and `'unchecked` in debug
//!    builds), or the component was first mapped into `0..n_d` (`'clamped`, `'circular`,
//!    `'mirror`, all guarded by `n_d > 0`); the offset is `Σ i_d · stride_d` of the view's
//!    row-major shape, hence below `numel`. A view read whole into a fixed-size vector
//!    (`backend/rust/expr.rs`) is first tested to hold exactly that many elements.
//! 2. **The access was proved.** The interior partition (`quasar-core`,
//!    `transform/interior.rs`) emitted no test because it proved, from the launch's extents
//!    and the affine form of each index, that every thread of the interior region stays in
//!    bounds; the offset's components may be negative on their own (flat loops of
//!    `transform/collapse.rs`), but their wrapping sum is the in-bounds offset.
//! 3. **The programmer asserted it.** A `'unchecked` array in a release build: the manual
//!    (§2.4.1) makes an out-of-bounds index undefined there, as on a GPU.
//!
//! In debug builds each function asserts `off < numel`, so a wrong proof in case 2 is a
//! panic in tests rather than a silent out-of-bounds access.
//!
//! Concurrency follows [`KernelView`]'s rules (GPU semantics): threads write distinct
//! elements non-atomically, and compound assignments on array elements, which may collide,
//! use [`crate::atomic`] through [`element`].

use crate::element::Element;
use crate::kernel::KernelView;

/// Reads element `off` (linear) of `v`.
///
/// # Safety
/// `off < v.numel()` (see the module documentation for why generated code satisfies it), and
/// no other thread writes that element non-atomically during the read.
#[inline(always)]
pub unsafe fn read<T: Element>(v: &KernelView<'_, T>, off: usize) -> T {
    debug_assert!(off < v.numel(), "unchecked read at {off} of {} elements", v.numel());
    // SAFETY: the caller guarantees the offset is in bounds and the access race-free.
    unsafe { v.get_unchecked(off) }
}

/// Writes `x` to element `off` (linear) of `v`.
///
/// # Safety
/// `off < v.numel()`, and no other thread accesses that element during the write.
#[inline(always)]
pub unsafe fn write<T: Element>(v: &KernelView<'_, T>, off: usize, x: T) {
    debug_assert!(off < v.numel(), "unchecked write at {off} of {} elements", v.numel());
    // SAFETY: as for `read`, with no concurrent access at all.
    unsafe { v.set_unchecked(off, x) }
}

/// The row-major offset of index `i` in a view whose strides are `s`: the wrapping sum of
/// `i[d] * s[d]`, with the last stride taken as 1 (kernel views are row-major, and a literal
/// stride lets LLVM see contiguous accesses). Components may be negative on their own (the
/// flat loops of the interior); their wrapping sum is the offset.
#[inline(always)]
pub fn row_major<const R: usize>(i: [i64; R], s: [usize; R]) -> usize {
    let mut off = 0usize;
    for d in 0..R {
        let stride = if d + 1 == R { 1 } else { s[d] };
        off = off.wrapping_add((i[d] as usize).wrapping_mul(stride));
    }
    off
}

/// [`read`] at index `i` of a view with strides `s` ([`row_major`]).
///
/// # Safety
/// As for [`read`], with `off = row_major(i, s)`.
#[inline(always)]
pub unsafe fn read_at<T: Element, const R: usize>(
    v: &KernelView<'_, T>,
    i: [i64; R],
    s: [usize; R],
) -> T {
    // SAFETY: the caller guarantees the offset is in bounds and the access race-free.
    unsafe { read(v, row_major(i, s)) }
}

/// [`write()`] at index `i` of a view with strides `s` ([`row_major`]).
///
/// # Safety
/// As for [`write()`], with `off = row_major(i, s)`.
#[inline(always)]
pub unsafe fn write_at<T: Element, const R: usize>(
    v: &KernelView<'_, T>,
    i: [i64; R],
    s: [usize; R],
    x: T,
) {
    // SAFETY: as for `read_at`.
    unsafe { write(v, row_major(i, s), x) }
}

/// Element `off` (linear) of `v` when `ok`, else zero: a read whose bounds test the caller made
/// (kernels' `'safe`, `'clamped`, `'circular` and `'mirror` accesses), without a branch in the
/// generated code.
///
/// # Safety
/// `ok` implies `off < v.numel()`, and no other thread writes that element non-atomically
/// during the read.
#[inline(always)]
pub unsafe fn read_if<T: Element>(v: &KernelView<'_, T>, ok: bool, off: usize) -> T {
    if ok {
        // SAFETY: `ok` implies the offset is in bounds (caller).
        unsafe { read(v, off) }
    } else {
        crate::output::zeroed()
    }
}

/// Writes `x` to element `off` (linear) of `v` when `ok`, else nothing (as [`read_if`]).
///
/// # Safety
/// `ok` implies `off < v.numel()`, and no other thread accesses that element during the write.
#[inline(always)]
pub unsafe fn write_if<T: Element>(v: &KernelView<'_, T>, ok: bool, off: usize, x: T) {
    if ok {
        // SAFETY: as for `read_if`.
        unsafe { write(v, off, x) }
    }
}

/// The address of element `off` (linear) of `v`, for the atomic updates of [`crate::atomic`].
///
/// # Safety
/// `off < v.numel()`; the pointer is used only while the launch lasts, and every concurrent
/// access to the element goes through [`crate::atomic`].
#[inline(always)]
pub unsafe fn element<T: Element>(v: &KernelView<'_, T>, off: usize) -> *mut T {
    debug_assert!(off < v.numel(), "unchecked update at {off} of {} elements", v.numel());
    // SAFETY: `off` is in bounds of the view's allocation (caller).
    unsafe { v.as_ptr().add(off) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_writes_and_updates_in_bounds() {
        let mut data = [1.0f32, 2.0, 3.0, 4.0];
        // SAFETY: `data` outlives the view, which has its 4 elements.
        let v = unsafe { KernelView::from_raw(data.as_mut_ptr(), &[2, 2]) }.expect("shape");
        // SAFETY: offsets below 4, one thread.
        unsafe {
            assert_eq!(read(&v, 3), 4.0);
            write(&v, 1, 5.0);
            crate::atomic::add(element(&v, 0), 2.0);
            assert_eq!(read_if(&v, false, 9), 0.0);
            assert_eq!(read_if(&v, true, 2), 3.0);
            write_if(&v, false, 9, 7.0);
            write_if(&v, true, 3, 6.0);
            // Row 1, column 0 of the 2 x 2 view; negative components wrap into place.
            assert_eq!(row_major([1, 0], [2, 1]), 2);
            assert_eq!(row_major([2, -2], [2, 1]), 2);
            assert_eq!(read_at(&v, [1, 1], [2, 1]), 6.0);
            write_at(&v, [0, 0], [2, 1], 8.0);
        }
        assert_eq!(data, [8.0, 5.0, 3.0, 6.0]);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "unchecked read at 4 of 4 elements")]
    fn debug_builds_catch_an_offset_past_the_end() {
        let mut data = [0u8; 4];
        // SAFETY: `data` outlives the view.
        let v = unsafe { KernelView::from_raw(data.as_mut_ptr(), &[4]) }.expect("shape");
        // SAFETY: deliberately violated; the debug assertion stops it before the access.
        let _ = unsafe { read(&v, 4) };
    }
}
