//! What generated kernels are made of: the [`Kernel`] descriptor, the [`BlockCtx`] a CPU kernel
//! receives for each block, typed access to its arguments ([`KernelArgs`], [`KernelView`]).
//! How a CPU kernel is written is documented on [`Kernel`].

use crate::element::{ElemInfo, Element};
use crate::error::{Error, Result};
use crate::launch::LaunchConfig;
use crate::ptx::PtxEntry;
use crate::shape::Shape;
use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::Range;

/// The CPU implementation of a kernel: runs all threads of one block.
pub type CpuKernel = fn(&BlockCtx<'_>, &KernelArgs<'_>) -> Result<()>;

/// Bytes of per-block memory as a function of the block dimensions.
pub type BlockBytes = fn(&[usize]) -> usize;

fn no_bytes(_: &[usize]) -> usize {
    0
}

/// A kernel as generated code declares it, usually as a `static`.
///
/// A CPU kernel is a plain function over **one block**:
///
/// ```
/// use quasar_runtime::{BlockCtx, Kernel, KernelArgs, Result};
///
/// // y = a*x + y   (pos : int)
/// fn saxpy_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
///     let x = args.view::<f32>(0)?;
///     let y = args.view::<f32>(1)?;
///     let a: f32 = args.scalar(2)?;
///     let r = ctx.range(0); // this block's positions along dimension 0, clipped to the launch
///     // SAFETY: the launch covers numel(y) positions, x and y have that many elements, and
///     // blocks cover disjoint ranges.
///     let (xs, ys) = unsafe { (x.slice(r.clone()), y.slice_mut(r)) };
///     for (yi, xi) in ys.iter_mut().zip(xs) {
///         *yi += a * xi; // the innermost loop is a plain slice loop: LLVM vectorises it
///     }
///     Ok(())
/// }
/// static SAXPY: Kernel = Kernel::new("saxpy", saxpy_cpu);
/// ```
///
/// The launcher calls the function once per block (blocks are spread over rayon's threads);
/// it adds no work per element. Generated code for kernels that use `syncthreads` splits the
/// body into barrier-free regions that each loop over the block's threads
/// ([`BlockCtx::full_range`]), keeping values live across a barrier in
/// [`BlockCtx::thread_scratch`]; shared memory is [`BlockCtx::shared`].
#[derive(Debug)]
pub struct Kernel {
    /// The kernel's name (its PTX entry point, and the name in errors and the profile).
    pub name: &'static str,
    /// The CPU implementation (also what the simulated device runs).
    pub cpu: CpuKernel,
    /// The PTX module holding the kernel's entry point, if the kernel can run on a GPU.
    pub ptx: Option<&'static str>,
    /// The entry point and its calling convention, for PTX from the compiler (hand-written
    /// PTX attached with [`with_ptx`](Self::with_ptx) has none: its entry is `name`).
    pub ptx_entry: Option<&'static PtxEntry>,
    /// Why the kernel has no PTX (the PTX back end skipped it), for the error of a launch
    /// that must run on the GPU.
    pub no_ptx_reason: Option<&'static str>,
    /// Whether the kernel depends on the block decomposition (it reads `blkpos`, `blkidx`,
    /// `blkdim`, `blkcnt`, uses shared memory or `syncthreads`). The CPU then uses the same
    /// block dimensions as a GPU so that results agree; otherwise it picks large blocks.
    pub block_sensitive: bool,
    /// Shared memory per block in bytes, from the block dimensions (CUDA: dynamic shared
    /// memory; CPU: a per-block scratch area).
    pub shared_bytes: BlockBytes,
    /// CPU only: bytes per thread for values that live across a barrier.
    pub thread_scratch_bytes: usize,
    /// The CPU implementation is a stub that reports an error (warp-level operations, manual
    /// §9.8): the scheduler sends the kernel to the GPU whenever one can run it.
    pub gpu_only: bool,
    /// The names of the kernel's parameters as in the Quasar source, in launch-argument
    /// order (outputs excluded), for errors and the profile; empty when unknown.
    pub params: &'static [&'static str],
    /// The kernel as the Quasar source names it (`name` is its instance, e.g. `blur_3`), for
    /// the run-time errors of its code.
    pub source_name: &'static str,
    /// CPU only: consecutive positions of a row walk an array across its rows (a transpose),
    /// so blocks are tiles of the two innermost dimensions
    /// ([`LaunchConfig::cpu_tiles`](crate::LaunchConfig::cpu_tiles)), whose rows of that
    /// array stay in cache, instead of whole rows.
    pub cpu_tiles: bool,
}

