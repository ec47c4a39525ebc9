//! `tracediff._native`: the Rust core of the `tracediff` Python package.
//!
//! Each function translates its Python arguments (the paths and one typed `Options` object)
//! into a command's request, calls the command in `tracediff::commands` with the GIL released
//! (catching any panic as a `TraceError`), raises the command's notes as `TracediffWarning`s
//! and converts its result: columns (a dict of lists, never rows; the Python side builds the
//! pandas or polars frames), JSON text, or the paths written. Nothing is composed here: a
//! command's steps, defaults and atomic writes are the library's, as on the command line.
//! Errors become `tracediff.TraceError` (a `ValueError`) with the same one-line message the
//! command line prints.

#![forbid(unsafe_code)]

mod convert;
mod history;
mod options;

use convert::{choice, comparison_columns, device, modules_json, pick, pick_or_all, sort_key, table_columns};
use options::Options;
use pyo3::create_exception;
use pyo3::exceptions::{PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;
use tracediff::GateConfig;
use tracediff::ReportLimits;
use tracediff::SideSelection;
use tracediff::commands::{self, Done, Note, Outcome, Pair};
use tracediff::render::Format;
use tracediff::render::{Bar, Chart, ImageFormat, Metric, Panel, draw};

create_exception!(
    _native,
    TraceError,
    PyValueError,
    "An unreadable or invalid trace, or a selection that does not fit the traces."
);

create_exception!(
    _native,
    TracediffWarning,
    PyUserWarning,
    "A note on a result: what the command line prints as `tracediff: note: …`."
);

/// Runs library work with the GIL released, and turns a panic into a `TraceError` instead of
/// letting it reach Python as pyo3's `PanicException` (a `BaseException` that `except
/// Exception` does not catch): a bug in tracediff must not take a notebook's kernel down.
fn guarded<T: Send>(py: Python<'_>, work: impl FnOnce() -> tracediff::Result<T> + Send) -> PyResult<T> {
    let outcome = py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)));
    match outcome {
        Ok(result) => result.map_err(|e| TraceError::new_err(e.to_string())),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(TraceError::new_err(format!(
                "internal error in tracediff (please report it): {what}"
            )))
        }
    }
}

/// Runs a command (as [`guarded`]), raises its notes as `TracediffWarning`s (those found
/// before a failure too) and returns its value with the notes' texts.
fn command<T: Send>(py: Python<'_>, work: impl FnOnce() -> Done<T> + Send) -> PyResult<(T, Vec<String>)> {
    let done = guarded(py, || Ok(work()))?;
    let (value, notes) = match done {
        Ok(Outcome { value, notes }) => (Ok(value), notes),
        Err(failure) => (Err(failure.error), failure.notes),
    };
    warn(py, &notes)?;
    let value = value.map_err(|e| TraceError::new_err(e.to_string()))?;
    Ok((value, notes.iter().map(|n| n.text().to_string()).collect()))
}

/// Raises each caveat as a `TracediffWarning` (what the command line prints as a note).
fn warn(py: Python<'_>, notes: &[Note]) -> PyResult<()> {
    let category = py.get_type::<TracediffWarning>();
    for note in notes {
        if let Note::Caveat(text) = note {
            let message = std::ffi::CString::new(text.replace('\0', " ")).unwrap_or_default();
            PyErr::warn(py, &category, &message, 1)?;
        }
    }
    Ok(())
}

/// The comparison table as columns (see `convert::comparison_columns`): HTA's, or the command
/// line's where a side is runs given one by one.
#[pyfunction]
fn compare<'py>(
    py: Python<'py>,
    control: Vec<PathBuf>,
    test: Vec<PathBuf>,
    options: &Options,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let request = options.compare_request(control, test)?;
    let compare = commands::CompareOptions {
        why: options.why,
        ..commands::CompareOptions::default()
    };
    let (comparison, notes) = command(py, || commands::compare(&request, &compare))?;
    comparison_columns(py, &comparison, &notes)
}

