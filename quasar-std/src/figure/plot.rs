//! Line plots: `plot(y)`, `plot(x, y)`, `plot(x, y, style)`, then `title`, `xlabel`, `ylabel`,
//! `xlim`, `ylim`, `legend` on the current plot, drawn by `plotters` into the plot's PNG
//! (feature `plot`), redrawn after every call so the file always shows the latest state.
//!
//! A `plot` without `hold("on")` starts a new plot (MATLAB clears the axes, labels included);
//! with it, adds a line. `style` is MATLAB's line specification, of which the colour letter
//! (`r g b c m y k w`) is used; lines without one take colours in turn. `x` and `y` are
//! vectors of the same length (or `y` alone, against `0, 1, …`: Quasar is zero-based).

use super::{announce, figure_path};
use quasar_runtime::{Error, Result};
use std::path::PathBuf;
use std::sync::Mutex;

/// One line of a plot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    /// The x coordinates of the points.
    pub x: Vec<f64>,
    /// The y coordinates of the points.
    pub y: Vec<f64>,
    /// RGB colour.
    pub color: Option<(u8, u8, u8)>,
}

/// The state of the current plot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plot {
    /// The call site of the `plot` that started it (names its file).
    pub site: Option<String>,
    /// The lines, in the order they were plotted.
    pub lines: Vec<Line>,
    /// The title above the plot.
    pub title: String,
    /// The label of the x axis.
    pub xlabel: String,
    /// The label of the y axis.
    pub ylabel: String,
    /// The range of the x axis (`None`: from the data).
    pub xlim: Option<(f64, f64)>,
    /// The range of the y axis (`None`: from the data).
    pub ylim: Option<(f64, f64)>,
    /// The legend entries, one per line.
    pub legend: Vec<String>,
}

struct State {
    plot: Plot,
    hold: bool,
    noted: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    plot: Plot {
        site: None,
        lines: Vec::new(),
        title: String::new(),
        xlabel: String::new(),
        ylabel: String::new(),
        xlim: None,
        ylim: None,
        legend: Vec::new(),
    },
    hold: false,
    noted: false,
});

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn set_hold(on: bool) {
    state().hold = on;
}

/// The colour of a MATLAB line specification, if it names one.
fn style_color(style: &str) -> Option<(u8, u8, u8)> {
    style.chars().find_map(|c| match c {
        'r' => Some((220, 30, 30)),
        'g' => Some((20, 160, 40)),
        'b' => Some((30, 60, 220)),
        'c' => Some((0, 170, 190)),
        'm' => Some((190, 30, 190)),
        'y' => Some((210, 180, 0)),
        'k' => Some((0, 0, 0)),
        'w' => Some((255, 255, 255)),
        _ => None,
    })
}

/// `plot(site, x, y, style)`: `x = None` plots `y` against `0, 1, …`. Returns the file
/// written (`None` when figures are off or the feature `plot` is missing).
pub fn plot(
    site: &str,
    x: Option<Vec<f64>>,
    y: Vec<f64>,
    style: Option<&str>,
) -> Result<Option<PathBuf>> {
    let x = x.unwrap_or_else(|| (0..y.len()).map(|i| i as f64).collect());
    if x.len() != y.len() {
        return Err(Error::argument(
            "plot",
            format!("x and y must have the same length, found {} and {}", x.len(), y.len()),
        ));
    }
    let line = Line { x, y, color: style.and_then(style_color) };
    {
        let mut s = state();
        if !s.hold || s.plot.site.is_none() {
            s.plot = Plot { site: Some(site.to_string()), ..Plot::default() };
        }
        s.plot.lines.push(line);
    }
    redraw("plot")
}

/// Applies `f` to the current plot and redraws it.
fn annotate(function: &str, f: impl FnOnce(&mut Plot)) -> Result<Option<PathBuf>> {
    f(&mut state().plot);
    redraw(function)
}

/// `title(text)`.
pub fn title(text: &str) -> Result<Option<PathBuf>> {
    annotate("title", |p| p.title = text.to_string())
}

/// `xlabel(text)`.
pub fn xlabel(text: &str) -> Result<Option<PathBuf>> {
    annotate("xlabel", |p| p.xlabel = text.to_string())
}

/// `ylabel(text)`.
pub fn ylabel(text: &str) -> Result<Option<PathBuf>> {
    annotate("ylabel", |p| p.ylabel = text.to_string())
}

