//! Renderers: pure functions from a result to text.

pub mod breakdown;
pub mod columns;
pub mod compare;
pub mod flamegraph;
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
/// keep their start (namespace and name) and their end. Under 5 characters only the start
/// stays (`aten…`): a cut never makes a table wider than asked.
pub fn elide_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    if max < 5 {
        let start: String = s.chars().take(max.saturating_sub(1)).collect();
        return if max == 0 { String::new() } else { format!("{start}…") };
    }
    let keep = max - 1;
    let head = keep.div_ceil(2) + keep / 6;
    let tail = keep - head;
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// The fewest columns a cut name keeps while value columns can still be dropped to make room.
pub const MIN_NAME_WIDTH: usize = 24;

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
pub fn fit_columns(
    longest_name: usize,
    value_widths: &[usize],
    gap: usize,
    drop_order: &[&[usize]],
    width: usize,
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
    let wanted = longest_name.min(MIN_NAME_WIDTH);
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

/// Wraps a line of prose (a header, a note) to `width` display columns at spaces, its
/// continuation lines indented by two; words longer than a line (paths) are broken.
/// `usize::MAX` keeps the line whole.
pub fn wrap_line(line: &str, width: usize) -> String {
    if width == usize::MAX || crate::output::render::columns::text_width(line) <= width {
        return line.to_string();
    }
    let options = textwrap::Options::new(width.max(8))
        .subsequent_indent("  ")
        .break_words(true);
    // The wrapper breaks only at ASCII spaces: a no-break space keeps "226 ms" on one line
    // (not where the line holds one already, which must come out as it went in).
    if line.contains(NO_BREAK) {
        return textwrap::wrap(line, options).join("\n");
    }
    let glued = glue_units(line);
    textwrap::wrap(&glued, options).join("\n").replace(NO_BREAK, " ")
}

/// A space that the wrapper does not break at.
const NO_BREAK: char = '\u{a0}';

/// Units that follow a number in headers and notes.
const UNITS: [&str; 14] = [
    "ns", "µs", "us", "ms", "s", "min", "%", "pp", "B", "KiB", "MiB", "GiB", "MB", "GB",
];

/// `line` with the space between a number and its unit ("226 ms", "3.4 %") made unbreakable,
/// and the spaces of a count out of a total ("2 of 3" in a header's steps).
fn glue_units(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut words = line.split(' ').peekable();
    while let Some(word) = words.next() {
        out.push_str(word);
        let Some(next) = words.peek() else { break };
        let unit = next.trim_end_matches([',', ';', ':', ')', '.']);
        let ends_in_digit = word.chars().last().is_some_and(|c| c.is_ascii_digit());
        let starts_with_digit = next.chars().next().is_some_and(|c| c.is_ascii_digit());
        let glued = (ends_in_digit && (UNITS.contains(&unit) || unit == "of")) || (word == "of" && starts_with_digit);
        out.push(if glued { NO_BREAK } else { ' ' });
    }
    out
}

/// Every line of `text` wrapped as [`wrap_line`] does.
pub fn wrap_text(text: &str, width: usize) -> String {
    if width == usize::MAX {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(&wrap_line(line, width));
        out.push('\n');
    }
    out
}

/// A borderless table of a name column and right-aligned value columns (headers may hold a
/// line break), fitted to `width`: names get what the value columns leave and are cut for
/// display so that distinct names stay distinct ([`Cuts`]). `usize::MAX` keeps names whole.
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
    fit_table_dropping(first, headers, names, cells, width, &[], cut)
}

