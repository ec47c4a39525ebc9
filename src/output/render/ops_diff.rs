//! The ops-diff lists (HTA `ops_diff`): names per category.

use super::{Format, csv_field};
use crate::analysis::diff::{Category, Comparison, Row, SortKey, sort_rows};
use serde::Serialize;
use std::io::{self, Write};

/// The names of each chosen category, in output order.
#[derive(Debug, Clone)]
pub struct OpsDiffView<'a> {
    /// Each category asked for with its rows, sorted and cut to `--top`.
    pub lists: Vec<(Category, Vec<&'a Row>)>,
    /// How many rows each category has before `--top`.
    pub totals: Vec<usize>,
}

impl<'a> OpsDiffView<'a> {
    /// The rows of each of `categories` (in that order), sorted by `sort`, at most `top` each.
    pub fn new(comparison: &'a Comparison, categories: &[Category], sort: SortKey, top: Option<usize>) -> Self {
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
/// Markdown), `category,name` lines (CSV) or one JSON object of lists. Fails only when `out`
/// does.
pub fn render(view: &OpsDiffView<'_>, format: Format, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Table => {
            for (k, (cat, rows)) in view.lists.iter().enumerate() {
                if k > 0 {
                    writeln!(out)?;
                }
                let more = if rows.len() < view.totals[k] {
                    format!(", showing {}", super::fmt_count(rows.len()))
                } else {
                    String::new()
                };
                writeln!(out, "{cat} ({}{more}):", super::fmt_count(view.totals[k]))?;
                write_sized(rows, out)?;
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
                writeln!(out, "### {cat} ({})\n", view.totals[k])?;
                for r in rows {
                    writeln!(out, "- `{}`", r.name.replace('`', "'"))?;
                }
                if rows.is_empty() {
                    writeln!(out, "_none_")?;
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
fn write_sized(rows: &[&Row], out: &mut dyn Write) -> io::Result<()> {
    let per_step = rows.iter().any(|r| r.per_step.is_some());
    let unit = if per_step { "/step" } else { "" };
    let cells: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            let delta = format!("{}{unit}", crate::text::fmt_duration(r.shown_diff_dur_ns(), true));
            (delta, format!("{} → {}", r.shown_count(0), r.shown_count(1)))
        })
        .collect();
    let width = |f: fn(&(String, String)) -> &String| cells.iter().map(|c| f(c).chars().count()).max().unwrap_or(0);
    let (w_delta, w_calls) = (width(|c| &c.0), width(|c| &c.1));
    for (r, (delta, calls)) in rows.iter().zip(&cells) {
        writeln!(out, "  {delta:>w_delta$}  {calls:>w_calls$} calls  {}", r.name)?;
    }
    Ok(())
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
