//! End to end: `__kernel__`/`__device__` functions and `parallel_do` on the CPU device, every
//! result compared with plain Rust: boundary modes, atomics, kernel outputs, shared memory
//! with `syncthreads`, lambdas and captured variables.

use quasar::Array;

#[path = "common/reference.rs"]
mod reference;
use reference::box3_reference;

mod k {
    // Shared with tests/gpu_kernels.rs.
    quasar::quasar!(file = "tests/common/kernels.q");
}

fn mat(m: usize, n: usize, f: impl Fn(usize, usize) -> f32) -> Array<f32> {
    Array::from_fn(&[m, n], |i| f(i / n, i % n)).unwrap()
}

fn close(a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "element {i}: {x} vs {y}");
    }
}

#[test]
fn gamma_kernel_matches_powf() {
    let x = mat(37, 53, |i, j| (i * 53 + j) as f32 / 100.0);
    let y = k::gamma(&x, 0.45).unwrap();
    let expect: Vec<f32> = x.to_vec().unwrap().iter().map(|v| v.powf(0.45)).collect();
    close(&y.to_vec().unwrap(), &expect, 4e-6);
}

#[test]
fn clamped_3x3_filter_matches_reference_on_borders_and_interior() {
    for (m, n) in [(1, 1), (2, 3), (17, 45), (64, 200)] {
        let x = mat(m, n, |i, j| ((i * 7 + j * 13) % 31) as f32);
        let y = k::box3(&x).unwrap();
        close(&y.to_vec().unwrap(), &box3_reference(&x.to_vec().unwrap(), m, n), 1e-6);
    }
}

#[test]
fn boundary_modes_for_reads() {
    let n = 10usize;
    let x = Array::from_fn(&[n], |i| i as f32).unwrap();
    for s in [-13i32, -3, 0, 4, 12] {
        let circ = k::shift(&x, s, 0).unwrap().to_vec().unwrap();
        let mirr = k::shift(&x, s, 1).unwrap().to_vec().unwrap();
        let safe = k::shift(&x, s, 2).unwrap().to_vec().unwrap();
        for p in 0..n as i64 {
            let i = p + s as i64;
            assert_eq!(circ[p as usize], i.rem_euclid(n as i64) as f32, "circular {s}");
            assert_eq!(safe[p as usize], if (0..n as i64).contains(&i) { i as f32 } else { 0.0 });
            // 'mirror repeats the edge element: -1 -> 0, n -> n - 1.
            let period = 2 * n as i64;
            let r = i.rem_euclid(period);
            let m = if r < n as i64 { r } else { period - 1 - r };
            assert_eq!(mirr[p as usize], m as f32, "mirror {s} at {p}");
        }
    }
}

#[test]
fn checked_access_outside_is_an_error_naming_the_array() {
    let x = Array::from_fn(&[8], |i| i as f32).unwrap();
    assert!(k::shift(&x, 0, 3).is_ok());
    let e = k::shift(&x, 3, 3).unwrap_err().to_string();
    assert!(e.contains("out of range for `x`"), "{e}");
}

#[test]
fn atomic_increments_build_a_histogram() {
    let data: Vec<i32> = (0..10_000).map(|i: i64| ((i * 7919) % 13) as i32).collect();
    let x = Array::from_vec(&[data.len()], data.clone()).unwrap();
    let h = k::histogram(&x, 13).unwrap().to_vec().unwrap();
    let mut expect = vec![0i32; 13];
    for v in data {
        expect[v as usize] += 1;
    }
    assert_eq!(h, expect);
}

#[test]
fn kernel_outputs_are_reduced() {
    let v: Vec<f32> = (0..1000).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
    let a = Array::from_vec(&[v.len()], v.clone()).unwrap();
    let (s, m) = k::total_and_max(&a).unwrap();
    assert_eq!(s, v.iter().sum::<f32>());
    assert_eq!(m, v.iter().cloned().fold(f32::MIN, f32::max));
}

#[test]
fn shared_memory_with_syncthreads() {
    let x = Array::from_fn(&[32], |i| i as f32).unwrap();
    let y = k::reverse_in_blocks(&x).unwrap().to_vec().unwrap();
    let expect: Vec<f32> = (0..32).map(|i| ((i / 8) * 8 + 7 - i % 8) as f32).collect();
    assert_eq!(y, expect);
    let x = Array::from_fn(&[64], |i| (i % 5) as f32).unwrap();
    let sums = k::sums_of_blocks(&x).unwrap().to_vec().unwrap();
    let expect: Vec<f32> =
        (0..4).map(|b| (b * 16..b * 16 + 16).map(|i| (i % 5) as f32).sum()).collect();
    assert_eq!(sums, expect);
}

