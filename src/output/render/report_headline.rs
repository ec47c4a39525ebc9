//! The report's headline paragraph, first on the page: [`Headline`] as one sentence a user can
//! trust at a glance (`test is 2.1% slower than control: 18.4 ms → 18.8 ms per step. Where it
//! went: GPU idle +440 µs (launch +271 µs, host compute +173 µs), GPU compute -102 µs.
//! Host-bound: the GPU idles 96% of test's step. …`). Pure: the headline in, HTML out.

use super::fmt_duration;
use super::xml::html_escape;
use crate::analysis::report::headline::{HOST_BOUND_IDLE, Headline};

/// The headline's text.
pub(crate) fn text(h: &Headline, labels: &[String; 2]) -> String {
    let [c, t] = labels;
    let [a, b] = h.step_ns;
    let pct = if a > 0 { 100.0 * (b - a) as f64 / a as f64 } else { 0.0 };
    let how = if pct.abs() < 0.05 {
        format!("{t} is as fast as {c}")
    } else {
        format!(
            "{t} is {:.1}% {} than {c}",
            pct.abs(),
            if pct > 0.0 { "slower" } else { "faster" }
        )
    };
    let mut out = format!(
        "{how}: {} → {} per step.",
        fmt_duration(a, false),
        fmt_duration(b, false)
    );
    let list = |v: &[(&str, i64)]| {
        v.iter()
            .map(|(n, d)| format!("{n} {}", fmt_duration(*d, true)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !h.parts.is_empty() {
        let parts: Vec<String> = h
            .parts
            .iter()
            .map(|&(n, d)| {
                let causes = if n == "GPU idle" && !h.idle_causes.is_empty() {
                    format!(" ({})", list(&h.idle_causes))
                } else {
                    String::new()
                };
                format!("{n} {}{causes}", fmt_duration(d, true))
            })
            .collect();
        out.push_str(&format!(" Where it went: {}.", parts.join(", ")));
    }
    if let Some(idle) = h.idle_share {
        let share = (100.0 * idle).round();
        if idle >= HOST_BOUND_IDLE {
            out.push_str(&format!(" Host-bound: the GPU idles {share:.0}% of {t}'s step."));
        } else {
            out.push_str(&format!(
                " Device-bound: the GPU is busy {:.0}% of {t}'s step.",
                100.0 - share
            ));
        }
    }
    let noise = if h.between_runs {
        "run-to-run noise (the spread between runs)"
    } else {
        "step-to-step noise"
    };
    out.push_str(&match &h.significant {
        Ok(Some(true)) => format!(" Significant: the step's host time changed beyond {noise}."),
        Ok(Some(false)) => format!(" Not significant: the step's host time changed within {noise}."),
        Ok(None) | Err(_) => " Significance not estimated (docs/significance.md).".to_string(),
    });
    out
}

/// The headline as the page's first paragraph (empty where there is none).
pub(crate) fn html(h: Option<&Headline>, labels: &[String; 2]) -> String {
    match h {
        Some(h) => format!(
            r#"<p id="headline" class="headline">{}</p>"#,
            html_escape(&text(h, labels))
        ),
        None => String::new(),
    }
}
