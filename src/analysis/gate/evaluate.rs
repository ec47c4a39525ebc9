//! Every rule judged on the two sides' per-step samples: the step and GPU-busy times, each op's
//! time and count, the names only one side has, and what moved the step time.

use super::change::{Beyond, Change, Scale, change_beyond};
use super::report::{
    Contributor, GateReport, RuleResult, Verdict, limit_text, limit_value, ops, pct, per_op_summary, summary,
    timing_result,
};
use super::rules::{CountLimit, Rules};
use crate::analysis::measure::noise::{Shift, mean, median};
use crate::analysis::measure::per_step::{Samples, StepValues};
use crate::analysis::select::Resolved;
use crate::input::load::SummarySide;

/// Evaluates every rule.
/// `beyond`: the run-wide shift the timing rules judge beyond (empty: absolutely).
pub(crate) fn evaluate(
    rules: &Rules,
    (base_side, base_res, base): (&SummarySide, &Resolved, &Samples),
    (cand_side, cand_res, cand): (&SummarySide, &Resolved, &Samples),
    beyond: &Beyond,
) -> GateReport {
    let k = rules.noise_k;
    let f = |v: &[i64]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let (b_steps, c_steps) = (f(&base.step_ns), f(&cand.step_ns));
    let pair = Pair {
        rules,
        base,
        cand,
        b_steps: &b_steps,
        c_steps: &c_steps,
        // Rows smaller than this share of the baseline's step on both sides are not judged by
        // time or count: their jitter is large next to their size and they cannot move the
        // step much.
        share_floor_ns: rules.min_op_share * mean(&b_steps),
    };
    let mut results = pair.step_rules(beyond);
    if let Some(t) = rules.max_op_regression {
        results.extend(pair.op_time_rule(t, beyond));
    }
    results.extend(pair.name_rules());
    if let Some(limit) = rules.max_count_increase {
        results.extend(pair.count_rule(limit));
    }
    let verdict = if results.iter().any(|r| r.verdict == Verdict::Fail) {
        Verdict::Fail
    } else {
        Verdict::Pass
    };
    GateReport {
        verdict,
        noise_k: k,
        relative: rules.relative,
        noise_note: noise_note(k, b_steps.len(), c_steps.len()),
        baseline: summary("baseline", base_side, base_res, base),
        candidate: summary("candidate", cand_side, cand_res, cand),
        rules: results,
        top_contributors: top_contributors(base, cand),
        run_shift: Default::default(),
        run_shift_note: None,
        causes: Vec::new(),
    }
}

/// The two sides a gate judges, with the rules and what every per-op rule needs.
struct Pair<'a> {
    rules: &'a Rules,
    base: &'a Samples,
    cand: &'a Samples,
    /// The step times of each sample, in ns.
    b_steps: &'a [f64],
    c_steps: &'a [f64],
    /// Rows under this time per step on both sides are not judged by time or count.
    share_floor_ns: f64,
}

