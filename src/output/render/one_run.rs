//! One run's view (`tracediff operators run/` with one path): the columns of that run alone,
//! with no Δ or significance, under a header naming the run, its ranks and steps. One table
//! model ([`RunTable`], in the shared table model) is rendered to the terminal, Markdown, CSV and JSON.

use super::table::{Cell, Column, Formats, Line, Table, csv, json, markdown, terminal};
use super::{Format, TableStyle};
use crate::analysis::diff::SideInfo;
use crate::analysis::modules::align::AlignedNode;
use crate::analysis::views::overview::SideOverview;
use crate::analysis::views::{ViewRow, ViewTable};
use serde::Serialize;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::io::{self, Write};

/// One run's table: a header, then rows of cells under columns (the table model of
/// [`super::table`]).
#[derive(Debug, Clone)]
pub(crate) struct RunTable {
    /// The view (`operators`, `kernels`, `overview`, `modules`).
    pub(crate) view: &'static str,
    /// The run as JSON (label, path, files, ranks, steps).
    pub(crate) run: Value,
    /// The lines above the table (the run, its ranks and steps; what is shown).
    pub(crate) header: Vec<String>,
    /// The columns, the first one the rows' names.
    pub(crate) columns: Vec<Column>,
    /// The rows.
    pub(crate) rows: Vec<Vec<Cell<'static>>>,
}

/// A column keyed `key` in CSV and JSON, headed `title` in the terminal and Markdown.
fn column(key: &str, title: &str, number: bool) -> Column {
    let c = Column::new(key, key, title);
    if number { c } else { c.left() }
}

fn text_cell(text: &str) -> Cell<'static> {
    Cell::Text(Cow::Owned(text.to_string()))
}

/// A duration in ns as `1.50 ms` and as µs.
fn time_cell(ns: Option<i64>) -> Cell<'static> {
    ns.map_or(Cell::Empty, Cell::Duration)
}

fn count_cell(n: Option<i64>) -> Cell<'static> {
    n.map_or(Cell::Empty, Cell::Int)
}

/// A count per step, up to two decimals (CSV and JSON: the number whole).
fn rate_cell(n: Option<f64>) -> Cell<'static> {
    n.map_or(Cell::Empty, |n| {
        Cell::Shown(crate::analysis::diff::fmt_rate(n), json!(n))
    })
}

/// The run's header line: `run: PATH (rank 0, steps 1–3)`.
fn run_line(side: &SideInfo) -> String {
    let mut side = side.clone();
    side.label = "run".to_string();
    super::compare::describe_side(&side)
}

fn run_json(side: &SideInfo) -> Value {
    let mut value = serde_json::to_value(side).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut value {
        m.remove("label");
    }
    value
}

/// The operator or kernel table of one run: its control side's values, every measure.
pub(crate) fn run_view_table(table: &ViewTable, rows: &[&ViewRow]) -> RunTable {
    let view = match table.kind {
        crate::analysis::views::ViewKind::Operators => "operators",
        _ => "kernels",
    };
    let mut columns = Vec::new();
    if table.by_operator {
        columns.push(column("operator", "operator", false));
    }
    columns.push(column("name", "name", false));
    for m in table.measures {
        let (key, title) = if m.is_count() {
            (m.key().to_string(), m.key().to_string())
        } else {
            (format!("{m}_us"), m.key().replacen('_', "\n", 1))
        };
        columns.push(column(&key, &title, true));
    }
    let rows = rows
        .iter()
        .map(|r| {
            let mut cells = Vec::new();
            if table.by_operator {
                cells.push(text_cell(r.operator.as_deref().unwrap_or("")));
            }
            cells.push(text_cell(&r.name));
            for (k, m) in table.measures.iter().enumerate() {
                let v = r.shown(0, k);
                cells.push(match (m.is_count(), &r.per_step) {
                    (true, Some(_)) => rate_cell(v),
                    (true, None) => count_cell(v.map(|v| v as i64)),
                    (false, _) => time_cell(v.map(|v| v.round() as i64)),
                });
            }
            cells
        })
        .collect();
    let mut header = vec![run_line(&table.control)];
    if let Some(zoom) = &table.zoom {
        header.push(format!("zoom: {zoom}"));
    }
    RunTable {
        view,
        run: run_json(&table.control),
        header,
        columns,
        rows,
    }
}

