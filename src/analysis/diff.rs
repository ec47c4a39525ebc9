//! The comparison table: one row per name on either side, and the ops-diff categories
//! (docs/semantics.md#the-comparison-table).

use crate::analysis::aggregate::{NameTotals, Naming, Totals};
use crate::analysis::measure::noise::RunShift;
use crate::analysis::select::{Device, Resolved};
use crate::error::{Error, Result};
use crate::input::load::{RankedFile, SideOf};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::borrow::Borrow;
use std::cmp::Reverse;
use std::fmt;

/// One name and what each side did with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// The row's key: the name (or short name), normalised or not, with the `--group-by`
    /// values when asked.
    pub name: String,
    /// The control side's events of this name: their count and summed duration.
    pub control: Totals,
    /// The test side's.
    pub test: Totals,
    /// Whether the change of per-step means exceeds the run-to-run noise (docs/significance.md);
    /// `None` where it could not be estimated.
    #[serde(default)]
    pub significant: Option<bool>,
    /// Each side's mean per step (control, test), averaged over the steps of a run and then over
    /// runs, where more than one step or run was used (docs/significance.md#per-step-values);
    /// `None`: the rows are sums (`--totals`, `--hta`, one step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_step: Option<[Rate; 2]>,
}

/// A row's mean per step on one side: events and time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Events per step.
    pub count: f64,
    /// Time per step, in ns.
    pub dur_ns: f64,
}

impl Eq for Rate {}

impl Row {
    /// The per-step change of time, in ns (rounded), where the row holds per-step values; else
    /// [`Row::diff_dur_ns`].
    pub fn shown_diff_dur_ns(&self) -> i64 {
        match &self.per_step {
            Some([c, t]) => (t.dur_ns - c.dur_ns).round() as i64,
            None => self.diff_dur_ns(),
        }
    }

    /// A side's time as shown (0 control, 1 test): per step (rounded ns) or summed.
    pub fn shown_dur_ns(&self, side: usize) -> i64 {
        match (&self.per_step, side) {
            (Some(r), k) => r[k.min(1)].dur_ns.round() as i64,
            (None, 0) => self.control.dur_ns,
            (None, _) => self.test.dur_ns,
        }
    }

    /// A side's count as shown: per step (up to two decimals) or summed.
    pub fn shown_count(&self, side: usize) -> String {
        match (&self.per_step, side) {
            (Some(r), k) => fmt_rate(r[k.min(1)].count),
            (None, 0) => self.control.count.to_string(),
            (None, _) => self.test.count.to_string(),
        }
    }

    /// The change of count as shown, signed: per step or summed.
    pub fn shown_diff_counts(&self) -> String {
        match &self.per_step {
            Some([c, t]) => {
                let d = t.count - c.count;
                let text = fmt_rate(d.abs());
                if text == "0" {
                    "0".to_string()
                } else if d > 0.0 {
                    format!("+{text}")
                } else {
                    format!("-{text}")
                }
            }
            None => {
                let d = self.diff_counts();
                if d > 0 { format!("+{d}") } else { d.to_string() }
            }
        }
    }

    /// The change of count as sorted: thousandths of a count, per step where the row holds
    /// per-step values.
    fn diff_counts_key(&self) -> i64 {
        match &self.per_step {
            Some([c, t]) => ((t.count - c.count) * 1000.0).round() as i64,
            None => self.diff_counts() * 1000,
        }
    }

    /// test count − control count.
    pub fn diff_counts(&self) -> i64 {
        self.test.count as i64 - self.control.count as i64
    }

    /// test duration − control duration, in ns.
    pub fn diff_dur_ns(&self) -> i64 {
        self.test.dur_ns - self.control.dur_ns
    }

    /// HTA's `counts_change_categories` (of the counts per step where the row holds them).
    pub fn change_symbol(&self) -> &'static str {
        match self.count_order() {
            std::cmp::Ordering::Greater => "+",
            std::cmp::Ordering::Less => "-",
            std::cmp::Ordering::Equal => "=",
        }
    }

    /// test's count against control's: per step where the row holds per-step values (equal
    /// within rounding to two decimals), else summed.
    fn count_order(&self) -> std::cmp::Ordering {
        match &self.per_step {
            Some([c, t]) if fmt_rate(c.count) == fmt_rate(t.count) => std::cmp::Ordering::Equal,
            Some([c, t]) => t.count.total_cmp(&c.count),
            None => self.test.count.cmp(&self.control.count),
        }
    }

    /// Which ops-diff category the row falls in, by its counts (per step where it holds them).
    pub fn category(&self) -> Category {
        match (self.control.count, self.test.count, self.count_order()) {
            (0, _, _) => Category::Added,
            (_, 0, _) => Category::Deleted,
            (_, _, std::cmp::Ordering::Greater) => Category::Increased,
            (_, _, std::cmp::Ordering::Less) => Category::Decreased,
            _ => Category::Unchanged,
        }
    }
}

