//! GPU memory as the manual describes it (§9.10, §16.4), on the simulated GPU: footprint
//! models, reserved memory, "maximize stability" against "maximize performance", and the
//! out-of-memory report with chunks, free list and fragmentation.

mod common;

use common::{sim_runtime, SLOW_FILL};
use quasar_runtime::device::sim::SimConfig;
use quasar_runtime::{
    size_class, Access, Array, BlockCtx, DeviceKind, Error, GpuPolicy, Kernel, KernelArgs,
    MemoryConfig, MemoryModel, Result, Runtime, SchedMode,
};

const N: usize = 16 * 1024; // 64 KiB of i32: one size class exactly
const BLOCK: usize = N * 4;

fn fill_on_gpu(rt: &Runtime, a: &Array<i32>, v: i32) {
    let r = rt
        .launch(&SLOW_FILL)
        .dims(&[a.numel()])
        .arg(a, Access::Write)
        .scalar(v)
        .scalar(0u32)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert_eq!(r.device(), DeviceKind::Gpu);
}

fn config(model: MemoryModel, reserved: usize, policy: GpuPolicy) -> MemoryConfig {
    MemoryConfig { model, reserved_bytes: reserved, policy }
}

#[test]
fn the_small_footprint_allocates_per_array_and_gives_memory_back_at_once() {
    let (rt, sim) = sim_runtime(SimConfig::default());
    rt.set_memory_config(config(MemoryModel::SmallFootprint, 0, GpuPolicy::MaximizeStability));
    let arrays: Vec<Array<i32>> = (0..8).map(|_| Array::zeros(&[N]).unwrap()).collect();
    for (k, a) in arrays.iter().enumerate() {
        fill_on_gpu(&rt, a, k as i32);
    }
    let s = rt.gpu().unwrap().pool_stats();
    assert_eq!((s.chunks, sim.stats().allocs, s.used), (8, 8, 8 * BLOCK), "{s:?}");
    for (k, a) in arrays.iter().enumerate() {
        assert_eq!(a.to_vec().unwrap(), vec![k as i32; N]);
    }
    drop(arrays);
    rt.synchronize().unwrap();
    assert_eq!(sim.stats().allocated, 0);
    assert!(sim.violations().is_empty(), "{:?}", sim.violations());
}

#[test]
fn medium_and_large_footprints_carve_arrays_from_chunks() {
    for (model, chunk) in
        [(MemoryModel::MediumFootprint, 64 << 20), (MemoryModel::LargeFootprint, 256 << 20)]
    {
        let (rt, sim) = sim_runtime(SimConfig::default()); // 1 GiB
        rt.set_memory_config(config(model, 0, GpuPolicy::MaximizeStability));
        let arrays: Vec<Array<i32>> = (0..8).map(|_| Array::zeros(&[N]).unwrap()).collect();
        for (k, a) in arrays.iter().enumerate() {
            fill_on_gpu(&rt, a, k as i32);
        }
        let gpu = rt.gpu().unwrap();
        let s = gpu.pool_stats();
        assert_eq!((s.chunks, sim.stats().allocs, sim.stats().allocated), (1, 1, chunk), "{s:?}");
        assert_eq!((s.used, s.cached), (8 * BLOCK, chunk - 8 * BLOCK));
        for (k, a) in arrays.iter().enumerate() {
            assert_eq!(a.to_vec().unwrap(), vec![k as i32; N]);
        }
        drop(arrays);
        rt.synchronize().unwrap();
        // The empty chunk is kept for later arrays, until trimmed.
        assert_eq!(sim.stats().allocated, chunk);
        gpu.trim();
        assert_eq!(sim.stats().allocated, 0);
        assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    }
}

#[test]
fn reserved_memory_and_the_small_footprint_cap_are_left_alone() {
    // 4 MiB of device memory, 3 MiB reserved: 1 MiB for arrays (16 blocks); the small
    // footprint takes at most half of it.
    for (model, cap) in [(MemoryModel::MediumFootprint, 16), (MemoryModel::SmallFootprint, 8)] {
        let (rt, sim) = sim_runtime(SimConfig { memory_bytes: 4 << 20, ..SimConfig::default() });
        rt.set_memory_config(config(model, 3 << 20, GpuPolicy::MaximizeStability));
        let arrays: Vec<Array<i32>> = (0..40).map(|_| Array::zeros(&[N]).unwrap()).collect();
        for (k, a) in arrays.iter().enumerate() {
            fill_on_gpu(&rt, a, k as i32);
            assert!(sim.stats().allocated <= cap * BLOCK, "{model:?}: {:?}", sim.stats());
        }
        let s = rt.gpu().unwrap().pool_stats();
        assert_eq!(s.limit, cap * BLOCK);
        assert!(s.evictions >= (40 - cap) as u64, "{s:?}");
        for (k, a) in arrays.iter().enumerate() {
            assert_eq!(a.to_vec().unwrap(), vec![k as i32; N], "array {k}");
        }
        assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    }
}

