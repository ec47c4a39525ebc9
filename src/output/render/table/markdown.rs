//! A table as GitHub-flavoured Markdown: the title lines as a list, the table with every name
//! whole (names as code, words escaped), the notes after a blank line as lines that end in a
//! hard break.

use super::{Align, Cell, Table};
use crate::output::render::{Format, md_cell, md_name};
use std::io::{self, Write};

/// Writes `table` as Markdown to `out`.
pub(crate) fn write(table: &Table<'_>, out: &mut dyn Write) -> io::Result<()> {
    for line in table.title.iter().filter(|l| l.formats.has(Format::Markdown)) {
        writeln!(out, "- {}", md_cell(&line.text))?;
    }
    writeln!(out)?;
    write_rows(table, out)?;
    let notes: Vec<_> = table.notes.iter().filter(|l| l.formats.has(Format::Markdown)).collect();
    if !notes.is_empty() {
        writeln!(out)?;
    }
    for line in notes {
        writeln!(out, "{}  ", md_cell(&line.text))?;
    }
    Ok(())
}

/// Writes the table alone as Markdown to `out`: its header, rule and rows, without the lines
/// around it (a result that writes several tables under headings of its own).
pub(crate) fn write_rows(table: &Table<'_>, out: &mut dyn Write) -> io::Result<()> {
    let shown = table.shown(Format::Markdown);
    let mut head = String::from("|");
    let mut rule = String::from("|");
    for &k in &shown {
        let column = &table.columns[k];
        if !column.markdown_bare {
            head.push(' ');
        }
        head.push_str(&column.markdown);
        head.push_str(" |");
        rule.push_str(if column.markdown_align == Align::Right {
            "---:|"
        } else {
            "---|"
        });
    }
    writeln!(out, "{head}\n{rule}")?;
    let mut cells = Vec::new();
    let mut line = String::new();
    for i in 0..table.len() {
        table.row(i, &mut cells);
        line.clear();
        line.push('|');
        for &k in &shown {
            line.push(' ');
            match &cells[k] {
                Cell::Name(s) => line.push_str(&md_name(s)),
                Cell::Verdict(false) => line.push_str("**FAIL**"),
                Cell::Tree(s) => line.push_str(&md_cell(s).replace(' ', "\u{a0}")),
                cell @ (Cell::Text(_) | Cell::Shown(..) | Cell::Mark(_)) => {
                    line.push_str(&md_cell(&cell.text(&table.columns[k], Format::Markdown)))
                }
                cell => line.push_str(&cell.text(&table.columns[k], Format::Markdown)),
            }
            line.push_str(" |");
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}
