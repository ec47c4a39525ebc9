//! Measuring a side and judging a change: the per-step samples, the noise between steps and
//! runs, the run-wide and per-thread shift, and the marks of one run per side.

pub mod noise;
pub mod one_run;
pub mod per_step;
pub mod replicates;
pub mod shift;
pub mod threads;
