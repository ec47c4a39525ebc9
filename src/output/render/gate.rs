//! The gate report as a terminal table, Markdown (CI summaries, PR comments) or JSON.

use super::columns::{Columns, text_width};
use super::table::{Cell, Column, Formats, Line as Title, Table, csv, markdown};
use super::{Format, distinct_cuts, fit_columns_min, fmt_duration, wrap_line};
use crate::analysis::diff::plural;
use crate::analysis::gate::{GateReport, RuleResult, SideSummary, Verdict};
use serde_json::json;
use std::borrow::Cow;
use std::fmt::Write;

/// Version of the JSON document's layout; bumped on any incompatible change.
pub(crate) const JSON_SCHEMA_VERSION: u32 = 3;

fn value(v: f64, unit: &str) -> String {
    match unit {
        "ns" => fmt_duration(v.round() as i64, false),
        "share" => format!("{:.2}%", v * 100.0),
        _ => {
            if v.fract() == 0.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        }
    }
}

fn change(r: &RuleResult) -> String {
    match (r.unit, r.relative_change) {
        ("names", _) => String::new(),
        (_, Some(c)) => format!("{:+.1}%", c * 100.0),
        (_, None) if r.candidate > r.baseline && r.rule != "op time" && r.rule != "count" => "new".into(),
        _ => String::new(),
    }
}

fn noise(r: &RuleResult) -> String {
    match r.noise {
        Some(n) => format!("±{}", value(n, r.unit)),
        None => String::new(),
    }
}

/// The gate's columns, in the order every format keeps: for people the rule, its subject, the
/// values as read (none for a names rule or an op new on one side), the change, the threshold
/// as written, the noise band and the verdict; CSV (a row per rule and per failing op) the
/// values as measured, with `unit` saying whether they are microseconds (`us`), shares of step time,
/// counts or names, empty cells where a value does not apply, and each rule's note.
fn columns(report: &GateReport) -> Vec<Column> {
    let people = Formats::TERMINAL | Formats::MARKDOWN;
    let header = headers(report)[0];
    let csv = |key: &str| Column::new(key, key, key).left().only(Formats::CSV);
    let shown = |k: usize| Column::new(header[k], header[k], header[k]).only(people);
    vec![
        Column::new("rule", "rule", "rule").left(),
        Column::new("subject", "subject", "subject").left(),
        csv("unit"),
        Column::new("baseline", "baseline", "baseline"),
        Column::new("candidate", "candidate", "candidate"),
        shown(4),
        csv("relative_change"),
        shown(5).left(),
        csv("threshold"),
        csv("threshold_on"),
        shown(6),
        csv("noise"),
        // Markdown marks a change beyond its noise band as every command's Markdown does.
        Column::new("sig", "sig", "sig").only(Formats::MARKDOWN),
        Column::new("verdict", "verdict", "verdict").left(),
        csv("note"),
    ]
}

/// A rule's cells under [`columns`].
fn rule_cells<'a>(r: &'a RuleResult, cells: &mut Vec<Cell<'a>>) {
    let plain = |s: String| Cell::Plain(Cow::Owned(s));
    let (unit, scale) = unit_written(r.unit);
    let opt = |v: Option<f64>| plain(v.map(|v| v.to_string()).unwrap_or_default());
    let opt_scaled = |v: Option<f64>| opt(v.map(|v| v / scale));
    let blank =
        r.unit == "names" || (r.rule == "op time" || r.rule == "count") && r.baseline == 0.0 && r.unit == "count";
    let measured = |v: f64| {
        let shown = if blank { String::new() } else { value(v, r.unit) };
        Cell::Shown(shown, serde_json::Value::String((v / scale).to_string()))
    };
    cells.extend([
        Cell::Plain(Cow::Borrowed(&r.rule)),
        Cell::Name(Cow::Borrowed(&r.subject)),
        Cell::Plain(Cow::Borrowed(unit)),
        measured(r.baseline),
        measured(r.candidate),
        plain(change(r)),
        opt(r.relative_change),
        Cell::Plain(Cow::Borrowed(&r.threshold_text)),
        plain(r.threshold.to_string()),
        Cell::Plain(Cow::Borrowed(r.threshold_on)),
        plain(noise(r)),
        opt_scaled(r.noise),
        Cell::Mark(beyond_noise(r)),
        match r.verdict {
            Verdict::NotJudged => Cell::Shown("not judged".into(), serde_json::Value::from("not_judged")),
            v => Cell::Verdict(v == Verdict::Pass),
        },
        Cell::Plain(Cow::Borrowed(&r.note)),
    ]);
}

