//! The overview's step-time breakdown beyond its main table (docs/breakdown.md): a row per
//! selected step (`--per-step`), a row per rank and the straggler (two ranks or more).

use super::json_us;
use super::table::{Cell, Column, Table, markdown, terminal};
use crate::analysis::views::overview::{BreakdownMean, Overview, SideOverview};
use crate::model::summary::IdleCauses;
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::fmt::Write;

/// What the overview shows beyond its table.
#[derive(Debug, Clone, Copy, Default)]
pub struct OverviewTables {
    /// A row per selected step and side (`--per-step`).
    pub per_step: bool,
}

/// The step time and parts of one row as JSON, after `first`'s keys: µs per step (a step row's
/// own, a rank's mean per step); the parts are null without device events (a CPU-only side:
/// the step time alone).
fn parts_json(first: Map<String, Value>, step_ns: Option<i64>, b: Option<&BreakdownMean>) -> Value {
    let mut m = first;
    m.insert("step_time_per_step_us".into(), step_ns.map_or(Value::Null, json_us));
    let parts = b.map(|b| {
        [
            b.compute_ns,
            b.comm_total_ns,
            b.comm_overlapped_ns,
            b.comm_exposed_ns,
            b.memory_exposed_ns,
            b.idle_ns,
        ]
    });
    let keys = [
        "compute_per_step_us",
        "comm_total_per_step_us",
        "comm_overlapped_per_step_us",
        "comm_exposed_per_step_us",
        "memory_exposed_per_step_us",
        "idle_per_step_us",
    ];
    for (k, key) in keys.iter().enumerate() {
        m.insert((*key).into(), parts.map_or(Value::Null, |ns| json_us(ns[k])));
    }
    m.insert("overlap_ratio".into(), json!(b.and_then(|b| b.overlap_ratio)));
    m.insert("idle".into(), idle_json(b.and_then(|b| b.idle_causes.as_ref())));
    Value::Object(m)
}

/// The idle causes as a JSON object of µs per step (`host_communication_per_step_us`, …), null where unknown.
pub(crate) fn idle_json(causes: Option<&IdleCauses>) -> Value {
    causes.map_or(Value::Null, |c| {
        let m: Map<String, Value> = c
            .parts()
            .iter()
            .map(|(name, ns)| (format!("{name}_per_step_us"), json_us(*ns)))
            .collect();
        Value::Object(m)
    })
}

const IDLE_HEADERS: [&str; 7] = [
    "GPU idle",
    "host comm",
    "synchronize",
    "launch",
    "dataloader",
    "host compute",
    "untraced",
];

const IDLE_HEADERS_TWO_LINES: [&str; 7] = [
    "GPU\nidle",
    "host\ncomm",
    "synchro-\nnize",
    "launch",
    "data-\nloader",
    "host\ncompute",
    "un-\ntraced",
];

/// A table of `rows` × the idle time and its causes, or nothing where no row has them (a
/// CPU-only run, older summaries).
fn idle_table(rows: &[Row<'_>], md: bool, width: usize) -> String {
    let known: Vec<(&String, &BreakdownMean, &IdleCauses)> = rows
        .iter()
        .filter_map(|(name, _, _, b)| b.and_then(|b| b.idle_causes.as_ref().map(|c| (name, b, c))))
        .collect();
    if known.is_empty() {
        return String::new();
    }
    let columns = |headers: &[&str]| -> Vec<Column> {
        std::iter::once(Column::new("name", "name", "").left().markdown_bare())
            .chain(headers.iter().map(|h| Column::new(*h, *h, *h)))
            .collect()
    };
    let table = Table::new(columns(&IDLE_HEADERS), known.len(), |i, cells| {
        let (name, b, c) = known[i];
        cells.push(Cell::Text(Cow::Borrowed(name.as_str())));
        cells.extend(
            std::iter::once(b.idle_ns)
                .chain(c.parts().iter().map(|(_, ns)| *ns))
                .map(Cell::Duration),
        );
    });
    // Too narrow: the rarer causes go first (dataloader, host communication, untraced).
    people(table, columns(&IDLE_HEADERS_TWO_LINES), &[&[4], &[1], &[6]], md, width)
}

/// `table` for people: Markdown (the table alone), or the terminal's, whole where it fits
/// `width`, else under `narrow` (the same columns, their headers on two lines) with value
/// columns dropped in `drop_order` and the names cut so that distinct names stay distinct.
fn people(mut table: Table<'_>, narrow: Vec<Column>, drop_order: &[&[usize]], md: bool, width: usize) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    if md {
        let _ = markdown::write_rows(&table, &mut out);
        return String::from_utf8(out).unwrap_or_default();
    }
    let cut = |names: &[&str], w: usize| super::distinct_cuts(names, w);
    let layout = |width, drop_order| terminal::Layout {
        color: false,
        width,
        fit: terminal::Fit::Drop {
            drop_order,
            cut: Some(&cut),
            widen_to_header: true,
        },
    };
    let _ = terminal::write(&table, &layout(usize::MAX, &[]), &mut out);
    let whole = String::from_utf8(out).unwrap_or_default();
    if whole.lines().all(|l| super::columns::text_width(l) <= width) {
        return whole;
    }
    table.columns = narrow;
    let mut out = Vec::new();
    let _ = terminal::write(&table, &layout(width, drop_order), &mut out);
    String::from_utf8(out).unwrap_or_default()
}

