//! The overview of two sides of runs (docs/significance.md#several-runs-per-side): each run's
//! overview made alone, then each measure the mean over runs of the runs' means (the peak of
//! allocated memory: the highest of the runs'), so that its mean step time equals `compare`'s
//! footer.

use super::overview::{BreakdownMean, Overview, SideOverview, overview_request};
use crate::analysis::load::side_runs::map_sides;
use crate::error::Result;
use crate::request::CompareRequest;
use crate::request::side::{PerSide, SideId};

/// The overview of `req`, whose sides are read as runs (a side of one run is that run; a side
/// viewed alone is read once).
pub(crate) fn overview_of_runs(req: &CompareRequest) -> Result<(Overview, Vec<String>)> {
    let mut notes = Vec::new();
    let runs = map_sides(req, |_, r| {
        let (o, found) = overview_request(r)?;
        notes.extend(found);
        Ok(o.control)
    })?;
    notes.dedup();
    Ok((overview_of_run_overviews(req, runs)?, notes))
}

/// The overview of two sides of runs from each run's own overview (its `control` side, in
/// name order): what [`overview_of_runs`] makes of the runs it reads, for a caller that read them.
pub(crate) fn overview_of_run_overviews(req: &CompareRequest, runs: PerSide<Vec<SideOverview>>) -> Result<Overview> {
    let side = |id: SideId, runs: Vec<SideOverview>| {
        let side = req.side(id);
        mean_of_runs(runs, side.label, &side.paths.shown())
            .ok_or_else(|| crate::error::Error::usage(format!("{}: no run to read", side.paths.shown())))
    };
    let PerSide { control, test } = runs;
    Ok(Overview {
        control: side(SideId::Control, control)?,
        test: side(SideId::Test, test)?,
    })
}

/// The mean over runs of `values` that are present; `None` where none is.
fn mean_i64(values: impl Iterator<Item = Option<i64>>) -> Option<i64> {
    let v: Vec<f64> = values.flatten().map(|x| x as f64).collect();
    (!v.is_empty()).then(|| crate::analysis::measure::noise::mean(&v).round() as i64)
}

/// The mean over runs of each run's mean step time, from its windows' exact lengths (as
/// `compare` measures it: rounded once, at the end); `None` where no run has steps.
fn mean_step(runs: &[SideOverview]) -> Option<i64> {
    let each: Vec<f64> = runs
        .iter()
        .filter(|r| r.mean_step_time_ns.is_some())
        .map(|r| {
            let steps: Vec<f64> = r.per_step.iter().map(|p| p.step_ns as f64).collect();
            match (steps.is_empty(), r.mean_step_time_ns) {
                (false, _) => crate::analysis::measure::noise::mean(&steps),
                (true, ns) => ns.unwrap_or(0) as f64,
            }
        })
        .collect();
    (!each.is_empty()).then(|| crate::analysis::measure::noise::mean(&each).round() as i64)
}

/// One side from its runs' overviews: selection and device of the first run, windows and per-step
/// rows of them all, every mean the mean over runs.
fn mean_of_runs(runs: Vec<SideOverview>, label: &str, path: &str) -> Option<SideOverview> {
    let n = runs.len();
    let step = mean_step(&runs);
    let busy = mean_i64(runs.iter().map(|r| r.gpu_busy_per_step_ns));
    let breakdown = mean_breakdown(&runs);
    let run_steps = if n > 1 {
        runs.iter().map(|r| r.steps.max(1)).collect()
    } else {
        Vec::new()
    };
    let windows = runs.iter().map(|r| r.windows).sum();
    let per_step = runs.iter().flat_map(|r| r.per_step.iter().cloned()).collect();
    let host_busy = mean_i64(runs.iter().map(|r| r.host_busy_per_step_ns));
    let host_comm = mean_i64(runs.iter().map(|r| r.host_comm_per_step_ns));
    let peak = runs.iter().filter_map(|r| r.peak_allocated_bytes).max();
    let avg = mean_i64(runs.iter().map(|r| r.avg_allocated_bytes));
    let first = runs.into_iter().next()?;
    Some(SideOverview {
        label: label.to_string(),
        path: path.to_string(),
        windows,
        mean_step_time_ns: step,
        gpu_busy_per_step_ns: busy,
        gpu_utilization: busy.zip(step).filter(|(_, s)| *s > 0).map(|(b, s)| b as f64 / s as f64),
        host_busy_per_step_ns: host_busy,
        host_comm_per_step_ns: host_comm,
        peak_allocated_bytes: peak,
        avg_allocated_bytes: avg,
        breakdown,
        per_step,
        // Ranks and stragglers are a run's own: across runs they do not add up.
        per_rank: Vec::new(),
        straggler: None,
        run_steps,
        ..first
    })
}

/// The mean over runs of each part of the step, where every run has a breakdown; the idle
/// causes and kernel classes of a run are its own and are left out.
fn mean_breakdown(runs: &[SideOverview]) -> Option<BreakdownMean> {
    let parts: Option<Vec<&BreakdownMean>> = runs.iter().map(|r| r.breakdown.as_ref()).collect();
    let parts = parts.filter(|p| !p.is_empty())?;
    let mean = |f: fn(&BreakdownMean) -> i64| mean_i64(parts.iter().map(|b| Some(f(b)))).unwrap_or(0);
    let (total, overlapped) = (mean(|b| b.comm_total_ns), mean(|b| b.comm_overlapped_ns));
    Some(BreakdownMean {
        step_ns: mean(|b| b.step_ns),
        compute_ns: mean(|b| b.compute_ns),
        comm_total_ns: total,
        comm_overlapped_ns: overlapped,
        comm_exposed_ns: mean(|b| b.comm_exposed_ns),
        memory_exposed_ns: mean(|b| b.memory_exposed_ns),
        idle_ns: mean(|b| b.idle_ns),
        idle_causes: None,
        compute_by_class: None,
        overlap_ratio: (total > 0).then(|| overlapped as f64 / total as f64),
    })
}
