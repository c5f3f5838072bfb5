//! Loops over slices: plain below [`PARALLEL_MIN`] elements, rayon over chunks above. The
//! closures are generic parameters (monomorphised and inlined, no dynamic dispatch).

use quasar_runtime::Result;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Arrays with at least this many elements are processed in parallel (rayon); smaller ones
/// with plain loops, where the cost of waking threads would dominate.
pub const PARALLEL_MIN: usize = 32 * 1024;

/// Elements per parallel task of the element-wise loops.
const CHUNK: usize = 16 * 1024;

/// A new `Vec` of `n` elements, written by `fill(start, piece)` over consecutive pieces (in
/// parallel for large `n`); `fill` must write every element of its piece. Nothing is zeroed
/// first (a zero-filled allocation costs a full extra pass over memory).
fn build<U, F>(n: usize, fill: F) -> Result<Vec<U>>
where
    U: Send,
    F: Fn(usize, &mut [MaybeUninit<U>]) + Sync,
{
    // Fallible (and within the host memory budget): a huge result is an error, not an abort.
    let mut v = quasar_runtime::host_vec(n)?;
    let spare = &mut v.spare_capacity_mut()[..n];
    if n < PARALLEL_MIN {
        fill(0, spare);
    } else {
        spare.par_chunks_mut(CHUNK).enumerate().for_each(|(c, d)| fill(c * CHUNK, d));
    }
    // SAFETY: the pieces cover 0..n and `fill` wrote every element of each (the callers below
    // write `d.len()` elements, from inputs of at least that length); if it panicked, we do
    // not get here.
    unsafe { v.set_len(n) };
    Ok(v)
}

/// `[f(src[0]), f(src[1]), …]`.
pub(crate) fn collect_map<T, U, F>(src: &[T], f: &F) -> Result<Vec<U>>
where
    T: Copy + Sync,
    U: Send,
    F: Fn(T) -> U + Sync,
{
    build(src.len(), |start, d| {
        let s = &src[start..start + d.len()];
        for (d, &s) in d.iter_mut().zip(s) {
            d.write(f(s));
        }
    })
}

/// `[f(a[0], b[0]), f(a[1], b[1]), …]` for slices of the same length.
pub(crate) fn collect_zip<A, B, U, F>(a: &[A], b: &[B], f: &F) -> Result<Vec<U>>
where
    A: Copy + Sync,
    B: Copy + Sync,
    U: Send,
    F: Fn(A, B) -> U + Sync,
{
    assert_eq!(a.len(), b.len());
    build(a.len(), |start, d| {
        let (a, b) = (&a[start..start + d.len()], &b[start..start + d.len()]);
        for ((d, &a), &b) in d.iter_mut().zip(a).zip(b) {
            d.write(f(a, b));
        }
    })
}

/// `[f(0), f(1), …, f(n - 1)]`.
pub(crate) fn collect_index<U, F>(n: usize, f: &F) -> Result<Vec<U>>
where
    U: Send,
    F: Fn(usize) -> U + Sync,
{
    build(n, |start, d| {
        for (i, d) in d.iter_mut().enumerate() {
            d.write(f(start + i));
        }
    })
}

/// Runs `f(k, piece)` over consecutive `piece_len`-element pieces of `dst` (the last may be
/// shorter), in parallel when `parallel`.
pub(crate) fn for_pieces<U, F>(dst: &mut [U], piece_len: usize, parallel: bool, f: F)
where
    U: Send,
    F: Fn(usize, &mut [U]) + Sync + Send,
{
    let piece_len = piece_len.max(1);
    if parallel {
        dst.par_chunks_mut(piece_len).enumerate().for_each(|(k, p)| f(k, p));
    } else {
        dst.chunks_mut(piece_len).enumerate().for_each(|(k, p)| f(k, p));
    }
}
