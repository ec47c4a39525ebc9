//! Renderers: pure functions from a result to text.

pub mod aligned;
pub mod breakdown;
pub(crate) mod classes_table;
pub mod columns;
pub mod compare;
pub mod flamegraph;
pub mod flamegraph_change;
pub mod gate;
pub mod kernel_cut;
pub mod modules;
pub mod one_run;
pub mod ops_diff;
pub mod plot;
pub mod report;
pub mod views;
pub mod waterfall;
pub mod xml;

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

pub use crate::text::{fmt_count, fmt_duration};

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
    if max == 0 {
        return String::new();
    }
    let (head, tail) = middle_split(max);
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// How many characters of its start and of its end [`elide_middle`] keeps of a name longer than
/// `max` (1 or more): below 5, only a start.
fn middle_split(max: usize) -> (usize, usize) {
    if max < 5 {
        return (max.saturating_sub(1), 0);
    }
    let keep = max - 1;
    let head = keep.div_ceil(2) + keep / 6;
    (head, keep - head)
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
    fit_columns_min(longest_name, value_widths, gap, drop_order, width, MIN_NAME_WIDTH)
}

/// [`fit_columns`] with its own fewest columns for the names (`min_name`) before value
/// columns are dropped.
pub fn fit_columns_min(
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

/// Wraps a note (one line of prose on standard error) to `width` columns as [`wrap_line`]
/// does, but only at spaces: never inside `time-weighted` or a link such as
/// `docs/significance.md#a-run-wide-shift`, which must stay one word to be copied.
pub fn wrap_note(line: &str, width: usize) -> String {
    if width == usize::MAX || crate::output::render::columns::text_width(line) <= width {
        return line.to_string();
    }
    let options = textwrap::Options::new(width.max(8))
        .subsequent_indent("  ")
        .break_words(true)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
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
pub fn wrap_text(text: &str, width: usize) -> String {
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

/// How to cut names to `width` characters so that distinct names stay distinct and show where
/// they differ: in the middle ([`elide_middle`]) where the start kept by that cut already tells
/// a name from its neighbours in name order; otherwise the name keeps its start and the part
/// where it first differs from them (`void (an…warp_backw…at, 4, true…`, not two rows ending in
/// the same argument list). Where even that leaves two distinct names with one text (a narrow
/// column), they are numbered (`void (…#1`, `void (…#2`). A name is never kept longer than
/// `width`; equal names have equal cuts. Holds 12 bytes per name cut another way than in the
/// middle, nothing for the others.
#[derive(Debug, Clone)]
pub struct Cuts {
    width: usize,
    /// (index, lo, hi), by index: keep the windows around character positions lo ≤ hi (where
    /// the name branches off from the others), or, where lo is [`NUMBERED`], number the name hi
    /// among names whose cuts stay equal.
    special: Vec<(u32, u32, u32)>,
}

/// The `lo` of a name that is numbered.
const NUMBERED: u32 = u32::MAX;

impl Cuts {
    /// The cuts of `count` names; `name(i)` is the i-th.
    pub fn new<'a>(count: usize, name: impl Fn(usize) -> &'a str, width: usize) -> Cuts {
        let mut cuts = Cuts {
            width,
            special: Vec::new(),
        };
        // More names than any table holds in memory: middle cuts.
        let Ok(count) = u32::try_from(count) else {
            return cuts;
        };
        let name = |i: u32| name(i as usize);
        let long = |i: &u32| name(*i).chars().count() > width;
        let cut_count = (0..count).filter(long).count();
        // Each name against its neighbours in name order, where its middle cut hides where
        // they differ.
        let mut cut: Vec<u32> = Vec::with_capacity(cut_count);
        cut.extend((0..count).filter(long));
        cut.sort_unstable_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        cuts.special = around(&cut, &name, width, false);
        drop(cut);
        cuts.special.sort_unstable_by_key(|s| s.0);
        // Names whose cuts are still equal, against each other only (names that differ in
        // the same place from different neighbours: `…_0000004_x_x` and `…_0000054_x_x`).
        let equal = cuts.equal_cuts((0..count).filter(long), cut_count, &name);
        let mut again: Vec<(u32, u32, u32)> = Vec::new();
        for group in equal.chunk_by(|a, b| a.0 == b.0) {
            let members: Vec<u32> = group.iter().map(|e| e.1).collect();
            again.extend(around(&members, &name, width, true));
        }
        drop(equal);
        cuts.merge(again);
        // Narrow columns: number what is still equal, in name order across groups (numbers
        // per group could meet again once cut short).
        let equal = cuts.equal_cuts((0..count).filter(long), cut_count, &name);
        let mut numbered: Vec<u32> = equal.iter().map(|e| e.1).collect();
        drop(equal);
        numbered.sort_unstable_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        let mut k: u32 = 0;
        let numbered: Vec<(u32, u32, u32)> = (0..numbered.len())
            .map(|j| {
                if j == 0 || name(numbered[j - 1]) != name(numbered[j]) {
                    k = k.saturating_add(1);
                }
                (numbered[j], NUMBERED, k)
            })
            .collect();
        cuts.merge(numbered);
        cuts
    }

    /// (hash of the cut, index) of the names (of the `count` names `cut`) whose cut another
    /// name also has, by hash then name. Names with the same hash are taken as one group (a
    /// false merge could only cut names another way than they needed).
    fn equal_cuts<'a>(
        &self,
        cut: impl Iterator<Item = u32>,
        count: usize,
        name: &impl Fn(u32) -> &'a str,
    ) -> Vec<(u32, u32)> {
        let mut texts: Vec<(u32, u32)> = Vec::with_capacity(count);
        texts.extend(cut.map(|i| (hash_of(&self.cut(i as usize, name(i))), i)));
        texts.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a.1).cmp(name(b.1))));
        let mut kept = 0;
        let mut start = 0;
        while start < texts.len() {
            let end = start + texts[start..].iter().take_while(|e| e.0 == texts[start].0).count();
            if name(texts[start].1) != name(texts[end - 1].1) {
                texts.copy_within(start..end, kept);
                kept += end - start;
            }
            start = end;
        }
        texts.truncate(kept);
        texts.shrink_to_fit();
        texts
    }

    /// Puts `updates` (index, lo, hi) in place of the entries of their names.
    fn merge(&mut self, mut updates: Vec<(u32, u32, u32)>) {
        if updates.is_empty() {
            return;
        }
        updates.sort_unstable_by_key(|s| s.0);
        let mut merged = Vec::with_capacity(self.special.len() + updates.len());
        let mut rest = std::mem::take(&mut self.special).into_iter().peekable();
        for update in updates {
            while let Some(s) = rest.next_if(|s| s.0 < update.0) {
                merged.push(s);
            }
            rest.next_if(|s| s.0 == update.0);
            merged.push(update);
        }
        merged.extend(rest);
        self.special = merged;
    }

    /// The text of name `i`.
    pub fn cut<'a>(&self, i: usize, name: &'a str) -> Cow<'a, str> {
        if name.chars().count() <= self.width {
            return Cow::Borrowed(name);
        }
        let found = u32::try_from(i)
            .ok()
            .and_then(|i| self.special.binary_search_by_key(&i, |s| s.0).ok());
        match found.map(|k| self.special[k]) {
            Some((_, NUMBERED, n)) => Cow::Owned(numbered(name, n, self.width)),
            Some((_, lo, hi)) => Cow::Owned(cut_around(
                &name.chars().collect::<Vec<_>>(),
                lo as usize,
                hi as usize,
                self.width,
            )),
            None => Cow::Owned(default_cut(name, self.width)),
        }
    }
}

