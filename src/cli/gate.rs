//! `gate`: rules over two sets of runs, for CI.

use super::{Env, OutputArgs, check_output, emit, finish};
use crate::analysis::gate::{GateConfig, Verdict};
use crate::analysis::select::{Device, Pick, SideSelection};
use crate::error::{Error, Result};
use crate::output::render::Format;
use clap::Args;
use std::path::PathBuf;

pub(crate) const GATE_HELP: &str = "\
Every ProfilerStep of the lowest rank of each side is measured by default, as every command reads
(--rank all: every rank, one sample per rank and step), so runs with different step counts
compare fairly. A timing rule fails only when the change
of the per-step medians exceeds its threshold AND the noise band: k x the pooled scaled MAD
(median absolute deviation x 1.4826) of the logarithms of both sides' samples, never wider than
the larger side's whole range; with one sample per side the threshold alone decides. The per-op
rules judge operators, kernels, copies, sets and annotations (never Python frames, runtime calls
or ProfilerStep): on traces with device events on both sides, the device's work only (host time
of operators scatters between processes; --device all judges it too). They skip by time and count
rows under --min-op-share of the baseline's mean step time (1%) unless
--fail-on-added/--fail-on-deleted name them. Names are normalised (--raw-names keeps them).
With one run per side the timing rules are judged beyond a run-wide shift of the host where one
is found, else beyond the common move of the pair's rows and their scatter (held within x2: a
larger move is the program's), as `compare` judges its rows; --no-run-shift judges them against
no change. One run per side cannot tell a rerun's noise from a change: the gate says so; --history
(the runs of earlier commits) or runs per side can. Sides that are directories of runs (run1/ …
runN/) are judged between runs instead (Welch's t at 5% on the runs' per-step means). A rule with
nothing to judge (no device events for device = gpu, steps with no duration) is 'not judged',
never a pass; a gate that judges no rule at all is refused. A side that lacks ranks of its job
(its world size, or a rank the other side holds) is refused. Rules can also come from a TOML file
(`[gate]` table, keys as the long options with underscores); options given here override it.
Percentages need their % sign (5% is five percent; a bare 5 or 0.05 is refused, in the file too)
and durations their unit (200us). Exit status: 0 every rule judged passes, 1 a rule failed, 2 bad
input or configuration, or nothing to judge.";

