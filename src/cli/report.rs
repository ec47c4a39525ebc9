//! `tracediff report` (docs/semantics.md#report) and `compare --report`: one self-contained HTML page.

use super::views::{PairArgs, load_view};
use super::{Env, SelectArgs, print_notes};
use crate::analysis::compare::CompareRequest;
use crate::analysis::loaded::load;
use crate::analysis::report::{ReportLimits, report};
use crate::error::{Error, Result};
use crate::output::render::report::render;
use clap::Args;
use std::path::{Path, PathBuf};

pub const REPORT_HELP: &str = "\
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
pub struct ReportTableArgs {
    /// Embed operator and kernel tables for the module nodes down to N levels below the step.
    #[arg(long, value_name = "N", default_value_t = ReportLimits::default().depth)]
    pub table_depth: usize,
    /// Rows per embedded table: the N of largest |Δ|.
    #[arg(long, value_name = "N", default_value_t = ReportLimits::default().rows)]
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
pub struct ReportArgs {
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
}

pub fn run_report(args: ReportArgs, env: &mut Env<'_>) -> Result<i32> {
    check_html(&args.output)?;
    let (mut req, loaded) = load_view(&args.pair, &args.select, "report", env)?;
    req.beyond_shift = !args.no_run_shift;
    req.kernel_classes = args.kernel_classes.clone();
    let r = report(&req, &loaded, args.tables.limits())?;
    print_notes(&loaded.overlap_notes(&req.labels), env);
    print_notes(&r.overview.notes(), env);
    print_notes(&r.shift_note().into_iter().collect::<Vec<_>>(), env);
    write_page(&args.output, &render(&r), env)
}

/// `compare … --report FILE`: the same page for the request `compare` ran.
pub fn compare_report(req: &CompareRequest, path: &Path, env: &mut Env<'_>) -> Result<i32> {
    let loaded = load(req, "compare --report")?;
    let r = report(req, &loaded, ReportLimits::default())?;
    write_page(path, &render(&r), env)
}

/// Refuses an output name that is not .html/.htm before any work is done.
pub fn check_html(path: &Path) -> Result<()> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("html" | "htm") => Ok(()),
        _ => Err(Error::usage(format!(
            "{}: the report is an HTML page; name it .html",
            path.display()
        ))),
    }
}

fn write_page(path: &Path, page: &str, env: &mut Env<'_>) -> Result<i32> {
    crate::output::atomic::write_atomically(path, |w| w.write_all(page.as_bytes()))?;
    let _ = writeln!(
        env.stderr,
        "tracediff: wrote {} ({} KiB)",
        path.display(),
        crate::text::fmt_count(page.len().div_ceil(1024))
    );
    Ok(0)
}
