//! End to end: the manual's chapter 15 functional image pipeline with `__device__` images
//! (tests/common/functional_device.q): images are device closures capturing the pixel array,
//! translated images are device closures capturing other closures, and one kernel
//! rasterizes the chain. Every output pixel is compared with plain Rust; the same tests run
//! on interpreted PTX (`.ci/run`).

use quasar::Array;

mod fd {
    quasar::quasar!(file = "tests/common/functional_device.q");
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
