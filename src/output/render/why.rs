//! The `--why` columns of `compare`, `operators` and `kernels` (docs/cost-model.md#the-why-columns),
//! declared once for both tables: the ratios and the three parts of each row's Δ in every
//! format, the work per call and the causes in CSV and JSON (the causes in Markdown too, and
//! under the terminal table as one line per row).

use super::table::{Cell, Column, Formats, Line};
use crate::analysis::diff::Comparison;
use crate::analysis::explain::causes::fmt_rate;
use crate::analysis::explain::why::{WhyRow, WhyTable};
use crate::analysis::views::ViewTable;
use serde_json::{Value, json};
use std::borrow::Cow;

/// What a `--why` cell holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum WhyOf {
    /// Calls, test ÷ control.
    CallsRatio,
    /// Work per call, test ÷ control.
    WorkRatio,
    /// Work per ns, test ÷ control.
    EfficiencyRatio,
    /// Time per call, test ÷ control.
    TimePerCallRatio,
    /// The calls part of Δ.
    CallsPart,
    /// The work part of Δ.
    WorkPart,
    /// The efficiency part of Δ.
    EfficiencyPart,
    /// The unit of the work figures.
    Unit,
    /// A side's work per call (0 control, 1 test).
    Work(usize),
    /// The causes (with the operator they come from, for people).
    Causes,
    /// The operator a kernel row's causes come from.
    Via,
}

/// The `--why` columns, in order; the parts' names per step where the rows are
/// (docs/fields.md#why). `md_fields`: Markdown headed by the field names (the views' Markdown).
pub(crate) fn columns(per_step: bool, md_fields: bool) -> Vec<(Column, WhyOf)> {
    use Formats as F;
    let step = if per_step { "_per_step" } else { "" };
    let col = |key: String, header: &str, formats: Formats| {
        let c = Column::new(key.clone(), key.clone(), header).only(formats);
        if md_fields { c.markdown(super::md_cell(&key)) } else { c }
    };
    let people = F::ALL;
    let data = F::CSV | F::JSON;
    vec![
        (col("ratio_calls".into(), "calls\n×", people), WhyOf::CallsRatio),
        (col("ratio_work".into(), "work\n×", people), WhyOf::WorkRatio),
        (
            col("ratio_efficiency".into(), "effic.\n×", people),
            WhyOf::EfficiencyRatio,
        ),
        (col("ratio_time_per_call".into(), "", data), WhyOf::TimePerCallRatio),
        (
            col(format!("diff_calls_part{step}_us"), "Δ by\ncalls", people).signed(),
            WhyOf::CallsPart,
        ),
        (
            col(format!("diff_work_part{step}_us"), "Δ by\nwork", people).signed(),
            WhyOf::WorkPart,
        ),
        (
            col(format!("diff_efficiency_part{step}_us"), "Δ by\neffic.", people).signed(),
            WhyOf::EfficiencyPart,
        ),
        (col("work_unit".into(), "", data).left(), WhyOf::Unit),
        (col("control_work_per_call".into(), "", data), WhyOf::Work(0)),
        (col("test_work_per_call".into(), "", data), WhyOf::Work(1)),
        (
            col("causes".into(), "causes", F::CSV | F::JSON | F::MARKDOWN).left(),
            WhyOf::Causes,
        ),
        (col("causes_via".into(), "", data).left(), WhyOf::Via),
    ]
}

/// A ratio: `×1.92` for people, to four decimals in CSV and JSON.
fn ratio(r: Option<f64>) -> Cell<'static> {
    match r {
        Some(x) if x.is_finite() => Cell::Shown(format!("×{x:.2}"), json!((x * 1e4).round() / 1e4)),
        _ => Cell::Empty,
    }
}

