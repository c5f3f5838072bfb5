//! Host built-ins against plain Rust in the same process: `sum` and an element-wise `add` on
//! 4M `f32` (16 MiB per array).
//!
//! * `sum`: [`builtins::sum`] (pairwise, vectorised leaves, rayon above 32K elements) against
//!   `iter().sum::<f32>()` (a sequential running sum: it does not vectorise, because float
//!   addition is not associative, and it is inaccurate).
//! * `add`: [`builtins::add`] (a new array, rayon over 16K-element chunks) against a zip loop
//!   collecting into a new `Vec` (the same allocation work) and a zip loop into a preallocated
//!   `Vec` (no allocation at all).
//!
//! After criterion's own report, a summary prints the median times and the ratios
//! (plain Rust time / built-in time: above 1 means the built-in is faster).
//!
//! `cargo bench -p quasar-std --bench builtins`

use criterion::{black_box, criterion_group, Criterion};
use quasar_runtime::Array;
use quasar_std::builtins;
use std::time::{Duration, Instant};

const N: usize = 4 << 20;

/// A pseudo-random number in `[0, 1)` (SplitMix64 of `i`).
fn noise(i: u64) -> f32 {
    let z = i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 40) as f32 / (1u32 << 24) as f32
}

fn inputs() -> (Array<f32>, Array<f32>, Vec<f32>, Vec<f32>) {
    let a: Vec<f32> = (0..N as u64).map(noise).collect();
    let b: Vec<f32> = (0..N as u64).map(|i| noise(i + N as u64)).collect();
    let xa = Array::from_vec(&[N], a.clone()).unwrap();
    let xb = Array::from_vec(&[N], b.clone()).unwrap();
    (xa, xb, a, b)
}

fn bench(c: &mut Criterion) {
    let (xa, xb, a, b) = inputs();
    let mut g = c.benchmark_group("sum 4M f32");
    g.bench_function("quasar builtins::sum", |bch| {
        bch.iter(|| builtins::sum(black_box(&xa)).unwrap())
    });
    g.bench_function("plain iter().sum()", |bch| bch.iter(|| black_box(&a).iter().sum::<f32>()));
    g.finish();

    let mut g = c.benchmark_group("add 4M f32");
    g.bench_function("quasar builtins::add", |bch| {
        bch.iter(|| builtins::add(black_box(&xa), black_box(&xb)).unwrap())
    });
    g.bench_function("plain zip collect", |bch| {
        bch.iter(|| {
            black_box(&a).iter().zip(black_box(&b)).map(|(x, y)| x + y).collect::<Vec<f32>>()
        })
    });
    let mut out = vec![0.0f32; N];
    g.bench_function("plain zip into preallocated", |bch| {
        bch.iter(|| {
            for ((o, x), y) in out.iter_mut().zip(black_box(&a)).zip(black_box(&b)) {
                *o = x + y;
            }
            black_box(&out);
        })
    });
    g.finish();
}

/// The median of `runs` timings of `f`.
fn median<R>(runs: usize, mut f: impl FnMut() -> R) -> Duration {
    for _ in 0..3 {
        black_box(f());
    }
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            black_box(f());
            s.elapsed()
        })
        .collect();
    t.sort();
    t[runs / 2]
}

fn summary() {
    let (xa, xb, a, b) = inputs();
    let runs = 41;
    let q_sum = median(runs, || builtins::sum(&xa).unwrap());
    let p_sum = median(runs, || a.iter().sum::<f32>());
    let q_add = median(runs, || builtins::add(&xa, &xb).unwrap());
    let p_add = median(runs, || a.iter().zip(&b).map(|(x, y)| x + y).collect::<Vec<f32>>());
    let mut out = vec![0.0f32; N];
    let p_pre = median(runs, || {
        for ((o, x), y) in out.iter_mut().zip(&a).zip(&b) {
            *o = x + y;
        }
        out[N / 2]
    });
    let exact: f64 = a.iter().map(|&x| x as f64).sum();
    let rel = |v: f32| ((v as f64 - exact) / exact).abs();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let ratio = |plain: Duration, ours: Duration| plain.as_secs_f64() / ours.as_secs_f64();
    println!("\nsummary ({} threads; median of {runs}; ratio = plain / built-in)", rayon_threads());
    println!(
        "  sum 4M f32: builtins::sum {:.3} ms, iter().sum() {:.3} ms, ratio {:.2}",
        ms(q_sum),
        ms(p_sum),
        ratio(p_sum, q_sum)
    );
    println!(
        "      relative error: builtins::sum {:.1e}, iter().sum() {:.1e}",
        rel(builtins::sum(&xa).unwrap()),
        rel(a.iter().sum())
    );
    println!("  add 4M f32: builtins::add {:.3} ms, zip collect {:.3} ms (ratio {:.2}), zip into preallocated {:.3} ms (ratio {:.2})", ms(q_add), ms(p_add), ratio(p_add, q_add), ms(p_pre), ratio(p_pre, q_add));
}

fn rayon_threads() -> usize {
    rayon::current_num_threads()
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(3));
    targets = bench
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    summary();
}
