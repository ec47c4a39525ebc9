//! The command line: argument definitions, and running a command with its output streams.
//!
//! Its public face is what another front end needs: [`entry::main_with_args`] runs the command
//! line (the binary and the Python package's `tracediff` command call it), [`Cli`] is its clap
//! definition (for completions and the manual page) and [`examples`] the `Examples:` of each
//! command's help. The commands themselves are crate-private: the library's API is `analysis`
//! and `output`.

pub(crate) mod classes;
pub(crate) mod compare;
pub mod entry;
pub(crate) mod events;
pub mod examples;
pub(crate) mod explain;
pub(crate) mod fit;
pub(crate) mod flamegraph;
pub(crate) mod gate;
pub(crate) mod generate;
pub(crate) mod history;
pub(crate) mod modules;
mod numbers;
pub(crate) mod one_run;
pub(crate) mod plot;
pub(crate) mod report;
pub(crate) mod sides;
mod suggest;

use crate::analysis::diff::SortKey;
use crate::analysis::select::{Device, Pick};
use crate::error::{Error, Result};
use crate::input::attrs::{AttrRequest, Preset};
use crate::output::paint::ColorChoice;
use crate::output::render::{Format, TableStyle};
use crate::request::CompareRequest;
use crate::request::check_labels;
use crate::request::side::SidePaths;
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) mod views;

use compare::{CompareArgs, OpsDiffArgs, run_compare, run_ops_diff};
use events::{EventsArgs, SummarizeArgs, run_events, run_summarize};
use gate::{GateArgs, run_gate};
use plot::{PlotArgs, run_plot};

const AFTER_HELP: &str = "\
Exit status: 0 success, 1 a regression gate failed, 2 bad usage or unreadable/invalid input.

Examples:
  tracediff compare control/ test/
  tracediff compare ctl.json.gz tst.json.gz --device gpu --short-names --top 20
  tracediff compare runs/ runs/ --control-rank 0 --test-rank 1
  tracediff ops-diff --category added
  tracediff plot --top 10
  tracediff events run/ --arg input_dims --name 'aten::mm' --format csv
  tracediff gate baseline/ candidate/ --max-step-time-regression 5% --max-op-regression 10%";

