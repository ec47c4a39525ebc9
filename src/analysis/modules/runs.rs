//! The module tree of sides made of runs (docs/modules.md#several-steps-and-runs): each run of
//! a side is loaded and selected alone, its steps' trees merged, and the runs' trees merged
//! into the side's; nodes are judged between runs ([`crate::analysis::measure::replicates`]) on each
//! run's per-step node times. Also the per-step values of a tree: its sums ÷ the steps used.

use crate::analysis::diff::SideInfo;
use crate::analysis::load::loaded::Loaded;
use crate::analysis::load::runs::steps_of;
use crate::analysis::load::side_runs::mean_step_ns_of_loaded;
use crate::analysis::measure::replicates::{MIN_RUNS, RowSamples, judge};
use crate::analysis::modules::align::{Times, TreeNode, align, merge};
use crate::analysis::modules::noise::{NodeSignificance, StepTimes, path_index, times_by_path};
use crate::analysis::modules::{BackwardPlaced, ModuleDiff, file_trees, has_modules};
use crate::error::{Error, Result};
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::request::CompareRequest;
use crate::request::side::{PerSide, SideId, SidePaths};

/// One side of runs ([`crate::analysis::load::runs::SideRuns`]), each run loaded with its events and
/// selection (both sides of each [`Loaded`] are the run itself).
pub(crate) struct LoadedRuns {
    /// The runs in order.
    pub runs: Vec<Loaded>,
    /// The side's name in outputs.
    pub label: String,
    /// The paths given for the side.
    pub paths: SidePaths,
}

impl LoadedRuns {
    /// The selected files of every run, run after run: the file indices of the side's tree
    /// sources.
    pub(crate) fn files(&self) -> Vec<&TraceFile> {
        self.runs.iter().flat_map(|r| r.files(SideId::Control)).collect()
    }

    /// The number of steps each run selected (1 for a run without ProfilerStep).
    pub(crate) fn run_steps(&self) -> Vec<usize> {
        self.runs.iter().map(|r| steps_of(&r.resolved.control)).collect()
    }

    /// All steps selected over the runs: what a per-step value divides by.
    pub(crate) fn steps(&self) -> usize {
        self.run_steps().iter().sum::<usize>().max(1)
    }

    /// The mean over runs of each run's mean selected step time, in ns (as `compare` measures
    /// a run's: [`mean_step_ns_of_loaded`]).
    pub(crate) fn mean_step_ns(&self) -> f64 {
        let per_run: Vec<f64> = self
            .runs
            .iter()
            .map(|r| mean_step_ns_of_loaded(r, SideId::Control))
            .collect();
        crate::analysis::measure::noise::mean(&per_run)
    }

    fn info(&self) -> SideInfo {
        let first = &self.runs[0];
        let mut info = first.side_info(SideId::Control, &self.label);
        info.path = self.paths.shown();
        info.files = self
            .runs
            .iter()
            .flat_map(|r| r.side_info(SideId::Control, &self.label).files)
            .collect();
        if self.runs.len() > 1 {
            info.run_steps = self.run_steps();
        }
        info
    }
}

/// Both sides of `req` loaded run by run ([`crate::analysis::load::side_runs::map_runs_with`]: a side viewed alone is read once).
pub(crate) fn load_runs(req: &CompareRequest, command: &str) -> Result<(PerSide<LoadedRuns>, Vec<String>)> {
    load_runs_with(req, crate::analysis::load::loaded::LoadFor::view(command))
}

/// [`load_runs`], each run loaded with what `what` asks for beside its events (the report's
/// input shapes).
pub(crate) fn load_runs_with(
    req: &CompareRequest,
    what: crate::analysis::load::loaded::LoadFor<'_>,
) -> Result<(PerSide<LoadedRuns>, Vec<String>)> {
    crate::request::check_labels(&req.labels)?;
    let (runs, notes) = crate::analysis::load::side_runs::map_runs_with(req, what, |_, _, loaded| Ok(loaded))?;
    let side = |id: SideId, runs: Vec<Loaded>| LoadedRuns {
        runs,
        label: req.side(id).label.to_string(),
        paths: req.side(id).paths.clone(),
    };
    Ok((runs.map_sides(side), notes))
}

