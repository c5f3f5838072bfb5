//! The CUDA device (feature `cuda`): a [`GpuBackend`] over the CUDA driver API through
//! `cudarc`, loaded dynamically at run time, so building needs no CUDA toolkit and a missing
//! driver is reported by [`CudaBackend::open`] as [`Error::NoGpu`] instead of a crash.
//!
//! * Operations go round-robin to a few non-blocking streams; each records an event (its
//!   [`Fence`]); dependencies become `cuStreamWaitEvent`, so independent work overlaps.
//! * PTX modules are loaded once (`cuModuleLoadData`) and cached by their text's address;
//!   functions are cached per module and entry name.
//! * Kernel launches are timed with events (read by the profiler later).
//! * Parameters follow the PTX back end's ABI ([`crate::ptx::pack_params`]); a kernel that
//!   can fail gets the launch's error word, which the device front end reads afterwards.
//! * Driver errors become [`Error::Cuda`] naming the operation and the kernel.

#[path = "cuda_fft.rs"]
mod fft;

use super::{DevPtr, DeviceLaunch, DeviceProperties, Fence, FenceImpl, GpuBackend};
use crate::error::{Error, Result};
use crate::ptx::pack_params;
use cudarc::driver::result::DriverError;
use cudarc::driver::{result, sys, CudaContext};
use std::any::Any;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many streams operations are spread over.
const STREAMS: usize = 4;

/// Driver functions the back end calls; checked at start-up so that an old driver is "no GPU"
/// rather than a panic later.
const REQUIRED_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDeviceGet",
    "cuDeviceGetCount",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemsetD8Async",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventQuery",
    "cuEventSynchronize",
    "cuEventElapsedTime",
    "cuEventDestroy_v2",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamWaitEvent",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuModuleGetGlobal_v2",
    "cuMemcpyDtoH_v2",
    "cuMemsetD8_v2",
    "cuModuleUnload",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
    "cuGetErrorString",
    "cuGetErrorName",
];

fn cuda(operation: impl Into<String>) -> impl FnOnce(DriverError) -> Error {
    let operation = operation.into();
    move |e| Error::Cuda { operation, message: format!("{e:?}") }
}

#[derive(Clone, Copy)]
struct Stream(sys::CUstream);
// SAFETY: CUDA streams may be used from any thread once the context is current.
unsafe impl Send for Stream {}
// SAFETY: as above.
unsafe impl Sync for Stream {}

#[derive(Clone, Copy)]
struct Func(sys::CUfunction);
// SAFETY: CUDA function handles are valid on any thread in their context.
unsafe impl Send for Func {}
// SAFETY: as above.
unsafe impl Sync for Func {}

struct Module(sys::CUmodule);
// SAFETY: as above; modules stay loaded for the back end's lifetime.
unsafe impl Send for Module {}

