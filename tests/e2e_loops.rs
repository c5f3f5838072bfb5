//! End to end: plain `for` loops in host code that the loop parallelizer turns into kernels
//! (`transform::parallel_loops`), on the CPU device, compared with the same loops kept serial
//! by `{!serial for}` and with plain Rust.

use quasar::Array;

#[path = "common/reference.rs"]
mod reference;
use reference::box3_reference;

mod k {
    // Shared with tests/gpu_kernels.rs.
    quasar::quasar!(file = "tests/common/loops.q");
}

fn mat(m: usize, n: usize, f: impl Fn(usize, usize) -> f32) -> Array<f32> {
    Array::from_fn(&[m, n], |i| f(i / n, i % n)).unwrap()
}

#[test]
fn parallelised_box_filter_equals_the_serial_loop_and_rust() {
    for (m, n) in [(1, 1), (2, 3), (17, 45), (64, 200)] {
        let x = mat(m, n, |i, j| ((i * 7 + j * 13) % 31) as f32);
        let par = k::box3_loop(&x).unwrap().to_vec().unwrap();
        let ser = k::box3_serial(&x).unwrap().to_vec().unwrap();
        // The same operations in the same order per element: bit for bit.
        assert_eq!(par, ser, "{m}x{n}");
        let want = box3_reference(&x.to_vec().unwrap(), m, n);
        for (a, b) in par.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()), "{m}x{n}: {a} vs {b}");
        }
    }
}

#[test]
fn three_dimensional_loop_with_a_private_and_a_branch() {
    let x = Array::from_fn(&[5, 7, 3], |i| (i % 17) as f32 / 8.0).unwrap();
    let y = k::gamma_loop(&x, 0.8).unwrap().to_vec().unwrap();
    assert_eq!(y.len(), 105);
    for (a, v) in y.iter().zip(x.to_vec().unwrap()) {
        let want = v.powf(0.8).min(1.0);
        assert!((a - want).abs() <= 1e-6, "{a} vs {want}");
    }
}

#[test]
fn rows_in_parallel_with_a_serial_inner_loop() {
    let x = mat(13, 29, |i, j| (i * 29 + j) as f32);
    let y = k::row_sums(&x).unwrap().to_vec().unwrap();
    for (i, s) in y.iter().enumerate() {
        let want: f32 = (0..29).map(|j| (i * 29 + j) as f32).sum();
        assert_eq!(*s, want, "row {i}");
    }
}

#[test]
fn parallel_loops_inside_a_serial_time_loop() {
    let x = Array::from_fn(&[50], |i| ((i * 37) % 11) as f32).unwrap();
    let y = k::smooth_steps(&x, 4).unwrap().to_vec().unwrap();
    let mut a = x.to_vec().unwrap();
    for _ in 0..4 {
        let b = a.clone();
        for i in 1..49 {
            a[i] = (b[i - 1] + b[i] + b[i + 1]) / 3.0;
        }
    }
    assert_eq!(y, a);
}

#[test]
fn a_loop_with_a_dependency_runs_serially() {
    let x = Array::from_fn(&[100], |i| i as f32).unwrap();
    let y = k::prefix_sum(&x).unwrap().to_vec().unwrap();
    let mut acc = 0.0;
    for (i, v) in y.iter().enumerate() {
        acc += i as f32;
        assert_eq!(*v, acc);
    }
}

#[test]
fn out_of_bounds_in_a_parallelised_loop_is_an_error_as_on_the_host() {
    let x = Array::from_fn(&[10], |i| i as f32).unwrap();
    let e = k::shifted(&x).expect_err("x[10] is out of bounds");
    assert!(e.to_string().contains("out of bounds") || e.to_string().contains("index"), "{e}");
}

#[test]
fn accumulations_become_parallel_reductions() {
    let n = 100_003;
    let x = Array::from_fn(&[n], |i| ((i * 37) % 101) as f32 / 50.0).unwrap();
    let y = Array::from_fn(&[n], |i| ((i * 53) % 89) as f32 / 40.0).unwrap();
    let got = k::dot_loop(&x, &y).unwrap();
    let want: f64 = (0..n)
        .map(|i| (((i * 37) % 101) as f32 / 50.0) as f64 * (((i * 53) % 89) as f32 / 40.0) as f64)
        .sum();
    // A different summation order than the serial loop: within f32 rounding of the sum.
    assert!(((got as f64) - want).abs() <= 1e-5 * want, "{got} vs {want}");
    let x = mat(31, 47, |i, j| ((i * 47 + j) % 13) as f32);
    let c = k::count_above(&x, 6.5).unwrap();
    let want = x.to_vec().unwrap().iter().filter(|v| **v > 6.5).count();
    assert_eq!(c as usize, want);
}
