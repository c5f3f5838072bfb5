//! Devices: the abstract GPU-like back end ([`GpuBackend`]) that the residency machinery drives,
//! its implementations (the simulated device [`sim`], and `cuda` behind the `cuda` feature),
//! the CPU executor ([`cpu`]) and the shared device front end ([`GpuDevice`]).
//!
//! A back end owns separate memory addressed by [`DevPtr`], copies between it and the host, and
//! runs kernels, all asynchronously: every operation returns a [`Fence`] and may be ordered
//! after other fences of the same back end. The runtime tracks which fences touch which buffer
//! (see `residency.rs`), so independent work overlaps and host reads wait only for what they
//! read.

pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
mod gpu;
pub mod properties;
pub mod sim;

pub use gpu::{GpuDevice, PoolStats};
pub use properties::DeviceProperties;

use crate::element::ElemInfo;
use crate::error::Result;
use crate::fft::FftJob;
use crate::kernel::Kernel;
use crate::launch::LaunchConfig;
use crate::output::OutputSpec;
use crate::shape::Shape;
use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// An address in a device's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DevPtr(pub u64);

/// What a [`Fence`] is made of; implemented by each back end.
pub trait FenceImpl: Send + Sync + Any {
    /// Blocks until the operation has finished; its error if it failed.
    fn wait(&self) -> Result<()>;
    /// Whether the operation has finished (successfully or not).
    fn is_complete(&self) -> bool;
    /// How long the operation ran on the device, once complete (if the back end measures it).
    fn elapsed(&self) -> Option<Duration>;
    /// When the operation started and ended on the host's clock, once complete (if the back
    /// end knows), for the profiler's timeline.
    fn span(&self) -> Option<(Instant, Instant)> {
        None
    }
    /// The stream (queue) of the device the operation ran on.
    fn stream(&self) -> usize {
        0
    }
    /// For back ends that recognise their own fences.
    fn as_any(&self) -> &dyn Any;
}

/// The completion of one asynchronous device operation. Cheap to clone.
#[derive(Clone)]
pub struct Fence(pub Arc<dyn FenceImpl>);

impl Fence {
    /// Blocks until the operation has finished; its error if it failed.
    pub fn wait(&self) -> Result<()> {
        self.0.wait()
    }
    /// Whether the operation has finished.
    pub fn is_complete(&self) -> bool {
        self.0.is_complete()
    }
    /// The device time of the operation, once complete.
    pub fn elapsed(&self) -> Option<Duration> {
        self.0.elapsed()
    }
    /// When the operation ran (host clock), once complete, if the back end knows.
    pub fn span(&self) -> Option<(Instant, Instant)> {
        self.0.span()
    }
    /// The stream it ran on.
    pub fn stream(&self) -> usize {
        self.0.stream()
    }
    /// The back end's own fence type, if it is `F`.
    pub fn downcast<F: FenceImpl>(&self) -> Option<&F> {
        self.0.as_any().downcast_ref::<F>()
    }
}

impl fmt::Debug for Fence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Fence(complete: {})", self.is_complete())
    }
}

/// One kernel argument as a back end sees it.
#[derive(Clone, Debug)]
pub enum DeviceArg {
    /// An array in the back end's memory.
    Array {
        /// Its data.
        ptr: DevPtr,
        /// Its shape.
        shape: Shape,
        /// Its element type.
        elem: ElemInfo,
    },
    /// A value passed by value (its bytes, in the element's layout).
    Scalar {
        /// The bytes of the value.
        bytes: Vec<u8>,
        /// Its type.
        elem: ElemInfo,
    },
    /// A kernel output argument: a zero-initialised slot in device memory that the kernel
    /// reduces into.
    Output {
        /// The slot.
        ptr: DevPtr,
        /// Its type and reduction.
        spec: OutputSpec,
    },
}

/// A kernel launch as a back end sees it.
pub struct DeviceLaunch<'a> {
    /// The kernel (its PTX for CUDA, its CPU function for the simulated device).
    pub kernel: &'static Kernel,
    /// Grid and block dimensions.
    pub cfg: &'a LaunchConfig,
    /// The arguments, in the kernel's parameter order.
    pub args: &'a [DeviceArg],
    /// The launch's own zeroed error word ([`crate::ptx::ERROR_WORDS`] 32-bit words), for a
    /// kernel whose PTX can fail at run time ([`crate::ptx::PtxEntry::checked`]): the PTX
    /// reports its first failing site there, and the runtime reads it after the launch.
    pub error_word: Option<DevPtr>,
}

