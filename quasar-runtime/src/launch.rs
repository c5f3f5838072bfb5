//! The kernel launch API used by generated code (`parallel_do`): grid and block dimensions,
//! arguments with their access modes, output arguments, and the forced device. An example and
//! the GPU conventions (grid mapping and the PTX parameter ABI) are documented on [`Launch`].

use crate::array::Array;
use crate::element::{ElemInfo, Element};
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::output::{OutputSpec, Reduce, Reducible, Start};
use crate::residency::Buffer;
use crate::runtime::Runtime;
use crate::scheduler::{DeviceKind, SchedMode};
use crate::shape::Shape;
use std::sync::Arc;

/// The most launch dimensions (CUDA grids are three-dimensional).
pub const MAX_LAUNCH_DIMS: usize = 3;

/// The identity order of a position's components, cut to a rank.
const IN_ORDER: [usize; MAX_LAUNCH_DIMS] = [0, 1, 2];

/// The CPU's blocks for kernels that walk arrays across their rows
/// ([`LaunchConfig::cpu_tiles`]): rows of positions, and positions per row.
pub const CPU_TILE: [usize; 2] = [16, 256];

/// How a kernel uses an array argument. The compiler infers it from the kernel body and the
/// `'const` / `'nocopy` modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read only (`'const`): the data is made valid on the device, and never copied back since
    /// the kernel does not change it.
    Read,
    /// Written only (`'nocopy`): stale data is never uploaded. The kernel must write every
    /// element it wants to keep: on a GPU the others are undefined afterwards.
    Write,
    /// Read and written (the default).
    ReadWrite,
}

impl Access {
    /// Whether the kernel reads the argument.
    pub fn reads(self) -> bool {
        matches!(self, Access::Read | Access::ReadWrite)
    }
    /// Whether the kernel writes the argument.
    pub fn writes(self) -> bool {
        matches!(self, Access::Write | Access::ReadWrite)
    }
    /// The access of an array passed twice.
    pub fn union(self, other: Access) -> Access {
        if self == other {
            self
        } else {
            Access::ReadWrite
        }
    }
}

/// Grid and block dimensions of a launch, in Quasar order (dimension 0 first). Entries past
/// `ndim()` are 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    ndim: usize,
    dims: [usize; 3],
    blkdim: [usize; 3],
    blkcnt: [usize; 3],
}

impl LaunchConfig {
    /// A configuration with the given block dimensions (which need not divide `dims`).
    pub fn new(kernel: &str, dims: &[usize], blkdim: &[usize]) -> Result<LaunchConfig> {
        let bad = |reason: String| Error::InvalidLaunch { kernel: kernel.into(), reason };
        check_dims(kernel, dims)?;
        if blkdim.len() != dims.len() {
            return Err(bad(format!(
                "{} block dimensions {blkdim:?} for the {} launch dimensions {dims:?}; give \
                 one block dimension per launch dimension",
                blkdim.len(),
                dims.len()
            )));
        }
        if let Some(k) = blkdim.iter().position(|&b| b == 0) {
            return Err(bad(format!(
                "block dimension {k} of {blkdim:?} is 0; block dimensions must be at least 1"
            )));
        }
        let mut c = LaunchConfig { ndim: dims.len(), dims: [1; 3], blkdim: [1; 3], blkcnt: [1; 3] };
        for d in 0..dims.len() {
            c.dims[d] = dims[d];
            c.blkdim[d] = blkdim[d];
            c.blkcnt[d] = dims[d].div_ceil(blkdim[d]);
        }
        Ok(c)
    }

