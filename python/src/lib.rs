//! `tracediff._native`: the Rust core of the `tracediff` Python package.
//!
//! Each function takes the paths and one typed `Options` object, releases the GIL while the
//! library works (catching any panic as a `TraceError`), and hands
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
use tracediff::analysis::diff::{Comparison, NameFilter, SortKey};
use tracediff::analysis::gate::GateConfig;
use tracediff::analysis::gate_run::gate_pair;
use tracediff::analysis::loaded::load;
use tracediff::analysis::modules::zoom_scope;
use tracediff::analysis::modules_noise::module_significance;
use tracediff::analysis::report::ReportLimits;
use tracediff::analysis::select::{Device, Pick, SideSelection, resolve};
use tracediff::analysis::views::ViewTable;
use tracediff::analysis::views::kernels::{kernels, mark_kernel_significance};
use tracediff::analysis::views::operators::{mark_operator_significance, operators};
use tracediff::analysis::views::overview::overview_request;
use tracediff::input::attrs::{AttrRequest, Preset};
use tracediff::input::load;
use tracediff::output::events::{EventFilter, EventsFormat, write_events};
use tracediff::output::render::Format;
use tracediff::output::render::modules::{ModuleOrder, ModuleTime, ModuleView, write_flat_json};
use tracediff::output::render::plot::{Chart, ImageFormat, draw};
use tracediff::output::render::views::{OverviewOptions, render_overview_with};

create_exception!(
    _native,
    TraceError,
    PyValueError,
    "An unreadable or invalid trace, or a selection that does not fit the traces."
);

fn trace_error(e: tracediff::Error) -> PyErr {
    TraceError::new_err(e.to_string())
}

/// Runs library work with the GIL released, and turns a panic into a `TraceError` instead of
/// letting it reach Python as pyo3's `PanicException` (a `BaseException` that `except
/// Exception` does not catch): a bug in tracediff must not take a notebook's kernel down.
fn guarded<T: Send>(py: Python<'_>, work: impl FnOnce() -> tracediff::Result<T> + Send) -> PyResult<T> {
    let outcome = py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)));
    match outcome {
        Ok(result) => result.map_err(trace_error),
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

/// The options every comparison takes, as one typed object across the FFI (the Python functions'
/// keyword arguments): built once, checked by pyo3's conversions (a `str` where a list of
/// patterns belongs is a `TypeError`), and validated here before any trace is read.
#[pyclass(module = "tracediff._native", frozen, get_all)]
#[derive(Clone, Debug, Default)]
struct Options {
    /// Ranks of the control side in the command line's syntax (`3`, `0,2`, `all`); None: the lowest.
    control_rank: Option<String>,
    /// Ranks of the test side.
    test_rank: Option<String>,
    /// ProfilerSteps of the control side; None: the lowest.
    control_iteration: Option<String>,
    /// ProfilerSteps of the test side.
    test_iteration: Option<String>,
    /// `cpu`, `gpu` or `all`.
    device: String,
    /// Group by HTA's short names.
    short_names: bool,
    /// Rewrite run-specific noise out of names.
    normalize_names: bool,
    /// Keep only names matching any of these patterns.
    include: Vec<String>,
    /// Drop names matching any of these patterns.
    exclude: Vec<String>,
    /// Names of the two sides.
    labels: Option<(String, String)>,
    /// Kernel rows keyed by (launching operator, kernel).
    by_operator: bool,
    /// A module path: only what ran inside that node.
    zoom: Option<String>,
    /// Judge significance against no change even where the whole run moved by one factor (the
    /// command line's `--no-run-shift`; docs/significance.md#a-run-wide-shift).
    no_run_shift: bool,
}

#[pymethods]
impl Options {
    #[new]
    #[pyo3(signature = (*, control_rank=None, test_rank=None, control_iteration=None,
        test_iteration=None, device="all".to_string(), short_names=false, normalize_names=false,
        include=Vec::new(), exclude=Vec::new(), labels=None, by_operator=false, zoom=None,
        no_run_shift=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        control_rank: Option<String>,
        test_rank: Option<String>,
        control_iteration: Option<String>,
        test_iteration: Option<String>,
        device: String,
        short_names: bool,
        normalize_names: bool,
        include: Vec<String>,
        exclude: Vec<String>,
        labels: Option<(String, String)>,
        by_operator: bool,
        zoom: Option<String>,
        no_run_shift: bool,
    ) -> PyResult<Self> {
        let options = Options {
            control_rank,
            test_rank,
            control_iteration,
            test_iteration,
            device,
            short_names,
            normalize_names,
            include,
            exclude,
            labels,
            by_operator,
            zoom,
            no_run_shift,
        };
        // Refused now, with the option's name, rather than after the traces are read.
        options.request(PathBuf::new(), PathBuf::new())?;
        Ok(options)
    }

    fn __repr__(&self) -> String {
        format!("{self:?}")
    }
}

