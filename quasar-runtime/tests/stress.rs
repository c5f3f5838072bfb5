//! Concurrency: many Rust threads launching kernels, reductions and atomics on shared and
//! private arrays, on the CPU, one simulated GPU and two, with data moving between devices
//! all the time, give the results of a sequential run; eviction under a small pool while
//! threads launch concurrently loses nothing and never frees memory in use.

mod common;

use common::{ADD_SCALAR, AXPY};
use quasar_runtime::device::sim::{SimBackend, SimConfig};
use quasar_runtime::{
    atomic, size_class, Access, Array, BlockCtx, Kernel, KernelArgs, Launch, MemoryConfig, Reduce,
    Result, Runtime, SchedMode,
};
use std::sync::Arc;

const N: usize = 2048;
const THREADS: usize = 8;
const ROUNDS: usize = 20;

/// The sum of x, as a kernel output (a reduction).
fn total_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<i32>(0)?;
    let out = ctx.output::<i64>(0)?;
    for i in ctx.range(0) {
        // SAFETY: in range.
        out.set(out.get() + unsafe { x.get_unchecked(i) } as i64);
    }
    Ok(())
}
static TOTAL: Kernel = Kernel::new("total", total_cpu);

/// hist[x[i] % 16] += 1, atomically.
fn hist_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<i32>(0)?;
    let h = args.view::<i32>(1)?;
    for i in ctx.range(0) {
        // SAFETY: in range; the bin index is below 16 == numel(h); bins are only accessed
        // atomically.
        unsafe {
            let bin = x.get_unchecked(i).rem_euclid(16) as usize;
            atomic::add(h.as_ptr().add(bin), 1i32);
        }
    }
    Ok(())
}
static HIST: Kernel = Kernel::new("hist", hist_cpu);

fn sims(n: usize, seed: u64) -> (Runtime, Vec<Arc<SimBackend>>) {
    let sims: Vec<Arc<SimBackend>> = (0..n)
        .map(|k| {
            Arc::new(SimBackend::new(SimConfig {
                streams: 3,
                jitter_seed: Some(seed + k as u64),
                max_jitter_us: 30,
                ..SimConfig::default()
            }))
        })
        .collect();
    let rt = Runtime::with_gpus(sims.iter().map(|s| s.clone() as _).collect());
    rt.set_memory_config(MemoryConfig { reserved_bytes: 0, ..MemoryConfig::default() });
    (rt, sims)
}

/// Where round `r` of thread `t` runs: the CPU, a GPU the scheduler picks, or a given GPU.
fn placement(t: usize, r: usize) -> (SchedMode, Option<usize>) {
    match (t + r) % 3 {
        0 => (SchedMode::Cpu, None),
        1 => (SchedMode::Gpu, None),
        _ => (SchedMode::Gpu, Some(t + r)),
    }
}

/// What each thread saw: the totals of its private array after each round.
type Seen = Vec<Vec<i64>>;

/// The program: thread t keeps a private array p_t; each round it adds k * input (shared,
/// read by all) to p_t, adds t + 1 to the shared accumulator (every thread writes it), counts
/// p_t into the shared histogram with atomics, and reduces p_t.
fn program<'a>(rt: &'a Runtime, threads: usize) -> (Seen, Vec<i32>, Vec<i32>) {
    let input = Array::<i32>::from_fn(&[N], |i| (i % 7) as i32 - 3).unwrap();
    let acc = Array::<i32>::zeros(&[N]).unwrap();
    let hist = Array::<i32>::zeros(&[16]).unwrap();
    let run_thread = |t: usize| -> Vec<i64> {
        let p = Array::<i32>::from_elem(&[N], t as i32).unwrap();
        let mut totals = Vec::new();
        for r in 0..ROUNDS {
            let (mode, gpu) =
                if rt.gpu().is_some() { placement(t, r) } else { (SchedMode::Cpu, None) };
            let on = |l: Launch<'a>| match gpu {
                Some(g) => l.on_gpu(g),
                None => l.on(mode),
            };
            let k = (r % 5) as i32 + 1;
            let l = rt.launch(&AXPY).dims(&[N]).arg(&input, Access::Read);
            on(l.arg(&p, Access::ReadWrite).scalar(k)).run().unwrap();
            let l = rt.launch(&ADD_SCALAR).dims(&[N]).arg(&acc, Access::ReadWrite);
            on(l.scalar(t as i32 + 1)).run().unwrap();
            let l = rt.launch(&HIST).dims(&[N]).arg(&p, Access::Read);
            on(l.arg(&hist, Access::ReadWrite)).run().unwrap();
            let l = rt.launch(&TOTAL).dims(&[N]).arg(&p, Access::Read);
            let res = on(l.output::<i64>(Reduce::Sum)).run().unwrap();
            totals.push(res.output::<i64>(0).unwrap());
        }
        totals
    };
    let seen: Seen = if threads == 1 {
        (0..THREADS).map(run_thread).collect()
    } else {
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..THREADS).map(|t| s.spawn(move || run_thread(t))).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    };
    (seen, acc.to_vec().unwrap(), hist.to_vec().unwrap())
}

