//! A side of runs for the commands that read traces whole (the views, `overview`, `modules`,
//! the flame graph, the gate; docs/significance.md#several-runs-per-side): which runs each side
//! of a request holds ([`crate::analysis::load::runs::SideRuns`]), the request that reads one of them
//! alone ([`run_request`]), and every run of both sides taken one at a time ([`map_sides`],
//! loaded with their events by [`map_runs_with`]). What a command makes of each run is its own;
//! [`crate::analysis::load::runs::side_info_of_runs`] names the side in headers, and
//! [`crate::analysis::measure::replicates::judge`] is the test between runs.

use crate::analysis::load::loaded::{LoadFor, Loaded};
use crate::analysis::load::runs::{SideRuns, mean_step_ns_of_traces};
use crate::error::Result;
use crate::request::CompareRequest;
use crate::request::side::{PerSide, SideId};
use std::path::Path;

/// Whether `req` compares runs: a side is a directory of runs ([`crate::analysis::load::runs::runs_of`])
/// or runs given one by one. HTA's rows and selection (`--hta`, the Python API's defaults) are
/// kept inside each run: HTA itself reads no directory of runs.
pub(crate) fn compares_runs(req: &CompareRequest) -> bool {
    req.compares_runs()
}

/// The request that reads run `run` of side `id` of `req` alone: both of its sides are that
/// run (read once), with side `id`'s selection, label and capture. Its control side is the
/// run; its test side only repeats it (a view of one run), named after the other side.
pub(crate) fn run_request(req: &CompareRequest, id: SideId, run: &Path) -> CompareRequest {
    let side = req.side(id);
    let paths = run.into();
    let mut r = req.clone();
    for k in SideId::BOTH {
        r.set_side(k, crate::request::side::Side { paths: &paths, ..side });
    }
    r.labels[1] = req.side(id.other()).label.to_string();
    r
}

/// Whether the test side of `req` is its control side again (the same paths, selection and
/// capture): a run or a directory of runs viewed alone, whose runs are read once.
fn test_repeats_control(req: &CompareRequest) -> bool {
    let [c, t] = SideId::BOTH.map(|id| req.side(id));
    (c.paths, c.selection, c.capture) == (t.paths, t.selection, t.capture)
}

/// Runs `work` on the request of every run of both sides of `req` ([`run_request`]), one run at
/// a time, and returns what it made of each, per side in order. A test side that repeats the
/// control side (a view of one side alone) is not read again: its values are the control's.
pub(crate) fn map_sides<T: Clone>(
    req: &CompareRequest,
    mut work: impl FnMut(SideId, &CompareRequest) -> Result<T>,
) -> Result<PerSide<Vec<T>>> {
    let mut out: PerSide<Vec<T>> = PerSide::new(Vec::new(), Vec::new());
    for id in SideId::BOTH {
        if id == SideId::Test && test_repeats_control(req) {
            out.test = out.control.clone();
            break;
        }
        for run in SideRuns::of(req.side(id).paths).runs {
            out[id].push(work(id, &run_request(req, id, &run))?);
        }
    }
    Ok(out)
}

/// Runs `work` on every run of both sides of `req` loaded with its events, one run at a time
/// ([`crate::analysis::load::loaded::load_with`] of [`run_request`]: its side 0 is the run), and
/// returns what it made of each, per side in order ([`map_sides`]), with the notes of loading.
/// `what` names the view in messages (and decides which graph captures are joined, as for a
/// pair) and asks what is read beside the events (the operators' input shapes for `explain`).
pub(crate) fn map_runs_with<T: Clone>(
    req: &CompareRequest,
    what: LoadFor<'_>,
    mut work: impl FnMut(SideId, &CompareRequest, Loaded) -> Result<T>,
) -> Result<(PerSide<Vec<T>>, Vec<String>)> {
    let mut notes = Vec::new();
    let out = map_sides(req, |id, r| {
        let loaded = crate::analysis::load::loaded::load_with(r, what)?;
        notes.extend(loaded.notes.iter().cloned());
        work(id, r, loaded)
    })?;
    notes.dedup();
    Ok((out, notes))
}

/// The mean duration of side `id`'s selected steps in a loaded pair (every selected rank's), in
/// ns; 0 without steps: a run's mean step time, as `crate::analysis::load::runs::load_runs` measures it.
pub(crate) fn mean_step_ns_of_loaded(loaded: &Loaded, id: SideId) -> f64 {
    mean_step_ns_of_traces(&loaded.files(id), &loaded.resolved[id])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::pick::Pick;
    use crate::request::side::SidePaths;
    use std::path::PathBuf;

    #[test]
    fn a_run_request_reads_one_run_of_one_side_alone() {
        let mut req = CompareRequest::new("c", "t");
        req.test_selection.iterations = Pick::All;
        req.captures = [None, Some(PathBuf::from("cap"))];
        let r = run_request(&req, SideId::Test, Path::new("t/run2"));
        assert_eq!(
            (&r.control, &r.test),
            (&SidePaths::from("t/run2"), &SidePaths::from("t/run2"))
        );
        assert_eq!(r.control_selection.iterations, Pick::All);
        assert_eq!(r.labels, ["test".to_string(), "control".to_string()]);
        assert_eq!(r.captures, [Some(PathBuf::from("cap")), Some(PathBuf::from("cap"))]);
        let one = SideRuns::of(&SidePaths::from("no/such/dir"));
        assert_eq!((one.runs.len(), one.is_set), (1, false));
        let given = SideRuns::of(&SidePaths::Runs(vec!["a".into(), "b".into()]));
        assert_eq!((given.runs.len(), given.is_set), (2, true));
    }

    #[test]
    fn a_side_viewed_alone_is_read_once() {
        let req = CompareRequest::new(
            SidePaths::Runs(vec!["a".into(), "b".into()]),
            SidePaths::Runs(vec!["a".into(), "b".into()]),
        );
        let mut calls = Vec::new();
        let out = map_sides(&req, |id, r| {
            calls.push((id, r.control.clone()));
            Ok(r.labels[0].clone())
        })
        .unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(out.test, out.control);
        // A pair reads both.
        let mut pair = req.clone();
        pair.test = SidePaths::from("c");
        let out = map_sides(&pair, |_, r| Ok(r.labels[0].clone())).unwrap();
        assert_eq!(
            out,
            PerSide::new(vec!["control".to_string(); 2], vec!["test".to_string()])
        );
    }
}
