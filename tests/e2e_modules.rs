//! End to end: the original's standard modules shipped with the compiler (`import
//! "system.q"`, …), compiled through `quasar!` and compared with plain-Rust computations of
//! the documented semantics (the manual's where it defines them, MATLAB's otherwise).

mod common;

use common::{both, gpu_or_skip, on};
use quasar::{Array, SchedMode};

mod m {
    quasar::quasar! { r#"
import "system.q"
import "imfilter.q"
import "imresize.q"
import "imboundary.q"
import "colortransform.q"
import "immorphology.q"
import "inttypes.q"
import "floattypes.q"
import "linalg.q"
import "immedfilt.q"

function y = t_immedfilt(x : cube, r : int)
    y = immedfilt(x, r)
endfunction
function y = t_medfilt2(x : cube, rows : int, cols : int, padopt : string)
    y = medfilt2(x, [rows, cols], padopt)
endfunction
function y : mat = t_medfilt2_default(x : mat)
    y = medfilt2(x)
endfunction
% The pattern of real code: a noise level from the median absolute deviation.
function s : scalar = t_mad(img : mat, r : int)
    img_med : mat = immedfilt(img, r)
    s = median(abs(img - img_med)) / 0.6745
endfunction

function [t, d, x, n] = t_linalg(a : mat, b : vec)
    t = trace(a)
    d = logdet(a)
    x = solve(a, b)
    n = norm2(b)
endfunction
function y = t_half(x : cube)
    y = half_to_float(float_to_half(x))
endfunction

function y = t_gray(x : cube)
    y = rgb2gray(x)
endfunction
function y = t_decode(x : cube)
    y = sRGB_decode(x)
endfunction
function [d, e] = t_srgb_scalar(v : scalar)
    d = sRGB_decode(v)
    e = sRGB_encode(v)
endfunction
function y = t_encode(x : cube)
    y = sRGB_encode(x)
endfunction
function y = t_lab(x : cube)
    y = rgb2lab(x)
endfunction
function y = t_unlab(x : cube)
    y = lab2rgb(x)
endfunction
function y = t_hsv(x : cube)
    y = rgb2hsv(x)
endfunction
function y = t_unhsv(x : cube)
    y = hsv2rgb(x)
endfunction
function y = t_yuv(x : cube)
    y = yuv2rgb(rgb2yuv(x))
endfunction
function y = t_filter(x : cube, h : mat, mode : string)
    y = imfilter(x, h, [1, 1], mode)
endfunction
function y = t_filter_default(x : cube, h : mat)
    y = imfilter(x, h)
endfunction
function y = t_gauss(x : cube, sigma : scalar, n : int)
    y = gaussian_filter(x, sigma, n)
endfunction
function y = t_erode(x : cube, h : mat)
    y = imerode(x, h, [1, 1])
endfunction
function y = t_dilate(x : cube, h : mat)
    y = imdilate(x, h, [1, 1])
endfunction
function y = t_open(x : cube, h : mat)
    y = imopen(x, h, [1, 1])
endfunction
function y = t_close(x : cube, h : mat)
    y = imclose(x, h, [1, 1])
endfunction
function [v, h] = t_cat(a : mat, b : mat)
    v = vertcat(a, b)
    h = horzcat(a, b)
endfunction
function r = t_chol(a : mat)
    r = cholesky(a)
endfunction
function [y, z] = t_u16(x : cube[uint16], f : cube)
    y = uint16_to_float(x)
    z = float_to_uint16(f)
endfunction
function y = t_resize(x : cube, s : scalar, method : string)
    y = imresize(x, s, method)
endfunction
function y = t_resize_size(x : cube, rows : int, cols : int)
    % The size form real code writes: `imresize(x, [size(z, 0), size(z, 1)], method)`.
    y = imresize(x, [rows, cols], "nearest")
endfunction
function y = t_pad(x : cube, mode : string)
    y = padarray(x, [1, 2], mode)
endfunction
function [e, p, v, s, md] = t_stats(x : cube)
    e = isempty(x)
    p = nextpow2(numel(x))
    v = var(x)
    s = std(x)
    md = median(x)
endfunction
function y = t_find(x : cube)
    y = find(x)
endfunction
function [a, d, e] = t_diag(v : vec)
    a = diag(v)
    d = diagonal(a)
    e = diag(a)
endfunction
function [l, u, s] = t_flip(x : cube)
    l = fliplr(x)
    u = flipud(x)
    s = fftshift2(x)
endfunction
function y = t_u8(x : cube[uint8])
    y = uint8_to_float(x)
endfunction
function y = t_to_u8(x : cube)
    y = float_to_uint8(x)
endfunction
"# }
}

/// system.q imported alone: its exported `diagonal` and `diag_matrix` run the loop kernels of
/// the module file (tests/ptx_coverage.rs matches entries whatever their error-site numbers);
/// the calls from `diagonal_then_matrix` are instances of their own.
mod system {
    quasar::quasar! { r#"
import "system.q"
function [d, a] = diagonal_then_matrix(x : mat, v : vec)
    d = diagonal(x)
    a = diag_matrix(v)
endfunction
"# }
}

fn cube(m: usize, n: usize, c: usize, f: impl Fn(usize, usize, usize) -> f32) -> Array<f32> {
    Array::from_fn(&[m, n, c], |k| f(k / (n * c), (k / c) % n, k % c)).unwrap()
}

fn close(a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len());
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{k}: {x} vs {y}");
    }
}

