//! `explain`'s output (docs/cost-model.md): for people, one line per changed row with its parts
//! and causes under it, then the summary; Markdown, CSV and the JSON rows on the table model,
//! one column list for all three.

use super::table::{Cell, Column, Formats, Line, Table, csv, json, markdown};
use super::{Format, TableStyle, json_us, wrap_line, wrap_line_under};
use crate::analysis::explain::{Explained, Explanation};
use crate::text::fmt_duration;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::io::{self, Write};

/// What `explain` writes: the explanation and how many rows to show.
pub struct ExplainView<'a> {
    /// The explanation.
    pub explanation: &'a Explanation,
    /// Show only the first N rows (the summary still covers every row).
    pub top: Option<usize>,
}

impl ExplainView<'_> {
    fn rows(&self) -> &[Explained] {
        let rows = &self.explanation.rows;
        &rows[..self.top.map_or(rows.len(), |n| n.min(rows.len()))]
    }
}

/// Writes `view` in `format`.
pub fn write(view: &ExplainView<'_>, format: Format, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Table => text(view, style.width, out),
        Format::Markdown => markdown::write(&model(view), out),
        Format::Csv => csv::write(&model(view), out),
        Format::Json => json_doc(view, out),
    }
}

/// For people: each row's line, its parts and causes indented under it, then the summary.
fn text(view: &ExplainView<'_>, width: usize, out: &mut dyn Write) -> io::Result<()> {
    let e = view.explanation;
    writeln!(out, "{}", title(e))?;
    if view.rows().is_empty() {
        writeln!(out, "(no operator's time changed)")?;
    }
    for r in view.rows() {
        // The row's line, its continuation at 2; its parts and causes at 4, theirs at 6.
        writeln!(out, "{}", wrap_line(&r.line, width))?;
        writeln!(
            out,
            "{}",
            wrap_line_under(&format!("    {}", parts_text(r)), width, "      ")
        )?;
        for c in &r.causes {
            writeln!(out, "{}", wrap_line_under(&format!("    {}", c.text), width, "      "))?;
        }
    }
    if let Some(n) = view.top.filter(|&n| n < e.rows.len()) {
        writeln!(out, "({} of {} changed rows shown; --top)", n, e.rows.len())?;
    }
    writeln!(out)?;
    writeln!(out, "{}", wrap_line(&e.summary, width))
}

/// `control vs test, by device self time per step`; of the whole trace where neither side has
/// steps, and naming the side without them where one has none (its times are of its whole
/// trace).
fn title(e: &Explanation) -> String {
    let [c, t] = &e.labels;
    let measure = measure_words(e);
    match e.per_step {
        [true, true] => format!("{c} vs {t}, by {measure} time per step"),
        [false, false] => format!("{c} vs {t}, by {measure} time of the whole trace (no ProfilerStep)"),
        [c_steps, _] => {
            let side = if c_steps { t } else { c };
            format!("{c} vs {t}, by {measure} time per step ({side}: no ProfilerStep, the whole trace)")
        }
    }
}

/// `device self` or `host self`.
fn measure_words(e: &Explanation) -> String {
    e.measure.key().replace('_', " ")
}

/// `calls +0 ns, work +3.10 ms, efficiency +110 µs`.
pub(crate) fn parts_text(r: &Explained) -> String {
    let p = r.parts;
    let work = if r.unit.is_some() {
        format!(", work {}", fmt_duration(p.work_ns, true))
    } else {
        String::new()
    };
    format!(
        "calls {}{work}, efficiency {}",
        fmt_duration(p.calls_ns, true),
        fmt_duration(p.efficiency_ns, true)
    )
}

/// A ratio: `×1.92` for people, the number in CSV and JSON.
fn ratio(r: Option<f64>) -> Cell<'static> {
    match r {
        Some(x) => Cell::Shown(format!("×{x:.2}"), json!(x)),
        None => Cell::Empty,
    }
}

/// A work figure per call: `50.3 MFLOP` for people, the number elsewhere.
fn work(w: Option<f64>, unit: Option<crate::analysis::cost::model::Unit>) -> Cell<'static> {
    match (w, unit) {
        (Some(w), Some(u)) => {
            let text = crate::analysis::explain::causes::fmt_rate(w, u);
            Cell::Shown(text.trim_end_matches("/s").to_string(), json!(w))
        }
        _ => Cell::Empty,
    }
}

