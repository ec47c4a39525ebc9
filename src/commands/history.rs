//! `history add`, `history show` and `gate --history`: a store of earlier runs as the baseline
//! of a CI gate (docs/history.md).

use super::{Done, collect};
use crate::analysis::gate::{GateConfig, GateReport};
use crate::analysis::history::gate::HistoryOptions;
use crate::analysis::history::series::Measuring;
use crate::analysis::history::show::{HistoryView, ShowOptions};
use crate::analysis::history::store::RunEntry;
use crate::analysis::select::SideSelection;
use crate::error::{Error, Result};
use crate::model::pick::Pick;
use crate::request::side::SidePaths;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use crate::analysis::history::gate::{DEFAULT_MIN_HISTORY, DEFAULT_WINDOW};
pub use crate::analysis::history::show::{Series, ShownChange};
pub use crate::analysis::history::store::{RunEntry as HistoryRun, Store as HistoryStore};

/// A run to add to a store.
#[derive(Debug, Clone, Default)]
pub struct AddRequest {
    /// The store (made where absent or empty).
    pub store: PathBuf,
    /// The run: a directory of traces (one job's ranks), one trace file, or summaries.
    pub run: PathBuf,
    /// Its label (a commit id), unique in the store.
    pub label: String,
    /// The branch it was recorded on.
    pub branch: Option<String>,
    /// `k=v` metadata, each `k=v`.
    pub meta: Vec<String>,
    /// When it was recorded (RFC 3339); now where `None`.
    pub time: Option<String>,
}

/// `k=v` pairs by key; a pair without `=`, an empty key or a key given twice is refused.
pub fn parse_meta(pairs: &[String]) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for p in pairs {
        let Some((k, v)) = p.split_once('=').filter(|(k, _)| !k.trim().is_empty()) else {
            return Err(Error::usage(format!("--meta '{p}': expected KEY=VALUE")));
        };
        if out.insert(k.trim().to_string(), v.to_string()).is_some() {
            return Err(Error::usage(format!("--meta: the key '{}' is given twice", k.trim())));
        }
    }
    Ok(out)
}

/// Summarises the run of `req` (one summarise of its traces; summaries are read as they are)
/// and appends it to the store. Returns its line.
pub fn history_add(req: &AddRequest) -> Done<RunEntry> {
    collect(|notes| {
        let meta = parse_meta(&req.meta)?;
        crate::analysis::summaries::dataset::check_run_label(&req.label)?;
        if crate::analysis::load::runs::runs_of(&req.run).is_some() {
            return Err(Error::input(
                &req.run,
                "a directory of runs: a history entry is one run; add each with a label of its own",
            ));
        }
        let side = crate::analysis::summaries::load::load_summary_side_marked(
            &crate::input::parser::Parser::default(),
            &req.run,
            &[&Pick::All],
            false,
            None,
            &crate::analysis::summaries::summarize::summarize,
        )?;
        notes.caveats(side.notes.iter().cloned());
        let summaries = side.files.iter().map(|f| (**f).clone()).collect();
        let new = crate::output::history::NewRun {
            label: req.label.clone(),
            branch: req.branch.clone(),
            meta,
            source: req.run.display().to_string(),
            time: req.time.clone(),
        };
        let entry = crate::output::history::append(&req.store, summaries, new)?;
        notes.info(format!(
            "history: added {} as run {} ({})",
            entry.label,
            entry.seq,
            req.store
                .join(crate::analysis::history::store::run_dir_name(entry.seq))
                .display()
        ));
        Ok(entry)
    })
}

/// What `history show` is asked.
#[derive(Debug, Clone)]
pub struct ShowRequest {
    /// The store.
    pub store: PathBuf,
    /// The rows shown beside the step and GPU busy times.
    pub top: usize,
    /// Only the rows whose key matches this regular expression.
    pub name: Option<String>,
    /// Only the runs of this branch.
    pub branch: Option<String>,
}

/// Every series of the store with its change points.
pub fn history_show(req: &ShowRequest) -> Done<HistoryView> {
    collect(|notes| {
        let name = req
            .name
            .as_deref()
            .map(|p| crate::analysis::diff::compile_pattern("--name", p))
            .transpose()?;
        let store = crate::analysis::history::store::open(&req.store)?;
        let opts = ShowOptions {
            top: req.top,
            name,
            branch: req.branch.clone(),
            measuring: Measuring::of_gate(&GateConfig::default(), &all_steps()),
        };
        let (view, found) = crate::analysis::history::show::show(&store, &opts)?;
        notes.caveats(found);
        Ok(view)
    })
}

fn all_steps() -> SideSelection {
    SideSelection {
        ranks: Pick::All,
        iterations: Pick::All,
    }
}

/// What `gate --history` is asked beside the rules.
#[derive(Debug, Clone)]
pub struct GateHistoryRequest {
    /// The store and which of its runs to judge against.
    pub history: HistoryOptions,
    /// Append the candidate to the store when every rule passes, with this label.
    pub add_on_pass: Option<String>,
}

impl GateHistoryRequest {
    /// Against the store `store`, with the defaults.
    pub fn new(store: impl Into<PathBuf>) -> GateHistoryRequest {
        GateHistoryRequest {
            history: HistoryOptions::new(store),
            add_on_pass: None,
        }
    }

    /// The window, the fewest runs and the branch, for the caller to set.
    pub fn options(&mut self) -> &mut HistoryOptions {
        &mut self.history
    }
}

/// Judges `candidate` against the history of `req` by the rules of `config` over `selection`;
/// with `add_on_pass`, a candidate that passes is appended to the store. A failed rule is the
/// report's verdict, not an error.
pub fn gate_history(
    config: &GateConfig,
    req: &GateHistoryRequest,
    candidate: &SidePaths,
    selection: &SideSelection,
) -> Done<GateReport> {
    collect(|notes| {
        if let Some(label) = &req.add_on_pass {
            crate::analysis::summaries::dataset::check_run_label(label)?;
        }
        let (report, found) = crate::analysis::history::gate::gate_history(config, &req.history, candidate, selection)?;
        notes.caveats(found);
        notes.caveats(report.run_shift_note.iter().cloned());
        if let Some(label) = &req.add_on_pass
            && report.verdict == crate::analysis::gate::Verdict::Pass
        {
            let add = AddRequest {
                store: req.history.store.clone(),
                run: candidate.single("gate --history")?.to_path_buf(),
                label: label.clone(),
                branch: req.history.branch.clone(),
                ..AddRequest::default()
            };
            let done = history_add(&add).map_err(|f| f.error)?;
            notes.0.extend(done.notes);
        }
        Ok(report)
    })
}

/// The store at `path` as read (its runs and the entries skipped), for a caller that lists it.
pub fn history_runs(path: &Path) -> Result<HistoryStore> {
    crate::analysis::history::store::open(path)
}
