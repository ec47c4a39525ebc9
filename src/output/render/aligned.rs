//! `kernels --aligned` (docs/kernel-classes.md#aligned-sequences): the aligned kernel
//! sequences as a terminal table and Markdown (a table per part of each stream group, the layer
//! printed once), CSV and JSON (every position). One table model ([`model`]) describes the
//! rows in every format.

use super::compare::{describe_side, side_json};
use super::table::{Cell, Column, Formats, Table, csv, json, markdown, terminal};
use super::{Format, TableStyle, distinct_cuts, fmt_duration, json_us, wrap_text};
use crate::analysis::views::sequences::{Aligned, AlignedRow, Group, Part, Shape, Slot};
use serde::Serialize;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::fmt::Write as _;

/// The aligned sequences in `format`.
pub(crate) fn render_aligned(a: &Aligned, format: Format, style: TableStyle) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = match format {
        Format::Csv => csv::write(&model(a, a.rows.iter().collect(), "", [1, 1]), &mut out),
        Format::Json => json_doc(a, &mut out),
        Format::Table | Format::Markdown => {
            out = text(a, style, format == Format::Markdown).into_bytes();
            Ok(())
        }
    };
    String::from_utf8(out).unwrap_or_default()
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

/// The columns of the aligned rows, in the order every format keeps: the terminal and
/// Markdown show the kernel, its position, class and status and each side's time (`per`:
/// ` / layer` in a layer's table); CSV each side's class, name, calls and device time
/// (µs summed over the steps); JSON each side's slot as an object.
fn columns(a: &Aligned, per: &str) -> Vec<Column> {
    let (cl, tl) = (&a.control.label, &a.test.label);
    let people = Formats::TERMINAL | Formats::MARKDOWN;
    let data = Formats::CSV | Formats::JSON;
    let csv = |key: &str| Column::new(key, key, key).only(Formats::CSV);
    vec![
        Column::new("kernel", "kernel", "kernel").left().only(people),
        Column::new("stream_group", "stream_group", "").only(data),
        Column::new("block", "block", "").only(data),
        Column::new("position", "position", "pos"),
        Column::new("class", "class", "class").left_in_markdown(),
        csv("control_class"),
        csv("test_class"),
        csv("control_name"),
        csv("test_name"),
        Column::new("status", "status", "status").left_in_markdown(),
        csv("control_calls"),
        csv("test_calls"),
        csv("control_device_total_us"),
        csv("test_device_total_us"),
        Column::new("control", "", "").only(Formats::JSON),
        Column::new("test", "", "").only(Formats::JSON),
        Column::new("", "", format!("{cl}\ntime{per}"))
            .markdown("control")
            .only(people),
        Column::new("", "", format!("{tl}\ntime{per}"))
            .markdown("test")
            .only(people),
    ]
}

/// The table of `rows` (those of one part of a group, or all), each side's time divided by
/// `blocks` in the terminal and Markdown (a layer's time per repetition).
fn model<'a>(a: &'a Aligned, rows: Vec<&'a AlignedRow>, per: &str, blocks: [i64; 2]) -> Table<'a> {
    Table::new(columns(a, per), rows.len(), move |i, cells| {
        let r = rows[i];
        let (c, t) = (r.control.as_ref(), r.test.as_ref());
        let text = |s: String| Cell::Text(Cow::Owned(s));
        let slot = |s: Option<&'a Slot>, f: fn(&'a Slot) -> Cell<'a>| s.map_or(Cell::Empty, f);
        let time = |s: Option<&Slot>, n: i64| s.map_or(Cell::Empty, |s| Cell::Duration(s.dur_ns / n));
        cells.extend([
            text(kernel_text(r)),
            Cell::Int(r.group as i64),
            Cell::Text(Cow::Borrowed(r.part.name())),
            Cell::Int(r.position as i64),
            text(class_text(r)),
            slot(c, |s| Cell::Text(Cow::Borrowed(s.class.name()))),
            slot(t, |s| Cell::Text(Cow::Borrowed(s.class.name()))),
            slot(c, |s| Cell::Text(Cow::Borrowed(&s.name))),
            slot(t, |s| Cell::Text(Cow::Borrowed(&s.name))),
            Cell::Text(Cow::Borrowed(r.status.name())),
            slot(c, |s| Cell::Int(s.calls)),
            slot(t, |s| Cell::Int(s.calls)),
            slot(c, |s| Cell::Duration(s.dur_ns)),
            slot(t, |s| Cell::Duration(s.dur_ns)),
            Cell::Json(slot_json(c)),
            Cell::Json(slot_json(t)),
            time(c, blocks[0]),
            time(t, blocks[1]),
        ]);
    })
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

/// The JSON document: the sides, the groups' shapes and a row per position.
fn json_doc(a: &Aligned, out: &mut Vec<u8>) -> std::io::Result<()> {
    let groups: Vec<Value> = a
        .groups
        .iter()
        .map(|g| json!({"stream_group": g.index, "control": shape_json(g.control.as_ref()), "test": shape_json(g.test.as_ref())}))
        .collect();
    let [pc, pt] = a.paired_share();
    let round = |x: Option<f64>| x.map(|x| (x * 10_000.0).round() / 10_000.0);
    let table = model(a, a.rows.iter().collect(), "", [1, 1]);
    let doc = AlignedDoc {
        tool: "tracediff",
        version: env!("CARGO_PKG_VERSION"),
        view: "aligned",
        duration_unit: "us",
        control: side_json(&a.control),
        test: side_json(&a.test),
        windows: json!({"control": a.windows[0], "test": a.windows[1]}),
        paired_share: json!({"control": round(pc), "test": round(pt)}),
        groups,
        rows: json::Rows(&table),
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    out.push(b'\n');
    Ok(())
}

/// The JSON document of the aligned sequences.
#[derive(Serialize)]
struct AlignedDoc<'t, 'a> {
    tool: &'static str,
    version: &'static str,
    view: &'static str,
    duration_unit: &'static str,
    control: Value,
    test: Value,
    windows: Value,
    paired_share: Value,
    groups: Vec<Value>,
    rows: json::Rows<'t, 'a>,
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
    let (blocks, per) = match part {
        Part::Layer => ([blocks(g.control.as_ref()), blocks(g.test.as_ref())], " / layer"),
        _ => ([1, 1], ""),
    };
    let table = model(a, rows, per, blocks);
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = if md {
        markdown::write_rows(&table, &mut out)
    } else {
        let layout = terminal::Layout {
            color: false,
            width: style.name_width(),
            fit: terminal::Fit::Drop {
                drop_order: &[],
                cut: Some(&cut_kernels),
                widen_to_header: true,
            },
        };
        terminal::write(&table, &layout, &mut out)
    };
    Some(String::from_utf8(out).unwrap_or_default())
}

/// Kernel cells cut to `width`: a `control → test` cell gives each name half, cut against the
/// other rows' names on its side so that distinct names stay distinct.
fn cut_kernels(names: &[&str], width: usize) -> Vec<String> {
    use super::columns::text_width;
    const ARROW: &str = " → ";
    if names.iter().all(|n| text_width(n) <= width) {
        return names.iter().map(|n| n.to_string()).collect();
    }
    let half = width.saturating_sub(ARROW.chars().count()) / 2;
    let split: Vec<(&str, Option<&str>)> = names
        .iter()
        .map(|n| match n.split_once(ARROW) {
            Some((c, t)) => (c, Some(t)),
            None => (*n, None),
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
