//! [`Runtime`]: the devices (the CPU and any number of GPUs), the scheduling mode, the memory
//! settings and the profiler. Launches are executed in `exec.rs`. Generated code uses the
//! process-wide [`Runtime::global`]; tests can build their own (for example around simulated
//! GPUs).

use crate::array::Array;
use crate::device::{GpuBackend, GpuDevice};
use crate::element::Element;
use crate::error::{Error, Result};
use crate::kernel::Kernel;
use crate::launch::{Access, Launch};
use crate::memory::MemoryConfig;
use crate::profiler::trace::Trace;
use crate::profiler::{Profile, Profiler};
use crate::scheduler::{sched_attr, SchedMode, SchedulerConfig};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The devices and settings that launches use.
pub struct Runtime {
    pub(crate) profiler: Arc<Profiler>,
    gpus: Vec<Arc<GpuDevice>>,
    no_gpu_reason: Mutex<String>,
    pub(crate) fallback_logged: AtomicBool,
    pub(crate) oom_logged: AtomicBool,
    /// A GPU FFT failed and ran on the CPU (said once).
    pub(crate) fft_logged: AtomicBool,
    warnings: Mutex<Vec<String>>,
    memory: Mutex<MemoryConfig>,
    mode: Mutex<SchedMode>,
    sched: Mutex<SchedulerConfig>,
    /// Where the search for the best GPU starts next (ties spread over equal GPUs).
    pub(crate) next_gpu: AtomicUsize,
}

/// Where `{!transfer}` moves an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The host (the CPU).
    Cpu,
    /// GPU `N` (modulo the number of GPUs), or `None` for the one launches would use now
    /// (`{!sched gpu_index}`, else the first).
    Gpu(Option<usize>),
}

