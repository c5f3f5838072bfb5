//! Asynchrony and several devices (manual §11, §16.1, §16.5), on simulated GPUs: kernels on
//! independent arrays overlap on streams while dependent ones wait; the command queue is
//! bounded; independent launches spread over two GPUs with results equal to one device, data
//! stays where it lives, `gpu_index` and `{!sched}` choose the device, and the profile shows
//! every device used.

mod common;

use common::{ADD_SCALAR, AXPY, SLOW_FILL};
use quasar_runtime::device::sim::{SimBackend, SimConfig};
use quasar_runtime::profiler::trace::Category;
use quasar_runtime::{
    sched, sched_auto, Access, Array, DeviceKind, MemoryConfig, Runtime, SchedMode, SchedScope,
    Target, TransferReason,
};
use std::sync::Arc;

const N: usize = 4096;

/// A runtime with `n` simulated GPUs (two streams each, no reserved memory).
fn gpus(n: usize) -> (Runtime, Vec<Arc<SimBackend>>) {
    let sims: Vec<Arc<SimBackend>> = (0..n)
        .map(|k| {
            Arc::new(SimBackend::new(SimConfig {
                name: "sim".into(),
                jitter_seed: Some(40 + k as u64),
                max_jitter_us: 50,
                ..SimConfig::default()
            }))
        })
        .collect();
    let rt = Runtime::with_gpus(sims.iter().map(|s| s.clone() as _).collect());
    rt.set_memory_config(MemoryConfig { reserved_bytes: 0, ..MemoryConfig::default() });
    (rt, sims)
}

fn slow_fill(rt: &Runtime, a: &Array<i32>, v: i32, ms: u32) -> quasar_runtime::LaunchResult {
    rt.launch(&SLOW_FILL)
        .dims(&[N])
        .arg(a, Access::Write)
        .scalar(v)
        .scalar(ms)
        .on(SchedMode::Gpu)
        .run()
        .unwrap()
}

/// y = k * x + y for each pair, then y += 1: the same program on any runtime.
fn program(rt: &Runtime) -> (Vec<Vec<i32>>, Vec<Option<usize>>) {
    let xs: Vec<Array<i32>> =
        (0..6).map(|k| Array::from_fn(&[N], |i| (i as i32) * (k + 1)).unwrap()).collect();
    let ys: Vec<Array<i32>> = (0..6).map(|k| Array::from_elem(&[N], k).unwrap()).collect();
    let mut placed = Vec::new();
    for (k, (x, y)) in xs.iter().zip(&ys).enumerate() {
        let r = rt
            .launch(&AXPY)
            .dims(&[N])
            .arg(x, Access::Read)
            .arg(y, Access::ReadWrite)
            .scalar(k as i32 + 2)
            .on(SchedMode::Gpu)
            .run()
            .unwrap();
        placed.push(r.gpu_index());
        let r = rt
            .launch(&ADD_SCALAR)
            .dims(&[N])
            .arg(y, Access::ReadWrite)
            .scalar(1)
            .on(SchedMode::Gpu)
            .run()
            .unwrap();
        // The second kernel follows its data.
        assert_eq!(r.gpu_index(), *placed.last().unwrap());
    }
    (ys.iter().map(|y| y.to_vec().unwrap()).collect(), placed)
}

#[test]
fn independent_launches_spread_over_two_gpus_with_the_results_of_one() {
    let (one, _) = gpus(1);
    let (want, placed_one) = program(&one);
    assert!(placed_one.iter().all(|p| *p == Some(0)));
    let (two, sims) = gpus(2);
    let (got, placed) = program(&two);
    assert_eq!(got, want);
    for (k, sim) in sims.iter().enumerate() {
        assert!(placed.contains(&Some(k)), "GPU {k} unused: {placed:?}");
        assert!(sim.violations().is_empty(), "{:?}", sim.violations());
    }
    // The profile shows both GPUs, each running both kernels.
    let p = two.profile();
    assert_eq!(p.devices_used(), vec!["sim #0".to_string(), "sim #1".to_string()]);
    assert_eq!(p.rows_of("axpy").map(|r| r.launches).sum::<u64>(), 6);
    assert!(p.rows_of("add_scalar").all(|r| r.launches >= 1));
    // Independent launches never moved data between the GPUs.
    assert!(p.arrays.iter().all(|a| a.bytes_for(TransferReason::Migration) == 0));
}

