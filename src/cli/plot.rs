//! `plot`: HTA's two bar charts of a comparison, as SVG or PNG.

use super::compare::{PairArgs, with_pair};
use super::sides::GivenRuns;
use super::{Env, Labels, SelectArgs, finish, parse_labels, request_from, with_labels};
use crate::analysis::diff::SortKey;
use crate::commands::{Pair, PlotOptions, plot};
use crate::error::Result;
use crate::output::render::plot::Metric;
use crate::request::CompareRequest;
use crate::request::side::SidePaths;
use clap::Args;
use std::path::PathBuf;

pub(crate) const PLOT_HELP: &str = "\
Without CONTROL and TEST, plots the comparison that the last `tracediff compare` saved (selection
options given here replace the saved ones). The image type follows the file name (.png or .svg).
With --metric both (the default) and -o FILE, the two charts go to FILE-counts.EXT and
FILE-duration.EXT; without -o, to tracediff-counts.png and tracediff-duration.png. The paths
written are printed. Each row's name is on the axis beside its three horizontal bars (control, test,
their difference), cut to fit; SVG charts also carry the full name and values as a tooltip on each
row. Host rows (operators, annotations) and device rows (kernels, copies) are drawn in panels of
their own, each with its own axis; a row whose change is beyond run-to-run noise is marked `*`.
By default the step rows and the runtime API calls are left out (the --exclude default below). --metric breakdown draws
the waterfall of the mean step time (as `tracediff overview`: every step unless --iteration
names some): control step, the change of compute, exposed communication, exposed memory copies
and GPU idle, test step (docs/breakdown.md).";

#[derive(Debug, Args)]
pub(crate) struct PlotArgs {
    /// The baseline (default: the saved comparison's).
    pub control: Option<PathBuf>,
    /// The run to compare against it.
    pub test: Option<PathBuf>,
    #[command(flatten)]
    pub runs: GivenRuns,
    /// Which chart.
    #[arg(long, value_enum, default_value_t = Metric::Both)]
    pub metric: Metric,
    /// Number of rows (groups of bars) per chart.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = super::numbers::count)]
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
    #[arg(long, default_value_t = 1600, value_parser = super::numbers::pixels)]
    pub width: u32,
    /// Height in pixels (300 to 8192; the key under the plot needs 22 per two rows).
    #[arg(long, default_value_t = 900, value_parser = super::numbers::pixels)]
    pub height: u32,
    /// Bars of sums over the selected steps and runs; by default they are per step wherever more
    /// than one step or run is used (a saved comparison keeps its own choice).
    #[arg(long, help_heading = "Output")]
    pub totals: bool,
    /// Names of the two sides in the legend and title [default: control,test].
    #[arg(long, value_name = "CONTROL,TEST", value_parser = parse_labels, help_heading = "Output")]
    pub labels: Option<Labels>,
    /// Keep every row: no --exclude, not even its default (the step rows and the runtime API
    /// calls).
    #[arg(long, conflicts_with = "exclude")]
    pub all_rows: bool,
    #[command(flatten)]
    pub select: SelectArgs,
}

pub(super) fn run_plot(mut args: PlotArgs, env: &mut Env<'_>) -> Result<i32> {
    if args.all_rows {
        args.select.exclude.clear();
    }
    let options = PlotOptions {
        metric: args.metric,
        top: args.top,
        sort: args.sort,
        increases: args.increases,
        decreases: args.decreases,
        output: args.output.clone(),
        size: (args.width, args.height),
    };
    let sides = super::compare::given_pair(&args.runs, [args.control.as_ref(), args.test.as_ref()])?;
    let written = if args.metric == Metric::Breakdown {
        if args.totals {
            return Err(crate::error::Error::usage(
                "--totals applies to the counts and duration charts; the breakdown is of the mean step time",
            ));
        }
        // The overview keys rows by nothing: the request is the pair's as given, selection only.
        let given = |c: SidePaths, t: SidePaths| {
            with_labels(
                request_from(&args.select, CompareRequest::new(c, t)),
                args.labels.as_ref(),
            )
        };
        let adjust = |saved: CompareRequest| Ok(with_labels(request_from(&args.select, saved), args.labels.as_ref()));
        let state_dir = env.state_dir.clone();
        let pair = match sides {
            Some([c, t]) => Pair::Given(Box::new(given(c, t))),
            None => Pair::Saved {
                state_dir: &state_dir,
                adjust: &adjust,
            },
        };
        finish(plot(&pair, &options), env)?
    } else {
        let given = PairArgs {
            select: &args.select,
            labels: args.labels.as_ref(),
            totals: args.totals,
        };
        with_pair(sides, &given, env, |pair, env| finish(plot(pair, &options), env))?
    };
    for path in &written {
        let _ = writeln!(env.stdout, "{}", path.display());
    }
    Ok(0)
}