/// A view of a pair: its table as columns (`operators`, `kernels`; see
/// `convert::table_columns`) or its JSON text (`overview`, `modules`: small documents).
#[pyfunction]
fn view<'py>(
    py: Python<'py>,
    view: &str,
    control: Vec<PathBuf>,
    test: Vec<PathBuf>,
    options: &Options,
) -> PyResult<Bound<'py, PyAny>> {
    let request = options.view_request(control, test)?;
    let shown = commands::ViewOptions {
        zoom: options.zoom.clone(),
        why: options.why,
        ..commands::ViewOptions::default()
    };
    let text = |s: String| pyo3::types::PyString::new(py, &s).into_any();
    match view {
        "operators" => {
            let operators = commands::OperatorsOptions {
                view: shown,
                time: None,
            };
            let (table, _) = command(py, || commands::operators(&request, &operators))?;
            Ok(table_columns(py, &table)?.into_any())
        }
        "kernels" => {
            let kernels = commands::KernelsOptions {
                view: shown,
                by_operator: options.by_operator,
                ..commands::KernelsOptions::default()
            };
            let (table, _) = command(py, || commands::kernels(&request, &kernels))?;
            Ok(table_columns(py, &table)?.into_any())
        }
        // With the per-step rows: the Python API returns them as a frame.
        "overview" => {
            use tracediff::render::{OverviewTables, render_overview_with};
            let overview = commands::OverviewOptions::default();
            let (o, _) = command(py, || commands::overview(&request, &overview))?;
            Ok(text(render_overview_with(
                &o,
                Format::Json,
                &OverviewTables { per_step: true },
            )))
        }
        "modules" => {
            let modules = commands::ModulesOptions {
                zoom: options.zoom.clone(),
                totals: options.totals,
                ..commands::ModulesOptions::default()
            };
            let (m, _) = command(py, || commands::modules(&request, &modules))?;
            Ok(text(modules_json(&m)))
        }
        // Every changed row, as `tracediff explain --format json` writes them.
        "explain" => {
            let explain = commands::ExplainOptions::default();
            let (e, _) = command(py, || commands::explain(&request, &explain))?;
            let view = tracediff::render::ExplainView {
                explanation: &e,
                top: None,
            };
            let style = tracediff::render::TableStyle {
                width: usize::MAX,
                full_names: true,
                color: false,
            };
            let mut out = Vec::new();
            tracediff::render::explain(&view, Format::Json, style, &mut out)
                .map_err(|e| TraceError::new_err(format!("explain: {e}")))?;
            Ok(text(String::from_utf8_lossy(&out).into_owned()))
        }
        other => Err(TraceError::new_err(format!("unknown view '{other}'"))),
    }
}

/// A grouped bar chart (PNG) of two sides' values per name, drawn by the command line's
/// renderer: for `visualize_*_diff` without plotly.
#[pyfunction]
#[pyo3(signature = (title, labels, names, control, test, duration, width=1200, height=700))]
#[allow(clippy::too_many_arguments)]
fn bar_chart_png<'py>(
    py: Python<'py>,
    title: String,
    labels: (String, String),
    names: Vec<String>,
    control: Vec<f64>,
    test: Vec<f64>,
    duration: bool,
    width: u32,
    height: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    if names.len() != control.len() || names.len() != test.len() {
        return Err(TraceError::new_err("names, control and test must have the same length"));
    }
    let groups = names.into_iter().zip(control.into_iter().zip(test));
    let rows = groups
        .map(|(name, (control, test))| Bar {
            name,
            control,
            test,
            significant: None,
        })
        .collect();
    let chart = Chart {
        title,
        labels: [labels.0, labels.1],
        duration,
        per_step: false, // the frames of HTA's visualize_* hold sums
        panels: vec![Panel { title: None, rows }],
        judged: false,
        width,
        height,
    };
    let png = guarded(py, || draw(&chart, ImageFormat::Png))?;
    Ok(PyBytes::new(py, &png))
}