#[test]
fn gpu_index_chooses_the_gpu_and_data_follows_it() {
    let (rt, sims) = gpus(2);
    let a = Array::<i32>::zeros(&[N]).unwrap();
    let r = rt.launch(&ADD_SCALAR).dims(&[N]).arg(&a, Access::ReadWrite).scalar(5).on_gpu(1).run();
    assert_eq!(r.unwrap().gpu_index(), Some(1));
    // Automatic GPU choice: A lives on GPU 1, so the next launch goes there.
    let r = rt.launch(&ADD_SCALAR).dims(&[N]).arg(&a, Access::ReadWrite).scalar(5);
    assert_eq!(r.on(SchedMode::Gpu).run().unwrap().gpu_index(), Some(1));
    // Forcing GPU 0 moves it (through the host).
    let r = rt.launch(&ADD_SCALAR).dims(&[N]).arg(&a, Access::ReadWrite).scalar(5).on_gpu(0);
    assert_eq!(r.run().unwrap().gpu_index(), Some(0));
    assert_eq!(a.to_vec().unwrap(), vec![15; N]);
    let p = rt.profile();
    let rows: Vec<_> = p.array(a.id()).collect();
    let moved: u64 = rows.iter().map(|r| r.bytes_for(TransferReason::Migration)).sum();
    assert_eq!(moved, 2 * (N as u64) * 4, "{rows:?}"); // down from GPU 1, up to GPU 0
                                                       // Indices wrap: code written for several GPUs runs on one.
    let (single, _) = gpus(1);
    let r = single.launch(&ADD_SCALAR).dims(&[N]).arg(&a, Access::ReadWrite).scalar(1).on_gpu(3);
    assert_eq!(r.run().unwrap().gpu_index(), Some(0));
    for s in &sims {
        assert!(s.violations().is_empty(), "{:?}", s.violations());
    }
}

#[test]
fn sched_attributes_choose_the_device_of_the_launches_that_follow() {
    let (rt, _) = gpus(2);
    let a = Array::<i32>::zeros(&[N]).unwrap();
    let run = |rt: &Runtime| {
        let r = rt.launch(&ADD_SCALAR).dims(&[N]).arg(&a, Access::ReadWrite).scalar(1).run();
        let r = r.unwrap();
        (r.device(), r.gpu_index())
    };
    {
        let _scope = SchedScope::enter();
        sched(Some(SchedMode::Gpu), Some(1)); // {!sched mode=gpu; gpu_index=1}
        assert_eq!(run(&rt), (DeviceKind::Gpu, Some(1)));
        sched(None, Some(0)); // {!sched gpu_index=0}: keeps the mode
        assert_eq!(run(&rt), (DeviceKind::Gpu, Some(0)));
        sched(Some(SchedMode::Cpu), None); // {!sched mode=cpu}
        assert_eq!(run(&rt), (DeviceKind::Cpu, None));
        sched_auto(); // {!sched}: small work goes back to the CPU
        assert_eq!(run(&rt), (DeviceKind::Cpu, None));
        sched(Some(SchedMode::Gpu), None);
    }
    // The scope restored automatic scheduling.
    assert_eq!(run(&rt), (DeviceKind::Cpu, None));
    assert_eq!(a.to_vec().unwrap(), vec![5; N]);
}

#[test]
fn transfer_requests_move_arrays_where_asked() {
    let (rt, _) = gpus(2);
    let a = Array::<i32>::from_elem(&[N], 3).unwrap();
    rt.transfer(&a, Target::Gpu(Some(1))).unwrap(); // {!transfer vars=a; target=gpu; gpu_index=1}
    let res = a.residency();
    assert!(res.device_valid && res.host_valid, "{res:?}");
    assert_eq!(res.device.as_deref(), Some("sim #1"));
    slow_fill(&rt, &a, 9, 0); // goes to GPU 1, where a lives
    assert!(!a.residency().host_valid);
    rt.transfer(&a, Target::Cpu).unwrap(); // {!transfer vars=a; target=cpu}
    assert!(a.residency().host_valid);
    let p = rt.profile();
    let row = p.array(a.id()).find(|r| r.device == "sim #1").unwrap();
    assert_eq!(row.bytes_for(TransferReason::Requested), 2 * (N as u64) * 4, "{row:?}");
    assert_eq!(a.to_vec().unwrap(), vec![9; N]);
    // Without a GPU a transfer to one is a no-op.
    Runtime::cpu_only().transfer(&a, Target::Gpu(None)).unwrap();
}

