//! `modules` (docs/modules.md) and `flamegraph` (docs/flamegraph.md): the aligned module trees.

use super::views::{loaded, only_significant_can_be_judged};
use super::{Done, Notes, collect};
use crate::analysis::flamegraph::{FlameTime, flame_stacks_default};
use crate::analysis::modules::align::AlignedNode;
use crate::analysis::modules::noise::{NodeSignificance, module_significance};
use crate::analysis::modules::runs::LoadedRuns;
use crate::analysis::modules::{ModuleDiff, zoom};
use crate::error::Error;
use crate::output::render::flamegraph::{FlameOptions, FlameView, FlameWidths, folded_diff, folded_side, svg};
use crate::output::render::modules::ModuleTime;
use crate::request::CompareRequest;

/// The options of `modules`.
#[derive(Debug, Clone, Default)]
pub struct ModulesOptions {
    /// Only this node's subtree (a path such as `ResNet/Sequential[2]`).
    pub zoom: Option<String>,
    /// The time that is judged (and that orders and folds when rendered); `None`: device time
    /// where a side has device events, else host time.
    pub time: Option<ModuleTime>,
    /// Keep only the nodes whose time changed significantly, with the nodes above them
    /// (refused where significance cannot be judged).
    pub only_significant: bool,
    /// The request's two sides are one run (read once): significance is not judged.
    pub one_run: bool,
    /// Times and calls summed over the selected steps (and runs) rather than per step.
    pub totals: bool,
}

/// The aligned module trees of a pair, what is shown of them and how each node changed.
#[derive(Debug, Clone)]
pub struct Modules {
    /// Both sides' trees, aligned node by node below the step.
    pub diff: ModuleDiff,
    /// The time judged, ordered and folded.
    pub time: ModuleTime,
    /// Whether each node changed significantly; `None` where it could not be estimated (the
    /// notes say why).
    pub significance: Option<NodeSignificance>,
    zoom: Option<String>,
    pruned: Option<AlignedNode>,
}

impl Modules {
    /// The node shown at the top: the step, or the zoomed node; with `only_significant`, a copy
    /// holding only the significant nodes and those above them.
    pub fn top(&self) -> &AlignedNode {
        match &self.pruned {
            Some(node) => node,
            // The path was found when the command ran.
            None => zoom(&self.diff, self.zoom.as_deref()).unwrap_or(&self.diff.root),
        }
    }
}

/// The module-aligned diff of a pair.
pub fn modules(req: &CompareRequest, options: &ModulesOptions) -> Done<Modules> {
    collect(|notes| {
        if crate::analysis::load::side_runs::compares_runs(req) {
            return modules_of_runs(req, options, notes);
        }
        let loaded = loaded(req, "modules", notes)?;
        let diff = crate::analysis::modules::modules(req, &loaded)?;
        notes.caveats(loaded.overlap_notes(&req.labels));
        zoom(&diff, options.zoom.as_deref())?;
        let time = options.time.unwrap_or(if diff.has_device.iter().any(|&d| d) {
            ModuleTime::Device
        } else {
            ModuleTime::Host
        });
        let judged = (!options.one_run).then(|| module_significance(req, &loaded, &diff, time == ModuleTime::Device));
        let significance = match judged {
            None => None,
            Some(Ok(marks)) => {
                notes.caveats(marks.shift_note(req.side_labels()));
                Some(marks)
            }
            Some(Err(note)) => {
                only_significant_can_be_judged(options.only_significant, Some(&note))?;
                notes.caveats([note]);
                None
            }
        };
        if significance.is_some() {
            notes.caveats([crate::analysis::load::runs::ONE_RUN_NOTE.to_string()]);
        }
        let mut diff = diff;
        if !options.totals {
            let steps = loaded.resolved.as_ref().map(crate::analysis::load::runs::steps_of);
            crate::analysis::modules::runs::per_step(&mut diff, steps);
        }
        let top = zoom(&diff, options.zoom.as_deref())?;
        let pruned = options
            .only_significant
            .then(|| only_significant(top, significance.as_ref()));
        Ok(Modules {
            diff,
            time,
            significance,
            zoom: options.zoom.clone(),
            pruned,
        })
    })
}

/// `top` with only the nodes that changed significantly and the nodes above them (`top` itself
/// always). Built without recursion: module trees can nest thousands deep.
fn only_significant(top: &AlignedNode, marks: Option<&NodeSignificance>) -> AlignedNode {
    let significant = |n: &AlignedNode| marks.and_then(|m| m.of(n)) == Some(true);
    // Each frame: a node, the next child to visit, the kept copies of its visited children.
    let mut stack: Vec<(&AlignedNode, usize, Vec<AlignedNode>)> = vec![(top, 0, Vec::new())];
    let mut pruned = None;
    while let Some(frame) = stack.last_mut() {
        let (node, next) = (frame.0, frame.1);
        if let Some(child) = node.children.get(next) {
            frame.1 += 1;
            stack.push((child, 0, Vec::new()));
            continue;
        }
        let Some((node, _, kept)) = stack.pop() else { break };
        let keep = stack.is_empty() || significant(node) || !kept.is_empty();
        let copy = AlignedNode {
            kind: node.kind,
            key: node.key.clone(),
            ordinal: node.ordinal,
            id: node.id,
            status: node.status,
            control: node.control,
            test: node.test,
            children: kept,
            sources: node.sources.clone(),
            children_overlap_ns: node.children_overlap_ns,
            wrappers: node.wrappers.clone(),
            replayed: node.replayed,
        };
        match stack.last_mut() {
            None => pruned = Some(copy),
            Some(parent) if keep => parent.2.push(copy),
            Some(_) => {}
        }
    }
    pruned.unwrap_or_else(|| top.clone())
}

