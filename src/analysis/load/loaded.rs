//! Both sides of a view loaded with their events, and each side's selection resolved: what the
//! operator, kernel and module views read.

use crate::analysis::diff::SideInfo;
use crate::analysis::select::{Resolved, resolve};
use crate::error::{Error, Result};
use crate::input::attrs::AttrRequest;
use crate::input::load::{Side, load_pair, pair_notes};
use crate::model::store::TraceFile;
use crate::request::CompareRequest;
use crate::request::check_labels;
use crate::request::side::{PerSide, SideId};
use std::sync::Arc;

/// The loaded pair and each side's selection.
#[derive(Clone)]
pub(crate) struct Loaded {
    /// The control side's traces (the selected ranks parsed).
    pub control: Arc<Side>,
    /// The test side's.
    pub test: Arc<Side>,
    /// The ranks and iterations selected on each side.
    pub resolved: PerSide<Resolved>,
    /// What loading found worth telling the user (stderr on the command line).
    pub notes: Vec<String>,
}

/// What a view loads beside the events of both sides.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoadFor<'a> {
    /// The command, named in messages (`operators`, `compare --report`).
    pub command: &'a str,
    /// Whether the operators' input shapes, types and values are read (what the cost model
    /// reads: `explain`, `--why`).
    pub shapes: bool,
    /// Whether each graph replay's kernels are joined to their capture (a joined kernel's
    /// owner and module path): what the operator, kernel, module, flame graph, report and
    /// explain views read.
    pub captures: bool,
}

impl<'a> LoadFor<'a> {
    /// A view's load: the captures joined, no shapes.
    pub(crate) fn view(command: &'a str) -> Self {
        LoadFor {
            command,
            shapes: false,
            captures: true,
        }
    }

    /// This load, with the operators' shapes where `shapes`.
    pub(crate) fn with_shapes(self, shapes: bool) -> Self {
        LoadFor { shapes, ..self }
    }
}

/// Loads both sides of `req` for the view `command` ([`LoadFor::view`]) and resolves their
/// selections. Views key rows by name only: `--group-by` is refused.
pub(crate) fn load(req: &CompareRequest, command: &str) -> Result<Loaded> {
    load_with(req, LoadFor::view(command))
}

/// [`load`], with what `what` asks for beside the events.
pub(crate) fn load_with(req: &CompareRequest, what: LoadFor<'_>) -> Result<Loaded> {
    let LoadFor {
        command,
        shapes,
        captures,
    } = what;
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
            specs: specs(shapes),
            step_marker: req.step_marker.clone(),
            ..AttrRequest::default()
        },
        (&req.control_selection, &req.test_selection),
    )?;
    let test = apart_for_captures(&control, test, req);
    let mut notes = pair_notes(&control, &test);
    let mut resolved = PerSide::new(
        resolve(&control, req.side(SideId::Control).label, &req.control_selection)?,
        resolve(&test, req.side(SideId::Test).label, &req.test_selection)?,
    );
    if !req.is_hta()
        && let Some(k) = crate::analysis::select::whole_where_other_has_none(
            [&mut resolved.control, &mut resolved.test],
            [&req.control_selection, &req.test_selection],
        )
    {
        let steps = [&control, &test][k].step_numbers().len();
        notes.push(crate::analysis::select::whole_note_text(
            &req.labels[1 - k],
            &req.labels[k],
            steps,
        ));
    }
    notes.extend(crate::request::defaults::rank_sets_warning(
        [req.side(SideId::Control).label, req.side(SideId::Test).label],
        [&resolved[SideId::Control].ranks, &resolved[SideId::Test].ranks],
        [control.ranks().len(), test.ranks().len()],
    ));
    let loaded = Loaded {
        control,
        test,
        resolved,
        notes: Vec::new(),
    };
    for id in SideId::BOTH.into_iter().filter(|_| captures) {
        let side = req.side(id);
        notes.extend(crate::analysis::load::captures::join_captures(
            &loaded.files(id),
            side.capture,
            side.label,
        )?);
    }
    Ok(Loaded { notes, ..loaded })
}