#[derive(Debug, Args)]
pub(crate) struct GateArgs {
    /// The reference run: a directory of traces or one trace file (or their summaries), or a
    /// directory of runs.
    #[arg(required_unless_present_any = ["baseline_run", "history"])]
    pub baseline: Option<PathBuf>,
    /// The run (or directory of runs) under test.
    #[arg(required_unless_present_any = ["baseline_run", "candidate_run", "history"])]
    pub candidate: Option<PathBuf>,
    #[command(flatten)]
    pub history: super::history::GateHistoryArgs,
    /// One run of the baseline, in place of BASELINE (repeat it for a side of several runs, in
    /// the order given).
    #[arg(long, value_name = "RUN", help_heading = "Sides")]
    pub baseline_run: Vec<PathBuf>,
    /// One run of the candidate, in place of CANDIDATE (repeatable, as --baseline-run).
    #[arg(long, value_name = "RUN", help_heading = "Sides")]
    pub candidate_run: Vec<PathBuf>,
    /// Fail when the median step time grows by more than this percentage (5% = five percent;
    /// the % sign is required, a bare number is refused).
    #[arg(long, value_name = "PCT")]
    pub max_step_time_regression: Option<String>,
    /// Fail when an op's or kernel's median time per step grows by more than this percentage
    /// (e.g. 10%; the % sign is required).
    #[arg(long, value_name = "PCT")]
    pub max_op_regression: Option<String>,
    /// Ignore op changes smaller than this per step: a duration with its unit (500ns, 200us,
    /// 1.5ms, 2s; a bare number is refused) [default: 0ns].
    #[arg(long, value_name = "DURATION")]
    pub min_op_time: Option<String>,
    /// Do not judge ops or kernels by time or count whose time per step stays under this share of
    /// the baseline's mean step time on both sides [default: 1%]; 0% judges every row.
    #[arg(long, value_name = "PCT")]
    pub min_op_share: Option<String>,
    /// Fail when a name that only the candidate has matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub fail_on_added: Option<String>,
    /// Fail when a name that only the baseline has matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub fail_on_deleted: Option<String>,
    /// Fail when an op runs more often per step by more than this: a number of events (4) or a
    /// percentage of the baseline's count (10%).
    #[arg(long, value_name = "N|PCT")]
    pub max_count_increase: Option<String>,
    /// Fail when the GPU busy time per step (union of kernels, memcpy, memset) grows by more than
    /// this percentage (e.g. 5%; the % sign is required).
    #[arg(long, value_name = "PCT")]
    pub max_gpu_busy_regression: Option<String>,
    /// Noise multiplier k: a timing change must exceed k x the pooled scaled MAD [default: 3].
    #[arg(long, value_name = "K", value_parser = super::numbers::factor)]
    pub noise_k: Option<f64>,
    /// Judge each op by its share of step time, so a uniformly slower machine fails the
    /// step-time rule (if set) but not every op rule.
    #[arg(long)]
    pub relative: bool,
    /// Judge the timing rules beyond a run-wide shift where one is found (the default: most of
    /// the run's host time moved by one factor, as on a slower or busier machine): the
    /// baseline's host times are scaled by its factor first, so a rule fails only for what
    /// moved more than the whole run did. The shift is looked for only where the rows run as
    /// often on both sides, so a program's change is still judged against no change. With one
    /// run per side and no such shift, the step time and each host op are judged beyond the
    /// common move of the pair's rows (held within x2) and their scatter, as `compare` judges
    /// its rows. Device time is judged against no change.
    #[arg(long, overrides_with = "no_run_shift")]
    pub beyond_run_shift: bool,
    /// Judge the timing rules against no change even where a run-wide shift is found
    /// (overrides `beyond_run_shift` in a config file).
    #[arg(long, overrides_with = "beyond_run_shift")]
    pub no_run_shift: bool,
    /// Judge a side that lacks some of its job's ranks (its files' distributedInfo.world_size
    /// says more than it holds); without it such a side is refused (exit 2).
    #[arg(long)]
    pub allow_missing_ranks: bool,
    /// Read rules from this TOML file (see examples/tracediff-gate.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[arg(long, value_name = "RANKS", help = crate::request::defaults::rank_help("both sides"))]
    pub rank: Option<Pick>,
    #[arg(long, value_name = "STEPS", help = crate::request::defaults::iteration_help("both sides"))]
    pub iteration: Option<Pick>,
    /// Events that count for the op and count rules [default: gpu where both sides have device
    /// events (host time of ops scatters between processes), else all].
    #[arg(long, value_enum)]
    pub device: Option<Device>,
    /// Group ops by HTA's short names.
    #[arg(long)]
    pub short_names: bool,
    /// Rewrite run-specific noise (addresses, step numbers, hex ids) out of names first (the
    /// default; the flag is still accepted).
    #[arg(long, overrides_with = "raw_names")]
    pub normalize_names: bool,
    /// Keep names as recorded (no normalising).
    #[arg(long, overrides_with = "normalize_names")]
    pub raw_names: bool,
    /// Report format [default: table].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub fit: super::fit::FitArgs,
    /// Refused with a reason: the gate never judges Python frames (docs/significance.md).
    #[arg(long, hide = true)]
    pub python_frames: bool,
    /// Refused with a reason: HTA has no gate to be exact to (docs/significance.md).
    #[arg(long, hide = true)]
    pub hta: bool,
    /// Write the report to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write the report as JUnit XML to FILE (a test case per rule and per op checked, a
    /// failure for each that failed), for CI's test reports.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub junit: Option<PathBuf>,
}

