//! End to end: kernel output reductions, which the CPU back end combines in 64 lanes per row
//! (`qstd::rt::Lanes`), compared with the same reductions computed here in plain Rust. Run on
//! the CPU device and by `.ci/run` with every launch on interpreted PTX
//! (`QUASAR_SIM_GPU=ptx QUASAR_DEVICE=gpu`).
//!
//! Tolerances: `max`/`min` and integer sums are exact in any order and compared exactly.
//! Float sums add in another order than a serial loop (per block, 64 lanes per row combined in
//! a fixed tree): they are compared with the sum in f64 within `1e-6 * n` times the sum of
//! magnitudes for f32 (the worst-case bound of any order of `n` additions is about
//! `n * 6e-8`), `1e-14 * n` for f64; and on the CPU a second launch of the same shape gives the
//! same bits (a GPU's atomics add in any order).
//! Products likewise, relative to the product: `2.5e-7 * n` in f32 (two roundings per term),
//! `1e-15 * n` in f64.
//!
//! The last tests cover `prod`, `max` and `min` of fused expressions (the kernel generator) and
//! of plain loops (the loop parallelizer), whose kernel outputs start at the reduction's
//! identity: compared with the same computation in Rust (`ndarray`) and with the loops kept
//! serial (`{!serial for}`).

use quasar::Array;

mod k {
    quasar::quasar! { r#"
function [s : scalar] = __kernel__ sum_k(x : vec, pos : int)
    s += x[pos]
endfunction

function s : scalar = sum_kernel(x : vec)
    s = parallel_do(numel(x), x, sum_k)
endfunction

function [hi : scalar, lo : scalar] = __kernel__ extremes_k(x : vec, pos : int)
    hi ^^= x[pos]
    lo __= x[pos]
endfunction

function [hi : scalar, lo : scalar] = extremes(x : vec)
    [hi, lo] = parallel_do(numel(x), x, extremes_k)
endfunction

function [s : int, m : int] = __kernel__ int_k(x : vec[int], pos : int)
    s += x[pos]
    m ^^= x[pos]
endfunction

function [s : int, m : int] = int_stats(x : vec[int])
    [s, m] = parallel_do(numel(x), x, int_k)
endfunction

function [s : scalar] = __kernel__ smooth_k(x : mat'clamped, pos : ivec2)
    s += x[pos[0], pos[1] - 1] + 2 * x[pos] + x[pos[0], pos[1] + 1]
endfunction

function s : scalar = smooth_total(x : mat)
    s = parallel_do(size(x), x, smooth_k)
endfunction

function [s : scalar] = __kernel__ positive_k(x : vec, pos : int)
    if x[pos] <= 0
        return
    endif
    s += x[pos]
endfunction

function s : scalar = positive_total(x : vec)
    s = parallel_do(numel(x), x, positive_k)
endfunction

function s : scalar = dot_expr(x : vec, y : vec)
    s = sum(x .* y)
endfunction

function [s : cscalar] = __kernel__ csum_k(x : vec, pos : int)
    s += complex(x[pos], -2 * x[pos])
endfunction

function s : cscalar = complex_total(x : vec)
    s = parallel_do(numel(x), x, csum_k)
endfunction

function [] = __kernel__ weighted_hist_k(x : vec, bins : vec[int], h : vec, pos : int)
    h[bins[pos]] += x[pos]
endfunction

function h : vec = weighted_histogram(x : vec, bins : vec[int], n : int)
    h = zeros(n)
    parallel_do(numel(x), x, bins, h, weighted_hist_k)
endfunction

function [p : scalar, hi : scalar, lo : scalar] = fused_reductions(x : vec, y : vec)
    p = prod(x .* y)
    hi = max(x - y)
    lo = min(abs(x) + 1)
endfunction

"# }
}

/// The same in double precision (`scalar` is `f64`).
mod kd {
    quasar::quasar! { double = true, r#"
function [s : scalar] = __kernel__ dot_k(x : vec, y : vec, pos : int)
    s += x[pos] * y[pos]
endfunction

function s : scalar = dot_kernel(x : vec, y : vec)
    s = parallel_do(numel(x), x, y, dot_k)
endfunction

function [p : scalar, hi : int, lo : scalar] = loop_reductions(x : vec, n : vec[int], z : vec)
    p = 2.0
    for i = 0..numel(x) - 1
        p *= x[i]
    endfor
    hi = -5000
    for i = 0..numel(n) - 1
        hi ^^= n[i]
    endfor
    lo = 0.25
    for i = 0..numel(z) - 1
        lo __= z[i] * 2
    endfor
endfunction

function [p : scalar, hi : int, lo : scalar] = loop_reductions_serial(x : vec, n : vec[int], z : vec)
    p = 2.0
    {!serial for}
    for i = 0..numel(x) - 1
        p *= x[i]
    endfor
    hi = -5000
    {!serial for}
    for i = 0..numel(n) - 1
        hi ^^= n[i]
    endfor
    lo = 0.25
    {!serial for}
    for i = 0..numel(z) - 1
        lo __= z[i] * 2
    endfor
endfunction
"# }
}

fn data(n: usize, seed: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919 + seed * 104729) % 1000) as f32 / 1000.0 - 0.3).collect()
}

