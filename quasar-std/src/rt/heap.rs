//! Dynamic kernel memory on the CPU (manual §8.3): an array of run-time size created inside a
//! kernel (`A = zeros(n, 2)`) is a per-thread allocation. Each variable keeps its thread's
//! allocations in an arena ([`KernelArena`]), declared with the variable in the thread's
//! scope, so that every view of them (the variable, copies of it in other variables) stays
//! valid until the thread ends, when the arena drops them all (the manual: "disposed when the
//! thread exits").

use quasar_runtime::{Element, KernelView, Result};

/// The allocations of one array variable of one kernel thread.
pub type KernelArena<T> = Vec<Vec<T>>;

/// A new array of `dims` filled with `v`, kept in `arena`.
///
/// # Safety
/// The view must not be used after `arena` is dropped or cleared (generated code declares
/// the arena before the variable in the same scope and never clears it). Pushing more
/// allocations does not move earlier ones: each is its own heap block.
pub unsafe fn kernel_alloc<'a, T: Element>(
    arena: &mut KernelArena<T>,
    dims: &[usize],
    v: T,
) -> Result<KernelView<'a, T>> {
    let n = quasar_runtime::Shape::new(dims)?.numel();
    arena.push(vec![v; n]);
    let block = arena.last_mut().map_or(std::ptr::null_mut(), |b| b.as_mut_ptr());
    // SAFETY: `block` holds `n` elements, aligned; the caller keeps the arena alive.
    unsafe { KernelView::from_raw(block, dims) }
}

/// A view of no elements: what an array variable of a kernel holds before its first
/// allocation (barrier kernels keep a value per thread from the start).
pub fn kernel_empty<'a, T: Element>() -> Result<KernelView<'a, T>> {
    // SAFETY: no element is ever read or written through a view of zero elements; the
    // pointer is aligned and non-null.
    unsafe { KernelView::from_raw(std::ptr::NonNull::<T>::dangling().as_ptr(), &[0]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_stay_in_place_while_the_arena_grows() {
        let mut arena: KernelArena<f32> = Vec::new();
        // SAFETY: the arena outlives the views within this test.
        let a = unsafe { kernel_alloc(&mut arena, &[2, 3], 1.5f32) }.unwrap();
        let views: Vec<_> = (0..20)
            .map(|k| unsafe { kernel_alloc(&mut arena, &[k + 1], 0.0f32) }.unwrap())
            .collect();
        assert_eq!((a.dim(0), a.dim(1), a.numel()), (2, 3, 6));
        assert_eq!(arena[0], vec![1.5f32; 6]);
        assert_eq!(views[19].numel(), 20);
        assert_eq!(arena.len(), 21);
        assert_eq!(kernel_empty::<f32>().unwrap().numel(), 0);
    }
}
