//! Model: the plain data every later stage reads — the columnar event store and what is derived
//! from the events alone (host or device, iterations, the call tree).

pub mod attrs;
pub mod calltree;
pub mod flows;
pub mod graph_join;
pub mod graph_position;
pub mod graphs;
pub mod iteration;
pub mod owners;
pub mod pick;
pub mod place;
pub mod serving;
pub mod store;
pub mod summary;
pub mod table;
