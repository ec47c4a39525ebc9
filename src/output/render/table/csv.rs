//! A table as CSV: a header row of the columns' CSV names, then a line per row, written one row
//! at a time.

use super::{Cell, Table};
use crate::output::render::{Format, csv_field};
use std::io::{self, Write};

/// Writes `table` as CSV to `out`: the header is written as named (the names are the
/// project's, never quoted), each text cell quoted where it must be (RFC 4180).
pub(crate) fn write(table: &Table<'_>, out: &mut dyn Write) -> io::Result<()> {
    let shown = table.shown(Format::Csv);
    let header: Vec<&str> = shown.iter().map(|&k| table.columns[k].csv.as_str()).collect();
    writeln!(out, "{}", header.join(","))?;
    let mut cells = Vec::new();
    let mut line = String::new();
    for i in 0..table.len() {
        table.row(i, &mut cells);
        line.clear();
        for (n, &k) in shown.iter().enumerate() {
            if n > 0 {
                line.push(',');
            }
            let column = &table.columns[k];
            match &cells[k] {
                Cell::Text(s) | Cell::Name(s) | Cell::Tree(s) | Cell::Plain(s) => line.push_str(&csv_field(s)),
                Cell::Shown(_, serde_json::Value::String(s)) => line.push_str(&csv_field(s)),
                cell => line.push_str(&cell.text(column, Format::Csv)),
            }
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}
