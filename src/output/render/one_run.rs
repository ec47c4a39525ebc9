//! One run's view (`tracediff operators run/` with one path): the columns of that run alone,
//! with no Δ or significance, under a header naming the run, its ranks and steps. One table
//! model ([`RunTable`]) is rendered to the terminal, Markdown, CSV and JSON.

use super::columns::Columns;
use super::{Format, TableStyle, csv_field, elide_middle, fmt_us, md_cell};
use crate::analysis::align::AlignedNode;
use crate::analysis::diff::SideInfo;
use crate::analysis::views::overview::SideOverview;
use crate::analysis::views::{ViewRow, ViewTable};
use crate::text::fmt_duration;
use serde_json::{Map, Value, json};
use std::io::{self, Write};

/// A column of a run's table.
#[derive(Debug, Clone)]
pub struct RunColumn {
    /// Its key in CSV and JSON (`calls`, `host_total_us`, …).
    pub key: String,
    /// Its heading in the terminal and Markdown (lines separated by `\n`).
    pub title: String,
    /// Whether it is a number (aligned right).
    pub number: bool,
}

/// One cell: as people read it, and as CSV and JSON carry it.
#[derive(Debug, Clone)]
pub struct RunCell {
    /// The text of the terminal and Markdown (`1.50 ms`).
    pub text: String,
    /// The value of CSV and JSON (µs as a number, `null` where absent).
    pub value: Value,
}

/// One run's table: a header, then rows of cells under columns.
#[derive(Debug, Clone)]
pub struct RunTable {
    /// The view (`operators`, `kernels`, `overview`, `modules`).
    pub view: &'static str,
    /// The run as JSON (label, path, files, ranks, steps).
    pub run: Value,
    /// The lines above the table (the run, its ranks and steps; what is shown).
    pub header: Vec<String>,
    /// The columns, the first one the rows' names.
    pub columns: Vec<RunColumn>,
    /// The rows.
    pub rows: Vec<Vec<RunCell>>,
}

fn column(key: &str, title: &str, number: bool) -> RunColumn {
    RunColumn {
        key: key.to_string(),
        title: title.to_string(),
        number,
    }
}

fn text_cell(text: &str) -> RunCell {
    RunCell {
        text: text.to_string(),
        value: json!(text),
    }
}

/// A duration in ns as `1.50 ms` and as µs.
fn time_cell(ns: Option<i64>) -> RunCell {
    match ns {
        None => RunCell {
            text: "-".to_string(),
            value: Value::Null,
        },
        Some(ns) => RunCell {
            text: fmt_duration(ns, false),
            value: us_value(ns),
        },
    }
}

fn count_cell(n: Option<i64>) -> RunCell {
    match n {
        None => RunCell {
            text: "-".to_string(),
            value: Value::Null,
        },
        Some(n) => RunCell {
            text: n.to_string(),
            value: json!(n),
        },
    }
}

/// A count per step, up to two decimals.
fn rate_cell(n: Option<f64>) -> RunCell {
    match n {
        None => RunCell {
            text: "-".to_string(),
            value: Value::Null,
        },
        Some(n) => RunCell {
            text: crate::analysis::diff::fmt_rate(n),
            value: json!(n),
        },
    }
}

