//! The kernels written for the PTX back end (`quasar-core/tests/ptx_kernels`, which
//! `ptxas` assembles) and the manual's GPU examples (`tests/common/manual_kernels.q`), run
//! once on the CPU and once on the GPU and compared, with inputs that probe where PTX and Rust
//! differ: NaN, ±0, ±inf, subnormals, sizes that are not multiples of the block, 1-, 2- and
//! 3-D launches. The warp and cooperative-group kernels are GPU-only (the CPU back end does
//! not compile them): their results are checked against values computed here.
//!
//! CI runs this under `QUASAR_SIM_GPU=ptx` (the GPU is the PTX interpreter); without a GPU
//! each test prints a skip line, unless `QUASAR_REQUIRE_GPU=1`.

mod common;

use common::{both, gpu_or_skip, on};
use quasar::{f16, Array, Complex, SchedMode};

mod basics {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/basics.q");
}
mod atomics {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/atomics.q");
}
mod complex {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/complex.q");
}
mod control {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/control.q");
}
mod coop {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/coop.q");
}
mod fnvalues {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/fnvalues.q");
}
mod half {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/half.q");
}
mod math {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/math.q");
}
mod shared {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/shared.q");
}
mod slices {
    quasar::quasar!(file = "quasar-core/tests/ptx_kernels/slices.q");
}
mod manual {
    quasar::quasar!(file = "tests/common/manual_kernels.q");
}
mod types_kernels {
    quasar::quasar!(file = "quasar-core/tests/types_ok/kernels.q");
}
mod types_device_functions {
    quasar::quasar!(file = "quasar-core/tests/types_ok/device_functions.q");
}
mod types_indexing {
    quasar::quasar!(file = "quasar-core/tests/types_ok/indexing.q");
}
mod types_flow_joins {
    quasar::quasar!(file = "quasar-core/tests/types_ok/flow_joins.q");
}
mod types_lambdas {
    quasar::quasar!(file = "quasar-core/tests/types_ok/lambdas.q");
}
/// The parallelised loop of types_ok/flow_joins.q (a script, which returns nothing) in a
/// function that returns its sum: the same kernel, whose result can be checked.
mod flow_joins_loop {
    quasar::quasar! { r#"
function acc = flow_sum()
    acc = 0.0
    for k = 0..3
        acc += k
    endfor
endfunction
"# }
}

/// Values where PTX and Rust semantics part: NaN, signed zeros and infinities, subnormals,
/// halfway cases of rounding, values beyond the integer ranges.
const SPECIAL: [f32; 24] = [
    f32::NAN,
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e-40,
    -1e-40,
    f32::MIN_POSITIVE,
    1.0,
    -1.0,
    0.5,
    -0.5,
    1.5,
    2.5,
    -2.5,
    3.7,
    -7.25,
    1e30,
    -1e30,
    3e9,
    -3e9,
    100.0,
    0.1,
    -1e-7,
];

/// `n` values cycling through [`SPECIAL`] and ordinary ones.
fn specials(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            if i % 3 == 0 {
                SPECIAL[(i / 3) % SPECIAL.len()]
            } else {
                (i as f32 * 0.37).sin() * 9.0
            }
        })
        .collect()
}

fn arr<T: quasar::Element + Copy>(shape: &[usize], v: Vec<T>) -> Array<T> {
    Array::from_vec(shape, v).unwrap()
}

/// Bit-identical floats (any NaN matches any NaN).
fn same_f32(name: &str, c: &[f32], g: &[f32]) {
    assert_eq!(c.len(), g.len(), "{name}: lengths");
    for (i, (a, b)) in c.iter().zip(g).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
        assert!(
            ok,
            "{name}: element {i}: CPU {a:e} ({:#x}) vs GPU {b:e} ({:#x})",
            a.to_bits(),
            b.to_bits()
        );
    }
    println!("{name}: {} elements bit-identical", c.len());
}

fn same_f64(name: &str, c: &[f64], g: &[f64]) {
    assert_eq!(c.len(), g.len(), "{name}: lengths");
    for (i, (a, b)) in c.iter().zip(g).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits();
        assert!(ok, "{name}: element {i}: CPU {a:e} vs GPU {b:e}");
    }
    println!("{name}: {} elements bit-identical", c.len());
}

/// Within `tol` relative to `1 + |cpu|`; NaN and infinities must agree exactly.
fn near(name: &str, c: &[f32], g: &[f32], tol: f32) {
    near_by(name, c, g, |_, cpu| tol * (1.0 + cpu.abs()));
}

