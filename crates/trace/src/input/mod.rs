//! Input: finding trace files, opening (and decompressing) them, and parsing their JSON into the
//! columnar store of [`crate::model`], with the `args`
//! attributes asked for ([`attrs`]). [`load`] chains these stages for one side of a comparison.

pub mod attrs;
pub mod discover;
pub mod fanout;
// The members of an event the parsers read: one table for the fast scan and serde_json.
mod fields;
// The parser's per-event plumbing (chunks, borrowed fields): used by `parse` and `pipeline`
// only; the public way in is `load` (or `parse`).
pub(crate) mod event;
// One event's text parsed into an entry (serde_json), which `event`'s chunks are made of.
mod entry;
pub mod load;
pub mod number;
pub mod parse;
mod parsed;
pub mod parser;
mod pipeline;
pub mod ranks;
pub mod read;
mod scan;
pub mod split;
