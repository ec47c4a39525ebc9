//! The command line: argument definitions, and running a command with its output streams.

pub mod entry;
pub mod modules;
pub mod report;

use crate::analysis::compare::{CompareRequest, check_labels, compare};
use crate::analysis::diff::{Category, Comparison, NameFilter, SortKey};
use crate::analysis::gate::{GateConfig, Rules, Verdict, evaluate, measure};
use crate::analysis::select::{Device, Pick};
use crate::analysis::select::{SideSelection, resolve};
use crate::error::{Error, Result};
use crate::input::attrs::{AttrRequest, Preset};
use crate::input::load::{load_side_ranks, pair_notes};
use crate::output::events::{EventFilter, EventsFormat, write_events};
use crate::output::render::compare::CompareView;
use crate::output::render::ops_diff::OpsDiffView;
use crate::output::render::plot::{ImageFormat, Metric, chart_of, draw};
use crate::output::render::{Format, TableStyle};
use crate::output::state;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};

pub mod views;

const AFTER_HELP: &str = "\
Exit status: 0 success, 1 a regression gate failed, 2 bad usage or unreadable/invalid input.

Examples:
  tracediff compare control/ test/
  tracediff compare ctl.json.gz tst.json.gz --device gpu --short-names --top 20
  tracediff compare runs/ runs/ --control-rank 0 --test-rank 1
  tracediff ops-diff --category added
  tracediff plot --top 10 --exclude ProfilerStep
  tracediff events run/ --arg input_dims --name 'aten::mm' --format csv
  tracediff gate baseline/ candidate/ --max-step-time-regression 5% --max-op-regression 10%";

#[derive(Debug, Parser)]
#[command(
    name = "tracediff",
    version,
    about = "Compare two sets of PyTorch profiler (Kineto) traces: which operators and GPU kernels \
             were added or removed, ran more or less often, and where the time moved.",
    after_help = AFTER_HELP,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The comparison table: counts and total durations per name on both sides (HTA compare_traces).
    #[command(after_help = COMPARE_HELP)]
    Compare(CompareArgs),
    /// Names that were added, deleted, or ran more, fewer or as many times (HTA ops_diff).
    #[command(name = "ops-diff", after_help = OPS_DIFF_HELP)]
    OpsDiff(OpsDiffArgs),
    /// Bar charts of the top rows: control, test and their difference, as PNG or SVG.
    #[command(after_help = PLOT_HELP)]
    Plot(PlotArgs),
    /// The event table of one side: a row per counted event, with the attributes you choose.
    #[command(after_help = EVENTS_HELP)]
    Events(EventsArgs),
    /// One trace → a small Parquet summary that compare, ops-diff, plot, gate and overview read
    /// in its place (summarise each rank where it lies, compare the summaries anywhere).
    #[command(after_help = SUMMARIZE_HELP)]
    Summarize(SummarizeArgs),
    /// A regression check for CI: exit 1 when a rule fails beyond run-to-run noise, 0 when all pass.
    #[command(after_help = GATE_HELP)]
    Gate(GateArgs),
    /// Per operator: calls, host and device self and total time on both sides (design §4.2).
    #[command(after_help = views::OPERATORS_HELP)]
    Operators(views::OperatorsArgs),
    /// Per kernel (or per launching operator and kernel): calls, total, mean, min, max (§4.2).
    #[command(after_help = views::KERNELS_HELP)]
    Kernels(views::KernelsArgs),
    /// Device, steps, step time, GPU busy and utilisation, memory, per side with Δ (§4.3).
    #[command(after_help = views::OVERVIEW_HELP)]
    Overview(views::OverviewArgs),
    /// The two runs aligned module by module (nn.Module, annotations, backward), with zoom (§4.4).
    #[command(after_help = modules::MODULES_HELP)]
    Modules(modules::ModulesArgs),
    /// One self-contained HTML page to click through: overview, module bars with zoom, tables (§4.5).
    #[command(after_help = report::REPORT_HELP)]
    Report(report::ReportArgs),
}

