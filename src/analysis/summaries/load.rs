//! Loading a side into summaries: a trace is parsed, summarised and its events dropped (only the
//! file in flight holds events); a summary file is read as it is. Traces and summaries may be
//! mixed on one side.

use crate::analysis::summaries::format::summary_formats;
use crate::analysis::summaries::names::SideNames;
use crate::error::{Error, Result};
use crate::input::load::{SidePair, SummarizeFn, SummarySide, load_pair_with, load_side_with};
use crate::input::parser::Parser;
use crate::model::pick::{Pick, SideSelection};
use crate::model::summary::FileSummary;
use std::path::Path;

/// Loads the summaries of `input`'s files whose ranks any of `picks` selects, the steps of the
/// traces (not of summary files, which keep the steps they were written with) named by `marker`
/// (`--step-marker`) when given, the traces parsed with `parser`.
pub(crate) fn load_summary_side_marked(
    parser: &Parser,
    input: &Path,
    picks: &[&Pick],
    want_steps: bool,
    marker: Option<&regex::Regex>,
    summarize: &SummarizeFn<'_>,
) -> Result<SummarySide> {
    // One copy of each name for the side's files (a thousand ranks run the same names).
    let names = SideNames::default();
    let formats = summary_formats();
    let load = |parser: &Parser, p: &Path| -> tracediff_trace::Result<Vec<FileSummary>> {
        let mut summaries = formats.of(p)?.summarize_ranks(parser, p, marker, summarize)?;
        for summary in &mut summaries {
            names.share(summary);
        }
        Ok(summaries)
    };
    let scan = |parser: &Parser, p: &Path, steps: bool| formats.of(p)?.scan_ranks(parser, p, steps, marker);
    let pattern = marker.map(regex::Regex::as_str);
    Ok(load_side_with(
        parser,
        (input, pattern),
        picks,
        want_steps,
        &load,
        &scan,
    )?)
}

/// Both sides into summaries: what compare, gate and overview read (see
/// [`crate::input::load::load_pair`]).
pub(crate) fn load_summary_pair(
    control: &Path,
    test: &Path,
    selections: (&SideSelection, &SideSelection),
    summarize: &SummarizeFn<'_>,
) -> Result<SidePair<FileSummary>> {
    load_summary_pair_marked(control, test, selections, None, summarize)
}

/// [`load_summary_pair`] with the steps named by `marker` (`--step-marker`) when given.
pub(crate) fn load_summary_pair_marked(
    control: &Path,
    test: &Path,
    selections: (&SideSelection, &SideSelection),
    marker: Option<&regex::Regex>,
    summarize: &SummarizeFn<'_>,
) -> Result<SidePair<FileSummary>> {
    Ok(load_pair_with(
        control,
        test,
        selections,
        &|parser, p, picks, steps| {
            load_summary_side_marked(parser, p, picks, steps, marker, summarize).map_err(Error::into_trace)
        },
    )?)
}