/// Row `w`'s cell of a column that holds `of` (empty where the row has no values).
pub(crate) fn cell(w: Option<&WhyRow>, of: WhyOf) -> Cell<'_> {
    let Some(w) = w else { return Cell::Empty };
    let p = w.parts;
    match of {
        WhyOf::CallsRatio => ratio(w.ratios.calls),
        WhyOf::WorkRatio => ratio(w.ratios.work),
        WhyOf::EfficiencyRatio => ratio(w.ratios.efficiency),
        WhyOf::TimePerCallRatio => ratio(w.ratios.time_per_call),
        WhyOf::CallsPart => Cell::Duration(p.calls_ns),
        WhyOf::WorkPart if w.unit.is_some() => Cell::Duration(p.work_ns),
        WhyOf::WorkPart => Cell::Empty,
        WhyOf::EfficiencyPart => Cell::Duration(p.efficiency_ns),
        WhyOf::Unit => w.unit.map_or(Cell::Empty, |u| Cell::Text(Cow::Borrowed(u.symbol()))),
        WhyOf::Work(k) => match (w.work[k], w.unit) {
            (Some(v), Some(u)) => {
                let text = fmt_rate(v, u);
                // Whole, as an integer where it is exact in a double.
                let whole = if v.abs() < 9.0e15 {
                    json!(v.round() as i64)
                } else {
                    json!(v.round())
                };
                Cell::Shown(text.trim_end_matches("/s").to_string(), whole)
            }
            _ => Cell::Empty,
        },
        WhyOf::Causes => match (&w.via, w.causes.is_empty()) {
            (_, true) => Cell::Empty,
            (Some(op), false) => Cell::Shown(format!("{op}: {}", w.causes), json!(w.causes)),
            (None, false) => Cell::Text(Cow::Borrowed(&w.causes)),
        },
        WhyOf::Via => w.via.as_deref().map_or(Cell::Empty, |op| Cell::Name(Cow::Borrowed(op))),
    }
}

/// The `--why` fields of a table, as `--format json` writes them (docs/fields.md#why): each
/// field's name and its value per row, rows in the order of `keys` (each row's operator, where
/// its table keys rows by one, and name).
fn fields(why: &WhyTable, keys: &[(Option<&str>, &str)], per_step: bool) -> Vec<(String, Vec<Value>)> {
    columns(per_step, false)
        .into_iter()
        .map(|(column, of)| {
            let values = keys
                .iter()
                .map(|&(operator, name)| cell(why.get(operator, name), of).json().unwrap_or(Value::Null))
                .collect();
            (column.key, values)
        })
        .collect()
}

/// The `--why` fields of a comparison's rows in its order, as `compare --why --format json`
/// writes them (None: the comparison was made without `--why`): for another front end.
pub fn comparison_why_fields(c: &Comparison) -> Option<Vec<(String, Vec<Value>)>> {
    let why = c.why.as_ref()?;
    let keys: Vec<_> = c.rows.iter().map(|r| (None, r.name.as_str())).collect();
    let per_step = c.rows.iter().any(|r| r.per_step.is_some());
    Some(fields(why, &keys, per_step))
}

/// The `--why` fields of a view's rows in its order, as `operators --why --format json` and
/// `kernels --why --format json` write them (None: no `--why` values): for another front end.
pub fn view_why_fields(table: &ViewTable, why: Option<&WhyTable>) -> Option<Vec<(String, Vec<Value>)>> {
    let why = why?;
    let keys: Vec<_> = table
        .rows
        .iter()
        .map(|r| (r.operator.as_deref(), r.name.as_str()))
        .collect();
    let per_step = table.rows.iter().any(|r| r.per_step.is_some());
    Some(fields(why, &keys, per_step))
}

/// The terminal's lines under the table: each shown row's causes (`aten::mm: dims … → …`,
/// `gemm_a via aten::mm: …`), then the note where a side recorded no shapes.
pub(crate) fn cause_lines<'w>(rows: impl Iterator<Item = (String, Option<&'w WhyRow>)>) -> Vec<Line> {
    let mut lines: Vec<Line> = rows
        .filter_map(|(name, w)| {
            let w = w.filter(|w| !w.causes.is_empty())?;
            let text = match &w.via {
                // `aten::mm → gemm` names its operator already.
                Some(op) if !name.starts_with(&format!("{op} → ")) => format!("  {name} (via {op}): {}", w.causes),
                _ => format!("  {name}: {}", w.causes),
            };
            Some(Line::terminal(text))
        })
        .collect();
    if !lines.is_empty() {
        lines.insert(0, Line::terminal("why:"));
    }
    lines
}

/// The terminal's drop order of a table with the `--why` columns: the table's own groups, then
/// the ratios, then Δ % (at `pct`), so that the names keep room and the parts stay. `table` is
/// the table model; `own` its order without `--why`.
pub(crate) fn drop_order(table: &super::table::Table<'_>, own: &[&[usize]], pct: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<Vec<usize>> = own.iter().map(|g| g.to_vec()).collect();
    let shown = table.shown(super::Format::Table);
    if let Some(first) = shown.iter().position(|&k| table.columns[k].key == "ratio_calls") {
        // Indices among the value columns, after the names.
        order.push(vec![first - 1, first, first + 1]);
        order.push(vec![pct]);
    }
    order
}
