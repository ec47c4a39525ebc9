//! `plot`: HTA's two bar charts of a comparison, or the waterfall of the step time, written as
//! PNG or SVG.

use super::compare::{Pair, comparison_of};
use super::{Done, Notes, collect};
use crate::analysis::diff::{Comparison, Row, SortKey};
use crate::analysis::select::Device;
use crate::analysis::views::overview::overview_request;
use crate::error::{Error, Result};
use crate::output::render::plot::{ImageFormat, Metric, chart_of, check_size};
use crate::output::render::plot_bars::draw;
use crate::output::render::waterfall::{Waterfall, draw_waterfall};
use crate::request::CompareRequest;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What `plot` draws and where.
#[derive(Debug, Clone)]
pub struct PlotOptions {
    /// Which chart (or both, in two files).
    pub metric: Metric,
    /// Rows (groups of bars) per chart.
    pub top: usize,
    /// Which rows come first; `None`: the largest changes either way.
    pub sort: Option<SortKey>,
    /// Only rows that grew.
    pub increases: bool,
    /// Only rows that shrank.
    pub decreases: bool,
    /// The image file (.png or .svg; with both charts, `FILE-counts.EXT` and
    /// `FILE-duration.EXT`); `None`: `tracediff-<metric>.png`.
    pub output: Option<PathBuf>,
    /// Width and height in pixels.
    pub size: (u32, u32),
}

/// Draws the charts of a pair and writes them, all or none; returns the paths written.
pub fn plot(pair: &Pair<'_>, options: &PlotOptions) -> Done<Vec<PathBuf>> {
    collect(|notes| {
        check_size(options.size.0, options.size.1)?;
        if options.metric == Metric::Breakdown {
            return waterfall(pair, options, notes).map(|path| vec![path]);
        }
        charts(pair, options, notes)
    })
}

fn charts(pair: &Pair<'_>, options: &PlotOptions, notes: &mut Notes) -> Result<Vec<PathBuf>> {
    // Usage is checked before the traces are read: a wrong -o or --top must not wait for a
    // 1 GB trace to load first.
    if options.top == 0 {
        return Err(Error::usage("--top must be at least 1"));
    }
    let charts: &[(bool, &str)] = match options.metric {
        Metric::Counts => &[(false, "counts")],
        Metric::Duration => &[(true, "duration")],
        Metric::Both => &[(false, "counts"), (true, "duration")],
        Metric::Breakdown => &[],
    };
    // The name the user gave, not the FILE-counts.EXT it becomes, is what the error names.
    if let Some(output) = &options.output {
        ImageFormat::from_path(output)?;
    }
    let mut planned = Vec::new();
    for &(duration, name) in charts {
        let path = plot_path(options.output.as_deref(), name, options.metric == Metric::Both);
        let format = ImageFormat::from_path(&path)?;
        planned.push((duration, path, format));
    }
    let comparison = comparison_of(pair, notes)?;
    let device_rows = device_rows(pair, &comparison);
    // Both charts are drawn, then written as one unit: both or neither.
    let mut drawn = Vec::with_capacity(planned.len());
    for (duration, path, format) in planned {
        let one_way = one_direction(&comparison, duration, (options.increases, options.decreases));
        let (shown, sort) = match &one_way {
            Some(c) if options.increases => (
                c,
                options.sort.or(Some(if duration {
                    SortKey::DiffDuration
                } else {
                    SortKey::DiffCounts
                })),
            ),
            Some(c) => (c, options.sort),
            None => (&comparison, options.sort),
        };
        let chart = chart_of(shown, duration, sort, options.top, options.size, device_rows.as_ref())?;
        drawn.push((path, draw(&chart, format)?));
    }
    let files: Vec<(&Path, &[u8])> = drawn.iter().map(|(p, b)| (p.as_path(), b.as_slice())).collect();
    crate::atomic::write_all_atomically(&files)?;
    Ok(drawn.into_iter().map(|(path, _)| path).collect())
}

/// The names of the rows of device events where `comparison` holds host and device rows alike
/// (`--device all`): the rows of the same pair compared with `--device gpu`. `None` where it
/// holds one kind, or that comparison cannot be made (the chart is then one panel).
fn device_rows(pair: &Pair<'_>, comparison: &Comparison) -> Option<BTreeSet<String>> {
    if comparison.device != Device::All {
        return None;
    }
    let gpu = |mut req: CompareRequest| {
        req.device = Device::Gpu;
        req
    };
    let mut scratch = Notes::default();
    let rows = match pair {
        Pair::Given(req) => comparison_of(&Pair::Given(Box::new(gpu((**req).clone()))), &mut scratch),
        Pair::Saved { state_dir, adjust } => {
            let adjust = |req: CompareRequest| adjust(req).map(gpu);
            comparison_of(
                &Pair::Saved {
                    state_dir,
                    adjust: &adjust,
                },
                &mut scratch,
            )
        }
    };
    Some(rows.ok()?.rows.into_iter().map(|r| r.name).collect())
}

/// The rows of `comparison` that moved one way in the chart's measure (`(increases,
/// decreases)`), or `None` for both ways.
fn one_direction(comparison: &Comparison, duration: bool, (increases, decreases): (bool, bool)) -> Option<Comparison> {
    if !increases && !decreases {
        return None;
    }
    let change = |r: &Row| -> f64 {
        match (&r.per_step, duration) {
            (Some([c, t]), true) => t.dur_ns - c.dur_ns,
            (Some([c, t]), false) => t.count - c.count,
            (None, true) => r.diff_dur_ns() as f64,
            (None, false) => r.diff_counts() as f64,
        }
    };
    let mut kept = comparison.clone();
    kept.rows
        .retain(|r| if increases { change(r) > 0.0 } else { change(r) < 0.0 });
    Some(kept)
}

/// The overview of the pair (given, or the saved one's) as a waterfall of the mean step time.
fn waterfall(pair: &Pair<'_>, options: &PlotOptions, notes: &mut Notes) -> Result<PathBuf> {
    let req = match pair {
        Pair::Given(req) => (**req).clone(),
        Pair::Saved { state_dir, adjust } => {
            let (saved, path) = crate::output::state::load(state_dir)?;
            notes.info(format!("using the pair saved in {}", path.display()));
            let mut req: CompareRequest = saved.request;
            // The overview keys nothing by attributes.
            req.group_by.clear();
            req.arg_specs.clear();
            adjust(req)?
        }
    };
    let path = options
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("tracediff-breakdown.png"));
    let format = ImageFormat::from_path(&path)?;
    let (overview, found) = overview_request(&req)?;
    notes.caveats(found);
    let waterfall = Waterfall::of(&overview, options.size)?;
    let bytes = draw_waterfall(&waterfall, format)?;
    crate::atomic::write_atomically(&path, |w| w.write_all(&bytes))?;
    Ok(path)
}

/// Where a chart goes: `-o FILE` as given for one chart, `FILE-<metric>.EXT` for both, and
/// `tracediff-<metric>.png` without `-o`.
fn plot_path(output: Option<&Path>, metric: &str, both: bool) -> PathBuf {
    match output {
        None => PathBuf::from(format!("tracediff-{metric}.png")),
        Some(p) if !both => p.to_path_buf(),
        Some(p) => {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let ext = p
                .extension()
                .map(|e| e.to_string_lossy().into_owned())
                .unwrap_or_else(|| "png".into());
            p.with_file_name(format!("{stem}-{metric}.{ext}"))
        }
    }
}