    /// The configuration a GPU uses when the block size is not given: power-of-two blocks of
    /// up to `max_threads` threads (16 × 32 for large 2-D launches), widest along the
    /// contiguous last dimension.
    pub fn gpu_auto(kernel: &str, dims: &[usize], max_threads: usize) -> Result<LaunchConfig> {
        check_dims(kernel, dims)?;
        let budget = max_threads.clamp(1, 512);
        let p2 = |n: usize| n.max(1).next_power_of_two();
        let n = dims.len();
        let mut blk = [1usize; 3];
        // x: the last dimension.
        let last = p2(dims[n - 1]);
        blk[n - 1] = last.min(if n == 1 { budget.min(256) } else { 32 });
        if n >= 2 {
            let rows = p2(dims[n - 2]);
            blk[n - 2] = rows.min(16).min(budget / blk[n - 1]).max(1);
            while blk[n - 1] * blk[n - 2] * 2 <= budget && blk[n - 1] < last {
                blk[n - 1] *= 2;
            }
            while blk[n - 1] * blk[n - 2] * 2 <= budget && blk[n - 2] < rows {
                blk[n - 2] *= 2;
            }
        }
        if n == 3 {
            blk[0] = p2(dims[0]).min((budget / (blk[1] * blk[2])).max(1));
        }
        LaunchConfig::new(kernel, dims, &blk[..n])
    }

    /// The configuration the CPU uses for kernels that are not block-sensitive: large blocks
    /// (whole rows of the contiguous dimension where possible), about four per worker thread,
    /// each of at least a few thousand positions so the per-block cost vanishes.
    pub fn cpu_auto(kernel: &str, dims: &[usize], threads: usize) -> Result<LaunchConfig> {
        check_dims(kernel, dims)?;
        let total: usize = dims.iter().product();
        let target = (total / (threads.max(1) * 4)).clamp(4096, 1 << 16);
        let n = dims.len();
        let mut blk = [1usize; 3];
        let mut left = target;
        for d in (0..n).rev() {
            blk[d] = dims[d].clamp(1, left.max(1));
            left /= blk[d].max(1);
            if left <= 1 {
                break;
            }
        }
        LaunchConfig::new(kernel, dims, &blk[..n])
    }

    /// CPU blocks for a kernel whose rows walk an array across its rows
    /// ([`Kernel::cpu_tiles`](crate::Kernel::cpu_tiles)): tiles of [`CPU_TILE`] (16 rows of
    /// 256 positions) of the two innermost dimensions, one position along the others. A
    /// tile's rows of positions then touch 256 rows of the array, 16 elements each (a 64-byte
    /// cache line of `f32`: 16 KiB, which stays in the L1 cache while the tile's 16 rows use
    /// each line whole), where a whole row of positions touches a line of every row of the
    /// array and a page per position on a large image. Rows of 256 keep the cost of starting
    /// a row (its interior/border split) small. One dimension: as [`cpu_auto`](Self::cpu_auto).
    pub fn cpu_tiles(kernel: &str, dims: &[usize], threads: usize) -> Result<LaunchConfig> {
        check_dims(kernel, dims)?;
        let n = dims.len();
        if n < 2 {
            return LaunchConfig::cpu_auto(kernel, dims, threads);
        }
        let mut blk = [1usize; 3];
        for (d, t) in (n - 2..n).zip(CPU_TILE) {
            blk[d] = dims[d].clamp(1, t);
        }
        LaunchConfig::new(kernel, dims, &blk[..n])
    }

