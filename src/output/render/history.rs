//! `history show` as text, Markdown, CSV and JSON: per series the last runs' values, the
//! median and spread since the last change point, the band, and each change point.

use super::Format;
use crate::analysis::history::show::{HistoryView, Series, ShownChange};
use std::fmt::Write;

/// The runs whose values the table and Markdown list per series (JSON and CSV hold every run).
pub const LAST_RUNS: usize = 10;

/// `view` in `format`.
pub fn render(view: &HistoryView, format: Format) -> String {
    match format {
        Format::Json => json(view),
        Format::Csv => csv(view),
        Format::Markdown => markdown(view),
        Format::Table => text(view),
    }
}

fn ns(v: f64) -> String {
    crate::text::fmt_duration(v.round() as i64, false)
}

fn pct(r: Option<f64>) -> String {
    r.map_or("-".to_string(), |r| format!("{:+.1}%", r * 100.0))
}

fn label(view: &HistoryView, i: usize) -> &str {
    view.runs.get(i).map_or("?", |r| r.label.as_str())
}

/// One line of a series' statistics.
fn stats_line(view: &HistoryView, s: &Series) -> String {
    let band = s.band_upper.map_or("- (fewer than 3 runs)".to_string(), ns);
    format!(
        "median {} ± {} (1.4826 × MAD) over {} runs since {}; a new run above {band} is slower than the history predicts",
        ns(s.median),
        ns(s.spread),
        s.values.len() - s.since,
        label(view, s.since)
    )
}

fn change_line(c: &ShownChange) -> String {
    format!(
        "change at run {} (seq {}): {} → {} ({}), p = {:.3}",
        c.label,
        c.seq,
        ns(c.before),
        ns(c.after),
        pct(c.relative_change),
        c.p_value
    )
}

fn last_values(view: &HistoryView, s: &Series) -> String {
    let from = s.values.len().saturating_sub(LAST_RUNS);
    s.values[from..]
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{} {}", label(view, from + i), ns(*v)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn header(view: &HistoryView) -> String {
    let span = match (view.runs.first(), view.runs.last()) {
        (Some(a), Some(b)) => format!(" ({}–{})", a.label, b.label),
        _ => String::new(),
    };
    format!("history {}: {} runs{span}", view.store, view.runs.len())
}

fn text(view: &HistoryView) -> String {
    let mut out = format!("{}\n", header(view));
    for s in &view.series {
        let _ = writeln!(out, "\n{}", s.name);
        let _ = writeln!(out, "  last runs: {}", last_values(view, s));
        let _ = writeln!(out, "  {}", stats_line(view, s));
        if s.change_points.is_empty() {
            let _ = writeln!(out, "  no change point");
        }
        for c in &s.change_points {
            let _ = writeln!(out, "  {}", change_line(c));
        }
    }
    out
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn markdown(view: &HistoryView) -> String {
    let mut out = format!("**{}**\n\n", md_cell(&header(view)));
    out.push_str("| series | median | spread | band (new run) | since | change points |\n");
    out.push_str("|---|---:|---:|---:|---|---|\n");
    for s in &view.series {
        let changes: Vec<String> = s
            .change_points
            .iter()
            .map(|c| {
                format!(
                    "{}: {} → {} ({}, p = {:.3})",
                    c.label,
                    ns(c.before),
                    ns(c.after),
                    pct(c.relative_change),
                    c.p_value
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            md_cell(&s.name),
            ns(s.median),
            ns(s.spread),
            s.band_upper.map_or("-".to_string(), ns),
            md_cell(label(view, s.since)),
            if changes.is_empty() {
                "none".to_string()
            } else {
                md_cell(&changes.join("; "))
            }
        );
    }
    out
}

fn csv_cell(c: &str) -> String {
    if c.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", c.replace('"', "\"\""))
    } else {
        c.to_string()
    }
}

/// A row per series and run: its value, whether a change point starts there and its p-value.
fn csv(view: &HistoryView) -> String {
    let mut out = String::from("series,kind,seq,label,value_ns,change_point,p_value,segment_median_ns\n");
    for s in &view.series {
        let bounds: Vec<usize> = std::iter::once(0)
            .chain(
                s.change_points
                    .iter()
                    .filter_map(|c| view.runs.iter().position(|r| r.seq == c.seq)),
            )
            .chain(std::iter::once(s.values.len()))
            .collect();
        for (i, v) in s.values.iter().enumerate() {
            let run = &view.runs[i];
            let change = s.change_points.iter().find(|c| c.seq == run.seq);
            let seg = bounds
                .windows(2)
                .find(|w| (w[0]..w[1]).contains(&i))
                .map_or(0..0, |w| w[0]..w[1]);
            let median = crate::analysis::measure::noise::median(&s.values[seg]);
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{}",
                csv_cell(&s.name),
                s.kind,
                run.seq,
                csv_cell(&run.label),
                v.round() as i64,
                change.is_some(),
                change.map_or(String::new(), |c| format!("{:.4}", c.p_value)),
                median.round() as i64
            );
        }
    }
    out
}

fn json(view: &HistoryView) -> String {
    let mut text = serde_json::to_string_pretty(view).unwrap_or_default();
    text.push('\n');
    text
}
