//! One library function per command: each takes a typed request and options, composes the
//! analysis (load → select → aggregate/align → diff) and returns its result together with the
//! notes it found worth telling ([`Outcome`]). The command line and the Python bindings only
//! translate their arguments into the request, call the function and render or convert the
//! result: nothing composes a command twice.
//!
//! What the request compares is a [`CompareRequest`]: its two sides, their ranks, steps and
//! device, and how rows are keyed. Each command adds an options struct of its own.
//!
//! ```no_run
//! use tracediff::commands::{CompareOptions, CompareRequest, compare};
//! let done = compare(&CompareRequest::new("control/", "test/"), &CompareOptions::default());
//! let outcome = done.map_err(|failure| failure.error).unwrap();
//! for note in &outcome.notes {
//!     eprintln!("{note}");
//! }
//! println!("{} rows", outcome.value.rows.len());
//! ```

mod compare;
mod events;
pub mod explain;
mod gate;
mod history;
mod modules;
mod plot;
mod report;
mod views;

pub use crate::analysis::history::gate::HistoryOptions;
pub use crate::analysis::history::show::HistoryView;
pub use crate::analysis::load::layout::check_side_folders;
pub use crate::analysis::load::runs::given_runs;
pub use crate::request::CompareRequest;
pub use crate::request::side::{PerSide, Side, SideId, SidePaths};
pub use compare::{CompareOptions, Pair, compare, ops_diff};
pub use events::{EventTable, EventsRequest, events, summarize};
pub use explain::{ExplainOptions, explain};
pub use gate::gate;
pub use history::{
    AddRequest, DEFAULT_MIN_HISTORY, DEFAULT_WINDOW, GateHistoryRequest, HistoryRun, HistoryStore, Series, ShowRequest,
    ShownChange, gate_history, history_add, history_runs, history_show, parse_meta,
};
pub use modules::{FlameSide, FlamegraphOptions, Modules, ModulesOptions, flamegraph, modules};
pub use plot::{PlotOptions, plot};
pub(crate) use report::report_for;
pub use report::{ReportOptions, check_html, report, write_report, write_report_with_history};
pub use views::{
    AlignedOptions, KernelTime, KernelsOptions, OperatorTime, OperatorsOptions, OverviewOptions, Shown, ViewOptions,
    aligned, kernel_classes, kernels, operators, overview,
};

use crate::error::{Error, Result};
use std::fmt;
use std::path::Path;

/// Something a command tells beside its result.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Note {
    /// Something to know about the result (a side without device events, why significance
    /// could not be judged, …): the command line prints it as `tracediff: note: …`, Python
    /// raises it as a `TracediffWarning`.
    Caveat(String),
    /// What the command used or did (the saved comparison it read, the file it wrote): the
    /// command line prints it as `tracediff: …`.
    Info(String),
}

impl Note {
    /// The note's text, without its prefix.
    pub fn text(&self) -> &str {
        match self {
            Note::Caveat(t) | Note::Info(t) => t,
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Caveat(t) => write!(f, "tracediff: note: {t}"),
            Note::Info(t) => write!(f, "tracediff: {t}"),
        }
    }
}

/// A command's result and its notes, in the order they were found.
#[derive(Debug, Clone)]
pub struct Outcome<T> {
    /// What the command computed.
    pub value: T,
    /// What it found worth telling.
    pub notes: Vec<Note>,
}

/// A command that failed: its error, and the notes it had found before it failed (the command
/// line prints them before the error, as they were found).
#[derive(Debug)]
pub struct Failure {
    /// Why it failed.
    pub error: Error,
    /// What it had found worth telling until then.
    pub notes: Vec<Note>,
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure {
            error,
            notes: Vec::new(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The notes of a request whose two sides are one run (a view of one run alone): each note
/// once, a side's named `run` as the run's header names it (`run: 6 host events …`, not the
/// same note for `control:` and again for `test:`).
pub fn notes_of_one_run(notes: Vec<Note>, labels: &[String; 2]) -> Vec<Note> {
    let sides = crate::request::side::PerSide::from(labels.each_ref()).map(|l| format!("{l}: "));
    let mut out: Vec<Note> = Vec::new();
    for note in notes {
        let text = note.text();
        let text = match sides.iter().find_map(|(_, side)| text.strip_prefix(side.as_str())) {
            // A note of both sides (`control: X; test: X`) says X once.
            Some(rest) => match rest.split_once(&format!("; {}", sides.test)) {
                Some((first, second)) if first == second => format!("run: {first}"),
                _ => format!("run: {rest}"),
            },
            None => text.to_string(),
        };
        let note = match note {
            Note::Caveat(_) => Note::Caveat(text),
            Note::Info(_) => Note::Info(text),
        };
        if !out.contains(&note) {
            out.push(note);
        }
    }
    out
}

/// What every command returns.
pub type Done<T> = std::result::Result<Outcome<T>, Failure>;

/// The notes of a command as it runs.
#[derive(Debug, Default)]
pub(crate) struct Notes(Vec<Note>);

impl Notes {
    /// Adds caveats (`tracediff: note: …`).
    pub(crate) fn caveats(&mut self, notes: impl IntoIterator<Item = String>) {
        self.0.extend(notes.into_iter().map(Note::Caveat));
    }

    /// Adds what the command used or did.
    pub(crate) fn info(&mut self, text: String) {
        self.0.push(Note::Info(text));
    }
}

/// Runs a command's work with a fresh set of notes, which come back with its result or error.
pub(crate) fn collect<T>(work: impl FnOnce(&mut Notes) -> Result<T>) -> Done<T> {
    let mut notes = Notes::default();
    match work(&mut notes) {
        Ok(value) => Ok(Outcome { value, notes: notes.0 }),
        Err(error) => Err(Failure { error, notes: notes.0 }),
    }
}

/// Writes `bytes` to `path` whole or not at all (beside it, then renamed), and returns the
/// note that says so (`wrote PATH (N KiB)`).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<Note> {
    crate::atomic::write_atomically(path, |w| w.write_all(bytes))?;
    Ok(Note::Info(format!(
        "wrote {} ({} KiB)",
        path.display(),
        crate::text::fmt_count(bytes.len().div_ceil(1024))
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_notes_name_it_once() {
        let labels = ["control".to_string(), "test".to_string()];
        let notes = vec![
            Note::Caveat("control: 6 host events nest".to_string()),
            Note::Caveat("test: 6 host events nest".to_string()),
            Note::Caveat("the step is long".to_string()),
            Note::Info("test: wrote x".to_string()),
            Note::Caveat("control: 100% attributed; test: 100% attributed".to_string()),
        ];
        assert_eq!(
            notes_of_one_run(notes, &labels),
            vec![
                Note::Caveat("run: 6 host events nest".to_string()),
                Note::Caveat("the step is long".to_string()),
                Note::Info("run: wrote x".to_string()),
                Note::Caveat("run: 100% attributed".to_string()),
            ]
        );
    }
}
