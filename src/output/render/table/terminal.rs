//! A table as aligned text for a terminal: the title lines wrapped to the width, the columns
//! laid out as [`Columns`] does with the first column the rows' names, cut to what the value
//! columns leave, and value columns dropped a group at a time where the names would get too
//! little room (docs/commands.md#terminal-width); then the notes, wrapped.

use super::{Align, Cell, Table};
use crate::output::paint;
use crate::output::render::columns::{Columns, text_width};
use crate::output::render::cuts::Cuts;
use crate::output::render::{Format, elide_middle, fit_columns, wrap_line};
use std::borrow::Cow;
use std::io::{self, Write};

/// Cuts names to a width, all at once.
pub(crate) type CutFn = dyn Fn(&[&str], usize) -> Vec<String>;

/// How a table fits a terminal.
pub(crate) struct Layout<'c> {
    /// Whether significant rows stand out in colour ([`crate::output::paint`]): red where
    /// their time grew, green where it shrank.
    pub color: bool,
    /// The width to fit in; `usize::MAX` keeps every name whole and every column.
    pub width: usize,
    /// How the names and the value columns share it.
    pub fit: Fit<'c>,
}

/// How the names and the value columns share a terminal's width.
pub(crate) enum Fit<'c> {
    /// Names get what the value columns leave, down to [`crate::output::render::MIN_NAME_WIDTH`];
    /// below that, value columns are dropped a group at a time.
    Drop {
        /// Groups of value columns (indices among the shown columns after the names) dropped
        /// in this order while the names would get too few columns.
        drop_order: &'c [&'c [usize]],
        /// Cuts names to a width, distinct names staying distinct; `None`: as [`Cuts`] does,
        /// a name at a time as it is written.
        cut: Option<&'c CutFn>,
        /// Whether the name column is at least as wide as its header (`false`: as wide as the
        /// names are cut to, the header running over).
        widen_to_header: bool,
    },
    /// Every column stays; names are cut in the middle to what the others leave, never to
    /// fewer than `min` columns.
    Elide {
        /// The fewest columns a name is cut to.
        min: usize,
    },
}

/// Writes `table` for a terminal to `out`, fitted by `layout`; a table without rows reads
/// `(no rows)`.
pub(crate) fn write(table: &Table<'_>, layout: &Layout<'_>, out: &mut dyn Write) -> io::Result<()> {
    for line in table.title.iter().filter(|l| l.formats.has(Format::Table)) {
        let width = if table.wrap_title { layout.width } else { usize::MAX };
        writeln!(out, "{}", wrap_line(&line.text, width))?;
    }
    match layout.fit {
        Fit::Elide { min } => elided(table, layout.width, min, out)?,
        Fit::Drop { .. } if table.len() == 0 => writeln!(out, "(no rows)")?,
        Fit::Drop {
            drop_order,
            cut,
            widen_to_header,
        } => rows(
            table,
            (layout.width, layout.color),
            drop_order,
            cut,
            widen_to_header,
            out,
        )?,
    }
    for line in table.notes.iter().filter(|l| l.formats.has(Format::Table)) {
        writeln!(out, "{}", wrap_line(&line.text, layout.width))?;
    }
    Ok(())
}

/// The header, its rule and the rows ([`Fit::Drop`]): one pass to measure, one to write. The
/// names are read from the table's own [`Table::names`] where it has them (nothing copied), else
/// collected from the cells.
fn rows(
    table: &Table<'_>,
    (width, color): (usize, bool),
    drop_order: &[&[usize]],
    cut: Option<&CutFn>,
    widen_to_header: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let shown = table.shown(Format::Table);
    let (first, values) = (shown[0], &shown[1..]);
    let (widths, collected) = measure(table, first, values);
    let mut cells = Vec::new();
    let name = |i: usize| -> &str {
        match &table.names {
            Some(name) => name(i),
            None => &collected[i],
        }
    };
    let header_width = text_width(&table.columns[first].header);
    let longest = (0..table.len())
        .map(|i| text_width(name(i)))
        .max()
        .unwrap_or(0)
        .max(header_width);
    let (kept, name_width) = if width == usize::MAX {
        (vec![true; values.len()], longest)
    } else {
        fit_columns(longest, &widths, 1, drop_order, width)
    };
    let names = Names::new(table.len(), &name, name_width, (name_width < longest).then_some(cut));
    let (kept, kept_widths): (Vec<usize>, Vec<usize>) = values
        .iter()
        .zip(&widths)
        .zip(&kept)
        .filter(|(_, s)| **s)
        .map(|((&k, &w), _)| (k, w))
        .unzip();
    let mut cols = Columns::new(
        std::iter::once(false)
            .chain(kept.iter().map(|&k| table.columns[k].align == Align::Right))
            .collect(),
    );
    cols.widths[0] = if widen_to_header {
        (0..table.len())
            .map(|i| text_width(&names.get(i, name(i))))
            .max()
            .unwrap_or(0)
            .max(header_width)
    } else {
        name_width
    };
    cols.widths[1..].copy_from_slice(&kept_widths);
    let header: Vec<&str> = std::iter::once(first)
        .chain(kept.iter().copied())
        .map(|k| table.columns[k].header.as_str())
        .collect();
    cols.row(&header, out)?;
    cols.rule(out)?;
    for i in 0..table.len() {
        table.row(i, &mut cells);
        let shown = names.get(i, name(i));
        let texts: Vec<Cow<'_, str>> = kept
            .iter()
            .map(|&k| cells[k].text(&table.columns[k], Format::Table))
            .collect();
        let line: Vec<&str> = std::iter::once(shown.as_ref())
            .chain(texts.iter().map(|t| t.as_ref()))
            .collect();
        let mark = if color {
            standing_out(table, &kept, &cells)
        } else {
            None
        };
        marked_row(&mut cols, &line, mark, out)?;
    }
    Ok(())
}

