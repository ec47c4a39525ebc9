//! A view of two sides of runs (docs/significance.md#several-runs-per-side): each run's table
//! made alone (its side 0), then joined row by row. A row's value is the mean over runs of its
//! per-step value (a kernel's mean: the mean over runs of the runs' means; its min and max: the
//! least and greatest over runs); with two runs or more per side, `significant` comes from the
//! test between runs ([`crate::analysis::measure::replicates::judge`]), per measure over the table's rows.

use super::per_step::{is_duration, per_step_values};
use super::{Measure, ViewRow, ViewTable};
use crate::analysis::measure::replicates::{MIN_RUNS, RowSamples, judge};
use crate::request::CompareRequest;
use crate::request::side::{PerSide, SideId};
use std::collections::BTreeMap;

/// One run's table (its control side is the run), with its selected steps and mean step time.
#[derive(Clone)]
pub(crate) struct RunTable {
    /// The table of the run against itself: its `control` values are the run's.
    pub table: ViewTable,
    /// The steps the run selected (at least 1).
    pub steps: usize,
    /// The run's mean step time (ns); 0 without steps.
    pub step_ns: f64,
}

/// A row's key: (launching operator, name).
type Key = (Option<String>, String);

/// The table of two sides of runs, from each run's table; and the note where a side has too
/// few runs for the test between runs. Rows are per step unless `req.totals` (then sums over
/// the runs), sorted by key; each side's mean step time is the mean over its runs.
pub(crate) fn join_runs(req: &CompareRequest, runs: PerSide<Vec<RunTable>>) -> (ViewTable, Option<String>) {
    let measures = runs
        .control
        .first()
        .or(runs.test.first())
        .map_or(&[][..], |r| r.table.measures);
    let mut keys: BTreeMap<Key, PerSide<Vec<Option<&ViewRow>>>> = BTreeMap::new();
    for (k, side) in runs.iter() {
        for (i, run) in side.iter().enumerate() {
            for row in &run.table.rows {
                let entry = keys
                    .entry((row.operator.clone(), row.name.clone()))
                    .or_insert_with(|| runs.as_ref().map(|r| vec![None; r.len()]));
                entry[k][i] = Some(row);
            }
        }
    }
    let mut rows = Vec::with_capacity(keys.len());
    let mut samples: Vec<PerSide<Vec<Vec<f64>>>> = Vec::with_capacity(keys.len());
    for ((operator, name), found) in keys {
        let side = |k: SideId| combine(&found[k], &runs[k], measures);
        let ((c_sum, c_step, c_samples), (t_sum, t_step, t_samples)) = (side(SideId::Control), side(SideId::Test));
        rows.push(ViewRow {
            operator,
            name,
            control: c_sum,
            test: t_sum,
            significant: Vec::new(),
            per_step: (!req.totals).then_some([c_step, t_step]),
        });
        samples.push(PerSide::new(c_samples, t_samples));
    }
    let step_ns = runs.as_ref().map(|r| mean_step(r));
    let n = runs.as_ref().map(Vec::len);
    let note = mark(&mut rows, &samples, measures, step_ns.control, n);
    let mut table = first_table(runs, req, rows);
    table.significance = true;
    table.step_ns = (!req.totals && step_ns.iter().all(|(_, &s)| s > 0.0)).then_some(step_ns.into_array());
    (table, note.then(|| too_few_runs_note(req.side_labels(), n)))
}

/// The note given where a side has fewer runs than the test between runs needs (as
/// `compare`'s).
pub(crate) fn too_few_runs_note(labels: PerSide<&str>, runs: PerSide<usize>) -> String {
    format!(
        "significant is null: the test between runs needs {MIN_RUNS} or more runs per side; {} has {}, {} {}",
        labels.control, runs.control, labels.test, runs.test
    )
}

fn mean_step(runs: &[RunTable]) -> f64 {
    crate::analysis::measure::noise::mean(&runs.iter().map(|r| r.step_ns).collect::<Vec<_>>())
}

/// One side of a row over its runs: the sums, the per-step values, and per measure each run's
/// per-step value.
type Combined = (Vec<Option<i64>>, Vec<Option<f64>>, Vec<Vec<f64>>);

