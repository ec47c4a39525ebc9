//! `tracediff events`: the event table itself, one row per kept event, with the attributes the
//! user chose. Rows are written one at a time, so large outputs never sit in memory as text.

use crate::analysis::select::{Device, Resolved, Selected};
use crate::error::{Error, Result};
use crate::input::attrs::{AttrType, AttrValue, CORE_COLUMNS, format_float};
use crate::input::load::Side;
use crate::model::iteration::partner_rows;
use crate::model::store::TraceFile;
use crate::output::render::columns::Columns;
use crate::output::render::{csv_field, fmt_us};
use regex::Regex;
use serde_json::{Map, Value};
use std::io::Write;

/// Formats of the event table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum EventsFormat {
    /// Comma-separated values with a header row.
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// One JSON array of objects.
    Json,
    /// Aligned columns (two passes over the events: widths, then text).
    Table,
    /// Apache Parquet (needs -o): typed columns, strings dictionary-encoded, Snappy.
    Parquet,
}

impl EventsFormat {
    /// The format that a file name's extension asks for (`.csv`, `.jsonl` or `.ndjson`, `.json`,
    /// `.txt`, `.parquet`), if any.
    pub fn from_extension(path: &std::path::Path) -> Option<EventsFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "csv" => Some(EventsFormat::Csv),
            "jsonl" | "ndjson" => Some(EventsFormat::Jsonl),
            "json" => Some(EventsFormat::Json),
            "txt" => Some(EventsFormat::Table),
            "parquet" => Some(EventsFormat::Parquet),
            _ => None,
        }
    }
}

/// Which events to list, beyond ranks and iterations.
#[derive(Debug, Clone)]
pub(crate) struct EventFilter {
    /// Host events, device events or both.
    pub device: Device,
    /// Keep only the events whose name matches (anywhere in it).
    pub name: Option<Regex>,
    /// Exact categories; empty for all.
    pub cats: Vec<String>,
}

/// One cell of the event table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell {
    /// A whole number (index, rank, stream, an int attribute).
    Int(i64),
    /// Nanoseconds, printed as exact microseconds.
    Micros(i64),
    /// A float attribute.
    Float(f64),
    /// Text (name, category, a string attribute).
    Text(String),
    /// JSON text of an object attribute.
    Json(String),
}

impl Cell {
    fn csv(&self) -> String {
        match self {
            Cell::Int(i) => i.to_string(),
            Cell::Micros(ns) => fmt_us(*ns),
            Cell::Float(f) => format_float(*f),
            Cell::Text(t) | Cell::Json(t) => csv_field(t),
        }
    }

    fn json(&self) -> Value {
        match self {
            Cell::Int(i) => Value::from(*i),
            Cell::Micros(ns) => crate::output::render::json_us(*ns),
            Cell::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Cell::Text(t) => Value::from(t.clone()),
            Cell::Json(t) => serde_json::from_str(t).unwrap_or_else(|_| Value::from(t.clone())),
        }
    }

    pub(crate) fn plain(&self) -> String {
        match self {
            Cell::Text(t) | Cell::Json(t) => t.clone(),
            other => other.csv(),
        }
    }
}

/// `pid`/`tid` text: a number when it reads as one.
fn id_cell(text: &str) -> Cell {
    match text.parse::<i64>() {
        Ok(n) => Cell::Int(n),
        Err(_) => Cell::Text(text.to_string()),
    }
}

/// The column names: the core ones, then the attributes of the first file (every file of a side
/// has the same fixed attributes; with `--args all` the union is taken, missing ones empty, as
/// an event's key is where its file has the column but the event lacks the key).
pub(crate) fn columns(side: &Side, ranks: &[i64]) -> Vec<String> {
    let mut cols: Vec<String> = CORE_COLUMNS.iter().map(|s| s.to_string()).collect();
    for r in ranks {
        if let Some(f) = side.file_of_rank(*r) {
            for s in &f.attrs.specs {
                if !cols.contains(&s.column) {
                    cols.push(s.column.clone());
                }
            }
        }
    }
    cols
}

