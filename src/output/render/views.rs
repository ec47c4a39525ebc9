//! The operator and kernel tables (docs/semantics.md#operator-and-kernel-views) and the overview (docs/semantics.md#overview) in each format.

pub use super::breakdown::OverviewOptions;
use super::compare::{describe_side, side_json};
use super::{
    Format, TableStyle, csv_field, distinct_cuts, fit_table, fit_table_dropping, fmt_count, fmt_duration, fmt_percent,
    fmt_signed, fmt_us, json_us, md_cell, wrap_line, wrap_text,
};
use crate::analysis::classes::KernelClass;
use crate::analysis::views::overview::{BreakdownMean, Overview, SideOverview};
use crate::analysis::views::{SortSpec, ViewKind, ViewRow, ViewTable};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value, json};
use std::fmt::Write;
use std::io;

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
}

/// The CSV columns of each view (docs/semantics.md#operator-and-kernel-views): (measure, with a diff column).
fn csv_columns(kind: ViewKind) -> &'static [(&'static str, bool)] {
    match kind {
        ViewKind::Operators => &[
            ("calls", true),
            ("host_self", true),
            ("host_total", true),
            ("device_self", true),
            ("device_total", true),
        ],
        ViewKind::Kernels | ViewKind::Classes => &[("calls", true), ("device_total", true), ("device_mean", false)],
    }
}

/// The view as text in `format`: aligned columns fitted to `style` (table), HTA-style columns
/// per measure (CSV), rows with both sides' values (JSON) or a Markdown table.
pub fn render(view: &TableView<'_>, format: Format, style: TableStyle) -> String {
    match format {
        Format::Csv => csv(view),
        Format::Json => json(view),
        Format::Markdown => markdown(view),
        Format::Table => table(view, style),
    }
}

