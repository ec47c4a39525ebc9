//! One table model for every tabular result (docs/architecture.md#tables): columns that know
//! their names in each format, rows of typed cells, and the lines around the table; one
//! renderer per format ([`terminal`], [`csv`], [`json`], [`markdown`]) over it. A result
//! describes its table once, and the renderers decide how a duration, a count or a
//! significance mark reads in each format.
//!
//! A column may show in some formats only ([`Formats`]): the JSON rows carry the raw values
//! where the terminal shows the measure picked by `--time`, for instance. Rows are made on
//! demand, one at a time ([`Table::row`]), so that CSV and JSON are written row by row and a
//! table of a million rows never exists as cells in memory.

pub(crate) mod csv;
pub(crate) mod json;
pub(crate) mod markdown;
pub(crate) mod terminal;

use super::{Format, fmt_signed, fmt_us, json_us};
use crate::analysis::diff::fmt_rate;
use std::borrow::Cow;

/// The formats that show a column or a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Formats(u8);

impl Formats {
    /// The aligned terminal table.
    pub(crate) const TERMINAL: Formats = Formats(1);
    /// CSV.
    pub(crate) const CSV: Formats = Formats(2);
    /// The rows of the JSON document.
    pub(crate) const JSON: Formats = Formats(4);
    /// Markdown.
    pub(crate) const MARKDOWN: Formats = Formats(8);
    /// Every format.
    pub(crate) const ALL: Formats = Formats(15);

    /// Whether `format` is one of these.
    pub(crate) fn has(self, format: Format) -> bool {
        let bit = match format {
            Format::Table => Formats::TERMINAL,
            Format::Csv => Formats::CSV,
            Format::Json => Formats::JSON,
            Format::Markdown => Formats::MARKDOWN,
        };
        self.0 & bit.0 != 0
    }
}

impl std::ops::BitOr for Formats {
    type Output = Formats;
    fn bitor(self, other: Formats) -> Formats {
        Formats(self.0 | other.0)
    }
}

/// Where a column's cells sit in their width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    /// Names and words.
    Left,
    /// Numbers.
    Right,
}

/// A column: its name in each format, its alignment, and how its cells read.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    /// The key of the JSON rows (`control_calls`).
    pub key: String,
    /// The CSV header (HTA's, with the sides' labels: `base_calls`).
    pub csv: String,
    /// The terminal header, lines separated by `\n` (`base\ncalls`).
    pub header: String,
    /// The Markdown header, escaped as it is written (`base\_calls`).
    pub markdown: String,
    /// Left or right.
    pub align: Align,
    /// Left or right in Markdown (as `align` unless said otherwise).
    pub markdown_align: Align,
    /// Whether an empty Markdown header is written without the blank of a named one (`| |`,
    /// not `|  |`).
    pub markdown_bare: bool,
    /// A change: counts and durations carry their sign for people (`+3`, `+1.50 ms`).
    pub signed: bool,
    /// What an empty cell reads as for people (`-`, or nothing).
    pub blank: &'static str,
    /// The formats that show it.
    pub formats: Formats,
}

impl Column {
    /// A column named `key` in JSON and `csv` in CSV, headed `header` in the terminal and
    /// Markdown (its lines joined by a space, escaped), right-aligned, in every format.
    pub(crate) fn new(key: impl Into<String>, csv: impl Into<String>, header: impl Into<String>) -> Column {
        let header = header.into();
        Column {
            key: key.into(),
            csv: csv.into(),
            markdown: super::md_cell(&header.replace('\n', " ")),
            header,
            align: Align::Right,
            markdown_align: Align::Right,
            markdown_bare: false,
            signed: false,
            blank: "-",
            formats: Formats::ALL,
        }
    }

    /// The same, shown only in `formats`.
    pub(crate) fn only(self, formats: Formats) -> Column {
        Column { formats, ..self }
    }

    /// The same, aligned left.
    pub(crate) fn left(self) -> Column {
        Column {
            align: Align::Left,
            markdown_align: Align::Left,
            ..self
        }
    }

    /// The same, aligned left in Markdown only (words a terminal lines up on the right).
    pub(crate) fn left_in_markdown(self) -> Column {
        Column {
            markdown_align: Align::Left,
            ..self
        }
    }