/// The ops-diff categories, which partition the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Only the test side has the name.
    Added,
    /// Only the control side has it.
    Deleted,
    /// Both have it, the test side more often.
    Increased,
    /// Both have it, the test side less often.
    Decreased,
    /// Both have it as often.
    Unchanged,
}

impl Category {
    /// Every category, in the order outputs list them.
    pub const ALL: [Category; 5] = [
        Category::Added,
        Category::Deleted,
        Category::Increased,
        Category::Decreased,
        Category::Unchanged,
    ];

    /// The category as outputs and `--category` write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Added => "added",
            Category::Deleted => "deleted",
            Category::Increased => "increased",
            Category::Decreased => "decreased",
            Category::Unchanged => "unchanged",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Joins the two sides' totals into rows, sorted by name.
#[cfg(test)]
pub(crate) fn diff(control: &NameTotals, test: &NameTotals) -> Vec<Row> {
    diff_owned(control.clone(), test.clone())
}

/// [`diff`] that takes the totals, so that each name moves into its row instead of being copied:
/// a merge of the two sorted maps.
pub(crate) fn diff_owned(control: NameTotals, test: NameTotals) -> Vec<Row> {
    let mut rows = Vec::with_capacity(control.len().max(test.len()));
    let mut tests = test.into_iter().peekable();
    let only_test = |(name, t): (String, Totals)| Row {
        name,
        control: Totals::default(),
        test: t,
        significant: None,
        per_step: None,
    };
    for (name, c) in control {
        while let Some(earlier) = tests.next_if(|(t_name, _)| *t_name < name) {
            rows.push(only_test(earlier));
        }
        let t = tests.next_if(|(t_name, _)| *t_name == name).map(|(_, t)| t);
        rows.push(Row {
            name,
            control: c,
            test: t.unwrap_or_default(),
            significant: None,
            per_step: None,
        });
    }
    rows.extend(tests.map(only_test));
    rows
}

/// Row order. Ties are always broken by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum SortKey {
    /// Largest change in total duration first, either way (compare's default).
    #[default]
    AbsDiffDuration,
    /// Largest increase in total duration first, largest decrease last.
    DiffDuration,
    /// Largest change in count first, either way.
    AbsDiffCounts,
    /// Largest increase in count first, largest decrease last.
    DiffCounts,
    /// Largest total duration (control + test) first.
    Duration,
    /// Most events (control + test) first.
    Counts,
    /// By name, A to Z (byte order).
    Name,
}

impl SortKey {
    /// The key as `--sort` takes it (`abs-diff-duration`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            SortKey::AbsDiffDuration => "abs-diff-duration",
            SortKey::DiffDuration => "diff-duration",
            SortKey::AbsDiffCounts => "abs-diff-counts",
            SortKey::DiffCounts => "diff-counts",
            SortKey::Duration => "duration",
            SortKey::Counts => "counts",
            SortKey::Name => "name",
        }
    }
}

/// Sorts `rows` by `key`, ties broken by name, so that the order never depends on the input's.
pub fn sort_rows<R: Borrow<Row>>(rows: &mut [R], key: SortKey) {
    // Comparators, not sort keys: a key would clone every name at every comparison.
    fn by<R: Borrow<Row>, K: Ord>(rows: &mut [R], key: impl Fn(&Row) -> K) {
        rows.sort_by(|a, b| {
            let (a, b) = (a.borrow(), b.borrow());
            key(a).cmp(&key(b)).then_with(|| a.name.cmp(&b.name))
        });
    }
    match key {
        SortKey::AbsDiffDuration => by(rows, |r| Reverse(r.shown_diff_dur_ns().unsigned_abs())),
        SortKey::DiffDuration => by(rows, |r| Reverse(r.shown_diff_dur_ns())),
        SortKey::AbsDiffCounts => by(rows, |r| Reverse(r.diff_counts_key().unsigned_abs())),
        SortKey::DiffCounts => by(rows, |r| Reverse(r.diff_counts_key())),
        SortKey::Duration => by(rows, |r| {
            Reverse(i128::from(r.shown_dur_ns(0)) + i128::from(r.shown_dur_ns(1)))
        }),
        SortKey::Counts => by(rows, |r| match &r.per_step {
            Some([c, t]) => Reverse(((c.count + t.count) * 1000.0).round() as u64),
            None => Reverse((r.control.count + r.test.count) * 1000),
        }),
        SortKey::Name => by(rows, |_| ()),
    }
}

