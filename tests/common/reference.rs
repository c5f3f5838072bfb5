//! Plain-Rust references shared by end-to-end tests (included with `#[path]`, so a test binary
//! takes only these and not the GPU helpers of `common/mod.rs`).

/// The 3×3 box filter with clamped borders of an `m × n` row-major image.
pub fn box3_reference(x: &[f32], m: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0f32;
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let r = (i as i64 + dy).clamp(0, m as i64 - 1) as usize;
                    let c = (j as i64 + dx).clamp(0, n as i64 - 1) as usize;
                    acc += x[r * n + c];
                }
            }
            out[i * n + j] = acc / 9.0;
        }
    }
    out
}
