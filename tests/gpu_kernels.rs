//! The kernels of tests/e2e_kernels.rs and the math built-ins, run once forced onto the CPU
//! and once forced onto the GPU (`SchedMode`), compared within the documented tolerances.
//!
//! Needs a GPU: build with `--features cuda` (scripts/gpu-tests.sh builds and packs the
//! binaries). Without a usable GPU each test prints a skip line and passes, unless
//! `QUASAR_REQUIRE_GPU=1`. `QUASAR_SIM_GPU=1` runs the GPU half on the simulated GPU, which
//! runs the CPU code but packs every launch's parameters by the PTX ABI (and refuses kernels
//! without PTX), so the embedding is checked on machines without a GPU. `QUASAR_SIM_GPU=ptx`
//! executes every kernel's PTX on the PTX interpreter (`quasar-ptx-sim`), launched as the CUDA
//! device launches it; CI runs both.
//!
//! Run with `--nocapture` to see the per-routine error report.

mod common;

use common::math::{self, MATH_BINARY, MATH_UNARY, NO_PTX_YET};
use common::{both, close, gpu_or_skip, on};
use quasar::{Array, SchedMode};

mod k {
    quasar::quasar!(file = "tests/common/kernels.q");
}
mod g {
    quasar::quasar!(file = "tests/common/gpu_kernels.q");
}
mod rc {
    quasar::quasar!(file = "tests/common/real_code.q");
}
mod contract {
    quasar::quasar!(file = "tests/common/contract.q");
}
mod loops {
    quasar::quasar!(file = "tests/common/loops.q");
}

fn mat(m: usize, n: usize, f: impl Fn(usize, usize) -> f32) -> Array<f32> {
    Array::from_fn(&[m, n], |i| f(i / n, i % n)).unwrap()
}
fn vec_of(a: quasar::Result<Array<f32>>) -> quasar::Result<Vec<f32>> {
    a?.to_vec()
}

#[test]
fn gamma_on_both_devices() {
    if !gpu_or_skip("gamma_on_both_devices") {
        return;
    }
    let x = mat(97, 131, |i, j| (i * 131 + j) as f32 / 1000.0);
    let (c, g) = both("gamma", false, || vec_of(k::gamma(&x, 0.45))).unwrap();
    // pow on the GPU: about |y·log2 x|·2^-22 relative (here |y·log2 x| < 3).
    close("gamma", &c, &g, 4e-6);
}

#[test]
fn parallelised_loops_on_both_devices() {
    if !gpu_or_skip("parallelised_loops_on_both_devices") {
        return;
    }
    for (m, n) in [(1, 1), (17, 45), (64, 200)] {
        let x = mat(m, n, |i, j| ((i * 7 + j * 13) % 31) as f32);
        let (c, g) = both("box3_loop", false, || vec_of(loops::box3_loop(&x))).unwrap();
        close(&format!("box3_loop {m}x{n}"), &c, &g, 1e-6);
        let (c, g) = both("row_sums", false, || vec_of(loops::row_sums(&x))).unwrap();
        close(&format!("row_sums {m}x{n}"), &c, &g, 1e-6);
    }
    let x = Array::from_fn(&[5, 7, 3], |i| (i % 17) as f32 / 8.0).unwrap();
    let (c, g) = both("gamma_loop", false, || vec_of(loops::gamma_loop(&x, 0.8))).unwrap();
    close("gamma_loop", &c, &g, 4e-6);
    let x = Array::from_fn(&[50], |i| ((i * 37) % 11) as f32).unwrap();
    let (c, g) = both("smooth_steps", false, || vec_of(loops::smooth_steps(&x, 4))).unwrap();
    close("smooth_steps", &c, &g, 1e-6);
}

#[test]
fn clamped_filter_over_many_sizes() {
    if !gpu_or_skip("clamped_filter_over_many_sizes") {
        return;
    }
    for (m, n) in [(1, 1), (2, 3), (17, 45), (33, 1), (1, 257), (64, 200), (300, 517)] {
        let x = mat(m, n, |i, j| ((i * 7 + j * 13) % 31) as f32);
        let (c, g) = both("box3_clamped", false, || vec_of(k::box3(&x))).unwrap();
        close(&format!("box3_clamped {m}x{n}"), &c, &g, 1e-6);
    }
}

#[test]
fn boundary_modes_with_offsets() {
    if !gpu_or_skip("boundary_modes_with_offsets") {
        return;
    }
    for n in [1usize, 10, 1000] {
        let x = Array::from_fn(&[n], |i| i as f32 * 0.5 - 3.0).unwrap();
        for s in [-2013i32, -13, -3, 0, 4, 12, 999] {
            for (mode, name) in [(0, "circular"), (1, "mirror"), (2, "safe")] {
                let (c, g) = both(name, false, || vec_of(k::shift(&x, s, mode))).unwrap();
                assert_eq!(c, g, "{name} n={n} s={s}");
            }
        }
    }
    println!("circular/mirror/safe reads: CPU and GPU identical");
}

