//! Aligned text columns, written a row at a time: the layout of comfy-table's `NOTHING` preset
//! (one space of padding on each side, a blank column between columns, no outer borders, a `─`
//! rule under the header, no trailing spaces) without holding the table in memory.

use std::io::{self, Write};
use unicode_width::UnicodeWidthStr;

/// Display width of a cell's text in a terminal.
pub(crate) fn text_width(s: &str) -> usize {
    s.lines().map(UnicodeWidthStr::width).max().unwrap_or(0)
}

/// Column widths and alignments.
#[derive(Debug, Clone)]
pub(crate) struct Columns {
    /// Each column's width, in terminal columns (grown by measuring the cells).
    pub widths: Vec<usize>,
    right: Vec<bool>,
    /// Blank columns between columns: 1 in a table with a rule under its header, 0 without (as
    /// comfy-table lays them out).
    gap: usize,
}

impl Columns {
    /// Columns aligned left (`false`) or right (`true`), all of width 0, for a table with a rule
    /// under its header.
    pub(crate) fn new(right: Vec<bool>) -> Columns {
        Columns {
            widths: vec![0; right.len()],
            right,
            gap: 1,
        }
    }

    /// The same for a table without a rule (the columns are one blank narrower apart).
    pub(crate) fn unruled(right: Vec<bool>) -> Columns {
        Columns {
            gap: 0,
            ..Columns::new(right)
        }
    }

    /// The same with `gap` blank columns between columns (a ruled table closed up to fit).
    pub(crate) fn with_gap(self, gap: usize) -> Columns {
        Columns { gap, ..self }
    }

    /// Widens column `k` to hold `text` (every line of it).
    pub(crate) fn fit(&mut self, k: usize, text: &str) {
        self.widths[k] = self.widths[k].max(text_width(text));
    }

    /// Total width of a line, padding and separators included.
    pub(crate) fn total(&self) -> usize {
        self.widths.iter().map(|w| w + 2).sum::<usize>() + self.gap * self.widths.len().saturating_sub(1)
    }

    /// Writes a row of cells, each of which may hold several lines (a header).
    pub(crate) fn row(&self, cells: &[&str], out: &mut dyn Write) -> io::Result<()> {
        let lines: Vec<Vec<&str>> = cells.iter().map(|c| c.lines().collect()).collect();
        let height = lines.iter().map(Vec::len).max().unwrap_or(0).max(1);
        let mut line = String::new();
        for i in 0..height {
            line.clear();
            for (k, cell) in lines.iter().enumerate() {
                if k > 0 {
                    line.extend(std::iter::repeat_n(' ', self.gap));
                }
                let text = cell.get(i).copied().unwrap_or("");
                let pad = self.widths[k].saturating_sub(UnicodeWidthStr::width(text));
                line.push(' ');
                if self.right[k] {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(text);
                } else {
                    line.push_str(text);
                    line.extend(std::iter::repeat_n(' ', pad));
                }
                line.push(' ');
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }

    /// The rule under the header, as wide as the table.
    pub(crate) fn rule(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", "─".repeat(self.total()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lays_out_like_comfy_tables_nothing_preset() {
        let header = ["name", "control\ncount", "Δ\ntime"];
        let rows = [["aten::mm", "1", "+3.00 µs"], ["x", "12", "0 ns"]];
        let mut cols = Columns::new(vec![false, true, true]);
        for (k, h) in header.iter().enumerate() {
            cols.fit(k, h);
        }
        for r in &rows {
            for (k, c) in r.iter().enumerate() {
                cols.fit(k, c);
            }
        }
        let mut ours = Vec::new();
        cols.row(&header, &mut ours).unwrap();
        cols.rule(&mut ours).unwrap();
        for r in &rows {
            cols.row(r, &mut ours).unwrap();
        }
        let mut t = comfy_table::Table::new();
        t.load_style(
            comfy_table::presets::NOTHING.header_separator(comfy_table::LineStyle::none().fill('─').junction('─')),
        )
        .force_no_tty()
        .set_content_arrangement(comfy_table::ContentArrangement::Disabled);
        t.set_header(header.to_vec());
        for r in &rows {
            t.add_row(r.to_vec());
        }
        for k in 1..3 {
            if let Some(c) = t.column_mut(k) {
                c.set_cell_alignment(comfy_table::CellAlignment::Right);
            }
        }
        assert_eq!(String::from_utf8(ours).unwrap(), format!("{}\n", t.trim_fmt()));

        let mut plain = Columns::unruled(vec![false; 3]);
        for (k, text) in ["index", "name", "x"].iter().chain(&rows[0]).enumerate() {
            plain.fit(k % 3, text);
        }
        let mut ours = Vec::new();
        plain.row(&["index", "name", "x"], &mut ours).unwrap();
        plain.row(&rows[0], &mut ours).unwrap();
        let mut t = comfy_table::Table::new();
        t.load_style(comfy_table::presets::NOTHING).force_no_tty();
        t.set_header(vec!["index", "name", "x"]);
        t.add_row(rows[0].to_vec());
        assert_eq!(String::from_utf8(ours).unwrap(), format!("{}\n", t.trim_fmt()));
    }
}
