//! What a gate could judge (docs/significance.md#a-rule-with-nothing-to-judge): a rule with
//! nothing to judge is `not judged`, never a pass, and a gate that judged no rule at all is
//! refused; with one run per side the notes say what the verdict cannot tell.

use super::report::{GateReport, RuleResult, Verdict};
use crate::analysis::select::Device;
use crate::error::{Error, Result};
use std::path::Path;

/// Marks `r` as having nothing to judge, `why` its note.
pub(super) fn nothing_to_judge(r: &mut RuleResult, why: &str) {
    r.verdict = Verdict::NotJudged;
    r.note = format!("not judged: {why}");
}

/// Where the op and count rules judged device events (`device`) and neither side has one,
/// their notes say so.
fn explain_device(report: &mut GateReport, device: Device, no_device_events: bool) {
    if device != Device::Gpu || !no_device_events {
        return;
    }
    for r in report.rules.iter_mut().filter(|r| r.verdict == Verdict::NotJudged) {
        if r.rule == "op time" || r.rule == "count" {
            r.note = "not judged: device = gpu, but neither side has a device event (kernels, copies, sets); \
                      --device all judges host operators"
                .to_string();
        }
    }
}

/// Refuses a gate that judged no rule (each had nothing to judge), naming why for each and
/// the `candidate`'s path; else words the notes of the rules that had nothing to judge.
/// `no_device_events`: neither side has a kernel, copy or set.
pub(super) fn refuse_nothing_judged(
    report: &mut GateReport,
    (device, no_device_events): (Device, bool),
    candidate: &Path,
) -> Result<()> {
    explain_device(report, device, no_device_events);
    if report.rules.iter().any(|r| r.verdict != Verdict::NotJudged) {
        return Ok(());
    }
    let why: Vec<String> = report
        .rules
        .iter()
        .map(|r| format!("{}: {}", r.rule, r.note.trim_start_matches("not judged: ")))
        .collect();
    Err(Error::input(
        candidate,
        format!(
            "the gate has nothing to judge, so it cannot pass: {} (docs/significance.md#a-rule-with-nothing-to-judge)",
            why.join("; ")
        ),
    ))
}

/// The notes of a gate on one run per side: what it judged the ops by where the device was
/// chosen for the user (`defaulted`), and that two runs cannot tell a rerun's noise from a
/// change, with what can.
pub(super) fn one_run_notes(device: Device, defaulted: bool, report: &GateReport) -> Vec<String> {
    let mut notes = Vec::new();
    if defaulted && device == Device::Gpu {
        notes.push(
            "the op and count rules judge the device's work (kernels, copies, sets), as both sides have some: the host \
             time of operators scatters between two processes of one program far more than their kernels' \
             (--device all judges host operators too)"
                .to_string(),
        );
    }
    let beyond_rows = report.rules.iter().any(|r| r.note.contains("this pair's common move"));
    notes.push(format!(
        "one run per side: the gate cannot tell how far a rerun of the same program moves (only the steps inside \
         each process are in sight){}; a change that moved every row alike passes, and a rerun far slower as a \
         whole fails. Judge against the runs of earlier commits (gate --history STORE, docs/history.md), or give \
         several runs per side (baseline/run1/ … runN/)",
        if beyond_rows {
            ", so the timing rules were judged beyond this pair's common move and its rows' scatter"
        } else {
            ""
        }
    ));
    notes
}