    /// Number of launch dimensions.
    #[inline]
    pub fn ndim(&self) -> usize {
        self.ndim
    }
    /// The launch dimensions.
    #[inline]
    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.ndim]
    }
    /// Block dimensions (all three entries; unused ones are 1).
    #[inline]
    pub fn blkdim(&self) -> &[usize; 3] {
        &self.blkdim
    }
    /// Blocks per dimension (all three entries; unused ones are 1).
    #[inline]
    pub fn blkcnt(&self) -> &[usize; 3] {
        &self.blkcnt
    }
    /// Threads per block.
    #[inline]
    pub fn threads_per_block(&self) -> usize {
        self.blkdim.iter().product()
    }
    /// Total number of blocks (0 when a dimension is 0).
    #[inline]
    pub fn num_blocks(&self) -> usize {
        if self.dims().contains(&0) {
            0
        } else {
            self.blkcnt.iter().product()
        }
    }
    /// The block index (`blkidx`) of the `b`-th block, row-major over `blkcnt`.
    #[inline]
    pub fn block_index(&self, mut b: usize) -> [usize; 3] {
        let mut idx = [0usize; 3];
        for d in (0..self.ndim).rev() {
            idx[d] = b % self.blkcnt[d];
            b /= self.blkcnt[d];
        }
        idx
    }
    /// The CUDA grid and block (`[x, y, z]`) for this configuration.
    pub fn cuda_grid_block(&self) -> ([usize; 3], [usize; 3]) {
        let mut grid = [1usize; 3];
        let mut block = [1usize; 3];
        for d in 0..self.ndim {
            let axis = self.ndim - 1 - d;
            grid[axis] = self.blkcnt[d];
            block[axis] = self.blkdim[d];
        }
        (grid, block)
    }
}

fn check_dims(kernel: &str, dims: &[usize]) -> Result<()> {
    if dims.is_empty() || dims.len() > MAX_LAUNCH_DIMS {
        return Err(Error::InvalidLaunch {
            kernel: kernel.into(),
            reason: format!(
                "{} launch dimensions {dims:?}; kernels are launched over 1 to \
                 {MAX_LAUNCH_DIMS} dimensions",
                dims.len()
            ),
        });
    }
    Ok(())
}

/// One argument of a [`Launch`].
#[derive(Clone)]
pub(crate) enum LaunchArg {
    Array { buf: Arc<Buffer>, shape: Shape, access: Access },
    Scalar { bytes: Vec<u8>, elem: ElemInfo },
    Output(OutputSpec),
}

/// A kernel launch being put together: `runtime.launch(&KERNEL).dims(..).arg(..).run()`.
///
/// ```
/// use quasar_runtime::{Access, Array, BlockCtx, Kernel, KernelArgs, Result, Runtime};
///
/// fn fill_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
///     let y = args.view::<i32>(0)?;
///     for i in ctx.range(0) {
///         // SAFETY: i < dims[0] == numel(y); blocks are disjoint.
///         unsafe { y.set_unchecked(i, i as i32) }
///     }
///     Ok(())
/// }
/// static FILL: Kernel = Kernel::new("fill", fill_cpu);
///
/// let y = Array::<i32>::zeros(&[1000])?;
/// Runtime::cpu_only().launch(&FILL).dims(&[1000]).arg(&y, Access::Write).run()?;
/// assert_eq!(y.get(&[999])?, 999);
/// # Ok::<(), quasar_runtime::Error>(())
/// ```
///
///
/// # GPU conventions (the ABI the PTX back end follows)
///
/// * Launch dimension `d` of an `n`-dimensional launch maps to CUDA axis `x` for the last
///   dimension, `y` for the one before, `z` for the first of three: `pos[n-1]` is
///   `ctaid.x * ntid.x + tid.x`, so consecutive threads touch consecutive (row-major) elements.
/// * The grid is rounded up to whole blocks; a kernel must test `pos[d] < dims[d]` (the
///   runtime does not pad arrays).
/// * Kernel parameters, in order: the launch dimensions as `.u32` (one per dimension); then per
///   argument: an array is `.u64` data pointer followed by one `.u32` extent per dimension of
///   the kernel parameter's static rank (compiled kernels, [`crate::ptx::PtxEntry`]; padded
///   with 1s or folded into the last extent when the array's rank differs) or of the array
///   (hand-written PTX); a value is passed by value in its own layout (`.f32`, `.b16` for
///   half, `.align 8 .b8[16]` for `Complex<f64>`, …); an output argument is a `.u64` pointer
///   to a zeroed slot that the kernel combines into atomically (compiled kernels take the
///   outputs after all other arguments). [`crate::ptx::pack_params`] implements this.
/// * Dynamic shared memory: `Kernel::shared_bytes(blkdim)` bytes.
#[must_use = "a launch does nothing until `run` is called"]
pub struct Launch<'r> {
    pub(crate) rt: &'r Runtime,
    pub(crate) kernel: &'static Kernel,
    pub(crate) dims: Vec<usize>,
    pub(crate) blkdim: Option<Vec<usize>>,
    pub(crate) args: Vec<LaunchArg>,
    pub(crate) mode: Option<SchedMode>,
    pub(crate) gpu_index: Option<usize>,
    pub(crate) error: Option<Error>,
}

