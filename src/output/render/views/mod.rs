//! The operator and kernel tables (docs/semantics.md#operator-and-kernel-views) and the overview (docs/semantics.md#overview) in each format.

pub use super::breakdown::OverviewTables;
use super::compare::{describe_side, side_json};
use super::table::{self, Line, Table, terminal};
use super::{Format, TableStyle, distinct_cuts, fmt_count, fmt_duration, fmt_percent, json_us};
use crate::analysis::views::{SortSpec, ViewKind, ViewRow, ViewTable};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use std::fmt::Write;
use std::io;

mod columns;
mod overview;
mod overview_table;

pub use self::overview::render_overview_with;
pub(crate) use self::overview::{render_overview, render_overview_fitted};
pub(crate) use self::overview_table::fmt_bytes;

/// The rows to show, in order, and how they were chosen.
#[derive(Debug, Clone)]
pub struct TableView<'a> {
    /// The whole view, every row.
    pub table: &'a ViewTable,
    /// The rows shown, in output order: sorted, at most `top`.
    pub rows: Vec<&'a ViewRow>,
    /// How `rows` were sorted (named in the header).
    pub sort: SortSpec,
    /// The `--top` asked for; `None`: every row.
    pub top: Option<usize>,
    /// The index in `table.measures` of the measure the terminal table shows beside the calls.
    pub time: usize,
    /// The `--why` values of the rows, where asked (docs/cost-model.md#the-why-columns).
    pub why: Option<&'a crate::analysis::explain::why::WhyTable>,
}

/// The view as text in `format`: aligned columns fitted to `style` (table), HTA-style columns
/// per measure (CSV), rows with both sides' values (JSON) or a Markdown table.
pub(crate) fn render(view: &TableView<'_>, format: Format, style: TableStyle) -> String {
    match format {
        Format::Csv => csv(view),
        Format::Json => json(view),
        Format::Markdown => markdown(view),
        Format::Table => table(view, style),
    }
}

/// Writes the table in `format` to `out` as it is rendered: CSV and JSON row by row, so that a
/// table of a million rows never exists as one document in memory (docs/robustness.md#memory).
pub fn write(view: &TableView<'_>, format: Format, style: TableStyle, out: &mut dyn io::Write) -> io::Result<()> {
    match format {
        Format::Csv => write_csv(view, out),
        Format::Json => write_json(view, out),
        Format::Markdown | Format::Table => out.write_all(render(view, format, style).as_bytes()),
    }
}