    /// The same, a change (signed for people).
    pub(crate) fn signed(self) -> Column {
        Column { signed: true, ..self }
    }

    /// The same, with empty cells blank for people (not `-`).
    pub(crate) fn blank(self, blank: &'static str) -> Column {
        Column { blank, ..self }
    }

    /// The same, with no Markdown header, written `| |`.
    pub(crate) fn markdown_bare(self) -> Column {
        Column {
            markdown: String::new(),
            markdown_bare: true,
            ..self
        }
    }

    /// The same, with its Markdown header as given (already escaped).
    pub(crate) fn markdown(self, markdown: impl Into<String>) -> Column {
        Column {
            markdown: markdown.into(),
            ..self
        }
    }
}

/// One cell, typed: each format writes it its own way.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Cell<'a> {
    /// No value: the column's blank for people, empty in CSV, `null` in JSON.
    Empty,
    /// No value, and no key in the JSON row (nothing elsewhere).
    Absent,
    /// A whole count.
    Int(i64),
    /// A count per step: up to two decimals for people and in CSV, a number in JSON.
    Rate(f64),
    /// A duration in ns: `1.50 ms` for people, exact µs in CSV and JSON.
    Duration(i64),
    /// A relative change as text (`+1.5%`, `new`, `gone`): a string in JSON.
    Percent(String),
    /// A share of 0–1: `12.3%` for people, four decimals in CSV, a number in JSON.
    Share(f64),
    /// A word (a category, a class).
    Text(Cow<'a, str>),
    /// A name: cut to fit in the terminal, code in Markdown, quoted in CSV where it must be.
    Name(Cow<'a, str>),
    /// Whether a change is significant: `*` for people, `true`/`false` in CSV, a boolean in
    /// JSON; empty or `null` where it could not be judged.
    Mark(Option<bool>),
    /// A JSON value of its own (per-step values): in JSON only.
    Json(serde_json::Value),
    /// Text written as it is in every format, Markdown too (a rule, a threshold `> 10%`, which
    /// hold no Markdown); quoted in CSV where it must be, a string in JSON.
    Plain(Cow<'a, str>),
    /// Whether a check passed: `pass` or `FAIL` for people (`**FAIL**` in Markdown), `pass` or
    /// `fail` in CSV, a boolean in JSON.
    Verdict(bool),
    /// A node of a tree, its drawing before its name (`│  ├─ Linear[0]`): as it is for people,
    /// its blanks no-break spaces in Markdown (which trims plain ones), a string elsewhere.
    Tree(Cow<'a, str>),
    /// A value already worded for people (`1.2 GiB`, `12.3%`, an indented node), with the
    /// value CSV and JSON carry (a string quoted in CSV where it must be, a number whole, `null`
    /// empty).
    Shown(String, serde_json::Value),
}

impl Cell<'_> {
    /// The text of the cell in `format` (not JSON) under `column`.
    pub(crate) fn text(&self, column: &Column, format: Format) -> Cow<'_, str> {
        let people = matches!(format, Format::Table | Format::Markdown);
        match self {
            Cell::Empty if people => Cow::Borrowed(column.blank),
            Cell::Empty | Cell::Absent | Cell::Json(_) => Cow::Borrowed(""),
            Cell::Int(n) if people && column.signed => Cow::Owned(fmt_signed(*n)),
            Cell::Int(n) => Cow::Owned(n.to_string()),
            Cell::Rate(v) => {
                let text = fmt_rate(*v);
                if people && column.signed && *v > 0.0 && text != "0" {
                    Cow::Owned(format!("+{text}"))
                } else {
                    Cow::Owned(text)
                }
            }
            Cell::Duration(ns) if people => Cow::Owned(super::fmt_duration(*ns, column.signed)),
            Cell::Duration(ns) => Cow::Owned(fmt_us(*ns)),
            Cell::Percent(s) => Cow::Borrowed(s),
            Cell::Share(s) if people => Cow::Owned(format!("{:.1}%", s * 100.0)),
            Cell::Share(s) => Cow::Owned(format!("{s:.4}")),
            Cell::Text(s) | Cell::Name(s) | Cell::Tree(s) | Cell::Plain(s) => Cow::Borrowed(s),
            Cell::Verdict(pass) => Cow::Borrowed(match (pass, people) {
                (true, _) => "pass",
                (false, true) => "FAIL",
                (false, false) => "fail",
            }),
            Cell::Mark(m) if people => Cow::Borrowed(if *m == Some(true) { "*" } else { "" }),
            Cell::Mark(m) => Cow::Borrowed(match m {
                Some(true) => "true",
                Some(false) => "false",
                None => "",
            }),
            Cell::Shown(text, _) if people => Cow::Borrowed(text),
            Cell::Shown(_, serde_json::Value::Null) => Cow::Borrowed(""),
            Cell::Shown(_, serde_json::Value::String(s)) => Cow::Borrowed(s),
            Cell::Shown(_, v) => Cow::Owned(v.to_string()),
        }
    }

    /// The cell as a JSON value (`None`: [`Cell::Absent`], no key).
    pub(crate) fn json(&self) -> Option<serde_json::Value> {
        use serde_json::Value;
        Some(match self {
            Cell::Absent => return None,
            Cell::Empty | Cell::Mark(None) => Value::Null,
            Cell::Int(n) => Value::from(*n),
            Cell::Rate(v) | Cell::Share(v) => Value::from(*v),
            Cell::Duration(ns) => json_us(*ns),
            Cell::Percent(s) => Value::from(s.as_str()),
            Cell::Text(s) | Cell::Name(s) | Cell::Tree(s) | Cell::Plain(s) => Value::from(s.as_ref()),
            Cell::Mark(Some(b)) | Cell::Verdict(b) => Value::from(*b),
            Cell::Json(v) | Cell::Shown(_, v) => v.clone(),
        })
    }
}

/// A line above or below a table (a side, the filters, a summary), in the formats that show it.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    /// The text, unescaped.
    pub text: String,
    /// The formats that show it (the terminal and Markdown only ever do).
    pub formats: Formats,
}