fn keys(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect()
}

/// Adds `per_step` (with `--per-step`), `per_rank` and `straggler` (two ranks or more) to a
/// side's JSON object.
pub(crate) fn side_tables_json(s: &SideOverview, options: &OverviewTables, m: &mut Map<String, Value>) {
    if options.per_step {
        let rows = s
            .per_step
            .iter()
            .map(|r| {
                parts_json(
                    keys(&[("rank", json!(r.rank)), ("step", json!(r.step))]),
                    Some(r.step_ns),
                    r.parts.as_ref(),
                )
            })
            .collect();
        m.insert("per_step".into(), Value::Array(rows));
    }
    if s.per_rank.len() < 2 {
        return;
    }
    let rows = s
        .per_rank
        .iter()
        .map(|r| {
            parts_json(
                keys(&[("rank", json!(r.rank)), ("windows", json!(r.windows))]),
                r.step_ns,
                r.parts.as_ref(),
            )
        })
        .collect();
    m.insert("per_rank".into(), Value::Array(rows));
    let straggler = s.straggler.as_ref().map(|st| {
        let steps: Vec<Value> = st
            .per_step
            .iter()
            .map(|p| {
                json!({
                    "step": p.step,
                    "rank": p.rank,
                    "step_time_per_step_us": json_us(p.step_ns),
                    "median_step_time_per_step_us": p.median_ns / 1000.0,
                    "max_over_median": p.max_over_median,
                })
            })
            .collect();
        json!({"rank": st.rank, "max_over_median": st.max_over_median, "per_step": steps})
    });
    m.insert("straggler".into(), straggler.unwrap_or(Value::Null));
}

const PART_HEADERS: [&str; 5] = ["step time", "compute", "exposed comm", "exposed memory", "GPU idle"];

/// The same headers on two lines, for a terminal too narrow for the first form.
const PART_HEADERS_TWO_LINES: [&str; 5] = ["step\ntime", "compute", "exposed\ncomm", "exposed\nmemory", "GPU\nidle"];

/// One row of a table: its name, an extra cell (the rank's steps), the step time (none for a
/// rank that ran no selected step) and parts.
type Row<'a> = (String, Option<usize>, Option<i64>, Option<&'a BreakdownMean>);