/// The differential flame graph of a pair (docs/flamegraph.md): the SVG's text, or with
/// `folded` its folded stacks (`frame;… CONTROL_NS TEST_NS` lines, or one side's `frame;… NS`
/// with `side`). `time` is `host` or `device` (None: device on a pair with kernels under its
/// operators, host otherwise); `widths` (`test` or `control`) whose times are the
/// differential SVG's widths.
#[pyfunction]
#[pyo3(signature = (control, test, options, time=None, side=None, folded=false, widths="test"))]
#[allow(clippy::too_many_arguments)]
fn flamegraph(
    py: Python<'_>,
    control: Vec<PathBuf>,
    test: Vec<PathBuf>,
    options: &Options,
    time: Option<&str>,
    side: Option<&str>,
    folded: bool,
    widths: &str,
) -> PyResult<String> {
    use tracediff::FlameTime;
    use tracediff::commands::FlameSide;
    use tracediff::render::FlameWidths;
    let request = commands::FlamegraphOptions {
        widths: choice(
            "widths",
            widths,
            &[("test", FlameWidths::Test), ("control", FlameWidths::Control)],
        )?,
        time: time
            .map(|t| choice("time", t, &[("host", FlameTime::Host), ("device", FlameTime::Device)]))
            .transpose()?,
        side: side
            .map(|s| choice("side", s, &[("control", FlameSide::Control), ("test", FlameSide::Test)]))
            .transpose()?,
        folded,
        totals: options.totals,
    };
    let pair = options.view_request(control, test)?;
    let (bytes, _) = command(py, || commands::flamegraph(&pair, &request))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `tracediff plot -o OUTPUT --metric METRIC`: one chart of a pair, written to `output` (PNG or
/// SVG by its extension) whole or not at all: `counts` and `duration` are HTA's grouped bars of
/// the `top` rows ranked by `sort` (None: the diff of the metric), `breakdown` the waterfall of
/// the mean step time. Returns the notes the command line prints.
#[pyfunction]
#[pyo3(signature = (control, test, output, options, metric="counts", top=10, sort=None, width=1600, height=900))]
#[allow(clippy::too_many_arguments)]
fn plot(
    py: Python<'_>,
    control: Vec<PathBuf>,
    test: Vec<PathBuf>,
    output: PathBuf,
    options: &Options,
    metric: &str,
    top: usize,
    sort: Option<&str>,
    width: u32,
    height: u32,
) -> PyResult<Vec<String>> {
    let metrics = [
        ("counts", Metric::Counts),
        ("duration", Metric::Duration),
        ("breakdown", Metric::Breakdown),
    ];
    let plot = commands::PlotOptions {
        metric: choice("metric", metric, &metrics)?,
        top,
        sort: sort.map(sort_key).transpose()?,
        increases: false,
        decreases: false,
        output: Some(output),
        size: (width, height),
    };
    let pair = Pair::Given(Box::new(options.view_request(control, test)?));
    Ok(command(py, || commands::plot(&pair, &plot))?.1)
}

/// `tracediff summarize`: one trace file to a Parquet summary at `output`.
#[pyfunction]
fn summarize(py: Python<'_>, trace: PathBuf, output: PathBuf) -> PyResult<()> {
    guarded(py, || {
        commands::summarize(&trace, &output, None, false)
            .map(|_| ())
            .map_err(|f| f.error)
    })
}

/// `tracediff report`: the self-contained HTML page of a pair, written to `output` whole or
/// not at all. Returns the notes the command line prints.
#[pyfunction]
#[pyo3(signature = (control, test, output, options, table_depth=3, table_rows=100))]
fn report(
    py: Python<'_>,
    control: Vec<PathBuf>,
    test: Vec<PathBuf>,
    output: PathBuf,
    options: &Options,
    table_depth: usize,
    table_rows: usize,
) -> PyResult<Vec<String>> {
    let request = options.view_request(control, test)?;
    let report = commands::ReportOptions {
        limits: ReportLimits {
            depth: table_depth,
            rows: table_rows,
        },
    };
    let (page, notes) = command(py, || commands::report(&request, &report))?;
    guarded(py, || commands::write_report(&page, &output))?;
    Ok(notes)
}

/// `tracediff events --format csv`: the event table of one side, as CSV text for the Python
/// side's DataFrame reader. `ranks` and `iterations` in the command line's syntax (None: all).
#[pyfunction]
#[pyo3(signature = (path, ranks=None, iterations=None, device="all", name=None, cats=Vec::new(), args=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn events<'py>(
    py: Python<'py>,
    path: PathBuf,
    ranks: Option<&str>,
    iterations: Option<&str>,
    device: &str,
    name: Option<&str>,
    cats: Vec<String>,
    args: Vec<String>,
) -> PyResult<Bound<'py, PyBytes>> {
    let request = commands::EventsRequest {
        path,
        ranks: Some(pick_or_all(ranks)?),
        iterations: iterations.map(|i| pick(Some(i))).transpose()?,
        device: self::device(device)?,
        name: name.map(str::to_string),
        cats,
        args,
        ..commands::EventsRequest::default()
    };
    let (table, _) = command(py, || commands::events(&request))?;
    let (csv, rows) = guarded(py, || {
        let mut out = Vec::new();
        let rows = table.write(tracediff::render::EventsFormat::Csv, &mut out)?;
        Ok((out, rows))
    })?;
    if rows == 0 {
        warn(py, &[table.empty_note()])?;
    }
    Ok(PyBytes::new(py, &csv))
}

