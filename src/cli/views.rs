//! `tracediff operators`, `kernels` and `overview` (docs/semantics.md#operator-and-kernel-views, docs/semantics.md#overview): their options and runners.

use super::sides::GivenRuns;
use super::{Env, OutputArgs, SelectArgs, StepArgs, UnusedRowArgs, emit, finish};
use crate::commands::{self, KernelsOptions, OperatorTime, OperatorsOptions, Shown, ViewOptions};
use crate::error::{Error, Result};
use crate::output::render::Format;
use crate::output::render::views::{OverviewTables, TableView, render_overview_fitted, write};
use crate::request::CompareRequest;
use crate::request::side::SidePaths;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

pub(crate) const OPERATORS_HELP: &str = "\
Rows: every cpu_op/Operator name on either side. Per side: calls; host self (its duration minus
its direct children's, launches included) and host total (its duration); device self (the kernels,
copies and sets it launched itself) and device total (those launched by it or anything under it).
Every event counts, as in compare: an op inside an op of the same name counts twice. Δ % is
against the control side: `new` where control is 0, `gone` where test is 0. The table shows calls
and one time group (--time); csv, json and markdown carry every column. Durations in µs.
--sort takes name or any numeric column: control-KEY, test-KEY, diff-KEY, abs-diff-KEY with KEY
one of calls, host-self, host-total, device-self, device-total [default: abs-diff of the --time
group].";

pub(crate) const KERNELS_HELP: &str = "\
Rows: every device event name (kernels, memcpy, memset, other device work; not gpu_user_annotation
spans). Per side: calls, total, mean, min and max duration; with --by-operator, rows are keyed by
(launching operator, kernel): the innermost cpu_op/Operator around the kernel's launch, or
`(no operator)`; --include/--exclude then match either name. --sort takes name or control-KEY,
test-KEY, diff-KEY, abs-diff-KEY with KEY one of calls, device-total, device-mean, device-min,
device-max [default: abs-diff of the --time column].";

pub(crate) const OVERVIEW_HELP: &str = "\
Per side: the device (deviceProperties), ranks and steps selected, mean step time, GPU busy time
per step (union of kernels, memcpy, memset inside the step windows) and utilisation (busy / step
time), the time host operators were busy per step, and the average and peak allocated memory inside
the steps ([memory] events; the device with the largest peak). Then Δ and Δ %. Values a trace
cannot give are shown as - (null in json). A side without ProfilerStep is measured over the span of
its events and has no step count or mean step time.";

/// Output options of the operator and kernel tables.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Output")]
pub(crate) struct ViewOutputArgs {
    /// Output format [default: from the -o extension (.csv .json .md), else table].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Show only the first N rows.
    #[arg(long, value_name = "N", value_parser = super::numbers::count)]
    pub top: Option<usize>,
    /// Row order: name or a numeric column (see below); largest first, ties by name.
    #[arg(long, value_name = "KEY")]
    pub sort: Option<String>,
    #[command(flatten)]
    pub fit: super::fit::FitArgs,
    /// Keep only the rows whose shown time changed significantly: beyond run-to-run noise and 1%
    /// of the mean step time (needs at least 3 selected steps per side, e.g. --iteration all).
    #[arg(long)]
    pub only_significant: bool,
    /// Judge significance against no change even when the whole run moved by one factor (a
    /// slower or faster machine); by default times are judged beyond such a shift
    /// (docs/significance.md#a-run-wide-shift).
    #[arg(long)]
    pub no_run_shift: bool,
    /// Rows as sums over the selected steps and runs; by default they are per step (each side's
    /// mean per step, averaged per run, then over runs) wherever more than one step or run is used.
    #[arg(long)]
    pub totals: bool,
    /// Why each row changed: calls ×, work ×, efficiency ×, and the row's Δ split into calls,
    /// work and efficiency parts (they sum to it), with the shapes, element types and kernels
    /// that changed (docs/cost-model.md#the-why-columns); the work needs record_shapes=True.
    #[arg(long)]
    pub why: bool,
}