impl<'r> Launch<'r> {
    pub(crate) fn new(rt: &'r Runtime, kernel: &'static Kernel) -> Launch<'r> {
        Launch {
            rt,
            kernel,
            dims: Vec::new(),
            blkdim: None,
            args: Vec::new(),
            mode: None,
            gpu_index: None,
            error: None,
        }
    }

    /// The launch dimensions (`parallel_do(dims, …)`), 1 to 3 of them.
    pub fn dims(mut self, dims: &[usize]) -> Self {
        self.dims = dims.to_vec();
        self
    }

    /// Explicit block dimensions (`parallel_do([dims, blkdims], …)`), used on every device.
    pub fn block(mut self, blkdim: &[usize]) -> Self {
        self.set_block(blkdim);
        self
    }

    /// [`block`](Self::block) in place. Generated code builds a launch in place: moving the
    /// builder through every call copied it each time.
    pub fn set_block(&mut self, blkdim: &[usize]) {
        self.blkdim = Some(blkdim.to_vec());
    }

    /// An array argument.
    pub fn arg<T: Element>(mut self, a: &Array<T>, access: Access) -> Self {
        self.push_arg(a, access);
        self
    }

    /// [`arg`](Self::arg) in place.
    // The generic methods only convert and call a non-generic one: generated code calls them
    // for every argument of every launch, and their bodies are compiled into its crate.
    #[inline]
    pub fn push_arg<T: Element>(&mut self, a: &Array<T>, access: Access) {
        self.push_array(a.buffer(), *a.shape_ref(), access)
    }

    pub(crate) fn push_array(&mut self, buf: &Arc<Buffer>, shape: Shape, access: Access) {
        self.args.push(LaunchArg::Array { buf: buf.clone(), shape, access });
    }

    /// An array argument that the kernel fills: it never reads it, and each thread first
    /// writes the element at its own position, which has `rank` components (`y[pos] = …`:
    /// the compiler's inferred `'nocopy`, manual §16.6). When the launch has `rank` dimensions
    /// equal to the array's extents (seen at that rank), every element is overwritten, so its
    /// old contents are not copied to a device ([`Access::Write`]); otherwise the elements
    /// outside the launch must survive ([`Access::ReadWrite`]). Call after
    /// [`dims`](Self::dims).
    pub fn arg_filled<T: Element>(mut self, a: &Array<T>, rank: usize) -> Self {
        self.push_filled(a, rank);
        self
    }

    /// [`arg_filled`](Self::arg_filled) in place.
    #[inline]
    pub fn push_filled<T: Element>(&mut self, a: &Array<T>, rank: usize) {
        self.push_filled_array(a.buffer(), *a.shape_ref(), rank)
    }

    pub(crate) fn push_filled_array(&mut self, buf: &Arc<Buffer>, shape: Shape, rank: usize) {
        match IN_ORDER.get(..rank) {
            Some(order) => self.push_filled_in_order(buf, shape, order),
            None => self.push_array(buf, shape, Access::ReadWrite),
        }
    }

    /// An array argument that the kernel fills at a permutation of its positions: each
    /// thread first writes the element whose index `k` is component `order[k]` of its
    /// position (`y[pos[1], pos[0]] = …` has order `[1, 0]`). The launch covers the array when
    /// its dimension `order[k]` is the array's extent `k` for every `k` (a transpose's result
    /// over the operand's positions); then the array is not copied to a device.
    pub fn arg_filled_in_order<T: Element>(mut self, a: &Array<T>, order: &[usize]) -> Self {
        self.push_filled_in_order(a.buffer(), *a.shape_ref(), order);
        self
    }

    pub(crate) fn push_filled_in_order(
        &mut self,
        buf: &Arc<Buffer>,
        shape: Shape,
        order: &[usize],
    ) {
        let covered = self.dims.len() == order.len()
            && shape.as_rank(order.len()).is_some_and(|s| {
                s.dims().iter().zip(order).all(|(&n, &k)| self.dims.get(k) == Some(&n))
            });
        let access = if covered { Access::Write } else { Access::ReadWrite };
        self.push_array(buf, shape, access);
    }

    /// A value argument (scalar, small vector, class value).
    pub fn scalar<T: Element>(mut self, v: T) -> Self {
        self.push_scalar(v);
        self
    }

    /// [`scalar`](Self::scalar) in place.
    #[inline]
    pub fn push_scalar<T: Element>(&mut self, v: T) {
        let mut bytes = vec![0u8; std::mem::size_of::<T>()];
        // SAFETY: `bytes` has room for one T; an unaligned write is fine.
        unsafe { (bytes.as_mut_ptr() as *mut T).write_unaligned(v) };
        self.push_bytes(bytes, ElemInfo::of::<T>())
    }

    pub(crate) fn push_bytes(&mut self, bytes: Vec<u8>, elem: ElemInfo) {
        self.args.push(LaunchArg::Scalar { bytes, elem });
    }

    /// A kernel output argument of type `T`, starting at zero, reduced with `op` (its value is
    /// in [`LaunchResult::output`], numbered among the outputs in order).
    pub fn output<T: Reducible>(self, op: Reduce) -> Self {
        self.output_from::<T>(op, Start::Zero)
    }

    /// A kernel output argument of type `T` reduced with `op` from `start` (the identity of
    /// `op` for the reductions that the compiler makes of loops).
    pub fn output_from<T: Reducible>(mut self, op: Reduce, start: Start) -> Self {
        self.push_output::<T>(op, start);
        self
    }

    /// [`output_from`](Self::output_from) in place.
    pub fn push_output<T: Reducible>(&mut self, op: Reduce, start: Start) {
        match OutputSpec::starting::<T>(op, start) {
            Some(spec) => self.args.push(LaunchArg::Output(spec)),
            None => {
                self.error.get_or_insert(Error::Unsupported(format!(
                    "reduction {op:?} on kernel outputs of type {}",
                    T::type_name()
                )));
            }
        }
    }

    /// Forces a device for this launch (`{!sched mode=cpu|gpu}`); the default comes from
    /// [`Runtime::set_mode`].
    pub fn on(mut self, mode: SchedMode) -> Self {
        self.mode = Some(mode);
        self
    }

    /// Forces GPU `index` (modulo the number of GPUs) for this launch (`{!sched mode=gpu;
    /// gpu_index=N}`).
    pub fn on_gpu(mut self, index: usize) -> Self {
        self.mode = Some(SchedMode::Gpu);
        self.gpu_index = Some(index);
        self
    }

    /// Runs the kernel. CPU launches finish before this returns; GPU launches are queued
    /// asynchronously unless the kernel has output arguments (their values are needed now).
    pub fn run(self) -> Result<LaunchResult> {
        self.rt.run_launch(self)
    }
}