/// Whether a timing's change (from the baseline, or the expected value where the rule judged
/// beyond a run-wide shift) is larger than its noise band, either way: `None` without a band
/// (a names rule, a single sample, the line summing up a per-op rule).
fn beyond_noise(r: &RuleResult) -> Option<bool> {
    let noise = r.noise?;
    let from = r.expected.unwrap_or(r.baseline);
    Some((r.candidate - from).abs() > noise)
}

/// The report's rules as the table model.
fn model(report: &GateReport) -> Table<'_> {
    Table::new(columns(report), report.rules.len(), |i, cells| {
        rule_cells(&report.rules[i], cells)
    })
}

fn side_line(s: &SideSummary) -> String {
    if !s.runs.is_empty() {
        return runs_line(s);
    }
    format!(
        "{}: {} ({} {}, {} {}): step time median {} (min {}, max {}, MAD {}) over {} {}",
        s.label,
        s.path,
        if s.ranks.len() == 1 { "rank" } else { "ranks" },
        crate::analysis::select::ranges(&s.ranks),
        if s.iterations.len() == 1 { "step" } else { "steps" },
        crate::analysis::select::ranges(&s.iterations),
        fmt_duration(s.step_median_ns.round() as i64, false),
        fmt_duration(s.step_min_ns.round() as i64, false),
        fmt_duration(s.step_max_ns.round() as i64, false),
        fmt_duration(s.step_mad_ns.round() as i64, false),
        s.samples,
        plural(s.samples, "sample", "samples")
    )
}

/// A side of runs: each run one sample (its mean step), the step time's mean over runs.
fn runs_line(s: &SideSummary) -> String {
    let (lo, hi) = (
        s.runs.iter().min().copied().unwrap_or(0),
        s.runs.iter().max().copied().unwrap_or(0),
    );
    let steps = if lo == hi {
        format!("{lo} {}", plural(lo, "step", "steps"))
    } else {
        format!("{lo}–{hi} steps")
    };
    format!(
        "{}: {} ({} runs × {steps}, {} {}): mean step time per run: median {} (min {}, max {}), one sample per run",
        s.label,
        s.path,
        s.runs.len(),
        if s.ranks.len() == 1 { "rank" } else { "ranks" },
        crate::analysis::select::ranges(&s.ranks),
        fmt_duration(s.step_median_ns.round() as i64, false),
        fmt_duration(s.step_min_ns.round() as i64, false),
        fmt_duration(s.step_max_ns.round() as i64, false),
    )
}

/// The fewest columns a subject is cut to before a value column is left out: enough for a
/// kernel's family (`void cudnn::bn_fw…`, with its distinguishing part where names collide).
const SUBJECT_WIDTH: usize = 16;

const HEADER: [&str; 8] = [
    "rule",
    "subject",
    "baseline",
    "candidate",
    "change",
    "threshold",
    "noise (k×MAD)",
    "verdict",
];

/// The table's header for `report`: the noise band is k × the pooled scaled MAD of the steps,
/// or, where the sides are runs, the half-width of Welch's t interval between them; each with
/// its title on one line, then on two (`NARROW_HEADER`).
fn headers(report: &GateReport) -> [[&'static str; 8]; 2] {
    if report.baseline.runs.is_empty() {
        return [HEADER, NARROW_HEADER];
    }
    let welch = |mut h: [&'static str; 8], title| {
        h[6] = title;
        h
    };
    // Against a history: the prediction band (docs/history.md#the-band).
    if report.baseline.label == "history" {
        return [welch(HEADER, "band"), welch(NARROW_HEADER, "band")];
    }
    [welch(HEADER, "noise (Welch)"), welch(NARROW_HEADER, "noise\n(Welch)")]
}

/// The report in `format`; `full_names` keeps op names whole in the table.
pub fn render(report: &GateReport, format: Format, full_names: bool) -> String {
    render_fitted(report, format, if full_names { usize::MAX } else { 100 })
}

/// The report in `format`, a table fitted to `width` display columns (`usize::MAX`: names
/// whole, nothing wrapped).
pub(crate) fn render_fitted(report: &GateReport, format: Format, width: usize) -> String {
    match format {
        Format::Json => json_doc(report),
        Format::Markdown => markdown(report),
        Format::Csv => csv(report),
        Format::Table => table(report, width),
    }
}

/// A row per rule (and per failing op), with the values as measured ([`columns`]).
fn csv(report: &GateReport) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = csv::write(&model(report), &mut out);
    String::from_utf8(out).unwrap_or_default()
}