impl Options {
    fn request(&self, control: PathBuf, test: PathBuf) -> PyResult<CompareRequest> {
        let mut request = CompareRequest::new(control, test);
        request.control_selection = SideSelection {
            ranks: pick(self.control_rank.as_deref())?,
            iterations: pick(self.control_iteration.as_deref())?,
        };
        request.test_selection = SideSelection {
            ranks: pick(self.test_rank.as_deref())?,
            iterations: pick(self.test_iteration.as_deref())?,
        };
        request.device = device(&self.device)?;
        request.naming = if self.short_names {
            Naming::ShortName
        } else {
            Naming::Name
        };
        request.normalize_names = self.normalize_names;
        request.beyond_shift = !self.no_run_shift;
        request.include = self.include.clone();
        request.exclude = self.exclude.clone();
        if let Some((c, t)) = &self.labels {
            request.labels = [c.clone(), t.clone()];
        }
        Ok(request)
    }
}

/// The comparison table as columns: `name`, `<side>_counts`, `<side>_dur_ns` for both sides,
/// and `notes` (what the command line would print on stderr).
#[pyfunction]
fn compare<'py>(py: Python<'py>, control: PathBuf, test: PathBuf, options: &Options) -> PyResult<Bound<'py, PyDict>> {
    let request = options.request(control, test)?;
    let (comparison, notes) = guarded(py, || run_compare(&request))?;
    columns(py, &comparison, &notes)
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
fn view<'py>(
    py: Python<'py>,
    view: &str,
    control: PathBuf,
    test: PathBuf,
    options: &Options,
) -> PyResult<Bound<'py, PyAny>> {
    let kind = match view {
        "operators" => ViewKind::Operators,
        "kernels" => ViewKind::Kernels {
            by_operator: options.by_operator,
        },
        "overview" => ViewKind::Overview,
        "modules" => ViewKind::Modules,
        other => return Err(TraceError::new_err(format!("unknown view '{other}'"))),
    };
    let request = options.request(control, test)?;
    let zoom = options.zoom.clone();
    let out = guarded(py, || compute_view(&request, &kind, zoom.as_deref()))?;
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
            // Marked as the command line marks them, so that the frame has its CSV's
            // `significant` column (null where it cannot be estimated: one step per side).
            ViewOut::Table(Box::new(match kind {
                ViewKind::Kernels { by_operator } => {
                    let mut table = kernels(request, &loaded, &filter, *by_operator, scope);
                    mark_kernel_significance(&mut table, request, &loaded, scope);
                    table
                }
                _ => {
                    let mut table = operators(request, &loaded, &filter, scope);
                    mark_operator_significance(&mut table, request, &loaded, scope);
                    table
                }
            }))
        }
        // As the command line: over traces or their summaries.
        // With the per-step rows: the Python API returns them as a frame.
        ViewKind::Overview => ViewOut::Json(render_overview_with(
            &overview_request(request)?.0,
            Format::Json,
            &OverviewOptions { per_step: true },
        )),
        ViewKind::Modules => {
            let loaded = load_pair()?;
            let diff = tracediff::analysis::modules::modules(request, &loaded)?;
            // As the command line's default: device time where a side has device events.
            let device = diff.has_device.iter().any(|&d| d);
            let significance = module_significance(request, &loaded, &diff, device).ok();
            let shown = ModuleView {
                diff: &diff,
                top: tracediff::analysis::modules::zoom(&diff, zoom)?,
                depth: None,
                min_share: 0.0,
                order: ModuleOrder::Logical,
                time: if device { ModuleTime::Device } else { ModuleTime::Host },
                fold_runs: false,
                significance: significance.as_ref(),
            };
            // A flat list: Python rebuilds the tree without recursion and without every
            // node's full path (python/tracediff/_api.py).
            let mut text = Vec::new();
            // Writing to memory cannot fail.
            let _ = write_flat_json(&shown, &mut text);
            ViewOut::Json(String::from_utf8(text).unwrap_or_default())
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
    if table.significance {
        // The time the command line's table shows by default, as its CSV's column is.
        let shown = if table.has_device || table.measure("host_total").is_none() {
            "device_total"
        } else {
            "host_total"
        };
        let k = table.measure(shown).unwrap_or(0);
        let marks = rows.iter().map(|r| r.significant.get(k).copied().flatten());
        out.set_item("significant", PyList::new(py, marks)?)?;
        // The run-wide shifts and whether rows were judged beyond them, as the JSON's `run_shift`.
        let shift = serde_json::to_string(&table.shift).map_err(|e| TraceError::new_err(e.to_string()))?;
        out.set_item("run_shift", shift)?;
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
    let png = guarded(py, || draw(&chart, ImageFormat::Png))?;
    Ok(PyBytes::new(py, &png))
}

/// The differential flame graph of a pair (docs/flamegraph.md): the SVG's text, or with
/// `folded` its folded stacks (`frame;… CONTROL_NS TEST_NS` lines, or one side's `frame;… NS`
/// with `side`). `time` is `host` or `device`, by default device on a pair with kernels under
/// its operators and host otherwise; `widths` (`test` or `control`) whose times are
/// the differential SVG's widths.
#[pyfunction]
#[pyo3(signature = (control, test, options, time=None, side=None, folded=false, widths="test"))]
#[allow(clippy::too_many_arguments)]
fn flamegraph(
    py: Python<'_>,
    control: PathBuf,
    test: PathBuf,
    options: &Options,
    time: Option<&str>,
    side: Option<&str>,
    folded: bool,
    widths: &str,
) -> PyResult<String> {
    use tracediff::analysis::flamegraph::{FlameTime, flame_stacks_default};
    use tracediff::output::render::flamegraph::{FlameOptions, FlameView, FlameWidths, folded_diff, folded_side, svg};
    let widths = match widths.to_ascii_lowercase().as_str() {
        "test" => FlameWidths::Test,
        "control" => FlameWidths::Control,
        other => {
            return Err(TraceError::new_err(format!(
                "unknown widths '{other}' (expected test or control)"
            )));
        }
    };
    let time = match time.map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("host") => Some(FlameTime::Host),
        Some("device") => Some(FlameTime::Device),
        Some(other) => {
            return Err(TraceError::new_err(format!(
                "unknown time '{other}' (expected host or device)"
            )));
        }
    };
    let side = match side.map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("control") => Some(0),
        Some("test") => Some(1),
        Some(other) => {
            return Err(TraceError::new_err(format!(
                "unknown side '{other}' (expected control or test)"
            )));
        }
    };
    let request = options.request(control, test)?;
    guarded(py, || {
        let loaded = load(&request, "flamegraph")?;
        let diff = tracediff::analysis::modules::modules(&request, &loaded)?;
        let stacks = flame_stacks_default(&diff, &loaded, time, &request.classifier()?);
        Ok(match (folded, side) {
            (true, Some(s)) => folded_side(&stacks, s),
            (true, None) => folded_diff(&stacks),
            (false, side) => {
                let title = FlameOptions {
                    labels: request.labels.clone(),
                    view: side.map_or(FlameView::Differential(widths), FlameView::Side),
                    still: false,
                };
                let bytes = svg(&stacks, &title)
                    .map_err(|e| tracediff::Error::usage(format!("cannot draw the flame graph: {e}")))?;
                String::from_utf8_lossy(&bytes).into_owned()
            }
        })
    })
}