/// An NVIDIA GPU driven through the CUDA driver API.
pub struct CudaBackend {
    ctx: Arc<CudaContext>,
    name: String,
    streams: Vec<Stream>,
    next: AtomicUsize,
    modules: Mutex<HashMap<(usize, usize), Module>>,
    functions: Mutex<HashMap<(usize, usize, &'static str), Func>>,
    max_threads: usize,
    max_grid: [usize; 3],
    warp: usize,
    total_mem: usize,
    props: DeviceProperties,
    /// cuFFT, when libcufft could be loaded.
    fft: Option<fft::CuFft>,
    /// An event recorded (and completed) when the back end was opened, and the host time then:
    /// operations' events are placed on the host clock relative to it.
    epoch: Arc<Epoch>,
}

struct Epoch {
    event: sys::CUevent,
    at: Instant,
}
impl Drop for Epoch {
    fn drop(&mut self) {
        // SAFETY: our event, no longer used (the last fence referring to it is gone).
        let _ = unsafe { result::event::destroy(self.event) };
    }
}

// SAFETY: CUDA events may be used from any thread in their context.
unsafe impl Send for Epoch {}
// SAFETY: as above.
unsafe impl Sync for Epoch {}

/// The fence of a CUDA operation: an event recorded after it (and one before, for kernels).
pub struct CudaFence {
    ctx: Arc<CudaContext>,
    start: Option<sys::CUevent>,
    end: sys::CUevent,
    what: String,
    stream: usize,
    epoch: Arc<Epoch>,
}

// SAFETY: CUDA events may be queried and synchronised from any thread.
unsafe impl Send for CudaFence {}
// SAFETY: as above.
unsafe impl Sync for CudaFence {}

impl FenceImpl for CudaFence {
    fn wait(&self) -> Result<()> {
        self.ctx.bind_to_thread().map_err(cuda(format!("wait for {}", self.what)))?;
        // SAFETY: the event was created and recorded by us and is not destroyed yet.
        unsafe { result::event::synchronize(self.end) }.map_err(cuda(self.what.clone()))
    }
    fn is_complete(&self) -> bool {
        if self.ctx.bind_to_thread().is_err() {
            return true;
        }
        // SAFETY: as above.
        match unsafe { result::event::query(self.end) } {
            Ok(()) => true,
            Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_READY)) => false,
            Err(_) => true, // completed with an error; `wait` reports it
        }
    }
    fn elapsed(&self) -> Option<Duration> {
        let start = self.start?;
        self.ctx.bind_to_thread().ok()?;
        // SAFETY: both events were recorded on the same stream.
        let ms = unsafe { result::event::elapsed(start, self.end) }.ok()?;
        Some(Duration::from_secs_f64(ms as f64 / 1000.0))
    }
    fn span(&self) -> Option<(Instant, Instant)> {
        let start = self.start?;
        self.ctx.bind_to_thread().ok()?;
        // SAFETY: all three events were recorded in this context with timing enabled.
        let (a, b) = unsafe {
            (
                result::event::elapsed(self.epoch.event, start).ok()?,
                result::event::elapsed(self.epoch.event, self.end).ok()?,
            )
        };
        let at = |ms: f32| self.epoch.at + Duration::from_secs_f64(ms.max(0.0) as f64 / 1000.0);
        Some((at(a), at(b)))
    }
    fn stream(&self) -> usize {
        self.stream
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Drop for CudaFence {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: our events; destroying an incomplete event is allowed (released later).
        unsafe {
            if let Some(s) = self.start {
                let _ = result::event::destroy(s);
            }
            let _ = result::event::destroy(self.end);
        }
    }
}

