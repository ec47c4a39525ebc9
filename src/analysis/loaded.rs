//! Both sides of a view loaded with their events, and each side's selection resolved: what the
//! operator, kernel and module views read.

use crate::analysis::compare::{CompareRequest, check_labels};
use crate::analysis::diff::SideInfo;
use crate::analysis::select::{Resolved, resolve};
use crate::error::{Error, Result};
use crate::input::attrs::AttrRequest;
use crate::input::load::{Side, load_pair, pair_notes};
use crate::model::store::TraceFile;
use std::sync::Arc;

/// The loaded pair and each side's selection.
#[derive(Clone)]
pub struct Loaded {
    /// The control side's traces (the selected ranks parsed).
    pub control: Arc<Side>,
    /// The test side's.
    pub test: Arc<Side>,
    /// The ranks and iterations selected on each side (control, test).
    pub resolved: [Resolved; 2],
    /// What loading found worth telling the user (stderr on the command line).
    pub notes: Vec<String>,
}

/// Loads both sides of `req` and resolves their selections. Views key rows by name only:
/// `--group-by` is refused.
pub fn load(req: &CompareRequest, command: &str) -> Result<Loaded> {
    check_labels(&req.labels)?;
    if !req.group_by.is_empty() || !req.arg_specs.is_empty() {
        return Err(Error::usage(format!(
            "{command} keys rows by name: --group-by and --arg-spec are for compare"
        )));
    }
    let (control, test) = load_pair(
        req.control.single(command)?,
        req.test.single(command)?,
        &AttrRequest {
            specs: crate::model::graphs::attr_specs(false),
            step_marker: req.step_marker.clone(),
            ..AttrRequest::default()
        },
        (&req.control_selection, &req.test_selection),
    )?;
    let test = apart_for_captures(&control, test, req);
    let mut notes = pair_notes(&control, &test);
    let resolved = [
        resolve(&control, &req.labels[0], &req.control_selection)?,
        resolve(&test, &req.labels[1], &req.test_selection)?,
    ];
    let loaded = Loaded {
        control,
        test,
        resolved,
        notes: Vec::new(),
    };
    // The views that use a joined kernel's capture (its owner, its module path); `compare
    // --report` writes `report`'s page.
    let joins = matches!(
        command,
        "operators" | "kernels" | "report" | "compare --report" | "modules" | "flamegraph"
    );
    for k in (0..2).filter(|_| joins) {
        let given = req.captures[k].as_deref();
        notes.extend(crate::analysis::captures::join_captures(
            &loaded.files(k),
            given,
            &req.labels[k],
        )?);
    }
    Ok(Loaded { notes, ..loaded })
}

/// The test side, its files copied where both sides share them (one path given twice) but
/// their graph replays are given different captures: each copy joins its own.
fn apart_for_captures(control: &Arc<Side>, test: Arc<Side>, req: &CompareRequest) -> Arc<Side> {
    let shared = test
        .files
        .iter()
        .any(|t| control.files.iter().any(|c| Arc::ptr_eq(c, t)));
    if !shared || req.captures[0] == req.captures[1] {
        return test;
    }
    let mut side = (*test).clone();
    side.files = side
        .files
        .iter()
        .map(|f| {
            let mut copy = (**f).clone();
            copy.graphs = Default::default();
            Arc::new(copy)
        })
        .collect();
    Arc::new(side)
}

impl Loaded {
    /// The selected files of a side (0 control, 1 test), in rank order.
    pub fn files(&self, side: usize) -> Vec<&TraceFile> {
        let s = if side == 0 { &self.control } else { &self.test };
        self.resolved[side]
            .ranks
            .iter()
            .filter_map(|&r| s.file_of_rank(r))
            .collect()
    }

    /// The floor under which no change counts as significant: a share
    /// ([`crate::analysis::noise::MIN_STEP_SHARE`]) of the control side's mean selected step
    /// time, in ns (docs/significance.md).
    pub fn significance_floor_ns(&self) -> f64 {
        use crate::analysis::noise::{MIN_STEP_SHARE, mean};
        let selected = crate::analysis::select::Selected::new(self.resolved[0].iterations.as_deref());
        let step_ns: Vec<f64> = self
            .files(0)
            .iter()
            .flat_map(|f| f.step_durations_ns(|n| selected.admits(n)))
            .map(|ns| ns as f64)
            .collect();
        MIN_STEP_SHARE * mean(&step_ns)
    }

    /// The run-wide shift between the two sides over `req`'s device and keying
    /// (docs/significance.md#a-run-wide-shift), applied unless `--no-run-shift`. A failure to find
    /// one (it cannot fail on traces that loaded) is no shift.
    pub fn run_shift(&self, req: &CompareRequest) -> crate::analysis::diff::RunShift {
        use rayon::prelude::*;
        let own = |side: &crate::input::load::Side| crate::input::load::SummarySide {
            input: side.input.clone(),
            present: side.present.clone(),
            files: side
                .files
                .par_iter()
                .map(|f| std::sync::Arc::new(crate::analysis::summary::own_time_summary(f, &f.path)))
                .collect(),
            notes: Vec::new(),
            world_size: side.world_size,
            missing_ranks: side.missing_ranks.clone(),
        };
        let (c, t) = rayon::join(|| own(&self.control), || own(&self.test));
        crate::analysis::shift::detect([&c, &t], &self.resolved, req.device, &req.keying(), req.beyond_shift)
            .unwrap_or_default()
    }

    /// What side `side` (0 control, 1 test) is, named `label`, as outputs describe it.
    pub fn side_info(&self, side: usize, label: &str) -> SideInfo {
        let s = if side == 0 { &self.control } else { &self.test };
        crate::analysis::compare::side_info(s, label, self.resolved[side].clone())
    }

    /// A note per side whose call trees had partial overlaps (docs/semantics.md#the-call-tree).
    pub fn overlap_notes(&self, labels: &[String; 2]) -> Vec<String> {
        (0..2)
            .filter_map(|side| {
                let n: u64 = self.files(side).iter().map(|f| f.call_tree().partial_overlaps).sum();
                (n > 0).then(|| {
                    let (events, start, end) = if n == 1 {
                        ("event", "starts", "ends")
                    } else {
                        ("events", "start", "end")
                    };
                    format!(
                        "{}: {} host {events} {start} inside an enclosing event and {end} after it; each is nested under the innermost event that contains it (docs/semantics.md#the-call-tree)",
                        labels[side],
                        crate::text::fmt_count(n)
                    )
                })
            })
            .collect()
    }
}
