//! Data movement, asynchrony, scheduling and the profiler, on the simulated GPU:
//! lazy transfers (`'const` never copied back, `'nocopy` never uploaded), host reads that wait
//! only for the kernels writing what they read, the scheduler's choices, forced modes, and the
//! fall-back to the CPU when the GPU fails.

mod common;

use common::{jittery, sim_runtime, ADD_SCALAR, COPY, SLOW_FILL};
use quasar_runtime::device::sim::{SimBackend, SimConfig};
use quasar_runtime::device::{DevPtr, DeviceLaunch, Fence, GpuBackend};
use quasar_runtime::profiler::HOST_READ;
use quasar_runtime::{
    Access, Array, DeviceKind, Error, Result, Runtime, SchedMode, SchedulerConfig,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[test]
fn transfers_are_lazy_and_respect_const_and_nocopy() {
    let (rt, sim) = sim_runtime(jittery(21));
    let n = 10_000usize;
    let bytes = (n * 4) as u64;
    let x = Array::<i32>::from_fn(&[n], |i| i as i32).unwrap();
    let y = Array::<i32>::zeros(&[n]).unwrap();
    // y = x: x is 'const (Read), y is 'nocopy (Write).
    rt.launch(&COPY)
        .dims(&[n])
        .arg(&x, Access::Read)
        .arg(&y, Access::Write)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    let p = rt.profile();
    let row = p.row("copy", "simulated").unwrap();
    assert_eq!((row.launches, row.bytes_to_device, row.bytes_to_host), (1, bytes, 0));
    // x is valid on both sides (never copied back); y only on the GPU (never uploaded).
    let rx = x.residency();
    assert!(rx.host_valid && rx.device_valid, "{rx:?}");
    let ry = y.residency();
    assert!(!ry.host_valid && ry.device_valid, "{ry:?}");
    // Reading y brings it back once.
    assert_eq!(y.get(&[n - 1]).unwrap(), (n - 1) as i32);
    assert_eq!(y.to_vec().unwrap(), x.to_vec().unwrap());
    let p = rt.profile();
    assert_eq!(p.row(HOST_READ, "simulated").unwrap().bytes_to_host, bytes);
    assert_eq!(p.total_bytes_to_host(), bytes);
    // Reusing x on the GPU uploads nothing more.
    rt.launch(&COPY)
        .dims(&[n])
        .arg(&x, Access::Read)
        .arg(&y, Access::Write)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert_eq!(rt.profile().total_bytes_to_device(), bytes);
    // A host write makes the device copy stale: the next GPU use uploads again.
    x.set(&[0], 5).unwrap();
    assert!(!x.residency().device_valid);
    rt.launch(&COPY)
        .dims(&[n])
        .arg(&x, Access::Read)
        .arg(&y, Access::Write)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert_eq!(rt.profile().total_bytes_to_device(), 2 * bytes);
    assert_eq!(y.get(&[0]).unwrap(), 5);
    assert_eq!(sim.stats().bytes_uploaded, 2 * bytes);
}

#[test]
fn host_reads_wait_only_for_the_kernels_that_write_what_they_read() {
    let (rt, _sim) = sim_runtime(SimConfig { streams: 2, ..SimConfig::default() });
    let n = 1000usize;
    let a = Array::<i32>::zeros(&[n]).unwrap();
    let b = Array::<i32>::from_elem(&[n], 9).unwrap();
    let c = Array::<i32>::zeros(&[n]).unwrap();
    // c = b, uploading b; then a slow kernel writes a.
    rt.launch(&COPY)
        .dims(&[n])
        .arg(&b, Access::Read)
        .arg(&c, Access::Write)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    c.sync().unwrap();
    let t0 = Instant::now();
    rt.launch(&SLOW_FILL)
        .dims(&[n])
        .arg(&a, Access::Write)
        .scalar(4)
        .scalar(400u32)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert!(t0.elapsed() < Duration::from_millis(200), "launches are asynchronous");
    // b and c are not written by the slow kernel: reading them does not wait for it.
    assert_eq!(b.get(&[3]).unwrap(), 9);
    assert_eq!(c.get(&[3]).unwrap(), 9);
    assert!(t0.elapsed() < Duration::from_millis(200), "took {:?}", t0.elapsed());
    assert!(a.residency().in_flight);
    // a is: its read waits.
    assert_eq!(a.get(&[3]).unwrap(), 4);
    assert!(t0.elapsed() >= Duration::from_millis(400));
}

#[test]
fn the_scheduler_weighs_size_and_data_location() {
    let (rt, _) = sim_runtime(SimConfig::default());
    rt.set_scheduler_config(SchedulerConfig {
        cpu_ns_per_item: 50.0,
        cpu_cores: 2.0,
        ..Default::default()
    });
    let small = Array::<i32>::zeros(&[100]).unwrap();
    let big = Array::<i32>::zeros(&[200_000]).unwrap();
    let run = |a: &Array<i32>| {
        rt.launch(&ADD_SCALAR)
            .dims(&[a.numel()])
            .arg(a, Access::ReadWrite)
            .scalar(1)
            .run()
            .unwrap()
            .device()
    };
    assert_eq!(run(&small), DeviceKind::Cpu);
    assert_eq!(run(&big), DeviceKind::Gpu);
    // Medium work whose data lives only on the GPU stays there.
    let mid = Array::<i32>::zeros(&[600]).unwrap();
    assert_eq!(run(&mid), DeviceKind::Cpu);
    rt.launch(&ADD_SCALAR)
        .dims(&[600])
        .arg(&mid, Access::ReadWrite)
        .scalar(1)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert_eq!(run(&mid), DeviceKind::Gpu);
    assert_eq!(mid.get(&[0]).unwrap(), 3);
    // The runtime-wide mode applies when a launch does not force one.
    rt.set_mode(SchedMode::Cpu);
    assert_eq!(run(&big), DeviceKind::Cpu);
    rt.set_mode(SchedMode::Gpu);
    assert_eq!(run(&small), DeviceKind::Gpu);
    assert_eq!(big.get(&[7]).unwrap(), 2);
}

#[test]
fn forcing_the_gpu_without_one_is_an_error_not_a_crash() {
    let rt = Runtime::cpu_only();
    let y = Array::<i32>::zeros(&[10]).unwrap();
    let e = rt
        .launch(&ADD_SCALAR)
        .dims(&[10])
        .arg(&y, Access::ReadWrite)
        .scalar(1)
        .on(SchedMode::Gpu)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::NoGpu { .. }), "{e}");
    let r = rt.launch(&ADD_SCALAR).dims(&[10]).arg(&y, Access::ReadWrite).scalar(1).run().unwrap();
    assert_eq!(r.device(), DeviceKind::Cpu);
    assert!(!rt.no_gpu_reason().is_empty());
}