/// The time the kernel table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum KernelTime {
    Total,
    Mean,
    Min,
    Max,
}

/// The time group the operator table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TimeGroup {
    HostSelf,
    HostTotal,
    DeviceSelf,
    DeviceTotal,
}

#[derive(Debug, Args)]
pub(crate) struct OperatorsArgs {
    #[command(flatten)]
    pub pair: RunsArgs,
    /// The time group of the table [default: device-total with device events, else host-total].
    #[arg(long, value_enum)]
    pub time: Option<TimeGroup>,
    /// Only the operators (kernels) inside one module node: a `tracediff modules` path.
    #[arg(long, value_name = "PATH")]
    pub zoom: Option<String>,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub captures: CaptureArgs,
    #[command(flatten)]
    pub output: ViewOutputArgs,
}

/// Where the captures of graph replays are (docs/graphs.md#graph-replays): without these, a
/// `capture_traces/` folder beside a trace, or a capture inside the trace itself.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Graph replays")]
pub(crate) struct CaptureArgs {
    /// The capture of both sides' graph replays: a trace file, or a folder of them (the one
    /// that names the rank, as `graph_capture_rank_0…`).
    #[arg(long, value_name = "PATH")]
    pub capture: Option<PathBuf>,
    /// The capture of the control side's graph replays (overrides --capture).
    #[arg(long, value_name = "PATH")]
    pub control_capture: Option<PathBuf>,
    /// The capture of the test side's graph replays (overrides --capture).
    #[arg(long, value_name = "PATH")]
    pub test_capture: Option<PathBuf>,
}

impl CaptureArgs {
    /// Each side's capture (control, test).
    pub(crate) fn sides(&self) -> [Option<PathBuf>; 2] {
        [
            self.control_capture.clone().or_else(|| self.capture.clone()),
            self.test_capture.clone().or_else(|| self.capture.clone()),
        ]
    }
}

#[derive(Debug, Args)]
pub(crate) struct KernelsArgs {
    #[command(flatten)]
    pub pair: RunsArgs,
    /// Key rows by (launching operator, kernel).
    #[arg(long, conflicts_with_all = ["by_class", "aligned"])]
    pub by_operator: bool,
    /// One row per kernel class (gemm, attention, norm, …; docs/kernel-classes.md), with each
    /// side's share of its step time.
    #[arg(long, conflicts_with_all = ["aligned", "why"])]
    pub by_class: bool,
    /// The two sides' kernel sequences aligned by class, per stream: the repeated layer printed
    /// once ("layer ×61") with a row per position, then the prefix and suffix.
    #[arg(long, conflicts_with = "why")]
    pub aligned: bool,
    /// Kernel class patterns of your own, tried before the built-in rules: a TOML file of
    /// `class = ["regex", …]` (docs/kernel-classes.md#your-own-rules).
    #[arg(long, value_name = "FILE")]
    pub kernel_classes: Option<PathBuf>,
    /// The time the table shows beside the calls (csv, json and markdown carry all).
    #[arg(long, value_enum, default_value_t = KernelTime::Total)]
    pub time: KernelTime,
    /// Only the operators (kernels) inside one module node: a `tracediff modules` path.
    #[arg(long, value_name = "PATH")]
    pub zoom: Option<String>,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub captures: CaptureArgs,
    #[command(flatten)]
    pub output: ViewOutputArgs,
}

#[derive(Debug, Args)]
pub(crate) struct OverviewArgs {
    #[command(flatten)]
    pub pair: RunsArgs,
    #[command(flatten)]
    pub select: StepArgs,
    #[command(flatten)]
    pub unused: UnusedRowArgs,
    /// Also a row per selected step and side: its step time and where it went.
    #[arg(long, help_heading = "Output")]
    pub per_step: bool,
    /// Output format [default: from the -o extension (.csv .json .md), else table].
    #[arg(long, value_enum, help_heading = "Output")]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub fit: super::fit::FitArgs,
}

