//! The one-table layout of a summary (schema version 6, docs/summaries.md): every row of the
//! file is an op row (`kind` `op`: the events of one iteration, name, category and place) or
//! a step row (`kind` `step`: one host ProfilerStep window), with the run label, the rank and
//! the world size on every row and the normalised name beside the raw one, so that SQL engines
//! (DuckDB, pyarrow, Dask) read a summary dataset's op and step tables as rows. The writer
//! (`output::summary_table`) and the reader ([`crate::analysis::summaries::read`]) share this module's
//! columns.

use crate::analysis::summaries::checksum::SummaryChecksum;
use std::borrow::Cow;

/// One column of the table: its name, whether it holds text (else int64), and whether every
/// row has a value (else nulls where a kind of row has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Column {
    /// The column's name.
    pub name: &'static str,
    /// A UTF-8 string column (else int64).
    pub text: bool,
    /// Never null.
    pub required: bool,
}

const fn col(name: &'static str, text: bool, required: bool) -> Column {
    Column { name, text, required }
}

/// The columns, in file order (docs/summaries.md#columns).
pub(crate) const TABLE_COLUMNS: [Column; 24] = [
    col("kind", true, true),
    col("run", true, false),
    col("rank", false, true),
    col("world_size", false, false),
    col("iteration", false, true),
    col("name", true, false),
    col("normalized_name", true, false),
    col("category", true, false),
    col("place", true, false),
    col("count", false, false),
    col("total_ns", false, false),
    col("self_ns", false, false),
    col("start_ns", false, false),
    col("end_ns", false, false),
    col("duration_ns", false, false),
    col("gpu_busy_ns", false, false),
    col("host_busy_ns", false, false),
    col("host_comm_ns", false, false),
    col("compute_ns", false, false),
    col("comm_total_ns", false, false),
    col("comm_overlapped_ns", false, false),
    col("comm_exposed_ns", false, false),
    col("memory_exposed_ns", false, false),
    col("idle_ns", false, false),
];

/// The `kind` of an op row.
pub(crate) const KIND_OP: &str = "op";
/// The `kind` of a step row.
pub(crate) const KIND_STEP: &str = "step";

/// One cell: an int64 or a text, either of which may be null.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cell<'a> {
    /// An int64 column's value.
    Int(Option<i64>),
    /// A string column's value.
    Text(Option<Cow<'a, str>>),
}

impl Cell<'_> {
    /// The integer, when the cell holds one.
    pub(crate) fn int(&self) -> Option<i64> {
        match self {
            Cell::Int(v) => *v,
            Cell::Text(_) => None,
        }
    }

    /// The text, when the cell holds one.
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Cell::Text(v) => v.as_deref(),
            Cell::Int(_) => None,
        }
    }

    /// Adds the cell to a checksum.
    pub(crate) fn feed(&self, sum: &mut SummaryChecksum) {
        match self {
            Cell::Int(v) => sum.int_cell(*v),
            Cell::Text(v) => sum.text_cell(v.as_deref()),
        }
    }
}

/// Numbers the names and categories of `rows` in text order, as `summarize` numbers them, and
/// returns the strings in that order (a reader interns them in the order it meets them).
pub(crate) fn renumber_by_text(mut strings: Vec<String>, rows: &mut [crate::model::summary::OpRow]) -> Vec<String> {
    let mut order: Vec<u32> = (0..strings.len() as u32).collect();
    order.sort_by(|a, b| strings[*a as usize].cmp(&strings[*b as usize]));
    let mut new_id = vec![0u32; strings.len()];
    for (k, old) in order.iter().enumerate() {
        new_id[*old as usize] = k as u32;
    }
    for r in rows.iter_mut() {
        r.name = new_id[r.name as usize];
        r.category = new_id[r.category as usize];
    }
    order
        .iter()
        .map(|&k| std::mem::take(&mut strings[k as usize]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_give_their_values_and_nulls() {
        assert_eq!(Cell::Int(Some(3)).int(), Some(3));
        assert_eq!(Cell::Int(Some(3)).text(), None);
        assert_eq!(Cell::Text(Some(Cow::Borrowed("op"))).text(), Some(KIND_OP));
        assert_eq!(Cell::Text(None).int(), None);
        let names: Vec<&str> = TABLE_COLUMNS.iter().map(|c| c.name).collect();
        assert_eq!(&names[..5], ["kind", "run", "rank", "world_size", "iteration"]);
    }
}
