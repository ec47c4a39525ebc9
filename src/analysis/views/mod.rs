//! The views of a diff run (docs/semantics.md#operator-and-kernel-views, docs/semantics.md#overview): the operator and kernel tables, and the
//! overview. They read the call tree of the store ([`crate::model::calltree`]) and select
//! ranks, iterations and device exactly as `compare` does.

pub(crate) mod attribution;
pub(crate) mod classes;
pub(crate) mod kernels;
mod measure;
pub(crate) mod operators;
pub(crate) mod overview;
pub(crate) mod overview_runs;
pub(crate) mod per_node_marks;
pub(crate) mod per_step;
pub(crate) mod runs;
pub(crate) mod sequences;

pub use self::measure::{Measure, Processor, Unit};
use crate::analysis::aggregate::Keying;
use crate::analysis::diff::{NameFilter, SideInfo};
use crate::analysis::load::loaded::Loaded;
use crate::analysis::modules::Scope;
use crate::analysis::modules::scopes::{NodeScopes, RowSets};
use crate::model::store::TraceFile;
use crate::request::CompareRequest;
use crate::request::side::{PerSide, SideId};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// Which table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ViewKind {
    /// A row per operator (`cpu_op`): calls, host and device self and total time.
    Operators,
    /// A row per kernel (or launching operator and kernel): calls, total, mean, min, max.
    Kernels,
    /// A row per kernel class (`kernels --by-class`): the kernel measures summed per class.
    Classes,
}

/// One row: its key and, per side, one value per measure (`None`: the side has no value, e.g.
/// the mean of a kernel it never ran).
#[derive(Debug, Clone, PartialEq)]
pub struct ViewRow {
    /// The launching operator (kernel view with `--by-operator`).
    pub operator: Option<String>,
    /// The operator's or kernel's name.
    pub name: String,
    /// The control side's value of each measure, in [`ViewTable::measures`] order.
    pub control: Vec<Option<i64>>,
    /// The test side's.
    pub test: Vec<Option<i64>>,
    /// Per measure, whether its change exceeds run-to-run noise (docs/significance.md); `None`
    /// where it was not estimated (too few steps, a mean, min or max). Empty: not estimated.
    pub significant: Vec<Option<bool>>,
    /// Per-step values (control, test), one per measure, where more than one step or run was
    /// used (docs/significance.md#per-step-values): counts and times per step, averaged over a
    /// run's steps, then over runs; a kernel's mean, min and max stay durations. `None`: the
    /// values are sums (one step, `--totals`, `--hta`).
    pub per_step: Option<[Vec<Option<f64>>; 2]>,
}

impl ViewRow {
    /// test − control of measure `k`, where both sides have a value.
    pub fn diff(&self, k: usize) -> Option<i64> {
        Some(self.test[k]? - self.control[k]?)
    }

    /// Side `side`'s (0 control, 1 test) value of measure `k` as shown: per step where the row
    /// has per-step values, else the sum.
    pub fn shown(&self, side: usize, k: usize) -> Option<f64> {
        match &self.per_step {
            Some(p) => p[side.min(1)].get(k).copied().flatten(),
            None => (if side == 0 { &self.control } else { &self.test })[k].map(|v| v as f64),
        }
    }

    /// test − control of measure `k` as shown, where both sides have a value.
    pub fn shown_diff(&self, k: usize) -> Option<f64> {
        Some(self.shown(1, k)? - self.shown(0, k)?)
    }
}

