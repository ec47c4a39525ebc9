//! A whole comparison, from two paths to a [`Comparison`]: load → select → aggregate → diff.

use crate::analysis::aggregate::{Aggregate, Keying, Naming, aggregate};
use crate::analysis::diff::{Comparison, NameFilter, SideInfo, diff_owned};
use crate::analysis::select::{Device, Resolved, SideSelection, resolve};
use crate::error::{Error, Result};
use crate::input::attrs::{AttrRequest, Preset};
use crate::input::load::{RankedFile, SideOf, load_pair, pair_notes};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything that decides the rows of a comparison. Options will be added: build one with
/// [`CompareRequest::new`] and set the fields you need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CompareRequest {
    pub control: PathBuf,
    pub test: PathBuf,
    pub control_selection: SideSelection,
    pub test_selection: SideSelection,
    pub device: Device,
    pub naming: Naming,
    /// `--normalize-names`.
    #[serde(default)]
    pub normalize_names: bool,
    /// `--group-by`: attribute columns that split rows.
    #[serde(default)]
    pub group_by: Vec<String>,
    /// `--arg-spec`: user-defined attributes (usable in `group_by`).
    #[serde(default)]
    pub arg_specs: Vec<String>,
    pub labels: [String; 2],
    pub include: Vec<String>,
    pub exclude: Vec<String>,
}

impl CompareRequest {
    pub fn new(control: impl Into<PathBuf>, test: impl Into<PathBuf>) -> Self {
        CompareRequest {
            control: control.into(),
            test: test.into(),
            control_selection: SideSelection::default(),
            test_selection: SideSelection::default(),
            device: Device::All,
            naming: Naming::Name,
            normalize_names: false,
            group_by: Vec::new(),
            arg_specs: Vec::new(),
            labels: ["control".to_string(), "test".to_string()],
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }
}

impl CompareRequest {
    /// How events become rows.
    pub fn keying(&self) -> Keying {
        Keying {
            naming: self.naming,
            normalize: self.normalize_names,
            group_by: self.group_by.clone(),
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
        })
    }
}

/// Checks the labels: two different names that can head CSV columns.
pub fn check_labels(labels: &[String; 2]) -> Result<()> {
    for l in labels {
        if l.is_empty() || l.contains([',', '"', '\n', '\r']) {
            return Err(Error::usage(format!(
                "invalid label '{l}': labels must be non-empty and hold no comma, quote or newline"
            )));
        }
    }
    if labels[0] == labels[1] {
        return Err(Error::usage(format!(
            "the two labels must differ (both are '{}')",
            labels[0]
        )));
    }
    Ok(())
}

/// Loads both sides and compares them. Also returns the notes the loading produced.
///
/// Without `--group-by`, each file is summarised as it is loaded (its events dropped) and the
/// summaries are compared: traces, `tracediff summarize` files, or both. `--group-by` needs the
/// events' attributes, so it reads traces only.
pub fn compare(req: &CompareRequest) -> Result<(Comparison, Vec<String>)> {
    check_labels(&req.labels)?;
    let filter = NameFilter::new(&req.include, &req.exclude)?;
    let selections = (&req.control_selection, &req.test_selection);
    if req.group_by.is_empty() {
        req.attr_request()?;
        let (control, test) = crate::analysis::summary::load_summary_pair(&req.control, &req.test, selections)?;
        return compare_loaded(req, &filter, &control, &test);
    }
    let (control, test) = load_pair(&req.control, &req.test, &req.attr_request()?, selections)?;
    compare_loaded(req, &filter, &control, &test)
}

fn compare_loaded<T: Aggregate>(
    req: &CompareRequest,
    filter: &NameFilter,
    control: &SideOf<T>,
    test: &SideOf<T>,
) -> Result<(Comparison, Vec<String>)> {
    let mut notes = pair_notes(control, test);
    let mut comparison = compare_sides(req, control, test, &NameFilter::default())?;
    if comparison.rows.is_empty() {
        notes.push(why_no_events(req, control, test)?);
    } else if let Some(why) = filter.retain_explained(&mut comparison.rows, &req.group_by) {
        notes.push(why);
    }
    Ok((comparison, notes))
}

/// Why a comparison has no rows before any name filter: the device filter, or a selection
/// without events.
fn why_no_events<T: Aggregate>(req: &CompareRequest, control: &SideOf<T>, test: &SideOf<T>) -> Result<String> {
    let sides = "the selected ranks and iterations of both sides";
    if req.device != Device::All {
        let all = CompareRequest {
            device: Device::All,
            ..req.clone()
        };
        let any = compare_sides(&all, control, test, &NameFilter::default())?.rows.len();
        if any > 0 {
            return Ok(format!(
                "no rows: --device {} removed every event of {sides} ({any} {} of other events)",
                req.device,
                crate::analysis::diff::plural(any, "name", "names")
            ));
        }
    }
    Ok(format!("no rows: {sides} hold no events"))
}

/// Compares two loaded sides.
pub fn compare_sides<T: Aggregate>(
    req: &CompareRequest,
    control: &SideOf<T>,
    test: &SideOf<T>,
    filter: &NameFilter,
) -> Result<Comparison> {
    let [cl, tl] = &req.labels;
    let c_sel = resolve(control, cl, &req.control_selection)?;
    let t_sel = resolve(test, tl, &req.test_selection)?;
    let keying = req.keying();
    let (c_tot, t_tot) = rayon::join(
        || aggregate(control, &c_sel, req.device, &keying),
        || aggregate(test, &t_sel, req.device, &keying),
    );
    let mut rows = diff_owned(c_tot, t_tot);
    rows.retain(|r| filter.admits_row(&r.name, &req.group_by));
    Ok(Comparison {
        control: side_info(control, cl, c_sel),
        test: side_info(test, tl, t_sel),
        device: req.device,
        naming: req.naming,
        normalize_names: req.normalize_names,
        group_by: req.group_by.clone(),
        include: req.include.clone(),
        exclude: req.exclude.clone(),
        rows,
    })
}

/// What a side's header says: its path, the files of the selected ranks, the selection.
pub fn side_info<T: RankedFile>(side: &SideOf<T>, label: &str, resolved: Resolved) -> SideInfo {
    SideInfo {
        label: label.to_string(),
        path: side.input.display().to_string(),
        files: side
            .files
            .iter()
            .filter(|f| resolved.ranks.contains(&f.rank()))
            .map(|f| f.source().display().to_string())
            .collect(),
        resolved,
    }
}
