//! Grouped bar charts of a comparison (HTA's `visualize_counts_diff` / `visualize_duration_diff`):
//! for each of the top rows, three bars side by side — control, test and their difference.
//! PNG or SVG, drawn with an embedded font so the picture is the same on every machine.

use super::{distinct_cuts, fmt_duration};
use crate::analysis::diff::{Comparison, Row, SortKey, sort_rows};
use crate::error::{Error, Result};
use crate::output::visible::visible;
use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};
use std::fmt::Write;
use std::path::Path;

const FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

/// Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
const CONTROL: RGBColor = RGBColor(0x00, 0x72, 0xB2);
const TEST: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
const DIFF: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
const GRID: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);

/// What a chart shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Metric {
    /// Number of events per row.
    Counts,
    /// Total duration per row.
    Duration,
    /// Both charts, in two files.
    Both,
    /// The step-time breakdown's waterfall: control step → each part's Δ → test step.
    Breakdown,
}

/// The file type, from the output's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// A PNG picture.
    Png,
    /// SVG text, with a tooltip on each group of bars.
    Svg,
}

impl ImageFormat {
    /// The format of `path`'s extension (`.png` or `.svg`, any case); a usage error naming the
    /// file for any other.
    pub fn from_path(path: &Path) -> Result<ImageFormat> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("png") => Ok(ImageFormat::Png),
            Some("svg") => Ok(ImageFormat::Svg),
            _ => Err(Error::usage(format!(
                "cannot tell the image format of {}: use a .png or .svg file name",
                path.display()
            ))),
        }
    }
}

/// One chart, ready to draw.
#[derive(Debug, Clone)]
pub struct Chart {
    /// The line above the plot.
    pub title: String,
    /// Names of the control and test sides, in the legend.
    pub labels: [String; 2],
    /// Counts or nanoseconds.
    pub duration: bool,
    /// Whether the values are per step (docs/significance.md#per-step-values), not sums.
    pub per_step: bool,
    /// (full name, control, test) per group, in order.
    pub groups: Vec<(String, f64, f64)>,
    /// Width of the picture, in pixels (400 to 8192; the height 300 to 8192).
    pub width: u32,
    /// Height of the picture, in pixels.
    pub height: u32,
}

/// Picks the rows of a chart: ranked by `sort` (default: the diff of the metric, largest first),
/// at most `top`.
pub fn chart_of(
    comparison: &Comparison,
    duration: bool,
    sort: Option<SortKey>,
    top: usize,
    size: (u32, u32),
) -> Result<Chart> {
    let mut rows: Vec<&Row> = comparison.rows.iter().collect();
    // The largest changes either way by default: a step 2.4× faster is not ten tiny growths.
    let key = sort.unwrap_or(if duration {
        SortKey::AbsDiffDuration
    } else {
        SortKey::AbsDiffCounts
    });
    sort_rows(&mut rows, key);
    rows.truncate(top);
    if rows.is_empty() {
        return Err(Error::usage(
            "nothing to plot: the selection and filters leave no rows (check --include/--exclude, --device, --rank, --iteration)",
        ));
    }
    // Every text of the chart with its control characters shown escaped: they cannot be drawn,
    // and XML (the SVG) cannot hold them at all.
    let [c, t] = [&visible(&comparison.control.label), &visible(&comparison.test.label)];
    let per_step = rows.iter().any(|r| r.per_step.is_some());
    let what = match (duration, per_step) {
        (true, true) => "Duration per step",
        (true, false) => "Total duration",
        (false, true) => "Calls per step",
        (false, false) => "Count",
    };
    Ok(Chart {
        title: format!(
            "{what} per {}: {c} vs {t} (top {} by {})",
            comparison.naming.column().replace('_', " "),
            rows.len(),
            key.as_str()
        ),
        labels: [c.clone(), t.clone()],
        duration,
        per_step,
        groups: rows
            .iter()
            .map(|r| {
                // Per step where the rows are (docs/significance.md#per-step-values).
                match (&r.per_step, duration) {
                    (Some([c, t]), true) => (visible(&r.name), c.dur_ns, t.dur_ns),
                    (Some([c, t]), false) => (visible(&r.name), c.count, t.count),
                    (None, true) => (visible(&r.name), r.control.dur_ns as f64, r.test.dur_ns as f64),
                    (None, false) => (visible(&r.name), r.control.count as f64, r.test.count as f64),
                }
            })
            .collect(),
        width: size.0,
        height: size.1,
    })
}