fn srgb_decode(v: f32) -> f32 {
    if v <= 0.04045 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

#[test]
fn colour_transforms_follow_the_standards() {
    let x = cube(3, 4, 3, |i, j, c| ((i * 7 + j * 3 + c * 5) % 11) as f32 / 10.0);
    let v = x.to_vec().unwrap();
    let g = m::t_gray(&x).unwrap();
    assert_eq!(g.shape(), &[3, 4]);
    let expect: Vec<f32> =
        v.chunks(3).map(|p| 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]).collect();
    close(&g.to_vec().unwrap(), &expect, 1e-6);
    let d = m::t_decode(&x).unwrap().to_vec().unwrap();
    close(&d, &v.iter().map(|&a| srgb_decode(a)).collect::<Vec<_>>(), 1e-5);
    close(&m::t_encode(&m::t_decode(&x).unwrap()).unwrap().to_vec().unwrap(), &v, 1e-5);
    // One scalar, both branches of the curve: decode by the standard, encode its inverse.
    for a in [0.02f32, 222.0 / 255.0] {
        let (d, e) = m::t_srgb_scalar(a).unwrap();
        close(&[d], &[srgb_decode(a)], 1e-6);
        close(&[srgb_decode(e)], &[a], 1e-5);
    }
    // MATLAB: rgb2lab([1 0 0]) = [53.2408 80.0925 67.2032]; white is [100 0 0].
    let red = cube(1, 2, 3, |_, j, c| if j == 1 || c == 0 { 1.0 } else { 0.0 });
    let lab = m::t_lab(&red).unwrap().to_vec().unwrap();
    close(&lab[..3], &[53.2408, 80.0925, 67.2032], 2e-4);
    assert!((lab[3] - 100.0).abs() < 1e-3 && lab[4].abs() < 1e-3 && lab[5].abs() < 1e-3, "{lab:?}");
    close(&m::t_unlab(&m::t_lab(&x).unwrap()).unwrap().to_vec().unwrap(), &v, 1e-4);
    // rgb2hsv of pure colours: red (0, 1, 1), green (1/3, 1, 1), grey (0, 0, v).
    let px = cube(1, 3, 3, |_, j, c| [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.5]][j][c]);
    let hsv = m::t_hsv(&px).unwrap().to_vec().unwrap();
    close(&hsv, &[0.0, 1.0, 1.0, 1.0 / 3.0, 1.0, 1.0, 0.0, 0.0, 0.5], 1e-6);
    close(&m::t_unhsv(&m::t_hsv(&x).unwrap()).unwrap().to_vec().unwrap(), &v, 1e-5);
    close(&m::t_yuv(&x).unwrap().to_vec().unwrap(), &v, 1e-5);
}

