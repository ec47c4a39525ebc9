//! The options every comparison takes, as one typed Python object.

use crate::convert::{device, pick};
use pyo3::prelude::*;
use std::path::PathBuf;
use tracediff::Naming;
use tracediff::SideSelection;
use tracediff::commands::CompareRequest;

/// The options every comparison takes, as one typed object across the FFI (the Python functions'
/// keyword arguments): built once, checked by pyo3's conversions (a `str` where a list of
/// patterns belongs is a `TypeError`), and validated here before any trace is read.
#[pyclass(module = "tracediff._native", frozen)]
#[derive(Clone)]
pub(crate) struct Options {
    /// Ranks of the control side in the command line's syntax (`3`, `0,2`, `all`); None: the lowest.
    #[pyo3(get)]
    control_rank: Option<String>,
    /// Ranks of the test side.
    #[pyo3(get)]
    test_rank: Option<String>,
    /// ProfilerSteps of the control side; None: the lowest.
    #[pyo3(get)]
    control_iteration: Option<String>,
    /// ProfilerSteps of the test side.
    #[pyo3(get)]
    test_iteration: Option<String>,
    /// `cpu`, `gpu` or `all`.
    #[pyo3(get)]
    device: String,
    /// Group by HTA's short names.
    #[pyo3(get)]
    short_names: bool,
    /// Rewrite run-specific noise out of names; None: the command's default (raw names for
    /// `compare`, HTA's table; normalised for the views, as on the command line).
    #[pyo3(get)]
    normalize_names: Option<bool>,
    /// Keep only names matching any of these patterns.
    #[pyo3(get)]
    include: Vec<String>,
    /// Drop names matching any of these patterns.
    #[pyo3(get)]
    exclude: Vec<String>,
    /// Names of the two sides.
    #[pyo3(get)]
    labels: Option<(String, String)>,
    /// Kernel rows keyed by (launching operator, kernel).
    #[pyo3(get)]
    pub(crate) by_operator: bool,
    /// A module path: only what ran inside that node.
    #[pyo3(get)]
    pub(crate) zoom: Option<String>,
    /// Judge significance against no change even where the whole run moved by one factor (the
    /// command line's `--no-run-shift`; docs/significance.md#a-run-wide-shift).
    #[pyo3(get)]
    no_run_shift: bool,
    /// The views' rows as sums over the selected steps and runs (the command line's
    /// `--totals`); by default they are per step wherever more than one step or run is used.
    #[pyo3(get)]
    pub(crate) totals: bool,
    /// The `--why` columns of `compare`, `operators` and `kernels` (docs/fields.md#why): each
    /// row's change split into calls, work and efficiency, with its causes.
    #[pyo3(get)]
    pub(crate) why: bool,
    /// The request these options make, built and checked once when they are made: a pair's
    /// request is it with the pair's two paths.
    template: CompareRequest,
}

#[pymethods]
impl Options {
    #[new]
    #[pyo3(signature = (*, control_rank=None, test_rank=None, control_iteration=None,
        test_iteration=None, device="all".to_string(), short_names=false, normalize_names=None,
        include=Vec::new(), exclude=Vec::new(), labels=None, by_operator=false, zoom=None,
        no_run_shift=false, totals=false, why=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        control_rank: Option<String>,
        test_rank: Option<String>,
        control_iteration: Option<String>,
        test_iteration: Option<String>,
        device: String,
        short_names: bool,
        normalize_names: Option<bool>,
        include: Vec<String>,
        exclude: Vec<String>,
        labels: Option<(String, String)>,
        by_operator: bool,
        zoom: Option<String>,
        no_run_shift: bool,
        totals: bool,
        why: bool,
    ) -> PyResult<Self> {
        let mut options = Options {
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
            totals,
            why,
            template: CompareRequest::new(PathBuf::new(), PathBuf::new()),
        };
        // Refused now, with the option's name, rather than after the traces are read.
        options.template = options.build()?;
        Ok(options)
    }

    fn __repr__(&self) -> String {
        format!("{self:?}")
    }
}