/// The attributes a view loads: the graph ids, and with `shapes` the inputs the cost model reads.
fn specs(shapes: bool) -> Vec<crate::model::attrs::AttrSpec> {
    let mut specs = crate::model::graphs::attr_specs(false);
    if shapes {
        let inputs = crate::analysis::cost::shapes::COLUMNS;
        specs.extend(inputs.iter().filter_map(|c| crate::input::attrs::builtin(c)));
    }
    specs
}

/// The test side, its files copied where both sides share them (one path given twice) but
/// their graph replays are given different captures: each copy joins its own.
fn apart_for_captures(control: &Arc<Side>, test: Arc<Side>, req: &CompareRequest) -> Arc<Side> {
    let shared = test
        .files
        .iter()
        .any(|t| control.files.iter().any(|c| Arc::ptr_eq(c, t)));
    if !shared || req.side(SideId::Control).capture == req.side(SideId::Test).capture {
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
    /// The loaded traces of side `id`.
    pub(crate) fn side(&self, id: SideId) -> &Arc<Side> {
        match id {
            SideId::Control => &self.control,
            SideId::Test => &self.test,
        }
    }

    /// The selected files of side `id`, in rank order.
    pub(crate) fn files(&self, id: SideId) -> Vec<&TraceFile> {
        let s = self.side(id);
        self.resolved[id]
            .ranks
            .iter()
            .filter_map(|&r| s.file_of_rank(r))
            .collect()
    }

    /// The floor under which no change counts as significant: a share
    /// ([`crate::analysis::measure::noise::MIN_STEP_SHARE`]) of the control side's mean selected step
    /// time, in ns (docs/significance.md).
    pub(crate) fn significance_floor_ns(&self) -> f64 {
        use crate::analysis::measure::noise::{MIN_STEP_SHARE, mean};
        let selected = crate::analysis::select::Selected::new(self.resolved.control.iterations.as_deref());
        let step_ns: Vec<f64> = self
            .files(SideId::Control)
            .iter()
            .flat_map(|f| f.step_durations_ns(|n| selected.admits(n)))
            .map(|ns| ns as f64)
            .collect();
        MIN_STEP_SHARE * mean(&step_ns)
    }

    /// Both sides with each file summarised by `summarize` (the files in parallel), each side's
    /// notes kept where `with_notes`: the summaries a table of summaries (compare's, the
    /// overview's, the run-wide shift's own times) reads, made from traces already loaded.
    pub(crate) fn summarized(
        &self,
        summarize: fn(&TraceFile, &std::path::Path) -> crate::model::summary::FileSummary,
        with_notes: bool,
    ) -> [crate::input::load::SummarySide; 2] {
        use rayon::prelude::*;
        let of = |side: &Side| crate::input::load::SummarySide {
            input: side.input.clone(),
            present: side.present.clone(),
            files: side.files.par_iter().map(|f| Arc::new(summarize(f, &f.path))).collect(),
            notes: if with_notes { side.notes.clone() } else { Vec::new() },
            world_size: side.world_size,
            missing_ranks: side.missing_ranks.clone(),
        };
        let (c, t) = rayon::join(|| of(&self.control), || of(&self.test));
        [c, t]
    }

    /// The run-wide shift between the two sides over `req`'s device and keying
    /// (docs/significance.md#a-run-wide-shift), applied unless `--no-run-shift`. A failure to find
    /// one (it cannot fail on traces that loaded) is no shift.
    pub(crate) fn run_shift(&self, req: &CompareRequest) -> crate::analysis::measure::noise::RunShift {
        let [c, t] = self.summarized(crate::analysis::summaries::summarize::own_time_summary, false);
        crate::analysis::measure::shift::detect(
            PerSide::new(&c, &t),
            self.resolved.as_ref(),
            req.device,
            &req.keying(),
            req.beyond_shift,
        )
        .unwrap_or_default()
    }

    /// What side `id` is, named `label`, as outputs describe it.
    pub(crate) fn side_info(&self, id: SideId, label: &str) -> SideInfo {
        crate::analysis::diff::side_info(self.side(id), label, self.resolved[id].clone())
    }

    /// A note per side whose call trees had partial overlaps (docs/semantics.md#the-call-tree).
    pub(crate) fn overlap_notes(&self, labels: &[String; 2]) -> Vec<String> {
        let labels = PerSide::from(labels.each_ref());
        SideId::BOTH
            .into_iter()
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