impl Kernel {
    /// A kernel with a CPU implementation only, not block-sensitive, without shared memory.
    pub const fn new(name: &'static str, cpu: CpuKernel) -> Kernel {
        Kernel {
            name,
            cpu,
            ptx: None,
            ptx_entry: None,
            no_ptx_reason: None,
            block_sensitive: false,
            shared_bytes: no_bytes,
            thread_scratch_bytes: 0,
            gpu_only: false,
            params: &[],
            source_name: name,
            cpu_tiles: false,
        }
    }

    /// With the name the Quasar source gives the kernel (see [`Kernel::source_name`]).
    pub const fn with_source_name(mut self, name: &'static str) -> Kernel {
        self.source_name = name;
        self
    }

    /// With the names of its parameters (see [`Kernel::params`]).
    pub const fn with_params(mut self, names: &'static [&'static str]) -> Kernel {
        self.params = names;
        self
    }

    /// How the profile names an array by its first use: ``"`x` of blur"`` or `"arg 0 of blur"`.
    pub fn short_label(&self, index: usize) -> String {
        match self.params.get(index) {
            Some(p) => format!("`{p}` of {}", self.name),
            None => format!("arg {index} of {}", self.name),
        }
    }

    /// How errors and the profile name launch argument `index` that is an array:
    /// ``"`x`, argument 0 of kernel `blur`"``, or without the name when it is unknown.
    pub fn arg_label(&self, index: usize) -> String {
        match self.params.get(index) {
            Some(p) => format!("`{p}`, argument {index} of kernel `{}`", self.name),
            None => format!("argument {index} of kernel `{}`", self.name),
        }
    }

    /// With a PTX module whose entry point is the kernel's name (hand-written PTX: arrays get
    /// their run-time extents, arguments go in the order given).
    pub const fn with_ptx(mut self, ptx: &'static str) -> Kernel {
        self.ptx = Some(ptx);
        self
    }

    /// With the PTX entry the compiler made for the kernel (see [`crate::ptx`]).
    pub const fn with_ptx_entry(mut self, entry: &'static PtxEntry) -> Kernel {
        self.ptx = Some(entry.module);
        self.ptx_entry = Some(entry);
        self
    }

    /// Without PTX, saying why (the kernel runs on the CPU only).
    pub const fn without_ptx(mut self, reason: &'static str) -> Kernel {
        self.ptx = None;
        self.ptx_entry = None;
        self.no_ptx_reason = Some(reason);
        self
    }

    /// The name of the kernel's entry point in its PTX module.
    pub fn entry_name(&self) -> &'static str {
        self.ptx_entry.map_or(self.name, |e| e.entry)
    }

    /// Marks the kernel GPU-only (see [`Kernel::gpu_only`]).
    pub const fn gpu_only(mut self) -> Kernel {
        self.gpu_only = true;
        self
    }

    /// Runs the kernel in tiles on the CPU (see [`Kernel::cpu_tiles`]).
    pub const fn with_cpu_tiles(mut self) -> Kernel {
        self.cpu_tiles = true;
        self
    }

    /// Marks the kernel block-sensitive (see [`Kernel::block_sensitive`]).
    pub const fn block_sensitive(mut self) -> Kernel {
        self.block_sensitive = true;
        self
    }

    /// With shared memory (and so block-sensitive).
    pub const fn with_shared(mut self, bytes: BlockBytes) -> Kernel {
        self.shared_bytes = bytes;
        self.block_sensitive = true;
        self
    }

    /// With per-thread scratch for barrier regions (and so block-sensitive).
    pub const fn with_thread_scratch(mut self, bytes_per_thread: usize) -> Kernel {
        self.thread_scratch_bytes = bytes_per_thread;
        self.block_sensitive = true;
        self
    }
}