#[test]
fn device_functions_and_kernel_lambdas_with_captures() {
    let x = mat(9, 11, |i, j| (i as f32 - 4.0) / 8.0 + j as f32 / 20.0);
    let y = k::scale_and_smooth(&x, 1.5).unwrap().to_vec().unwrap();
    let expect: Vec<f32> = x
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| {
            let c = (1.5 * v).clamp(0.0, 1.0);
            c * c * (3.0 - 2.0 * c)
        })
        .collect();
    close(&y, &expect, 1e-6);
    // A device function value passed to a generic helper and called inside its kernel.
    let c = Array::from_fn(&[4, 5, 3], |i| i as f32).unwrap();
    let y = k::affine(&c, 2.0, -1.0).unwrap().to_vec().unwrap();
    let expect: Vec<f32> = (0..60).map(|i| 2.0 * i as f32 - 1.0).collect();
    assert_eq!(y, expect);
}

#[test]
fn separable_row_filter_with_mirror() {
    let x = mat(5, 16, |i, j| (i * 16 + j) as f32);
    let w = Array::from_vec(&[5], vec![0.1f32, 0.2, 0.4, 0.2, 0.1]).unwrap();
    let y = k::filter_rows(&x, &w).unwrap().to_vec().unwrap();
    let xs = x.to_vec().unwrap();
    let wv = w.to_vec().unwrap();
    let n = 16i64;
    let mut expect = vec![0.0f32; 80];
    for i in 0..5usize {
        for j in 0..16i64 {
            let mut acc = 0.0f32;
            for (t, wt) in wv.iter().enumerate() {
                let mut c = j + t as i64 - 2;
                if c < 0 {
                    c = -c - 1;
                }
                if c >= n {
                    c = 2 * n - 1 - c;
                }
                acc += xs[i * 16 + c as usize] * wt;
            }
            expect[i * 16 + j as usize] = acc;
        }
    }
    close(&y, &expect, 1e-6);
}

#[test]
fn syncthreads_inside_for_and_while_loops() {
    // The manual's tiled matrix product (a barrier in a `for` loop); sizes not multiples of
    // the tile.
    let (m, k, n) = (13usize, 21usize, 10usize);
    let a = mat(m, k, |i, j| ((i * 7 + j * 3) % 11) as f32 - 5.0);
    let b = mat(k, n, |i, j| ((i * 5 + j) % 7) as f32 * 0.5);
    let c = k::matmul_tiled(&a, &b).unwrap().to_vec().unwrap();
    let (av, bv) = (a.to_vec().unwrap(), b.to_vec().unwrap());
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..k).map(|p| av[i * k + p] * bv[p * n + j]).sum();
            assert!((c[i * n + j] - want).abs() < 1e-4, "C[{i},{j}] = {} vs {want}", c[i * n + j]);
        }
    }
    // A tree reduction in shared memory (a barrier in a `while` loop).
    let xs: Vec<f32> = (0..32 * 9).map(|i| (i % 13) as f32 - 6.0).collect();
    let x = Array::from_vec(&[xs.len()], xs.clone()).unwrap();
    let y = k::tree_sums(&x).unwrap().to_vec().unwrap();
    for (b, got) in y.iter().enumerate() {
        assert_eq!(*got, xs[b * 32..(b + 1) * 32].iter().sum::<f32>(), "block {b}");
    }
}

#[test]
fn slices_of_pixels_inside_kernels() {
    let (h, w) = (5usize, 7usize);
    let xs: Vec<f32> = (0..h * w * 3).map(|i| i as f32).collect();
    let x = Array::from_vec(&[h, w, 3], xs.clone()).unwrap();
    let y = k::swap_channels(&x).unwrap().to_vec().unwrap();
    for p in 0..h * w {
        let (c, o) = (&xs[p * 3..p * 3 + 3], &y[p * 5..p * 5 + 5]);
        assert_eq!(o, &[c[2], c[1], 0.5 * c[0], 7.0, 7.0], "pixel {p}");
    }
}

/// `'mirror` with the edge element repeated (as `quasar_std::rt` maps indices).
fn mirror(i: i64, n: i64) -> usize {
    let p = 2 * n;
    let m = i.rem_euclid(p);
    (if m < n { m } else { p - 1 - m }) as usize
}