/// The headers and cells of every CSV column, in order, with the labels in the headers.
pub(crate) fn csv(view: &TableView<'_>) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_csv(view, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

fn write_csv(view: &TableView<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    table::csv::write(&columns::table(view), out)
}

/// One side's attribution (docs/graphs.md#launch-owners): its device time in µs, how much of
/// it each kind of owner holds, and the share attributed.
fn coverage_json(c: &crate::analysis::views::attribution::Coverage) -> Value {
    let attributed = c.operator_ns + c.non_aten_ns;
    serde_json::json!({
        "device_total": json_us(c.total_ns),
        "aten_operators": json_us(c.operator_ns),
        "other_launchers": json_us(c.non_aten_ns),
        "graph_replay": json_us(c.graph_ns),
        "joined_to_capture": json_us(c.joined_ns),
        "launched_by_no_host_event": json_us(c.unlaunched_ns),
        "attributed_share": if c.total_ns > 0 { attributed as f64 / c.total_ns as f64 } else { 1.0 },
    })
}

/// One document: what was compared and the rows, every measure per side, its diff and Δ%.
/// Row keys are fixed (`control_*`, `test_*`) whatever the labels.
pub(crate) fn json(view: &TableView<'_>) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_json(view, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// [`json`], serialized straight to `out`: the document's keys in the same order, one row at a
/// time, with the same bytes as a `serde_json::Value` of the whole document would give.
fn write_json(view: &TableView<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &JsonDoc(view)).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// The JSON document of a table view.
struct JsonDoc<'v, 'a>(&'v TableView<'a>);

impl Serialize for JsonDoc<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (view, t) = (self.0, self.0.table);
        let req = &t.request;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("tool", "tracediff")?;
        m.serialize_entry("version", env!("CARGO_PKG_VERSION"))?;
        m.serialize_entry("view", &t.kind)?;
        m.serialize_entry("by_operator", &t.by_operator)?;
        m.serialize_entry("duration_unit", "us")?;
        m.serialize_entry("control", &side_json(&t.control))?;
        m.serialize_entry("test", &side_json(&t.test))?;
        m.serialize_entry("device", &req.device)?;
        m.serialize_entry("naming", &req.naming.column())?;
        m.serialize_entry("normalize_names", &req.normalize_names)?;
        m.serialize_entry("include", &req.include)?;
        m.serialize_entry("exclude", &req.exclude)?;
        m.serialize_entry("zoom", &t.zoom)?;
        m.serialize_entry("sort", &view.sort.text(t.measures))?;
        m.serialize_entry("top", &view.top)?;
        m.serialize_entry("significance_measure", &t.significance.then(|| t.measures[view.time]))?;
        // Where the rows are per step: each side's mean step time, as `compare` gives it.
        if let Some([c, s]) = t.step_ns {
            m.serialize_entry(
                "mean_step_time_us",
                &serde_json::json!({"control": json_us(c.round() as i64), "test": json_us(s.round() as i64)}),
            )?;
        }
        // Where any row was judged: the run-wide shifts and whether rows were judged beyond them.
        if t.significance && t.rows.iter().any(|r| r.significant.iter().any(Option::is_some)) {
            m.serialize_entry("run_shift", &t.shift)?;
        }
        if let Some(cov) = t.coverage.as_ref().filter(|_| t.zoom.is_none()) {
            m.serialize_entry(
                "attribution",
                &serde_json::json!({ "control": coverage_json(&cov[0]), "test": coverage_json(&cov[1]) }),
            )?;
        }
        if let Some(why) = view.why {
            m.serialize_entry(
                "why",
                &serde_json::json!({"measure": t.measures[why.time], "shapes_recorded": why.shapes}),
            )?;
        }
        m.serialize_entry("rows", &table::json::Rows(&columns::table(view)))?;
        m.end()
    }
}

/// Whether row `r`'s measure `k` changed significantly (`None`: not estimated).
fn significant_of(r: &ViewRow, k: usize) -> Option<bool> {
    r.significant.get(k).copied().flatten()
}

/// Δ% of measure `k`: `new`/`gone` where one side is 0 (or has no value), `None` where neither
/// side has a value.
fn percent(r: &ViewRow, k: usize) -> Option<String> {
    match (r.control[k], r.test[k]) {
        (None, None) => None,
        (c, t) => Some(fmt_percent(c.unwrap_or(0), t.unwrap_or(0))),
    }
}

/// Δ% of measure `k` as shown: of the per-step values where the row has them (in thousandths,
/// so that fractional counts per step keep their ratio), else [`percent`].
fn shown_percent(r: &ViewRow, k: usize) -> Option<String> {
    if r.per_step.is_none() {
        return percent(r, k);
    }
    let milli = |v: Option<f64>| v.map(|v| (v * 1000.0).round() as i64);
    match (milli(r.shown(0, k)), milli(r.shown(1, k))) {
        (None, None) => None,
        (c, t) => Some(fmt_percent(c.unwrap_or(0), t.unwrap_or(0))),
    }
}

