//! The two-sided overview on the table model: a row per metric, a column per side, Δ and Δ %
//! (and, in CSV with two ranks or more on a side, the rank). The terminal and Markdown show
//! the metrics people read, labelled as a tree; CSV every metric by its key, then the
//! stragglers and each rank's own rows.

use crate::analysis::views::overview::Overview;
use crate::output::render::table::{Cell, Column, Formats, Line as Title, Table, csv, markdown, terminal};
use crate::output::render::{Format, distinct_cuts, fmt_duration, fmt_percent, fmt_signed};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::io::{self, Write};

/// The overview's columns: the metric (its label for people, its key in CSV), each side's
/// value, Δ and Δ %, and with `by_rank` a last CSV column of the rank (as hyperfine adds its
/// parameter columns: the others keep their places).
fn columns(o: &Overview, by_rank: bool) -> Vec<Column> {
    let (cl, tl) = (o.control.label.as_str(), o.test.label.as_str());
    let mut columns = vec![
        Column::new("metric", "metric", "").left().markdown_bare(),
        Column::new(cl, cl, cl),
        Column::new(tl, tl, tl),
        Column::new("diff", "diff", "Δ").signed().blank(""),
        Column::new("diff_pct", "diff_pct", "Δ %").blank(""),
    ];
    if by_rank {
        columns.push(Column::new("rank", "rank", "rank").only(Formats::CSV));
    }
    columns
}

/// A value as a cell: times as durations, counts whole, bytes and ratios worded for people
/// (CSV: the bytes whole, the ratio as Rust writes it), words as words; `signed`: a change.
fn value_cell<'a>(kind: Kind, v: Option<&Figure>, signed: bool) -> Cell<'a> {
    match v {
        None => Cell::Empty,
        Some(Figure::Text(t)) => Cell::Text(Cow::Owned(t.clone())),
        Some(Figure::Ratio(r)) => Cell::Shown(cell_human(kind, v, signed), Value::String(r.to_string())),
        Some(Figure::Num(n)) => match kind {
            Kind::Time => Cell::Duration(*n),
            Kind::Bytes => Cell::Shown(cell_human(kind, v, signed), json!(n)),
            _ => Cell::Int(*n),
        },
    }
}

/// A metric's cells: its label `name` (its key in CSV), both sides' values, Δ, Δ %, and the
/// rank where the table has that column (`rank`: `Some("")` on a side total).
fn line_cells<'a>(l: &Line, name: &str, rank: Option<&str>, cells: &mut Vec<Cell<'a>>) {
    cells.extend([
        Cell::Shown(name.to_string(), json!(l.key)),
        value_cell(l.kind, l.control.as_ref(), false),
        value_cell(l.kind, l.test.as_ref(), false),
        value_cell(l.kind, l.diff().as_ref(), true),
        l.pct().map_or(Cell::Empty, Cell::Percent),
    ]);
    if let Some(rank) = rank {
        cells.push(Cell::Text(Cow::Owned(rank.to_string())));
    }
}