/// Within `allowed(index, cpu)` absolute; NaN and infinities must agree exactly.
fn near_by(name: &str, c: &[f32], g: &[f32], allowed: impl Fn(usize, f32) -> f32) {
    assert_eq!(c.len(), g.len(), "{name}: lengths");
    let mut worst = 0f32;
    for (i, (a, b)) in c.iter().zip(g).enumerate() {
        if a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite() {
            let ok = (a.is_nan() && b.is_nan()) || a == b;
            assert!(ok, "{name}: element {i}: CPU {a:e} vs GPU {b:e}");
            continue;
        }
        let (err, ok) = ((a - b).abs(), allowed(i, *a));
        assert!(err <= ok, "{name}: element {i}: CPU {a:e} vs GPU {b:e} (allowed {ok:e})");
        worst = worst.max(err / (1.0 + a.abs()));
    }
    println!("{name}: {} elements, max relative difference {worst:.2e}", c.len());
}

/// Finite values beyond ±1000 brought into range, so that the math kernels' other functions
/// stay finite and comparable. `sin`, `cos` and `tan` of large arguments are checked by
/// `trigonometry_of_large_arguments` up to [`TRIG_RANGE`].
fn moderate(v: f32) -> f32 {
    if v.is_finite() && v.abs() > 1e3 {
        v.signum() * 999.25
    } else {
        v
    }
}

#[test]
fn basics_arithmetic_modes_and_control() {
    if !gpu_or_skip("basics_arithmetic_modes_and_control") {
        return;
    }
    for n in [1usize, 31, 1000] {
        let x = specials(n);
        let run = |a: f32| {
            let y = arr(&[n], x.iter().rev().copied().collect());
            basics::run_saxpy(&arr(&[n], x.clone()), &y, a)?;
            y.to_vec()
        };
        for a in [2.0, -0.0, f32::NAN, 1e-40] {
            let (c, g) = both("saxpy", false, || run(a)).unwrap();
            same_f32(&format!("saxpy n={n} a={a}"), &c, &g);
        }
    }
    for (m, n) in [(1, 1), (4, 4), (13, 29)] {
        let a = specials(m * n);
        let (c, g) = both("modes", false, || {
            let y = Array::zeros(&[m, n])?;
            basics::run_modes(&arr(&[m, n], a.clone()), &y)?;
            y.to_vec()
        })
        .unwrap();
        same_f32(&format!("modes {m}x{n}"), &c, &g);
    }
    for k in [0, 5, 10, 200] {
        let (c, g) = both("control", false, || {
            let y = Array::zeros(&[77])?;
            basics::run_control(&y, k)?;
            y.to_vec()
        })
        .unwrap();
        same_f32(&format!("control n={k}"), &c, &g);
    }
}

#[test]
fn basics_atomics_outputs_and_widths() {
    if !gpu_or_skip("basics_atomics_outputs_and_widths") {
        return;
    }
    let bins = 7;
    let x: Vec<i32> = (0..1003).map(|i| (i * 13 % bins) as i32).collect();
    let (c, g) = both("histogram", false, || {
        let h = Array::<i32>::zeros(&[bins])?;
        let s = Array::<f32>::zeros(&[bins])?;
        basics::run_histogram(&arr(&[x.len()], x.clone()), &h, &s)?;
        Ok((h.to_vec()?, s.to_vec()?))
    })
    .unwrap();
    // h[1] (`+= 1` and `__= bin`), s[0] (`+= 0.5` and `^^=`) and s[2] (`+= 0.5` and `*= 1.5`)
    // mix two atomic operations: their values depend on the order of the threads.
    let count = |b: i32| x.iter().filter(|&&v| v == b).count() as i32;
    for k in (0..bins).filter(|&k| k != 1) {
        assert_eq!((c.0[k], g.0[k]), (count(k as i32), count(k as i32)), "histogram bin {k}");
    }
    for k in (0..bins).filter(|&k| k != 0 && k != 2) {
        let want = 0.5 * count(k as i32) as f32;
        same_f32(&format!("histogram sum {k}"), &[c.1[k], g.1[k]], &[want, want]);
    }

    for v in [
        (0..1000).map(|i| ((i * 37) % 101) as f32 - 50.0).collect::<Vec<_>>(),
        specials(100),
        vec![f32::NEG_INFINITY, -3.5, -1e-40, -0.0],
        vec![3e9, 1.0],
    ] {
        let (c, g) =
            both("reduce_out", false, || basics::run_reduce(&arr(&[v.len()], v.clone()))).unwrap();
        same_f32(&format!("reduce_out total of {}", v.len()), &[c.0], &[g.0]);
        assert_eq!(c.1, g.1, "reduce_out biggest of {v:?}");
    }

    let n = 300;
    let (c, g) = both("widths", false, || {
        let a = arr(&[n], (0..n).map(|i| (i * 7) as u8).collect());
        let b = arr(&[n], (0..n).map(|i| (i as i16).wrapping_mul(331)).collect());
        let c = arr(&[n], (0..n).map(|i| (i64::MAX - 150).wrapping_add(i as i64)).collect());
        let d = arr(&[n], (0..n).map(|i| i as u32 % 3).collect());
        basics::run_widths(&a, &b, &c, &d)?;
        Ok((a.to_vec()?, b.to_vec()?, c.to_vec()?, d.to_vec()?))
    })
    .unwrap();
    assert_eq!(c, g, "widths");
    assert_eq!(g.0[1], 7u8.wrapping_add(200));
    assert_eq!(g.3[0], u32::MAX);
}

