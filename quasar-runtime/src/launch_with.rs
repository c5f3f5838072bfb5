//! Launches made in one call: [`launch_with`] takes the kernel, its dimensions and every
//! argument ([`Arg`]) at once. Generated host code launches this way whenever a launch has no
//! outputs and no block dimensions: a [`Launch`] built step by step is a live value with drop
//! code at every step that can fail, and that glue, repeated at every `parallel_do` of every
//! function, was a large part of what a library of kernels gave LLVM to optimise (issue 19).

use crate::array::Array;
use crate::element::{ElemInfo, Element};
use crate::error::Result;
use crate::kernel::Kernel;
use crate::launch::{Access, Launch};
use crate::residency::Buffer;
use crate::runtime::Runtime;
use crate::shape::Shape;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// One argument of [`launch_with`], borrowed from the caller: what [`Launch::push_arg`],
/// [`Launch::push_filled`] and [`Launch::push_scalar`] take.
pub struct Arg<'a>(ArgKind<'a>);

enum ArgKind<'a> {
    Array(&'a Arc<Buffer>, &'a Shape, Access),
    Filled(&'a Arc<Buffer>, &'a Shape, usize),
    FilledInOrder(&'a Arc<Buffer>, &'a Shape, &'a [usize]),
    Value(&'a [MaybeUninit<u8>], ElemInfo),
}

impl<'a> Arg<'a> {
    /// An array argument used as `access` says ([`Launch::push_arg`]).
    #[inline]
    pub fn array<T: Element>(a: &'a Array<T>, access: Access) -> Arg<'a> {
        Arg(ArgKind::Array(a.buffer(), a.shape_ref(), access))
    }

    /// An array argument the kernel fills at its positions, which have `rank` components
    /// ([`Launch::push_filled`]).
    #[inline]
    pub fn filled<T: Element>(a: &'a Array<T>, rank: usize) -> Arg<'a> {
        Arg(ArgKind::Filled(a.buffer(), a.shape_ref(), rank))
    }

    /// An array argument the kernel fills at a permutation `order` of its positions
    /// ([`Launch::arg_filled_in_order`]).
    #[inline]
    pub fn filled_in_order<T: Element>(a: &'a Array<T>, order: &'a [usize]) -> Arg<'a> {
        Arg(ArgKind::FilledInOrder(a.buffer(), a.shape_ref(), order))
    }

    /// A value argument ([`Launch::push_scalar`]); its bytes are copied when the launch is made.
    #[inline]
    pub fn value<T: Element>(v: &'a T) -> Arg<'a> {
        // SAFETY: `v` is a live `T` of `size_of::<T>()` bytes for `'a`; as `MaybeUninit<u8>`
        // its padding bytes (a class value's) may be read without being initialised.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                (v as *const T).cast::<MaybeUninit<u8>>(),
                std::mem::size_of::<T>(),
            )
        };
        Arg(ArgKind::Value(bytes, ElemInfo::of::<T>()))
    }
}

impl Launch<'_> {
    /// Adds `arg` (call after [`dims`](Launch::dims), as for a filled array).
    pub fn push(&mut self, arg: &Arg<'_>) {
        match &arg.0 {
            ArgKind::Array(buf, shape, access) => self.push_array(buf, **shape, *access),
            ArgKind::Filled(buf, shape, rank) => self.push_filled_array(buf, **shape, *rank),
            ArgKind::FilledInOrder(buf, shape, order) => {
                self.push_filled_in_order(buf, **shape, order)
            }
            ArgKind::Value(src, elem) => {
                let mut bytes = vec![0u8; src.len()];
                // SAFETY: `bytes` has room for `src.len()` bytes and does not overlap `src`.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        src.as_ptr().cast::<u8>(),
                        bytes.as_mut_ptr(),
                        src.len(),
                    )
                };
                self.push_bytes(bytes, *elem)
            }
        }
    }
}

/// Launches `kernel` over `dims` with `args` on the process-wide runtime and waits as
/// [`Launch::run`] does: `launch(kernel).dims(dims)`, each argument pushed, `run()`, its
/// result (no outputs) dropped.
pub fn launch_with(kernel: &'static Kernel, dims: &[usize], args: &[Arg<'_>]) -> Result<()> {
    let mut l = Runtime::global().launch(kernel).dims(dims);
    for a in args {
        l.push(a);
    }
    l.run().map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{BlockCtx, KernelArgs};

    /// `y[i] = x[i] * s + t` over the launch: an array read, one filled and two values.
    fn axpb(ctx: &BlockCtx<'_>, args: &KernelArgs<'_>) -> Result<()> {
        let x = args.view::<f32>(0)?;
        let y = args.view::<f32>(1)?;
        let s: f32 = args.scalar(2)?;
        let t: f64 = args.scalar(3)?;
        for i in ctx.range(0) {
            // SAFETY: the test launches over the arrays' length.
            unsafe { crate::unchecked::write(&y, i, crate::unchecked::read(&x, i) * s + t as f32) };
        }
        Ok(())
    }

    static AXPB: Kernel = Kernel::new("axpb", axpb);

    #[test]
    fn a_launch_in_one_call_passes_arrays_fills_and_values() {
        let x = Array::from_vec(&[4], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let y = Array::<f32>::zeros(&[4]).unwrap();
        let (s, t) = (2.0f32, 0.5f64);
        let args =
            [Arg::array(&x, Access::Read), Arg::filled(&y, 1), Arg::value(&s), Arg::value(&t)];
        launch_with(&AXPB, &[4], &args).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![2.5, 4.5, 6.5, 8.5]);
        // A wrong argument is the launch's error, as with the builder.
        let bad = [Arg::value(&s), Arg::filled(&y, 1), Arg::value(&s), Arg::value(&t)];
        assert!(launch_with(&AXPB, &[4], &bad).is_err());
    }
}
