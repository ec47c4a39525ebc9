//! Model: the plain data every later stage reads — the columnar event store and what is derived
//! from the events alone (host or device, iterations, the call tree).

#[allow(missing_docs)]
pub mod attrs;
pub mod calltree;
pub mod flows;
pub mod iteration;
pub mod pick;
pub mod place;
#[allow(missing_docs)]
pub mod store;
#[allow(missing_docs)]
pub mod summary;
#[allow(missing_docs)]
pub mod table;
