//! [`Runtime`]: the devices, the scheduling mode, the profiler, and the execution of launches.
//! Generated code uses the process-wide [`Runtime::global`]; tests can build their own (for
//! example around the simulated GPU).

use crate::device::cpu::{execute, CPU_NAME};
use crate::device::{DevPtr, DeviceArg, DeviceLaunch, Fence, GpuBackend, GpuDevice};
use crate::error::{Error, Result};
use crate::kernel::{Kernel, KernelArgs, RawArg};
use crate::launch::{Access, Launch, LaunchArg, LaunchConfig, LaunchResult};
use crate::memory::{GpuPolicy, MemoryConfig};
use crate::output::OutputSpec;
use crate::profiler::{Profile, Profiler};
use crate::residency::Buffer;
use crate::scheduler::{choose, DeviceKind, SchedInput, SchedMode, SchedulerConfig};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// The devices and settings that launches use.
pub struct Runtime {
    profiler: Arc<Profiler>,
    gpu: Option<Arc<GpuDevice>>,
    no_gpu_reason: Mutex<String>,
    gpu_failed: AtomicBool,
    fallback_logged: AtomicBool,
    oom_logged: AtomicBool,
    warnings: Mutex<Vec<String>>,
    memory: Mutex<MemoryConfig>,
    mode: Mutex<SchedMode>,
    sched: Mutex<SchedulerConfig>,
}

