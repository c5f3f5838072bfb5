//! Launch configurations chosen by the program (manual §2.4.4, §9.8.2, §9.11).
//!
//! `max_block_size(kernel, dims)`: the largest block, no larger than `dims` in any dimension,
//! that a launch of the kernel may use on the device its launches go to.
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
//!
//! `opt_block_size(kernel, dims)`: the block a launch of `dims` gets when the program names
//! none (GPU: about 512 threads, 16×32 in two dimensions; CPU: large blocks of whole rows,
//! or the GPU's choice for a block-sensitive kernel), fitted to the limits above. Without
//! `dims`, the block of a two-dimensional launch large in both.
//!
//! `opt_block_cnt(kernel, block, dims)`: blocks per dimension, at most enough to cover `dims`,
//! and no more than can be active at the same time (for grid barriers): on a GPU,
//! multiprocessors × the blocks of this size one holds (threads, warps and shared memory;
//! [`DeviceProperties::blocks_per_sm`]); on the CPU, one block per worker thread. Too many
//! are reduced in the first dimension first (to the most that fit), as blocks are.
//!
//! `gpu_feature(name)`: [`DeviceProperties`] of the primary GPU, or of the CPU as a device
//! ([`DeviceProperties::cpu`]) when there is no GPU.

use crate::device::{DeviceProperties, GpuDevice};
use crate::launch::{LaunchConfig, MAX_LAUNCH_DIMS};
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

/// A square launch large in both dimensions, for `opt_block_size(kernel)` without `dims`.
const LARGE_2D: [usize; 2] = [1 << 14, 1 << 14];

/// Checks launch or block dimensions given to `function`: 1 to 3 numbers of at least 1.
fn launch_dims(function: &str, what: &str, dims: &[usize]) -> Result<()> {
    if dims.is_empty() || dims.len() > MAX_LAUNCH_DIMS || dims.contains(&0) {
        return Err(Error::argument(
            function,
            format!(
                "the {what} {dims:?} must be 1 to {MAX_LAUNCH_DIMS} numbers of at least 1 \
                 (kernels are launched over at most {MAX_LAUNCH_DIMS} dimensions)"
            ),
        ));
    }
    Ok(())
}

/// Block counts no larger than `cnt`, at most `capacity` (at least 1) in all: the first count
/// is lowered to the most that fit with the others, down to 1, then the next.
fn fit_count(mut cnt: Vec<usize>, capacity: usize) -> Vec<usize> {
    let capacity = capacity.max(1);
    for d in 0..cnt.len() {
        let others: usize =
            cnt.iter().enumerate().filter(|&(e, _)| e != d).map(|(_, c)| c).product();
        if others.saturating_mul(cnt[d]) <= capacity {
            break;
        }
        cnt[d] = (capacity / others).max(1);
    }
    cnt
}

impl Runtime {
    /// The GPU launches of `kernel` go to, or `None` for the CPU (`kernel` is `None` for the
    /// forms without a kernel).
    fn launch_gpu(&self, kernel: Option<&Kernel>) -> Option<&std::sync::Arc<GpuDevice>> {
        match self.mode() {
            SchedMode::Cpu => None,
            _ if kernel.is_some_and(|k| k.ptx.is_none()) => None,
            _ => self.gpu(),
        }
    }