/// `--include` / `--exclude`: regular expressions searched in row names.
#[derive(Debug, Clone, Default)]
pub struct NameFilter {
    include: Vec<Regex>,
    exclude: Vec<Regex>,
}

impl NameFilter {
    /// The filter of the `--include` and `--exclude` patterns; a usage error naming the flag
    /// and the pattern when one is not a valid regular expression.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Self> {
        let compile = |flag: &str, p: &String| compile_pattern(flag, p);
        Ok(NameFilter {
            include: include.iter().map(|p| compile("--include", p)).collect::<Result<_>>()?,
            exclude: exclude.iter().map(|p| compile("--exclude", p)).collect::<Result<_>>()?,
        })
    }

    /// Whether a row named `name` is kept: it matches an include pattern (or there is none)
    /// and no exclude pattern.
    pub fn admits(&self, name: &str) -> bool {
        self.included(name) && !self.excluded(name)
    }

    /// For a row keyed by several names (a launching operator and a kernel): an include pattern
    /// matches one of them, and no exclude pattern matches any.
    pub fn admits_any(&self, names: &[&str]) -> bool {
        let matches = |r: &Regex| names.iter().any(|n| r.is_match(n));
        (self.include.is_empty() || self.include.iter().any(matches)) && !self.exclude.iter().any(matches)
    }

    fn included(&self, name: &str) -> bool {
        self.include.is_empty() || self.include.iter().any(|r| r.is_match(name))
    }

    fn excluded(&self, name: &str) -> bool {
        self.exclude.iter().any(|r| r.is_match(name))
    }

    /// Keeps the rows that [`Self::admits_row`]; when that leaves none of several, says which
    /// option removed them.
    pub fn retain_explained(&self, rows: &mut Vec<Row>, group_by: &[String]) -> Option<String> {
        let before = rows.len();
        rows.retain(|r| self.included(operator_name(&r.name, group_by)));
        let included = rows.len();
        rows.retain(|r| !self.excluded(operator_name(&r.name, group_by)));
        if before == 0 || !rows.is_empty() {
            return None;
        }
        let list = |flag: &str, v: &[Regex]| {
            v.iter()
                .map(|r| format!("{flag} '{}'", r.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let names = plural(before, "row name", "row names");
        Some(if included == 0 {
            format!(
                "no rows: {} matched none of the {} {names}",
                list("--include", &self.include),
                crate::text::fmt_count(before)
            )
        } else if included < before {
            format!(
                "no rows: {} removed all {} {} left by {}",
                list("--exclude", &self.exclude),
                crate::text::fmt_count(included),
                plural(included, "row", "rows"),
                list("--include", &self.include)
            )
        } else {
            format!(
                "no rows: {} removed all {} {}",
                list("--exclude", &self.exclude),
                crate::text::fmt_count(before),
                plural(before, "row", "rows")
            )
        })
    }

    /// Whether a row is kept: the patterns match the operator's name, without the group values
    /// that `--group-by` appends to it (`^aten::addmm$` keeps `aten::addmm [input_dims=…]`).
    pub fn admits_row(&self, row_name: &str, group_by: &[String]) -> bool {
        self.admits(operator_name(row_name, group_by))
    }
}

/// `one` or `many` after a number: `1 row`, `2 rows`.
pub(crate) fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// The operator's name in a row name: the row name itself, or with `--group-by` the part
/// before ` [<first group column>=`.
pub(crate) fn operator_name<'a>(row_name: &'a str, group_by: &[String]) -> &'a str {
    let Some(first) = group_by.first() else { return row_name };
    let marker = format!(" [{first}=");
    match row_name.find(&marker) {
        Some(at) => &row_name[..at],
        None => row_name,
    }
}

