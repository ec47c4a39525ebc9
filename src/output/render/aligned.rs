//! `kernels --aligned` (docs/kernel-classes.md#aligned-sequences): the aligned kernel
//! sequences as a terminal table (the layer printed once), CSV and JSON (every position).

use super::compare::{describe_side, side_json};
use super::{
    Format, TableStyle, csv_field, distinct_cuts, fit_table_with, fmt_duration, fmt_us, json_us, md_cell, wrap_text,
};
use crate::analysis::classes::sequences::{Aligned, AlignedRow, Group, Part, Shape, Slot};
use serde_json::{Value, json};
use std::fmt::Write as _;

/// The CSV header: one row per position; times are µs summed over the steps used.
pub const CSV_HEADER: &str = "stream_group,block,position,class,control_class,test_class,control_name,test_name,status,control_calls,test_calls,control_device_total,test_device_total";

/// The aligned sequences in `format`.
pub fn render_aligned(a: &Aligned, format: Format, style: TableStyle) -> String {
    match format {
        Format::Csv => csv(a),
        Format::Json => json(a),
        Format::Table => text(a, style, false),
        Format::Markdown => text(a, style, true),
    }
}

/// The class of a row: the sides' class where they agree or one side has none, else
/// `control/test`.
pub(super) fn class_text(r: &AlignedRow) -> String {
    match (&r.control, &r.test) {
        (Some(c), Some(t)) if c.class != t.class => format!("{}/{}", c.class, t.class),
        (Some(s), _) | (None, Some(s)) => s.class.to_string(),
        (None, None) => String::new(),
    }
}

fn csv(a: &Aligned) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    let cell = |s: Option<&Slot>, f: fn(&Slot) -> String| s.map_or(String::new(), f);
    for r in &a.rows {
        let (c, t) = (r.control.as_ref(), r.test.as_ref());
        let fields = [
            r.group.to_string(),
            r.part.name().to_string(),
            r.position.to_string(),
            class_text(r),
            cell(c, |s| s.class.to_string()),
            cell(t, |s| s.class.to_string()),
            cell(c, |s| csv_field(&s.name)),
            cell(t, |s| csv_field(&s.name)),
            r.status.name().to_string(),
            cell(c, |s| s.calls.to_string()),
            cell(t, |s| s.calls.to_string()),
            cell(c, |s| fmt_us(s.dur_ns)),
            cell(t, |s| fmt_us(s.dur_ns)),
        ];
        let _ = writeln!(out, "{}", fields.join(","));
    }
    out
}

fn shape_json(s: Option<&Shape>) -> Value {
    s.map_or(Value::Null, |s| {
        json!({
            "stream": s.stream,
            "events": s.events,
            "prefix": s.prefix,
            "period": s.period,
            "blocks": s.blocks,
            "suffix": s.suffix,
        })
    })
}

fn slot_json(s: Option<&Slot>) -> Value {
    s.map_or(
        Value::Null,
        |s| json!({"class": s.class, "name": s.name, "calls": s.calls, "device_total_us": json_us(s.dur_ns)}),
    )
}

fn json(a: &Aligned) -> String {
    let groups: Vec<Value> = a
        .groups
        .iter()
        .map(|g| json!({"stream_group": g.index, "control": shape_json(g.control.as_ref()), "test": shape_json(g.test.as_ref())}))
        .collect();
    let rows: Vec<Value> = a
        .rows
        .iter()
        .map(|r| {
            json!({
                "stream_group": r.group,
                "block": r.part.name(),
                "position": r.position,
                "class": class_text(r),
                "status": r.status.name(),
                "control": slot_json(r.control.as_ref()),
                "test": slot_json(r.test.as_ref()),
            })
        })
        .collect();
    let [pc, pt] = a.paired_share();
    let round = |x: Option<f64>| x.map(|x| (x * 10_000.0).round() / 10_000.0);
    let doc = json!({
        "tool": "tracediff",
        "version": env!("CARGO_PKG_VERSION"),
        "view": "aligned",
        "duration_unit": "us",
        "control": side_json(&a.control),
        "test": side_json(&a.test),
        "windows": {"control": a.windows[0], "test": a.windows[1]},
        "paired_share": {"control": round(pc), "test": round(pt)},
        "groups": groups,
        "rows": rows,
    });
    let mut out = serde_json::to_string_pretty(&doc).unwrap_or_default();
    out.push('\n');
    out
}

/// How a side's shape reads in a group's heading.
pub(super) fn shape_text(label: &str, s: Option<&Shape>) -> String {
    match s {
        None => format!("{label}: no such stream"),
        Some(s) if s.period == 0 => format!("{label}: stream {}, {} kernels, no repeated layer", s.stream, s.events),
        Some(s) => format!(
            "{label}: stream {}, prefix {}, layer of {} ×{}, suffix {}",
            s.stream, s.prefix, s.period, s.blocks, s.suffix
        ),
    }
}

/// The kernel cell of a row: one name where the sides agree, `control → test` where they
/// differ, `+ test` or `- control` where one side has none.
fn kernel_text(r: &AlignedRow) -> String {
    match (&r.control, &r.test) {
        (Some(c), Some(t)) if c.name == t.name => c.name.clone(),
        (Some(c), Some(t)) => format!("{} → {}", c.name, t.name),
        (None, Some(t)) => format!("+ {}", t.name),
        (Some(c), None) => format!("- {}", c.name),
        (None, None) => String::new(),
    }
}