/// A GPU-like device: separate memory, explicit copies, asynchronous completion.
///
/// The residency machinery (`residency.rs`, [`GpuDevice`]) is written against this trait only;
/// the CUDA device and the simulated device used in tests both implement it.
///
/// Safety contract for the `unsafe` methods: the caller keeps host memory passed to an
/// operation alive and untouched until the returned fence completes, and never frees device
/// memory that an incomplete operation uses.
pub trait GpuBackend: Send + Sync {
    /// A readable name, e.g. `NVIDIA H100 80GB HBM3 (CUDA)`.
    fn name(&self) -> String;
    /// Threads per warp.
    fn warp_size(&self) -> usize {
        32
    }
    /// The most threads one block may have.
    fn max_threads_per_block(&self) -> usize {
        1024
    }
    /// The hardware parameters `gpu_feature` reports (manual §9.11). The default is an
    /// sm_80 device ([`DeviceProperties::SM_80`]) with this back end's warp size and threads
    /// per block; the CUDA back end queries the device.
    fn properties(&self) -> DeviceProperties {
        DeviceProperties {
            warp_size: self.warp_size(),
            max_threads_per_block: self.max_threads_per_block(),
            ..DeviceProperties::SM_80
        }
    }
    /// The most blocks per grid dimension, in launch order `[x, y, z]`.
    fn max_grid(&self) -> [usize; 3] {
        [(1 << 31) - 1, 65535, 65535]
    }
    /// Whether kernels must come with PTX to run here (true for CUDA).
    fn needs_ptx(&self) -> bool;
    /// Total device memory in bytes.
    fn total_memory(&self) -> usize;
    /// Allocates `bytes` of device memory (a fresh allocation; the pool caches them).
    fn alloc(&self, bytes: usize) -> Result<DevPtr>;
    /// Frees an allocation made by [`alloc`](Self::alloc).
    ///
    /// # Safety
    /// No incomplete operation may use `ptr`.
    unsafe fn free(&self, ptr: DevPtr);
    /// Copies `bytes` from host memory at `src` to `dst`, after `after`.
    ///
    /// # Safety
    /// `src` stays valid for reads, and unmodified, until the fence completes.
    unsafe fn upload(
        &self,
        dst: DevPtr,
        src: *const u8,
        bytes: usize,
        after: &[Fence],
    ) -> Result<Fence>;
    /// Copies `bytes` from `src` to host memory at `dst`, after `after`.
    ///
    /// # Safety
    /// `dst` stays valid for writes, and is not otherwise accessed, until the fence completes.
    unsafe fn download(
        &self,
        dst: *mut u8,
        src: DevPtr,
        bytes: usize,
        after: &[Fence],
    ) -> Result<Fence>;
    /// Sets `bytes` at `dst` to zero, after `after`.
    fn zero(&self, dst: DevPtr, bytes: usize, after: &[Fence]) -> Result<Fence>;
    /// Runs a kernel, after `after`.
    ///
    /// # Safety
    /// Every pointer argument lies in a live allocation of this back end large enough for the
    /// array's shape.
    unsafe fn launch(&self, launch: &DeviceLaunch<'_>, after: &[Fence]) -> Result<Fence>;
    /// The runtime stopped using `bytes` at `ptr` (a block inside an allocation: the pool
    /// carves allocations into blocks). For checking back ends; the default does nothing.
    fn block_freed(&self, ptr: DevPtr, bytes: usize) {
        let _ = (ptr, bytes);
    }
    /// Whether [`fft`](Self::fft) works here (CUDA: libcufft could be loaded).
    fn has_fft(&self) -> bool {
        false
    }
    /// Runs an FFT ([`FftJob`]: the transform, scaling and real parts), after `after`. The
    /// default has no FFT library.
    ///
    /// # Safety
    /// The job's pointers lie in live allocations of this back end, sized for `numel`
    /// elements of their types.
    unsafe fn fft(&self, job: &FftJob, after: &[Fence]) -> Result<Fence> {
        let _ = (job, after);
        Err(crate::error::Error::Unsupported(format!("{} has no FFT library", self.name())))
    }
    /// Waits for all outstanding work.
    fn synchronize(&self) -> Result<()>;
}

/// Waits for every fence, returning the first error.
pub(crate) fn wait_all(fences: &[Fence]) -> Result<()> {
    let mut first = Ok(());
    for f in fences {
        if let Err(e) = f.wait() {
            if first.is_ok() {
                first = Err(e);
            }
        }
    }
    first
}
