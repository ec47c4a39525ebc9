//! What a gate found, and the words of each rule's line: the verdicts, the results, the sides
//! judged and the notes that explain them.

use super::change::{Change, Scale};
use super::rules::CountLimit;
use crate::analysis::measure::noise::{median, scaled_mad};
use crate::analysis::measure::per_step::Samples;
use crate::analysis::select::Resolved;
use crate::input::load::SummarySide;
use serde::Serialize;

/// What a rule says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Within the rule (exit 0).
    Pass,
    /// Beyond it and beyond the noise (exit 1).
    Fail,
    /// Nothing to judge: no row of the kind the rule judges on either side (`device = "gpu"` on
    /// host-only traces), steps of no duration, no device events. Never a pass: the gate's
    /// verdict comes from the rules judged, and a gate that judged none is refused (exit 2).
    #[serde(rename = "not_judged")]
    NotJudged,
}

/// One checked rule (or, for per-op rules, one op).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleResult {
    /// The rule, as reports name it (`step time`, `op time`, `count`, `fail on added`, …).
    pub rule: String,
    /// What it is about: `step time`, an op name, a pattern.
    pub subject: String,
    /// The unit of `baseline`/`candidate`/`noise`: `ns`, `share`, `count` or `names`.
    pub unit: &'static str,
    /// The baseline's value (a median per step for timings and counts).
    pub baseline: f64,
    /// The candidate's value.
    pub candidate: f64,
    /// Where the rule judged beyond a run-wide shift (`beyond_run_shift`): the baseline's
    /// value scaled by the shift's factor, what the candidate was expected to take had only the
    /// machine changed; `relative_change` and `noise` are then about it. `None` otherwise.
    pub expected: Option<f64>,
    /// (candidate − baseline) / baseline, or (candidate − expected) / expected where `expected`
    /// is given; `None` where it means nothing (names matched, the number of ops that failed a
    /// per-op rule, a baseline of 0).
    pub relative_change: Option<f64>,
    /// The threshold, a number: a fraction where `threshold_on` is `relative_change` (`0.05`
    /// for `5%`), a count per step where it is `increase`, `0` for `matches`. A rule fails
    /// where that value exceeds it (and, for a timing, the noise band). On the line summing up a
    /// per-op rule, each op's threshold.
    pub threshold: f64,
    /// What the threshold bounds: `relative_change`, `increase` (candidate − baseline, in
    /// `unit`) or `matches` (names matched: none may).
    pub threshold_on: &'static str,
    /// The threshold as tables show it (`> 5.0%`, `> +2 per step`, `none may match`).
    pub threshold_text: String,
    /// The noise band, in `unit`; `None` without enough samples.
    pub noise: Option<f64>,
    /// Pass or fail.
    pub verdict: Verdict,
    /// Why, in words, when there is more to say.
    pub note: String,
}

/// An op's share in a step-time change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contributor {
    /// The op's row key.
    pub name: String,
    /// Its median time per step in the baseline, in ns.
    pub baseline_ns: f64,
    /// In the candidate, in ns.
    pub candidate_ns: f64,
    /// `candidate_ns − baseline_ns`.
    pub diff_ns: f64,
}

/// One side of a gate: what was judged and its step times.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideSummary {
    /// `baseline` or `candidate`.
    pub label: String,
    /// The path given for it.
    pub path: String,
    /// The ranks judged.
    pub ranks: Vec<i64>,
    /// The ProfilerSteps judged.
    pub iterations: Vec<i64>,
    /// Number of (rank, step) samples.
    pub samples: usize,
    /// The median step time, in ns.
    pub step_median_ns: f64,
    /// The shortest step, in ns.
    pub step_min_ns: f64,
    /// The longest step, in ns.
    pub step_max_ns: f64,
    /// Scaled MAD of the step times.
    pub step_mad_ns: f64,
    /// The steps of each run where the side is several runs (each run one sample); empty for
    /// one run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<usize>,
}

/// What a gate found: the verdict, each rule's result and what moved the step time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateReport {
    /// Fail when any rule failed.
    pub verdict: Verdict,
    /// The noise multiplier used.
    pub noise_k: f64,
    /// Whether ops were judged by their share of the step time.
    pub relative: bool,
    /// How the noise was estimated, or why it could not be (too few samples).
    pub noise_note: String,
    /// The baseline's side.
    pub baseline: SideSummary,
    /// The candidate's side.
    pub candidate: SideSummary,
    /// Every rule checked (per-op rules: one result per op judged).
    pub rules: Vec<RuleResult>,
    /// Ops that account for the step-time change, largest increase first.
    pub top_contributors: Vec<Contributor>,
    /// The run-wide shift of the pair (docs/significance.md#a-run-wide-shift), never applied:
    /// the rules judge the change itself, a machine's shift included.
    pub run_shift: crate::analysis::measure::noise::RunShift,
    /// What the shift means for the verdict, where one was found (the command line prints it).
    pub run_shift_note: Option<String>,
    /// Why the failing ops changed, where `explain` could say (a failed gate on one run a
    /// side): one line per op, failing rules first, then the top contributors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<GateCause>,
}

