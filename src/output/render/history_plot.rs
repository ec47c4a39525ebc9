//! `history show --plot`: each series over the runs, one panel each, the runs' labels on the
//! axis, each change point a dashed line where its run starts, the band of the runs since the
//! last change point shaded (median to the band's upper bound).

use super::plot::{ImageFormat, encode_png, plot_error, register_font_once};
use crate::analysis::history::show::{HistoryView, Series};
use crate::error::Result;
use plotters::coord::Shift;
use plotters::prelude::*;

const FAMILY: &str = "sans-serif";
const LINE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
const CHANGE: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
const BAND: RGBColor = RGBColor(0x00, 0x9E, 0x73);
const GRID: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);
/// Each panel's height, pixels.
const PANEL: u32 = 260;
/// The picture's width, pixels.
pub(crate) const WIDTH: u32 = 1000;

/// The picture of every series of `view`, PNG or SVG.
pub(crate) fn draw(view: &HistoryView, format: ImageFormat) -> Result<Vec<u8>> {
    register_font_once()?;
    let h = (PANEL * view.series.len().max(1) as u32).min(super::plot::MAX_SIZE.1);
    match format {
        ImageFormat::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (WIDTH, h)).into_drawing_area();
                paint(&root, view)?;
                root.present().map_err(plot_error)?;
            }
            Ok(super::xml::xml_safe(svg.into_bytes()))
        }
        ImageFormat::Png => {
            let mut pixels = vec![0u8; (WIDTH * h * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut pixels, (WIDTH, h)).into_drawing_area();
                paint(&root, view)?;
                root.present().map_err(plot_error)?;
            }
            encode_png(&pixels, WIDTH, h).map_err(plot_error)
        }
    }
}

fn paint<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, view: &HistoryView) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(plot_error)?;
    let rows = (root.dim_in_pixel().1 / PANEL).max(1) as usize;
    let panels = root.split_evenly((rows, 1));
    for (panel, series) in panels.iter().zip(&view.series) {
        panel_of(panel, view, series)?;
    }
    Ok(())
}

/// The unit a series is drawn in, and the divisor from ns.
fn unit_of(series: &Series) -> (&'static str, f64) {
    let top = series.values.iter().copied().fold(0.0, f64::max);
    match top {
        t if t >= 1e9 => ("s", 1e9),
        t if t >= 1e6 => ("ms", 1e6),
        t if t >= 1e3 => ("µs", 1e3),
        _ => ("ns", 1.0),
    }
}

fn panel_of<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, view: &HistoryView, s: &Series) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let (unit, div) = unit_of(s);
    let values: Vec<f64> = s.values.iter().map(|v| v / div).collect();
    let n = values.len();
    let top = values
        .iter()
        .copied()
        .chain(s.band_upper.map(|b| b / div))
        .fold(0.0, f64::max)
        .max(1e-9)
        * 1.1;
    let font = |size: i32| (FAMILY, size).into_font();
    let title = crate::output::visible::visible(&s.name);
    let mut cc = ChartBuilder::on(area)
        .caption(title, font(18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..top)
        .map_err(plot_error)?;
    let labels: Vec<String> = view.runs.iter().map(|r| r.label.clone()).collect();
    let every = n.div_ceil(20).max(1);
    cc.configure_mesh()
        .disable_x_mesh()
        .x_labels(n.clamp(2, 20))
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() > 1e-6 || i < 0.0 || !(i as usize).is_multiple_of(every) {
                return String::new();
            }
            labels.get(i as usize).cloned().unwrap_or_default()
        })
        .y_desc(format!("per step ({unit})"))
        .label_style(font(12))
        .axis_desc_style(font(13))
        .light_line_style(GRID)
        .draw()
        .map_err(plot_error)?;
    if let Some(upper) = s.band_upper {
        let x0 = s.since as f64 - 0.5;
        cc.draw_series(std::iter::once(Rectangle::new(
            [(x0, s.median / div), (n as f64 - 0.5, upper / div)],
            BAND.mix(0.2).filled(),
        )))
        .map_err(plot_error)?;
    }
    for c in &s.change_points {
        let Some(i) = view.runs.iter().position(|r| r.seq == c.seq) else {
            continue;
        };
        let x = i as f64 - 0.5;
        // Dashed: twenty dashes up the panel.
        let dashes = (0..20).map(|k| {
            let y0 = top * k as f64 / 20.0;
            PathElement::new(vec![(x, y0), (x, y0 + top / 40.0)], CHANGE.stroke_width(2))
        });
        cc.draw_series(dashes).map_err(plot_error)?;
    }
    let path: Vec<(f64, f64)> = values.iter().enumerate().map(|(i, v)| (i as f64, *v)).collect();
    cc.draw_series(std::iter::once(PathElement::new(path, LINE.stroke_width(2))))
        .map_err(plot_error)?;
    cc.draw_series(
        values
            .iter()
            .enumerate()
            .map(|(i, v)| Circle::new((i as f64, *v), 3, LINE.filled())),
    )
    .map_err(plot_error)?;
    Ok(())
}
