//! Renderers: pure functions from a result to text.

pub(crate) mod aligned;
pub(crate) mod breakdown;
pub(crate) mod classes_table;
pub(crate) mod columns;
pub(crate) mod compare;
mod cuts;
pub(crate) mod explain;
pub(crate) mod flamegraph;
pub(crate) mod flamegraph_change;
pub(crate) mod flamegraph_legend;
pub(crate) mod gate;
pub(crate) mod gate_junit;
pub(crate) mod history;
pub(crate) mod history_plot;
pub(crate) mod kernel_cut;
pub(crate) mod modules;
pub(crate) mod one_run;
pub(crate) mod ops_diff;
pub(crate) mod plot;
pub(crate) mod plot_bars;
pub(crate) mod report;
pub(crate) mod report_headline;
pub(crate) mod report_history;
pub(crate) mod report_why;
pub(crate) mod short_names;
pub(crate) mod table;
pub(crate) mod views;
pub(crate) mod waterfall;
pub(crate) mod why;
pub(crate) mod xml;

use serde::{Deserialize, Serialize};
use std::path::Path;

pub(crate) use self::cuts::{default_cut, distinct_cuts, elide_middle, start_cut};

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Aligned columns for a terminal.
    Table,
    /// Comma-separated values with a header row (HTA's columns).
    Csv,
    /// One JSON document with the rows and what was compared.
    Json,
    /// A GitHub-flavoured Markdown table.
    Markdown,
}

impl Format {
    /// The format that a file name's extension asks for, if any.
    pub fn from_extension(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            "md" | "markdown" => Some(Format::Markdown),
            "txt" => Some(Format::Table),
            _ => None,
        }
    }
}

/// Options that shape the text of a terminal table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableStyle {
    /// Total width to fit in, in columns.
    pub width: usize,
    /// Never cut names (`--full-names`), whatever the width.
    pub full_names: bool,
    /// Significant rows in colour (`--color`: at a terminal only, unless asked).
    pub color: bool,
}

impl TableStyle {
    /// The width a table fits names to: unlimited with `full_names`.
    pub fn name_width(&self) -> usize {
        if self.full_names { usize::MAX } else { self.width }
    }
}

impl Default for TableStyle {
    fn default() -> Self {
        TableStyle {
            width: 100,
            full_names: false,
            color: false,
        }
    }
}