static GLOBAL: OnceLock<Runtime> = OnceLock::new();

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Runtime {
    fn build(gpu: Option<Arc<dyn GpuBackend>>, reason: String) -> Runtime {
        let profiler = Arc::new(Profiler::default());
        let gpu = gpu.map(|b| GpuDevice::new(b, profiler.clone()));
        let memory = MemoryConfig::from_env();
        if let Some(g) = &gpu {
            g.set_memory_config(&memory);
        }
        Runtime {
            profiler,
            gpu,
            no_gpu_reason: Mutex::new(reason),
            gpu_failed: AtomicBool::new(false),
            fallback_logged: AtomicBool::new(false),
            oom_logged: AtomicBool::new(false),
            warnings: Mutex::new(Vec::new()),
            memory: Mutex::new(memory),
            mode: Mutex::new(SchedMode::Auto),
            sched: Mutex::new(SchedulerConfig::default()),
        }
    }

    /// A runtime with the CPU only.
    pub fn cpu_only() -> Runtime {
        Runtime::build(None, "this runtime was created without a GPU".into())
    }

    /// A runtime with the CPU and the given GPU back end (e.g. the simulated device).
    pub fn with_gpu(backend: Arc<dyn GpuBackend>) -> Runtime {
        Runtime::build(Some(backend), String::new())
    }

    /// A runtime with the CPU and, with the `cuda` feature, the first CUDA GPU if a driver and a
    /// device are present. Without one it logs one line (`log::warn!`) and uses the CPU. The
    /// environment variable `QUASAR_DEVICE=cpu|gpu|auto` sets the initial mode.
    ///
    /// `QUASAR_SIM_GPU=1` uses the simulated GPU instead, set up like CUDA (kernels need PTX,
    /// parameters are packed by the PTX ABI): GPU code paths can be tested without a GPU.
    /// `QUASAR_SIM_GPU=ptx` (feature `ptx-sim`) also runs every kernel's PTX on the PTX
    /// interpreter, launched as the CUDA device launches it.
    pub fn detect() -> Runtime {
        let gpu = match std::env::var("QUASAR_SIM_GPU").as_deref() {
            Ok("1") => Ok(sim_like_cuda(false)),
            Ok("ptx") if cfg!(feature = "ptx-sim") => Ok(sim_like_cuda(true)),
            Ok("ptx") => Err("QUASAR_SIM_GPU=ptx needs the feature `ptx-sim` of quasar-runtime \
                              (`quasar = { features = [\"ptx-sim\"] }`)"
                .to_string()),
            _ => open_cuda(),
        };
        let rt = match gpu {
            Ok(b) => Runtime::with_gpu(b),
            Err(reason) => Runtime::build(None, reason),
        };
        if let Some(m) = std::env::var("QUASAR_DEVICE").ok().as_deref().and_then(SchedMode::parse) {
            rt.set_mode(m);
        }
        rt
    }

    /// The process-wide runtime (created by [`detect`](Self::detect) on first use).
    pub fn global() -> &'static Runtime {
        GLOBAL.get_or_init(Runtime::detect)
    }

    /// The GPU, if there is one and it has not failed.
    pub fn gpu(&self) -> Option<&Arc<GpuDevice>> {
        if self.gpu_failed.load(Ordering::Relaxed) {
            None
        } else {
            self.gpu.as_ref()
        }
    }

    /// Why there is no GPU (empty when there is one).
    pub fn no_gpu_reason(&self) -> String {
        if self.gpu().is_some() {
            String::new()
        } else {
            lock(&self.no_gpu_reason).clone()
        }
    }

    /// The default device choice of launches (`quasar run --cpu|--gpu`).
    pub fn set_mode(&self, mode: SchedMode) {
        *lock(&self.mode) = mode;
    }
    /// The current default device choice.
    pub fn mode(&self) -> SchedMode {
        *lock(&self.mode)
    }
    /// Replaces the scheduler's cost model.
    pub fn set_scheduler_config(&self, cfg: SchedulerConfig) {
        *lock(&self.sched) = cfg;
    }
    /// The scheduler's cost model.
    pub fn scheduler_config(&self) -> SchedulerConfig {
        *lock(&self.sched)
    }

    /// The profiler.
    pub fn profiler(&self) -> &Profiler {
        &self.profiler
    }
    /// A snapshot of the profile (waits for in-flight GPU kernels to time them).
    pub fn profile(&self) -> Profile {
        self.profiler.snapshot()
    }

    /// Starts a launch of `kernel`.
    pub fn launch(&self, kernel: &'static Kernel) -> Launch<'_> {
        Launch::new(self, kernel)
    }

    /// Waits for all GPU work.
    pub fn synchronize(&self) -> Result<()> {
        match &self.gpu {
            Some(g) => g.synchronize(),
            None => Ok(()),
        }
    }

    fn log_fallback(&self, kernel: &str, e: &Error) {
        self.warn_once(&self.fallback_logged, || {
            format!("GPU launch of kernel `{kernel}` failed ({e}); running on the CPU")
        });
    }

    /// Logs a warning (and keeps it for [`warnings`](Self::warnings)) unless `flag` says it
    /// was given already.
    fn warn_once(&self, flag: &AtomicBool, message: impl FnOnce() -> String) {
        if !flag.swap(true, Ordering::Relaxed) {
            let m = message();
            log::warn!("quasar: {m}");
            lock(&self.warnings).push(m);
        }
    }

    /// The warnings this runtime has given (each kind once): falling back to the CPU after a
    /// GPU failure, or because GPU memory is short.
    pub fn warnings(&self) -> Vec<String> {
        lock(&self.warnings).clone()
    }

    /// The GPU memory settings.
    pub fn memory_config(&self) -> MemoryConfig {
        *lock(&self.memory)
    }

    /// Sets the GPU memory settings: the footprint model and reservation apply to every GPU,
    /// the policy to launches.
    pub fn set_memory_config(&self, cfg: MemoryConfig) {
        *lock(&self.memory) = cfg;
        if let Some(g) = &self.gpu {
            g.set_memory_config(&cfg);
        }
    }

    pub(crate) fn run_launch(&self, l: Launch<'_>) -> Result<LaunchResult> {
        if let Some(e) = l.error {
            return Err(e);
        }
        // Each buffer once, with the union of its accesses.
        let mut bufs: Vec<LaunchBuf> = Vec::new();
        for (index, a) in l.args.iter().enumerate() {
            if let LaunchArg::Array { buf, access, .. } = a {
                match bufs.iter_mut().find(|b| b.buf.id == buf.id) {
                    Some(b) => b.access = b.access.union(*access),
                    None => bufs.push(LaunchBuf { buf: buf.clone(), access: *access, index }),
                }
            }
        }
        if l.dims.contains(&0) {
            // Nothing runs (after checking the launch's rank); outputs stay zero.
            LaunchConfig::cpu_auto(l.kernel.name, &l.dims, 1)?;
            let outputs = l
                .args
                .iter()
                .filter_map(|a| match a {
                    LaunchArg::Output(spec) => Some((spec.elem, vec![0u8; spec.size()])),
                    _ => None,
                })
                .collect();
            return Ok(LaunchResult { device: DeviceKind::Cpu, outputs });
        }
        let mode = l.mode.unwrap_or_else(|| self.mode());
        let gpu = self.gpu();
        let input = SchedInput {
            work_items: l.dims.iter().product(),
            bytes_to_upload: bufs
                .iter()
                .map(|b| b.buf.upload_cost(gpu.map(|g| &**g), b.access))
                .sum(),
            bytes_to_download: bufs.iter().map(|b| b.buf.download_cost()).sum(),
            gpu_available: gpu.is_some(),
            kernel_runs_on_gpu: gpu.is_some_and(|g| !g.backend().needs_ptx())
                || l.kernel.ptx.is_some(),
            gpu_only: l.kernel.gpu_only,
        };
        let kind = choose(mode, &input, &self.scheduler_config()).map_err(|e| match e {
            Error::NoGpu { .. } => Error::NoGpu { reason: self.no_gpu_reason() },
            Error::Unsupported(_) => no_ptx(l.kernel),
            e => e,
        })?;
        match (kind, gpu) {
            (DeviceKind::Gpu, Some(g)) => match self.run_gpu(&l, &bufs, g) {
                // The launch does not fit the GPU's limits (e.g. grid size): the CPU can run it.
                Err(Error::InvalidLaunch { .. }) if mode == SchedMode::Auto => {
                    self.run_cpu(&l, &bufs)
                }
                // Out of GPU memory under "maximize stability": run on the CPU (one warning).
                Err(e @ Error::OutOfMemory { .. })
                    if self.memory_config().policy == GpuPolicy::MaximizeStability
                        && !l.kernel.gpu_only =>
                {
                    self.warn_once(&self.oom_logged, || {
                        format!(
                            "GPU memory is short ({e}); kernel `{}` and later launches that do not fit run on the CPU",
                            l.kernel.name
                        )
                    });
                    self.run_cpu(&l, &bufs)
                }
                Err(e) if mode == SchedMode::Auto && is_device_failure(&e) => {
                    self.log_fallback(l.kernel.name, &e);
                    // Out of memory, or this kernel's PTX not loading, says nothing about
                    // the device; any other failure disables it for this runtime.
                    if !matches!(e, Error::OutOfMemory { .. }) && !is_kernel_specific(&e) {
                        *lock(&self.no_gpu_reason) = format!("the GPU failed: {e}");
                        self.gpu_failed.store(true, Ordering::Relaxed);
                    }
                    self.run_cpu(&l, &bufs)
                }
                r => r,
            },
            _ => self.run_cpu(&l, &bufs),
        }
    }

    fn run_cpu(&self, l: &Launch<'_>, bufs: &[LaunchBuf]) -> Result<LaunchResult> {
        let k = l.kernel;
        let cfg = match &l.blkdim {
            Some(b) => LaunchConfig::new(k.name, &l.dims, b)?,
            None if k.block_sensitive => LaunchConfig::gpu_auto(k.name, &l.dims, 1024)?,
            None => LaunchConfig::cpu_auto(k.name, &l.dims, rayon::current_num_threads())?,
        };
        let mut borrows = Borrows { list: Vec::new() };
        let mut ptrs: HashMap<u64, *mut u8> = HashMap::new();
        for b in bufs {
            let p = b.buf.borrow_host(b.access, k.name)?;
            borrows.list.push((b.buf.clone(), b.access));
            ptrs.insert(b.buf.id, p);
        }
        let mut raw = Vec::with_capacity(l.args.len());
        let mut outs: Vec<OutputSpec> = Vec::new();
        for a in &l.args {
            raw.push(match a {
                LaunchArg::Array { buf, shape, .. } => {
                    RawArg::View { ptr: ptrs[&buf.id], shape: *shape, elem: buf.elem }
                }
                LaunchArg::Scalar { bytes, elem } => {
                    RawArg::Scalar { bytes: bytes.clone(), elem: *elem }
                }
                LaunchArg::Output(spec) => {
                    outs.push(*spec);
                    RawArg::Output { elem: spec.elem }
                }
            });
        }
        let args = KernelArgs { kernel: k.name, args: &raw };
        let t0 = Instant::now();
        let vals = execute(k, &cfg, &args, &outs, 32, CPU_NAME);
        let dt = t0.elapsed();
        drop(borrows);
        let vals = vals?;
        self.profiler.launch(k.name, CPU_NAME, dt);
        Ok(LaunchResult {
            device: DeviceKind::Cpu,
            outputs: outs.iter().map(|o| o.elem).zip(vals).collect(),
        })
    }

    fn run_gpu(
        &self,
        l: &Launch<'_>,
        bufs: &[LaunchBuf],
        dev: &Arc<GpuDevice>,
    ) -> Result<LaunchResult> {
        let k = l.kernel;
        let be = dev.backend();
        let cfg = match &l.blkdim {
            Some(b) => LaunchConfig::new(k.name, &l.dims, b)?,
            None => LaunchConfig::gpu_auto(k.name, &l.dims, be.max_threads_per_block())?,
        };
        let invalid = |reason: String| Error::InvalidLaunch { kernel: k.name.into(), reason };
        if cfg.threads_per_block() > be.max_threads_per_block() {
            return Err(invalid(format!(
                "{} threads per block, the device allows {}",
                cfg.threads_per_block(),
                be.max_threads_per_block()
            )));
        }
        let (grid, _) = cfg.cuda_grid_block();
        let max = be.max_grid();
        if (0..3).any(|i| grid[i] > max[i]) {
            return Err(invalid(format!("grid {grid:?} exceeds the device's limits {max:?}")));
        }
        if be.needs_ptx() && k.ptx.is_none() {
            return Err(no_ptx(k));
        }
        let mut pins = Pins { list: Vec::new(), fence: None };
        let mut ptrs: HashMap<u64, DevPtr> = HashMap::new();
        let mut deps: Vec<Fence> = Vec::new();
        for b in bufs {
            let (p, d) =
                b.buf.prepare_gpu(dev, b.access, k.name).map_err(|e| name_array(e, k, b.index))?;
            pins.list.push((b.buf.clone(), b.access));
            ptrs.insert(b.buf.id, p);
            deps.extend(d);
        }
        let mut slots = Slots { dev, list: Vec::new() };
        let mut dargs = Vec::with_capacity(l.args.len());
        for a in &l.args {
            dargs.push(match a {
                LaunchArg::Array { buf, shape, .. } => {
                    DeviceArg::Array { ptr: ptrs[&buf.id], shape: *shape, elem: buf.elem }
                }
                LaunchArg::Scalar { bytes, elem } => {
                    DeviceArg::Scalar { bytes: bytes.clone(), elem: *elem }
                }
                LaunchArg::Output(spec) => {
                    let (p, class) = dev.alloc(spec.size())?;
                    slots.list.push((p, class, *spec, None));
                    let z = be.zero(p, spec.size(), &[])?;
                    slots.list.last_mut().expect("just pushed").3 = Some(z.clone());
                    deps.push(z);
                    DeviceArg::Output { ptr: p, spec: *spec }
                }
            });
        }
        let dl = DeviceLaunch { kernel: k, cfg: &cfg, args: &dargs };
        // SAFETY: every pointer is a pinned block of this device sized for its shape.
        let fence = unsafe { be.launch(&dl, &deps)? };
        pins.fence = Some(fence.clone());
        drop(pins);
        for s in slots.list.iter_mut() {
            s.3 = Some(fence.clone());
        }
        self.profiler.launch_async(k.name, dev.name(), fence.clone());
        if k.ptx_entry.is_some_and(|e| e.checked) {
            // The kernel ran (its writes are recorded above, as a CPU kernel's would be); a
            // failure to read its error word must not make the caller run it again on the CPU.
            be.check_launch(&dl, &fence).map_err(|e| match e {
                e @ (Error::Cuda { .. } | Error::Device { .. }) => Error::KernelFailed {
                    kernel: k.name.into(),
                    device: dev.name().into(),
                    message: e.to_string(),
                },
                e => e,
            })?;
        }

        // Output arguments are needed now: download them (an implicit synchronisation, as in
        // the manual).
        let mut outputs = Vec::new();
        for (p, _, spec, z) in slots.list.iter_mut() {
            let mut v = vec![0u8; spec.size()];
            // SAFETY: `v` outlives the fence, which we wait for.
            let f = unsafe {
                be.download(v.as_mut_ptr(), *p, spec.size(), std::slice::from_ref(&fence))?
            };
            *z = Some(f.clone());
            f.wait()?;
            self.profiler.transfer(k.name, dev.name(), 0, spec.size() as u64);
            outputs.push((spec.elem, v));
        }
        Ok(LaunchResult { device: DeviceKind::Gpu, outputs })
    }
}

