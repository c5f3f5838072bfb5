//! The scheduler: picks the CPU or a GPU for each launch from the problem size, where the
//! data lives, how busy each GPU is, and what is available. `quasar run --cpu|--gpu` maps to
//! [`SchedMode`]; the code attributes `{!sched mode=cpu|gpu}`, `{!sched gpu_index=N}` and
//! `{!sched}` set the current thread's [`SchedAttr`] ([`sched`], [`sched_auto`]), which
//! applies to the launches that follow, as in the manual (§11.4, §16.7).

use crate::error::{Error, Result};
use std::cell::Cell;

/// How launches choose their device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SchedMode {
    /// The scheduler decides (the default).
    #[default]
    Auto,
    /// Always the CPU.
    Cpu,
    /// Always the GPU; an error ([`Error::NoGpu`]) when there is none.
    Gpu,
}

impl SchedMode {
    /// Parses `auto`, `cpu` or `gpu` (as in `{!sched mode=…}` and `QUASAR_DEVICE`).
    pub fn parse(s: &str) -> Option<SchedMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Some(SchedMode::Auto),
            "cpu" => Some(SchedMode::Cpu),
            "gpu" | "cuda" => Some(SchedMode::Gpu),
            _ => None,
        }
    }
}

/// Where a launch ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// The CPU device (rayon over blocks).
    Cpu,
    /// The runtime's GPU device.
    Gpu,
}

/// The cost model's constants. The defaults describe a PCIe 4 GPU next to a desktop CPU; they
/// only need to be right to within a factor of a few.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SchedulerConfig {
    /// Nanoseconds of CPU time per work item (per thread of the launch), one core.
    pub cpu_ns_per_item: f64,
    /// CPU cores used.
    pub cpu_cores: f64,
    /// Fixed cost of a CPU launch (fork/join), nanoseconds.
    pub cpu_launch_ns: f64,
    /// Nanoseconds of GPU time per work item.
    pub gpu_ns_per_item: f64,
    /// Fixed cost of a GPU launch, nanoseconds.
    pub gpu_launch_ns: f64,
    /// Host ↔ device bandwidth, bytes per nanosecond (GB/s).
    pub transfer_bytes_per_ns: f64,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            cpu_ns_per_item: 1.0,
            cpu_cores: std::thread::available_parallelism().map_or(1, |n| n.get()) as f64,
            cpu_launch_ns: 5_000.0,
            gpu_ns_per_item: 0.01,
            gpu_launch_ns: 20_000.0,
            transfer_bytes_per_ns: 12.0,
        }
    }
}

/// What the scheduler knows about one launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedInput {
    /// `prod(dims)`: the number of threads of the launch.
    pub work_items: usize,
    /// Bytes that running on the GPU would upload (arguments read by the kernel whose device
    /// copy is stale).
    pub bytes_to_upload: usize,
    /// Bytes that running on the CPU would download (arguments valid only on the GPU).
    pub bytes_to_download: usize,
    /// Whether a GPU is available (driver loaded, not failed).
    pub gpu_available: bool,
    /// Whether the kernel can run on it (has PTX, or the device does not need any).
    pub kernel_runs_on_gpu: bool,
    /// The kernel's CPU version only reports an error ([`crate::Kernel::gpu_only`]).
    pub gpu_only: bool,
}

