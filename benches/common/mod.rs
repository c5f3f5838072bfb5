//! What the benchmarks share: Criterion's settings, timing one row only when Criterion's filter
//! selects it, the `RESULT`/`RATIO` report lines that `scripts/benchmarks-md.py` reads, and the
//! load average.
//!
//! Every row is a Criterion benchmark named `<group>/run` (`box3/kernel/run`,
//! `gauss_4k/rust/run`). `cargo bench --bench NAME -- REGEX` runs only the rows whose name the
//! regex matches (`--exact NAME` one row): a row's data are built inside its closure
//! (`LazyCell`), so the rows a filter skips cost nothing. `-- --list` lists the rows; `-- --test`
//! runs each row once.

// Each bench binary uses a part of this module.
#![allow(dead_code)]

use criterion::{Criterion, SamplingMode};
use std::time::{Duration, Instant};

/// Criterion's settings for these benches: 10 samples after a 1 s warm-up, measured for 2 s
/// (its defaults, 3 s and 5 s, would make a full `cargo bench` take twice as long). Command-line
/// options (`--warm-up-time`, `--measurement-time`, `--sample-size`) override them.
pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
}

/// Whether Criterion runs benchmarks (`cargo bench`) rather than tests (`cargo bench -- --test`,
/// `cargo test --benches`: each selected row once), by the same rule as Criterion.
fn benchmarking() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test")
}

/// Criterion's report of `f` as the row `name`, then our own figure for the ratios: the best of
/// 5 batches of 3 runs (2 single runs when `slow`), as Python's `timeit`, so both sides of a
/// ratio are measured alike. `None` when Criterion's filter does not select the row: then `f`
/// never ran. Slow rows are sampled flat (10 runs, not Criterion's 55 of linear sampling).
pub fn time(c: &mut Criterion, name: &str, slow: bool, f: impl FnMut()) -> Option<Duration> {
    let (batches, reps) = if slow { (2, 1) } else { (5, 3) };
    time_batches(c, name, slow, batches, reps, f)
}

/// [`time`] with our own figure the best of `batches` batches of `reps` runs. Each run waits for
/// the GPU: launches there are asynchronous.
pub fn time_batches(
    c: &mut Criterion,
    name: &str,
    slow: bool,
    batches: u32,
    reps: u32,
    mut f: impl FnMut(),
) -> Option<Duration> {
    let mut f = move || {
        f();
        quasar::Runtime::global().synchronize().unwrap();
    };
    let mut selected = false;
    let mut group = c.benchmark_group(name);
    if slow {
        group.sampling_mode(SamplingMode::Flat);
    }
    group.bench_function("run", |b| {
        selected = true;
        b.iter(&mut f)
    });
    group.finish();
    if !selected {
        return None;
    }
    // A test run (`--test`) has run the row once: one more run gives the report its figures.
    let (batches, reps) = if benchmarking() {
        f();
        (batches, reps)
    } else {
        (1, 1)
    };
    (0..batches)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed() / reps
        })
        .min()
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// `d` in milliseconds for the report: three decimals, five below 0.1 ms (a launch's fixed
/// cost is a few microseconds).
fn ms_text(d: Duration) -> String {
    match ms(d) {
        v if v < 0.1 => format!("{v:.5}"),
        v => format!("{v:.3}"),
    }
}

/// One line per form that ran: its time and its ratio to the explicit kernel; a form whose
/// kernel row the filter skipped gets a `RESULT` line without a ratio.
pub fn report(workload: &str, kernel: Option<Duration>, forms: &[(&str, Option<Duration>)]) {
    if let Some(k) = kernel {
        println!("RESULT {workload} kernel: {} ms", ms_text(k));
    }
    for (form, t) in forms {
        match (t, kernel) {
            (Some(t), Some(k)) => println!(
                "RATIO {workload} {form}: {} ms / kernel {} ms = {:.3}",
                ms_text(*t),
                ms_text(k),
                t.as_secs_f64() / k.as_secs_f64()
            ),
            (Some(t), None) => println!("RESULT {workload} {form}: {} ms", ms_text(*t)),
            (None, _) => {}
        }
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