impl Line {
    /// A line in the terminal and in Markdown.
    pub(crate) fn new(text: impl Into<String>) -> Line {
        Line {
            text: text.into(),
            formats: Formats::TERMINAL | Formats::MARKDOWN,
        }
    }

    /// A line in the terminal only.
    pub(crate) fn terminal(text: impl Into<String>) -> Line {
        Line {
            text: text.into(),
            formats: Formats::TERMINAL,
        }
    }
}

/// Makes row `i`'s cells, one per column, into the vector given (cleared first).
type RowFn<'a> = dyn Fn(usize, &mut Vec<Cell<'a>>) + 'a;

/// Gives row `i`'s name.
type NameFn<'a> = dyn Fn(usize) -> &'a str + 'a;

/// A table: lines above it, columns, rows made on demand, lines below it.
pub(crate) struct Table<'a> {
    /// The columns, in order; each format keeps those it shows.
    pub columns: Vec<Column>,
    /// The lines above the table (terminal and Markdown).
    pub title: Vec<Line>,
    /// Whether the terminal's title lines are wrapped to the width (else written whole).
    pub wrap_title: bool,
    /// The lines below the table (terminal and Markdown).
    pub notes: Vec<Line>,
    /// The text of row `i`'s first terminal column, borrowed from the result where it can be
    /// (the terminal then cuts names without a copy of them); `None`: taken from the cells.
    pub names: Option<Box<NameFn<'a>>>,
    len: usize,
    row: Box<RowFn<'a>>,
}

impl<'a> Table<'a> {
    /// A table of `len` rows under `columns`, row `i`'s cells made by `row(i, cells)`.
    pub(crate) fn new(columns: Vec<Column>, len: usize, row: impl Fn(usize, &mut Vec<Cell<'a>>) + 'a) -> Table<'a> {
        Table {
            columns,
            title: Vec::new(),
            wrap_title: true,
            notes: Vec::new(),
            names: None,
            len,
            row: Box::new(row),
        }
    }

    /// The number of rows.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Row `i`'s cells, one per column, into `cells`.
    pub(crate) fn row(&self, i: usize, cells: &mut Vec<Cell<'a>>) {
        cells.clear();
        (self.row)(i, cells);
    }

    /// The indices of the columns `format` shows.
    pub(crate) fn shown(&self, format: Format) -> Vec<usize> {
        (0..self.columns.len())
            .filter(|&k| self.columns[k].formats.has(format))
            .collect()
    }
}

#[cfg(test)]
mod tests;