fn value_text(table: &ViewTable, measure: usize, v: Option<i64>) -> String {
    match v {
        None => String::new(),
        Some(v) if table.measures[measure] == "calls" => v.to_string(),
        Some(v) => fmt_us(v),
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

/// The CSV columns present in `t`: (measure index, with a diff column).
fn present_csv_columns(t: &ViewTable) -> Vec<(usize, bool)> {
    csv_columns(t.kind)
        .iter()
        .filter_map(|&(m, d)| t.measure(m).map(|k| (k, d)))
        .collect()
}

/// The headers and cells of every CSV column, in order, with the labels in the headers.
pub fn csv(view: &TableView<'_>) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_csv(view, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

fn write_csv(view: &TableView<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    let t = view.table;
    let (cl, tl) = (&t.control.label, &t.test.label);
    let mut header: Vec<String> = Vec::new();
    if t.by_operator {
        header.push("operator".to_string());
    }
    header.push("name".to_string());
    let extra = super::classes_table::Extra::of(t);
    if extra.class {
        header.push("class".to_string());
    }
    let columns = present_csv_columns(t);
    for &(k, with_diff) in &columns {
        let m = t.measures[k];
        header.push(format!("{cl}_{m}"));
        header.push(format!("{tl}_{m}"));
        if with_diff {
            header.push(format!("diff_{m}"));
        }
    }
    if t.significance {
        header.push("significant".to_string());
    }
    extra.csv_header(&mut header);
    writeln!(out, "{}", header.join(","))?;
    let mut cells: Vec<String> = Vec::new();
    for r in &view.rows {
        cells.clear();
        if t.by_operator {
            cells.push(csv_field(r.operator.as_deref().unwrap_or("")));
        }
        cells.push(csv_field(&r.name));
        if extra.class {
            cells.push(super::classes_table::class_of(t, r).to_string());
        }
        for &(k, with_diff) in &columns {
            cells.push(value_text(t, k, r.control[k]));
            cells.push(value_text(t, k, r.test[k]));
            if with_diff {
                cells.push(value_text(t, k, r.diff(k)));
            }
        }
        if t.significance {
            cells.push(significant_of(r, view.time).map_or(String::new(), |b| b.to_string()));
        }
        extra.csv_cells(t, r, &mut cells);
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

fn json_value(table: &ViewTable, k: usize, v: Option<i64>) -> Value {
    match v {
        None => Value::Null,
        Some(v) if table.measures[k] == "calls" => Value::from(v),
        Some(v) => json_us(v),
    }
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
pub fn json(view: &TableView<'_>) -> String {
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
        m.serialize_entry("rows", &JsonRows(view))?;
        m.end()
    }
}

/// The rows of a table view, serialized one at a time.
struct JsonRows<'v, 'a>(&'v TableView<'a>);

impl Serialize for JsonRows<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.rows.len()))?;
        for r in &self.0.rows {
            let significance = self.0.table.significance.then_some(self.0.time);
            seq.serialize_element(&JsonRow(self.0.table, r, significance))?;
        }
        seq.end()
    }
}

/// One row: its name, and per measure both sides, the diff and Δ%; with the measure whose
/// significance was estimated, `significant`.
struct JsonRow<'v>(&'v ViewTable, &'v ViewRow, Option<usize>);

impl Serialize for JsonRow<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (t, r) = (self.0, self.1);
        let mut m = s.serialize_map(None)?;
        if t.by_operator {
            m.serialize_entry("operator", &r.operator)?;
        }
        m.serialize_entry("name", &r.name)?;
        let extra = super::classes_table::Extra::of(t);
        if extra.class {
            m.serialize_entry("class", &super::classes_table::class_of(t, r))?;
        }
        for (k, measure) in t.measures.iter().enumerate() {
            m.serialize_entry(&format_args!("control_{measure}"), &json_value(t, k, r.control[k]))?;
            m.serialize_entry(&format_args!("test_{measure}"), &json_value(t, k, r.test[k]))?;
            m.serialize_entry(&format_args!("diff_{measure}"), &json_value(t, k, r.diff(k)))?;
            m.serialize_entry(&format_args!("diff_pct_{measure}"), &percent(r, k))?;
        }
        if let Some(time) = self.2 {
            m.serialize_entry("significant", &significant_of(r, time))?;
        }
        if extra.share {
            let [c, s] = super::classes_table::shares(t, r);
            m.serialize_entry("control_share", &c)?;
            m.serialize_entry("test_share", &s)?;
        }
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

fn human(table: &ViewTable, k: usize, v: Option<i64>, signed: bool) -> String {
    match v {
        None => "-".to_string(),
        Some(v) if table.measures[k] == "calls" && signed => fmt_signed(v),
        Some(v) if table.measures[k] == "calls" => v.to_string(),
        Some(v) => fmt_duration(v, signed),
    }
}

fn header_lines(view: &TableView<'_>, out: &mut String, prefix: &str) {
    let t = view.table;
    let req = &t.request;
    let _ = writeln!(out, "{prefix}{}", describe_side(&t.control));
    let _ = writeln!(out, "{prefix}{}", describe_side(&t.test));
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
    let _ = writeln!(out, "{prefix}device: {}{filters}", req.device);
    if let Some(hint) = super::compare::more_steps_hint([&t.control, &t.test]) {
        let _ = writeln!(out, "{prefix}{hint}");
    }
    if let Some(z) = &t.zoom {
        let _ = writeln!(
            out,
            "{prefix}zoom: {} (only what ran inside it)",
            if z.is_empty() { "the step" } else { z }
        );
    }
}

/// The preamble line that names the time group of a terminal table.
fn time_line(view: &TableView<'_>) -> String {
    format!("time: {}\n", view.table.measures[view.time].replace('_', " "))
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
        return "0 kernels: neither side has device events (a CPU-only run)\n".to_string();
    }
    if t.rows.is_empty() || matches!(t.measures[k], "device_mean" | "device_min" | "device_max") {
        return format!("{} {what}{shown}\n", fmt_count(t.rows.len()));
    }
    let sum = |side: fn(&ViewRow) -> &Vec<Option<i64>>| -> i64 { t.rows.iter().filter_map(|r| side(r)[k]).sum() };
    let (c, s) = (sum(|r| &r.control), sum(|r| &r.test));
    format!(
        "{} {what}{shown}; {} summed: {} {}, {} {} ({}, {})\n",
        fmt_count(t.rows.len()),
        t.measures[k].replace('_', " "),
        t.control.label,
        fmt_duration(c, false),
        t.test.label,
        fmt_duration(s, false),
        fmt_duration(s - c, true),
        fmt_percent(c, s)
    )
}

