//! `tracediff.History`'s core: a history store's runs added, listed, shown and gated
//! against (docs/history.md), each the library's command with the GIL released. Results cross
//! as JSON text (a run's line, the runs, the series with their change points, the gate's
//! report); the Python side builds the frames.

use crate::convert::pick_or_all;
use crate::{TraceError, command, guarded, warn};
use pyo3::prelude::*;
use std::path::PathBuf;
use tracediff::commands::{self, AddRequest, GateHistoryRequest, Note, ShowRequest, SidePaths};
use tracediff::render::Format;
use tracediff::{GateConfig, SideSelection};

fn json_error(e: serde_json::Error) -> PyErr {
    TraceError::new_err(format!("internal error in tracediff (please report it): {e}"))
}

/// `tracediff history add STORE RUN --label L [--branch B] [--meta k=v]…`: summarises the run
/// and appends it. Returns the run's line as JSON.
#[pyfunction]
#[pyo3(signature = (store, run, label, branch=None, meta=Vec::new(), time=None))]
pub(crate) fn history_add(
    py: Python<'_>,
    store: PathBuf,
    run: PathBuf,
    label: String,
    branch: Option<String>,
    meta: Vec<String>,
    time: Option<String>,
) -> PyResult<String> {
    let request = AddRequest {
        store,
        run,
        label,
        branch,
        meta,
        time,
    };
    let (entry, _) = command(py, || commands::history_add(&request))?;
    serde_json::to_string(&entry).map_err(json_error)
}

/// The runs of a store, by seq, as a JSON list of their lines; the entries skipped are raised
/// as warnings.
#[pyfunction]
pub(crate) fn history_runs(py: Python<'_>, store: PathBuf) -> PyResult<String> {
    let read = guarded(py, || commands::history_runs(&store))?;
    let notes: Vec<Note> = read.notes.iter().cloned().map(Note::Caveat).collect();
    warn(py, &notes)?;
    let entries: Vec<&commands::HistoryRun> = read.runs.iter().map(|r| &r.entry).collect();
    serde_json::to_string(&entries).map_err(json_error)
}

/// `tracediff history show STORE --format json`: the step time, GPU busy time and the `top`
/// rows (matching `name`, a regular expression) over the runs, with their change points.
#[pyfunction]
#[pyo3(signature = (store, top=5, name=None, branch=None))]
pub(crate) fn history_show(
    py: Python<'_>,
    store: PathBuf,
    top: usize,
    name: Option<String>,
    branch: Option<String>,
) -> PyResult<String> {
    let request = ShowRequest {
        store,
        top,
        name,
        branch,
    };
    let (view, _) = command(py, || commands::history_show(&request))?;
    // The command line's JSON, times in µs: the frames' columns are its numbers.
    Ok(tracediff::render::history(&view, Format::Json, usize::MAX))
}

/// `tracediff gate --history STORE CANDIDATE --format json`, the rules as the JSON of a config
/// file's `[gate]` table. Returns the report's JSON text.
#[pyfunction]
#[pyo3(signature = (store, candidate, rules_json, window=None, min_history=None, branch=None, add_on_pass=None, ranks=None, iterations=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn history_gate(
    py: Python<'_>,
    store: PathBuf,
    candidate: PathBuf,
    rules_json: &str,
    window: Option<usize>,
    min_history: Option<usize>,
    branch: Option<String>,
    add_on_pass: Option<String>,
    ranks: Option<&str>,
    iterations: Option<&str>,
) -> PyResult<String> {
    let config: GateConfig =
        serde_json::from_str(rules_json).map_err(|e| TraceError::new_err(format!("gate rules: {e}")))?;
    let selection = SideSelection {
        ranks: pick_or_all(ranks)?,
        iterations: pick_or_all(iterations)?,
    };
    let mut request = GateHistoryRequest::new(store);
    {
        let opts = request.options();
        if let Some(w) = window {
            opts.window = w;
        }
        opts.min_history = min_history;
        opts.branch = branch;
    }
    request.add_on_pass = add_on_pass;
    let candidate = SidePaths::Path(candidate);
    let (report, _) = command(py, || commands::gate_history(&config, &request, &candidate, &selection))?;
    Ok(tracediff::render::gate(&report, Format::Json, true))
}

/// Adds the history functions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(history_add, m)?)?;
    m.add_function(wrap_pyfunction!(history_runs, m)?)?;
    m.add_function(wrap_pyfunction!(history_show, m)?)?;
    m.add_function(wrap_pyfunction!(history_gate, m)?)?;
    Ok(())
}