/// An operator or kernel table, with what was compared.
#[derive(Debug, Clone)]
pub struct ViewTable {
    /// Operators or kernels.
    pub kind: ViewKind,
    /// Whether kernel rows are keyed by (launching operator, kernel).
    pub by_operator: bool,
    /// Names of the measures, in column order (`calls`, `host_self`, …); `calls` is a count,
    /// the others are nanoseconds.
    pub measures: &'static [Measure],
    /// Every row, sorted by key.
    pub rows: Vec<ViewRow>,
    /// What the control side is.
    pub control: SideInfo,
    /// What the test side is.
    pub test: SideInfo,
    /// What was compared.
    pub request: CompareRequest,
    /// Whether either side has device events (the operator table then shows device time).
    pub has_device: bool,
    /// The module node the rows were narrowed to (`--zoom`), by path.
    pub zoom: Option<String>,
    /// Whether the rows' `significant` was estimated (or a note said why not).
    pub significance: bool,
    /// The run-wide shifts of host and device time, where significance was estimated, and
    /// whether rows were judged beyond them (docs/significance.md#a-run-wide-shift).
    pub shift: crate::analysis::measure::noise::RunShift,
    /// Kernel tables: what classifies their rows (the `class` column of CSV and JSON).
    pub classifier: Option<crate::analysis::classes::Classifier>,
    /// The summed duration of each side's selected steps (ns), where it has steps: the
    /// denominator of the by-class table's shares.
    pub step_total_ns: [Option<i64>; 2],
    /// Operator tables and kernel tables by operator: what share of each side's device time
    /// the rows attribute, where not all of it went to ATen operators launched eagerly
    /// (docs/graphs.md#launch-owners); `None` on an eager trace and for other tables.
    pub coverage: Option<[attribution::Coverage; 2]>,
    /// Each side's mean step time (ns), where the rows are per step: the footer's.
    pub step_ns: Option<[f64; 2]>,
}

impl ViewTable {
    /// The column index of `measure`, if the table has it.
    pub fn measure(&self, measure: Measure) -> Option<usize> {
        self.measures.iter().position(|m| *m == measure)
    }
}

/// Per-key sums of one side, merged from its files in rank order.
pub(crate) type Accumulated<A> = BTreeMap<(Option<String>, String), A>;

pub(crate) use crate::analysis::measure::MAX_SAMPLES;

/// Marks each row of `table` significant or not, per measure, from the per-step (rank ×
/// ProfilerStep) values of its key on each side: `per_file` over one selected step at a time,
/// `values` as the table's own (docs/significance.md). A measure is estimated where every
/// sample has a value (sums and counts; not a mean, min or max); its times are judged beyond a
/// run-wide shift of host or device time where one is found and the request allows it. Returns
/// a note when nothing can be estimated, or the note on the shift.
pub(crate) fn mark_significance<A: Accumulator + Sync>(
    table: &mut ViewTable,
    loaded: &Loaded,
    (scope, shift): (Option<&Scope>, Option<&crate::analysis::measure::noise::RunShift>),
    per_file: impl Fn(&TraceFile, Option<&[i64]>, Option<&[bool]>) -> Accumulated<A> + Sync,
    values: impl Fn(Option<&A>) -> Vec<Option<i64>>,
) -> Option<String> {
    table.significance = true;
    let jobs = match sample_jobs(table, loaded) {
        Ok(jobs) => jobs,
        Err(note) => return Some(note),
    };
    let files = PerSide::from_fn(|id| loaded.files(id));
    let samples = |k: SideId| -> Vec<Accumulated<A>> {
        jobs[k]
            .par_iter()
            .map(|&(i, step)| per_file(files[k][i], Some(&[step]), scope.and_then(|s| s.rows(k, i))))
            .collect()
    };
    let (c, t) = rayon::join(|| samples(SideId::Control), || samples(SideId::Test));
    judge(table, loaded, shift, [&c, &t], values)
}