#[test]
fn basics_math() {
    if !gpu_or_skip("basics_math") {
        return;
    }
    let (m, n) = (23, 37);
    let x: Vec<f32> = specials(m * n).into_iter().map(moderate).collect();
    let (c, g) = both("math", false, || {
        let y = Array::zeros(&[m, n])?;
        basics::run_math(&arr(&[m, n], x.clone()), &y)?;
        y.to_vec()
    })
    .unwrap();
    near("math", &c, &g, 1e-5);
}

#[test]
fn atomics_of_every_type() {
    if !gpu_or_skip("atomics_of_every_type") {
        return;
    }
    for n in [20usize, 37] {
        let init = [0.0, 0.0, 1.0, 2f32.powi(-100), f32::NEG_INFINITY, f32::INFINITY, 0.0, 0.0];
        let (c, g) = both("atomics_f32", false, || {
            let s = arr(&[8], init.to_vec());
            atomics::run_atomics_f32(n as i32, &s)?;
            s.to_vec()
        })
        .unwrap();
        // s[7] is the value one thread's `+=` returned: any of them.
        same_f32(&format!("atomics_f32 n={n}"), &c[..7], &g[..7]);
        let nf = n as f32;
        let times = (0..n).fold(1f32, |a, _| a * 1.5);
        let want = [nf, -2.0 * nf, times, 2f64.powi(-100 - n as i32) as f32];
        same_f32("atomics_f32 against Rust", &g[..4], &want);
        assert_eq!(g[4..7], [nf - 1.0, 0.0, 3.0 * nf]);
        for s7 in [c[7], g[7]] {
            assert!(s7 % 3.0 == 0.0 && (3.0..=3.0 * nf).contains(&s7), "s[7] = {s7}");
        }

        let (c, g) = both("atomics_int", false, || {
            let a = arr(&[8], vec![0, 0, 0, 0, 0, -1, 0, 3]);
            let b = arr(&[8], vec![u32::MAX - 5, 0, 0, 0, 0, 0, 0, 0]);
            let c = arr(&[8], vec![1i64 << 40, -5, 0, 0, 0, 0, 0, 0]);
            let d = arr(&[8], vec![0u64, u64::MAX, 0, 0, 0, 0, 0, 0]);
            atomics::run_atomics_int(n as i32, &a, &b, &c, &d)?;
            Ok((a.to_vec()?, b.to_vec()?, c.to_vec()?, d.to_vec()?))
        })
        .unwrap();
        assert_eq!(c, g, "atomics_int n={n}");
        let s: i32 = (0..n as i32).sum();
        let xor = (0..n as i32).fold(0, |a, b| a ^ b);
        let or = (0..n as i32).fold(0, |a, b| a | b);
        let mul = 3i32.wrapping_mul(1i32.wrapping_shl(n as u32).wrapping_mul(i32::from(n < 32)));
        assert_eq!(g.0, [s, -s, n as i32 - 1, 0, or, 0, xor, mul]);
        assert_eq!(g.1[..2], [(u32::MAX - 5).wrapping_add(s as u32), n as u32 - 1]);
        assert_eq!(g.2[..3], [(1i64 << 40) + i64::from(s), n as i64 - 1, -i64::from(s)]);
        assert_eq!(g.3[..2], [s as u64, 0]);

        let (c, g) = both("atomics_f64", false, || {
            let s = arr(&[8], vec![0.5f64, f64::NEG_INFINITY, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
            atomics::run_atomics_f64(n as i32, &s)?;
            s.to_vec()
        })
        .unwrap();
        same_f64(&format!("atomics_f64 n={n}"), &c, &g);
        assert_eq!(g[..3], [0.5 + n as f64, 2.0, (0..n).fold(1f64, |a, _| a * 3.0)]);
    }
}

#[test]
fn complex_kernels() {
    if !gpu_or_skip("complex_kernels") {
        return;
    }
    let n = 61;
    let z: Vec<Complex<f32>> = (0..n)
        .map(|i| match i {
            0 => Complex::new(0.0, 0.0),
            1 => Complex::new(-0.0, 0.0),
            2 => Complex::new(-0.0, -0.0),
            3 => Complex::new(1e-40, -1e-40),
            _ => Complex::new((i as f32 * 0.7).sin() * 3.0, (i as f32 * 1.3).cos() * 2.0),
        })
        .collect();
    let (c, g) = both("complex_arith", false, || {
        let y = Array::<Complex<f32>>::zeros(&[n])?;
        complex::run_complex_arith(&arr(&[n], z.clone()), &y, Complex::new(0.5, -1.5))?;
        y.to_vec()
    })
    .unwrap();
    let parts = |v: &[Complex<f32>]| v.iter().flat_map(|c| [c.re, c.im]).collect::<Vec<_>>();
    near("complex_arith", &parts(&c), &parts(&g), 2e-6);

    let (c, g) = both("complex_parts", false, || {
        let m = Array::zeros(&[n / 4, 4])?;
        complex::run_complex_parts(&arr(&[n / 4, 4], z[..n / 4 * 4].to_vec()), &m)?;
        m.to_vec()
    })
    .unwrap();
    near("complex_parts", &c, &g, 2e-6);

    let zi: Vec<Complex<f32>> =
        (0..103).map(|i| Complex::new((i % 7) as f32 - 3.0, (i % 5) as f32)).collect();
    let (c, g) = both("complex_accumulate", false, || {
        let acc = Array::<Complex<f32>>::zeros(&[4])?;
        complex::run_complex_accumulate(&arr(&[zi.len()], zi.clone()), &acc)?;
        acc.to_vec()
    })
    .unwrap();
    assert_eq!(c, g, "complex_accumulate");
    let mut want = [Complex::new(0.0f32, 0.0); 4];
    for (p, v) in zi.iter().enumerate() {
        let v = if p > 3 { *v } else { -*v };
        want[p % 4] += v * v;
    }
    assert_eq!(g, want);
}

#[test]
fn control_flow_narrow_integers_and_doubles() {
    if !gpu_or_skip("control_flow_narrow_integers_and_doubles") {
        return;
    }
    for (m, n) in [(3, 5), (9, 14)] {
        let x = specials(m * n);
        for k in [1, 3, 20] {
            let (c, g) = both("flow", false, || {
                let y = Array::zeros(&[m, n])?;
                control::run_flow(&arr(&[m, n], x.clone()), &y, k)?;
                y.to_vec()
            })
            .unwrap();
            same_f32(&format!("flow {m}x{n} n={k}"), &c, &g);
        }
    }
    let n = 260;
    let (c, g) = both("narrow", false, || {
        let a = arr(&[n], (0..n).map(|i| (i as i32 - 128) as i8).collect());
        let b = arr(&[n], (0..n).map(|i| (i as u16).wrapping_mul(2017)).collect());
        control::run_narrow(&a, &b)?;
        Ok((a.to_vec()?, b.to_vec()?))
    })
    .unwrap();
    assert_eq!(c, g, "narrow");
    let x: Vec<f64> =
        specials(200).into_iter().map(f64::from).chain([2.5, -2.5, 0.5, 1e300]).collect();
    let (c, g) = both("doubles", false, || {
        let a = arr(&[x.len()], x.clone());
        control::run_doubles(&a)?;
        a.to_vec()
    })
    .unwrap();
    same_f64("doubles", &c, &g);
}

#[test]
fn warp_reductions_match_the_sum() {
    if !gpu_or_skip("warp_reductions_match_the_sum") {
        return;
    }
    // GPU-only kernels: integers, so every summation order gives the exact sum.
    for n in [32usize, 96, 1024, 112] {
        let x = arr(&[n], (0..n).map(|i| ((i * 7) % 19) as f32 - 9.0).collect());
        let want: f32 = x.to_vec().unwrap().iter().sum();
        let got = on(SchedMode::Gpu, || coop::warp_sum(&x)).unwrap();
        assert_eq!(got, want, "reduce_sum n={n}");
        if n % 32 == 0 {
            let got = on(SchedMode::Gpu, || coop::warp_sum32(&x)).unwrap();
            assert_eq!(got, want, "reduce_sum32 n={n}");
        }
    }
}

#[test]
fn block_copy_with_a_thread_block() {
    if !gpu_or_skip("block_copy_with_a_thread_block") {
        return;
    }
    let a0: Vec<f32> = (0..100).map(|i| i as f32 * 0.5 - 20.0).collect();
    // A `thread_block` makes the kernel GPU-only.
    let a = arr(&[10, 10], a0.clone());
    on(SchedMode::Gpu, || coop::run_block_copy(&a, 2.0, -1.0)).unwrap();
    let g = a.to_vec().unwrap();
    let want: Vec<f32> = a0.iter().map(|v| 2.0 * v - 1.0).collect();
    same_f32("block_copy against Rust", &g, &want);
}

#[test]
fn thread_block_tiles() {
    if !gpu_or_skip("thread_block_tiles") {
        return;
    }
    let n = 96;
    let x0: Vec<f32> = (0..n).map(|i| (i % 5) as f32).collect();
    let x = arr(&[n], x0.clone());
    on(SchedMode::Gpu, || coop::run_tiles(&x)).unwrap();
    let got = x.to_vec().unwrap();
    // Rank 0 of each tile of 16 writes 3·S + 16 + the tile's ballot of s > 1, taken inside
    // `if t.thread_idx == 0`: over the tile's active lanes, rank 0 alone (bit 0).
    for (i, (g, v)) in got.iter().zip(&x0).enumerate() {
        let s: f32 = x0[i / 16 * 16..i / 16 * 16 + 16].iter().sum();
        let want = if i % 16 == 0 { 3.0 * s + 16.0 + 1.0 } else { *v };
        assert_eq!(*g, want, "element {i}");
    }
}

#[test]
fn function_values() {
    if !gpu_or_skip("function_values") {
        return;
    }
    let n = 45;
    let a = arr(&[n], specials(n));
    let b = arr(&[n], (0..n).map(|i| i as f32 - 20.0).collect());
    let w = arr(&[3], vec![0.5f32, -2.0, 1e-40]);
    let (c, g) = both("combine", false, || {
        fnvalues::run_all(&a, &b, 1.5, 3, &w, Complex::new(2.0, 7.0))?.to_vec()
    })
    .unwrap();
    same_f32("combine/on_vectors", &c, &g);
}

#[test]
fn half_precision() {
    if !gpu_or_skip("half_precision") {
        return;
    }
    let hs: Vec<f16> = [
        f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        2f32.powi(-24),
        -2f32.powi(-20),
        65504.0,
        -65504.0,
        1.0,
        0.333,
        -2.5,
        1000.0,
        7.75,
    ]
    .iter()
    .cycle()
    .take(55)
    .enumerate()
    .map(|(i, v)| f16::from_f32(v * (1.0 + i as f32 / 64.0)))
    .collect();
    let bits = |v: &[f16]| v.iter().map(|h| h.to_f32()).collect::<Vec<_>>();
    let n = hs.len();
    for a in [f16::from_f32(1.5), f16::from_f32(-0.0), f16::from_f32(300.0)] {
        let (c, g) = both("half_axpy", false, || {
            let y = arr(&[n], hs.iter().rev().copied().collect());
            half::run_half_axpy(&arr(&[n], hs.clone()), &y, a)?;
            y.to_vec()
        })
        .unwrap();
        same_f32(&format!("half_axpy a={a}"), &bits(&c), &bits(&g));
    }
    let (c, g) = both("half_mixed", false, || {
        let y = Array::<f32>::zeros(&[n])?;
        let z = Array::<f16>::zeros(&[n])?;
        half::run_half_mixed(&arr(&[n], hs.clone()), &y, &z)?;
        Ok((y.to_vec()?, z.to_vec()?))
    })
    .unwrap();
    near("half_mixed y", &c.0, &g.0, 1e-5);
    same_f32("half_mixed z", &bits(&c.1), &bits(&g.1));
    let (c, g) = both("half_device", false, || {
        // One column: each thread reads x[pos[0], 0], its own element (no race).
        let x = arr(&[n, 1], hs.clone());
        half::run_half_device(&x)?;
        x.to_vec()
    })
    .unwrap();
    same_f32("half_device", &bits(&c), &bits(&g));
}

#[test]
fn elementary_and_vector_math() {
    if !gpu_or_skip("elementary_and_vector_math") {
        return;
    }
    let n = 150;
    let x: Vec<f32> = specials(n).into_iter().map(moderate).collect();
    let (c, g) = both("elementary", false, || {
        let y = Array::zeros(&[n, 6])?;
        math::run_elementary(&arr(&[n], x.clone()), &y)?;
        y.to_vec()
    })
    .unwrap();
    // Column 1 is sin + cos + tan: `tan` is `sin/cos` of the `.approx` functions on the GPU,
    // so near its poles it may differ by the documented bound (tests/common/math.rs).
    let tan = |i: usize| {
        let v = x[i / 6];
        let r = (v as f64).tan();
        (common::math::bound("tan", v, 0.0, r) + 2.0 * common::math::bound("sin", v, 0.0, 1.0))
            as f32
    };
    near_by("elementary", &c, &g, |i, cpu| {
        let rel = 2e-5 * (1.0 + cpu.abs());
        if i % 6 == 1 {
            rel.max(tan(i))
        } else {
            rel
        }
    });
    let (c, g) = both("vector_math", false, || {
        let y = Array::zeros(&[n / 3, 1])?;
        math::run_vector_math(&arr(&[n / 3, 3], x.clone()), &y)?;
        y.to_vec()
    })
    .unwrap();
    near("vector_math", &c, &g, 2e-5);
}

#[test]
fn shared_memory_sized_by_the_block() {
    if !gpu_or_skip("shared_memory_sized_by_the_block") {
        return;
    }
    let (m, n) = (16, 24);
    let x: Vec<f32> = (0..m * n).map(|i| i as f32).collect();
    let (c, g) = both("transpose_tile", false, || {
        let y = Array::zeros(&[m, n])?;
        shared::run_transpose_tile(&arr(&[m, n], x.clone()), &y)?;
        y.to_vec()
    })
    .unwrap();
    same_f32("transpose_tile", &c, &g);
    // Each 8 x 8 tile transposed, plus the 8 threads that counted each row of the tile.
    for i in 0..m {
        for j in 0..n {
            let (bi, bj) = (i / 8 * 8, j / 8 * 8);
            let src = (bi + (j - bj)) * n + bj + (i - bi);
            assert_eq!(g[i * n + j], x[src] + 8.0, "({i}, {j})");
        }
    }
    for len in [64usize, 100] {
        let x0: Vec<f32> = (0..len).map(|i| (i % 9) as f32 - 4.0).collect();
        let (c, g) = both("block_sum", false, || {
            let x = arr(&[len], x0.clone());
            shared::run_block_sum(&x)?;
            x.to_vec()
        })
        .unwrap();
        same_f32(&format!("block_sum {len}"), &c, &g);
    }
}

#[test]
fn slices_and_small_vectors() {
    if !gpu_or_skip("slices_and_small_vectors") {
        return;
    }
    let x: Vec<f32> = specials(40 * 4);
    let (c, g) =
        both("whole_rows", false, || slices::run_rows(&arr(&[40, 4], x.clone()))?.to_vec())
            .unwrap();
    same_f32("whole_rows", &c, &g);
    let (c, g) =
        both("small_vectors", false, || slices::run_small(&arr(&[57], x[..57].to_vec()))?.to_vec())
            .unwrap();
    same_f32("small_vectors", &c, &g);
}

#[test]
fn manual_reductions() {
    if !gpu_or_skip("manual_reductions") {
        return;
    }
    for n in [1usize, 511, 512, 5000] {
        let v: Vec<f32> = (0..n).map(|i| ((i * 31) % 17) as f32 - 8.0).collect();
        let want: f32 = v.iter().sum();
        let (c, g) = both("my_sum", false, || manual::manual_sum(&arr(&[n], v.clone()))).unwrap();
        assert_eq!((c, g), (want, want), "my_sum n={n}");
        let p: Vec<f32> = (0..n).map(|i| if i % 50 == 0 { -1.0 } else { 1.0 }).collect();
        let want_p: f32 = p.iter().product();
        let (c, g) = both("parallel_reduction", false, || {
            manual::manual_sum_and_product(&arr(&[n], p.clone()))
        })
        .unwrap();
        assert_eq!(c, g, "parallel_reduction n={n}");
        assert_eq!(g, (p.iter().sum(), want_p), "parallel_reduction n={n}");
    }
}

#[test]
fn kernels_assigning_to_their_parameters() {
    if !gpu_or_skip("kernels_assigning_to_their_parameters") {
        return;
    }
    // Each thread counts its own copy of k down to pos (the CPU back end once shared one).
    let (c, g) = both("countdown", false, || manual::run_countdown(45, 30)?.to_vec()).unwrap();
    let want: Vec<f32> = (0..45).map(|p| (30 - p).max(0) as f32).collect();
    assert_eq!((&c, &g), (&want, &want));
}

#[test]
fn manual_matrix_products() {
    if !gpu_or_skip("manual_matrix_products") {
        return;
    }
    for (m, k, n, alg, p) in [
        (2, 100, 3, 1, 64),
        (4, 37, 4, 1, 32),
        (19, 21, 13, 2, 8),
        (16, 16, 16, 2, 8),
        (7, 5, 11, 3, 0),
    ] {
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 3) % 7) as f32 * 0.5).collect();
        let (c, g) = both("dense_multiply", false, || {
            manual::dense_multiply(&arr(&[m, k], a.clone()), &arr(&[k, n], b.clone()), alg, p)?
                .to_vec()
        })
        .unwrap();
        let want: Vec<f32> = (0..m * n)
            .map(|ij| (0..k).map(|l| a[ij / n * k + l] * b[l * n + ij % n]).sum())
            .collect();
        // Small integers and halves: every order of the sums is exact.
        assert_eq!(c, g, "algorithm {alg} {m}x{k}x{n}");
        assert_eq!(g, want, "algorithm {alg} {m}x{k}x{n}");
    }
}

