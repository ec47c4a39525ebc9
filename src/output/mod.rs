//! Output: pure renderers from analysis results to text and images, the `events` writer, the
//! history store's writer and the saved comparison. The summary format (Parquet, read and
//! written) lives in [`crate::analysis::summaries`].

pub(crate) mod events;
pub(crate) mod events_parquet;
pub(crate) mod history;
pub(crate) mod paint;
pub(crate) mod render;
pub(crate) mod state;
pub(crate) mod visible;
