//! Measuring a side and judging a change: the per-step samples, the noise between steps and
//! runs, the run-wide and per-thread shift, and the marks of one run per side.

pub mod noise;
pub mod one_run;
pub mod per_step;
pub mod replicates;
pub mod shift;
pub mod threads;

/// The most (rank, step) samples per side a view's significance scans (each a pass over its
/// file's events).
pub const MAX_SAMPLES: usize = 64;