/// A simulated GPU whose kernel launches fail with `fail` as the operation (as a broken driver
/// or a bad PTX module would), or whose grid is tiny.
struct Broken(SimBackend, Option<&'static str>, [usize; 3]);

fn broken(fail: Option<&'static str>, grid: [usize; 3]) -> Runtime {
    Runtime::with_gpu(Arc::new(Broken(SimBackend::new(SimConfig::default()), fail, grid)))
}

impl GpuBackend for Broken {
    fn max_grid(&self) -> [usize; 3] {
        self.2
    }
    fn name(&self) -> String {
        "broken GPU".into()
    }
    fn needs_ptx(&self) -> bool {
        false
    }
    fn total_memory(&self) -> usize {
        self.0.total_memory()
    }
    fn alloc(&self, bytes: usize) -> Result<DevPtr> {
        self.0.alloc(bytes)
    }
    unsafe fn free(&self, ptr: DevPtr) {
        self.0.free(ptr)
    }
    unsafe fn upload(
        &self,
        dst: DevPtr,
        src: *const u8,
        bytes: usize,
        after: &[Fence],
    ) -> Result<Fence> {
        self.0.upload(dst, src, bytes, after)
    }
    unsafe fn download(
        &self,
        dst: *mut u8,
        src: DevPtr,
        bytes: usize,
        after: &[Fence],
    ) -> Result<Fence> {
        self.0.download(dst, src, bytes, after)
    }
    fn zero(&self, dst: DevPtr, bytes: usize, after: &[Fence]) -> Result<Fence> {
        self.0.zero(dst, bytes, after)
    }
    unsafe fn launch(&self, l: &DeviceLaunch<'_>, after: &[Fence]) -> Result<Fence> {
        match self.1 {
            Some(op) => Err(Error::Cuda {
                operation: format!("{op} `{}`", l.kernel.name),
                message: "CUDA_ERROR_LAUNCH_FAILED".into(),
            }),
            None => self.0.launch(l, after),
        }
    }
    fn synchronize(&self) -> Result<()> {
        self.0.synchronize()
    }
}

#[test]
fn a_failing_gpu_falls_back_to_the_cpu_in_automatic_mode() {
    let rt = broken(Some("launch of kernel"), [1 << 20; 3]);
    let y = Array::<i32>::zeros(&[10]).unwrap();
    // Forced: the error names the kernel.
    let e = rt
        .launch(&ADD_SCALAR)
        .dims(&[10])
        .arg(&y, Access::ReadWrite)
        .scalar(1)
        .on(SchedMode::Gpu)
        .run()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "CUDA error during launch of kernel `add_scalar`: CUDA_ERROR_LAUNCH_FAILED"
    );
    assert_eq!(y.get(&[0]).unwrap(), 0, "a failed launch changes nothing");
    // Automatic (with the GPU preferred): runs on the CPU, and the GPU is not used again.
    rt.set_scheduler_config(SchedulerConfig { cpu_ns_per_item: 1e9, ..Default::default() });
    let r = rt.launch(&ADD_SCALAR).dims(&[10]).arg(&y, Access::ReadWrite).scalar(1).run().unwrap();
    assert_eq!(r.device(), DeviceKind::Cpu);
    assert_eq!(y.to_vec().unwrap(), vec![1; 10]);
    assert!(rt.gpu().is_none());
    assert!(rt.no_gpu_reason().contains("CUDA_ERROR_LAUNCH_FAILED"), "{}", rt.no_gpu_reason());
    let e = rt
        .launch(&ADD_SCALAR)
        .dims(&[10])
        .arg(&y, Access::ReadWrite)
        .scalar(1)
        .on(SchedMode::Gpu)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::NoGpu { .. }), "{e}");
}