/// One tree per run of a side: the run's step trees merged (file indices count over the
/// side's files, run after run).
fn run_trees(side: &LoadedRuns, fallback: bool, device: bool) -> Result<Vec<TreeNode>> {
    let mut base = 0u32;
    let mut trees = Vec::with_capacity(side.runs.len());
    for run in &side.runs {
        let iterations = run.resolved.control.iterations.as_deref();
        let files = run.files(SideId::Control);
        let tree = files
            .iter()
            .enumerate()
            .flat_map(|(i, f)| file_trees(f, base + i as u32, iterations, fallback, device))
            .reduce(merge)
            .ok_or_else(|| Error::usage(format!("{}: no step to build a module tree from", side.label)))?;
        base += u32::try_from(files.len()).unwrap_or(u32::MAX);
        trees.push(tree);
    }
    Ok(trees)
}

/// The aligned module trees of two sides of runs (values summed over every step of every
/// run), and each run's tree (for the test between runs).
pub(crate) fn modules_of_runs(
    req: &CompareRequest,
    sides: &PerSide<LoadedRuns>,
) -> Result<(ModuleDiff, PerSide<Vec<TreeNode>>)> {
    let files = sides.as_ref().map(LoadedRuns::files);
    let fallback = !files.iter().all(|(_, f)| f.iter().any(|f| has_modules(f)));
    let has_device = files.map(|f| f.iter().any(|f| f.events.place.contains(&Place::Device)));
    let control_runs = run_trees(&sides.control, fallback, has_device.control)?;
    let test_runs = run_trees(&sides.test, fallback, has_device.test)?;
    let whole = |trees: &[TreeNode]| trees.iter().cloned().reduce(merge);
    let (Some(control), Some(test)) = (whole(&control_runs), whole(&test_runs)) else {
        return Err(Error::usage(format!(
            "{}: no run to build a module tree from",
            req.side(SideId::Control).label
        )));
    };
    let diff = ModuleDiff {
        backward_placed: [BackwardPlaced::of(&control), BackwardPlaced::of(&test)],
        root: align(&control, &test),
        control: sides.control.info(),
        test: sides.test.info(),
        fallback,
        has_device: has_device.into_array(),
        per_step: false,
    };
    Ok((diff, PerSide::new(control_runs, test_runs)))
}

/// Marks each node of `diff` by the test between runs on its per-step time (device time where
/// `device`, else host time) in each run: Welch's t, Benjamini–Hochberg over the tree's nodes,
/// and the 1% floor of the control side's mean step time. The step (the root) is judged alone,
/// as a table's step row is. A note instead where a side has fewer than two runs.
pub(crate) fn runs_significance(
    diff: &ModuleDiff,
    sides: &PerSide<LoadedRuns>,
    run_trees: &PerSide<Vec<TreeNode>>,
    device: bool,
) -> std::result::Result<NodeSignificance, String> {
    let runs = sides.as_ref().map(|s| s.runs.len());
    if runs.iter().any(|(_, &n)| n < MIN_RUNS) {
        return Err(format!(
            "significant is null: the test between runs needs {MIN_RUNS} or more runs per side; {} has {}, {} {}",
            sides.control.label, runs.control, sides.test.label, runs.test
        ));
    }
    let index = path_index(&diff.root);
    let per_run = |id: SideId| -> Vec<(StepTimes, f64)> {
        run_trees[id]
            .iter()
            .zip(sides[id].run_steps())
            .map(|(t, steps)| (times_by_path(t, diff, &index), steps as f64))
            .collect()
    };
    let samples = PerSide::from_fn(per_run);
    let value = |t: &Times| if device { t.device_total_ns.unwrap_or(0) } else { t.host_total_ns } as f64;
    let mut ids = Vec::new();
    let mut rows = Vec::new();
    let mut todo = vec![&diff.root];
    while let Some(n) = todo.pop() {
        todo.extend(&n.children);
        let has = PerSide::new(n.control.is_some(), n.test.is_some());
        let column = |id: SideId| -> Option<[Vec<f64>; 2]> {
            let v: Vec<Option<(f64, f64)>> = samples[id]
                .iter()
                .map(|(s, steps)| {
                    s.get(&n.id)
                        .map(|t| (value(t) / steps, t.calls.unwrap_or(0) as f64 / steps))
                })
                .collect();
            // A node with a time on this side that no run's own tree has at its path (aligned
            // through a wrapper): not judged against nothing.
            if has[id] && v.iter().all(Option::is_none) {
                return None;
            }
            let v: Vec<(f64, f64)> = v.into_iter().map(|x| x.unwrap_or((0.0, 0.0))).collect();
            Some([v.iter().map(|x| x.0).collect(), v.iter().map(|x| x.1).collect()])
        };
        if let (Some([ct, cc]), Some([tt, tc])) = (column(SideId::Control), column(SideId::Test)) {
            ids.push(n.id);
            rows.push(RowSamples {
                time: [ct, tt],
                count: [cc, tc],
                alone: n.id == diff.root.id,
            });
        }
    }
    let floor = crate::analysis::measure::noise::MIN_STEP_SHARE * sides.control.mean_step_ns();
    let judged = judge(&rows, floor);
    let mut marks = vec![None; ids.iter().max().map_or(0, |m| m + 1)];
    for (id, mark) in ids.into_iter().zip(judged) {
        marks[id] = mark;
    }
    Ok(NodeSignificance::from_marks(marks))
}

