//! Run-time errors of kernels name the Quasar file:line:col of the failing access, `error` or
//! `assert` and the kernel, with the same text on the CPU and on the GPU (the GPU reports the site through
//! the launch's own error word and the site table embedded beside the PTX).
//!
//! The CPU half always runs. The GPU half needs a GPU, or `QUASAR_SIM_GPU=ptx` (each kernel's
//! PTX on the interpreter); CI runs `QUASAR_SIM_GPU=ptx QUASAR_REQUIRE_GPU=1 cargo test --test
//! kernel_errors`. In each case exactly one thread fails, so the message is deterministic.
//! A kernel whose `error`/`assert` message is not made of string literals has no PTX (it runs
//! on the CPU), as `quasar-core`'s PTX unit tests check.

mod common;

use common::{gpu_or_skip, on};
use quasar::{Array, Result, SchedMode};

mod k {
    quasar::quasar!(file = "tests/common/kernel_errors.q");
}

const FILE: &str = "tests/common/kernel_errors.q";

type Run = Box<dyn Fn() -> Result<()>>;

/// What fails, how, and the message, the same on the CPU and on the GPU (for an access: the
/// whole index and the array's shape; the GPU's error word carries every subscript).
fn cases() -> Vec<(&'static str, Run, String)> {
    let x = Array::from_fn(&[8], |i| i as f32).unwrap();
    let x2 = x.clone();
    vec![
        (
            "read past the end",
            Box::new(move || k::shift(&x, 1).map(drop)),
            format!("{FILE}:5:14: in kernel `read_past`: index [8] is out of range for `x` with shape [8]"),
        ),
        (
            "read before the start",
            Box::new(move || k::shift(&x2, -1).map(drop)),
            format!("{FILE}:5:14: in kernel `read_past`: index [-1] is out of range for `x` with shape [8]"),
        ),
        (
            "write past the end",
            Box::new(|| k::shift_columns(1, 5, 1).map(drop)),
            format!("{FILE}:9:5: in kernel `write_past`: index [0, 5] is out of range for `y` with shape [1, 5]"),
        ),
        (
            "write past the end of the middle dimension",
            Box::new(|| k::shift_middle(1, 4, 1, 1).map(drop)),
            format!("{FILE}:13:5: in kernel `write_past_3d`: index [0, 4, 0] is out of range for `y` with shape [1, 4, 1]"),
        ),
        (
            "error",
            Box::new(|| k::checked_shift(8, 1, 0).map(drop)),
            format!("{FILE}:18:9: in kernel `refuse`: the shift runs past the end"),
        ),
        (
            "assert",
            Box::new(|| k::checked_shift(8, 1, 1).map(drop)),
            format!("{FILE}:24:5: in kernel `insist`: assertion failed: pos + s < numel(y)"),
        ),
        (
            "assert with a message",
            Box::new(|| k::checked_shift(8, -1, 2).map(drop)),
            format!("{FILE}:29:5: in kernel `insist_with_message`: assertion failed: negative shift"),
        ),
    ]
}

#[test]
fn kernel_errors_on_the_cpu_name_the_quasar_location() {
    for (what, run, message) in cases() {
        let e = on(SchedMode::Cpu, &run).unwrap_err().to_string();
        assert_eq!(e, message, "{what}");
    }
}

#[test]
fn kernel_errors_on_the_gpu_name_the_quasar_location() {
    if !gpu_or_skip("kernel_errors_on_the_gpu_name_the_quasar_location") {
        return;
    }
    // `QUASAR_SIM_GPU=1` runs the CPU code behind the PTX ABI: the CPU's message, wrapped in
    // the simulated device's error.
    let cpu_code = std::env::var("QUASAR_SIM_GPU").is_ok_and(|v| v == "1");
    for (what, run, message) in cases() {
        let e = on(SchedMode::Gpu, &run).unwrap_err().to_string();
        if cpu_code {
            assert!(e.ends_with(&format!(": {message}")), "{what}: {e}");
        } else {
            assert_eq!(e, message, "{what}");
        }
    }
    // Each error word was reset: launches that do not fail succeed afterwards.
    let y = on(SchedMode::Gpu, || k::checked_shift(8, 0, 1)).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![0.0; 8]);
}

/// Several threads launch failing and succeeding kernels of one module at once, many times:
/// each launch gets exactly its own result or error (the failing index names its launch's
/// array length), never another launch's.
fn concurrent_launches(cpu_code: bool) {
    let refuse = format!("{FILE}:18:9: in kernel `refuse`: the shift runs past the end");
    std::thread::scope(|scope| {
        for t in 0..4usize {
            let refuse = &refuse;
            scope.spawn(move || {
                for i in 0..24usize {
                    let n = 4 + 3 * t + i % 3;
                    let x = Array::from_fn(&[n], |j| (10 * t + j) as f32).unwrap();
                    let own = |r: Result<Array<f32>>, want: &str| {
                        let e = r.expect_err("this launch fails").to_string();
                        let ok =
                            if cpu_code { e.ends_with(&format!(": {want}")) } else { e == want };
                        assert!(ok, "thread {t}, launch {i}: {e}, expected {want}");
                    };
                    match i % 4 {
                        0 => own(
                            k::shift(&x, 1),
                            &format!(
                                "{FILE}:5:14: in kernel `read_past`: index [{n}] is out of \
                                 range for `x` with shape [{n}]"
                            ),
                        ),
                        1 => {
                            let y = k::shift(&x, 0).expect("no failure");
                            assert_eq!(y.to_vec().unwrap(), x.to_vec().unwrap(), "thread {t}");
                        }
                        2 => {
                            let s = -(t as i32) - 1;
                            let y = k::checked_shift(n as i32, s, 0).expect("no failure");
                            assert_eq!(y.to_vec().unwrap(), vec![s as f32; n], "thread {t}");
                        }
                        _ => own(k::checked_shift(n as i32, 1, 0), refuse),
                    }
                }
            });
        }
    });
}

#[test]
fn concurrent_launches_get_their_own_errors_on_the_cpu() {
    on(SchedMode::Cpu, || concurrent_launches(false));
}

#[test]
fn concurrent_launches_get_their_own_errors_on_the_gpu() {
    if !gpu_or_skip("concurrent_launches_get_their_own_errors_on_the_gpu") {
        return;
    }
    let cpu_code = std::env::var("QUASAR_SIM_GPU").is_ok_and(|v| v == "1");
    on(SchedMode::Gpu, || concurrent_launches(cpu_code));
}

#[test]
fn scalar_launch_dimensions_are_truncated() {
    // `parallel_do(size(y) / 2, …)` over a 5 x 4 matrix runs over 2 x 2 positions.
    let y = k::mark_top_left(5, 4).unwrap().to_vec().unwrap();
    let marked: Vec<usize> = (0..20).filter(|&i| y[i] == 1.0).collect();
    assert_eq!(marked, vec![0, 1, 4, 5]);
}
