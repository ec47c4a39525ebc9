//! `events` (the event table of one side) and `summarize` (one trace to a summary).

use super::{Done, Note, collect};
use crate::analysis::load::runs::runs_of;
use crate::analysis::select::{Device, Pick, Resolved, SideSelection, resolve};
use crate::analysis::summaries::dataset::{summarize_dir_into, summarize_file_into, summarize_runs_into};
use crate::analysis::summaries::write::save_summary;
use crate::error::{Error, Result};
use crate::input::attrs::{AttrRequest, Preset};
use crate::input::load::{Side, load_side_ranks};
use crate::output::events::{EventFilter, EventsFormat, why_no_events, write_events, write_events_table};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Which events of a side, with which attribute columns.
#[derive(Debug, Clone, Default)]
pub struct EventsRequest {
    /// A directory of traces or one trace file.
    pub path: PathBuf,
    /// Ranks; `None`: all.
    pub ranks: Option<Pick>,
    /// ProfilerStep numbers (events inside those steps); `None`: every event.
    pub iterations: Option<Pick>,
    /// Host events, device events or both.
    pub device: Device,
    /// Only events whose name matches this regular expression.
    pub name: Option<String>,
    /// Only events of these categories (exact); empty for all.
    pub cats: Vec<String>,
    /// A preset of attribute columns.
    pub preset: Preset,
    /// Built-in attribute columns to add.
    pub args: Vec<String>,
    /// Attributes defined as `column=raw key:type:default`.
    pub arg_specs: Vec<String>,
}

/// The events of a side as selected, ready to be written.
#[derive(Debug)]
pub struct EventTable {
    side: Side,
    resolved: Resolved,
    filter: EventFilter,
}

impl EventTable {
    /// Writes the table as `format` (CSV, JSON lines, JSON or a text table of full width);
    /// returns the number of rows.
    pub fn write(&self, format: EventsFormat, out: &mut dyn Write) -> Result<u64> {
        write_events(&self.side, &self.resolved, &self.filter, format, out)
    }

    /// Writes the table as Parquet; returns the number of rows.
    pub fn write_parquet<W: Write + Send>(&self, out: W) -> Result<u64> {
        crate::output::events_parquet::write_events_parquet(&self.side, &self.resolved, &self.filter, out)
    }

    /// Writes the text table with names cut to fit `width` columns; returns the number of rows.
    pub fn write_table(&self, width: usize, out: &mut dyn Write) -> Result<u64> {
        write_events_table(&self.side, &self.resolved, &self.filter, width, out)
    }

    /// Why no event was written (which selection or filter left none).
    pub fn empty_note(&self) -> Note {
        Note::Caveat(why_no_events(&self.side, &self.resolved, &self.filter))
    }
}

/// Loads and selects the events of one side.
pub fn events(req: &EventsRequest) -> Done<EventTable> {
    collect(|notes| {
        let attrs = AttrRequest::build(req.preset, &req.args, &req.arg_specs)?;
        let name = req
            .name
            .as_deref()
            .map(|p| crate::analysis::diff::compile_pattern("--name", p))
            .transpose()?;
        let ranks = req.ranks.clone().unwrap_or(Pick::All);
        let side = load_side_ranks(&req.path, &attrs, &[&ranks], false)?;
        notes.caveats(side.notes.iter().cloned());
        let selection = SideSelection {
            ranks,
            iterations: req.iterations.clone().unwrap_or(Pick::All),
        };
        let mut resolved = resolve(&side, "events", &selection)?;
        if req.iterations.is_none() {
            resolved.iterations = None;
        }
        let filter = EventFilter {
            device: req.device,
            name,
            cats: req.cats.clone(),
        };
        Ok(EventTable { side, resolved, filter })
    })
}

/// Summarises one trace file into a Parquet summary at `output`.
///
/// With `dataset` (required for a directory of traces; the command line sets it for a
/// directory, a `--label` or an output directory), the summaries
/// go into a dataset laid out `run=<label>/rank=<r>.parquet` under `output` (docs/summaries.md):
/// a directory of traces is one run (a directory of runs, one `run=` each), one trace is filed
/// under its rank. Returns the files written.
pub fn summarize(trace: &Path, output: &Path, label: Option<&str>, dataset: bool) -> Done<Vec<PathBuf>> {
    collect(|notes| {
        let summarize = &crate::analysis::summaries::summarize::summarize;
        let is_dir = std::fs::metadata(trace).is_ok_and(|m| m.is_dir());
        if is_dir && !dataset {
            return Err(Error::input(
                trace,
                "summarize takes one trace file, not a directory (run it once per rank, or write a dataset)",
            ));
        }
        if is_dir {
            let (written, found) = match runs_of(trace) {
                Some(runs) => summarize_runs_into(trace, &runs, output, label, summarize)?,
                None => summarize_dir_into(trace, output, label, summarize)?,
            };
            notes.caveats(found);
            return Ok(written);
        }
        if dataset {
            return summarize_file_into(trace, output, label, summarize);
        }
        let summary = crate::input::load::summarize_trace(trace, summarize)?;
        save_summary(&summary, output)?;
        Ok(vec![output.to_path_buf()])
    })
}