/// Turns the summed times of `diff` into per-step values: each side's divided by its `steps`
/// (times to the nearest ns; calls to the nearest whole call, at least 1 where the node ran).
/// Nothing changes for a side of one step.
pub(crate) fn per_step(diff: &mut ModuleDiff, steps: PerSide<usize>) {
    if steps.iter().all(|(_, &s)| s <= 1) {
        return;
    }
    diff.per_step = true;
    let root = &mut diff.root;
    let div = |v: i64, d: usize| (v as f64 / d as f64).round() as i64;
    let scale = |t: &mut Option<Times>, d: usize| {
        if let Some(t) = t {
            t.host_total_ns = div(t.host_total_ns, d);
            t.device_total_ns = t.device_total_ns.map(|v| div(v, d));
            t.calls = t.calls.map(|c| if c == 0 { 0 } else { div(c as i64, d).max(1) as u64 });
        }
    };
    let mut todo = vec![root];
    while let Some(n) = todo.pop() {
        scale(&mut n.control, steps.control.max(1));
        scale(&mut n.test, steps.test.max(1));
        for (overlap, d) in n.children_overlap_ns.iter_mut().zip(steps.into_array()) {
            *overlap = div(*overlap, d.max(1));
        }
        todo.extend(n.children.iter_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::modules::align::NodeKind;

    fn info() -> SideInfo {
        SideInfo {
            label: "side".into(),
            path: "side".into(),
            files: vec![],
            resolved: crate::analysis::select::Resolved {
                ranks: vec![0],
                iterations: None,
            },
            steps_available: 0,
            ranks_available: 0,
            run_steps: vec![],
        }
    }

    #[test]
    fn per_step_divides_each_side_by_its_steps() {
        let times = |calls, host| Times {
            calls: Some(calls),
            host_total_ns: host,
            device_total_ns: Some(host / 2),
        };
        let mut root = TreeNode::new(NodeKind::Step, "ProfilerStep".into(), times(3, 3_000), vec![]);
        root.children
            .push(TreeNode::new(NodeKind::Op, "aten::mm".into(), times(1, 1_001), vec![]));
        let mut test = root.clone();
        test.times = times(5, 4_000);
        test.children[0].times = times(5, 2_000);
        let mut diff = ModuleDiff {
            root: align(&root, &test),
            control: info(),
            test: info(),
            fallback: true,
            has_device: [true, true],
            backward_placed: Default::default(),
            per_step: false,
        };
        per_step(&mut diff, PerSide::new(3, 5));
        assert!(diff.per_step);
        assert_eq!(
            diff.root.control.map(|t| (t.calls, t.host_total_ns)),
            Some((Some(1), 1_000))
        );
        assert_eq!(
            diff.root.test.map(|t| (t.calls, t.device_total_ns)),
            Some((Some(1), Some(400)))
        );
        // A node in one step of three: a third of its time, at least one call.
        let mm = &diff.root.children[0];
        assert_eq!(mm.control.map(|t| (t.calls, t.host_total_ns)), Some((Some(1), 334)));
        assert_eq!(mm.test.map(|t| (t.calls, t.host_total_ns)), Some((Some(1), 400)));
        // One step a side: nothing changes.
        let mut one = diff.clone();
        one.per_step = false;
        per_step(&mut one, PerSide::new(1, 1));
        assert!(!one.per_step);
    }
}
