//! The overview's step-time breakdown beyond its main table (docs/breakdown.md): a row per
//! selected step (`--per-step`), a row per rank and the straggler (two ranks or more).

use super::{fit_table, fmt_duration, json_us, md_cell};
use crate::analysis::views::overview::{BreakdownMean, Overview, SideOverview};
use crate::model::summary::IdleCauses;
use serde_json::{Map, Value, json};
use std::fmt::Write;

/// What the overview shows beyond its table.
#[derive(Debug, Clone, Copy, Default)]
pub struct OverviewOptions {
    /// A row per selected step and side (`--per-step`).
    pub per_step: bool,
}

/// The step time and parts of one row as JSON (µs), after `first`'s keys; the parts are null
/// without device events (a CPU-only side: the step time alone).
fn parts_json(first: Map<String, Value>, step_ns: Option<i64>, b: Option<&BreakdownMean>) -> Value {
    let mut m = first;
    m.insert("step_us".into(), step_ns.map_or(Value::Null, json_us));
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
        "compute_us",
        "comm_total_us",
        "comm_overlapped_us",
        "comm_exposed_us",
        "memory_exposed_us",
        "idle_us",
    ];
    for (k, key) in keys.iter().enumerate() {
        m.insert((*key).into(), parts.map_or(Value::Null, |ns| json_us(ns[k])));
    }
    m.insert("overlap_ratio".into(), json!(b.and_then(|b| b.overlap_ratio)));
    m.insert("idle".into(), idle_json(b.and_then(|b| b.idle_causes.as_ref())));
    Value::Object(m)
}

/// The idle causes as a JSON object of µs (`host_communication_us`, …), null where unknown.
pub fn idle_json(causes: Option<&IdleCauses>) -> Value {
    causes.map_or(Value::Null, |c| {
        let m: Map<String, Value> = c
            .parts()
            .iter()
            .map(|(name, ns)| (format!("{name}_us"), json_us(*ns)))
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
    let names: Vec<String> = known.iter().map(|(n, _, _)| (*n).clone()).collect();
    let cells: Vec<Vec<String>> = known
        .iter()
        .map(|(_, b, c)| {
            std::iter::once(b.idle_ns)
                .chain(c.parts().iter().map(|(_, ns)| *ns))
                .map(|ns| fmt_duration(ns, false))
                .collect()
        })
        .collect();
    let headers: Vec<String> = IDLE_HEADERS.iter().map(|h| (*h).to_string()).collect();
    if md {
        let mut out = format!("| | {} |\n", headers.join(" | "));
        let _ = writeln!(out, "|---|{}", "---:|".repeat(headers.len()));
        for (n, c) in names.iter().zip(&cells) {
            let c: Vec<String> = c.iter().map(|x| md_cell(x)).collect();
            let _ = writeln!(out, "| {} | {} |", md_cell(n), c.join(" | "));
        }
        return out;
    }
    let whole = fit_table("", &headers, &names, &cells, usize::MAX);
    if whole.lines().all(|l| super::columns::text_width(l) <= width) {
        return format!("{whole}\n");
    }
    // Too narrow: the rarer causes go first (dataloader, host communication, untraced).
    let two_lines: Vec<String> = IDLE_HEADERS_TWO_LINES.iter().map(|h| (*h).to_string()).collect();
    let cut = |names: &[String], w: usize| {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        super::distinct_cuts(&refs, w)
    };
    let table = super::fit_table_dropping("", &two_lines, &names, &cells, width, &[&[4], &[1], &[6]], cut);
    format!("{table}\n")
}

fn keys(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect()
}

/// Adds `per_step` (with `--per-step`), `per_rank` and `straggler` (two ranks or more) to a
/// side's JSON object.
pub fn side_tables_json(s: &SideOverview, options: &OverviewOptions, m: &mut Map<String, Value>) {
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
                    "step_us": json_us(p.step_ns),
                    "median_us": p.median_ns / 1000.0,
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

/// The step time and the parts, '-' where the side has no device events.
fn part_cells(step_ns: Option<i64>, b: Option<&BreakdownMean>) -> Vec<String> {
    let parts = b.map(|b| [b.compute_ns, b.comm_exposed_ns, b.memory_exposed_ns, b.idle_ns]);
    let mut cells = vec![step_ns.map_or("-".to_string(), |ns| fmt_duration(ns, false))];
    match parts {
        Some(ns) => cells.extend(ns.iter().map(|&ns| fmt_duration(ns, false))),
        None => cells.extend(std::iter::repeat_n("-".to_string(), 4)),
    }
    cells
}

/// One row of a table: its name, an extra cell (the rank's steps), the step time (none for a
/// rank that ran no selected step) and parts.
type Row<'a> = (String, Option<String>, Option<i64>, Option<&'a BreakdownMean>);

/// A table of `names` × parts: Markdown, or the terminal's fitted to `width` display columns
/// (`usize::MAX`: whole), its headers on two lines where one would not fit.
fn table(first: &str, extra: Option<&str>, rows: &[Row<'_>], md: bool, width: usize) -> String {
    // Without device events on either side (a CPU-only run) the parts are '-' in every row:
    // the table is then the step time alone.
    let columns = if rows.iter().any(|r| r.3.is_some()) {
        PART_HEADERS.len()
    } else {
        1
    };
    let headers = |parts: &[&str]| -> Vec<String> {
        let mut headers: Vec<String> = extra.map(str::to_string).into_iter().collect();
        headers.extend(parts[..columns].iter().map(|h| (*h).to_string()));
        headers
    };
    let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(_, e, step_ns, b)| {
            e.iter()
                .cloned()
                .chain(part_cells(*step_ns, *b).into_iter().take(columns))
                .collect()
        })
        .collect();
    if !md {
        let whole = fit_table(first, &headers(&PART_HEADERS), &names, &cells, usize::MAX);
        let fits = whole.lines().all(|l| super::columns::text_width(l) <= width);
        // Still too narrow: exposed memory copies go first, then exposed communication, then
        // GPU idle (step time and compute always stay).
        let at = usize::from(extra.is_some());
        let drop_order: &[&[usize]] = if columns > 1 {
            &[&[at + 3], &[at + 2], &[at + 4]]
        } else {
            &[]
        };
        let table = if fits {
            whole
        } else {
            let cut = |names: &[String], w: usize| {
                let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                super::distinct_cuts(&refs, w)
            };
            let headers = headers(&PART_HEADERS_TWO_LINES);
            super::fit_table_dropping(first, &headers, &names, &cells, width, drop_order, cut)
        };
        return format!("{table}\n");
    }
    let headers = headers(&PART_HEADERS);
    let mut out = format!("| {} | {} |\n", md_cell(first), headers.join(" | "));
    let _ = writeln!(out, "|---|{}", "---:|".repeat(headers.len()));
    for (n, c) in names.iter().zip(&cells) {
        let c: Vec<String> = c.iter().map(|x| md_cell(x)).collect();
        let _ = writeln!(out, "| {} | {} |", md_cell(n), c.join(" | "));
    }
    out
}

/// The per-step table (with `--per-step`), the per-rank table and the straggler lines, fitted to
/// `width` display columns (`usize::MAX`, and Markdown: whole).
pub fn side_tables_text(o: &Overview, options: &OverviewOptions, md: bool, width: usize) -> String {
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
        out.push_str(&table("", None, &rows, md, width));
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
                        Some(r.windows.to_string()),
                        r.step_ns,
                        r.parts.as_ref(),
                    )
                })
            })
            .collect();
        out.push_str(&table("", Some("steps"), &rows, md, width));
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