#[test]
fn independent_kernels_overlap_on_streams_and_dependent_ones_wait() {
    let (rt, _) = gpus(1);
    let (a, b) = (Array::<i32>::zeros(&[N]).unwrap(), Array::<i32>::zeros(&[N]).unwrap());
    slow_fill(&rt, &a, 1, 80);
    slow_fill(&rt, &b, 2, 40);
    // Depends on the fill of a only.
    rt.launch(&ADD_SCALAR)
        .dims(&[N])
        .arg(&a, Access::ReadWrite)
        .scalar(10)
        .on(SchedMode::Gpu)
        .run()
        .unwrap();
    assert_eq!(a.to_vec().unwrap(), vec![11; N]);
    assert_eq!(b.to_vec().unwrap(), vec![2; N]);
    let t = rt.trace();
    let kernels: Vec<_> = t.events.iter().filter(|e| e.category == Category::Kernel).collect();
    let mut fills: Vec<_> = kernels.iter().filter(|e| e.name == "slow_fill").collect();
    fills.sort_by_key(|e| std::cmp::Reverse(e.duration)); // a's fill is the longer one
    let (fa, fb) = (*fills[0], *fills[1]);
    let add = *kernels.iter().find(|e| e.name == "add_scalar").unwrap();
    let end = |e: &quasar_runtime::TraceEvent| e.start + e.duration;
    // The two fills ran at the same time, on different streams.
    assert_ne!(fa.lane, fb.lane);
    assert!(fa.start < end(fb) && fb.start < end(fa), "{fa:?} {fb:?}");
    // The add waited for the fill of a.
    assert!(add.start >= end(fa), "{fa:?} {add:?}");
}

#[test]
fn the_command_queue_is_bounded() {
    let (rt, sims) = gpus(1);
    let gpu = rt.gpu().unwrap().clone();
    gpu.set_max_queue(3);
    let arrays: Vec<Array<i32>> = (0..10).map(|_| Array::zeros(&[N]).unwrap()).collect();
    for (k, a) in arrays.iter().enumerate() {
        slow_fill(&rt, a, k as i32, 5);
        assert!(gpu.queue_len() <= 3);
    }
    assert_eq!(gpu.queue_peak(), (3, 3));
    for (k, a) in arrays.iter().enumerate() {
        assert_eq!(a.to_vec().unwrap(), vec![k as i32; N]);
    }
    assert!(sims[0].violations().is_empty(), "{:?}", sims[0].violations());
}

#[test]
fn schedule_picks_the_implementation_the_scheduler_would_run() {
    let (rt, _) = gpus(2);
    let small = Array::<i32>::zeros(&[16]).unwrap();
    let _scope = SchedScope::enter();
    // Automatic: a tiny problem stays on the CPU (implementation 1), a huge one with its data
    // on a GPU goes there (implementation 0).
    assert_eq!(rt.schedule(16).array(&small).choose(2), 1);
    let big = Array::<i32>::zeros(&[N]).unwrap();
    slow_fill(&rt, &big, 1, 0);
    assert_eq!(rt.schedule(1 << 30).array(&big).choose(2), 0);
    // The {!sched} mode decides when set; one candidate is always 0.
    sched(Some(SchedMode::Gpu), None);
    assert_eq!(rt.schedule(16).array(&small).choose(2), 0);
    sched(Some(SchedMode::Cpu), None);
    assert_eq!(rt.schedule(1 << 30).array(&big).choose(2), 1);
    assert_eq!(rt.schedule(1 << 30).choose(1), 0);
    // Without a GPU the CPU implementation runs, even in GPU mode.
    sched(Some(SchedMode::Gpu), None);
    assert_eq!(Runtime::cpu_only().schedule(1 << 30).choose(2), 1);
}
