//! `gate`: the regression rules over two sets of runs, for CI.

use super::{Done, collect};
use crate::analysis::gate::run::gate_pair;
use crate::analysis::gate::{GateCause, GateConfig, GateReport, Verdict};
use crate::analysis::select::SideSelection;
use crate::request::CompareRequest;
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
        let (mut report, found) = gate_pair(config, baseline, candidate, selection)?;
        notes.caveats(found);
        notes.caveats(report.run_shift_note.iter().cloned());
        if report.verdict == Verdict::Fail {
            report.causes = causes(config, &report, baseline, candidate, selection, notes);
        }
        Ok(report)
    })
}

/// The most operators whose causes a failed gate carries.
const MOST_CAUSES: usize = 8;

/// Why the ops a failed gate names changed, from `explain` on the same sides (a side of runs
/// read run by run, its rows judged between runs), judged as the gate judged ([`cause_request`]): the failing rules'
/// ops first, then the top contributors, each once, as far as `explain` has a line for them
/// (an op whose time did not change, a kernel name, has none). The line of an op whose time
/// failed a rule carries the gate's mark (`*`, beyond the noise), never `explain`'s own (which
/// judges self time per step against its own floor). Where `explain` cannot read the pair, a
/// note says why and the gate's verdict stands.
fn causes(
    config: &GateConfig,
    report: &GateReport,
    baseline: &SidePaths,
    candidate: &SidePaths,
    selection: &SideSelection,
    notes: &mut super::Notes,
) -> Vec<GateCause> {
    let req = cause_request(config, baseline, candidate, selection);
    let explained = match super::explain(&req, &super::ExplainOptions::default()) {
        Ok(done) => done.value,
        Err(failure) => {
            notes.caveats([format!("no causes for the failing ops: {}", failure.error)]);
            return Vec::new();
        }
    };
    let flagged = report
        .rules
        .iter()
        .filter(|r| r.verdict == Verdict::Fail)
        .map(|r| r.subject.as_str())
        .chain(report.top_contributors.iter().map(|c| c.name.as_str()));
    // The ops whose time failed a rule: beyond the noise, as the gate judged them.
    let timing_failed = |name: &str| {
        report
            .rules
            .iter()
            .any(|r| r.verdict == Verdict::Fail && r.unit == "ns" && r.subject == name)
    };
    let mut out: Vec<GateCause> = Vec::new();
    for name in flagged {
        if out.iter().any(|c| c.names.iter().any(|n| n == name)) {
            continue;
        }
        // The op itself, else the op that launched the kernel of that name.
        let launched = |r: &&crate::analysis::explain::Explained| {
            r.kernels
                .iter()
                .any(|k| k == name || k.strip_prefix("void ") == Some(name))
        };
        let row = explained.rows.iter().find(|r| r.name == name);
        let Some(row) = row.or_else(|| explained.rows.iter().find(launched)) else {
            continue;
        };
        let line = || match timing_failed(name) {
            true => row.line_judged(Some(true)),
            false => row.line.clone(),
        };
        // One line per operator: the kernels it launched gather on it.
        if let Some(c) = out.iter_mut().find(|c| c.op == row.name) {
            c.names.push(name.to_string());
            if timing_failed(name) {
                c.line = line();
            }
        } else if out.len() < MOST_CAUSES {
            out.push(GateCause {
                names: vec![name.to_string()],
                op: row.name.clone(),
                line: line(),
            });
        }
    }
    out
}

/// The `explain` request of a failed gate's causes: the gate's pair and steps, keyed by name as
/// its rules key them (`short_names`, `normalize_names`), and judged beyond a run-wide shift
/// only where the gate's timing rules are (`--no-run-shift` turns both off).
fn cause_request(
    config: &GateConfig,
    baseline: &SidePaths,
    candidate: &SidePaths,
    selection: &SideSelection,
) -> CompareRequest {
    let mut req = CompareRequest::for_views(baseline.clone(), candidate.clone());
    req.control_selection = selection.clone();
    req.test_selection = selection.clone();
    req.labels = ["baseline".to_string(), "candidate".to_string()];
    req.beyond_shift = config.beyond_run_shift.unwrap_or(true);
    if config.short_names.unwrap_or(false) {
        req.naming = crate::analysis::aggregate::Naming::ShortName;
    }
    req.normalize_names = config.normalize_names.unwrap_or(true);
    req
}
