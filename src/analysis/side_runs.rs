//! A side of runs for the commands that read traces whole (the views, `overview`, `modules`,
//! the flame graph, the gate; docs/significance.md#several-runs-per-side): which runs each side
//! of a request holds ([`crate::analysis::runs::SideRuns`]), the request that reads one of them
//! alone ([`run_request`]), and every run of both sides loaded one at a time ([`map_runs`]).
//! What a command makes of each run is its own; [`crate::analysis::runs::side_info_of_runs`]
//! names the side in headers, and [`crate::analysis::replicates::judge`] is the test between
//! runs.

use crate::analysis::compare::CompareRequest;
use crate::analysis::loaded::Loaded;
use crate::analysis::runs::{SideRuns, mean_step_ns_of_traces, runs_of};
use crate::error::Result;
use std::path::Path;

/// Whether `req` compares runs: a side is a directory of runs ([`runs_of`]). HTA's rows and
/// selection (`--hta`, the Python API's defaults) are kept inside each run: HTA itself reads no
/// directory of runs.
pub fn compares_runs(req: &CompareRequest) -> bool {
    [&req.control, &req.test].iter().any(|p| runs_of(p).is_some())
}

/// The request that reads run `run` of side `k` (0 control, 1 test) of `req` alone: both of
/// its sides are that run (read once), with side `k`'s selection, label and capture. Its side
/// 0 is the run; side 1 only repeats it (a view of one run).
pub fn run_request(req: &CompareRequest, k: usize, run: &Path) -> CompareRequest {
    let selection = if k == 0 {
        req.control_selection.clone()
    } else {
        req.test_selection.clone()
    };
    let mut r = req.clone();
    r.control = run.to_path_buf();
    r.test = run.to_path_buf();
    r.control_selection = selection.clone();
    r.test_selection = selection;
    r.labels = [req.labels[k].clone(), req.labels[1 - k].clone()];
    r.captures = [req.captures[k].clone(), req.captures[k].clone()];
    r
}

/// Runs `work` on every run of both sides of `req`, one run loaded at a time
/// ([`crate::analysis::loaded::load`] of [`run_request`]: its side 0 is the run), and returns
/// what it made of each, per side in name order, with the notes of loading. `command` names the
/// view in messages (and decides which graph captures are joined, as for a pair).
pub fn map_runs<T>(
    req: &CompareRequest,
    command: &str,
    mut work: impl FnMut(usize, &CompareRequest, &Loaded) -> Result<T>,
) -> Result<([Vec<T>; 2], Vec<String>)> {
    let mut out: [Vec<T>; 2] = [Vec::new(), Vec::new()];
    let mut notes = Vec::new();
    for (k, path) in [&req.control, &req.test].into_iter().enumerate() {
        for run in SideRuns::of(path).runs {
            let r = run_request(req, k, &run);
            let loaded = crate::analysis::loaded::load(&r, command)?;
            notes.extend(loaded.notes.iter().cloned());
            out[k].push(work(k, &r, &loaded)?);
        }
    }
    notes.dedup();
    Ok((out, notes))
}

/// The mean duration of side `k`'s selected steps in a loaded pair (every selected rank's), in
/// ns; 0 without steps: a run's mean step time, as `crate::analysis::runs::load_runs` measures it.
pub fn mean_step_ns_of_loaded(loaded: &Loaded, k: usize) -> f64 {
    mean_step_ns_of_traces(&loaded.files(k), &loaded.resolved[k])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::pick::Pick;
    use std::path::PathBuf;

    #[test]
    fn a_run_request_reads_one_run_of_one_side_alone() {
        let mut req = CompareRequest::new("c", "t");
        req.test_selection.iterations = Pick::All;
        req.captures = [None, Some(PathBuf::from("cap"))];
        let r = run_request(&req, 1, Path::new("t/run2"));
        assert_eq!(
            (r.control.as_path(), r.test.as_path()),
            (Path::new("t/run2"), Path::new("t/run2"))
        );
        assert_eq!(r.control_selection.iterations, Pick::All);
        assert_eq!(r.labels, ["test".to_string(), "control".to_string()]);
        assert_eq!(r.captures, [Some(PathBuf::from("cap")), Some(PathBuf::from("cap"))]);
        let one = SideRuns::of(Path::new("no/such/dir"));
        assert_eq!((one.runs.len(), one.is_set), (1, false));
    }
}