impl CudaBackend {
    /// Opens GPU `ordinal`. Fails with [`Error::NoGpu`] when the driver library is missing or
    /// too old, or there is no such device; never panics.
    pub fn open(ordinal: usize) -> Result<CudaBackend> {
        // SAFETY: only tries to load the library.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::NoGpu {
                reason: "the CUDA driver library (libcuda) was not found".into(),
            });
        }
        // SAFETY: the library is present; `get` only looks symbols up.
        let lib = unsafe { sys::culib() };
        for s in REQUIRED_SYMBOLS {
            // SAFETY: looking a symbol up has no side effects.
            if unsafe { lib.get::<unsafe extern "C" fn()>(s.as_bytes()) }.is_err() {
                return Err(Error::NoGpu {
                    reason: format!("the CUDA driver is too old: it lacks `{s}`"),
                });
            }
        }
        std::panic::catch_unwind(|| CudaBackend::open_inner(ordinal)).unwrap_or_else(|p| {
            Err(Error::NoGpu {
                reason: format!(
                    "the CUDA driver could not be used ({})",
                    super::cpu::panic_message(&p)
                ),
            })
        })
    }

    fn open_inner(ordinal: usize) -> Result<CudaBackend> {
        let no_gpu = |e: DriverError| Error::NoGpu { reason: format!("CUDA: {e:?}") };
        result::init().map_err(no_gpu)?;
        let count = result::device::get_count().map_err(no_gpu)?;
        if ordinal as i32 >= count {
            return Err(Error::NoGpu {
                reason: format!("no CUDA device {ordinal} ({count} device(s) found)"),
            });
        }
        let ctx = CudaContext::new(ordinal).map_err(no_gpu)?;
        let attr = |a| ctx.attribute(a).map(|v| v.max(1) as usize).map_err(no_gpu);
        use sys::CUdevice_attribute::*;
        let max_threads = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?;
        let max_grid = [
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
            attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
        ];
        let warp = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE)?;
        // `max_blocks_per_sm` needs CUDA 11; an older driver gets the sm_80 figure.
        let or_sm80 = |a, v| attr(a).unwrap_or(v);
        let sm80 = DeviceProperties::SM_80;
        // `attr` reads 0 as 1; a minor version may be 0.
        let minor = ctx.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR).unwrap_or(0);
        let props = DeviceProperties {
            num_sm: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            cuda_arch: attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? * 100
                + minor.max(0) as usize * 10,
            max_reg_per_block: or_sm80(
                CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
                sm80.max_reg_per_block,
            ),
            max_shared_mem_per_block: or_sm80(
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
                sm80.max_shared_mem_per_block,
            ),
            max_shared_mem_per_sm: or_sm80(
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                sm80.max_shared_mem_per_sm,
            ),
            max_constant_memory: or_sm80(
                CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY,
                sm80.max_constant_memory,
            ),
            warp_size: warp,
            max_threads_per_block: max_threads,
            max_warps_per_sm: or_sm80(
                CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
                sm80.max_warps_per_sm * sm80.warp_size,
            ) / warp,
            max_blocks_per_sm: or_sm80(
                CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
                sm80.max_blocks_per_sm,
            ),
        };
        let name = format!("{} (CUDA)", ctx.name().map_err(no_gpu)?);
        let total_mem = ctx.total_mem().map_err(no_gpu)?;
        let mut streams = Vec::new();
        for _ in 0..STREAMS {
            let s =
                result::stream::create(result::stream::StreamKind::NonBlocking).map_err(no_gpu)?;
            streams.push(Stream(s));
        }
        let event = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map_err(no_gpu)?;
        // SAFETY: our event and stream; the device is idle, so the event completes at once.
        unsafe {
            result::event::record(event, streams[0].0).map_err(no_gpu)?;
            result::event::synchronize(event).map_err(no_gpu)?;
        }
        let epoch = Arc::new(Epoch { event, at: Instant::now() });
        Ok(CudaBackend {
            ctx,
            name,
            streams,
            next: AtomicUsize::new(0),
            modules: Mutex::new(HashMap::new()),
            functions: Mutex::new(HashMap::new()),
            max_threads,
            max_grid,
            warp,
            total_mem,
            props,
            fft: fft::cufft_usable().then(fft::CuFft::default),
            epoch,
        })
    }

    fn bind(&self, what: &str) -> Result<()> {
        self.ctx.bind_to_thread().map_err(cuda(what.to_string()))
    }

    /// The next stream (round robin) and its index.
    fn stream(&self) -> (usize, Stream) {
        let k = self.next.fetch_add(1, Ordering::Relaxed) % self.streams.len();
        (k, self.streams[k])
    }

    /// Records a timed event on `stream` marking the start of an operation.
    fn start(&self, stream: Stream, what: &str) -> Result<sys::CUevent> {
        let start = self.event(true, what)?;
        // SAFETY: our event and stream.
        if let Err(e) = unsafe { result::event::record(start, stream.0) } {
            // SAFETY: not recorded, ours.
            let _ = unsafe { result::event::destroy(start) };
            return Err(cuda(what.to_string())(e));
        }
        Ok(start)
    }

    /// Makes `stream` wait for `after`: our own fences on the device, others on the host.
    fn wait_for(&self, stream: Stream, after: &[Fence], what: &str) -> Result<()> {
        for f in after {
            match f.downcast::<CudaFence>() {
                // SAFETY: a live event of this context and a stream of ours.
                Some(cf) => unsafe { sys::cuStreamWaitEvent(stream.0, cf.end, 0).result() }
                    .map_err(cuda(what.to_string()))?,
                None => f.wait()?,
            }
        }
        Ok(())
    }

    fn event(&self, timed: bool, what: &str) -> Result<sys::CUevent> {
        let flags = if timed {
            sys::CUevent_flags::CU_EVENT_DEFAULT
        } else {
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING
        };
        result::event::create(flags).map_err(cuda(what.to_string()))
    }

    /// Records the end of an operation on stream `k` as a fence.
    fn fence(
        &self,
        (k, stream): (usize, Stream),
        start: sys::CUevent,
        what: String,
    ) -> Result<Fence> {
        let fence = |end| CudaFence {
            ctx: self.ctx.clone(),
            start: Some(start),
            end,
            what: what.clone(),
            stream: k,
            epoch: self.epoch.clone(),
        };
        let end = match self.event(true, &what) {
            Ok(e) => e,
            Err(e) => {
                // SAFETY: ours; destroying a recorded event is allowed.
                let _ = unsafe { result::event::destroy(start) };
                return Err(e);
            }
        };
        // Owned from here: dropping the fence destroys both events.
        let f = fence(end);
        // SAFETY: our event and stream.
        unsafe { result::event::record(end, stream.0) }.map_err(cuda(what.clone()))?;
        Ok(Fence(Arc::new(f)))
    }

    /// The module of `ptx`, loaded on first use (cached by the text's address).
    fn module(&self, ptx: &'static str, name: &str) -> Result<sys::CUmodule> {
        let what = format!("loading the PTX module of kernel `{name}`");
        let key = (ptx.as_ptr() as usize, ptx.len());
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        let m = match modules.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => e.get().0,
            std::collections::hash_map::Entry::Vacant(v) => {
                let text = CString::new(ptx).map_err(|_| Error::Cuda {
                    operation: what.clone(),
                    message: "the PTX text contains a NUL byte".into(),
                })?;
                // SAFETY: a NUL-terminated PTX image; the driver copies it.
                let m = unsafe { result::module::load_data(text.as_ptr() as *const c_void) }
                    .map_err(cuda(what.clone()))?;
                v.insert(Module(m)).0
            }
        };
        Ok(m)
    }

    /// The function `name` in `ptx`, loading the module on first use.
    fn function(&self, ptx: &'static str, name: &'static str) -> Result<Func> {
        let key = (ptx.as_ptr() as usize, ptx.len(), name);
        if let Some(f) = self.functions.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(*f);
        }
        let m = self.module(ptx, name)?;
        let what = format!("loading the PTX module of kernel `{name}`");
        let cname = CString::new(name).map_err(|_| Error::Cuda {
            operation: what.clone(),
            message: "the kernel name contains a NUL byte".into(),
        })?;
        // SAFETY: a loaded module.
        let f = unsafe { result::module::get_function(m, cname) }
            .map_err(cuda(format!("finding entry point `{name}` in its PTX module")))?;
        let f = Func(f);
        self.functions.lock().unwrap_or_else(|e| e.into_inner()).insert(key, f);
        Ok(f)
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        let _ = result::ctx::synchronize();
        if let Some(f) = &self.fft {
            self.drop_fft(f);
        }
        for s in &self.streams {
            // SAFETY: our streams; the device is idle.
            let _ = unsafe { result::stream::destroy(s.0) };
        }
        for (_, m) in self.modules.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            // SAFETY: our modules, no longer used.
            let _ = unsafe { result::module::unload(m.0) };
        }
    }
}