/// µs as a JSON number: exact (`fmt_us`'s digits), an integer where it is one.
fn us_value(ns: i64) -> Value {
    serde_json::from_str(&fmt_us(ns)).unwrap_or(Value::Null)
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
pub fn run_view_table(table: &ViewTable, rows: &[&ViewRow]) -> RunTable {
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
pub fn run_overview(side: &SideOverview) -> RunTable {
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
            time("breakdown.compute_us", "├ compute", Some(b.compute_ns)),
            time(
                "breakdown.comm_exposed_us",
                "├ exposed communication",
                Some(b.comm_exposed_ns),
            ),
            time(
                "breakdown.memory_exposed_us",
                "├ exposed memory copies",
                Some(b.memory_exposed_ns),
            ),
            time("breakdown.idle_us", "└ GPU idle", Some(b.idle_ns)),
            time(
                "breakdown.comm_total_us",
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
            .map(|(key, label, cell): (String, String, RunCell)| {
                vec![
                    RunCell {
                        text: label,
                        value: json!(key),
                    },
                    cell,
                ]
            })
            .collect(),
    }
}

fn text_or_dash(text: Option<&str>) -> RunCell {
    match text {
        Some(t) => text_cell(t),
        None => RunCell {
            text: "-".to_string(),
            value: Value::Null,
        },
    }
}

fn ratio_cell(r: Option<f64>) -> RunCell {
    match r {
        None => text_or_dash(None),
        Some(r) => RunCell {
            text: format!("{:.1}%", r * 100.0),
            value: json!(r),
        },
    }
}

fn bytes_line(key: &str, label: &str, bytes: Option<i64>) -> (String, String, RunCell) {
    let cell = match bytes {
        None => text_or_dash(None),
        Some(b) => RunCell {
            text: super::views::fmt_bytes(b, false),
            value: json!(b),
        },
    };
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
pub struct RunTree {
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
pub fn run_modules(side: &SideInfo, top: &AlignedNode, tree: RunTree) -> RunTable {
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
            column("path", "path", false),
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
    Folded(Vec<RunCell>),
}

fn module_row(node: &AlignedNode, depth: usize, path: &str, share: f64) -> Vec<RunCell> {
    let t = node.control.unwrap_or_default();
    // As the pair's table names nodes: the key, with its ordinal where it is not the first.
    let name = match node.ordinal {
        Some(n) if n > 0 => format!("{}[{n}]", node.key),
        _ => node.key.clone(),
    };
    vec![
        RunCell {
            text: format!("{}{name}", "  ".repeat(depth)),
            value: json!(name),
        },
        text_cell(path),
        count_cell(t.calls.map(|c| c as i64)),
        time_cell(Some(t.host_total_ns)),
        time_cell(t.device_total_ns),
        share_cell(share),
    ]
}

fn folded_row(count: usize, depth: usize, ns: i64, device: bool, share: f64) -> Vec<RunCell> {
    let label = format!("{}… {count} smaller", "  ".repeat(depth));
    let (host, dev) = if device { (None, Some(ns)) } else { (Some(ns), None) };
    vec![
        RunCell {
            text: label,
            value: json!(format!("… {count} smaller")),
        },
        RunCell {
            text: String::new(),
            value: Value::Null,
        },
        count_cell(None),
        time_cell(host),
        time_cell(dev),
        share_cell(share),
    ]
}

fn share_cell(pct: f64) -> RunCell {
    RunCell {
        text: format!("{pct:.1}%"),
        value: json!((pct * 10.0).round() / 10.0),
    }
}

/// Writes a run's table in `format`.
pub fn write_run_table(t: &RunTable, format: Format, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Table => write_text(t, style, out),
        Format::Markdown => write_markdown(t, out),
        Format::Csv => write_csv(t, out),
        Format::Json => write_json(t, out),
    }
}

fn write_text(t: &RunTable, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    for line in &t.header {
        writeln!(out, "{line}")?;
    }
    // The terminal leaves out the path column of the module tree: the indentation shows it.
    let shown: Vec<usize> = (0..t.columns.len())
        .filter(|&k| !(t.view == "modules" && t.columns[k].key == "path"))
        .collect();
    let mut cols = Columns::new(shown.iter().map(|&k| t.columns[k].number).collect());
    for (i, &k) in shown.iter().enumerate() {
        cols.fit(i, &t.columns[k].title);
        for r in &t.rows {
            cols.fit(i, &r[k].text);
        }
    }
    // Names (the first column) are cut in the middle to fit the width.
    let rest = cols.total() - cols.widths[0];
    let name_width = style.name_width().saturating_sub(rest).max(12).min(cols.widths[0]);
    cols.widths[0] = name_width;
    let titles: Vec<&str> = shown.iter().map(|&k| t.columns[k].title.as_str()).collect();
    cols.row(&titles, out)?;
    cols.rule(out)?;
    for r in &t.rows {
        let name = elide_middle(&r[shown[0]].text, name_width);
        let mut cells: Vec<&str> = vec![name.as_str()];
        cells.extend(shown[1..].iter().map(|&k| r[k].text.as_str()));
        cols.row(&cells, out)?;
    }
    Ok(())
}

fn write_markdown(t: &RunTable, out: &mut dyn Write) -> io::Result<()> {
    for line in &t.header {
        writeln!(out, "- {}", md_cell(line))?;
    }
    writeln!(out)?;
    let titles: Vec<String> = t.columns.iter().map(|c| md_cell(&c.title.replace('\n', " "))).collect();
    writeln!(out, "| {} |", titles.join(" | "))?;
    let rule: Vec<&str> = t
        .columns
        .iter()
        .map(|c| if c.number { "---:" } else { "---" })
        .collect();
    writeln!(out, "|{}|", rule.join("|"))?;
    for r in &t.rows {
        let cells: Vec<String> = r.iter().map(|c| md_cell(&c.text)).collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    Ok(())
}

fn write_csv(t: &RunTable, out: &mut dyn Write) -> io::Result<()> {
    let keys: Vec<String> = t.columns.iter().map(|c| csv_field(&c.key)).collect();
    writeln!(out, "{}", keys.join(","))?;
    for r in &t.rows {
        let cells: Vec<String> = r
            .iter()
            .map(|c| match &c.value {
                Value::Null => String::new(),
                Value::String(s) => csv_field(s),
                v => v.to_string(),
            })
            .collect();
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

fn write_json(t: &RunTable, out: &mut dyn Write) -> io::Result<()> {
    let rows: Vec<Value> = t
        .rows
        .iter()
        .map(|r| {
            let m: Map<String, Value> = t
                .columns
                .iter()
                .zip(r)
                .map(|(c, cell)| (c.key.clone(), cell.value.clone()))
                .collect();
            Value::Object(m)
        })
        .collect();
    let doc = json!({
        "tool": "tracediff",
        "version": env!("CARGO_PKG_VERSION"),
        "view": t.view,
        "duration_unit": "us",
        "run": t.run,
        "rows": rows,
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