/// (index, lo, hi) of the names of `sorted` (indices sorted by name) to cut around the places
/// where they branch off from the others ([`differences`]): those whose middle cut to `width`
/// hides one of the places, or all of them.
fn around<'a>(sorted: &[u32], name: &impl Fn(u32) -> &'a str, width: usize, all: bool) -> Vec<(u32, u32, u32)> {
    let hidden = |run: &std::ops::Range<usize>, lo: u32, hi: u32| {
        all || {
            let chars: Vec<char> = name(sorted[run.start]).chars().collect();
            !default_cut_shows(&chars, width, lo as usize) || !default_cut_shows(&chars, width, hi as usize)
        }
    };
    // Counted first so that the list is allocated once at its size.
    let kept: usize = differences(sorted, name)
        .filter(|(run, lo, hi)| hidden(run, *lo, *hi))
        .map(|(run, _, _)| run.len())
        .sum();
    let mut special = Vec::with_capacity(kept);
    for (run, lo, hi) in differences(sorted, name) {
        if hidden(&run, lo, hi) {
            special.extend(sorted[run].iter().map(|&i| (i, lo, hi)));
        }
    }
    special
}

/// `name` cut to `width` with nothing else in view: a kernel name as [`kernel_cut::cut`] cuts
/// it (`vectorized_elementwise_kernel<4, at::na…`), any other name in the middle; a name that
/// fits stays whole.
pub fn default_cut(name: &str, width: usize) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= width {
        return name.to_string();
    }
    match kernel_cut::cut(&chars, width) {
        Some((text, _)) => text,
        None => elide_middle(name, width),
    }
}

