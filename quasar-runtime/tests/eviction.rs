//! Eviction under device-memory pressure: idle buffers move to the host (least recently used
//! first) and no data is lost; buffers in use by an in-flight kernel are never evicted or
//! freed; an array that cannot fit fails cleanly (or runs on the CPU in automatic mode).

mod common;

use common::{jittery, sim_runtime, ADD_SCALAR, SLOW_FILL};
use quasar_runtime::device::sim::SimConfig;
use quasar_runtime::{
    size_class, Access, Array, DeviceKind, Error, GpuPolicy, MemoryConfig, SchedMode,
};
use std::time::Duration;

const N: usize = 16 * 1024; // 64 KiB of i32

fn fill_on_gpu(rt: &quasar_runtime::Runtime, a: &Array<i32>, v: i32) {
    let r = rt
        .launch(&SLOW_FILL)
        .dims(&[N])
        .arg(a, Access::Write)
        .scalar(v)
        .scalar(0u32)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert_eq!(r.device(), DeviceKind::Gpu);
}

#[test]
fn a_small_pool_limit_forces_eviction_and_loses_no_data() {
    let (rt, sim) = sim_runtime(jittery(3));
    let gpu = rt.gpu().unwrap().clone();
    let block = size_class(N * 4);
    gpu.set_memory_limit(Some(4 * block));
    let arrays: Vec<Array<i32>> = (0..16).map(|_| Array::zeros(&[N]).unwrap()).collect();
    for (k, a) in arrays.iter().enumerate() {
        fill_on_gpu(&rt, a, k as i32);
        // Only the GPU copy is valid now (the host copy is stale until read).
        assert!(!a.residency().host_valid || a.residency().device.is_none());
        let s = gpu.pool_stats();
        assert!(s.used + s.cached <= 4 * block, "{s:?}");
    }
    // Touch a few more times so that the LRU order matters.
    for a in arrays.iter().rev().take(3) {
        rt.launch(&ADD_SCALAR)
            .dims(&[N])
            .arg(a, Access::ReadWrite)
            .scalar(1000)
            .on(SchedMode::Gpu)
            .run()
            .unwrap();
    }
    let s = gpu.pool_stats();
    assert!(s.evictions >= 12, "{s:?}");
    assert_eq!(s.evicted_bytes, s.evictions * (N as u64 * 4));
    for (k, a) in arrays.iter().enumerate() {
        let expect = if k >= 13 { k as i32 + 1000 } else { k as i32 };
        assert!(a.to_vec().unwrap().iter().all(|&x| x == expect), "array {k}");
    }
    // Evictions show up in the profile as transfers to the host.
    let p = rt.profile();
    let ev = p.row(quasar_runtime::profiler::EVICTION, "simulated").unwrap();
    assert_eq!(ev.bytes_to_host, s.evicted_bytes);
    drop(arrays);
    rt.synchronize().unwrap();
    assert!(sim.violations().is_empty(), "{:?}", sim.violations());
}

#[test]
fn device_out_of_memory_triggers_eviction_and_loses_no_data() {
    let block = size_class(N * 4);
    let (rt, sim) = sim_runtime(SimConfig { memory_bytes: 3 * block, ..jittery(4) });
    let arrays: Vec<Array<i32>> = (0..10).map(|_| Array::zeros(&[N]).unwrap()).collect();
    for (k, a) in arrays.iter().enumerate() {
        fill_on_gpu(&rt, a, 7 * k as i32);
    }
    assert!(rt.gpu().unwrap().pool_stats().evictions >= 7);
    assert!(sim.stats().allocated <= 3 * block);
    for (k, a) in arrays.iter().enumerate() {
        assert!(a.to_vec().unwrap().iter().all(|&x| x == 7 * k as i32), "array {k}");
    }
    drop(arrays);
    rt.synchronize().unwrap();
    assert!(sim.violations().is_empty(), "{:?}", sim.violations());
}

#[test]
fn in_flight_buffers_are_never_evicted_or_freed() {
    let block = size_class(N * 4);
    let (rt, sim) =
        sim_runtime(SimConfig { memory_bytes: 2 * block, streams: 2, ..SimConfig::default() });
    let a = Array::<i32>::zeros(&[N]).unwrap();
    let b = Array::<i32>::zeros(&[N]).unwrap();
    let c = Array::<i32>::zeros(&[N]).unwrap();
    // A stays in flight for a while.
    rt.launch(&SLOW_FILL)
        .dims(&[N])
        .arg(&a, Access::Write)
        .scalar(1)
        .scalar(300u32)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    fill_on_gpu(&rt, &b, 2);
    b.sync().unwrap();
    assert!(a.residency().in_flight);
    // C needs room: B is idle and goes to the host; A must stay.
    fill_on_gpu(&rt, &c, 3);
    let s = rt.gpu().unwrap().pool_stats();
    assert_eq!(s.evictions, 1, "{s:?}");
    assert!(b.residency().device.is_none() && b.residency().host_valid);
    assert!(a.residency().device.is_some());
    assert_eq!(a.to_vec().unwrap(), vec![1; N]);
    assert_eq!(b.to_vec().unwrap(), vec![2; N]);
    assert_eq!(c.to_vec().unwrap(), vec![3; N]);
    assert!(sim.violations().is_empty(), "{:?}", sim.violations());
}