/// The lines above the table: each side, the device and filters, the hint of unused steps, the
/// zoom.
fn header_lines(view: &TableView<'_>) -> Vec<String> {
    let t = view.table;
    let req = &t.request;
    let mut lines = vec![describe_side(&t.control), describe_side(&t.test)];
    let mut filters = String::new();
    if !req.normalize_names {
        filters.push_str(", --raw-names");
    }
    for p in &req.include {
        let _ = write!(filters, ", --include '{p}'");
    }
    for p in &req.exclude {
        let _ = write!(filters, ", --exclude '{p}'");
    }
    lines.push(format!("device: {}{filters}", req.device));
    if let Some(hint) = super::compare::more_steps_hint([&t.control, &t.test]) {
        lines.push(hint);
    }
    if let Some(z) = &t.zoom {
        lines.push(format!(
            "zoom: {} (only what ran inside it)",
            if z.is_empty() { "the step" } else { z }
        ));
    }
    lines
}

/// The view's table with the lines around it: the header lines (and, in the terminal, the time
/// group shown), then the footer and the attribution line.
fn framed<'a>(view: &'a TableView<'a>) -> Table<'a> {
    let mut table = columns::table(view);
    table.title = header_lines(view).into_iter().map(Line::new).collect();
    table.title.push(Line::terminal(time_line(view)));
    table.notes.push(Line::new(footer(view)));
    if let Some(line) = attribution_line(view.table) {
        table.notes.push(Line::new(line));
    }
    if let Some(why) = view.why {
        let rows = view.rows.iter().map(|r| {
            let name = match &r.operator {
                Some(op) => format!("{op} → {}", r.name),
                None => r.name.clone(),
            };
            (name, why.get(r.operator.as_deref(), &r.name))
        });
        table.notes.extend(super::why::cause_lines(rows));
    }
    table
}

/// The preamble line that names the time group of a terminal table.
fn time_line(view: &TableView<'_>) -> String {
    format!("time: {}", view.table.measures[view.time].key().replace('_', " "))
}

fn footer(view: &TableView<'_>) -> String {
    let t = view.table;
    let what = match t.kind {
        ViewKind::Operators => "operators",
        ViewKind::Kernels if t.by_operator => "(operator, kernel) pairs",
        ViewKind::Kernels => "kernels",
        ViewKind::Classes => "classes",
    };
    let shown = if view.rows.len() < t.rows.len() {
        format!(
            " (showing {} by {})",
            fmt_count(view.rows.len()),
            view.sort.text(t.measures)
        )
    } else {
        String::new()
    };
    let k = view.time;
    if t.rows.is_empty() && t.kind != ViewKind::Operators && !t.has_device {
        // "0 kernels; device total summed: control 0 ns, test 0 ns (0 ns, 0%)" read as if
        // kernels had been measured.
        return "0 kernels: neither side has device events (a CPU-only run)".to_string();
    }
    if let Some([sc, st]) = t.step_ns.filter(|_| !t.rows.is_empty()) {
        // Per-step rows: the mean step time per side, never a sum of nested rows.
        let (sc, st) = (sc.round() as i64, st.round() as i64);
        return format!(
            "{} {what}{shown}; mean step time: {} {}, {} {} ({}, {}); {}",
            fmt_count(t.rows.len()),
            t.control.label,
            fmt_duration(sc, false),
            t.test.label,
            fmt_duration(st, false),
            fmt_duration(st - sc, true),
            fmt_percent(sc, st),
            super::compare::rows_are_per_step([&t.control, &t.test])
        );
    }
    if t.rows.is_empty() || t.measures[k].is_statistic() {
        return format!("{} {what}{shown}", fmt_count(t.rows.len()));
    }
    let sum = |side: fn(&ViewRow) -> &Vec<Option<i64>>| -> i64 { t.rows.iter().filter_map(|r| side(r)[k]).sum() };
    let (c, s) = (sum(|r| &r.control), sum(|r| &r.test));
    format!(
        "{} {what}{shown}; {} summed: {} {}, {} {} ({}, {})",
        fmt_count(t.rows.len()),
        t.measures[k].key().replace('_', " "),
        t.control.label,
        fmt_duration(c, false),
        t.test.label,
        fmt_duration(s, false),
        fmt_duration(s - c, true),
        fmt_percent(c, s)
    )
}

