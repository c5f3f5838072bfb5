//! A simulated GPU: a [`GpuBackend`] that behaves like a real one (separate memory, explicit
//! copies, asynchronous completion on several streams, limited capacity) but runs kernels'
//! CPU functions. It lets the residency machinery be tested on machines without a GPU.
//! With [`SimConfig::interpret_ptx`] (feature `ptx-sim`) it runs their PTX on the
//! interpreter instead (`sim_ptx.rs`).
//!
//! Operations go to a FIFO queue served by `streams` worker threads; each waits for its
//! dependencies, optionally sleeps a random moment (to shake out missing dependencies), then
//! runs. The device checks that every pointer lies in a live allocation when an operation is
//! submitted and when it runs, and records a violation when memory that an operation in flight
//! uses is freed ([`SimBackend::violations`]).

use super::cpu::{execute, panic_message};
use super::{DevPtr, DeviceArg, DeviceLaunch, Fence, FenceImpl, GpuBackend};
use crate::error::{Error, Result};
use crate::fft::FftJob;
use crate::kernel::{KernelArgs, RawArg};
use crate::output::OutputSpec;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::any::Any;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Configuration of a [`SimBackend`].
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The device's name.
    pub name: String,
    /// Device memory in bytes; allocations beyond it fail like `cudaMalloc` does.
    pub memory_bytes: usize,
    /// Worker threads ("streams") running operations concurrently.
    pub streams: usize,
    /// Seed for random delays before each operation; `None` for no delays.
    pub jitter_seed: Option<u64>,
    /// The longest random delay, in microseconds.
    pub max_jitter_us: u64,
    /// Behave like CUDA: kernels without PTX cannot run here, and launches of compiled
    /// kernels pack their parameters ([`crate::ptx::pack_params`]) so ABI mismatches show.
    pub needs_ptx: bool,
    /// Run kernels' PTX on the PTX interpreter (feature `ptx-sim`; without it such launches
    /// are errors) instead of their CPU functions. Implies `needs_ptx`.
    pub interpret_ptx: bool,
    /// Run FFT jobs ([`GpuBackend::fft`]) by the DFT's definition, as a stand-in for cuFFT
    /// (off by default: a device without an FFT library).
    pub fft: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            name: "simulated GPU".into(),
            memory_bytes: 1 << 30,
            streams: 2,
            jitter_seed: None,
            max_jitter_us: 200,
            needs_ptx: false,
            interpret_ptx: false,
            fft: false,
        }
    }
}

/// Counters of a [`SimBackend`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimStats {
    /// Allocations made.
    pub allocs: u64,
    /// Allocations freed.
    pub frees: u64,
    /// Bytes currently allocated.
    pub allocated: usize,
    /// Bytes copied host → device.
    pub bytes_uploaded: u64,
    /// Bytes copied device → host.
    pub bytes_downloaded: u64,
    /// Kernels run.
    pub launches: u64,
}

struct Alloc {
    layout: Layout,
    in_flight: usize,
    freed: bool,
}

#[derive(Default)]
struct Mem {
    allocs: BTreeMap<u64, Alloc>,
    /// Address ranges used by operations in flight (a multiset), to catch blocks of the
    /// runtime's pool freed while in use.
    active: Vec<(u64, usize)>,
    stats: SimStats,
    violations: Vec<String>,
}

impl Mem {
    /// The base of the live allocation holding `[p, p + bytes)`.
    fn find(&self, p: u64, bytes: usize) -> Option<u64> {
        let (&base, a) = self.allocs.range(..=p).next_back()?;
        let end = base + a.layout.size() as u64;
        (!a.freed && p + bytes as u64 <= end).then_some(base)
    }
}

/// How an operation failed: on the device, or (PTX mode) in the kernel's own code, which says
/// nothing about the device.
#[derive(Debug)]
enum Failure {
    Device(String),
    Kernel { kernel: String, device: String, message: String },
}