/// Parameter storage: 8-byte aligned words.
fn words(bytes: &[u8]) -> Vec<u64> {
    let mut w = vec![0u64; bytes.len().div_ceil(8).max(1)];
    // SAFETY: `w` has at least bytes.len() bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), w.as_mut_ptr() as *mut u8, bytes.len())
    };
    w
}

impl GpuBackend for CudaBackend {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn warp_size(&self) -> usize {
        self.warp
    }
    fn max_threads_per_block(&self) -> usize {
        self.max_threads
    }
    fn max_grid(&self) -> [usize; 3] {
        self.max_grid
    }
    fn properties(&self) -> DeviceProperties {
        self.props
    }
    fn needs_ptx(&self) -> bool {
        true
    }
    fn total_memory(&self) -> usize {
        self.total_mem
    }

    fn alloc(&self, bytes: usize) -> Result<DevPtr> {
        self.bind("memory allocation")?;
        // SAFETY: plain allocation.
        let p = unsafe { result::malloc_sync(bytes) }
            .map_err(cuda(format!("allocation of {bytes} bytes")))?;
        Ok(DevPtr(p))
    }

    unsafe fn free(&self, ptr: DevPtr) {
        if self.bind("free").is_ok() {
            let _ = result::free_sync(ptr.0);
        }
    }

