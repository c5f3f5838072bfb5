//! The compiler transforms' workloads (issue 16), each written three ways in one process:
//! the high-level Quasar form (array expressions, plain `for` loops, `sum`), an explicit
//! `__kernel__`, and hand-written Rust (rayon). Where the loop parallelizer applies, the same
//! loops kept serial with `{!serial for}` give the time before the transform.
//!
//! The array-expression forms (`expr`) are what the kernel generator fuses; `unfused` is the
//! same expression as the library's operators one at a time (one temporary array each), which
//! is what the array expression compiled to before that pass.
//!
//! Prints `RATIO <workload> <form>: <ms> / <kernel ms> = <ratio>` lines and the load average
//! (`LOAD`) at the start and the end, which `scripts/benchmarks-md.py` turns into its section
//! of BENCHMARKS.md. The machine is shared: ratios are
//! measured in the same process so that load disturbs both sides alike, but they still vary.
//! The serial loop (`box3/loop_serial`, seconds a run) is timed on the first 1/16 of the image's
//! rows and its time scaled to the whole image (a `NOTE` line gives the measured time).
//!
//! Rows are Criterion benchmarks `<workload>/<form>/run`; a filter runs only the rows it
//! matches and builds only their data: `cargo bench --bench transforms -- box3/` (one
//! workload), `-- 'box3/(kernel|loop_serial)/'` (the serial loop and the kernel it is compared
//! with), `-- --list` (every row). See `benches/common/mod.rs`.

use criterion::{criterion_group, criterion_main, Criterion};
use quasar::builtins::{sum, zip_map};
use quasar::Array;
use rayon::prelude::*;
use std::cell::{LazyCell, OnceCell};
use std::hint::black_box;

mod common;
use common::{load, ms, report, time};

