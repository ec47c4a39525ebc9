//! `history add` and `history show`: a store of earlier runs for `gate --history`.

use super::{Env, OutputArgs, check_output, emit, finish};
use crate::commands::{AddRequest, ShowRequest};
use crate::error::Result;
use crate::output::render::Format;
use clap::{Args, Subcommand};
use std::path::PathBuf;

pub(crate) const HISTORY_HELP: &str = "\
A history store is a directory of run summaries, STORE/run=<seq>/rank=<r>.parquet, with each run's
line (run=<seq>/run.jsonl) and a runs table (STORE/runs.csv: seq, label, time, branch, meta,
tool_version, ranks, source); DuckDB and pandas read it without tracediff. `history add` summarises
one run into it (atomically: two appends at once both land, a killed one leaves nothing);
`history show` prints each series over the runs with its change points (E-Divisive means, a
seeded permutation test); `tracediff gate --history STORE CANDIDATE` judges a run against it.
See docs/history.md and docs/ci.md.";

#[derive(Debug, Args)]
pub(crate) struct HistoryArgs {
    #[command(subcommand)]
    pub command: HistoryCommand,
}

#[derive(Debug, Subcommand)]
pub(crate) enum HistoryCommand {
    /// Summarise one run (a directory of traces, a trace file or summaries) into the store.
    Add(AddArgs),
    /// Each series over the runs: the last values, median, spread, band and change points.
    Show(ShowArgs),
}

#[derive(Debug, Args)]
pub(crate) struct AddArgs {
    /// The store (made where absent or empty).
    pub store: PathBuf,
    /// The run: a directory of one job's traces, one trace file, or its summaries.
    pub run: PathBuf,
    /// The run's label, unique in the store (a commit id).
    #[arg(long, value_name = "LABEL")]
    pub label: String,
    /// The branch it was recorded on (`gate --history --branch` filters by it).
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// Metadata KEY=VALUE (repeatable): the machine, the job id, …
    #[arg(long, value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// When the run was recorded, RFC 3339 [default: now].
    #[arg(long, value_name = "TIME")]
    pub time: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// The store.
    pub store: PathBuf,
    /// Rows shown beside the step and GPU busy times, largest first [default: 5].
    #[arg(long, value_name = "N", value_parser = super::numbers::count)]
    pub top: Option<usize>,
    /// Only the rows whose name matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub name: Option<String>,
    /// Only the runs of this branch.
    #[arg(long, value_name = "BRANCH")]
    pub branch: Option<String>,
    /// Draw each series over the runs (change points marked, the band shaded) to FILE.png or .svg.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    /// Output format [default: from the -o extension (.csv .json .md), else table].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub fit: super::fit::FitArgs,
}

impl HistoryArgs {
    /// `history show`'s `--width` and `--full-names`.
    pub(super) fn fit(&self) -> Option<&super::fit::FitArgs> {
        match &self.command {
            HistoryCommand::Show(a) => Some(&a.fit),
            HistoryCommand::Add(_) => None,
        }
    }

    /// The files the command writes.
    pub(super) fn output_paths(&self) -> Vec<&std::path::Path> {
        match &self.command {
            HistoryCommand::Add(_) => Vec::new(),
            HistoryCommand::Show(a) => [a.output.as_deref(), a.plot.as_deref()].into_iter().flatten().collect(),
        }
    }
}

pub(super) fn run_history(args: HistoryArgs, env: &mut Env<'_>) -> Result<i32> {
    match args.command {
        HistoryCommand::Add(a) => run_add(a, env),
        HistoryCommand::Show(a) => run_show(a, env),
    }
}