#[test]
fn checked_errors_on_both_devices() {
    if !gpu_or_skip("checked_errors_on_both_devices") {
        return;
    }
    let x = Array::from_fn(&[100], |i| i as f32).unwrap();
    let (c, g) = both("checked in range", false, || vec_of(k::shift(&x, 0, 3))).unwrap();
    assert_eq!(c, g);
    for s in [3i32, -1] {
        let cpu = on(SchedMode::Cpu, || k::shift(&x, s, 3)).unwrap_err().to_string();
        let gpu = on(SchedMode::Gpu, || k::shift(&x, s, 3)).unwrap_err().to_string();
        println!("'checked, shift {s}: CPU `{cpu}`, GPU `{gpu}`");
        assert!(cpu.contains("out of range for `x`"), "{cpu}");
        assert!(gpu.contains("out of range for `x`"), "{gpu}");
    }
    // The error word was reset: the next launch succeeds.
    let (c, g) = both("checked after an error", false, || vec_of(k::shift(&x, 0, 3))).unwrap();
    assert_eq!(c, g);
}

#[test]
fn atomic_histogram() {
    if !gpu_or_skip("atomic_histogram") {
        return;
    }
    let data: Vec<i32> = (0..200_000).map(|i: i64| ((i * 7919) % 61) as i32).collect();
    let x = Array::from_vec(&[data.len()], data).unwrap();
    let (c, g) = both("histogram", false, || k::histogram(&x, 61)?.to_vec()).unwrap();
    assert_eq!(c, g);
    println!("histogram: {} bins identical", c.len());
}

#[test]
fn kernel_outputs_sum_and_max() {
    if !gpu_or_skip("kernel_outputs_sum_and_max") {
        return;
    }
    for n in [1usize, 1000, 100_003] {
        let v: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
        let a = Array::from_vec(&[n], v).unwrap();
        let ((cs, cm), (gs, gm)) = both("total_and_max", false, || k::total_and_max(&a)).unwrap();
        // Integers below 2^24: every summation order gives the same sum.
        assert_eq!((cs, cm), (gs, gm), "n={n}");
    }
    println!("kernel outputs: sums and maxima identical");
}

#[test]
fn shared_memory_and_syncthreads() {
    if !gpu_or_skip("shared_memory_and_syncthreads") {
        return;
    }
    let x = Array::from_fn(&[4096], |i| (i % 97) as f32).unwrap();
    // Shared memory of constant size (compiled for the GPU) …
    let (c, g) = both("reverse_tiles8", false, || vec_of(g::reverse_in_blocks8(&x))).unwrap();
    assert_eq!(c, g);
    let (c, g) = both("block_sums16", false, || vec_of(g::sums_of_blocks16(&x))).unwrap();
    assert_eq!(c, g);
    // … and sized by `blkdim` (dynamic shared memory).
    let (c, g) = both("reverse_tiles", false, || vec_of(k::reverse_in_blocks(&x))).unwrap();
    assert_eq!(c, g);
    let (c, g) = both("block_sums", false, || vec_of(k::sums_of_blocks(&x))).unwrap();
    assert_eq!(c, g);
    // Barriers inside loops: the manual's tiled matrix product and a tree reduction.
    let a = mat(37, 29, |i, j| ((i * 7 + j * 3) % 11) as f32 - 5.0);
    let b = mat(29, 45, |i, j| ((i * 5 + j) % 7) as f32 * 0.5);
    let (c, g) = both("tiled_matmul", false, || vec_of(k::matmul_tiled(&a, &b))).unwrap();
    close("tiled_matmul", &c, &g, 1e-5);
    let y = Array::from_fn(&[32 * 40], |i| (i % 13) as f32 - 6.0).unwrap();
    let (c, g) = both("tree_sum", false, || vec_of(k::tree_sums(&y))).unwrap();
    assert_eq!(c, g);
}

