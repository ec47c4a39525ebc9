//! Measuring a side and judging a change: the per-step samples, the noise between steps and
//! runs, the run-wide and per-thread shift, and the marks of one run per side.

pub(crate) mod noise;
pub(crate) mod one_run;
pub(crate) mod per_step;
pub(crate) mod replicates;
pub(crate) mod shift;
pub(crate) mod threads;

/// The most (rank, step) samples per side a view's significance scans (each a pass over its
/// file's events).
pub(crate) const MAX_SAMPLES: usize = 64;