/// [`fit_table_with`] that drops groups of value columns in `drop_order` (indices into
/// `headers`) when the names would otherwise get too few columns ([`fit_columns`]).
pub fn fit_table_dropping(
    first: &str,
    headers: &[String],
    names: &[String],
    cells: &[Vec<String>],
    width: usize,
    drop_order: &[&[usize]],
    cut: impl Fn(&[String], usize) -> Vec<String>,
) -> String {
    use columns::{Columns, text_width};
    let mut value_widths: Vec<usize> = headers.iter().map(|h| text_width(h)).collect();
    for row in cells {
        for (w, c) in value_widths.iter_mut().zip(row) {
            *w = (*w).max(text_width(c));
        }
    }
    let longest = names
        .iter()
        .map(|n| text_width(n))
        .max()
        .unwrap_or(0)
        .max(text_width(first));
    let (shown, name_width) = if width == usize::MAX {
        (vec![true; headers.len()], longest)
    } else {
        fit_columns(longest, &value_widths, 1, drop_order, width)
    };
    let names = if name_width < longest {
        cut(names, name_width)
    } else {
        names.to_vec()
    };
    let pick = |first: &str, row: &[String]| -> Vec<String> {
        std::iter::once(first.to_string())
            .chain(row.iter().zip(&shown).filter(|(_, s)| **s).map(|(c, _)| c.clone()))
            .collect()
    };
    let header = pick(first, headers);
    let rows: Vec<Vec<String>> = names.iter().zip(cells).map(|(n, row)| pick(n, row)).collect();
    let mut right = vec![true; header.len()];
    right[0] = false;
    let mut cols = Columns::new(right);
    for row in std::iter::once(&header).chain(&rows) {
        for (k, c) in row.iter().enumerate() {
            cols.fit(k, c);
        }
    }
    let mut out = Vec::new();
    fn text(row: &[String]) -> Vec<&str> {
        row.iter().map(String::as_str).collect()
    }
    // Writing to a Vec cannot fail.
    let _ = cols.row(&text(&header), &mut out);
    let _ = cols.rule(&mut out);
    for row in &rows {
        let _ = cols.row(&text(row), &mut out);
    }
    let mut s = String::from_utf8(out).unwrap_or_default();
    s.truncate(s.trim_end_matches('\n').len());
    s
}