/// Whether [`default_cut`] of `name` to `width` shows the character at `p` (a position past
/// the end counts as shown: the name ends there).
fn default_cut_shows(name: &[char], width: usize, p: usize) -> bool {
    let n = name.len();
    if p >= n || n <= width {
        return true;
    }
    if let Some((_, kept)) = kernel_cut::cut(name, width) {
        // What the cut leaves out before its start (`void `, namespaces) counts as shown: the
        // names read apart by what follows, or they are cut again against each other.
        return p < kept[0].start || kept.iter().any(|r| r.contains(&p));
    }
    // The middle cut keeps the first `head` characters and the last `width - 1 - head`.
    let (head, _) = middle_split(width);
    !(p >= head && p + width < n + 1 + head)
}

/// The runs of equal names in `sorted` (indices sorted by name; runs as ranges of `sorted`),
/// each with two places where it branches off from the other names: the deepest (where it
/// first differs from its nearest neighbours in name order, which tells it apart) and the next
/// one up (where the names that share its longer start part from the rest:
/// `softmax_warp_backward` against `softmax_warp_forward`, where the deepest is a template
/// argument), looked for among the 8 nearest names on each side. Places past 4 billion
/// characters count as just under that many.
fn differences<'s, 'a>(
    sorted: &'s [u32],
    name: &'s impl Fn(u32) -> &'a str,
) -> impl Iterator<Item = (std::ops::Range<usize>, u32, u32)> + 's {
    const LOOK: usize = 8;
    const SAME: u32 = u32::MAX;
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    // shared[q]: how many characters the names at q and q + 1 share at their start (SAME for
    // equal names): 4 bytes per name.
    let shared: Vec<u32> = sorted
        .windows(2)
        .map(|w| match (name(w[0]), name(w[1])) {
            (a, b) if a == b => SAME,
            (a, b) => u32::try_from(common(a, b)).unwrap_or(SAME - 1),
        })
        .collect();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= sorted.len() {
            return None;
        }
        let end = start + 1 + shared[start..].iter().take_while(|&&s| s == SAME).count();
        let before = start.checked_sub(1).map_or(0, |q| shared[q]);
        let after = if end < sorted.len() { shared[end - 1] } else { 0 };
        let hi = before.max(after);
        // Walking outward, what a name shares with this run is the least of the shared starts
        // crossed: the first value under `hi` on either side is the next place up.
        let next_up = |steps: &mut dyn Iterator<Item = usize>| {
            let mut least = hi;
            steps.filter(|&q| shared[q] != SAME).take(LOOK).find_map(|q| {
                least = least.min(shared[q]);
                (least < hi).then_some(least)
            })
        };
        let up = next_up(&mut (0..start).rev());
        let down = next_up(&mut (end.saturating_sub(1)..shared.len()));
        let lo = up.max(down).unwrap_or(hi);
        let run = start..end;
        start = end;
        Some((run, lo, hi))
    })
}

fn hash_of(s: &str) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    s.hash(&mut h);
    h.finish() as u32
}

/// `name` cut to `width` with its number among names whose cuts stay equal: `void (an…#2`.
fn numbered(name: &str, n: u32, width: usize) -> String {
    let tag = format!("…#{n}");
    let room = width.saturating_sub(tag.chars().count());
    let name = name.strip_prefix("void ").unwrap_or(name);
    let start: String = name.chars().take(room).collect();
    format!("{start}{tag}")
}