/// A row's line, in its colour mark where it has one (the mark ends before the line break).
fn marked_row(cols: &mut Columns, line: &[&str], mark: Option<char>, out: &mut dyn Write) -> io::Result<()> {
    let Some(mark) = mark else {
        return cols.row(line, out);
    };
    let mut text = Vec::new();
    cols.row(line, &mut text)?;
    let body = text.strip_suffix(b"\n").unwrap_or(&text);
    write!(out, "{mark}")?;
    out.write_all(body)?;
    writeln!(out, "{}", paint::PLAIN)
}

/// How a row stands out in colour: where one of its `shown` cells marks it significant, as
/// slower or faster by the sign of its last signed duration (its Δ time).
fn standing_out(table: &Table<'_>, shown: &[usize], cells: &[Cell<'_>]) -> Option<char> {
    if !shown.iter().any(|&k| cells[k] == Cell::Mark(Some(true))) {
        return None;
    }
    let delta = shown.iter().rev().find_map(|&k| match cells[k] {
        Cell::Duration(ns) if table.columns[k].signed => Some(ns),
        _ => None,
    })?;
    match delta.signum() {
        1 => Some(paint::SLOWER),
        -1 => Some(paint::FASTER),
        _ => None,
    }
}

/// The widths of the value columns `values` (headers included), and the names of the first
/// column where the table does not lend them ([`Table::names`]).
fn measure<'a>(table: &Table<'a>, first: usize, values: &[usize]) -> (Vec<usize>, Vec<Cow<'a, str>>) {
    let mut widths: Vec<usize> = values.iter().map(|&k| text_width(&table.columns[k].header)).collect();
    let mut collected = Vec::new();
    let mut cells = Vec::new();
    for i in 0..table.len() {
        table.row(i, &mut cells);
        for (w, &k) in widths.iter_mut().zip(values) {
            *w = (*w).max(text_width(&cells[k].text(&table.columns[k], Format::Table)));
        }
        if table.names.is_none() {
            collected.push(match std::mem::replace(&mut cells[first], Cell::Empty) {
                Cell::Name(s) | Cell::Text(s) | Cell::Tree(s) => s,
                cell => Cow::Owned(cell.text(&table.columns[first], Format::Table).into_owned()),
            });
        }
    }
    (widths, collected)
}

/// The names as shown: whole, cut a name at a time ([`Cuts`]), or cut all at once by a
/// table's own way.
enum Names {
    Whole,
    Cuts(Cuts),
    Cut(Vec<String>),
}

impl Names {
    /// How `len` names (`name(i)`) are shown in `width` columns; `cut`: `None` where they fit
    /// whole, `Some(None)` cut by [`Cuts`], `Some(Some(f))` by `f`.
    fn new<'a>(len: usize, name: &dyn Fn(usize) -> &'a str, width: usize, cut: Option<Option<&CutFn>>) -> Names {
        match cut {
            None => Names::Whole,
            Some(None) => Names::Cuts(Cuts::new(len, name, width)),
            Some(Some(cut)) => {
                let names: Vec<&str> = (0..len).map(name).collect();
                Names::Cut(cut(&names, width))
            }
        }
    }

    /// Name `i` (`name`) as shown.
    fn get<'n>(&'n self, i: usize, name: &'n str) -> Cow<'n, str> {
        match self {
            Names::Whole => Cow::Borrowed(name),
            Names::Cuts(cuts) => cuts.cut(i, name),
            Names::Cut(cut) => Cow::Borrowed(&cut[i]),
        }
    }
}

/// The header, its rule and the rows ([`Fit::Elide`]): every column, the names cut in the
/// middle to what the others leave of `width`, never under `min`.
fn elided(table: &Table<'_>, width: usize, min: usize, out: &mut dyn Write) -> io::Result<()> {
    let shown = table.shown(Format::Table);
    let mut cols = Columns::new(shown.iter().map(|&k| table.columns[k].align == Align::Right).collect());
    for (n, &k) in shown.iter().enumerate() {
        cols.fit(n, &table.columns[k].header);
    }
    let mut cells = Vec::new();
    for i in 0..table.len() {
        table.row(i, &mut cells);
        for (n, &k) in shown.iter().enumerate() {
            cols.fit(n, &cells[k].text(&table.columns[k], Format::Table));
        }
    }
    let rest = cols.total() - cols.widths[0];
    let name_width = width.saturating_sub(rest).max(min).min(cols.widths[0]);
    cols.widths[0] = name_width;
    let header: Vec<&str> = shown.iter().map(|&k| table.columns[k].header.as_str()).collect();
    cols.row(&header, out)?;
    cols.rule(out)?;
    for i in 0..table.len() {
        table.row(i, &mut cells);
        let mut texts: Vec<Cow<'_, str>> = shown
            .iter()
            .map(|&k| cells[k].text(&table.columns[k], Format::Table))
            .collect();
        texts[0] = Cow::Owned(elide_middle(&texts[0], name_width));
        let line: Vec<&str> = texts.iter().map(|t| t.as_ref()).collect();
        cols.row(&line, out)?;
    }
    Ok(())
}