/// The overview's table of `lines` (labelled `names`) for people (terminal, Markdown) under
/// the sides' lines (`title`), fitted to `width` (`usize::MAX`: whole): long values (device
/// names) are cut first ([`cut_text_values`]), then the labels.
pub(super) fn write_text(
    o: &Overview,
    title: Vec<String>,
    lines: &[&Line],
    names: &[String],
    md: bool,
    width: usize,
) -> String {
    let columns = columns(o, false);
    let mut table = Table::new(columns.clone(), lines.len(), move |i, cells| {
        line_cells(lines[i], &names[i], None, cells)
    });
    table.title = title.into_iter().map(Title::new).collect();
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    if md {
        let _ = markdown::write(&table, &mut out);
        return String::from_utf8(out).unwrap_or_default();
    }
    let mut cells = Vec::new();
    let mut texts: Vec<Vec<String>> = (0..lines.len())
        .map(|i| {
            table.row(i, &mut cells);
            (1..columns.len())
                .map(|k| cells[k].text(&columns[k], Format::Table).into_owned())
                .collect()
        })
        .collect();
    let headers: Vec<String> = columns[1..].iter().map(|c| c.header.clone()).collect();
    cut_text_values(&mut texts, names, &headers, width);
    let texts = &texts;
    let mut fitted = Table::new(columns, lines.len(), move |i, cells| {
        cells.push(Cell::Shown(names[i].clone(), Value::Null));
        cells.extend(texts[i].iter().map(|t| Cell::Shown(t.clone(), Value::Null)));
    });
    fitted.title = std::mem::take(&mut table.title);
    let cut = |names: &[&str], w: usize| distinct_cuts(names, w);
    let layout = terminal::Layout {
        color: false,
        width,
        fit: terminal::Fit::Drop {
            drop_order: &[],
            cut: Some(&cut),
            widen_to_header: true,
        },
    };
    let _ = terminal::write(&fitted, &layout, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The overview as CSV: a row per metric, then with two ranks or more on a side the
/// stragglers' rows and each rank's own rows (`ranks`), the rank in the last column.
/// (`None`: a straggler's row, no rank).
pub(super) fn write_csv(
    o: &Overview,
    lines: &[Line],
    ranks: &[(Line, Option<i64>)],
    out: &mut dyn Write,
) -> io::Result<()> {
    let by_rank = !ranks.is_empty();
    let totals = if by_rank { Some("") } else { None };
    let table = Table::new(
        columns(o, by_rank),
        lines.len() + ranks.len(),
        move |i, cells| match lines.get(i) {
            Some(l) => line_cells(l, l.key, totals, cells),
            None => {
                let (l, rank) = &ranks[i - lines.len()];
                let rank = rank.map_or(String::new(), |r| r.to_string());
                line_cells(l, l.key, Some(&rank), cells)
            }
        },
    );
    csv::write(&table, out)
}

/// What a metric measures, which says how its values read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Text,
    Count,
    Time,
    Bytes,
    Ratio,
}

/// A value of the overview: a number (ns for times, a ratio, bytes, a count) or text.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Figure {
    Num(i64),
    Ratio(f64),
    Text(String),
}

/// A value for people; `signed`: a change (`+1.50 ms`, `+0.4 pp`).
pub(super) fn cell_human(kind: Kind, c: Option<&Figure>, signed: bool) -> String {
    match c {
        None => "-".to_string(),
        Some(Figure::Text(t)) => t.clone(),
        // Under 0.05 pp either way prints as `0 pp` (`+0.0 pp` on identical sides, beside `0 ns`).
        Some(Figure::Ratio(r)) if signed && (r * 100.0).abs() < 0.05 => "0 pp".to_string(),
        Some(Figure::Ratio(r)) if signed => format!("{:+.1} pp", r * 100.0),
        Some(Figure::Ratio(r)) => format!("{:.1}%", r * 100.0),
        Some(Figure::Num(n)) => match kind {
            Kind::Time => fmt_duration(*n, signed),
            Kind::Bytes => fmt_bytes(*n, signed),
            _ if signed => fmt_signed(*n),
            _ => n.to_string(),
        },
    }
}

/// Bytes for people, in binary units: `512 B`, `1.50 GiB`.
pub(crate) fn fmt_bytes(n: i64, signed: bool) -> String {
    let sign = crate::output::render::sign_of(n, signed);
    let abs = n.unsigned_abs() as f64;
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = abs;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{sign}{} B", n.unsigned_abs())
    } else {
        format!("{sign}{v:.2} {}", units[u])
    }
}

/// test − control, where both are numbers.
fn figure_diff(c: Option<&Figure>, t: Option<&Figure>) -> Option<Figure> {
    match (c?, t?) {
        (Figure::Num(a), Figure::Num(b)) => Some(Figure::Num(b - a)),
        (Figure::Ratio(a), Figure::Ratio(b)) => Some(Figure::Ratio(b - a)),
        _ => None,
    }
}