/// The columns, in the order every format keeps.
fn columns(labels: &[String; 2]) -> Vec<Column> {
    let [c, t] = labels;
    let md_csv_json = Formats::MARKDOWN | Formats::CSV | Formats::JSON;
    let data = Formats::CSV | Formats::JSON;
    vec![
        Column::new("name", "name", "name").left().only(md_csv_json),
        Column::new("delta", "diff_time", "Δ / step").signed().only(md_csv_json),
        // Per step, named as every command's per-step fields are (docs/fields.md).
        Column::new("control_time_per_step_us", "control_time_per_step_us", c.to_string()).only(data),
        Column::new("test_time_per_step_us", "test_time_per_step_us", t.to_string()).only(data),
        Column::new("calls_part", "calls_part", "calls")
            .signed()
            .only(md_csv_json),
        Column::new("work_part", "work_part", "work").signed().only(md_csv_json),
        Column::new("efficiency_part", "efficiency_part", "efficiency")
            .signed()
            .only(md_csv_json),
        Column::new("control_calls_per_step", "control_calls_per_step", format!("{c} calls")).only(data),
        Column::new("test_calls_per_step", "test_calls_per_step", format!("{t} calls")).only(data),
        Column::new("calls_ratio", "calls_ratio", "calls ×").only(md_csv_json),
        Column::new("work_ratio", "work_ratio", "work ×").only(md_csv_json),
        Column::new("efficiency_ratio", "efficiency_ratio", "efficiency ×").only(md_csv_json),
        Column::new("time_per_call_ratio", "time_per_call_ratio", "time/call ×").only(data),
        Column::new("unit", "work_unit", "unit").left().only(data),
        Column::new("control_work", format!("{c}_work_per_call"), "work/call").only(data),
        Column::new("test_work", format!("{t}_work_per_call"), "work/call").only(data),
        Column::new("significant", "significant", "sig").only(md_csv_json),
        Column::new("causes", "causes", "causes").left().only(md_csv_json),
        Column::new("line", "line", "line").left().only(Formats::JSON),
    ]
}

fn cells<'a>(r: &'a Explained, cells: &mut Vec<Cell<'a>>) {
    let p = r.parts;
    let causes: Vec<&str> = r.causes.iter().map(|c| c.text.as_str()).collect();
    cells.extend([
        Cell::Name(Cow::Borrowed(&r.name)),
        Cell::Duration(p.delta_ns),
        Cell::Duration(r.control.time_ns),
        Cell::Duration(r.test.time_ns),
        Cell::Duration(p.calls_ns),
        if r.unit.is_some() {
            Cell::Duration(p.work_ns)
        } else {
            Cell::Empty
        },
        Cell::Duration(p.efficiency_ns),
        Cell::Rate(r.control.calls),
        Cell::Rate(r.test.calls),
        ratio(r.ratios.calls),
        ratio(r.ratios.work),
        ratio(r.ratios.efficiency),
        ratio(r.ratios.time_per_call),
        r.unit.map_or(Cell::Empty, |u| Cell::Text(Cow::Borrowed(u.symbol()))),
        work(r.control.work, r.unit),
        work(r.test.work, r.unit),
        Cell::Mark(r.significant),
        Cell::Text(Cow::Owned(causes.join("; "))),
        Cell::Text(Cow::Borrowed(&r.line)),
    ]);
}

/// The table of the rows shown, with the summary below it (Markdown).
fn model<'a>(view: &'a ExplainView<'a>) -> Table<'a> {
    let e = view.explanation;
    let rows = view.rows();
    let mut table = Table::new(columns(&e.labels), rows.len(), move |i, out| cells(&rows[i], out));
    table.title = vec![Line::new(title(e))];
    table.notes = vec![Line::new(e.summary.clone())];
    table
}

/// The JSON document: what was compared, the summary, and the rows.
fn json_doc(view: &ExplainView<'_>, out: &mut dyn Write) -> io::Result<()> {
    let e = view.explanation;
    let table = model(view);
    let mut doc = serde_json::Map::new();
    doc.insert("tool".into(), json!("tracediff"));
    doc.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    doc.insert("duration_unit".into(), json!("us"));
    doc.insert("labels".into(), json!(e.labels));
    doc.insert("measure".into(), json!(e.measure.key()));
    doc.insert("devices".into(), json!(e.devices));
    doc.insert("shapes_recorded".into(), json!(e.shapes));
    doc.insert(
        "mean_step_time_us".into(),
        e.step_ns.map_or(
            Value::Null,
            |[c, t]| json!({"control": json_us(c.round() as i64), "test": json_us(t.round() as i64)}),
        ),
    );
    doc.insert("significance_judged".into(), json!(e.judged));
    doc.insert("changed_rows".into(), json!(e.rows.len()));
    doc.insert("top".into(), json!(view.top));
    doc.insert("summary".into(), json!(e.summary));
    let rows = serde_json::to_value(json::Rows(&table)).map_err(io::Error::from)?;
    doc.insert("rows".into(), rows);
    serde_json::to_writer_pretty(&mut *out, &Value::Object(doc)).map_err(io::Error::from)?;
    writeln!(out)
}