#[derive(Debug, Parser)]
#[command(
    name = "tracediff",
    version,
    about = "Compare two sets of PyTorch profiler (Kineto) traces: which operators and GPU kernels \
             were added or removed, ran more or less often, and where the time moved.",
    after_help = AFTER_HELP,
    max_term_width = 100,
    long_about = None
)]
/// The command line's arguments, as clap parses them (`Cli::command()` gives the definition).
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// No notes on standard error (what was read, caveats, files written); errors and warnings
    /// still show.
    #[arg(long, short = 'q', global = true)]
    pub(crate) quiet: bool,
    /// Colour significant rows of a table (red slower, green faster): `auto` at a terminal
    /// unless NO_COLOR is set, never in a pipe or a file; `always` in a pipe too.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// The comparison table: counts and total durations per name on both sides (HTA compare_traces).
    #[command(after_help = examples::after_help(compare::COMPARE_HELP, examples::COMPARE))]
    Compare(CompareArgs),
    /// Names that were added, deleted, or ran more, fewer or as many times (HTA ops_diff).
    #[command(name = "ops-diff", after_help = examples::after_help(compare::OPS_DIFF_HELP, examples::OPS_DIFF))]
    OpsDiff(OpsDiffArgs),
    /// Bar charts of the top rows: control, test and their difference, as PNG or SVG.
    #[command(
        after_help = examples::after_help(plot::PLOT_HELP, examples::PLOT),
        mut_arg("exclude", |a| a
            .default_values(crate::output::render::plot::DEFAULT_EXCLUDE)
            .help("Drop rows whose name matches this regular expression (repeatable; given, it replaces the default, which leaves out the step rows and the runtime API calls; --all-rows keeps every row)"))
    )]
    Plot(PlotArgs),
    /// The event table of one side: a row per counted event, with the attributes you choose.
    #[command(after_help = examples::after_help(events::EVENTS_HELP, examples::EVENTS))]
    Events(EventsArgs),
    /// One trace → a small Parquet summary that compare, ops-diff, plot, gate and overview read
    /// in its place (summarise each rank where it lies, compare the summaries anywhere).
    #[command(after_help = examples::after_help(events::SUMMARIZE_HELP, examples::SUMMARIZE))]
    Summarize(SummarizeArgs),
    /// A regression check for CI: exit 1 when a rule fails beyond run-to-run noise, 0 when all pass.
    #[command(after_help = examples::after_help(gate::GATE_HELP, examples::GATE))]
    Gate(GateArgs),
    /// A store of earlier runs for `gate --history`: add a run, show the series and change points.
    #[command(after_help = examples::after_help(history::HISTORY_HELP, examples::HISTORY))]
    History(history::HistoryArgs),
    /// Why each operator changed: more calls, more work per call, or less efficient.
    #[command(after_help = examples::after_help(explain::EXPLAIN_HELP, examples::EXPLAIN))]
    Explain(explain::ExplainArgs),
    /// Per operator: calls, host and device self and total time on both sides.
    #[command(after_help = examples::after_help(views::OPERATORS_HELP, examples::OPERATORS))]
    Operators(views::OperatorsArgs),
    /// Per kernel (or per launching operator and kernel): calls, total, mean, min, max.
    #[command(after_help = examples::after_help(views::KERNELS_HELP, examples::KERNELS))]
    Kernels(views::KernelsArgs),
    /// Device, steps, step time, GPU busy and utilisation, memory, per side with Δ.
    #[command(
        after_help = examples::after_help(views::OVERVIEW_HELP, examples::OVERVIEW),
        mut_arg("iteration", |a| a.help(crate::request::defaults::iteration_help_without_hta())),
    )]
    Overview(views::OverviewArgs),
    /// The two runs aligned module by module (nn.Module, annotations, backward), with zoom.
    #[command(
        after_help = examples::after_help(modules::MODULES_HELP, examples::MODULES),
        mut_arg("iteration", |a| a.help(crate::request::defaults::iteration_help_without_hta())),
    )]
    Modules(modules::ModulesArgs),
    /// One self-contained HTML page to click through: overview, module bars with zoom, tables.
    #[command(after_help = examples::after_help(report::REPORT_HELP, examples::REPORT))]
    Report(report::ReportArgs),
    /// A differential flame graph (SVG, inferno) of the module tree, or its folded stacks.
    #[command(
        after_help = examples::after_help(flamegraph::FLAMEGRAPH_HELP, examples::FLAMEGRAPH),
        mut_arg("iteration", |a| a.help(crate::request::defaults::iteration_help_without_hta())),
    )]
    Flamegraph(flamegraph::FlamegraphArgs),
    /// A completion script for bash, zsh, fish, elvish or PowerShell, on standard output.
    #[command(after_help = examples::after_help(generate::COMPLETIONS_HELP, examples::COMPLETIONS))]
    Completions(generate::CompletionsArgs),
    /// The manual page (roff), on standard output or to -o FILE.
    #[command(after_help = examples::after_help(generate::MAN_HELP, examples::MAN))]
    Man(generate::ManArgs),
}

/// Which ranks and steps each side uses: the whole selection of the commands that measure steps
/// or the module tree (`overview`, `modules`, `flamegraph`), which key no rows by name, so that
/// `--include` or `--device` there is refused by the parser rather than accepted and ignored.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Selection")]
pub(crate) struct StepArgs {
    #[arg(long, value_name = "RANKS", help = crate::request::defaults::rank_help("both sides"))]
    pub rank: Option<Pick>,
    #[arg(long, value_name = "STEPS", help = crate::request::defaults::iteration_help("both sides"))]
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
    /// The steps are the outermost user annotations whose names match REGEX, numbered from 0
    /// (instead of ProfilerStep or a serving loop's step annotations; docs/graphs.md).
    #[arg(long, value_name = "REGEX")]
    pub step_marker: Option<String>,
}

/// The options of [`SelectArgs`] that shape or filter rows by name or device, on the commands
/// that have no such rows (`overview` measures whole steps; `modules` and `flamegraph` show the
/// module tree whole). They are hidden from those commands' help and refused with the reason
/// when given: accepted, they changed nothing, and a user could believe the output filtered.
/// `--normalize-names` is the default everywhere and stays accepted.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct UnusedRowArgs {
    #[arg(long, hide = true, value_name = "DEVICE")]
    device: Option<String>,
    #[arg(long, hide = true)]
    short_names: bool,
    #[arg(long, hide = true)]
    normalize_names: bool,
    #[arg(long, hide = true)]
    raw_names: bool,
    #[arg(long, hide = true)]
    python_frames: bool,
    #[arg(long, hide = true)]
    hta: bool,
    #[arg(long, hide = true, value_name = "ATTR[,ATTR]")]
    group_by: Vec<String>,
    #[arg(long, hide = true, value_name = "SPEC")]
    arg_spec: Vec<String>,
    #[arg(long, hide = true, value_name = "REGEX")]
    include: Vec<String>,
    #[arg(long, hide = true, value_name = "REGEX")]
    exclude: Vec<String>,
}