/// Every launch forced onto the (simulated) GPU, as `.ci/run` does: its atomics combine in
/// any order, and complex kernel outputs are not compiled to PTX yet.
fn forced_gpu() -> bool {
    std::env::var("QUASAR_DEVICE").is_ok_and(|d| d == "gpu")
}

fn vecf(v: &[f32]) -> Array<f32> {
    Array::from_vec(&[v.len()], v.to_vec()).unwrap()
}

/// `got` is within `per_term * n * sum |terms|` of the exact `want` (a sum of `n` terms).
fn close(what: &str, got: f64, want: f64, magnitude: f64, n: usize, per_term: f64) {
    let tol = per_term * n.max(1) as f64 * magnitude;
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want} (tolerance {tol})");
}

/// Lengths around the 64 lanes and the block sizes, and long enough for many blocks.
const LENGTHS: [usize; 12] = [0, 1, 15, 16, 33, 63, 64, 65, 129, 1000, 4099, 100_003];

#[test]
fn float_sums_in_lanes_agree_with_the_exact_sum_and_repeat_bit_for_bit() {
    for n in LENGTHS {
        let v = data(n, 1);
        let x = vecf(&v);
        let got = k::sum_kernel(&x).unwrap();
        let exact: f64 = v.iter().map(|&a| a as f64).sum();
        let mag: f64 = v.iter().map(|&a| (a as f64).abs()).sum();
        close(&format!("sum of {n}"), got as f64, exact, mag, n, 1e-6);
        if !forced_gpu() {
            assert_eq!(k::sum_kernel(&x).unwrap().to_bits(), got.to_bits(), "sum of {n} repeats");
        }
    }
}

#[test]
fn a_double_dot_product_agrees_with_ndarray() {
    for n in LENGTHS {
        let a: Vec<f64> = data(n, 2).iter().map(|&v| v as f64 * 3.0).collect();
        let b: Vec<f64> = data(n, 3).iter().map(|&v| v as f64 - 0.1).collect();
        let (x, y) =
            (quasar::ndarray::Array1::from(a.clone()), quasar::ndarray::Array1::from(b.clone()));
        let want = x.dot(&y);
        let mag: f64 = a.iter().zip(&b).map(|(p, q)| (p * q).abs()).sum();
        let (xa, ya) = (Array::from_vec(&[n], a).unwrap(), Array::from_vec(&[n], b).unwrap());
        let got = kd::dot_kernel(&xa, &ya).unwrap();
        close(&format!("dot of {n}"), got, want, mag, n, 1e-14);
    }
}