/// Calls and one time group (and, for kernels, the mean), fitted to `style.width`.
pub fn table(view: &TableView<'_>, style: TableStyle) -> String {
    let t = view.table;
    let (cl, tl) = (&t.control.label, &t.test.label);
    let k = view.time;
    let headers = vec![
        format!("{cl}\ncalls"),
        format!("{tl}\ncalls"),
        "Δ\ncalls".to_string(),
        format!("{cl}\ntime"),
        format!("{tl}\ntime"),
        "Δ\ntime".to_string(),
        "Δ\ntime %".to_string(),
    ];
    let names: Vec<String> = view
        .rows
        .iter()
        .map(|r| match &r.operator {
            Some(op) => format!("{op} → {}", r.name),
            None => r.name.clone(),
        })
        .collect();
    let marks = t.significance && view.rows.iter().any(|r| significant_of(r, k).is_some());
    let mut headers = headers;
    if marks {
        headers.push("sig".to_string());
    }
    let share = t.kind == ViewKind::Classes;
    if share {
        headers.push(format!("{cl}\nshare"));
        headers.push(format!("{tl}\nshare"));
    }
    let cells: Vec<Vec<String>> = view
        .rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                human(t, 0, r.control[0], false),
                human(t, 0, r.test[0], false),
                human(t, 0, r.diff(0), true),
                human(t, k, r.control[k], false),
                human(t, k, r.test[k], false),
                human(t, k, r.diff(k), true),
                percent(r, k).unwrap_or_default(),
            ];
            if marks {
                cells.push(if significant_of(r, k) == Some(true) { "*" } else { "" }.to_string());
            }
            if share {
                cells.extend(super::classes_table::shares(t, r).map(super::classes_table::share_text));
            }
            cells
        })
        .collect();
    let first = if t.by_operator { "operator → kernel" } else { "name" };
    let width = style.name_width();
    let mut head = String::new();
    header_lines(view, &mut head, "");
    head.push_str(&time_line(view));
    let mut out = wrap_text(&head, width);
    if view.rows.is_empty() {
        out.push_str("(no rows)\n");
    } else {
        // Too narrow for every column: the per-side calls go first, then the per-side times,
        // then Δ calls (docs/commands.md#terminal-width).
        let by_operator = t.by_operator;
        let cut = |names: &[String], w: usize| {
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            if by_operator {
                cut_operator_kernel(&refs, w)
            } else {
                distinct_cuts(&refs, w)
            }
        };
        let _ = writeln!(
            out,
            "{}",
            fit_table_dropping(first, &headers, &names, &cells, width, &[&[0, 1], &[3, 4], &[2]], cut)
        );
    }
    out.push_str(&wrap_text(&footer(view), width));
    if let Some(line) = attribution_line(view.table) {
        out.push_str(&wrap_text(&format!("{line}\n"), width));
    }
    out
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
pub fn markdown(view: &TableView<'_>) -> String {
    let t = view.table;
    let (cl, tl) = (md_cell(&t.control.label), md_cell(&t.test.label));
    let mut out = String::new();
    header_lines(view, &mut out, "- ");
    out.push('\n');
    let mut head = String::from("|");
    let mut rule = String::from("|");
    if t.by_operator {
        head.push_str(" operator |");
        rule.push_str("---|");
    }
    head.push_str(" name |");
    rule.push_str("---|");
    for m in t.measures {
        let m = md_cell(m);
        let _ = write!(head, " {cl}\\_{m} | {tl}\\_{m} | diff\\_{m} | diff\\_pct\\_{m} |");
        rule.push_str("---:|---:|---:|---:|");
    }
    let _ = writeln!(out, "{head}\n{rule}");
    let code = |s: &str| format!("`{}`", s.replace('`', "'").replace('|', "\\|"));
    for r in &view.rows {
        let mut line = String::from("|");
        if let Some(op) = &r.operator {
            let _ = write!(line, " {} |", code(op));
        }
        let _ = write!(line, " {} |", code(&r.name));
        for k in 0..t.measures.len() {
            let _ = write!(
                line,
                " {} | {} | {} | {} |",
                human(t, k, r.control[k], false),
                human(t, k, r.test[k], false),
                human(t, k, r.diff(k), true),
                percent(r, k).unwrap_or_default()
            );
        }
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
    let _ = writeln!(out, "{}  ", md_cell(footer(view).trim_end()));
    if let Some(line) = attribution_line(t) {
        let _ = writeln!(out, "{}  ", md_cell(&line));
    }
    out
}

/// The overview's rows: (JSON key, label for people, kind).
/// Keys under `breakdown.` form the side's `breakdown` object in JSON; an empty label keeps a
/// row out of the terminal and Markdown tables.
const OVERVIEW_ROWS: [(&str, &str, Kind); 38] = [
    ("device_name", "device", Kind::Text),
    ("device_memory_bytes", "device memory", Kind::Bytes),
    ("ranks", "ranks", Kind::Count),
    ("steps", "steps", Kind::Count),
    ("mean_step_time_us", "mean step time", Kind::Time),
    ("breakdown.step_us", "", Kind::Time),
    ("breakdown.compute_us", "├ compute", Kind::Time),
    ("breakdown.compute_by_class.gemm_us", "│ ├ gemm", Kind::Time),
    ("breakdown.compute_by_class.attention_us", "│ ├ attention", Kind::Time),
    ("breakdown.compute_by_class.conv_us", "│ ├ conv", Kind::Time),
    ("breakdown.compute_by_class.norm_us", "│ ├ norm", Kind::Time),
    (
        "breakdown.compute_by_class.elementwise_us",
        "│ ├ elementwise",
        Kind::Time,
    ),
    ("breakdown.compute_by_class.reduce_us", "│ ├ reduce", Kind::Time),
    ("breakdown.compute_by_class.index_us", "│ ├ index", Kind::Time),
    ("breakdown.compute_by_class.copy_us", "│ ├ copy", Kind::Time),
    (
        "breakdown.compute_by_class.communication_us",
        "│ ├ communication",
        Kind::Time,
    ),
    ("breakdown.compute_by_class.moe_us", "│ ├ moe", Kind::Time),
    ("breakdown.compute_by_class.optimizer_us", "│ ├ optimizer", Kind::Time),
    ("breakdown.compute_by_class.other_us", "│ ├ other", Kind::Time),
    ("breakdown.comm_exposed_us", "├ exposed communication", Kind::Time),
    ("breakdown.memory_exposed_us", "├ exposed memory copies", Kind::Time),
    ("breakdown.idle_us", "└ GPU idle", Kind::Time),
    (
        "breakdown.idle.host_communication_us",
        "  ├ host communication",
        Kind::Time,
    ),
    ("breakdown.idle.synchronize_us", "  ├ synchronize", Kind::Time),
    ("breakdown.idle.launch_us", "  ├ launch", Kind::Time),
    ("breakdown.idle.dataloader_us", "  ├ dataloader", Kind::Time),
    ("breakdown.idle.host_compute_us", "  ├ host compute", Kind::Time),
    ("breakdown.idle.untraced_us", "  └ untraced", Kind::Time),
    ("breakdown.comm_total_us", "communication per step", Kind::Time),
    ("breakdown.comm_overlapped_us", "├ overlapped with compute", Kind::Time),
    ("breakdown.overlap_ratio", "└ overlap ratio", Kind::Ratio),
    ("host_comm_per_step_us", "host communication per step", Kind::Time),
    ("gpu_busy_per_step_us", "GPU busy per step", Kind::Time),
    ("gpu_utilization", "GPU utilization", Kind::Ratio),
    ("host_busy_per_step_us", "host ops busy per step", Kind::Time),
    ("memory_device", "memory of", Kind::Text),
    ("avg_allocated_bytes", "avg allocated", Kind::Bytes),
    ("peak_allocated_bytes", "peak allocated", Kind::Bytes),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Count,
    Time,
    Bytes,
    Ratio,
}

/// A value of the overview: a number (ns for times, a ratio, bytes, a count) or text.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Num(i64),
    Ratio(f64),
    Text(String),
}