/// One block of a launch, as a CPU kernel sees it: `blkidx`, `blkdim`, `blkcnt`, `warpsize`,
/// the positions it covers, its shared memory and scratch, and its output-argument slots.
///
/// Dimensions are in Quasar order (dimension 0 first; the last one is contiguous).
pub struct BlockCtx<'a> {
    pub(crate) cfg: &'a LaunchConfig,
    pub(crate) blkidx: [usize; 3],
    pub(crate) warpsize: usize,
    pub(crate) shared: *mut u8,
    pub(crate) shared_len: usize,
    pub(crate) thread: *mut u8,
    pub(crate) thread_len: usize,
    pub(crate) outputs: &'a [OutSlot<'a>],
}

/// A block's slot for one output argument.
pub(crate) struct OutSlot<'a> {
    pub ptr: *mut u8,
    pub elem: ElemInfo,
    pub _m: PhantomData<&'a mut u8>,
}

impl<'a> BlockCtx<'a> {
    /// The launch configuration.
    #[inline]
    pub fn config(&self) -> &LaunchConfig {
        self.cfg
    }
    /// Number of launch dimensions (1 to 3).
    #[inline]
    pub fn ndim(&self) -> usize {
        self.cfg.ndim()
    }
    /// `Ok` when the launch has `d` dimensions, the rank of `kernel`'s position; else the
    /// launch error that says so.
    pub fn check_rank(&self, kernel: &str, d: usize) -> Result<()> {
        if self.ndim() == d {
            return Ok(());
        }
        Err(Error::InvalidLaunch {
            kernel: kernel.to_string(),
            reason: format!("the kernel's position has {d} dimensions, the launch {}", self.ndim()),
        })
    }
    /// The launch dimensions (`size` passed to `parallel_do`).
    #[inline]
    pub fn dims(&self) -> &[usize] {
        self.cfg.dims()
    }
    /// `blkidx[d]`: this block's index along dimension `d`.
    #[inline]
    pub fn blkidx(&self, d: usize) -> usize {
        self.blkidx[d]
    }
    /// `blkdim[d]`: the block size along dimension `d`.
    #[inline]
    pub fn blkdim(&self, d: usize) -> usize {
        self.cfg.blkdim()[d]
    }
    /// `blkcnt[d]`: the number of blocks along dimension `d`.
    #[inline]
    pub fn blkcnt(&self, d: usize) -> usize {
        self.cfg.blkcnt()[d]
    }
    /// `warpsize` of the device running the launch (32 on the CPU too, so that results agree).
    #[inline]
    pub fn warpsize(&self) -> usize {
        self.warpsize
    }
    /// Threads per block (`prod(blkdim)`), including threads past the launch edge.
    #[inline]
    pub fn threads(&self) -> usize {
        self.cfg.threads_per_block()
    }
    /// The first position of this block along `d` (`blkidx[d] * blkdim[d]`).
    #[inline]
    pub fn block_start(&self, d: usize) -> usize {
        self.blkidx[d] * self.blkdim(d)
    }
    /// `blkpos[d]` of the thread at position `pos` (`mod(pos, blkdim)` within this block).
    #[inline]
    pub fn blkpos(&self, d: usize, pos: usize) -> usize {
        pos - self.block_start(d)
    }
    /// The positions `pos[d]` this block covers, clipped to the launch dimensions (for kernels
    /// without barriers: threads past the edge do nothing).
    #[inline]
    pub fn range(&self, d: usize) -> Range<usize> {
        let start = self.blkidx[d] * self.blkdim(d);
        start..(start + self.blkdim(d)).min(self.dims()[d])
    }
    /// The positions of all the block's threads along `d`, including those past the launch
    /// edge (for barrier regions: every thread reaches every barrier; generated code tests
    /// `pos < dims` as it does on the GPU).
    #[inline]
    pub fn full_range(&self, d: usize) -> Range<usize> {
        let start = self.blkidx[d] * self.blkdim(d);
        start..start + self.blkdim(d)
    }
    /// The block's shared memory (`shared_bytes(blkdim)` bytes, 64-byte aligned, zeroed at the
    /// start of each block).
    #[inline]
    pub fn shared(&self) -> *mut u8 {
        self.shared
    }
    /// Size of [`shared`](Self::shared) in bytes.
    #[inline]
    pub fn shared_len(&self) -> usize {
        self.shared_len
    }
    /// Per-thread scratch: `threads() * thread_scratch_bytes` bytes, 64-byte aligned.
    #[inline]
    pub fn thread_scratch(&self) -> *mut u8 {
        self.thread
    }
    /// Size of [`thread_scratch`](Self::thread_scratch) in bytes.
    #[inline]
    pub fn thread_scratch_len(&self) -> usize {
        self.thread_len
    }
    /// This block's slot for output argument `k` (the `k`-th output of the launch). It starts
    /// at zero for each block; the launcher reduces the blocks' slots.
    pub fn output<T: Element>(&self, k: usize) -> Result<&Cell<T>> {
        let slot = self.outputs.get(k).ok_or_else(|| {
            Error::Unsupported(format!("output argument {k} does not exist in this launch"))
        })?;
        if slot.elem != ElemInfo::of::<T>() {
            return Err(Error::Unsupported(format!(
                "output argument {k} has type {}, not {}",
                slot.elem.name,
                T::type_name()
            )));
        }
        // SAFETY: the slot holds an aligned, initialised T owned by this block alone; Cell
        // has the layout of T and BlockCtx is neither Send nor Sync.
        Ok(unsafe { &*(slot.ptr as *const Cell<T>) })
    }
}

