//! Timing and console functions of manual table 14.2: `tic`, `toc`, `pause`, `disp`.
//!
//! * `tic()` starts the timer (one per program, as in the original); `toc()` prints
//!   `Elapsed time: 12.345 msec` and returns the **milliseconds** since `tic()`: the unit it
//!   prints, and the one real code relies on (it sums `toc("")` results and prints them as
//!   "milliseconds"; MATLAB's `toc` returns seconds).
//!   The older form `toc(label)` prints `label` before the time (`toc("")` prints the time
//!   alone). `toc` without `tic` is an error naming `toc`.
//! * `pause(msec)`: waits `msec` milliseconds (the manual's unit); `pause(0)` only yields.
//!   A negative or NaN duration is an error naming `pause`.
//! * `disp(x)`: prints `x` on its own line(s): a matrix one row per line with the elements
//!   right-aligned in columns, anything else as `print` writes it.

use crate::rt::show::Show;
use quasar_runtime::{Array, Element, Error, Result};
use std::io::Write as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

static TIMER: Mutex<Option<Instant>> = Mutex::new(None);

/// `tic()`.
pub fn tic() {
    *TIMER.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
}

/// The seconds since `tic()`.
fn elapsed() -> Result<f64> {
    let start = *TIMER.lock().unwrap_or_else(|e| e.into_inner());
    start
        .map(|t| t.elapsed().as_secs_f64())
        .ok_or_else(|| Error::argument("toc", "the timer was not started (call tic() first)"))
}

/// `toc()` and `toc(label)`: prints the time since `tic()` and returns it in milliseconds.
pub fn toc(label: Option<&str>) -> Result<f64> {
    let s = elapsed()?;
    let line = toc_line(label, s);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    Ok(s * 1e3)
}

fn toc_line(label: Option<&str>, seconds: f64) -> String {
    let ms = seconds * 1e3;
    match label {
        Some(l) if !l.is_empty() => format!("{l} Elapsed time: {ms:.3} msec"),
        _ => format!("Elapsed time: {ms:.3} msec"),
    }
}

/// `pause(msec)`.
pub fn pause(msec: f64) -> Result<()> {
    if msec.is_nan() || msec < 0.0 {
        return Err(Error::argument(
            "pause",
            format!("the duration must be a non-negative number of milliseconds, found {msec}"),
        ));
    }
    if msec == 0.0 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::try_from_secs_f64(msec / 1e3).unwrap_or(Duration::MAX));
    }
    Ok(())
}

/// The text `disp` writes for `x` (without the final newline).
pub fn disp_text<T: Show + ?Sized>(x: &T) -> String {
    let mut s = String::new();
    x.show(&mut s);
    s
}

/// The text `disp` writes for a matrix: one row per line, columns right-aligned.
pub fn disp_matrix_text<T: Show + Element>(x: &Array<T>) -> Result<String> {
    let shape = x.shape();
    if shape.len() != 2 {
        return Ok(disp_text(x));
    }
    let (m, n) = (shape[0], shape[1]);
    let view = x.host_view()?;
    let cells: Vec<String> = view.iter().map(|v| disp_text(v)).collect();
    let width = cells.iter().map(|c| c.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for i in 0..m {
        if i > 0 {
            out.push('\n');
        }
        for j in 0..n {
            let c = &cells[i * n + j];
            out.push_str(&" ".repeat(width - c.chars().count() + 3));
            out.push_str(c);
        }
    }
    Ok(out)
}

/// `disp(x)` for a value that is not an array.
pub fn disp<T: Show + ?Sized>(x: &T) {
    let _ = writeln!(std::io::stdout().lock(), "{}", disp_text(x));
}

/// `disp(A)` for an array.
pub fn disp_array<T: Show + Element>(x: &Array<T>) -> Result<()> {
    let text = disp_matrix_text(x)?;
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tic_toc_measures_a_pause() {
        tic();
        pause(20.0).unwrap();
        let ms = toc(Some("")).unwrap();
        assert!(ms >= 19.0, "{ms}");
        assert_eq!(toc_line(None, 0.0125), "Elapsed time: 12.500 msec");
        assert_eq!(toc_line(Some("blur:"), 0.002), "blur: Elapsed time: 2.000 msec");
    }

    #[test]
    fn pause_rejects_bad_durations() {
        assert!(pause(0.0).is_ok());
        let e = pause(-1.0).unwrap_err().to_string();
        assert_eq!(
            e,
            "`pause`: the duration must be a non-negative number of milliseconds, found -1"
        );
    }

    #[test]
    fn disp_aligns_matrix_columns() {
        let a = Array::from_vec(&[2, 2], vec![1.0f32, -2.5, 10.0, 4.0]).unwrap();
        assert_eq!(disp_matrix_text(&a).unwrap(), "      1   -2.5\n     10      4");
        let v = Array::from_vec(&[3], vec![1i32, 2, 3]).unwrap();
        assert_eq!(disp_matrix_text(&v).unwrap(), "[1,2,3]");
        assert_eq!(disp_text("hello"), "hello");
    }
}
