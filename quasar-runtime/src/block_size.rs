//! `max_block_size(kernel, dims)` (manual §2.4.4): the largest block, no larger than `dims`
//! in any dimension, that a launch of the kernel may use on the device its launches go to.
//!
//! * A GPU (when there is one, the launches are not forced onto the CPU and the kernel has
//!   PTX): at most the device's threads per block (`max_threads_per_block`, 1024 on current
//!   NVIDIA GPUs; the per-kernel register limit is not queried), and at most 48 KiB of shared
//!   memory per block (CUDA's limit without the opt-in attribute).
//! * The CPU: no limit for a kernel that does not depend on its blocks (the manual:
//!   "unlimited"); a block-sensitive kernel (`syncthreads`, shared memory, `blkpos`…) gets
//!   the GPU's usual 1024 threads, so that it computes the same on both devices.
//!
//! Too large a block is shrunk by halving (rounding up) its first dimension that is above 1,
//! then the next, and so on: the last dimension, the contiguous one on the GPU, is kept
//! widest.

use crate::scheduler::SchedMode;
use crate::{Error, Kernel, Result, Runtime};

/// Threads per block a block-sensitive kernel may use on the CPU.
const CPU_SYNC_THREADS: usize = 1024;
/// Dynamic shared memory per block that CUDA allows without opting in.
const GPU_SHARED_BYTES: usize = 48 * 1024;

/// The limits a block must respect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockLimits {
    threads: usize,
    shared_bytes: Option<usize>,
}

/// The block no larger than `want` that fits `limits` (see the module documentation).
pub(crate) fn fit_block(
    want: &[usize],
    limits: BlockLimits,
    shared: Option<crate::BlockBytes>,
) -> Vec<usize> {
    let mut b = want.to_vec();
    let fits = |b: &[usize]| {
        let threads = b.iter().try_fold(1usize, |p, &d| p.checked_mul(d));
        let shared_ok = match (limits.shared_bytes, shared) {
            (Some(max), Some(bytes)) => bytes(b) <= max,
            _ => true,
        };
        threads.is_some_and(|t| t <= limits.threads) && shared_ok
    };
    while !fits(&b) {
        let Some(d) = b.iter().position(|&d| d > 1) else { break };
        b[d] = b[d].div_ceil(2);
    }
    b
}

impl Runtime {
    /// `max_block_size(kernel, dims)`: see the module documentation. `kernel` is `None` for
    /// the older form without a kernel (`max_block_size([16, 32, 1])`), which is treated as a
    /// block-sensitive kernel. Dimensions must be at least 1.
    pub fn max_block_size(&self, kernel: Option<&Kernel>, want: &[usize]) -> Result<Vec<usize>> {
        if want.is_empty() || want.contains(&0) {
            return Err(Error::argument(
                "max_block_size",
                format!("the block dimensions {want:?} must be one or more numbers of at least 1"),
            ));
        }
        let has_ptx = kernel.is_none_or(|k| k.ptx.is_some());
        let gpu = match self.mode() {
            SchedMode::Cpu => None,
            _ if !has_ptx => None,
            _ => self.gpu(),
        };
        let limits = match gpu {
            Some(g) => BlockLimits {
                threads: g.backend().max_threads_per_block(),
                shared_bytes: Some(GPU_SHARED_BYTES),
            },
            None if kernel.is_none_or(|k| k.block_sensitive) => {
                BlockLimits { threads: CPU_SYNC_THREADS, shared_bytes: None }
            }
            None => BlockLimits { threads: usize::MAX, shared_bytes: None },
        };
        Ok(fit_block(want, limits, kernel.map(|k| k.shared_bytes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GPU: BlockLimits = BlockLimits { threads: 1024, shared_bytes: Some(GPU_SHARED_BYTES) };

    fn floats_per_thread(b: &[usize]) -> usize {
        b.iter().product::<usize>() * 4 * 16
    }

    #[test]
    fn blocks_shrink_from_the_first_dimension() {
        assert_eq!(fit_block(&[16, 32], GPU, None), [16, 32]);
        assert_eq!(fit_block(&[1000, 256, 1], GPU, None), [4, 256, 1]);
        assert_eq!(fit_block(&[64, 64], GPU, None), [16, 64]);
        assert_eq!(fit_block(&[1, 4096], GPU, None), [1, 1024]);
        assert_eq!(fit_block(&[3, 5, 7], GPU, None), [3, 5, 7]);
        let unlimited = BlockLimits { threads: usize::MAX, shared_bytes: None };
        assert_eq!(fit_block(&[1 << 20, 1 << 20], unlimited, None), [1 << 20, 1 << 20]);
    }

    #[test]
    fn shared_memory_limits_the_block_on_the_gpu() {
        // 64 bytes per thread: at most 768 threads in 48 KiB.
        let b = fit_block(&[32, 32], GPU, Some(floats_per_thread));
        assert_eq!(b, [16, 32]);
        assert!(floats_per_thread(&b) <= GPU_SHARED_BYTES);
    }

    #[test]
    fn the_cpu_limits_only_block_sensitive_kernels() {
        let rt = Runtime::cpu_only();
        assert_eq!(rt.max_block_size(None, &[64, 64]).unwrap(), [16, 64]);
        let e = rt.max_block_size(None, &[0, 4]).unwrap_err().to_string();
        assert!(e.contains("max_block_size"), "{e}");
    }
}