/// One argument as a kernel receives it.
#[derive(Clone, Debug)]
pub(crate) enum RawArg {
    View { ptr: *mut u8, shape: Shape, elem: ElemInfo },
    Scalar { bytes: Vec<u8>, elem: ElemInfo },
    Output { elem: ElemInfo },
}

/// The arguments of a launch, in the kernel's parameter order (output arguments included, at
/// their positions; read them through [`BlockCtx::output`]).
pub struct KernelArgs<'a> {
    pub(crate) kernel: &'static str,
    pub(crate) args: &'a [RawArg],
}

// SAFETY: the raw pointers refer to memory the launcher keeps alive and borrowed for the launch;
// concurrent access through them follows the kernel's own (GPU) semantics.
unsafe impl Send for KernelArgs<'_> {}
// SAFETY: as above.
unsafe impl Sync for KernelArgs<'_> {}

impl<'a> KernelArgs<'a> {
    /// The number of arguments.
    pub fn len(&self) -> usize {
        self.args.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.args.is_empty()
    }

    fn err(&self, index: usize, message: String) -> Error {
        Error::KernelArgument { kernel: self.kernel.to_string(), index, message }
    }

    /// Array argument `i` with element type `T`.
    pub fn view<T: Element>(&self, i: usize) -> Result<KernelView<'a, T>> {
        match self.args.get(i) {
            Some(RawArg::View { ptr, shape, elem }) if *elem == ElemInfo::of::<T>() => {
                Ok(KernelView { ptr: *ptr as *mut T, shape: *shape, _m: PhantomData })
            }
            Some(RawArg::View { elem, .. }) => Err(self.err(
                i,
                format!("is an array of {}, the kernel expects {}", elem.name, T::type_name()),
            )),
            Some(_) => Err(self.err(i, "is not an array".into())),
            None => Err(self.err(i, format!("missing ({} arguments given)", self.args.len()))),
        }
    }

    /// Array argument `i` as a parameter of static rank `rank` sees it: with the extents the
    /// GPU gets ([`crate::ptx::static_extents`]: a vector is a row, fewer dimensions gain
    /// trailing 1s, more are folded into the last), so both devices index it alike.
    pub fn view_as<T: Element>(&self, i: usize, rank: usize) -> Result<KernelView<'a, T>> {
        let v = self.view::<T>(i)?;
        if v.shape.ndim() == rank {
            return Ok(v);
        }
        let dims = crate::ptx::static_extents(v.shape.dims(), rank);
        Ok(KernelView { shape: Shape::new(&dims)?, ..v })
    }

    /// Array argument `i` as [`view_as`](Self::view_as) gives it for rank `R`, with its
    /// extents (as `i64`) and strides: what a kernel's block function reads once.
    #[allow(clippy::type_complexity)]
    pub fn view_geom<T: Element, const R: usize>(
        &self,
        i: usize,
    ) -> Result<(KernelView<'a, T>, [i64; R], [usize; R])> {
        let v = self.view_as::<T>(i, R)?;
        let (n, s) = v.geom::<R>();
        Ok((v, n, s))
    }

    /// Scalar (by-value) argument `i` of type `T`.
    pub fn scalar<T: Element>(&self, i: usize) -> Result<T> {
        match self.args.get(i) {
            Some(RawArg::Scalar { bytes, elem }) if *elem == ElemInfo::of::<T>() => {
                // SAFETY: the bytes were copied from a T.
                Ok(unsafe { (bytes.as_ptr() as *const T).read_unaligned() })
            }
            Some(RawArg::Scalar { elem, .. }) => Err(self.err(
                i,
                format!("is a value of type {}, the kernel expects {}", elem.name, T::type_name()),
            )),
            Some(RawArg::Output { elem }) => Err(self.err(
                i,
                format!("is an output argument of type {}: use BlockCtx::output", elem.name),
            )),
            Some(_) => Err(self.err(i, "is an array, not a value".into())),
            None => Err(self.err(i, format!("missing ({} arguments given)", self.args.len()))),
        }
    }
}