#[test]
fn manual_histogram() {
    if !gpu_or_skip("manual_histogram") {
        return;
    }
    let im: Vec<f32> = (0..10_007).map(|i| ((i * 7919) % 256) as f32 + 0.75).collect();
    let (c, g) = both("hist_kernel_global", false, || {
        manual::manual_histogram(&arr(&[im.len()], im.clone()), 256)?.to_vec()
    })
    .unwrap();
    assert_eq!(c, g);
    let mut want = vec![0f32; 256];
    for v in &im {
        want[*v as usize] += 1.0;
    }
    assert_eq!(g, want);
}

#[test]
fn slices_of_cubes() {
    if !gpu_or_skip("slices_of_cubes") {
        return;
    }
    for (m, n) in [(1, 1), (5, 1), (6, 9)] {
        let x: Vec<f32> = specials(m * n * 3).into_iter().map(|v| v.clamp(-1e6, 1e6)).collect();
        let (c, g) = both("rgb_ops", false, || {
            let y = Array::<f32>::zeros(&[m, n, 5])?;
            let z = Array::from_elem(&[m, n, 3], 10i32)?;
            slices::run_rgb_ops(&arr(&[m, n, 3], x.clone()), &y, &z)?;
            Ok((y.to_vec()?, z.to_vec()?))
        })
        .unwrap();
        same_f32(&format!("rgb_ops y {m}x{n}"), &c.0, &g.0);
        // z[i, j, 1] is written by threads j and j + 1 (`s..s + 1`) and added to by thread j:
        // its value depends on their order unless there is one column.
        for (k, (a, b)) in c.1.iter().zip(&g.1).enumerate() {
            if n == 1 || k % 3 != 1 {
                assert_eq!(a, b, "rgb_ops z {m}x{n} element {k}");
            }
        }
    }
}

