//! tracediff-trace: read PyTorch profiler (Kineto) Chrome-trace JSON files into a columnar event
//! store, with iterations (ProfilerSteps) and a call tree. It is the reading half of tracediff and
//! stands alone: no command line, no rendering.
//!
//! Data flows one way, a module per stage:
//! - [`input`]: [`input::discover`] → [`input::read`] (decompress) → [`input::split`] →
//!   [`input::parse`] (with the `args` attributes of [`input::attrs`]) into the model;
//!   [`input::load`] chains them for one file or one side of a comparison.
//! - [`model`]: the columnar [`model::store`], [`model::iteration`]s, the [`model::calltree`]:
//!   plain data every later stage reads.
//! - [`error`]: the one error type, with the file and place of every input error.
//!
//! ```no_run
//! use tracediff_trace::input::attrs::AttrRequest;
//! use tracediff_trace::input::load::load_file;
//! let trace = load_file("rank0.json.gz".as_ref(), &AttrRequest::default()).unwrap();
//! println!("{} events, steps {:?}", trace.events.len(), trace.step_numbers());
//! ```

// Every public item is documented (`cargo doc` with `-D warnings` checks the links too).
#![deny(missing_docs)]
// No unsafe code: the SIMD scan's comparisons go through `wide`, which keeps its own.
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

pub mod error;
pub mod input;
pub mod model;

pub use error::{Error, Result};
