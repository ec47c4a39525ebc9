//! Summaries: a trace file reduced to what `compare`, `ops-diff`, `plot`, `gate` and `overview`
//! read, kept in memory or written to Parquet by `tracediff summarize`. The summary format,
//! read and written, is this folder's: [`schema`] its columns (the one definition the writer
//! and the reader share); [`write`] and [`write_table`] write a summary whole or not at all
//! ([`encode`]: their Parquet set-up), [`dataset`] a dataset of them
//! (`run=<label>/rank=<r>.parquet`); [`read`] and [`read_table`] read one back ([`decode`]:
//! what they share; recognised by content, never by name; validated, [`checksum`]med),
//! [`format`] as an input format. [`summarize`] makes a summary from a loaded trace; [`load`]
//! loads a side of traces and summaries, mixed, into summaries.

pub(crate) mod checksum;
pub(crate) mod dataset;
pub(crate) mod decode;
pub(crate) mod encode;
pub(crate) mod format;
pub(crate) mod load;
pub(crate) mod names;
pub(crate) mod read;
pub(crate) mod read_table;
pub(crate) mod schema;
pub(crate) mod summarize;
pub(crate) mod write;
pub(crate) mod write_table;
