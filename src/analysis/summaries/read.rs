//! Reading a summary written by `tracediff summarize` (Parquet, docs/architecture.md): recognised by its
//! content — the Parquet magic and the [`SUMMARY_META_KEY`] metadata — never by its name.
//!
//! A summary may be corrupt (a flipped bit, a torn copy, a hostile file), and the Parquet
//! decoder is third-party code that can panic on bad input. So (docs/robustness.md): the footer
//! is validated before any page is decoded (every column chunk inside the file, the columns and
//! their types as written); every decoder error becomes a one-line error naming the file; the
//! decoder runs behind a `catch_unwind` boundary as a last resort; and the rows read back must
//! match the SHA-256 checksum stored beside them, so a flipped bit is refused rather than read
//! as a different number.

use crate::analysis::summaries::checksum::{CHECKSUM_KEY, RowValues, SummaryChecksum};
use crate::analysis::summaries::decode::{Interner, for_each_row};
use crate::analysis::summaries::schema::{Column, TABLE_COLUMNS, op_columns};
use crate::error::io_reason;
use crate::error::{Error, Result};
use crate::model::summary::{
    FileSummary, OpRow, SUMMARY_META_KEY, SUMMARY_SCHEMA_CHECKSUMMED, SUMMARY_SCHEMA_OLDEST, SUMMARY_SCHEMA_OWN_TIMES,
    SUMMARY_SCHEMA_TABLE, SUMMARY_SCHEMA_VERSION, SummaryMeta, place_from_text,
};
use parquet::file::reader::{ChunkReader, FileReader, SerializedFileReader};
use parquet::record::{Row, RowAccessor};
use std::path::Path;

/// Reads a summary: its metadata and its op rows.
pub fn read_summary(path: &Path) -> Result<FileSummary> {
    let file = std::fs::File::open(path).map_err(|e| Error::input(path, format!("cannot open: {}", io_reason(&e))))?;
    let len = file
        .metadata()
        .map_err(|e| Error::input(path, format!("cannot read: {}", io_reason(&e))))?
        .len();
    // A summary is small (rows per name and step): read whole, its pages are sliced from
    // memory. Read through the file, each column chunk costs a dup, a seek and a close (a
    // history of 6,400 summaries spent 40% of its time in those calls).
    if len <= IN_MEMORY_BYTES {
        let mut bytes = Vec::with_capacity(len as usize);
        std::io::Read::read_to_end(&mut { file }, &mut bytes)
            .map_err(|e| Error::input(path, format!("cannot read: {}", io_reason(&e))))?;
        let len = bytes.len() as u64;
        return decode_summary(path, bytes::Bytes::from(bytes), len);
    }
    decode_summary(path, file, len)
}

/// The largest summary read whole into memory before decoding; larger ones are read through
/// the file.
const IN_MEMORY_BYTES: u64 = 64 << 20;

/// Reads a summary held in memory (`path` only names it in errors): what the fuzz target drives.
pub fn read_summary_bytes(path: &Path, bytes: Vec<u8>) -> Result<FileSummary> {
    let len = bytes.len() as u64;
    decode_summary(path, bytes::Bytes::from(bytes), len)
}

fn decode_summary<R: ChunkReader + 'static>(path: &Path, source: R, len: u64) -> Result<FileSummary> {
    let bad = |what: String| Error::input(path, what);
    let reader = guard_decoder(path, || SerializedFileReader::new(source))?
        .map_err(|e| bad(format!("invalid Parquet file: {e}")))?;
    let (meta, meta_text, stored_sum) = summary_meta(path, &reader)?;
    let summary = if meta.schema_version >= SUMMARY_SCHEMA_TABLE {
        crate::analysis::summaries::read_table::validate_table_schema(path, &reader)?;
        validate_chunks(path, &reader, len, &TABLE_COLUMNS)?;
        guard_decoder(path, || {
            crate::analysis::summaries::read_table::decode_table_rows(path, &reader, meta, &meta_text)
        })??
    } else {
        validate_layout(path, &reader, len, op_columns(meta.schema_version))?;
        guard_decoder(path, || decode_rows(path, &reader, meta, &meta_text))??
    };
    // Verified whenever present (a flipped version digit cannot skip it); required from the
    // version that introduced it.
    if stored_sum.as_ref().is_some_and(|stored| *stored != summary.1) {
        return Err(bad(
            "corrupt summary: its rows do not match the checksum stored with them (a damaged copy? run tracediff summarize again)"
                .to_string(),
        ));
    }
    Ok(summary.0)
}