/// Chooses the device for a launch. Errors only when `mode` forces a GPU that is not there or
/// cannot run the kernel.
pub fn choose(mode: SchedMode, input: &SchedInput, cfg: &SchedulerConfig) -> Result<DeviceKind> {
    match mode {
        SchedMode::Cpu => Ok(DeviceKind::Cpu),
        SchedMode::Gpu if !input.gpu_available => Err(Error::NoGpu {
            reason: "the launch requires the GPU (sched mode gpu) but no usable GPU is available"
                .into(),
        }),
        SchedMode::Gpu if !input.kernel_runs_on_gpu => {
            Err(Error::Unsupported("the launch requires the GPU but the kernel has no PTX".into()))
        }
        SchedMode::Gpu => Ok(DeviceKind::Gpu),
        SchedMode::Auto => {
            if !input.gpu_available || !input.kernel_runs_on_gpu {
                return Ok(DeviceKind::Cpu);
            }
            if input.gpu_only {
                return Ok(DeviceKind::Gpu);
            }
            let (cpu, gpu) = estimate(input, cfg);
            Ok(if gpu < cpu { DeviceKind::Gpu } else { DeviceKind::Cpu })
        }
    }
}

/// What the scheduler knows about one GPU for a launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuLoad {
    /// Bytes that running there would copy (arguments not valid there; those valid only on
    /// another GPU count twice, as they move through the host).
    pub bytes_to_move: usize,
    /// Bytes of the arguments that already have a copy there (valid or not).
    pub resident: usize,
    /// Operations queued there and not complete.
    pub queued: usize,
}

/// Picks the GPU for a launch: `forced` (modulo the number of GPUs, so that code written for
/// several GPUs runs on one, as the manual says); else the one that moves the fewest bytes,
/// then holds the most of the arguments already, then has the shortest queue. So a launch
/// follows its data (a launch that depends on work queued on a GPU waits for it anyway), and
/// independent launches go to the least busy GPU, ties to the first from `rotate` on, so
/// that they spread over equal GPUs.
pub fn choose_gpu(gpus: &[GpuLoad], forced: Option<usize>, rotate: usize) -> usize {
    let n = gpus.len().max(1);
    if let Some(i) = forced {
        return i % n;
    }
    let key = |g: &GpuLoad| (g.bytes_to_move, std::cmp::Reverse(g.resident), g.queued);
    let mut best = rotate % n;
    for k in 1..gpus.len() {
        let i = (rotate + k) % n;
        if key(&gpus[i]) < key(&gpus[best]) {
            best = i;
        }
    }
    best
}

/// What `{!sched …}` set for the launches of the current thread that follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedAttr {
    /// `{!sched mode=cpu|gpu}`; `None` is automatic.
    pub mode: Option<SchedMode>,
    /// `{!sched gpu_index=N}`: the GPU that launches scheduled to a GPU use.
    pub gpu_index: Option<usize>,
}

thread_local! {
    static ATTR: Cell<SchedAttr> = const { Cell::new(SchedAttr { mode: None, gpu_index: None }) };
}

/// The current thread's scheduling attributes.
pub fn sched_attr() -> SchedAttr {
    ATTR.with(|a| a.get())
}

/// `{!sched mode=…; gpu_index=…}`: sets what is given and keeps the rest (`{!sched
/// gpu_index=1}` retains the mode, as the manual says). `mode=auto` is [`sched_auto`].
pub fn sched(mode: Option<SchedMode>, gpu_index: Option<usize>) {
    if mode == Some(SchedMode::Auto) {
        sched_auto();
    }
    ATTR.with(|a| {
        let mut s = a.get();
        if let Some(m) = mode.filter(|m| *m != SchedMode::Auto) {
            s.mode = Some(m);
        }
        if gpu_index.is_some() {
            s.gpu_index = gpu_index;
        }
        a.set(s);
    });
}

/// `{!sched}` and `{!sched mode=auto}`: back to automatic scheduling.
pub fn sched_auto() {
    ATTR.with(|a| a.set(SchedAttr::default()));
}

/// Restores the thread's scheduling attributes when dropped: generated functions that use
/// `{!sched}` hold one, so that the attribute does not leak to their caller.
#[must_use = "the attributes are restored when this is dropped"]
pub struct SchedScope(SchedAttr);

impl SchedScope {
    /// Saves the current attributes.
    pub fn enter() -> SchedScope {
        SchedScope(sched_attr())
    }
}