/// The correlation of one channel with a 3x3 mask centred at (1, 1), `at` mapping indices.
fn correlate(
    x: &[f32],
    m: usize,
    n: usize,
    h: &[f32],
    at: impl Fn(i64, i64) -> Option<(usize, usize)>,
) -> Vec<f32> {
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0;
            for a in 0..3 {
                for b in 0..3 {
                    if let Some((p, q)) = at(i as i64 + a as i64 - 1, j as i64 + b as i64 - 1) {
                        acc += h[a * 3 + b] * x[p * n + q];
                    }
                }
            }
            out[i * n + j] = acc;
        }
    }
    out
}

#[test]
fn imfilter_correlates_with_each_boundary_mode() {
    let (mm, nn) = (5, 6);
    let x = cube(mm, nn, 1, |i, j, _| ((i * 13 + j * 7) % 10) as f32);
    let v = x.to_vec().unwrap();
    let hv = [1.0, 2.0, 0.0, -1.0, 0.5, 0.0, 0.0, 0.0, 3.0];
    let h = Array::from_vec(&[3, 3], hv.to_vec()).unwrap();
    let clamp = |i: i64, j: i64| {
        Some((i.clamp(0, mm as i64 - 1) as usize, j.clamp(0, nn as i64 - 1) as usize))
    };
    let circ =
        |i: i64, j: i64| Some((i.rem_euclid(mm as i64) as usize, j.rem_euclid(nn as i64) as usize));
    let zero = |i: i64, j: i64| {
        (i >= 0 && j >= 0 && i < mm as i64 && j < nn as i64).then_some((i as usize, j as usize))
    };
    let mirror = |i: i64, j: i64| {
        let f = |k: i64, len: i64| quasar::__rt::qstd::rt::mirror_ext(k, len) as usize;
        Some((f(i, mm as i64), f(j, nn as i64)))
    };
    close(
        &m::t_filter(&x, &h, "clamped").unwrap().to_vec().unwrap(),
        &correlate(&v, mm, nn, &hv, clamp),
        1e-6,
    );
    close(
        &m::t_filter(&x, &h, "circular").unwrap().to_vec().unwrap(),
        &correlate(&v, mm, nn, &hv, circ),
        1e-6,
    );
    close(
        &m::t_filter(&x, &h, "zero").unwrap().to_vec().unwrap(),
        &correlate(&v, mm, nn, &hv, zero),
        1e-6,
    );
    close(
        &m::t_filter(&x, &h, "mirror").unwrap().to_vec().unwrap(),
        &correlate(&v, mm, nn, &hv, mirror),
        1e-6,
    );
    close(
        &m::t_filter_default(&x, &h).unwrap().to_vec().unwrap(),
        &correlate(&v, mm, nn, &hv, mirror),
        1e-6,
    );
    let e = m::t_filter(&x, &h, "wrap").unwrap_err().to_string();
    assert!(e.contains("imfilter: unknown boundary mode wrap"), "{e}");
}

#[test]
fn gaussian_filter_is_the_separable_gaussian() {
    let (mm, nn) = (7, 9);
    let x = cube(mm, nn, 1, |i, j, _| ((i * 5 + j * 11) % 13) as f32);
    let v = x.to_vec().unwrap();
    let sigma = 1.2f32;
    let taps: Vec<f32> =
        (0..5).map(|k| (-((k as f32 - 2.0).powi(2)) / (2.0 * sigma * sigma)).exp()).collect();
    let s: f32 = taps.iter().sum();
    let taps: Vec<f32> = taps.iter().map(|t| t / s).collect();
    let mir = |k: i64, len: usize| quasar::__rt::qstd::rt::mirror_ext(k, len as i64) as usize;
    let mut rows = vec![0.0; mm * nn];
    for i in 0..mm {
        for j in 0..nn {
            rows[i * nn + j] =
                (0..5).map(|t| taps[t] * v[i * nn + mir(j as i64 + t as i64 - 2, nn)]).sum();
        }
    }
    let mut out = vec![0.0; mm * nn];
    for i in 0..mm {
        for j in 0..nn {
            out[i * nn + j] =
                (0..5).map(|t| taps[t] * rows[mir(i as i64 + t as i64 - 2, mm) * nn + j]).sum();
        }
    }
    close(&m::t_gauss(&x, sigma, 5).unwrap().to_vec().unwrap(), &out, 1e-5);
}