const PLOT_HELP: &str = "\
Without CONTROL and TEST, plots the comparison that the last `tracediff compare` saved (selection
options given here replace the saved ones). The image type follows the file name (.png or .svg).
With --metric both (the default) and -o FILE, the two charts go to FILE-counts.EXT and
FILE-duration.EXT; without -o, to tracediff-counts.png and tracediff-duration.png. The paths
written are printed. Each chart numbers its groups and lists the full names under the plot; SVG
charts also carry the full name and values as a tooltip on each group.";

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
    /// Which rows come first [default: diff-counts for the counts chart, diff-duration for the
    /// duration chart].
    #[arg(long, value_enum, value_name = "KEY")]
    pub sort: Option<SortKey>,
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

const GATE_HELP: &str = "\
Every rank and every ProfilerStep of each side is measured by default (one sample per rank and
step), so runs with different step counts compare fairly. A timing rule fails only when the change
of the per-step medians exceeds its threshold AND exceeds k x the pooled scaled MAD (median absolute
deviation x 1.4826) of the samples of both sides; with one sample per side the threshold alone
decides. Rules can also come from a TOML file (`[gate]` table, keys as the long options with
underscores); options given here override it. Percentages need their % sign (5% is five
percent; a bare 5 or 0.05 is refused, in the file too) and durations their unit (200us). Exit status: 0 all rules pass, 1 a rule failed,
2 bad input or configuration.";

