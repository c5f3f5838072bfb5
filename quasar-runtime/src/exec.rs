//! Executing a [`Launch`]: choosing the device (the CPU or one of the GPUs), preparing the
//! arguments there, running the kernel, and falling back to the CPU where that is allowed.

use crate::device::cpu::{execute, CPU_NAME};
use crate::device::{DevPtr, DeviceArg, DeviceLaunch, Fence, GpuDevice};
use crate::error::{Error, Result};
use crate::kernel::{Kernel, KernelArgs, RawArg};
use crate::launch::{Access, Launch, LaunchArg, LaunchConfig, LaunchResult};
use crate::memory::GpuPolicy;
use crate::output::OutputSpec;
use crate::profiler::{ArrayRef, TransferNote, TransferReason};
use crate::residency::Buffer;
use crate::runtime::Runtime;
use crate::scheduler::{
    choose, choose_gpu, sched_attr, DeviceKind, GpuLoad, SchedInput, SchedMode,
};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// An array argument of a launch (each buffer once, with the union of its accesses and the
/// position of its first argument).
pub(crate) struct LaunchBuf {
    pub buf: Arc<Buffer>,
    pub access: Access,
    pub index: usize,
}

/// The buffers of a launch's array arguments, in buffer order (the order in which CPU launches
/// take their host borrows, so that concurrent launches cannot wait for each other in a cycle).
fn launch_bufs(l: &Launch<'_>) -> Vec<LaunchBuf> {
    let mut bufs: Vec<LaunchBuf> = Vec::new();
    for (index, a) in l.args.iter().enumerate() {
        if let LaunchArg::Array { buf, access, .. } = a {
            buf.label_once(|| l.kernel.short_label(index));
            match bufs.iter_mut().find(|b| b.buf.id == buf.id) {
                Some(b) => b.access = b.access.union(*access),
                None => bufs.push(LaunchBuf { buf: buf.clone(), access: *access, index }),
            }
        }
    }
    bufs.sort_by_key(|b| b.buf.id);
    bufs
}

