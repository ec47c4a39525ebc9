//! The comparison table in each output format.

use super::{
    Format, TableStyle, csv_field, elide_middle, fmt_duration, fmt_percent, fmt_signed, fmt_us, json_us, md_cell,
};
use crate::analysis::diff::{Comparison, Row, SideInfo, SortKey, Summary};
use comfy_table::{CellAlignment, ContentArrangement, LineStyle, Table, presets};
use serde_json::{Value, json};
use std::fmt::Write;

/// The rows to show, in order, and how they were chosen.
#[derive(Debug, Clone)]
pub struct CompareView<'a> {
    pub comparison: &'a Comparison,
    /// In output order, at most `top` of them.
    pub rows: Vec<&'a Row>,
    pub sort: SortKey,
    pub top: Option<usize>,
}

impl<'a> CompareView<'a> {
    pub fn new(comparison: &'a Comparison, sort: SortKey, top: Option<usize>) -> Self {
        let mut ordered: Vec<&Row> = comparison.rows.iter().collect();
        crate::analysis::diff::sort_rows(&mut ordered, sort);
        if let Some(n) = top {
            ordered.truncate(n);
        }
        CompareView {
            comparison,
            rows: ordered,
            sort,
            top,
        }
    }
}

pub fn render(view: &CompareView<'_>, format: Format, style: TableStyle) -> String {
    match format {
        Format::Csv => csv(view),
        Format::Json => json(view),
        Format::Markdown => markdown(view),
        Format::Table => table(view, style),
    }
}

/// HTA's columns, with `--labels` in the headers.
pub fn csv(view: &CompareView<'_>) -> String {
    let c = view.comparison;
    let (cl, tl) = (&c.control.label, &c.test.label);
    let mut out = format!(
        "{},{cl}_counts,{cl}_total_duration,{tl}_counts,{tl}_total_duration,diff_counts,diff_duration,counts_change_categories\n",
        c.naming.column()
    );
    for r in &view.rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{}",
            csv_field(&r.name),
            r.control.count,
            fmt_us(r.control.dur_ns),
            r.test.count,
            fmt_us(r.test.dur_ns),
            r.diff_counts(),
            fmt_us(r.diff_dur_ns()),
            r.change_symbol()
        );
    }
    out
}

pub fn side_json(s: &SideInfo) -> Value {
    json!({
        "label": s.label,
        "path": s.path,
        "files": s.files,
        "ranks": s.resolved.ranks,
        "iterations": s.resolved.iterations,
    })
}

fn summary_json(s: &Summary) -> Value {
    json!({
        "rows": s.rows,
        "added": s.added,
        "deleted": s.deleted,
        "increased": s.increased,
        "decreased": s.decreased,
        "unchanged": s.unchanged,
        "control_total_duration": json_us(s.control_dur_ns),
        "test_total_duration": json_us(s.test_dur_ns),
    })
}