fn figure_pct(c: Option<&Figure>, t: Option<&Figure>) -> Option<String> {
    match (c?, t?) {
        (Figure::Num(a), Figure::Num(b)) => Some(fmt_percent(*a, *b)),
        (Figure::Ratio(a), Figure::Ratio(b)) => {
            let scale = 1e9;
            Some(fmt_percent((a * scale) as i64, (b * scale) as i64))
        }
        _ => None,
    }
}

/// One line of the overview: both sides' values of one metric.
pub(super) struct Line {
    /// The metric's key (JSON, CSV).
    pub key: &'static str,
    /// Its label for people (empty: not shown to them).
    pub label: &'static str,
    /// What it measures.
    pub kind: Kind,
    /// The control side's value.
    pub control: Option<Figure>,
    /// The test side's.
    pub test: Option<Figure>,
}

impl Line {
    /// test − control, where both are numbers.
    pub(super) fn diff(&self) -> Option<Figure> {
        figure_diff(self.control.as_ref(), self.test.as_ref())
    }
    /// The relative change, where both are numbers.
    pub(super) fn pct(&self) -> Option<String> {
        figure_pct(self.control.as_ref(), self.test.as_ref())
    }
}

/// `value` in at most `cap` columns, keeping the words that name a model: leading words
/// without a digit go first (`NVIDIA`, `AMD Instinct`), then the end (`H100 80GB H…`,
/// `MI300X`; a middle cut gave `NVIDIA …HBM3` and `AMD …MI300X`).
fn cut_value(value: &str, cap: usize) -> String {
    use crate::output::render::columns::text_width;
    let mut rest = value;
    while text_width(rest) > cap {
        let Some((word, after)) = rest.split_once(' ') else {
            break;
        };
        if word.chars().any(|c| c.is_ascii_digit()) || !after.chars().any(|c| c.is_ascii_digit()) {
            break;
        }
        rest = after.trim_start();
    }
    if text_width(rest) <= cap {
        return rest.to_string();
    }
    let kept: String = rest.chars().take(cap.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// Cuts the longest values (device names, memory places) until a table of `names` and `cells`
/// fits in `width`, keeping at least 10 columns of each ([`cut_value`]; `H100 80GB…`, before
/// the row labels are cut: `overlapped wi… compute` read worse). Every column wider than
/// the level is cut to it at once, from the values as they were, so that one device name on
/// both sides reads the same (cutting one column, then the other, cut `NVIDIA H100 80GB HBM3`
/// to `H100 80GB HBM3` on one side and `H100 80GB H…` on the other).
pub(super) fn cut_text_values(cells: &mut [Vec<String>], names: &[String], headers: &[String], width: usize) {
    use crate::output::render::columns::text_width;
    if width == usize::MAX {
        return;
    }
    let label = names.iter().map(|n| text_width(n)).max().unwrap_or(0);
    let column = |cells: &[Vec<String>], k: usize| {
        cells
            .iter()
            .map(|row| text_width(&row[k]))
            .chain([text_width(&headers[k])])
            .max()
            .unwrap_or(0)
    };
    let total = |cells: &[Vec<String>]| label + 2 + (0..headers.len()).map(|k| column(cells, k) + 3).sum::<usize>();
    let widest = (0..headers.len()).map(|k| column(cells, k)).max().unwrap_or(0);
    let original = cells.to_vec();
    let mut cap = widest;
    while total(cells) > width && cap > 10 {
        cap -= 1;
        for (row, was) in cells.iter_mut().zip(&original) {
            for (cell, value) in row.iter_mut().zip(was) {
                if text_width(value) > cap {
                    *cell = cut_value(value, cap);
                }
            }
        }
    }
}