/// The median of the `wm x wn` window of each pixel of an `m x n x c` image, the window's
/// centre at `(w - 1) / 2` in it: outside the image `x` continues mirrored with the edge
/// repeated (`symmetric`) or is 0. Sorted in plain Rust; the mean of the middle two for an
/// even count.
fn median_filter(x: &Array<f32>, wm: usize, wn: usize, symmetric: bool) -> Vec<f32> {
    let (m, n, c) = (x.size(0), x.size(1), x.size(2));
    let v = x.to_vec().unwrap();
    let fold = |i: i64, len: usize| -> Option<usize> {
        let len = len as i64;
        match i {
            i if (0..len).contains(&i) => Some(i as usize),
            _ if !symmetric => None,
            i if i < 0 => Some((-i - 1) as usize),
            i => Some((2 * len - 1 - i) as usize),
        }
    };
    let (lm, ln) = ((wm as i64 - 1) / 2, (wn as i64 - 1) / 2);
    let mut out = Vec::with_capacity(m * n * c);
    for i in 0..m {
        for j in 0..n {
            for ch in 0..c {
                let mut w = Vec::new();
                for a in 0..wm as i64 {
                    for b in 0..wn as i64 {
                        let p = fold(i as i64 + a - lm, m);
                        let q = fold(j as i64 + b - ln, n);
                        w.push(match (p, q) {
                            (Some(p), Some(q)) => v[(p * n + q) * c + ch],
                            _ => 0.0,
                        });
                    }
                }
                w.sort_by(f32::total_cmp);
                let k = w.len();
                out.push(if k % 2 == 1 { w[k / 2] } else { (w[k / 2 - 1] + w[k / 2]) / 2.0 });
            }
        }
    }
    out
}

#[test]
fn median_filters_take_the_middle_of_each_window() {
    // Many ties (values in steps of 0.1), two channels.
    let x = cube(9, 7, 2, |i, j, c| ((i * 7 + j * 3 + c * 5) % 11) as f32 / 10.0);
    let run = |r: quasar::Result<Array<f32>>| r.unwrap().to_vec().unwrap();
    assert_eq!(run(m::t_immedfilt(&x, 1)), median_filter(&x, 3, 3, true));
    assert_eq!(run(m::t_immedfilt(&x, 2)), median_filter(&x, 5, 5, true));
    assert_eq!(run(m::t_immedfilt(&x, 0)), x.to_vec().unwrap());
    assert_eq!(run(m::t_medfilt2(&x, 3, 3, "zeros")), median_filter(&x, 3, 3, false));
    // Even windows: the centre at floor((sz - 1) / 2), the mean of the middle two.
    close(&run(m::t_medfilt2(&x, 2, 4, "symmetric")), &median_filter(&x, 2, 4, true), 1e-6);
    close(&run(m::t_medfilt2(&x, 4, 3, "zeros")), &median_filter(&x, 4, 3, false), 1e-6);
    // A matrix argument and result; the defaults are [3, 3] and "zeros".
    let g = cube(6, 8, 1, |i, j, _| ((i * 5 + j * 2) % 7) as f32);
    let gm = Array::from_vec(&[6, 8], g.to_vec().unwrap()).unwrap();
    assert_eq!(run(m::t_medfilt2_default(&gm)), median_filter(&g, 3, 3, false));
    // The median absolute deviation of real code, computed here from the reference.
    let mut dev: Vec<f32> = (g.to_vec().unwrap().iter())
        .zip(median_filter(&g, 5, 5, true))
        .map(|(a, b)| (a - b).abs())
        .collect();
    dev.sort_by(f32::total_cmp);
    let mid = (dev[dev.len() / 2 - 1] + dev[dev.len() / 2]) / 2.0;
    close(&[m::t_mad(&gm, 2).unwrap()], &[mid / 0.6745], 1e-6);
    // Bad arguments name the function.
    let e = m::t_medfilt2(&x, 3, 3, "replicate").unwrap_err().to_string();
    assert!(e.contains("medfilt2") && e.contains("replicate"), "{e}");
    let e = m::t_medfilt2(&x, 0, 3, "zeros").unwrap_err().to_string();
    assert!(e.contains("medfilt2"), "{e}");
    let e = m::t_immedfilt(&x, -1).unwrap_err().to_string();
    assert!(e.contains("immedfilt"), "{e}");
}

