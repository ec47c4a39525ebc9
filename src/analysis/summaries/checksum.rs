//! The checksum a summary carries: SHA-256 over its metadata text and every row's values in a
//! fixed byte encoding, stored under [`CHECKSUM_KEY`] and verified on read. Parquet's page CRCs
//! are optional and cover compressed bytes only; this covers what tracediff reads back, so a
//! flipped bit anywhere in a value (or in the metadata) makes the file refused rather than
//! silently changing a count.

use sha2::{Digest, Sha256};

/// The Parquet key-value metadata key of the checksum (lowercase hex SHA-256).
pub(crate) const CHECKSUM_KEY: &str = "tracediff.summary.sha256";

/// One row's values as the checksum sees them (the summary's columns, in order).
pub(crate) struct RowValues<'a> {
    /// The file's rank.
    pub rank: i64,
    /// The ProfilerStep (−1: none).
    pub iteration: i64,
    /// The event name.
    pub name: &'a str,
    /// The event category.
    pub category: &'a str,
    /// Where it ran, as the `place` column writes it.
    pub place: &'a str,
    /// How many events.
    pub count: i64,
    /// Their summed duration.
    pub total_ns: i64,
    /// Their summed own time; `None` in summaries older than the column (their checksum does
    /// not cover it).
    pub self_ns: Option<i64>,
}

/// Accumulates the checksum of a summary: its metadata text first, then its rows in file order.
pub(crate) struct SummaryChecksum {
    hash: Sha256,
    rows: u64,
}

impl SummaryChecksum {
    /// Starts with the metadata's JSON text.
    pub(crate) fn new(meta_text: &str) -> Self {
        let mut hash = Sha256::new();
        hash.update(b"tracediff summary v2\0");
        feed_text(&mut hash, meta_text);
        SummaryChecksum { hash, rows: 0 }
    }

    /// Adds the next row.
    pub(crate) fn row(&mut self, r: &RowValues<'_>) {
        let h = &mut self.hash;
        h.update(r.rank.to_le_bytes());
        h.update(r.iteration.to_le_bytes());
        feed_text(h, r.name);
        feed_text(h, r.category);
        feed_text(h, r.place);
        h.update(r.count.to_le_bytes());
        h.update(r.total_ns.to_le_bytes());
        if let Some(ns) = r.self_ns {
            h.update(ns.to_le_bytes());
        }
        self.rows += 1;
    }

    /// Adds one cell of a row of the one-table layout (schema 6): an integer or a null.
    pub(crate) fn int_cell(&mut self, v: Option<i64>) {
        match v {
            Some(v) => {
                self.hash.update([1]);
                self.hash.update(v.to_le_bytes());
            }
            None => self.hash.update([0]),
        }
    }

    /// Adds one cell of a row of the one-table layout (schema 6): a text or a null.
    pub(crate) fn text_cell(&mut self, v: Option<&str>) {
        match v {
            Some(v) => {
                self.hash.update([1]);
                feed_text(&mut self.hash, v);
            }
            None => self.hash.update([0]),
        }
    }

    /// Ends a row of the one-table layout (its cells added with [`Self::int_cell`] and
    /// [`Self::text_cell`]).
    pub(crate) fn end_row(&mut self) {
        self.rows += 1;
    }

    /// The checksum as lowercase hex (the row count is part of it, so a dropped row changes it).
    pub(crate) fn finish(mut self) -> String {
        self.hash.update(self.rows.to_le_bytes());
        self.hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
fn feed_text(h: &mut Sha256, s: &str) {
    h.update((s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}