/// The overview of one run: a value per metric.
pub(crate) fn run_overview(side: &SideOverview) -> RunTable {
    let time = |key: &str, label: &str, ns: Option<i64>| (key.to_string(), label.to_string(), time_cell(ns));
    let mut lines = vec![
        (
            "device".into(),
            "device".into(),
            text_or_dash(side.device_name.as_deref()),
        ),
        ("ranks".into(), "ranks".into(), count_cell(Some(side.ranks as i64))),
        ("steps".into(), "steps".into(), count_cell(Some(side.steps as i64))),
        time("mean_step_time_us", "mean step time", side.mean_step_time_ns),
    ];
    if let Some(b) = &side.breakdown {
        lines.extend([
            time("breakdown.compute_per_step_us", "├ compute", Some(b.compute_ns)),
            time(
                "breakdown.comm_exposed_per_step_us",
                "├ exposed communication",
                Some(b.comm_exposed_ns),
            ),
            time(
                "breakdown.memory_exposed_per_step_us",
                "├ exposed memory copies",
                Some(b.memory_exposed_ns),
            ),
            time("breakdown.idle_per_step_us", "└ GPU idle", Some(b.idle_ns)),
            time(
                "breakdown.comm_total_per_step_us",
                "communication per step",
                Some(b.comm_total_ns),
            ),
        ]);
    }
    lines.extend([
        time("gpu_busy_per_step_us", "GPU busy per step", side.gpu_busy_per_step_ns),
        (
            "gpu_utilization".into(),
            "GPU utilization".into(),
            ratio_cell(side.gpu_utilization),
        ),
        time(
            "host_busy_per_step_us",
            "host ops busy per step",
            side.host_busy_per_step_ns,
        ),
        bytes_line("avg_allocated_bytes", "avg allocated", side.avg_allocated_bytes),
        bytes_line("peak_allocated_bytes", "peak allocated", side.peak_allocated_bytes),
    ]);
    let run = json!({
        "path": side.path,
        "ranks": side.rank_numbers,
        "iterations": side.step_numbers,
    });
    RunTable {
        view: "overview",
        run,
        header: vec![format!("run: {} ({})", side.path, used(side))],
        columns: vec![column("metric", "", false), column("value", "run", true)],
        rows: lines
            .into_iter()
            .map(|(key, label, cell): (String, String, Cell<'static>)| vec![Cell::Shown(label, json!(key)), cell])
            .collect(),
    }
}

fn text_or_dash(text: Option<&str>) -> Cell<'static> {
    text.map_or(Cell::Empty, text_cell)
}

fn ratio_cell(r: Option<f64>) -> Cell<'static> {
    r.map_or(Cell::Empty, |r| Cell::Shown(format!("{:.1}%", r * 100.0), json!(r)))
}

fn bytes_line(key: &str, label: &str, bytes: Option<i64>) -> (String, String, Cell<'static>) {
    let cell = bytes.map_or(Cell::Empty, |b| {
        Cell::Shown(super::views::fmt_bytes(b, false), json!(b))
    });
    (key.to_string(), label.to_string(), cell)
}

/// `rank 0, steps 1–3` of an overview's side.
fn used(side: &SideOverview) -> String {
    let ranks = crate::analysis::select::ranges(&side.rank_numbers);
    let rank_word = if side.rank_numbers.len() == 1 { "rank" } else { "ranks" };
    let steps = match side.step_numbers.len() {
        0 => "no ProfilerStep: the whole trace".to_string(),
        1 => format!("step {}", side.step_numbers[0]),
        _ => format!("steps {}", crate::analysis::select::ranges(&side.step_numbers)),
    };
    format!("{rank_word} {ranks}, {steps}")
}

/// What of a run's module tree to show.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunTree {
    /// Levels below the top node; `None`: all.
    pub depth: Option<usize>,
    /// Children under this percentage of the top node's time fold into one line.
    pub min_share: f64,
    /// Largest time first (`true`) or as they ran.
    pub largest_first: bool,
    /// Device time (else host time) orders, folds and gives the share.
    pub device: bool,
}