fn table(report: &GateReport, width: usize) -> String {
    let mut out = String::new();
    for line in [
        side_line(&report.baseline),
        side_line(&report.candidate),
        format!("noise: {}", report.noise_note),
    ] {
        let _ = writeln!(out, "{}", wrap_line(&line, width));
    }
    let rows = terminal_rows(report);
    let longest = report
        .rules
        .iter()
        .map(|r| text_width(&r.subject))
        .max()
        .unwrap_or(0)
        .max(text_width(HEADER[1]));
    let Layout {
        mut shown,
        name_width,
        gap,
        header,
        mut value_widths,
    } = layout(&rows, longest, width, headers(report));
    shown[1] = true;
    value_widths[1] = name_width;
    let subjects: Vec<&str> = report.rules.iter().map(|r| r.subject.as_str()).collect();
    let subjects = start_cuts(&subjects, name_width);
    let right = [false, false, true, true, true, false, true, false];
    let pick = |row: Vec<String>| -> Vec<String> {
        row.into_iter()
            .zip(&shown)
            .filter(|(_, s)| **s)
            .map(|(c, _)| c)
            .collect()
    };
    let mut cols = Columns::new(right.iter().zip(&shown).filter(|(_, s)| **s).map(|(r, _)| *r).collect()).with_gap(gap);
    cols.widths = value_widths
        .iter()
        .zip(&shown)
        .filter(|(_, s)| **s)
        .map(|(w, _)| *w)
        .collect();
    let mut table = Vec::new();
    let header = pick(header.iter().map(|h| h.to_string()).collect());
    // Writing to a Vec cannot fail.
    let _ = cols.row(&header.iter().map(String::as_str).collect::<Vec<_>>(), &mut table);
    let _ = cols.rule(&mut table);
    for (mut row, subject) in rows.into_iter().zip(subjects) {
        row[1] = subject;
        let row = pick(row);
        let _ = cols.row(&row.iter().map(String::as_str).collect::<Vec<_>>(), &mut table);
    }
    out.push_str(&String::from_utf8(table).unwrap_or_default());
    let noted: Vec<&RuleResult> = report.rules.iter().filter(|r| !r.note.is_empty()).collect();
    let subjects: Vec<&str> = noted.iter().map(|r| r.subject.as_str()).collect();
    let note_width = if width == usize::MAX {
        width
    } else {
        width.saturating_sub(24).max(24)
    };
    for (r, subject) in noted.iter().zip(distinct_cuts(&subjects, note_width)) {
        let _ = writeln!(
            out,
            "{}",
            wrap_line(&format!("  {} / {subject}: {}", r.rule, r.note), width)
        );
    }
    contributors_text(report, &mut out, false, width);
    causes_text(report, &mut out, false, width);
    let _ = writeln!(out, "{}", wrap_line(&format!("gate: {}", verdict_line(report)), width));
    out
}

/// Why the failing ops changed (`explain`'s line for each): a line each for a terminal,
/// wrapped at `width` (a CI log's lines stay bounded), a list in Markdown.
fn causes_text(report: &GateReport, out: &mut String, md: bool, width: usize) {
    if report.causes.is_empty() {
        return;
    }
    if md {
        let _ = writeln!(out, "\n**Why** (`tracediff explain` on the same pair):\n");
        for c in &report.causes {
            let kernels = launched(c, usize::MAX);
            let kernels = if kernels.is_empty() {
                kernels
            } else {
                format!(" (launches {})", kernels.replace('`', "'"))
            };
            let _ = writeln!(out, "- `{}`{kernels}", c.line.replace('`', "'"));
        }
        return;
    }
    let _ = writeln!(out, "why (tracediff explain on the same pair):");
    for c in &report.causes {
        // A kernel's name, which can run to a thousand characters, is cut: the op's line
        // says why.
        let kernels = launched(c, 48);
        let kernels = if kernels.is_empty() {
            kernels
        } else {
            format!("  [launches {kernels}]")
        };
        let _ = writeln!(out, "{}", wrap_line(&format!("  {}{kernels}", c.line), width));
    }
}