/// Runs the third-party decoder; a panic inside it becomes an error naming the file. The
/// library changes no process-wide state for it: whether the panic's own message is printed
/// too is the panic hook's choice, which belongs to the program. The command line installs
/// [`quiet_decoder_panics`] once at its start, so that its error stays one line.
pub(crate) fn guard_decoder<T>(path: &Path, decode: impl FnOnce() -> T) -> Result<T> {
    let caught = decoding::inside(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(decode)));
    caught.map_err(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown failure".to_string());
        Error::input(path, format!("corrupt summary: the Parquet decoder failed ({why})"))
    })
}

/// Installs a panic hook that stays silent for a panic raised inside [`guard_decoder`] (which
/// turns it into a one-line error) and defers to the hook it replaces otherwise (a real bug
/// elsewhere still prints its message). Called by the command line's entry, never by the
/// library: a host (Python) keeps its own hook. Installed once however often it is called.
pub(crate) fn quiet_decoder_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !decoding::now() {
                previous(info);
            }
        }));
    });
}

/// Whether this thread is inside [`guard_decoder`]: the one piece of state a panic hook can
/// read to know that the panic will be caught and reported as an error. It is a thread-local
/// because a hook is given nothing but the panic; it is set only for the decoder's call and
/// read only by [`quiet_decoder_panics`].
mod decoding {
    use std::cell::Cell;

    thread_local! {
        static INSIDE: Cell<bool> = const { Cell::new(false) };
    }

    /// `f`'s result, with this thread marked as inside the decoder while it runs (`f` catches
    /// its panics, so the mark is always taken off).
    pub(super) fn inside<T>(f: impl FnOnce() -> T) -> T {
        let outer = INSIDE.replace(true);
        let out = f();
        INSIDE.set(outer);
        out
    }

    /// Whether this thread is inside the decoder.
    pub(super) fn now() -> bool {
        INSIDE.get()
    }
}

/// Checks the footer before any page is read: the columns and their types as `summarize`
/// writes them, and every column chunk's bytes inside the file.
fn validate_layout<R: ChunkReader + 'static>(
    path: &Path,
    reader: &SerializedFileReader<R>,
    len: u64,
    columns: &[Column],
) -> Result<()> {
    let bad = |what: String| Error::input(path, format!("corrupt summary: {what}"));
    let schema = reader.metadata().file_metadata().schema_descr();
    let fields: Vec<&str> = schema.columns().iter().map(|c| c.name()).collect();
    let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
    if fields != names {
        return Err(Error::input(
            path,
            format!(
                "summary columns are [{}], expected [{}]",
                fields.join(", "),
                names.join(", ")
            ),
        ));
    }
    for (c, want) in schema.columns().iter().zip(columns.iter().map(Column::physical_type)) {
        if c.physical_type() != want || c.max_def_level() != 0 || c.max_rep_level() != 0 {
            return Err(bad(format!("column '{}' is not a required {want}", c.name())));
        }
    }
    validate_chunks(path, reader, len, columns)
}

/// Checks that every column chunk of every row group lies inside the file, holds a value per
/// row, and that the row groups' rows add up to the file's.
pub(crate) fn validate_chunks<R: ChunkReader + 'static>(
    path: &Path,
    reader: &SerializedFileReader<R>,
    len: u64,
    columns: &[Column],
) -> Result<()> {
    let bad = |what: String| Error::input(path, format!("corrupt summary: {what}"));
    let mut rows: i64 = 0;
    for (g, group) in reader.metadata().row_groups().iter().enumerate() {
        if group.num_columns() != columns.len() || group.num_rows() < 0 {
            return Err(bad(format!("row group {g} is malformed")));
        }
        rows = rows
            .checked_add(group.num_rows())
            .ok_or_else(|| bad("row count overflows".to_string()))?;
        for (k, col) in group.columns().iter().enumerate() {
            let start = col.dictionary_page_offset().unwrap_or(col.data_page_offset());
            let size = col.compressed_size();
            let inside = start >= 4
                && size >= 0
                && col.data_page_offset() >= start
                && col.num_values() == group.num_rows()
                && start.checked_add(size).is_some_and(|end| (end as u64) <= len);
            if !inside {
                return Err(bad(format!(
                    "column '{}' of row group {g} lies outside the file",
                    columns[k].name
                )));
            }
        }
    }
    if rows != reader.metadata().file_metadata().num_rows() {
        return Err(bad("the row groups' row counts do not add up".to_string()));
    }
    Ok(())
}