/// One side of a row from its runs' rows (`None`: the run lacks it): the sums over runs, the
/// per-step values, and per measure each run's per-step value (the samples of the test).
fn combine(found: &[Option<&ViewRow>], runs: &[RunTable], measures: &[Measure]) -> Combined {
    let mut sums = Vec::with_capacity(measures.len());
    let mut steps = Vec::with_capacity(measures.len());
    let mut samples = Vec::with_capacity(measures.len());
    let per_run: Vec<Vec<Option<f64>>> = found
        .iter()
        .zip(runs)
        .map(|(r, run)| match r {
            Some(r) => per_step_values(&r.control, measures, run.steps),
            None => vec![None; measures.len()],
        })
        .collect();
    let values = |m: usize| found.iter().filter_map(move |r| r.and_then(|r| r.control[m]));
    for (m, name) in measures.iter().enumerate() {
        let present: Vec<f64> = per_run.iter().filter_map(|v| v[m]).collect();
        let (sum, step) = match *name {
            Measure::DeviceMin => (values(m).min(), present.iter().copied().reduce(f64::min)),
            Measure::DeviceMax => (values(m).max(), present.iter().copied().reduce(f64::max)),
            _ if is_duration(*name) => (
                None,
                (!present.is_empty()).then(|| crate::analysis::measure::noise::mean(&present)),
            ),
            _ => {
                let each: Vec<f64> = per_run.iter().map(|v| v[m].unwrap_or(0.0)).collect();
                let step = crate::analysis::measure::noise::mean(&each);
                samples.push(each);
                (Some(values(m).sum()), Some(if runs.is_empty() { 0.0 } else { step }))
            }
        };
        if is_duration(*name) {
            samples.push(Vec::new());
        }
        sums.push(sum);
        steps.push(step);
    }
    // The mean of the sums: their total ÷ their calls, as one run's table gives it.
    if let (Some(mean), Some(total), Some(calls)) = (
        measures.iter().position(|m| *m == Measure::DeviceMean),
        measures.iter().position(|m| *m == Measure::DeviceTotal),
        measures.iter().position(|m| *m == Measure::Calls),
    ) {
        sums[mean] = match (sums[total], sums[calls]) {
            (Some(t), Some(c)) if c > 0 => Some(t / c),
            _ => None,
        };
    }
    (sums, steps, samples)
}

/// Marks every row per measure from its runs' samples (sums only; durations are not judged):
/// the test between runs over the table's rows, a time's floor a share of the control's mean
/// step time, a count's one call per step. Returns whether a side had too few runs.
fn mark(
    rows: &mut [ViewRow],
    samples: &[PerSide<Vec<Vec<f64>>>],
    measures: &[Measure],
    step_ns: f64,
    n: PerSide<usize>,
) -> bool {
    let calls = measures.iter().position(|m| *m == Measure::Calls);
    let mut marks: Vec<Vec<Option<bool>>> = vec![vec![None; measures.len()]; rows.len()];
    for (m, name) in measures.iter().enumerate().filter(|(_, m)| !is_duration(**m)) {
        let column: Vec<RowSamples> = rows
            .iter()
            .zip(samples)
            .map(|(row, s)| RowSamples {
                time: s.as_ref().map(|s| s[m].clone()).into_array(),
                count: s.as_ref().map(|s| s[calls.unwrap_or(m)].clone()).into_array(),
                alone: row.name.starts_with("ProfilerStep"),
            })
            .collect();
        let floor = if name.is_count() {
            1.0
        } else {
            crate::analysis::measure::noise::MIN_STEP_SHARE * step_ns
        };
        for (row, mark) in marks.iter_mut().zip(judge(&column, floor)) {
            row[m] = mark;
        }
    }
    for (row, m) in rows.iter_mut().zip(marks) {
        row.significant = m;
    }
    n.iter().any(|(_, &k)| k < MIN_RUNS)
}

/// The joined table's frame, from the first run's table: both sides' headers from every
/// run's, the device and classes of any run, each side's summed step time, no attribution.
fn first_table(runs: PerSide<Vec<RunTable>>, req: &CompareRequest, rows: Vec<ViewRow>) -> ViewTable {
    let PerSide { control: c, test: t } = runs;
    let has_device = c.iter().chain(&t).any(|r| r.table.has_device);
    let step_total = |runs: &[RunTable]| runs.iter().map(|r| r.table.step_total_ns[0]).sum::<Option<i64>>();
    let step_total_ns = [step_total(&c), step_total(&t)];
    let info = |runs: &[RunTable], id: SideId| {
        let infos = runs.iter().map(|r| r.table.control.clone()).collect();
        let side = req.side(id);
        crate::analysis::load::runs::side_info_of_runs(infos, side.label, side.paths)
    };
    let (control, test) = (info(&c, SideId::Control), info(&t, SideId::Test));
    let frame = c.into_iter().chain(t).next().map(|r| r.table);
    match frame {
        Some(frame) => ViewTable {
            rows,
            control,
            test,
            request: req.clone(),
            has_device,
            step_total_ns,
            coverage: None,
            ..frame
        },
        // Every side has a run (`SideRuns` is never empty): an empty operator table stands in.
        None => empty_table(req, rows, control, test),
    }
}

fn empty_table(
    req: &CompareRequest,
    rows: Vec<ViewRow>,
    control: crate::analysis::diff::SideInfo,
    test: crate::analysis::diff::SideInfo,
) -> ViewTable {
    ViewTable {
        kind: super::ViewKind::Operators,
        by_operator: false,
        measures: super::operators::MEASURES,
        rows,
        control,
        test,
        request: req.clone(),
        has_device: false,
        zoom: None,
        significance: false,
        shift: Default::default(),
        classifier: None,
        step_total_ns: [None, None],
        coverage: None,
        step_ns: None,
    }
}
