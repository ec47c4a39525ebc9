//! Loading a side: its runs and their files, each side's selection resolved, the graph
//! captures joined, and the events inside module nodes.

pub mod captures;
pub mod layout;
pub mod loaded;
pub mod runs;
pub mod side_runs;