#[test]
fn max_and_min_outputs_are_exact_and_start_at_zero() {
    for n in LENGTHS {
        let v = data(n, 4);
        let (hi, lo) = k::extremes(&vecf(&v)).unwrap();
        // The outputs start at zero (manual §4.7): `max(0, x…)` and `min(0, x…)`.
        assert_eq!(hi, v.iter().fold(0.0f32, |a, &b| a.max(b)), "max of {n}");
        assert_eq!(lo, v.iter().fold(0.0f32, |a, &b| a.min(b)), "min of {n}");
        let shifted: Vec<f32> = v.iter().map(|a| a - 1.0).collect();
        let (hi, _) = k::extremes(&vecf(&shifted)).unwrap();
        assert_eq!(hi, 0.0, "max of {n} negative values and the start value");
    }
}

#[test]
fn integer_sums_and_maxima_are_exact() {
    for n in LENGTHS {
        let v: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 2001 - 1000).collect();
        let x = Array::from_vec(&[n], v.clone()).unwrap();
        let (s, m) = k::int_stats(&x).unwrap();
        assert_eq!(s, v.iter().sum::<i32>(), "sum of {n}");
        assert_eq!(m, v.iter().copied().fold(0, i32::max), "max of {n}");
    }
}

#[test]
fn a_two_dimensional_sum_with_border_and_interior_segments() {
    for (m, n) in [(1, 1), (3, 2), (5, 17), (37, 101), (300, 41)] {
        let v = data(m * n, 5);
        let x = Array::from_vec(&[m, n], v.clone()).unwrap();
        let got = k::smooth_total(&x).unwrap();
        let at = |i: usize, j: isize| v[i * n + j.clamp(0, n as isize - 1) as usize] as f64;
        let (mut want, mut mag) = (0.0f64, 0.0f64);
        for i in 0..m {
            for j in 0..n as isize {
                let t = at(i, j - 1) + 2.0 * at(i, j) + at(i, j + 1);
                want += t;
                mag += t.abs();
            }
        }
        close(&format!("{m}x{n}"), got as f64, want, mag, 4 * m * n, 1e-6);
        if !forced_gpu() {
            assert_eq!(k::smooth_total(&x).unwrap().to_bits(), got.to_bits(), "{m}x{n} repeats");
        }
    }
}

#[test]
fn threads_that_return_early_add_nothing() {
    for n in LENGTHS {
        let v = data(n, 6);
        let got = k::positive_total(&vecf(&v)).unwrap();
        let pos = v.iter().filter(|&&a| a > 0.0);
        let want: f64 = pos.clone().map(|&a| a as f64).sum();
        close(&format!("positive sum of {n}"), got as f64, want, want, n, 1e-6);
    }
}

#[test]
fn sum_of_a_product_fused_by_the_kernel_generator() {
    for n in LENGTHS {
        let (a, b) = (data(n, 7), data(n, 8));
        let got = k::dot_expr(&vecf(&a), &vecf(&b)).unwrap();
        let terms = a.iter().zip(&b).map(|(&p, &q)| p as f64 * q as f64);
        let want: f64 = terms.clone().sum();
        let mag: f64 = terms.map(f64::abs).sum();
        close(&format!("sum(x .* y) of {n}"), got as f64, want, mag, n, 1e-6);
    }
}

/// Values near 1, so that products of many stay in range.
fn near_one(n: usize, seed: usize) -> Vec<f32> {
    data(n, seed).iter().map(|v| 1.0 + (v - 0.2) * 1e-3).collect()
}