/// `warp_ops` of coop.q computed lane by lane for whole warps (ranks are lanes).
fn warp_ops_model(x: &[f32], n: &[i32], d: &[i64]) -> (Vec<f32>, Vec<i32>, Vec<i64>) {
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for w in 0..x.len() / 32 {
        let (xs, ns, ds) = (&x[w * 32..][..32], &n[w * 32..][..32], &d[w * 32..][..32]);
        let down = |i: usize, by: usize| if i + by < 32 { i + by } else { i };
        let ballot =
            |f: &dyn Fn(usize) -> bool| (0..32).fold(0u32, |m, i| m | (u32::from(f(i)) << i));
        let match_any = |f: &dyn Fn(usize, usize) -> bool, i: usize| ballot(&|j| f(i, j));
        let all_same_s = xs.iter().all(|v| v.to_bits() == xs[0].to_bits());
        for i in 0..32 {
            let up = if i >= 1 { i - 1 } else { i };
            let a = xs[0] + xs[up] + xs[i ^ 3];
            let e1 = 2.0 * xs[down(i, 1)];
            let b = ns[5].wrapping_add(ns[down(i, 2)]);
            let m = ballot(&|j| xs[j] > 0.5)
                .wrapping_add(u32::from(ns.iter().all(|&k| k > 0)))
                .wrapping_add(u32::from(ns.iter().any(|&k| k < 0)))
                .wrapping_add(u32::MAX);
            let q = match_any(&|i, j| ns[j] == ns[i], i)
                .wrapping_add(if all_same_s { u32::MAX } else { 0 })
                .wrapping_add(match_any(&|i, j| ds[j] == ds[i], i));
            out.0.push(a + e1);
            out.1.push(b.wrapping_add(m.wrapping_add(q) as i32));
            out.2.push(ds[i ^ 16]);
        }
    }
    out
}

