//! What the writers of every summary layout share ([`crate::analysis::summaries::write`] for
//! versions 1–5, [`crate::analysis::summaries::write_table`] for the one table of version 6):
//! the Parquet writer's set-up, with the metadata and the checksum beside the rows.

use crate::analysis::summaries::checksum::CHECKSUM_KEY;
use crate::model::summary::SUMMARY_META_KEY;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::parser::parse_message_type;
use std::io::Write;
use std::sync::Arc;

fn parquet_error(e: parquet::errors::ParquetError) -> std::io::Error {
    std::io::Error::other(e.to_string())
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

/// A count as the int64 column holds it.
pub(crate) fn stored_count(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}