fn overview_cell(s: &SideOverview, key: &str) -> Option<Cell> {
    match key {
        "device_name" => s.device_name.clone().map(Cell::Text),
        "device_memory_bytes" => s.device_memory_bytes.map(|b| Cell::Num(b as i64)),
        "ranks" => Some(Cell::Num(s.ranks as i64)),
        "steps" => Some(Cell::Num(s.steps as i64)),
        "mean_step_time_us" => s.mean_step_time_ns.map(Cell::Num),
        "gpu_busy_per_step_us" => s.gpu_busy_per_step_ns.map(Cell::Num),
        "gpu_utilization" => s.gpu_utilization.map(Cell::Ratio),
        "host_busy_per_step_us" => s.host_busy_per_step_ns.map(Cell::Num),
        "host_comm_per_step_us" => s.host_comm_per_step_ns.map(Cell::Num),
        "memory_device" => s.memory_device.clone().map(Cell::Text),
        "avg_allocated_bytes" => s.avg_allocated_bytes.map(Cell::Num),
        "peak_allocated_bytes" => s.peak_allocated_bytes.map(Cell::Num),
        _ => breakdown_cell(s.breakdown.as_ref()?, key.strip_prefix("breakdown.")?),
    }
}

fn breakdown_cell(b: &BreakdownMean, key: &str) -> Option<Cell> {
    let ns = match key {
        "step_us" => b.step_ns,
        "compute_us" => b.compute_ns,
        "comm_total_us" => b.comm_total_ns,
        "comm_overlapped_us" => b.comm_overlapped_ns,
        "comm_exposed_us" => b.comm_exposed_ns,
        "memory_exposed_us" => b.memory_exposed_ns,
        "idle_us" => b.idle_ns,
        "overlap_ratio" => return b.overlap_ratio.map(Cell::Ratio),
        _ => {
            if let Some(class) = key.strip_prefix("compute_by_class.") {
                let class = class.strip_suffix("_us")?;
                let k = KernelClass::ALL.iter().position(|c| c.name() == class)?;
                return b.compute_by_class.map(|ns| Cell::Num(ns[k]));
            }
            let cause = key.strip_prefix("idle.")?.strip_suffix("_us")?;
            let parts = b.idle_causes?.parts();
            parts.iter().find(|(name, _)| *name == cause)?.1
        }
    };
    Some(Cell::Num(ns))
}