impl Drop for SchedScope {
    fn drop(&mut self) {
        ATTR.with(|a| a.set(self.0));
    }
}

/// Estimated (CPU, GPU) time in nanoseconds. Under [`SchedMode::Auto`] a launch goes to the
/// GPU only when its estimate is lower, so tiny launches (a loop over a filter's 13
/// coefficients) stay on the CPU: with the default constants the CPU wins below
/// 15,000 work items whatever the number of cores (launch costs 5 µs against 20 µs), and up
/// to about 30,000 items on two cores before any upload is counted.
pub fn estimate(input: &SchedInput, cfg: &SchedulerConfig) -> (f64, f64) {
    let n = input.work_items as f64;
    let cpu = cfg.cpu_launch_ns
        + n * cfg.cpu_ns_per_item / cfg.cpu_cores.max(1.0)
        + input.bytes_to_download as f64 / cfg.transfer_bytes_per_ns;
    let gpu = cfg.gpu_launch_ns
        + n * cfg.gpu_ns_per_item
        + input.bytes_to_upload as f64 / cfg.transfer_bytes_per_ns;
    (cpu, gpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> SchedulerConfig {
        SchedulerConfig { cpu_cores: 8.0, ..SchedulerConfig::default() }
    }

    fn input(work: usize, up: usize, down: usize) -> SchedInput {
        SchedInput {
            work_items: work,
            bytes_to_upload: up,
            bytes_to_download: down,
            gpu_available: true,
            kernel_runs_on_gpu: true,
            gpu_only: false,
        }
    }

    #[test]
    fn gpu_only_kernels_go_to_the_gpu_when_it_can_run_them() {
        let tiny = SchedInput { gpu_only: true, ..input(1, 0, 0) };
        assert_eq!(choose(SchedMode::Auto, &tiny, &cfg()).unwrap(), DeviceKind::Gpu);
        assert_eq!(choose(SchedMode::Auto, &input(1, 0, 0), &cfg()).unwrap(), DeviceKind::Cpu);
        let no_gpu = SchedInput { gpu_available: false, ..tiny };
        assert_eq!(choose(SchedMode::Auto, &no_gpu, &cfg()).unwrap(), DeviceKind::Cpu);
        assert_eq!(choose(SchedMode::Cpu, &tiny, &cfg()).unwrap(), DeviceKind::Cpu);
    }

    #[test]
    fn tiny_launches_stay_on_the_cpu_on_any_number_of_cores() {
        for cores in [1.0, 2.0, 16.0, 1024.0] {
            let c = SchedulerConfig { cpu_cores: cores, ..SchedulerConfig::default() };
            for n in [1, 13, 1000, 14_999] {
                assert_eq!(choose(SchedMode::Auto, &input(n, 0, 0), &c).unwrap(), DeviceKind::Cpu);
            }
        }
    }

    #[test]
    fn small_work_stays_on_the_cpu_large_work_goes_to_the_gpu() {
        assert_eq!(
            choose(SchedMode::Auto, &input(1000, 4000, 0), &cfg()).unwrap(),
            DeviceKind::Cpu
        );
        assert_eq!(
            choose(SchedMode::Auto, &input(10_000_000, 0, 0), &cfg()).unwrap(),
            DeviceKind::Gpu
        );
    }

    #[test]
    fn where_the_data_lives_matters() {
        // Medium work with 400 MB to upload: the transfer dominates, stay on the CPU.
        let up = input(1_000_000, 400_000_000, 0);
        assert_eq!(choose(SchedMode::Auto, &up, &cfg()).unwrap(), DeviceKind::Cpu);
        // The same work with the data already only on the GPU: stay there.
        let down = input(1_000_000, 0, 400_000_000);
        assert_eq!(choose(SchedMode::Auto, &down, &cfg()).unwrap(), DeviceKind::Gpu);
    }

    #[test]
    fn availability_and_forced_modes() {
        let mut i = input(100_000_000, 0, 0);
        i.gpu_available = false;
        assert_eq!(choose(SchedMode::Auto, &i, &cfg()).unwrap(), DeviceKind::Cpu);
        assert!(matches!(choose(SchedMode::Gpu, &i, &cfg()), Err(Error::NoGpu { .. })));
        let mut j = input(10, 0, 0);
        assert_eq!(choose(SchedMode::Gpu, &j, &cfg()).unwrap(), DeviceKind::Gpu);
        j.kernel_runs_on_gpu = false;
        assert!(choose(SchedMode::Gpu, &j, &cfg()).is_err());
        assert_eq!(choose(SchedMode::Auto, &j, &cfg()).unwrap(), DeviceKind::Cpu);
        assert_eq!(choose(SchedMode::Cpu, &input(1 << 30, 0, 0), &cfg()).unwrap(), DeviceKind::Cpu);
    }

    #[test]
    fn gpus_are_chosen_by_data_location_load_and_rotation() {
        let idle = GpuLoad { bytes_to_move: 1 << 20, resident: 0, queued: 0 };
        // Equal GPUs: the rotation decides, so independent launches spread.
        assert_eq!(choose_gpu(&[idle, idle], None, 0), 0);
        assert_eq!(choose_gpu(&[idle, idle], None, 1), 1);
        // The data lives on GPU 1: it wins even when it is GPU 0's turn, and even when it
        // is busy (with the work that produces the data, typically).
        let here = GpuLoad { bytes_to_move: 0, resident: 1 << 20, queued: 3 };
        assert_eq!(choose_gpu(&[idle, here], None, 0), 1);
        // Written only: nothing moves either way, but the copy is there already.
        let written = GpuLoad { bytes_to_move: 0, resident: 1 << 20, queued: 1 };
        let fresh = GpuLoad { bytes_to_move: 0, resident: 0, queued: 0 };
        assert_eq!(choose_gpu(&[fresh, written], None, 0), 1);
        // A busy GPU loses to an idle one when the data is elsewhere anyway.
        let busy = GpuLoad { bytes_to_move: 1 << 20, resident: 0, queued: 40 };
        assert_eq!(choose_gpu(&[busy, idle], None, 0), 1);
        // Forced, modulo the number of GPUs.
        assert_eq!(choose_gpu(&[idle, here], Some(0), 1), 0);
        assert_eq!(choose_gpu(&[idle], Some(3), 0), 0);
    }

    #[test]
    fn sched_attributes_follow_the_manual_and_scopes_restore_them() {
        std::thread::spawn(|| {
            assert_eq!(sched_attr(), SchedAttr::default());
            {
                let _scope = SchedScope::enter();
                sched(Some(SchedMode::Gpu), None);
                sched(None, Some(1)); // keeps the mode
                assert_eq!(
                    sched_attr(),
                    SchedAttr { mode: Some(SchedMode::Gpu), gpu_index: Some(1) }
                );
                sched(Some(SchedMode::Cpu), None); // keeps the index
                assert_eq!(sched_attr().gpu_index, Some(1));
                sched_auto();
                assert_eq!(sched_attr(), SchedAttr::default());
                sched(Some(SchedMode::Gpu), Some(0));
                sched(Some(SchedMode::Auto), None);
                assert_eq!(sched_attr(), SchedAttr::default());
                sched(Some(SchedMode::Cpu), None);
            }
            assert_eq!(sched_attr(), SchedAttr::default());
        })
        .join()
        .unwrap();
    }

    #[test]
    fn parse_modes() {
        assert_eq!(SchedMode::parse("GPU"), Some(SchedMode::Gpu));
        assert_eq!(SchedMode::parse("cpu"), Some(SchedMode::Cpu));
        assert_eq!(SchedMode::parse("auto"), Some(SchedMode::Auto));
        assert_eq!(SchedMode::parse("tpu"), None);
    }
}
