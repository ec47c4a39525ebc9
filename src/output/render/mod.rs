//! Renderers: pure functions from a result to text.

pub mod breakdown;
pub mod columns;
pub mod compare;
pub mod gate;
pub mod modules;
pub mod ops_diff;
pub mod plot;
pub mod report;
pub mod views;
pub mod waterfall;

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::Path;

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
        }
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

pub use crate::text::fmt_duration;

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
/// columns) and are cut for display so that distinct names stay distinct ([`Cuts`]).
pub fn fit_table(first: &str, headers: &[String], names: &[String], cells: &[Vec<String>], width: usize) -> String {
    fit_table_with(first, headers, names, cells, width, |names, w| {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        distinct_cuts(&refs, w)
    })
}

/// [`fit_table`] with its own way of cutting the names to a width: `cut(names, width)`.
pub fn fit_table_with(
    first: &str,
    headers: &[String],
    names: &[String],
    cells: &[Vec<String>],
    width: usize,
    cut: impl Fn(&[String], usize) -> Vec<String>,
) -> String {
    use comfy_table::{CellAlignment, ContentArrangement, LineStyle, Table, presets};
    let build = |name_width: usize| {
        let mut t = Table::new();
        t.load_style(presets::NOTHING.header_separator(LineStyle::none().fill('─').junction('─')))
            .force_no_tty()
            .set_content_arrangement(ContentArrangement::Disabled);
        let mut header = vec![first.to_string()];
        header.extend(headers.iter().cloned());
        t.set_header(header);
        for (name, nums) in cut(names, name_width).into_iter().zip(cells) {
            let mut row = vec![name];
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

/// How to cut names to `width` characters so that distinct names stay distinct: in the middle
/// ([`elide_middle`]), except for names whose middle cut is the same as another's; those keep
/// their start and the part where they first differ from the others of their group
/// (`aten::addmm …024,1024],[1024,4096],…`), or stay whole when no cut of that width can tell
/// them apart. Holds 16 bytes per such name, nothing for the others.
#[derive(Debug, Clone)]
pub struct Cuts {
    width: usize,
    /// (index, where the name differs from its group, or `usize::MAX` to keep it whole), by index.
    special: Vec<(usize, usize)>,
}

impl Cuts {
    /// The cuts of `count` names; `name(i)` is the i-th.
    pub fn new<'a>(count: usize, name: impl Fn(usize) -> &'a str, width: usize) -> Cuts {
        // Only names that are cut can collide: (hash of the middle cut, index); then, in place,
        // (index, where it differs) for the names that collide. Names with the same hash are
        // taken as one group (a false merge could only give a cut that keeps more).
        let mut cut: Vec<(usize, usize)> = (0..count)
            .filter(|&i| name(i).chars().count() > width)
            .map(|i| (hash_of(&elide_middle(name(i), width)), i))
            .collect();
        cut.sort_unstable();
        let mut kept = 0;
        let mut start = 0;
        while start < cut.len() {
            let end = start + cut[start..].iter().take_while(|c| c.0 == cut[start].0).count();
            if end - start > 1 {
                cut[start..end].sort_unstable_by(|a, b| name(a.1).cmp(name(b.1)));
                let unique = mark_differences(&mut cut[start..end], &name, width);
                for k in start..end {
                    let (i, p) = cut[k];
                    cut[kept] = (i, if unique { p } else { usize::MAX });
                    kept += 1;
                }
            }
            start = end;
        }
        cut.truncate(kept);
        cut.sort_unstable();
        Cuts { width, special: cut }
    }

    /// The text of name `i`.
    pub fn cut<'a>(&self, i: usize, name: &'a str) -> Cow<'a, str> {
        if name.chars().count() <= self.width {
            return Cow::Borrowed(name);
        }
        match self.special.binary_search_by_key(&i, |s| s.0) {
            Ok(k) if self.special[k].1 == usize::MAX => Cow::Borrowed(name),
            Ok(k) => Cow::Owned(cut_around(
                &name.chars().collect::<Vec<_>>(),
                self.special[k].1,
                self.width,
            )),
            Err(_) => Cow::Owned(elide_middle(name, self.width)),
        }
    }
}

fn hash_of(s: &str) -> usize {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    s.hash(&mut h);
    h.finish() as usize
}

/// For a group of (_, index) of names sorted by name, longer than `width`, whose middle cuts
/// are equal: replaces each entry by (index, where the name first differs from its nearest
/// neighbour). Returns whether the cuts there are all distinct.
fn mark_differences<'a>(group: &mut [(usize, usize)], name: &impl Fn(usize) -> &'a str, width: usize) -> bool {
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let mut before = 0;
    let mut hashes = Vec::with_capacity(group.len());
    for k in 0..group.len() {
        let after = group
            .get(k + 1)
            .map_or(0, |next| common(name(group[k].1), name(next.1)));
        let p = before.max(after);
        let n = name(group[k].1);
        hashes.push(hash_of(&cut_around(&n.chars().collect::<Vec<_>>(), p, width)));
        group[k] = (group[k].1, p);
        before = after;
    }
    hashes.sort_unstable();
    hashes.dedup();
    hashes.len() == group.len() && width >= 12
}

/// `name` cut to `width` characters so that position `p` (and a few characters around it)
/// stays: the start, `…`, a window around `p`, and `…` when the name goes on.
fn cut_around(name: &[char], p: usize, width: usize) -> String {
    const CONTEXT: usize = 4;
    let n = name.len();
    let text = |r: std::ops::Range<usize>| name[r].iter().collect::<String>();
    if p + CONTEXT < width - 1 {
        return format!("{}…", text(0..width - 1));
    }
    let head = (width / 3).min(p);
    let tail = width - 1 - head;
    if n - tail + CONTEXT <= p {
        return format!("{}…{}", text(0..head), text(n - tail..n));
    }
    let len = width - head - 2;
    let start = p.saturating_sub(CONTEXT).max(head).min(n - len);
    format!("{}…{}…", text(0..head), text(start..start + len))
}

/// [`Cuts`] of a few names, as text.
pub fn distinct_cuts(names: &[&str], width: usize) -> Vec<String> {
    let cuts = Cuts::new(names.len(), |i| names[i], width);
    names
        .iter()
        .enumerate()
        .map(|(i, n)| cuts.cut(i, n).into_owned())
        .collect()
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
    fn cuts_keep_distinct_names_distinct() {
        let names = [
            "aten::addmm [input_dims=[[128,100],[100,64],[64]], input_type=[float,float,float]]",
            "aten::addmm [input_dims=[[128,100],[100,32],[32]], input_type=[float,float,float]]",
            "aten::addmm [input_dims=[[64,100],[100,64],[64]], input_type=[float,float,float]]",
            "aten::mm",
        ];
        let plain: Vec<String> = names.iter().map(|n| elide_middle(n, 40)).collect();
        assert_eq!(plain[0], plain[1], "the middle cut hides the difference");
        let cuts = distinct_cuts(&names, 40);
        assert_eq!(
            cuts,
            [
                "aten::addmm […100,64],[64]], input_type…",
                "aten::addmm […100,32],[32]], input_type…",
                "aten::addmm [input_dims=[[64,100],[100,…",
                "aten::mm"
            ]
        );
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
