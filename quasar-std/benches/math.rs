//! `quasar_std::math` against `std`'s methods (libm calls) in the same element-wise loop over
//! 1M `f32` (and `f64`): `exp`, `log`, `pow(x, 0.45)`, `sin`. The point of the branch-free
//! routines is that LLVM vectorises the loop around them; a libm call per element cannot be.
//!
//! Run: `cargo bench -p quasar-std --bench math` (a baseline x86-64 build: no `target-cpu`).
//! Besides criterion's report it prints `std/ours` per function from its own interleaved timing
//! loop, for the baseline build and, where the CPU has them, for the same loop compiled with
//! AVX2+FMA enabled (as the multiversioned kernels of the Rust backend are).

use criterion::{black_box, criterion_group, Criterion};
use quasar_std::math::{f32 as m32, f64 as m64};
use std::time::{Duration, Instant};

const N: usize = 1 << 20;

/// Deterministic inputs in `[lo, hi)`.
fn inputs<T: From<f32>>(lo: f32, hi: f32) -> Vec<T> {
    let mut s = 0x9e37_79b9_u32;
    (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            T::from(lo + (hi - lo) * (s >> 8) as f32 / (1u32 << 24) as f32)
        })
        .collect()
}

macro_rules! loops {
    ($ty:ty, $name:ident, $ours:expr, $std:expr) => {
        mod $name {
            #[inline(never)]
            pub fn ours(inp: &[$ty], out: &mut [$ty]) {
                for (o, x) in out.iter_mut().zip(inp) {
                    *o = $ours(*x);
                }
            }
            #[inline(never)]
            pub fn std(inp: &[$ty], out: &mut [$ty]) {
                for (o, x) in out.iter_mut().zip(inp) {
                    *o = $std(*x);
                }
            }
            /// The same loop as `ours`, compiled for AVX2+FMA (the multiversioned kernel).
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn ours_avx2_impl(inp: &[$ty], out: &mut [$ty]) {
                for (o, x) in out.iter_mut().zip(inp) {
                    *o = $ours(*x);
                }
            }
            #[cfg(target_arch = "x86_64")]
            pub fn ours_avx2(inp: &[$ty], out: &mut [$ty]) {
                // SAFETY: only called after `is_x86_feature_detected!` said yes.
                unsafe { ours_avx2_impl(inp, out) }
            }
        }
    };
}

loops!(f32, exp32, super::m32::exp, f32::exp);
loops!(f32, log32, super::m32::log, f32::ln);
loops!(f32, pow32, |x| super::m32::pow(x, 0.45), |x: f32| x.powf(0.45));
loops!(f32, sin32, super::m32::sin, f32::sin);
loops!(f64, exp64, super::m64::exp, f64::exp);
loops!(f64, log64, super::m64::log, f64::ln);
loops!(f64, pow64, |x| super::m64::pow(x, 0.45), |x: f64| x.powf(0.45));
loops!(f64, sin64, super::m64::sin, f64::sin);

type Loop<T> = fn(&[T], &mut [T]);

struct Case<T> {
    name: &'static str,
    input: Vec<T>,
    ours: Loop<T>,
    std: Loop<T>,
    ours_avx2: Loop<T>,
}

fn cases32() -> Vec<Case<f32>> {
    vec![
        Case {
            name: "exp f32",
            input: inputs(-20.0, 20.0),
            ours: exp32::ours,
            std: exp32::std,
            ours_avx2: exp32::ours_avx2,
        },
        Case {
            name: "log f32",
            input: inputs(1e-3, 1e3),
            ours: log32::ours,
            std: log32::std,
            ours_avx2: log32::ours_avx2,
        },
        Case {
            name: "pow(x, 0.45) f32",
            input: inputs(0.0, 1e3),
            ours: pow32::ours,
            std: pow32::std,
            ours_avx2: pow32::ours_avx2,
        },
        Case {
            name: "sin f32",
            input: inputs(-100.0, 100.0),
            ours: sin32::ours,
            std: sin32::std,
            ours_avx2: sin32::ours_avx2,
        },
    ]
}

fn cases64() -> Vec<Case<f64>> {
    vec![
        Case {
            name: "exp f64",
            input: inputs(-20.0, 20.0),
            ours: exp64::ours,
            std: exp64::std,
            ours_avx2: exp64::ours_avx2,
        },
        Case {
            name: "log f64",
            input: inputs(1e-3, 1e3),
            ours: log64::ours,
            std: log64::std,
            ours_avx2: log64::ours_avx2,
        },
        Case {
            name: "pow(x, 0.45) f64",
            input: inputs(0.0, 1e3),
            ours: pow64::ours,
            std: pow64::std,
            ours_avx2: pow64::ours_avx2,
        },
        Case {
            name: "sin f64",
            input: inputs(-100.0, 100.0),
            ours: sin64::ours,
            std: sin64::std,
            ours_avx2: sin64::ours_avx2,
        },
    ]
}

fn bench_group<T: Copy + Default>(c: &mut Criterion, cases: &[Case<T>]) {
    for case in cases {
        let mut g = c.benchmark_group(case.name);
        let mut out = vec![T::default(); N];
        g.bench_function("quasar_std::math", |b| {
            b.iter(|| (case.ours)(black_box(&case.input), &mut out))
        });
        g.bench_function("std", |b| b.iter(|| (case.std)(black_box(&case.input), &mut out)));
        g.finish();
    }
}

fn bench_math(c: &mut Criterion) {
    bench_group(c, &cases32());
    bench_group(c, &cases64());
}

/// Best of `reps` runs, interleaving the variants so that frequency changes hit all of them.
fn best_times<T: Copy + Default>(case: &Case<T>, avx2: bool, reps: usize) -> [Duration; 3] {
    let mut out = vec![T::default(); N];
    let mut best = [Duration::MAX; 3];
    for _ in 0..reps {
        for (i, f) in [case.ours, case.std, case.ours_avx2].into_iter().enumerate() {
            if i == 2 && !avx2 {
                continue;
            }
            let t = Instant::now();
            f(black_box(&case.input), &mut out);
            black_box(&out);
            best[i] = best[i].min(t.elapsed());
        }
    }
    best
}

fn ratios() {
    #[cfg(target_arch = "x86_64")]
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    println!("\n{N} elements, best of 30 (ns/element); std/ours > 1 means ours is faster");
    let show = |name: &str, t: [Duration; 3]| {
        let ns = |d: Duration| d.as_secs_f64() * 1e9 / N as f64;
        let mut line = format!(
            "{name:18} ours {:6.3}  std {:6.3}  std/ours {:5.2}",
            ns(t[0]),
            ns(t[1]),
            ns(t[1]) / ns(t[0])
        );
        if avx2 {
            line += &format!(
                "  | ours avx2+fma {:6.3}  std/ours {:5.2}",
                ns(t[2]),
                ns(t[1]) / ns(t[2])
            );
        }
        println!("{line}");
    };
    for case in cases32() {
        show(case.name, best_times(&case, avx2, 30));
    }
    for case in cases64() {
        show(case.name, best_times(&case, avx2, 30));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    targets = bench_math
}

fn main() {
    ratios();
    if std::env::args().any(|a| a == "--ratios-only") {
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