/// The run a view shows, or the pair it compares, and the names of the sides (`operators`,
/// `kernels`, `overview`, `modules`).
#[derive(Debug, Args)]
pub(crate) struct RunsArgs {
    /// The baseline: a directory of traces, one trace file, or a directory of runs. Given
    /// alone, that side's own view: its columns only, no Δ.
    #[arg(required_unless_present = "control_run")]
    pub control: Option<PathBuf>,
    /// The run (or directory of runs) to compare against it.
    pub test: Option<PathBuf>,
    /// Names for the two sides in headers and CSV columns [default: control,test].
    #[arg(long, value_name = "CONTROL,TEST", value_parser = super::parse_labels, help_heading = "Output")]
    pub labels: Option<super::Labels>,
    #[command(flatten)]
    pub runs: GivenRuns,
}

impl RunsArgs {
    /// The two sides given (the test side `None` where one side is given alone).
    fn sides(&self) -> Result<(SidePaths, Option<SidePaths>)> {
        match self.runs.sides([self.control.as_ref(), self.test.as_ref()])? {
            [Some(c), t] => Ok((c, t)),
            [None, _] => super::sides::both([None, None], super::sides::PAIR).map(|[c, _]| (c, None)),
        }
    }

    /// Whether one side is given alone (its own view); a bad combination is not, and is refused
    /// as a pair.
    pub(crate) fn alone(&self) -> bool {
        self.sides().is_ok_and(|(_, t)| t.is_none())
    }

    /// The side given alone.
    pub(crate) fn run(&self) -> Result<SidePaths> {
        self.sides().map(|(c, _)| c)
    }

    /// The request of the pair (a side given alone is both sides).
    pub(crate) fn request(&self, select: &SelectArgs) -> Result<CompareRequest> {
        let (control, test) = self.sides()?;
        let test = test.unwrap_or_else(|| control.clone());
        Ok(super::with_labels(
            super::fresh_request(select, control, test),
            self.labels.as_ref(),
        ))
    }
}

/// The pair a view command compares, and the names of its sides (`report`, `flamegraph`).
#[derive(Debug, Args)]
pub(crate) struct PairArgs {
    /// The baseline: a directory of traces or one trace file.
    #[arg(required_unless_present = "control_run")]
    pub control: Option<PathBuf>,
    /// The run to compare against it.
    #[arg(required_unless_present_any = ["control_run", "test_run"])]
    pub test: Option<PathBuf>,
    /// Names for the two sides in headers and CSV columns [default: control,test].
    #[arg(long, value_name = "CONTROL,TEST", value_parser = super::parse_labels, help_heading = "Output")]
    pub labels: Option<super::Labels>,
    #[command(flatten)]
    pub runs: GivenRuns,
}

/// The request of a view command: the pair and the selection given, the command line's
/// defaults for the rest.
pub(crate) fn view_request(pair: &PairArgs, select: &SelectArgs) -> Result<CompareRequest> {
    let [control, test] = pair.runs.pair([pair.control.as_ref(), pair.test.as_ref()])?;
    Ok(super::with_labels(
        super::fresh_request(select, control, test),
        pair.labels.as_ref(),
    ))
}

/// The view options that `operators` and `kernels` share.
pub(crate) fn view_options(zoom: Option<&String>, out: &ViewOutputArgs) -> ViewOptions {
    ViewOptions {
        zoom: zoom.cloned(),
        sort: out.sort.clone(),
        only_significant: out.only_significant,
        one_run: false,
        why: out.why,
    }
}

pub(crate) fn run_operators(args: OperatorsArgs, env: &mut Env<'_>) -> Result<i32> {
    check_view_output(&args.output)?;
    let mut req = args.pair.request(&args.select)?;
    super::every_step_by_default(&mut req, &args.select);
    req.captures = args.captures.sides();
    req.beyond_shift = !args.output.no_run_shift;
    req.totals = args.output.totals;
    let options = OperatorsOptions {
        view: view_options(args.zoom.as_ref(), &args.output),
        time: args.time.map(operator_time),
    };
    let shown = finish(commands::operators(&req, &options), env)?;
    show(&shown, &args.output, env)
}

