//! tracediff: compare two sets of PyTorch profiler (Kineto) traces.
//!
//! Data flows one way, a module per stage:
//! [`discover`] → [`read`] → [`parse`] (with [`json`]) → [`store`] (+ [`iteration`]) →
//! [`select`] → [`aggregate`] → [`diff`] → [`render`].
//! [`load`] and [`compare`] chain the stages; [`cli`] is the command line on top.
//!
//! ```no_run
//! use tracediff::compare::{CompareRequest, compare};
//! let (comparison, _notes) = compare(&CompareRequest::new("control/", "test/")).unwrap();
//! for row in &comparison.rows {
//!     println!("{} {} -> {}", row.name, row.control.count, row.test.count);
//! }
//! ```

pub mod aggregate;
pub mod attrs;
pub mod cli;
pub mod compare;
pub mod diff;
pub mod discover;
pub mod error;
pub mod events;
pub mod gate;
pub mod iteration;
pub mod json;
pub mod load;
pub mod names;
pub mod parse;
pub mod read;
pub mod render;
pub mod select;
pub mod state;
pub mod store;

pub use error::{Error, Result};
