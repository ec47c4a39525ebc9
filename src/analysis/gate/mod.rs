//! `tracediff gate`: regression rules for CI that fail on real slowdowns, not on noise.
//!
//! Everything is measured per step (per rank × ProfilerStep sample), so runs with different
//! numbers of steps compare fairly. A timing rule fails only when the change of the medians
//! exceeds its threshold *and* exceeds `k` × the pooled, scaled MAD of the per-step samples
//! (the run-to-run variation); with a single sample per side no noise estimate is possible
//! and the threshold alone decides (the report says so).
//!
//! By job: `rules` reads and checks the thresholds ([`GateConfig`], [`Rules`]), `evaluate` judges each rule
//! on the per-step samples ([`crate::analysis::measure::per_step`], which `compare` measures with too),
//! `change` measures a change beyond the noise or a run-wide shift, and `report` holds what a
//! gate found and the words of each rule's line.

mod band;
mod between;
mod change;
mod config_words;
mod evaluate;
mod judged;
mod one_run;
pub(crate) mod predict;
mod ranks;
mod report;
mod rules;
pub(crate) mod run;

pub(crate) use self::change::Beyond;
pub(crate) use self::evaluate::evaluate;
pub(crate) use self::report::{GateCause, GateReport, RuleResult, SideSummary, Verdict};
pub use self::rules::GateConfig;
pub(crate) use self::rules::Rules;
pub(crate) use crate::analysis::measure::per_step::{device_row_keys, measure};
