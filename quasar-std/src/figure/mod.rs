//! Pictures where users look: `imshow`, `plot`, `title`, `xlabel`, `ylabel`, `xlim`, `ylim`,
//! `legend`, `hold` (manual table 14.2). Quasar programs run headless here, so a figure is a
//! PNG file in an output folder, not a window.
//!
//! * **Where:** the folder `quasar-figures` in the current directory, or the one named by the
//!   environment variable `QUASAR_FIGURES`; `QUASAR_FIGURES=off` (or `0`, `none`) turns
//!   figures off. From Rust, [`set_output`] overrides both. The first time a figure file is
//!   written, its path is printed on standard error (`imshow: figure written to …`).
//! * **Which file:** each call site (`file:line`, passed by generated code) has its own
//!   figure, numbered in order of first use: `figure1-imshow.png`, `figure2-plot.png`, …
//!   A call that runs again (a loop showing video frames) overwrites its file, as a window
//!   would be redrawn.
//! * `imshow(img)` shows values 0..255 (the manual's range); `imshow(img, [lo, hi])` maps `lo`
//!   to black and `hi` to white; `imshow(img, [])` uses the image's own minimum and maximum
//!   (MATLAB). A `M x N` array is greyscale, `M x N x 3` colour, `M x N x 1` grey.
//! * `plot`, `title`, … draw line plots through `plotters` when the cargo feature `plot` is on
//!   (see [`plot`]); without it the calls are accepted and one note says that plots are not
//!   drawn.
//! * `hold("on")`/`hold("off")` keep or replace the current plot's lines and return 0: the
//!   original returns whether the window is still open, and programs loop
//!   `repeat … until !hold("on")` until the user closes it; headless, it is closed at once.

pub mod plot;

use quasar_runtime::{Array, Error, Result};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where figures go, once decided.
#[derive(Clone, Debug, PartialEq)]
enum Output {
    Folder(PathBuf),
    Off,
}

struct Figures {
    output: Option<Output>,
    /// Figure number of each call site.
    sites: Vec<String>,
    /// Files already announced.
    announced: Vec<PathBuf>,
}

static FIGURES: Mutex<Figures> =
    Mutex::new(Figures { output: None, sites: Vec::new(), announced: Vec::new() });

fn figures() -> std::sync::MutexGuard<'static, Figures> {
    FIGURES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sets the folder figures are written to (`None`: figures off), overriding `QUASAR_FIGURES`.
pub fn set_output(folder: Option<PathBuf>) {
    figures().output = Some(folder.map_or(Output::Off, Output::Folder));
}

fn output(f: &mut Figures) -> Output {
    f.output
        .get_or_insert_with(|| match std::env::var("QUASAR_FIGURES") {
            Ok(v)
                if matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "0" | "none" | "") =>
            {
                Output::Off
            }
            Ok(v) => Output::Folder(PathBuf::from(v)),
            Err(_) => Output::Folder(PathBuf::from("quasar-figures")),
        })
        .clone()
}

/// The file for the figure of call site `site` made by `kind` (`imshow`, `plot`), or `None`
/// when figures are off. Creates the folder.
fn figure_path(function: &str, site: &str, kind: &str) -> Result<Option<PathBuf>> {
    let mut f = figures();
    let Output::Folder(folder) = output(&mut f) else { return Ok(None) };
    let n = match f.sites.iter().position(|s| s == site) {
        Some(i) => i + 1,
        None => {
            f.sites.push(site.to_string());
            f.sites.len()
        }
    };
    std::fs::create_dir_all(&folder).map_err(|e| {
        Error::argument(
            function,
            format!("cannot create the figure folder `{}`: {e}", folder.display()),
        )
    })?;
    Ok(Some(folder.join(format!("figure{n}-{kind}.png"))))
}

/// Prints where a figure went, the first time.
fn announce(function: &str, path: &Path) {
    let mut f = figures();
    if !f.announced.iter().any(|p| p == path) {
        f.announced.push(path.to_path_buf());
        eprintln!("{function}: figure written to {}", path.display());
    }
}

