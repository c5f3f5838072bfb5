//! The pipeline example on the interpreted GPU (`QUASAR_SIM_GPU=ptx`: every kernel's PTX runs
//! on the PTX interpreter) writes the same image as on the CPU. The input is a crop of the
//! bundled image, so that the interpreter runs it in a few seconds.

#[allow(dead_code)]
#[path = "../pipeline.rs"]
mod example;

use quasar::{Array, SchedMode};

#[test]
fn the_pipeline_writes_the_same_image_on_interpreted_ptx_as_on_the_cpu() {
    // Before the process-wide runtime exists: one simulated GPU that interprets PTX.
    std::env::set_var("QUASAR_SIM_GPU", "ptx");
    std::env::remove_var("QUASAR_SIM_GPUS");
    let dir = std::env::temp_dir().join(format!("quasar-pipeline-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let full = quasar::imread(concat!(env!("CARGO_MANIFEST_DIR"), "/data/input.png")).unwrap();
    // An odd-sized crop from the middle (rows and columns not multiples of any block).
    let (m, n, c) = (61, 83, full.size(2));
    let (r0, c0) = (200, 150);
    let px = full.to_vec().unwrap();
    let w = full.size(1);
    let crop = Array::from_fn(&[m, n, c], |i| {
        let (y, x, k) = (i / (n * c), i / c % n, i % c);
        px[((r0 + y) * w + c0 + x) * c + k]
    })
    .unwrap();
    let input = dir.join("input.png");
    quasar::imwrite(input.to_str().unwrap(), &crop).unwrap();

    let run = |mode: SchedMode, out: &str| {
        quasar::set_mode(mode);
        let path = dir.join(out);
        example::run(input.to_str().unwrap(), path.to_str().unwrap(), None).unwrap();
        quasar::set_mode(SchedMode::Auto);
        quasar::imread(path.to_str().unwrap()).unwrap().to_vec().unwrap()
    };
    let cpu = run(SchedMode::Cpu, "cpu.png");
    let gpu = run(SchedMode::Gpu, "gpu.png");
    let gpu_name = quasar::Runtime::global().gpu().map(|g| g.name().to_string());
    assert!(
        gpu_name.as_deref().is_some_and(|g| g.contains("PTX") || g.contains("ptx")),
        "{gpu_name:?}"
    );
    assert_eq!(cpu.len(), m * n * c);
    let differ = cpu.iter().zip(&gpu).filter(|(a, b)| a != b).count();
    assert_eq!(
        differ,
        0,
        "{differ} of {} pixel values differ between the CPU and the interpreted GPU",
        cpu.len()
    );
    println!("pipeline on {m}x{n}x{c}: the CPU and the interpreted GPU ({gpu_name:?}) wrote the same image");
    std::fs::remove_dir_all(&dir).unwrap();
}