/// The module tree of one run: a row per node (indented by its depth), its calls, host and
/// device time and share of the top node's time.
pub(crate) fn run_modules(side: &SideInfo, top: &AlignedNode, tree: RunTree) -> RunTable {
    let time_of = |n: &AlignedNode| -> i64 {
        n.control.map_or(0, |t| {
            if tree.device {
                t.device_total_ns.unwrap_or(0)
            } else {
                t.host_total_ns
            }
        })
    };
    let whole = time_of(top).max(1) as f64;
    let mut rows = Vec::new();
    // Depth-first without recursion: a node (its depth and path) or a folded line; children
    // are pushed in reverse after their parent's folded line, which so comes after them.
    let mut stack: Vec<Entry<'_>> = vec![Entry::Node(top, 0, String::new())];
    while let Some(entry) = stack.pop() {
        let (node, depth, path) = match entry {
            Entry::Folded(cells) => {
                rows.push(cells);
                continue;
            }
            Entry::Node(node, depth, path) => (node, depth, path),
        };
        rows.push(module_row(node, depth, &path, time_of(node) as f64 * 100.0 / whole));
        if tree.depth.is_some_and(|d| depth >= d) {
            continue;
        }
        let mut kids: Vec<&AlignedNode> = node.children.iter().filter(|c| c.control.is_some()).collect();
        if tree.largest_first {
            kids.sort_by_key(|c| std::cmp::Reverse(time_of(c)));
        }
        let (shown, folded): (Vec<_>, Vec<_>) = kids
            .into_iter()
            .partition(|c| time_of(c) as f64 * 100.0 / whole >= tree.min_share);
        if !folded.is_empty() {
            let ns: i64 = folded.iter().map(|c| time_of(c)).sum();
            let share = ns as f64 * 100.0 / whole;
            stack.push(Entry::Folded(folded_row(
                folded.len(),
                depth + 1,
                ns,
                tree.device,
                share,
            )));
        }
        for child in shown.into_iter().rev() {
            let segment = child.label();
            let child_path = if path.is_empty() {
                segment
            } else {
                format!("{path}/{segment}")
            };
            stack.push(Entry::Node(child, depth + 1, child_path));
        }
    }
    RunTable {
        view: "modules",
        run: run_json(side),
        header: vec![
            run_line(side),
            format!("time: {}", if tree.device { "device" } else { "host" }),
        ],
        columns: vec![
            column("node", "node", false),
            // The terminal leaves out the path: the indentation shows it.
            column("path", "path", false).only(Formats::CSV | Formats::JSON | Formats::MARKDOWN),
            column("calls", "calls", true),
            column("host_total_us", "host\ntime", true),
            column("device_total_us", "device\ntime", true),
            column("share_pct", "share", true),
        ],
        rows,
    }
}

/// A node still to show, or a folded line of small siblings.
enum Entry<'a> {
    Node(&'a AlignedNode, usize, String),
    Folded(Vec<Cell<'static>>),
}

fn module_row(node: &AlignedNode, depth: usize, path: &str, share: f64) -> Vec<Cell<'static>> {
    let t = node.control.unwrap_or_default();
    // As the pair's table names nodes: the key, with its ordinal where it is not the first.
    let name = match node.ordinal {
        Some(n) if n > 0 => format!("{}[{n}]", node.key),
        _ => node.key.clone(),
    };
    vec![
        Cell::Shown(format!("{}{name}", "  ".repeat(depth)), json!(name)),
        text_cell(path),
        count_cell(t.calls.map(|c| c as i64)),
        time_cell(Some(t.host_total_ns)),
        time_cell(t.device_total_ns),
        share_cell(share),
    ]
}

fn folded_row(count: usize, depth: usize, ns: i64, device: bool, share: f64) -> Vec<Cell<'static>> {
    let label = format!("{}… {count} smaller", "  ".repeat(depth));
    let (host, dev) = if device { (None, Some(ns)) } else { (Some(ns), None) };
    vec![
        Cell::Shown(label, json!(format!("… {count} smaller"))),
        Cell::Shown(String::new(), Value::Null),
        count_cell(None),
        time_cell(host),
        time_cell(dev),
        share_cell(share),
    ]
}

fn share_cell(pct: f64) -> Cell<'static> {
    Cell::Shown(format!("{pct:.1}%"), json!((pct * 10.0).round() / 10.0))
}

/// The run's table as the table model: its header lines above it.
fn model(t: &RunTable) -> Table<'_> {
    let mut table = Table::new(t.columns.clone(), t.rows.len(), move |i, cells| {
        cells.extend(t.rows[i].iter().cloned());
    });
    table.title = t.header.iter().map(|l| Line::new(l.as_str())).collect();
    table.wrap_title = false;
    table
}

/// Writes a run's table in `format`.
pub(crate) fn write_run_table(t: &RunTable, format: Format, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let table = model(t);
    match format {
        // Names (the first column) are cut in the middle to fit the width.
        Format::Table => {
            let layout = terminal::Layout {
                color: false,
                width: style.name_width(),
                fit: terminal::Fit::Elide { min: 12 },
            };
            terminal::write(&table, &layout, out)
        }
        Format::Markdown => markdown::write(&table, out),
        Format::Csv => csv::write(&table, out),
        Format::Json => {
            let doc = RunDoc {
                tool: "tracediff",
                version: env!("CARGO_PKG_VERSION"),
                view: t.view,
                duration_unit: "us",
                run: &t.run,
                rows: json::Rows(&table),
            };
            serde_json::to_writer_pretty(&mut *out, &doc)?;
            writeln!(out)
        }
    }
}

/// The JSON document of a run's table.
#[derive(Serialize)]
struct RunDoc<'a, 't> {
    tool: &'static str,
    version: &'static str,
    view: &'static str,
    duration_unit: &'static str,
    run: &'a Value,
    rows: json::Rows<'t, 'a>,
}
