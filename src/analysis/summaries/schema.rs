//! The summary's columns, the one definition the writer ([`crate::analysis::summaries::write`],
//! [`crate::analysis::summaries::write_table`]) and the reader
//! ([`crate::analysis::summaries::read`], [`crate::analysis::summaries::read_table`]) share;
//! the schema versions are `crate::model::summary`'s `SUMMARY_SCHEMA_*`.
//!
//! Since version 6 a summary is one table (docs/summaries.md): every row of the file is an op
//! row (`kind` `op`: the events of one iteration, name, category and place) or a step row
//! (`kind` `step`: one host ProfilerStep window), with the run label, the rank and the world
//! size on every row and the normalised name beside the raw one, so that SQL engines (DuckDB,
//! pyarrow, Dask) read a summary dataset's op and step tables as rows ([`TABLE_COLUMNS`]).
//! Versions 1 to 5 hold the op rows alone ([`OP_COLUMNS`]).

use crate::analysis::summaries::checksum::SummaryChecksum;
use crate::model::summary::SUMMARY_SCHEMA_OWN_TIMES;
use parquet::basic::Type as PhysicalType;
use std::borrow::Cow;

/// One column of a summary: its name, whether it holds text (else int64), and whether every
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

impl Column {
    /// The Parquet type its values are stored as.
    pub(crate) fn physical_type(&self) -> PhysicalType {
        if self.text {
            PhysicalType::BYTE_ARRAY
        } else {
            PhysicalType::INT64
        }
    }
}

/// The columns of a summary of versions 1 to 5 (op rows alone), in file order; those older
/// than [`SUMMARY_SCHEMA_OWN_TIMES`] have all but the last (`self_ns`).
pub(crate) const OP_COLUMNS: [Column; 8] = [
    col("rank", false, true),
    col("iteration", false, true),
    col("name", true, true),
    col("category", true, true),
    col("place", true, true),
    col("count", false, true),
    col("total_ns", false, true),
    col("self_ns", false, true),
];

/// The columns a summary of schema version `version` before the one table has.
pub(crate) fn op_columns(version: u32) -> &'static [Column] {
    if version >= SUMMARY_SCHEMA_OWN_TIMES {
        &OP_COLUMNS
    } else {
        &OP_COLUMNS[..7]
    }
}

/// The columns of the one table (version 6 on), in file order (docs/summaries.md#columns).
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

/// The Parquet schema (its message syntax) of `columns`.
pub(crate) fn schema_text(columns: &[Column]) -> String {
    let mut text = String::from("message tracediff_summary {\n");
    for c in columns {
        let repetition = if c.required { "required" } else { "optional" };
        let ty = if c.text { "binary" } else { "int64" };
        let logical = if c.text { " (STRING)" } else { "" };
        text.push_str(&format!("    {repetition} {ty} {}{logical};\n", c.name));
    }
    text.push('}');
    text
}

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

    #[test]
    fn the_schema_names_every_column_with_its_type() {
        let text = schema_text(&TABLE_COLUMNS);
        assert!(text.contains("    required binary kind (STRING);\n"), "{text}");
        assert!(text.contains("    optional int64 world_size;\n"), "{text}");
        assert_eq!(text.matches(';').count(), TABLE_COLUMNS.len());
    }

    #[test]
    fn the_op_rows_layout_is_as_versions_1_to_5_wrote_it() {
        assert_eq!(
            schema_text(op_columns(SUMMARY_SCHEMA_OWN_TIMES)),
            "message tracediff_summary {
    required int64 rank;
    required int64 iteration;
    required binary name (STRING);
    required binary category (STRING);
    required binary place (STRING);
    required int64 count;
    required int64 total_ns;
    required int64 self_ns;
}"
        );
        assert_eq!(op_columns(SUMMARY_SCHEMA_OWN_TIMES - 1).len(), 7);
        assert_eq!(OP_COLUMNS[2].physical_type(), PhysicalType::BYTE_ARRAY);
    }
}
