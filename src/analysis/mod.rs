//! Analysis: selecting ranks, iterations and devices, aggregating per name, diffing two sides,
//! and the regression gate. Reads the model; renders nothing.

pub mod aggregate;
pub mod breakdown;
pub mod classes;
pub mod compare;
pub mod cost;
pub mod diff;
pub mod explain;
pub mod flamegraph;
pub mod gate;
pub mod history;
pub(crate) mod idle;
pub mod intervals;
pub mod load;
pub mod measure;
pub mod memory;
pub mod modules;
pub mod names;
pub mod report;
pub mod select;
pub mod summaries;
pub mod views;
