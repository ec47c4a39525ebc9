//! Writing a summary as Parquet: one row per (iteration, name, category, place), everything
//! else as JSON under the [`SUMMARY_META_KEY`] key-value metadata, and the rows' checksum under
//! [`CHECKSUM_KEY`].

use crate::error::Result;
use crate::model::summary::{FileSummary, SUMMARY_META_KEY, SUMMARY_SCHEMA_TABLE, place_text};
use crate::summary::checksum::{CHECKSUM_KEY, RowValues, SummaryChecksum};
use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::parser::parse_message_type;
use std::io::Write;
use std::sync::Arc;

/// The columns, in [`crate::summary::read::SUMMARY_COLUMNS`]' order; a summary of a version
/// before the own times is written without `self_ns`, as that version was.
const SCHEMA: &str = "message tracediff_summary {
    required int64 rank;
    required int64 iteration;
    required binary name (STRING);
    required binary category (STRING);
    required binary place (STRING);
    required int64 count;
    required int64 total_ns;
    required int64 self_ns;
}";

fn parquet_error(e: parquet::errors::ParquetError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

/// Writes `summary` to `out` (Snappy-compressed, strings dictionary-encoded).
/// A summary of schema version 6 or later is written in the one-table layout
/// ([`crate::output::summary_table`]); an older one as its version was.
pub fn write_summary<W: Write + Send>(summary: &FileSummary, out: W) -> std::io::Result<()> {
    if summary.meta.schema_version >= SUMMARY_SCHEMA_TABLE {
        return crate::output::summary_table::write_summary_table(summary, out);
    }
    let own_times = summary.has_own_times();
    let text = if own_times {
        SCHEMA.to_string()
    } else {
        SCHEMA.replace("    required int64 self_ns;\n", "")
    };
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

/// Writes one row group of the columns of `schema` (Parquet's message syntax) to `out`, Snappy
/// compressed, strings dictionary-encoded, with the summary's metadata text (`meta`, under
/// [`SUMMARY_META_KEY`]) and its rows' checksum (under [`CHECKSUM_KEY`]); `column(k, writer)`
/// writes the values of column `k`.
pub(crate) fn write_parquet<W: Write + Send>(
    out: W,
    schema: &str,
    meta: String,
    checksum: String,
    mut column: impl FnMut(usize, &mut SerializedColumnWriter<'_>) -> parquet::errors::Result<()>,
) -> std::io::Result<()> {
    let schema = Arc::new(parse_message_type(schema).map_err(parquet_error)?);
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_key_value_metadata(Some(vec![
            KeyValue::new(SUMMARY_META_KEY.to_string(), meta),
            KeyValue::new(CHECKSUM_KEY.to_string(), checksum),
        ]))
        .build();
    let mut writer = SerializedFileWriter::new(out, schema, Arc::new(props)).map_err(parquet_error)?;
    let mut group = writer.next_row_group().map_err(parquet_error)?;
    let mut k = 0;
    while let Some(mut col) = group.next_column().map_err(parquet_error)? {
        column(k, &mut col).map_err(parquet_error)?;
        col.close().map_err(parquet_error)?;
        k += 1;
    }
    group.close().map_err(parquet_error)?;
    writer.close().map_err(parquet_error)?;
    Ok(())
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

/// A count as the int64 column holds it.
pub(crate) fn stored_count(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// Writes `summary` to the file `path` (whole or not at all).
pub fn save_summary(summary: &FileSummary, path: &std::path::Path) -> Result<()> {
    crate::output::atomic::write_atomically(path, |w| write_summary(summary, w))
}