#[test]
fn warp_shuffles_votes_and_matches() {
    if !gpu_or_skip("warp_shuffles_votes_and_matches") {
        return;
    }
    for len in [32usize, 96] {
        let x: Vec<f32> = (0..len).map(|i| ((i * 7) % 5) as f32 * 0.25).collect();
        let n: Vec<i32> = (0..len).map(|i| ((i * 3) % 4) as i32 - (i % 7 == 0) as i32).collect();
        let d: Vec<i64> = (0..len).map(|i| (i as i64 % 3) << 40).collect();
        let (xa, na, da) = (arr(&[len], x.clone()), arr(&[len], n.clone()), arr(&[len], d.clone()));
        let v = Array::<f32>::zeros(&[len]).unwrap();
        on(SchedMode::Gpu, || coop::run_warp_ops(&xa, &na, &da, &v)).unwrap();
        let want = warp_ops_model(&x, &n, &d);
        same_f32(&format!("warp_ops x {len}"), &xa.to_vec().unwrap(), &want.0);
        assert_eq!(na.to_vec().unwrap(), want.1, "warp_ops n {len}");
        assert_eq!(da.to_vec().unwrap(), want.2, "warp_ops d {len}");
    }
}

#[test]
fn type_checker_sample_programs_run_on_both_devices() {
    if !gpu_or_skip("type_checker_sample_programs_run_on_both_devices") {
        return;
    }
    // Scripts without outputs: their kernels run (memory-checked on the interpreter).
    both("types_ok/kernels.q", false, types_kernels::script).unwrap();
    both("types_ok/device_functions.q", false, types_device_functions::script).unwrap();
}

