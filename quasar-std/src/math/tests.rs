//! Accuracy and special-value tests against the `f64` functions of `std` (for the `f32`
//! routines: an `f64` reference rounded to `f32` is accurate to far below 0.01 ULP) and against
//! `std`'s `f64` functions for the `f64` routines (the system libm; its own error is below 1 ULP,
//! so the bounds there are "ULP from libm").
//!
//! The sampled tests use `SAMPLES` values per range (40 000 in debug builds, which CI runs, and
//! 1 000 000 in release). The table in the module docs comes from `ulp_report` (ignored by
//! default):
//!
//! ```text
//! QUASAR_MATH_SAMPLES=10000000 cargo test --release -p quasar-std --lib math::tests::ulp_report \
//!     -- --ignored --nocapture
//! ```
//!
//! (`QUASAR_MATH_EXHAUSTIVE=1` additionally runs the unary `f32` functions over all 2^32 inputs.)

use super::{f32 as m32, f64 as m64};

#[cfg(debug_assertions)]
const SAMPLES: usize = 40_000;
#[cfg(not(debug_assertions))]
const SAMPLES: usize = 1_000_000;

/// xorshift64*: deterministic, good enough to spread samples.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// Log-uniform magnitude in [2^lo, 2^hi) with a random sign when `signed`.
    fn log_uniform(&mut self, lo: f64, hi: f64, signed: bool) -> f64 {
        let v = self.uniform(lo, hi).exp2();
        if signed && self.next() & 1 == 1 {
            -v
        } else {
            v
        }
    }
}