/// Calls and one time group (and, for kernels, the mean), fitted to `style.width`.
pub(crate) fn table(view: &TableView<'_>, style: TableStyle) -> String {
    // Too narrow for every column: the per-side calls go first, then the per-side times,
    // then Δ calls (docs/commands.md#terminal-width).
    // With `--why`, then the ratios and Δ %.
    let table = framed(view);
    let order = super::why::drop_order(&table, &[&[0, 1], &[3, 4], &[2]], 6);
    let order: Vec<&[usize]> = order.iter().map(Vec::as_slice).collect();
    let layout = terminal::Layout {
        color: style.color,
        width: style.name_width(),
        fit: terminal::Fit::Drop {
            drop_order: &order,
            // `operator → kernel` cut part by part; a name as the rows are written.
            cut: view.table.by_operator.then_some(&cut_operator_kernel),
            widen_to_header: true,
        },
    };
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = terminal::write(&table, &layout, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The footer line that says what share of each side's device time the rows attribute and
/// names what they cannot (docs/graphs.md#launch-owners); `None` on an eager trace and inside
/// a `--zoom`.
fn attribution_line(t: &ViewTable) -> Option<String> {
    if t.zoom.is_some() {
        return None;
    }
    let labels = [t.control.label.clone(), t.test.label.clone()];
    crate::analysis::views::attribution::coverage_note(t.coverage.as_ref()?, &labels)
        .map(|n| format!("attribution: {n}"))
}

/// Every measure (per side, Δ and Δ%) with the full names.
pub(crate) fn markdown(view: &TableView<'_>) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = table::markdown::write(&framed(view), &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// `operator → kernel` names cut to `width`: each part on its own, the operator in at most
/// two fifths of the width, so that both stay readable (`aten::mm → void cutlass::Kern…`, where
/// one cut of the whole gave `aten::mm…x4_nn_align1>(…`). Distinct names stay distinct: each
/// part's cuts do. Narrow columns, or names without the arrow, are cut whole.
fn cut_operator_kernel(names: &[&str], width: usize) -> Vec<String> {
    use super::columns::text_width;
    const ARROW: &str = " → ";
    let parts: Option<Vec<(&str, &str)>> = names.iter().map(|n| n.split_once(ARROW)).collect();
    let Some(parts) = parts.filter(|_| width >= 40) else {
        return distinct_cuts(names, width);
    };
    let longest_op = parts.iter().map(|p| text_width(p.0)).max().unwrap_or(0);
    let op_width = longest_op.min(width * 2 / 5);
    let ops: Vec<&str> = parts.iter().map(|p| p.0).collect();
    let op_cuts = distinct_cuts(&ops, op_width);
    // Each kernel gets what its operator leaves (a short `aten::mm` left 20 columns blank at
    // 120), cut against the kernels that get as much: rows with one operator share a width, so
    // their kernels stay distinct, and rows of different operators differ by the operator.
    let kernel_width = |op: &str| width.saturating_sub(text_width(op) + ARROW.chars().count());
    let mut kernel_cuts = vec![String::new(); names.len()];
    let mut widths: Vec<usize> = op_cuts.iter().map(|op| kernel_width(op)).collect();
    widths.sort_unstable();
    widths.dedup();
    for w in widths {
        let rows: Vec<usize> = (0..names.len()).filter(|&i| kernel_width(&op_cuts[i]) == w).collect();
        let kernels: Vec<&str> = rows.iter().map(|&i| parts[i].1).collect();
        for (i, cut) in rows.into_iter().zip(distinct_cuts(&kernels, w)) {
            kernel_cuts[i] = cut;
        }
    }
    op_cuts
        .into_iter()
        .zip(kernel_cuts)
        .zip(names)
        .map(|((op, kernel), name)| {
            if text_width(name) <= width {
                name.to_string()
            } else {
                format!("{op}{ARROW}{kernel}")
            }
        })
        .collect()
}