impl From<String> for Failure {
    fn from(m: String) -> Failure {
        Failure::Device(m)
    }
}

impl Failure {
    /// A kernel's own failure (PTX mode).
    #[cfg(feature = "ptx-sim")]
    fn after_kernel(e: Error) -> Failure {
        match e {
            Error::KernelFailed { kernel, device, message } => {
                Failure::Kernel { kernel, device, message }
            }
            e => Failure::Device(e.to_string()),
        }
    }

    /// The failure of an operation whose dependency failed with `e`.
    fn after(e: Error) -> Failure {
        match e {
            Error::KernelFailed { kernel, device, message } => {
                Failure::Kernel { kernel, device, message }
            }
            e => Failure::Device(format!("a preceding operation failed: {e}")),
        }
    }
}

/// The fence of a simulated operation.
pub struct SimFence {
    what: String,
    device: String,
    done: Mutex<Option<Done>>,
    cv: Condvar,
}

/// How a simulated operation ended, when and on which stream it ran.
struct Done {
    result: std::result::Result<(), Failure>,
    start: Instant,
    end: Instant,
    stream: usize,
}

impl SimFence {
    fn complete(&self, done: Done) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = Some(done);
        self.cv.notify_all();
    }

    fn with_done<R>(&self, f: impl FnOnce(&Done) -> R) -> Option<R> {
        self.done.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(f)
    }
}

