//! Output: pure renderers from analysis results to text and images, the `events` writer, and the
//! saved comparison.

pub(crate) mod atomic;
pub(crate) mod dataset;
pub(crate) mod events;
pub(crate) mod events_parquet;
pub(crate) mod history;
pub(crate) mod paint;
pub(crate) mod render;
pub(crate) mod state;
pub(crate) mod summary;
pub(crate) mod summary_parquet;
pub(crate) mod summary_table;
pub(crate) mod visible;
