//! tracediff: compare two sets of PyTorch profiler (Kineto) traces.
//!
//! Data flows one way, a module per stage, grouped in folders that show the flow:
//! - [`model`]: the columnar [`model::store`] and [`model::iteration`]s: plain data.
//! - [`input`]: [`input::discover`] → [`input::read`] → [`input::split`] → [`input::parse`] (with
//!   the `args` attributes of [`input::attrs`]) into the model; [`input::load`] chains them.
//! - [`analysis`]: [`analysis::select`] → [`analysis::aggregate`] → [`analysis::diff`];
//!   [`analysis::compare`] chains them, [`analysis::gate`] judges regressions.
//! - [`output`]: [`output::render`] (pure functions), [`output::events`], [`output::state`].
//! - [`cli`]: the command line on top.
//!
//! Each folder builds on the ones above it in this list, never on one below it; [`error`] and
//! [`text`] (durations for people) serve them all.
//!
//! ```no_run
//! use tracediff::analysis::compare::{CompareRequest, compare};
//! let (comparison, _notes) = compare(&CompareRequest::new("control/", "test/")).unwrap();
//! for row in &comparison.rows {
//!     println!("{} {} -> {}", row.name, row.control.count, row.test.count);
//! }
//! ```

// Every public item is documented (`cargo doc` with `-D warnings` checks the links too).
#![deny(missing_docs)]

pub mod analysis;
#[cfg(feature = "cli")]
pub mod cli;
pub mod commands;
pub mod output;
pub mod summary;
pub mod text;

pub use tracediff_trace::{error, input, model};

pub use error::{Error, Result};
