//! How a [`Chart`] is drawn: horizontal bars, each row's name on the axis beside its three bars
//! (control, test, their difference), one panel per kind of row with its own value axis, the
//! legend in a line under the title. Names are cut to the room left of the axis as tables cut
//! them, keeping what tells them apart; the SVG's tooltips hold the full names.

use super::cuts::distinct_cuts;
use super::plot::{
    Bar, CONTROL, Chart, DIFF, FAMILY, GRID, ImageFormat, Panel, TEST, axis_decimals, check_size, encode_png, err,
    register, unit_for, value_text, xml_escape,
};
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::fmt::Write;

/// Pixels one row of bars needs (three bars of six pixels and a gap).
pub(crate) const ROW_HEIGHT: u32 = 24;
/// Pixels of a chart's height that are not rows: the title and the legend's line.
const HEAD_HEIGHT: u32 = 70;
/// Pixels of a panel's height that are not rows: its title and its value axis.
const PANEL_CHROME: u32 = 80;
/// The width of a character of the names (15-pixel DejaVu Sans, on average), in pixels.
const CHAR_PX: f64 = 8.2;

/// Draws the chart; returns the picture's bytes (PNG or SVG text).
pub fn draw(chart: &Chart, format: ImageFormat) -> Result<Vec<u8>> {
    register()?;
    let (w, h) = (chart.width, chart.height);
    check_size(w, h)?;
    check_room(w, h, chart)?;
    match format {
        ImageFormat::Svg => {
            let mut svg = String::new();
            let hot = {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                let hot = paint(&root, chart)?;
                root.present().map_err(err)?;
                hot
            };
            // Full names as tooltips: an invisible rectangle with a <title> over each row.
            let mut titles = String::new();
            for ((x0, y0, x1, y1), bar) in hot.iter().zip(chart.rows()) {
                let mark = match bar.significant {
                    Some(true) => "; significant",
                    _ => "",
                };
                let _ = write!(
                    titles,
                    r#"<g class="group"><title>{}: {} {}, {} {}{mark}</title><rect x="{x0}" y="{y0}" width="{}" height="{}" fill="white" fill-opacity="0"/></g>"#,
                    xml_escape(&bar.name),
                    xml_escape(&chart.labels[0]),
                    value_text(bar.control, chart.duration),
                    xml_escape(&chart.labels[1]),
                    value_text(bar.test, chart.duration),
                    x1 - x0,
                    y1 - y0
                );
                titles.push('\n');
            }
            if let Some(end) = svg.rfind("</svg>") {
                svg.insert_str(end, &titles);
            }
            Ok(super::xml::xml_safe(svg.into_bytes()))
        }
        ImageFormat::Png => {
            let mut pixels = vec![0u8; (w * h * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut pixels, (w, h)).into_drawing_area();
                paint(&root, chart)?;
                root.present().map_err(err)?;
            }
            Ok(encode_png(&pixels, w, h).map_err(err)?)
        }
    }
}

/// The smallest height that holds `chart`'s rows.
fn height_for(chart: &Chart) -> u64 {
    let rows: u64 = chart.panels.iter().map(|p| p.rows.len() as u64).sum();
    u64::from(HEAD_HEIGHT) + chart.panels.len() as u64 * u64::from(PANEL_CHROME) + rows * u64::from(ROW_HEIGHT)
}

/// Checks that the chart's rows fit a `w`×`h` picture (each row needs [`ROW_HEIGHT`] pixels).
pub(crate) fn check_room(w: u32, h: u32, chart: &Chart) -> Result<()> {
    let need = height_for(chart);
    if u64::from(h) >= need {
        return Ok(());
    }
    let rows: usize = chart.panels.iter().map(|p| p.rows.len()).sum();
    let hint = if need <= u64::from(super::plot::MAX_SIZE.1) {
        format!("give at least --height {need}, or a smaller --top")
    } else {
        "give a smaller --top".to_string()
    };
    Err(Error::usage(format!(
        "{rows} {} do not fit a {w}×{h} chart (each needs {ROW_HEIGHT} pixels of height): {hint}",
        if rows == 1 { "row" } else { "rows" }
    )))
}