/// The sort keys of `tracediff plot --sort`, by their command-line names.
fn sort_key(text: &str) -> PyResult<SortKey> {
    const KEYS: [SortKey; 7] = [
        SortKey::AbsDiffDuration,
        SortKey::DiffDuration,
        SortKey::AbsDiffCounts,
        SortKey::DiffCounts,
        SortKey::Duration,
        SortKey::Counts,
        SortKey::Name,
    ];
    KEYS.into_iter().find(|k| k.as_str() == text).ok_or_else(|| {
        let names: Vec<&str> = KEYS.iter().map(|k| k.as_str()).collect();
        TraceError::new_err(format!("unknown sort '{text}' (expected one of {})", names.join(", ")))
    })
}

/// `tracediff plot -o OUTPUT --metric METRIC`: one chart of a pair, written to `output` (PNG or
/// SVG by its extension) by the command line's renderer: `counts` and `duration` are HTA's
/// grouped bars of the `top` rows ranked by `sort` (None: the diff of the metric), `breakdown`
/// the waterfall of the mean step time. Returns the notes the command line prints.
#[pyfunction]
#[pyo3(signature = (control, test, output, options, metric="counts", top=10, sort=None, width=1600, height=900))]
#[allow(clippy::too_many_arguments)]
fn plot(
    py: Python<'_>,
    control: PathBuf,
    test: PathBuf,
    output: PathBuf,
    options: &Options,
    metric: &str,
    top: usize,
    sort: Option<&str>,
    width: u32,
    height: u32,
) -> PyResult<Vec<String>> {
    use tracediff::output::render::plot::{chart_of, check_size};
    use tracediff::output::render::waterfall::{Waterfall, draw_waterfall};
    let duration = match metric.to_ascii_lowercase().as_str() {
        "counts" => Some(false),
        "duration" => Some(true),
        "breakdown" => None,
        other => {
            return Err(TraceError::new_err(format!(
                "unknown metric '{other}' (expected counts, duration or breakdown)"
            )));
        }
    };
    let sort = sort.map(sort_key).transpose()?;
    if top == 0 {
        return Err(TraceError::new_err("top must be at least 1"));
    }
    let request = options.request(control, test)?;
    guarded(py, || {
        // Refused before any trace is read, as on the command line.
        check_size(width, height)?;
        let format = ImageFormat::from_path(&output)?;
        let (bytes, notes) = match duration {
            Some(duration) => {
                let (comparison, notes) = run_compare(&request)?;
                let chart = chart_of(&comparison, duration, sort, top, (width, height))?;
                (draw(&chart, format)?, notes)
            }
            None => {
                let (overview, notes) = overview_request(&request)?;
                let waterfall = Waterfall::of(&overview, (width, height))?;
                (draw_waterfall(&waterfall, format)?, notes)
            }
        };
        tracediff::output::atomic::write_atomically(&output, |w| w.write_all(&bytes))?;
        Ok(notes)
    })
}

