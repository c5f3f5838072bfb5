//! Drawing a [`Plot`] with `plotters` into an RGB buffer, encoded as PNG by `image` (so that
//! `plotters` does not bring a second `image` version). Text uses the DejaVu Sans font of the
//! `dejavu` crate, registered once, so no system font is needed.

use super::Plot;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

pub const WIDTH: u32 = 800;
pub const HEIGHT: u32 = 600;

/// Colours of lines that do not choose one (MATLAB's default order).
const PALETTE: [(u8, u8, u8); 7] = [
    (0, 114, 189),
    (217, 83, 25),
    (237, 177, 32),
    (126, 47, 142),
    (119, 172, 48),
    (77, 190, 238),
    (162, 20, 47),
];

fn register_font() -> Result<(), String> {
    static ONCE: Once = Once::new();
    let mut result = Ok(());
    ONCE.call_once(|| {
        result = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            dejavu::sans::regular(),
        )
        .map_err(|_| "cannot load the DejaVu Sans font".to_string());
    });
    result
}

/// The range of `values` (finite ones), widened a little; `(0, 1)` when there are none.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        (0.0, 1.0)
    } else if hi > lo {
        let pad = (hi - lo) * 0.05;
        (lo - pad, hi + pad)
    } else {
        (lo - 1.0, hi + 1.0)
    }
}

pub fn draw(plot: &Plot, path: &Path) -> Result<(), String> {
    register_font()?;
    let mut buf = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let xr =
            plot.xlim.unwrap_or_else(|| range(plot.lines.iter().flat_map(|l| l.x.iter().copied())));
        let yr =
            plot.ylim.unwrap_or_else(|| range(plot.lines.iter().flat_map(|l| l.y.iter().copied())));
        let mut chart = ChartBuilder::on(&root)
            .caption(&plot.title, ("sans-serif", 24))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(plot.xlabel.as_str())
            .y_desc(plot.ylabel.as_str())
            .draw()
            .map_err(|e| e.to_string())?;
        for (i, line) in plot.lines.iter().enumerate() {
            let (r, g, b) = line.color.unwrap_or(PALETTE[i % PALETTE.len()]);
            let color = RGBColor(r, g, b);
            let points = line
                .x
                .iter()
                .zip(&line.y)
                .map(|(&x, &y)| (x, y))
                .filter(|(x, y)| x.is_finite() && y.is_finite());
            let series = chart
                .draw_series(LineSeries::new(points, color.stroke_width(2)))
                .map_err(|e| e.to_string())?;
            if let Some(name) = plot.legend.get(i) {
                series.label(name.as_str()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            }
        }
        if !plot.legend.is_empty() {
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    crate::image::write_rgb8_png(path, WIDTH, HEIGHT, &buf).map_err(|e| e.to_string())
}
