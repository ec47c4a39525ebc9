//! `tracediff._native`: the Rust core of the `tracediff` Python package.
//!
//! Each function takes plain arguments, releases the GIL while the library works, and hands
//! back columns (a dict of lists), never rows: the Python side (`python/tracediff/`) builds the
//! pandas or polars frames. Errors become `tracediff.TraceError` (a `ValueError`) with the same
//! one-line message the command line prints.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::path::PathBuf;
use tracediff::analysis::aggregate::Naming;
use tracediff::analysis::compare::{CompareRequest, compare as run_compare};
use tracediff::analysis::diff::{Comparison, NameFilter};
use tracediff::analysis::loaded::load;
use tracediff::analysis::modules::zoom_scope;
use tracediff::analysis::select::{Device, Pick, SideSelection};
use tracediff::analysis::views::ViewTable;
use tracediff::analysis::views::kernels::kernels;
use tracediff::analysis::views::operators::operators;
use tracediff::analysis::views::overview::overview_request;
use tracediff::output::render::modules::{ModuleOrder, ModuleTime, ModuleView, render as render_modules};
use tracediff::output::render::plot::{Chart, ImageFormat, draw};
use tracediff::output::render::views::render_overview;
use tracediff::output::render::{Format, TableStyle};

create_exception!(
    _native,
    TraceError,
    PyValueError,
    "An unreadable or invalid trace, or a selection that does not fit the traces."
);

fn trace_error(e: tracediff::Error) -> PyErr {
    TraceError::new_err(e.to_string())
}

/// `None` → the default pick (the lowest); otherwise the command line's syntax (`3`, `1,2`, `all`).
fn pick(text: Option<&str>) -> PyResult<Pick> {
    match text {
        None => Ok(Pick::Lowest),
        Some(t) => t.parse().map_err(|e: String| TraceError::new_err(e)),
    }
}

fn device(text: &str) -> PyResult<Device> {
    match text.to_ascii_lowercase().as_str() {
        "cpu" => Ok(Device::Cpu),
        "gpu" => Ok(Device::Gpu),
        "all" => Ok(Device::All),
        other => Err(TraceError::new_err(format!(
            "unknown device type '{other}' (expected CPU, GPU or ALL)"
        ))),
    }
}

/// The comparison table as columns: `name`, `<side>_counts`, `<side>_dur_ns` for both sides,
/// and `notes` (what the command line would print on stderr).
#[pyfunction]
#[pyo3(signature = (control, test, control_rank=None, test_rank=None, control_iteration=None,
    test_iteration=None, device_type="all", use_short_name=false, normalize_names=false,
    include=Vec::new(), exclude=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn compare<'py>(
    py: Python<'py>,
    control: PathBuf,
    test: PathBuf,
    control_rank: Option<&str>,
    test_rank: Option<&str>,
    control_iteration: Option<&str>,
    test_iteration: Option<&str>,
    device_type: &str,
    use_short_name: bool,
    normalize_names: bool,
    include: Vec<String>,
    exclude: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let request = Selection {
        control_rank,
        test_rank,
        control_iteration,
        test_iteration,
        device_type,
        use_short_name,
        normalize_names,
        include,
        exclude,
        labels: None,
    }
    .request(control, test)?;
    let (comparison, notes) = py.detach(|| run_compare(&request)).map_err(trace_error)?;
    columns(py, &comparison, &notes)
}

/// The selection options every view shares, as the Python functions take them.
struct Selection<'a> {
    control_rank: Option<&'a str>,
    test_rank: Option<&'a str>,
    control_iteration: Option<&'a str>,
    test_iteration: Option<&'a str>,
    device_type: &'a str,
    use_short_name: bool,
    normalize_names: bool,
    include: Vec<String>,
    exclude: Vec<String>,
    labels: Option<(String, String)>,
}

impl Selection<'_> {
    fn request(self, control: PathBuf, test: PathBuf) -> PyResult<CompareRequest> {
        let mut request = CompareRequest::new(control, test);
        request.control_selection = SideSelection {
            ranks: pick(self.control_rank)?,
            iterations: pick(self.control_iteration)?,
        };
        request.test_selection = SideSelection {
            ranks: pick(self.test_rank)?,
            iterations: pick(self.test_iteration)?,
        };
        request.device = device(self.device_type)?;
        request.naming = if self.use_short_name {
            Naming::ShortName
        } else {
            Naming::Name
        };
        request.normalize_names = self.normalize_names;
        request.include = self.include;
        request.exclude = self.exclude;
        if let Some((c, t)) = self.labels {
            request.labels = [c, t];
        }
        Ok(request)
    }
}

/// Which of the diff run's views (docs/semantics.md#the-views) to compute.
enum ViewKind {
    Operators,
    Kernels { by_operator: bool },
    Overview,
    Modules,
}

/// A view of a pair: its table as columns (`operators`, `kernels`: `name` and, with
/// `by_operator`, `operator`, then `<side>_<measure>` for both sides, durations in ns, `None`
/// where a side has no value) or its JSON text (`overview`, `modules`: small documents).
#[pyfunction]
#[pyo3(signature = (view, control, test, control_rank=None, test_rank=None, control_iteration=None,
    test_iteration=None, device_type="all", use_short_name=false, normalize_names=false,
    include=Vec::new(), exclude=Vec::new(), labels=None, by_operator=false, zoom=None))]