impl Options {
    /// The request of a pair with these options, as `compare` and `ops_diff` take it: HTA's
    /// (`compare_traces`'s defaults: the lowest rank and step, Python frames and raw names). Each
    /// side is one path or a list of runs.
    pub(crate) fn request(&self, control: Vec<PathBuf>, test: Vec<PathBuf>) -> PyResult<CompareRequest> {
        let mut request = self.template.clone();
        request.control = runs(control, "control")?;
        request.test = runs(test, "test")?;
        side_folders(&request.control, &request.test, ["control", "test"])?;
        Ok(request)
    }

    /// The request of `compare` and `ops_diff`: HTA's table for one path a side ([`Options::request`]);
    /// runs given one by one, which HTA does not read, are the command line's ([`Options::view_request`]).
    pub(crate) fn compare_request(&self, control: Vec<PathBuf>, test: Vec<PathBuf>) -> PyResult<CompareRequest> {
        if control.len() > 1 || test.len() > 1 {
            self.view_request(control, test)
        } else {
            self.request(control, test)
        }
    }

    /// The request of a pair with these options as the command line's views take it (the
    /// views, `modules`, `overview`, `report`, `plot`, the flame graph): the operations of each
    /// run with normalised names (unless `normalize_names=False`), every step of a side whose
    /// steps are not named, rows per step unless `totals`.
    pub(crate) fn view_request(&self, control: Vec<PathBuf>, test: Vec<PathBuf>) -> PyResult<CompareRequest> {
        let mut request = self.request(control, test)?.operations();
        request.normalize_names = self.normalize_names.unwrap_or(true);
        request.every_step_unless_named(self.control_iteration.is_some(), self.test_iteration.is_some());
        request.totals = self.totals;
        Ok(request)
    }

    /// The request these options make, without its paths: the one place they are read.
    fn build(&self) -> PyResult<CompareRequest> {
        let mut request = CompareRequest::new(PathBuf::new(), PathBuf::new());
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
        request.normalize_names = self.normalize_names.unwrap_or(false);
        request.beyond_shift = !self.no_run_shift;
        request.include = self.include.clone();
        request.exclude = self.exclude.clone();
        if let Some((c, t)) = &self.labels {
            request.labels = [c.clone(), t.clone()];
        }
        Ok(request)
    }
}

/// One side as Python gives it: one path, or a list of runs (a list of one is that path; an
/// empty list, or a directory of runs inside a list, is a `TraceError`).
pub(crate) fn runs(paths: Vec<PathBuf>, label: &str) -> PyResult<tracediff::commands::SidePaths> {
    tracediff::commands::given_runs(paths, label).map_err(|e| crate::TraceError::new_err(e.to_string()))
}

/// Refuses sides laid out as a pair's folder given as one side, or a side that holds the other
/// (a `TraceError` naming the folder to pass).
pub(crate) fn side_folders(
    control: &tracediff::commands::SidePaths,
    test: &tracediff::commands::SidePaths,
    names: [&str; 2],
) -> PyResult<()> {
    let sides = tracediff::commands::PerSide::new(Some(control), Some(test));
    let names = tracediff::commands::PerSide::new(names[0], names[1]);
    tracediff::commands::check_side_folders(sides, names).map_err(|e| crate::TraceError::new_err(e.to_string()))
}

/// What Python shows: the options as given (the request they make is theirs).
impl std::fmt::Debug for Options {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Options")
            .field("control_rank", &self.control_rank)
            .field("test_rank", &self.test_rank)
            .field("control_iteration", &self.control_iteration)
            .field("test_iteration", &self.test_iteration)
            .field("device", &self.device)
            .field("short_names", &self.short_names)
            .field("normalize_names", &self.normalize_names)
            .field("include", &self.include)
            .field("exclude", &self.exclude)
            .field("labels", &self.labels)
            .field("by_operator", &self.by_operator)
            .field("zoom", &self.zoom)
            .field("no_run_shift", &self.no_run_shift)
            .field("totals", &self.totals)
            .field("why", &self.why)
            .finish()
    }
}