pub(super) fn run_gate(args: GateArgs, env: &mut Env<'_>) -> Result<i32> {
    // Frames nest (the same time counted at every level) and their names carry addresses: a
    // rule over them fails on noise. The gate judges operations only (docs/significance.md).
    if args.python_frames || args.hta {
        return Err(Error::usage(format!(
            "{}: the gate judges operations (operators, kernels, copies, sets, annotations), never Python frames; \
             see docs/significance.md#the-gates-rules",
            if args.hta { "--hta" } else { "--python-frames" }
        )));
    }
    let output = OutputArgs {
        format: args.format,
        output: args.output.clone(),
        top: None,
        sort: None,
    };
    check_output(&output)?;
    let from_file = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::input(path, format!("cannot read: {}", crate::error::io_reason(&e))))?;
            GateConfig::from_toml(&text, path)?
        }
        None => GateConfig::default(),
    };
    let from_cli = GateConfig {
        max_step_time_regression: args.max_step_time_regression.clone(),
        max_op_regression: args.max_op_regression.clone(),
        min_op_time: args.min_op_time.clone(),
        min_op_share: args.min_op_share.clone(),
        fail_on_added: args.fail_on_added.clone(),
        fail_on_deleted: args.fail_on_deleted.clone(),
        max_count_increase: args.max_count_increase.clone(),
        max_gpu_busy_regression: args.max_gpu_busy_regression.clone(),
        noise_k: args.noise_k,
        relative: args.relative.then_some(true),
        device: args.device,
        normalize_names: if args.raw_names {
            Some(false)
        } else {
            args.normalize_names.then_some(true)
        },
        short_names: args.short_names.then_some(true),
        beyond_run_shift: if args.no_run_shift {
            Some(false)
        } else {
            args.beyond_run_shift.then_some(true)
        },
        allow_missing_ranks: args.allow_missing_ranks.then_some(true),
    };
    let config = from_file.overridden_by(from_cli);
    let sel = SideSelection {
        ranks: args.rank.clone().unwrap_or(crate::request::defaults::DEFAULT_RANKS),
        iterations: args
            .iteration
            .clone()
            .unwrap_or(crate::request::defaults::DEFAULT_STEPS),
    };
    if let Some(store) = &args.history.history {
        let report = args.history.run(
            store,
            [args.baseline.as_ref(), args.candidate.as_ref()],
            (&config, &sel),
            env,
        )?;
        return gate_output(&output, (false, args.junit.as_deref()), &report, env);
    }
    use super::sides::{GATE, both, sides};
    let given = sides(
        [args.baseline.as_ref(), args.candidate.as_ref()],
        [&args.baseline_run, &args.candidate_run],
        GATE,
    )?;
    let [baseline, candidate] = both(given, GATE)?;
    let report = finish(crate::commands::gate(&config, &baseline, &candidate, &sel), env)?;
    gate_output(&output, (false, args.junit.as_deref()), &report, env)
}

/// Renders the gate's report (and its JUnit XML, where asked) and gives its exit status.
fn gate_output(
    output: &OutputArgs,
    (full_names, junit): (bool, Option<&std::path::Path>),
    report: &crate::analysis::gate::GateReport,
    env: &mut Env<'_>,
) -> Result<i32> {
    emit(output, full_names, env, |format, style, out| {
        out.write_all(crate::output::render::gate::render_fitted(report, format, style.name_width()).as_bytes())
    })?;
    if let Some(path) = junit {
        let note = crate::commands::write_file(path, crate::output::render::gate_junit::junit(report).as_bytes())?;
        let _ = writeln!(env.stderr, "{note}");
    }
    Ok(if report.verdict == Verdict::Fail { 1 } else { 0 })
}