#[test]
fn when_every_buffer_is_busy_the_allocator_waits_for_the_device() {
    let block = size_class(N * 4);
    let (rt, sim) =
        sim_runtime(SimConfig { memory_bytes: 2 * block, streams: 2, ..SimConfig::default() });
    let a = Array::<i32>::zeros(&[N]).unwrap();
    let b = Array::<i32>::zeros(&[N]).unwrap();
    let c = Array::<i32>::zeros(&[N]).unwrap();
    for (x, v) in [(&a, 1), (&b, 2)] {
        rt.launch(&SLOW_FILL)
            .dims(&[N])
            .arg(x, Access::Write)
            .scalar(v)
            .scalar(100u32)
            .on(SchedMode::Gpu)
            .run()
            .unwrap();
    }
    // Both blocks are in flight: the allocation for C waits, then evicts one.
    fill_on_gpu(&rt, &c, 3);
    assert_eq!((a.to_vec().unwrap()[0], b.to_vec().unwrap()[0], c.to_vec().unwrap()[0]), (1, 2, 3));
    assert!(sim.violations().is_empty(), "{:?}", sim.violations());
}

#[test]
fn dropping_arrays_with_kernels_in_flight_is_safe() {
    let (rt, sim) = sim_runtime(jittery(5));
    for k in 0..8 {
        let t = Array::<i32>::zeros(&[N]).unwrap();
        rt.launch(&SLOW_FILL)
            .dims(&[N])
            .arg(&t, Access::Write)
            .scalar(k)
            .scalar(20u32)
            .on(SchedMode::Gpu)
            .run()
            .unwrap();
        drop(t); // in flight: its memory waits in the graveyard
    }
    rt.synchronize().unwrap();
    let s = rt.gpu().unwrap().pool_stats();
    assert_eq!(s.used, 0, "{s:?}");
    assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    std::thread::sleep(Duration::from_millis(1));
}

#[test]
fn an_array_larger_than_the_device_fails_cleanly_or_runs_on_the_cpu() {
    let (rt, _sim) = sim_runtime(SimConfig { memory_bytes: 1 << 16, ..SimConfig::default() });
    let big = Array::<i32>::zeros(&[1 << 16]).unwrap(); // 256 KiB
    let forced = || {
        rt.launch(&ADD_SCALAR)
            .dims(&[1 << 16])
            .arg(&big, Access::ReadWrite)
            .scalar(1)
            .on(SchedMode::Gpu)
            .run()
    };
    // "Maximize performance": a clear error naming the array and the device's state.
    rt.set_memory_config(MemoryConfig {
        policy: GpuPolicy::MaximizePerformance,
        reserved_bytes: 0,
        ..MemoryConfig::default()
    });
    let e = forced().unwrap_err();
    match &e {
        Error::OutOfMemory { bytes, array, report, .. } => {
            assert_eq!(*bytes, 1 << 18);
            assert_eq!(array.as_deref(), Some("argument 0 of kernel `add_scalar`"));
            let r = report.as_ref().expect("device errors carry a report");
            assert_eq!((r.device_total, r.limit, r.in_use), (1 << 16, 1 << 16, 0));
        }
        e => panic!("{e}"),
    }
    assert!(e.to_string().contains("insufficient to hold request size of 262,144 bytes"), "{e}");
    // "Maximize stability" (the default): the launch runs on the CPU, even when the GPU was
    // asked for.
    rt.set_memory_config(MemoryConfig { reserved_bytes: 0, ..MemoryConfig::default() });
    assert_eq!(forced().unwrap().device(), DeviceKind::Cpu);
    assert!(big.to_vec().unwrap().iter().all(|&x| x == 1));
    // Automatic mode: the scheduler may pick the GPU; the failure sends the launch to the CPU.
    rt.set_scheduler_config(quasar_runtime::SchedulerConfig {
        cpu_ns_per_item: 1000.0,
        ..Default::default()
    });
    let r = rt
        .launch(&ADD_SCALAR)
        .dims(&[1 << 16])
        .arg(&big, Access::ReadWrite)
        .scalar(1)
        .run()
        .unwrap();
    assert_eq!(r.device(), DeviceKind::Cpu);
    assert!(big.to_vec().unwrap().iter().all(|&x| x == 2));
    // One warning for all of it; out of memory does not disable the GPU.
    assert_eq!(rt.warnings().len(), 1, "{:?}", rt.warnings());
    assert!(rt.gpu().is_some());
}