/// `tracediff summarize`: one trace file to a Parquet summary at `output`.
#[pyfunction]
fn summarize(py: Python<'_>, trace: PathBuf, output: PathBuf) -> PyResult<()> {
    guarded(py, || {
        if std::fs::metadata(&trace).is_ok_and(|m| m.is_dir()) {
            return Err(tracediff::Error::input(
                &trace,
                "summarize takes one trace file, not a directory (run it once per rank)",
            ));
        }
        let summary = load::summarize_trace(&trace, &tracediff::analysis::summary::summarize)?;
        tracediff::output::summary::save_summary(&summary, &output)
    })
}

/// `tracediff report`: the self-contained HTML page of a pair, written to `output`. Returns the
/// notes the command line prints.
#[pyfunction]
#[pyo3(signature = (control, test, output, options, table_depth=3, table_rows=100))]
fn report(
    py: Python<'_>,
    control: PathBuf,
    test: PathBuf,
    output: PathBuf,
    options: &Options,
    table_depth: usize,
    table_rows: usize,
) -> PyResult<Vec<String>> {
    let request = options.request(control, test)?;
    guarded(py, || {
        let loaded = load(&request, "report")?;
        let limits = ReportLimits {
            depth: table_depth,
            rows: table_rows,
        };
        let page = tracediff::analysis::report::report(&request, &loaded, limits)?;
        let mut notes = loaded.notes.clone();
        notes.extend(loaded.overlap_notes(&request.labels));
        notes.extend(page.overview.notes());
        notes.extend(page.shift_note());
        std::fs::write(&output, tracediff::output::render::report::render(&page)).map_err(|e| {
            tracediff::Error::Output {
                path: output.clone(),
                source: e,
            }
        })?;
        Ok(notes)
    })
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
    let rank_pick = ranks.map_or(Ok(Pick::All), |r| pick(Some(r)))?;
    let iteration_pick = iterations.map(|i| pick(Some(i))).transpose()?;
    let device = self::device(device)?;
    let csv = guarded(py, || {
        let attrs = AttrRequest::build(Preset::None, &args, &[])?;
        let name = name
            .map(|p| tracediff::analysis::diff::compile_pattern("name", p))
            .transpose()?;
        let side = load::load_side_ranks(&path, &attrs, &[&rank_pick], false)?;
        let selection = SideSelection {
            ranks: rank_pick.clone(),
            iterations: iteration_pick.clone().unwrap_or(Pick::All),
        };
        let mut resolved = resolve(&side, "events", &selection)?;
        if iteration_pick.is_none() {
            resolved.iterations = None;
        }
        let filter = EventFilter { device, name, cats };
        let mut out = Vec::new();
        write_events(&side, &resolved, &filter, EventsFormat::Csv, &mut out)?;
        Ok(out)
    })?;
    Ok(PyBytes::new(py, &csv))
}