fn cell_json(kind: Kind, c: Option<&Cell>) -> Value {
    match c {
        None => Value::Null,
        Some(Cell::Text(t)) => json!(t),
        Some(Cell::Ratio(r)) => json!(r),
        Some(Cell::Num(n)) if kind == Kind::Time => json_us(*n),
        Some(Cell::Num(n)) => json!(n),
    }
}

fn cell_human(kind: Kind, c: Option<&Cell>, signed: bool) -> String {
    match c {
        None => "-".to_string(),
        Some(Cell::Text(t)) => t.clone(),
        // Under 0.05 pp either way prints as `0 pp` (`+0.0 pp` on identical sides, beside `0 ns`).
        Some(Cell::Ratio(r)) if signed && (r * 100.0).abs() < 0.05 => "0 pp".to_string(),
        Some(Cell::Ratio(r)) if signed => format!("{:+.1} pp", r * 100.0),
        Some(Cell::Ratio(r)) => format!("{:.1}%", r * 100.0),
        Some(Cell::Num(n)) => match kind {
            Kind::Time => fmt_duration(*n, signed),
            Kind::Bytes => fmt_bytes(*n, signed),
            _ if signed => fmt_signed(*n),
            _ => n.to_string(),
        },
    }
}

/// Bytes for people, in binary units: `512 B`, `1.50 GiB`.
pub fn fmt_bytes(n: i64, signed: bool) -> String {
    let sign = super::sign_of(n, signed);
    let abs = n.unsigned_abs() as f64;
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = abs;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{sign}{} B", n.unsigned_abs())
    } else {
        format!("{sign}{v:.2} {}", units[u])
    }
}

/// test − control, where both are numbers.
fn cell_diff(c: Option<&Cell>, t: Option<&Cell>) -> Option<Cell> {
    match (c?, t?) {
        (Cell::Num(a), Cell::Num(b)) => Some(Cell::Num(b - a)),
        (Cell::Ratio(a), Cell::Ratio(b)) => Some(Cell::Ratio(b - a)),
        _ => None,
    }
}

fn cell_pct(c: Option<&Cell>, t: Option<&Cell>) -> Option<String> {
    match (c?, t?) {
        (Cell::Num(a), Cell::Num(b)) => Some(fmt_percent(*a, *b)),
        (Cell::Ratio(a), Cell::Ratio(b)) => {
            let scale = 1e9;
            Some(fmt_percent((a * scale) as i64, (b * scale) as i64))
        }
        _ => None,
    }
}

/// One line of the overview: both sides' values of one metric.
struct Line {
    key: &'static str,
    label: &'static str,
    kind: Kind,
    control: Option<Cell>,
    test: Option<Cell>,
}

impl Line {
    fn diff(&self) -> Option<Cell> {
        cell_diff(self.control.as_ref(), self.test.as_ref())
    }
    fn pct(&self) -> Option<String> {
        cell_pct(self.control.as_ref(), self.test.as_ref())
    }
}

/// The overview as text in `format`, without the per-step rows ([`render_overview_with`] adds
/// them).
pub fn render_overview(o: &Overview, format: Format) -> String {
    render_overview_with(o, format, &OverviewOptions::default())
}

/// The overview; with two ranks or more on a side, its per-rank rows and straggler too.
pub fn render_overview_with(o: &Overview, format: Format, options: &OverviewOptions) -> String {
    render_overview_fitted(o, format, options, usize::MAX)
}