/// The same, in plain Rust.
fn expected() -> (Seen, Vec<i32>, Vec<i32>) {
    let input: Vec<i32> = (0..N).map(|i| (i % 7) as i32 - 3).collect();
    let mut hist = vec![0i32; 16];
    let seen = (0..THREADS)
        .map(|t| {
            let mut p = vec![t as i32; N];
            (0..ROUNDS)
                .map(|r| {
                    let k = (r % 5) as i32 + 1;
                    for (x, i) in p.iter_mut().zip(&input) {
                        *x += k * i;
                    }
                    for x in &p {
                        hist[x.rem_euclid(16) as usize] += 1;
                    }
                    p.iter().map(|&x| x as i64).sum()
                })
                .collect()
        })
        .collect();
    let per: i32 = (1..=THREADS as i32).sum::<i32>() * ROUNDS as i32;
    (seen, vec![per; N], hist)
}

#[test]
fn many_threads_on_shared_and_private_arrays_give_the_sequential_results() {
    let want = expected();
    // Sequential, then concurrent, on the CPU, one simulated GPU, and two.
    let cpu = Runtime::cpu_only();
    assert!(program(&cpu, 1) == want, "sequential CPU run");
    assert!(program(&cpu, THREADS) == want, "concurrent CPU run");
    for (n, seed) in [(1, 100), (2, 200)] {
        let (rt, sims) = sims(n, seed);
        let got = program(&rt, THREADS);
        rt.synchronize().unwrap();
        for s in &sims {
            assert!(s.violations().is_empty(), "{:?}", s.violations());
        }
        assert!(got.0 == want.0, "{n} simulated GPU(s): totals {:?} vs {:?}", got.0, want.0);
        assert!(got.1 == want.1, "{n} simulated GPU(s): the shared accumulator differs");
        assert_eq!(got.2, want.2, "{n} simulated GPU(s): the histogram");
        rt.synchronize().unwrap();
        let p = rt.profile();
        assert_eq!(p.devices_used().len(), n + 1, "{:?}", p.devices_used());
        for s in &sims {
            assert!(s.violations().is_empty(), "{:?}", s.violations());
        }
    }
}

#[test]
fn concurrent_eviction_under_a_small_pool_loses_nothing() {
    let (rt, sims) = sims(1, 300);
    let gpu = rt.gpu().unwrap().clone();
    let block = size_class(N * 4);
    // Room for 5 arrays; 6 threads use 3 each.
    gpu.set_memory_limit(Some(5 * block));
    std::thread::scope(|s| {
        for t in 0..6 {
            let rt = &rt;
            s.spawn(move || {
                let arrays: Vec<Array<i32>> =
                    (0..3).map(|k| Array::from_elem(&[N], (10 * t + k) as i32).unwrap()).collect();
                for r in 0..30 {
                    let a = &arrays[r % 3];
                    let l = rt.launch(&ADD_SCALAR).dims(&[N]).arg(a, Access::ReadWrite).scalar(1);
                    l.on(SchedMode::Gpu).run().unwrap();
                    if r % 7 == 6 {
                        // A host read now and then, racing with the evictions of others.
                        assert_eq!(
                            a.get(&[5]).unwrap(),
                            (10 * t + r % 3) as i32 + (r / 3 + 1) as i32
                        );
                    }
                }
                for (k, a) in arrays.iter().enumerate() {
                    assert_eq!(
                        a.to_vec().unwrap(),
                        vec![(10 * t + k) as i32 + 10; N],
                        "thread {t}"
                    );
                }
            });
        }
    });
    let stats = gpu.pool_stats();
    assert!(stats.evictions > 0, "{stats:?}");
    assert!(stats.used + stats.cached <= 5 * block, "{stats:?}");
    rt.synchronize().unwrap();
    assert!(sims[0].violations().is_empty(), "{:?}", sims[0].violations());
}
