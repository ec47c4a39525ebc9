//! The HTML report (docs/semantics.md#report): one self-contained file. The page is `assets/report.html` with
//! its style and script (`assets/report.css`, `assets/report.js`) inlined, the data as one JSON
//! document in a `<script type="application/json">`, and the two comparison charts as inline SVG
//! from the plot renderer. Pure: a [`Report`] in, the page's text out.

use super::Format;
use super::aligned::{class_text, shape_text};
use super::compare::side_json;
use super::flamegraph::{self, FlameOptions, FlameView, FlameWidths};
use super::ops_diff::OpsDiffView;
use super::plot::{DEFAULT_EXCLUDE, ImageFormat, chart_of};
use super::plot_bars::draw;
use super::views::render_overview;
use super::waterfall::{Waterfall, draw_waterfall};
use super::xml::html_escape;
use crate::analysis::classes::KernelClass;
use crate::analysis::diff::{Category, Comparison, NameFilter, Row, SortKey};
use crate::analysis::flamegraph::FlameTime;
use crate::analysis::modules::align::{AlignedNode, Times};
use crate::analysis::report::{NodeTables, Report};
use crate::analysis::views::sequences::Aligned;
use crate::analysis::views::{ViewRow, ViewTable};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::fmt::Write;

const PAGE: &str = include_str!("../../../assets/report.html");
const STYLE: &str = include_str!("../../../assets/report.css");
const SCRIPT: &str = include_str!("../../../assets/report.js");

/// Rows per ops-diff category in the page (the rest are counted).
pub(crate) const OPS_DIFF_ROWS: usize = 500;

/// Positions of the aligned kernel sequences in the page (the rest are counted; the command
/// line's `kernels --aligned --format csv` has them all).
pub(crate) const ALIGNED_ROWS: usize = 2000;

/// Charts' size in the page (pixels of the SVG's own coordinates; the page scales them).
const CHART_SIZE: (u32, u32) = (1200, 620);

/// The page.
pub(crate) fn render(report: &Report) -> String {
    render_with_history(report, "")
}

/// The page with `history`, a section of its own after the others (`report --history`;
/// [`super::report_history::section`]), where not empty.
pub(crate) fn render_with_history(report: &Report, history: &str) -> String {
    let data = script_json(&data(report));
    let [c, t] = &report.request.labels;
    let title = html_escape(&format!("tracediff report: {c} vs {t}"));
    let breakdown = breakdown_chart(report);
    let charts = charts(&report.comparison, report.device_rows.as_ref());
    let flame = flame_figure(report);
    let headline = super::report_headline::html(
        crate::analysis::report::headline::headline(report).as_ref(),
        &report.request.labels,
    );
    fill(
        PAGE,
        &[
            ("TITLE", &title),
            ("HEADLINE", &headline),
            ("STYLE", STYLE),
            ("BREAKDOWN", &breakdown),
            ("WHY", &super::report_why::section(report.why.as_ref())),
            ("CHARTS", &charts),
            ("FLAMETIME", flame_time(report)),
            ("FLAMEGRAPH", &flame),
            ("HISTORY", history),
            ("DATA", &data),
            ("SCRIPT_HASH", &script_hash(SCRIPT)),
            ("SCRIPT", SCRIPT),
        ],
    )
}

