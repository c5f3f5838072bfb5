//! The kernels of the `saxpy` and `mandelbrot` examples on the interpreted GPU
//! (`QUASAR_SIM_GPU=ptx`: their PTX runs on the PTX interpreter) give what the CPU gives.
//! (tests/pipeline_ptx.rs does the same for the pipeline example.)

#[allow(dead_code)]
#[path = "../saxpy.rs"]
mod saxpy;

#[allow(dead_code)]
#[path = "../mandelbrot.rs"]
mod mandelbrot;

use quasar::{Array, SchedMode};
use std::sync::Mutex;

/// The scheduling mode is process-wide: one test at a time.
static MODE: Mutex<()> = Mutex::new(());

fn on<R>(mode: SchedMode, f: impl FnOnce() -> R) -> R {
    quasar::set_mode(mode);
    let r = f();
    quasar::set_mode(SchedMode::Auto);
    r
}

/// The runtime with the interpreted GPU (set before it is first used).
fn interpreted() -> std::sync::MutexGuard<'static, ()> {
    let guard = MODE.lock().unwrap_or_else(|e| e.into_inner());
    std::env::set_var("QUASAR_SIM_GPU", "ptx");
    std::env::remove_var("QUASAR_SIM_GPUS");
    let gpu = quasar::Runtime::global().gpu().map(|g| g.name().to_string());
    assert!(gpu.as_deref().is_some_and(|g| g.contains("PTX")), "{gpu:?}");
    guard
}

#[test]
fn saxpy_on_interpreted_ptx_matches_the_cpu() {
    let _one = interpreted();
    let n = 1001;
    let x = Array::from_fn(&[n], |i| i as f32 * 0.5 - 100.0).unwrap();
    let run = |mode| {
        let y = Array::from_fn(&[n], |i| (i % 7) as f32).unwrap();
        on(mode, || saxpy::q::saxpy(2.5, &x, &y)).unwrap();
        y.to_vec().unwrap()
    };
    let (c, g) = (run(SchedMode::Cpu), run(SchedMode::Gpu));
    assert_eq!(c, g);
    assert_eq!(g[3], 2.5 * (1.5 - 100.0) + 3.0);
    // The array expression: one generated kernel (the kernel generator), the same values.
    let y = Array::from_fn(&[n], |i| (i % 7) as f32).unwrap();
    let expr = |mode| on(mode, || saxpy::q::saxpy_expr(2.5, &x, &y)).unwrap().to_vec().unwrap();
    assert_eq!(expr(SchedMode::Cpu), c);
    assert_eq!(expr(SchedMode::Gpu), c);
}

#[test]
fn mandelbrot_on_interpreted_ptx_matches_the_cpu() {
    let _one = interpreted();
    let run = |mode| {
        let (img, inside) = on(mode, || mandelbrot::q::mandelbrot(37, 53, 60)).unwrap();
        (img.to_vec().unwrap(), inside)
    };
    let (c, g) = (run(SchedMode::Cpu), run(SchedMode::Gpu));
    assert_eq!(c.1, g.1, "points inside");
    assert!(g.1 > 0);
    assert_eq!(c.0, g.0, "image");
}