/// A table of `rows` × the step time and its parts: Markdown, or the terminal's fitted to
/// `width` display columns (`usize::MAX`: whole), its headers on two lines where one would not
/// fit; `extra`: the header of the extra cell.
fn table(extra: Option<&str>, rows: &[Row<'_>], md: bool, width: usize) -> String {
    // Without device events on either side (a CPU-only run) the parts are '-' in every row:
    // the table is then the step time alone.
    let parts = if rows.iter().any(|r| r.3.is_some()) {
        PART_HEADERS.len()
    } else {
        1
    };
    let columns = |headers: &[&str]| -> Vec<Column> {
        std::iter::once(Column::new("name", "name", "").left())
            .chain(extra.map(|e| Column::new(e, e, e)))
            .chain(headers[..parts].iter().map(|h| Column::new(*h, *h, *h)))
            .collect()
    };
    let table = Table::new(columns(&PART_HEADERS), rows.len(), |i, cells| {
        let (name, extra, step_ns, b) = &rows[i];
        cells.push(Cell::Text(Cow::Borrowed(name.as_str())));
        cells.extend(extra.map(|n| Cell::Int(n as i64)));
        cells.push(step_ns.map_or(Cell::Empty, Cell::Duration));
        let ns = b.map(|b| [b.compute_ns, b.comm_exposed_ns, b.memory_exposed_ns, b.idle_ns]);
        cells.extend((0..parts - 1).map(|k| ns.map_or(Cell::Empty, |ns| Cell::Duration(ns[k]))));
    });
    // Still too narrow: exposed memory copies go first, then exposed communication, then
    // GPU idle (step time and compute always stay).
    let at = usize::from(extra.is_some());
    let drop_order: &[&[usize]] = if parts > 1 {
        &[&[at + 3], &[at + 2], &[at + 4]]
    } else {
        &[]
    };
    people(table, columns(&PART_HEADERS_TWO_LINES), drop_order, md, width)
}

/// The per-step table (with `--per-step`), the per-rank table and the straggler lines, fitted to
/// `width` display columns (`usize::MAX`, and Markdown: whole).
pub(crate) fn side_tables_text(o: &Overview, options: &OverviewTables, md: bool, width: usize) -> String {
    let sides = [&o.control, &o.test];
    let mut out = String::new();
    let heading = |out: &mut String, text: &str| {
        let _ = write!(out, "\n{}{text}\n", if md { "### " } else { "" });
        if md {
            out.push('\n');
        }
    };
    if options.per_step && sides.iter().any(|s| !s.per_step.is_empty()) {
        heading(&mut out, "Per step");
        let rows: Vec<Row<'_>> = sides
            .iter()
            .flat_map(|s| {
                let many = s.per_rank.len() > 1;
                s.per_step.iter().map(move |r| {
                    let rank = if many {
                        format!(" rank {}", r.rank)
                    } else {
                        String::new()
                    };
                    let step = r.step.map_or("whole trace".to_string(), |n| format!("step {n}"));
                    (
                        format!("{}{rank} {step}", s.label),
                        None,
                        Some(r.step_ns),
                        r.parts.as_ref(),
                    )
                })
            })
            .collect();
        out.push_str(&table(None, &rows, md, width));
        let idle = idle_table(&rows, md, width);
        if !idle.is_empty() {
            heading(&mut out, "Per step: why the GPU was idle");
            out.push_str(&idle);
        }
    }
    if sides.iter().any(|s| s.per_rank.len() > 1) {
        heading(&mut out, "Per rank (means per step)");
        let rows: Vec<Row<'_>> = sides
            .iter()
            .flat_map(|s| {
                s.per_rank.iter().map(|r| {
                    (
                        format!("{} rank {}", s.label, r.rank),
                        Some(r.windows),
                        r.step_ns,
                        r.parts.as_ref(),
                    )
                })
            })
            .collect();
        out.push_str(&table(Some("steps"), &rows, md, width));
        let idle = idle_table(&rows, md, width);
        if !idle.is_empty() {
            heading(&mut out, "Per rank: why the GPU was idle (means per step)");
            out.push_str(&idle);
        }
        for s in sides {
            if let Some(line) = straggler_line(s) {
                let line = format!("{}{line}", if md { "- " } else { "" });
                out.push_str(&super::wrap_text(&line, width));
            }
        }
    }
    out
}

/// `control: straggler rank 1, its mean step 1.08× the median rank's`, then the slowest rank
/// of each step, a few steps a line.
fn straggler_line(s: &SideOverview) -> Option<String> {
    let st = s.straggler.as_ref()?;
    // Below 1.005 the ratio prints as 1.00×: "straggler rank 1, its mean step 1.00× the median
    // rank's" named a straggler that the same line said was not one.
    let even = |ratio: f64| ratio < 1.005;
    if st.per_step.iter().all(|p| even(p.max_over_median)) && even(st.max_over_median) {
        return Some(format!("{}: no straggler: every rank's steps take as long", s.label));
    }
    let steps: Vec<String> = st
        .per_step
        .iter()
        .map(|p| {
            let step = p.step.map_or("whole trace".to_string(), |n| format!("step {n}"));
            format!("{step} → rank {} ({:.2}×)", p.rank, p.max_over_median)
        })
        .collect();
    let mut out = if even(st.max_over_median) {
        format!(
            "{}: no straggler over the steps (every rank's mean step within 0.5% of the median rank's); \
             slowest rank per step (÷ the step's median):",
            s.label
        )
    } else {
        format!(
            "{}: straggler rank {}, its mean step {:.2}× the median rank's; slowest rank per step (÷ the step's median):",
            s.label, st.rank, st.max_over_median
        )
    };
    for chunk in steps.chunks(4) {
        out.push_str("\n  ");
        out.push_str(&chunk.join(", "));
    }
    Some(out)
}
