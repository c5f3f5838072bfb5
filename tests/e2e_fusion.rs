//! End to end: element-wise array expressions that the kernel generator
//! (`transform::kernel_generator`) fuses into one kernel each, compared with the operators
//! evaluated one at a time in f32, as the library evaluates the unfused expression (one
//! temporary array per operator). Run on the CPU device, and by `.ci/run` with every launch on
//! interpreted PTX (`QUASAR_SIM_GPU=ptx QUASAR_DEVICE=gpu`).
//!
//! Tolerances: relative 1e-5 for expressions of `+ - * /` and `max` (the same f32 operations
//! per element, so the CPU gives them exactly or within an ulp), 2e-4 where `sin`, `exp`,
//! `sqrt` or `.^` appear (the GPU's approximate math); sums relative 1e-5 of the sum of
//! magnitudes (the reduction adds in another order than the library's `sum`).

use quasar::Array;

mod k {
    quasar::quasar!(file = "tests/common/fusion.q");
}

fn mat(m: usize, n: usize, f: impl Fn(usize) -> f32) -> Array<f32> {
    Array::from_fn(&[m, n], f).unwrap()
}

fn close(what: &str, got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{what}[{i}]: {a} vs {b}");
    }
}

/// Element-wise `f` over equal-length slices, as one library operator does.
fn zip(a: &[f32], b: &[f32], f: impl Fn(f32, f32) -> f32) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| f(*x, *y)).collect()
}

fn values(a: &Array<f32>) -> Vec<f32> {
    a.to_vec().unwrap()
}

#[test]
fn a_fused_expression_equals_its_operators_one_at_a_time() {
    for (m, n) in [(1, 1), (3, 5), (37, 64), (130, 70)] {
        let a = mat(m, n, |i| ((i * 7) % 13) as f32 / 4.0 - 1.0);
        let x = mat(m, n, |i| ((i * 5) % 11) as f32 / 3.0);
        let b = mat(m, n, |i| ((i * 3) % 7) as f32 - 3.0);
        let got = values(&k::axpy_sq(&a, &x, &b).unwrap());
        let (av, xv, bv) = (values(&a), values(&x), values(&b));
        let t1 = zip(&av, &xv, |p, q| p * q);
        let t2: Vec<f32> = bv.iter().map(|v| v.powf(2.0)).collect();
        let want = zip(&t1, &t2, |p, q| p + q);
        close(&format!("axpy_sq {m}x{n}"), &got, &want, 1e-5);

        let got = values(&k::several(&a, &x, 0.25).unwrap());
        let want: Vec<f32> = (0..m * n)
            .map(|i| {
                let (p, q) = (av[i], xv[i]);
                let t1 = (p.sin() * q - 0.25).abs();
                let t2 = 1.0 + q * q;
                t1 / t2 + p.abs().sqrt() * 0.5 - p.max(q)
            })
            .collect();
        close(&format!("several {m}x{n}"), &got, &want, 2e-4);
    }
}

#[test]
fn a_three_dimensional_gamma_with_scalar_parameters() {
    let x = Array::from_fn(&[9, 17, 3], |i| ((i * 31) % 256) as f32).unwrap();
    let got = values(&k::gamma(&x, 2.2).unwrap());
    let want: Vec<f32> = values(&x).iter().map(|v| 255.0 * (v / 255.0).powf(1.0 / 2.2)).collect();
    close("gamma", &got, &want, 2e-4);
}

#[test]
fn a_fused_update_inside_a_serial_time_loop() {
    let x = Array::from_fn(&[100], |i| (i % 9) as f32).unwrap();
    let v = Array::from_fn(&[100], |i| (i % 4) as f32 - 1.5).unwrap();
    let got = values(&k::steps(&x, &v, 0.5, 6).unwrap());
    let mut want = values(&x);
    let vv = values(&v);
    for _ in 0..6 {
        let t1: Vec<f32> = vv.iter().map(|q| 0.5 * q).collect();
        let t2 = zip(&want, &t1, |p, q| p + q);
        let t3: Vec<f32> = want.iter().map(|p| 0.01 * p).collect();
        want = zip(&t2, &t3, |p, q| p - q);
    }
    close("steps", &got, &want, 1e-5);
}

#[test]
fn operands_that_are_calls_are_evaluated_first() {
    let x = mat(20, 30, |i| (i % 17) as f32 / 5.0);
    let got = values(&k::with_calls(&x, 0.7).unwrap());
    let e = (-0.7f32).exp();
    let want: Vec<f32> = values(&x).iter().map(|v| v * 0.7 - v * e).collect();
    close("with_calls", &got, &want, 2e-4);
}

#[test]
fn sums_and_means_of_fused_expressions() {
    let n = 5000;
    let x = Array::from_fn(&[n], |i| ((i * 7) % 19) as f32 / 7.0 - 1.0).unwrap();
    let y = Array::from_fn(&[n], |i| ((i * 11) % 23) as f32 / 9.0).unwrap();
    let (s, m) = k::dot_and_mean(&x, &y).unwrap();
    let (xv, yv) = (values(&x), values(&y));
    let prods = zip(&xv, &yv, |p, q| p * q);
    let want: f64 = prods.iter().map(|v| *v as f64).sum();
    let scale: f64 = prods.iter().map(|v| v.abs() as f64).sum();
    assert!((s as f64 - want).abs() <= 1e-5 * scale, "sum: {s} vs {want}");
    let sq = zip(&xv, &yv, |p, q| (p - q).powf(2.0));
    let want: f64 = sq.iter().map(|v| *v as f64).sum::<f64>() / n as f64;
    assert!((m as f64 - want).abs() <= 1e-5 * want, "mean: {m} vs {want}");

    let a = mat(64, 48, |i| ((i * 13) % 29) as f32 / 10.0);
    let s = k::sum_of_squares(&a).unwrap();
    let want: f64 = values(&a).iter().map(|v| (v * v + 1.0) as f64).sum();
    assert!((s as f64 - want).abs() <= 1e-5 * want, "sum of squares: {s} vs {want}");
    // The empty vector: no launch, the sum is zero.
    let e = Array::<f32>::zeros(&[0]).unwrap();
    assert_eq!(k::dot_and_mean(&e, &e).unwrap().0, 0.0);
}

#[test]
fn arrays_of_different_sizes_run_as_written_and_fail_as_the_library_does() {
    let a = mat(2, 3, |i| i as f32);
    let x = mat(3, 2, |i| i as f32);
    let err = k::axpy_sq(&a, &x, &a).unwrap_err().to_string();
    assert!(err.contains("size") || err.contains("shape"), "{err}");
    let v = Array::from_fn(&[4], |i| i as f32).unwrap();
    let w = Array::from_fn(&[5], |i| i as f32).unwrap();
    assert!(k::dot_and_mean(&v, &w).is_err());
}

#[test]
fn the_fused_expressions_run_as_generated_kernels_on_the_chosen_device() {
    let a = mat(8, 8, |i| i as f32);
    k::axpy_sq(&a, &a, &a).unwrap();
    let rows = quasar::Runtime::global().profile().rows;
    let fused: Vec<_> =
        rows.iter().filter(|r| r.kernel.starts_with("axpy_sq") && r.launches > 0).collect();
    assert!(!fused.is_empty(), "{rows:?}");
    if std::env::var("QUASAR_DEVICE").is_ok_and(|d| d == "gpu") {
        assert!(fused.iter().all(|r| r.device != "CPU"), "{fused:?}");
    }
}
