//! A history of runs for CI (docs/history.md): the store of run summaries (`store`), each run
//! reduced to one sample (`series`), the change points of a series over runs (`changes`), and
//! the gate of one candidate against the history (`gate`).

pub(crate) mod changes;
pub(crate) mod gate;
pub(crate) mod series;
pub(crate) mod show;
pub(crate) mod store;

/// The file name of rank `rank`'s summary inside a run's directory.
pub(crate) fn rank_file_name(rank: i64) -> String {
    format!("rank={rank}.parquet")
}
