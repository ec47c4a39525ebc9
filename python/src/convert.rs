//! Python values from the commands' results, and the commands' options from Python's: the
//! translations the bindings make on either side of a call.

use crate::TraceError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use tracediff::commands::Shown;
use tracediff::{Comparison, SortKey};
use tracediff::{Device, Pick};

/// `None` → the default pick (the lowest); otherwise the command line's syntax (`3`, `1,2`, `all`).
pub(crate) fn pick(text: Option<&str>) -> PyResult<Pick> {
    match text {
        None => Ok(Pick::Lowest),
        Some(t) => t.parse().map_err(|e: String| TraceError::new_err(e)),
    }
}

/// A pick where `None` means every rank or step.
pub(crate) fn pick_or_all(text: Option<&str>) -> PyResult<Pick> {
    text.map_or(Ok(Pick::All), |t| pick(Some(t)))
}

pub(crate) fn device(text: &str) -> PyResult<Device> {
    match text.to_ascii_lowercase().as_str() {
        "cpu" => Ok(Device::Cpu),
        "gpu" => Ok(Device::Gpu),
        "all" => Ok(Device::All),
        other => Err(TraceError::new_err(format!(
            "unknown device type '{other}' (expected CPU, GPU or ALL)"
        ))),
    }
}

/// One of `choices` by its (case-insensitive) name, or a `TraceError` naming them.
pub(crate) fn choice<T: Copy>(what: &str, text: &str, choices: &[(&str, T)]) -> PyResult<T> {
    let lower = text.to_ascii_lowercase();
    choices
        .iter()
        .find(|(name, _)| *name == lower)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            TraceError::new_err(format!("unknown {what} '{text}' (expected {})", names.join(" or ")))
        })
}

/// The sort keys of `tracediff plot --sort`, by their command-line names.
pub(crate) fn sort_key(text: &str) -> PyResult<SortKey> {
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

/// A view's table as columns: `name` (and with `by_operator`, `operator`), then
/// `<side>_<measure>` (sums) and where rows are per step `<side>_<measure>_per_step` for both
/// sides (durations in ns, `None` where a side has no value), and
/// where significance was judged `significant` (of the time the command line's table shows)
/// and `run_shift` (JSON), then with `why` its fields ([`why_columns`]).
pub(crate) fn table_columns<'py>(py: Python<'py>, shown: &Shown) -> PyResult<Bound<'py, PyDict>> {
    let table = &shown.table;
    let rows = &table.rows;
    let out = PyDict::new(py);
    if table.by_operator {
        out.set_item("operator", PyList::new(py, rows.iter().map(|r| r.operator.as_deref()))?)?;
    }
    out.set_item("name", PyList::new(py, rows.iter().map(|r| r.name.as_str()))?)?;
    // The sums over the steps used, and where more than one step or run was used the values per
    // step beside them (`<side>_<measure>_per_step`; not for a kernel's mean, min and max).
    let per_step = rows.iter().any(|r| r.per_step.is_some());
    for (k, m) in table.measures.iter().enumerate() {
        for (side, label) in ["control", "test"].into_iter().enumerate() {
            let sums = rows.iter().map(|r| if side == 0 { r.control[k] } else { r.test[k] });
            out.set_item(format!("{label}_{m}"), PyList::new(py, sums)?)?;
            if per_step && !m.is_statistic() {
                let shown = rows.iter().map(|r| r.per_step.as_ref().and(r.shown(side, k)));
                out.set_item(format!("{label}_{m}_per_step"), PyList::new(py, shown)?)?;
            }
        }
    }
    if table.significance {
        let marks = rows.iter().map(|r| r.significant.get(shown.time).copied().flatten());
        out.set_item("significant", PyList::new(py, marks)?)?;
        let shift = serde_json::to_string(&table.shift).map_err(|e| TraceError::new_err(e.to_string()))?;
        out.set_item("run_shift", shift)?;
    }
    why_columns(&out, tracediff::render::view_why_fields(table, shown.why.as_ref()))?;
    Ok(out)
}

/// The `--why` fields (docs/fields.md#why) into `out`, named and valued as the command line's
/// JSON writes them: numbers (µs for the parts), text, or `None` where a row has no value.
fn why_columns(out: &Bound<'_, PyDict>, fields: Option<Vec<(String, Vec<serde_json::Value>)>>) -> PyResult<()> {
    use pyo3::IntoPyObjectExt;
    use serde_json::Value;
    let py = out.py();
    for (key, values) in fields.into_iter().flatten() {
        let items = values
            .iter()
            .map(|v| match v {
                Value::Number(n) if n.is_i64() => n.as_i64().into_py_any(py),
                Value::Number(n) => n.as_f64().into_py_any(py),
                Value::String(s) => s.into_py_any(py),
                Value::Bool(b) => b.into_py_any(py),
                _ => Ok(py.None()),
            })
            .collect::<PyResult<Vec<_>>>()?;
        out.set_item(key, PyList::new(py, items)?)?;
    }
    Ok(())
}

/// The comparison table as columns: `name`, `<side>_counts`, `<side>_dur_ns` for both sides,
/// `notes` (what the command line prints on stderr), then with `why` its fields ([`why_columns`]).
pub(crate) fn comparison_columns<'py>(
    py: Python<'py>,
    comparison: &Comparison,
    notes: &[String],
) -> PyResult<Bound<'py, PyDict>> {
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
    why_columns(&out, tracediff::render::comparison_why_fields(comparison))?;
    Ok(out)
}

/// The module diff as a flat JSON list of nodes in the order they ran: Python rebuilds the tree
/// without recursion and without every node's full path (python/tracediff/_api.py).
pub(crate) fn modules_json(m: &tracediff::commands::Modules) -> String {
    use tracediff::render::{ModuleOrder, ModuleView, write_flat_json};
    let shown = ModuleView {
        diff: &m.diff,
        top: m.top(),
        depth: None,
        min_share: 0.0,
        order: ModuleOrder::Logical,
        time: m.time,
        fold_runs: false,
        significance: m.significance.as_ref(),
    };
    let mut text = Vec::new();
    // Writing to memory cannot fail.
    let _ = write_flat_json(&shown, &mut text);
    String::from_utf8(text).unwrap_or_default()
}