#[test]
fn filters_with_a_radius_parameter_match_reference() {
    // Offsets bounded by a parameter (`i - r`, `numel(w)`): the interior fast path with
    // bounds evaluated at run time, the border with mirrored indices.
    for (m, n) in [(1usize, 1usize), (3, 17), (9, 40), (20, 7)] {
        for r in [0i64, 1, 3, 7] {
            let x = mat(m, n, |i, j| ((i * 31 + j * 17) % 23) as f32 - 11.0);
            let xs = x.to_vec().unwrap();
            let ws: Vec<f32> = (0..2 * r + 1).map(|i| 1.0 + i as f32 * 0.25).collect();
            let w = Array::from_vec(&[ws.len()], ws.clone()).unwrap();
            let y = k::filter_radius(&x, &w, r as i32).unwrap().to_vec().unwrap();
            for i in 0..m {
                for j in 0..n {
                    let mut want = 0.0f32;
                    for (t, wt) in ws.iter().enumerate() {
                        for dj in -r..=r {
                            let a = mirror(i as i64 + dj, m as i64);
                            let b = mirror(j as i64 + t as i64 - r, n as i64);
                            want += xs[a * n + b] * wt;
                        }
                    }
                    let got = y[i * n + j];
                    assert!(
                        (got - want).abs() <= 1e-3 * want.abs().max(1.0),
                        "{m}x{n} r={r} ({i},{j}): {got} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn pointwise_kernels_over_cubes() {
    for dims in [[1usize, 1, 1], [5, 7, 3], [64, 33, 3], [3, 1, 4]] {
        let n: usize = dims.iter().product();
        let xs: Vec<f32> = (0..n).map(|i| ((i * 37) % 256) as f32).collect();
        let x = Array::from_vec(&dims, xs.clone()).unwrap();
        let y = k::pointwise_gamma(&x, 0.8).unwrap().to_vec().unwrap();
        for (i, (a, b)) in xs.iter().zip(&y).enumerate() {
            let want = 255.0 * (a / 255.0).powf(0.8);
            assert!(
                (b - want).abs() <= 1e-4 * want.max(1.0),
                "{dims:?} element {i}: {b} vs {want}"
            );
        }
    }
    let dims = [6usize, 9, 3];
    let xs: Vec<f32> = (0..6 * 9 * 3).map(|i| i as f32).collect();
    let x = Array::from_vec(&dims, xs.clone()).unwrap();
    let y = k::pointwise_crop(&x, 4, 5).unwrap().to_vec().unwrap();
    for i in 0..4 {
        for j in 0..5 {
            for c in 0..3 {
                assert_eq!(y[(i * 5 + j) * 3 + c], xs[(i * 9 + j) * 3 + c] + 1.0, "({i},{j},{c})");
            }
        }
    }
}

#[test]
fn stencils_over_cubes_with_mirrored_borders() {
    for dims in [[1usize, 1, 1], [3, 5, 3], [8, 17, 3], [20, 9, 2], [5, 40, 4]] {
        let [m, n, c] = dims;
        let xs: Vec<f32> = (0..m * n * c).map(|i| ((i * 13) % 29) as f32 - 14.0).collect();
        let x = Array::from_vec(&dims, xs.clone()).unwrap();
        for r in [0i64, 1, 3] {
            let y = k::stencil3(&x, r as i32).unwrap().to_vec().unwrap();
            let at = |i: usize, j: usize, k: usize| xs[(i * n + j) * c + k];
            for i in 0..m {
                for j in 0..n {
                    for ch in 0..c {
                        let mut want = 0.0f32;
                        for o in -r..=r {
                            let jj = mirror(j as i64 + o, n as i64);
                            let ii = mirror(i as i64 + o, m as i64);
                            want += at(i, jj, ch) * (o + r + 1) as f32 + at(ii, j, ch);
                        }
                        let got = y[(i * n + j) * c + ch];
                        assert!(
                            (got - want).abs() <= 1e-4 * want.abs().max(1.0),
                            "{dims:?} r={r} ({i},{j},{ch}): {got} vs {want}"
                        );
                    }
                }
            }
        }
    }
}

/// The CPU dispatcher picks a kernel version per machine (AVX2+FMA, or baseline x86-64: a
/// baseline copy of the hot loop or the border code over whole rows): run this file's tests
/// again in a child process with the wider version turned off, so that every version this
/// machine can run is checked against the same references.
#[test]
fn every_cpu_kernel_version_agrees() {
    if std::env::var_os("QUASAR_NO_AVX2").is_some() {
        return; // already a child
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--skip", "every_cpu_kernel_version_agrees", "--test-threads=2"])
        .env("QUASAR_NO_AVX2", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "with QUASAR_NO_AVX2=1:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
