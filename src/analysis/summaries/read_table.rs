//! Reading a summary of the one-table layout (schema version 6, [`crate::analysis::summaries::schema`]):
//! the footer's columns are checked against [`TABLE_COLUMNS`] before any page is read, every row
//! feeds the checksum, the op rows become the summary's rows, and the step rows (a view of the
//! metadata's windows, for SQL) are checked for their shape only.

use crate::analysis::summaries::checksum::SummaryChecksum;
use crate::analysis::summaries::decode::{Interner, for_each_row};
use crate::analysis::summaries::schema::{Cell, KIND_OP, KIND_STEP, TABLE_COLUMNS};
use crate::error::{Error, Result};
use crate::model::summary::{FileSummary, OpRow, SummaryMeta, place_from_text};
use parquet::basic::Repetition;
use parquet::file::reader::{ChunkReader, FileReader, SerializedFileReader};
use parquet::record::{Field, Row};
use std::borrow::Cow;
use std::path::Path;

/// Checks the footer's schema: [`TABLE_COLUMNS`], in order, each of its type, required or
/// optional as written, none repeated.
pub(crate) fn validate_table_schema<R: ChunkReader + 'static>(
    path: &Path,
    reader: &SerializedFileReader<R>,
) -> Result<()> {
    let schema = reader.metadata().file_metadata().schema_descr();
    let fields: Vec<&str> = schema.columns().iter().map(|c| c.name()).collect();
    let want: Vec<&str> = TABLE_COLUMNS.iter().map(|c| c.name).collect();
    if fields != want {
        return Err(Error::input(
            path,
            format!(
                "summary columns are [{}], expected [{}]",
                fields.join(", "),
                want.join(", ")
            ),
        ));
    }
    for (c, want) in schema.columns().iter().zip(TABLE_COLUMNS) {
        let ty = want.physical_type();
        let repetition = if want.required {
            Repetition::REQUIRED
        } else {
            Repetition::OPTIONAL
        };
        let max_def = i16::from(!want.required);
        let as_written = c.physical_type() == ty
            && c.self_type().get_basic_info().repetition() == repetition
            && c.max_def_level() == max_def
            && c.max_rep_level() == 0;
        if !as_written {
            let what = if want.required { "required" } else { "optional" };
            return Err(Error::input(
                path,
                format!("corrupt summary: column '{}' is not an {what} {ty}", c.name()),
            ));
        }
    }
    Ok(())
}

/// Decodes the rows: the op rows into the summary (names and categories interned, numbered in
/// text order), every row into the checksum, which is returned beside the summary.
pub(crate) fn decode_table_rows<R: ChunkReader + 'static>(
    path: &Path,
    reader: &SerializedFileReader<R>,
    meta: SummaryMeta,
    meta_text: &str,
) -> Result<(FileSummary, String)> {
    let mut rows = Vec::new();
    let mut names = Interner::default();
    let mut sum = SummaryChecksum::new(meta_text);
    for_each_row(path, reader, |_, row| {
        let cells = cells_of(row)?;
        cells.iter().for_each(|c| c.feed(&mut sum));
        sum.end_row();
        if let Some(op) = op_row(&cells, &mut |s| names.intern(s))? {
            rows.push(op);
        }
        Ok(())
    })?;
    Ok((names.into_summary(meta, rows), sum.finish()))
}

/// A row's cells, typed as [`TABLE_COLUMNS`] says.
fn cells_of(row: &Row) -> std::result::Result<Vec<Cell<'_>>, String> {
    let mut cells = Vec::with_capacity(TABLE_COLUMNS.len());
    for ((name, field), c) in row.get_column_iter().zip(TABLE_COLUMNS) {
        let cell = match (field, c.text) {
            (Field::Null, false) if !c.required => Cell::Int(None),
            (Field::Null, true) if !c.required => Cell::Text(None),
            (Field::Long(v), false) => Cell::Int(Some(*v)),
            (Field::Str(s), true) => Cell::Text(Some(Cow::Borrowed(s.as_str()))),
            _ => return Err(format!("column '{name}' holds {field}")),
        };
        cells.push(cell);
    }
    if cells.len() != TABLE_COLUMNS.len() {
        return Err(format!("{} columns, expected {}", cells.len(), TABLE_COLUMNS.len()));
    }
    Ok(cells)
}