/// `tracediff gate --format json`: the rules as the JSON of a config file's `[gate]` table
/// (`{"max_step_time_regression": "5%", ...}`, validated here as the file's keys are), over the
/// command line's default selection (the lowest rank, every step) unless `ranks`/`iterations`
/// name others. Returns the report's JSON text.
#[pyfunction]
#[pyo3(signature = (baseline, candidate, rules_json, ranks=None, iterations=None))]
fn gate(
    py: Python<'_>,
    baseline: Vec<PathBuf>,
    candidate: Vec<PathBuf>,
    rules_json: &str,
    ranks: Option<&str>,
    iterations: Option<&str>,
) -> PyResult<String> {
    let config: GateConfig =
        serde_json::from_str(rules_json).map_err(|e| TraceError::new_err(format!("gate rules: {e}")))?;
    // The command line's default selection (the lowest rank, every step) where none is named.
    let defaults = tracediff::default_selection();
    let selection = SideSelection {
        ranks: ranks.map_or(Ok(defaults.ranks), |r| pick(Some(r)))?,
        iterations: iterations.map_or(Ok(defaults.iterations), |i| pick(Some(i)))?,
    };
    let (baseline, candidate) = (
        options::runs(baseline, "baseline")?,
        options::runs(candidate, "candidate")?,
    );
    options::side_folders(&baseline, &candidate, ["baseline", "candidate"])?;
    let (report, _) = command(py, || commands::gate(&config, &baseline, &candidate, &selection))?;
    Ok(tracediff::render::gate(&report, Format::Json, true))
}

/// Panics inside the guard, as a bug in the library would: the tests check that Python sees a
/// `TraceError`, never a `PanicException`.
#[pyfunction]
fn _fault_for_tests(py: Python<'_>) -> PyResult<()> {
    guarded(py, || -> tracediff::Result<()> {
        panic!("a fault injected by the tests")
    })
}

/// The command line, run in this process on `argv` (the program name first); returns the exit
/// code. The `tracediff` command that the wheel installs calls this.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> u8 {
    py.detach(|| tracediff::cli::entry::main_with_args(argv))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add("TracediffWarning", m.py().get_type::<TracediffWarning>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(bar_chart_png, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(view, m)?)?;
    m.add_function(wrap_pyfunction!(flamegraph, m)?)?;
    m.add_function(wrap_pyfunction!(summarize, m)?)?;
    m.add_function(wrap_pyfunction!(report, m)?)?;
    m.add_function(wrap_pyfunction!(events, m)?)?;
    m.add_function(wrap_pyfunction!(gate, m)?)?;
    m.add_function(wrap_pyfunction!(plot, m)?)?;
    history::register(m)?;
    m.add_class::<Options>()?;
    m.add_function(wrap_pyfunction!(_fault_for_tests, m)?)?;
    Ok(())
}
