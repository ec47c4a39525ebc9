//! Output: pure renderers from analysis results to text and images, the `events` writer, and the
//! saved comparison.

pub mod atomic;
pub mod dataset;
pub mod events;
pub mod events_parquet;
pub mod history;
pub mod paint;
pub mod render;
pub mod state;
pub mod summary;
pub mod summary_parquet;
pub mod summary_table;
pub mod visible;
