//! The CPU executor: runs a kernel's CPU function once per block, spreading blocks over
//! rayon's threads, with the same `blkidx/blkdim/blkcnt` semantics as a GPU. It gives each
//! block zeroed shared memory, per-thread scratch for barrier regions, and output-argument
//! slots set to their start values, and reduces the blocks' outputs. It adds no work per
//! element: the kernel function is called once per block through a plain function pointer.
//!
//! The simulated GPU runs kernels through this executor too, on its own memory.

use crate::error::{Error, Result};
use crate::hostmem::HostMem;
use crate::kernel::{BlockCtx, Kernel, KernelArgs, OutSlot};
use crate::launch::LaunchConfig;
use crate::output::OutputSpec;
use rayon::prelude::*;
use std::marker::PhantomData;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The device name the CPU has in errors and the profile.
pub const CPU_NAME: &str = "CPU";

fn round_up(x: usize, to: usize) -> usize {
    x.div_ceil(to) * to
}

/// Runs all blocks of `cfg` and returns, per output argument, the reduction (from its start
/// value) of all blocks' contributions, as the bytes of a value of its type.
pub(crate) fn execute(
    kernel: &Kernel,
    cfg: &LaunchConfig,
    args: &KernelArgs<'_>,
    outs: &[OutputSpec],
    warpsize: usize,
    device: &str,
) -> Result<Vec<Vec<u8>>> {
    let nblocks = cfg.num_blocks();
    let starts: Vec<Vec<u8>> = outs.iter().map(|o| o.start_bytes()).collect();
    if nblocks == 0 {
        return Ok(starts);
    }
    let shared_len = (kernel.shared_bytes)(&cfg.blkdim()[..cfg.ndim()]);
    let thread_off = round_up(shared_len, 64);
    let thread_len = kernel.thread_scratch_bytes * cfg.threads_per_block();
    let scratch_len = thread_off + thread_len;
    let mut slot_offs = Vec::with_capacity(outs.len());
    let mut slots_len = 0;
    for o in outs {
        let off = round_up(slots_len, o.elem.align.max(16));
        slot_offs.push(off);
        slots_len = off + o.size();
    }

    let per = nblocks.div_ceil((rayon::current_num_threads() * 4).max(1));
    let nchunks = nblocks.div_ceil(per);

    let run_chunk = |c: usize| -> Result<Vec<Vec<u8>>> {
        let scratch = HostMem::zeroed(scratch_len, 64)?;
        let slots_mem = HostMem::zeroed(slots_len, 64)?;
        let reset_slots = || {
            for (v, s) in starts.iter().zip(&slot_offs) {
                // SAFETY: each slot has room for its value, within slots_mem.
                unsafe {
                    std::ptr::copy_nonoverlapping(v.as_ptr(), slots_mem.ptr().add(*s), v.len())
                };
            }
        };
        let slots: Vec<OutSlot<'_>> = outs
            .iter()
            .zip(&slot_offs)
            .map(|(o, &off)| OutSlot {
                // SAFETY: within slots_mem.
                ptr: unsafe { slots_mem.ptr().add(off) },
                elem: o.elem,
                _m: PhantomData,
            })
            .collect();
        let mut acc = starts.clone();
        let first = c * per;
        for b in first..((c + 1) * per).min(nblocks) {
            if b > first && scratch_len > 0 {
                // SAFETY: scratch_len bytes of owned memory.
                unsafe { std::ptr::write_bytes(scratch.ptr(), 0, scratch_len) };
            }
            reset_slots();
            let ctx = BlockCtx {
                cfg,
                blkidx: cfg.block_index(b),
                warpsize,
                shared: scratch.ptr(),
                shared_len,
                // SAFETY: thread_off <= scratch_len.
                thread: unsafe { scratch.ptr().add(thread_off) },
                thread_len,
                outputs: &slots,
            };
            (kernel.cpu)(&ctx, args).map_err(|e| e.in_kernel(kernel.source_name))?;
            for ((o, a), s) in outs.iter().zip(acc.iter_mut()).zip(&slots) {
                // SAFETY: both hold values of the output's type.
                unsafe { o.combine_into(a.as_mut_ptr(), s.ptr) };
            }
        }
        Ok(acc)
    };

    let run = || -> Result<Vec<Vec<Vec<u8>>>> {
        if nchunks == 1 {
            Ok(vec![run_chunk(0)?])
        } else {
            (0..nchunks).into_par_iter().map(run_chunk).collect()
        }
    };
    let chunks = catch_unwind(AssertUnwindSafe(run)).map_err(|p| Error::KernelFailed {
        kernel: kernel.name.to_string(),
        device: device.to_string(),
        message: panic_message(&p),
    })??;
    let mut result = starts.clone();
    for chunk in &chunks {
        for ((o, r), v) in outs.iter().zip(result.iter_mut()).zip(chunk) {
            // SAFETY: both hold values of the output's type.
            unsafe { o.combine_into(r.as_mut_ptr(), v.as_ptr()) };
        }
    }
    Ok(result)
}

/// The text of a panic payload.
pub(crate) fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        format!("panicked: {s}")
    } else if let Some(s) = p.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".into()
    }
}