/// The kernels of a cause other than its operator, each cut to `max` characters, the first
/// three and how many more.
fn launched(c: &crate::analysis::gate::GateCause, max: usize) -> String {
    let kernels: Vec<&String> = c.names.iter().filter(|n| **n != c.op).collect();
    let mut text: Vec<String> = kernels.iter().take(3).map(|k| crate::text::elide(k, max)).collect();
    if kernels.len() > 3 {
        text.push(format!("{} more", kernels.len() - 3));
    }
    text.join("; ")
}

/// The rules' cells as the terminal reads them ([`columns`]), the subject left empty: it is
/// cut once its width is known.
fn terminal_rows(report: &GateReport) -> Vec<Vec<String>> {
    let model = model(report);
    let shown = model.shown(Format::Table);
    let mut cells = Vec::new();
    (0..model.len())
        .map(|i| {
            model.row(i, &mut cells);
            let mut row: Vec<String> = shown
                .iter()
                .map(|&k| cells[k].text(&model.columns[k], Format::Table).into_owned())
                .collect();
            row[1] = String::new();
            row
        })
        .collect()
}

/// How the gate's table fits its width: the columns shown, the subject's width, the blanks
/// between columns, the header and each column's width.
struct Layout {
    shown: Vec<bool>,
    name_width: usize,
    gap: usize,
    header: [&'static str; 8],
    value_widths: Vec<usize>,
}

/// The header with the noise band's title on two lines (7 columns, not 13).
const NARROW_HEADER: [&str; 8] = [
    "rule",
    "subject",
    "baseline",
    "candidate",
    "change",
    "threshold",
    "noise\n(k×MAD)",
    "verdict",
];

/// The first layout of the gate's table that shows every column: as it is, with the columns
/// closed up (two blanks apart, not three), then with the noise band's title on two lines.
/// The subject is the column least needed whole (the notes below the table name it in full):
/// it is cut down to [`SUBJECT_WIDTH`] columns before a column goes. When none shows every
/// column, the first drops the threshold first (it is in the config), then the noise band, then
/// baseline and candidate (docs/commands.md#terminal-width).
fn layout(rows: &[Vec<String>], longest: usize, width: usize, [wide, narrow]: [[&'static str; 8]; 2]) -> Layout {
    let try_one = |gap: usize, header: [&'static str; 8]| {
        let mut value_widths: Vec<usize> = header.iter().map(|h| text_width(h)).collect();
        for row in rows {
            for (w, c) in value_widths.iter_mut().zip(row) {
                *w = (*w).max(text_width(c));
            }
        }
        value_widths[1] = 0;
        let (shown, name_width) = if width == usize::MAX {
            (vec![true; header.len()], longest)
        } else {
            let drop: &[&[usize]] = &[&[5], &[6], &[2, 3]];
            // The subject's own entry (width 0) counts its padding and gap: given back here.
            fit_columns_min(longest, &value_widths, gap, drop, width + 2 + gap, SUBJECT_WIDTH)
        };
        Layout {
            shown,
            name_width,
            gap,
            header,
            value_widths,
        }
    };
    let first = try_one(1, wide);
    if first.shown.iter().all(|s| *s) {
        return first;
    }
    [(0, wide), (0, narrow)]
        .into_iter()
        .map(|(gap, header)| try_one(gap, header))
        .find(|l| l.shown.iter().all(|s| *s))
        .unwrap_or(first)
}

/// Subjects cut to `width` keeping their start ([`super::start_cut`]: a kernel's own name,
/// `1 of 4 ops regress…`; the notes under the table name them whole), or, where two distinct
/// subjects would then read alike, as [`distinct_cuts`] cuts them.
fn start_cuts(subjects: &[&str], width: usize) -> Vec<String> {
    let cuts: Vec<String> = subjects.iter().map(|s| super::start_cut(s, width)).collect();
    let mut seen: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    let alike = cuts
        .iter()
        .zip(subjects)
        .any(|(c, s)| *seen.entry(c.as_str()).or_insert(s) != *s);
    if alike { distinct_cuts(subjects, width) } else { cuts }
}

fn verdict_line(report: &GateReport) -> String {
    // Each failing rule once, with the number of ops or names behind it.
    let mut failed: Vec<(String, usize)> = Vec::new();
    for r in report.rules.iter().filter(|r| r.verdict == Verdict::Fail) {
        match failed.iter_mut().find(|(name, _)| *name == r.rule) {
            Some((_, n)) => *n += 1,
            None => failed.push((r.rule.clone(), 1)),
        }
    }
    match report.verdict {
        Verdict::Pass | Verdict::NotJudged => {
            let n = distinct_rules(report);
            let idle = not_judged(report);
            let idle = if idle.is_empty() {
                String::new()
            } else {
                format!("; not judged, nothing to judge: {}", idle.join(", "))
            };
            format!("PASS ({n} {} checked{idle})", plural(n, "rule", "rules"))
        }
        Verdict::Fail => {
            let list: Vec<String> = failed
                .into_iter()
                .map(|(rule, n)| {
                    // Per-op rules have a summary line plus one line per op.
                    if (rule == "op time" || rule == "count") && n > 1 {
                        format!("{rule} ({} {})", n - 1, plural(n - 1, "op", "ops"))
                    } else {
                        rule
                    }
                })
                .collect();
            format!("FAIL: {}", list.join(", "))
        }
    }
}

/// The rules that had nothing to judge, each once, in report order.
fn not_judged(report: &GateReport) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for r in report.rules.iter().filter(|r| r.verdict == Verdict::NotJudged) {
        if !names.contains(&r.rule.as_str()) {
            names.push(&r.rule);
        }
    }
    names
}

/// The rules judged (not those with nothing to judge), each once.
fn distinct_rules(report: &GateReport) -> usize {
    let mut names: Vec<&str> = report
        .rules
        .iter()
        .filter(|r| r.verdict != Verdict::NotJudged)
        .map(|r| r.rule.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

/// The ops whose per-step time grew most: a line each for a terminal (the change, then the
/// name cut to `width`), a table in Markdown.
fn contributors_text(report: &GateReport, out: &mut String, md: bool, width: usize) {
    if report.top_contributors.is_empty() {
        return;
    }
    let delta = fmt_duration(
        (report.candidate.step_median_ns - report.baseline.step_median_ns).round() as i64,
        true,
    );
    if md {
        let _ = writeln!(
            out,
            "\n**Top contributors** (per-step time that grew; step time changed by {delta}):\n"
        );
        let columns = vec![
            Column::new("op", "op", "op").left(),
            Column::new("baseline_us", "baseline", "baseline / step"),
            Column::new("candidate_us", "candidate", "candidate / step"),
            Column::new("diff_us", "diff", "change").signed(),
        ];
        let ops = &report.top_contributors;
        let table = Table::new(columns, ops.len(), |i, cells| {
            let c = &ops[i];
            cells.extend([
                Cell::Name(Cow::Borrowed(&c.name)),
                Cell::Duration(c.baseline_ns.round() as i64),
                Cell::Duration(c.candidate_ns.round() as i64),
                Cell::Duration(c.diff_ns.round() as i64),
            ]);
        });
        let mut rows = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = markdown::write_rows(&table, &mut rows);
        out.push_str(&String::from_utf8(rows).unwrap_or_default());
        return;
    }
    let line = format!("top contributors (per-step time that grew; step time changed by {delta}):");
    let _ = writeln!(out, "{}", wrap_line(&line, width));
    let names: Vec<&str> = report.top_contributors.iter().map(|c| c.name.as_str()).collect();
    // Each line: two spaces, the change right-aligned in 10, two spaces, the name.
    let cut = distinct_cuts(&names, width.saturating_sub(14).max(8));
    for (c, cut) in report.top_contributors.iter().zip(cut) {
        let _ = writeln!(out, "  {:>10}  {}", fmt_duration(c.diff_ns.round() as i64, true), cut);
    }
}

fn markdown(report: &GateReport) -> String {
    let mut out = String::new();
    let icon = if report.verdict == Verdict::Pass { "✅" } else { "❌" };
    let _ = writeln!(out, "### {icon} tracediff gate: {}\n", verdict_line(report));
    let mut table = model(report);
    table.title = vec![
        Title::new(side_line(&report.baseline)),
        Title::new(side_line(&report.candidate)),
        Title::new(format!("noise: {}", report.noise_note)),
    ];
    if report.rules.iter().any(|r| r.noise.is_some()) {
        let mut note = Title::new(
            "sig *: the change is larger than its noise band, either way (a pass below its threshold can be)",
        );
        note.formats = Formats::MARKDOWN;
        table.notes.push(note);
    }
    let mut rows = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = markdown::write(&table, &mut rows);
    out.push_str(&String::from_utf8(rows).unwrap_or_default());
    contributors_text(report, &mut out, true, usize::MAX);
    causes_text(report, &mut out, true, usize::MAX);
    out
}

/// Times in the JSON and CSV are µs, as every command writes them (docs/fields.md#gate): the
/// unit a rule's values are in, and its scale from the report's nanoseconds.
fn unit_written(unit: &'static str) -> (&'static str, f64) {
    if unit == "ns" { ("us", 1000.0) } else { (unit, 1.0) }
}

/// The report as JSON, its times in µs under names that say so: the sides' `step_median_us`, …,
/// the contributors' `baseline_per_step_us`, …, and a timing rule's values with `unit` `us`.
fn report_json(report: &GateReport) -> serde_json::Value {
    let mut v = serde_json::to_value(report).unwrap_or_default();
    let us = |v: &serde_json::Value| v.as_f64().map_or(serde_json::Value::Null, |ns| json!(ns / 1000.0));
    let rename = |m: &mut serde_json::Map<String, serde_json::Value>, from: &str, to: &str| {
        if let Some(ns) = m.remove(from) {
            m.insert(to.to_string(), us(&ns));
        }
    };
    for side in ["baseline", "candidate"] {
        if let Some(m) = v[side].as_object_mut() {
            for what in ["median", "min", "max", "mad"] {
                rename(m, &format!("step_{what}_ns"), &format!("step_{what}_us"));
            }
        }
    }
    for c in v["top_contributors"].as_array_mut().into_iter().flatten() {
        if let Some(m) = c.as_object_mut() {
            for what in ["baseline", "candidate", "diff"] {
                rename(m, &format!("{what}_ns"), &format!("{what}_per_step_us"));
            }
        }
    }
    for r in v["rules"].as_array_mut().into_iter().flatten() {
        if r["unit"] != "ns" {
            continue;
        }
        r["unit"] = json!("us");
        for key in ["baseline", "candidate", "expected", "noise"] {
            let written = us(&r[key]);
            r[key] = written;
        }
    }
    v
}

fn json_doc(report: &GateReport) -> String {
    let doc = json!({
        "tool": "tracediff",
        "version": env!("CARGO_PKG_VERSION"),
        "schema_version": JSON_SCHEMA_VERSION,
        "report": report_json(report),
    });
    super::pretty_json(&doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(ranks: Vec<i64>, iterations: Vec<i64>) -> SideSummary {
        SideSummary {
            label: "baseline".into(),
            path: "base".into(),
            samples: ranks.len() * iterations.len(),
            ranks,
            iterations,
            step_median_ns: 2e6,
            step_min_ns: 1e6,
            step_max_ns: 3e6,
            step_mad_ns: 0.0,
            runs: Vec::new(),
        }
    }

    #[test]
    fn a_side_names_its_ranks_and_steps_as_runs_in_the_right_number() {
        let one = side_line(&side(vec![0], vec![7]));
        assert!(one.starts_with("baseline: base (rank 0, step 7): "), "{one}");
        let many = side_line(&side(vec![0, 1, 2, 3], (1..=8000).collect()));
        assert!(many.starts_with("baseline: base (ranks 0–3, steps 1–8000): "), "{many}");
    }

    /// On a real ViT pair one operator (`aten::copy_`) launched three of the failing kernels, and
    /// its line was printed three times: an operator's kernels gather on its one line.
    #[test]
    fn an_operator_lists_its_failing_kernels_on_one_line() {
        let cause = crate::analysis::gate::GateCause {
            names: ["k1", "k2", "aten::copy_", "k3", "k4"].map(String::from).to_vec(),
            op: "aten::copy_".into(),
            line: "aten::copy_  +1.44 ms/step".into(),
        };
        assert_eq!(launched(&cause, 48), "k1; k2; k3; 1 more");
        let alone = crate::analysis::gate::GateCause {
            names: vec!["aten::mm".into()],
            op: "aten::mm".into(),
            line: String::new(),
        };
        assert_eq!(launched(&alone, 48), "");
    }
}
