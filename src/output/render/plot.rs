//! Bar charts of a comparison (HTA's `visualize_counts_diff` / `visualize_duration_diff`): for
//! each of the top rows, three horizontal bars — control, test and their difference — with the
//! row's name on the axis beside them, host rows and device rows in panels of their own (each
//! with its own axis), significant rows marked `*`. PNG or SVG, drawn with an embedded font so
//! the picture is the same on every machine.

use super::fmt_duration;
use crate::analysis::diff::{Comparison, Row, SortKey, sort_rows};
use crate::error::{Error, Result};
use crate::output::visible::visible;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};
use std::path::Path;

const FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
pub(crate) const FAMILY: &str = "sans-serif";

/// Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
pub(crate) const CONTROL: RGBColor = RGBColor(0x00, 0x72, 0xB2);
pub(crate) const TEST: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
pub(crate) const DIFF: RGBColor = RGBColor(0xCC, 0x79, 0xA7);
pub(crate) const GRID: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);

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

/// The rows a chart leaves out unless `--exclude` is given (docs/commands.md#plot): the step
/// rows (`ProfilerStep#*`, as long as the step and dwarfing every other bar) and the runtime API
/// calls (`cudaLaunchKernel`, `cudaGetErrorString`, `cuLaunchKernel`, `hipLaunchKernel`,
/// `hsa_signal_wait_scacquire`…), the host's cost of launching what the chart shows already.
pub const DEFAULT_EXCLUDE: [&str; 3] = ["^ProfilerStep", "^(cuda|cu|hip)[A-Z][A-Za-z0-9_]*$", "^hsa_[a-z0-9_]+$"];

/// One row of a chart: its full name, both sides' values and whether it changed beyond
/// run-to-run noise (`None`: not judged).
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    /// The row's full name.
    pub name: String,
    /// The control side's value (count or ns).
    pub control: f64,
    /// The test side's value.
    pub test: f64,
    /// Whether the change is significant (docs/significance.md); `None` where not judged.
    pub significant: Option<bool>,
}

/// One panel of a chart: its rows, top first, on an axis of their own.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// What the rows are (`host: …`, `device: …`); `None` for a chart of one panel.
    pub title: Option<String>,
    /// The rows, in the order drawn (top first).
    pub rows: Vec<Bar>,
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
    /// The panels: host rows then device rows where the comparison holds both and the places of
    /// its rows are known, else one.
    pub panels: Vec<Panel>,
    /// Whether any row was judged (the legend then explains `*`).
    pub judged: bool,
    /// Width of the picture, in pixels (400 to 8192; the height 300 to 8192).
    pub width: u32,
    /// Height of the picture, in pixels.
    pub height: u32,
}

impl Chart {
    /// Every row of every panel, in the order drawn.
    pub fn rows(&self) -> impl Iterator<Item = &Bar> {
        self.panels.iter().flat_map(|p| p.rows.iter())
    }
}