/// `tracediff gate --format json`: the rules as the JSON of a config file's `[gate]` table
/// (`{"max_step_time_regression": "5%", ...}`, validated here as the file's keys are), over every
/// rank and step unless `ranks`/`iterations` narrow it. Returns the report's JSON text.
#[pyfunction]
#[pyo3(signature = (baseline, candidate, rules_json, ranks=None, iterations=None))]
fn gate(
    py: Python<'_>,
    baseline: PathBuf,
    candidate: PathBuf,
    rules_json: &str,
    ranks: Option<&str>,
    iterations: Option<&str>,
) -> PyResult<String> {
    let config: GateConfig =
        serde_json::from_str(rules_json).map_err(|e| TraceError::new_err(format!("gate rules: {e}")))?;
    let selection = SideSelection {
        ranks: ranks.map_or(Ok(Pick::All), |r| pick(Some(r)))?,
        iterations: iterations.map_or(Ok(Pick::All), |i| pick(Some(i)))?,
    };
    guarded(py, || {
        let (report, _notes) = gate_pair(&config, &baseline, &candidate, &selection)?;
        Ok(tracediff::output::render::gate::render(&report, Format::Json, true))
    })
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
    m.add_class::<Options>()?;
    m.add_function(wrap_pyfunction!(_fault_for_tests, m)?)?;
    Ok(())
}
