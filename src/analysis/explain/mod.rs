//! Why each operator row changed: more calls, more work per call, or less efficient
//! (docs/cost-model.md). The rows are the operator view's, by self time (device self where the
//! pair has device events, else host self), so nested rows are never counted twice; each
//! changed row's Δ time per step is split into three parts that sum to it exactly
//! ([`decompose`]), and named causes are drawn from what the trace recorded: the input shapes
//! and element types (`record_shapes=True`), the kernels the op launched, the rate it achieved
//! and, on a device of the peak table, its share of the peak.

pub(crate) mod causes;
pub(crate) mod gather;
pub(crate) mod why;

use crate::analysis::cost::decompose::{Parts, Ratios, SideCost};
use crate::analysis::cost::model::Unit;
use crate::analysis::load::loaded::Loaded;
use crate::analysis::modules::Scope;
use crate::analysis::views::{Accumulated, Measure, ViewTable, merge_into};
use crate::request::CompareRequest;
use crate::request::side::SideId;
use causes::Cause;
use gather::OpStats;
use serde::Serialize;

/// The explanation of a pair: every operator row whose time changed, largest change first.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// The sides' labels (control, test).
    pub labels: [String; 2],
    /// The time the rows are measured by: device self, or host self without device events.
    pub measure: Measure,
    /// Whether each side's times are per step: `false` for a side without steps (no
    /// ProfilerStep), whose times are of the whole trace.
    #[serde(skip)]
    pub per_step: [bool; 2],
    /// Each side's mean step time, ns, where both have one.
    pub step_ns: Option<[f64; 2]>,
    /// The changed rows, the largest |Δ| first, ties by name.
    pub rows: Vec<Explained>,
    /// Whether the rows' significance was judged (enough steps or runs).
    pub judged: bool,
    /// Whether each side recorded input shapes (`record_shapes=True`).
    pub shapes: [bool; 2],
    /// Each side's device, as its trace names it.
    pub devices: [Option<String>; 2],
    /// One paragraph on the whole change.
    pub summary: String,
    /// What the cost model skipped on each side, and why (the command's notes).
    #[serde(skip)]
    pub notes: Vec<String>,
}

/// One changed row.
#[derive(Debug, Clone, Serialize)]
pub struct Explained {
    /// The operator's name.
    pub name: String,
    /// The control side's calls, time per step and work per call.
    pub control: SideCost,
    /// The test side's.
    pub test: SideCost,
    /// The unit of the work figures, where the row has them on both sides.
    pub unit: Option<Unit>,
    /// Δ time per step and its three parts.
    pub parts: Parts,
    /// test ÷ control of calls, work per call, efficiency and time per call.
    pub ratios: Ratios,
    /// Whether the change is beyond run-to-run noise (`None`: not judged).
    pub significant: Option<bool>,
    /// What changed, in words.
    pub causes: Vec<Cause>,
    /// The row in one line (`aten::mm  +3.21 ms/step (+48.0%)  work ×1.92 (…), …`).
    pub line: String,
    /// Whether the line's Δ is per step (`/step`): `false` where neither side has steps.
    #[serde(skip)]
    pub per_step: bool,
    /// The line's words on the parts alone (`work ×1.92 (…), efficiency ×0.97, calls same`):
    /// what the report shows beside the row's Δ.
    #[serde(skip)]
    pub reading: String,
    /// The kernels the op launched itself on either side, sorted: what ties a kernel row (of
    /// the gate, say) to the op it explains.
    #[serde(skip)]
    pub kernels: Vec<String>,
}

/// What `explain` reads of one side beside its table: its operators' figures ([`gather`]),
/// summed over its runs, and the device its trace names first.
#[derive(Debug, Clone, Default)]
pub(crate) struct Gathered {
    /// The figures per operator row, keyed as the operator view keys its rows.
    pub stats: Accumulated<OpStats>,
    /// The side's device, as its first trace that names one names it.
    pub device: Option<String>,
}