/// Decodes the rows (interning names and categories) and their checksum.
fn decode_rows<R: ChunkReader + 'static>(
    path: &Path,
    reader: &SerializedFileReader<R>,
    meta: SummaryMeta,
    meta_text: &str,
) -> Result<(FileSummary, String)> {
    let mut rows = Vec::new();
    let mut names = Interner::default();
    let own_times = meta.schema_version >= SUMMARY_SCHEMA_OWN_TIMES;
    let mut sum = SummaryChecksum::new(meta_text);
    for_each_row(path, reader, |_, row| {
        let values = row_values(row, own_times).map_err(|e| e.to_string())?;
        sum.row(&values);
        let place = place_from_text(values.place).ok_or_else(|| format!("unknown place '{}'", values.place))?;
        if values.total_ns < 0 {
            return Err(format!("negative total {}", values.total_ns));
        }
        let count = u64::try_from(values.count).map_err(|_| format!("negative count {}", values.count))?;
        rows.push(OpRow {
            iteration: values.iteration,
            name: names.intern(values.name),
            category: names.intern(values.category),
            place,
            count,
            total_ns: values.total_ns,
            self_ns: values.self_ns.unwrap_or(0),
        });
        Ok(())
    })?;
    Ok((names.into_summary(meta, rows), sum.finish()))
}

/// A row's values; `self_ns` where the summary has the column (`own_times`).
fn row_values(row: &Row, own_times: bool) -> parquet::errors::Result<RowValues<'_>> {
    Ok(RowValues {
        rank: row.get_long(0)?,
        iteration: row.get_long(1)?,
        name: row.get_string(2)?,
        category: row.get_string(3)?,
        place: row.get_string(4)?,
        count: row.get_long(5)?,
        total_ns: row.get_long(6)?,
        self_ns: if own_times { Some(row.get_long(7)?) } else { None },
    })
}

/// The metadata, its JSON text (covered by the checksum) and the stored checksum.
fn summary_meta<R: ChunkReader + 'static>(
    path: &Path,
    reader: &SerializedFileReader<R>,
) -> Result<(SummaryMeta, String, Option<String>)> {
    let kv = reader.metadata().file_metadata().key_value_metadata();
    let value = |key: &str| {
        kv.and_then(|kv| kv.iter().find(|e| e.key == key))
            .and_then(|e| e.value.clone())
    };
    let text = value(SUMMARY_META_KEY).ok_or_else(|| {
        Error::input(
            path,
            format!("a Parquet file but not a tracediff summary (no '{SUMMARY_META_KEY}' metadata)"),
        )
    })?;
    let version: serde_json::Value = serde_json::from_str(&text)
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
    let sum = value(CHECKSUM_KEY);
    if sum.is_none() && found.is_some_and(|v| v >= u64::from(SUMMARY_SCHEMA_CHECKSUMMED)) {
        return Err(Error::input(
            path,
            format!("corrupt summary: no '{CHECKSUM_KEY}' checksum (run tracediff summarize again)"),
        ));
    }
    let meta = serde_json::from_value(version)
        .map_err(|e| Error::input(path, format!("invalid '{SUMMARY_META_KEY}' metadata: {e}")))?;
    Ok((meta, text, sum))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decoder_mark_is_on_inside_the_guard_only() {
        assert!(!decoding::now());
        let inside = guard_decoder(Path::new("s.parquet"), decoding::now).unwrap();
        assert!(inside);
        let _ = guard_decoder::<()>(Path::new("s.parquet"), || panic!("bad page"));
        assert!(!decoding::now(), "taken off after a panic");
    }

    #[test]
    fn a_panicking_decoder_becomes_an_error_naming_the_file() {
        let r: Result<()> = guard_decoder(Path::new("s.parquet"), || panic!("index out of bounds"));
        let msg = r.unwrap_err().to_string();
        assert!(msg.contains("s.parquet"), "{msg}");
        assert!(
            msg.contains("corrupt summary: the Parquet decoder failed (index out of bounds)"),
            "{msg}"
        );
        // The boundary is left: a later call runs normally.
        assert_eq!(guard_decoder(Path::new("s.parquet"), || 7).unwrap(), 7);
    }
}
