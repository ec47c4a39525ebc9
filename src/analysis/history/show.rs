//! What `history show` tells of a store: for the step time, the GPU's busy time and the top
//! rows, each run's value, the median and spread of the runs since the series' last change
//! point, the band a new run is judged by, and every change point with the medians around it.

use super::changes::{ChangePoint, change_points};
use super::series::{Measuring, RunSample, reduce_runs};
use super::store::{RunEntry, Store, StoredRun};
use crate::analysis::measure::noise::{median, scaled_mad};
use crate::error::{Error, Result};
use serde::Serialize;

/// What to show.
#[derive(Debug, Clone)]
pub(crate) struct ShowOptions {
    /// The rows shown beside the step and GPU busy times, largest first.
    pub top: usize,
    /// Only the rows whose key matches.
    pub name: Option<regex::Regex>,
    /// Only the runs of this branch.
    pub branch: Option<String>,
    /// How runs are measured.
    pub measuring: Measuring,
}

/// A change point of a series, as shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShownChange {
    /// The first run after the change: its seq and label.
    pub seq: u64,
    /// Its label.
    pub label: String,
    /// The median of the runs of the segment before it.
    pub before: f64,
    /// Of the segment it starts.
    pub after: f64,
    /// `(after − before) / before`; `None` where `before` is 0.
    pub relative_change: Option<f64>,
    /// The permutation test's p-value.
    pub p_value: f64,
}

/// One series over the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// `step time`, `gpu busy time`, or the row's key.
    pub name: String,
    /// `step`, `gpu_busy` or `row`.
    pub kind: &'static str,
    /// Each run's value per step, ns (0 where the row did not run), in the store's order.
    pub values: Vec<f64>,
    /// The median of the runs since the last change point.
    pub median: f64,
    /// Their spread: 1.4826 × MAD.
    pub spread: f64,
    /// The band's upper bound for one new run at 5% (docs/history.md#the-band).
    pub band_upper: Option<f64>,
    /// The index of the first run since the last change point.
    pub since: usize,
    /// The change points, oldest first.
    pub change_points: Vec<ShownChange>,
}

/// A store shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryView {
    /// The store's path.
    pub store: String,
    /// The runs shown, by seq.
    pub runs: Vec<RunEntry>,
    /// The step time, the GPU's busy time (where a run had device work) and the top rows.
    pub series: Vec<Series>,
}

/// Reads every run of `store` (branch-filtered) and finds each series' change points. Returns
/// the view and the notes (runs skipped).
pub(crate) fn show(store: &Store, opts: &ShowOptions) -> Result<(HistoryView, Vec<String>)> {
    let (stored, samples, mut notes) = load_all(store, opts.branch.as_deref(), &opts.measuring)?;
    let runs: Vec<&RunEntry> = stored.iter().map(|r| &r.entry).collect();
    notes.splice(0..0, store.notes.iter().cloned());
    let mut series = vec![series_of(
        "step time",
        "step",
        samples.iter().map(|s| s.step_ns as f64).collect(),
        &runs,
    )];
    if samples.iter().any(|s| s.gpu_busy_ns > 0) {
        let busy = samples.iter().map(|s| s.gpu_busy_ns as f64).collect();
        series.push(series_of("gpu busy time", "gpu_busy", busy, &runs));
    }
    for name in top_rows(&samples, opts) {
        let values = samples
            .iter()
            .map(|s| s.rows.get(&name).map_or(0.0, |r| r.1 as f64))
            .collect();
        series.push(series_of(&name, "row", values, &runs));
    }
    let view = HistoryView {
        store: store.root.display().to_string(),
        runs: runs.into_iter().cloned().collect(),
        series,
    };
    Ok((view, notes))
}

/// The runs of `branch` that could be measured, with their samples, and a note per run that
/// could not (named and skipped). Refused where none is left.
pub(crate) fn load_all<'a>(
    store: &'a Store,
    branch: Option<&str>,
    how: &Measuring,
) -> Result<(Vec<&'a StoredRun>, Vec<RunSample>, Vec<String>)> {
    let runs = store.on_branch(branch);
    let dirs: Vec<(&std::path::Path, &str)> = runs.iter().map(|r| (r.dir.as_path(), r.entry.label.as_str())).collect();
    let mut notes = Vec::new();
    let (mut kept, mut samples) = (Vec::new(), Vec::new());
    for (run, result) in runs.iter().zip(reduce_runs(&dirs, how)) {
        match result {
            Ok(s) => {
                kept.push(*run);
                samples.push(s);
            }
            Err(e) => notes.push(format!("history: {} skipped: {e}", run.dir.display())),
        }
    }
    if kept.is_empty() {
        let which = branch.map_or(String::new(), |b| format!(" on branch '{b}'"));
        return Err(Error::input(
            &store.root,
            format!("the history holds no readable run{which}"),
        ));
    }
    Ok((kept, samples, notes))
}

/// The rows to show: matching `opts.name`, by their median time per step over the last 20
/// runs, largest first (ties by name), ProfilerSteps left out.
fn top_rows(samples: &[RunSample], opts: &ShowOptions) -> Vec<String> {
    let recent = &samples[samples.len().saturating_sub(20)..];
    let mut names: std::collections::BTreeSet<&String> = std::collections::BTreeSet::new();
    for s in recent {
        names.extend(s.rows.keys());
    }
    let mut ranked: Vec<(f64, &String)> = names
        .into_iter()
        .filter(|n| !n.starts_with("ProfilerStep"))
        .filter(|n| opts.name.as_ref().is_none_or(|re| re.is_match(n)))
        .map(|n| {
            let v: Vec<f64> = recent
                .iter()
                .map(|s| s.rows.get(n).map_or(0.0, |r| r.1 as f64))
                .collect();
            (median(&v), n)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    ranked.into_iter().take(opts.top).map(|(_, n)| n.clone()).collect()
}

/// A series with its change points and the statistics of its last segment.
pub(crate) fn series_of(name: &str, kind: &'static str, values: Vec<f64>, runs: &[&RunEntry]) -> Series {
    let found = change_points(&values);
    let since = found.last().map_or(0, |c| c.index);
    let last = &values[since..];
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(found.iter().map(|c| c.index))
        .chain(std::iter::once(values.len()))
        .collect();
    let shown = found
        .iter()
        .enumerate()
        .map(|(i, c)| {
            shown_change(
                c,
                &values[bounds[i]..bounds[i + 1]],
                &values[c.index..bounds[i + 2]],
                runs,
            )
        })
        .collect();
    Series {
        name: name.to_string(),
        kind,
        median: median(last),
        spread: scaled_mad(last),
        band_upper: crate::analysis::gate::predict::upper_bound(last, crate::analysis::measure::replicates::FDR)
            .map(|b| b.0),
        since,
        change_points: shown,
        values,
    }
}

fn shown_change(c: &ChangePoint, before: &[f64], after: &[f64], runs: &[&RunEntry]) -> ShownChange {
    let (b, a) = (median(before), median(after));
    ShownChange {
        seq: runs[c.index].seq,
        label: runs[c.index].label.clone(),
        before: b,
        after: a,
        relative_change: (b != 0.0).then(|| (a - b) / b.abs()),
        p_value: c.p_value,
    }
}
