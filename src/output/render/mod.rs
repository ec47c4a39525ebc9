//! Renderers: pure functions from a result to text.

pub mod compare;
pub mod gate;
pub mod modules;
pub mod ops_diff;
pub mod plot;
pub mod report;
pub mod views;

use serde::{Deserialize, Serialize};
use std::path::Path;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
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
}

impl Default for TableStyle {
    fn default() -> Self {
        TableStyle { width: 100 }
    }
}

/// Nanoseconds as microseconds, exactly: `1500` → `1.5`, `-2000` → `-2`.
pub fn fmt_us(ns: i64) -> String {
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
pub fn json_us(ns: i64) -> serde_json::Value {
    if ns % 1000 == 0 {
        serde_json::Value::from(ns / 1000)
    } else {
        serde_json::Value::from(ns as f64 / 1000.0)
    }
}

/// A duration for people: `812 ns`, `12.4 µs`, `3.21 ms`, `1.50 s`, with three significant
/// digits. `signed` adds `+` to positive values.
pub fn fmt_duration(ns: i64, signed: bool) -> String {
    let sign = sign_of(ns, signed);
    let abs = ns.unsigned_abs() as f64;
    let (value, unit) = if abs < 1e3 {
        return format!("{sign}{} ns", ns.unsigned_abs());
    } else if abs < 1e6 {
        (abs / 1e3, "µs")
    } else if abs < 1e9 {
        (abs / 1e6, "ms")
    } else {
        (abs / 1e9, "s")
    };
    let text = if value < 9.995 {
        format!("{value:.2}")
    } else if value < 99.95 {
        format!("{value:.1}")
    } else {
        format!("{value:.0}")
    };
    format!("{sign}{text} {unit}")
}

/// `-` for negative values, `+` for positive ones when `signed`, else nothing.
pub fn sign_of(n: i64, signed: bool) -> &'static str {
    if n < 0 {
        "-"
    } else if signed && n > 0 {
        "+"
    } else {
        ""
    }
}

/// A count difference with its sign: `+3`, `-1`, `0`.
pub fn fmt_signed(n: i64) -> String {
    if n > 0 { format!("+{n}") } else { n.to_string() }
}

/// A relative change in percent, or `new`/`gone` when one side is zero.
pub fn fmt_percent(control: i64, test: i64) -> String {
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

/// Shortens `s` to at most `max` characters by cutting out its middle: long kernel names
/// keep their start (namespace and name) and their end.
pub fn elide_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max || max < 5 {
        return s.to_string();
    }
    let keep = max - 1;
    let head = keep.div_ceil(2) + keep / 6;
    let tail = keep - head;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// A borderless table of a name column and right-aligned value columns (headers may hold a
/// line break), fitted to `width`: names get what the value columns leave (never fewer than 24
/// columns) and are cut in the middle for display.
pub fn fit_table(first: &str, headers: &[String], names: &[String], cells: &[Vec<String>], width: usize) -> String {
    use comfy_table::{CellAlignment, ContentArrangement, LineStyle, Table, presets};
    let build = |name_width: usize| {
        let mut t = Table::new();
        t.load_style(presets::NOTHING.header_separator(LineStyle::none().fill('─').junction('─')))
            .force_no_tty()
            .set_content_arrangement(ContentArrangement::Disabled);
        let mut header = vec![first.to_string()];
        header.extend(headers.iter().cloned());
        t.set_header(header);
        for (name, nums) in names.iter().zip(cells) {
            let mut row = vec![elide_middle(name, name_width)];
            row.extend(nums.iter().cloned());
            t.add_row(row);
        }
        for k in 1..=headers.len() {
            if let Some(col) = t.column_mut(k) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        t.trim_fmt()
    };
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0).max(4);
    let rendered = build(longest);
    let wide = rendered.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    if wide > width {
        build(longest.saturating_sub(wide - width).max(24))
    } else {
        rendered
    }
}

/// Quotes a CSV field when it needs it (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Escapes text for a Markdown table cell.
pub fn md_cell(s: &str) -> String {
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
mod tests {
    use super::*;

    #[test]
    fn microseconds_are_exact() {
        assert_eq!(fmt_us(0), "0");
        assert_eq!(fmt_us(100_298_000), "100298");
        assert_eq!(fmt_us(1_500), "1.5");
        assert_eq!(fmt_us(-2_000), "-2");
        assert_eq!(fmt_us(-1), "-0.001");
        assert_eq!(fmt_us(12_340), "12.34");
        assert_eq!(json_us(1_500).to_string(), "1.5");
        assert_eq!(json_us(7_000).to_string(), "7");
    }

    #[test]
    fn durations_for_people() {
        assert_eq!(fmt_duration(812, false), "812 ns");
        assert_eq!(fmt_duration(12_400, false), "12.4 µs");
        assert_eq!(fmt_duration(3_210_000, true), "+3.21 ms");
        assert_eq!(fmt_duration(-1_500_000_000, true), "-1.50 s");
        assert_eq!(fmt_duration(999_999, false), "1000 µs");
        assert_eq!(fmt_duration(0, true), "0 ns");
    }

    #[test]
    fn percent_and_signs() {
        assert_eq!(fmt_percent(100, 150), "+50.0%");
        assert_eq!(fmt_percent(0, 5), "new");
        assert_eq!(fmt_percent(5, 0), "gone");
        assert_eq!(fmt_signed(3), "+3");
        assert_eq!(fmt_signed(-3), "-3");
    }

    #[test]
    fn elision_keeps_both_ends() {
        let name = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int> >(int)";
        let short = elide_middle(name, 40);
        assert_eq!(short.chars().count(), 40);
        assert!(short.starts_with("void at::native::vectorize"), "{short}");
        assert!(short.ends_with("<int> >(int)"), "{short}");
        assert_eq!(elide_middle("aten::mm", 40), "aten::mm");
    }

    #[test]
    fn csv_and_markdown_escaping() {
        assert_eq!(csv_field("a, b"), "\"a, b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("aten::mm"), "aten::mm");
        assert_eq!(md_cell("a|b<int>"), "a\\|b\\<int\\>");
    }

    #[test]
    fn formats_from_extensions() {
        assert_eq!(Format::from_extension(Path::new("x.CSV")), Some(Format::Csv));
        assert_eq!(Format::from_extension(Path::new("x.md")), Some(Format::Markdown));
        assert_eq!(Format::from_extension(Path::new("x.png")), None);
    }
}
