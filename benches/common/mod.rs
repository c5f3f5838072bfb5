//! What the benchmarks share: timing, the `RESULT`/`RATIO` report lines that
//! `scripts/benchmarks-md.py` reads, and the load average.

use criterion::Criterion;
use std::time::{Duration, Instant};

/// Criterion's report of `f` (unless `slow`), then our own figure for the ratios: the best of
/// 5 batches of 3 runs (2 single runs when `slow`), as Python's `timeit`, so both sides of a
/// ratio are measured alike. Each run waits for the GPU: launches there are asynchronous.
pub fn time(c: &mut Criterion, name: &str, slow: bool, mut f: impl FnMut()) -> Duration {
    let mut f = move || {
        f();
        quasar::Runtime::global().synchronize().unwrap();
    };
    if !slow {
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        group.bench_function("run", |b| b.iter(&mut f));
        group.finish();
    }
    f();
    let (batches, reps) = if slow { (2, 1) } else { (5, 3) };
    (0..batches)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed() / reps
        })
        .min()
        .unwrap_or_default()
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One line per form: its time and its ratio to the explicit kernel.
pub fn report(workload: &str, kernel: Duration, forms: &[(&str, Duration)]) {
    println!("RESULT {workload} kernel: {:.3} ms", ms(kernel));
    for (form, t) in forms {
        println!(
            "RATIO {workload} {form}: {:.3} ms / kernel {:.3} ms = {:.3}",
            ms(*t),
            ms(kernel),
            t.as_secs_f64() / kernel.as_secs_f64()
        );
    }
}

/// The load average as `/proc/loadavg` gives it, for the report.
pub fn load(when: &str) {
    let l = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let v: Vec<&str> = l.split_whitespace().take(3).collect();
    if v.len() == 3 {
        println!("LOAD {when}: {} {} {}", v[0], v[1], v[2]);
    }
}
