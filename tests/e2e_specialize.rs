//! End to end: `$specialize` (manual §6.5) with type, value and predicate constraints, on a
//! device function and on a kernel, and `$inline`, against Rust; .ci/run also runs this file
//! on interpreted PTX.

use quasar::Array;

mod k {
    quasar::quasar!(file = "tests/common/specialize.q");
}

/// The manual's soft thresholding in Rust.
fn soft(x: f32, t: f32) -> f32 {
    if x.abs() >= t {
        (x.abs() - t) * (x / x.abs())
    } else {
        0.0
    }
}

#[test]
fn a_threshold_fixed_by_a_value_constraint_is_no_longer_a_parameter() {
    let xs: Vec<f32> = (0..50).map(|i| (i as f32 - 25.0) * 0.9).collect();
    let x = Array::from_vec(&[xs.len()], xs.clone()).unwrap();
    let y = k::threshold_at_ten(&x).unwrap().to_vec().unwrap();
    for (i, (&got, &xi)) in y.iter().zip(&xs).enumerate() {
        assert_eq!(got, soft(xi, 10.0), "y[{i}] for x = {xi}");
        assert_eq!(got, k::threshold(xi, 10.0).unwrap(), "the generic function at x = {xi}");
    }
}

#[test]
fn a_predicate_constraint_is_an_assumption_checked_when_it_runs() {
    assert_eq!(k::threshold_positive(12.5, 10.0).unwrap(), soft(12.5, 10.0));
    assert_eq!(k::threshold_positive(3.0, 10.0).unwrap(), 0.0);
    let e = k::threshold_positive(-12.5, 10.0).unwrap_err().to_string();
    assert!(e.contains("assert"), "{e}");
    assert!(e.contains("specialize.q:27"), "the error names the constraint's line: {e}");
}

#[test]
fn the_manuals_three_launches_of_one_filter_agree_with_rust() {
    let (h, w) = (13usize, 17usize);
    let im = Array::from_fn(&[h, w], |i| ((i * 37) % 23) as f32 / 7.0).unwrap();
    let taps: Vec<f32> = [1.0f32, 2.0, 3.0, 2.0, 1.0].iter().map(|t| t / 9.0).collect();
    let a = Array::from_vec(&[5], taps.clone()).unwrap();
    let outs: Vec<_> = (0..3).map(|_| Array::<f32>::zeros(&[h, w]).unwrap()).collect();
    k::filter_three_ways(&im, &outs[0], &outs[1], &outs[2], &a).unwrap();
    let xs = im.to_vec().unwrap();
    // Along the rows (dir = [0, 1]); outside the image reads 0 (`mat` is read `'safe`).
    let at = |i: usize, j: i64| if j < 0 || j >= w as i64 { 0.0 } else { xs[i * w + j as usize] };
    for (which, o) in outs.iter().enumerate() {
        let got = o.to_vec().unwrap();
        for i in 0..h {
            for j in 0..w {
                let mut want = 0.0f32;
                for (k, t) in taps.iter().enumerate() {
                    want += at(i, j as i64 + k as i64 - 2) * t;
                }
                let g = got[i * w + j];
                assert!((g - want).abs() <= 1e-5, "launch {which}, y[{i}, {j}]: {g} vs {want}");
            }
        }
    }
}

#[test]
fn an_inlined_function_value_is_called_as_itself() {
    assert_eq!(k::inlined(4.0).unwrap(), 9.0);
}

#[test]
fn typerecon_is_the_type_of_the_specialized_function() {
    assert_eq!(k::reconstructed().unwrap(), "[__device__ (scalar, scalar) -> (scalar)]");
}