fn run_add(a: AddArgs, env: &mut Env<'_>) -> Result<i32> {
    let req = AddRequest {
        store: a.store,
        run: a.run,
        label: a.label,
        branch: a.branch,
        meta: a.meta,
        time: a.time,
    };
    let entry = finish(crate::commands::history_add(&req), env)?;
    let dir = req.store.join(crate::analysis::history::store::run_dir_name(entry.seq));
    writeln!(
        env.stdout,
        "run {} {} ({} rank{}): {}",
        entry.seq,
        entry.label,
        entry.ranks.len(),
        if entry.ranks.len() == 1 { "" } else { "s" },
        dir.display()
    )
    .map_err(|e| crate::error::Error::Output {
        path: "<stdout>".into(),
        source: e,
    })?;
    Ok(0)
}

fn run_show(a: ShowArgs, env: &mut Env<'_>) -> Result<i32> {
    let output = OutputArgs {
        format: a.format,
        output: a.output.clone(),
        top: None,
        sort: None,
    };
    check_output(&output)?;
    if let Some(plot) = &a.plot {
        crate::output::render::plot::ImageFormat::from_path(plot)?;
    }
    let req = ShowRequest {
        store: a.store,
        top: a.top.unwrap_or(5),
        name: a.name,
        branch: a.branch,
    };
    let view = finish(crate::commands::history_show(&req), env)?;
    if let Some(plot) = &a.plot {
        let bytes = crate::output::render::history_plot::draw(
            &view,
            crate::output::render::plot::ImageFormat::from_path(plot)?,
        )?;
        let note = crate::commands::write_file(plot, &bytes)?;
        if !env.quiet {
            let _ = writeln!(env.stderr, "{note}");
        }
    }
    emit(&output, false, env, |format, style, out| {
        out.write_all(crate::output::render::history::render(&view, format, style.width).as_bytes())
    })?;
    Ok(0)
}

/// `gate --history`'s options.
#[derive(Debug, Args)]
#[command(next_help_heading = "History")]
pub(crate) struct GateHistoryArgs {
    /// Judge the one run given (CANDIDATE in BASELINE's place) against this history store: its
    /// runs since the last change point, each timing against their prediction band (docs/history.md).
    #[arg(long, value_name = "STORE")]
    pub history: Option<PathBuf>,
    /// The most runs of the history judged against, the latest ones [default: 20].
    #[arg(long, value_name = "N", requires = "history", value_parser = super::numbers::count)]
    pub window: Option<usize>,
    /// The fewest runs to judge against; with fewer the pair rule judges against the latest run
    /// [default: 5]. Given, a store with fewer runs is refused.
    #[arg(long, value_name = "N", requires = "history", value_parser = super::numbers::count)]
    pub min_history: Option<usize>,
    /// Only the history's runs of this branch (and the branch a run added on pass is filed under).
    #[arg(long, value_name = "BRANCH", requires = "history")]
    pub branch: Option<String>,
    /// Append the candidate to the history when every rule passes (with --label).
    #[arg(long, requires_all = ["history", "label"])]
    pub add_on_pass: bool,
    /// The label of the run --add-on-pass appends.
    #[arg(long, value_name = "LABEL", requires = "add_on_pass")]
    pub label: Option<String>,
}

impl GateHistoryArgs {
    /// Runs the gate against `store` on the one path given.
    pub(super) fn run(
        &self,
        store: &std::path::Path,
        given: [Option<&PathBuf>; 2],
        (config, sel): (
            &crate::analysis::gate::GateConfig,
            &crate::analysis::select::SideSelection,
        ),
        env: &mut Env<'_>,
    ) -> Result<crate::analysis::gate::GateReport> {
        let candidate = match given {
            [Some(c), None] => c.clone(),
            _ => {
                return Err(crate::error::Error::usage(
                    "gate --history STORE takes one path, the candidate run (the history is its baseline)",
                ));
            }
        };
        let mut req = crate::commands::GateHistoryRequest::new(store);
        let opts = req.options();
        opts.window = self.window.unwrap_or(crate::commands::DEFAULT_WINDOW);
        opts.min_history = self.min_history;
        opts.branch = self.branch.clone();
        req.add_on_pass = self.add_on_pass.then(|| self.label.clone()).flatten();
        let side = crate::request::side::SidePaths::Path(candidate);
        finish(crate::commands::gate_history(config, &req, &side, sel), env)
    }
}