/// Compiles the regular expression of option `flag`; an error is one line (the regex crate's
/// message spans several, with the pattern drawn above a caret; its last line says what is wrong).
pub(crate) fn compile_pattern(flag: &str, pattern: &str) -> Result<Regex> {
    Regex::new(pattern).map_err(|e| {
        let text = e.to_string();
        let what = text.lines().last().unwrap_or(&text).trim();
        let what = what.strip_prefix("error: ").unwrap_or(what);
        Error::usage(format!("invalid {flag} pattern '{pattern}': {what}"))
    })
}

/// One side as compared: where it came from and what was selected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideInfo {
    /// The side's name in outputs.
    pub label: String,
    /// The path given for it.
    pub path: String,
    /// The trace files (or summaries) read, one per selected rank.
    pub files: Vec<String>,
    /// The ranks and iterations selected.
    #[serde(flatten)]
    pub resolved: Resolved,
    /// How many ProfilerSteps the side holds (what `--iteration all` would use); 0 in
    /// comparisons saved before it was recorded.
    #[serde(default)]
    pub steps_available: usize,
    /// How many ranks the side holds (what `--rank all` would use); 0 as above.
    #[serde(default)]
    pub ranks_available: usize,
    /// The steps used in each run, where the side is several runs (docs/significance.md);
    /// empty for one run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub run_steps: Vec<usize>,
}

/// A per-step value for people: up to two decimals, trailing zeros dropped (`2`, `2.5`, `0.33`).
pub(crate) fn fmt_rate(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_string() } else { s.to_string() }
}

/// Counts of rows per category, and summed durations.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of rows.
    pub rows: usize,
    /// Rows [`Category::Added`].
    pub added: usize,
    /// Rows [`Category::Deleted`].
    pub deleted: usize,
    /// Rows [`Category::Increased`].
    pub increased: usize,
    /// Rows [`Category::Decreased`].
    pub decreased: usize,
    /// Rows [`Category::Unchanged`].
    pub unchanged: usize,
    /// The control side's durations over every row, in ns.
    pub control_dur_ns: i64,
    /// The test side's, in ns.
    pub test_dur_ns: i64,
}

impl Summary {
    /// The counts and sums of `rows`.
    pub fn of(rows: &[Row]) -> Summary {
        let mut s = Summary {
            rows: rows.len(),
            ..Summary::default()
        };
        for r in rows {
            match r.category() {
                Category::Added => s.added += 1,
                Category::Deleted => s.deleted += 1,
                Category::Increased => s.increased += 1,
                Category::Decreased => s.decreased += 1,
                Category::Unchanged => s.unchanged += 1,
            }
            s.control_dur_ns += r.control.dur_ns;
            s.test_dur_ns += r.test.dur_ns;
        }
        s
    }

    /// Number of rows in category `c`.
    pub fn count(&self, c: Category) -> usize {
        match c {
            Category::Added => self.added,
            Category::Deleted => self.deleted,
            Category::Increased => self.increased,
            Category::Decreased => self.decreased,
            Category::Unchanged => self.unchanged,
        }
    }
}

/// A finished comparison: what was compared, and every row (after `--include`/`--exclude`),
/// in the requested order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// What the control side is.
    pub control: SideInfo,
    /// What the test side is.
    pub test: SideInfo,
    /// The events compared: host, device or both.
    pub device: Device,
    /// Rows by name or by short name.
    pub naming: Naming,
    /// Whether names were normalised before grouping.
    #[serde(default)]
    pub normalize_names: bool,
    /// Whether `python_function` frames were counted as rows.
    #[serde(default = "yes")]
    pub python_frames: bool,
    /// The attribute columns that split rows (`--group-by`).
    #[serde(default)]
    pub group_by: Vec<String>,
    /// The `--include` patterns applied.
    pub include: Vec<String>,
    /// The `--exclude` patterns applied.
    pub exclude: Vec<String>,
    /// Whether the rows carry a `significant` field (not in HTA's exact table).
    #[serde(default)]
    pub significance: bool,
    /// Run-wide shifts of host and device time, where significance was estimated.
    #[serde(default)]
    pub shift: RunShift,
    /// Each side's mean step time (control, test), in ns, where rows are per step: what the
    /// footer gives instead of summed durations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_ns: Option<[f64; 2]>,
    /// Every row kept (renderers order them by the sort key asked for).
    pub rows: Vec<Row>,
    /// The `--why` values of the rows, where asked (not saved).
    #[serde(skip)]
    pub why: Option<crate::analysis::cost::why_table::WhyTable>,
}

fn yes() -> bool {
    true
}