#[test]
fn morphology_is_min_and_max_over_the_mask() {
    let (mm, nn) = (4, 5);
    let x = cube(mm, nn, 1, |i, j, _| ((i * 7 + j * 3) % 8) as f32);
    let v = x.to_vec().unwrap();
    let hv = [0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0];
    let h = Array::from_vec(&[3, 3], hv.to_vec()).unwrap();
    let morph = |src: &[f32], dilate: bool| -> Vec<f32> {
        let mut out = vec![0.0; mm * nn];
        for i in 0..mm {
            for j in 0..nn {
                let mut acc = src[i * nn + j];
                for a in 0..3 {
                    for b in 0..3 {
                        let (p, q) = (i as i64 + a as i64 - 1, j as i64 + b as i64 - 1);
                        if hv[a * 3 + b] != 0.0
                            && p >= 0
                            && q >= 0
                            && p < mm as i64
                            && q < nn as i64
                        {
                            let s = src[p as usize * nn + q as usize];
                            acc = if dilate { acc.max(s) } else { acc.min(s) };
                        }
                    }
                }
                out[i * nn + j] = acc;
            }
        }
        out
    };
    let eroded = morph(&v, false);
    assert_eq!(m::t_erode(&x, &h).unwrap().to_vec().unwrap(), eroded);
    assert_eq!(m::t_dilate(&x, &h).unwrap().to_vec().unwrap(), morph(&v, true));
    assert_eq!(m::t_open(&x, &h).unwrap().to_vec().unwrap(), morph(&eroded, true));
    let dilated = morph(&v, true);
    assert_eq!(m::t_close(&x, &h).unwrap().to_vec().unwrap(), morph(&dilated, false));
}

