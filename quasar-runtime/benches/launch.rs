//! The CPU launcher against a plain rayon loop over the same slices, in one process:
//! `y = a*x + y` on f32. The launcher calls the kernel once per block and must add no work per
//! element, so for large arrays the ratio should be close to 1; for small ones it shows the
//! fixed cost of a launch.
//!
//! Run: `cargo bench -p quasar-runtime --bench launch`. Besides criterion's report it prints
//! `ratio launcher/rayon` per size from its own interleaved timing loop.

use criterion::{black_box, criterion_group, Criterion};
use quasar_runtime::{Access, Array, BlockCtx, Kernel, KernelArgs, Result, Runtime};
use rayon::prelude::*;
use std::time::{Duration, Instant};

fn saxpy_cpu(ctx: &BlockCtx, args: &KernelArgs) -> Result<()> {
    let x = args.view::<f32>(0)?;
    let y = args.view::<f32>(1)?;
    let a: f32 = args.scalar(2)?;
    let r = ctx.range(0);
    // SAFETY: the launch covers numel(y) == numel(x) positions; blocks are disjoint.
    let (xs, ys) = unsafe { (x.slice(r.clone()), y.slice_mut(r)) };
    for (yi, xi) in ys.iter_mut().zip(xs) {
        *yi += a * xi;
    }
    Ok(())
}

static SAXPY: Kernel = Kernel::new("saxpy", saxpy_cpu);

fn rayon_saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    y.par_iter_mut().zip(x.par_iter()).for_each(|(yi, xi)| *yi += a * xi);
}

struct Case {
    n: usize,
    x: Array<f32>,
    y: Array<f32>,
    xv: Vec<f32>,
    yv: Vec<f32>,
}

fn case(n: usize) -> Case {
    Case {
        n,
        x: Array::from_fn(&[n], |i| i as f32 * 1e-3).unwrap(),
        y: Array::from_elem(&[n], 1.0).unwrap(),
        xv: (0..n).map(|i| i as f32 * 1e-3).collect(),
        yv: vec![1.0; n],
    }
}

fn launch(rt: &Runtime, c: &Case) {
    rt.launch(&SAXPY)
        .dims(&[c.n])
        .arg(&c.x, Access::Read)
        .arg(&c.y, Access::ReadWrite)
        .scalar(black_box(1.0001f32))
        .run()
        .unwrap();
}

const SIZES: [usize; 3] = [1 << 12, 1 << 16, 1 << 22];

fn bench(cr: &mut Criterion) {
    let rt = Runtime::cpu_only();
    rt.profiler().set_enabled(false);
    for n in SIZES {
        let mut c = case(n);
        let mut g = cr.benchmark_group(format!("saxpy_f32_{n}"));
        g.bench_function("cpu_launcher", |b| b.iter(|| launch(&rt, &c)));
        g.bench_function("plain_rayon", |b| {
            b.iter(|| rayon_saxpy(black_box(1.0001), &c.xv, &mut c.yv))
        });
        g.finish();
    }
}

/// Median time per call over `rounds` rounds of `reps` calls.
fn median(mut f: impl FnMut(), reps: usize, rounds: usize) -> Duration {
    let mut t: Vec<Duration> = (0..rounds)
        .map(|_| {
            let s = Instant::now();
            for _ in 0..reps {
                f();
            }
            s.elapsed() / reps as u32
        })
        .collect();
    t.sort();
    t[rounds / 2]
}

fn ratios() {
    let rt = Runtime::cpu_only();
    let profiled = Runtime::cpu_only(); // the profiler records every launch and its timeline
    rt.profiler().set_enabled(false);
    println!(
        "\nCPU launcher vs plain rayon, y = a*x + y (f32), {} threads:",
        rayon::current_num_threads()
    );
    for n in SIZES {
        let mut c = case(n);
        let reps = (1 << 24) / n;
        // Interleave the three so that all see the same machine state.
        let (mut tl, mut tp, mut tr) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..7 {
            tl.push(median(|| launch(&rt, &c), reps, 5));
            tp.push(median(|| launch(&profiled, &c), reps, 5));
            tr.push(median(|| rayon_saxpy(black_box(1.0001), &c.xv, &mut c.yv), reps, 5));
            profiled.profiler().reset();
        }
        tl.sort();
        tp.sort();
        tr.sort();
        let (l, p, r) = (tl[3], tp[3], tr[3]);
        println!(
            "  n = {n:>8}: launcher {l:>10.2?}  profiled {p:>10.2?}  rayon {r:>10.2?}  \
             ratio launcher/rayon = {:.3}  profiled/launcher = {:.3}",
            l.as_secs_f64() / r.as_secs_f64(),
            p.as_secs_f64() / l.as_secs_f64()
        );
    }
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    ratios();
}