static GLOBAL: OnceLock<Runtime> = OnceLock::new();

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Runtime {
    fn build(backends: Vec<Arc<dyn GpuBackend>>, reason: String) -> Runtime {
        let profiler = Arc::new(Profiler::default());
        let several = backends.len() > 1;
        let gpus: Vec<Arc<GpuDevice>> = backends
            .into_iter()
            .enumerate()
            .map(|(k, b)| {
                // Several GPUs of one model would share a name: number them.
                let name = if several { format!("{} #{k}", b.name()) } else { b.name() };
                GpuDevice::named(b, profiler.clone(), name)
            })
            .collect();
        let memory = MemoryConfig::from_env();
        for g in &gpus {
            g.set_memory_config(&memory);
        }
        Runtime {
            profiler,
            gpus,
            no_gpu_reason: Mutex::new(reason),
            fallback_logged: AtomicBool::new(false),
            oom_logged: AtomicBool::new(false),
            fft_logged: AtomicBool::new(false),
            warnings: Mutex::new(Vec::new()),
            memory: Mutex::new(memory),
            mode: Mutex::new(SchedMode::Auto),
            sched: Mutex::new(SchedulerConfig::default()),
            next_gpu: AtomicUsize::new(0),
        }
    }

    /// A runtime with the CPU only.
    pub fn cpu_only() -> Runtime {
        Runtime::build(Vec::new(), "this runtime was created without a GPU".into())
    }

    /// A runtime with the CPU and the given GPU back end (e.g. the simulated device).
    pub fn with_gpu(backend: Arc<dyn GpuBackend>) -> Runtime {
        Runtime::with_gpus(vec![backend])
    }

    /// A runtime with the CPU and several GPUs (numbered in this order: `{!sched
    /// gpu_index=N}`). Launches are spread over them, keeping data where it lives.
    pub fn with_gpus(backends: Vec<Arc<dyn GpuBackend>>) -> Runtime {
        let reason = if backends.is_empty() { "no GPU was given" } else { "" };
        Runtime::build(backends, reason.into())
    }

    /// A runtime with the CPU and, with the `cuda` feature, every CUDA GPU if a driver is
    /// present. Without one it logs one line (`log::warn!`) and uses the CPU. The environment
    /// variable `QUASAR_DEVICE=cpu|gpu|auto` sets the initial mode.
    ///
    /// `QUASAR_SIM_GPU=1` uses simulated GPUs instead (`QUASAR_SIM_GPUS=N` of them, default
    /// 1), set up like CUDA (kernels need PTX, parameters are packed by the PTX ABI): GPU code
    /// paths can be tested without a GPU. `QUASAR_SIM_GPU=ptx` (feature `ptx-sim`) also runs
    /// every kernel's PTX on the PTX interpreter, launched as the CUDA device launches it.
    pub fn detect() -> Runtime {
        let sims = std::env::var("QUASAR_SIM_GPUS").ok().and_then(|v| v.trim().parse().ok());
        let sims =
            |interpret| (0..sims.unwrap_or(1usize).max(1)).map(move |_| sim_like_cuda(interpret));
        let gpus = match std::env::var("QUASAR_SIM_GPU").as_deref() {
            Ok("1") => Ok(sims(false).collect()),
            Ok("ptx") if cfg!(feature = "ptx-sim") => Ok(sims(true).collect()),
            Ok("ptx") => Err("QUASAR_SIM_GPU=ptx needs the feature `ptx-sim` of quasar-runtime \
                              (`quasar = { features = [\"ptx-sim\"] }`)"
                .to_string()),
            _ => open_cuda(),
        };
        let rt = match gpus {
            Ok(b) => Runtime::with_gpus(b),
            Err(reason) => Runtime::build(Vec::new(), reason),
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

    /// The first GPU that has not failed, if any.
    pub fn gpu(&self) -> Option<&Arc<GpuDevice>> {
        self.gpus.iter().find(|g| !g.has_failed())
    }

    /// The GPUs that have not failed, in order.
    pub fn gpus(&self) -> Vec<&Arc<GpuDevice>> {
        self.gpus.iter().filter(|g| !g.has_failed()).collect()
    }

    /// The number of GPUs the runtime was created with (failed ones included), for
    /// `{!sched gpu_index=N}`.
    pub fn gpu_count(&self) -> usize {
        self.gpus.len()
    }

    /// Why there is no GPU (empty when there is one).
    pub fn no_gpu_reason(&self) -> String {
        if self.gpu().is_some() {
            String::new()
        } else {
            lock(&self.no_gpu_reason).clone()
        }
    }

    pub(crate) fn gpu_failed(&self, dev: &GpuDevice, e: &Error) {
        dev.mark_failed();
        *lock(&self.no_gpu_reason) = format!("the GPU failed: {e}");
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

    /// Logs a warning (and keeps it for [`warnings`](Self::warnings)) unless `flag` says it
    /// was given already.
    pub(crate) fn warn_once(&self, flag: &AtomicBool, message: impl FnOnce() -> String) {
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
        for g in &self.gpus {
            g.set_memory_config(&cfg);
        }
    }

    /// The profiler.
    pub fn profiler(&self) -> &Profiler {
        &self.profiler
    }
    /// A snapshot of the profile (waits for in-flight GPU operations to time them).
    pub fn profile(&self) -> Profile {
        self.profiler.snapshot()
    }
    /// The timeline of kernels and transfers (waits for in-flight GPU operations); see
    /// [`Trace::to_chrome_json`].
    pub fn trace(&self) -> Trace {
        self.profiler.trace()
    }
    /// Writes the timeline to `path` in the Chrome trace format (open it in
    /// <https://ui.perfetto.dev>).
    pub fn write_trace(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        self.trace().write_chrome_json(path)
    }

    /// Starts a launch of `kernel`.
    pub fn launch(&self, kernel: &'static Kernel) -> Launch<'_> {
        Launch::new(self, kernel)
    }

    /// Waits for all GPU work.
    pub fn synchronize(&self) -> Result<()> {
        let mut first = Ok(());
        for g in &self.gpus {
            if let Err(e) = g.synchronize() {
                first = first.and(Err(e));
            }
        }
        first
    }

    /// `{!transfer vars=a; target=…}`: makes `a` valid on the host or on a GPU now (copying
    /// only if that copy is stale). Asking for a GPU when there is none does nothing: the
    /// attribute is a hint.
    pub fn transfer<T: Element>(&self, a: &Array<T>, target: Target) -> Result<()> {
        match target {
            Target::Cpu => a.buffer().fetch_to_host(),
            Target::Gpu(index) => {
                let gpus = self.gpus();
                if gpus.is_empty() {
                    return Ok(());
                }
                let i = index.or(sched_attr().gpu_index).unwrap_or(0) % gpus.len();
                a.buffer().fetch_to_device(gpus[i], Access::Read)
            }
        }
    }
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

/// Every CUDA device, or why there is none.
#[cfg(feature = "cuda")]
fn open_cuda() -> std::result::Result<Vec<Arc<dyn GpuBackend>>, String> {
    let mut gpus: Vec<Arc<dyn GpuBackend>> = Vec::new();
    loop {
        match crate::device::cuda::CudaBackend::open(gpus.len()) {
            Ok(b) => gpus.push(Arc::new(b)),
            Err(e) if gpus.is_empty() => {
                log::warn!("quasar: no usable CUDA GPU ({e}); kernels run on the CPU");
                return Err(e.to_string());
            }
            Err(_) => return Ok(gpus),
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn open_cuda() -> std::result::Result<Vec<Arc<dyn GpuBackend>>, String> {
    Err("quasar was built without the `cuda` feature".into())
}