/// The (file, step) samples of each side that a table's significance is estimated from (past
/// [`MAX_SAMPLES`], an evenly spaced subset: each is a pass over its file's events), or the note
/// on why it cannot be estimated.
pub(crate) fn sample_jobs(
    table: &ViewTable,
    loaded: &Loaded,
) -> std::result::Result<PerSide<Vec<(usize, i64)>>, String> {
    use crate::analysis::measure::noise::{MIN_SAMPLES, too_few_samples_note};
    let (Some(c_steps), Some(t_steps)) = (&loaded.resolved.control.iterations, &loaded.resolved.test.iterations) else {
        return Err(crate::analysis::measure::noise::no_steps_note(
            table.request.step_marker.as_deref(),
        ));
    };
    let files = PerSide::from_fn(|id| loaded.files(id));
    let (nc, nt) = (c_steps.len() * files.control.len(), t_steps.len() * files.test.len());
    if nc < MIN_SAMPLES || nt < MIN_SAMPLES {
        let available = files
            .as_ref()
            .map(|f| f.iter().map(|f| f.step_numbers().len()).max().unwrap_or(0));
        return Err(too_few_samples_note(
            PerSide::new(&table.control.label, &table.test.label),
            PerSide::new(nc, nt),
            PerSide::new(c_steps.len(), t_steps.len()),
            available,
        ));
    }
    let jobs = |k: SideId, steps: &[i64]| -> Vec<(usize, i64)> {
        let jobs: Vec<(usize, i64)> = (0..files[k].len())
            .flat_map(|i| steps.iter().map(move |&s| (i, s)))
            .collect();
        if jobs.len() > MAX_SAMPLES {
            (0..MAX_SAMPLES).map(|j| jobs[j * jobs.len() / MAX_SAMPLES]).collect()
        } else {
            jobs
        }
    };
    Ok(PerSide::new(
        jobs(SideId::Control, c_steps),
        jobs(SideId::Test, t_steps),
    ))
}

/// Marks each row of `table` from its key's per-step `samples` on each side (control, test),
/// as [`mark_significance`] does once it has them; `shift` the run-wide shift where the
/// caller measured it. Returns the note on the shift or on the rows it cleared.
pub(crate) fn judge<A>(
    table: &mut ViewTable,
    loaded: &Loaded,
    shift: Option<&crate::analysis::measure::noise::RunShift>,
    [c, t]: [&[Accumulated<A>]; 2],
    values: impl Fn(Option<&A>) -> Vec<Option<i64>>,
) -> Option<String> {
    use crate::analysis::measure::noise::{DEFAULT_K, significant_beyond};
    table.significance = true;
    // Changes under a share of the control's mean step time never count (docs/significance.md).
    let floor = loaded.significance_floor_ns();
    let req = &table.request;
    // The run-wide shift, measured here unless the caller measured it once for many tables.
    let run_shift = shift.cloned().unwrap_or_else(|| loaded.run_shift(req));
    table.shift = judged_places(run_shift, table.measures);
    // Host times take the host's factor (or their threads'), device times the device's; counts none.
    let shift_of = |m: Measure, name: &str| match m {
        Measure::Calls => None,
        m => crate::analysis::measure::threads::row_shift(&table.shift, name, !m.is_host(), m == Measure::HostSelf),
    };
    let per_measure = |samples: &[Accumulated<A>], key: &(Option<String>, String)| -> Vec<Vec<Option<i64>>> {
        samples.iter().map(|s| values(s.get(key))).collect()
    };
    for row in &mut table.rows {
        let key = (row.operator.clone(), row.name.clone());
        let (cs, ts) = (per_measure(c, &key), per_measure(t, &key));
        row.significant = (0..row.control.len())
            .map(|m| {
                let column = |v: &[Vec<Option<i64>>]| -> Option<Vec<f64>> {
                    v.iter()
                        .map(|s| s.get(m).copied().flatten().map(|x| x as f64))
                        .collect()
                };
                // A count's floor is one call per step; a time's, the share of the step.
                let floor = if table.measures[m].is_count() { 1.0 } else { floor };
                let shift = shift_of(table.measures[m], &row.name);
                significant_beyond(&column(&cs)?, &column(&ts)?, DEFAULT_K, floor, shift.as_ref())
            })
            .collect();
    }
    let tempered = temper_one_run(table, [c, t], &values, floor);
    let labels = PerSide::new(table.control.label.as_str(), table.test.label.as_str());
    if let Some(moved) = crate::analysis::measure::threads::threads_note(&table.shift, labels, "rows") {
        return Some(tempered.map_or_else(|| moved.clone(), |t| format!("{moved}; {t}")));
    }
    crate::analysis::measure::shift::shift_note(&table.shift, labels, "rows").or(tempered)
}