/// The error of a launch that must run on the GPU of a kernel without PTX.
fn no_ptx(k: &Kernel) -> Error {
    Error::Unsupported(match k.no_ptx_reason {
        Some(why) => format!(
            "kernel `{}` must run on the GPU but has no PTX: {why}; it can run on the CPU",
            k.name
        ),
        None => format!("kernel `{}` must run on the GPU but has no PTX", k.name),
    })
}

/// The simulated GPU set up like CUDA (`QUASAR_SIM_GPU=1`), interpreting PTX
/// (`QUASAR_SIM_GPU=ptx`).
fn sim_like_cuda(interpret_ptx: bool) -> Arc<dyn GpuBackend> {
    let name = if interpret_ptx {
        "interpreted PTX (QUASAR_SIM_GPU=ptx)"
    } else {
        "simulated GPU (QUASAR_SIM_GPU)"
    };
    let cfg = crate::device::sim::SimConfig {
        name: name.into(),
        needs_ptx: true,
        interpret_ptx,
        ..Default::default()
    };
    Arc::new(crate::device::sim::SimBackend::new(cfg))
}

/// A CUDA error about one kernel's module (it does not mean the device is unusable).
fn is_kernel_specific(e: &Error) -> bool {
    matches!(e, Error::Cuda { operation, .. }
        if operation.starts_with("loading the PTX module") || operation.starts_with("finding entry point"))
}

