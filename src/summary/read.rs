//! Reading a summary written by `tracediff summarize` (Parquet, docs/architecture.md): recognised by its
//! content — the Parquet magic and the [`SUMMARY_META_KEY`] metadata — never by its name.

use crate::error::io_reason;
use crate::error::{Error, Result};
use crate::model::summary::{
    FileSummary, OpRow, SUMMARY_META_KEY, SUMMARY_SCHEMA_OLDEST, SUMMARY_SCHEMA_VERSION, SummaryMeta, place_from_text,
};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::RowAccessor;
use std::path::Path;
pub use tracediff_trace::input::read::{PARQUET_MAGIC, is_parquet};

/// The op rows' columns, in order.
pub const SUMMARY_COLUMNS: [&str; 7] = ["rank", "iteration", "name", "category", "place", "count", "total_ns"];

/// Reads a summary: its metadata and its op rows.
pub fn read_summary(path: &Path) -> Result<FileSummary> {
    let file = std::fs::File::open(path).map_err(|e| Error::input(path, format!("cannot open: {}", io_reason(&e))))?;
    let bad = |what: String| Error::input(path, what);
    let reader = SerializedFileReader::new(file).map_err(|e| bad(format!("invalid Parquet file: {e}")))?;
    let meta = summary_meta(path, &reader)?;
    let fields: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    if fields != SUMMARY_COLUMNS {
        return Err(bad(format!(
            "summary columns are [{}], expected [{}]",
            fields.join(", "),
            SUMMARY_COLUMNS.join(", ")
        )));
    }
    let rows_iter = reader
        .get_row_iter(None)
        .map_err(|e| bad(format!("invalid summary rows: {e}")))?;
    let mut rows = Vec::new();
    let mut strings: Vec<String> = Vec::new();
    let mut ids: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut intern = |s: &String| -> u32 {
        if let Some(&id) = ids.get(s) {
            return id;
        }
        let id = strings.len() as u32;
        strings.push(s.clone());
        ids.insert(s.clone(), id);
        id
    };
    for row in rows_iter {
        let row = row.map_err(|e| bad(format!("invalid summary rows: {e}")))?;
        let mut get = || -> parquet::errors::Result<OpRow> {
            let place_text = row.get_string(4)?;
            let place = place_from_text(place_text)
                .ok_or_else(|| parquet::errors::ParquetError::General(format!("unknown place '{place_text}'")))?;
            Ok(OpRow {
                iteration: row.get_long(1)?,
                name: intern(row.get_string(2)?),
                category: intern(row.get_string(3)?),
                place,
                count: u64::try_from(row.get_long(5)?).unwrap_or(0),
                total_ns: row.get_long(6)?,
            })
        };
        let r = get().map_err(|e| bad(format!("invalid summary row {}: {e}", rows.len())))?;
        rows.push(r);
    }
    // Ids in text order, as `summarize` numbers them.
    let mut order: Vec<u32> = (0..strings.len() as u32).collect();
    order.sort_by(|a, b| strings[*a as usize].cmp(&strings[*b as usize]));
    let mut new_id = vec![0u32; strings.len()];
    for (k, old) in order.iter().enumerate() {
        new_id[*old as usize] = k as u32;
    }
    for r in &mut rows {
        r.name = new_id[r.name as usize];
        r.category = new_id[r.category as usize];
    }
    let strings = order
        .iter()
        .map(|&k| std::mem::take(&mut strings[k as usize]))
        .collect();
    Ok(FileSummary { meta, strings, rows })
}

fn summary_meta<R: parquet::file::reader::ChunkReader + 'static>(
    path: &Path,
    reader: &SerializedFileReader<R>,
) -> Result<SummaryMeta> {
    let kv = reader.metadata().file_metadata().key_value_metadata();
    let text = kv
        .and_then(|kv| kv.iter().find(|e| e.key == SUMMARY_META_KEY))
        .and_then(|e| e.value.as_deref())
        .ok_or_else(|| {
            Error::input(
                path,
                format!("a Parquet file but not a tracediff summary (no '{SUMMARY_META_KEY}' metadata)"),
            )
        })?;
    let version: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::input(path, format!("invalid '{SUMMARY_META_KEY}' metadata: {e}")))?;
    let found = version.get("schema_version").and_then(serde_json::Value::as_u64);
    // Older versions lack only optional parts (version 1: the step-time breakdown).
    let readable = u64::from(SUMMARY_SCHEMA_OLDEST)..=u64::from(SUMMARY_SCHEMA_VERSION);
    if !found.is_some_and(|v| readable.contains(&v)) {
        let found = found.map_or_else(|| "none".to_string(), |v| v.to_string());
        return Err(Error::input(
            path,
            format!(
                "summary schema version {found}, this tracediff reads versions {SUMMARY_SCHEMA_OLDEST} to {SUMMARY_SCHEMA_VERSION} (run tracediff summarize again)"
            ),
        ));
    }
    serde_json::from_value(version)
        .map_err(|e| Error::input(path, format!("invalid '{SUMMARY_META_KEY}' metadata: {e}")))
}
