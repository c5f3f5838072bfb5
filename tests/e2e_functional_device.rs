//! End to end: the manual's chapter 15 functional image pipeline with `__device__` images
//! (tests/common/functional_device.q): images are device closures capturing the pixel array,
//! translated images are device closures capturing other closures, and one kernel
//! rasterizes the chain. Every output pixel is compared with plain Rust; the same tests run
//! on interpreted PTX (`.ci/run`).

use quasar::Array;

mod fd {
    quasar::quasar!(file = "tests/common/functional_device.q");
}

mod manual {
    quasar::quasar!(file = "tests/common/functional_manual.q");
}

const M: usize = 6;
const N: usize = 8;

fn input() -> Vec<f32> {
    (0..M * N * 3).map(|i| ((i * 29 + 5) % 19) as f32 / 3.0 - 1.5).collect()
}

/// The pixel at (m, n), the nearest border pixel outside the array.
fn pixel(data: &[f32], m: i64, n: i64) -> [f32; 3] {
    let (m, n) = (m.clamp(0, M as i64 - 1) as usize, n.clamp(0, N as i64 - 1) as usize);
    let at = (m * N + n) * 3;
    [data[at], data[at + 1], data[at + 2]]
}

/// Rasterizes `f` over the M x N grid.
fn raster(f: impl Fn(i64, i64) -> [f32; 3]) -> Vec<f32> {
    let mut out = Vec::with_capacity(M * N * 3);
    for m in 0..M as i64 {
        for n in 0..N as i64 {
            out.extend(f(m, n));
        }
    }
    out
}

fn assert_images_close(what: &str, got: &Array<f32>, want: &[f32]) {
    assert_eq!(got.shape(), &[M, N, 3], "{what}: shape");
    let got = got.to_vec().unwrap();
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        let (m, n, c) = (i / (N * 3), i / 3 % N, i % 3);
        assert!(
            (a - b).abs() <= 1e-5 * b.abs().max(1.0),
            "{what}[{m}, {n}, {c}]: got {a}, expected {b}"
        );
    }
}

fn cube(data: &[f32]) -> Array<f32> {
    Array::from_vec(&[M, N, 3], data.to_vec()).unwrap()
}

#[test]
fn a_device_image_of_an_array_is_rasterized_by_a_kernel() {
    let data = input();
    let got = fd::copy_image(&cube(&data)).unwrap();
    assert_eq!(got.to_vec().unwrap(), data);
}

#[test]
fn a_deferred_translation_reads_the_shifted_pixels() {
    let data = input();
    for (dm, dn) in [(1, 2), (-2, 1), (0, -3)] {
        let got = fd::shifted(&cube(&data), dm, dn).unwrap();
        let want = raster(|m, n| pixel(&data, m + dm as i64, n + dn as i64));
        assert_images_close(&format!("shift ({dm}, {dn})"), &got, &want);
    }
}

#[test]
fn two_translations_nest_three_device_closures() {
    let data = input();
    for (dm, dn) in [(2, -1), (-1, 3)] {
        let got = fd::shifted_twice(&cube(&data), dm, dn).unwrap();
        let want = raster(|m, n| pixel(&data, m + dm as i64, n + dn as i64));
        assert_images_close(&format!("shift ({dm}, 0) then (0, {dn})"), &got, &want);
    }
}

#[test]
fn stages_held_by_variables_declared_with_function_types_are_specialised() {
    let data = input();
    for (dm, dn) in [(1, -2), (-3, 0)] {
        let got = fd::shifted_by_lambdas(&cube(&data), dm, dn).unwrap();
        let want = raster(|m, n| pixel(&data, m + dm as i64, n + dn as i64));
        assert_images_close(&format!("lambdas, shift ({dm}, {dn})"), &got, &want);
    }
}

