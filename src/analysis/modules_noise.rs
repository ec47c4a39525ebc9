//! Per-node significance of a module diff (docs/significance.md#significance-of-a-module-node):
//! the samples of a node are its times in each selected (rank, ProfilerStep), read from that
//! step's own module tree, keyed by the node's path.

use crate::analysis::align::{AlignedNode, Times, align};
use crate::analysis::loaded::Loaded;
use crate::analysis::modules::{ModuleDiff, file_trees};
use crate::analysis::noise::{DEFAULT_K, MIN_SAMPLES, MIN_STEP_SHARE, mean, significant, too_few_samples_note};
use crate::analysis::views::MAX_SAMPLES;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Per node path, whether its time changed beyond run-to-run noise (`None`: not estimated for
/// that node).
pub type NodeSignificance = FxHashMap<String, Option<bool>>;

/// One step's node times by path.
type StepTimes = FxHashMap<String, Times>;

/// Marks every node of `diff` significant or not in the time `device` names (device time, else
/// host time). Returns the marks, or a note saying why there are none (fewer than
/// [`MIN_SAMPLES`] steps per side, or a side without ProfilerStep).
pub fn module_significance(
    loaded: &Loaded,
    diff: &ModuleDiff,
    device: bool,
) -> std::result::Result<NodeSignificance, String> {
    let (Some(c_steps), Some(t_steps)) = (&loaded.resolved[0].iterations, &loaded.resolved[1].iterations) else {
        return Err("significant is null: it is estimated per ProfilerStep, and a side has none".to_string());
    };
    let samples = |k: usize| -> Vec<StepTimes> { step_samples(loaded, k, diff.fallback, diff.has_device[k]) };
    let (c, t) = rayon::join(|| samples(0), || samples(1));
    if c.len() < MIN_SAMPLES || t.len() < MIN_SAMPLES {
        let files = [loaded.files(0), loaded.files(1)];
        let available = |k: usize| files[k].iter().map(|f| f.step_numbers().len()).max().unwrap_or(0);
        let selected = |k: usize, steps: &[i64]| steps.len() * files[k].len();
        return Err(too_few_samples_note(
            [&diff.control.label, &diff.test.label],
            [selected(0, c_steps), selected(1, t_steps)],
            [c_steps.len(), t_steps.len()],
            [available(0), available(1)],
        ));
    }
    // Changes under a share of the control's mean step time never count.
    let step_ns: Vec<f64> = loaded
        .files(0)
        .iter()
        .flat_map(|f| {
            f.steps
                .iter()
                .filter(|s| c_steps.contains(&s.number))
                .map(|s| s.dur_ns as f64)
        })
        .collect();
    let floor = MIN_STEP_SHARE * mean(&step_ns);
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
    let column = |samples: &[StepTimes], path: &str, has: bool| -> Option<Vec<f64>> {
        let v: Vec<Option<i64>> = samples.iter().map(|s| s.get(path).map(value)).collect();
        if has && v.iter().all(Option::is_none) {
            return None;
        }
        Some(v.into_iter().map(|x| x.unwrap_or(0) as f64).collect())
    };
    let mut marks = NodeSignificance::default();
    let mut todo = vec![&diff.root];
    while let Some(n) = todo.pop() {
        todo.extend(&n.children);
        let mark = column(&c, &n.path, n.control.is_some())
            .zip(column(&t, &n.path, n.test.is_some()))
            .and_then(|(cs, ts)| significant(&cs, &ts, DEFAULT_K, floor));
        marks.insert(n.path.clone(), mark);
    }
    Ok(marks)
}

/// Side `k`'s per-(rank, step) node times: each step's module tree, aligned with itself to get
/// the paths the diff uses; past [`MAX_SAMPLES`] steps, that many evenly spaced ones (the same
/// every run).
fn step_samples(loaded: &Loaded, k: usize, fallback: bool, device: bool) -> Vec<StepTimes> {
    let iterations = loaded.resolved[k].iterations.as_deref();
    let trees: Vec<_> = loaded
        .files(k)
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
    picked
        .par_iter()
        .map(|tree| {
            let aligned = align(tree, tree);
            let mut times = StepTimes::default();
            let mut todo: Vec<&AlignedNode> = vec![&aligned];
            while let Some(n) = todo.pop() {
                todo.extend(&n.children);
                if let Some(t) = n.control {
                    times.insert(n.path.clone(), t);
                }
            }
            times
        })
        .collect()
}
