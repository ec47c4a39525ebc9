//! A command's request: the two sides (each its paths, selection, label and capture) and
//! what decides the rows, with the presets every front end builds from. The defaults live here
//! and nowhere else: [`CompareRequest::hta`] (HTA's exact table), [`CompareRequest::for_views`]
//! (the command line's and Python's: the operations of each run, normalised names, every step),
//! and the one rule for a side whose steps were not named ([`CompareRequest::every_step_unless_named`]).
//!
//! The request is plain data below the analysis: it names the side types ([`side`]) and the
//! selection and keying vocabulary ([`selection`]), and uses nothing of the analysis.

pub(crate) mod defaults;
pub(crate) mod selection;
pub(crate) mod side;

use crate::error::{Error, Result};
use crate::input::attrs::{AttrRequest, Preset};
use crate::model::pick::{Pick, SideSelection};
use selection::{Device, Keying, Naming};
use serde::{Deserialize, Serialize};
use side::{PerSide, Side, SideId, SidePaths};
use std::path::{Path, PathBuf};

/// Everything that decides the rows of a comparison. Options will be added: build one with
/// [`CompareRequest::new`] and set the fields you need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompareRequest {
    /// The baseline: a directory of traces (or summaries), one file, a directory of runs, or
    /// runs given one by one.
    pub control: SidePaths,
    /// The run (or runs) compared with it.
    pub test: SidePaths,
    /// The control side's ranks and iterations (default: the lowest of each).
    pub control_selection: SideSelection,
    /// The test side's.
    pub test_selection: SideSelection,
    /// Host events, device events or both.
    pub device: Device,
    /// Rows by name or by HTA's short name.
    pub naming: Naming,
    /// Rewrite run-specific noise out of names (on by default on the command line).
    #[serde(default)]
    pub normalize_names: bool,
    /// Count `python_function` frames as rows (HTA does; the command line leaves them out
    /// unless `--python-frames` or `--hta`).
    #[serde(default = "yes")]
    pub python_frames: bool,
    /// `--group-by`: attribute columns that split rows.
    #[serde(default)]
    pub group_by: Vec<String>,
    /// `--arg-spec`: user-defined attributes (usable in `group_by`).
    #[serde(default)]
    pub arg_specs: Vec<String>,
    /// Names of the two sides in outputs (two different names).
    pub labels: [String; 2],
    /// Keep only rows whose name matches one of these regular expressions (none: every row).
    pub include: Vec<String>,
    /// Drop rows whose name matches one of these regular expressions.
    pub exclude: Vec<String>,
    /// Judge significance beyond a run-wide shift of the machine when one is found
    /// (docs/significance.md#a-run-wide-shift); `false` (`--no-run-shift`): against no change.
    #[serde(default = "yes")]
    pub beyond_shift: bool,
    /// `--step-marker`: a regular expression naming the user annotations that are the steps
    /// (docs/graphs.md#steps-without-profilerstep); `None`: ProfilerStep, else a serving loop's.
    #[serde(default)]
    pub step_marker: Option<String>,
    /// `--totals`: rows as sums over the selected steps and runs; by default (outside `--hta`)
    /// rows are per step wherever more than one step or run is used.
    #[serde(default)]
    pub totals: bool,
    /// `--kernel-classes`: a TOML file of kernel-class patterns tried before the built-in rules
    /// (docs/kernel-classes.md#your-own-rules); `None`: the built-in rules alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_classes: Option<PathBuf>,
    /// The captures of each side's graph replays (`--control-capture`, `--test-capture`; a
    /// file or a folder); `None`: a `capture_traces/` folder beside a trace, or a capture
    /// inside it (docs/graphs.md#graph-replays).
    #[serde(default, skip_serializing_if = "no_captures")]
    pub captures: [Option<PathBuf>; 2],
}

impl CompareRequest {
    /// HTA's exact comparison of `control` and `test` ([`CompareRequest::hta`]).
    pub fn new(control: impl Into<SidePaths>, test: impl Into<SidePaths>) -> Self {
        Self::hta(control, test)
    }

    /// The preset of HTA's exact comparison of `control` and `test`: the lowest rank and step
    /// of each, every device, raw names, Python frames counted, labels `control` and `test`.
    pub fn hta(control: impl Into<SidePaths>, test: impl Into<SidePaths>) -> Self {
        CompareRequest {
            control: control.into(),
            test: test.into(),
            control_selection: SideSelection::default(),
            test_selection: SideSelection::default(),
            device: Device::All,
            naming: Naming::Name,
            normalize_names: false,
            python_frames: true,
            group_by: Vec::new(),
            arg_specs: Vec::new(),
            labels: ["control".to_string(), "test".to_string()],
            include: Vec::new(),
            exclude: Vec::new(),
            beyond_shift: true,
            step_marker: None,
            totals: false,
            kernel_classes: None,
            captures: [None, None],
        }
    }
}

