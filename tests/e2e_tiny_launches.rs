//! Where the scheduler sends the kernels the compiler generates (parallelised loops, fused
//! array expressions) when it decides (`SchedMode::Auto`) and a GPU is there (the simulated
//! one, running the PTX on the interpreter): a tiny launch such as the pipeline's
//! `gaussian_coefficients` loop (13 elements) stays on the CPU, a large one goes to the GPU.
//!
//! The rule is the cost model's (`quasar_runtime::scheduler::estimate`): the CPU costs its
//! launch (5 µs) plus the items spread over its cores, the GPU its launch (20 µs), the items
//! and the uploads; a launch goes to the GPU only when that is cheaper. With the default
//! constants, a launch of fewer than 15,000 items stays on the CPU on any number of cores.

use quasar::{Array, Runtime, SchedMode};
use quasar_runtime::SchedulerConfig;

mod k {
    quasar::quasar!(file = "examples/pipeline.q");
}

/// The devices each kernel whose name starts with `prefix` ran on since the last reset.
fn devices(prefix: &str) -> Vec<String> {
    let p = Runtime::global().profile();
    let mut v: Vec<String> = p
        .rows
        .iter()
        .filter(|r| r.kernel.starts_with(prefix) && r.launches > 0)
        .map(|r| if r.device == "CPU" { "CPU".to_string() } else { "GPU".to_string() })
        .collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn tiny_generated_launches_stay_on_the_cpu_large_ones_go_to_the_gpu() {
    // Before the process-wide runtime exists: a GPU that runs the kernels' PTX.
    std::env::set_var("QUASAR_SIM_GPU", "ptx");
    let rt = Runtime::global();
    assert!(rt.gpu_count() >= 1, "{}", rt.no_gpu_reason());
    rt.set_mode(SchedMode::Auto);
    // Two cores, as this machine: the estimate does not depend on where the test runs.
    rt.set_scheduler_config(SchedulerConfig { cpu_cores: 2.0, ..SchedulerConfig::default() });
    rt.profiler().set_enabled(true);

    rt.profiler().reset();
    let fc = k::gaussian_coefficients(2.0, 6).unwrap().to_vec().unwrap();
    assert_eq!(fc.len(), 13);
    assert!((fc.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    // The coefficients loop and the fused normalisation `fc / sum(fc)`: both on the CPU.
    assert_eq!(devices(""), ["CPU"], "{:?}", Runtime::global().profile().rows);

    rt.profiler().reset();
    let x = Array::from_fn(&[300, 300, 3], |i| (i % 256) as f32).unwrap();
    let y = k::gamma_correct(&x, 2.2).unwrap().to_vec().unwrap();
    assert!((y[100] - 255.0 * (100.0f32 / 255.0).powf(1.0 / 2.2)).abs() < 1e-2);
    // 270,000 threads: the GPU.
    assert_eq!(devices(""), ["GPU"], "{:?}", Runtime::global().profile().rows);
}