/// The loops the loop parallelizer turns into kernels in the type checker's sample programs:
/// `total` of types_ok/indexing.q (a 2-D sum) and the sum of types_ok/flow_joins.q.
#[test]
fn parallelised_loops_of_the_type_checker_samples() {
    if !gpu_or_skip("parallelised_loops_of_the_type_checker_samples") {
        return;
    }
    for (m, n) in [(1, 1), (3, 5), (17, 45), (64, 200)] {
        // Integers: every order of summation gives the exact sum.
        let v: Vec<f32> = (0..m * n).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
        let want: f32 = v.iter().sum();
        let x = arr(&[m, n], v);
        let (c, g) = both("total", false, || types_indexing::total(&x)).unwrap();
        assert_eq!((c, g), (want, want), "total of {m}x{n}");
    }
    let (c, g) = both("flow_sum", false, flow_joins_loop::flow_sum).unwrap();
    assert_eq!((c, g), (6.0, 6.0), "0 + 1 + 2 + 3");
    // The scripts themselves (no outputs): their loop kernels run on the GPU, memory-checked.
    both("types_ok/indexing.q", false, types_indexing::script).unwrap();
    both("types_ok/flow_joins.q", false, types_flow_joins::script).unwrap();
}

/// The array expression the kernel generator fuses in the type checker's sample programs: the
/// lambda `x -> x + sum(mask)` of types_ok/lambdas.q, which its script applies to a cube.
#[test]
fn fused_expression_of_the_type_checker_samples() {
    if !gpu_or_skip("fused_expression_of_the_type_checker_samples") {
        return;
    }
    both("types_ok/lambdas.q", false, types_lambdas::script).unwrap();
}