    unsafe fn upload(
        &self,
        dst: DevPtr,
        src: *const u8,
        bytes: usize,
        after: &[Fence],
    ) -> Result<Fence> {
        let what = format!("upload of {bytes} bytes");
        self.bind(&what)?;
        let s = self.stream();
        self.wait_for(s.1, after, &what)?;
        let start = self.start(s.1, &what)?;
        let r = sys::cuMemcpyHtoDAsync_v2(dst.0, src as *const c_void, bytes, s.1 .0).result();
        self.fence(s, start, what.clone()).and_then(|f| r.map(|()| f).map_err(cuda(what)))
    }

    unsafe fn download(
        &self,
        dst: *mut u8,
        src: DevPtr,
        bytes: usize,
        after: &[Fence],
    ) -> Result<Fence> {
        let what = format!("download of {bytes} bytes");
        self.bind(&what)?;
        let s = self.stream();
        self.wait_for(s.1, after, &what)?;
        let start = self.start(s.1, &what)?;
        let r = sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, src.0, bytes, s.1 .0).result();
        self.fence(s, start, what.clone()).and_then(|f| r.map(|()| f).map_err(cuda(what)))
    }

    fn zero(&self, dst: DevPtr, bytes: usize, after: &[Fence]) -> Result<Fence> {
        let what = format!("memset of {bytes} bytes");
        self.bind(&what)?;
        let s = self.stream();
        self.wait_for(s.1, after, &what)?;
        let start = self.start(s.1, &what)?;
        // SAFETY: `dst` is an allocation of ours of at least `bytes`.
        let r = unsafe { sys::cuMemsetD8Async(dst.0, 0, bytes, s.1 .0) }.result();
        self.fence(s, start, what.clone()).and_then(|f| r.map(|()| f).map_err(cuda(what)))
    }

    unsafe fn launch(&self, l: &DeviceLaunch<'_>, after: &[Fence]) -> Result<Fence> {
        let k = l.kernel;
        let what = format!("launch of kernel `{}`", k.name);
        let ptx =
            k.ptx.ok_or_else(|| Error::Unsupported(format!("kernel `{}` has no PTX", k.name)))?;
        // Before any driver call: a launch that does not fit the entry is refused cleanly.
        let packed = pack_params(k, l.cfg.dims(), l.args, l.error_word)?;
        self.bind(&what)?;
        let f = self.function(ptx, k.entry_name())?;
        let shared = (k.shared_bytes)(&l.cfg.blkdim()[..l.cfg.ndim()]);
        if shared > 48 * 1024 {
            sys::cuFuncSetAttribute(
                f.0,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                shared as i32,
            )
            .result()
            .map_err(cuda(format!("{what}: {shared} bytes of shared memory")))?;
        }
        let mut store: Vec<Vec<u64>> = packed.iter().map(|p| words(p)).collect();
        let mut params: Vec<*mut c_void> =
            store.iter_mut().map(|w| w.as_mut_ptr() as *mut c_void).collect();
        let (grid, block) = l.cfg.cuda_grid_block();
        let s = self.stream();
        self.wait_for(s.1, after, &what)?;
        let start = self.start(s.1, &what)?;
        let r = sys::cuLaunchKernel(
            f.0,
            grid[0] as u32,
            grid[1] as u32,
            grid[2] as u32,
            block[0] as u32,
            block[1] as u32,
            block[2] as u32,
            shared as u32,
            s.1 .0,
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
        .result();
        if let Err(e) = r {
            let _ = result::event::destroy(start);
            return Err(cuda(what)(e));
        }
        self.fence(s, start, what)
    }

    fn has_fft(&self) -> bool {
        self.fft.is_some()
    }

    unsafe fn fft(&self, job: &crate::fft::FftJob, after: &[Fence]) -> Result<Fence> {
        match &self.fft {
            Some(f) => self.run_fft(f, job, after),
            None => Err(Error::Unsupported(format!("{} has no cuFFT (libcufft)", self.name))),
        }
    }

    fn synchronize(&self) -> Result<()> {
        self.bind("synchronize")?;
        result::ctx::synchronize().map_err(cuda("synchronize"))
    }
}
