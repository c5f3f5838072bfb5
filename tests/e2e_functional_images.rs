//! End to end: the manual's chapter 15 functional image processing pipeline, written for these
//! tests (tests/common/functional_images.q): images as functions, algorithms, `deferred` and
//! `immediate` stages joined by `|>`, and `:=` rasterizing the result, all given their meaning
//! by reductions. Every output pixel is compared with the value computed here in plain Rust.

use quasar::Array;

mod fi {
    quasar::quasar!(file = "tests/common/functional_images.q");
}

const M: usize = 7;
const N: usize = 9;

/// A deterministic colour image of `M` x `N` pixels.
fn input() -> Vec<f32> {
    (0..M * N * 3).map(|i| ((i * 37 + 11) % 23) as f32 / 4.0 - 2.0).collect()
}

/// An image as the pipeline sees it: a function of a position, reading outside the array
/// the nearest border pixel.
type Img<'a> = Box<dyn Fn(i64, i64) -> [f32; 3] + 'a>;

fn make_image(data: &[f32]) -> Img<'_> {
    Box::new(move |m, n| {
        let (m, n) = (m.clamp(0, M as i64 - 1) as usize, n.clamp(0, N as i64 - 1) as usize);
        let at = (m * N + n) * 3;
        [data[at], data[at + 1], data[at + 2]]
    })
}

/// The mean of `len` pixels along rows (`dm = 1`) or columns (`dn = 1`), summed in the
/// program's order and then scaled by `1 / len`.
fn mean<'a>(x: Img<'a>, len: i64, dm: i64, dn: i64) -> Img<'a> {
    Box::new(move |m, n| {
        let mut y = [0f32; 3];
        for k in -(len / 2)..=len / 2 {
            let p = x(m + k * dm, n + k * dn);
            for c in 0..3 {
                y[c] += p[c];
            }
        }
        let norm = 1.0 / len as f32;
        y.map(|v| v * norm)
    })
}

fn raster(x: &Img) -> Vec<f32> {
    let mut out = Vec::with_capacity(M * N * 3);
    for m in 0..M as i64 {
        for n in 0..N as i64 {
            out.extend(x(m, n));
        }
    }
    out
}

fn assert_images_close(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: pixel count");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        let (m, n, c) = (i / (N * 3), i / 3 % N, i % 3);
        assert!(
            (a - b).abs() <= 1e-5 * b.abs().max(1.0),
            "{what}[{m}, {n}, {c}]: got {a}, expected {b}"
        );
    }
}

#[test]
fn translation_then_a_deferred_mean_filter() {
    let data = input();
    let cube = Array::from_vec(&[M, N, 3], data.clone()).unwrap();
    for (dm, dn) in [(2, 1), (-1, 3), (0, 0)] {
        let got = fi::translate_and_blur(&cube, dm, dn).unwrap();
        assert_eq!(got.shape(), &[M, N, 3]);
        let base = make_image(&data);
        let moved: Img = Box::new(move |m, n| base(m + dm as i64, n + dn as i64));
        let want = raster(&mean(mean(moved, 3, 1, 0), 5, 0, 1));
        assert_images_close(&format!("shift ({dm}, {dn})"), &got.to_vec().unwrap(), &want);
    }
}

#[test]
fn an_immediate_stage_rasterizes_in_between() {
    let data = input();
    let cube = Array::from_vec(&[M, N, 3], data.clone()).unwrap();
    let got = fi::blur_immediate(&cube).unwrap().to_vec().unwrap();
    // The vertical pass is computed into an array, read again as an image (its own border).
    let vertical = raster(&mean(make_image(&data), 3, 1, 0));
    let horizontal = mean(make_image(&vertical), 5, 0, 1);
    let want: Vec<f32> = raster(&horizontal).iter().map(|v| 2.0 * v - 0.5).collect();
    assert_images_close("immediate", &got, &want);
}
