//! The report's headline (docs/semantics.md#report): what happened to the step, computed from
//! the overview's breakdown and idle causes and the module tree's significance marks: the
//! step's change, where it went by part and by idle cause, whether the test run is host- or
//! device-bound, and whether the change is beyond the noise.

use super::Report;
use crate::analysis::views::overview::BreakdownMean;

/// A part's (or an idle cause's) share of the step's |Δ| below which the headline leaves it out.
pub(crate) const MIN_SHARE: f64 = 0.05;

/// How much of the test step the GPU idles at and beyond which the run is host-bound.
pub(crate) const HOST_BOUND_IDLE: f64 = 0.5;

/// What the headline says.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Headline {
    /// The mean step time of each side, ns.
    pub step_ns: [i64; 2],
    /// The breakdown's parts that moved (name, Δ ns), largest |Δ| first.
    pub parts: Vec<(&'static str, i64)>,
    /// The idle causes that moved (name, Δ ns), largest |Δ| first, where GPU idle is a part.
    pub idle_causes: Vec<(&'static str, i64)>,
    /// The share of the test step the GPU idles (0–1), where the test side has a breakdown.
    pub idle_share: Option<f64>,
    /// Whether the step's host time changed beyond the noise; `Err`: why not estimated.
    pub significant: Result<Option<bool>, String>,
    /// Whether that noise is the spread between runs (a side of runs), not the steps'.
    pub between_runs: bool,
}

/// The headline of `report`; `None` where a side has no mean step time.
pub(crate) fn headline(report: &Report) -> Option<Headline> {
    let (c, t) = (&report.overview.control, &report.overview.test);
    let step_ns = [c.mean_step_time_ns?, t.mean_step_time_ns?];
    let step_delta = (step_ns[1] - step_ns[0]).unsigned_abs().max(1) as f64;
    let moved = |mut v: Vec<(&'static str, i64)>| {
        v.retain(|(_, d)| *d != 0 && d.unsigned_abs() as f64 >= MIN_SHARE * step_delta);
        v.sort_by_key(|(name, d)| (std::cmp::Reverse(d.unsigned_abs()), *name));
        v
    };
    let (parts, idle_causes) = match (&c.breakdown, &t.breakdown) {
        (Some(a), Some(b)) => {
            let parts = moved(part_deltas(a, b));
            let causes = match (a.idle_causes, b.idle_causes) {
                (Some(x), Some(y)) if parts.iter().any(|(n, _)| *n == "GPU idle") => moved(vec![
                    ("host compute", y.host_compute_ns - x.host_compute_ns),
                    ("launch", y.launch_ns - x.launch_ns),
                    ("synchronize", y.synchronize_ns - x.synchronize_ns),
                    ("dataloader", y.dataloader_ns - x.dataloader_ns),
                    ("host communication", y.host_comm_ns - x.host_comm_ns),
                    ("untraced", y.untraced_ns - x.untraced_ns),
                ]),
                _ => Vec::new(),
            };
            (parts, causes)
        }
        _ => (Vec::new(), Vec::new()),
    };
    let idle_share = t
        .breakdown
        .as_ref()
        .filter(|b| b.step_ns > 0)
        .map(|b| b.idle_ns as f64 / b.step_ns as f64);
    let significant = match &report.significance {
        Ok([host, _]) => Ok(host.of(&report.modules.root)),
        Err(note) => Err(note.clone()),
    };
    Some(Headline {
        step_ns,
        parts: parts.into_iter().take(3).collect(),
        idle_causes: idle_causes.into_iter().take(2).collect(),
        idle_share,
        significant,
        between_runs: report.runs != [1, 1],
    })
}

/// The breakdown's parts' changes, from control's means to test's.
fn part_deltas(a: &BreakdownMean, b: &BreakdownMean) -> Vec<(&'static str, i64)> {
    vec![
        ("GPU compute", b.compute_ns - a.compute_ns),
        ("exposed communication", b.comm_exposed_ns - a.comm_exposed_ns),
        ("exposed memory copies", b.memory_exposed_ns - a.memory_exposed_ns),
        ("GPU idle", b.idle_ns - a.idle_ns),
    ]
}