/// Error of `got` in ULPs of the exact `want` at `f32` precision (fractional, so a correctly
/// rounded result is within 0.5); 0 or infinity for NaN, infinite and zero results.
fn ulp32(got: f32, want: f64) -> f64 {
    let w32 = want as f32;
    if got.is_nan() || want.is_nan() {
        return if got.is_nan() && want.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if got.is_infinite() || w32.is_infinite() || (got == 0.0 && w32 == 0.0) {
        let same = got == w32 && got.is_sign_negative() == w32.is_sign_negative();
        return if same { 0.0 } else { f64::INFINITY };
    }
    let a = want.abs().max(f32::MIN_POSITIVE as f64);
    let ulp = (2f64).powi(a.log2().floor() as i32 - 23);
    (got as f64 - want).abs() / ulp
}

/// Error of `got` in ULPs of `want` (an `f64` result of the system libm).
fn ulp64(got: f64, want: f64) -> f64 {
    if got.is_nan() && want.is_nan() {
        return 0.0;
    }
    if got == want && got.is_sign_negative() == want.is_sign_negative() {
        return 0.0;
    }
    if got.is_nan()
        || want.is_nan()
        || got.is_infinite()
        || want.is_infinite()
        || (got == 0.0 && want == 0.0)
    {
        return f64::INFINITY;
    }
    let a = want.abs().max(f64::MIN_POSITIVE);
    let e = ((a.to_bits() >> 52) as i64 - 1023) as i32; // a is normal here
    let ulp = if e - 52 < -1022 { f64::from_bits(1 << (e - 52 + 1074)) } else { 2f64.powi(e - 52) };
    (got - want).abs() / ulp
}

/// Maximum error and its argument over `n` samples of `gen`.
struct Worst {
    err: f64,
    at: (f64, f64),
}

fn worst32_1(
    n: usize,
    seed: u64,
    f: fn(f32) -> f32,
    r: fn(f64) -> f64,
    gen: &dyn Fn(&mut Rng) -> f64,
) -> Worst {
    let mut rng = Rng(seed);
    let mut w = Worst { err: 0.0, at: (0.0, 0.0) };
    for _ in 0..n {
        let x = gen(&mut rng) as f32;
        let e = ulp32(f(x), r(x as f64));
        if e > w.err {
            w = Worst { err: e, at: (x as f64, 0.0) };
        }
    }
    w
}

fn worst32_2(
    n: usize,
    seed: u64,
    f: fn(f32, f32) -> f32,
    r: fn(f64, f64) -> f64,
    gen: &dyn Fn(&mut Rng) -> (f64, f64),
) -> Worst {
    let mut rng = Rng(seed);
    let mut w = Worst { err: 0.0, at: (0.0, 0.0) };
    for _ in 0..n {
        let (x, y) = gen(&mut rng);
        let (x, y) = (x as f32, y as f32);
        let e = ulp32(f(x, y), r(x as f64, y as f64));
        if e > w.err {
            w = Worst { err: e, at: (x as f64, y as f64) };
        }
    }
    w
}

fn worst64_1(
    n: usize,
    seed: u64,
    f: fn(f64) -> f64,
    r: fn(f64) -> f64,
    gen: &dyn Fn(&mut Rng) -> f64,
) -> Worst {
    let mut rng = Rng(seed);
    let mut w = Worst { err: 0.0, at: (0.0, 0.0) };
    for _ in 0..n {
        let x = gen(&mut rng);
        let e = ulp64(f(x), r(x));
        if e > w.err {
            w = Worst { err: e, at: (x, 0.0) };
        }
    }
    w
}

fn worst64_2(
    n: usize,
    seed: u64,
    f: fn(f64, f64) -> f64,
    r: fn(f64, f64) -> f64,
    gen: &dyn Fn(&mut Rng) -> (f64, f64),
) -> Worst {
    let mut rng = Rng(seed);
    let mut w = Worst { err: 0.0, at: (0.0, 0.0) };
    for _ in 0..n {
        let (x, y) = gen(&mut rng);
        let e = ulp64(f(x, y), r(x, y));
        if e > w.err {
            w = Worst { err: e, at: (x, y) };
        }
    }
    w
}

type Gen1 = fn(&mut Rng) -> f64;
type Gen2 = fn(&mut Rng) -> (f64, f64);

/// Any `f32` bit pattern (NaNs and infinities included).
fn any32(r: &mut Rng) -> f64 {
    f32::from_bits(r.next() as u32) as f64
}
fn any64(r: &mut Rng) -> f64 {
    f64::from_bits(r.next())
}
fn small_int(r: &mut Rng) -> f64 {
    (r.uniform(-40.0, 40.0)).round()
}

// (name, routine, reference, range name, sample generator, asserted ULP bound)
type Case32 = (&'static str, fn(f32) -> f32, fn(f64) -> f64, &'static str, Gen1, f64);
type Case32b = (&'static str, fn(f32, f32) -> f32, fn(f64, f64) -> f64, &'static str, Gen2, f64);
type Case64 = (&'static str, fn(f64) -> f64, fn(f64) -> f64, &'static str, Gen1, f64);
type Case64b = (&'static str, fn(f64, f64) -> f64, fn(f64, f64) -> f64, &'static str, Gen2, f64);

fn cases32() -> Vec<Case32> {
    vec![
        ("exp", m32::exp, f64::exp, "all x", |r| r.uniform(-105.0, 89.0), 1.0),
        ("exp", m32::exp, f64::exp, "any bits", any32, 1.0),
        ("exp2", m32::exp2, f64::exp2, "all x", |r| r.uniform(-152.0, 129.0), 1.25),
        ("exp2", m32::exp2, f64::exp2, "any bits", any32, 1.25),
        ("log", m32::log, f64::ln, "x > 0", |r| r.log_uniform(-150.0, 128.0, false), 0.9),
        ("log", m32::log, f64::ln, "near 1", |r| r.uniform(0.5, 2.0), 0.9),
        ("log", m32::log, f64::ln, "any bits", any32, 0.9),
        ("log2", m32::log2, f64::log2, "x > 0", |r| r.log_uniform(-150.0, 128.0, false), 0.9),
        ("log2", m32::log2, f64::log2, "near 1", |r| r.uniform(0.5, 2.0), 0.9),
        ("log10", m32::log10, f64::log10, "x > 0", |r| r.log_uniform(-150.0, 128.0, false), 0.9),
        ("log10", m32::log10, f64::log10, "near 1", |r| r.uniform(0.5, 2.0), 0.9),
        ("sin", m32::sin, f64::sin, "|x| < 8", |r| r.uniform(-8.0, 8.0), 1.0),
        ("sin", m32::sin, f64::sin, "|x| < 1e8", |r| r.log_uniform(-30.0, 26.6, true), 1.0),
        ("cos", m32::cos, f64::cos, "|x| < 8", |r| r.uniform(-8.0, 8.0), 1.0),
        ("cos", m32::cos, f64::cos, "|x| < 1e8", |r| r.log_uniform(-30.0, 26.6, true), 1.0),
        ("tan", m32::tan, f64::tan, "|x| < 8", |r| r.uniform(-8.0, 8.0), 0.55),
        ("tan", m32::tan, f64::tan, "|x| < 1e8", |r| r.log_uniform(-30.0, 26.6, true), 0.55),
        ("atan", m32::atan, f64::atan, "all x", |r| r.log_uniform(-130.0, 128.0, true), 1.9),
        ("asin", m32::asin, f64::asin, "[-1, 1]", |r| r.uniform(-1.0, 1.0), 0.85),
        ("acos", m32::acos, f64::acos, "[-1, 1]", |r| r.uniform(-1.0, 1.0), 1.1),
        ("tanh", m32::tanh, f64::tanh, "|x| < 10", |r| r.uniform(-10.0, 10.0), 1.5),
        ("tanh", m32::tanh, f64::tanh, "all x", |r| r.log_uniform(-130.0, 7.0, true), 1.5),
        ("sqrt", m32::sqrt, f64::sqrt, "any bits", any32, 0.5),
        (
            "rsqrt",
            m32::rsqrt,
            |x| 1.0 / x.sqrt(),
            "x > 0",
            |r| r.log_uniform(-149.0, 128.0, false),
            1.5,
        ),
    ]
}

fn cases32b() -> Vec<Case32b> {
    vec![
        (
            "pow",
            m32::pow,
            f64::powf,
            "x > 0, finite result",
            |r| {
                let x = r.log_uniform(-149.0, 128.0, false) as f32 as f64;
                let t = r.uniform(-152.0, 128.5);
                (x, t / x.log2())
            },
            0.55,
        ),
        (
            "pow",
            m32::pow,
            f64::powf,
            "x in [0, 4], y in [-8, 8]",
            |r| (r.uniform(0.0, 4.0), r.uniform(-8.0, 8.0)),
            0.55,
        ),
        (
            "pow",
            m32::pow,
            f64::powf,
            "x < 0, integer y",
            |r| (-r.uniform(0.0, 8.0), small_int(r)),
            0.55,
        ),
        (
            "pow_fma",
            m32::pow_fma,
            f64::powf,
            "x in [0, 4], y in [-8, 8]",
            |r| (r.uniform(0.0, 4.0), r.uniform(-8.0, 8.0)),
            0.55,
        ),
        (
            "pow_fma",
            m32::pow_fma,
            f64::powf,
            "x < 0, integer y",
            |r| (-r.uniform(0.0, 8.0), small_int(r)),
            0.55,
        ),
        ("pow_fma", m32::pow_fma, f64::powf, "any bits", |r| (any32(r), any32(r)), 0.55),
        ("pow", m32::pow, f64::powf, "any bits", |r| (any32(r), any32(r)), 0.55),
        (
            "atan2",
            m32::atan2,
            f64::atan2,
            "all x, y",
            |r| (r.log_uniform(-130.0, 128.0, true), r.log_uniform(-130.0, 128.0, true)),
            1.9,
        ),
        ("atan2", m32::atan2, f64::atan2, "any bits", |r| (any32(r), any32(r)), 1.9),
    ]
}

fn cases64() -> Vec<Case64> {
    vec![
        ("exp", m64::exp, f64::exp, "all x", |r| r.uniform(-746.0, 710.0), 1.0),
        ("exp", m64::exp, f64::exp, "|x| < 1", |r| r.uniform(-1.0, 1.0), 1.0),
        ("exp", m64::exp, f64::exp, "any bits", any64, 1.0),
        ("exp2", m64::exp2, f64::exp2, "all x", |r| r.uniform(-1076.0, 1025.0), 1.0),
        ("exp2", m64::exp2, f64::exp2, "any bits", any64, 1.0),
        ("log", m64::log, f64::ln, "x > 0", |r| r.log_uniform(-1074.0, 1024.0, false), 1.0),
        ("log", m64::log, f64::ln, "near 1", |r| r.uniform(0.5, 2.0), 1.0),
        ("log", m64::log, f64::ln, "any bits", any64, 1.0),
        ("log2", m64::log2, f64::log2, "x > 0", |r| r.log_uniform(-1074.0, 1024.0, false), 1.0),
        ("log2", m64::log2, f64::log2, "near 1", |r| r.uniform(0.5, 2.0), 1.0),
        ("log10", m64::log10, f64::log10, "x > 0", |r| r.log_uniform(-1074.0, 1024.0, false), 2.0),
        ("log10", m64::log10, f64::log10, "near 1", |r| r.uniform(0.5, 2.0), 2.0),
        ("sin", m64::sin, f64::sin, "|x| < 8", |r| r.uniform(-8.0, 8.0), 1.0),
        ("sin", m64::sin, f64::sin, "|x| < 1e8", |r| r.log_uniform(-30.0, 26.6, true), 1.0),
        ("cos", m64::cos, f64::cos, "|x| < 8", |r| r.uniform(-8.0, 8.0), 1.0),
        ("cos", m64::cos, f64::cos, "|x| < 1e8", |r| r.log_uniform(-30.0, 26.6, true), 1.0),
        ("tan", m64::tan, f64::tan, "|x| < 8", |r| r.uniform(-8.0, 8.0), 1.0),
        ("tan", m64::tan, f64::tan, "|x| < 1e8", |r| r.log_uniform(-30.0, 26.6, true), 1.0),
        ("atan", m64::atan, f64::atan, "all x", |r| r.log_uniform(-1074.0, 1024.0, true), 1.0),
        ("asin", m64::asin, f64::asin, "[-1, 1]", |r| r.uniform(-1.0, 1.0), 1.0),
        ("acos", m64::acos, f64::acos, "[-1, 1]", |r| r.uniform(-1.0, 1.0), 1.0),
        ("tanh", m64::tanh, f64::tanh, "|x| < 10", |r| r.uniform(-10.0, 10.0), 2.0),
        ("tanh", m64::tanh, f64::tanh, "all x", |r| r.log_uniform(-1074.0, 10.0, true), 2.0),
        ("sqrt", m64::sqrt, f64::sqrt, "any bits", any64, 0.0),
        (
            "rsqrt",
            m64::rsqrt,
            |x| 1.0 / x.sqrt(),
            "x > 0",
            |r| r.log_uniform(-1074.0, 1024.0, false),
            0.0,
        ),
    ]
}

fn cases64b() -> Vec<Case64b> {
    vec![
        (
            "pow",
            m64::pow,
            f64::powf,
            "x > 0, finite result",
            |r| {
                let x = r.log_uniform(-1074.0, 1024.0, false);
                let t = r.uniform(-1075.0, 1024.0);
                (x, t / x.log2())
            },
            1.0,
        ),
        (
            "pow",
            m64::pow,
            f64::powf,
            "x in [0, 4], y in [-8, 8]",
            |r| (r.uniform(0.0, 4.0), r.uniform(-8.0, 8.0)),
            1.0,
        ),
        (
            "pow",
            m64::pow,
            f64::powf,
            "x near 1, large y",
            |r| {
                let x = 1.0 + r.uniform(-1e-6, 1e-6);
                (x, r.uniform(-1e8, 1e8))
            },
            1.0,
        ),
        (
            "pow",
            m64::pow,
            f64::powf,
            "x < 0, integer y",
            |r| (-r.uniform(0.0, 8.0), small_int(r)),
            1.0,
        ),
        ("pow", m64::pow, f64::powf, "any bits", |r| (any64(r), any64(r)), 1.0),
        (
            "atan2",
            m64::atan2,
            f64::atan2,
            "all x, y",
            |r| (r.log_uniform(-1074.0, 1024.0, true), r.log_uniform(-1074.0, 1024.0, true)),
            1.0,
        ),
        ("atan2", m64::atan2, f64::atan2, "any bits", |r| (any64(r), any64(r)), 1.0),
    ]
}

fn run_all(n: usize, report: bool) -> Vec<String> {
    let mut failures = Vec::new();
    let mut check = |kind: &str, name: &str, range: &str, w: Worst, bound: f64| {
        if report {
            println!(
                "{kind} {name:6} {range:28} max {:.3} ULP at ({:e}, {:e})",
                w.err, w.at.0, w.at.1
            );
        }
        if w.err.is_nan() || w.err > bound {
            failures.push(format!(
                "{kind} {name} [{range}]: {} ULP > {bound} at {:?}",
                w.err,
                (w.at.0, w.at.1)
            ));
        }
    };
    for (i, (name, f, r, range, gen, bound)) in cases32().into_iter().enumerate() {
        check("f32", name, range, worst32_1(n, 1 + i as u64, f, r, &gen), bound);
    }
    for (i, (name, f, r, range, gen, bound)) in cases32b().into_iter().enumerate() {
        check("f32", name, range, worst32_2(n, 101 + i as u64, f, r, &gen), bound);
    }
    for (i, (name, f, r, range, gen, bound)) in cases64().into_iter().enumerate() {
        check("f64", name, range, worst64_1(n, 201 + i as u64, f, r, &gen), bound);
    }
    for (i, (name, f, r, range, gen, bound)) in cases64b().into_iter().enumerate() {
        check("f64", name, range, worst64_2(n, 301 + i as u64, f, r, &gen), bound);
    }
    failures
}

#[test]
fn sampled_ulp_bounds() {
    let failures = run_all(SAMPLES, false);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore]
fn ulp_report() {
    let n =
        std::env::var("QUASAR_MATH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(SAMPLES);
    let failures = run_all(n, true);
    for f in &failures {
        println!("FAIL {f}");
    }
    if std::env::var("QUASAR_MATH_EXHAUSTIVE").is_ok() {
        exhaustive32();
    }
}

/// Every `f32` input of each unary routine (NaN inputs included, where the result must be
/// NaN); for `sin`/`cos`/`tan` also the maximum over the accurate range |x| <= 1.05e8.
fn exhaustive32() {
    let mut seen = Vec::new();
    for (name, f, r, _, _, _) in cases32() {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
        let chunk = (1u64 << 32) / threads;
        let results: Vec<(f64, u32, f64, u32)> = std::thread::scope(|sc| {
            let hs: Vec<_> = (0..threads)
                .map(|t| {
                    sc.spawn(move || {
                        let (mut all, mut all_at, mut acc, mut acc_at) = (0.0, 0, 0.0, 0);
                        for b in t * chunk..(t + 1) * chunk {
                            let x = f32::from_bits(b as u32);
                            let e = ulp32(f(x), r(x as f64));
                            if e > all {
                                (all, all_at) = (e, b as u32);
                            }
                            if x.abs() <= 1.05e8 && e > acc {
                                (acc, acc_at) = (e, b as u32);
                            }
                        }
                        (all, all_at, acc, acc_at)
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let all =
            results.iter().map(|r| (r.0, r.1)).fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
        let acc =
            results.iter().map(|r| (r.2, r.3)).fold((0.0, 0), |a, b| if b.0 > a.0 { b } else { a });
        println!(
            "exhaustive f32 {name:6} max {:.3} ULP at {:e}; |x| <= 1.05e8: max {:.3} ULP at {:e}",
            all.0,
            f32::from_bits(all.1),
            acc.0,
            f32::from_bits(acc.1)
        );
    }
}

const SPECIAL32: [f32; 26] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    3.0,
    -3.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1e-45, // smallest subnormal
    -1e-45,
    1e-40,
    f32::MAX,
    f32::MIN,
    f32::EPSILON,
    1.0 - f32::EPSILON / 2.0,
    1.0 + f32::EPSILON,
    core::f32::consts::FRAC_PI_2,
    88.72284,   // exp overflows just above
    -103.97208, // exp underflows to 0 just below
];

const SPECIAL64: [f64; 26] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    3.0,
    -3.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    1e-310,
    f64::MAX,
    f64::MIN,
    f64::EPSILON,
    1.0 - f64::EPSILON / 2.0,
    1.0 + f64::EPSILON,
    core::f64::consts::FRAC_PI_2,
    709.782712893384,
    -745.1332191019411,
];

const TRIG: [&str; 3] = ["sin", "cos", "tan"];

/// Beyond |x| = 2^26 pi/2 the reduction is not exact: sin and cos stay finite and in [-1, 1],
/// infinities give NaN.
#[test]
fn huge_trig_arguments() {
    let mut rng = Rng(7);
    for _ in 0..SAMPLES {
        let x = rng.log_uniform(26.0, 128.0, true) as f32;
        for v in [m32::sin(x), m32::cos(x)] {
            assert!((-1.0..=1.0).contains(&v), "{x:e} -> {v:e}");
        }
        let x = rng.log_uniform(26.0, 1024.0, true);
        for v in [m64::sin(x), m64::cos(x)] {
            assert!((-1.0..=1.0).contains(&v), "{x:e} -> {v:e}");
        }
    }
    for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
        assert!(m32::sin(x).is_nan() && m32::cos(x).is_nan() && m32::tan(x).is_nan());
    }
    for x in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        assert!(m64::sin(x).is_nan() && m64::cos(x).is_nan() && m64::tan(x).is_nan());
    }
}

/// Special inputs: the result must be the reference's exactly when that is NaN, an infinity or
/// a (signed) zero, and within the sampled bound otherwise.
#[test]
fn special_values() {
    let mut failures = Vec::new();
    for (name, f, r, _, _, bound) in cases32() {
        for x in SPECIAL32 {
            if TRIG.contains(&name) && x.abs() > 1e8 {
                continue; // beyond the documented argument range (see `huge_trig_arguments`)
            }
            let (got, want) = (f(x), r(x as f64));
            if ulp32(got, want) > bound {
                failures.push(format!("f32 {name}({x:e}) = {got:e}, want {want:e}"));
            }
        }
    }
    for (name, f, r, _, _, bound) in cases32b() {
        let extra = [1e10, -1e10, 16_777_218.0, -16_777_218.0, 8_388_609.0, -8_388_609.0, 0.25];
        for x in SPECIAL32.iter().chain(&extra) {
            for y in SPECIAL32.iter().chain(&extra) {
                let (got, want) = (f(*x, *y), r(*x as f64, *y as f64));
                if ulp32(got, want) > bound {
                    failures.push(format!("f32 {name}({x:e}, {y:e}) = {got:e}, want {want:e}"));
                }
            }
        }
    }
    for (name, f, r, _, _, bound) in cases64() {
        for x in SPECIAL64 {
            if TRIG.contains(&name) && x.abs() > 1e8 {
                continue;
            }
            let (got, want) = (f(x), r(x));
            if ulp64(got, want) > bound {
                failures.push(format!("f64 {name}({x:e}) = {got:e}, want {want:e}"));
            }
        }
    }
    for (name, f, r, _, _, bound) in cases64b() {
        let extra = [1e300, -1e300, 9_007_199_254_740_994.0, 9_007_199_254_740_993.0 - 2.0, 0.25];
        for x in SPECIAL64.iter().chain(&extra) {
            for y in SPECIAL64.iter().chain(&extra) {
                let (got, want) = (f(*x, *y), r(*x, *y));
                if ulp64(got, want) > bound {
                    failures.push(format!("f64 {name}({x:e}, {y:e}) = {got:e}, want {want:e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Writes `name x [y] result` lines for the `f64` routines to `$QUASAR_MATH_DUMP`, for
/// `mpcheck.py` to measure the true error with mpmath (the system libm, the reference of the
/// other tests, is itself off by more than 1 ULP in places: `tanh`, `log10`, `tan`).
#[test]
#[ignore]
fn dump_f64_samples() {
    use std::io::Write;
    let path = std::env::var("QUASAR_MATH_DUMP").expect("set QUASAR_MATH_DUMP");
    let n: usize =
        std::env::var("QUASAR_MATH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let only = std::env::var("QUASAR_MATH_ONLY").unwrap_or_default();
    for (i, (name, f, _, range, gen, _)) in cases64().into_iter().enumerate() {
        if !only.is_empty() && only != name {
            continue;
        }
        let mut rng = Rng(1001 + i as u64);
        for _ in 0..n {
            let x = gen(&mut rng);
            writeln!(out, "{name}\t{range}\t{:e}\t{:e}", x, f(x)).unwrap();
        }
    }
    for (i, (name, f, _, range, gen, _)) in cases64b().into_iter().enumerate() {
        if !only.is_empty() && only != name {
            continue;
        }
        let mut rng = Rng(2001 + i as u64);
        for _ in 0..n {
            let (x, y) = gen(&mut rng);
            writeln!(out, "{name}\t{range}\t{:e},{:e}\t{:e}", x, y, f(x, y)).unwrap();
        }
    }
}
