//! Summaries: a trace file reduced to what `compare`, `ops-diff`, `plot`, `gate` and `overview`
//! read, kept in memory or written to Parquet by `tracediff summarize`. [`summarize`] makes one
//! from a loaded trace; [`read`] reads a summary file back ([`format`]: as an input format) (recognised by content, never by
//! name; validated, checksummed); [`load`] loads a side of traces and summaries, mixed, into
//! summaries.

pub(crate) mod checksum;
pub(crate) mod decode;
pub(crate) mod format;
pub(crate) mod load;
pub(crate) mod names;
pub(crate) mod read;
pub(crate) mod read_table;
pub(crate) mod summarize;
pub(crate) mod table;
