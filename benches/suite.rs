//! The workload suite of issue 16 beyond `transforms.rs`: each workload as an explicit
//! `__kernel__`, its high-level Quasar form where there is one (library call, array
//! expression, plain loops), and hand-written Rust (rayon), in one process, on 1080p and 4K
//! images (`mat`, and `cube` with 3 channels for the per-pixel workloads).
//!
//! Prints the same `RATIO <workload> <form>: <ms> / kernel <ms> = <ratio>` and `RESULT` lines
//! as `transforms.rs`, and for the bandwidth-bound workloads `BANDWIDTH <workload> <form>:
//! <GB/s> = <fraction> of copy`, the fraction of a STREAM-style copy measured in the same run
//! (`scripts/benchmarks-md.py` turns them into BENCHMARKS.md; `scripts/bench-peers.py` runs
//! NumPy/SciPy/OpenCV on the same data and adds their lines).
//!
//! Rows are Criterion benchmarks `<workload>_<size>/<form>/run` (`gauss_4k/kernel/run`,
//! `matmul_1024/rust/run`, `max/lib/run`); a filter runs only the rows it matches and builds only
//! their data: `cargo bench --bench suite -- gauss_4k/` (one workload at one size),
//! `-- '_1080p/'` (every 1080p workload), `-- --list` (every row). The bandwidth fractions need
//! the copy rows of the same size (`-- '(copy|hist)_4k/'`). `QUASAR_SUITE_SIZES=1080p` (or `4k`)
//! and `QUASAR_SUITE_ONLY=box9,...` (workloads) filter the same way. The `launch_1` and
//! `launch_15k` rows (workload `launch`) time the fixed cost of a launch: a copy of one element
//! and of 8 x 1920, the kernel against plain Rust.

use criterion::{criterion_group, criterion_main, Criterion};
use quasar::Array;
use rayon::prelude::*;
use std::cell::{LazyCell, OnceCell};

mod common;
use common::{load, report};
use std::hint::black_box;
use std::time::Duration;

