//! Per-node significance of a module diff (docs/significance.md#significance-of-a-module-node):
//! the samples of a node are its times in each selected (rank, ProfilerStep), read from that
//! step's own module tree, matched to the diff's node of the same path.

use crate::analysis::load::loaded::Loaded;
use crate::analysis::measure::MAX_SAMPLES;
use crate::analysis::measure::noise::RunShift;
use crate::analysis::measure::noise::{DEFAULT_K, MIN_SAMPLES, Shift, significant_beyond, too_few_samples_note};
use crate::analysis::modules::align::{AlignedNode, Times, align};
use crate::analysis::modules::{ModuleDiff, file_trees};
use crate::request::CompareRequest;
use crate::request::side::{PerSide, SideId};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Per node of the diff (by [`AlignedNode::id`]), whether its time changed beyond run-to-run
/// noise (`None`: not estimated for that node), and the run-wide shift it was judged beyond.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeSignificance {
    marks: Vec<Option<bool>>,
    /// The run-wide shifts of host and device time, and whether nodes were judged beyond them
    /// (docs/significance.md#a-run-wide-shift).
    pub shift: RunShift,
}

impl NodeSignificance {
    /// Whether node `n` changed significantly; `None`: not estimated.
    pub fn of(&self, n: &AlignedNode) -> Option<bool> {
        self.marks.get(n.id).copied().flatten()
    }

    /// The note on the run-wide shift, where one was found.
    pub fn shift_note(&self, labels: PerSide<&str>) -> Option<String> {
        crate::analysis::measure::shift::shift_note(&self.shift, labels, "nodes")
    }

    /// Marks by node id, judged without a run-wide shift (between runs:
    /// [`crate::analysis::modules::runs`]).
    pub(crate) fn from_marks(marks: Vec<Option<bool>>) -> NodeSignificance {
        NodeSignificance {
            marks,
            shift: RunShift::default(),
        }
    }
}

/// One step's node times by the diff's node id.
pub(crate) type StepTimes = FxHashMap<usize, Times>;

/// The diff's nodes by (parent id, key, ordinal): a step tree's node has the same path as the
/// diff's node found by walking this index from the root (paths are never built).
pub(crate) type PathIndex<'d> = FxHashMap<(usize, &'d str, u32), usize>;

pub(crate) fn path_index(root: &AlignedNode) -> PathIndex<'_> {
    let mut index = PathIndex::default();
    let mut todo = vec![root];
    while let Some(n) = todo.pop() {
        for c in &n.children {
            if let Some(k) = c.ordinal {
                index.insert((n.id, c.key.as_str(), k), c.id);
            }
        }
        todo.extend(&n.children);
    }
    index
}

/// Marks every node of `diff` significant or not in the time `device` names (device time, else
/// host time), beyond a run-wide shift where one is found and `req` allows it. Returns the
/// marks, or a note saying why there are none (fewer than [`MIN_SAMPLES`] steps per side, or a
/// side without ProfilerStep).
pub(crate) fn module_significance(
    req: &CompareRequest,
    loaded: &Loaded,
    diff: &ModuleDiff,
    device: bool,
) -> std::result::Result<NodeSignificance, String> {
    let [host, dev] = module_significance_both(req, loaded, diff)?;
    Ok(if device { dev } else { host })
}

/// [`module_significance`] in host time and in device time (that order), from one pass over
/// the steps.
pub(crate) fn module_significance_both(
    req: &CompareRequest,
    loaded: &Loaded,
    diff: &ModuleDiff,
) -> std::result::Result<[NodeSignificance; 2], String> {
    let (Some(c_steps), Some(t_steps)) = (&loaded.resolved.control.iterations, &loaded.resolved.test.iterations) else {
        return Err(crate::analysis::measure::noise::no_steps_note(
            req.step_marker.as_deref(),
        ));
    };
    let files = PerSide::from_fn(|id| loaded.files(id));
    let selected = PerSide::new(c_steps.len() * files.control.len(), t_steps.len() * files.test.len());
    let too_few = || {
        let available = files
            .as_ref()
            .map(|f| f.iter().map(|f| f.step_numbers().len()).max().unwrap_or(0));
        too_few_samples_note(
            PerSide::new(&diff.control.label, &diff.test.label),
            selected,
            PerSide::new(c_steps.len(), t_steps.len()),
            available,
        )
    };
    // At most one sample per selected (file, step): too few of those, and no tree is built.
    if selected.control < MIN_SAMPLES || selected.test < MIN_SAMPLES {
        return Err(too_few());
    }
    let index = path_index(&diff.root);
    let samples = |id: SideId| -> Vec<StepTimes> { step_samples(loaded, id, diff, &index) };
    let (c, t) = rayon::join(|| samples(SideId::Control), || samples(SideId::Test));
    if c.len() < MIN_SAMPLES || t.len() < MIN_SAMPLES {
        return Err(too_few());
    }
    // Changes under a share of the control's mean step time never count.
    let floor = loaded.significance_floor_ns();
    let mut shift = loaded.run_shift(req);
    // A module's nodes lie on the thread of its forward pass: judged beyond the run's shift alone.
    crate::analysis::measure::threads::not_per_thread(&mut shift);
    let judge = |device: bool| NodeSignificance {
        marks: judge(
            diff,
            [&c, &t],
            floor,
            crate::analysis::measure::shift::shift_of(&shift, device),
            device,
        ),
        shift: shift.clone(),
    };
    Ok([judge(false), judge(true)])
}