#[test]
fn prod_max_and_min_of_fused_expressions() {
    use quasar::ndarray::Array1;
    for n in LENGTHS {
        let (a, b) = (Array1::from(near_one(n, 9)), Array1::from(near_one(n, 10)));
        let (x, y) = (vecf(a.as_slice().unwrap()), vecf(b.as_slice().unwrap()));
        if n == 0 {
            // `max`/`min` of nothing: the library's error, as written.
            assert!(k::fused_reductions(&x, &y).is_err());
            continue;
        }
        let (p, hi, lo) = k::fused_reductions(&x, &y).unwrap();
        let want_p = a.iter().zip(&b).map(|(&u, &v)| u as f64 * v as f64).product::<f64>();
        close(&format!("prod of {n}"), p as f64, want_p, want_p, 2 * n, 2.5e-7 / 2.0);
        let d = &a - &b;
        assert_eq!(hi, d.fold(f32::NEG_INFINITY, |m, &v| m.max(v)), "max of {n}");
        let e = a.mapv(|v| v.abs() + 1.0);
        assert_eq!(lo, e.fold(f32::INFINITY, |m, &v| m.min(v)), "min of {n}");
    }
}

#[test]
fn prod_max_and_min_loops_equal_the_serial_loops() {
    for n in LENGTHS {
        let xd: Vec<f64> = near_one(n, 11).iter().map(|&v| v as f64).collect();
        let ni: Vec<i32> = (0..n as i32).map(|i| (i * 7919) % 20001 - 10000).collect();
        let z: Vec<f64> = data(n, 12).iter().map(|&v| v as f64).collect();
        let x = Array::from_vec(&[n], xd.clone()).unwrap();
        let ns = Array::from_vec(&[n], ni.clone()).unwrap();
        let zs = Array::from_vec(&[n], z.clone()).unwrap();
        let (p, hi, lo) = kd::loop_reductions(&x, &ns, &zs).unwrap();
        let (sp, shi, slo) = kd::loop_reductions_serial(&x, &ns, &zs).unwrap();
        let want_p = 2.0 * xd.iter().product::<f64>();
        close(&format!("product loop of {n}"), p, want_p, want_p, n, 1e-15);
        close(&format!("serial product loop of {n}"), sp, want_p, want_p, n, 1e-15);
        // Exact, and from the values before the loops.
        let want_hi = ni.iter().copied().fold(-5000, i32::max);
        let want_lo = z.iter().fold(0.25f64, |m, &v| m.min(v * 2.0));
        assert_eq!((hi, lo), (want_hi, want_lo), "{n}");
        assert_eq!((shi, slo), (want_hi, want_lo), "serial {n}");
    }
}

#[test]
fn complex_sums_and_indexed_float_accumulations() {
    for n in LENGTHS {
        let v = data(n, 13);
        let total = k::complex_total(&vecf(&v));
        if forced_gpu() && n == 0 {
            // An empty launch runs nothing on any device: the output keeps its start value.
            let t = total.unwrap();
            assert_eq!((t.re, t.im), (0.0, 0.0));
        } else if forced_gpu() {
            let e = total.expect_err("complex outputs have no PTX yet").to_string();
            assert!(e.contains("not supported by the PTX back end"), "{e}");
        } else {
            let got = total.unwrap();
            let exact: f64 = v.iter().map(|&a| a as f64).sum();
            let mag: f64 = v.iter().map(|&a| (a as f64).abs()).sum();
            close(&format!("re of {n}"), got.re as f64, exact, mag, n, 1e-6);
            close(&format!("im of {n}"), got.im as f64, -2.0 * exact, 2.0 * mag, n, 1e-6);
        }
        // `h[bins[pos]] += x[pos]`: atomic additions into 7 bins, in any order.
        let bins: Vec<i32> = (0..n as i32).map(|i| (i * 31) % 7).collect();
        let h = k::weighted_histogram(&vecf(&v), &Array::from_vec(&[n], bins.clone()).unwrap(), 7);
        let h = h.unwrap().to_vec().unwrap();
        for (b, got) in h.iter().enumerate() {
            let terms = v.iter().zip(&bins).filter(|(_, &k)| k as usize == b);
            let want: f64 = terms.clone().map(|(&a, _)| a as f64).sum();
            let mag: f64 = terms.map(|(&a, _)| (a as f64).abs()).sum();
            close(&format!("bin {b} of {n}"), *got as f64, want, mag, n, 1e-6);
        }
    }
}