#[test]
fn the_profile_counts_launches_time_and_bytes_per_device() {
    let (rt, _) = sim_runtime(jittery(2));
    let y = Array::<i32>::zeros(&[50_000]).unwrap();
    for _ in 0..3 {
        rt.launch(&ADD_SCALAR)
            .dims(&[50_000])
            .arg(&y, Access::ReadWrite)
            .scalar(1)
            .on(SchedMode::Cpu)
            .run()
            .unwrap();
    }
    for _ in 0..2 {
        rt.launch(&ADD_SCALAR)
            .dims(&[50_000])
            .arg(&y, Access::ReadWrite)
            .scalar(1)
            .on(SchedMode::Gpu)
            .run()
            .unwrap();
    }
    assert_eq!(y.get(&[0]).unwrap(), 5);
    let p = rt.profile();
    let cpu = p.row("add_scalar", "CPU").unwrap();
    let gpu = p.row("add_scalar", "simulated").unwrap();
    assert_eq!((cpu.launches, gpu.launches), (3, 2));
    assert!(cpu.time > Duration::ZERO && gpu.time > Duration::ZERO);
    assert_eq!(gpu.bytes_to_device, 200_000);
    assert_eq!(p.row(HOST_READ, "simulated").unwrap().bytes_to_host, 200_000);
    let table = p.to_string();
    println!("{table}");
    assert!(table.lines().next().unwrap().starts_with("kernel"));
    assert!(
        table.contains("add_scalar")
            && table.contains("simulated GPU")
            && table.contains("195.3 KiB")
    );
    rt.profiler().reset();
    assert!(rt.profile().rows.is_empty());
}

#[test]
fn arrays_move_between_gpus() {
    let (rt1, _) = sim_runtime(jittery(8));
    let (rt2, _) = sim_runtime(jittery(9));
    let y = Array::<i32>::zeros(&[1000]).unwrap();
    for k in 0..4 {
        let rt = if k % 2 == 0 { &rt1 } else { &rt2 };
        rt.launch(&ADD_SCALAR)
            .dims(&[1000])
            .arg(&y, Access::ReadWrite)
            .scalar(1)
            .on(SchedMode::Gpu)
            .run()
            .unwrap();
    }
    assert_eq!(y.to_vec().unwrap(), vec![4; 1000]);
    assert_eq!(rt1.gpu().unwrap().pool_stats().used, 0);
}

