//! Helpers of tests/gpu_kernels.rs: the same Quasar function run once forced onto the CPU and
//! once forced onto the GPU, and the skip rule (no usable GPU: print why and pass, unless
//! `QUASAR_REQUIRE_GPU=1`).

#![allow(dead_code)] // each test binary uses part of it

pub mod math;

use quasar::{Error, Runtime, SchedMode};
use std::sync::Mutex;

/// The scheduling mode is process-wide: tests that force it run one at a time.
static MODE: Mutex<()> = Mutex::new(());

fn require_gpu() -> bool {
    std::env::var("QUASAR_REQUIRE_GPU").is_ok_and(|v| v == "1")
}

/// Whether the process-wide runtime has a usable GPU. Without one, prints a skip line for
/// `test` (or fails under `QUASAR_REQUIRE_GPU=1`). `QUASAR_SIM_GPU=1` counts the simulated
/// GPU, which checks the PTX parameter packing of every launch but runs the CPU code;
/// `QUASAR_SIM_GPU=ptx` the PTX interpreter, which executes the PTX.
pub fn gpu_or_skip(test: &str) -> bool {
    let rt = Runtime::global();
    match rt.gpu() {
        Some(g) => {
            eprintln!("{test}: comparing the CPU with {}", g.name());
            true
        }
        None if require_gpu() => {
            panic!(
                "{test}: QUASAR_REQUIRE_GPU=1 but there is no usable GPU: {}",
                rt.no_gpu_reason()
            )
        }
        None => {
            println!("skipping {test}: no usable GPU ({})", rt.no_gpu_reason());
            false
        }
    }
}

/// Runs `f` with every launch forced onto `mode`, then restores the mode.
pub fn on<R>(mode: SchedMode, f: impl FnOnce() -> R) -> R {
    let _one_at_a_time = MODE.lock().unwrap_or_else(|e| e.into_inner());
    // Back to the mode before (`QUASAR_DEVICE=gpu` keeps the other tests' launches on the GPU).
    let before = Runtime::global().mode();
    quasar::set_mode(mode);
    let r = f();
    quasar::set_mode(before);
    r
}

/// Whether `e` says a kernel has no PTX (the PTX back end skipped it).
pub fn no_ptx(e: &Error) -> bool {
    e.to_string().contains("has no PTX")
}

/// `f` on the CPU and on the GPU. `None` when the GPU half cannot run: the kernel has no PTX
/// and `known_gap` says the PTX back end does not compile it yet (printed); a kernel that
/// should have PTX and has none fails the test.
pub fn both<R>(name: &str, known_gap: bool, f: impl Fn() -> quasar::Result<R>) -> Option<(R, R)> {
    let cpu = on(SchedMode::Cpu, &f).unwrap_or_else(|e| panic!("{name} on the CPU: {e}"));
    match on(SchedMode::Gpu, &f) {
        Ok(g) => {
            if known_gap {
                println!("{name}: now compiled for the GPU (remove it from the known gaps)");
            }
            Some((cpu, g))
        }
        Err(e) if known_gap && no_ptx(&e) => {
            println!("{name}: not compiled for the GPU yet, CPU only ({e})");
            None
        }
        Err(e) => panic!("{name} on the GPU: {e}"),
    }
}

/// Element-wise agreement within `tol` relative to `1 + |cpu|`.
pub fn close(name: &str, cpu: &[f32], gpu: &[f32], tol: f32) {
    assert_eq!(cpu.len(), gpu.len(), "{name}: lengths");
    let mut worst = 0f32;
    for (i, (c, g)) in cpu.iter().zip(gpu).enumerate() {
        let err = (c - g).abs() / (1.0 + c.abs());
        assert!(err <= tol, "{name}: element {i}: CPU {c} vs GPU {g}");
        worst = worst.max(err);
    }
    println!("{name}: {} elements, max relative difference CPU vs GPU {worst:.3e}", cpu.len());
}