/// How to cut names to `width` characters so that distinct names stay distinct where a cut of
/// that width can tell them apart: in the middle ([`elide_middle`]), except for names whose
/// middle cut is the same as another's; those keep their start and the part where they first
/// differ from the others of their group (`aten::addmm …024,1024],[1024,4096],…`). A name is
/// never kept longer than `width` (equal names have equal cuts). Holds 16 bytes per such name,
/// nothing for the others.
#[derive(Debug, Clone)]
pub struct Cuts {
    width: usize,
    /// (index, where the name differs from its group), by index.
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
            cut[start..end].sort_unstable_by(|a, b| name(a.1).cmp(name(b.1)));
            // A group of one name (however often it appears) keeps its middle cut.
            if name(cut[start].1) != name(cut[end - 1].1) {
                mark_differences(&mut cut[start..end], &name);
                for k in start..end {
                    cut[kept] = cut[k];
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

/// For a group of (_, index) of names sorted by name, longer than the width, whose middle
/// cuts are equal: replaces each entry by (index, where the name first differs from its
/// nearest different neighbour). Equal names get the same place.
fn mark_differences<'a>(group: &mut [(usize, usize)], name: &impl Fn(usize) -> &'a str) {
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    // Runs of equal names, found in place (no copy of the group).
    let mut before = 0;
    let mut start = 0;
    while start < group.len() {
        let here = name(group[start].1);
        let end = start + group[start..].iter().take_while(|e| name(e.1) == here).count();
        let after = group.get(end).map_or(0, |next| common(here, name(next.1)));
        let p = before.max(after);
        for entry in &mut group[start..end] {
            *entry = (entry.1, p);
        }
        before = after;
        start = end;
    }
}

/// `name` cut to `width` characters so that position `p` (and a few characters around it)
/// stays: the start, `…`, a window around `p`, and `…` when the name goes on.
fn cut_around(name: &[char], p: usize, width: usize) -> String {
    const CONTEXT: usize = 4;
    let n = name.len();
    if width < 12 {
        return elide_middle(&name.iter().collect::<String>(), width);
    }
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
    fn wrapping_keeps_a_number_with_its_unit() {
        let line = "candidate: control (rank 0, steps 2, 3, 4): step time median 303 ms (min 295 ms, max 353 ms)";
        let wrapped = wrap_line(line, 70);
        assert!(wrapped.contains("303 ms"), "{wrapped}");
        assert!(!wrapped.contains('\u{a0}'), "{wrapped}");
        assert!(wrapped.lines().all(|l| columns::text_width(l) <= 70), "{wrapped}");
        assert_eq!(wrapped.replace("\n  ", " "), line);
        // A no-break space already in the line comes out as it went in.
        assert_eq!(wrap_line("a\u{a0}b", 80), "a\u{a0}b");
    }

    #[test]
    fn wrapping_keeps_a_count_with_its_total() {
        // At 80 columns this header broke as "iteration 2 of" / "  3)".
        let line = "control: ../shared/traces/gpu_h100/vit_precision/control (rank 0, iteration 2 of 3)";
        let wrapped = wrap_line(line, 80);
        assert!(wrapped.contains("2 of 3)"), "{wrapped}");
        assert_eq!(wrapped.replace("\n  ", " "), line);
        assert!(wrapped.lines().all(|l| columns::text_width(l) <= 80), "{wrapped}");
    }

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
    fn cuts_never_keep_a_name_longer_than_the_width() {
        let cudnn = "void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<float>)";
        let cutlass = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4::Params)";
        // The same name twice (a gate's time and count rows) is not a collision.
        let names = [cudnn, cutlass, cudnn, cutlass];
        for width in [5, 8, 12, 24, 40] {
            let cuts = distinct_cuts(&names, width);
            for c in &cuts {
                assert!(c.chars().count() <= width, "{c:?} at {width}");
            }
            assert_eq!(cuts[0], cuts[2]);
            assert_eq!(cuts[1], cuts[3]);
        }
        assert_ne!(distinct_cuts(&names, 24)[0], distinct_cuts(&names, 24)[1]);
        // Names no cut of the width can tell apart are cut all the same.
        let alike = [
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2",
        ];
        for c in distinct_cuts(&alike, 10) {
            assert!(c.chars().count() <= 10, "{c:?}");
        }
        assert_eq!(elide_middle("aten::mm", 4), "ate…");
    }

    #[test]
    fn columns_are_dropped_a_pair_at_a_time_until_names_get_their_minimum() {
        // 7 value columns of 8: 7 × 11 = 77 columns, plus the name's padding.
        let values = [8; 7];
        let order: &[&[usize]] = &[&[0, 1], &[3, 4], &[2]];
        assert_eq!(fit_columns(60, &values, 1, order, 200), (vec![true; 7], 60));
        let (shown, name) = fit_columns(60, &values, 1, order, 100);
        assert_eq!(shown, [false, false, true, true, true, true, true]);
        assert_eq!(name, 100 - 5 * 11 - 2);
        let (shown, name) = fit_columns(60, &values, 1, order, 80);
        assert_eq!(shown, [false, false, true, false, false, true, true]);
        assert_eq!(name, 80 - 3 * 11 - 2);
        // Short names need no room beyond their own.
        assert_eq!(fit_columns(10, &values, 1, order, 90).0, vec![true; 7]);
    }

    #[test]
    fn prose_wraps_at_spaces_and_breaks_long_words() {
        let line = "control: /a/very/long/path/to/some/traces/directory (rank 0, iteration 1 of 3)";
        let wrapped = wrap_line(line, 40);
        assert!(wrapped.lines().all(|l| l.chars().count() <= 40), "{wrapped}");
        assert!(wrapped.lines().skip(1).all(|l| l.starts_with("  ")), "{wrapped}");
        assert_eq!(wrap_line(line, usize::MAX), line);
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