impl FenceImpl for SimFence {
    fn wait(&self) -> Result<()> {
        let mut g = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while g.is_none() {
            g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        match &g.as_ref().expect("completed").result {
            Ok(()) => Ok(()),
            Err(Failure::Device(m)) => Err(Error::Device {
                device: self.device.clone(),
                operation: self.what.clone(),
                message: m.clone(),
            }),
            Err(Failure::Kernel { kernel, device, message }) => Err(Error::KernelFailed {
                kernel: kernel.clone(),
                device: device.clone(),
                message: message.clone(),
            }),
        }
    }
    fn is_complete(&self) -> bool {
        self.done.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }
    fn elapsed(&self) -> Option<Duration> {
        self.with_done(|d| d.end - d.start)
    }
    fn span(&self) -> Option<(Instant, Instant)> {
        self.with_done(|d| (d.start, d.end))
    }
    fn stream(&self) -> usize {
        self.with_done(|d| d.stream).unwrap_or(0)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

type Work = Box<dyn FnOnce() -> std::result::Result<(), Failure> + Send>;

/// The memory an operation uses: the allocations (by base) and the exact ranges.
struct Claim {
    bases: Vec<u64>,
    ranges: Vec<(u64, usize)>,
}

struct Job {
    deps: Vec<Fence>,
    fence: Arc<SimFence>,
    touches: Claim,
    work: Work,
}

struct Queue {
    jobs: VecDeque<Job>,
    shutdown: bool,
    outstanding: usize,
}

struct Shared {
    queue: Mutex<Queue>,
    cv: Condvar,
    idle: Condvar,
    mem: Mutex<Mem>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The simulated GPU.
pub struct SimBackend {
    cfg: SimConfig,
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    #[cfg(feature = "ptx-sim")]
    ptx: ptx::PtxDevice,
}

/// Raw pointers moved into a job.
struct SendPtr(usize);

struct SendArgs(Vec<RawArg>);
// SAFETY: the pointers refer to simulated device memory kept alive while the job is in flight.
unsafe impl Send for SendArgs {}

impl SimBackend {
    /// A simulated device with `cfg`.
    pub fn new(cfg: SimConfig) -> SimBackend {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue { jobs: VecDeque::new(), shutdown: false, outstanding: 0 }),
            cv: Condvar::new(),
            idle: Condvar::new(),
            mem: Mutex::new(Mem::default()),
        });
        let workers = (0..cfg.streams.max(1))
            .map(|k| {
                let s = shared.clone();
                let seed =
                    cfg.jitter_seed.map(|x| x ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let max = cfg.max_jitter_us;
                std::thread::Builder::new()
                    .name(format!("quasar-sim-stream-{k}"))
                    .spawn(move || worker(s, k, seed, max))
                    .expect("spawn a simulated stream")
            })
            .collect();
        SimBackend {
            cfg,
            shared,
            workers,
            #[cfg(feature = "ptx-sim")]
            ptx: ptx::PtxDevice::from_env(),
        }
    }

    /// Counters.
    pub fn stats(&self) -> SimStats {
        lock(&self.shared.mem).stats.clone()
    }

    /// Memory-safety violations seen (memory freed while in use, pointers outside
    /// allocations). Empty in a correct runtime.
    pub fn violations(&self) -> Vec<String> {
        lock(&self.shared.mem).violations.clone()
    }

    fn err(&self, what: &str, message: String) -> Error {
        Error::Device { device: self.cfg.name.clone(), operation: what.into(), message }
    }

    /// Checks that each `(ptr, bytes)` lies in a live allocation and marks them in flight.
    fn claim(&self, what: &str, ranges: &[(u64, usize)]) -> Result<Claim> {
        let mut mem = lock(&self.shared.mem);
        let mut bases = Vec::new();
        for &(p, n) in ranges {
            match mem.find(p, n) {
                Some(b) => bases.push(b),
                None => {
                    let m = format!("{what}: address {p:#x}+{n} is not in a live allocation");
                    mem.violations.push(m.clone());
                    return Err(self.err(what, m));
                }
            }
        }
        for b in &bases {
            mem.allocs.get_mut(b).expect("found").in_flight += 1;
        }
        mem.active.extend_from_slice(ranges);
        Ok(Claim { bases, ranges: ranges.to_vec() })
    }

    fn submit(&self, what: String, deps: &[Fence], touches: Claim, work: Work) -> Fence {
        let fence = Arc::new(SimFence {
            what,
            device: self.cfg.name.clone(),
            done: Mutex::new(None),
            cv: Condvar::new(),
        });
        let job = Job { deps: deps.to_vec(), fence: fence.clone(), touches, work };
        let mut q = lock(&self.shared.queue);
        q.jobs.push_back(job);
        q.outstanding += 1;
        self.shared.cv.notify_one();
        Fence(fence)
    }
}

fn worker(s: Arc<Shared>, stream: usize, seed: Option<u64>, max_jitter_us: u64) {
    let mut rng = seed.unwrap_or(0) | 1;
    loop {
        let job = {
            let mut q = lock(&s.queue);
            loop {
                if let Some(j) = q.jobs.pop_front() {
                    break j;
                }
                if q.shutdown {
                    return;
                }
                q = s.cv.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let mut result = Ok(());
        for d in &job.deps {
            if let Err(e) = d.wait() {
                result = Err(Failure::after(e));
            }
        }
        if seed.is_some() && max_jitter_us > 0 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            std::thread::sleep(Duration::from_micros(rng % (max_jitter_us + 1)));
        }
        let start = Instant::now();
        if result.is_ok() {
            result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job.work))
                .unwrap_or_else(|p| Err(panic_message(&p).into()));
        }
        let end = Instant::now();
        {
            let mut mem = lock(&s.mem);
            for r in &job.touches.ranges {
                if let Some(k) = mem.active.iter().position(|a| a == r) {
                    mem.active.swap_remove(k);
                }
            }
            for b in &job.touches.bases {
                let a = mem.allocs.get_mut(b).expect("claimed allocations stay in the map");
                a.in_flight -= 1;
                if a.freed && a.in_flight == 0 {
                    let layout = a.layout;
                    mem.allocs.remove(b);
                    // SAFETY: allocated with this layout; nothing uses it any more.
                    unsafe { dealloc(*b as *mut u8, layout) };
                }
            }
        }
        job.fence.complete(Done { result, start, end, stream });
        let mut q = lock(&s.queue);
        q.outstanding -= 1;
        if q.outstanding == 0 {
            s.idle.notify_all();
        }
    }
}

impl Drop for SimBackend {
    fn drop(&mut self) {
        lock(&self.shared.queue).shutdown = true;
        self.shared.cv.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        let mut mem = lock(&self.shared.mem);
        for (b, a) in std::mem::take(&mut mem.allocs) {
            // SAFETY: allocated with this layout; the workers have stopped.
            unsafe { dealloc(b as *mut u8, a.layout) };
        }
    }
}

impl GpuBackend for SimBackend {
    fn name(&self) -> String {
        self.cfg.name.clone()
    }
    fn needs_ptx(&self) -> bool {
        self.cfg.needs_ptx || self.cfg.interpret_ptx
    }
    fn total_memory(&self) -> usize {
        self.cfg.memory_bytes
    }