impl CompareRequest {
    /// Side `id` of the request as a whole: its paths, selection, label and capture.
    pub fn side(&self, id: SideId) -> Side<'_> {
        let (paths, selection) = match id {
            SideId::Control => (&self.control, &self.control_selection),
            SideId::Test => (&self.test, &self.test_selection),
        };
        Side {
            id,
            paths,
            selection,
            label: self.side_labels()[id],
            capture: PerSide::from(self.captures.each_ref())[id].as_deref(),
        }
    }

    /// The two sides' names in outputs.
    pub(crate) fn side_labels(&self) -> PerSide<&str> {
        PerSide::from(self.labels.each_ref()).map(String::as_str)
    }

    /// Sets side `id`'s paths, selection, label and capture to `side`'s (of another request).
    pub fn set_side(&mut self, id: SideId, side: Side<'_>) {
        let (paths, selection) = match id {
            SideId::Control => (&mut self.control, &mut self.control_selection),
            SideId::Test => (&mut self.test, &mut self.test_selection),
        };
        *paths = side.paths.clone();
        *selection = side.selection.clone();
        let mut labels = PerSide::from(self.labels.each_mut());
        *labels[id] = side.label.to_string();
        let mut captures = PerSide::from(self.captures.each_mut());
        *captures[id] = side.capture.map(Path::to_path_buf);
    }
}

fn no_captures(captures: &[Option<PathBuf>; 2]) -> bool {
    captures.iter().all(Option::is_none)
}

fn yes() -> bool {
    true
}

impl CompareRequest {
    /// The command line's defaults on top of [`CompareRequest::new`]'s HTA-exact ones: the
    /// operations of a run (no Python frames), with normalised names.
    pub fn operations(mut self) -> Self {
        self.python_frames = false;
        self.normalize_names = true;
        self
    }

    /// The preset of the command line's and Python's views (`compare` outside `--hta`, the
    /// views, `modules`, `overview`, `report`, the flame graph): the operations of each run with
    /// normalised names ([`CompareRequest::operations`]) and every step of each side.
    pub fn for_views(control: impl Into<SidePaths>, test: impl Into<SidePaths>) -> Self {
        let mut req = Self::hta(control, test).operations();
        req.every_step_unless_named(false, false);
        req
    }

    /// The one rule of the default steps (docs/significance.md#the-same-steps-everywhere): a
    /// side whose steps were not named (`control_named`, `test_named`) reads every step; a
    /// named side keeps its own.
    pub fn every_step_unless_named(&mut self, control_named: bool, test_named: bool) {
        let named = PerSide::new(control_named, test_named);
        for id in SideId::BOTH {
            if !named[id] {
                self.selection_mut(id).iterations = defaults::DEFAULT_STEPS;
            }
        }
    }

    /// The request with every step of a side whose steps are the lowest (the default of a
    /// request that named none): the overview is a mean by nature.
    pub fn every_step_where_lowest(&self) -> CompareRequest {
        let mut req = self.clone();
        for id in SideId::BOTH {
            let sel = req.selection_mut(id);
            if sel.iterations == Pick::Lowest {
                sel.iterations = defaults::DEFAULT_STEPS;
            }
        }
        req
    }

    fn selection_mut(&mut self, id: SideId) -> &mut SideSelection {
        match id {
            SideId::Control => &mut self.control_selection,
            SideId::Test => &mut self.test_selection,
        }
    }

    /// Whether the rows are HTA's (frames and raw names), so that the table may be checked
    /// against HTA's output.
    pub fn is_hta(&self) -> bool {
        self.python_frames && !self.normalize_names
    }

    /// How events become rows.
    pub fn keying(&self) -> Keying {
        Keying {
            naming: self.naming,
            normalize: self.normalize_names,
            group_by: self.group_by.clone(),
            skip_python_frames: !self.python_frames,
            gpu_annotations_apart: !self.is_hta(),
        }
    }

    /// The request without what only filters or labels rows afterwards (`include`, `exclude`,
    /// `labels`): two requests with equal keys count the same events into the same rows.
    pub fn rows_key(&self) -> CompareRequest {
        CompareRequest {
            include: Vec::new(),
            exclude: Vec::new(),
            labels: [String::new(), String::new()],
            ..self.clone()
        }
    }

    /// The attributes to load: those that `group_by` names (built-in or from `arg_specs`).
    pub fn attr_request(&self) -> Result<AttrRequest> {
        let user = AttrRequest::build(Preset::None, &[], &self.arg_specs)?;
        let mut names = Vec::new();
        for g in &self.group_by {
            let known = g == "stream" || g == "correlation" || user.specs.iter().any(|s| &s.column == g);
            if !known {
                names.push(g.clone());
            }
        }
        let builtin = AttrRequest::build(Preset::None, &names, &[])?;
        let mut specs = builtin.specs;
        specs.extend(user.specs.into_iter().filter(|s| self.group_by.contains(&s.column)));
        Ok(AttrRequest {
            specs,
            infer_all: false,
            step_marker: self.step_marker.clone(),
        })
    }
}

/// Checks the labels: two different names that can head CSV columns.
pub(crate) fn check_labels(labels: &[String; 2]) -> Result<()> {
    for l in labels {
        if l.is_empty() || l.contains([',', '"', '\n', '\r']) {
            return Err(Error::usage(format!(
                "invalid label '{l}': labels must be non-empty and hold no comma, quote or newline"
            )));
        }
    }
    let [control, test] = labels;
    if control == test {
        return Err(Error::usage(format!(
            "the two labels must differ (both are '{control}')"
        )));
    }
    Ok(())
}
