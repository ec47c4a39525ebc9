//! Writing a summary as Parquet, whole or not at all ([`save_summary`]): the columns of
//! [`crate::analysis::summaries::schema`], everything else as JSON under the
//! `crate::model::summary::SUMMARY_META_KEY` key-value metadata, and the rows' checksum
//! ([`crate::analysis::summaries::encode`] writes both). A summary of schema version 6 or
//! later is one table ([`crate::analysis::summaries::write_table`]); an older one is one row
//! per (iteration, name, category, place), as that version was written.

use crate::analysis::summaries::checksum::{RowValues, SummaryChecksum};
use crate::analysis::summaries::encode::{stored_count, write_parquet};
use crate::analysis::summaries::schema::{op_columns, schema_text};
use crate::analysis::summaries::write_table::write_summary_table;
use crate::atomic::write_atomically;
use crate::error::Result;
use crate::model::summary::{FileSummary, SUMMARY_SCHEMA_TABLE, place_text};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use std::io::Write;

/// Writes `summary` to `out` (Snappy-compressed, strings dictionary-encoded).
/// A summary of schema version 6 or later is written in the one-table layout
/// (op rows and step rows in one table); an older one as its version was.
pub fn write_summary<W: Write + Send>(summary: &FileSummary, out: W) -> std::io::Result<()> {
    if summary.meta.schema_version >= SUMMARY_SCHEMA_TABLE {
        return write_summary_table(summary, out);
    }
    let text = schema_text(op_columns(summary.meta.schema_version));
    let meta = serde_json::to_string(&summary.meta)?;
    let sum = rows_checksum(summary, &meta);
    let rows = &summary.rows;
    let ints = |f: &dyn Fn(usize) -> i64| -> Vec<i64> { (0..rows.len()).map(f).collect() };
    let texts = |f: &dyn Fn(usize) -> String| -> Vec<ByteArray> {
        (0..rows.len()).map(|i| ByteArray::from(f(i).into_bytes())).collect()
    };
    write_parquet(out, &text, meta, sum, |k, col| {
        match k {
            0 | 1 | 5..=7 => {
                let v = match k {
                    0 => ints(&|_| summary.rank()),
                    1 => ints(&|i| rows[i].iteration),
                    5 => ints(&|i| stored_count(rows[i].count)),
                    6 => ints(&|i| rows[i].total_ns),
                    _ => ints(&|i| rows[i].self_ns),
                };
                col.typed::<Int64Type>().write_batch(&v, None, None)?;
            }
            _ => {
                let v = match k {
                    2 => texts(&|i| summary.text(rows[i].name).to_string()),
                    3 => texts(&|i| summary.text(rows[i].category).to_string()),
                    _ => texts(&|i| place_text(rows[i].place).to_string()),
                };
                col.typed::<ByteArrayType>().write_batch(&v, None, None)?;
            }
        }
        Ok(())
    })
}

/// The checksum of the rows as they are written (what the reader verifies).
fn rows_checksum(summary: &FileSummary, meta_text: &str) -> String {
    let mut sum = SummaryChecksum::new(meta_text);
    for r in &summary.rows {
        sum.row(&RowValues {
            rank: summary.rank(),
            iteration: r.iteration,
            name: summary.text(r.name),
            category: summary.text(r.category),
            place: place_text(r.place),
            count: stored_count(r.count),
            total_ns: r.total_ns,
            self_ns: summary.has_own_times().then_some(r.self_ns),
        });
    }
    sum.finish()
}

/// Writes `summary` to the file `path` (whole or not at all).
pub fn save_summary(summary: &FileSummary, path: &std::path::Path) -> Result<()> {
    write_atomically(path, |w| write_summary(summary, w))
}