/// Why ops the gate flagged changed: `explain`'s line for one operator.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateCause {
    /// The ops and kernels the gate flagged that this operator explains: the operator itself,
    /// or kernels it launched; in the gate's order.
    pub names: Vec<String>,
    /// The operator `explain` explains.
    pub op: String,
    /// The operator's explanation in one line (calls, work and efficiency, what changed).
    pub line: String,
}

pub(super) fn summary(label: &str, side: &SummarySide, resolved: &Resolved, s: &Samples) -> SideSummary {
    let steps: Vec<f64> = s.step_ns.iter().map(|&x| x as f64).collect();
    SideSummary {
        label: label.to_string(),
        path: side.input.display().to_string(),
        ranks: resolved.ranks.clone(),
        iterations: resolved.iterations.clone().unwrap_or_default(),
        samples: steps.len(),
        step_median_ns: median(&steps),
        step_min_ns: steps.iter().copied().fold(f64::INFINITY, f64::min),
        step_max_ns: steps.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        step_mad_ns: scaled_mad(&steps),
        runs: Vec::new(),
    }
}

pub(super) fn pct(r: f64) -> String {
    format!("{:.1}%", r * 100.0)
}

pub(super) fn ops(n: usize) -> &'static str {
    crate::analysis::diff::plural(n, "op", "ops")
}

/// The line that sums up a per-op rule: how many ops failed it.
/// `threshold`: each op's (value, what it bounds, text).
pub(super) fn per_op_summary(
    rule: &str,
    subject: String,
    failed: usize,
    threshold: (f64, &'static str, String),
    note: String,
) -> RuleResult {
    RuleResult {
        rule: rule.to_string(),
        subject,
        unit: "count",
        baseline: 0.0,
        candidate: failed as f64,
        expected: None,
        relative_change: None,
        threshold: threshold.0,
        threshold_on: threshold.1,
        threshold_text: threshold.2,
        noise: None,
        verdict: if failed == 0 { Verdict::Pass } else { Verdict::Fail },
        note,
    }
}

/// A count limit as a number and what it bounds: the increase per step, or the relative change.
pub(super) fn limit_value(l: CountLimit) -> (f64, &'static str) {
    match l {
        CountLimit::Absolute(n) => (n, "increase"),
        CountLimit::Ratio(r) => (r, "relative_change"),
    }
}

pub(super) fn limit_text(l: CountLimit) -> String {
    match l {
        CountLimit::Absolute(n) => format!("> +{n} per step"),
        CountLimit::Ratio(r) => format!("> {}", pct(r)),
    }
}

/// A timing rule's line. `ch`: the change and the unscaled baseline's median, from
/// [`change_beyond`] with `scale`.
pub(super) fn timing_result(
    rule: &str,
    subject: &str,
    unit: &'static str,
    (ch, raw_baseline): (Change, f64),
    threshold: f64,
    note: &str,
    scale: Scale,
) -> RuleResult {
    let verdict = if ch.regressed(threshold) {
        Verdict::Fail
    } else {
        Verdict::Pass
    };
    let mut note = note.to_string();
    if verdict == Verdict::Pass && ch.relative > threshold {
        note = "above the threshold but within run-to-run noise".to_string();
    }
    if ch.noise.is_none() && note.is_empty() {
        note = "single sample: no noise estimate".to_string();
    }
    if let Some((shift, place)) = scale {
        let beyond = if place == super::change::PAIR_ROWS {
            format!(
                "one run per side: judged beyond this pair's common move (the median row ×{:.2}, rows scattering ×{:.2} \
                 about it over {} rows): {} expected",
                shift.factor,
                shift.spread.exp(),
                shift.rows,
                value_text(ch.baseline, unit)
            )
        } else {
            format!(
                "judged beyond the run-wide shift on {place} (×{:.2}): {} expected",
                shift.factor,
                value_text(ch.baseline, unit)
            )
        };
        note = if note.is_empty() {
            beyond
        } else {
            format!("{beyond}; {note}")
        };
    }
    RuleResult {
        rule: rule.to_string(),
        subject: subject.to_string(),
        unit,
        baseline: if scale.is_some() { raw_baseline } else { ch.baseline },
        candidate: ch.candidate,
        expected: scale.map(|_| ch.baseline),
        relative_change: ch.relative.is_finite().then_some(ch.relative),
        threshold,
        threshold_on: "relative_change",
        threshold_text: format!("> {}", pct(threshold)),
        noise: ch.noise,
        verdict,
        note,
    }
}

/// A timing value as notes show it: a duration, or a share of the step.
pub(super) fn value_text(v: f64, unit: &str) -> String {
    if unit == "share" {
        pct(v)
    } else {
        crate::text::fmt_duration(v.round() as i64, false)
    }
}
