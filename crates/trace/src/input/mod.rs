//! Input: finding trace files, opening (and decompressing) them, and parsing their JSON into the
//! columnar store of [`crate::model`], with the `args`
//! attributes asked for ([`attrs`]). [`load`] chains these stages for one side of a comparison.

#[allow(missing_docs)]
pub mod attrs;
pub mod discover;
#[allow(missing_docs)]
pub mod event;
#[allow(missing_docs)]
pub mod load;
pub mod number;
pub mod parse;
mod parsed;
mod pipeline;
pub mod read;
pub mod split;
