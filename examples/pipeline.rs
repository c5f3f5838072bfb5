//! README's main example: an image pipeline written in Quasar, compiled by `quasar!` at build
//! time, running on the CPU (and on an NVIDIA GPU when the `cuda` feature finds one).
//!
//! ```text
//! cargo run --release --example pipeline [-- [--trace TRACE.json] [INPUT.png [OUTPUT.png]]]
//! ```
//!
//! Loads the bundled photo-like test image, applies gamma correction, a separable Gaussian
//! blur and a clamped 3x3 sharpening filter, saves the result and prints per-stage times and
//! the profile: each kernel's launches, device and time, and the bytes each array moved
//! between the host and the GPU, and why. With `--trace` (or `QUASAR_TRACE=TRACE.json`) it
//! also writes the timeline of kernels and transfers per device and stream in the Chrome
//! trace format: open it in <https://ui.perfetto.dev>.

use std::time::Instant;

mod pipeline {
    quasar::quasar!(file = "pipeline.q");
}

/// Runs the pipeline on `input`, saves the result to `output`, prints the profile and, if
/// asked, writes the timeline to `trace`.
pub fn run(input: &str, output: &str, trace: Option<&str>) -> quasar::Result<()> {
    let t = Instant::now();
    let img = quasar::imread(input)?;
    println!("loaded {input}: {:?} in {:.1} ms", img.shape(), ms(t));

    let t = Instant::now();
    let bright = pipeline::gamma_correct(&img, 1.8)?;
    bright.sync()?;
    println!("gamma correction     {:8.2} ms", ms(t));

    let t = Instant::now();
    let blurred = pipeline::gaussian_blur(&bright, 2.0)?;
    blurred.sync()?;
    println!("gaussian blur (5x5+) {:8.2} ms", ms(t));

    let t = Instant::now();
    let sharp = pipeline::sharpen(&blurred, 1.5)?;
    sharp.sync()?;
    println!("3x3 sharpen          {:8.2} ms", ms(t));

    let t = Instant::now();
    quasar::imwrite(output, &sharp)?;
    println!("saved {output} in {:.1} ms\n", ms(t));

    print!("{}", quasar::profile());
    if let Some(path) = trace {
        quasar::write_trace(path)?;
        println!("\nwrote the timeline to {path}: open it in https://ui.perfetto.dev");
    }
    Ok(())
}

#[allow(dead_code)] // the pipeline_trace test includes this file and calls `run`
fn main() -> quasar::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut trace = std::env::var("QUASAR_TRACE").ok().filter(|t| !t.is_empty());
    if let Some(k) = args.iter().position(|a| a == "--trace") {
        args.remove(k);
        if k < args.len() {
            trace = Some(args.remove(k));
        }
    }
    let mut args = args.into_iter();
    let input = args
        .next()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/data/input.png").into());
    let output = args.next().unwrap_or_else(|| "pipeline-output.png".into());
    run(&input, &output, trace.as_deref())
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