impl Runtime {
    pub(crate) fn run_launch(&self, l: Launch<'_>) -> Result<LaunchResult> {
        if let Some(e) = l.error {
            return Err(e);
        }
        let bufs = launch_bufs(&l);
        if l.dims.contains(&0) {
            // Nothing runs (after checking the launch's rank); outputs keep their start value.
            LaunchConfig::cpu_auto(l.kernel.name, &l.dims, 1)?;
            let outputs = l
                .args
                .iter()
                .filter_map(|a| match a {
                    LaunchArg::Output(spec) => Some((spec.elem, spec.start_bytes())),
                    _ => None,
                })
                .collect();
            return Ok(LaunchResult::new(DeviceKind::Cpu, None, CPU_NAME, outputs));
        }
        let attr = sched_attr();
        let mode = l.mode.or(attr.mode).unwrap_or_else(|| self.mode());
        let gpus = self.gpus();
        let gpu = self.pick_gpu(&gpus, &bufs, l.gpu_index.or(attr.gpu_index));
        let g = gpu.map(|i| gpus[i]);
        let input = SchedInput {
            work_items: l.dims.iter().product(),
            bytes_to_upload: g
                .map_or(0, |g| bufs.iter().map(|b| b.buf.upload_cost(Some(g), b.access)).sum()),
            // (Only a GPU launch is weighed against the CPU: without one, no buffer's lock.)
            bytes_to_download: g.map_or(0, |_| bufs.iter().map(|b| b.buf.download_cost()).sum()),
            gpu_available: g.is_some(),
            kernel_runs_on_gpu: g.is_some_and(|g| !g.backend().needs_ptx())
                || l.kernel.ptx.is_some(),
            gpu_only: l.kernel.gpu_only,
        };
        let kind = choose(mode, &input, &self.scheduler_config()).map_err(|e| match e {
            Error::NoGpu { .. } => Error::NoGpu { reason: self.no_gpu_reason() },
            Error::Unsupported(_) => no_ptx(l.kernel),
            e => e,
        })?;
        let (Some(g), Some(index), DeviceKind::Gpu) = (g, gpu, kind) else {
            return self.run_cpu(&l, &bufs);
        };
        match self.run_gpu(&l, &bufs, g, index) {
            // The launch does not fit the GPU's limits (e.g. grid size): the CPU can run it.
            Err(Error::InvalidLaunch { .. }) if mode == SchedMode::Auto => self.run_cpu(&l, &bufs),
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
                self.warn_once(&self.fallback_logged, || {
                    format!(
                        "GPU launch of kernel `{}` failed ({e}); running on the CPU",
                        l.kernel.name
                    )
                });
                // Out of memory, or this kernel's PTX not loading, says nothing about the
                // device; any other failure disables it for this runtime.
                if !matches!(e, Error::OutOfMemory { .. }) && !is_kernel_specific(&e) {
                    self.gpu_failed(g, &e);
                }
                self.run_cpu(&l, &bufs)
            }
            r => r,
        }
    }

    /// The GPU (index into `gpus`) a launch over `bufs` would use.
    fn pick_gpu(
        &self,
        gpus: &[&Arc<GpuDevice>],
        bufs: &[LaunchBuf],
        forced: Option<usize>,
    ) -> Option<usize> {
        match gpus.len() {
            0 => None,
            1 => Some(0),
            _ => {
                let loads: Vec<GpuLoad> = gpus
                    .iter()
                    .map(|g| {
                        let mut load = GpuLoad { queued: g.queue_len(), ..GpuLoad::default() };
                        for b in bufs {
                            load.bytes_to_move += b.buf.upload_cost(Some(g), b.access);
                            load.resident += b.buf.resident_on(g);
                        }
                        load
                    })
                    .collect();
                let rotate = self.next_gpu.load(Ordering::Relaxed);
                let i = choose_gpu(&loads, forced, rotate);
                if forced.is_none() {
                    self.next_gpu.store(i + 1, Ordering::Relaxed);
                }
                Some(i)
            }
        }
    }

    fn run_cpu(&self, l: &Launch<'_>, bufs: &[LaunchBuf]) -> Result<LaunchResult> {
        let k = l.kernel;
        let cfg = match &l.blkdim {
            Some(b) => LaunchConfig::new(k.name, &l.dims, b)?,
            None if k.block_sensitive => LaunchConfig::gpu_auto(k.name, &l.dims, 1024)?,
            None if k.cpu_tiles => {
                LaunchConfig::cpu_tiles(k.name, &l.dims, rayon::current_num_threads())?
            }
            None => LaunchConfig::cpu_auto(k.name, &l.dims, rayon::current_num_threads())?,
        };
        let mut borrows = Borrows { list: Vec::with_capacity(bufs.len()) };
        // The host copy of each of `bufs`, in their order (a launch has a few arrays).
        let mut ptrs: Vec<(u64, *mut u8)> = Vec::with_capacity(bufs.len());
        for b in bufs {
            let p = b.buf.borrow_host(b.access, k.name, true)?;
            borrows.list.push((b.buf.clone(), b.access));
            ptrs.push((b.buf.id, p));
        }
        let host = |id: u64| ptrs.iter().find(|p| p.0 == id).map(|p| p.1);
        let mut raw = Vec::with_capacity(l.args.len());
        let mut outs: Vec<OutputSpec> = Vec::new();
        for a in &l.args {
            raw.push(match a {
                LaunchArg::Array { buf, shape, .. } => {
                    let ptr = host(buf.id).ok_or_else(|| {
                        Error::Unsupported(
                            "internal error: a launch array without its buffer".into(),
                        )
                    })?;
                    RawArg::View { ptr, shape: *shape, elem: buf.elem }
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
        let t1 = Instant::now();
        drop(borrows);
        let vals = vals?;
        self.profiler.launch(k.name, CPU_NAME, t0, t1);
        let outputs = outs.iter().map(|o| o.elem).zip(vals).collect();
        Ok(LaunchResult::new(DeviceKind::Cpu, None, CPU_NAME, outputs))
    }

    fn run_gpu(
        &self,
        l: &Launch<'_>,
        bufs: &[LaunchBuf],
        dev: &Arc<GpuDevice>,
        index: usize,
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
                "block dimensions {:?} are {} threads per block; the device allows {}",
                &cfg.blkdim()[..cfg.ndim()],
                cfg.threads_per_block(),
                be.max_threads_per_block()
            )));
        }
        let (grid, _) = cfg.cuda_grid_block();
        let max = be.max_grid();
        if let Some(axis) = (0..3).find(|&i| grid[i] > max[i]) {
            // CUDA axis x is the last launch dimension.
            let d = cfg.ndim() - 1 - axis;
            return Err(invalid(format!(
                "launch dimension {d} is {} with blocks of {}: {} blocks along CUDA axis {}, \
                 the device allows {} (use larger blocks for this dimension)",
                cfg.dims()[d],
                cfg.blkdim()[d],
                grid[axis],
                ["x", "y", "z"][axis],
                max[axis]
            )));
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
        // The start values uploaded: declared before `slots`, whose drop waits for the
        // uploads, so that they outlive them on every path.
        let mut starts: Vec<Vec<u8>> = Vec::new();
        let mut slots = Slots { dev, list: Vec::new() };
        let label = format!("outputs of {}", k.name);
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
                    let start = spec.start_bytes();
                    let z = if start.iter().all(|&b| b == 0) {
                        dev.zero(p, spec.size(), &[], "zero outputs")?
                    } else {
                        let note = TransferNote {
                            row: k.name,
                            array: ArrayRef {
                                id: 0,
                                label: &label,
                                elem: spec.elem.name,
                                bytes: spec.size(),
                            },
                            reason: TransferReason::Output,
                        };
                        starts.push(start);
                        let src = starts.last().expect("just pushed").as_ptr();
                        // SAFETY: `starts` keeps the bytes until the end of this function,
                        // after the launch (which waits for this upload) and its downloads.
                        unsafe { dev.upload(p, src, spec.size(), &[], &note)? }
                    };
                    slots.list.last_mut().expect("just pushed").3 = Some(z.clone());
                    deps.push(z);
                    DeviceArg::Output { ptr: p, spec: *spec }
                }
            });
        }
        // A kernel that can fail reports to its own error word (`device/error_word.rs`).
        let checked = k.ptx_entry.is_some_and(|e| e.checked);
        let word = if checked { Some(dev.take_error_word()?) } else { None };
        deps.extend(word.as_ref().and_then(|w| w.zeroed.clone()));
        let error_word = word.as_ref().map(|w| w.ptr);
        let dl = DeviceLaunch { kernel: k, cfg: &cfg, args: &dargs, error_word };
        // SAFETY: every pointer is a pinned block of this device sized for its shape.
        let fence = match unsafe { dev.launch(&dl, &deps) } {
            Ok(f) => f,
            Err(e) => {
                // Not submitted: the word is still zero.
                if let Some(w) = word {
                    dev.return_error_word(w);
                }
                return Err(e);
            }
        };
        pins.fence = Some(fence.clone());
        drop(pins);
        for s in slots.list.iter_mut() {
            s.3 = Some(fence.clone());
        }
        if let Some(w) = word {
            // The kernel ran (its writes are recorded above, as a CPU kernel's would be); a
            // failure to read its error word must not make the caller run it again on the CPU.
            dev.check_error_word(w, &dl, &fence).map_err(|e| match e {
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
            let note = TransferNote {
                row: k.name,
                array: ArrayRef { id: 0, label: &label, elem: spec.elem.name, bytes: spec.size() },
                reason: TransferReason::Output,
            };
            let after = std::slice::from_ref(&fence);
            // SAFETY: `v` outlives the fence, which we wait for.
            let f = unsafe { dev.download(v.as_mut_ptr(), *p, spec.size(), after, &note)? };
            *z = Some(f.clone());
            f.wait()?;
            outputs.push((spec.elem, v));
        }
        Ok(LaunchResult::new(DeviceKind::Gpu, Some(index), dev.name(), outputs))
    }
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

/// A CUDA error about one kernel's module (it does not mean the device is unusable).
fn is_kernel_specific(e: &Error) -> bool {
    matches!(e, Error::Cuda { operation, .. }
        if operation.starts_with("loading the PTX module") || operation.starts_with("finding entry point"))
}

fn is_device_failure(e: &Error) -> bool {
    matches!(e, Error::Cuda { .. } | Error::Device { .. } | Error::OutOfMemory { .. })
}

/// Host borrows of a CPU launch, released on drop.
struct Borrows {
    list: Vec<(Arc<Buffer>, Access)>,
}
impl Drop for Borrows {
    fn drop(&mut self) {
        for (b, a) in &self.list {
            b.release_host(*a, true);
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
