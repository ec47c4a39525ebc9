//! The ops-diff lists (HTA `ops_diff`): names per category.

use super::{Format, csv_field};
use crate::analysis::diff::{Category, Comparison, Row, SortKey, sort_rows};
use serde_json::{Map, Value};
use std::fmt::Write;

/// The names of each chosen category, in output order.
#[derive(Debug, Clone)]
pub struct OpsDiffView<'a> {
    pub comparison: &'a Comparison,
    pub lists: Vec<(Category, Vec<&'a Row>)>,
    /// How many rows each category has before `--top`.
    pub totals: Vec<usize>,
}

impl<'a> OpsDiffView<'a> {
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
        OpsDiffView {
            comparison,
            lists,
            totals,
        }
    }
}

pub fn render(view: &OpsDiffView<'_>, format: Format) -> String {
    let mut out = String::new();
    match format {
        Format::Table => {
            for (k, (cat, rows)) in view.lists.iter().enumerate() {
                if k > 0 {
                    out.push('\n');
                }
                let more = if rows.len() < view.totals[k] {
                    format!(", showing {}", rows.len())
                } else {
                    String::new()
                };
                let _ = writeln!(out, "{cat} ({}{more}):", view.totals[k]);
                for r in rows {
                    let _ = writeln!(out, "  {}", r.name);
                }
            }
        }
        Format::Csv => {
            out.push_str("category,name\n");
            for (cat, rows) in &view.lists {
                for r in rows {
                    let _ = writeln!(out, "{cat},{}", csv_field(&r.name));
                }
            }
        }
        Format::Json => {
            let mut obj = Map::new();
            for (cat, rows) in &view.lists {
                let names: Vec<Value> = rows.iter().map(|r| Value::from(r.name.clone())).collect();
                obj.insert(cat.as_str().to_string(), Value::Array(names));
            }
            out = serde_json::to_string_pretty(&Value::Object(obj)).unwrap_or_default();
            out.push('\n');
        }
        Format::Markdown => {
            for (k, (cat, rows)) in view.lists.iter().enumerate() {
                let _ = writeln!(out, "### {cat} ({})\n", view.totals[k]);
                for r in rows {
                    let _ = writeln!(out, "- `{}`", r.name.replace('`', "'"));
                }
                if rows.is_empty() {
                    out.push_str("_none_\n");
                }
                out.push('\n');
            }
        }
    }
    out
}
