//! `tracediff operators`, `kernels` and `overview` (docs/semantics.md#operator-and-kernel-views, docs/semantics.md#overview): their options and runners.

use super::{Env, OutputArgs, SelectArgs, StepArgs, UnusedRowArgs, emit, print_notes};
use crate::analysis::classes::Classifier;
use crate::analysis::compare::CompareRequest;
use crate::analysis::diff::NameFilter;
use crate::analysis::loaded::{Loaded, load};
use crate::analysis::modules::zoom_scope;
use crate::analysis::views::kernels::{self, kernels, mark_kernel_significance};
use crate::analysis::views::operators::{self, mark_operator_significance, operators};
use crate::analysis::views::overview::overview_request;
use crate::analysis::views::{SortSide, SortSpec, ViewTable, sort_view_rows};
use crate::error::{Error, Result};
use crate::output::render::Format;
use crate::output::render::views::{OverviewOptions, TableView, render_overview_fitted, write};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

pub const OPERATORS_HELP: &str = "\
Rows: every cpu_op/Operator name on either side. Per side: calls; host self (its duration minus
its direct children's, launches included) and host total (its duration); device self (the kernels,
copies and sets it launched itself) and device total (those launched by it or anything under it).
Every event counts, as in compare: an op inside an op of the same name counts twice. Δ % is
against the control side: `new` where control is 0, `gone` where test is 0. The table shows calls
and one time group (--time); csv, json and markdown carry every column. Durations in µs.
--sort takes name or any numeric column: control-KEY, test-KEY, diff-KEY, abs-diff-KEY with KEY
one of calls, host-self, host-total, device-self, device-total [default: abs-diff of the --time
group].";

pub const KERNELS_HELP: &str = "\
Rows: every device event name (kernels, memcpy, memset, other device work; not gpu_user_annotation
spans). Per side: calls, total, mean, min and max duration; with --by-operator, rows are keyed by
(launching operator, kernel): the innermost cpu_op/Operator around the kernel's launch, or
`(no operator)`; --include/--exclude then match either name. --sort takes name or control-KEY,
test-KEY, diff-KEY, abs-diff-KEY with KEY one of calls, device-total, device-mean, device-min,
device-max [default: abs-diff of the --time column].";

pub const OVERVIEW_HELP: &str = "\
Per side: the device (deviceProperties), ranks and steps selected, mean step time, GPU busy time
per step (union of kernels, memcpy, memset inside the step windows) and utilisation (busy / step
time), the time host operators were busy per step, and the average and peak allocated memory inside
the steps ([memory] events; the device with the largest peak). Then Δ and Δ %. Values a trace
cannot give are shown as - (null in json). A side without ProfilerStep is measured over the span of
its events and has no step count or mean step time.";

/// Output options of the operator and kernel tables.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Output")]
pub struct ViewOutputArgs {
    /// Output format [default: from the -o extension (.csv .json .md), else table].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Show only the first N rows.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Row order: name or a numeric column (see below); largest first, ties by name.
    #[arg(long, value_name = "KEY")]
    pub sort: Option<String>,
    /// Show names whole in the terminal table, never cut to fit its width.
    #[arg(long)]
    pub full_names: bool,
    /// Keep only the rows whose shown time changed significantly: beyond run-to-run noise and 1%
    /// of the mean step time (needs at least 3 selected steps per side, e.g. --iteration all).
    #[arg(long)]
    pub only_significant: bool,
    /// Judge significance against no change even when the whole run moved by one factor (a
    /// slower or faster machine); by default times are judged beyond such a shift
    /// (docs/significance.md#a-run-wide-shift).
    #[arg(long)]
    pub no_run_shift: bool,
}

/// The time the kernel table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KernelTime {
    Total,
    Mean,
    Min,
    Max,
}

impl KernelTime {
    fn measure(self) -> &'static str {
        match self {
            KernelTime::Total => "device_total",
            KernelTime::Mean => "device_mean",
            KernelTime::Min => "device_min",
            KernelTime::Max => "device_max",
        }
    }
}

/// The time group the operator table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TimeGroup {
    HostSelf,
    HostTotal,
    DeviceSelf,
    DeviceTotal,
}