/// `legend(texts…)`: one name per line, in order.
pub fn legend(texts: &[&str]) -> Result<Option<PathBuf>> {
    annotate("legend", |p| p.legend = texts.iter().map(|t| t.to_string()).collect())
}

fn limits(function: &str, range: &[f64]) -> Result<(f64, f64)> {
    match *range {
        [lo, hi] if lo < hi && lo.is_finite() && hi.is_finite() => Ok((lo, hi)),
        _ => Err(Error::argument(
            function,
            format!("expects [min, max] with min < max, found {range:?}"),
        )),
    }
}

/// `xlim([min, max])`.
pub fn xlim(range: &[f64]) -> Result<Option<PathBuf>> {
    let r = limits("xlim", range)?;
    annotate("xlim", |p| p.xlim = Some(r))
}

/// `ylim([min, max])`.
pub fn ylim(range: &[f64]) -> Result<Option<PathBuf>> {
    let r = limits("ylim", range)?;
    annotate("ylim", |p| p.ylim = Some(r))
}

/// A copy of the current plot's state.
pub fn current() -> Plot {
    state().plot.clone()
}

/// Draws the current plot into its file.
fn redraw(function: &str) -> Result<Option<PathBuf>> {
    let plot = current();
    let Some(site) = plot.site.clone() else { return Ok(None) };
    let Some(path) = figure_path(function, &site, "plot")? else { return Ok(None) };
    if !cfg!(feature = "plot") {
        let mut s = state();
        if !s.noted {
            s.noted = true;
            eprintln!(
                "{function}: plots are not drawn (build quasar with the cargo feature `plot`)"
            );
        }
        return Ok(None);
    }
    draw::draw(&plot, &path).map_err(|e| {
        Error::argument(function, format!("cannot draw the plot into `{}`: {e}", path.display()))
    })?;
    announce(function, &path);
    Ok(Some(path))
}

#[cfg(feature = "plot")]
mod draw;

#[cfg(not(feature = "plot"))]
mod draw {
    pub fn draw(_: &super::Plot, _: &std::path::Path) -> Result<(), String> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::SERIAL;
    use super::*;

    #[test]
    fn plot_state_follows_hold_and_annotations() {
        let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let d = tempfile::tempdir().unwrap();
        super::super::set_output(Some(d.path().to_path_buf()));
        set_hold(false);
        plot("p.q:1", None, vec![1.0, 4.0, 9.0], None).unwrap();
        title("squares").unwrap();
        plot("p.q:2", Some(vec![0.0, 1.0]), vec![2.0, 3.0], Some("r--")).unwrap();
        let p = current();
        assert_eq!(p.lines.len(), 1);
        assert_eq!(p.title, "", "a new plot clears the title");
        assert_eq!(p.lines[0].color, Some((220, 30, 30)));
        set_hold(true);
        plot("p.q:3", None, vec![5.0, 6.0], None).unwrap();
        xlabel("x").unwrap();
        ylabel("y").unwrap();
        xlim(&[0.0, 2.0]).unwrap();
        ylim(&[-1.0, 10.0]).unwrap();
        let file = legend(&["a", "b"]).unwrap();
        let p = current();
        assert_eq!(p.lines.len(), 2);
        assert_eq!(p.lines[1].x, vec![0.0, 1.0]);
        assert_eq!((p.xlim, p.ylim), (Some((0.0, 2.0)), Some((-1.0, 10.0))));
        assert_eq!(p.legend, vec!["a", "b"]);
        if cfg!(feature = "plot") {
            let file = file.unwrap();
            let img = crate::image::imread(&file).unwrap();
            assert_eq!(img.shape(), &[draw_size().1, draw_size().0, 3]);
            // The red line's colour is somewhere in the picture.
            let v = img.to_vec().unwrap();
            assert!(v.chunks(3).any(|p| p == [220.0, 30.0, 30.0]));
        } else {
            assert_eq!(file, None);
        }
        set_hold(false);
        let e = plot("p.q:4", Some(vec![1.0]), vec![1.0, 2.0], None).unwrap_err().to_string();
        assert_eq!(e, "`plot`: x and y must have the same length, found 1 and 2");
        assert!(xlim(&[2.0, 1.0]).unwrap_err().to_string().starts_with("`xlim`"));
    }

    fn draw_size() -> (usize, usize) {
        #[cfg(feature = "plot")]
        {
            (draw::WIDTH as usize, draw::HEIGHT as usize)
        }
        #[cfg(not(feature = "plot"))]
        {
            (0, 0)
        }
    }
}