/// Draws everything; returns the pixel box of each row, in [`Chart::rows`]' order (for SVG
/// tooltips).
pub(crate) fn paint<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &Chart,
) -> Result<Vec<(i32, i32, i32, i32)>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err)?;
    let font = |size: i32| (FAMILY, size).into_font();
    let w = chart.width as i32;
    root.draw(&Text::new(
        chart.title.clone(),
        (w / 2, 14),
        font(24).color(&BLACK).pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(err)?;
    legend(root, chart, 50)?;
    // The room for names: a third of the width, at least 150 pixels.
    let name_px = (w * 36 / 100).max(150);
    let max_chars = ((f64::from(name_px) - 24.0) / CHAR_PX) as usize;
    let rows: Vec<u32> = chart.panels.iter().map(|p| p.rows.len() as u32).collect();
    let body = root.margin(HEAD_HEIGHT, 0, 0, 0);
    let total: u32 = rows.iter().map(|r| r * ROW_HEIGHT + PANEL_CHROME).sum();
    let spare = (chart.height.saturating_sub(HEAD_HEIGHT)).saturating_sub(total);
    let mut hot = Vec::new();
    let mut area = body;
    for (k, panel) in chart.panels.iter().enumerate() {
        // The spare height shared by rows.
        let height = rows[k] * ROW_HEIGHT + PANEL_CHROME + spare * rows[k] / rows.iter().sum::<u32>().max(1);
        let (here, rest) = area.split_vertically(height as i32);
        hot.extend(panel_bars(&here, chart, panel, (name_px, max_chars))?);
        area = rest;
    }
    Ok(hot)
}

/// The line under the title: the three bars' colours, and what `*` means.
fn legend<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Chart, y: i32) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let font = (FAMILY, 16).into_font();
    let [c, t] = &chart.labels;
    let mark = if chart.judged {
        "* changed beyond run-to-run noise (significant)"
    } else {
        "no * marks: significance not judged"
    };
    let items = [
        (Some(CONTROL), c.clone()),
        (Some(TEST), t.clone()),
        (Some(DIFF), format!("{t} − {c}")),
        (None, mark.to_string()),
    ];
    let mut x = 30;
    for (colour, text) in items {
        if let Some(colour) = colour {
            root.draw(&Rectangle::new([(x, y - 7), (x + 14, y + 7)], colour.filled()))
                .map_err(err)?;
            x += 20;
        }
        root.draw(&Text::new(
            text.clone(),
            (x, y),
            font.color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(err)?;
        x += (text.chars().count() as f64 * CHAR_PX * 1.05) as i32 + 24;
    }
    Ok(())
}

/// The value axis of `rows`: its divisor and unit, and the range shown.
fn value_axis(rows: &[Bar], duration: bool) -> (f64, &'static str, std::ops::Range<f64>) {
    let diffs = rows.iter().map(|b| b.test - b.control);
    let max = rows
        .iter()
        .map(|b| b.control.max(b.test))
        .chain(diffs.clone())
        .fold(0.0, f64::max);
    let min = diffs.fold(0.0, f64::min);
    let (div, unit) = unit_for(max.max(-min), duration);
    let (lo, hi) = (min / div, max / div);
    let pad = ((hi - lo) * 0.04).max(1e-9);
    (div, unit, if lo < 0.0 { lo - pad } else { 0.0 }..hi + pad)
}

/// The panel's value axis: its description and labels.
fn mesh<DB: DrawingBackend>(
    cc: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    chart: &Chart,
    unit: &str,
    x_range: &std::ops::Range<f64>,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let font = |size: i32| (FAMILY, size).into_font();
    let x_desc = match (chart.duration, chart.per_step) {
        (true, true) => format!("duration per step ({unit})"),
        (true, false) => format!("total duration ({unit})"),
        (false, true) => "calls per step".to_string(),
        (false, false) => "count (events)".to_string(),
    };
    let decimals = axis_decimals(x_range.end - x_range.start);
    cc.configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        // At most 6 labels: the decimals of a step for 12 are then enough for each, all alike.
        .x_labels(6)
        .x_desc(x_desc)
        .x_label_formatter(&|v| format!("{v:.decimals$}"))
        .axis_desc_style(font(16))
        .label_style(font(15))
        .light_line_style(GRID)
        .draw()
        .map_err(err)?;
    Ok(())
}

/// One panel: its title, the names on the left of the axis, three bars per row.
fn panel_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &Chart,
    panel: &Panel,
    (name_px, max_chars): (i32, usize),
) -> Result<Vec<(i32, i32, i32, i32)>>
where
    DB::ErrorType: 'static,
{
    let font = |size: i32| (FAMILY, size).into_font();
    let n = panel.rows.len();
    let (div, unit, x_range) = value_axis(&panel.rows, chart.duration);
    let mut builder = ChartBuilder::on(area);
    if let Some(title) = &panel.title {
        builder.caption(title, font(19));
    }
    let mut cc = builder
        .margin(10)
        .margin_right(30)
        .x_label_area_size(45)
        .y_label_area_size(name_px)
        .build_cartesian_2d(x_range.clone(), 0f64..n as f64)
        .map_err(err)?;
    mesh(&mut cc, chart, unit, &x_range)?;
    let names: Vec<&str> = panel
        .rows
        .iter()
        .map(|b| {
            if b.name.is_empty() {
                "(empty name)"
            } else {
                b.name.as_str()
            }
        })
        .collect();
    let cuts = distinct_cuts(&names, max_chars.saturating_sub(2));
    let mut hot = Vec::with_capacity(n);
    for (i, (bar, cut)) in panel.rows.iter().zip(&cuts).enumerate() {
        // Row i from the top: its band is [n - i - 1, n - i].
        let top = (n - i) as f64;
        let values = [bar.control, bar.test, bar.test - bar.control];
        for (k, (v, colour)) in values.into_iter().zip([CONTROL, TEST, DIFF]).enumerate() {
            let y1 = top - 0.12 - k as f64 * 0.26;
            cc.draw_series(std::iter::once(Rectangle::new(
                [(0.0, y1), (v / div, y1 - 0.24)],
                colour.filled(),
            )))
            .map_err(err)?;
        }
        let (x0, y0) = cc.backend_coord(&(x_range.start, top));
        let (x1, y1) = cc.backend_coord(&(x_range.end, top - 1.0));
        let (_, mid) = cc.backend_coord(&(x_range.start, top - 0.5));
        let mark = if bar.significant == Some(true) { " *" } else { "" };
        area.draw(&Text::new(
            format!("{cut}{mark}"),
            (x0 - 8 - area.get_base_pixel().0, mid - area.get_base_pixel().1),
            font(15).color(&BLACK).pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(err)?;
        hot.push((x0 - name_px, y0, x1, y1));
    }
    // A zero line that stays visible beside negative differences.
    cc.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, 0.0), (0.0, n as f64)],
        BLACK.stroke_width(2),
    )))
    .map_err(err)?;
    Ok(hot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::render::plot::*;

    #[test]
    fn axis_labels_share_their_decimals() {
        assert_eq!(axis_decimals(4.7), 1); // 0, 0.5, …, 4.5
        assert_eq!(axis_decimals(100.0), 0); // 0, 10, …, 100
        assert_eq!(axis_decimals(10.0), 0); // 0, 1, …, 10
        assert_eq!(axis_decimals(0.047), 3); // 0.005 steps
        assert_eq!(axis_decimals(0.0), 0);
        assert_eq!(axis_decimals(f64::NAN), 0);
    }

    fn chart(groups: Vec<(String, f64, f64)>) -> Chart {
        let rows = groups
            .into_iter()
            .map(|(name, control, test)| Bar {
                name,
                control,
                test,
                significant: None,
            })
            .collect();
        Chart {
            title: "t".into(),
            labels: ["control".into(), "test".into()],
            duration: true,
            per_step: false,
            panels: vec![Panel { title: None, rows }],
            judged: false,
            width: 800,
            height: 500,
        }
    }

    #[test]
    fn names_are_on_the_axis_not_in_a_key() {
        let long = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)";
        let mut c = chart(vec![(long.into(), 1e6, 2e6), ("aten::mm".into(), 3e6, 1e6)]);
        c.panels[0].rows[1].significant = Some(true);
        c.judged = true;
        let svg = String::from_utf8(draw(&c, ImageFormat::Svg).unwrap()).unwrap();
        assert!(svg.contains(">\naten::mm *\n</text>"), "{svg}");
        assert!(svg.contains(">\nvectorized_elementwise_kernel…\n</text>"), "{svg}");
        assert!(
            !svg.contains(">1</text>") && !svg.contains(">1. "),
            "no numbered key: {svg}"
        );
        assert!(svg.contains("changed beyond run-to-run noise"), "{svg}");
    }

    #[test]
    fn units_scale_with_the_largest_value() {
        assert_eq!(unit_for(500.0, true), (1.0, "ns"));
        assert_eq!(unit_for(5e4, true), (1e3, "µs"));
        assert_eq!(unit_for(5e7, true), (1e6, "ms"));
        assert_eq!(unit_for(5e9, true), (1e9, "s"));
        assert_eq!(unit_for(5e9, false), (1.0, "events"));
    }

    #[test]
    fn svg_has_a_tooltip_per_group_and_is_deterministic() {
        let c = chart(vec![("a<b>".into(), 1e6, 2e6), ("c".into(), 3e6, 1e6)]);
        let a = draw(&c, ImageFormat::Svg).unwrap();
        let b = draw(&c, ImageFormat::Svg).unwrap();
        assert_eq!(a, b);
        let text = String::from_utf8(a).unwrap();
        assert_eq!(text.matches("<title>").count(), 2);
        assert!(
            text.contains("<title>a&lt;b&gt;: control 1.00 ms, test 2.00 ms</title>"),
            "{text}"
        );
    }

    #[test]
    fn png_decodes_to_the_requested_size() {
        let c = chart(vec![("x".into(), 5.0, 9.0)]);
        let png = draw(&c, ImageFormat::Png).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(&png));
        let info = decoder.read_info().unwrap();
        assert_eq!((info.info().width, info.info().height), (800, 500));
        assert!(draw(&Chart { width: 100, ..c }, ImageFormat::Png).is_err());
    }
}