/// The library's name of a time group.
pub(crate) fn operator_time(t: TimeGroup) -> OperatorTime {
    match t {
        TimeGroup::HostSelf => OperatorTime::HostSelf,
        TimeGroup::HostTotal => OperatorTime::HostTotal,
        TimeGroup::DeviceSelf => OperatorTime::DeviceSelf,
        TimeGroup::DeviceTotal => OperatorTime::DeviceTotal,
    }
}

/// The options of `kernels` (by name, by operator, by class).
pub(crate) fn kernels_options(args: &KernelsArgs) -> KernelsOptions {
    KernelsOptions {
        view: view_options(args.zoom.as_ref(), &args.output),
        by_operator: args.by_operator,
        time: match args.time {
            KernelTime::Total => commands::KernelTime::Total,
            KernelTime::Mean => commands::KernelTime::Mean,
            KernelTime::Min => commands::KernelTime::Min,
            KernelTime::Max => commands::KernelTime::Max,
        },
        classes: args.kernel_classes.clone(),
    }
}

/// `kernels` by name or by (operator, kernel); `--by-class` and `--aligned` are run by
/// `cli::classes` (the command dispatch picks).
pub(crate) fn run_kernels(args: KernelsArgs, env: &mut Env<'_>) -> Result<i32> {
    check_view_output(&args.output)?;
    let mut req = args.pair.request(&args.select)?;
    super::every_step_by_default(&mut req, &args.select);
    req.captures = args.captures.sides();
    req.beyond_shift = !args.output.no_run_shift;
    req.totals = args.output.totals;
    let shown = finish(commands::kernels(&req, &kernels_options(&args)), env)?;
    show(&shown, &args.output, env)
}

pub(crate) fn run_overview(args: OverviewArgs, env: &mut Env<'_>) -> Result<i32> {
    args.unused.refuse("overview", "it measures whole steps")?;
    let req = args.pair.request(&SelectArgs::from(&args.select))?;
    let output = OutputArgs {
        format: args.format,
        output: args.output.clone(),
        top: None,
        sort: None,
    };
    if super::check_output(&output)? == Format::Csv && args.per_step {
        // Accepted, it changed nothing: the CSV is one row per metric.
        return Err(Error::usage(
            "--per-step: the CSV has one row per metric; the per-step rows are in --format json \
             (per_step), markdown or the table",
        ));
    }
    let o = finish(commands::overview(&req, &Default::default()), env)?;
    emit(&output, false, env, |format, style, out| {
        let options = OverviewTables {
            per_step: args.per_step,
        };
        out.write_all(render_overview_fitted(&o, format, &options, style.name_width()).as_bytes())
    })
}

/// Refuses, before the traces are read (they may take seconds to load), an `-o` whose format
/// cannot be told.
pub(crate) fn check_view_output(out: &ViewOutputArgs) -> Result<Format> {
    super::check_output(&view_output(out))
}

fn view_output(out: &ViewOutputArgs) -> OutputArgs {
    OutputArgs {
        format: out.format,
        output: out.output.clone(),
        top: None,
        sort: None,
    }
}

/// Cuts a view's table to `--top` and writes it.
pub(crate) fn show(shown: &Shown, out: &ViewOutputArgs, env: &mut Env<'_>) -> Result<i32> {
    let mut rows: Vec<_> = shown.table.rows.iter().collect();
    if let Some(n) = out.top {
        rows.truncate(n);
    }
    let view = TableView {
        table: &shown.table,
        rows,
        sort: shown.sort.clone(),
        top: out.top,
        time: shown.time,
        why: shown.why.as_ref(),
    };
    emit(&view_output(out), false, env, |format, style, out| {
        write(&view, format, style, out)
    })
}
