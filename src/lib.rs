//! tracediff: compare two sets of PyTorch profiler (Kineto) traces.
//!
//! The way in is [`commands`]: one function per command (`compare`, `operators`, `modules`,
//! `gate`, `report`, …), each taking a typed request and options and returning its result with
//! its notes. What a request and a result are made of is re-exported here ([`Device`],
//! [`Pick`], [`SideSelection`], [`Comparison`], [`ViewTable`], …), with the summaries
//! ([`summarize_file`], [`read_summary`], [`save_summary`]) and the renderers another front end
//! needs ([`render`]). [`cli`] is the command line (behind the `cli` feature). Reading a trace
//! into its columns is the `tracediff-trace` crate's. The stages below the commands (select,
//! aggregate, align, diff, render) are the crate's own.
//!
//! ```no_run
//! use tracediff::commands::{CompareOptions, CompareRequest, compare};
//! let outcome = compare(&CompareRequest::new("control/", "test/"), &CompareOptions::default()).unwrap();
//! for row in &outcome.value.rows {
//!     println!("{} {} -> {}", row.name, row.control.count, row.test.count);
//! }
//! ```

// Every public item is documented (`cargo doc` with `-D warnings` checks the links too).
#![deny(missing_docs)]
// No unsafe code in the library: the one unsafe call of the program (the allocator's tuning)
// is the binary's, in `src/main.rs`.
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
// Without the `cli` feature, what only the command line uses (most renderers, the saved
// comparison) is unused: it is still compiled and checked, not cut out item by item.
#![cfg_attr(not(feature = "cli"), allow(dead_code, unused_imports))]

mod analysis;
mod atomic;
#[cfg(feature = "cli")]
pub mod cli;
pub mod commands;
mod output;
mod request;
mod text;

mod error;
pub(crate) use tracediff_trace::{input, model};

pub use error::{Error, Result};

// What a command's request and result are made of, for the command line, the Python bindings
// and library users; the rest of `analysis`, `output` and `request` is the crate's own.
pub use crate::analysis::aggregate::{Keying, Naming, Totals, aggregate_file};
pub use crate::analysis::diff::{Category, Comparison, NameFilter, Row, SideInfo, SortKey, sort_rows};
pub use crate::analysis::flamegraph::FlameTime;
pub use crate::analysis::gate::GateConfig;
pub use crate::analysis::names::shorten_name;
pub use crate::analysis::report::ReportLimits;
pub use crate::analysis::select::{Device, Pick, Resolved, SideSelection};
pub use crate::analysis::views::{Measure, Processor, SortSide, SortSpec, Unit, ViewKind, ViewRow, ViewTable};
pub use crate::request::defaults::{DEFAULT_RANKS, DEFAULT_STEPS, default_selection};
pub use crate::text::fmt_duration;

// Summaries: one trace file's summary, and its Parquet file read and written.
pub use crate::analysis::summaries::read::{read_summary, read_summary_bytes};
pub use crate::analysis::summaries::summarize::summarize as summarize_file;
pub use crate::analysis::summaries::write::{save_summary, write_summary};

/// The renderers the command line uses that another front end needs too: pure functions from
/// a command's result to text, CSV, JSON, Markdown or an image.
pub mod render {
    pub use crate::output::events::EventsFormat;
    pub use crate::output::render::compare::{CompareView, render as compare};
    pub use crate::output::render::explain::{ExplainView, write as explain};
    pub use crate::output::render::flamegraph::FlameWidths;
    pub use crate::output::render::gate::render as gate;
    pub use crate::output::render::history::render as history;
    pub use crate::output::render::modules::{ModuleOrder, ModuleView, write_flat_json};
    pub use crate::output::render::plot::{Bar, Chart, DEFAULT_EXCLUDE, ImageFormat, Metric, Panel};
    pub use crate::output::render::plot_bars::draw;
    pub use crate::output::render::views::{OverviewTables, TableView, render_overview_with, write as view};
    pub use crate::output::render::why::{comparison_why_fields, view_why_fields};
    pub use crate::output::render::{Format, TableStyle};
}
