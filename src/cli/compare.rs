//! `compare` and `ops-diff`: their options and runners, and the saved comparison `ops-diff` and `plot` fall back on.

use super::sides::GivenRuns;
use super::{
    Env, Labels, OutputArgs, SelectArgs, check_output, check_specs_used, emit, finish, fresh_request, parse_labels,
    report, request_from, with_labels,
};
use crate::analysis::diff::{Category, Comparison, SortKey};
use crate::commands::{self, CompareOptions, Pair};
use crate::error::Result;
use crate::output::render::compare::CompareView;
use crate::output::render::ops_diff::OpsDiffView;
use crate::output::state;
use crate::request::CompareRequest;
use crate::request::side::SidePaths;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

pub(crate) const COMPARE_HELP: &str = "\
CONTROL and TEST are each a directory of trace files (not recursive) or one trace file:
Kineto or rocprofv3 *.json, *.json.gz; Nsight *.sqlite. Summaries (`tracediff summarize`,
*.parquet) may stand in for traces, with the same output.
Durations are in microseconds in csv and json. The comparison is saved in .tracediff/ (or
$TRACEDIFF_STATE_DIR) for `tracediff ops-diff` without paths; --no-save skips that.";

pub(crate) const OPS_DIFF_HELP: &str = "\
Without CONTROL and TEST, uses the comparison that the last `tracediff compare` saved; selection
options given here replace the saved ones (and reload the saved paths when they change the rows).";

#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// The baseline: a directory of traces or one trace file (or their summaries), or a
    /// directory of runs.
    #[arg(required_unless_present = "control_run")]
    pub control: Option<PathBuf>,
    /// The run (or directory of runs) to compare against it.
    #[arg(required_unless_present_any = ["control_run", "test_run"])]
    pub test: Option<PathBuf>,
    #[command(flatten)]
    pub runs: GivenRuns,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Names of the two sides in headers and CSV columns [default: control,test].
    #[arg(long, value_name = "CONTROL,TEST", value_parser = parse_labels, help_heading = "Output")]
    pub labels: Option<Labels>,
    #[command(flatten)]
    pub fit: super::fit::FitArgs,
    /// Keep only the rows whose change is significant: beyond run-to-run noise and 1% of the mean
    /// step time (needs at least 3 selected steps per side, e.g. --iteration all).
    #[arg(long, help_heading = "Output")]
    pub only_significant: bool,
    /// Judge significance against no change even when the whole run moved by one factor (a
    /// slower or faster machine: see run_shift); by default rows are judged beyond that shift.
    #[arg(long, help_heading = "Output")]
    pub no_run_shift: bool,
    /// Rows as sums over the selected steps and runs; by default they are per step (each side's
    /// mean per step, averaged per run, then over runs) wherever more than one step or run is used.
    #[arg(long, help_heading = "Output")]
    pub totals: bool,
    /// Why each row changed: calls ×, work ×, efficiency ×, and the row's Δ split into calls,
    /// work and efficiency parts (they sum to it), with the shapes, element types and kernels
    /// that changed (docs/cost-model.md#the-why-columns); reads the traces again, with shapes.
    #[arg(long, help_heading = "Output")]
    pub why: bool,
    /// Do not save this comparison for later `ops-diff` runs.
    #[arg(long)]
    pub no_save: bool,
    /// Also write the HTML report of this pair (as `tracediff report`) to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub report: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct OpsDiffArgs {
    /// The baseline (default: the saved comparison's).
    pub control: Option<PathBuf>,
    /// The run to compare against it.
    pub test: Option<PathBuf>,
    #[command(flatten)]
    pub runs: GivenRuns,
    /// Which list to print.
    #[arg(long, value_enum, default_value_t = CategoryArg::All)]
    pub category: CategoryArg,
    /// Counts as sums over the selected steps and runs; by default they are per step wherever
    /// more than one step or run is used (a saved comparison keeps its own choice).
    #[arg(long, help_heading = "Output")]
    pub totals: bool,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub fit: super::fit::FitArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CategoryArg {
    /// Only in test.
    Added,
    /// Only in control.
    Deleted,
    /// In both, more often in test.
    Increased,
    /// In both, less often in test.
    Decreased,
    /// In both, as often.
    Unchanged,
    /// Every list.
    All,
}

impl CategoryArg {
    fn categories(self) -> Vec<Category> {
        match self {
            CategoryArg::Added => vec![Category::Added],
            CategoryArg::Deleted => vec![Category::Deleted],
            CategoryArg::Increased => vec![Category::Increased],
            CategoryArg::Decreased => vec![Category::Decreased],
            CategoryArg::Unchanged => vec![Category::Unchanged],
            CategoryArg::All => Category::ALL.to_vec(),
        }
    }
}