/// `name` cut to `width` characters so that positions `lo` ≤ `hi` (and a few characters
/// around them) stay: the start, `…`, a window around both places (or one around each when
/// one window cannot hold both), and `…` when the name goes on.
fn cut_around(name: &[char], lo: usize, hi: usize, width: usize) -> String {
    const CONTEXT: usize = 4;
    if width < 12 {
        return elide_middle(&name.iter().collect::<String>(), width);
    }
    // A kernel's start is its own name, not `void` and its namespaces, where the places lie
    // past them (`vectorized…FillFunctor<flo…`, not `void at::n…FillFunctor<flo…`).
    // Nor its argument list, where the places lie before it (`split_emb…at, 5ul>…`, not
    // `split_emb…at, 5ul>(at::Gene…`).
    let parts = kernel_cut::parts(name);
    let from = parts.map_or(0, |p| if lo >= p.base { p.base } else { p.start });
    let stop = parts.map_or(name.len(), |p| if hi < p.end { p.end } else { name.len() });
    let (name, lo, hi) = (&name[from..stop], lo.saturating_sub(from), hi.saturating_sub(from));
    let n = name.len();
    if n <= width {
        return name.iter().collect();
    }
    let text = |r: std::ops::Range<usize>| name[r].iter().collect::<String>();
    // A place the start keeps anyway needs no window of its own.
    let lo = if lo + CONTEXT < width / 3 { hi } else { lo };
    // The start shows where the name differs (`void cudnn::bn_f…` against `…bn_b…`).
    if hi < width - 1 {
        return format!("{}…", text(0..width - 1));
    }
    let head = (width / 3).min(lo);
    let tail = width - 1 - head;
    if n - tail + CONTEXT <= lo {
        return format!("{}…{}", text(0..head), text(n - tail..n));
    }
    let len = width - head - 2;
    // In a kernel's template list the window starts where the other name parts from it, past
    // an `(anonymous namespace)::` there (`vectorized…launch_clamp_scalar(…`, not
    // `vectorized…ve::(anonymous names…`).
    let anonymous: Vec<char> = "(anonymous namespace)::".chars().collect();
    let kernel_start = (from > 0).then(|| {
        let skip = name[lo..].starts_with(&anonymous);
        lo + if skip { anonymous.len() } else { 0 }
    });
    for start in kernel_start.into_iter().chain([lo.saturating_sub(CONTEXT)]) {
        let start = start.max(head).min(n - len);
        if start <= lo.max(head) + anonymous.len() && hi + CONTEXT < start + len {
            return format!("{}…{}…", text(0..head), text(start..start + len));
        }
    }
    // Two windows: `head…first…second…`, with a shorter start; the first starts with the word
    // it cuts into (`nchwToNhwc`, not `wToNhwc`). Too narrow for two: the deeper place only.
    if (width - width / 4 - 3) / 2 < 10 {
        let start = hi.saturating_sub(CONTEXT).max(head).min(n - len);
        return format!("{}…{}…", text(0..head), text(start..start + len));
    }
    let head = (width / 4).min(lo);
    let first_len = (width - head - 3) / 2;
    let second_len = width - head - 3 - first_len;
    let word = name[..lo]
        .iter()
        .rposition(|c| !(c.is_alphanumeric() || *c == '_'))
        .map_or(0, |k| k + 1);
    let first = word
        .max((lo + CONTEXT + 1).saturating_sub(first_len))
        .max(head)
        .min(n - first_len);
    let second = hi.saturating_sub(CONTEXT).max(first + first_len).min(n - second_len);
    if first <= head {
        // The first window goes on from the start: one piece (`softmax_warp_forwar…`).
        let first_end = head + first_len + 1;
        let second = second.max(first_end).min(n - second_len);
        return format!("{}…{}…", text(0..first_end), text(second..second + second_len));
    }
    format!(
        "{}…{}…{}…",
        text(0..head),
        text(first..first + first_len),
        text(second..second + second_len)
    )
}

