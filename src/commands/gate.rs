//! `gate`: the regression rules over two sets of runs, for CI.

use super::{Done, collect};
use crate::analysis::gate::run::gate_pair;
use crate::analysis::gate::{GateConfig, GateReport};
use crate::analysis::load::select::SideSelection;
use crate::request::side::SidePaths;

/// Judges `candidate` against `baseline` by the rules of `config`, over the ranks and steps of
/// `selection` on both sides. A failed rule is the report's verdict, not an error.
pub fn gate(
    config: &GateConfig,
    baseline: &SidePaths,
    candidate: &SidePaths,
    selection: &SideSelection,
) -> Done<GateReport> {
    collect(|notes| {
        let (report, found) = gate_pair(config, baseline, candidate, selection)?;
        notes.caveats(found);
        notes.caveats(report.run_shift_note.iter().cloned());
        Ok(report)
    })
}