impl UnusedRowArgs {
    /// The first of these options given, as typed.
    fn first_given(&self) -> Option<&'static str> {
        [
            (self.device.is_some(), "--device"),
            (self.short_names, "--short-names"),
            (self.raw_names, "--raw-names"),
            (self.python_frames, "--python-frames"),
            (self.hta, "--hta"),
            (!self.group_by.is_empty(), "--group-by"),
            (!self.arg_spec.is_empty(), "--arg-spec"),
            (!self.include.is_empty(), "--include"),
            (!self.exclude.is_empty(), "--exclude"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// Refuses any of them given to `command`, whose output `what` says.
    pub(crate) fn refuse(&self, command: &str, what: &str) -> Result<()> {
        match self.first_given() {
            None => Ok(()),
            Some(flag) => Err(Error::usage(format!(
                "{command} does not take {flag}: {what}, with no rows to shape or filter by name or device \
                 (compare, operators and kernels take it)"
            ))),
        }
    }
}

/// Options that choose what is compared, shared by the commands that key rows by name.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Selection")]
pub(crate) struct SelectArgs {
    #[command(flatten)]
    pub steps: StepArgs,
    /// Events that ran on the CPU, on the GPU, or both [default: all].
    #[arg(long, value_enum)]
    pub device: Option<Device>,
    /// Group by HTA's short names (`void cutlass::Kernel<...>(...)` → `cutlass::Kernel`).
    #[arg(long)]
    pub short_names: bool,
    /// Rewrite run-specific noise out of names before grouping: memory addresses (0x7f… → 0x*),
    /// step numbers (ProfilerStep#12 → ProfilerStep#*), hex ids of 16+ digits (→ *). This is
    /// the default now; the flag is still accepted.
    #[arg(long, overrides_with = "raw_names")]
    pub normalize_names: bool,
    /// Keep names as recorded (no --normalize-names rewriting).
    #[arg(long, overrides_with = "normalize_names")]
    pub raw_names: bool,
    /// Count Python call-stack frames (python_function events of `with_stack` traces) as rows;
    /// by default rows are the operations: operators, kernels, copies, runtime calls, annotations.
    #[arg(long)]
    pub python_frames: bool,
    /// HTA's exact table: --python-frames --raw-names, HTA's selection defaults (the lowest
    /// rank and step). compare and ops-diff then equal HTA's compare_traces and ops_diff.
    #[arg(long)]
    pub hta: bool,
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

impl From<&StepArgs> for SelectArgs {
    fn from(steps: &StepArgs) -> SelectArgs {
        SelectArgs {
            steps: steps.clone(),
            ..SelectArgs::default()
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Labels(pub [String; 2]);

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
pub(crate) struct OutputArgs {
    /// Output format [default: from the -o extension (.csv .json .md), else table].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Show only the first N rows (for ops-diff: N names per category).
    #[arg(long, value_name = "N", value_parser = numbers::count)]
    pub top: Option<usize>,
    /// Row order; ties are broken by name [default: abs-diff-duration for compare, name for ops-diff].
    #[arg(long, value_enum, value_name = "KEY")]
    pub sort: Option<SortKey>,
}

/// What `run` needs from the process around it.
pub(crate) struct Env<'a> {
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    /// Width to fit a table in when writing to standard output.
    pub terminal_width: Option<usize>,
    /// Width tables fit in (`--width`, else `COLUMNS`, else the terminal's, else
    /// [`fit::PIPE_WIDTH`]); `None`: names are never cut.
    pub table_width: Option<usize>,
    /// Width notes on standard error are wrapped to where it is a terminal (`COLUMNS`, else
    /// the terminal's); `None` (piped): one line each, as scripts grep them.
    pub notes_width: Option<usize>,
    pub state_dir: PathBuf,
    /// `--quiet`: notes are not printed.
    pub quiet: bool,
    /// `--full-names`: tables keep names whole.
    pub full_names: bool,
    /// Whether tables written to standard output colour their significant rows (`--color`).
    pub color: bool,
}

/// Runs one command. Returns the exit code for a successful run (0).
pub(crate) fn run(cli: Cli, env: &mut Env<'_>) -> Result<i32> {
    // A bad output path fails now, not after the traces have loaded.
    for path in output_paths(&cli.command) {
        crate::atomic::check_writable(path)?;
    }
    if let Some(fit) = fit::fit_of(&cli.command) {
        env.table_width = fit.width.or(env.table_width);
        env.full_names |= fit.full_names;
    }
    match cli.command {
        Command::Compare(args) => run_compare(args, env),
        Command::OpsDiff(args) => run_ops_diff(args, env),
        Command::Events(args) => run_events(args, env),
        Command::Gate(args) => run_gate(args, env),
        Command::History(args) => history::run_history(args, env),
        Command::Summarize(args) => run_summarize(args, env),
        Command::Plot(args) => run_plot(args, env),
        Command::Explain(args) => explain::run_explain(args, env),
        Command::Operators(args) if args.pair.alone() => one_run::run_operators(&args, env),
        Command::Operators(args) => views::run_operators(args, env),
        Command::Kernels(args) if args.pair.alone() => one_run::run_kernels(&args, env),
        Command::Kernels(args) if args.by_class || args.aligned => classes::run_kernel_classes(args, env),
        Command::Kernels(args) => views::run_kernels(args, env),
        Command::Overview(args) if args.pair.alone() => one_run::run_overview(&args, env),
        Command::Overview(args) => views::run_overview(args, env),
        Command::Modules(args) if args.pair.alone() => one_run::run_modules(&args, env),
        Command::Modules(args) => modules::run_modules(args, env),
        Command::Report(args) => report::run_report(args, env),
        Command::Flamegraph(args) => flamegraph::run_flamegraph(args, env),
        Command::Completions(args) => generate::run_completions(args, env),
        Command::Man(args) => generate::run_man(args, env),
    }
}

/// A new request for CONTROL and TEST: the command line's defaults (the operations, normalised
/// names; see [`CompareRequest::operations`]) and the options given.
pub(crate) fn fresh_request(select: &SelectArgs, control: SidePaths, test: SidePaths) -> CompareRequest {
    request_from(select, CompareRequest::new(control, test).operations())
}

/// The files a command will write (each written whole or not at all: `crate::atomic`).
fn output_paths(command: &Command) -> Vec<&Path> {
    let plot_default = Path::new("tracediff-counts.png");
    let paths: Vec<Option<&Path>> = match command {
        Command::Compare(a) => vec![a.output.output.as_deref(), a.report.as_deref()],
        Command::OpsDiff(a) => vec![a.output.output.as_deref()],
        Command::Events(a) => vec![a.output.as_deref()],
        Command::Gate(a) => vec![a.output.as_deref()],
        Command::History(a) => a.output_paths().into_iter().map(Some).collect(),
        Command::Summarize(a) => vec![(!a.writes_dataset()).then_some(a.output.as_path())],
        Command::Plot(a) => vec![Some(a.output.as_deref().unwrap_or(plot_default))],
        Command::Explain(a) => vec![a.output.as_deref()],
        Command::Operators(a) => vec![a.output.output.as_deref()],
        Command::Kernels(a) => vec![a.output.output.as_deref()],
        Command::Overview(a) => vec![a.output.as_deref()],
        Command::Modules(a) => vec![a.output.as_deref()],
        Command::Report(a) => vec![Some(a.output.as_path())],
        Command::Man(a) => vec![a.output.as_deref()],
        Command::Flamegraph(a) => vec![a.output.as_deref()],
        Command::Completions(_) => vec![],
    };
    paths.into_iter().flatten().collect()
}

/// Builds a request from the options given, on top of `base` (defaults or a saved request).
fn request_from(select: &SelectArgs, mut base: CompareRequest) -> CompareRequest {
    let steps = &select.steps;
    if let Some(r) = &steps.rank {
        base.control_selection.ranks = r.clone();
        base.test_selection.ranks = r.clone();
    }
    if let Some(i) = &steps.iteration {
        base.control_selection.iterations = i.clone();
        base.test_selection.iterations = i.clone();
    }
    if let Some(r) = &steps.control_rank {
        base.control_selection.ranks = r.clone();
    }
    if let Some(r) = &steps.test_rank {
        base.test_selection.ranks = r.clone();
    }
    if let Some(i) = &steps.control_iteration {
        base.control_selection.iterations = i.clone();
    }
    if let Some(i) = &steps.test_iteration {
        base.test_selection.iterations = i.clone();
    }
    if let Some(m) = &steps.step_marker {
        base.step_marker = Some(m.clone());
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
    if select.raw_names {
        base.normalize_names = false;
    }
    if select.python_frames {
        base.python_frames = true;
    }
    if select.hta {
        base.python_frames = true;
        base.normalize_names = false;
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

/// Prints a command's notes (whether it succeeded or failed: they were found before it
/// ended) and returns its value or its error.
fn finish<T>(done: crate::commands::Done<T>, env: &mut Env<'_>) -> Result<T> {
    match done {
        Ok(outcome) => {
            print_all(&outcome.notes, env);
            Ok(outcome.value)
        }
        Err(failure) => {
            print_all(&failure.notes, env);
            Err(failure.error)
        }
    }
}

/// Prints notes on standard error: caveats as `tracediff: note: …` (wrapped on a terminal),
/// what was used or done as `tracediff: …`.
fn print_all(notes: &[crate::commands::Note], env: &mut Env<'_>) {
    use crate::commands::Note;
    if env.quiet {
        return;
    }
    for note in notes {
        match note {
            Note::Caveat(text) => print_notes(std::slice::from_ref(text), env),
            other => {
                let _ = writeln!(env.stderr, "{other}");
            }
        }
    }
}

fn print_notes(notes: &[String], env: &mut Env<'_>) {
    if env.quiet {
        return;
    }
    for n in notes {
        let line = format!("tracediff: note: {n}");
        let text = match env.notes_width {
            // One line each at a terminal, cut after the last clause that fits (piped or
            // redirected, whole: `2>notes.txt`).
            Some(width) => crate::output::render::one_line_note(&line, width),
            None => line,
        };
        let _ = writeln!(env.stderr, "{text}");
    }
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

/// `-o -` names standard output, as the usual convention has it (not a file named `-`): the
/// output as a command takes it, `None` for standard output.
fn dash_is_stdout(output: Option<PathBuf>) -> Option<PathBuf> {
    output.filter(|p| p.as_os_str() != "-")
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

/// Renders `format` to `out`; a table or Markdown (text for people) with its control characters
/// shown escaped, CSV and JSON exactly (docs/robustness.md#control-characters).
fn render_shown(
    format: Format,
    style: TableStyle,
    out: &mut dyn Write,
    render: &impl Fn(Format, TableStyle, &mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    match format {
        Format::Table | Format::Markdown => {
            let mut shown = crate::output::visible::VisibleControls::new(out);
            render(format, style, &mut shown)?;
            shown.flush()
        }
        Format::Csv | Format::Json => render(format, style, out),
    }
}

/// Renders in the chosen format and writes to `-o FILE` or standard output, as it is rendered.
fn emit(
    output: &OutputArgs,
    full_names: bool,
    env: &mut Env<'_>,
    render: impl Fn(Format, TableStyle, &mut dyn Write) -> std::io::Result<()>,
) -> Result<i32> {
    let format = check_output(output)?;
    let file = dash_is_stdout(output.output.clone());
    let written = |path: &Path, e: std::io::Error| Error::Output {
        path: path.to_path_buf(),
        source: e,
    };
    // A table fits the width, to a file or a pipe as on a terminal; CSV, JSON and Markdown
    // (documents read whole) keep names whole.
    let table = format == Format::Table;
    let full_names = full_names || env.full_names || env.table_width.is_none() || !table;
    let style = TableStyle {
        width: if table {
            env.table_width.unwrap_or(usize::MAX)
        } else {
            usize::MAX
        },
        full_names,
        color: false,
    };
    match &file {
        Some(path) => {
            crate::atomic::write_atomically(path, |w| render_shown(format, style, w, &render))?;
        }
        None => {
            // Colour on standard output only, never into a file.
            let style = TableStyle {
                color: env.color && format == Format::Table,
                ..style
            };
            let stdout = Path::new("<stdout>");
            let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut *env.stdout);
            render_shown(format, style, &mut w, &render)
                .and_then(|()| w.flush())
                .map_err(|e| written(stdout, e))?;
        }
    }
    Ok(0)
}

/// The command line's selection: every step of each side unless steps were named, or `--hta`
/// (HTA's lowest step) was given ([`CompareRequest::every_step_unless_named`]).
pub(crate) fn every_step_by_default(req: &mut CompareRequest, select: &SelectArgs) {
    let s = &select.steps;
    if !select.hta {
        req.every_step_unless_named(
            s.iteration.is_some() || s.control_iteration.is_some(),
            s.iteration.is_some() || s.test_iteration.is_some(),
        );
    }
}