/// `name` cut to `width` keeping its start: a kernel's own name, as [`kernel_cut::cut`] cuts
/// it (`bn_fw_tr_1C11_s…`, not `void cudnn::bn_fw…`), any other name's first characters.
pub fn start_cut(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        return name.to_string();
    }
    let chars: Vec<char> = name.chars().collect();
    if let Some((text, _)) = kernel_cut::cut(&chars, width) {
        return text;
    }
    let kept: String = chars.iter().take(width.saturating_sub(1)).collect();
    format!("{kept}…")
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
    fn wrapped_text_ends_each_line_at_any_width() {
        for width in [usize::MAX, 40] {
            let mut out = wrap_text("control: no straggler", width);
            out.push_str(&wrap_text("test: straggler rank 2\n", width));
            assert_eq!(out, "control: no straggler\ntest: straggler rank 2\n", "width {width}");
        }
    }

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
        // ... "step" with its number (it broke as "step" / "  2 of 3)"), and the tally of the
        // steps used with its word.
        let line = "control: ../shared/traces/gpu_h100/vit_precision/control (rank 0, step 2; 1 of 3 steps)";
        for width in [64, 66, 70, 72, 76, 80] {
            let wrapped = wrap_line(line, width);
            assert!(wrapped.contains("step 2;"), "{wrapped}");
            assert!(wrapped.contains("1 of 3 steps)"), "{wrapped}");
            assert_eq!(wrapped.replace("\n  ", " "), line);
        }
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
                "aten::addmm […s=[[128,100],[100,64],[64…",
                "aten::addmm […s=[[128,100],[100,32],[32…",
                "aten::addmm [input_dims=[[64,100],[100,…",
                "aten::mm"
            ]
        );
    }

    /// Real kernel names of the H100 ResNet pair that differ far from their start.
    const SOFTMAX: [&str; 4] = [
        "void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>(float*, float const*, int, int, int, bool const*, int, bool)",
        "void (anonymous namespace)::softmax_warp_backward<float, float, float, 4, true, false>(float*, float const*, float const*, int, int, int, bool const*)",
        "void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, true, false>(float*, float const*, int, int, int, bool const*, int, bool)",
        "void (anonymous namespace)::softmax_warp_backward<float, float, float, 7, true, false>(float*, float const*, float const*, int, int, int, bool const*)",
    ];

    #[test]
    fn cuts_show_where_names_differ() {
        let cuts = distinct_cuts(&SOFTMAX, 32);
        // Their own name and where they differ; not `void (an…`, not their argument lists.
        assert_eq!(
            cuts,
            [
                "softmax_warp_forwar…at, 4, true…",
                "softmax_warp_backwa…at, 4, true…",
                "softmax_warp_forwar…at, 7, true…",
                "softmax_warp_backwa…at, 7, true…",
            ]
        );
    }

    #[test]
    fn cuts_around_differences_stay_out_of_a_kernels_argument_list() {
        let args = "(at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, int>, int)";
        let names = [
            format!(
                "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float, float, float, 5ul>{args}"
            ),
            format!(
                "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float, float, float, 2ul>{args}"
            ),
        ];
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        for width in [20, 28, 40] {
            let cuts = distinct_cuts(&refs, width);
            assert_ne!(cuts[0], cuts[1]);
            for c in &cuts {
                assert!(c.starts_with("split_") && !c.contains("(at::"), "{c} at {width}");
                assert!(c.contains("5ul>") || c.contains("2ul>"), "{c} at {width}");
            }
        }
    }

    #[test]
    fn distinct_names_get_distinct_cuts_at_every_width() {
        let mut names: Vec<&str> = SOFTMAX.to_vec();
        names.extend([
            "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4::Params)",
            "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4::Params)",
            "triton_poi_fused_add_relu_0",
            "triton_poi_fused_add_relu_1",
            "triton_poi_fused_add_relu_10",
            "aten::mm",
            SOFTMAX[0],
        ]);
        for width in 5..=160 {
            let cuts = distinct_cuts(&names, width);
            for (i, a) in cuts.iter().enumerate() {
                assert!(a.chars().count() <= width, "{a:?} at {width}");
                for (j, b) in cuts.iter().enumerate().skip(i + 1) {
                    assert_eq!(a == b, names[i] == names[j], "{a:?} for {} and {}", names[i], names[j]);
                }
            }
        }
        // Narrow columns number the names they cannot otherwise tell apart.
        assert_eq!(distinct_cuts(&SOFTMAX[..2], 9), ["void …ol)", "void …t*)"]);
        assert_eq!(distinct_cuts(&[SOFTMAX[2], SOFTMAX[0]], 9), ["(anony…#2", "(anony…#1"]);
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