    fn alloc(&self, bytes: usize) -> Result<DevPtr> {
        let mut mem = lock(&self.shared.mem);
        if mem.stats.allocated + bytes > self.cfg.memory_bytes {
            return Err(self.err(
                "memory allocation",
                format!(
                    "out of memory ({bytes} bytes requested, {} of {} in use)",
                    mem.stats.allocated, self.cfg.memory_bytes
                ),
            ));
        }
        let layout = Layout::from_size_align(bytes.max(1), 256)
            .map_err(|e| self.err("memory allocation", e.to_string()))?;
        // SAFETY: non-zero size.
        let p = unsafe { alloc_zeroed(layout) };
        if p.is_null() {
            return Err(self.err("memory allocation", "out of memory (host)".into()));
        }
        // Fill with garbage, as device memory is not zeroed.
        // SAFETY: layout.size() bytes just allocated.
        unsafe { std::ptr::write_bytes(p, 0xA5, layout.size()) };
        mem.allocs.insert(p as u64, Alloc { layout, in_flight: 0, freed: false });
        mem.stats.allocs += 1;
        mem.stats.allocated += bytes;
        Ok(DevPtr(p as u64))
    }

    unsafe fn free(&self, ptr: DevPtr) {
        let mut guard = lock(&self.shared.mem);
        let mem = &mut *guard;
        let Some(a) = mem.allocs.get_mut(&ptr.0) else {
            mem.violations.push(format!("free of unknown address {:#x}", ptr.0));
            return;
        };
        if a.freed {
            mem.violations.push(format!("double free of {:#x}", ptr.0));
            return;
        }
        let size = a.layout.size();
        if a.in_flight > 0 {
            let n = a.in_flight;
            a.freed = true;
            mem.violations
                .push(format!("{:#x} freed while {n} operation(s) using it are in flight", ptr.0));
        } else {
            let layout = a.layout;
            mem.allocs.remove(&ptr.0);
            dealloc(ptr.0 as *mut u8, layout);
        }
        mem.stats.frees += 1;
        mem.stats.allocated -= size.min(mem.stats.allocated);
    }

    unsafe fn upload(
        &self,
        dst: DevPtr,
        src: *const u8,
        bytes: usize,
        after: &[Fence],
    ) -> Result<Fence> {
        let touches = self.claim("upload", &[(dst.0, bytes)])?;
        lock(&self.shared.mem).stats.bytes_uploaded += bytes as u64;
        let src = SendPtr(src as usize);
        let work: Work = Box::new(move || {
            let src = src;
            // SAFETY: the caller keeps `src` alive; `dst` was checked and is held in flight.
            unsafe { std::ptr::copy_nonoverlapping(src.0 as *const u8, dst.0 as *mut u8, bytes) };
            Ok(())
        });
        Ok(self.submit(format!("upload of {bytes} bytes"), after, touches, work))
    }

