//! Loading a side: its runs and their files, each side's selection resolved, the graph
//! captures joined, and the events inside module nodes.

pub(crate) mod captures;
pub(crate) mod layout;
pub(crate) mod loaded;
pub(crate) mod runs;
pub(crate) mod side_runs;