#[derive(Debug, Args)]
pub struct GateArgs {
    /// The reference run: a directory of traces or one trace file (or their summaries).
    pub baseline: PathBuf,
    /// The run under test.
    pub candidate: PathBuf,
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
    #[arg(long, value_name = "K")]
    pub noise_k: Option<f64>,
    /// Judge each op by its share of step time, so a uniformly slower machine fails the
    /// step-time rule (if set) but not every op rule.
    #[arg(long)]
    pub relative: bool,
    /// Read rules from this TOML file (see examples/tracediff-gate.toml).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ranks of both sides [default: all].
    #[arg(long, value_name = "RANKS")]
    pub rank: Option<Pick>,
    /// ProfilerSteps of both sides [default: all].
    #[arg(long, value_name = "STEPS")]
    pub iteration: Option<Pick>,
    /// Events that count for the op and count rules [default: all].
    #[arg(long, value_enum)]
    pub device: Option<Device>,
    /// Group ops by HTA's short names.
    #[arg(long)]
    pub short_names: bool,
    /// Rewrite run-specific noise (addresses, step numbers, hex ids) out of names first.
    #[arg(long)]
    pub normalize_names: bool,
    /// Report format [default: table].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Show names whole in the table (op names are cut to 40 characters otherwise), never cut to fit its width.
    #[arg(long, help_heading = "Output")]
    pub full_names: bool,
    /// Write the report to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

const EVENTS_HELP: &str = "\
Columns: index (position in traceEvents), rank, name, cat, pid, tid, ts, dur (µs), stream,
correlation, index_correlation (the partner's index: launch <-> kernel, -1 without one),
iteration (-1 outside every ProfilerStep), then the chosen attributes. Every rank and every event
is listed unless --rank/--iteration narrow it. Attributes: --args default|complete|all, --arg NAME
for built-in ones (input_dims, input_type, input_strides, external_id, grid, block, bytes,
registers_per_thread, shared_memory, est_occupancy, device, context, queued, cbid, sequence, ...),
--arg-spec 'column=raw key:type:default' for any other key.";

#[derive(Debug, Args)]
pub struct EventsArgs {
    /// A directory of traces or one trace file.
    pub path: PathBuf,
    /// Ranks: a number, a comma list, or `all` [default: all].
    #[arg(long, value_name = "RANKS")]
    pub rank: Option<Pick>,
    /// ProfilerStep numbers: a number, a comma list, or `all` (events inside steps)
    /// [default: every event].
    #[arg(long, value_name = "STEPS")]
    pub iteration: Option<Pick>,
    /// Events that ran on the CPU, on the GPU, or both [default: all].
    #[arg(long, value_enum)]
    pub device: Option<Device>,
    /// Only events whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub name: Option<String>,
    /// Only events of this category (exact; repeatable).
    #[arg(long, value_name = "CAT")]
    pub cat: Vec<String>,
    /// Add a built-in attribute column (repeatable, or a comma list).
    #[arg(long = "arg", value_name = "NAME")]
    pub arg: Vec<String>,
    /// A preset of attribute columns.
    #[arg(long = "args", value_enum, value_name = "PRESET")]
    pub args: Option<Preset>,
    /// Define an attribute: `column=raw key:type:default` (type int, float, string or object).
    #[arg(long, value_name = "SPEC")]
    pub arg_spec: Vec<String>,
    /// Output format [default: from the -o extension (.csv .jsonl .json), else table on a
    /// terminal and csv otherwise].
    #[arg(long, value_enum)]
    pub format: Option<EventsFormat>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

const SUMMARIZE_HELP: &str = "\
The summary holds, per (iteration, name, category, place), the number of events and their total
duration, and per step what gate and overview measure (step time, GPU and host busy time, memory).
Give summaries (files, or directories of *.parquet files) to compare, ops-diff, plot, gate or
overview anywhere they take traces: the output is the same, byte for byte. Commands that need
the events themselves (events, operators, kernels, modules, report, compare --group-by) refuse
them. The written path is printed.";

#[derive(Debug, Args)]
pub struct SummarizeArgs {
    /// One trace file (*.json or *.json.gz).
    pub trace: PathBuf,
    /// The summary file to write (Parquet).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
}

const COMPARE_HELP: &str = "\
CONTROL and TEST are each a directory of trace files (*.json, *.json.gz; not recursive) or one trace file;
summaries (`tracediff summarize`, *.parquet) may stand in for traces, with the same output.
Durations are in microseconds in csv and json. The comparison is saved in .tracediff/ (or
$TRACEDIFF_STATE_DIR) for `tracediff ops-diff` without paths; --no-save skips that.";

const OPS_DIFF_HELP: &str = "\
Without CONTROL and TEST, uses the comparison that the last `tracediff compare` saved; selection
options given here replace the saved ones (and reload the saved paths when they change the rows).";

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The baseline: a directory of traces or one trace file (or their summaries).
    pub control: PathBuf,
    /// The run to compare against it.
    pub test: PathBuf,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Names of the two sides in headers and CSV columns [default: control,test].
    #[arg(long, value_name = "CONTROL,TEST", value_parser = parse_labels, help_heading = "Output")]
    pub labels: Option<Labels>,
    /// Show names whole in the terminal table, never cut to fit its width.
    #[arg(long, help_heading = "Output")]
    pub full_names: bool,
    /// Do not save this comparison for later `ops-diff` runs.
    #[arg(long)]
    pub no_save: bool,
    /// Also write the HTML report of this pair (as `tracediff report`) to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub report: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct OpsDiffArgs {
    /// The baseline (default: the saved comparison's).
    #[arg(requires = "test")]
    pub control: Option<PathBuf>,
    /// The run to compare against it.
    pub test: Option<PathBuf>,
    /// Which list to print.
    #[arg(long, value_enum, default_value_t = CategoryArg::All)]
    pub category: CategoryArg,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CategoryArg {
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

/// Options that choose what is compared, shared by every analysis command.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Selection")]
pub struct SelectArgs {
    /// Ranks of both sides: a number, a comma list, or `all` (summed) [default: the lowest].
    #[arg(long, value_name = "RANKS")]
    pub rank: Option<Pick>,
    /// ProfilerStep numbers of both sides: a number, a comma list, or `all` [default: the lowest].
    #[arg(long, value_name = "STEPS")]
    pub iteration: Option<Pick>,
    /// Ranks of the control side (overrides --rank).
    #[arg(long, value_name = "RANKS")]
    pub control_rank: Option<Pick>,
    /// Ranks of the test side (overrides --rank).
    #[arg(long, value_name = "RANKS")]
    pub test_rank: Option<Pick>,
    /// Steps of the control side (overrides --iteration).
    #[arg(long, value_name = "STEPS")]
    pub control_iteration: Option<Pick>,
    /// Steps of the test side (overrides --iteration).
    #[arg(long, value_name = "STEPS")]
    pub test_iteration: Option<Pick>,
    /// Events that ran on the CPU, on the GPU, or both [default: all].
    #[arg(long, value_enum)]
    pub device: Option<Device>,
    /// Group by HTA's short names (`void cutlass::Kernel<...>(...)` → `cutlass::Kernel`).
    #[arg(long)]
    pub short_names: bool,
    /// Rewrite run-specific noise out of names before grouping: memory addresses (0x7f… → 0x*),
    /// step numbers (ProfilerStep#12 → ProfilerStep#*), hex ids of 16+ digits (→ *).
    #[arg(long)]
    pub normalize_names: bool,
    /// Split rows by attribute values too, e.g. `input_dims` (aten::addmm [input_dims=[[128,100],…]]).
    /// Built-in attributes, `stream`, `correlation`, or columns defined with --arg-spec.
    #[arg(long, value_name = "ATTR[,ATTR]", value_delimiter = ',')]
    pub group_by: Vec<String>,
    /// Define an attribute for --group-by: `column=raw key:type:default` (type int, float,
    /// string or object; e.g. `module=Module Hierarchy:string`).
    #[arg(long, value_name = "SPEC")]
    pub arg_spec: Vec<String>,
    /// Keep only rows whose name matches this regular expression (repeatable: any matches). With
    /// --group-by, the operator's name is matched, not the group values after it.
    #[arg(long, value_name = "REGEX")]
    pub include: Vec<String>,
    /// Drop rows whose name matches this regular expression (repeatable).
    #[arg(long, value_name = "REGEX")]
    pub exclude: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels(pub [String; 2]);

pub(crate) fn parse_labels(s: &str) -> std::result::Result<Labels, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    match parts.as_slice() {
        [c, t] => {
            let labels = [c.to_string(), t.to_string()];
            check_labels(&labels).map_err(|e| e.to_string())?;
            Ok(Labels(labels))
        }
        _ => Err("expected two names separated by a comma, e.g. fp32,bf16".to_string()),
    }
}

/// Options that shape the output.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Output")]
pub struct OutputArgs {
    /// Output format [default: from the -o extension (.csv .json .md), else table].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Show only the first N rows (for ops-diff: N names per category).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Row order; ties are broken by name [default: abs-diff-duration for compare, name for ops-diff].
    #[arg(long, value_enum, value_name = "KEY")]
    pub sort: Option<SortKey>,
}

/// What `run` needs from the process around it.
pub struct Env<'a> {
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    /// Width to fit a table in when writing to standard output.
    pub terminal_width: Option<usize>,
    pub state_dir: PathBuf,
}

/// Runs one command. Returns the exit code for a successful run (0).
pub fn run(cli: Cli, env: &mut Env<'_>) -> Result<i32> {
    match cli.command {
        Command::Compare(args) => run_compare(args, env),
        Command::OpsDiff(args) => run_ops_diff(args, env),
        Command::Events(args) => run_events(args, env),
        Command::Gate(args) => run_gate(args, env),
        Command::Summarize(args) => run_summarize(args, env),
        Command::Plot(args) => run_plot(args, env),
        Command::Operators(args) => views::run_operators(args, env),
        Command::Kernels(args) => views::run_kernels(args, env),
        Command::Overview(args) => views::run_overview(args, env),
        Command::Modules(args) => modules::run_modules(args, env),
        Command::Report(args) => report::run_report(args, env),
    }
}

/// Builds a request from the options given, on top of `base` (defaults or a saved request).
fn request_from(select: &SelectArgs, mut base: CompareRequest) -> CompareRequest {
    if let Some(r) = &select.rank {
        base.control_selection.ranks = r.clone();
        base.test_selection.ranks = r.clone();
    }
    if let Some(i) = &select.iteration {
        base.control_selection.iterations = i.clone();
        base.test_selection.iterations = i.clone();
    }
    if let Some(r) = &select.control_rank {
        base.control_selection.ranks = r.clone();
    }
    if let Some(r) = &select.test_rank {
        base.test_selection.ranks = r.clone();
    }
    if let Some(i) = &select.control_iteration {
        base.control_selection.iterations = i.clone();
    }
    if let Some(i) = &select.test_iteration {
        base.test_selection.iterations = i.clone();
    }
    if let Some(d) = select.device {
        base.device = d;
    }
    if select.short_names {
        base.naming = crate::analysis::aggregate::Naming::ShortName;
    }
    if select.normalize_names {
        base.normalize_names = true;
    }
    if !select.group_by.is_empty() {
        base.group_by = select.group_by.iter().map(|g| g.trim().to_string()).collect();
    }
    if !select.arg_spec.is_empty() {
        base.arg_specs = select.arg_spec.clone();
    }
    if !select.include.is_empty() {
        base.include = select.include.clone();
    }
    if !select.exclude.is_empty() {
        base.exclude = select.exclude.clone();
    }
    base
}

/// `--arg-spec` only defines columns for `--group-by`: one that no `--group-by` names would be
/// accepted and silently ignored, so it is refused.
fn check_specs_used(select: &SelectArgs, req: &CompareRequest) -> Result<()> {
    let defined = AttrRequest::build(Preset::None, &[], &select.arg_spec)?;
    match defined.specs.iter().find(|s| !req.group_by.contains(&s.column)) {
        Some(unused) => Err(Error::usage(format!(
            "--arg-spec defines '{}' but no --group-by names it (here --arg-spec only serves --group-by)",
            unused.column
        ))),
        None => Ok(()),
    }
}

pub(crate) fn with_labels(mut req: CompareRequest, labels: Option<&Labels>) -> CompareRequest {
    if let Some(Labels(l)) = labels {
        req.labels = l.clone();
    }
    req
}

fn print_notes(notes: &[String], env: &mut Env<'_>) {
    for n in notes {
        let _ = writeln!(env.stderr, "tracediff: note: {n}");
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn run_summarize(args: SummarizeArgs, env: &mut Env<'_>) -> Result<i32> {
    if std::fs::metadata(&args.trace).is_ok_and(|m| m.is_dir()) {
        return Err(Error::input(
            &args.trace,
            "summarize takes one trace file, not a directory (run it once per rank)",
        ));
    }
    let file = crate::input::load::load_file(&args.trace, &AttrRequest::default())?;
    let summary = crate::analysis::summary::summarize(&file, &args.trace);
    drop(file);
    crate::output::summary::save_summary(&summary, &args.output)?;
    let _ = writeln!(env.stdout, "{}", args.output.display());
    Ok(0)
}

fn run_compare(args: CompareArgs, env: &mut Env<'_>) -> Result<i32> {
    check_output(&args.output)?;
    let req = with_labels(
        request_from(&args.select, CompareRequest::new(&args.control, &args.test)),
        args.labels.as_ref(),
    );
    check_specs_used(&args.select, &req)?;
    if let Some(path) = &args.report {
        report::check_html(path)?;
    }
    let (comparison, notes) = compare(&req)?;
    print_notes(&notes, env);
    let view = CompareView::new(&comparison, args.output.sort.unwrap_or_default(), args.output.top);
    emit(&args.output, args.full_names, env, |format, style, out| {
        crate::output::render::compare::render(&view, format, style, out)
    })?;
    if !args.no_save {
        // Saving is a side effect: when it fails, the result stands and a warning says how to fix it.
        let mut saved_req = req.clone();
        saved_req.control = absolute(&req.control);
        saved_req.test = absolute(&req.test);
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

fn run_ops_diff(args: OpsDiffArgs, env: &mut Env<'_>) -> Result<i32> {
    check_output(&args.output)?;
    let comparison = comparison_for(args.control.as_deref(), args.test.as_deref(), &args.select, None, env)?;
    let view = OpsDiffView::new(
        &comparison,
        &args.category.categories(),
        args.output.sort.unwrap_or(SortKey::Name),
        args.output.top,
    );
    emit(&args.output, false, env, |format, _, out| {
        crate::output::render::ops_diff::render(&view, format, out)
    })
}

fn run_events(args: EventsArgs, env: &mut Env<'_>) -> Result<i32> {
    let on_terminal = args.output.is_none() && env.terminal_width.is_some();
    let format = output_format(
        args.format,
        args.output.as_deref(),
        EventsFormat::from_extension,
        ".csv, .jsonl, .json, .txt or .parquet",
        if on_terminal {
            EventsFormat::Table
        } else {
            EventsFormat::Csv
        },
    )?;
    let attrs = AttrRequest::build(args.args.unwrap_or_default(), &args.arg, &args.arg_spec)?;
    let name = args
        .name
        .as_deref()
        .map(|p| crate::analysis::diff::compile_pattern("--name", p))
        .transpose()?;
    let side = load_side_ranks(&args.path, &attrs, &[&args.rank.clone().unwrap_or(Pick::All)], false)?;
    print_notes(&side.notes, env);
    let mut resolved = resolve(
        &side,
        "events",
        &SideSelection {
            ranks: args.rank.clone().unwrap_or(Pick::All),
            iterations: args.iteration.clone().unwrap_or(Pick::All),
        },
    )?;
    if args.iteration.is_none() {
        resolved.iterations = None;
    }
    let filter = EventFilter {
        device: args.device.unwrap_or_default(),
        name,
        cats: args.cat.clone(),
    };
    let rows = match &args.output {
        Some(path) if format == EventsFormat::Parquet => {
            let file = std::fs::File::create(path).map_err(|e| Error::Output {
                path: path.clone(),
                source: e,
            })?;
            let w = std::io::BufWriter::with_capacity(1 << 20, file);
            crate::output::events_parquet::write_events_parquet(&side, &resolved, &filter, w)
                .map_err(|e| relabel(e, path))?
        }
        Some(path) => {
            let file = std::fs::File::create(path).map_err(|e| Error::Output {
                path: path.clone(),
                source: e,
            })?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
            let rows = write_events(&side, &resolved, &filter, format, &mut w).map_err(|e| relabel(e, path))?;
            w.flush().map_err(|e| Error::Output {
                path: path.clone(),
                source: e,
            })?;
            rows
        }
        None => {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut *env.stdout);
            let rows = write_events(&side, &resolved, &filter, format, &mut w)
                .map_err(|e| relabel(e, Path::new("<stdout>")))?;
            w.flush().map_err(|e| Error::Output {
                path: PathBuf::from("<stdout>"),
                source: e,
            })?;
            rows
        }
    };
    if rows == 0 {
        print_notes(&[crate::output::events::why_no_events(&side, &resolved, &filter)], env);
    }
    Ok(0)
}

fn run_plot(args: PlotArgs, env: &mut Env<'_>) -> Result<i32> {
    crate::output::render::plot::check_size(args.width, args.height)?;
    let comparison = comparison_for(
        args.control.as_deref(),
        args.test.as_deref(),
        &args.select,
        args.labels.as_ref(),
        env,
    )?;
    if args.top == 0 {
        return Err(Error::usage("--top must be at least 1"));
    }
    let charts: Vec<(bool, &str)> = match args.metric {
        Metric::Counts => vec![(false, "counts")],
        Metric::Duration => vec![(true, "duration")],
        Metric::Both => vec![(false, "counts"), (true, "duration")],
    };
    for (duration, name) in charts {
        let path = plot_path(args.output.as_deref(), name, args.metric == Metric::Both);
        let format = ImageFormat::from_path(&path)?;
        let chart = chart_of(&comparison, duration, args.sort, args.top, (args.width, args.height))?;
        let bytes = draw(&chart, format)?;
        std::fs::write(&path, bytes).map_err(|e| Error::Output {
            path: path.clone(),
            source: e,
        })?;
        let _ = writeln!(env.stdout, "{}", path.display());
    }
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

fn run_gate(args: GateArgs, env: &mut Env<'_>) -> Result<i32> {
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
                .map_err(|e| Error::input(path, format!("cannot read: {}", crate::input::read::io_reason(&e))))?;
            GateConfig::from_toml(&text, path)?
        }
        None => GateConfig::default(),
    };
    let from_cli = GateConfig {
        max_step_time_regression: args.max_step_time_regression.clone(),
        max_op_regression: args.max_op_regression.clone(),
        min_op_time: args.min_op_time.clone(),
        fail_on_added: args.fail_on_added.clone(),
        fail_on_deleted: args.fail_on_deleted.clone(),
        max_count_increase: args.max_count_increase.clone(),
        max_gpu_busy_regression: args.max_gpu_busy_regression.clone(),
        noise_k: args.noise_k,
        relative: args.relative.then_some(true),
        device: args.device,
        normalize_names: args.normalize_names.then_some(true),
        short_names: args.short_names.then_some(true),
    };
    let config = from_file.overridden_by(from_cli);
    let rules = Rules::from_config(&config)?;
    let keying = crate::analysis::aggregate::Keying {
        naming: if config.short_names.unwrap_or(false) {
            crate::analysis::aggregate::Naming::ShortName
        } else {
            crate::analysis::aggregate::Naming::Name
        },
        normalize: config.normalize_names.unwrap_or(false),
        group_by: Vec::new(),
    };
    let device = config.device.unwrap_or_default();
    let sel = SideSelection {
        ranks: args.rank.clone().unwrap_or(Pick::All),
        iterations: args.iteration.clone().unwrap_or(Pick::All),
    };
    let (base, cand) = crate::analysis::summary::load_summary_pair(&args.baseline, &args.candidate, (&sel, &sel))?;
    print_notes(&pair_notes(&base, &cand), env);
    let base_res = resolve(&base, "baseline", &sel)?;
    let cand_res = resolve(&cand, "candidate", &sel)?;
    let base_samples = measure(&base, &base_res, device, &keying)?;
    let cand_samples = measure(&cand, &cand_res, device, &keying)?;
    let report = evaluate(
        &rules,
        (&base, &base_res, &base_samples),
        (&cand, &cand_res, &cand_samples),
    );
    emit(&output, args.full_names, env, |format, style, out| {
        out.write_all(crate::output::render::gate::render(&report, format, style.full_names).as_bytes())
    })?;
    Ok(if report.verdict == Verdict::Fail { 1 } else { 0 })
}

/// Names the output an I/O error happened on.
fn relabel(e: Error, path: &Path) -> Error {
    match e {
        Error::Output { source, .. } => Error::Output {
            path: path.to_path_buf(),
            source,
        },
        other => other,
    }
}

/// The comparison of CONTROL and TEST when both are given, else the saved one.
fn comparison_for(
    control: Option<&Path>,
    test: Option<&Path>,
    select: &SelectArgs,
    labels: Option<&Labels>,
    env: &mut Env<'_>,
) -> Result<Comparison> {
    match (control, test) {
        (Some(c), Some(t)) => {
            let req = with_labels(request_from(select, CompareRequest::new(c, t)), labels);
            check_specs_used(select, &req)?;
            let (comparison, notes) = compare(&req)?;
            print_notes(&notes, env);
            Ok(comparison)
        }
        _ => saved_comparison(select, labels, env),
    }
}

/// The saved comparison with the given options applied: reused as is when they do not change
/// which events count, recomputed from the saved paths when they do.
pub fn saved_comparison(select: &SelectArgs, labels: Option<&Labels>, env: &mut Env<'_>) -> Result<Comparison> {
    let (saved, path) = state::load(&env.state_dir)?;
    let req = with_labels(request_from(select, saved.request.clone()), labels);
    check_specs_used(select, &req)?;
    let _ = writeln!(
        env.stderr,
        "tracediff: using the comparison saved in {} ({} vs {})",
        path.display(),
        req.control.display(),
        req.test.display()
    );
    let same_events = saved.request.rows_key() == req.rows_key();
    let saved_unfiltered = saved.request.include.is_empty() && saved.request.exclude.is_empty();
    let same_filter = saved.request.include == req.include && saved.request.exclude == req.exclude;
    let filter = NameFilter::new(&req.include, &req.exclude)?;
    check_labels(&req.labels)?;
    if same_events && (saved_unfiltered || same_filter) {
        let mut c = saved.comparison;
        if let Some(why) = filter.retain_explained(&mut c.rows, &req.group_by) {
            print_notes(&[why], env);
        }
        c.include = req.include.clone();
        c.exclude = req.exclude.clone();
        c.control.label = req.labels[0].clone();
        c.test.label = req.labels[1].clone();
        return Ok(c);
    }
    let (comparison, notes) = compare(&req)?;
    print_notes(&notes, env);
    Ok(comparison)
}

/// The output format: `--format` when given, else the one that `-o FILE`'s extension names, else
/// `default`. An extension that names no format (`-o diff.png`) is refused rather than filled with
/// text of another kind.
fn output_format<F: Copy>(
    given: Option<F>,
    output: Option<&Path>,
    from_extension: fn(&Path) -> Option<F>,
    known: &str,
    default: F,
) -> Result<F> {
    if let Some(f) = given {
        return Ok(f);
    }
    let Some(path) = output else { return Ok(default) };
    match (from_extension(path), path.extension()) {
        (Some(f), _) => Ok(f),
        (None, None) => Ok(default),
        (None, Some(ext)) => Err(Error::usage(format!(
            "cannot tell the output format of {} from its extension .{}: use {known}, or give --format",
            path.display(),
            ext.to_string_lossy()
        ))),
    }
}

/// Refuses an output whose format cannot be told before any work is done.
fn check_output(output: &OutputArgs) -> Result<Format> {
    output_format(
        output.format,
        output.output.as_deref(),
        Format::from_extension,
        ".csv, .json, .md or .txt",
        Format::Table,
    )
}

/// Renders in the chosen format and writes to `-o FILE` or standard output, as it is rendered.
fn emit(
    output: &OutputArgs,
    full_names: bool,
    env: &mut Env<'_>,
    render: impl Fn(Format, TableStyle, &mut dyn Write) -> std::io::Result<()>,
) -> Result<i32> {
    let format = check_output(output)?;
    let written = |path: &Path, e: std::io::Error| Error::Output {
        path: path.to_path_buf(),
        source: e,
    };
    match &output.output {
        Some(path) => {
            let file = std::fs::File::create(path).map_err(|e| written(path, e))?;
            let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
            let style = TableStyle {
                full_names,
                ..TableStyle::default()
            };
            render(format, style, &mut w)
                .and_then(|()| w.flush())
                .map_err(|e| written(path, e))?;
        }
        None => {
            let style = TableStyle {
                width: env.terminal_width.unwrap_or(TableStyle::default().width),
                full_names,
            };
            let stdout = Path::new("<stdout>");
            let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut *env.stdout);
            render(format, style, &mut w)
                .and_then(|()| w.flush())
                .map_err(|e| written(stdout, e))?;
        }
    }
    Ok(0)
}