/// `imshow(img)` (`range = None`: 0..255), `imshow(img, [lo, hi])` (`Some([lo, hi])`) and
/// `imshow(img, [])` (`Some([])`: the image's minimum and maximum). `site` names the call
/// (`file:line`). Returns the file written, `None` when figures are off.
pub fn imshow(site: &str, img: &Array<f32>, range: Option<&[f32]>) -> Result<Option<PathBuf>> {
    let shape = img.shape();
    let ok = matches!(shape, [_, _] | [_, _, 1] | [_, _, 3]) && img.numel() > 0;
    if !ok {
        return Err(Error::argument(
            "imshow",
            format!("expects an M x N (grey) or M x N x 3 (colour) image, found shape {shape:?}"),
        ));
    }
    let (lo, hi) = match range {
        None => (0.0, 255.0),
        Some([]) => {
            let v = img.host_view()?;
            let lo = v.iter().copied().filter(|x| !x.is_nan()).fold(f32::INFINITY, f32::min);
            let hi = v.iter().copied().filter(|x| !x.is_nan()).fold(f32::NEG_INFINITY, f32::max);
            if lo.is_finite() && hi > lo {
                (lo, hi)
            } else if lo.is_finite() {
                (lo - 1.0, lo)
            } else {
                (0.0, 255.0)
            }
        }
        Some(&[lo, hi]) if lo < hi && lo.is_finite() && hi.is_finite() => (lo, hi),
        Some(r) => {
            return Err(Error::argument(
                "imshow",
                format!("the display range must be [] or [min, max] with min < max, found {r:?}"),
            ))
        }
    };
    let Some(path) = figure_path("imshow", site, "imshow")? else { return Ok(None) };
    crate::image::imwrite_range(&path, img, lo, hi)?;
    announce("imshow", &path);
    Ok(Some(path))
}

/// `hold("on")` / `hold("off")` (or 1/0): keep the lines of the current plot for the next
/// `plot`, or not. Returns 0 (the figure window is closed: headless).
pub fn hold(state: &str) -> Result<i32> {
    let on = match state.to_ascii_lowercase().as_str() {
        "on" | "1" => true,
        "off" | "0" => false,
        _ => {
            return Err(Error::argument(
                "hold",
                format!("expects \"on\" or \"off\", found \"{state}\""),
            ))
        }
    };
    plot::set_hold(on);
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tests change the process-wide output; they run one at a time.
    pub(crate) static SERIAL: Mutex<()> = Mutex::new(());

    #[test]
    fn imshow_writes_a_png_per_call_site_with_the_display_range() {
        let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let d = tempfile::tempdir().unwrap();
        set_output(Some(d.path().to_path_buf()));
        let img = Array::from_vec(&[2, 2], vec![0.0f32, 0.5, 1.0, 2.0]).unwrap();
        let a = imshow("t.q:1", &img, Some(&[0.0, 2.0])).unwrap().unwrap();
        let b = imshow("t.q:2", &img, Some(&[])).unwrap().unwrap();
        let again = imshow("t.q:1", &img, None).unwrap().unwrap();
        assert_eq!(a, again);
        assert_ne!(a, b);
        assert!(a.file_name().unwrap().to_str().unwrap().ends_with("-imshow.png"));
        // [0, 2] -> 0..255: 0, 63.75, 127.5, 255 rounded; [] is the same range here.
        let back = crate::image::imread(&b).unwrap().to_vec().unwrap();
        assert_eq!(back, vec![0.0, 64.0, 128.0, 255.0]);
        let back = crate::image::imread(&again).unwrap().to_vec().unwrap();
        assert_eq!(back, vec![0.0, 1.0, 1.0, 2.0]);
        set_output(None);
        assert_eq!(imshow("t.q:3", &img, None).unwrap(), None);
    }

    #[test]
    fn bad_images_and_ranges_name_imshow() {
        let img = Array::<f32>::zeros(&[2, 2, 2]).unwrap();
        let e = imshow("t.q:9", &img, None).unwrap_err().to_string();
        assert!(e.starts_with("`imshow`: expects an M x N"), "{e}");
        let img = Array::<f32>::zeros(&[2, 2]).unwrap();
        let e = imshow("t.q:9", &img, Some(&[3.0, 1.0])).unwrap_err().to_string();
        assert!(e.starts_with("`imshow`: the display range"), "{e}");
        assert_eq!(hold("on").unwrap(), 0);
        assert!(hold("maybe").unwrap_err().to_string().starts_with("`hold`"));
        plot::set_hold(false);
    }
}