impl TimeGroup {
    fn measure(self) -> &'static str {
        match self {
            TimeGroup::HostSelf => "host_self",
            TimeGroup::HostTotal => "host_total",
            TimeGroup::DeviceSelf => "device_self",
            TimeGroup::DeviceTotal => "device_total",
        }
    }
}

#[derive(Debug, Args)]
pub struct OperatorsArgs {
    #[command(flatten)]
    pub pair: PairArgs,
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
pub struct CaptureArgs {
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
pub struct KernelsArgs {
    #[command(flatten)]
    pub pair: PairArgs,
    /// Key rows by (launching operator, kernel).
    #[arg(long, conflicts_with_all = ["by_class", "aligned"])]
    pub by_operator: bool,
    /// One row per kernel class (gemm, attention, norm, …; docs/kernel-classes.md), with each
    /// side's share of its step time.
    #[arg(long, conflicts_with = "aligned")]
    pub by_class: bool,
    /// The two sides' kernel sequences aligned by class, per stream: the repeated layer printed
    /// once ("layer ×61") with a row per position, then the prefix and suffix.
    #[arg(long)]
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

impl KernelsArgs {
    /// The measure the terminal table shows beside the calls.
    pub(crate) fn time_measure(&self) -> &'static str {
        self.time.measure()
    }
}

#[derive(Debug, Args)]
pub struct OverviewArgs {
    #[command(flatten)]
    pub pair: PairArgs,
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
}

/// The pair a view command compares, and the names of its sides (`operators`, `kernels`,
/// `overview`, `modules`, `report`).
#[derive(Debug, Args)]
pub struct PairArgs {
    /// The baseline: a directory of traces or one trace file.
    pub control: PathBuf,
    /// The run to compare against it.
    pub test: PathBuf,
    /// Names for the two sides in headers and CSV columns [default: control,test].
    #[arg(long, value_name = "CONTROL,TEST", value_parser = super::parse_labels, help_heading = "Output")]
    pub labels: Option<super::Labels>,
}

/// The kernel classes: the built-in rules, and those of `--kernel-classes FILE` first.
pub(crate) fn classifier(path: Option<&std::path::Path>) -> Result<Classifier> {
    match path {
        Some(p) => Classifier::from_file(p),
        None => Ok(Classifier::builtin()),
    }
}

/// Loads the pair of a view command and prints the load's notes.
pub(crate) fn load_view(
    pair: &PairArgs,
    select: &SelectArgs,
    command: &str,
    env: &mut Env<'_>,
) -> Result<(CompareRequest, Loaded)> {
    load_view_captured(pair, select, &CaptureArgs::default(), command, env)
}

/// [`load_view`] with the graph replays' captures given (`--capture`, …).
pub(crate) fn load_view_captured(
    pair: &PairArgs,
    select: &SelectArgs,
    captures: &CaptureArgs,
    command: &str,
    env: &mut Env<'_>,
) -> Result<(CompareRequest, Loaded)> {
    let mut req = super::with_labels(
        super::fresh_request(select, &pair.control, &pair.test),
        pair.labels.as_ref(),
    );
    req.captures = captures.sides();
    let loaded = load(&req, command)?;
    print_notes(&loaded.notes, env);
    Ok((req, loaded))
}

pub fn run_operators(args: OperatorsArgs, env: &mut Env<'_>) -> Result<i32> {
    let filter = check_view_args(&args.output, &args.select, operators::MEASURES)?;
    let (mut req, loaded) = load_view_captured(&args.pair, &args.select, &args.captures, "operators", env)?;
    req.beyond_shift = !args.output.no_run_shift;
    let scope = zoom_scope(&req, &loaded, args.zoom.as_deref())?;
    let mut table = operators(&req, &loaded, &filter, scope.as_ref().map(|(s, _)| s));
    let note = mark_operator_significance(&mut table, &req, &loaded, scope.as_ref().map(|(s, _)| s));
    super::only_significant_can_be_judged(args.output.only_significant, note.as_deref())?;
    print_notes(&note.into_iter().collect::<Vec<_>>(), env);
    table.zoom = scope.map(|(_, path)| path);
    print_notes(&loaded.overlap_notes(&req.labels), env);
    let time = args.time.unwrap_or(if table.has_device {
        TimeGroup::DeviceTotal
    } else {
        TimeGroup::HostTotal
    });
    show(table, time.measure(), &args.output, env)
}

/// `kernels` by name or by (operator, kernel); `--by-class` and `--aligned` are run by
/// `cli::classes` (the command dispatch picks).
pub fn run_kernels(args: KernelsArgs, env: &mut Env<'_>) -> Result<i32> {
    let filter = check_view_args(&args.output, &args.select, kernels::MEASURES)?;
    let classifier = classifier(args.kernel_classes.as_deref())?;
    let (mut req, loaded) = load_view_captured(&args.pair, &args.select, &args.captures, "kernels", env)?;
    req.beyond_shift = !args.output.no_run_shift;
    let scope = zoom_scope(&req, &loaded, args.zoom.as_deref())?;
    let mut table = kernels(&req, &loaded, &filter, args.by_operator, scope.as_ref().map(|(s, _)| s));
    let note = mark_kernel_significance(&mut table, &req, &loaded, scope.as_ref().map(|(s, _)| s));
    super::only_significant_can_be_judged(args.output.only_significant, note.as_deref())?;
    print_notes(&note.into_iter().collect::<Vec<_>>(), env);
    table.zoom = scope.map(|(_, path)| path);
    table.classifier = Some(classifier);
    if args.by_operator {
        print_notes(&loaded.overlap_notes(&req.labels), env);
    }
    show(table, args.time.measure(), &args.output, env)
}

pub fn run_overview(args: OverviewArgs, env: &mut Env<'_>) -> Result<i32> {
    args.unused.refuse("overview", "it measures whole steps")?;
    let req = super::with_labels(
        super::fresh_request(&SelectArgs::from(&args.select), &args.pair.control, &args.pair.test),
        args.pair.labels.as_ref(),
    );
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
    let (o, notes) = overview_request(&req)?;
    print_notes(&notes, env);
    print_notes(&o.notes(), env);
    emit(&output, false, env, |format, style, out| {
        let options = OverviewOptions {
            per_step: args.per_step,
        };
        out.write_all(render_overview_fitted(&o, format, &options, style.name_width()).as_bytes())
    })
}

/// Refuses, before the traces are read (they may take seconds to load), an `-o` whose format
/// cannot be told, a `--sort` key the table lacks and a bad `--include`/`--exclude` pattern;
/// returns the name filter.
pub(crate) fn check_view_args(out: &ViewOutputArgs, select: &SelectArgs, measures: &[&str]) -> Result<NameFilter> {
    super::check_output(&OutputArgs {
        format: out.format,
        output: out.output.clone(),
        top: None,
        sort: None,
    })?;
    if let Some(text) = &out.sort {
        SortSpec::parse(text, measures).map_err(|e| Error::usage(format!("--sort: {e}")))?;
    }
    NameFilter::new(&select.include, &select.exclude)
}

/// Sorts, cuts to `--top` and writes a table whose terminal form shows `time`.
pub(crate) fn show(mut table: ViewTable, time: &str, out: &ViewOutputArgs, env: &mut Env<'_>) -> Result<i32> {
    let time = table.measure(time).unwrap_or(0);
    let sort = match &out.sort {
        Some(text) => SortSpec::parse(text, table.measures).map_err(|e| Error::usage(format!("--sort: {e}")))?,
        None => SortSpec::Column {
            side: SortSide::AbsDiff,
            measure: time,
        },
    };
    sort_view_rows(&mut table.rows, &sort);
    if out.only_significant {
        table.rows.retain(|r| r.significant.get(time) == Some(&Some(true)));
    }
    let mut rows: Vec<_> = table.rows.iter().collect();
    if let Some(n) = out.top {
        rows.truncate(n);
    }
    let view = TableView {
        table: &table,
        rows,
        sort,
        top: out.top,
        time,
    };
    let output = OutputArgs {
        format: out.format,
        output: out.output.clone(),
        top: None,
        sort: None,
    };
    emit(&output, out.full_names, env, |format, style, out| {
        write(&view, format, style, out)
    })
}
