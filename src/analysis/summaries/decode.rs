//! What the decoders of every summary layout share ([`crate::analysis::summaries::read`] for versions 1–5,
//! [`crate::analysis::summaries::read_table`] for the one table of version 6): the walk over the rows, with
//! its errors, and the interning of names and categories.

use crate::error::{Error, Result};
use crate::model::summary::{FileSummary, OpRow, SummaryMeta};
use parquet::file::reader::{ChunkReader, FileReader, SerializedFileReader};
use parquet::record::Row;
use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::Arc;

/// The names and categories of one file's rows, each text once, numbered in the order met.
#[derive(Debug, Default)]
pub(crate) struct Interner {
    strings: Vec<String>,
    ids: FxHashMap<String, u32>,
}

impl Interner {
    /// The id of `s`, numbering it when it is new.
    pub(crate) fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = u32::try_from(self.strings.len()).unwrap_or(u32::MAX);
        self.strings.push(s.to_string());
        self.ids.insert(s.to_string(), id);
        id
    }

    /// The summary of `rows`, whose names and categories are renumbered in text order, as
    /// `summarize` numbers them (no begin/end count and no per-thread rows: a summary file
    /// keeps neither; the thread-level shift is read from traces).
    pub(crate) fn into_summary(self, meta: SummaryMeta, mut rows: Vec<OpRow>) -> FileSummary {
        let strings = renumber_by_text(self.strings, &mut rows);
        // Kept for the whole command, a thousand files a side: no spare capacity.
        rows.shrink_to_fit();
        FileSummary {
            meta,
            strings: strings.into_iter().map(Arc::from).collect(),
            rows,
            begin_end_events: 0,
            threads: Vec::new(),
        }
    }
}

/// Calls `each` with every row of `reader` and its index, in file order. A row the decoder
/// cannot read is `invalid summary rows: …`; one that `each` refuses (its message) is
/// `invalid summary row K: …`; both name the file.
pub(crate) fn for_each_row<R: ChunkReader + 'static>(
    path: &Path,
    reader: &SerializedFileReader<R>,
    mut each: impl FnMut(usize, &Row) -> std::result::Result<(), String>,
) -> Result<()> {
    let bad = |what: String| Error::input(path, what);
    let rows = reader
        .get_row_iter(None)
        .map_err(|e| bad(format!("invalid summary rows: {e}")))?;
    for (k, row) in rows.enumerate() {
        let row = row.map_err(|e| bad(format!("invalid summary rows: {e}")))?;
        each(k, &row).map_err(|e| bad(format!("invalid summary row {k}: {e}")))?;
    }
    Ok(())
}

/// Numbers the names and categories of `rows` in text order, as `summarize` numbers them, and
/// returns the strings in that order (a reader interns them in the order it meets them).
fn renumber_by_text(mut strings: Vec<String>, rows: &mut [OpRow]) -> Vec<String> {
    let mut order: Vec<u32> = (0..strings.len() as u32).collect();
    order.sort_by(|a, b| strings[*a as usize].cmp(&strings[*b as usize]));
    let mut new_id = vec![0u32; strings.len()];
    for (k, old) in order.iter().enumerate() {
        new_id[*old as usize] = k as u32;
    }
    for r in rows.iter_mut() {
        r.name = new_id[r.name as usize];
        r.category = new_id[r.category as usize];
    }
    order
        .iter()
        .map(|&k| std::mem::take(&mut strings[k as usize]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_interned_once_and_numbered_in_text_order() {
        let mut names = Interner::default();
        let (b, a) = (names.intern("b"), names.intern("a"));
        assert_eq!((b, a, names.intern("b")), (0, 1, 0));
        let row = |name, category| OpRow {
            iteration: 0,
            name,
            category,
            place: crate::model::place::Place::Host,
            count: 1,
            total_ns: 1,
            self_ns: 1,
        };
        let meta: SummaryMeta = serde_json::from_value(serde_json::json!({
            "schema_version": 6, "tracediff_version": "0", "source": "t.json", "declared_rank": null,
            "steps": [], "iterations": [], "windows": [], "span": null, "has_gpu": false,
            "has_ops": true, "memory_devices": [], "device_name": null,
            "device_memory_bytes": null, "device_note": null
        }))
        .unwrap();
        let summary = names.into_summary(meta, vec![row(b, a)]);
        assert_eq!(summary.strings, [Arc::from("a"), Arc::from("b")]);
        assert_eq!((summary.rows[0].name, summary.rows[0].category), (1, 0));
    }
}
