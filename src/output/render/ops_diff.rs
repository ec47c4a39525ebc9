//! The ops-diff lists (HTA `ops_diff`): names per category.

use super::{Format, csv_field, md_cell, md_name};
use crate::analysis::diff::{Category, Comparison, Row, SortKey, sort_rows};
use serde::Serialize;
use std::io::{self, Write};

/// The names of each chosen category, in output order.
#[derive(Debug, Clone)]
pub(crate) struct OpsDiffView<'a> {
    /// Each category asked for with its rows, sorted and cut to `--top`.
    pub lists: Vec<(Category, Vec<&'a Row>)>,
    /// How many rows each category has before `--top`.
    pub totals: Vec<usize>,
}

impl<'a> OpsDiffView<'a> {
    /// The rows of each of `categories` (in that order), sorted by `sort`, at most `top` each.
    pub(crate) fn new(comparison: &'a Comparison, categories: &[Category], sort: SortKey, top: Option<usize>) -> Self {
        let mut lists = Vec::new();
        let mut totals = Vec::new();
        for &cat in categories {
            let mut rows: Vec<&Row> = comparison.in_category(cat).collect();
            sort_rows(&mut rows, sort);
            totals.push(rows.len());
            if let Some(n) = top {
                rows.truncate(n);
            }
            lists.push((cat, rows));
        }
        OpsDiffView { lists, totals }
    }
}

/// Writes the lists to `out` in `format`: per category a heading and its names (table,
/// Markdown), `category,name` lines (CSV) or one JSON object of lists; the table's lines fit
/// `width` (`usize::MAX`: names whole). Fails only when `out` does.
pub(crate) fn render(view: &OpsDiffView<'_>, format: Format, width: usize, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Table => {
            for (k, (cat, rows)) in view.lists.iter().enumerate() {
                if k > 0 {
                    writeln!(out)?;
                }
                writeln!(out, "{cat} ({}):", shown_of(rows.len(), view.totals[k]))?;
                write_sized(rows, width, out)?;
            }
        }
        Format::Csv => {
            writeln!(out, "category,name")?;
            for (cat, rows) in &view.lists {
                for r in rows {
                    writeln!(out, "{cat},{}", csv_field(&r.name))?;
                }
            }
        }
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, &Lists(&view.lists)).map_err(io::Error::from)?;
            writeln!(out)?;
        }
        Format::Markdown => {
            for (k, (cat, rows)) in view.lists.iter().enumerate() {
                writeln!(out, "### {cat} ({})\n", shown_of(rows.len(), view.totals[k]))?;
                if rows.is_empty() {
                    writeln!(out, "_none_\n")?;
                    continue;
                }
                // The sizes as the table shows them, the names as every command's Markdown.
                writeln!(out, "| Δ time | calls | name |\n|---:|---:|---|")?;
                for (r, (delta, calls)) in rows.iter().zip(sizes(rows)) {
                    writeln!(
                        out,
                        "| {} | {} | {} |",
                        md_cell(&delta),
                        md_cell(&calls),
                        md_name(&r.name)
                    )?;
                }
                writeln!(out)?;
            }
        }
    }
    Ok(())
}

/// A category's rows, one a line: the change of time and the calls on both sides in aligned
/// columns, then the name (last, so that a long kernel name does not push the sizes out of
/// line). Per step where the rows hold per-step values, as compare's table.
fn write_sized(rows: &[&Row], width: usize, out: &mut dyn Write) -> io::Result<()> {
    let cells = sizes(rows);
    let widest = |f: fn(&(String, String)) -> &String| cells.iter().map(|c| f(c).chars().count()).max().unwrap_or(0);
    let (w_delta, w_calls) = (widest(|c| &c.0), widest(|c| &c.1));
    // The names get what the sizes leave of the width, shortened as every table's names are.
    let room = width.saturating_sub(w_delta + w_calls + 12).max(super::MIN_NAME_WIDTH);
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    let shown = if width == usize::MAX {
        names.iter().map(|n| n.to_string()).collect()
    } else {
        super::distinct_cuts(&names, room)
    };
    for ((delta, calls), name) in cells.iter().zip(shown) {
        writeln!(out, "  {delta:>w_delta$}  {calls:>w_calls$} calls  {name}")?;
    }
    Ok(())
}

/// `7` of a category's whole list, `7, showing 3` where `--top` cut it.
fn shown_of(shown: usize, total: usize) -> String {
    if shown < total {
        format!("{}, showing {}", super::fmt_count(total), super::fmt_count(shown))
    } else {
        super::fmt_count(total)
    }
}

/// Each row's change of time (per step where the rows hold per-step values) and its calls on
/// both sides: `+100 µs/step`, `1 → 1`.
fn sizes(rows: &[&Row]) -> Vec<(String, String)> {
    let per_step = rows.iter().any(|r| r.per_step.is_some());
    let unit = if per_step { "/step" } else { "" };
    rows.iter()
        .map(|r| {
            let delta = format!("{}{unit}", crate::text::fmt_duration(r.shown_diff_dur_ns(), true));
            (delta, format!("{} → {}", r.shown_count(0), r.shown_count(1)))
        })
        .collect()
}

/// `{"added": [names…], …}` in category order, the names borrowed from the rows.
struct Lists<'a>(&'a [(Category, Vec<&'a Row>)]);

impl Serialize for Lists<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(
            self.0
                .iter()
                .map(|(cat, rows)| (cat.as_str(), rows.iter().map(|r| r.name.as_str()).collect::<Vec<_>>())),
        )
    }
}
