//! Writing a summary in the one-table layout of schema version 6 ([`crate::analysis::summaries::schema`]):
//! op rows and step rows in one Parquet table, the metadata as JSON beside them and the rows'
//! checksum.

use crate::analysis::names::normalize_name;
use crate::analysis::summaries::checksum::SummaryChecksum;
use crate::analysis::summaries::encode::{stored_count, write_parquet};
use crate::analysis::summaries::schema::{Cell, KIND_OP, KIND_STEP, TABLE_COLUMNS, schema_text};
use crate::model::summary::FileSummary;
use crate::model::summary::{Window, place_text};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use std::borrow::Cow;
use std::io::Write;

/// Writes `summary` in the one-table layout to `out` (Snappy, strings dictionary-encoded).
pub(crate) fn write_summary_table<W: Write + Send>(summary: &FileSummary, out: W) -> std::io::Result<()> {
    let meta = serde_json::to_string(&summary.meta)?;
    let rows = table_rows(summary);
    let mut sum = SummaryChecksum::new(&meta);
    for row in &rows {
        row.iter().for_each(|c| c.feed(&mut sum));
        sum.end_row();
    }
    write_parquet(out, &schema_text(&TABLE_COLUMNS), meta, sum.finish(), |k, col| {
        let required = TABLE_COLUMNS.get(k).is_some_and(|c| c.required);
        let cells = rows.iter().map(|r| r.get(k).unwrap_or(&Cell::Int(None)));
        let levels: Vec<i16> = cells
            .clone()
            .map(|c| i16::from(c.int().is_some() || c.text().is_some()))
            .collect();
        let levels = (!required).then_some(levels.as_slice());
        if TABLE_COLUMNS.get(k).is_some_and(|c| c.text) {
            let v: Vec<ByteArray> = cells
                .filter_map(|c| c.text().map(|t| ByteArray::from(t.as_bytes().to_vec())))
                .collect();
            col.typed::<ByteArrayType>().write_batch(&v, levels, None)?;
        } else {
            let v: Vec<i64> = cells.filter_map(Cell::int).collect();
            col.typed::<Int64Type>().write_batch(&v, levels, None)?;
        }
        Ok(())
    })
}

/// Every row of `summary` in the one-table layout: its op rows in their order, then a step row
/// per host ProfilerStep window in file order. Each row has a cell per [`TABLE_COLUMNS`].
pub(crate) fn table_rows(summary: &FileSummary) -> Vec<Vec<Cell<'_>>> {
    let meta = &summary.meta;
    let head = |kind: &'static str, iteration: i64| -> Vec<Cell<'_>> {
        vec![
            Cell::Text(Some(Cow::Borrowed(kind))),
            Cell::Text(meta.run.as_deref().map(Cow::Borrowed)),
            Cell::Int(Some(summary.rank())),
            Cell::Int(meta.world_size),
            Cell::Int(Some(iteration)),
        ]
    };
    let mut rows = Vec::with_capacity(summary.rows.len() + meta.windows.len());
    for r in &summary.rows {
        let name = summary.text(r.name);
        let mut row = head(KIND_OP, r.iteration);
        row.extend([
            Cell::Text(Some(Cow::Borrowed(name))),
            Cell::Text(Some(normalize_name(name))),
            Cell::Text(Some(Cow::Borrowed(summary.text(r.category)))),
            Cell::Text(Some(Cow::Borrowed(place_text(r.place)))),
            Cell::Int(Some(stored_count(r.count))),
            Cell::Int(Some(r.total_ns)),
            Cell::Int(Some(r.self_ns)),
        ]);
        row.extend(std::iter::repeat_n(Cell::Int(None), 12));
        rows.push(row);
    }
    for w in meta.windows.iter().filter(|w| w.step.is_some()) {
        let mut row = head(KIND_STEP, w.step.unwrap_or(-1));
        row.extend(std::iter::repeat_n(Cell::Text(None), 4));
        row.extend(std::iter::repeat_n(Cell::Int(None), 3));
        row.extend(step_cells(w));
        rows.push(row);
    }
    rows
}

/// The step columns of a window: its bounds, length, busy times and breakdown.
fn step_cells(w: &Window) -> [Cell<'static>; 12] {
    let b = w.breakdown.as_ref();
    let part = |f: fn(&crate::model::summary::Breakdown) -> i64| Cell::Int(b.map(f));
    [
        Cell::Int(Some(w.start_ns)),
        Cell::Int(Some(w.end_ns)),
        Cell::Int(Some(w.end_ns.saturating_sub(w.start_ns))),
        Cell::Int(Some(w.gpu_busy_ns)),
        Cell::Int(Some(w.host_busy_ns)),
        Cell::Int(w.host_comm_ns),
        part(|b| b.compute_ns),
        part(|b| b.comm_total_ns),
        part(|b| b.comm_overlapped_ns),
        part(|b| b.comm_exposed_ns),
        part(|b| b.memory_exposed_ns),
        part(|b| b.idle_ns),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_a_cell_per_column_of_its_type() {
        let trace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ranks/control/rank0.json");
        let file = crate::input::load::load_file(&trace, &Default::default()).unwrap();
        let summary = crate::analysis::summaries::summarize::summarize(&file, &trace);
        let rows = table_rows(&summary);
        assert_eq!(rows.len(), summary.rows.len() + summary.meta.windows.len());
        for row in &rows {
            assert_eq!(row.len(), TABLE_COLUMNS.len());
            for (cell, c) in row.iter().zip(TABLE_COLUMNS) {
                assert_eq!(matches!(cell, Cell::Text(_)), c.text, "{}", c.name);
                if c.required {
                    assert!(cell.int().is_some() || cell.text().is_some(), "{}", c.name);
                }
            }
        }
        let step = rows.iter().find(|r| r[0].text() == Some(KIND_STEP)).unwrap();
        assert_eq!(step[14].int(), Some(step[13].int().unwrap() - step[12].int().unwrap()));
    }
}
