//! `--width N` and `--full-names`: how wide a command's tables are, on every command that
//! prints one.

use super::Command;
use clap::Args;

/// The width tables fit in where standard output is no terminal (a pipe, a file, a CI log)
/// and `COLUMNS` is unset.
pub(crate) const PIPE_WIDTH: usize = 160;

/// How wide a table is, and whether its names are ever shortened.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Output")]
pub(crate) struct FitArgs {
    /// Fit the table in N columns: names shortened to keep what tells rows apart [default: the
    /// terminal's width; piped or to a file, $COLUMNS, else 160].
    #[arg(long, value_name = "N", value_parser = super::numbers::count)]
    pub width: Option<usize>,
    /// Show names whole in the table, never shortened or cut to fit its width (CSV and JSON
    /// always hold them whole).
    #[arg(long)]
    pub full_names: bool,
}

/// The command's `--width` and `--full-names`, where it prints a table.
pub(crate) fn fit_of(command: &Command) -> Option<&FitArgs> {
    match command {
        Command::Compare(a) => Some(&a.fit),
        Command::OpsDiff(a) => Some(&a.fit),
        Command::Events(a) => Some(&a.fit),
        Command::Gate(a) => Some(&a.fit),
        Command::History(a) => a.fit(),
        Command::Explain(a) => Some(&a.fit),
        Command::Operators(a) => Some(&a.output.fit),
        Command::Kernels(a) => Some(&a.output.fit),
        Command::Overview(a) => Some(&a.fit),
        Command::Modules(a) => Some(&a.fit),
        Command::Summarize(_)
        | Command::Plot(_)
        | Command::Report(_)
        | Command::Flamegraph(_)
        | Command::Completions(_)
        | Command::Man(_) => None,
    }
}
