//! Kernels as `quasar!` declares them (a [`PtxEntry`], or no PTX and the reason) on the
//! simulated GPU set up like CUDA (`needs_ptx`: kernels without PTX cannot run there, and
//! every launch packs its parameters by the PTX ABI).

mod common;

use common::sim_runtime;
use quasar_runtime::device::sim::SimConfig;
use quasar_runtime::ptx::{PtxArg, PtxEntry};
use quasar_runtime::{
    Access, Array, BlockCtx, DeviceKind, Error, Kernel, KernelArgs, Result, Runtime, SchedMode,
};

/// y[i] = x[i] + a, with a `'checked` read of x at i + s.
fn shift_add_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<f32>(0)?;
    let y = args.view::<f32>(1)?;
    let (a, s): (f32, i32) = (args.scalar(2)?, args.scalar(3)?);
    for i in ctx.range(0) {
        // SAFETY: `i` < numel(y); the read is checked; blocks are disjoint.
        unsafe { y.set_unchecked(i, x.get_checked(i as i64 + s as i64)? + a) };
    }
    Ok(())
}

static ENTRY: PtxEntry = PtxEntry {
    module: "// the simulated device never reads the text",
    entry: "shift_add_1",
    launch_rank: 1,
    args: &[
        PtxArg::Array { rank: 1 },
        PtxArg::Array { rank: 1 },
        PtxArg::Value { bytes: 4 },
        PtxArg::Value { bytes: 4 },
    ],
    outputs: 0,
    sites: &[],
    checked: true,
};
/// The same kernel declared with a two-dimensional launch: no launch fits its entry.
static WRONG: PtxEntry = PtxEntry { launch_rank: 2, ..ENTRY };

static COMPILED: Kernel = Kernel::new("shift_add", shift_add_cpu).with_ptx_entry(&ENTRY);
static MISMATCHED: Kernel = Kernel::new("shift_add", shift_add_cpu).with_ptx_entry(&WRONG);
static SKIPPED: Kernel =
    Kernel::new("shift_add", shift_add_cpu).without_ptx("`atan2` is not supported yet");

fn like_cuda() -> Runtime {
    sim_runtime(SimConfig { needs_ptx: true, ..SimConfig::default() }).0
}

fn run(
    rt: &Runtime,
    k: &'static Kernel,
    s: i32,
    mode: SchedMode,
) -> Result<(DeviceKind, Vec<f32>)> {
    let n = 100;
    let x = Array::<f32>::from_fn(&[n], |i| i as f32)?;
    let y = Array::<f32>::zeros(&[n])?;
    let r = rt
        .launch(k)
        .dims(&[n])
        .arg(&x, Access::Read)
        .arg(&y, Access::ReadWrite)
        .scalar(0.5f32)
        .scalar(s)
        .on(mode)
        .run()?;
    Ok((r.device(), y.to_vec()?))
}

#[test]
fn compiled_kernels_run_on_the_gpu_with_their_abi() {
    let rt = like_cuda();
    let (dev, y) = run(&rt, &COMPILED, 0, SchedMode::Gpu).unwrap();
    assert_eq!(dev, DeviceKind::Gpu);
    assert_eq!(y[99], 99.5);
}

#[test]
fn kernels_without_ptx_run_on_the_cpu_or_say_why_not() {
    let rt = like_cuda();
    rt.set_scheduler_config(quasar_runtime::SchedulerConfig {
        gpu_launch_ns: 0.0,
        ..Default::default()
    });
    let (dev, y) = run(&rt, &SKIPPED, 0, SchedMode::Auto).unwrap();
    assert_eq!((dev, y[1]), (DeviceKind::Cpu, 1.5));
    let e = run(&rt, &SKIPPED, 0, SchedMode::Gpu).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
    assert!(e.to_string().contains("`atan2` is not supported yet"), "{e}");
    assert!(rt.gpu().is_some(), "the GPU stays available");
}

#[test]
fn launches_that_do_not_fit_the_entry_fall_back_or_fail() {
    let rt = like_cuda();
    let e = run(&rt, &MISMATCHED, 0, SchedMode::Gpu).unwrap_err();
    assert!(matches!(e, Error::InvalidLaunch { .. }), "{e}");
    assert!(e.to_string().contains("expects 2 launch dimensions"), "{e}");
    rt.set_scheduler_config(quasar_runtime::SchedulerConfig {
        gpu_launch_ns: 0.0,
        cpu_launch_ns: 1e9,
        ..Default::default()
    });
    let (dev, y) = run(&rt, &MISMATCHED, 0, SchedMode::Auto).unwrap();
    assert_eq!((dev, y[2]), (DeviceKind::Cpu, 2.5));
}

#[test]
fn checked_errors_of_gpu_kernels_are_returned_by_the_launch() {
    let rt = like_cuda();
    let e = run(&rt, &COMPILED, 1, SchedMode::Gpu).unwrap_err();
    assert!(e.to_string().contains("index [100] is out of range"), "{e}");
    assert!(rt.gpu().is_some(), "a kernel's error does not disable the GPU");
    let (dev, _) = run(&rt, &COMPILED, 0, SchedMode::Gpu).unwrap();
    assert_eq!(dev, DeviceKind::Gpu);
}