/// Writes the selected events of `side` in `format`. Returns the number of rows written.
/// Every format is written a row at a time; the table makes two passes (widths, then text).
pub(crate) fn write_events(
    side: &Side,
    resolved: &Resolved,
    filter: &EventFilter,
    format: EventsFormat,
    out: &mut dyn Write,
) -> Result<u64> {
    let cols = columns(side, &resolved.ranks);
    let io = |e: std::io::Error| Error::Output {
        path: "<output>".into(),
        source: e,
    };
    match format {
        EventsFormat::Csv => {
            writeln!(
                out,
                "{}",
                cols.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(",")
            )
            .map_err(io)?;
            each_row(side, resolved, filter, &cols, &mut |_, cells| {
                let line: Vec<String> = cells
                    .iter()
                    .map(|c| c.as_ref().map_or(String::new(), Cell::csv))
                    .collect();
                writeln!(out, "{}", line.join(","))
            })
            .map_err(io)
        }
        EventsFormat::Jsonl | EventsFormat::Json => {
            let array = format == EventsFormat::Json;
            if array {
                out.write_all(b"[").map_err(io)?;
            }
            let written = each_row(side, resolved, filter, &cols, &mut |k, cells| {
                let mut obj = Map::new();
                for (name, cell) in cols.iter().zip(cells) {
                    obj.insert(name.clone(), cell.as_ref().map_or(Value::Null, Cell::json));
                }
                let text = serde_json::to_string(&Value::Object(obj)).unwrap_or_default();
                if array {
                    let sep = if k == 0 { "\n" } else { ",\n" };
                    write!(out, "{sep}{text}")
                } else {
                    writeln!(out, "{text}")
                }
            })
            .map_err(io)?;
            if array {
                out.write_all(b"\n]\n").map_err(io)?;
            }
            Ok(written)
        }
        EventsFormat::Parquet => Err(Error::usage("--format parquet writes a file: give -o FILE")),
        EventsFormat::Table => write_events_table(side, resolved, filter, usize::MAX, out),
    }
}

/// Writes the selected events of `side` as a table fitted to `width` display columns
/// (`usize::MAX`: whole). When the columns do not fit, names are cut in the middle and the
/// attribute columns go first (rightmost first), then `partner`, `correlation`, `stream`,
/// `pid`, `iteration` and `rank`; a last line names what was left out. Two passes over the
/// rows (widths, then text). Returns the number of rows written.
pub(crate) fn write_events_table(
    side: &Side,
    resolved: &Resolved,
    filter: &EventFilter,
    width: usize,
    out: &mut dyn Write,
) -> Result<u64> {
    const NAME: usize = 2;
    let cols = columns(side, &resolved.ranks);
    let io = |e: std::io::Error| Error::Output {
        path: "<output>".into(),
        source: e,
    };
    let mut table = Columns::unruled(vec![false; cols.len()]);
    for (k, c) in cols.iter().enumerate() {
        table.fit(k, c);
    }
    each_row(side, resolved, filter, &cols, &mut |_, cells| {
        for (k, c) in cells.iter().enumerate() {
            table.fit(k, &c.as_ref().map_or(String::new(), Cell::plain));
        }
        Ok(())
    })
    .map_err(io)?;
    let shown = shown_columns(&mut table, cols.len(), width);
    let pick = |cells: Vec<String>| -> Vec<String> {
        cells
            .into_iter()
            .zip(&shown)
            .filter(|(_, s)| **s)
            .map(|(c, _)| c)
            .collect()
    };
    let mut fitted = Columns::unruled(vec![false; shown.iter().filter(|s| **s).count()]);
    fitted.widths = table
        .widths
        .iter()
        .zip(&shown)
        .filter(|(_, s)| **s)
        .map(|(w, _)| *w)
        .collect();
    let name_width = table.widths[NAME];
    let header = pick(cols.clone());
    fitted
        .row(&header.iter().map(String::as_str).collect::<Vec<_>>(), out)
        .map_err(io)?;
    let written = each_row(side, resolved, filter, &cols, &mut |_, cells| {
        let mut texts: Vec<String> = cells
            .iter()
            .map(|c| c.as_ref().map_or(String::new(), Cell::plain))
            .collect();
        texts[NAME] = super::render::default_cut(&texts[NAME], name_width);
        let texts = pick(texts);
        fitted.row(&texts.iter().map(String::as_str).collect::<Vec<_>>(), out)
    })
    .map_err(io)?;
    let hidden: Vec<&str> = cols
        .iter()
        .zip(&shown)
        .filter(|(_, s)| !**s)
        .map(|(c, _)| c.as_str())
        .collect();
    if !hidden.is_empty() {
        let line = format!(
            "not shown at this width: {}; --format csv or -o FILE has every column",
            hidden.join(", ")
        );
        writeln!(out, "{}", super::render::wrap_line(&line, width)).map_err(io)?;
    }
    Ok(written)
}