/// One document: the tool, what was compared, the summary and the rows. Row keys are fixed
/// (`control_*`, `test_*`) whatever the labels, so scripts need not know them.
pub fn json(view: &CompareView<'_>) -> String {
    let c = view.comparison;
    let rows: Vec<Value> = view
        .rows
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "control_counts": r.control.count,
                "control_total_duration": json_us(r.control.dur_ns),
                "test_counts": r.test.count,
                "test_total_duration": json_us(r.test.dur_ns),
                "diff_counts": r.diff_counts(),
                "diff_duration": json_us(r.diff_dur_ns()),
                "counts_change_categories": r.change_symbol(),
                "category": r.category().as_str(),
            })
        })
        .collect();
    let doc = json!({
        "tool": "tracediff",
        "version": env!("CARGO_PKG_VERSION"),
        "duration_unit": "us",
        "control": side_json(&c.control),
        "test": side_json(&c.test),
        "device": c.device,
        "naming": c.naming.column(),
        "normalize_names": c.normalize_names,
        "group_by": c.group_by,
        "include": c.include,
        "exclude": c.exclude,
        "sort": view.sort.as_str(),
        "top": view.top,
        "summary": summary_json(&c.summary()),
        "rows": rows,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

pub fn describe_side(s: &SideInfo) -> String {
    let ranks = crate::analysis::select::join(&s.resolved.ranks);
    let rank_word = if s.resolved.ranks.len() == 1 { "rank" } else { "ranks" };
    let iters = match &s.resolved.iterations {
        None => "whole trace (no ProfilerStep)".to_string(),
        Some(v) if v.len() == 1 => format!("iteration {}", v[0]),
        Some(v) => format!("iterations {}", crate::analysis::select::join(v)),
    };
    format!("{}: {} ({rank_word} {ranks}, {iters})", s.label, s.path)
}

fn summary_lines(view: &CompareView<'_>) -> Vec<String> {
    let c = view.comparison;
    let s = c.summary();
    let shown = if view.rows.len() < s.rows {
        format!(" (showing {} by {})", view.rows.len(), view.sort.as_str())
    } else {
        String::new()
    };
    vec![
        format!(
            "{} rows{shown}: {} added, {} deleted, {} increased, {} decreased, {} unchanged",
            s.rows, s.added, s.deleted, s.increased, s.decreased, s.unchanged
        ),
        format!(
            "summed duration: {} {}, {} {} ({}, {})",
            c.control.label,
            fmt_duration(s.control_dur_ns, false),
            c.test.label,
            fmt_duration(s.test_dur_ns, false),
            fmt_duration(s.test_dur_ns - s.control_dur_ns, true),
            fmt_percent(s.control_dur_ns, s.test_dur_ns)
        ),
    ]
}

/// Aligned columns that fit in `style.width`; long names are cut in the middle for display.
pub fn table(view: &CompareView<'_>, style: TableStyle) -> String {
    let c = view.comparison;
    let (cl, tl) = (&c.control.label, &c.test.label);
    let cells: Vec<[String; 7]> = view
        .rows
        .iter()
        .map(|r| {
            [
                r.control.count.to_string(),
                r.test.count.to_string(),
                fmt_signed(r.diff_counts()),
                fmt_duration(r.control.dur_ns, false),
                fmt_duration(r.test.dur_ns, false),
                fmt_duration(r.diff_dur_ns(), true),
                fmt_percent(r.control.dur_ns, r.test.dur_ns),
            ]
        })
        .collect();
    let headers = [
        format!("{cl}\ncount"),
        format!("{tl}\ncount"),
        "Δ\ncount".to_string(),
        format!("{cl}\ntime"),
        format!("{tl}\ntime"),
        "Δ\ntime".to_string(),
        "Δ\ntime %".to_string(),
    ];
    let build = |name_width: usize| {
        let mut t = Table::new();
        t.load_style(presets::NOTHING.header_separator(LineStyle::none().fill('─').junction('─')))
            .force_no_tty()
            .set_content_arrangement(ContentArrangement::Disabled);
        let mut header = vec![c.naming.column().to_string()];
        header.extend(headers.iter().cloned());
        t.set_header(header);
        for (r, nums) in view.rows.iter().zip(&cells) {
            let mut row = vec![elide_middle(&r.name, name_width)];
            row.extend(nums.iter().cloned());
            t.add_row(row);
        }
        for k in 1..8 {
            if let Some(col) = t.column_mut(k) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        t.trim_fmt()
    };
    // Names get what the number columns leave of the width (but never fewer than 24 columns).
    let longest = view
        .rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let mut rendered = build(longest);
    let wide = rendered.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    if wide > style.width {
        let name_width = longest.saturating_sub(wide - style.width).max(24);
        rendered = build(name_width);
    }
    let mut out = String::new();
    let _ = writeln!(out, "{}", describe_side(&c.control));
    let _ = writeln!(out, "{}", describe_side(&c.test));
    let filters = filter_note(c);
    let _ = writeln!(out, "device: {}{filters}", c.device);
    if view.rows.is_empty() {
        out.push_str("(no rows)\n");
    } else {
        let _ = writeln!(out, "{rendered}");
    }
    for line in summary_lines(view) {
        let _ = writeln!(out, "{line}");
    }
    out
}

fn filter_note(c: &Comparison) -> String {
    let mut s = String::new();
    if c.normalize_names {
        s.push_str(", --normalize-names");
    }
    if !c.group_by.is_empty() {
        let _ = write!(s, ", --group-by {}", c.group_by.join(","));
    }
    for p in &c.include {
        let _ = write!(s, ", --include '{p}'");
    }
    for p in &c.exclude {
        let _ = write!(s, ", --exclude '{p}'");
    }
    s
}

/// A GitHub-flavoured Markdown table with the full names, for pull requests and CI summaries.
pub fn markdown(view: &CompareView<'_>) -> String {
    let c = view.comparison;
    let (cl, tl) = (md_cell(&c.control.label), md_cell(&c.test.label));
    let mut out = String::new();
    let _ = writeln!(out, "- {}", md_cell(&describe_side(&c.control)));
    let _ = writeln!(out, "- {}", md_cell(&describe_side(&c.test)));
    let _ = writeln!(out, "- device: {}{}", c.device, md_cell(&filter_note(c)));
    out.push('\n');
    let _ = writeln!(
        out,
        "| {} | {cl} count | {tl} count | Δ count | {cl} time | {tl} time | Δ time | Δ time % |",
        c.naming.column()
    );
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &view.rows {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |",
            r.name.replace('`', "'").replace('|', "\\|"),
            r.control.count,
            r.test.count,
            fmt_signed(r.diff_counts()),
            fmt_duration(r.control.dur_ns, false),
            fmt_duration(r.test.dur_ns, false),
            fmt_duration(r.diff_dur_ns(), true),
            fmt_percent(r.control.dur_ns, r.test.dur_ns)
        );
    }
    out.push('\n');
    for line in summary_lines(view) {
        let _ = writeln!(out, "{}  ", md_cell(&line));
    }
    out
}