fn register() -> Result<()> {
    static ONCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ONCE.get_or_init(|| register_font(FAMILY, FontStyle::Normal, FONT).is_ok()) {
        Ok(())
    } else {
        Err(Error::Render("the embedded font is unreadable".into()))
    }
}

/// A unit for the y axis: (divisor, name).
fn unit_for(max_abs: f64, duration: bool) -> (f64, &'static str) {
    if !duration {
        return (1.0, "events");
    }
    if max_abs < 1e3 {
        (1.0, "ns")
    } else if max_abs < 1e6 {
        (1e3, "µs")
    } else if max_abs < 1e9 {
        (1e6, "ms")
    } else {
        (1e9, "s")
    }
}

fn err<E: std::fmt::Debug>(e: E) -> Error {
    Error::Render(format!("{e:?}"))
}

/// A drawing error, for the other charts of this folder.
pub(crate) fn plot_error<E: std::fmt::Debug>(e: E) -> Error {
    err(e)
}

/// Registers the embedded font (once), for the other charts of this folder.
pub(crate) fn register_font_once() -> Result<()> {
    register()
}

/// The smallest chart size, (width, height) in pixels.
pub const MIN_SIZE: (u32, u32) = (400, 300);
/// The largest chart size, in pixels (a PNG of the largest takes 192 MiB to draw).
pub const MAX_SIZE: (u32, u32) = (8192, 8192);

/// Checks `--width` and `--height` against [`MIN_SIZE`] and [`MAX_SIZE`].
pub fn check_size(w: u32, h: u32) -> Result<()> {
    let ((min_w, min_h), (max_w, max_h)) = (MIN_SIZE, MAX_SIZE);
    if (min_w..=max_w).contains(&w) && (min_h..=max_h).contains(&h) {
        return Ok(());
    }
    Err(Error::usage(format!(
        "a chart is {min_w}×{min_h} to {max_w}×{max_h} pixels, not {w}×{h} (--width, --height)"
    )))
}

/// Pixels kept free above the highest bar for the legend (three lines and its frame).
const LEGEND_ROOM: i32 = 90;
/// Pixels of the plot's height that are not its data area: the title, the margins and the x
/// axis' labels.
const PLOT_CHROME_HEIGHT: i32 = 131;

/// Height of one line of the key under the plot, and the key's margin.
const KEY_LINE: i32 = 22;
const KEY_MARGIN: i32 = 20;
/// Room the plot itself needs: height above the key, and width per group of bars (for its number).
const PLOT_MIN_HEIGHT: u64 = 250;
const GROUP_MIN_WIDTH: u64 = 30;
const AXES_WIDTH: u64 = 150;

/// The smallest (width, height) that holds `groups` groups of bars and their key.
fn room_for(groups: u64) -> (u64, u64) {
    let key = groups.div_ceil(2) * KEY_LINE as u64 + KEY_MARGIN as u64;
    (AXES_WIDTH + groups * GROUP_MIN_WIDTH, PLOT_MIN_HEIGHT + key)
}

