//! Model: the plain data every later stage reads — the columnar event store and what is derived
//! from the events alone (iterations).

pub mod attrs;
pub mod iteration;
pub mod store;