impl Pair<'_> {
    /// The step-time and GPU-busy rules, those the rules hold.
    fn step_rules(&self, beyond: &Beyond) -> Vec<RuleResult> {
        let rules = self.rules;
        let of = if rules.history {
            "median of runs"
        } else if rules.between_runs {
            "mean of runs"
        } else {
            "median of steps"
        };
        let f = |v: &[i64]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
        let mut results = Vec::new();
        if let Some(t) = rules.max_step_time_regression {
            let scale = beyond.step();
            let ch = self.change(
                self.b_steps,
                self.c_steps,
                (scale, false),
                crate::analysis::measure::replicates::FDR,
            );
            let mut r = timing_result("step time", of, "ns", ch, t, "", scale);
            if ch.1 == 0.0 || ch.0.candidate == 0.0 {
                super::judged::nothing_to_judge(
                    &mut r,
                    "no step time: the steps have no duration (steps marked by something other than a ProfilerStep span)",
                );
            }
            results.push(r);
        }
        if let Some(t) = rules.max_gpu_busy_regression {
            let scale = beyond.gpu_busy();
            let (b, c) = (f(&self.base.gpu_busy_ns), f(&self.cand.gpu_busy_ns));
            let ch = self.change(&b, &c, (scale, false), crate::analysis::measure::replicates::FDR);
            let mut r = timing_result("gpu busy time", of, "ns", ch, t, "", scale);
            if ch.0.candidate == 0.0 && ch.1 == 0.0 {
                super::judged::nothing_to_judge(&mut r, "no device events on either side");
            }
            results.push(r);
        }
        results
    }

    /// How `base` and `cand` compare: beyond `k` × the steps' MAD (and a shift, `scale.0`;
    /// `scale.1`: whether a row's scatter around it applies), or between runs, beyond Welch's
    /// band at level `alpha` ([`super::between`]).
    fn change(&self, base: &[f64], cand: &[f64], scale: (Scale, bool), alpha: f64) -> (Change, f64) {
        if self.rules.history {
            super::predict::change_against_history(base, cand, alpha)
        } else if self.rules.between_runs {
            super::between::change_between_runs(base, cand, alpha)
        } else {
            change_beyond(base, cand, self.rules.noise_k, scale, alpha)
        }
    }

    /// Between runs, the level each op is judged at: Benjamini–Hochberg's over the ops the
    /// time rule checks ([`super::between::family_alpha`]); unused otherwise.
    fn op_alpha(&self, beyond: &Beyond) -> f64 {
        if !self.rules.between_runs && !self.rules.history {
            // One run per side, beyond the pair's host rows: Benjamini–Hochberg over the ops
            // judged beyond them, as `compare` marks its rows.
            let Some(s) = beyond.rows.as_ref() else {
                return crate::analysis::measure::replicates::FDR;
            };
            let family: Vec<(Vec<f64>, Vec<f64>)> = self
                .checked_ops(beyond)
                .into_iter()
                .filter(|(_, _, _, scale)| scale.is_some_and(|(_, place)| place == super::change::PAIR_ROWS))
                .map(|(name, ..)| (per_step_abs(self.base, name), per_step_abs(self.cand, name)))
                .collect();
            return super::one_run::family_alpha(s, &family, self.share_floor_ns);
        }
        let p: Vec<Option<f64>> = self
            .checked_ops(beyond)
            .into_iter()
            .map(|(_, b, c, _)| match self.rules.history {
                true => super::predict::p_value(&b, crate::analysis::measure::noise::mean(&c)),
                false => crate::analysis::measure::replicates::welch_p(&b, &c),
            })
            .collect();
        super::between::family_alpha(&p)
    }

    /// The ops the time rule checks: on both sides, above the share floor, and changed by at
    /// least `min_op_time`; each with its per-step values (or shares) and the shift it is
    /// judged beyond.
    fn checked_ops(&self, beyond: &Beyond) -> Vec<(&str, Vec<f64>, Vec<f64>, Scale)> {
        let (rules, base, cand) = (self.rules, self.base, self.cand);
        let mut checked = Vec::new();
        for name in base.ops.keys().filter(|n| cand.ops.contains_key(*n)) {
            if self.small(name) {
                continue;
            }
            let scale = beyond.op(name);
            // As a share of the step, the op's factor over the step's.
            let share_scale = match (scale, beyond.step()) {
                (Some((op, place)), Some((step, _))) if rules.relative => Some((
                    Shift {
                        factor: op.factor / step.factor,
                        ..op
                    },
                    place,
                )),
                _ => scale,
            };
            // The floor is on absolute per-step time, whatever the mode.
            let abs = self
                .change(
                    &per_step_abs(base, name),
                    &per_step_abs(cand, name),
                    (scale, false),
                    1.0,
                )
                .0;
            if (abs.candidate - abs.baseline) < rules.min_op_time_ns as f64 {
                continue;
            }
            let (b, c) = (
                self.per_step(base, name, self.b_steps),
                self.per_step(cand, name, self.c_steps),
            );
            checked.push((name.as_str(), b, c, share_scale));
        }
        checked
    }

    /// Row `name`'s time in each sample of `s`: ns, or a share of the step (`steps`) where
    /// the rules judge relatively.
    fn per_step(&self, s: &Samples, name: &str, steps: &[f64]) -> Vec<f64> {
        s.op(name)
            .iter()
            .zip(steps)
            .map(|(&(_, d), &st)| {
                if self.rules.relative {
                    if st > 0.0 { d as f64 / st } else { 0.0 }
                } else {
                    d as f64
                }
            })
            .collect()
    }

    /// How many rows the op rules could judge: on both sides, above the share floor.
    fn eligible(&self) -> usize {
        let (base, cand) = (self.base, self.cand);
        base.ops
            .keys()
            .filter(|n| cand.ops.contains_key(*n) && !self.small(n))
            .count()
    }

    /// Whether row `name` stays under the share floor on both sides.
    fn small(&self, name: &str) -> bool {
        let (b, c) = (
            median(&per_step_abs(self.base, name)),
            median(&per_step_abs(self.cand, name)),
        );
        b.max(c) < self.share_floor_ns
    }

    /// The per-op time rule with threshold `t`: its summing line, then each op that failed it,
    /// largest increase first.
    fn op_time_rule(&self, t: f64, beyond: &Beyond) -> Vec<RuleResult> {
        let rules = self.rules;
        let alpha = self.op_alpha(beyond);
        let ops_checked = self.checked_ops(beyond);
        let checked = ops_checked.len();
        let mut failed = Vec::new();
        for (name, b, c, share_scale) in ops_checked {
            let ch = self.change(&b, &c, (share_scale, true), alpha);
            if ch.0.regressed(t) {
                let unit = if rules.relative { "share" } else { "ns" };
                failed.push(timing_result("op time", name, unit, ch, t, "", share_scale));
            }
        }
        sort_by_increase(&mut failed);
        // The floor on a change only where one is set: "changed by at least 0 ns" says nothing.
        let changed_by = match rules.min_op_time_ns {
            0 => String::new(),
            ns => format!(", changed by at least {}", crate::text::fmt_duration(ns, false)),
        };
        let summary_note = format!(
            "{checked} {} checked: at least {} per step ({} of the baseline's mean step){changed_by}{}",
            ops(checked),
            crate::text::fmt_duration(self.share_floor_ns.round() as i64, false),
            pct(rules.min_op_share),
            if rules.relative {
                ", as shares of step time (--relative)"
            } else {
                ""
            }
        );
        let mut summary = per_op_summary(
            "op time",
            format!("{} of {checked} {} regressed", failed.len(), ops(checked)),
            failed.len(),
            (t, "relative_change", format!("> {}", pct(t))),
            summary_note,
        );
        if self.eligible() == 0 {
            let why = format!(
                "no op or kernel ran on both sides with at least {} per step",
                crate::text::fmt_duration(self.share_floor_ns.round() as i64, false)
            );
            super::judged::nothing_to_judge(&mut summary, &why);
        }
        let mut results = vec![summary];
        results.extend(failed);
        results
    }

    /// The `fail on added` and `fail on deleted` rules, those the rules hold: the names only one
    /// side ran that match the pattern.
    fn name_rules(&self) -> Vec<RuleResult> {
        let (base, cand) = (self.base, self.cand);
        let added: Vec<&String> = cand
            .ops
            .iter()
            .filter(|(n, v)| v.present() && !base.ops.get(*n).is_some_and(StepValues::present))
            .map(|(n, _)| n)
            .collect();
        let deleted: Vec<&String> = base
            .ops
            .iter()
            .filter(|(n, v)| v.present() && !cand.ops.get(*n).is_some_and(StepValues::present))
            .map(|(n, _)| n)
            .collect();
        let mut results = Vec::new();
        for (rule, pattern, names) in [
            ("added", &self.rules.fail_on_added, &added),
            ("deleted", &self.rules.fail_on_deleted, &deleted),
        ] {
            let Some(re) = pattern else { continue };
            let hits: Vec<&String> = names.iter().copied().filter(|n| re.is_match(n)).collect();
            results.push(RuleResult {
                rule: format!("fail on {rule}"),
                subject: re.as_str().to_string(),
                unit: "names",
                baseline: 0.0,
                candidate: hits.len() as f64,
                expected: None,
                relative_change: None,
                threshold: 0.0,
                threshold_on: "matches",
                threshold_text: "none may match".into(),
                noise: None,
                verdict: if hits.is_empty() { Verdict::Pass } else { Verdict::Fail },
                note: hits.iter().take(5).map(|s| s.as_str()).collect::<Vec<_>>().join("; "),
            });
        }
        results
    }

    /// The per-op count rule with `limit`: its summing line, then each op that ran more often
    /// than it allows, largest increase first.
    fn count_rule(&self, limit: CountLimit) -> Vec<RuleResult> {
        let (base, cand) = (self.base, self.cand);
        let mut worst: Vec<RuleResult> = Vec::new();
        let mut checked = 0usize;
        for (name, b) in &base.ops {
            let Some(c) = cand.ops.get(name) else { continue };
            let counts = |v: &StepValues, n: usize| v.dense(n).iter().map(|&(n, _)| n as f64).collect::<Vec<_>>();
            let (bm, cm) = (median(&counts(b, base.keys.len())), median(&counts(c, cand.keys.len())));
            if bm == 0.0 || self.small(name) {
                continue;
            }
            checked += 1;
            let over = match limit {
                CountLimit::Absolute(n) => cm - bm > n,
                CountLimit::Ratio(r) => (cm - bm) / bm > r,
            };
            if over {
                worst.push(RuleResult {
                    rule: "count".into(),
                    subject: name.clone(),
                    unit: "count",
                    baseline: bm,
                    candidate: cm,
                    expected: None,
                    relative_change: Some((cm - bm) / bm),
                    threshold: limit_value(limit).0,
                    threshold_on: limit_value(limit).1,
                    threshold_text: limit_text(limit),
                    noise: None,
                    verdict: Verdict::Fail,
                    note: "median events per step".into(),
                });
            }
        }
        sort_by_increase(&mut worst);
        let mut summary = per_op_summary(
            "count",
            format!("{} of {checked} {} ran more often", worst.len(), ops(checked)),
            worst.len(),
            (limit_value(limit).0, limit_value(limit).1, limit_text(limit)),
            format!(
                "median events per step, ops present on both sides with at least {} of the baseline's mean step",
                pct(self.rules.min_op_share)
            ),
        );
        if checked == 0 {
            super::judged::nothing_to_judge(&mut summary, "no op or kernel ran on both sides above the share floor");
        }
        let mut results = vec![summary];
        results.extend(worst);
        results
    }
}