#[test]
fn concatenation_stacks_rows_and_columns() {
    let a = Array::from_vec(&[2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let b = Array::from_vec(&[2, 2], vec![5.0f32, 6.0, 7.0, 8.0]).unwrap();
    let (v, h) = m::t_cat(&a, &b).unwrap();
    assert_eq!(
        (v.shape(), v.to_vec().unwrap()),
        (&[4, 2][..], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
    );
    assert_eq!(
        (h.shape(), h.to_vec().unwrap()),
        (&[2, 4][..], vec![1.0, 2.0, 5.0, 6.0, 3.0, 4.0, 7.0, 8.0])
    );
    let c = Array::from_vec(&[1, 3], vec![0.0f32; 3]).unwrap();
    let e = m::t_cat(&a, &c).unwrap_err().to_string();
    assert!(e.contains("vertcat") && e.contains("columns"), "{e}");
}

#[test]
fn imresize_samples_pixel_centres() {
    let x = cube(2, 2, 1, |i, j, _| (i * 2 + j) as f32);
    // Nearest, scale 2: every pixel becomes a 2x2 block.
    let y = m::t_resize(&x, 2.0, "nearest").unwrap();
    assert_eq!(y.shape(), &[4, 4, 1]);
    assert_eq!(
        y.to_vec().unwrap(),
        vec![0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 2.0, 2.0, 3.0, 3.0]
    );
    // Nearest to a size: 2x2 to 4x6, each row doubled and each column tripled.
    let y = m::t_resize_size(&x, 4, 6).unwrap();
    assert_eq!(y.shape(), &[4, 6, 1]);
    let expect: Vec<f32> = (0..24).map(|k| ((k / 6) / 2 * 2 + (k % 6) / 3) as f32).collect();
    assert_eq!(y.to_vec().unwrap(), expect);
    // Bilinear, scale 2: output m samples (m + 0.5) / 2 - 0.5, clamped at the borders.
    let y = m::t_resize(&x, 2.0, "bilinear").unwrap().to_vec().unwrap();
    let w = |m: usize| -> (usize, usize, f32) {
        let u = ((m as f32 + 0.5) / 2.0 - 0.5).max(0.0);
        let k = u.floor() as usize;
        (k.min(1), (k + 1).min(1), u - u.floor())
    };
    let v = [0.0f32, 1.0, 2.0, 3.0];
    let mut expect = Vec::new();
    for m in 0..4 {
        for n in 0..4 {
            let (r0, r1, a) = w(m);
            let (c0, c1, b) = w(n);
            let top = (1.0 - b) * v[r0 * 2 + c0] + b * v[r0 * 2 + c1];
            let bottom = (1.0 - b) * v[r1 * 2 + c0] + b * v[r1 * 2 + c1];
            expect.push((1.0 - a) * top + a * bottom);
        }
    }
    close(&y, &expect, 1e-6);
    // Bicubic reproduces a linear ramp inside (Keys' kernel is exact for linear functions).
    let ramp = cube(6, 6, 1, |i, j, _| (i + 2 * j) as f32);
    let y = m::t_resize(&ramp, 1.0, "bicubic").unwrap().to_vec().unwrap();
    close(&y, &ramp.to_vec().unwrap(), 1e-5);
    assert!(m::t_resize(&x, 2.0, "lanczos")
        .unwrap_err()
        .to_string()
        .contains("unknown method lanczos"));
}

#[test]
fn padarray_extends_the_border() {
    let x = cube(2, 2, 1, |i, j, _| (1 + i * 2 + j) as f32);
    let z = m::t_pad(&x, "zero").unwrap();
    assert_eq!(z.shape(), &[4, 6, 1]);
    let zv = z.to_vec().unwrap();
    assert_eq!(&zv[6..12], &[0.0, 0.0, 1.0, 2.0, 0.0, 0.0]);
    let r = m::t_pad(&x, "replicate").unwrap().to_vec().unwrap();
    assert_eq!(&r[..6], &[1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
}

#[test]
fn system_functions() {
    let vals = [3.0f32, -1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
    let x = Array::from_vec(&[2, 4, 1], vals.to_vec()).unwrap();
    let (e, p, v, s, md) = m::t_stats(&x).unwrap();
    let mean = vals.iter().sum::<f32>() / 8.0;
    let var = vals.iter().map(|a| (a - mean).powi(2)).sum::<f32>() / 7.0;
    assert_eq!((e, p), (0, 8));
    close(&[v, s], &[var, var.sqrt()], 1e-6);
    assert_eq!(md, 3.5);
    let f = m::t_find(&Array::from_vec(&[2, 3, 1], vec![0.0, 2.0, 0.0, 0.0, -1.0, 3.0]).unwrap())
        .unwrap();
    assert_eq!(f.to_vec().unwrap(), vec![1, 4, 5]);
    let (a, d, e) = m::t_diag(&Array::from_vec(&[3], vec![1.0, 2.0, 3.0]).unwrap()).unwrap();
    assert_eq!(a.to_vec().unwrap(), vec![1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0]);
    assert_eq!(d.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    assert_eq!(e.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    let g = cube(3, 3, 1, |i, j, _| (i * 3 + j) as f32);
    let (l, u, sh) = m::t_flip(&g).unwrap();
    assert_eq!(l.to_vec().unwrap(), vec![2.0, 1.0, 0.0, 5.0, 4.0, 3.0, 8.0, 7.0, 6.0]);
    assert_eq!(u.to_vec().unwrap(), vec![6.0, 7.0, 8.0, 3.0, 4.0, 5.0, 0.0, 1.0, 2.0]);
    // fftshift of 3 x 3 (MATLAB): shift by 1: y[i, j] = x[i - 1, j - 1] circularly.
    assert_eq!(sh.to_vec().unwrap(), vec![8.0, 6.0, 7.0, 2.0, 0.0, 1.0, 5.0, 3.0, 4.0]);
}

/// `diag` of system.q: its two loops (`diag_matrix`, `diagonal`) are parallelised into
/// kernels; here they run on the GPU (the interpreted PTX in CI) for sizes below, at and
/// past a block, and are checked against the matrix built in Rust.
#[test]
fn diag_loops_on_the_gpu() {
    if !gpu_or_skip("diag_loops_on_the_gpu") {
        return;
    }
    for n in [1usize, 3, 37, 300] {
        let v: Vec<f32> = (0..n).map(|i| (i as f32 - 7.5) * 0.25).collect();
        let mut want = vec![0.0f32; n * n];
        for (i, x) in v.iter().enumerate() {
            want[i * n + i] = *x;
        }
        let x = Array::from_vec(&[n], v.clone()).unwrap();
        let (a, d, e) = on(SchedMode::Gpu, || m::t_diag(&x)).unwrap();
        assert_eq!(a.to_vec().unwrap(), want, "diag_matrix n={n}");
        assert_eq!(d.to_vec().unwrap(), v, "diagonal n={n}");
        assert_eq!(e.to_vec().unwrap(), v, "diag of a matrix n={n}");
    }
    // `diagonal` of matrices wider and taller than square: min(rows, cols) elements.
    for (rows, cols, n) in [(1, 1, 1), (3, 5, 4), (40, 33, 37), (260, 300, 300)] {
        let a = Array::from_fn(&[rows, cols], |k| k as f32 * 0.5 - 3.0).unwrap();
        let want_d: Vec<f32> =
            (0..rows.min(cols)).map(|i| (i * cols + i) as f32 * 0.5 - 3.0).collect();
        let v: Vec<f32> = (0..n).map(|i| i as f32 + 0.25).collect();
        let mut want_a = vec![0.0f32; n * n];
        for (i, x) in v.iter().enumerate() {
            want_a[i * n + i] = *x;
        }
        let x = Array::from_vec(&[n], v).unwrap();
        let (d, m) = on(SchedMode::Gpu, || system::diagonal_then_matrix(&a, &x)).unwrap();
        assert_eq!(d.to_vec().unwrap(), want_d, "system.q diagonal {rows}x{cols}");
        assert_eq!(m.to_vec().unwrap(), want_a, "system.q diag_matrix n={n}");
        let d = on(SchedMode::Gpu, || system::diagonal(&a)).unwrap();
        assert_eq!(d.to_vec().unwrap(), want_d, "exported diagonal {rows}x{cols}");
        let m = on(SchedMode::Gpu, || system::diag_matrix(&x)).unwrap();
        assert_eq!(m.to_vec().unwrap(), want_a, "exported diag_matrix n={n}");
    }
}

#[test]
fn integer_conversions() {
    let x = Array::from_vec(&[1, 3, 1], vec![0u8, 128, 255]).unwrap();
    assert_eq!(m::t_u8(&x).unwrap().to_vec().unwrap(), vec![0.0, 128.0, 255.0]);
    let y = Array::from_vec(&[1, 4, 1], vec![-3.0f32, 1.4, 1.6, 300.0]).unwrap();
    assert_eq!(m::t_to_u8(&y).unwrap().to_vec().unwrap(), vec![0u8, 1, 2, 255]);
    let x16 = Array::from_vec(&[1, 3, 1], vec![0u16, 1000, 65535]).unwrap();
    let f = Array::from_vec(&[1, 4, 1], vec![-1.0f32, 2.5, 70000.0, 1234.4]).unwrap();
    let (a, b) = m::t_u16(&x16, &f).unwrap();
    assert_eq!(a.to_vec().unwrap(), vec![0.0, 1000.0, 65535.0]);
    // Rounded, then saturated to 0..65535 (MATLAB's uint16); 2.5 rounds away from zero.
    assert_eq!(b.to_vec().unwrap(), vec![0u16, 3, 65535, 1234]);
}

#[test]
fn linear_algebra_module() {
    // A = [[4, 2], [2, 3]]: det 8, trace 7; A x = [2, 1] at x = [0.5, 0].
    let a = Array::from_vec(&[2, 2], vec![4.0f32, 2.0, 2.0, 3.0]).unwrap();
    let b = Array::from_vec(&[2], vec![2.0f32, 1.0]).unwrap();
    let (t, d, x, n) = m::t_linalg(&a, &b).unwrap();
    assert_eq!(t, 7.0);
    close(&[d, n], &[8f32.ln(), 5f32.sqrt()], 1e-6);
    close(&x.to_vec().unwrap(), &[0.5, 0.0], 1e-6);
    // The upper factor R with R' R = A: [[2, 1], [0, sqrt(2)]] by hand.
    let r = m::t_chol(&a).unwrap().to_vec().unwrap();
    close(&r, &[2.0, 1.0, 0.0, 2f32.sqrt()], 1e-6);
}

#[test]
fn half_conversions_round_to_binary16() {
    let v = vec![0.1f32, 1.0 / 3.0, 65504.0, 1e-8, -2.5];
    let x = Array::from_vec(&[1, 5, 1], v.clone()).unwrap();
    let expect: Vec<f32> = v.iter().map(|&a| quasar::f16::from_f32(a).to_f32()).collect();
    assert_eq!(m::t_half(&x).unwrap().to_vec().unwrap(), expect);
}

#[test]
fn module_kernels_on_both_devices() {
    if !gpu_or_skip("module_kernels_on_both_devices") {
        return;
    }
    let x = cube(9, 7, 3, |i, j, c| ((i * 7 + j * 3 + c * 5) % 11) as f32 / 10.0);
    let h = Array::from_vec(&[3, 3], vec![1.0, 2.0, 0.0, -1.0, 0.5, 0.0, 0.0, 0.0, 3.0]).unwrap();
    type Run<'a> = (&'a str, Box<dyn Fn() -> quasar::Result<Array<f32>> + 'a>);
    let runs: Vec<Run> = vec![
        ("rgb2lab", Box::new(|| m::t_lab(&x))),
        ("rgb2hsv", Box::new(|| m::t_hsv(&x))),
        ("sRGB_decode", Box::new(|| m::t_decode(&x))),
        ("imfilter mirror", Box::new(|| m::t_filter(&x, &h, "mirror"))),
        ("imfilter zero", Box::new(|| m::t_filter(&x, &h, "zero"))),
        ("imerode", Box::new(|| m::t_erode(&x, &h))),
        ("imresize bicubic", Box::new(|| m::t_resize(&x, 1.5, "bicubic"))),
        ("padarray", Box::new(|| m::t_pad(&x, "circular"))),
        ("immedfilt", Box::new(|| m::t_immedfilt(&x, 2))),
        ("medfilt2 zeros", Box::new(|| m::t_medfilt2(&x, 2, 3, "zeros"))),
        // Every other kernel of the shipped modules (tests/ptx_coverage.rs lists them).
        ("rgb2gray", Box::new(|| m::t_gray(&x))),
        ("sRGB_encode", Box::new(|| m::t_encode(&x))),
        ("lab2rgb", Box::new(|| m::t_unlab(&m::t_lab(&x)?))),
        ("hsv2rgb", Box::new(|| m::t_unhsv(&m::t_hsv(&x)?))),
        ("rgb2yuv, yuv2rgb", Box::new(|| m::t_yuv(&x))),
        ("imfilter circular", Box::new(|| m::t_filter(&x, &h, "circular"))),
        ("imfilter clamped", Box::new(|| m::t_filter(&x, &h, "clamped"))),
        ("imresize bilinear", Box::new(|| m::t_resize(&x, 1.5, "bilinear"))),
        ("imresize nearest", Box::new(|| m::t_resize(&x, 0.7, "nearest"))),
        ("padarray zero", Box::new(|| m::t_pad(&x, "zero"))),
        ("padarray clamped", Box::new(|| m::t_pad(&x, "clamped"))),
        ("padarray mirror", Box::new(|| m::t_pad(&x, "mirror"))),
        ("fliplr", Box::new(|| Ok(m::t_flip(&x)?.0))),
        ("flipud", Box::new(|| Ok(m::t_flip(&x)?.1))),
        ("fftshift2", Box::new(|| Ok(m::t_flip(&x)?.2))),
    ];
    for (name, f) in &runs {
        let (c, g) = both(name, false, || f()?.to_vec()).unwrap();
        close(&c, &g, 2e-5);
    }
}
