//! Kineto JSON, the PyTorch profiler's Chrome-trace file: the format tracediff was made for,
//! read straight into the columnar store ([`parse`]) by a hand-walked top level, a splitter
//! ([`split`]) and a pool of parsing threads. [`format::KinetoJson`] is its
//! [`TraceFormat`](crate::input::format::TraceFormat).

// One event's text parsed into an entry (serde_json), which `event`'s chunks are made of.
mod entry;
// The parser's per-event plumbing (chunks, borrowed fields): used by `parse` and `pipeline`
// only; the public way in is `load` (or `parse`).
pub(crate) mod event;
// The members of an event the parsers read: one table for the fast scan and serde_json.
mod fields;
pub mod format;
pub mod number;
pub mod parse;
mod parsed;
mod pipeline;
mod scan;
pub mod split;
