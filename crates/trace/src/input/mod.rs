//! Input: finding trace files, telling their formats apart ([`guess`], through the
//! [`format::TraceFormat`] seam), opening (and decompressing) them, and parsing them into the
//! columnar store of [`crate::model`], with the `args` attributes asked for ([`attrs`]).
//! [`load`] chains these stages for one side of a comparison.

pub mod attrs;
pub mod discover;
pub mod fanout;
pub mod finish;
pub mod format;
pub mod guess;
pub mod json;
pub mod load;
pub mod not_traces;
pub mod nsight;
pub mod parser;
pub mod ranks;
pub mod read;
pub mod rocprof;

// The Kineto JSON modules, where callers have always found them.
pub use json::{number, parse, split};
