//! `report` (docs/semantics.md#report): one self-contained HTML page of a pair.

use super::{Done, Note, collect, write_file};
use crate::analysis::explain::causes::CauseKind;
use crate::analysis::explain::{Explanation, explain};
use crate::analysis::load::loaded::LoadFor;
use crate::analysis::report::{Report, ReportLimits, ReportWhy, WHY_ROWS, WhyLine};
use crate::error::{Error, Result};
use crate::request::CompareRequest;
use std::path::Path;

/// The options of the HTML report.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReportOptions {
    /// How much of the per-node tables goes into the page.
    pub limits: ReportLimits,
}

/// What the report of a pair shows: overview, module tree, tables, charts, flame graph.
pub fn report(req: &CompareRequest, options: &ReportOptions) -> Done<Report> {
    report_for(req, options.limits, "report")
}

/// [`report`] for `command` (named in its errors: `compare --report` runs it too).
pub(crate) fn report_for(req: &CompareRequest, limits: ReportLimits, command: &str) -> Done<Report> {
    collect(|notes| {
        if crate::analysis::load::side_runs::compares_runs(req) {
            let why = |ops: &crate::ViewTable, time: usize, sides: &[crate::analysis::explain::Gathered; 2]| {
                Some(report_why(&crate::analysis::explain::explain_gathered(
                    req,
                    sides.clone(),
                    ops,
                    time,
                )))
            };
            let (r, found) = crate::analysis::report::report_of_runs(req, limits, &why)?;
            notes.caveats(found);
            notes.caveats(r.overview.notes());
            return Ok(r);
        }
        // With the operators' input shapes: the "Why" section's work figures.
        let loaded = crate::analysis::load::loaded::load_with(req, LoadFor::view(command).with_shapes(true))?;
        notes.caveats(loaded.notes.iter().cloned());
        let why = |ops: &crate::ViewTable, time: usize| Some(report_why(&explain(req, &loaded, ops, time)));
        let r = crate::analysis::report::report(req, &loaded, limits, &why)?;
        notes.caveats(loaded.overlap_notes(&req.labels));
        notes.caveats(r.overview.notes());
        notes.caveats(r.shift_note());
        Ok(r)
    })
}

/// The page's "Why" section from `explain`'s reading of the step's operators: its largest
/// changes, each with its words and the shapes, element types and kernels that changed.
fn report_why(e: &Explanation) -> ReportWhy {
    let rows = e
        .rows
        .iter()
        .take(WHY_ROWS)
        .map(|r| WhyLine {
            name: r.name.clone(),
            parts: r.parts,
            has_work: r.unit.is_some(),
            significant: r.significant,
            reading: r.reading.clone(),
            causes: r
                .causes
                .iter()
                .filter(|c| matches!(c.kind, CauseKind::Shapes | CauseKind::Dtypes | CauseKind::Kernels))
                .map(|c| c.short.clone())
                .collect(),
        })
        .collect();
    ReportWhy {
        measure: e.measure,
        rows,
        changed: e.rows.len(),
        summary: e.summary.clone(),
        per_step: false,
    }
}

/// Renders the page and writes it to `path` whole or not at all; returns the note that says so.
pub fn write_report(report: &Report, path: &Path) -> Result<Note> {
    write_file(path, crate::output::render::report::render(report).as_bytes())
}

/// [`write_report`] with the section of a history (`report --history STORE`: the series of
/// `history show` over its runs, drawn and tabled).
pub fn write_report_with_history(
    report: &Report,
    history: &crate::analysis::history::show::HistoryView,
    path: &Path,
) -> Result<Note> {
    let section = crate::output::render::report_history::section(history)?;
    write_file(
        path,
        crate::output::render::report::render_with_history(report, &section).as_bytes(),
    )
}

/// Refuses an output name that is not .html/.htm (before any work is done).
pub fn check_html(path: &Path) -> Result<()> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("html" | "htm") => Ok(()),
        _ => Err(Error::usage(format!(
            "{}: the report is an HTML page; name it .html",
            path.display()
        ))),
    }
}