#[test]
fn filters_with_a_radius_parameter() {
    if !gpu_or_skip("filters_with_a_radius_parameter") {
        return;
    }
    let x = mat(61, 83, |i, j| ((i * 31 + j * 17) % 23) as f32 - 11.0);
    for r in [0, 2, 5] {
        let w = Array::from_fn(&[2 * r + 1], |i| 1.0 + i as f32 * 0.25).unwrap();
        let (c, g) =
            both("box_radius", false, || vec_of(k::filter_radius(&x, &w, r as i32))).unwrap();
        close("box_radius", &c, &g, 1e-5);
    }
    let cube = Array::from_fn(&[19, 23, 3], |i| ((i * 13) % 29) as f32 - 14.0).unwrap();
    for r in [0, 2] {
        let (c, g) = both("cube_stencil", false, || vec_of(k::stencil3(&cube, r))).unwrap();
        close("cube_stencil", &c, &g, 1e-5);
    }
    let (c, g) = both("pointwise_gamma", false, || {
        vec_of(k::pointwise_gamma(&Array::from_fn(&[19, 23, 3], |i| ((i * 37) % 256) as f32)?, 0.8))
    })
    .unwrap();
    close("pointwise_gamma", &c, &g, 1e-4);
}

#[test]
fn device_functions_and_lambdas() {
    if !gpu_or_skip("device_functions_and_lambdas") {
        return;
    }
    let x = mat(93, 111, |i, j| (i as f32 - 40.0) / 80.0 + j as f32 / 200.0);
    let (c, g) = both("smoothstep", false, || vec_of(k::scale_and_smooth(&x, 1.5))).unwrap();
    close("smoothstep", &c, &g, 1e-6);
    // A device-function value passed into the kernel: the bytes of its enum (tag and
    // captured values) as the PTX reads them.
    let cube = Array::from_fn(&[4, 5, 3], |i| i as f32).unwrap();
    let (c, g) = both("affine", false, || vec_of(k::affine(&cube, 2.0, -1.0))).unwrap();
    assert_eq!(c, g);
}

#[test]
fn kernel_slices() {
    if !gpu_or_skip("kernel_slices") {
        return;
    }
    let x = Array::from_fn(&[7, 9, 3], |i| i as f32 * 0.25).unwrap();
    let (c, g) = both("rgb_swap", false, || vec_of(k::swap_channels(&x))).unwrap();
    assert_eq!(c, g);
}

#[test]
fn separable_mirror_filter() {
    if !gpu_or_skip("separable_mirror_filter") {
        return;
    }
    let w = Array::from_vec(&[5], vec![0.1f32, 0.2, 0.4, 0.2, 0.1]).unwrap();
    for (m, n) in [(5, 16), (1, 3), (64, 333)] {
        let x = mat(m, n, |i, j| ((i * n + j) % 251) as f32);
        let (c, g) = both("sep_row", false, || vec_of(k::filter_rows(&x, &w))).unwrap();
        close(&format!("sep_row {m}x{n}"), &c, &g, 1e-6);
    }
}

/// One routine on both devices: prints the max error of each against the `f64` reference
/// and returns the failures.
fn math_routine(
    name: &str,
    x: &[f32],
    z: &[f32],
    run: impl Fn() -> quasar::Result<Vec<f32>>,
) -> Vec<String> {
    let gap = NO_PTX_YET.contains(&name);
    let Some((c, g)) = both(name, gap, run) else { return Vec::new() };
    let (rc, rg) = (math::evaluate(name, x, z, &c), math::evaluate(name, x, z, &g));
    println!(
        "{name:>6}: {} points; max abs/rel error CPU {:.2e}/{:.2e} ({:.2} of bound), \
         GPU {:.2e}/{:.2e} ({:.2} of bound)",
        x.len(),
        rc.max_err,
        rc.max_rel,
        rc.max_ratio,
        rg.max_err,
        rg.max_rel,
        rg.max_ratio
    );
    let cpu = rc.fails.into_iter().map(|m| format!("CPU: {m}"));
    cpu.chain(rg.fails.into_iter().map(|m| format!("GPU: {m}"))).collect()
}

#[test]
fn math_builtins_within_documented_bounds() {
    if !gpu_or_skip("math_builtins_within_documented_bounds") {
        return;
    }
    let mut fails = Vec::new();
    for (op, name) in MATH_UNARY.iter().enumerate() {
        let x = math::unary_inputs(name);
        let xa = Array::from_vec(&[x.len()], x.clone()).unwrap();
        fails.extend(math_routine(name, &x, &[], || vec_of(g::unary(&xa, op as i32))));
    }
    for (op, name) in MATH_BINARY.iter().enumerate() {
        let (x, z) = math::binary_inputs(name);
        let xa = Array::from_vec(&[x.len()], x.clone()).unwrap();
        let za = Array::from_vec(&[z.len()], z.clone()).unwrap();
        fails.extend(math_routine(name, &x, &z, || vec_of(g::binary(&xa, &za, op as i32))));
    }
    assert!(fails.is_empty(), "outside the documented bounds:\n{}", fails.join("\n"));
}