/// What a launch produced: where it ran and its output arguments.
#[derive(Clone, Debug)]
pub struct LaunchResult {
    pub(crate) device: DeviceKind,
    pub(crate) gpu_index: Option<usize>,
    pub(crate) device_name: String,
    pub(crate) outputs: Vec<(ElemInfo, Vec<u8>)>,
}

impl LaunchResult {
    pub(crate) fn new(
        device: DeviceKind,
        gpu_index: Option<usize>,
        device_name: &str,
        outputs: Vec<(ElemInfo, Vec<u8>)>,
    ) -> LaunchResult {
        LaunchResult { device, gpu_index, device_name: device_name.into(), outputs }
    }

    /// The device the kernel ran on.
    pub fn device(&self) -> DeviceKind {
        self.device
    }
    /// Which GPU (among the runtime's usable GPUs, in order) it ran on; `None` on the CPU.
    pub fn gpu_index(&self) -> Option<usize> {
        self.gpu_index
    }
    /// The name of the device it ran on (as in the profile).
    pub fn device_name(&self) -> &str {
        &self.device_name
    }
    /// Output argument `k` (counting output arguments only).
    pub fn output<T: Element>(&self, k: usize) -> Result<T> {
        match self.outputs.get(k) {
            Some((elem, bytes)) if *elem == ElemInfo::of::<T>() => {
                // SAFETY: the bytes hold a T.
                Ok(unsafe { (bytes.as_ptr() as *const T).read_unaligned() })
            }
            Some((elem, _)) => Err(Error::Unsupported(format!(
                "output {k} has type {}, not {}",
                elem.name,
                T::type_name()
            ))),
            None => Err(Error::Unsupported(format!("the launch has no output {k}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_counts_partial_blocks() {
        let c = LaunchConfig::new("k", &[10, 7], &[4, 4]).unwrap();
        assert_eq!(c.blkcnt(), &[3, 2, 1]);
        assert_eq!(c.num_blocks(), 6);
        assert_eq!(c.threads_per_block(), 16);
        assert_eq!(c.block_index(3), [1, 1, 0]);
        assert_eq!(c.block_index(5), [2, 1, 0]);
        let (grid, block) = c.cuda_grid_block();
        assert_eq!((grid, block), ([2, 3, 1], [4, 4, 1]));
        assert_eq!(LaunchConfig::new("k", &[0, 5], &[1, 1]).unwrap().num_blocks(), 0);
    }

    #[test]
    fn bad_configs_are_errors_saying_what_is_wrong() {
        let e = |dims: &[usize], blk: &[usize]| {
            LaunchConfig::new("blur", dims, blk).unwrap_err().to_string()
        };
        assert_eq!(
            e(&[], &[]),
            "invalid launch of kernel `blur`: 0 launch dimensions []; kernels are launched over \
             1 to 3 dimensions"
        );
        assert_eq!(
            e(&[1, 2, 3, 4], &[1, 1, 1, 1]),
            "invalid launch of kernel `blur`: 4 launch dimensions [1, 2, 3, 4]; kernels are \
             launched over 1 to 3 dimensions"
        );
        assert_eq!(
            e(&[4, 4], &[4]),
            "invalid launch of kernel `blur`: 1 block dimensions [4] for the 2 launch \
             dimensions [4, 4]; give one block dimension per launch dimension"
        );
        assert_eq!(
            e(&[4, 8], &[4, 0]),
            "invalid launch of kernel `blur`: block dimension 1 of [4, 0] is 0; block \
             dimensions must be at least 1"
        );
    }

    #[test]
    fn gpu_auto_blocks() {
        let c = LaunchConfig::gpu_auto("k", &[1 << 20], 1024).unwrap();
        assert_eq!(c.blkdim(), &[256, 1, 1]);
        let c = LaunchConfig::gpu_auto("k", &[1080, 1920], 1024).unwrap();
        assert_eq!(c.blkdim(), &[16, 32, 1]);
        let c = LaunchConfig::gpu_auto("k", &[1000, 1], 1024).unwrap();
        assert_eq!(c.threads_per_block(), 512);
        let c = LaunchConfig::gpu_auto("k", &[5], 1024).unwrap();
        assert_eq!(c.blkdim(), &[8, 1, 1]);
        let c = LaunchConfig::gpu_auto("k", &[64, 64, 64], 1024).unwrap();
        assert!(c.threads_per_block() <= 512);
    }

    #[test]
    fn cpu_tiles_cut_the_two_innermost_dimensions() {
        let c = LaunchConfig::cpu_tiles("k", &[2160, 3840], 2).unwrap();
        assert_eq!(c.blkdim(), &[16, 256, 1]);
        assert_eq!(c.blkcnt()[..2], [2160 / 16, 3840 / 256]);
        let c = LaunchConfig::cpu_tiles("k", &[5, 100, 3], 2).unwrap();
        assert_eq!(c.blkdim(), &[1, 16, 3]);
        let c = LaunchConfig::cpu_tiles("k", &[1 << 20], 2).unwrap();
        assert_eq!(c.blkdim(), LaunchConfig::cpu_auto("k", &[1 << 20], 2).unwrap().blkdim());
        assert!(LaunchConfig::cpu_tiles("k", &[], 2).is_err());
    }

    #[test]
    fn cpu_auto_blocks_take_whole_rows() {
        let c = LaunchConfig::cpu_auto("k", &[1 << 22], 2).unwrap();
        assert_eq!(c.blkdim()[0], 1 << 16);
        let c = LaunchConfig::cpu_auto("k", &[1000, 1000], 2).unwrap();
        assert_eq!(c.blkdim()[1], 1000);
        assert!(c.blkdim()[0] >= 4);
        let c = LaunchConfig::cpu_auto("k", &[100], 8).unwrap();
        assert_eq!(c.num_blocks(), 1);
    }

    #[test]
    fn a_filled_argument_is_write_only_when_the_launch_covers_it() {
        fn nothing(_: &crate::BlockCtx, _: &crate::KernelArgs) -> Result<()> {
            Ok(())
        }
        static K: Kernel = Kernel::new("k", nothing);
        let access = |l: &Launch<'_>| match l.args.last() {
            Some(LaunchArg::Array { access, .. }) => *access,
            _ => panic!("no array argument"),
        };
        let rt = Runtime::cpu_only();
        let m = Array::<f32>::zeros(&[4, 6]).unwrap();
        let v = Array::<f32>::zeros(&[6]).unwrap();
        assert_eq!(access(&rt.launch(&K).dims(&[4, 6]).arg_filled(&m, 2)), Access::Write);
        assert_eq!(access(&rt.launch(&K).dims(&[4, 5]).arg_filled(&m, 2)), Access::ReadWrite);
        assert_eq!(access(&rt.launch(&K).dims(&[24]).arg_filled(&m, 2)), Access::ReadWrite);
        assert_eq!(access(&rt.launch(&K).dims(&[6]).arg_filled(&v, 1)), Access::Write);
        // A vector seen as a matrix is a row.
        assert_eq!(access(&rt.launch(&K).dims(&[1, 6]).arg_filled(&v, 2)), Access::Write);
        assert_eq!(access(&rt.launch(&K).dims(&[6, 1]).arg_filled(&v, 2)), Access::ReadWrite);
        // A transpose's result over the operand's positions.
        let t =
            |d: &[usize], o: &[usize]| access(&rt.launch(&K).dims(d).arg_filled_in_order(&m, o));
        assert_eq!(t(&[6, 4], &[1, 0]), Access::Write);
        assert_eq!(t(&[4, 6], &[1, 0]), Access::ReadWrite);
        assert_eq!(t(&[4, 6], &[0, 1]), Access::Write);
        assert_eq!(t(&[6, 4, 1], &[1, 0]), Access::ReadWrite);
        assert_eq!(t(&[6, 4], &[1, 2]), Access::ReadWrite);
    }

    #[test]
    fn access_union() {
        assert_eq!(Access::Read.union(Access::Read), Access::Read);
        assert_eq!(Access::Read.union(Access::Write), Access::ReadWrite);
        assert!(Access::Write.writes() && !Access::Write.reads());
    }
}