/// [`render_overview_with`], a table fitted to `width` display columns (`usize::MAX`: whole):
/// long values (device names) are cut in the middle, long lines wrapped.
pub fn render_overview_fitted(o: &Overview, format: Format, options: &OverviewOptions, width: usize) -> String {
    let lines: Vec<Line> = OVERVIEW_ROWS
        .iter()
        .map(|&(key, label, kind)| Line {
            key,
            label,
            kind,
            control: overview_cell(&o.control, key),
            test: overview_cell(&o.test, key),
        })
        .collect();
    match format {
        Format::Json => overview_json(o, &lines, options),
        Format::Csv => overview_csv(o, &lines),
        Format::Table | Format::Markdown => {
            let md = format == Format::Markdown;
            let width = if md { usize::MAX } else { width };
            let mut out = overview_text(o, &lines, md, width);
            out.push_str(&super::breakdown::side_tables_text(o, options, md, width));
            out
        }
    }
}

/// Which ranks and steps a side's overview used: `rank 0, steps 1–6`, and how many of the side's
/// those are where it holds more (`rank 0, step 2; 1 of 3 steps`).
fn used_text(s: &SideOverview) -> String {
    let ranks = if s.rank_numbers.len() == 1 {
        format!("rank {}", s.rank_numbers[0])
    } else {
        format!("ranks {}", crate::analysis::select::ranges(&s.rank_numbers))
    };
    let steps = match s.step_numbers.len() {
        0 => "no ProfilerStep: the whole trace".to_string(),
        1 => format!("step {}", s.step_numbers[0]),
        _ => format!("steps {}", crate::analysis::select::ranges(&s.step_numbers)),
    };
    let tally = super::compare::used_of_available(
        (s.rank_numbers.len(), s.ranks_available),
        (s.step_numbers.len(), s.steps_available),
    );
    format!("{ranks}, {steps}{tally}")
}

/// `key` into `m`; `group.key` into the object `m[group]` (`a.b.key` into `m[a][b]`).
fn nested_insert(m: &mut Map<String, Value>, key: &str, v: Value) {
    match key.split_once('.') {
        Some((group, k)) => {
            let inner = m.entry(group).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(inner) = inner {
                nested_insert(inner, k, v);
            }
        }
        None => {
            m.insert(key.into(), v);
        }
    }
}