    fn block_limits(&self, kernel: Option<&Kernel>) -> BlockLimits {
        match self.launch_gpu(kernel) {
            Some(g) => BlockLimits {
                threads: g.backend().max_threads_per_block(),
                shared_bytes: Some(GPU_SHARED_BYTES),
            },
            None if kernel.is_none_or(|k| k.block_sensitive) => {
                BlockLimits { threads: CPU_SYNC_THREADS, shared_bytes: None }
            }
            None => BlockLimits { threads: usize::MAX, shared_bytes: None },
        }
    }

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
        Ok(fit_block(want, self.block_limits(kernel), kernel.map(|k| k.shared_bytes)))
    }

    /// `opt_block_size(kernel, dims)` (`dims` `None`: `opt_block_size(kernel)`): see the
    /// module documentation.
    pub fn opt_block_size(&self, kernel: &Kernel, dims: Option<&[usize]>) -> Result<Vec<usize>> {
        let dims = dims.unwrap_or(&LARGE_2D);
        launch_dims("opt_block_size", "launch dimensions", dims)?;
        let cfg = match self.launch_gpu(Some(kernel)) {
            Some(g) => {
                LaunchConfig::gpu_auto(kernel.name, dims, g.backend().max_threads_per_block())?
            }
            None if kernel.block_sensitive => {
                LaunchConfig::gpu_auto(kernel.name, dims, CPU_SYNC_THREADS)?
            }
            None => LaunchConfig::cpu_auto(kernel.name, dims, rayon::current_num_threads())?,
        };
        let block = &cfg.blkdim()[..dims.len()];
        Ok(fit_block(block, self.block_limits(Some(kernel)), Some(kernel.shared_bytes)))
    }

    /// `opt_block_cnt(kernel, block, dims)`: see the module documentation. `block` and `dims`
    /// have the same number of dimensions; the block must fit the device.
    pub fn opt_block_cnt(
        &self,
        kernel: &Kernel,
        block: &[usize],
        dims: &[usize],
    ) -> Result<Vec<usize>> {
        let name = "opt_block_cnt";
        launch_dims(name, "block dimensions", block)?;
        launch_dims(name, "launch dimensions", dims)?;
        if block.len() != dims.len() {
            return Err(Error::argument(
                name,
                format!("the block {block:?} and the launch dimensions {dims:?} differ in length"),
            ));
        }
        let threads: usize = block.iter().product();
        let per_sm = match self.launch_gpu(Some(kernel)) {
            Some(g) => {
                let p = g.backend().properties();
                let n = p.blocks_per_sm(threads, (kernel.shared_bytes)(block));
                if n == 0 {
                    return Err(Error::argument(
                        name,
                        format!(
                            "a block of {block:?} ({threads} threads, {} bytes of shared \
                             memory) does not fit on {} (at most {} threads and {} bytes); \
                             use `max_block_size`",
                            (kernel.shared_bytes)(block),
                            g.name(),
                            p.max_threads_per_block,
                            p.max_shared_mem_per_block
                        ),
                    ));
                }
                p.num_sm * n
            }
            None => rayon::current_num_threads().max(1),
        };
        let cover = dims.iter().zip(block).map(|(d, b)| d.div_ceil(*b)).collect();
        Ok(fit_count(cover, per_sm))
    }

    /// The hardware parameters `gpu_feature` reports: the primary GPU's, or the CPU's as a
    /// device when there is no GPU.
    pub fn device_properties(&self) -> DeviceProperties {
        match self.gpu() {
            Some(g) => g.backend().properties(),
            None => DeviceProperties::cpu(rayon::current_num_threads()),
        }
    }

    /// `gpu_feature(name)`: one of [`DeviceProperties::FEATURES`], as an `int` (a value
    /// above the largest `int` is reported as the largest).
    pub fn gpu_feature(&self, name: &str) -> Result<i32> {
        let v = self.device_properties().feature(name).ok_or_else(|| {
            Error::argument(
                "gpu_feature",
                format!(
                    "unknown feature \"{name}\" (one of {})",
                    DeviceProperties::FEATURES.join(", ")
                ),
            )
        })?;
        Ok(i32::try_from(v).unwrap_or(i32::MAX))
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

    #[test]
    fn block_counts_shrink_from_the_first_dimension() {
        assert_eq!(fit_count(vec![68, 60], 216), [3, 60]);
        assert_eq!(fit_count(vec![68, 60], 432), [7, 60]);
        assert_eq!(fit_count(vec![3, 5, 7], 20), [1, 2, 7]);
        assert_eq!(fit_count(vec![68, 60], 2), [1, 2]);
        assert_eq!(fit_count(vec![4, 4], 16), [4, 4]);
        assert_eq!(fit_count(vec![1000], 0), [1]);
    }

    fn nothing(_: &crate::BlockCtx<'_>, _: &crate::KernelArgs<'_>) -> Result<()> {
        Ok(())
    }

    #[test]
    fn the_cpu_blocks_and_block_counts() {
        let rt = Runtime::cpu_only();
        let workers = rayon::current_num_threads();
        let plain = Kernel::new("plain", nothing);
        let sensitive = Kernel { block_sensitive: true, ..Kernel::new("sensitive", nothing) };
        // A block-sensitive kernel gets the GPU's choice; a plain one whole rows.
        assert_eq!(rt.opt_block_size(&sensitive, Some(&[1080, 1920])).unwrap(), [16, 32]);
        assert_eq!(rt.opt_block_size(&sensitive, None).unwrap(), [16, 32]);
        let b = rt.opt_block_size(&plain, Some(&[100, 1000])).unwrap();
        assert_eq!(b[1], 1000);
        // One block per worker: `workers` blocks are active at once.
        let c = rt.opt_block_cnt(&sensitive, &[16, 32], &[1080, 1920]).unwrap();
        assert!(c.iter().product::<usize>() <= workers, "{c:?}");
        assert_eq!(c, fit_count(vec![68, 60], workers));
        assert_eq!(rt.opt_block_cnt(&sensitive, &[16, 32], &[16, 32]).unwrap(), [1, 1]);
        let p = rt.device_properties();
        assert_eq!((p.num_sm, p.cuda_arch), (workers, 0));
        assert_eq!(rt.gpu_feature("max_shared_mem_per_block").unwrap(), i32::MAX);
        let e = rt.gpu_feature("speed").unwrap_err().to_string();
        assert!(e.contains("gpu_feature") && e.contains("num_sm"), "{e}");
        let e = rt.opt_block_cnt(&plain, &[16, 32], &[64]).unwrap_err().to_string();
        assert!(e.contains("opt_block_cnt") && e.contains("differ"), "{e}");
        let e = rt.opt_block_size(&plain, Some(&[1, 2, 3, 4])).unwrap_err().to_string();
        assert!(e.contains("opt_block_size"), "{e}");
    }

    #[test]
    fn the_simulated_gpu_is_an_sm_80() {
        use crate::device::sim::{SimBackend, SimConfig};
        let rt = Runtime::with_gpu(std::sync::Arc::new(SimBackend::new(SimConfig::default())));
        assert_eq!(rt.device_properties(), DeviceProperties::SM_80);
        assert_eq!(rt.gpu_feature("cuda_arch").unwrap(), 800);
        // 16 bytes of shared memory per thread.
        fn bytes(b: &[usize]) -> usize {
            b.iter().product::<usize>() * 16
        }
        let k = Kernel { block_sensitive: true, ..Kernel::new("k", nothing) }
            .with_ptx("")
            .with_shared(bytes);
        assert_eq!(rt.opt_block_size(&k, Some(&[1080, 1920])).unwrap(), [16, 32]);
        // 512 threads (16 warps) and 8 KiB each: 4 per multiprocessor (64 warps).
        let c = rt.opt_block_cnt(&k, &[16, 32], &[1080, 1920]).unwrap();
        assert_eq!(c, [7, 60]);
        // 1024 threads with 16 KiB: 2 per multiprocessor; 32 threads: 32 (the block limit).
        let c = rt.opt_block_cnt(&k, &[1024], &[1 << 20]).unwrap();
        assert_eq!(c, [108 * 2]);
        assert_eq!(rt.opt_block_cnt(&k, &[32], &[1 << 20]).unwrap(), [108 * 32]);
        // Without PTX the launches go to the CPU.
        let cpu_only = Kernel { block_sensitive: true, ..Kernel::new("c", nothing) };
        let c = rt.opt_block_cnt(&cpu_only, &[1024], &[1 << 20]).unwrap();
        assert_eq!(c, [rayon::current_num_threads()]);
        let e = rt.opt_block_cnt(&k, &[2048], &[1 << 20]).unwrap_err().to_string();
        assert!(e.contains("opt_block_cnt") && e.contains("does not fit"), "{e}");
    }
}