/// One side of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlameSide {
    /// The baseline.
    Control,
    /// The run compared against it.
    Test,
}

/// What `flamegraph` draws or writes.
#[derive(Debug, Clone, Default)]
pub struct FlamegraphOptions {
    /// Host self time or the device time of launched kernels; `None`: device on a pair with
    /// kernels under its operators, host otherwise.
    pub time: Option<FlameTime>,
    /// One side's stacks instead of the differential ones.
    pub side: Option<FlameSide>,
    /// Folded stacks (text) instead of the SVG.
    pub folded: bool,
    /// Whose times are the differential SVG's widths.
    pub widths: FlameWidths,
    /// Weights summed over the selected steps (and runs) rather than per step.
    pub totals: bool,
}

/// The differential flame graph of a pair as SVG bytes, or its folded stacks as text bytes.
pub fn flamegraph(req: &CompareRequest, options: &FlamegraphOptions) -> Done<Vec<u8>> {
    collect(|notes| {
        let stacks = if crate::analysis::load::side_runs::compares_runs(req) {
            stacks_of_runs(req, options, notes)?
        } else {
            let loaded = loaded(req, "flamegraph", notes)?;
            let classifier = req.classifier()?;
            let diff = crate::analysis::modules::modules(req, &loaded)?;
            notes.caveats(loaded.overlap_notes(&req.labels));
            let mut stacks = flame_stacks_default(&diff, &loaded, options.time, &classifier);
            if !options.totals {
                stacks.per_step(loaded.resolved.as_ref().map(crate::analysis::load::runs::steps_of));
            }
            stacks
        };
        let side = options.side.map(|s| match s {
            FlameSide::Control => 0,
            FlameSide::Test => 1,
        });
        if options.folded {
            let text = match side {
                Some(s) => folded_side(&stacks, s),
                None => folded_diff(&stacks),
            };
            return Ok(text.into_bytes());
        }
        if stacks.stacks.is_empty() {
            return Err(Error::usage(format!(
                "no {} time on either side to draw{}",
                stacks.time.as_str(),
                if stacks.time == FlameTime::Device {
                    " (no device events): use --time host"
                } else {
                    ""
                }
            )));
        }
        let drawn = FlameOptions {
            labels: req.labels.clone(),
            view: side.map_or(FlameView::Differential(options.widths), FlameView::Side),
            still: false,
        };
        svg(&stacks, &drawn).map_err(|e| Error::usage(format!("cannot draw the flame graph: {e}")))
    })
}

/// The module diff of a pair of which a side is a directory of runs.
fn modules_of_runs(req: &CompareRequest, options: &ModulesOptions, notes: &mut Notes) -> crate::error::Result<Modules> {
    let (sides, found) = crate::analysis::modules::runs::load_runs(req, "modules")?;
    notes.caveats(found);
    let (mut diff, trees) = crate::analysis::modules::runs::modules_of_runs(req, &sides)?;
    zoom(&diff, options.zoom.as_deref())?;
    let time = options.time.unwrap_or(if diff.has_device.iter().any(|&d| d) {
        ModuleTime::Device
    } else {
        ModuleTime::Host
    });
    let significance =
        match crate::analysis::modules::runs::runs_significance(&diff, &sides, &trees, time == ModuleTime::Device) {
            Ok(marks) => Some(marks),
            Err(note) => {
                only_significant_can_be_judged(options.only_significant, Some(&note))?;
                notes.caveats([note]);
                None
            }
        };
    if !options.totals {
        crate::analysis::modules::runs::per_step(&mut diff, sides.as_ref().map(LoadedRuns::steps));
    }
    let top = zoom(&diff, options.zoom.as_deref())?;
    let pruned = options
        .only_significant
        .then(|| only_significant(top, significance.as_ref()));
    Ok(Modules {
        diff,
        time,
        significance,
        zoom: options.zoom.clone(),
        pruned,
    })
}

/// The flame graph's stacks of a pair of which a side is a directory of runs: every run's
/// stacks summed, per step unless `totals`.
fn stacks_of_runs(
    req: &CompareRequest,
    options: &FlamegraphOptions,
    notes: &mut Notes,
) -> crate::error::Result<crate::analysis::flamegraph::FlameStacks> {
    let (sides, found) = crate::analysis::modules::runs::load_runs(req, "flamegraph")?;
    notes.caveats(found);
    let classifier = req.classifier()?;
    let (diff, _) = crate::analysis::modules::runs::modules_of_runs(req, &sides)?;
    let files = sides.as_ref().map(LoadedRuns::files);
    let mut stacks = crate::analysis::flamegraph::flame_stacks_default_of(
        &diff,
        files.as_ref().map(Vec::as_slice),
        options.time,
        &classifier,
    );
    if !options.totals {
        stacks.per_step(sides.as_ref().map(LoadedRuns::steps));
    }
    Ok(stacks)
}
