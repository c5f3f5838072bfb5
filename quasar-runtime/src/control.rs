//! Runtime control from Quasar code (manual §16.7, §11.4, §17.2.5), as generated code calls
//! it: the code attributes `{!sched …}`, `{!alloc …}` and `{!transfer …}`, and the built-in
//! `schedule(dims, args…, {impl_gpu, impl_cpu})`.

use crate::array::Array;
use crate::element::Element;
use crate::error::Result;
use crate::launch::Access;
use crate::residency::Buffer;
use crate::runtime::{Runtime, Target};
use crate::scheduler::{choose, sched, sched_attr, sched_auto, DeviceKind, SchedInput, SchedMode};
use std::cell::Cell;
use std::sync::Arc;

/// `{!sched mode=…; gpu_index=…}` as generated code calls it: `mode` is `None` to keep the
/// current mode (`{!sched gpu_index=1}`), `Some(SchedMode::Auto)` for `mode=auto`; a negative
/// `gpu_index` is ignored. Both `None`/negative is `{!sched}`: back to automatic scheduling.
pub fn sched_attribute(mode: Option<SchedMode>, gpu_index: i32) {
    let index = usize::try_from(gpu_index).ok();
    if mode.is_none() && index.is_none() {
        sched_auto();
    } else {
        sched(mode, index);
    }
}

thread_local! {
    static NEXT_ALLOC: Cell<Option<Target>> = const { Cell::new(None) };
}

/// `{!alloc mode=auto|cpu|gpu}`: where the next allocation request of this thread
/// (`zeros`, `uninit`) puts its array. `gpu` zeroes it in the memory of the GPU that
/// launches would use (so a kernel that fills it needs no upload); `cpu` and `auto` (`None`)
/// allocate on the host, the default.
pub fn alloc_attribute(target: Option<Target>) {
    NEXT_ALLOC.with(|n| n.set(target));
}

/// Applies (and clears) a pending `{!alloc mode=gpu}` to a new zero-filled buffer, on the
/// process-wide runtime.
pub(crate) fn place_new(buf: &Arc<Buffer>) -> Result<()> {
    let Some(Target::Gpu(index)) = NEXT_ALLOC.with(|n| n.take()) else { return Ok(()) };
    let rt = Runtime::global();
    let gpus = rt.gpus();
    if gpus.is_empty() {
        return Ok(());
    }
    let i = index.or(sched_attr().gpu_index).unwrap_or(0) % gpus.len();
    buf.zero_on(gpus[i])
}

/// `{!transfer vars=a; target=cpu|gpu; gpu_index=N}` on the process-wide runtime (a negative
/// `gpu_index` means none given).
pub fn transfer_attribute<T: Element>(a: &Array<T>, to_gpu: bool, gpu_index: i32) -> Result<()> {
    let target = if to_gpu { Target::Gpu(usize::try_from(gpu_index).ok()) } else { Target::Cpu };
    Runtime::global().transfer(a, target)
}

/// `schedule(dims, args…, {impl_gpu, impl_cpu})` being put together: the work size and the
/// arrays the implementations use; [`choose`](Schedule::choose) says which implementation to
/// run (0: the GPU one, 1: the CPU one), as the scheduler would place a launch like it.
#[must_use = "a schedule decides nothing until `choose` is called"]
pub struct Schedule<'r> {
    rt: &'r Runtime,
    work: usize,
    bufs: Vec<Arc<Buffer>>,
}

/// Starts a `schedule(…)` of `work` threads on the process-wide runtime.
pub fn schedule(work: usize) -> Schedule<'static> {
    Runtime::global().schedule(work)
}

impl Runtime {
    /// Starts a `schedule(…)` of `work` threads (see [`Schedule`]).
    pub fn schedule(&self, work: usize) -> Schedule<'_> {
        Schedule { rt: self, work, bufs: Vec::new() }
    }
}

impl Schedule<'_> {
    /// An array the implementations read.
    pub fn array<T: Element>(mut self, a: &Array<T>) -> Self {
        self.bufs.push(a.buffer().clone());
        self
    }

    /// The device the scheduler picks: the current `{!sched}` mode, else its cost model
    /// (size, where the arrays live, whether there is a GPU).
    pub fn device(&self) -> DeviceKind {
        let rt = self.rt;
        let attr = sched_attr();
        let gpus = rt.gpus();
        let gpu = match gpus.len() {
            0 => None,
            n => Some(gpus[attr.gpu_index.unwrap_or(0) % n]),
        };
        let input = SchedInput {
            work_items: self.work,
            bytes_to_upload: gpu.map_or(0, |g| {
                self.bufs.iter().map(|b| b.upload_cost(Some(g), Access::Read)).sum()
            }),
            bytes_to_download: self.bufs.iter().map(|b| b.download_cost()).sum(),
            gpu_available: gpu.is_some(),
            kernel_runs_on_gpu: true,
            gpu_only: false,
        };
        let mode = attr.mode.unwrap_or_else(|| rt.mode());
        // Asking for the GPU without one is not an error here: the CPU implementation runs.
        choose(mode, &input, &rt.scheduler_config()).unwrap_or(DeviceKind::Cpu)
    }

    /// The index of the implementation to run among `candidates` (GPU first, then CPU):
    /// 0 when the scheduler picks a GPU or there is only one candidate, else 1.
    pub fn choose(self, candidates: usize) -> i32 {
        match self.device() {
            DeviceKind::Gpu => 0,
            DeviceKind::Cpu => i32::from(candidates > 1),
        }
    }
}