pub(super) fn run_compare(args: CompareArgs, env: &mut Env<'_>) -> Result<i32> {
    check_output(&args.output)?;
    let [control, test] = args.runs.pair([args.control.as_ref(), args.test.as_ref()])?;
    let mut req = with_labels(fresh_request(&args.select, control, test), args.labels.as_ref());
    req.beyond_shift = !args.no_run_shift;
    req.totals = args.totals;
    super::every_step_by_default(&mut req, &args.select);
    check_specs_used(&args.select, &req)?;
    if let Some(path) = &args.report {
        commands::check_html(path)?;
    }
    let options = CompareOptions {
        only_significant: args.only_significant,
        why: args.why,
    };
    let comparison = finish(commands::compare(&req, &options), env)?;
    let view = CompareView::new(&comparison, args.output.sort.unwrap_or_default(), args.output.top)
        .hta_columns(args.select.hta);
    emit(&args.output, false, env, |format, style, out| {
        crate::output::render::compare::render(&view, format, style, out)
    })?;
    if !args.no_save {
        // Saving is a side effect: when it fails, the result stands and a warning says how to fix it.
        let mut saved_req = req.clone();
        saved_req.control = req.control.map(absolute);
        saved_req.test = req.test.map(absolute);
        if let Err(e) = state::save(&env.state_dir, &saved_req, &comparison) {
            let _ = writeln!(
                env.stderr,
                "tracediff: warning: this comparison was not saved for `ops-diff` and `plot` without paths ({e}); \
                 pass --no-save, or set {} to a writable directory",
                state::STATE_DIR_ENV
            );
        }
    }
    if let Some(path) = &args.report {
        report::compare_report(&req, path, env)?;
    }
    Ok(0)
}

pub(super) fn run_ops_diff(args: OpsDiffArgs, env: &mut Env<'_>) -> Result<i32> {
    check_output(&args.output)?;
    let pair = given_pair(&args.runs, [args.control.as_ref(), args.test.as_ref()])?;
    let comparison = comparison_for(pair, &args.select, args.totals, env)?;
    let view = OpsDiffView::new(
        &comparison,
        &args.category.categories(),
        // All of each list by name, as HTA's ops_diff; the top N by the size of the change.
        args.output.sort.unwrap_or(if args.output.top.is_some() {
            SortKey::AbsDiffDuration
        } else {
            SortKey::Name
        }),
        args.output.top,
    );
    emit(&args.output, false, env, |format, style, out| {
        crate::output::render::ops_diff::render(&view, format, style.name_width(), out)
    })
}

/// The comparison of CONTROL and TEST when both are given, else the saved one.
pub(super) fn comparison_for(
    sides: Option<[SidePaths; 2]>,
    select: &SelectArgs,
    totals: bool,
    env: &mut Env<'_>,
) -> Result<Comparison> {
    let given = PairArgs {
        select,
        labels: None,
        totals,
    };
    with_pair(sides, &given, env, |pair, env| finish(commands::ops_diff(pair), env))
}

/// What the options of `ops-diff` and `plot` say about the pair besides its paths.
pub(super) struct PairArgs<'a> {
    /// The selection.
    pub select: &'a SelectArgs,
    /// `--labels`.
    pub labels: Option<&'a Labels>,
    /// `--totals`: sums (else the request's own choice: per step for a fresh pair).
    pub totals: bool,
}

/// Runs `work` on the pair the options name: CONTROL and TEST when both are given (every step
/// unless told), else the saved comparison's with the options given applied.
pub(super) fn with_pair<T>(
    sides: Option<[SidePaths; 2]>,
    given: &PairArgs<'_>,
    env: &mut Env<'_>,
    work: impl FnOnce(&Pair<'_>, &mut Env<'_>) -> Result<T>,
) -> Result<T> {
    let (select, labels) = (given.select, given.labels);
    match sides {
        Some([c, t]) => {
            let mut req = with_labels(fresh_request(select, c, t), labels);
            super::every_step_by_default(&mut req, select);
            req.totals |= given.totals;
            check_specs_used(select, &req)?;
            work(&Pair::Given(Box::new(req)), env)
        }
        None => {
            let adjust = |saved: CompareRequest| -> Result<CompareRequest> {
                let mut req = with_labels(request_from(select, saved), labels);
                req.totals |= given.totals;
                check_specs_used(select, &req)?;
                Ok(req)
            };
            let state_dir = env.state_dir.clone();
            let pair = Pair::Saved {
                state_dir: &state_dir,
                adjust: &adjust,
            };
            work(&pair, env)
        }
    }
}

/// The pair of a command that falls back on the saved comparison: both sides when given (as
/// paths or runs), `None` when neither is; one side alone is refused.
pub(super) fn given_pair(runs: &GivenRuns, paths: [Option<&PathBuf>; 2]) -> Result<Option<[SidePaths; 2]>> {
    match runs.sides(paths)? {
        [None, None] => Ok(None),
        sides => super::sides::both(sides, super::sides::PAIR).map(Some),
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}