/// out[i] = x[i / 2] + y[i / 2]
fn spread_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<i32>(0)?;
    let y = args.view::<i32>(1)?;
    let out = args.view::<i32>(2)?;
    for i in ctx.range(0) {
        // SAFETY: i < 2 * numel(x) == numel(out); blocks are disjoint.
        unsafe { out.set_unchecked(i, x.get_unchecked(i / 2) + y.get_unchecked(i / 2)) }
    }
    Ok(())
}
static SPREAD: Kernel = Kernel::new("spread", spread_cpu).with_params(&["x", "y", "out"]);

/// One chunk of four blocks: a, b, c, d. A launch pins b and d and needs two contiguous
/// blocks: evicting a and c leaves two holes of one block, so it cannot fit.
fn fragmented(policy: GpuPolicy) -> (Runtime, Result<DeviceKind>, [Array<i32>; 3]) {
    let (rt, sim) = sim_runtime(SimConfig::default());
    rt.set_memory_config(config(MemoryModel::MediumFootprint, 0, policy));
    let gpu = rt.gpu().unwrap().clone();
    gpu.set_memory_limit(Some(4 * size_class(BLOCK)));
    let [a, b, c, d] = [1, 2, 3, 4].map(|v| {
        let x = Array::<i32>::zeros(&[N]).unwrap();
        fill_on_gpu(&rt, &x, v);
        x
    });
    assert_eq!(gpu.pool_stats().chunks, 1);
    let out = Array::<i32>::zeros(&[2 * N]).unwrap();
    let r = rt
        .launch(&SPREAD)
        .dims(&[2 * N])
        .arg(&b, Access::Read)
        .arg(&d, Access::Read)
        .arg(&out, Access::Write)
        .on(SchedMode::Gpu)
        .run()
        .map(|r| r.device());
    // No data is lost either way.
    assert_eq!(a.to_vec().unwrap(), vec![1; N]);
    assert_eq!(c.to_vec().unwrap(), vec![3; N]);
    assert_eq!(gpu.pool_stats().evictions, 2);
    assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    (rt, r, [b, d, out])
}

#[test]
fn maximize_performance_reports_fragmentation_like_the_manual() {
    let (_rt, r, _) = fragmented(GpuPolicy::MaximizePerformance);
    let e = r.unwrap_err();
    let Error::OutOfMemory { bytes, array, report: Some(report), .. } = &e else {
        panic!("{e}");
    };
    assert_eq!(*bytes, 2 * BLOCK);
    assert_eq!(array.as_deref(), Some("`out`, argument 2 of kernel `spread`"));
    assert_eq!((report.request, report.pinned), (2 * BLOCK, 2 * BLOCK));
    assert_eq!((report.free_blocks, report.largest_free), (2, BLOCK));
    assert_eq!((report.process_total, report.in_use), (4 * BLOCK, 2 * BLOCK));
    assert_eq!(report.chunks.len(), 1);
    let c = &report.chunks[0];
    assert_eq!((c.size, c.pinned, c.free), (4 * BLOCK, 2 * BLOCK, 2 * BLOCK));
    assert!((c.fragmentation() - 0.5).abs() < 1e-12);
    let text = e.to_string();
    for line in [
        "Amount of pinned memory: 131,072 bytes",
        "Freelist size: 2 memory blocks",
        "Largest free block: 65,536 bytes, insufficient to hold request size of 131,072 bytes",
        "Chunk 0 size 262,144 bytes: Fragmentation: 50.0%, pinned: 131,072 bytes (50.0%), free: 131,072 bytes (50.0%)",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
}

#[test]
fn maximize_stability_runs_on_the_cpu_with_one_warning() {
    let (rt, r, [b, d, out]) = fragmented(GpuPolicy::MaximizeStability);
    assert_eq!(r.unwrap(), DeviceKind::Cpu);
    let want: Vec<i32> = (0..2 * N).map(|_| 2 + 4).collect();
    assert_eq!(out.to_vec().unwrap(), want);
    // Again: the CPU again, and still one warning.
    let again = rt
        .launch(&SPREAD)
        .dims(&[2 * N])
        .arg(&b, Access::Read)
        .arg(&d, Access::Read)
        .arg(&Array::<i32>::zeros(&[2 * N]).unwrap(), Access::Write)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert_eq!(again.device(), DeviceKind::Cpu);
    assert_eq!(rt.warnings().len(), 1, "{:?}", rt.warnings());
    assert!(rt.warnings()[0].contains("GPU memory is short"), "{:?}", rt.warnings());
}