/// Keeps the marks of each time measure that stand beyond the scatter of the pair's rows in
/// that measure (one run per side: [`crate::analysis::measure::one_run`]; calls, measure 0, are the
/// counts); the note where some were cleared.
fn temper_one_run<A>(
    table: &mut ViewTable,
    samples: [&[Accumulated<A>]; 2],
    values: &impl Fn(Option<&A>) -> Vec<Option<i64>>,
    floor: f64,
) -> Option<String> {
    use crate::analysis::measure::one_run::{PairRow, scatter_note, temper};
    // `--no-run-shift` asks for the plain rule: the steps' noise alone.
    if table.measures.first() != Some(&Measure::Calls) || !table.request.beyond_shift {
        return None;
    }
    // Per row, per side, per measure: the samples (0 where a sample has no value).
    let per: Vec<[Vec<Vec<f64>>; 2]> = table
        .rows
        .iter()
        .map(|row| {
            let key = (row.operator.clone(), row.name.clone());
            let side = |s: &[Accumulated<A>]| -> Vec<Vec<f64>> {
                let each: Vec<Vec<Option<i64>>> = s.iter().map(|x| values(x.get(&key))).collect();
                (0..table.measures.len())
                    .map(|m| {
                        each.iter()
                            .map(|v| v.get(m).copied().flatten().unwrap_or(0) as f64)
                            .collect()
                    })
                    .collect()
            };
            [side(samples[0]), side(samples[1])]
        })
        .collect();
    let mut notes = Vec::new();
    let about_center = table.request.beyond_shift;
    for m in 1..table.measures.len() {
        let mut marked: Vec<(PairRow<'_>, &mut Option<bool>)> = per
            .iter()
            .zip(table.rows.iter_mut())
            .filter_map(|([c, t], row)| {
                let mark = row.significant.get_mut(m)?;
                Some((
                    PairRow {
                        time: [&c[m], &t[m]],
                        count: [&c[0], &t[0]],
                        moved_with: match table.measures[m] {
                            h if h.is_host() => crate::analysis::measure::threads::thread_log_factor(
                                &table.shift,
                                &row.name,
                                false,
                                h == Measure::HostSelf,
                            ),
                            _ => 0.0,
                        },
                    },
                    mark,
                ))
            })
            .collect();
        if let (Some(s), cleared) = temper(&mut marked, floor, about_center)
            && cleared > 0
        {
            notes.push(format!(
                "{}: {}",
                table.measures[m],
                scatter_note(&s, cleared, [&table.control.label, &table.test.label])
            ));
        }
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// `shift` kept only for the places `measures` judge: the kernel view's times are all device
/// time, so a host shift neither applies there nor is named in its note or JSON.
fn judged_places(
    mut shift: crate::analysis::measure::noise::RunShift,
    measures: &[Measure],
) -> crate::analysis::measure::noise::RunShift {
    let times = || measures.iter().filter(|m| !m.is_count());
    if !times().any(|m| m.is_host()) {
        shift.host = None;
        shift.threads.clear();
    }
    if times().all(|m| m.is_host()) {
        shift.device = None;
    }
    shift.applied = shift.applied && (shift.found() || !shift.threads.is_empty());
    shift
}

/// Something summed per row key.
pub(crate) trait Accumulator: Default + Send {
    fn merge(&mut self, other: &Self);
}

/// Sums `per_file` over both sides' selected files, in parallel, merged in rank order.
/// `per_file` gets a file, its side's selected iterations (`None`: the whole file) and, with
/// `scope` (`--zoom`), which of its rows are inside the zoomed node.
pub(crate) fn accumulate_pair<A: Accumulator>(
    loaded: &Loaded,
    scope: Option<&Scope>,
    per_file: impl Fn(&TraceFile, Option<&[i64]>, Option<&[bool]>) -> Accumulated<A> + Sync,
) -> (Accumulated<A>, Accumulated<A>) {
    rayon::join(
        || accumulate_side(loaded, SideId::Control, scope, &per_file),
        || accumulate_side(loaded, SideId::Test, scope, &per_file),
    )
}

/// [`accumulate_pair`] of side `id` alone.
pub(crate) fn accumulate_side<A: Accumulator>(
    loaded: &Loaded,
    id: SideId,
    scope: Option<&Scope>,
    per_file: impl Fn(&TraceFile, Option<&[i64]>, Option<&[bool]>) -> Accumulated<A> + Sync,
) -> Accumulated<A> {
    let iterations = loaded.resolved[id].iterations.as_deref();
    let parts: Vec<Accumulated<A>> = loaded
        .files(id)
        .par_iter()
        .enumerate()
        .map(|(i, f)| per_file(f, iterations, scope.and_then(|s| s.rows(id, i))))
        .collect();
    let mut merged: Accumulated<A> = BTreeMap::new();
    for part in parts {
        merge_into(&mut merged, part);
    }
    merged
}

/// Adds each key's sums of `part` into `into`.
pub(crate) fn merge_into<A: Accumulator>(into: &mut Accumulated<A>, part: Accumulated<A>) {
    for (key, a) in part {
        into.entry(key).or_default().merge(&a);
    }
}

/// [`accumulate_pair`] for many module nodes at once: `per_file` gets a file, its side's
/// selected iterations and which nodes each of its rows is inside, and returns one sum per node;
/// the result holds, per node, the (control, test) sums.
pub(crate) fn accumulate_groups<A: Accumulator>(
    loaded: &Loaded,
    scopes: &NodeScopes,
    per_file: impl Fn(&TraceFile, Option<&[i64]>, &RowSets) -> Vec<Accumulated<A>> + Sync,
) -> Vec<(Accumulated<A>, Accumulated<A>)> {
    let empty = RowSets::default();
    let side = |id: SideId| {
        let iterations = loaded.resolved[id].iterations.as_deref();
        let parts: Vec<Vec<Accumulated<A>>> = loaded
            .files(id)
            .par_iter()
            .enumerate()
            .map(|(i, f)| per_file(f, iterations, scopes.rows(id, i).unwrap_or(&empty)))
            .collect();
        let mut merged: Vec<Accumulated<A>> = (0..scopes.nodes).map(|_| BTreeMap::new()).collect();
        for part in parts {
            for (into, sums) in merged.iter_mut().zip(part) {
                merge_into(into, sums);
            }
        }
        merged
    };
    let (c, t) = rayon::join(|| side(SideId::Control), || side(SideId::Test));
    c.into_iter().zip(t).collect()
}

/// Joins two sides' sums into rows sorted by key, keeping those the filter admits (by the
/// name, or by the name or the launching operator).
pub(crate) fn join<A: Accumulator>(
    control: Accumulated<A>,
    mut test: Accumulated<A>,
    filter: &NameFilter,
    values: impl Fn(Option<&A>) -> Vec<Option<i64>>,
) -> Vec<ViewRow> {
    let mut rows = Vec::with_capacity(control.len().max(test.len()));
    let mut push = |key: (Option<String>, String), c: Option<&A>, t: Option<&A>| {
        let names: Vec<&str> = key.0.iter().map(String::as_str).chain([key.1.as_str()]).collect();
        if filter.admits_any(&names) {
            rows.push(ViewRow {
                operator: key.0,
                name: key.1,
                control: values(c),
                test: values(t),
                significant: Vec::new(),
                per_step: None,
            });
        }
    };
    for (key, c) in control {
        let t = test.remove(&key);
        push(key, Some(&c), t.as_ref());
    }
    for (key, t) in test {
        push(key, None, Some(&t));
    }
    rows.sort_by(|a, b| (&a.operator, &a.name).cmp(&(&b.operator, &b.name)));
    rows
}

/// The row key of a name id of `file`, as `compare` makes it.
pub(crate) fn name_key(file: &TraceFile, keying: &Keying, id: u32) -> String {
    keying.name_key(file.strings.resolve(crate::model::store::NameId(id)))
}

/// Sums per (node, name id) of one file spread into one table per node (of `nodes`), keyed by
/// name; each name is keyed once however many nodes hold it.
pub(crate) fn spread_per_node<A: Accumulator>(
    sums: rustc_hash::FxHashMap<(u32, u32), A>,
    file: &TraceFile,
    keying: &Keying,
    nodes: usize,
) -> Vec<Accumulated<A>> {
    let mut keys: rustc_hash::FxHashMap<u32, String> = Default::default();
    let mut out: Vec<Accumulated<A>> = (0..nodes).map(|_| Accumulated::new()).collect();
    for ((node, id), s) in sums {
        let key = keys.entry(id).or_insert_with(|| name_key(file, keying, id)).clone();
        out[node as usize].entry((None, key)).or_default().merge(&s);
    }
    out
}

/// A row order: by name, or by one numeric column, largest first; ties by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortSpec {
    /// By name, A to Z.
    Name,
    /// By one side's value of one measure, or its difference, largest first.
    Column {
        /// Which value of the measure.
        side: SortSide,
        /// The measure's index in [`ViewTable::measures`].
        measure: usize,
    },
}

/// Which value of a measure a [`SortSpec::Column`] orders by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortSide {
    /// The control side's.
    Control,
    /// The test side's.
    Test,
    /// test − control, largest increase first.
    Diff,
    /// |test − control|, largest change first.
    AbsDiff,
}

impl SortSpec {
    /// Parses `name`, `diff-device-total`, `abs-diff-calls`, `control_host_self`, … against a
    /// table's measures.
    pub fn parse(text: &str, measures: &[Measure]) -> std::result::Result<SortSpec, String> {
        let t = text.trim().to_ascii_lowercase().replace('-', "_");
        if t == "name" {
            return Ok(SortSpec::Name);
        }
        let sides = [
            ("abs_diff_", SortSide::AbsDiff),
            ("diff_", SortSide::Diff),
            ("control_", SortSide::Control),
            ("test_", SortSide::Test),
        ];
        for (prefix, side) in sides {
            if let Some(rest) = t.strip_prefix(prefix)
                && let Some(measure) = measures.iter().position(|m| m.key() == rest)
            {
                return Ok(SortSpec::Column { side, measure });
            }
        }
        // Keys are shown as they are typed: with dashes (`device-total`), as the help writes them.
        let keys: Vec<String> = measures
            .iter()
            .map(|m| format!("[abs-]diff-{}", m.key().replace('_', "-")))
            .collect();
        Err(format!(
            "unknown sort key '{text}' (name, control-KEY, test-KEY, or one of: {}; KEY is one of {})",
            keys.join(", "),
            measures
                .iter()
                .map(|m| m.key())
                .collect::<Vec<_>>()
                .join(", ")
                .replace('_', "-")
        ))
    }

    /// The key as `--sort` takes it (`name`, `abs-diff-device-total`, …), for headers.
    pub fn text(&self, measures: &[Measure]) -> String {
        match self {
            SortSpec::Name => "name".to_string(),
            SortSpec::Column { side, measure } => {
                let side = match side {
                    SortSide::Control => "control",
                    SortSide::Test => "test",
                    SortSide::Diff => "diff",
                    SortSide::AbsDiff => "abs-diff",
                };
                format!("{side}-{}", measures[*measure].key().replace('_', "-"))
            }
        }
    }
}

/// Orders rows; rows without a value for the key come last; ties by (operator, name).
pub(crate) fn sort_view_rows(rows: &mut [ViewRow], spec: &SortSpec) {
    match *spec {
        SortSpec::Name => rows.sort_by(|a, b| (&a.name, &a.operator).cmp(&(&b.name, &b.operator))),
        SortSpec::Column { side, measure } => {
            // The values as shown: per step where the rows are, else the sums.
            let key = |r: &ViewRow| -> Option<f64> {
                match side {
                    SortSide::Control => r.shown(0, measure),
                    SortSide::Test => r.shown(1, measure),
                    SortSide::Diff => r.shown_diff(measure),
                    SortSide::AbsDiff => r.shown_diff(measure).map(f64::abs),
                }
            };
            // Descending; `None` orders below every value, so it comes last.
            let order = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) => a.total_cmp(&b),
                (a, b) => a.is_some().cmp(&b.is_some()),
            };
            rows.sort_by(|a, b| {
                order(key(b), key(a)).then_with(|| (&a.name, &a.operator).cmp(&(&b.name, &b.operator)))
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_keeps_the_shift_of_the_places_it_judges() {
        let moved = crate::analysis::measure::noise::Shift {
            factor: 1.44,
            agreeing: 0.9,
            rows: 5,
            error: 0.04,
            spread: 0.2,
        };
        let both = crate::analysis::measure::noise::RunShift {
            host: Some(moved),
            device: Some(moved),
            applied: true,
            threads: Vec::new(),
        };
        let kernels = judged_places(both.clone(), kernels::MEASURES);
        assert!(kernels.host.is_none() && kernels.device.is_some() && kernels.applied);
        let operators = judged_places(both.clone(), operators::MEASURES);
        assert!(operators.host.is_some() && operators.device.is_some());
        let host_only = crate::analysis::measure::noise::RunShift { device: None, ..both };
        let kernels = judged_places(host_only, kernels::MEASURES);
        assert!(!kernels.found() && !kernels.applied);
    }

    fn row(name: &str, c: i64, t: Option<i64>) -> ViewRow {
        ViewRow {
            operator: None,
            name: name.to_string(),
            control: vec![Some(c)],
            test: vec![t],
            significant: Vec::new(),
            per_step: None,
        }
    }

    #[test]
    fn sort_keys_parse_with_dashes_or_underscores() {
        let m = [Measure::Calls, Measure::DeviceTotal];
        assert_eq!(
            SortSpec::parse("diff-device-total", &m),
            Ok(SortSpec::Column {
                side: SortSide::Diff,
                measure: 1
            })
        );
        assert_eq!(
            SortSpec::parse("abs_diff_calls", &m),
            Ok(SortSpec::Column {
                side: SortSide::AbsDiff,
                measure: 0
            })
        );
        let err = SortSpec::parse("diff-host-self", &m).unwrap_err();
        assert!(err.contains("[abs-]diff-calls, [abs-]diff-device-total;"), "{err}");
        assert!(!err.contains('_'), "keys shown with dashes, as typed: {err}");
        assert_eq!(SortSpec::parse("control-calls", &m).unwrap().text(&m), "control-calls");
    }

    #[test]
    fn sorting_largest_first_missing_last_ties_by_name() {
        let mut rows = vec![
            row("b", 1, Some(5)),
            row("a", 1, Some(5)),
            row("c", 0, None),
            row("d", 9, Some(1)),
        ];
        let spec = SortSpec::parse("diff-calls", &[Measure::Calls]).unwrap();
        sort_view_rows(&mut rows, &spec);
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, vec!["a", "b", "d", "c"]);
    }
}