impl Comparison {
    /// Rows per category and both sides' summed durations.
    pub fn summary(&self) -> Summary {
        Summary::of(&self.rows)
    }

    /// The rows in category `c`, in table order.
    pub fn in_category(&self, c: Category) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(move |r| r.category() == c)
    }
}

/// What a side's header says: its path, the files of the selected ranks, the selection.
pub(crate) fn side_info<T: RankedFile>(side: &SideOf<T>, label: &str, resolved: Resolved) -> SideInfo {
    SideInfo {
        label: label.to_string(),
        path: side.input.display().to_string(),
        files: side
            .files
            .iter()
            .filter(|f| resolved.ranks.contains(&f.rank()))
            .map(|f| f.source().display().to_string())
            .collect(),
        resolved,
        steps_available: side.step_numbers().len(),
        ranks_available: side.ranks().len(),
        run_steps: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(count: u64, dur_ns: i64) -> Totals {
        Totals { count, dur_ns }
    }

    fn side(items: &[(&str, u64, i64)]) -> NameTotals {
        items.iter().map(|&(n, c, d)| (n.to_string(), totals(c, d))).collect()
    }

    #[test]
    fn rows_cover_both_sides_and_categories_partition_them() {
        let c = side(&[("a", 2, 10), ("b", 1, 5), ("d", 3, 3), ("e", 1, 1)]);
        let t = side(&[("a", 3, 12), ("c", 1, 7), ("d", 1, 9), ("e", 1, 4)]);
        let rows = diff(&c, &t);
        let got: Vec<(&str, Category, &str, i64)> = rows
            .iter()
            .map(|r| (r.name.as_str(), r.category(), r.change_symbol(), r.diff_dur_ns()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a", Category::Increased, "+", 2),
                ("b", Category::Deleted, "-", -5),
                ("c", Category::Added, "+", 7),
                ("d", Category::Decreased, "-", 6),
                ("e", Category::Unchanged, "=", 3),
            ]
        );
        let s = Summary::of(&rows);
        assert_eq!(
            (s.added, s.deleted, s.increased, s.decreased, s.unchanged),
            (1, 1, 1, 1, 1)
        );
        assert_eq!((s.control_dur_ns, s.test_dur_ns), (19, 32));
    }

    #[test]
    fn sorting_breaks_ties_by_name() {
        let c = side(&[("x", 1, 10), ("y", 1, 10), ("z", 5, 0)]);
        let t = side(&[("x", 1, 0), ("y", 1, 20), ("z", 1, 0)]);
        let mut rows = diff(&c, &t);
        let names = |rows: &[Row]| rows.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
        sort_rows(&mut rows, SortKey::AbsDiffDuration);
        assert_eq!(names(&rows), ["x", "y", "z"]);
        sort_rows(&mut rows, SortKey::DiffDuration);
        assert_eq!(names(&rows), ["y", "z", "x"]);
        sort_rows(&mut rows, SortKey::DiffCounts);
        assert_eq!(names(&rows), ["x", "y", "z"]);
        sort_rows(&mut rows, SortKey::AbsDiffCounts);
        assert_eq!(names(&rows), ["z", "x", "y"]);
        sort_rows(&mut rows, SortKey::Counts);
        assert_eq!(names(&rows), ["z", "x", "y"]);
        sort_rows(&mut rows, SortKey::Duration);
        assert_eq!(names(&rows), ["y", "x", "z"]);
        sort_rows(&mut rows, SortKey::Name);
        assert_eq!(names(&rows), ["x", "y", "z"]);
    }

    #[test]
    fn filters_include_then_exclude() {
        let f = NameFilter::new(&["^aten::".into()], &["copy".into()]).unwrap();
        assert!(f.admits("aten::mm"));
        assert!(!f.admits("aten::copy_"));
        assert!(!f.admits("cudaLaunchKernel"));
        let by = ["input_dims".to_string()];
        let f = NameFilter::new(&["^aten::addmm$".into()], &[]).unwrap();
        assert!(f.admits_row("aten::addmm [input_dims=[[1]], input_type=[float]]", &by));
        assert!(!f.admits_row("aten::addmm [input_dims=[[1]]]", &[]));
        assert!(!f.admits_row("aten::addmm_ [input_dims=[[1]]]", &by));
        let e = NameFilter::new(&[], &["(".into()]).unwrap_err().to_string();
        assert!(e.starts_with("invalid --exclude pattern '('"), "{e}");
    }
}
