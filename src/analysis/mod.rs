//! Analysis: selecting ranks, iterations and devices, aggregating per name, diffing two sides,
//! and the regression gate. Reads the model; renders nothing.

pub mod aggregate;
pub mod align;
pub mod breakdown;
pub mod captures;
pub mod classes;
pub mod compare;
pub mod diff;
pub mod explain;
pub mod flamegraph;
pub mod gate;
pub mod gate_run;
pub(crate) mod idle;
pub mod intervals;
pub mod loaded;
pub mod modules;
pub mod modules_noise;
pub(crate) mod modules_roles;
pub mod modules_runs;
pub mod names;
pub mod noise;
pub mod one_run;
pub mod per_step;
pub mod replicates;
pub mod report;
pub mod runs;
pub mod scopes;
pub mod select;
pub mod shift;
pub mod side;
pub mod side_runs;
pub mod summary;
pub mod threads;
pub mod views;
