//! Summaries: a trace file reduced to what `compare`, `ops-diff`, `plot`, `gate` and `overview`
//! read, kept in memory or written to Parquet by `tracediff summarize`. [`summarize`] makes one
//! from a loaded trace; [`read`] reads a summary file back ([`format`]: as an input format) (recognised by content, never by
//! name; validated, checksummed); [`load`] loads a side of traces and summaries, mixed, into
//! summaries.

pub mod checksum;
pub mod decode;
pub mod format;
pub mod load;
pub mod names;
pub mod read;
pub mod read_table;
pub mod summarize;
pub mod table;
