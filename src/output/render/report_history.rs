//! The report page's history section (`report --history STORE`): each series of `history show`
//! over the store's runs as one inline SVG (labels on the axis, change points marked, the band
//! shaded) and a table of each series' last value, median, spread, band and change points.
//! Pure: a [`HistoryView`] in, the section's HTML out.

use super::history_plot::{WIDTH, draw};
use super::plot::ImageFormat;
use super::xml::html_escape as escape;
use crate::analysis::history::show::{HistoryView, Series};
use crate::error::Result;
use crate::text::fmt_duration;
use std::fmt::Write;

fn ns(v: f64) -> String {
    fmt_duration(v.round() as i64, false)
}

fn changes(s: &Series) -> String {
    let shown: Vec<String> = s
        .change_points
        .iter()
        .map(|c| {
            let pct = c
                .relative_change
                .map_or("-".to_string(), |r| format!("{:+.1}%", r * 100.0));
            format!(
                "at {} (seq {}): {} → {} ({pct}, p = {:.3})",
                c.label,
                c.seq,
                ns(c.before),
                ns(c.after),
                c.p_value
            )
        })
        .collect();
    if shown.is_empty() {
        "none".to_string()
    } else {
        shown.join("; ")
    }
}

fn table(view: &HistoryView) -> String {
    let mut out = String::from(
        "<div class=\"scroll\"><table class=\"data\" id=\"history-table\"><thead><tr><th>series</th><th>last run</th>\
         <th>median since the last change</th><th>spread (1.4826 × MAD)</th><th>band (a new run above it is slower)</th>\
         <th>change points</th></tr></thead><tbody>\n",
    );
    for s in &view.series {
        let last = s.values.last().map_or("-".to_string(), |v| ns(*v));
        let band = s.band_upper.map_or("- (fewer than 3 runs)".to_string(), ns);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{last}</td><td>{}</td><td>{}</td><td>{band}</td><td>{}</td></tr>",
            escape(&s.name),
            ns(s.median),
            ns(s.spread),
            escape(&changes(s))
        );
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// The section: a heading naming the store and its runs, the series' chart, their table.
pub(crate) fn section(view: &HistoryView) -> Result<String> {
    let svg = draw(view, ImageFormat::Svg)?;
    let svg = String::from_utf8_lossy(&svg);
    // The chart's own XML declaration has no place inside the page, and its size is the
    // page's to set (the viewBox keeps its proportions), as for the page's other charts.
    let svg = svg.find("<svg").map_or(&svg[..], |i| &svg[i..]);
    let svg = svg.replacen(&format!(r#"width="{WIDTH}" height="#), r#"role="img" data-height="#, 1);
    let span = match (view.runs.first(), view.runs.last()) {
        (Some(a), Some(b)) if a.seq != b.seq => format!("{}–{}", a.label, b.label),
        (Some(a), _) => a.label.clone(),
        _ => String::new(),
    };
    let mut out = String::from("<section id=\"history\" aria-labelledby=\"history-h\">\n");
    let _ = writeln!(
        out,
        "<h2 id=\"history-h\">History: {} ({} runs, {})</h2>",
        escape(&view.store),
        view.runs.len(),
        escape(&span)
    );
    let _ = writeln!(
        out,
        "<p>Each series per step over the store's runs (tracediff history show): change points dashed, \
         the band a new run is judged by (gate --history) shaded.</p>\n<figure class=\"chart\">{svg}</figure>"
    );
    out.push_str(&table(view));
    out.push_str("</section>\n");
    Ok(out)
}