/// The op row of an `op` row's cells; `None` for a step row; an error for any other kind, or
/// an op row missing a value or holding a negative count or total.
fn op_row(cells: &[Cell<'_>], intern: &mut impl FnMut(&str) -> u32) -> std::result::Result<Option<OpRow>, String> {
    let text = |k: usize| cells[k].text();
    let int = |k: usize| cells[k].int();
    match text(0) {
        Some(KIND_STEP) => return Ok(None),
        Some(KIND_OP) => {}
        other => return Err(format!("unknown kind '{}'", other.unwrap_or(""))),
    }
    let need = |k: usize| format!("an op row without {}", TABLE_COLUMNS[k].name);
    let place_text = text(8).ok_or_else(|| need(8))?;
    let place = place_from_text(place_text).ok_or_else(|| format!("unknown place '{place_text}'"))?;
    let count = int(9).ok_or_else(|| need(9))?;
    let count = u64::try_from(count).map_err(|_| format!("negative count {count}"))?;
    let total_ns = int(10).ok_or_else(|| need(10))?;
    if total_ns < 0 {
        return Err(format!("negative total {total_ns}"));
    }
    Ok(Some(OpRow {
        iteration: int(4).ok_or_else(|| need(4))?,
        name: intern(text(5).ok_or_else(|| need(5))?),
        category: intern(text(7).ok_or_else(|| need(7))?),
        place,
        count,
        total_ns,
        self_ns: int(11).ok_or_else(|| need(11))?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op_cells(kind: &'static str) -> Vec<Cell<'static>> {
        let text = |s: &'static str| Cell::Text(Some(Cow::Borrowed(s)));
        let mut cells = vec![
            text(kind),
            Cell::Text(None),
            Cell::Int(Some(0)),
            Cell::Int(None),
            Cell::Int(Some(3)),
        ];
        cells.extend([text("aten::mm"), text("aten::mm"), text("cpu_op"), text("host")]);
        cells.extend([Cell::Int(Some(2)), Cell::Int(Some(10)), Cell::Int(Some(4))]);
        cells.extend(std::iter::repeat_n(Cell::Int(None), 12));
        cells
    }

    #[test]
    fn op_rows_are_read_step_rows_skipped_and_bad_rows_named() {
        let mut names = Vec::new();
        let mut intern = |s: &str| {
            names.push(s.to_string());
            names.len() as u32 - 1
        };
        let row = op_row(&op_cells(KIND_OP), &mut intern).unwrap().unwrap();
        assert_eq!((row.iteration, row.count, row.total_ns, row.self_ns), (3, 2, 10, 4));
        assert_eq!(op_row(&op_cells(KIND_STEP), &mut intern).unwrap(), None);
        assert_eq!(
            op_row(&op_cells("span"), &mut intern).unwrap_err(),
            "unknown kind 'span'"
        );
        let mut no_name = op_cells(KIND_OP);
        no_name[5] = Cell::Text(None);
        assert_eq!(op_row(&no_name, &mut intern).unwrap_err(), "an op row without name");
        let mut negative = op_cells(KIND_OP);
        negative[9] = Cell::Int(Some(-1));
        assert_eq!(op_row(&negative, &mut intern).unwrap_err(), "negative count -1");
        let mut gpu = op_cells(KIND_OP);
        gpu[8] = Cell::Text(Some(Cow::Borrowed("gpu")));
        assert_eq!(op_row(&gpu, &mut intern).unwrap_err(), "unknown place 'gpu'");
    }
}