    unsafe fn download(
        &self,
        dst: *mut u8,
        src: DevPtr,
        bytes: usize,
        after: &[Fence],
    ) -> Result<Fence> {
        let touches = self.claim("download", &[(src.0, bytes)])?;
        lock(&self.shared.mem).stats.bytes_downloaded += bytes as u64;
        let dst = SendPtr(dst as usize);
        let work: Work = Box::new(move || {
            let dst = dst;
            // SAFETY: as for upload.
            unsafe { std::ptr::copy_nonoverlapping(src.0 as *const u8, dst.0 as *mut u8, bytes) };
            Ok(())
        });
        Ok(self.submit(format!("download of {bytes} bytes"), after, touches, work))
    }

    fn zero(&self, dst: DevPtr, bytes: usize, after: &[Fence]) -> Result<Fence> {
        let touches = self.claim("memset", &[(dst.0, bytes)])?;
        let work: Work = Box::new(move || {
            // SAFETY: checked and held in flight.
            unsafe { std::ptr::write_bytes(dst.0 as *mut u8, 0, bytes) };
            Ok(())
        });
        Ok(self.submit(format!("memset of {bytes} bytes"), after, touches, work))
    }

    fn has_fft(&self) -> bool {
        self.cfg.fft
    }

    unsafe fn fft(&self, job: &FftJob, after: &[Fence]) -> Result<Fence> {
        if !self.cfg.fft {
            return Err(Error::Unsupported(format!("{} has no FFT library", self.cfg.name)));
        }
        let (real, complex) = if job.double { (8, 16) } else { (4, 8) };
        let n = job.numel;
        let mut ranges = vec![(job.src.0, n * if job.src_real { real } else { complex })];
        ranges.push((job.work.0, n * complex));
        ranges.extend(job.real_dst.map(|d| (d.0, n * real)));
        let touches = self.claim("fft", &ranges)?;
        let job = job.clone();
        let work: Work = Box::new(move || {
            // SAFETY: the pointers were checked and are held in flight; sizes as claimed.
            unsafe { crate::fft::run_on_host(&job) };
            Ok(())
        });
        Ok(self.submit("fft".into(), after, touches, work))
    }

    unsafe fn launch(&self, l: &DeviceLaunch<'_>, after: &[Fence]) -> Result<Fence> {
        if self.cfg.interpret_ptx {
            return self.launch_ptx(l, after);
        }
        let what = format!("kernel `{}`", l.kernel.name);
        if self.cfg.needs_ptx {
            crate::ptx::pack_params(l.kernel, l.cfg.dims(), l.args, l.error_word)?;
        }
        let mut ranges = Vec::new();
        let mut raw = Vec::new();
        let mut outs: Vec<(OutputSpec, u64)> = Vec::new();
        for a in l.args {
            match a {
                DeviceArg::Array { ptr, shape, elem } => {
                    ranges.push((ptr.0, shape.numel() * elem.size));
                    raw.push(RawArg::View { ptr: ptr.0 as *mut u8, shape: *shape, elem: *elem });
                }
                DeviceArg::Scalar { bytes, elem } => {
                    raw.push(RawArg::Scalar { bytes: bytes.clone(), elem: *elem })
                }
                DeviceArg::Output { ptr, spec } => {
                    ranges.push((ptr.0, spec.size()));
                    raw.push(RawArg::Output { elem: spec.elem });
                    outs.push((*spec, ptr.0));
                }
            }
        }
        let touches = self.claim(&what, &ranges)?;
        lock(&self.shared.mem).stats.launches += 1;
        let (kernel, cfg, args) = (l.kernel, *l.cfg, SendArgs(raw));
        let (warp, name) = (self.warp_size(), self.cfg.name.clone());
        let work: Work = Box::new(move || {
            let args = args;
            let ka = KernelArgs { kernel: kernel.name, args: &args.0 };
            let specs: Vec<OutputSpec> = outs.iter().map(|o| o.0).collect();
            let vals = execute(kernel, &cfg, &ka, &specs, warp, &name)
                .map_err(|e| Failure::Device(e.to_string()))?;
            for ((spec, slot), v) in outs.iter().zip(&vals) {
                // SAFETY: the slot was checked and holds a value of the output's type.
                unsafe { spec.combine_into(*slot as *mut u8, v.as_ptr()) };
            }
            Ok(())
        });
        Ok(self.submit(what, after, touches, work))
    }