/// The largest |x| for which `sin`, `cos` and `tan` are accurate on both devices: 2^24·2π ≈
/// 2^26·π/2 ≈ 1.05e8. Up to it both reduce the argument exactly enough for [`TRIG_ABS`].
/// Beyond it the PTX reduction's quotient `x/2π`, rounded in `f32`, is no longer the nearest
/// integer: the reduced argument grows past π (past 100π, where the interpreter warns that
/// `sin.approx` leaves the ISA's bound, from a few 1e9) and its rounding error with it; the
/// CPU's (quasar-std, `f64` Cody–Waite) products `j·π/2` stop being exact. Both lose accuracy
/// progressively, the PTX faster: measured `sin` errors on the interpreter 1e-5 at 5e8, 2e-5
/// at 1e9, 2e-4 at 1e10, 1e-2 at 1e12; on the CPU 1e-7, 2e-7, 3e-6, 2e-4.
const TRIG_RANGE: f64 = 1.0e8;

/// `sin`/`cos` absolute error on either device below [`TRIG_RANGE`]: `sin.approx`'s 2^-20.9
/// (≈ 5.1e-7, what a GPU may add to the interpreter's exact result) plus the reduction's
/// rounding (≤ 4e-7 measured) plus the result's rounding; `tan` the same times `1 + tan²`.
const TRIG_ABS: f64 = 1.5e-6;

#[test]
fn trigonometry_of_large_arguments() {
    if !gpu_or_skip("trigonometry_of_large_arguments") {
        return;
    }
    // Magnitudes spread logarithmically from 1 to TRIG_RANGE, both signs, and the largest
    // multiple-of-π-like values where the reduction cancels most.
    let n = 600;
    let mut x: Vec<f32> = (0..n)
        .map(|i| {
            let m = TRIG_RANGE.powf((i / 2) as f64 / (n / 2 - 1) as f64)
                * (1.0 - 0.01 * (i % 5) as f64);
            (if i % 2 == 0 { m } else { -m }) as f32
        })
        .collect();
    for k in [1e3f64, 12345.0, 1e5, 104_348.0, 3.0e6, 3.1e7] {
        x.push((k * std::f64::consts::PI) as f32);
        x.push((k * std::f64::consts::FRAC_PI_2) as f32);
    }
    let len = x.len();
    let (c, g) = both("trig", false, || {
        let y = Array::zeros(&[len, 3])?;
        math::run_trig(&arr(&[len], x.clone()), &y)?;
        y.to_vec()
    })
    .unwrap();
    let mut worst = [0f64; 2];
    for (k, (dev, got)) in [("CPU", &c), ("GPU", &g)].into_iter().enumerate() {
        for (i, &v) in x.iter().enumerate() {
            // The exact values of the f32 argument, from Rust's f64 functions.
            let v = f64::from(v);
            let (s, co, t) = (v.sin(), v.cos(), v.tan());
            let row = &got[3 * i..][..3];
            let errs = [
                (f64::from(row[0]) - s).abs(),
                (f64::from(row[1]) - co).abs(),
                (f64::from(row[2]) - t).abs() / (1.0 + t * t),
            ];
            for (name, e) in ["sin", "cos", "tan"].iter().zip(errs) {
                assert!(e <= TRIG_ABS, "{dev}: {name}({v:e}): error {e:.2e} ({row:?})");
                worst[k] = worst[k].max(e);
            }
        }
    }
    println!("trig up to {TRIG_RANGE:e}: max error CPU {:.2e}, GPU {:.2e}", worst[0], worst[1]);
}