mod q {
    quasar::quasar! { r#"
function [] = __kernel__ copy_k(x : mat, y : mat, pos : ivec2)
    y[pos] = x[pos]
endfunction

function [] = copy_kernel(x : mat, y : mat)
    parallel_do(size(x), x, y, copy_k)
endfunction

function [] = __kernel__ box9_k(x : mat'clamped, y : mat, pos : ivec2)
    s = 0.0
    for dm = -4..4
        for dn = -4..4
            s += x[pos[0] + dm, pos[1] + dn]
        endfor
    endfor
    y[pos] = s * (1.0 / 81)
endfunction

function [] = box9_kernel(x : mat, y : mat)
    parallel_do(size(x), x, y, box9_k)
endfunction

function [] = box9_loop(x : mat'clamped, y : mat)
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            s = 0.0
            for dm = -4..4
                for dn = -4..4
                    s += x[m + dm, n + dn]
                endfor
            endfor
            y[m, n] = s * (1.0 / 81)
        endfor
    endfor
endfunction

function [] = __kernel__ gauss_h(x : mat'mirror, y : mat, fc : vec'const, n : int, pos : ivec2)
    acc = 0.0
    for i = 0..2 * n
        acc += x[pos[0], pos[1] + i - n] * fc[i]
    endfor
    y[pos] = acc
endfunction

function [] = __kernel__ gauss_v(x : mat'mirror, y : mat, fc : vec'const, n : int, pos : ivec2)
    acc = 0.0
    for i = 0..2 * n
        acc += x[pos[0] + i - n, pos[1]] * fc[i]
    endfor
    y[pos] = acc
endfunction

function [] = gauss_kernel(x : mat, tmp : mat, y : mat, fc : vec, n : int)
    parallel_do(size(x), x, tmp, fc, n, gauss_h)
    parallel_do(size(x), tmp, y, fc, n, gauss_v)
endfunction

function [] = __kernel__ mandel_k(y : mat, pos : ivec2)
    cr = -2.0 + 3.0 * pos[1] / size(y, 1)
    ci = -1.2 + 2.4 * pos[0] / size(y, 0)
    zr = 0.0
    zi = 0.0
    k = 0
    while k < 64 && zr * zr + zi * zi < 4.0
        t = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = t
        k += 1
    endwhile
    y[pos] = k
endfunction

function [] = mandel_kernel(y : mat)
    parallel_do(size(y), y, mandel_k)
endfunction

function [s : scalar] = __kernel__ max_k(x : vec, pos : int)
    s ^^= x[pos]
endfunction

function s : scalar = max_kernel(x : vec)
    s = parallel_do(numel(x), x, max_k)
endfunction

function s : scalar = max_lib(x : vec)
    s = max(x)
endfunction

function [] = __kernel__ hist_k(x : mat, h : vec'unchecked, pos : ivec2)
    h[int(x[pos] * 255.0)] += 1.0
endfunction

function h : vec = hist_kernel(x : mat)
    h = zeros(256)
    parallel_do(size(x), x, h, hist_k)
endfunction

function [] = __kernel__ transpose_k(x : mat, y : mat, pos : ivec2)
    y[pos[1], pos[0]] = x[pos]
endfunction

function [] = transpose_kernel(x : mat, y : mat)
    parallel_do(size(x), x, y, transpose_k)
endfunction

function y : mat = transpose_lib(x : mat)
    y = transpose(x)
endfunction

function [] = __kernel__ matmul_k(a : mat, b : mat, c : mat, pos : ivec2)
    s = 0.0
    for k = 0..size(a, 1) - 1
        s += a[pos[0], k] * b[k, pos[1]]
    endfor
    c[pos] = s
endfunction

function [] = matmul_kernel(a : mat, b : mat, c : mat)
    parallel_do(size(c), a, b, c, matmul_k)
endfunction

function c : mat = matmul_lib(a : mat, b : mat)
    c = a * b
endfunction

function [] = __kernel__ sigma_k(x : mat'clamped, y : mat, r : int, t : scalar, pos : ivec2)
    c = x[pos]
    s = 0.0
    n = 0.0
    for dm = -r..r
        for dn = -r..r
            v = x[pos[0] + dm, pos[1] + dn]
            if abs(v - c) <= t
                s += v
                n += 1.0
            endif
        endfor
    endfor
    y[pos] = s / n
endfunction

function [] = sigma_kernel(x : mat, y : mat, r : int, t : scalar)
    parallel_do(size(x), x, y, r, t, sigma_k)
endfunction

function [] = __kernel__ gamma3_k(x : cube, y : cube, pos : ivec3)
    y[pos] = x[pos] .^ 0.45
endfunction

function [] = gamma3_kernel(x : cube, y : cube)
    parallel_do(size(x), x, y, gamma3_k)
endfunction

function y : cube = gamma3_expr(x : cube)
    y = x .^ 0.45
endfunction
"# }
}

/// An image size: its name in the report and its rows and columns.
type Size = (&'static str, usize, usize);
const SIZES: [Size; 2] = [("1080p", 1080, 1920), ("4k", 2160, 3840)];
const LONG: usize = 10_000_000;

/// The same test data as `transforms.rs` and `scripts/bench-peers.py`: values in [0, 1).
fn data(len: usize, seed: usize) -> Vec<f32> {
    (0..len).map(|i| ((i * 7919 + seed) % 1000) as f32 / 1000.0).collect()
}

fn array(shape: &[usize], seed: usize) -> Array<f32> {
    Array::from_vec(shape, data(shape.iter().product(), seed)).unwrap()
}

fn zeros(shape: &[usize]) -> Array<f32> {
    Array::<f32>::zeros(shape).unwrap()
}

/// A host buffer of `len` zeros, allocated by the first run of the row that writes it.
fn buffer(b: &mut Option<Vec<f32>>, len: usize) -> &mut Vec<f32> {
    b.get_or_insert_with(|| vec![0.0f32; len])
}

fn wanted(what: &str) -> bool {
    std::env::var("QUASAR_SUITE_ONLY").map(|v| v.split(',').any(|w| w == what)).unwrap_or(true)
}

/// A row run often enough for Criterion's sampling (`None` when the filter skips it).
fn time(c: &mut Criterion, name: &str, f: impl FnMut()) -> Option<Duration> {
    common::time(c, name, false, f)
}

fn sizes() -> impl Iterator<Item = Size> {
    let only = std::env::var("QUASAR_SUITE_SIZES").unwrap_or_default();
    SIZES.into_iter().filter(move |s| only.is_empty() || only.split(',').any(|o| o == s.0))
}

/// Bytes moved per second by each form that ran, as a fraction of the copy's (`copy` = its
/// GB/s; nothing when the filter skipped the copy).
fn bandwidth(workload: &str, bytes: usize, copy: Option<f64>, forms: &[(&str, Option<Duration>)]) {
    let Some(copy) = copy else { return };
    for (form, t) in forms {
        if let Some(t) = t {
            let gbs = bytes as f64 / t.as_secs_f64() / 1e9;
            println!("BANDWIDTH {workload} {form}: {gbs:.2} GB/s = {:.2} of copy", gbs / copy);
        }
    }
}

fn close(what: &str, a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len(), "{what}: lengths differ");
    let bad = a.iter().zip(b).position(|(x, y)| (x - y).abs() > tol * (1.0 + y.abs()));
    assert!(bad.is_none(), "{what}: element {bad:?} differs: {:?}", bad.map(|i| (a[i], b[i])));
}

/// Rows of `m` x `n` row-major `y`, each computed by `f(row index, row)` on rayon's threads.
fn rows(y: &mut [f32], n: usize, f: impl Fn(usize, &mut [f32]) + Sync) {
    y.par_chunks_mut(n).enumerate().for_each(|(i, r)| f(i, r));
}

/// The explicit kernel's result, which every other form that ran is checked against: the
/// kernel row's output `y` when that row ran, else what `run` computes (one kernel run).
fn reference<'a>(
    want: &'a OnceCell<Vec<f32>>,
    kernel_ran: bool,
    y: &Array<f32>,
    run: impl FnOnce() -> Vec<f32>,
) -> &'a Vec<f32> {
    want.get_or_init(|| if kernel_ran { y.to_vec().unwrap() } else { run() })
}

/// The copy's bandwidth in GB/s (8 bytes per element: one read, one write), per size; `None`
/// when the filter selects neither of its rows.
fn copy(c: &mut Criterion, (name, m, n): Size) -> Option<f64> {
    let x = LazyCell::new(|| array(&[m, n], 0));
    let y = LazyCell::new(|| zeros(&[m, n]));
    let kernel = time(c, &format!("copy_{name}/kernel"), || q::copy_kernel(&x, &y).unwrap());
    if kernel.is_some() {
        close("copy", &y.to_vec().unwrap(), &x.to_vec().unwrap(), 0.0);
    }
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let mut ys = None;
    let rust = time(c, &format!("copy_{name}/rust"), || {
        buffer(&mut ys, m * n)
            .par_chunks_mut(1 << 16)
            .zip(xs.par_chunks(1 << 16))
            .for_each(|(o, i)| o.copy_from_slice(i))
    });
    let w = format!("copy_{name}");
    report(&w, kernel, &[("rust", rust)]);
    let best = kernel.into_iter().chain(rust).min()?;
    let copy = (8 * m * n) as f64 / best.as_secs_f64() / 1e9;
    bandwidth(&w, 8 * m * n, Some(copy), &[("kernel", kernel), ("rust", rust)]);
    Some(copy)
}

fn box9(c: &mut Criterion, (name, m, n): Size) {
    let x = LazyCell::new(|| array(&[m, n], 1));
    let y = LazyCell::new(|| zeros(&[m, n]));
    let w = format!("box9_{name}");
    let kernel = time(c, &format!("{w}/kernel"), || q::box9_kernel(&x, &y).unwrap());
    let want = OnceCell::new();
    let want = || {
        reference(&want, kernel.is_some(), &y, || {
            let y = zeros(&[m, n]);
            q::box9_kernel(&x, &y).unwrap();
            y.to_vec().unwrap()
        })
    };
    let y2 = LazyCell::new(|| zeros(&[m, n]));
    let looped = time(c, &format!("{w}/loop"), || q::box9_loop(&x, &y2).unwrap());
    if looped.is_some() {
        close("box9 loop", &y2.to_vec().unwrap(), want(), 1e-5);
    }
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let (mut ys, mut padded) = (None, None);
    // Each input row padded with its clamped border once; an output row sums the nine rows'
    // windows (the inner loops run over slices and vectorise).
    let rust = time(c, &format!("{w}/rust"), || {
        let xs: &[f32] = &xs;
        let padded = buffer(&mut padded, m * (n + 8));
        padded.par_chunks_mut(n + 8).enumerate().for_each(|(i, p)| {
            let row = &xs[i * n..][..n];
            p[4..n + 4].copy_from_slice(row);
            p[..4].fill(row[0]);
            p[n + 4..].fill(row[n - 1]);
        });
        let padded = &*padded;
        rows(buffer(&mut ys, m * n), n, |i, out| {
            out.fill(0.0);
            for dm in -4..=4isize {
                let r = (i as isize + dm).clamp(0, m as isize - 1) as usize;
                let p = &padded[r * (n + 8)..][..n + 8];
                for dn in 0..9 {
                    out.iter_mut().zip(&p[dn..dn + n]).for_each(|(o, v)| *o += v);
                }
            }
            out.iter_mut().for_each(|o| *o *= 1.0 / 81.0);
        })
    });
    if let Some(ys) = &ys {
        close("box9 rust", ys, want(), 1e-5);
    }
    report(&w, kernel, &[("loop", looped), ("rust", rust)]);
}

/// Quasar's `'mirror`: the image reflected with its border pixel repeated (`-1` reads `0`).
fn mirror(v: isize, len: usize) -> usize {
    let l = len as isize;
    let r = v.rem_euclid(l);
    (if v.div_euclid(l) % 2 == 0 { r } else { l - 1 - r }) as usize
}

fn gauss(c: &mut Criterion, (name, m, n): Size) {
    let r = 6usize;
    let fc: Vec<f32> = (0..=2 * r)
        .map(|i| (-((i as f32 - r as f32).powi(2)) / (2.0 * 2.0f32.powi(2))).exp())
        .collect();
    let total: f32 = fc.iter().sum();
    let fc: Vec<f32> = fc.iter().map(|v| v / total).collect();
    let x = LazyCell::new(|| array(&[m, n], 2));
    let (tmp, y) = (LazyCell::new(|| zeros(&[m, n])), LazyCell::new(|| zeros(&[m, n])));
    let fca = Array::from_vec(&[fc.len()], fc.clone()).unwrap();
    let w = format!("gauss_{name}");
    let kernel =
        time(c, &format!("{w}/kernel"), || q::gauss_kernel(&x, &tmp, &y, &fca, r as i32).unwrap());
    let want = OnceCell::new();
    let want = || {
        reference(&want, kernel.is_some(), &y, || {
            let (tmp, y) = (zeros(&[m, n]), zeros(&[m, n]));
            q::gauss_kernel(&x, &tmp, &y, &fca, r as i32).unwrap();
            y.to_vec().unwrap()
        })
    };
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let (mut ts, mut ys) = (None, None);
    let rust = time(c, &format!("{w}/rust"), || {
        let xs: &[f32] = &xs;
        let ts = buffer(&mut ts, m * n);
        rows(ts, n, |i, out| {
            let row = &xs[i * n..][..n];
            for (j, o) in out.iter_mut().enumerate() {
                let s: f32 = fc
                    .iter()
                    .enumerate()
                    .map(|(k, f)| row[mirror(j as isize + k as isize - r as isize, n)] * f)
                    .sum();
                *o = s;
            }
        });
        let ts = &*ts;
        rows(buffer(&mut ys, m * n), n, |i, out| {
            out.fill(0.0);
            for (k, f) in fc.iter().enumerate() {
                let src = &ts[mirror(i as isize + k as isize - r as isize, m) * n..][..n];
                out.iter_mut().zip(src).for_each(|(o, s)| *o += s * f);
            }
        })
    });
    if let Some(ys) = &ys {
        close("gauss rust", ys, want(), 1e-4);
    }
    report(&w, kernel, &[("rust", rust)]);
}

fn mandel(c: &mut Criterion, (name, m, n): Size) {
    let y = LazyCell::new(|| zeros(&[m, n]));
    let w = format!("mandel_{name}");
    let kernel = time(c, &format!("{w}/kernel"), || q::mandel_kernel(&y).unwrap());
    let want = OnceCell::new();
    let want = || {
        reference(&want, kernel.is_some(), &y, || {
            let y = zeros(&[m, n]);
            q::mandel_kernel(&y).unwrap();
            y.to_vec().unwrap()
        })
    };
    let mut ys = None;
    let rust = time(c, &format!("{w}/rust"), || {
        rows(buffer(&mut ys, m * n), n, |i, out| {
            let ci = -1.2 + 2.4 * i as f32 / m as f32;
            for (j, o) in out.iter_mut().enumerate() {
                let cr = -2.0 + 3.0 * j as f32 / n as f32;
                let (mut zr, mut zi, mut k) = (0.0f32, 0.0f32, 0);
                while k < 64 && zr * zr + zi * zi < 4.0 {
                    let t = zr * zr - zi * zi + cr;
                    zi = 2.0 * zr * zi + ci;
                    zr = t;
                    k += 1;
                }
                *o = k as f32;
            }
        })
    });
    if let Some(ys) = &ys {
        // Iteration counts near the set's boundary may differ by rounding: compare the totals.
        let (a, b): (f64, f64) =
            (ys.iter().map(|&v| v as f64).sum(), want().iter().map(|&v| v as f64).sum());
        assert!((a - b).abs() <= 1e-3 * b, "mandel: {a} vs {b}");
    }
    report(&w, kernel, &[("rust", rust)]);
}

fn reductions(c: &mut Criterion, copy: Option<f64>) {
    let xs = LazyCell::new(|| data(LONG, 3));
    let x = LazyCell::new(|| Array::from_vec(&[LONG], (*xs).clone()).unwrap());
    let kernel = time(c, "max/kernel", || {
        black_box(q::max_kernel(&x).unwrap());
    });
    if kernel.is_some() {
        assert_eq!(q::max_kernel(&x).unwrap(), 0.999);
    }
    let lib = time(c, "max/lib", || {
        black_box(q::max_lib(&x).unwrap());
    });
    if lib.is_some() {
        assert_eq!(q::max_lib(&x).unwrap(), 0.999);
    }
    let rust = time(c, "max/rust", || {
        black_box(
            xs.par_chunks(1 << 16)
                .map(|c| c.iter().fold(f32::MIN, |a, &b| a.max(b)))
                .reduce(|| f32::MIN, f32::max),
        );
    });
    report("max", kernel, &[("expr", lib), ("rust", rust)]);
    bandwidth("max", 4 * LONG, copy, &[("kernel", kernel), ("expr", lib), ("rust", rust)]);
}

fn hist(c: &mut Criterion, (name, m, n): Size, copy: Option<f64>) {
    let x = LazyCell::new(|| array(&[m, n], 4));
    let w = format!("hist_{name}");
    let mut got = None;
    let kernel = time(c, &format!("{w}/kernel"), || {
        got = Some(q::hist_kernel(&x).unwrap().to_vec().unwrap())
    });
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let count = |c: &[f32]| {
        let mut h = [0u32; 256];
        c.iter().for_each(|&v| h[(v * 255.0) as usize] += 1);
        h
    };
    let mut counted = None;
    let rust = time(c, &format!("{w}/rust"), || {
        counted = Some(xs.par_chunks(1 << 16).map(count).reduce(
            || [0; 256],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                a
            },
        ))
    });
    // The kernel's counts against Rust's, whichever row ran (the other computed once).
    if kernel.is_some() || rust.is_some() {
        let got = got.unwrap_or_else(|| q::hist_kernel(&x).unwrap().to_vec().unwrap());
        let want = counted.unwrap_or_else(|| count(&xs[..]));
        close("hist", &got, &want.map(|v| v as f32), 0.0);
    }
    report(&w, kernel, &[("rust", rust)]);
    bandwidth(&w, 4 * m * n, copy, &[("kernel", kernel), ("rust", rust)]);
}

fn transpose(c: &mut Criterion, (name, m, n): Size, copy: Option<f64>) {
    let x = LazyCell::new(|| array(&[m, n], 5));
    let y = LazyCell::new(|| zeros(&[n, m]));
    let w = format!("transpose_{name}");
    let kernel = time(c, &format!("{w}/kernel"), || q::transpose_kernel(&x, &y).unwrap());
    let want = OnceCell::new();
    let want = || {
        reference(&want, kernel.is_some(), &y, || {
            let y = zeros(&[n, m]);
            q::transpose_kernel(&x, &y).unwrap();
            y.to_vec().unwrap()
        })
    };
    let lib = time(c, &format!("{w}/lib"), || drop(q::transpose_lib(&x).unwrap()));
    if lib.is_some() {
        close("transpose lib", &q::transpose_lib(&x).unwrap().to_vec().unwrap(), want(), 0.0);
    }
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let mut ys = None;
    // Blocks of 32 output rows, each read in 32 x 32 tiles.
    let rust = time(c, &format!("{w}/rust"), || {
        let xs: &[f32] = &xs;
        buffer(&mut ys, m * n).par_chunks_mut(32 * m).enumerate().for_each(|(b, out)| {
            let j0 = b * 32;
            for i0 in (0..m).step_by(32) {
                for j in j0..(j0 + 32).min(n) {
                    for i in i0..(i0 + 32).min(m) {
                        out[(j - j0) * m + i] = xs[i * n + j];
                    }
                }
            }
        })
    });
    if let Some(ys) = &ys {
        close("transpose rust", ys, want(), 0.0);
    }
    report(&w, kernel, &[("expr", lib), ("rust", rust)]);
    bandwidth(&w, 8 * m * n, copy, &[("kernel", kernel), ("expr", lib), ("rust", rust)]);
}

fn matmul(c: &mut Criterion, k: usize) {
    let inputs = LazyCell::new(|| (array(&[k, k], 6), array(&[k, k], 7)));
    let cm = LazyCell::new(|| zeros(&[k, k]));
    let w = format!("matmul_{k}");
    let kernel =
        time(c, &format!("{w}/kernel"), || q::matmul_kernel(&inputs.0, &inputs.1, &cm).unwrap());
    let want = OnceCell::new();
    let want = || {
        reference(&want, kernel.is_some(), &cm, || {
            let cm = zeros(&[k, k]);
            q::matmul_kernel(&inputs.0, &inputs.1, &cm).unwrap();
            cm.to_vec().unwrap()
        })
    };
    let lib = time(c, &format!("{w}/lib"), || drop(q::matmul_lib(&inputs.0, &inputs.1).unwrap()));
    if lib.is_some() {
        let got = q::matmul_lib(&inputs.0, &inputs.1).unwrap().to_vec().unwrap();
        close("matmul lib", &got, want(), 1e-4);
    }
    let vs = LazyCell::new(|| (inputs.0.to_vec().unwrap(), inputs.1.to_vec().unwrap()));
    let mut cv = None;
    // Row by row, i-k-j order: the inner loop runs along rows of b and c and vectorises.
    let rust = time(c, &format!("{w}/rust"), || {
        let (av, bv) = &*vs;
        rows(buffer(&mut cv, k * k), k, |i, out| {
            out.fill(0.0);
            for (p, &aip) in av[i * k..][..k].iter().enumerate() {
                out.iter_mut().zip(&bv[p * k..][..k]).for_each(|(o, &bp)| *o += aip * bp);
            }
        })
    });
    if let Some(cv) = &cv {
        close("matmul rust", cv, want(), 1e-4);
    }
    report(&w, kernel, &[("expr", lib), ("rust", rust)]);
}

/// A sigma filter (the mean of the 5 × 5 window's values within `t` of the centre): a branch
/// per tap whose condition differs between positions.
fn sigma(c: &mut Criterion, (name, m, n): Size) {
    let (r, t) = (2isize, 0.1f32);
    let x = LazyCell::new(|| array(&[m, n], 9));
    let y = LazyCell::new(|| zeros(&[m, n]));
    let w = format!("sigma_{name}");
    let kernel = time(c, &format!("{w}/kernel"), || {
        q::sigma_kernel(&x, &y, r as i32, t).unwrap();
    });
    let want = OnceCell::new();
    let want = || {
        reference(&want, kernel.is_some(), &y, || {
            let y = zeros(&[m, n]);
            q::sigma_kernel(&x, &y, r as i32, t).unwrap();
            y.to_vec().unwrap()
        })
    };
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let mut ys = None;
    // Row by row, each position's window with clamped indices (the kernel's order of sums).
    let rust = time(c, &format!("{w}/rust"), || {
        let xs: &[f32] = &xs;
        rows(buffer(&mut ys, m * n), n, |i, out| {
            let at = |v: isize, len: usize| v.clamp(0, len as isize - 1) as usize;
            for (j, o) in out.iter_mut().enumerate() {
                let ctr = xs[i * n + j];
                let (mut s, mut k) = (0.0f32, 0.0f32);
                for dm in -r..=r {
                    let row = &xs[at(i as isize + dm, m) * n..][..n];
                    for dn in -r..=r {
                        let v = row[at(j as isize + dn, n)];
                        if (v - ctr).abs() <= t {
                            s += v;
                            k += 1.0;
                        }
                    }
                }
                *o = s / k;
            }
        })
    });
    if let Some(ys) = &ys {
        close("sigma rust", ys, want(), 1e-5);
    }
    report(&w, kernel, &[("rust", rust)]);
}

fn gamma3(c: &mut Criterion, (name, m, n): Size, copy: Option<f64>) {
    let x = LazyCell::new(|| array(&[m, n, 3], 8));
    let y = LazyCell::new(|| zeros(&[m, n, 3]));
    let w = format!("gamma_cube_{name}");
    let kernel = time(c, &format!("{w}/kernel"), || q::gamma3_kernel(&x, &y).unwrap());
    let want = OnceCell::new();
    let want = || {
        reference(&want, kernel.is_some(), &y, || {
            let y = zeros(&[m, n, 3]);
            q::gamma3_kernel(&x, &y).unwrap();
            y.to_vec().unwrap()
        })
    };
    let expr = time(c, &format!("{w}/expr"), || drop(q::gamma3_expr(&x).unwrap()));
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let mut ys = None;
    let rust = time(c, &format!("{w}/rust"), || {
        buffer(&mut ys, 3 * m * n).par_chunks_mut(1 << 14).zip(xs.par_chunks(1 << 14)).for_each(
            |(o, i)| {
                o.iter_mut().zip(i).for_each(|(o, i)| *o = i.powf(0.45));
            },
        )
    });
    if let Some(ys) = &ys {
        close("gamma cube", ys, want(), 1e-5);
    }
    report(&w, kernel, &[("expr", expr), ("rust", rust)]);
    bandwidth(&w, 24 * m * n, copy, &[("kernel", kernel), ("expr", expr), ("rust", rust)]);
}

/// The fixed cost of a launch: the copy kernel over one element (it runs on the calling
/// thread) and over 8 x 1920 (four blocks on rayon's threads, which it wakes), against the same
/// copies in plain Rust (`launch_1/rust`: one element copied in place; `launch_15k/rust`: four
/// chunks on rayon's threads). The rows name the positions launched.
fn launch_cost(c: &mut Criterion) {
    for (name, m, n, chunk) in [("launch_1", 1, 1, 1), ("launch_15k", 8, 1920, 2 * 1920)] {
        let x = LazyCell::new(|| array(&[m, n], 0));
        let y = LazyCell::new(|| zeros(&[m, n]));
        let kernel = time(c, &format!("{name}/kernel"), || q::copy_kernel(&x, &y).unwrap());
        if kernel.is_some() {
            close(name, &y.to_vec().unwrap(), &x.to_vec().unwrap(), 0.0);
        }
        let xs = LazyCell::new(|| x.to_vec().unwrap());
        let mut ys = None;
        let rust = time(c, &format!("{name}/rust"), || {
            let ys = buffer(&mut ys, m * n);
            if chunk == 1 {
                ys.copy_from_slice(&xs);
            } else {
                ys.par_chunks_mut(chunk)
                    .zip(xs.par_chunks(chunk))
                    .for_each(|(o, i)| o.copy_from_slice(i))
            }
            black_box(&ys);
        });
        report(name, kernel, &[("rust", rust)]);
    }
}

fn suite(c: &mut Criterion) {
    load("start");
    for size in sizes() {
        let copy = copy(c, size);
        if wanted("box9") {
            box9(c, size);
        }
        if wanted("gauss") {
            gauss(c, size);
        }
        if wanted("sigma") {
            sigma(c, size);
        }
        if wanted("mandel") {
            mandel(c, size);
        }
        if wanted("hist") {
            hist(c, size, copy);
        }
        if wanted("transpose") {
            transpose(c, size, copy);
        }
        if wanted("gamma_cube") {
            gamma3(c, size, copy);
        }
        if wanted("max") && size.0 == "4k" {
            reductions(c, copy);
        }
    }
    if wanted("launch") {
        launch_cost(c);
    }
    for k in [256, 512, 1024] {
        if wanted("matmul") {
            matmul(c, k);
        }
    }
    load("end");
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = suite
}
criterion_main!(benches);
