//! `history show` as text, Markdown, CSV and JSON: per series the last runs' values, the
//! median and spread since the last change point, the band, and each change point. The CSV and
//! JSON write times in µs under names that say so, as every command does (docs/fields.md).

use super::{Format, fmt_us, json_us, md_cell};
use crate::analysis::history::show::{HistoryView, Series, ShownChange};
use serde_json::{Value, json};
use std::fmt::Write;

/// Version of the JSON document's layout; bumped on any incompatible change. The layout before
/// it (times in ns under `values`, `median`, …, no `schema_version`) counts as 1.
pub(crate) const JSON_SCHEMA_VERSION: u32 = 2;

/// The runs whose values the table and Markdown list per series (JSON and CSV hold every run).
pub(crate) const LAST_RUNS: usize = 10;

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
    let mut out = String::from("series,kind,seq,label,value_us,change_point,p_value,segment_median_us\n");
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
                us(*v),
                change.is_some(),
                change.map_or(String::new(), |c| format!("{:.4}", c.p_value)),
                us(median)
            );
        }
    }
    out
}

/// A time of the view (ns, a float) as the CSV writes it: µs, exact to the ns.
fn us(ns: f64) -> String {
    fmt_us(ns.round() as i64)
}

/// A time of the view as a JSON number of µs, to the ns: the CSV's number.
fn json_time(ns: f64) -> Value {
    json_us(ns.round() as i64)
}

/// A series as JSON: its times in µs, and the run its statistics start from by seq and label
/// (the view's `since` is an index into the runs).
fn series_json(view: &HistoryView, s: &Series) -> Value {
    let since = view.runs.get(s.since);
    let changes: Vec<Value> = s
        .change_points
        .iter()
        .map(|c| {
            json!({
                "seq": c.seq,
                "label": c.label,
                "before_us": json_time(c.before),
                "after_us": json_time(c.after),
                "relative_change": c.relative_change,
                "p_value": c.p_value,
            })
        })
        .collect();
    json!({
        "name": s.name,
        "kind": s.kind,
        "values_us": s.values.iter().map(|v| json_time(*v)).collect::<Vec<_>>(),
        "median_us": json_time(s.median),
        "spread_us": json_time(s.spread),
        "band_upper_us": s.band_upper.map_or(Value::Null, json_time),
        "since_seq": since.map(|r| r.seq),
        "since_label": since.map(|r| r.label.as_str()),
        "change_points": changes,
    })
}

/// The view as JSON: `tool`, `version` and `schema_version` first, as the gate's document has
/// them, then the store, its runs and the series.
fn json_doc(view: &HistoryView) -> Value {
    json!({
        "tool": "tracediff",
        "version": env!("CARGO_PKG_VERSION"),
        "schema_version": JSON_SCHEMA_VERSION,
        "duration_unit": "us",
        "store": view.store,
        "runs": view.runs,
        "series": view.series.iter().map(|s| series_json(view, s)).collect::<Vec<_>>(),
    })
}

fn json(view: &HistoryView) -> String {
    super::pretty_json(&json_doc(view))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::history::show::series_of;
    use crate::analysis::history::store::RunEntry;

    /// 12 runs: 6 near 2 ms, then 6 near 3 ms (a change point at seq 7, `c07`).
    fn view() -> HistoryView {
        let runs: Vec<RunEntry> = (1..=12)
            .map(|seq| RunEntry {
                seq,
                label: format!("c{seq:02}"),
                time: "2026-05-01T12:00:00Z".into(),
                branch: None,
                meta: Default::default(),
                tool_version: "0".into(),
                ranks: vec![0],
                source: "runs".into(),
            })
            .collect();
        let values: Vec<f64> = (0..12)
            .map(|i| if i < 6 { 2e6 } else { 3e6 } + [0.0, 1500.5, -900.0][i % 3])
            .collect();
        let refs: Vec<&RunEntry> = runs.iter().collect();
        let series = vec![series_of("step time", "step", values, &refs)];
        HistoryView {
            store: "hist".into(),
            runs,
            series,
        }
    }

    fn no_ns_keys(v: &Value) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, inner)| {
                assert!(
                    !k.ends_with("_ns") && !["values", "median", "before", "since"].contains(&k.as_str()),
                    "{k}"
                );
                no_ns_keys(inner);
            }),
            Value::Array(a) => a.iter().for_each(no_ns_keys),
            _ => {}
        }
    }

    /// Issue 53: the JSON writes µs under names that say so, names the first run of the last
    /// segment by seq and label (not an index), and starts with the tool, version and schema.
    #[test]
    fn the_json_writes_us_and_names_runs_by_seq_and_label() {
        let view = view();
        let s = &view.series[0];
        assert_eq!(s.since, 6, "{s:?}");
        let doc: Value = serde_json::from_str(&render(&view, Format::Json, usize::MAX)).unwrap();
        let keys: Vec<&str> = doc.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys[..3], ["tool", "version", "schema_version"]);
        assert_eq!(doc["schema_version"], JSON_SCHEMA_VERSION);
        no_ns_keys(&doc);
        let js = &doc["series"][0];
        assert_eq!(js["values_us"][0], 2000);
        assert_eq!(js["values_us"][1], 2001.501, "rounded to the ns: {js}");
        assert_eq!(js["values_us"][8], 2999.1);
        assert_eq!(js["median_us"], 3000);
        assert_eq!(js["since_seq"], 7);
        assert_eq!(js["since_label"], "c07");
        assert!(js["spread_us"].as_f64().unwrap() > 0.0 && js["band_upper_us"].as_f64().unwrap() > 3000.0);
        let change = &js["change_points"][0];
        assert_eq!((&change["seq"], &change["label"]), (&json!(7), &json!("c07")));
        assert_eq!(
            (&change["before_us"], &change["after_us"]),
            (&json!(2000), &json!(3000))
        );
    }

    /// The CSV's `value_us` and `segment_median_us` are the JSON's `values_us` and the medians
    /// of the segments (a change point's `before_us`, the last segment's `median_us`).
    #[test]
    fn the_csv_holds_the_jsons_numbers_in_us() {
        let view = view();
        let doc: Value = serde_json::from_str(&render(&view, Format::Json, usize::MAX)).unwrap();
        let js = &doc["series"][0];
        let csv = render(&view, Format::Csv, usize::MAX);
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some("series,kind,seq,label,value_us,change_point,p_value,segment_median_us")
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 12);
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row[2], (i + 1).to_string());
            assert_eq!(row[4].parse::<f64>().ok(), js["values_us"][i].as_f64(), "{row:?}");
            let median = if i < 6 {
                &js["change_points"][0]["before_us"]
            } else {
                &js["median_us"]
            };
            assert_eq!(row[7].parse::<f64>().ok(), median.as_f64(), "{row:?}");
            assert_eq!(row[5], if i == 6 { "true" } else { "false" }, "{row:?}");
        }
    }

    /// The text still says which run the statistics start from by its label.
    #[test]
    fn the_text_keeps_its_units_and_labels() {
        let text = render(&view(), Format::Table, usize::MAX);
        assert!(text.contains("over 6 runs since c07"), "{text}");
        assert!(text.contains("change at run c07 (seq 7): 2.00 ms → 3.00 ms"), "{text}");
    }
}