/// Each node's mark in one time (device, else host) from its per-step samples on each side,
/// judged beyond `shift` where given.
fn judge(
    diff: &ModuleDiff,
    [c, t]: [&[StepTimes]; 2],
    floor: f64,
    shift: Option<&Shift>,
    device: bool,
) -> Vec<Option<bool>> {
    let value = |t: &Times| {
        if device {
            t.device_total_ns.unwrap_or(0)
        } else {
            t.host_total_ns
        }
    };
    // A side's samples of a node: 0 in a step without it; none at all where the node has a time
    // on that side but no step has its path (its path differs from the steps' own, e.g. when
    // aligned through a wrapper), so that a mismatch never passes for a change.
    let column = |samples: &[StepTimes], id: usize, has: bool| -> Option<Vec<f64>> {
        let v: Vec<Option<i64>> = samples.iter().map(|s| s.get(&id).map(value)).collect();
        if has && v.iter().all(Option::is_none) {
            return None;
        }
        Some(v.into_iter().map(|x| x.unwrap_or(0) as f64).collect())
    };
    let mut marks = Vec::new();
    let mut todo = vec![&diff.root];
    while let Some(n) = todo.pop() {
        todo.extend(&n.children);
        let mark = column(c, n.id, n.control.is_some())
            .zip(column(t, n.id, n.test.is_some()))
            .and_then(|(cs, ts)| significant_beyond(&cs, &ts, DEFAULT_K, floor, shift));
        if marks.len() <= n.id {
            marks.resize(n.id + 1, None);
        }
        marks[n.id] = mark;
    }
    marks
}

/// Side `id`'s per-(rank, step) node times: each step's module tree, aligned with itself to get
/// the paths the diff uses, each node's time kept under the diff's node of the same path; past
/// [`MAX_SAMPLES`] steps, that many evenly spaced ones (the same every run).
fn step_samples(loaded: &Loaded, id: SideId, diff: &ModuleDiff, index: &PathIndex<'_>) -> Vec<StepTimes> {
    let (fallback, device) = (diff.fallback, PerSide::from(diff.has_device)[id]);
    let iterations = loaded.resolved[id].iterations.as_deref();
    let trees: Vec<_> = loaded
        .files(id)
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, f)| file_trees(f, i as u32, iterations, fallback, device))
        .collect();
    let picked: Vec<_> = if trees.len() > MAX_SAMPLES {
        (0..MAX_SAMPLES)
            .map(|j| &trees[j * trees.len() / MAX_SAMPLES])
            .collect()
    } else {
        trees.iter().collect()
    };
    picked.par_iter().map(|tree| times_by_path(tree, diff, index)).collect()
}

/// The times of `tree`'s nodes (one step's, or one run's), each under the diff's node of the
/// same path (none below a node the diff lacks).
pub(crate) fn times_by_path(
    tree: &crate::analysis::modules::align::TreeNode,
    diff: &ModuleDiff,
    index: &PathIndex<'_>,
) -> StepTimes {
    let aligned = align(tree, tree);
    let mut times = StepTimes::default();
    let mut todo: Vec<(&AlignedNode, usize)> = vec![(&aligned, diff.root.id)];
    while let Some((n, id)) = todo.pop() {
        if let Some(t) = n.control {
            times.insert(id, t);
        }
        for c in &n.children {
            if let Some(&cid) = c.ordinal.and_then(|k| index.get(&(id, c.key.as_str(), k))) {
                todo.push((c, cid));
            }
        }
    }
    times
}
