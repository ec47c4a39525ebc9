//! Analysis: selecting ranks, iterations and devices, aggregating per name, diffing two sides,
//! and the regression gate. Reads the model; renders nothing.

pub(crate) mod aggregate;
pub(crate) mod breakdown;
pub(crate) mod classes;
pub(crate) mod compare;
pub(crate) mod cost;
pub(crate) mod diff;
pub(crate) mod explain;
pub(crate) mod flamegraph;
pub(crate) mod gate;
pub(crate) mod history;
pub(crate) mod idle;
pub(crate) mod intervals;
pub(crate) mod load;
pub(crate) mod measure;
pub(crate) mod memory;
pub(crate) mod modules;
pub(crate) mod names;
pub(crate) mod report;
pub(crate) mod select;
pub(crate) mod summaries;
pub(crate) mod views;