/// Checks that `groups` groups of bars, and their key, fit in a `w`×`h` chart.
fn check_room(w: u32, h: u32, groups: usize) -> Result<()> {
    let n = groups as u64;
    let (need_w, need_h) = room_for(n);
    if u64::from(w) >= need_w && u64::from(h) >= need_h {
        return Ok(());
    }
    let fits_max = |(w, h): (u64, u64)| w <= u64::from(MAX_SIZE.0) && h <= u64::from(MAX_SIZE.1);
    let hint = if fits_max((need_w, need_h)) {
        format!(
            "give at least --width {} --height {}, or a smaller --top",
            need_w.max(u64::from(w)),
            need_h.max(u64::from(h))
        )
    } else {
        let most = (0..n).rev().find(|&k| fits_max(room_for(k))).unwrap_or(0);
        format!("at most {most} rows fit the largest chart: give a smaller --top")
    };
    Err(Error::usage(format!(
        "{n} {} do not fit a {w}×{h} chart (each needs {GROUP_MIN_WIDTH} pixels of width and half a \
         {KEY_LINE}-pixel line of the key under the plot): {hint}",
        if n == 1 { "row" } else { "rows" }
    )))
}

/// Draws the chart; returns the picture's bytes (PNG or SVG text).
pub fn draw(chart: &Chart, format: ImageFormat) -> Result<Vec<u8>> {
    register()?;
    let (w, h) = (chart.width, chart.height);
    check_size(w, h)?;
    check_room(w, h, chart.groups.len())?;
    match format {
        ImageFormat::Svg => {
            let mut svg = String::new();
            let hot = {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                let hot = paint(&root, chart)?;
                root.present().map_err(err)?;
                hot
            };
            // Full names as tooltips: an invisible rectangle with a <title> over each group.
            let mut titles = String::new();
            for ((x0, y0, x1, y1), (name, c, t)) in hot.iter().zip(&chart.groups) {
                let _ = write!(
                    titles,
                    r#"<g class="group"><title>{}: {} {}, {} {}</title><rect x="{x0}" y="{y0}" width="{}" height="{}" fill="white" fill-opacity="0"/></g>"#,
                    xml_escape(name),
                    xml_escape(&chart.labels[0]),
                    value_text(*c, chart.duration),
                    xml_escape(&chart.labels[1]),
                    value_text(*t, chart.duration),
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

/// 8-bit RGB pixels as a PNG file, with the settings that the `image` crate used before (its
/// default: fast compression, adaptive filter), so charts stay byte-identical without that crate.
pub(crate) fn encode_png(pixels: &[u8], w: u32, h: u32) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    encoder.set_filter(png::Filter::Adaptive);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(pixels)?;
    writer.finish()?;
    Ok(out)
}

fn value_text(v: f64, duration: bool) -> String {
    if duration {
        fmt_duration(v as i64, false)
    } else {
        format!("{v:.0}")
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Draws everything; returns the pixel box of each group (for SVG tooltips).
fn paint<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Chart) -> Result<Vec<(i32, i32, i32, i32)>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err)?;
    let (w, h) = (chart.width as i32, chart.height as i32);
    let n = chart.groups.len();
    // The key: numbered full names (elided in the middle), in two columns under the chart.
    let key_rows = n.div_ceil(2) as i32;
    let line = KEY_LINE;
    let key_height = key_rows * line + KEY_MARGIN;
    let (plot_area, key_area) = root.split_vertically(h - key_height);

    let (div, unit, y_range) = y_axis(chart, h - key_height);
    let (bottom, top) = (y_range.start, y_range.end);

    let font = |size: i32| (FAMILY, size).into_font();
    let mut cc = ChartBuilder::on(&plot_area)
        .caption(&chart.title, font(26))
        .margin(20)
        .x_label_area_size(60)
        .y_label_area_size(90)
        .build_cartesian_2d(0f64..n as f64, y_range)
        .map_err(err)?;
    let y_desc = match (chart.duration, chart.per_step) {
        (true, true) => format!("duration per step ({unit})"),
        (true, false) => format!("total duration ({unit})"),
        (false, true) => "calls per step".to_string(),
        (false, false) => "count (events)".to_string(),
    };
    let decimals = axis_decimals(top - bottom);
    cc.configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .x_desc("rows, numbered: names in the key below")
        .y_desc(y_desc)
        .y_label_formatter(&|v| format!("{v:.decimals$}"))
        .axis_desc_style(font(18))
        .label_style(font(16))
        .light_line_style(GRID)
        .draw()
        .map_err(err)?;

    let bar = 0.26;
    let mut hot = Vec::with_capacity(n);
    for (i, (_, c, t)) in chart.groups.iter().enumerate() {
        let x = i as f64 + 0.11;
        for (k, (v, color)) in [(*c, CONTROL), (*t, TEST), (t - c, DIFF)].into_iter().enumerate() {
            let x0 = x + k as f64 * bar;
            cc.draw_series(std::iter::once(Rectangle::new(
                [(x0, 0.0), (x0 + bar * 0.92, v / div)],
                color.filled(),
            )))
            .map_err(err)?;
        }
        let (x0, y0) = cc.backend_coord(&(i as f64, cc.y_range().end));
        let (x1, y1) = cc.backend_coord(&(i as f64 + 1.0, cc.y_range().start));
        hot.push((x0, y0, x1, y1));
        // The group's number under the axis.
        let (cx, by) = cc.backend_coord(&(i as f64 + 0.5, cc.y_range().start));
        root.draw(&Text::new(
            format!("{}", i + 1),
            (cx - 5, by + 8),
            font(16).color(&BLACK),
        ))
        .map_err(err)?;
    }
    // A zero line that stays visible under negative differences.
    cc.draw_series(std::iter::once(PathElement::new(
        vec![(0.0, 0.0), (n as f64, 0.0)],
        BLACK.stroke_width(2),
    )))
    .map_err(err)?;
    legend(&mut cc, chart)?;
    draw_key(&key_area, chart, w, key_rows)?;
    Ok(hot)
}

/// The plot's value axis for a plot area `plot_height` pixels high: the divisor of the values
/// and its unit, and the range shown (room left above the bars for the legend).
fn y_axis(chart: &Chart, plot_height: i32) -> (f64, &'static str, std::ops::Range<f64>) {
    let diffs: Vec<f64> = chart.groups.iter().map(|(_, c, t)| t - c).collect();
    let max = chart
        .groups
        .iter()
        .map(|(_, c, t)| c.max(*t))
        .fold(0.0, f64::max)
        .max(diffs.iter().copied().fold(0.0, f64::max));
    let min = diffs.iter().copied().fold(0.0, f64::min);
    let (div, unit) = unit_for(max.max(-min), chart.duration);
    let (lo, hi) = (min / div, max / div);
    let pad = ((hi - lo) * 0.08).max(1e-9);
    let bottom = if lo < 0.0 { lo - pad } else { 0.0 };
    // Room above the highest bar for the legend in the upper right, so that it never hides a
    // bar: LEGEND_ROOM pixels of the plot's height, in the y axis' unit.
    let plot_px = f64::from((plot_height - PLOT_CHROME_HEIGHT).max(LEGEND_ROOM + 20));
    let room = f64::from(LEGEND_ROOM);
    let top = (hi + pad).max(hi + (hi - bottom) * room / (plot_px - room));
    (div, unit, bottom..top)
}

/// The bar chart's drawing context.
type Bars<'a, DB> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The legend in the upper right: the two sides and their difference.
fn legend<'a, DB: DrawingBackend + 'a>(cc: &mut Bars<'a, DB>, chart: &Chart) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let font = |size: i32| (FAMILY, size).into_font();
    let labels = [
        chart.labels[0].clone(),
        chart.labels[1].clone(),
        format!("{} − {}", chart.labels[1], chart.labels[0]),
    ];
    for (label, color) in labels.iter().zip([CONTROL, TEST, DIFF]) {
        cc.draw_series(std::iter::once(Rectangle::new(
            [(0.0, 0.0), (0.0, 0.0)],
            color.filled(),
        )))
        .map_err(err)?
        .label(label.as_str())
        .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }
    cc.configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(font(16))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// The key under the chart, `width` pixels wide: the numbered full names, cut to a column, in
/// two columns of `key_rows` rows.
fn draw_key<DB: DrawingBackend>(
    key_area: &DrawingArea<DB, Shift>,
    chart: &Chart,
    width: i32,
    key_rows: i32,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let font = |size: i32| (FAMILY, size).into_font();
    let col_width = (width - 60) / 2;
    let max_chars = (col_width as f64 / 8.6) as usize;
    let shown: Vec<&str> = chart
        .groups
        .iter()
        .map(|(name, _, _)| if name.is_empty() { "(empty name)" } else { name.as_str() })
        .collect();
    let cuts = distinct_cuts(&shown, max_chars.saturating_sub(5));
    for (i, cut) in cuts.iter().enumerate() {
        let (col, row) = ((i as i32) / key_rows, (i as i32) % key_rows);
        let text = format!("{:>2}. {cut}", i + 1);
        key_area
            .draw(&Text::new(
                text,
                (30 + col * col_width, 8 + row * KEY_LINE),
                font(15).color(&BLACK),
            ))
            .map_err(err)?;
    }
    Ok(())
}

/// How many decimals the labels of a value axis spanning `span` need, all labels alike (`0.5`,
/// `1.0`, `1.5`; the axis read `0.50`, `1`, `1.50`): those of the step plotters picks for its
/// (at most 10) labels, a step of 1, 2 or 5 × 10^k, or of a finer one (never fewer decimals than
/// the labels need).
pub fn axis_decimals(span: f64) -> usize {
    if !(span.is_finite() && span > 0.0) {
        return 0;
    }
    // The finest 1, 2 or 5 × 10^k step giving at most 12 labels over the span.
    let mut k = span.log10().ceil() as i32;
    let mut step = 10f64.powi(k);
    'finer: loop {
        for (m, dk) in [(5.0, -1), (2.0, -1), (1.0, -1)] {
            let next = m * 10f64.powi(k + dk);
            if span / next + 1.0 > 12.0 {
                break 'finer;
            }
            step = next;
        }
        k -= 1;
        if k < -12 {
            break;
        }
    }
    (-step.log10().floor()).max(0.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

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
        Chart {
            title: "t".into(),
            labels: ["control".into(), "test".into()],
            duration: true,
            per_step: false,
            groups,
            width: 800,
            height: 500,
        }
    }

    /// (x, y, width, height) of the SVG's rectangles whose attributes hold `attrs`.
    fn rects(svg: &str, attrs: &str) -> Vec<[i32; 4]> {
        let attr = |r: &str, name: &str| -> i32 {
            let at = r.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            r[at..].split('"').next().unwrap().parse().unwrap()
        };
        svg.split("<rect")
            .skip(1)
            .map(|r| r.split('>').next().unwrap())
            .filter(|r| r.contains(attrs))
            .map(|r| [attr(r, "x"), attr(r, "y"), attr(r, "width"), attr(r, "height")])
            .collect()
    }

    #[test]
    fn the_legend_never_hides_a_bar() {
        // The tallest bars are the last group's, under the legend in the upper right.
        for (width, height, groups) in [(800, 500, 3), (1000, 600, 10), (1600, 900, 10), (400, 300, 2)] {
            let mut g: Vec<(String, f64, f64)> = (0..groups).map(|i| (format!("op{i}"), 10.0, 20.0)).collect();
            g[groups - 1] = ("tall".into(), 1e6, 9e5);
            let c = Chart {
                width,
                height,
                ..chart(g)
            };
            let svg = String::from_utf8(draw(&c, ImageFormat::Svg).unwrap()).unwrap();
            // The legend's white box, drawn at 90% opacity.
            let legend = rects(&svg, r##"opacity="0.9" fill="#FFFFFF""##);
            let [lx, ly, lw, lh] = *legend.first().expect("a legend");
            for color in [CONTROL, TEST, DIFF] {
                let fill = format!(r##"fill="#{:02X}{:02X}{:02X}""##, color.0, color.1, color.2);
                for [x, y, w, _] in rects(&svg, &fill).into_iter().filter(|r| r[3] > 0 && r[2] > 14) {
                    let under = x < lx + lw && lx < x + w;
                    assert!(
                        !under || y >= ly + lh,
                        "{width}×{height}: a bar at x {x}, y {y} under the legend ending at y {}",
                        ly + lh
                    );
                }
            }
        }
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
