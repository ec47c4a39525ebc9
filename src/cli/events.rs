//! `events` (the event table as CSV, JSON or Parquet) and `summarize` (one trace to a summary).

use super::{Env, finish, output_format};
use crate::analysis::select::{Device, Pick};
use crate::atomic::AtomicFile;
use crate::commands::{EventTable, EventsRequest, Outcome};
use crate::error::{Error, Result};
use crate::input::attrs::Preset;
use crate::output::events::EventsFormat;
use crate::output::visible::VisibleControls;
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) const EVENTS_HELP: &str = "\
Columns: index (position in traceEvents), rank, name, cat, pid, tid, ts, dur (µs), stream,
correlation, index_correlation (the partner's index: launch <-> kernel, -1 without one),
iteration (-1 outside every ProfilerStep), then the chosen attributes. Every rank and every event
is listed unless --rank/--iteration narrow it. Attributes: --args default|complete|all, --arg NAME
for built-in ones (input_dims, input_type, input_strides, external_id, grid, block, bytes,
registers_per_thread, shared_memory, est_occupancy, device, context, queued, cbid, sequence, ...),
--arg-spec 'column=raw key:type:default' for any other key.";

#[derive(Debug, Args)]
pub(crate) struct EventsArgs {
    /// A directory of traces or one trace file.
    pub path: PathBuf,
    /// Ranks: a number, a range (`2-4`), a comma list, or `all` [default: all].
    #[arg(long, value_name = "RANKS")]
    pub rank: Option<Pick>,
    /// ProfilerStep numbers: a number, a range (`2-4`), a comma list, or `all` (events inside steps)
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
    pub args: Option<PresetArg>,
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
    #[command(flatten)]
    pub fit: super::fit::FitArgs,
}

/// Named sets of attributes (the command line's face of [`Preset`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PresetArg {
    /// No attribute columns beyond the core ones.
    None,
    /// HTA's default set: bytes, bandwidth, sync waits, input dims/types/strides, external id.
    Default,
    /// Every built-in attribute but the `info` ones (HTA's `ARGS_COMPLETE`).
    Complete,
    /// A column for every key found in any event's `args`, typed by its first value.
    All,
}

impl From<PresetArg> for Preset {
    fn from(p: PresetArg) -> Self {
        match p {
            PresetArg::None => Preset::None,
            PresetArg::Default => Preset::Default,
            PresetArg::Complete => Preset::Complete,
            PresetArg::All => Preset::All,
        }
    }
}

pub(super) fn run_events(mut args: EventsArgs, env: &mut Env<'_>) -> Result<i32> {
    args.output = super::dash_is_stdout(args.output);
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
    let req = EventsRequest {
        path: args.path.clone(),
        ranks: args.rank.clone(),
        iterations: args.iteration.clone(),
        device: args.device.unwrap_or_default(),
        name: args.name.clone(),
        cats: args.cat.clone(),
        preset: args.args.map(Preset::from).unwrap_or_default(),
        args: args.arg.clone(),
        arg_specs: args.arg_spec.clone(),
    };
    let table = finish(crate::commands::events(&req), env)?;
    let rows = match &args.output {
        Some(path) => write_file(
            &table,
            format,
            path,
            if env.full_names { None } else { env.table_width },
        )?,
        None => {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, &mut *env.stdout);
            let rows = if format == EventsFormat::Table {
                {
                    let width = if env.full_names { None } else { env.table_width };
                    table.write_table(width.unwrap_or(usize::MAX), &mut VisibleControls::new(&mut w))
                }
            } else {
                table.write(format, &mut w)
            }
            .map_err(|e| relabel(e, Path::new("<stdout>")))?;
            w.flush().map_err(|e| Error::Output {
                path: PathBuf::from("<stdout>"),
                source: e,
            })?;
            rows
        }
    };
    if rows == 0 {
        finish(
            Ok(Outcome {
                value: (),
                notes: vec![table.empty_note()],
            }),
            env,
        )?;
    }
    Ok(0)
}

/// Writes the event table to `path` whole or not at all; returns the number of rows.
fn write_file(table: &EventTable, format: EventsFormat, path: &Path, width: Option<usize>) -> Result<u64> {
    let mut file = AtomicFile::create(path)?;
    let rows = match format {
        EventsFormat::Parquet => table.write_parquet(file.writer()),
        // Text for people: control characters shown escaped.
        EventsFormat::Table => table.write_table(width.unwrap_or(usize::MAX), &mut VisibleControls::new(file.writer())),
        _ => table.write(format, file.writer()),
    }
    .map_err(|e| relabel(e, path))?;
    file.commit()?;
    Ok(rows)
}

pub(crate) const SUMMARIZE_HELP: &str = "\
The summary holds, per (iteration, name, category, place), the number of events and their total
duration, and per step what gate and overview measure (step time, GPU and host busy time, memory).
Give summaries (files, or directories of *.parquet files) to compare, ops-diff, plot, gate or
overview anywhere they take traces: the output is the same, byte for byte. Commands that need
the events themselves (events, operators, kernels, modules, report, compare --group-by) refuse
them. The written path is printed.

A summary dataset (docs/summaries.md): given a directory of traces, or --label, or an -o that is
a directory (existing, or ending in '/'), summarize writes OUTDIR/run=<label>/rank=<r>.parquet,
one file per rank (the label is the traces' directory name unless --label gives it). Every
command that reads summaries reads the dataset's directory (one run: that run; several: a set of
runs, as compare reads control/run1/ … runN/) or one run=<label> directory of it. A directory of
runs (control/run1/ … runN/) is written as one run=<name> per run.";

#[derive(Debug, Args)]
pub(crate) struct SummarizeArgs {
    /// One trace file (Kineto or rocprofv3 *.json, *.json.gz; Nsight *.sqlite), or a directory
    /// of a run's traces (written as a summary dataset).
    pub trace: PathBuf,
    /// The summary file to write (Parquet), or the dataset's directory (OUTDIR).
    #[arg(short = 'o', long = "output", value_name = "FILE|OUTDIR")]
    pub output: PathBuf,
    /// The run's label in the dataset (`run=<label>/`) [default: the traces' directory name].
    /// Writes a dataset, for one trace file too.
    #[arg(long, value_name = "LABEL")]
    pub label: Option<String>,
}

impl SummarizeArgs {
    /// Whether a summary dataset is written (a directory of traces, `--label`, or an output
    /// that names a directory) rather than one summary file.
    pub(crate) fn writes_dataset(&self) -> bool {
        let out = &self.output;
        self.label.is_some()
            || std::fs::metadata(&self.trace).is_ok_and(|m| m.is_dir())
            || out.is_dir()
            || out.as_os_str().as_encoded_bytes().ends_with(b"/")
    }
}

pub(super) fn run_summarize(args: SummarizeArgs, env: &mut Env<'_>) -> Result<i32> {
    if args.output.as_os_str() == "-" {
        return Err(Error::usage(
            "a summary is a Parquet file: give -o FILE.parquet, not standard output",
        ));
    }
    let done = crate::commands::summarize(&args.trace, &args.output, args.label.as_deref(), args.writes_dataset());
    for path in super::finish(done, env)? {
        let _ = writeln!(env.stdout, "{}", path.display());
    }
    Ok(0)
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