#[test]
fn nocopy_outputs_are_not_downloaded_for_a_cpu_kernel_either() {
    let (rt, _) = sim_runtime(jittery(30));
    let n = 4096usize;
    let x = Array::<i32>::from_elem(&[n], 3).unwrap();
    let y = Array::<i32>::zeros(&[n]).unwrap();
    // y becomes valid on the GPU only.
    rt.launch(&ADD_SCALAR)
        .dims(&[n])
        .arg(&y, Access::ReadWrite)
        .scalar(1)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert!(!y.residency().host_valid);
    // y = x on the CPU, y 'nocopy: its stale GPU data is not brought back.
    rt.launch(&COPY)
        .dims(&[n])
        .arg(&x, Access::Read)
        .arg(&y, Access::Write)
        .on(SchedMode::Cpu)
        .run()
        .unwrap();
    assert_eq!(rt.profile().total_bytes_to_host(), 0);
    let r = y.residency();
    assert!(r.host_valid && !r.device_valid, "{r:?}");
    assert_eq!(y.to_vec().unwrap(), vec![3; n]);
}

#[test]
fn empty_launches_touch_nothing() {
    let (rt, _) = sim_runtime(jittery(31));
    let y = Array::<i32>::zeros(&[8]).unwrap();
    rt.launch(&ADD_SCALAR)
        .dims(&[8])
        .arg(&y, Access::ReadWrite)
        .scalar(1)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    let before = y.residency();
    let r = rt
        .launch(&ADD_SCALAR)
        .dims(&[0])
        .arg(&y, Access::ReadWrite)
        .scalar(1)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert!(r.output::<i32>(0).is_err());
    assert_eq!(y.residency().host_valid, before.host_valid);
    assert_eq!(y.to_vec().unwrap(), vec![1; 8]);
}

#[test]
fn arrays_and_runtimes_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Array<f32>>();
    check::<Array<quasar_runtime::Complex<f64>>>();
    check::<Runtime>();
    check::<quasar_runtime::GpuDevice>();
}

#[test]
fn a_kernel_whose_ptx_does_not_load_runs_on_the_cpu_without_disabling_the_gpu() {
    let rt = broken(Some("loading the PTX module of kernel"), [1 << 20; 3]);
    rt.set_scheduler_config(SchedulerConfig { cpu_ns_per_item: 1e9, ..Default::default() });
    let y = Array::<i32>::zeros(&[10]).unwrap();
    let r = rt.launch(&ADD_SCALAR).dims(&[10]).arg(&y, Access::ReadWrite).scalar(1).run().unwrap();
    assert_eq!(r.device(), DeviceKind::Cpu);
    assert_eq!(y.to_vec().unwrap(), vec![1; 10]);
    assert!(rt.gpu().is_some());
}

#[test]
fn launches_beyond_the_gpu_grid_limits_run_on_the_cpu_in_automatic_mode() {
    let rt = broken(None, [4, 4, 4]);
    rt.set_scheduler_config(SchedulerConfig { cpu_ns_per_item: 1e9, ..Default::default() });
    let y = Array::<i32>::zeros(&[100_000]).unwrap();
    let e = rt
        .launch(&ADD_SCALAR)
        .dims(&[100_000])
        .arg(&y, Access::ReadWrite)
        .scalar(1)
        .on(SchedMode::Gpu)
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "invalid launch of kernel `add_scalar`: launch dimension 0 is 100000 with blocks of 256: \
         391 blocks along CUDA axis x, the device allows 4 (use larger blocks for this dimension)"
    );
    let r =
        rt.launch(&ADD_SCALAR).dims(&[100_000]).arg(&y, Access::ReadWrite).scalar(1).run().unwrap();
    assert_eq!(r.device(), DeviceKind::Cpu);
    // Small enough for the grid: the GPU.
    let z = Array::<i32>::zeros(&[1000]).unwrap();
    let r =
        rt.launch(&ADD_SCALAR).dims(&[1000]).arg(&z, Access::ReadWrite).scalar(1).run().unwrap();
    assert_eq!(r.device(), DeviceKind::Gpu);
    assert_eq!((y.get(&[5]).unwrap(), z.get(&[5]).unwrap()), (1, 1));
}