mod q {
    quasar::quasar! { r#"
function [] = box3_loop(x : mat'clamped, y : mat)
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            s = 0.0
            for dm = -1..1
                for dn = -1..1
                    s += x[m + dm, n + dn]
                endfor
            endfor
            y[m, n] = s * (1.0 / 9)
        endfor
    endfor
endfunction

function [] = box3_loop_serial(x : mat'clamped, y : mat)
    {!serial for}
    for m = 0..size(x, 0) - 1
        {!serial for}
        for n = 0..size(x, 1) - 1
            s = 0.0
            for dm = -1..1
                for dn = -1..1
                    s += x[m + dm, n + dn]
                endfor
            endfor
            y[m, n] = s * (1.0 / 9)
        endfor
    endfor
endfunction

function [] = __kernel__ box3_kernel(x : mat'clamped, y : mat, pos : ivec2)
    s = 0.0
    for dm = -1..1
        for dn = -1..1
            s += x[pos[0] + dm, pos[1] + dn]
        endfor
    endfor
    y[pos] = s * (1.0 / 9)
endfunction

function [] = box3(x : mat, y : mat)
    parallel_do(size(x), x, y, box3_kernel)
endfunction

function [] = gamma_loop(x : mat, y : mat)
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            y[m, n] = x[m, n] .^ 0.45
        endfor
    endfor
endfunction

function y : mat = gamma_expr(x : mat)
    y = x .^ 0.45
endfunction

function [] = gamma_kernel(x : mat, y : mat)
    parallel_do(size(x), __kernel__ (pos : ivec2) -> y[pos] = x[pos] .^ 0.45)
endfunction

function z : mat = fused_expr(a : mat, x : mat, b : mat, y : mat, c : scalar)
    z = a .* x + b .* y + c
endfunction

function [] = fused_loop(a : mat, x : mat, b : mat, y : mat, c : scalar, z : mat)
    for m = 0..size(x, 0) - 1
        for n = 0..size(x, 1) - 1
            z[m, n] = a[m, n] * x[m, n] + b[m, n] * y[m, n] + c
        endfor
    endfor
endfunction

function [] = fused_kernel(a : mat, x : mat, b : mat, y : mat, c : scalar, z : mat)
    parallel_do(size(x), __kernel__ (pos : ivec2) -> z[pos] = a[pos] * x[pos] + b[pos] * y[pos] + c)
endfunction

function s : scalar = sum_expr(x : vec)
    s = sum(x)
endfunction

function [s : scalar] = __kernel__ sum_k(x : vec, pos : int)
    s += x[pos]
endfunction

function s : scalar = sum_kernel(x : vec)
    s = parallel_do(numel(x), x, sum_k)
endfunction

function m : scalar = max_expr(x : vec)
    m = max(x)
endfunction

function [m : scalar] = __kernel__ max_k(x : vec, pos : int)
    m ^^= x[pos]
endfunction

function m : scalar = max_kernel(x : vec)
    m = parallel_do(numel(x), x, max_k)
endfunction

function m : scalar = max_prod_expr(x : vec, y : vec)
    m = max(x .* y)
endfunction

function s : scalar = dot_expr(x : vec, y : vec)
    s = sum(x .* y)
endfunction

function [s : scalar] = __kernel__ dot_k(x : vec, y : vec, pos : int)
    s += x[pos] * y[pos]
endfunction

function s : scalar = dot_kernel(x : vec, y : vec)
    s = parallel_do(numel(x), x, y, dot_k)
endfunction
"# }
}

const M: usize = 2160;
const N: usize = 3840;
const LONG: usize = 10_000_000;
/// The serial loop (`box3/loop_serial`) takes seconds per run: it is timed on the first
/// `M_SERIAL` rows of the image (the same row length, so the same per-row work) and its time
/// scaled by `M / M_SERIAL` to the full image, which is what its ratio compares.
const M_SERIAL: usize = M / 16;

fn image_rows(m: usize, seed: usize) -> Array<f32> {
    Array::from_fn(&[m, N], |i| ((i * 7919 + seed) % 1000) as f32 / 1000.0).unwrap()
}

fn image(seed: usize) -> Array<f32> {
    image_rows(M, seed)
}

fn zeros() -> Array<f32> {
    Array::<f32>::zeros(&[M, N]).unwrap()
}

fn close(a: &[f32], b: &[f32], tol: f32) {
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs())));
}

/// Each workload's rows build their data on first use (`LazyCell`), so that a Criterion filter
/// runs only what it selects; every form that ran is checked against the explicit kernel's
/// result (`want`: the kernel row's output, or one run of the kernel when the filter skipped it).
fn box3(c: &mut Criterion) {
    load("start");
    let x = LazyCell::new(|| image(0));
    let y = LazyCell::new(zeros);
    let want = OnceCell::new();
    let reference = || {
        want.get_or_init(|| {
            let y = zeros();
            q::box3(&x, &y).unwrap();
            y.to_vec().unwrap()
        })
    };
    let kernel = time(c, "box3/kernel", false, || q::box3(&x, &y).unwrap());
    if kernel.is_some() {
        let _ = want.set(y.to_vec().unwrap());
    }
    let y2 = LazyCell::new(zeros);
    let looped = time(c, "box3/loop", false, || q::box3_loop(&x, &y2).unwrap());
    if looped.is_some() {
        close(&y2.to_vec().unwrap(), reference(), 1e-5);
    }
    let (xs_top, ys_top) = (
        LazyCell::new(|| image_rows(M_SERIAL, 0)),
        LazyCell::new(|| Array::<f32>::zeros(&[M_SERIAL, N]).unwrap()),
    );
    let serial =
        time(c, "box3/loop_serial", true, || q::box3_loop_serial(&xs_top, &ys_top).unwrap());
    if let Some(t) = serial {
        // All but the last row, which clamps at the cut, equal the full image's.
        let got = ys_top.to_vec().unwrap();
        close(&got[..(M_SERIAL - 1) * N], &reference()[..(M_SERIAL - 1) * N], 1e-5);
        println!(
            "NOTE box3 loop_serial: {:.3} ms on {M_SERIAL} of the {M} rows, scaled by {}",
            ms(t),
            M / M_SERIAL
        );
    }
    let serial = serial.map(|t| t * (M / M_SERIAL) as u32);
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let mut ys = None;
    let rust = time(c, "box3/rust", false, || {
        box3_rayon(&xs, ys.get_or_insert_with(|| vec![0.0f32; M * N]), M, N)
    });
    if let Some(ys) = &ys {
        close(ys, reference(), 1e-5);
    }
    report("box3", kernel, &[("loop", looped), ("loop_serial", serial), ("rust", rust)]);
}

fn box3_rayon(x: &[f32], y: &mut [f32], m: usize, n: usize) {
    y.par_chunks_mut(n).enumerate().for_each(|(i, out)| {
        let rows = [i.saturating_sub(1), i, (i + 1).min(m - 1)].map(|r| &x[r * n..][..n]);
        for (j, o) in out.iter_mut().enumerate() {
            let (l, r) = (j.saturating_sub(1), (j + 1).min(n - 1));
            let mut s = 0.0;
            for row in rows {
                s += row[l] + row[j] + row[r];
            }
            *o = s * (1.0 / 9.0);
        }
    });
}

fn gamma(c: &mut Criterion) {
    let x = LazyCell::new(|| image(1));
    let y = LazyCell::new(zeros);
    let want = OnceCell::new();
    let reference = || {
        want.get_or_init(|| {
            let y = zeros();
            q::gamma_kernel(&x, &y).unwrap();
            y.to_vec().unwrap()
        })
    };
    let kernel = time(c, "gamma/kernel", false, || q::gamma_kernel(&x, &y).unwrap());
    if kernel.is_some() {
        let _ = want.set(y.to_vec().unwrap());
    }
    let expr = time(c, "gamma/expr", false, || drop(q::gamma_expr(&x).unwrap()));
    let unfused = time(c, "gamma/unfused", false, || {
        drop(zip_map::<f32, f32, f32, _>("ElemPow", &*x, 0.45f32, |a, b| a.powf(b)).unwrap())
    });
    let y2 = LazyCell::new(zeros);
    let looped = time(c, "gamma/loop", false, || q::gamma_loop(&x, &y2).unwrap());
    if looped.is_some() {
        close(&y2.to_vec().unwrap(), reference(), 1e-5);
    }
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let mut ys = None;
    let rust = time(c, "gamma/rust", false, || {
        let ys = ys.get_or_insert_with(|| vec![0.0f32; M * N]);
        ys.par_chunks_mut(1 << 14).zip(xs.par_chunks(1 << 14)).for_each(|(o, i)| {
            o.iter_mut().zip(i).for_each(|(o, i)| *o = i.powf(0.45));
        })
    });
    report(
        "gamma",
        kernel,
        &[("expr", expr), ("unfused", unfused), ("loop", looped), ("rust", rust)],
    );
}

fn fused(c: &mut Criterion) {
    let inputs = LazyCell::new(|| [image(2), image(3), image(4), image(5)]);
    let z = LazyCell::new(zeros);
    let want = OnceCell::new();
    let reference = || {
        want.get_or_init(|| {
            let [a, x, b, y] = &*inputs;
            let z = zeros();
            q::fused_kernel(a, x, b, y, 0.5, &z).unwrap();
            z.to_vec().unwrap()
        })
    };
    let kernel = time(c, "fused/kernel", false, || {
        let [a, x, b, y] = &*inputs;
        q::fused_kernel(a, x, b, y, 0.5, &z).unwrap()
    });
    if kernel.is_some() {
        let _ = want.set(z.to_vec().unwrap());
    }
    let expr = time(c, "fused/expr", false, || {
        let [a, x, b, y] = &*inputs;
        drop(q::fused_expr(a, x, b, y, 0.5).unwrap())
    });
    let unfused = time(c, "fused/unfused", false, || {
        let [a, x, b, y] = &*inputs;
        let mul = |p: &Array<f32>, q: &Array<f32>| {
            zip_map::<f32, f32, f32, _>("ElemMul", p, q, |u, v| u * v).unwrap()
        };
        let (ax, by) = (mul(a, x), mul(b, y));
        let s = zip_map::<f32, f32, f32, _>("Add", &ax, &by, |u, v| u + v).unwrap();
        drop(zip_map::<f32, f32, f32, _>("Add", &s, 0.5f32, |u, v| u + v).unwrap())
    });
    let z2 = LazyCell::new(zeros);
    let looped = time(c, "fused/loop", false, || {
        let [a, x, b, y] = &*inputs;
        q::fused_loop(a, x, b, y, 0.5, &z2).unwrap()
    });
    if looped.is_some() {
        close(&z2.to_vec().unwrap(), reference(), 1e-6);
    }
    let v = LazyCell::new(|| inputs.iter().map(|v| v.to_vec().unwrap()).collect::<Vec<_>>());
    let mut zs = None;
    let rust = time(c, "fused/rust", false, || {
        let zs = zs.get_or_insert_with(|| vec![0.0f32; M * N]);
        let v = &*v;
        zs.par_chunks_mut(1 << 14).enumerate().for_each(|(k, o)| {
            let s = k << 14;
            for (i, o) in o.iter_mut().enumerate() {
                let i = s + i;
                *o = v[0][i] * v[1][i] + v[2][i] * v[3][i] + 0.5;
            }
        })
    });
    if let Some(zs) = &zs {
        close(zs, reference(), 1e-6);
    }
    report(
        "fused",
        kernel,
        &[("expr", expr), ("unfused", unfused), ("loop", looped), ("rust", rust)],
    );
}

fn reductions(c: &mut Criterion) {
    let x =
        LazyCell::new(|| Array::from_fn(&[LONG], |i| ((i * 7919) % 1000) as f32 / 1000.0).unwrap());
    let y = LazyCell::new(|| {
        Array::from_fn(&[LONG], |i| ((i * 104729) % 1000) as f32 / 1000.0).unwrap()
    });
    let kernel = time(c, "sum/kernel", false, || {
        let _ = black_box(q::sum_kernel(&x).unwrap());
    });
    let expr = time(c, "sum/expr", false, || {
        let _ = black_box(q::sum_expr(&x).unwrap());
    });
    let xs = LazyCell::new(|| x.to_vec().unwrap());
    let rust = time(c, "sum/rust", false, || {
        let _ = black_box(xs.par_chunks(1 << 16).map(|c| c.iter().sum::<f32>()).sum::<f32>());
    });
    report("sum", kernel, &[("expr", expr), ("rust", rust)]);
    let kernel = time(c, "dot/kernel", false, || {
        let _ = black_box(q::dot_kernel(&x, &y).unwrap());
    });
    let expr = time(c, "dot/expr", false, || {
        let _ = black_box(q::dot_expr(&x, &y).unwrap());
    });
    let unfused = time(c, "dot/unfused", false, || {
        let p = zip_map::<f32, f32, f32, _>("ElemMul", &*x, &*y, |u, v| u * v).unwrap();
        let _ = black_box(sum(&p).unwrap());
    });
    let ys = LazyCell::new(|| y.to_vec().unwrap());
    let rust = time(c, "dot/rust", false, || {
        let _ = black_box(
            xs.par_chunks(1 << 16)
                .zip(ys.par_chunks(1 << 16))
                .map(|(a, b)| a.iter().zip(b).map(|(a, b)| a * b).sum::<f32>())
                .sum::<f32>(),
        );
    });
    report("dot", kernel, &[("expr", expr), ("unfused", unfused), ("rust", rust)]);
    // The data are non-negative: the kernel's output, which starts at zero, gives the maximum.
    let kernel = time(c, "max/kernel", false, || {
        let _ = black_box(q::max_kernel(&x).unwrap());
    });
    let expr = time(c, "max/expr", false, || {
        let _ = black_box(q::max_expr(&x).unwrap());
    });
    if kernel.is_some() || expr.is_some() {
        assert_eq!(q::max_kernel(&x).unwrap(), q::max_expr(&x).unwrap());
    }
    let fused = time(c, "max/fused_expr", false, || {
        let _ = black_box(q::max_prod_expr(&x, &y).unwrap());
    });
    let rust = time(c, "max/rust", false, || {
        let _ = black_box(
            xs.par_chunks(1 << 16)
                .map(|c| c.iter().fold(0.0f32, |m, &v| m.max(v)))
                .reduce(|| 0.0, f32::max),
        );
    });
    report("max", kernel, &[("expr", expr), ("fused_expr", fused), ("rust", rust)]);
    load("end");
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = box3, gamma, fused, reductions
}
criterion_main!(benches);