/// Picks the rows of a chart: ranked by `sort` (default: the diff of the metric, largest either
/// way), at most `top` per panel. With `device_rows` (the names of the rows of device events)
/// and both kinds of rows present, host rows and device rows go to panels of their own, each
/// with its own `top`: their times are of different things (a kernel's time on the device, an
/// operator's on the host, which includes launching that kernel).
pub(crate) fn chart_of(
    comparison: &Comparison,
    duration: bool,
    sort: Option<SortKey>,
    top: usize,
    size: (u32, u32),
    device_rows: Option<&std::collections::BTreeSet<String>>,
) -> Result<Chart> {
    let mut rows: Vec<&Row> = comparison.rows.iter().collect();
    // The largest changes either way by default: a step 2.4× faster is not ten tiny growths.
    let key = sort.unwrap_or(if duration {
        SortKey::AbsDiffDuration
    } else {
        SortKey::AbsDiffCounts
    });
    sort_rows(&mut rows, key);
    if rows.is_empty() {
        return Err(Error::usage(
            "nothing to plot: the selection and filters leave no rows (check --include/--exclude, --device, --rank, --iteration)",
        ));
    }
    let bar = |r: &&Row| bar_of(r, duration);
    let split = device_rows.map(|d| rows.iter().partition::<Vec<&&Row>, _>(|r| !d.contains(&r.name)));
    let panels = match split {
        Some((host, device)) if !host.is_empty() && !device.is_empty() => vec![
            Panel {
                title: Some("host: operators, annotations".into()),
                rows: host.iter().take(top).map(|r| bar(r)).collect(),
            },
            Panel {
                title: Some("device: kernels, copies, sets".into()),
                rows: device.iter().take(top).map(|r| bar(r)).collect(),
            },
        ],
        _ => vec![Panel {
            title: None,
            rows: rows.iter().take(top).map(bar).collect(),
        }],
    };
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
    let top = match panels.as_slice() {
        [one] => format!("top {}", one.rows.len()),
        _ => format!("top {top} host and device rows"),
    };
    Ok(Chart {
        title: format!(
            "{what} per {}: {c} vs {t} ({top} by {})",
            comparison.naming.column().replace('_', " "),
            key.as_str()
        ),
        labels: [c.clone(), t.clone()],
        duration,
        per_step,
        judged: panels.iter().flat_map(|p| &p.rows).any(|b| b.significant.is_some()),
        panels,
        width: size.0,
        height: size.1,
    })
}

/// A row's bar: per step where the rows are (docs/significance.md#per-step-values).
fn bar_of(r: &Row, duration: bool) -> Bar {
    let (c, t) = match (&r.per_step, duration) {
        (Some([c, t]), true) => (c.dur_ns, t.dur_ns),
        (Some([c, t]), false) => (c.count, t.count),
        (None, true) => (r.control.dur_ns as f64, r.test.dur_ns as f64),
        (None, false) => (r.control.count as f64, r.test.count as f64),
    };
    Bar {
        name: visible(&r.name),
        control: c,
        test: t,
        significant: r.significant,
    }
}

pub(crate) fn register() -> Result<()> {
    static ONCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ONCE.get_or_init(|| register_font(FAMILY, FontStyle::Normal, FONT).is_ok()) {
        Ok(())
    } else {
        Err(Error::Render("the embedded font is unreadable".into()))
    }
}

/// A unit for the y axis: (divisor, name).
pub(crate) fn unit_for(max_abs: f64, duration: bool) -> (f64, &'static str) {
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

pub(crate) fn err<E: std::fmt::Debug>(e: E) -> Error {
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
pub(crate) const MIN_SIZE: (u32, u32) = (400, 300);
/// The largest chart size, in pixels (a PNG of the largest takes 192 MiB to draw).
pub(crate) const MAX_SIZE: (u32, u32) = (8192, 8192);

/// Checks `--width` and `--height` against [`MIN_SIZE`] and [`MAX_SIZE`].
pub(crate) fn check_size(w: u32, h: u32) -> Result<()> {
    let ((min_w, min_h), (max_w, max_h)) = (MIN_SIZE, MAX_SIZE);
    if (min_w..=max_w).contains(&w) && (min_h..=max_h).contains(&h) {
        return Ok(());
    }
    Err(Error::usage(format!(
        "a chart is {min_w}×{min_h} to {max_w}×{max_h} pixels, not {w}×{h} (--width, --height)"
    )))
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

/// A value as the tooltips give it: a duration, or a count.
pub(crate) fn value_text(v: f64, duration: bool) -> String {
    if duration {
        fmt_duration(v as i64, false)
    } else {
        format!("{v:.0}")
    }
}

pub(crate) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// How many decimals the labels of a value axis spanning `span` need, all labels alike (`0.5`,
/// `1.0`, `1.5`; the axis read `0.50`, `1`, `1.50`): those of the step plotters picks for its
/// (at most 10) labels, a step of 1, 2 or 5 × 10^k, or of a finer one (never fewer decimals than
/// the labels need).
pub(crate) fn axis_decimals(span: f64) -> usize {
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
