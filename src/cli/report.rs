//! `tracediff report` (docs/semantics.md#report) and `compare --report`: one self-contained HTML page.

use super::views::{PairArgs, view_request};
use super::{Env, SelectArgs, finish};
use crate::analysis::report::ReportLimits;
use crate::commands::{self, Outcome};
use crate::error::Result;
use crate::request::CompareRequest;
use clap::Args;
use std::path::{Path, PathBuf};

pub(crate) const REPORT_HELP: &str = "\
Writes one HTML file that opens from disk in any current browser, with no network: the data is
embedded as JSON, the script and styles are inline. It shows what was compared and the overview
(tracediff overview); the execution comparison of a module node (tracediff modules): a bar pair
per child, host or device time, the cumulative line of each side, and beneath it each child's
difference and their running sum; click a bar to zoom into that child, and Back, the breadcrumb
or the browser's back button to zoom out. The operator and kernel tables (tracediff operators /
kernels --zoom PATH) follow the node: sortable by every column, with a filter box and a time
toggle; so does the kernel class table (kernels --by-class), and the kernel sequences aligned by
class (kernels --aligned) follow beneath. Then HTA's counts and duration charts (tracediff plot), the differential flame graph of
host time (tracediff flamegraph; a still picture here) and the ops-diff categories.
Tables are embedded for the nodes down to --table-depth levels below the step, each cut to its
--table-rows rows of largest |Δ| (device total time where there are device events, else host
total); deeper nodes show their nearest ancestor's tables, and the page says so.";

/// The size limits of the embedded tables.
#[derive(Debug, Args, Clone)]
#[command(next_help_heading = "Report")]
pub(crate) struct ReportTableArgs {
    /// Embed operator and kernel tables for the module nodes down to N levels below the step.
    #[arg(long, value_name = "N", default_value_t = ReportLimits::default().depth, value_parser = super::numbers::count)]
    pub table_depth: usize,
    /// Rows per embedded table: the N of largest |Δ|.
    #[arg(long, value_name = "N", default_value_t = ReportLimits::default().rows, value_parser = super::numbers::count)]
    pub table_rows: usize,
}

impl ReportTableArgs {
    fn limits(&self) -> ReportLimits {
        ReportLimits {
            depth: self.table_depth,
            rows: self.table_rows,
        }
    }
}

impl Default for ReportTableArgs {
    fn default() -> Self {
        let d = ReportLimits::default();
        ReportTableArgs {
            table_depth: d.depth,
            table_rows: d.rows,
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    #[command(flatten)]
    pub pair: PairArgs,
    /// The HTML file to write.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    #[command(flatten)]
    pub tables: ReportTableArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Judge the module marks (*) against no change even when the whole run moved by one factor
    /// (a slower or faster machine); by default nodes are judged beyond that shift.
    #[arg(long, help_heading = "Report")]
    pub no_run_shift: bool,
    /// Kernel-class patterns (TOML) tried before the built-in rules, for the class tables, the
    /// aligned sequences and the flame graph (docs/kernel-classes.md).
    #[arg(long, value_name = "FILE", help_heading = "Report")]
    pub kernel_classes: Option<PathBuf>,
    /// A history store (tracediff history): the page shows its series over the runs, their
    /// change points and bands, as `history show --top 5` (docs/history.md).
    #[arg(long, value_name = "STORE", help_heading = "Report")]
    pub history: Option<PathBuf>,
}

pub(crate) fn run_report(args: ReportArgs, env: &mut Env<'_>) -> Result<i32> {
    commands::check_html(&args.output)?;
    let mut req = view_request(&args.pair, &args.select)?;
    super::every_step_by_default(&mut req, &args.select);
    req.beyond_shift = !args.no_run_shift;
    req.kernel_classes = args.kernel_classes.clone();
    // The history first: a store that cannot be read stops the command before the pair is read.
    let history = match &args.history {
        Some(store) => {
            let show = commands::ShowRequest {
                store: store.clone(),
                top: 5,
                name: None,
                branch: None,
            };
            Some(finish(commands::history_show(&show), env)?)
        }
        None => None,
    };
    let r = finish(
        commands::report(
            &req,
            &commands::ReportOptions {
                limits: args.tables.limits(),
            },
        ),
        env,
    )?;
    let wrote = match &history {
        Some(view) => commands::write_report_with_history(&r, view, &args.output)?,
        None => commands::write_report(&r, &args.output)?,
    };
    finish(
        Ok(Outcome {
            value: 0,
            notes: vec![wrote],
        }),
        env,
    )
}

/// `compare … --report FILE`: the same page for the request `compare` ran (its notes were
/// printed with the comparison's).
pub(crate) fn compare_report(req: &CompareRequest, path: &Path, env: &mut Env<'_>) -> Result<i32> {
    let r = commands::report_for(req, ReportLimits::default(), "compare --report").map_err(|f| f.error)?;
    let wrote = commands::write_report(&r.value, path)?;
    finish(
        Ok(Outcome {
            value: 0,
            notes: vec![wrote],
        }),
        env,
    )
}