/// `control` and `test` objects (times in µs, null where absent), then `diff` and `diff_pct`.
fn overview_json(o: &Overview, lines: &[Line], options: &OverviewOptions) -> String {
    let side = |s: &SideOverview, control: bool| {
        let mut m = Map::new();
        m.insert("label".into(), json!(s.label));
        m.insert("path".into(), json!(s.path));
        m.insert("ranks_used".into(), json!(s.rank_numbers));
        m.insert("steps_used".into(), json!(s.step_numbers));
        for l in lines {
            let v = if control { &l.control } else { &l.test };
            nested_insert(&mut m, l.key, cell_json(l.kind, v.as_ref()));
        }
        if s.breakdown.is_none() {
            m.insert("breakdown".into(), Value::Null);
        }
        super::breakdown::side_tables_json(s, options, &mut m);
        Value::Object(m)
    };
    let mut diff = Map::new();
    let mut pct = Map::new();
    for l in lines.iter().filter(|l| l.kind != Kind::Text) {
        nested_insert(&mut diff, l.key, cell_json(l.kind, l.diff().as_ref()));
        nested_insert(&mut pct, l.key, json!(l.pct()));
    }
    let doc = json!({
        "tool": "tracediff",
        "version": env!("CARGO_PKG_VERSION"),
        "duration_unit": "us",
        "control": side(&o.control, true),
        "test": side(&o.test, false),
        "diff": diff,
        "diff_pct": pct,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// One row per metric: `metric,control,test,diff,diff_pct`. With two ranks or more on a side, a
/// `rank` column last (as hyperfine adds its parameter columns: the others keep their places):
/// empty on the side totals and on the straggler's rows (`straggler.rank`,
/// `straggler.max_over_median`), then each rank's own rows (its steps, mean step time and
/// parts), rank by rank, both sides' rank N side by side.
fn overview_csv(o: &Overview, lines: &[Line]) -> String {
    let (cl, tl) = (&o.control.label, &o.test.label);
    let sides = [&o.control, &o.test];
    let by_rank = sides.iter().any(|s| s.per_rank.len() > 1);
    let mut out = format!("metric,{cl},{tl},diff,diff_pct{}\n", if by_rank { ",rank" } else { "" });
    let rank_cell = if by_rank { Some(String::new()) } else { None };
    for l in lines {
        csv_line(&mut out, l, rank_cell.as_deref());
    }
    if !by_rank {
        return out;
    }
    for l in straggler_lines(o) {
        csv_line(&mut out, &l, Some(""));
    }
    let mut ranks: Vec<i64> = sides.iter().flat_map(|s| s.per_rank.iter().map(|r| r.rank)).collect();
    ranks.sort_unstable();
    ranks.dedup();
    for rank in ranks {
        for &(key, label, kind) in OVERVIEW_ROWS.iter().filter(|r| RANK_KEYS.contains(&r.0)) {
            let line = Line {
                key,
                label,
                kind,
                control: rank_cell_of(&o.control, rank, key),
                test: rank_cell_of(&o.test, rank, key),
            };
            csv_line(&mut out, &line, Some(&rank.to_string()));
        }
    }
    out
}

/// The keys of the overview that a rank has too (its own rows in the CSV).
const RANK_KEYS: [&str; 16] = [
    "steps",
    "mean_step_time_us",
    "breakdown.step_us",
    "breakdown.compute_us",
    "breakdown.comm_exposed_us",
    "breakdown.memory_exposed_us",
    "breakdown.idle_us",
    "breakdown.idle.host_communication_us",
    "breakdown.idle.synchronize_us",
    "breakdown.idle.launch_us",
    "breakdown.idle.dataloader_us",
    "breakdown.idle.host_compute_us",
    "breakdown.idle.untraced_us",
    "breakdown.comm_total_us",
    "breakdown.comm_overlapped_us",
    "breakdown.overlap_ratio",
];

/// A rank's value of `key` on side `s`, as the side totals define it: steps counted, the mean
/// step time only with steps, the parts only with device events.
fn rank_cell_of(s: &SideOverview, rank: i64, key: &str) -> Option<Cell> {
    let r = s.per_rank.iter().find(|r| r.rank == rank)?;
    let steps = s.per_step.iter().filter(|p| p.rank == rank && p.step.is_some()).count();
    match key {
        "steps" => Some(Cell::Num(steps as i64)),
        "mean_step_time_us" => (steps > 0).then_some(Cell::Num(r.step_ns)),
        _ => breakdown_cell(r.parts.as_ref()?, key.strip_prefix("breakdown.")?),
    }
}

/// The straggler of each side (the slowest rank and its mean step ÷ the median rank's) as two
/// lines; empty on a side with one rank.
fn straggler_lines(o: &Overview) -> [Line; 2] {
    let rank = |s: &SideOverview| s.straggler.as_ref().map(|st| Cell::Text(st.rank.to_string()));
    let ratio = |s: &SideOverview| s.straggler.as_ref().map(|st| Cell::Ratio(st.max_over_median));
    [
        Line {
            key: "straggler.rank",
            label: "straggler rank",
            kind: Kind::Text,
            control: rank(&o.control),
            test: rank(&o.test),
        },
        Line {
            key: "straggler.max_over_median",
            label: "straggler ÷ median rank",
            kind: Kind::Ratio,
            control: ratio(&o.control),
            test: ratio(&o.test),
        },
    ]
}

/// One CSV row of `l`, with `rank` as a last column when given.
fn csv_line(out: &mut String, l: &Line, rank: Option<&str>) {
    let plain = |v: Option<&Cell>| match v {
        None => String::new(),
        Some(Cell::Text(s)) => csv_field(s),
        Some(Cell::Ratio(r)) => r.to_string(),
        Some(Cell::Num(n)) if l.kind == Kind::Time => fmt_us(*n),
        Some(Cell::Num(n)) => n.to_string(),
    };
    let _ = write!(
        out,
        "{},{},{},{},{}",
        l.key,
        plain(l.control.as_ref()),
        plain(l.test.as_ref()),
        plain(l.diff().as_ref()),
        l.pct().unwrap_or_default()
    );
    match rank {
        Some(r) => {
            let _ = writeln!(out, ",{r}");
        }
        None => out.push('\n'),
    }
}

fn overview_text(o: &Overview, lines: &[Line], md: bool, width: usize) -> String {
    let bullet = if md { "- " } else { "" };
    let mut out = String::new();
    for side in [&o.control, &o.test] {
        let line = format!("{bullet}{}: {} ({})", side.label, side.path, used_text(side));
        let _ = writeln!(out, "{}", wrap_line(&line, width));
    }
    let sides = [&o.control, &o.test];
    let steps = sides
        .iter()
        .any(|s| !s.step_numbers.is_empty() && s.step_numbers.len() < s.steps_available);
    let ranks = sides.iter().any(|s| s.rank_numbers.len() < s.ranks_available);
    if let Some(hint) = super::compare::unused_hint(steps, ranks) {
        let _ = writeln!(out, "{}", wrap_line(&format!("{bullet}{hint}"), width));
    }
    let headers = [
        o.control.label.clone(),
        o.test.label.clone(),
        "Δ".to_string(),
        "Δ %".to_string(),
    ];
    // The idle causes only where a side has them: on CPU-only runs they would be six more rows
    // of `-` under a GPU idle that is `-` already. The kernel classes of compute only where a
    // side ran some.
    let zero = |c: &Option<Cell>| matches!(c, None | Some(Cell::Num(0)));
    let shown = |l: &&Line| {
        !l.label.is_empty()
            && (!l.key.starts_with("breakdown.idle.") || l.control.is_some() || l.test.is_some())
            && (!l.key.starts_with("breakdown.compute_by_class.") || !zero(&l.control) || !zero(&l.test))
    };
    let lines: Vec<&Line> = lines.iter().filter(shown).collect();
    let mut names: Vec<String> = lines.iter().map(|l| l.label.to_string()).collect();
    // The last class shown closes its branch.
    if let Some(last) = lines
        .iter()
        .rposition(|l| l.key.starts_with("breakdown.compute_by_class."))
    {
        names[last] = names[last].replacen("│ ├", "│ └", 1);
    }
    let mut cells: Vec<Vec<String>> = lines
        .iter()
        .map(|l| {
            let d = l.diff();
            vec![
                cell_human(l.kind, l.control.as_ref(), false),
                cell_human(l.kind, l.test.as_ref(), false),
                d.map(|d| cell_human(l.kind, Some(&d), true)).unwrap_or_default(),
                l.pct().unwrap_or_default(),
            ]
        })
        .collect();
    if md {
        out.push('\n');
        let _ = writeln!(
            out,
            "| | {} |",
            headers.iter().map(|h| md_cell(h)).collect::<Vec<_>>().join(" | ")
        );
        out.push_str("|---|---:|---:|---:|---:|\n");
        for (n, c) in names.iter().zip(&cells) {
            let c: Vec<String> = c.iter().map(|x| md_cell(x)).collect();
            let _ = writeln!(out, "| {} | {} |", md_cell(n), c.join(" | "));
        }
    } else {
        cut_text_values(&mut cells, &names, &headers, width);
        let _ = writeln!(out, "{}", fit_table("", &headers, &names, &cells, width));
    }
    out
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

/// `value` in at most `cap` columns, keeping the words that name a model: leading words
/// without a digit go first (`NVIDIA`, `AMD Instinct`), then the end (`H100 80GB H…`,
/// `MI300X`; a middle cut gave `NVIDIA …HBM3` and `AMD …MI300X`).
fn cut_value(value: &str, cap: usize) -> String {
    use super::columns::text_width;
    let mut rest = value;
    while text_width(rest) > cap {
        let Some((word, after)) = rest.split_once(' ') else {
            break;
        };
        if word.chars().any(|c| c.is_ascii_digit()) || !after.chars().any(|c| c.is_ascii_digit()) {
            break;
        }
        rest = after.trim_start();
    }
    if text_width(rest) <= cap {
        return rest.to_string();
    }
    let kept: String = rest.chars().take(cap.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// Cuts the longest values (device names, memory places) until a table of `names` and `cells`
/// fits in `width`, keeping at least 10 columns of each ([`cut_value`]; `H100 80GB…`, before
/// the row labels are cut: `overlapped wi… compute` read worse). Every column wider than
/// the level is cut to it at once, from the values as they were, so that one device name on
/// both sides reads the same (cutting one column, then the other, cut `NVIDIA H100 80GB HBM3`
/// to `H100 80GB HBM3` on one side and `H100 80GB H…` on the other).
fn cut_text_values(cells: &mut [Vec<String>], names: &[String], headers: &[String], width: usize) {
    use super::columns::text_width;
    if width == usize::MAX {
        return;
    }
    let label = names.iter().map(|n| text_width(n)).max().unwrap_or(0);
    let column = |cells: &[Vec<String>], k: usize| {
        cells
            .iter()
            .map(|row| text_width(&row[k]))
            .chain([text_width(&headers[k])])
            .max()
            .unwrap_or(0)
    };
    let total = |cells: &[Vec<String>]| label + 2 + (0..headers.len()).map(|k| column(cells, k) + 3).sum::<usize>();
    let widest = (0..headers.len()).map(|k| column(cells, k)).max().unwrap_or(0);
    let original = cells.to_vec();
    let mut cap = widest;
    while total(cells) > width && cap > 10 {
        cap -= 1;
        for (row, was) in cells.iter_mut().zip(&original) {
            for (cell, value) in row.iter_mut().zip(was) {
                if text_width(value) > cap {
                    *cell = cut_value(value, cap);
                }
            }
        }
    }
}
