//! `history show` as text, Markdown, CSV and JSON: per series the last runs' values, the
//! median and spread since the last change point, the band, and each change point.

use super::{Format, md_cell};
use crate::analysis::history::show::{HistoryView, Series, ShownChange};
use std::fmt::Write;

/// The runs whose values the table and Markdown list per series (JSON and CSV hold every run).
pub const LAST_RUNS: usize = 10;

/// `view` in `format`; the text's lines fitted to `width` display columns (`usize::MAX`:
/// each line whole, as a pipe or a file gets it).
pub fn render(view: &HistoryView, format: Format, width: usize) -> String {
    match format {
        Format::Json => json(view),
        Format::Csv => csv(view),
        Format::Markdown => markdown(view),
        Format::Table => text(view, width),
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
        // A no-break space holds each run's label to its value when the line is wrapped.
        .map(|(i, v)| format!("{}\u{a0}{}", label(view, from + i), ns(*v)).replace(' ', "\u{a0}"))
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

fn text(view: &HistoryView, width: usize) -> String {
    let mut out = format!("{}\n", super::wrap_line(&header(view), width));
    for s in &view.series {
        let _ = writeln!(out, "\n{}", s.name);
        push_item(&mut out, &format!("last runs: {}", last_values(view, s)), width);
        push_item(&mut out, &stats_line(view, s), width);
        if s.change_points.is_empty() {
            push_item(&mut out, "no change point", width);
        }
        for c in &s.change_points {
            push_item(&mut out, &change_line(c), width);
        }
    }
    out
}

/// One line of a series, indented by two, wrapped to `width` with its continuation lines
/// indented by four, so a value ("c05 20.8 ms") never splits from its run's label.
fn push_item(out: &mut String, line: &str, width: usize) {
    let wrapped = super::wrap_line(line, width.saturating_sub(2).max(8));
    for l in wrapped.lines() {
        let _ = writeln!(out, "  {}", l.replace('\u{a0}', " "));
    }
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