/// Largest increase (candidate − baseline) first, ties by subject.
fn sort_by_increase(results: &mut [RuleResult]) {
    results.sort_by(|a, b| {
        (b.candidate - b.baseline)
            .total_cmp(&(a.candidate - a.baseline))
            .then_with(|| a.subject.cmp(&b.subject))
    });
}

/// The ten ops whose median time per step grew most, ProfilerSteps left out.
fn top_contributors(base: &Samples, cand: &Samples) -> Vec<Contributor> {
    let mut contributors: Vec<Contributor> = base
        .ops
        .keys()
        .chain(cand.ops.keys().filter(|n| !base.ops.contains_key(*n)))
        .filter(|n| !n.starts_with("ProfilerStep"))
        .map(|n| {
            let b = median(&per_step_abs(base, n));
            let c = median(&per_step_abs(cand, n));
            Contributor {
                name: n.clone(),
                baseline_ns: b,
                candidate_ns: c,
                diff_ns: c - b,
            }
        })
        .filter(|c| c.diff_ns > 0.0)
        .collect();
    contributors.sort_by(|a, b| b.diff_ns.total_cmp(&a.diff_ns).then_with(|| a.name.cmp(&b.name)));
    contributors.truncate(10);
    contributors
}

/// How the noise was estimated (`k`, the samples per side), or why it could not be.
fn noise_note(k: f64, base_samples: usize, cand_samples: usize) -> String {
    if base_samples < 2 || cand_samples < 2 {
        "one step per side: no noise estimate was possible, thresholds alone decide".to_string()
    } else {
        format!(
            "a timing rule fails only when the change of medians exceeds its threshold and the noise band: {k} × the pooled scaled MAD of the per-step samples' logarithms (scatter grows with the level), never wider than either side's whole range ({base_samples} baseline, {cand_samples} candidate samples)"
        )
    }
}

fn per_step_abs(s: &Samples, name: &str) -> Vec<f64> {
    s.durations(name)
}
