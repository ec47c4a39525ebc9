//! The gate report as a terminal table, Markdown (CI summaries, PR comments) or JSON.

use super::{Format, csv_field, elide_middle, fmt_duration, md_cell};
use crate::analysis::gate::{GateReport, RuleResult, SideSummary, Verdict};
use serde_json::json;
use std::fmt::Write;

/// Version of the JSON document's layout; bumped on any incompatible change.
pub const JSON_SCHEMA_VERSION: u32 = 1;

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

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail => "FAIL",
    }
}

fn cells(r: &RuleResult, name_width: usize) -> Vec<String> {
    let (b, c) =
        if r.unit == "names" || (r.rule == "op time" || r.rule == "count") && r.baseline == 0.0 && r.unit == "count" {
            (String::new(), String::new())
        } else {
            (value(r.baseline, r.unit), value(r.candidate, r.unit))
        };
    vec![
        r.rule.clone(),
        elide_middle(&r.subject, name_width),
        b,
        c,
        change(r),
        r.threshold.clone(),
        noise(r),
        verdict(r.verdict).to_string(),
    ]
}

fn side_line(s: &SideSummary) -> String {
    format!(
        "{}: {} ({} {}, steps {}): step time median {} (min {}, max {}, MAD {}) over {} samples",
        s.label,
        s.path,
        if s.ranks.len() == 1 { "rank" } else { "ranks" },
        crate::analysis::select::join(&s.ranks),
        crate::analysis::select::join(&s.iterations),
        fmt_duration(s.step_median_ns.round() as i64, false),
        fmt_duration(s.step_min_ns.round() as i64, false),
        fmt_duration(s.step_max_ns.round() as i64, false),
        fmt_duration(s.step_mad_ns.round() as i64, false),
        s.samples
    )
}

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

pub fn render(report: &GateReport, format: Format) -> String {
    match format {
        Format::Json => json_doc(report),
        Format::Markdown => markdown(report),
        Format::Csv => csv(report),
        Format::Table => table(report),
    }
}

/// A row per rule (and per failing op), with the values as measured: `unit` says whether they
/// are nanoseconds, shares of step time, counts or names; empty cells where a value does not apply.
fn csv(report: &GateReport) -> String {
    let mut out = String::from("rule,subject,unit,baseline,candidate,relative_change,threshold,noise,verdict,note\n");
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for r in &report.rules {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{}",
            csv_field(&r.rule),
            csv_field(&r.subject),
            r.unit,
            r.baseline,
            r.candidate,
            opt(r.relative_change),
            csv_field(&r.threshold),
            opt(r.noise),
            match r.verdict {
                Verdict::Pass => "pass",
                Verdict::Fail => "fail",
            },
            csv_field(&r.note)
        );
    }
    out
}

fn table(report: &GateReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", side_line(&report.baseline));
    let _ = writeln!(out, "{}", side_line(&report.candidate));
    let _ = writeln!(out, "noise: {}", report.noise_note);
    let mut t = comfy_table::Table::new();
    t.load_style(
        comfy_table::presets::NOTHING.header_separator(comfy_table::LineStyle::none().fill('─').junction('─')),
    )
    .force_no_tty();
    t.set_header(HEADER.to_vec());
    for r in &report.rules {
        t.add_row(cells(r, 40));
    }
    let _ = writeln!(out, "{}", t.trim_fmt());
    for r in report.rules.iter().filter(|r| !r.note.is_empty()) {
        let _ = writeln!(out, "  {} / {}: {}", r.rule, elide_middle(&r.subject, 60), r.note);
    }
    contributors_text(report, &mut out, false);
    let _ = writeln!(out, "gate: {}", verdict_line(report));
    out
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
        Verdict::Pass => format!("PASS ({} rules checked)", distinct_rules(report)),
        Verdict::Fail => {
            let list: Vec<String> = failed
                .into_iter()
                .map(|(rule, n)| {
                    // Per-op rules have a summary line plus one line per op.
                    if (rule == "op time" || rule == "count") && n > 1 {
                        format!("{rule} ({} ops)", n - 1)
                    } else {
                        rule
                    }
                })
                .collect();
            format!("FAIL: {}", list.join(", "))
        }
    }
}

fn distinct_rules(report: &GateReport) -> usize {
    let mut names: Vec<&str> = report.rules.iter().map(|r| r.rule.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

fn contributors_text(report: &GateReport, out: &mut String, md: bool) {
    if report.top_contributors.is_empty() {
        return;
    }
    let delta = report.candidate.step_median_ns - report.baseline.step_median_ns;
    if md {
        let _ = writeln!(
            out,
            "\n**Top contributors** (per-step time that grew; step time changed by {}):\n",
            fmt_duration(delta.round() as i64, true)
        );
        out.push_str("| op | baseline / step | candidate / step | change |\n|---|---:|---:|---:|\n");
    } else {
        let _ = writeln!(
            out,
            "top contributors (per-step time that grew; step time changed by {}):",
            fmt_duration(delta.round() as i64, true)
        );
    }
    for c in &report.top_contributors {
        if md {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                c.name.replace('`', "'").replace('|', "\\|"),
                fmt_duration(c.baseline_ns.round() as i64, false),
                fmt_duration(c.candidate_ns.round() as i64, false),
                fmt_duration(c.diff_ns.round() as i64, true)
            );
        } else {
            let _ = writeln!(
                out,
                "  {:>10}  {}",
                fmt_duration(c.diff_ns.round() as i64, true),
                elide_middle(&c.name, 80)
            );
        }
    }
}

fn markdown(report: &GateReport) -> String {
    let mut out = String::new();
    let icon = if report.verdict == Verdict::Pass { "✅" } else { "❌" };
    let _ = writeln!(out, "### {icon} tracediff gate: {}\n", verdict_line(report));
    let _ = writeln!(out, "- {}", md_cell(&side_line(&report.baseline)));
    let _ = writeln!(out, "- {}", md_cell(&side_line(&report.candidate)));
    let _ = writeln!(out, "- noise: {}\n", md_cell(&report.noise_note));
    let _ = writeln!(out, "| {} |", HEADER.join(" | "));
    out.push_str("|---|---|---:|---:|---:|---|---:|---|\n");
    for r in &report.rules {
        let mut c = cells(r, 200);
        c[1] = format!("`{}`", c[1].replace('`', "'").replace('|', "\\|"));
        c[7] = if r.verdict == Verdict::Fail {
            "**FAIL**".into()
        } else {
            "pass".into()
        };
        let _ = writeln!(out, "| {} |", c.join(" | "));
    }
    contributors_text(report, &mut out, true);
    out
}

fn json_doc(report: &GateReport) -> String {
    let doc = json!({
        "tool": "tracediff",
        "version": env!("CARGO_PKG_VERSION"),
        "schema_version": JSON_SCHEMA_VERSION,
        "report": report,
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}