/// Which of the `count` columns of `table` (their widths measured) are shown in `width`: the
/// attribute columns go first (rightmost first), then `partner`, `correlation`, `stream`,
/// `pid`, `iteration` and `rank`, and the name (column 2) is cut to what they leave (set in
/// `table`'s widths).
fn shown_columns(table: &mut Columns, count: usize, width: usize) -> Vec<bool> {
    const NAME: usize = 2;
    let mut shown = vec![true; count];
    if width != usize::MAX && table.total() > width {
        let longest = table.widths[NAME];
        let mut values = table.widths.clone();
        values[NAME] = 0;
        let attrs: Vec<Vec<usize>> = (CORE_COLUMNS.len()..count).rev().map(|k| vec![k]).collect();
        let mut order: Vec<&[usize]> = attrs.iter().map(Vec::as_slice).collect();
        order.extend([&[10][..], &[9], &[8], &[4], &[11], &[1]]);
        // The name's own column counts as a value of width 0 (its padding) above.
        let (keep, name_width) = super::render::fit_columns(longest, &values, 0, &order, width + 2);
        shown = keep;
        shown[NAME] = true;
        table.widths[NAME] = name_width;
    }
    shown
}

/// What [`each_row`] calls: the row's number and cells.
pub(crate) type RowFn<'a> = dyn FnMut(u64, &[Option<Cell>]) -> std::io::Result<()> + 'a;

/// Calls `f` with the number and cells of each selected event, in rank and file order.
/// Returns the number of events.
pub(crate) fn each_row(
    side: &Side,
    resolved: &Resolved,
    filter: &EventFilter,
    cols: &[String],
    f: &mut RowFn<'_>,
) -> std::io::Result<u64> {
    let mut rows = 0u64;
    let steps = Selected::new(resolved.iterations.as_deref());
    for &rank in &resolved.ranks {
        let Some(file) = side.file_of_rank(rank) else { continue };
        let partners = partner_rows(&file.events);
        let attr_index: Vec<Option<usize>> = cols[CORE_COLUMNS.len()..]
            .iter()
            .map(|c| file.attrs.column(c).map(|(k, _)| k))
            .collect();
        for i in 0..file.events.len() {
            if admits(file, i, &steps, filter) {
                f(rows, &row(file, i, rank, &partners, &attr_index))?;
                rows += 1;
            }
        }
    }
    Ok(rows)
}