    fn block_freed(&self, ptr: DevPtr, bytes: usize) {
        let mut mem = lock(&self.shared.mem);
        let (lo, hi) = (ptr.0, ptr.0 + bytes as u64);
        let n = mem.active.iter().filter(|&&(p, b)| p < hi && p + b as u64 > lo).count();
        if n > 0 {
            mem.violations.push(format!(
                "block {lo:#x}+{bytes} released while {n} operation(s) using it are in flight"
            ));
        }
    }

    fn synchronize(&self) -> Result<()> {
        let mut q = lock(&self.shared.queue);
        while q.outstanding > 0 {
            q = self.shared.idle.wait(q).unwrap_or_else(|e| e.into_inner());
        }
        Ok(())
    }
}

#[cfg(feature = "ptx-sim")]
#[path = "sim_ptx.rs"]
mod ptx;

impl SimBackend {
    /// A launch in PTX mode: the kernel's PTX runs on the interpreter (`sim_ptx.rs`).
    unsafe fn launch_ptx(&self, l: &DeviceLaunch<'_>, after: &[Fence]) -> Result<Fence> {
        #[cfg(feature = "ptx-sim")]
        {
            let what = format!("kernel `{}`", l.kernel.name);
            let work = self.ptx.launch(l, &self.cfg.name)?;
            let touches = self.claim(&what, &ptx::claimed(l))?;
            lock(&self.shared.mem).stats.launches += 1;
            let work: Work = Box::new(move || work().map_err(Failure::after_kernel));
            Ok(self.submit(what, after, touches, work))
        }
        #[cfg(not(feature = "ptx-sim"))]
        {
            let _ = after;
            Err(Error::Unsupported(format!(
                "kernel `{}`: the simulated GPU interprets PTX only with the feature `ptx-sim`",
                l.kernel.name
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_round_trip_and_complete_asynchronously() {
        let sim = SimBackend::new(SimConfig { jitter_seed: Some(7), ..SimConfig::default() });
        let p = sim.alloc(16).unwrap();
        let src = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
        let mut dst = [0u8; 16];
        // SAFETY: both buffers outlive the fences, which we wait for.
        unsafe {
            let up = sim.upload(p, src.as_ptr(), 16, &[]).unwrap();
            let z = sim.zero(DevPtr(p.0 + 8), 8, std::slice::from_ref(&up)).unwrap();
            let down = sim.download(dst.as_mut_ptr(), p, 16, &[z]).unwrap();
            down.wait().unwrap();
            assert!(down.elapsed().is_some());
            assert_eq!(&dst[..8], &src[..8]);
            assert_eq!(&dst[8..], &[0; 8]);
            sim.free(p);
        }
        let s = sim.stats();
        assert_eq!((s.allocs, s.frees, s.allocated, s.bytes_uploaded), (1, 1, 0, 16));
        assert!(sim.violations().is_empty());
    }

    #[test]
    fn capacity_is_enforced_and_bad_pointers_are_caught() {
        let sim = SimBackend::new(SimConfig { memory_bytes: 1000, ..SimConfig::default() });
        let p = sim.alloc(600).unwrap();
        let e = sim.alloc(600).unwrap_err().to_string();
        assert!(e.contains("out of memory"), "{e}");
        let buf = [0u8; 8];
        // SAFETY: the call is rejected before any copy.
        let r = unsafe { sim.upload(DevPtr(p.0 + 596), buf.as_ptr(), 8, &[]) };
        assert!(r.is_err());
        assert_eq!(sim.violations().len(), 1);
        // SAFETY: nothing in flight.
        unsafe { sim.free(p) };
    }
}