#[allow(clippy::too_many_arguments)]
fn view<'py>(
    py: Python<'py>,
    view: &str,
    control: PathBuf,
    test: PathBuf,
    control_rank: Option<&str>,
    test_rank: Option<&str>,
    control_iteration: Option<&str>,
    test_iteration: Option<&str>,
    device_type: &str,
    use_short_name: bool,
    normalize_names: bool,
    include: Vec<String>,
    exclude: Vec<String>,
    labels: Option<(String, String)>,
    by_operator: bool,
    zoom: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let kind = match view {
        "operators" => ViewKind::Operators,
        "kernels" => ViewKind::Kernels { by_operator },
        "overview" => ViewKind::Overview,
        "modules" => ViewKind::Modules,
        other => return Err(TraceError::new_err(format!("unknown view '{other}'"))),
    };
    let request = Selection {
        control_rank,
        test_rank,
        control_iteration,
        test_iteration,
        device_type,
        use_short_name,
        normalize_names,
        include,
        exclude,
        labels,
    }
    .request(control, test)?;
    let out = py
        .detach(|| compute_view(&request, &kind, zoom.as_deref()))
        .map_err(trace_error)?;
    match out {
        ViewOut::Table(table) => Ok(table_columns(py, &table)?.into_any()),
        ViewOut::Json(text) => Ok(pyo3::types::PyString::new(py, &text).into_any()),
    }
}

enum ViewOut {
    Table(Box<ViewTable>),
    Json(String),
}

fn compute_view(request: &CompareRequest, kind: &ViewKind, zoom: Option<&str>) -> tracediff::Result<ViewOut> {
    let load_pair = || load(request, "view");
    let filter = NameFilter::new(&request.include, &request.exclude)?;
    Ok(match kind {
        ViewKind::Operators | ViewKind::Kernels { .. } => {
            let loaded = load_pair()?;
            let scope = zoom_scope(request, &loaded, zoom)?;
            let scope = scope.as_ref().map(|(s, _)| s);
            ViewOut::Table(Box::new(match kind {
                ViewKind::Kernels { by_operator } => kernels(request, &loaded, &filter, *by_operator, scope),
                _ => operators(request, &loaded, &filter, scope),
            }))
        }
        // As the command line: over traces or their summaries.
        ViewKind::Overview => ViewOut::Json(render_overview(&overview_request(request)?.0, Format::Json)),
        ViewKind::Modules => {
            let loaded = load_pair()?;
            let diff = tracediff::analysis::modules::modules(request, &loaded)?;
            let shown = ModuleView {
                diff: &diff,
                top: tracediff::analysis::modules::zoom(&diff, zoom)?,
                depth: None,
                min_share: 0.0,
                order: ModuleOrder::Logical,
                time: ModuleTime::Host,
            };
            ViewOut::Json(render_modules(&shown, Format::Json, TableStyle::default()))
        }
    })
}

fn table_columns<'py>(py: Python<'py>, table: &ViewTable) -> PyResult<Bound<'py, PyDict>> {
    let rows = &table.rows;
    let out = PyDict::new(py);
    if table.by_operator {
        out.set_item("operator", PyList::new(py, rows.iter().map(|r| r.operator.as_deref()))?)?;
    }
    out.set_item("name", PyList::new(py, rows.iter().map(|r| r.name.as_str()))?)?;
    for (k, m) in table.measures.iter().enumerate() {
        out.set_item(
            format!("control_{m}"),
            PyList::new(py, rows.iter().map(|r| r.control[k]))?,
        )?;
        out.set_item(format!("test_{m}"), PyList::new(py, rows.iter().map(|r| r.test[k]))?)?;
    }
    Ok(out)
}

fn columns<'py>(py: Python<'py>, comparison: &Comparison, notes: &[String]) -> PyResult<Bound<'py, PyDict>> {
    let rows = &comparison.rows;
    let out = PyDict::new(py);
    out.set_item("name", PyList::new(py, rows.iter().map(|r| r.name.as_str()))?)?;
    out.set_item("control_counts", PyList::new(py, rows.iter().map(|r| r.control.count))?)?;
    out.set_item(
        "control_dur_ns",
        PyList::new(py, rows.iter().map(|r| r.control.dur_ns))?,
    )?;
    out.set_item("test_counts", PyList::new(py, rows.iter().map(|r| r.test.count))?)?;
    out.set_item("test_dur_ns", PyList::new(py, rows.iter().map(|r| r.test.dur_ns))?)?;
    out.set_item("notes", PyList::new(py, notes)?)?;
    Ok(out)
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
    let chart = Chart {
        title,
        labels: [labels.0, labels.1],
        duration,
        groups: names
            .into_iter()
            .zip(control.into_iter().zip(test))
            .map(|(n, (c, t))| (n, c, t))
            .collect(),
        width,
        height,
    };
    let png = py.detach(|| draw(&chart, ImageFormat::Png)).map_err(trace_error)?;
    Ok(PyBytes::new(py, &png))
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
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(bar_chart_png, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(view, m)?)?;
    Ok(())
}