/// The mean over `taps` pixels along one dimension of `f`, as the manual's mean filters
/// sum them (in order, then scaled by 1 / taps).
fn mean(taps: i64, f: impl Fn(i64) -> [f32; 3]) -> [f32; 3] {
    let norm = 1.0 / taps as f32;
    let mut y = [0.0f32; 3];
    for k in -(taps / 2)..=taps / 2 {
        let v = f(k);
        for c in 0..3 {
            y[c] += v[c];
        }
    }
    y.map(|v| v * norm)
}

#[test]
fn an_algorithm_applied_deferred_is_specialised_for_the_image_it_is_given() {
    // `p(x, pos)` in device code passes the image (a closure holding the pixel array) to
    // the algorithm, field by field.
    let data = input();
    for (dm, dn) in [(2, -1), (0, 3)] {
        let got = fd::translated_by_algorithm(&cube(&data), dm, dn).unwrap();
        let want = raster(|m, n| pixel(&data, m + dm as i64, n + dn as i64));
        assert_images_close(&format!("translate ({dm}, {dn})"), &got, &want);
    }
}

#[test]
fn a_nested_device_function_is_an_algorithm_specialised_for_its_image() {
    // The manual's `mean_filter_hor(N)`: its nested `__device__ algo(input : image, pos)`
    // captures `N` and the normalisation factor.
    let data = input();
    for taps in [1, 3, 5] {
        let got = fd::mean_hor(&cube(&data), taps).unwrap();
        let want = raster(|m, n| mean(taps as i64, |k| pixel(&data, m, n + k)));
        assert_images_close(&format!("horizontal mean over {taps}"), &got, &want);
    }
}

#[test]
fn the_translation_and_mean_filter_pipeline_runs_as_one_kernel() {
    // Manual §15.1: `im_out := im |> deferred(translate(…)) |> deferred(mean_filter_ver(N))
    // |> mean_filter_hor(N)`.
    let data = input();
    for (dm, dn, taps) in [(1, 2, 3), (-2, 0, 5), (0, 0, 1)] {
        let got = fd::translate_and_filter(&cube(&data), dm, dn, taps).unwrap();
        let (dm, dn, t) = (dm as i64, dn as i64, taps as i64);
        let shifted = |m: i64, n: i64| pixel(&data, m + dm, n + dn);
        let vertical = |m: i64, n: i64| mean(t, |j| shifted(m + j, n));
        let want = raster(|m, n| mean(t, |k| vertical(m, n + k)));
        assert_images_close(&format!("shift ({dm}, {dn}), {taps} x {taps} mean"), &got, &want);
    }
}

#[test]
fn the_manual_s_pipeline_with_stages_held_by_typed_variables_runs_as_one_kernel() {
    // The same chain written as the manual writes it (`compute : rasterizer = …`).
    let data = input();
    for (dm, dn, taps) in [(2, -1, 3), (0, 1, 5)] {
        let got = manual::translate_and_filter(&cube(&data), dm, dn, taps).unwrap();
        let (dm, dn, t) = (dm as i64, dn as i64, taps as i64);
        let shifted = |m: i64, n: i64| pixel(&data, m + dm, n + dn);
        let vertical = |m: i64, n: i64| mean(t, |j| shifted(m + j, n));
        let want = raster(|m, n| mean(t, |k| vertical(m, n + k)));
        assert_images_close(&format!("manual: shift ({dm}, {dn}), {taps} x {taps}"), &got, &want);
    }
}

#[test]
fn a_point_wise_algorithm_capturing_a_colour_function_is_applied_in_the_kernel() {
    // `pointwise_op(fn)` holds a device function value; the translated image passes it on
    // to the translation's instance field by field.
    let data = input();
    for (gain, dm, dn) in [(2.0f32, 1, -1), (-0.5, 0, 2)] {
        let got = fd::scaled_and_shifted(&cube(&data), gain, dm, dn).unwrap();
        let want = raster(|m, n| pixel(&data, m + dm as i64, n + dn as i64).map(|v| gain * v));
        assert_images_close(&format!("gain {gain}, shift ({dm}, {dn})"), &got, &want);
    }
}