fn is_device_failure(e: &Error) -> bool {
    matches!(e, Error::Cuda { .. } | Error::Device { .. } | Error::OutOfMemory { .. })
}

/// An array argument of a launch (each buffer once, with the union of its accesses and the
/// position of its first argument).
pub(crate) struct LaunchBuf {
    buf: Arc<Buffer>,
    access: Access,
    index: usize,
}

/// An out-of-memory error about launch argument `index` of `k`, naming it.
fn name_array(e: Error, k: &Kernel, index: usize) -> Error {
    match e {
        Error::OutOfMemory { device, bytes, array: None, detail, report } => {
            Error::OutOfMemory { device, bytes, array: Some(k.arg_label(index)), detail, report }
        }
        e => e,
    }
}

/// Host borrows of a CPU launch, released on drop.
struct Borrows {
    list: Vec<(Arc<Buffer>, Access)>,
}
impl Drop for Borrows {
    fn drop(&mut self) {
        for (b, a) in &self.list {
            b.release_host(*a);
        }
    }
}

/// Pins of a GPU launch, released on drop (recording the launch's fence if it happened).
struct Pins {
    list: Vec<(Arc<Buffer>, Access)>,
    fence: Option<Fence>,
}
impl Drop for Pins {
    fn drop(&mut self) {
        for (b, a) in &self.list {
            b.finish_gpu(self.fence.as_ref(), *a);
        }
    }
}

/// Output slots of a GPU launch, given back when their last operation completes.
struct Slots<'a> {
    dev: &'a GpuDevice,
    list: Vec<(DevPtr, usize, OutputSpec, Option<Fence>)>,
}
impl Drop for Slots<'_> {
    fn drop(&mut self) {
        for (p, class, _, f) in self.list.drain(..) {
            if let Some(f) = f {
                let _ = f.wait();
            }
            self.dev.release(p, class);
        }
    }
}

#[cfg(feature = "cuda")]
fn open_cuda() -> std::result::Result<Arc<dyn GpuBackend>, String> {
    match crate::device::cuda::CudaBackend::open(0) {
        Ok(b) => Ok(Arc::new(b)),
        Err(e) => {
            log::warn!("quasar: no usable CUDA GPU ({e}); kernels run on the CPU");
            Err(e.to_string())
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn open_cuda() -> std::result::Result<Arc<dyn GpuBackend>, String> {
    Err("quasar was built without the `cuda` feature".into())
}
