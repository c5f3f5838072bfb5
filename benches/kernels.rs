//! Generated CPU kernels against hand-written Rust, on 1080p and 4K `scalar` images:
//!
//! * a 3x3 box filter with `'clamped` borders, against a rayon version that splits interior
//!   and border so that its interior loop vectorises (the target: within 1.25x);
//! * gamma correction `y = x.^0.45`, against a plain `powf` loop and, when Python with NumPy
//!   is installed, `np.power` on the same data (the target: no slower than NumPy).
//!
//! Each group prints the ratio generated / baseline measured in this process. Rows are
//! Criterion benchmarks `<workload>/<size>/<form>/run`; a filter runs only the rows it matches
//! and builds only their data (`cargo bench --bench kernels -- gamma/4K/`; `-- --list` lists
//! them). NumPy runs when the row of the generated gamma kernel does.

use criterion::{criterion_group, criterion_main, Criterion};
use quasar::Array;
use rayon::prelude::*;
use std::cell::LazyCell;
use std::time::Duration;

mod common;
use common::ms;

mod k {
    quasar::quasar! { r#"
function [] = __kernel__ box3_kernel(x : mat'clamped, y : mat, pos : ivec2)
    acc = 0.0
    for dy = -1..1
        for dx = -1..1
            acc += x[pos[0] + dy, pos[1] + dx]
        endfor
    endfor
    y[pos] = acc * (1.0 / 9)
endfunction

function [] = box3(x : mat, y : mat)
    parallel_do(size(x), x, y, box3_kernel)
endfunction

function [] = gamma(x : mat, y : mat)
    parallel_do(size(x), __kernel__ (pos : ivec2) -> y[pos] = x[pos] .^ 0.45)
endfunction
"# }
}

const SIZES: [(&str, usize, usize); 2] = [("1080p", 1080, 1920), ("4K", 2160, 3840)];

/// The hand-written baseline: rows in parallel; the interior of each row is a plain slice
/// loop without boundary tests, the first and last columns and rows clamp.
fn box3_rayon(x: &[f32], y: &mut [f32], m: usize, n: usize) {
    y.par_chunks_mut(n).enumerate().for_each(|(i, out)| {
        let up = &x[i.saturating_sub(1) * n..][..n];
        let mid = &x[i * n..][..n];
        let down = &x[(i + 1).min(m - 1) * n..][..n];
        let at = |r: &[f32], j: isize| r[j.clamp(0, n as isize - 1) as usize];
        let border = |j: usize| {
            let j = j as isize;
            let mut acc = 0.0;
            for r in [up, mid, down] {
                acc += at(r, j - 1) + at(r, j) + at(r, j + 1);
            }
            acc * (1.0 / 9.0)
        };
        out[0] = border(0);
        if n > 1 {
            out[n - 1] = border(n - 1);
        }
        for j in 1..n.saturating_sub(1) {
            out[j] = (up[j - 1]
                + up[j]
                + up[j + 1]
                + mid[j - 1]
                + mid[j]
                + mid[j + 1]
                + down[j - 1]
                + down[j]
                + down[j + 1])
                * (1.0 / 9.0);
        }
    });
}

fn image(m: usize, n: usize) -> Array<f32> {
    Array::from_fn(&[m, n], |i| ((i * 7919) % 1000) as f32 / 4.0).unwrap()
}

/// Criterion's report of the row, then our own measurement of the same closure for the ratio:
/// the best of 7 batches of 5 runs, the statistic of Python's `timeit` (what the NumPy baseline
/// reports), so that every ratio compares like with like and a busy machine disturbs both sides
/// alike. `None` when Criterion's filter skips the row (its data are then never built).
fn best_time(c: &mut Criterion, name: &str, f: impl FnMut()) -> Option<Duration> {
    common::time_batches(c, name, false, 7, 5, f)
}

fn box3(c: &mut Criterion) {
    for (label, m, n) in SIZES {
        let x = LazyCell::new(|| image(m, n));
        let y = LazyCell::new(|| Array::<f32>::zeros(&[m, n]).unwrap());
        let generated =
            best_time(c, &format!("box3_clamped/{label}/quasar"), || k::box3(&x, &y).unwrap());
        let xs = LazyCell::new(|| x.to_vec().unwrap());
        let mut ys = None;
        let baseline = best_time(c, &format!("box3_clamped/{label}/rayon"), || {
            box3_rayon(&xs, ys.get_or_insert_with(|| vec![0.0f32; m * n]), m, n)
        });
        // The two agree (the missing one computed once when the filter skipped its row).
        if generated.is_some() || baseline.is_some() {
            if generated.is_none() {
                k::box3(&x, &y).unwrap();
            }
            let got = y.to_vec().unwrap();
            let ys: &Vec<f32> = ys.get_or_insert_with(|| {
                let mut ys = vec![0.0f32; m * n];
                box3_rayon(&xs, &mut ys, m, n);
                ys
            });
            assert!(got.iter().zip(ys).all(|(a, b)| (a - b).abs() <= 1e-3 * (1.0 + b.abs())));
        }
        if let (Some(generated), Some(baseline)) = (generated, baseline) {
            println!(
                "RATIO box3_clamped {label}: quasar {:.3} ms / rayon {:.3} ms = {:.3}",
                ms(generated),
                ms(baseline),
                generated.as_secs_f64() / baseline.as_secs_f64()
            );
        }
    }
}

fn gamma(c: &mut Criterion) {
    for (label, m, n) in SIZES {
        let x = LazyCell::new(|| image(m, n));
        let y = LazyCell::new(|| Array::<f32>::zeros(&[m, n]).unwrap());
        let generated =
            best_time(c, &format!("gamma/{label}/quasar"), || k::gamma(&x, &y).unwrap());
        let xs = LazyCell::new(|| x.to_vec().unwrap());
        let mut ys = None;
        let powf = best_time(c, &format!("gamma/{label}/powf_rayon"), || {
            let ys = ys.get_or_insert_with(|| vec![0.0f32; m * n]);
            ys.par_chunks_mut(1 << 14).zip(xs.par_chunks(1 << 14)).for_each(|(o, i)| {
                for (o, i) in o.iter_mut().zip(i) {
                    *o = i.powf(0.45);
                }
            })
        });
        let Some(generated) = generated else { continue };
        if let Some(powf) = powf {
            println!(
                "RATIO gamma {label}: quasar {:.3} ms / rayon powf {:.3} ms = {:.3}",
                ms(generated),
                ms(powf),
                generated.as_secs_f64() / powf.as_secs_f64()
            );
        }
        match numpy_power_ms(m, n) {
            Some(np) => println!(
                "RATIO gamma {label}: quasar {:.3} ms / numpy np.power {:.3} ms = {:.3}",
                ms(generated),
                np,
                ms(generated) / np
            ),
            None => println!("gamma {label}: NumPy not available, no np.power comparison"),
        }
    }
}

/// `np.power(x, 0.45)` on float32 data of this size, best of several runs, in ms.
fn numpy_power_ms(m: usize, n: usize) -> Option<f64> {
    let script = format!(
        "import numpy as np, timeit\n\
         x = (np.arange({m}*{n}, dtype=np.int64) * 7919 % 1000).astype(np.float32).reshape({m}, {n}) / 4\n\
         y = np.empty_like(x)\n\
         t = min(timeit.repeat(lambda: np.power(x, np.float32(0.45), out=y), number=5, repeat=7)) / 5\n\
         print(t * 1e3)\n"
    );
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let out = std::process::Command::new(python).args(["-c", &script]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

criterion_group! {
    name = benches;
    config = common::config().sample_size(20);
    targets = box3, gamma
}
criterion_main!(benches);
