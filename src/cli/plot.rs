//! `plot`: HTA's two bar charts of a comparison, as SVG or PNG.

use super::compare::comparison_for;
use super::{Env, Labels, SelectArgs, parse_labels, print_notes, request_from, with_labels};
use crate::analysis::compare::CompareRequest;
use crate::analysis::diff::SortKey;
use crate::analysis::views::overview::overview_request;
use crate::error::{Error, Result};
use crate::output::render::plot::{ImageFormat, Metric, chart_of, draw};
use crate::output::render::waterfall::{Waterfall, draw_waterfall};
use clap::Args;
use std::path::{Path, PathBuf};

pub const PLOT_HELP: &str = "\
Without CONTROL and TEST, plots the comparison that the last `tracediff compare` saved (selection
options given here replace the saved ones). The image type follows the file name (.png or .svg).
With --metric both (the default) and -o FILE, the two charts go to FILE-counts.EXT and
FILE-duration.EXT; without -o, to tracediff-counts.png and tracediff-duration.png. The paths
written are printed. Each chart numbers its groups and lists the full names under the plot; SVG
charts also carry the full name and values as a tooltip on each group. --metric breakdown draws
the waterfall of the mean step time (as `tracediff overview`: every step unless --iteration
names some): control step, the change of compute, exposed communication, exposed memory copies
and GPU idle, test step (docs/breakdown.md).";

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// The baseline (default: the saved comparison's).
    #[arg(requires = "test")]
    pub control: Option<PathBuf>,
    /// The run to compare against it.
    pub test: Option<PathBuf>,
    /// Which chart.
    #[arg(long, value_enum, default_value_t = Metric::Both)]
    pub metric: Metric,
    /// Number of rows (groups of bars) per chart.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
    /// Which rows come first [default: abs-diff-counts for the counts chart, abs-diff-duration
    /// for the duration chart: the largest changes either way].
    #[arg(long, value_enum, value_name = "KEY")]
    pub sort: Option<SortKey>,
    /// Only rows that grew (more calls or time in test), largest first.
    #[arg(long, conflicts_with = "decreases")]
    pub increases: bool,
    /// Only rows that shrank, largest first.
    #[arg(long)]
    pub decreases: bool,
    /// The image file (.png or .svg).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Width in pixels (400 to 8192; each row needs 30).
    #[arg(long, default_value_t = 1600)]
    pub width: u32,
    /// Height in pixels (300 to 8192; the key under the plot needs 22 per two rows).
    #[arg(long, default_value_t = 900)]
    pub height: u32,
    /// Names of the two sides in the legend and title [default: control,test].
    #[arg(long, value_name = "CONTROL,TEST", value_parser = parse_labels, help_heading = "Output")]
    pub labels: Option<Labels>,
    #[command(flatten)]
    pub select: SelectArgs,
}

pub(super) fn run_plot(args: PlotArgs, env: &mut Env<'_>) -> Result<i32> {
    crate::output::render::plot::check_size(args.width, args.height)?;
    if args.metric == Metric::Breakdown {
        return run_waterfall(&args, env);
    }
    // Usage is checked before the traces are read: a wrong -o or --top must not wait for a
    // 1 GB trace to load first.
    if args.top == 0 {
        return Err(Error::usage("--top must be at least 1"));
    }
    let charts: Vec<(bool, &str)> = match args.metric {
        Metric::Counts => vec![(false, "counts")],
        Metric::Duration => vec![(true, "duration")],
        Metric::Both => vec![(false, "counts"), (true, "duration")],
        Metric::Breakdown => vec![],
    };
    // The name the user gave, not the FILE-counts.EXT it becomes, is what the error names.
    if let Some(output) = &args.output {
        ImageFormat::from_path(output)?;
    }
    let mut planned = Vec::new();
    for (duration, name) in charts {
        let path = plot_path(args.output.as_deref(), name, args.metric == Metric::Both);
        let format = ImageFormat::from_path(&path)?;
        planned.push((duration, path, format));
    }
    let comparison = comparison_for(
        args.control.as_deref(),
        args.test.as_deref(),
        &args.select,
        args.labels.as_ref(),
        env,
    )?;
    // Both charts are drawn, then written as one unit: both or neither.
    let mut drawn = Vec::with_capacity(planned.len());
    for (duration, path, format) in planned {
        let one_way = one_direction(&comparison, duration, (args.increases, args.decreases));
        let (shown, sort) = match &one_way {
            Some(c) if args.increases => (
                c,
                args.sort.or(Some(if duration {
                    SortKey::DiffDuration
                } else {
                    SortKey::DiffCounts
                })),
            ),
            Some(c) => (c, args.sort),
            None => (&comparison, args.sort),
        };
        let chart = chart_of(shown, duration, sort, args.top, (args.width, args.height))?;
        drawn.push((path, draw(&chart, format)?));
    }
    let files: Vec<(&Path, &[u8])> = drawn.iter().map(|(p, b)| (p.as_path(), b.as_slice())).collect();
    crate::output::atomic::write_all_atomically(&files)?;
    for (path, _) in &drawn {
        let _ = writeln!(env.stdout, "{}", path.display());
    }
    Ok(0)
}

/// The rows of `comparison` that moved one way in the chart's measure (`(increases,
/// decreases)`), or `None` for both ways.
fn one_direction(
    comparison: &crate::analysis::diff::Comparison,
    duration: bool,
    (increases, decreases): (bool, bool),
) -> Option<crate::analysis::diff::Comparison> {
    if !increases && !decreases {
        return None;
    }
    let change = |r: &crate::analysis::diff::Row| -> f64 {
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

/// `plot --metric breakdown`: the overview of the pair (given, or the saved comparison's) as a
/// waterfall.
fn run_waterfall(args: &PlotArgs, env: &mut Env<'_>) -> Result<i32> {
    let base = match (&args.control, &args.test) {
        (Some(c), Some(t)) => CompareRequest::new(c, t),
        _ => {
            let (saved, path) = crate::output::state::load(&env.state_dir)?;
            let _ = writeln!(env.stderr, "tracediff: using the pair saved in {}", path.display());
            let mut req = saved.request;
            // The overview keys nothing by attributes.
            req.group_by.clear();
            req.arg_specs.clear();
            req
        }
    };
    let req = with_labels(request_from(&args.select, base), args.labels.as_ref());
    let path = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("tracediff-breakdown.png"));
    let format = ImageFormat::from_path(&path)?;
    let (overview, notes) = overview_request(&req)?;
    print_notes(&notes, env);
    let waterfall = Waterfall::of(&overview, (args.width, args.height))?;
    let bytes = draw_waterfall(&waterfall, format)?;
    crate::output::atomic::write_atomically(&path, |w| w.write_all(&bytes))?;
    let _ = writeln!(env.stdout, "{}", path.display());
    Ok(0)
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