/// Fills `{{NAME}}` placeholders in ONE pass over the template: text put in is never searched
/// again, so an op named `{{SCRIPT}}` stays a name. A placeholder with no value is kept as is.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let value = after
            .find("}}")
            .and_then(|close| Some((values.iter().find(|(k, _)| *k == &after[..close])?.1, close)));
        match value {
            Some((v, close)) => {
                out.push_str(v);
                rest = &after[close + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The CSP source that allows the page's one script and nothing else: the SHA-256 of the
/// script element's text exactly as the template places it (a line break either side).
fn script_hash(script: &str) -> String {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("\n{script}\n").as_bytes());
    base64::engine::general_purpose::STANDARD.encode(digest)
}

/// JSON text to place inside a `<script>` element: `</script>` or `<!--` in a name must not end
/// it. JSON allows `<` only inside strings, where `\u003c` means the same; U+2028 and U+2029
/// are escaped too (a line break to older JavaScript parsers).
fn script_json(text: &str) -> String {
    text.replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// HTA's two bar charts (counts, duration), top 10 by the size of their diff, as inline SVG
/// figures. By size, not HTA's largest increase first: on a run that got faster the increases
/// are the small part of the story (fp32 → bf16: the kernels that went, -50 ms each, were absent).
/// As `plot` draws them: without the step and runtime-API rows ([`DEFAULT_EXCLUDE`]), host and
/// device rows (`device_rows`) in panels of their own.
fn charts(comparison: &Comparison, device_rows: Option<&std::collections::BTreeSet<String>>) -> String {
    let mut out = String::new();
    let mut comparison = comparison.clone();
    if let Ok(filter) = NameFilter::new(&[], &DEFAULT_EXCLUDE.map(String::from)) {
        comparison
            .rows
            .retain(|r| filter.admits_row(&r.name, &comparison.group_by));
    }
    let comparison = &comparison;
    let charts = [
        (false, "chart-counts", SortKey::AbsDiffCounts),
        (true, "chart-duration", SortKey::AbsDiffDuration),
    ];
    for (duration, id, sort) in charts {
        let svg = chart_of(comparison, duration, Some(sort), 10, CHART_SIZE, device_rows)
            .and_then(|chart| draw(&chart, ImageFormat::Svg));
        match svg {
            Ok(svg) => out.push_str(&figure(id, &svg)),
            Err(e) => out.push_str(&format!(
                r#"<p class="note" id="{id}">No chart: {}</p>"#,
                html_escape(&e.to_string())
            )),
        }
        out.push('\n');
    }
    out
}

fn flame_time(report: &Report) -> &'static str {
    match report.flame.time {
        FlameTime::Host => "host self time",
        FlameTime::Device => "device time",
    }
}

/// The differential flame graph as two still images, the test run's widths and the control
/// run's (what shrank or vanished has width only there), each a `data:` URL, which the page's
/// content policy allows: inferno's script and styles inlined into the page would act on its
/// other charts, so the page shows the pictures and says where the interactive one comes from.
fn flame_figure(report: &Report) -> String {
    let [c, t] = &report.request.labels;
    let time = match report.flame.time {
        FlameTime::Host => "host self time (the operators' own time, and each node's outside them)",
        FlameTime::Device => "device time (the kernels, under the operators that launched them)",
    };
    let mut out = String::new();
    for (widths, id, whose) in [
        (FlameWidths::Test, "flame-figure", t),
        (FlameWidths::Control, "flame-figure-control", c),
    ] {
        let options = FlameOptions {
            labels: report.request.labels.clone(),
            view: FlameView::Differential(widths),
            still: true,
        };
        match flamegraph::svg(&report.flame, &options) {
            Ok(svg) => out.push_str(&format!(
                concat!(
                    r#"<figure class="chart" id="{id}"><img alt="Differential flame graph of {alt}, {whose}'s widths" "#,
                    r#"src="{data}"><figcaption class="note">Width: {whose}'s {time}. Colour: each frame's own time, "#,
                    r#"from {c} to {t}: red more, blue less, white the same (the legend under the picture gives "#,
                    r#"the scale).</figcaption></figure>"#,
                ),
                alt = html_escape(&format!("{t} vs {c}")),
                id = id,
                time = time,
                whose = html_escape(whose),
                c = html_escape(c),
                t = html_escape(t),
                data = svg_data_url(&svg),
            )),
            Err(e) => out.push_str(&format!(
                r#"<p class="note" id="{id}">No flame graph: {}</p>"#,
                html_escape(&e.to_string())
            )),
        }
        out.push('\n');
    }
    out.push_str(concat!(
        r#"<p class="note">Still pictures: <code>tracediff flamegraph CONTROL TEST -o diff.svg</code> "#,
        r#"(<code>--widths control</code>, <code>--time host|device</code>) writes the interactive one: "#,
        r#"hover for both sides' times, click to zoom, search.</p>"#
    ));
    out
}

/// An SVG as a `data:` URL for an `<img src="…">` attribute, percent-encoding only what a URL
/// or the attribute would take otherwise (`%`, `#`, `&`, `"`, line breaks): a third smaller
/// than base64 on inferno's mostly-ASCII text. Where the SVG holds no `'`, its attributes'
/// quotes become `'` (XML allows either; inferno escapes quotes in text), which need no escape.
fn svg_data_url(svg: &[u8]) -> String {
    let text = String::from_utf8_lossy(svg);
    let swap_quotes = !text.contains('\'');
    let mut out = String::with_capacity(text.len() + 32);
    out.push_str("data:image/svg+xml,");
    for ch in text.chars() {
        match ch {
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '&' => out.push_str("%26"),
            '"' if swap_quotes => out.push('\''),
            '"' => out.push_str("%22"),
            '\n' => out.push_str("%0A"),
            '\r' => out.push_str("%0D"),
            '\t' => out.push_str("%09"),
            c => out.push(c),
        }
    }
    out
}

/// The waterfall of the step-time breakdown (docs/breakdown.md) as an inline SVG figure, or
/// nothing when a side has no breakdown.
fn breakdown_chart(report: &Report) -> String {
    Waterfall::of(&report.overview, CHART_SIZE)
        .and_then(|w| draw_waterfall(&w, ImageFormat::Svg))
        .map(|svg| figure("chart-breakdown", &svg))
        .unwrap_or_default()
}

/// A chart drawn at [`CHART_SIZE`] as an inline SVG figure that scales with the page: the fixed
/// size is dropped and the SVG's own viewBox kept.
fn figure(id: &str, svg: &[u8]) -> String {
    let svg = String::from_utf8_lossy(svg).replacen(
        &format!(r#"width="{}" height="{}""#, CHART_SIZE.0, CHART_SIZE.1),
        r#"role="img""#,
        1,
    );
    format!(r#"<figure class="chart" id="{id}">{svg}</figure>"#)
}

/// The page's data: what was compared, the overview, the module tree, the tables, ops-diff.
fn data(report: &Report) -> String {
    let c = &report.comparison;
    let overview: Value = serde_json::from_str(&render_overview(&report.overview, Format::Json)).unwrap_or(Value::Null);
    let mut names = Names::default();
    let (nodes, index_of) = nodes(report);
    // Keyed by the node's index in `nodes`.
    // As text, table by table (as the node list, below).
    let mut tables = String::from("{");
    for t in &report.tables {
        let Some(index) = index_of.get(t.id) else { continue };
        if tables.len() > 1 {
            tables.push(',');
        }
        let _ = write!(tables, "\"{index}\":{}", node_tables(t, &mut names));
    }
    tables.push('}');
    let mut significance = match &report.significance {
        // The run-wide shift the marks were judged beyond, as the command line's note says it.
        Ok(_) => match report.shift_note() {
            Some(shift) => json!({"estimated": true, "shift": shift}),
            None => json!({"estimated": true}),
        },
        Err(note) => json!({"estimated": false, "note": note}),
    };
    // Which judgement the marks are: between runs (a side of runs), or within one run against
    // the scatter of its steps.
    significance["judged"] = json!(if report.runs == [1, 1] { "steps" } else { "runs" });
    // Whether the step's time changed beyond the noise, as the headline judges it: the one row
    // of the overview whose significance is estimated (null where it is not).
    let step_significant =
        crate::analysis::report::headline::headline(report).and_then(|h| h.significant.ok().flatten());
    let op_measures = report.tables.first().map(|t| t.operators.measures).unwrap_or(&[]);
    let k_measures = report.tables.first().map(|t| t.kernels.measures).unwrap_or(&[]);
    let data = json!({
        "labels": report.request.labels,
        "sides": [side_json(&c.control), side_json(&c.test)],
        "device": c.device,
        "include": c.include,
        "exclude": c.exclude,
        "hasDevice": report.has_device,
        "moduleDevice": report.modules.has_device,
        "fallback": report.modules.fallback,
        "limits": {"depth": report.limits.depth, "rows": report.limits.rows},
        "overview": overview,
        "significance": significance,
        "stepSignificant": step_significant,
        "opMeasures": op_measures,
        "kMeasures": k_measures,
        "opsDiff": ops_diff(c),
        "classNames": KernelClass::ALL.iter().map(|k| k.name()).collect::<Vec<_>>(),
        "aligned": report.aligned.as_ref().map(|a| aligned(a, &mut names)),
        "alignedRuns": report.aligned_runs,
        "runs": report.runs,
        "names": names.list,
    });
    // The node list and the tables go in as text, made one by one: as `Value`s the 40,000
    // nodes of a long step took 125 MB.
    let mut text = data.to_string();
    text.pop();
    text.push_str(",\"tables\":");
    text.push_str(&tables);
    text.push_str(",\"nodes\":");
    text.push_str(&nodes);
    text.push('}');
    text
}

fn times(t: &Option<Times>) -> Value {
    match t {
        Some(t) => json!([t.calls, t.host_total_ns, t.device_total_ns]),
        None => Value::Null,
    }
}

/// The module tree as a flat list, parents before children (depth first, siblings in order):
/// each node's kind `k`, key `n`, ordinal among same-key siblings `i` (its path segment is
/// `n[i]`) and parent's index `u` (both absent for the step), status `s`, control and test
/// `[calls, host_ns, device_ns]` under `c` and `t`, the overlap of its children per side under
/// `o` (only where they overlap), per side whether it was built from a graph's capture under `r`
/// (only where it was on a side), and under `g` whether it changed significantly in host and in
/// device time (only where that was estimated). Paths are not written: each names all its
/// ancestors, so they would grow with the square of the depth; the page builds the ones it
/// shows. Returns the list and each node's index by [`AlignedNode::id`].
fn nodes(report: &Report) -> (String, Vec<usize>) {
    let top = &report.modules.root;
    let marks = report.significance.as_ref().ok();
    let fields = |n: &AlignedNode, parent: Option<usize>| {
        let mut v = Map::new();
        v.insert("k".into(), json!(n.kind.as_str()));
        v.insert("n".into(), json!(n.key));
        if let (Some(ordinal), Some(parent)) = (n.ordinal, parent) {
            v.insert("i".into(), json!(ordinal));
            v.insert("u".into(), json!(parent));
        }
        v.insert("s".into(), json!(n.status.as_str()));
        v.insert("c".into(), times(&n.control));
        v.insert("t".into(), times(&n.test));
        // Children that ran concurrently: how much they overlap per side (the `∥` mark).
        if n.children_overlap_ns.iter().any(|&o| o > 0) {
            v.insert("o".into(), json!(n.children_overlap_ns));
        }
        // Built from a graph's capture: its kernels ran via graph replay.
        if n.replayed.iter().any(|&r| r) {
            v.insert("r".into(), json!(n.replayed));
        }
        if let Some([host, device]) = marks {
            v.insert("g".into(), json!([host.of(n), device.of(n)]));
        }
        Value::Object(v)
    };
    let mut list = String::from("[");
    let mut count = 0;
    let mut index_of = Vec::new();
    // Depth first with an explicit stack: a model's tree can nest thousands deep.
    let mut todo: Vec<(&AlignedNode, Option<usize>)> = vec![(top, None)];
    while let Some((n, parent)) = todo.pop() {
        let index = count;
        count += 1;
        if index > 0 {
            list.push(',');
        }
        list.push_str(&fields(n, parent).to_string());
        if index_of.len() <= n.id {
            index_of.resize(n.id + 1, usize::MAX);
        }
        index_of[n.id] = index;
        todo.extend(n.children.iter().rev().map(|c| (c, Some(index))));
    }
    list.push(']');
    (list, index_of)
}

/// Names shared by all tables, by index.
#[derive(Default)]
struct Names {
    list: Vec<String>,
    index: BTreeMap<String, usize>,
}

impl Names {
    fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.list.push(name.to_string());
        self.index.insert(name.to_string(), self.list.len() - 1);
        self.list.len() - 1
    }
}

fn node_tables(t: &NodeTables, names: &mut Names) -> Value {
    let mut kernels = table(&t.kernels, t.totals.1, names);
    // Each kernel row's class, by its index in `classNames`.
    if let (Some(classifier), Value::Object(k)) = (&t.kernels.classifier, &mut kernels) {
        let classes: Vec<usize> = t
            .kernels
            .rows
            .iter()
            .map(|r| classifier.classify(&r.name) as usize)
            .collect();
        k.insert("class".into(), json!(classes));
    }
    json!({
        "op": table(&t.operators, t.totals.0, names),
        "k": kernels,
        "kc": table(&t.classes, t.classes.rows.len(), names),
    })
}

/// The aligned kernel sequences: each side's share of device time in paired positions, each
/// stream group's shapes as the terminal heads them, and the first [`ALIGNED_ROWS`] positions
/// `[group, part, position, class, status, control name id, test name id, control ns, test ns]`
/// (`null` where a side has no kernel there).
fn aligned(a: &Aligned, names: &mut Names) -> Value {
    let [c, t] = [&a.control.label, &a.test.label];
    let groups: Vec<Value> = a
        .groups
        .iter()
        .map(|g| {
            json!([
                g.index,
                shape_text(c, g.control.as_ref()),
                shape_text(t, g.test.as_ref())
            ])
        })
        .collect();
    let rows: Vec<Value> = a
        .rows
        .iter()
        .take(ALIGNED_ROWS)
        .map(|r| {
            let (cs, ts) = (r.control.as_ref(), r.test.as_ref());
            json!([
                r.group,
                r.part.name(),
                r.position,
                class_text(r),
                r.status.name(),
                cs.map(|s| names.id(&s.name)),
                ts.map(|s| names.id(&s.name)),
                cs.map(|s| s.dur_ns),
                ts.map(|s| s.dur_ns),
            ])
        })
        .collect();
    json!({
        "paired": a.paired_share(),
        "windows": a.windows,
        "groups": groups,
        "total": a.rows.len(),
        "rows": rows,
    })
}

/// `{"total": rows before the cut, "rows": [[name id, control values…, test values…]]}`, and
/// where any row was judged, `"g"`: per row, per measure, whether it changed significantly
/// (`null` where not judged), as the views' `significant`.
fn table(t: &ViewTable, total: usize, names: &mut Names) -> Value {
    let rows: Vec<Value> = t.rows.iter().map(|r| view_row(t, r, names)).collect();
    let judged = t.rows.iter().any(|r| r.significant.iter().any(Option::is_some));
    if !judged {
        return json!({"total": total, "rows": rows});
    }
    let marks: Vec<&[Option<bool>]> = t.rows.iter().map(|r| r.significant.as_slice()).collect();
    json!({"total": total, "rows": rows, "g": marks})
}

/// `[name id, control values…, test values…]` as the views show them: per step where the row
/// has per-step values (counts to two decimals, times to the ns), else sums.
fn view_row(t: &ViewTable, r: &ViewRow, names: &mut Names) -> Value {
    let mut v = vec![json!(names.id(&r.name))];
    for side in 0..2 {
        v.extend(t.measures.iter().enumerate().map(|(k, m)| match r.shown(side, k) {
            None => Value::Null,
            Some(x) if r.per_step.is_some() && m.is_count() => json!((x * 100.0).round() / 100.0),
            Some(x) => json!(x.round() as i64),
        }));
    }
    Value::Array(v)
}

/// Per category (as `ops-diff --top`): the total and the rows of the largest changes of time
/// `[name, control count, test count, control ns, test ns]` (the first names from A to Z hid
/// a category's largest change where it held more rows than the page shows).
fn ops_diff(c: &Comparison) -> Value {
    let view = OpsDiffView::new(c, &Category::ALL, SortKey::AbsDiffDuration, Some(OPS_DIFF_ROWS));
    let lists: Vec<Value> = view
        .lists
        .iter()
        .zip(&view.totals)
        .map(|((cat, rows), total)| {
            json!({
                "category": cat.as_str(),
                "total": total,
                "rows": rows.iter().map(|r: &&Row| ops_diff_row(r)).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"naming": c.naming.column(), "lists": lists})
}

/// `[name, control count, test count, control ns, test ns]`, per step where the comparison's
/// rows are (counts to two decimals).
fn ops_diff_row(r: &Row) -> Value {
    match &r.per_step {
        Some([c, t]) => {
            let count = |x: f64| (x * 100.0).round() / 100.0;
            json!([
                r.name,
                count(c.count),
                count(t.count),
                c.dur_ns.round() as i64,
                t.dur_ns.round() as i64
            ])
        }
        None => json!([r.name, r.control.count, r.test.count, r.control.dur_ns, r.test.dur_ns]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_end_the_script_element() {
        let v = json!({"names": ["</script><b>", "a<!--b", "vector<int>"]});
        let text = script_json(&v.to_string());
        assert!(!text.contains('<'), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
    }

    #[test]
    fn html_escapes_the_title() {
        assert_eq!(
            html_escape(r#"<a & "b" 'c'>"#),
            "&lt;a &amp; &quot;b&quot; &#39;c&#39;&gt;"
        );
    }

    #[test]
    fn line_separators_are_escaped_in_the_data() {
        let v = json!({"names": ["a\u{2028}b\u{2029}c"]});
        let text = script_json(&v.to_string());
        assert!(!text.contains('\u{2028}') && !text.contains('\u{2029}'), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
    }

    #[test]
    fn the_template_is_filled_in_one_pass() {
        let page = fill(
            "<title>{{TITLE}}</title><p>{{DATA}}</p><script>{{SCRIPT}}</script>{{OTHER}}",
            &[("TITLE", "{{SCRIPT}}"), ("DATA", "{{DATA}} {{"), ("SCRIPT", "run()")],
        );
        assert_eq!(
            page,
            "<title>{{SCRIPT}}</title><p>{{DATA}} {{</p><script>run()</script>{{OTHER}}"
        );
    }

    #[test]
    fn the_csp_allows_the_script_by_its_hash_only() {
        let csp = PAGE.lines().find(|l| l.contains("Content-Security-Policy")).unwrap();
        assert!(
            !csp.contains("script-src 'unsafe-inline'") && csp.contains("script-src 'sha256-{{SCRIPT_HASH}}'"),
            "{csp}"
        );
        assert!(
            PAGE.contains("<script>\n{{SCRIPT}}\n</script>"),
            "the hash covers the script's text as placed"
        );
        // A known vector: sha256 of "\nx\n".
        assert_eq!(script_hash("x"), "0j+bQHb1Xx5lDFk/gPRR8glNxZzORwwGPrIq6mPkyzk=");
    }
}