/// Nanoseconds as microseconds, exactly: `1500` → `1.5`, `-2000` → `-2`.
pub(crate) fn fmt_us(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let abs = ns.unsigned_abs();
    let (whole, frac) = (abs / 1000, abs % 1000);
    if frac == 0 {
        format!("{sign}{whole}")
    } else {
        let digits = format!("{frac:03}");
        format!("{sign}{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// Nanoseconds as a JSON number of microseconds (shortest decimal that reads back the same).
pub(crate) fn json_us(ns: i64) -> serde_json::Value {
    if ns % 1000 == 0 {
        serde_json::Value::from(ns / 1000)
    } else {
        serde_json::Value::from(ns as f64 / 1000.0)
    }
}

pub(crate) use crate::text::{fmt_count, fmt_duration};

/// `-` for negative values, `+` for positive ones when `signed`, else nothing.
pub(crate) fn sign_of(n: i64, signed: bool) -> &'static str {
    if n < 0 {
        "-"
    } else if signed && n > 0 {
        "+"
    } else {
        ""
    }
}

/// A count difference with its sign: `+3`, `-1`, `0`.
pub(crate) fn fmt_signed(n: i64) -> String {
    if n > 0 { format!("+{n}") } else { n.to_string() }
}

/// A relative change in percent, or `new`/`gone` when one side is zero.
pub(crate) fn fmt_percent(control: i64, test: i64) -> String {
    match (control, test) {
        (0, 0) => "0%".to_string(),
        (0, _) => "new".to_string(),
        (_, 0) => "gone".to_string(),
        (c, t) => {
            let p = (t - c) as f64 * 100.0 / c.unsigned_abs() as f64;
            if p.abs() < 0.05 {
                "0%".to_string()
            } else {
                format!("{p:+.1}%")
            }
        }
    }
}

/// The fewest columns a cut name keeps while value columns can still be dropped to make room.
pub(crate) const MIN_NAME_WIDTH: usize = 24;

/// The narrowest a name column is ever cut to (a table wider than its terminal only below
/// about 40 columns, where even the kept value columns do not fit).
const LAST_NAME_WIDTH: usize = 5;

/// How a table with a name column and value columns fits in `width` display columns (lines
/// laid out as [`columns::Columns`] does: one space of padding on each side of a cell, `gap`
/// blank columns between cells): which value columns it shows and how wide its names may be.
/// Value columns are dropped a group at a time in `drop_order` (each group: indices into
/// `value_widths`, such as a measure's control and test columns) while the names would get
/// fewer than [`MIN_NAME_WIDTH`] columns (or fewer than the longest name, when that is
/// shorter); the names then get what is left.
pub(crate) fn fit_columns(
    longest_name: usize,
    value_widths: &[usize],
    gap: usize,
    drop_order: &[&[usize]],
    width: usize,
) -> (Vec<bool>, usize) {
    fit_columns_min(longest_name, value_widths, gap, drop_order, width, MIN_NAME_WIDTH)
}

/// [`fit_columns`] with its own fewest columns for the names (`min_name`) before value
/// columns are dropped.
pub(crate) fn fit_columns_min(
    longest_name: usize,
    value_widths: &[usize],
    gap: usize,
    drop_order: &[&[usize]],
    width: usize,
    min_name: usize,
) -> (Vec<bool>, usize) {
    let mut shown = vec![true; value_widths.len()];
    let room = |shown: &[bool]| {
        let values: usize = value_widths
            .iter()
            .zip(shown)
            .filter(|(_, s)| **s)
            .map(|(w, _)| w + 2 + gap)
            .sum();
        width.saturating_sub(values + 2)
    };
    let wanted = longest_name.min(min_name);
    for group in drop_order {
        if room(&shown) >= wanted {
            break;
        }
        for &k in *group {
            if let Some(s) = shown.get_mut(k) {
                *s = false;
            }
        }
    }
    let name_width = longest_name.min(room(&shown).max(LAST_NAME_WIDTH));
    (shown, name_width)
}

/// A JSON document as the commands write it: pretty-printed, ending with a newline.
pub(crate) fn pretty_json(doc: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(doc).unwrap_or_default();
    text.push('\n');
    text
}

/// Wraps a line of prose (a header, a note) to `width` display columns at spaces, its
/// continuation lines indented by two; words longer than a line (paths) are broken.
/// `usize::MAX` keeps the line whole.
pub(crate) fn wrap_line(line: &str, width: usize) -> String {
    wrap_line_under(line, width, "  ")
}

/// [`wrap_line`] with the continuation lines indented by `indent` (a line that is itself
/// indented continues deeper, so its continuation never reads as a line of its own).
pub(crate) fn wrap_line_under(line: &str, width: usize, indent: &str) -> String {
    if width == usize::MAX || crate::output::render::columns::text_width(line) <= width {
        return line.to_string();
    }
    let options = textwrap::Options::new(width.max(8))
        .subsequent_indent(indent)
        .break_words(true);
    // The wrapper breaks only at ASCII spaces: a no-break space keeps "226 ms" on one line
    // (not where the line holds one already, which must come out as it went in).
    if line.contains(NO_BREAK) {
        return textwrap::wrap(line, options).join("\n");
    }
    let glued = glue_units(line);
    textwrap::wrap(&glued, options).join("\n").replace(NO_BREAK, " ")
}

/// A note (a line of prose on standard error at a terminal) on one line of `width` columns: whole
/// where it fits, else cut after its last clause that fits (at `; `, `: ` or `, `; at a space
/// where no clause ends in the last third of the line), `…` after. Piped, notes stay whole.
pub(crate) fn one_line_note(line: &str, width: usize) -> String {
    use crate::output::render::columns::text_width;
    if width == usize::MAX || text_width(line) <= width {
        return line.to_string();
    }
    let room = width.max(8) - 1;
    // The longest start of `line` that fits in `room`, on a character boundary.
    let mut end = 0;
    for (i, c) in line.char_indices() {
        if text_width(&line[..i + c.len_utf8()]) > room {
            break;
        }
        end = i + c.len_utf8();
    }
    let start = &line[..end];
    let clause = ["; ", ": ", ", "]
        .iter()
        .filter_map(|p| start.rfind(p).map(|k| k + 1))
        .max()
        .filter(|&k| k * 3 >= end * 2);
    let cut = clause
        .or_else(|| start.rfind(' ').filter(|&k| k * 2 >= end))
        .unwrap_or(end);
    format!("{}…", line[..cut].trim_end())
}

/// A space that the wrapper does not break at.
const NO_BREAK: char = '\u{a0}';

/// Units that follow a number in headers and notes.
const UNITS: [&str; 14] = [
    "ns", "µs", "us", "ms", "s", "min", "%", "pp", "B", "KiB", "MiB", "GiB", "MB", "GB",
];

/// `line` with the space between a number and its unit ("226 ms", "3.4 %") made unbreakable,
/// the spaces of a count out of a total ("1 of 3 steps" in a header) and those after `step`
/// and `rank` before a number (a header wrapped as `step` / `2; 1 of 3 steps)`).
fn glue_units(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut words = line.split(' ').peekable();
    while let Some(word) = words.next() {
        out.push_str(word);
        let Some(next) = words.peek() else { break };
        let unit = next.trim_end_matches([',', ';', ':', ')', '.']);
        let ends_in_digit = word.chars().last().is_some_and(|c| c.is_ascii_digit());
        let starts_with_digit = next.chars().next().is_some_and(|c| c.is_ascii_digit());
        let counted = matches!(word.trim_start_matches('('), "step" | "steps" | "rank" | "ranks");
        let glued = (ends_in_digit && (UNITS.contains(&unit) || matches!(unit, "of" | "steps" | "ranks")))
            || ((word == "of" || counted) && starts_with_digit);
        out.push(if glued { NO_BREAK } else { ' ' });
    }
    out
}

/// Every line of `text` wrapped as [`wrap_line`] does.
pub(crate) fn wrap_text(text: &str, width: usize) -> String {
    // Every line ends in a newline at any width: a pipe (`usize::MAX`) used to get the text as
    // given, so a line passed without one ran into the next ("take as longtest: straggler").
    let mut out = String::with_capacity(text.len() + 1);
    for line in text.lines() {
        if width == usize::MAX {
            out.push_str(line);
        } else {
            out.push_str(&wrap_line(line, width));
        }
        out.push('\n');
    }
    out
}

/// Quotes a CSV field when it needs it (RFC 4180).
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A name as Markdown code (`` `aten::mm` ``): a backtick in it read as `'`, a `|` escaped (a
/// table cell's end otherwise). With [`md_cell`], the one escaper of every command's Markdown.
pub(crate) fn md_name(s: &str) -> String {
    format!("`{}`", s.replace('`', "'").replace('|', "\\|"))
}

/// Escapes text for Markdown (a table cell, a title, a note): the characters that mark up
/// (`| \ ` * _ < > [ ]`) get a backslash, line breaks become spaces. Every command's Markdown
/// escapes its text with this (and its names with [`md_name`]).
pub(crate) fn md_cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '|' | '\\' | '`' | '*' | '_' | '<' | '>' | '[' | ']' => {
                out.push('\\');
                out.push(ch);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests;