/// Raw, typed access to an array's data for the duration of a launch: a pointer and a shape
/// (row-major, contiguous). `Copy`, `Send` and `Sync`; it cannot outlive the launch.
///
/// Concurrent use follows GPU semantics: threads of different blocks must not write the same
/// element non-atomically. The `unsafe` methods are the `'unchecked` accesses; the `*_safe`
/// methods implement the `'safe` access mode (reads outside are zero, writes outside are
/// dropped).
pub struct KernelView<'a, T> {
    ptr: *mut T,
    shape: Shape,
    _m: PhantomData<&'a ()>,
}

impl<T> std::fmt::Debug for KernelView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KernelView({:p}, {})", self.ptr, self.shape)
    }
}

impl<T> Clone for KernelView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for KernelView<'_, T> {}

// SAFETY: see the type's documentation; Element types are Send + Sync.
unsafe impl<T: Element> Send for KernelView<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Element> Sync for KernelView<'_, T> {}

impl<'a, T: Element> KernelView<'a, T> {
    /// A view of `dims` elements at `ptr` (generated code uses it for `shared` arrays in a
    /// block's shared memory). An invalid shape is an error.
    ///
    /// # Safety
    /// `ptr` is valid for reads and writes of `numel(dims)` elements of `T`, aligned, for `'a`.
    pub unsafe fn from_raw(ptr: *mut T, dims: &[usize]) -> Result<KernelView<'a, T>> {
        Ok(KernelView { ptr, shape: Shape::new(dims)?, _m: PhantomData })
    }
    /// The view indexed with `k` subscripts when it has fewer dimensions ([`Shape::as_rank`]:
    /// a vector is a row, so `v[0, j]` is `v[j]`); unchanged otherwise.
    #[inline]
    pub fn with_subscripts(self, k: usize) -> KernelView<'a, T> {
        match self.shape.as_rank(k) {
            Some(shape) if k > self.shape.ndim() => KernelView { shape, ..self },
            _ => self,
        }
    }

    /// The shape.
    #[inline]
    pub fn shape(&self) -> &Shape {
        &self.shape
    }
    /// Extent of dimension `d` (1 past the last dimension).
    #[inline]
    pub fn dim(&self, d: usize) -> usize {
        self.shape.dim(d)
    }
    /// The extents (as `i64`) and strides of the first `R` dimensions: what a kernel's row
    /// and border functions read once.
    #[inline(always)]
    pub fn geom<const R: usize>(&self) -> ([i64; R], [usize; R]) {
        (std::array::from_fn(|d| self.dim(d) as i64), std::array::from_fn(|d| self.stride(d)))
    }
    /// Number of elements.
    #[inline]
    pub fn numel(&self) -> usize {
        self.shape.numel()
    }
    /// Stride of dimension `d` in elements.
    #[inline]
    pub fn stride(&self, d: usize) -> usize {
        self.shape.stride(d)
    }
    /// The first element.
    #[inline]
    pub fn as_ptr(&self) -> *mut T {
        self.ptr
    }
    /// Element `i` (linear), unchecked.
    ///
    /// # Safety
    /// `i < numel()`; no concurrent non-atomic write to that element.
    #[inline(always)]
    pub unsafe fn get_unchecked(&self, i: usize) -> T {
        *self.ptr.add(i)
    }
    /// Writes element `i` (linear), unchecked.
    ///
    /// # Safety
    /// `i < numel()`; no concurrent access to that element.
    #[inline(always)]
    pub unsafe fn set_unchecked(&self, i: usize, v: T) {
        *self.ptr.add(i) = v
    }
    /// `'safe` read: zero outside the array.
    ///
    /// # Safety
    /// No concurrent non-atomic write to that element.
    #[inline(always)]
    pub unsafe fn get_safe(&self, i: i64) -> T {
        if i >= 0 && (i as u64) < self.numel() as u64 {
            *self.ptr.add(i as usize)
        } else {
            crate::output::zeroed()
        }
    }
    /// `'safe` write: dropped outside the array.
    ///
    /// # Safety
    /// No concurrent access to that element.
    #[inline(always)]
    pub unsafe fn set_safe(&self, i: i64, v: T) {
        if i >= 0 && (i as u64) < self.numel() as u64 {
            *self.ptr.add(i as usize) = v
        }
    }
    /// `'checked` read: an [`Error::IndexOutOfRange`] outside the array.
    ///
    /// # Safety
    /// No concurrent non-atomic write to that element.
    #[inline]
    pub unsafe fn get_checked(&self, i: i64) -> Result<T> {
        if i >= 0 && (i as u64) < self.numel() as u64 {
            Ok(*self.ptr.add(i as usize))
        } else {
            Err(self.range_error(i))
        }
    }

    fn range_error(&self, i: i64) -> Error {
        Error::IndexOutOfRange {
            array: "<kernel argument>".into(),
            index: vec![i],
            shape: self.shape.dims().to_vec(),
            location: None,
        }
    }

    /// The elements in `r` as a slice.
    ///
    /// # Safety
    /// `r` lies within the array and nothing writes those elements while the slice lives.
    #[inline(always)]
    pub unsafe fn slice(&self, r: Range<usize>) -> &'a [T] {
        std::slice::from_raw_parts(self.ptr.add(r.start), r.end.saturating_sub(r.start))
    }
    /// The elements in `r` as a mutable slice.
    ///
    /// # Safety
    /// `r` lies within the array and nothing else accesses those elements while it lives.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut(&self, r: Range<usize>) -> &'a mut [T] {
        std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.end.saturating_sub(r.start))
    }
}

#[cfg(test)]
#[path = "kernel_tests.rs"]
mod tests;
