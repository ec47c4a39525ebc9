//! The gate's report as JUnit XML (`gate --junit FILE`), the test-report format CI systems
//! show (GitHub Actions' test reporters, GitLab's `artifacts:reports:junit`, Jenkins): one
//! `<testcase>` per rule checked (and per op of a per-op rule), a `<failure>` where it failed,
//! with the values, the threshold, the noise band and the note; the two sides and the noise
//! model as the suite's properties. A pass, a history gate and a pair gate alike.

use crate::analysis::gate::{GateReport, RuleResult, SideSummary, Verdict};
use crate::text::fmt_duration;
use std::fmt::Write;

/// `text` escaped for an XML attribute or element: the five markup characters as entities,
/// each character XML 1.0 forbids as its visible escape (`\x01`).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if !super::xml::allowed_in_xml(c) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// A rule's value in its unit, as the table writes it.
fn value(rule: &RuleResult, v: f64) -> String {
    match rule.unit {
        "ns" => fmt_duration(v.round() as i64, false),
        "share" => format!("{:.1}%", v * 100.0),
        _ => format!("{v}"),
    }
}

/// The failure's one-line message: the change against the threshold, and the band.
fn message(rule: &RuleResult) -> String {
    let change = rule.relative_change.map_or_else(
        || format!("{} → {}", value(rule, rule.baseline), value(rule, rule.candidate)),
        |r| format!("{:+.1}%", r * 100.0),
    );
    let band = rule
        .noise
        .map_or(String::new(), |n| format!(", noise ±{}", value(rule, n)));
    format!("{}: {change}, threshold {}{band}", rule.subject, rule.threshold_text)
}

fn details(rule: &RuleResult) -> String {
    let mut out = format!(
        "baseline {}, candidate {}",
        value(rule, rule.baseline),
        value(rule, rule.candidate)
    );
    if let Some(e) = rule.expected {
        let _ = write!(out, ", expected {}", value(rule, e));
    }
    if !rule.note.is_empty() {
        let _ = write!(out, "\n{}", rule.note);
    }
    out
}

fn side(s: &SideSummary) -> String {
    format!(
        "{} ({} sample{})",
        s.path,
        s.samples,
        if s.samples == 1 { "" } else { "s" }
    )
}

/// The report as a JUnit XML document.
pub(crate) fn junit(report: &GateReport) -> String {
    let tests = report.rules.len();
    let failures = report.rules.iter().filter(|r| r.verdict == Verdict::Fail).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"tracediff gate\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">"
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"tracediff gate\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">"
    );
    out.push_str("    <properties>\n");
    for (name, v) in [
        ("baseline", side(&report.baseline)),
        ("candidate", side(&report.candidate)),
        ("noise", report.noise_note.clone()),
        ("verdict", format!("{:?}", report.verdict).to_lowercase()),
    ] {
        let _ = writeln!(out, "      <property name=\"{name}\" value=\"{}\"/>", escape(&v));
    }
    out.push_str("    </properties>\n");
    for rule in &report.rules {
        let class = format!("tracediff.gate.{}", rule.rule.replace(' ', "_"));
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\"",
            escape(&class),
            escape(&rule.subject)
        );
        if rule.verdict == Verdict::Pass {
            out.push_str("/>\n");
            continue;
        }
        // The op's cause, where `explain` gave one, after the details.
        let cause = report.causes.iter().find(|c| c.names.contains(&rule.subject));
        let text = match cause {
            Some(c) if rule.subject == c.op => format!("{}\nwhy: {}", details(rule), c.line),
            Some(c) => format!("{}\nwhy (launched by {}): {}", details(rule), c.op, c.line),
            None => details(rule),
        };
        let _ = writeln!(
            out,
            ">\n      <failure message=\"{}\" type=\"regression\">{}</failure>\n    </testcase>",
            escape(&message(rule)),
            escape(&text)
        );
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_forbidden_characters_are_escaped() {
        assert_eq!(escape("a<b>&\"c'\u{1}"), "a&lt;b&gt;&amp;&quot;c&apos;\\x01");
    }
}
