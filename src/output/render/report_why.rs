//! The report's "Why" section (docs/semantics.md#report): the operators whose self time moved
//! most, each beside the line `explain` gives it (its change split into calls, work per call and
//! efficiency, with the shapes, element types and kernels that changed). Pure: the report's
//! [`ReportWhy`] in, HTML out, every text escaped.

use super::fmt_duration;
use super::xml::html_escape;
use crate::analysis::report::{ReportWhy, WhyLine};
use crate::analysis::views::Measure;
use std::fmt::Write;

/// The section, or nothing where the report has no explanation (sides of runs) or no operator
/// row changed.
pub(crate) fn section(why: Option<&ReportWhy>) -> String {
    let Some(why) = why.filter(|w| !w.rows.is_empty()) else {
        return String::new();
    };
    let time = match why.measure {
        Measure::DeviceSelf => "device self time",
        _ => "host self time",
    };
    let step = if why.per_step { " per step" } else { "" };
    let mut out = String::from("<section id=\"why\" aria-labelledby=\"why-h\">\n");
    out.push_str("<h2 id=\"why-h\">Why the time changed</h2>\n");
    let shown = if why.changed > why.rows.len() {
        format!(
            "the {} of {} changed operators whose {time}{step} moved most",
            why.rows.len(),
            why.changed
        )
    } else {
        format!("the operators whose {time}{step} changed")
    };
    let _ = writeln!(
        out,
        "<p class=\"note\">As <code>tracediff explain</code> reads them: {}, each change split into \
         calls, work per call and efficiency (the three sum to it; docs/cost-model.md).</p>",
        html_escape(&shown)
    );
    let _ = writeln!(out, "<p id=\"why-summary\">{}</p>", html_escape(&why.summary));
    out.push_str("<div class=\"scroll\"><table id=\"why-table\" class=\"data\">\n");
    let _ = writeln!(
        out,
        "<thead><tr><th>operator</th><th>Δ{step}</th><th>sig</th><th>Δ by calls</th>\
         <th>Δ by work</th><th>Δ by effic.</th><th class=\"why\">why</th></tr></thead>"
    );
    out.push_str("<tbody>\n");
    for line in &why.rows {
        out.push_str(&row(line));
    }
    out.push_str("</tbody></table></div>\n</section>\n");
    out
}

/// One operator's row: its Δ and parts, and explain's words, with the changed inputs and
/// kernels its words do not name already.
fn row(w: &WhyLine) -> String {
    let p = &w.parts;
    let work = if w.has_work {
        fmt_duration(p.work_ns, true)
    } else {
        "-".to_string()
    };
    let sig = match w.significant {
        Some(true) => "*",
        _ => "",
    };
    let extra: Vec<&str> = w
        .causes
        .iter()
        .map(String::as_str)
        .filter(|c| !w.reading.contains(*c))
        .collect();
    let causes = if extra.is_empty() {
        String::new()
    } else {
        format!("<br><span class=\"note\">{}</span>", html_escape(&extra.join("; ")))
    };
    format!(
        "<tr><td class=\"name\" title=\"{name}\"><code>{name}</code></td><td>{delta}</td>\
         <td class=\"sig\">{sig}</td><td>{calls}</td><td>{work}</td><td>{efficiency}</td>\
         <td class=\"why\">{reading}{causes}</td></tr>\n",
        name = html_escape(&w.name),
        delta = fmt_duration(p.delta_ns, true),
        calls = fmt_duration(p.calls_ns, true),
        efficiency = fmt_duration(p.efficiency_ns, true),
        reading = html_escape(&w.reading),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cost::decompose::Parts;

    fn why(name: &str, reading: &str, causes: &[&str]) -> ReportWhy {
        ReportWhy {
            measure: Measure::HostSelf,
            rows: vec![WhyLine {
                name: name.to_string(),
                parts: Parts {
                    delta_ns: 3_000,
                    calls_ns: 1_000,
                    work_ns: 0,
                    efficiency_ns: 2_000,
                },
                has_work: false,
                significant: None,
                reading: reading.to_string(),
                causes: causes.iter().map(|c| c.to_string()).collect(),
            }],
            changed: 12,
            summary: "The step is <b>+3 µs</b>.".to_string(),
            per_step: false,
        }
    }

    #[test]
    fn names_and_words_are_escaped() {
        let html = section(Some(&why(
            "f<int>&g",
            "calls ×2.00 (kernels: k<\"a\">)",
            &["kernels: k<\"a\">"],
        )));
        assert!(
            html.contains(r#"title="f&lt;int&gt;&amp;g"><code>f&lt;int&gt;&amp;g</code>"#),
            "{html}"
        );
        assert!(
            html.contains("calls ×2.00 (kernels: k&lt;&quot;a&quot;&gt;)</td>"),
            "{html}"
        );
        // A cause the words name already is not said twice.
        assert!(!html.contains("<br>"), "{html}");
        assert!(html.contains("The step is &lt;b&gt;+3 µs&lt;/b&gt;."), "{html}");
        assert!(
            html.contains("the 1 of 12 changed operators whose host self time moved most"),
            "{html}"
        );
        // No work figure: no work part.
        assert!(html.contains("<td>+1.00 µs</td><td>-</td><td>+2.00 µs</td>"), "{html}");
    }

    #[test]
    fn no_rows_no_section() {
        let mut w = why("f", "", &[]);
        w.rows.clear();
        assert_eq!(section(Some(&w)), "");
        assert_eq!(section(None), "");
    }
}
