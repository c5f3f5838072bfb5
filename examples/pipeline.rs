//! README's main example: an image pipeline written in Quasar, compiled by `quasar!` at build
//! time, running on the CPU (and on an NVIDIA GPU when the `cuda` feature finds one).
//!
//! ```text
//! cargo run --release --example pipeline [INPUT.png [OUTPUT.png]]
//! ```
//!
//! Loads the bundled photo-like test image, applies gamma correction, a separable Gaussian
//! blur and a clamped 3x3 sharpening filter, saves the result and prints per-stage times and
//! the device each kernel ran on.

use std::time::Instant;

mod pipeline {
    quasar::quasar!(file = "pipeline.q");
}

fn main() -> quasar::Result<()> {
    let mut args = std::env::args().skip(1);
    let input = args
        .next()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/data/input.png").into());
    let output = args.next().unwrap_or_else(|| "pipeline-output.png".into());

    let t = Instant::now();
    let img = quasar::imread(&input)?;
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
    quasar::imwrite(&output, &sharp)?;
    println!("saved {output} in {:.1} ms", ms(t));

    println!("\nkernel                         device  launches   time (ms)");
    for row in quasar::profile().rows {
        println!(
            "{:<30} {:<7} {:>8} {:>11.2}",
            row.kernel,
            row.device,
            row.launches,
            row.time.as_secs_f64() * 1e3
        );
    }
    Ok(())
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