impl Gathered {
    /// Side `id` of `loaded` (its selected files and steps; inside `scope`'s node where
    /// given), gathered.
    pub(crate) fn of_side(req: &CompareRequest, loaded: &Loaded, id: SideId, scope: Option<&Scope>) -> Gathered {
        let device = loaded
            .files(id)
            .iter()
            .find_map(|f| f.devices.first().map(|d| d.name.clone()));
        Gathered {
            stats: gather::side(req, loaded, id, scope),
            device,
        }
    }

    /// This side with another run of it added (the run after it): the figures summed, the
    /// device the first run's where it names one.
    pub(crate) fn add_run(&mut self, run: Gathered) {
        merge_into(&mut self.stats, run.stats);
        self.device = self.device.take().or(run.device);
    }
}

/// The explanation of `table`, an operator table of `loaded` (per-step values and
/// significance as the view made them), with `time` the index of the measure that times rows.
pub(crate) fn explain(req: &CompareRequest, loaded: &Loaded, table: &ViewTable, time: usize) -> Explanation {
    let (c, t) = rayon::join(
        || Gathered::of_side(req, loaded, SideId::Control, None),
        || Gathered::of_side(req, loaded, SideId::Test, None),
    );
    explain_gathered(req, [c, t], table, time)
}

/// The explanation of `table` (an operator table: of one run per side, or joined over runs
/// with their significance) from each side's gathered figures.
pub(crate) fn explain_gathered(
    req: &CompareRequest,
    [gc, gt]: [Gathered; 2],
    table: &ViewTable,
    time: usize,
) -> Explanation {
    let (c, t) = (gc.stats, gt.stats);
    let devices = [gc.device, gt.device];
    let shapes = [&c, &t].map(|s| s.values().any(|o| o.calls > o.without_shapes));
    let peaks = devices
        .clone()
        .map(|d| d.as_deref().and_then(crate::analysis::cost::peaks::find));
    let empty = OpStats::default();
    let stats = |side: &Accumulated<OpStats>, name: &str| -> OpStats {
        side.get(&(None, name.to_string()))
            .cloned()
            .unwrap_or_else(|| empty.clone())
    };
    let per_step = [&table.control, &table.test].map(|s| s.resolved.iterations.is_some());
    let mut rows: Vec<Explained> = table
        .rows
        .iter()
        .filter_map(|r| {
            let sides = [stats(&c, &r.name), stats(&t, &r.name)];
            let side = |k: usize| causes::side_cost(r, k, time, &sides[k]);
            let (sc, st) = (side(0), side(1));
            if sc.time_ns == st.time_ns {
                return None;
            }
            let significant = r.significant.get(time).copied().flatten();
            let any_steps = per_step.contains(&true);
            Some(causes::explained(
                &r.name,
                [sc, st],
                &sides,
                significant,
                &peaks,
                any_steps,
            ))
        })
        .collect();
    rows.sort_by(|a, b| {
        b.parts
            .delta_ns
            .unsigned_abs()
            .cmp(&a.parts.delta_ns.unsigned_abs())
            .then_with(|| a.name.cmp(&b.name))
    });
    let judged = table.rows.iter().any(|r| r.significant.iter().any(Option::is_some));
    let labels = req.labels.clone();
    let summary = causes::summary(&rows, table.step_ns, judged, shapes, &labels);
    let notes = skipped_notes([&c, &t], &labels);
    Explanation {
        notes,
        labels,
        measure: table.measures[time],
        per_step,
        step_ns: table.step_ns,
        rows,
        judged,
        shapes,
        devices,
        summary,
    }
}

/// A note per side and reason for the calls whose inputs the cost model could not read
/// (`control: 3 calls of aten::mm have no work figure: the shape [..] overflows a u64`).
fn skipped_notes(sides: [&Accumulated<OpStats>; 2], labels: &[String; 2]) -> Vec<String> {
    let mut notes = Vec::new();
    for (k, side) in sides.iter().enumerate() {
        for ((_, name), stats) in side.iter() {
            for (why, n) in &stats.skipped {
                let calls = if *n == 1 { "call" } else { "calls" };
                let have = if *n == 1 { "has" } else { "have" };
                notes.push(format!(
                    "{}: {} {calls} of {name} {have} no work figure: {why}",
                    labels[k],
                    crate::text::fmt_count(n)
                ));
            }
        }
    }
    notes
}