/// Why no event was listed: the first filter that leaves none, in the order iterations,
/// `--device`, `--cat`, `--name`.
pub(crate) fn why_no_events(side: &Side, resolved: &Resolved, filter: &EventFilter) -> String {
    let mut left = [0u64; 4];
    let selected = Selected::new(resolved.iterations.as_deref());
    for &rank in &resolved.ranks {
        let Some(file) = side.file_of_rank(rank) else { continue };
        let ev = &file.events;
        for i in 0..ev.len() {
            let steps = selected.admits(ev.iteration.get(i));
            let device = steps && filter.device.admits(ev.place[i]);
            let cat =
                device && (filter.cats.is_empty() || filter.cats.iter().any(|c| c == file.strings.resolve(ev.cat[i])));
            let name = cat
                && filter
                    .name
                    .as_ref()
                    .is_none_or(|re| re.is_match(file.strings.resolve(ev.name[i])));
            for (k, passed) in [steps, device, cat, name].into_iter().enumerate() {
                left[k] += u64::from(passed);
            }
        }
    }
    let before = |k: usize| {
        let word = if left[k] == 1 { "event" } else { "events" };
        format!("{} {word}", crate::text::fmt_count(left[k]))
    };
    if left[0] == 0 {
        "no events: the selected ranks and iterations hold none".to_string()
    } else if left[1] == 0 {
        format!(
            "no events: --device {} removed all {} of the selected ranks and iterations",
            filter.device,
            before(0)
        )
    } else if left[2] == 0 {
        let cats: Vec<String> = filter.cats.iter().map(|c| format!("'{c}'")).collect();
        format!(
            "no events: --cat {} matched none of the {} left",
            cats.join(", "),
            before(1)
        )
    } else {
        let re = filter.name.as_ref().map_or("", |r| r.as_str());
        format!("no events: --name '{re}' matched none of the {} left", before(2))
    }
}

fn admits(file: &TraceFile, i: usize, steps: &Selected, filter: &EventFilter) -> bool {
    let ev = &file.events;
    if !steps.admits(ev.iteration.get(i)) {
        return false;
    }
    if !filter.device.admits(ev.place[i]) {
        return false;
    }
    if !filter.cats.is_empty() && !filter.cats.iter().any(|c| c == file.strings.resolve(ev.cat[i])) {
        return false;
    }
    filter
        .name
        .as_ref()
        .is_none_or(|re| re.is_match(file.strings.resolve(ev.name[i])))
}

fn row(
    file: &TraceFile,
    i: usize,
    rank: i64,
    partners: &[Option<usize>],
    attr_index: &[Option<usize>],
) -> Vec<Option<Cell>> {
    let ev = &file.events;
    let s = &file.strings;
    let mut cells = vec![
        Some(Cell::Int(i64::from(ev.index[i]))),
        Some(Cell::Int(rank)),
        Some(Cell::Text(s.resolve(ev.name[i]).to_string())),
        Some(Cell::Text(s.resolve(ev.cat[i]).to_string())),
        Some(id_cell(s.resolve(ev.pid[i]))),
        Some(id_cell(s.resolve(ev.tid[i]))),
        Some(Cell::Micros(ev.ts_ns[i])),
        Some(Cell::Micros(ev.dur_ns[i])),
        Some(Cell::Int(ev.stream.get(i))),
        Some(Cell::Int(ev.correlation.get(i))),
        Some(Cell::Int(partners[i].map_or(-1, |p| i64::from(ev.index[p])))),
        Some(Cell::Int(ev.iteration.get(i))),
    ];
    // A key an event lacks is null in a column made from the data, as in a file without it.
    for k in attr_index.iter().map(|k| k.filter(|&k| file.attrs.has_value(k, i))) {
        cells.push(k.map(|k| {
            let spec = &file.attrs.specs[k];
            match file.attrs.columns[k].get(i) {
                AttrValue::Int(v) => Cell::Int(v),
                AttrValue::Float(v) => Cell::Float(v),
                AttrValue::Text(id) if spec.ty == AttrType::Object => Cell::Json(s.resolve(id).to_string()),
                AttrValue::Text(id) => Cell::Text(s.resolve(id).to_string()),
            }
        }));
    }
    cells
}