#[test]
fn math_references_hold_on_the_cpu() {
    // Without a GPU too: the inputs, references and bounds above are sound (the CPU
    // routines of quasar-std meet the GPU's bounds), so a GPU failure is the GPU's.
    let mut fails = Vec::new();
    for (op, name) in MATH_UNARY.iter().enumerate() {
        let x = math::unary_inputs(name);
        let xa = Array::from_vec(&[x.len()], x.clone()).unwrap();
        let c = on(SchedMode::Cpu, || vec_of(g::unary(&xa, op as i32))).unwrap();
        fails.extend(math::evaluate(name, &x, &[], &c).fails);
    }
    for (op, name) in MATH_BINARY.iter().enumerate() {
        let (x, z) = math::binary_inputs(name);
        let xa = Array::from_vec(&[x.len()], x.clone()).unwrap();
        let za = Array::from_vec(&[z.len()], z.clone()).unwrap();
        let c = on(SchedMode::Cpu, || vec_of(g::binary(&xa, &za, op as i32))).unwrap();
        fails.extend(math::evaluate(name, &x, &z, &c).fails);
    }
    assert!(fails.is_empty(), "CPU outside the bounds:\n{}", fails.join("\n"));
}

#[test]
fn warp_size_under_both_spellings() {
    if !gpu_or_skip("warp_size_under_both_spellings") {
        return;
    }
    // `warpSize` once had no PTX (the kernel ran on the CPU only) and no Rust binding.
    let (c, g) = both("lane_kernel", false, || vec_of(contract::lanes(1000))).unwrap();
    assert_eq!(c, g);
    assert_eq!(c, (0..1000).map(|i| (i % 32) as f32).collect::<Vec<_>>());
    let (c, g) = both("warp_count_kernel", false, || vec_of(contract::warp_sizes(7))).unwrap();
    assert_eq!(c, g);
    assert_eq!(c, vec![32.0; 7]);
}

#[test]
fn writes_through_device_functions_and_function_values() {
    if !gpu_or_skip("writes_through_device_functions_and_function_values") {
        return;
    }
    // The kernels write `y` only inside a `__device__` function (directly or as a function
    // value): the launch must copy `y` back (it once stayed all zeros on the GPU).
    let x = Array::from_fn(&[1000], |i| i as f32 * 0.5 - 7.0).unwrap();
    let (c, g) = both("put_kernel", false, || vec_of(contract::doubled(&x))).unwrap();
    assert_eq!(c, g);
    assert_eq!(c, x.to_vec().unwrap().iter().map(|v| 2.0 * v).collect::<Vec<_>>());
    let (c, g) = both("store_kernel", false, || vec_of(contract::stored(&x))).unwrap();
    assert_eq!(c, g);
    assert_eq!(c, x.to_vec().unwrap().iter().map(|v| v + 1.0).collect::<Vec<_>>());
}

#[test]
fn literal_filters_are_rows_on_both_devices() {
    if !gpu_or_skip("literal_filters_are_rows_on_both_devices") {
        return;
    }
    // `[-1, 1, 0]` as a `mat` kernel parameter is 1 x 3 on the GPU as on the CPU (the PTX
    // parameter packing gives a vector the extents of a row).
    let x = mat(9, 11, |i, j| ((i * 5 + j * 3) % 7) as f32);
    let (c, g) = both("filter_rows", false, || vec_of(rc::derivative(&x))).unwrap();
    assert_eq!(c, g);
    let want: Vec<f32> = (0..9 * 11)
        .map(|i| {
            let (r, j) = (i / 11, i % 11);
            let at = |jj: i64| {
                if (0..11).contains(&jj) {
                    ((r * 5 + jj as usize * 3) % 7) as f32
                } else {
                    0.0
                }
            };
            -at(j as i64 - 1) + at(j as i64)
        })
        .collect();
    assert_eq!(c, want);
}

#[test]
fn positions_fitted_to_the_launch_on_both_devices() {
    if !gpu_or_skip("positions_fitted_to_the_launch_on_both_devices") {
        return;
    }
    // `pos` with fewer and more components than the launch has dimensions (the fitted
    // position is bound first in the kernel, on both devices alike).
    let x = Array::from_fn(&[7, 5, 3], |i| (i % 11) as f32).unwrap();
    let w = Array::from_fn(&[9], |i| i as f32 * 0.5).unwrap();
    let run = || -> quasar::Result<Vec<Vec<f32>>> {
        let (y, v, z, c) = rc::launch_ranks(&x, &w)?;
        Ok(vec![y.to_vec()?, v.to_vec()?, z.to_vec()?, c.to_vec()?])
    };
    let (c, g) = both("launch_ranks", false, run).unwrap();
    assert_eq!(c, g);
}