/// One part of one group as a table; layer times are per repetition.
fn part_table(a: &Aligned, g: &Group, part: Part, style: TableStyle, md: bool) -> Option<String> {
    let rows: Vec<&AlignedRow> = a.rows.iter().filter(|r| r.group == g.index && r.part == part).collect();
    if rows.is_empty() {
        return None;
    }
    let blocks = |s: Option<&Shape>| s.map_or(1, |s| s.blocks.max(1)) as i64;
    let (bc, bt) = match part {
        Part::Layer => (blocks(g.control.as_ref()), blocks(g.test.as_ref())),
        _ => (1, 1),
    };
    let per = if part == Part::Layer { " / layer" } else { "" };
    let headers = vec![
        "pos".to_string(),
        "class".to_string(),
        "status".to_string(),
        format!("{}\ntime{per}", a.control.label),
        format!("{}\ntime{per}", a.test.label),
    ];
    let time = |s: Option<&Slot>, n: i64| s.map_or("-".to_string(), |s| fmt_duration(s.dur_ns / n, false));
    let names: Vec<String> = rows.iter().map(|r| kernel_text(r)).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.position.to_string(),
                class_text(r),
                r.status.name().to_string(),
                time(r.control.as_ref(), bc),
                time(r.test.as_ref(), bt),
            ]
        })
        .collect();
    if md {
        let mut out =
            String::from("| kernel | pos | class | status | control | test |\n|---|---:|---|---|---:|---:|\n");
        for (n, c) in names.iter().zip(&cells) {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                md_cell(n),
                c[0],
                c[1],
                c[2],
                c[3],
                c[4]
            );
        }
        return Some(out);
    }
    Some(fit_table_with(
        "kernel",
        &headers,
        &names,
        &cells,
        style.name_width(),
        cut_kernels,
    ))
}

/// Kernel cells cut to `width`: a `control → test` cell gives each name half, cut against the
/// other rows' names on its side so that distinct names stay distinct.
fn cut_kernels(names: &[String], width: usize) -> Vec<String> {
    use super::columns::text_width;
    const ARROW: &str = " → ";
    if names.iter().all(|n| text_width(n) <= width) {
        return names.to_vec();
    }
    let half = width.saturating_sub(ARROW.chars().count()) / 2;
    let split: Vec<(&str, Option<&str>)> = names
        .iter()
        .map(|n| match n.split_once(ARROW) {
            Some((c, t)) => (c, Some(t)),
            None => (n.as_str(), None),
        })
        .collect();
    let lefts: Vec<&str> = split.iter().map(|p| p.0).collect();
    let rights: Vec<&str> = split.iter().filter_map(|p| p.1).collect();
    let (whole, halves) = (distinct_cuts(&lefts, width), distinct_cuts(&lefts, half));
    let mut right_cuts = distinct_cuts(&rights, half).into_iter();
    split
        .iter()
        .enumerate()
        .map(|(i, (_, t))| match t {
            Some(_) => format!("{}{ARROW}{}", halves[i], right_cuts.next().unwrap_or_default()),
            None => whole[i].clone(),
        })
        .collect()
}

fn text(a: &Aligned, style: TableStyle, md: bool) -> String {
    let width = style.name_width();
    let prefix = if md { "- " } else { "" };
    let mut out = format!(
        "{prefix}{}\n{prefix}{}\n",
        describe_side(&a.control),
        describe_side(&a.test)
    );
    for g in &a.groups {
        let _ = writeln!(
            out,
            "\n{}stream group {}: {}; {}",
            if md { "### " } else { "" },
            g.index,
            shape_text(&a.control.label, g.control.as_ref()),
            shape_text(&a.test.label, g.test.as_ref())
        );
        for part in [Part::Prefix, Part::Layer, Part::Suffix] {
            let Some(table) = part_table(a, g, part, style, md) else {
                continue;
            };
            let title = match part {
                Part::Layer => {
                    let n = |s: Option<&Shape>| s.map_or(0, |s| s.blocks);
                    format!(
                        "layer ×{} ({}), ×{} ({})",
                        n(g.control.as_ref()),
                        a.control.label,
                        n(g.test.as_ref()),
                        a.test.label
                    )
                }
                p => p.name().to_string(),
            };
            let _ = writeln!(out, "\n{title}");
            out.push_str(&table);
            if !table.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out.push('\n');
    out.push_str(&wrap_text(&footer(a), width));
    out
}

/// The sums and the paired shares.
fn footer(a: &Aligned) -> String {
    let total = |f: fn(&AlignedRow) -> Option<&Slot>| a.rows.iter().filter_map(f).map(|s| s.dur_ns).sum::<i64>();
    let [pc, pt] = a.paired_share();
    let pct = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{:.1}%", x * 100.0));
    format!(
        "{} positions; device time: {} {}, {} {}; in paired (same or changed) rows: {} {}, {} {}",
        a.rows.len(),
        a.control.label,
        fmt_duration(total(|r| r.control.as_ref()), false),
        a.test.label,
        fmt_duration(total(|r| r.test.as_ref()), false),
        a.control.label,
        pct(pc),
        a.test.label,
        pct(pt)
    )
}
