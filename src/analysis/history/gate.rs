//! The gate of one candidate run against a history (docs/history.md#the-gate): the baseline is
//! the store's runs since the step time's last change point (at most `window`), each run one
//! sample; every rule of the pair gate is judged, each timing against the history's prediction
//! band for one new run ([`crate::analysis::gate::predict`]). With fewer than `min_history`
//! runs there the pair gate judges the candidate against the latest run, and says so.

use super::changes::change_points;
use super::series::{Measuring, as_samples, measure_run, reduce};
use super::show::load_all;
use super::store::{RunEntry, StoredRun, open};
use crate::analysis::gate::predict::MIN_HISTORY_RUNS;
use crate::analysis::gate::{Beyond, GateConfig, GateReport, Rules, Verdict, evaluate};
use crate::analysis::select::SideSelection;
use crate::error::{Error, Result};
use crate::request::side::SidePaths;
use std::path::PathBuf;

/// The default `--window`: the most runs a baseline holds.
pub const DEFAULT_WINDOW: usize = 20;
/// The default `--min-history`: with fewer runs the pair gate judges against the latest run.
pub const DEFAULT_MIN_HISTORY: usize = 5;

/// Which runs of a store a gate judges against.
#[derive(Debug, Clone)]
pub struct HistoryOptions {
    /// The store.
    pub store: PathBuf,
    /// The most runs of the baseline (the latest ones since the last change point).
    pub window: usize,
    /// The fewest runs to judge against; `None`: [`DEFAULT_MIN_HISTORY`], and a smaller
    /// store falls back to the pair rule. Given, a store smaller than it is refused.
    pub min_history: Option<usize>,
    /// Only the runs of this branch.
    pub branch: Option<String>,
}

impl HistoryOptions {
    /// The options for `store` with the defaults.
    pub fn new(store: impl Into<PathBuf>) -> HistoryOptions {
        HistoryOptions {
            store: store.into(),
            window: DEFAULT_WINDOW,
            min_history: None,
            branch: None,
        }
    }

    fn check(&self) -> Result<usize> {
        if self.window == 0 {
            return Err(Error::usage("--window 0: the baseline needs at least one run"));
        }
        let min = self.min_history.unwrap_or(DEFAULT_MIN_HISTORY);
        if min < MIN_HISTORY_RUNS {
            return Err(Error::usage(format!(
                "--min-history {min}: a band needs at least {MIN_HISTORY_RUNS} runs"
            )));
        }
        if self.min_history.is_some() && min > self.window {
            return Err(Error::usage(format!(
                "--min-history {min} is above --window {}: no baseline could ever be judged",
                self.window
            )));
        }
        Ok(min)
    }
}

/// The gate of `candidate` against the history of `opts`, by the rules of `config` over
/// `sel`. Returns the report and the notes (runs skipped, the fallback).
pub(crate) fn gate_history(
    config: &GateConfig,
    opts: &HistoryOptions,
    candidate: &SidePaths,
    sel: &SideSelection,
) -> Result<(GateReport, Vec<String>)> {
    let rules = Rules::from_config(config)?;
    let min = opts.check()?;
    let candidate = candidate.single("gate --history")?;
    let store = open(&opts.store)?;
    let how = Measuring::of_gate(config, sel);
    let (stored, samples, mut notes) = load_all(&store, opts.branch.as_deref(), &how)?;
    let runs: Vec<&RunEntry> = stored.iter().map(|r| &r.entry).collect();
    notes.splice(0..0, store.notes.iter().cloned());
    if let Some(given) = opts.min_history
        && given > runs.len()
    {
        return Err(Error::input(
            &opts.store,
            format!(
                "--min-history {given} is above the {} readable runs the history holds{}",
                runs.len(),
                opts.branch
                    .as_ref()
                    .map_or(String::new(), |b| format!(" on branch '{b}'"))
            ),
        ));
    }
    let steps: Vec<f64> = samples.iter().map(|s| s.step_ns as f64).collect();
    let since = change_points(&steps).last().map_or(0, |c| c.index);
    let start = since.max(runs.len().saturating_sub(opts.window));
    let (base_runs, base_samples) = (&runs[start..], &samples[start..]);
    if base_runs.len() < min {
        return fallback(config, (&stored, start, since, min), candidate, sel, notes);
    }
    let cand = measure_run(candidate, "candidate", &how)?;
    if !config.allow_missing_ranks.unwrap_or(false)
        && let Some(first) = cand.side.missing_ranks.first()
    {
        return Err(Error::input(
            candidate,
            format!(
                "the candidate lacks rank {first} of its job: give every rank's file, or --allow-missing-ranks to gate it anyway"
            ),
        ));
    }
    let cand_sample = reduce(&cand.samples);
    refuse_another_program(candidate, &cand_sample, base_samples)?;
    let base = as_samples(&base_samples.iter().collect::<Vec<_>>());
    let cand_one = as_samples(&[&cand_sample]);
    let rules = Rules { history: true, ..rules };
    let mut report = evaluate(
        &rules,
        (&cand.side, &cand.resolved, &base),
        (&cand.side, &cand.resolved, &cand_one),
        &Beyond::default(),
    );
    describe(&mut report, (&opts.store, base_runs), (since > 0).then(|| runs[since]));
    report.baseline.runs = base_samples.iter().map(|s| s.steps).collect();
    report.candidate.path = candidate.display().to_string();
    Ok((report, notes))
}

/// A candidate of another program is refused: one whose rows the history never saw, or that
/// spends less than a tenth of its rows' time in rows the history has (a real change of a
/// program keeps more: the unfused program of a fused pair kept 44%).
fn refuse_another_program(
    candidate: &std::path::Path,
    cand: &super::series::RunSample,
    history: &[super::series::RunSample],
) -> Result<()> {
    let seen = |name: &String| history.iter().any(|s| s.rows.contains_key(name));
    let total: f64 = cand.rows.values().map(|r| r.1.max(0) as f64).sum();
    let shared: f64 = cand
        .rows
        .iter()
        .filter(|(n, _)| seen(n))
        .map(|(_, r)| r.1.max(0) as f64)
        .sum();
    if cand.rows.keys().all(|n| !seen(n)) {
        return Err(Error::input(
            candidate,
            "the candidate shares no row with the history: another program? (a history holds runs of one program)",
        ));
    }
    if total > 0.0 && shared / total < 0.1 {
        return Err(Error::input(
            candidate,
            format!(
                "only {:.0}% of the candidate's time is in rows the history has: another program? (a history holds runs of one program)",
                100.0 * shared / total
            ),
        ));
    }
    Ok(())
}

/// `first–last` of labels.
fn span(runs: &[&RunEntry]) -> String {
    match (runs.first(), runs.last()) {
        (Some(a), Some(b)) if a.seq != b.seq => format!("{}–{}", a.label, b.label),
        (Some(a), _) => a.label.clone(),
        _ => String::new(),
    }
}

/// The report's words for a gate against `base` of the store: the baseline named as the
/// history, the band explained, and each failed timing's history median and band.
fn describe(report: &mut GateReport, (store, base): (&std::path::Path, &[&RunEntry]), change: Option<&RunEntry>) {
    let since = change.map_or(String::new(), |c| {
        format!(" since its last change point (run {}, seq {})", c.label, c.seq)
    });
    let judged = format!("judged against {} runs ({})", base.len(), span(base));
    report.baseline.label = "history".to_string();
    report.baseline.path = format!("{} ({})", store.display(), span(base));
    report.noise_note = format!(
        "{judged} of the history {}{since}: a timing rule fails only when the candidate is past its threshold and above \
         the band, the history's prediction interval for one new run at 5% (median of the runs' logs + t(n−1) × 1.4826 × MAD × √(1 + π/2n); \
         ops: Benjamini–Hochberg over the ops checked); the baseline column is the history's median",
        store.display()
    );
    for rule in &mut report.rules {
        if rule.verdict != Verdict::Fail || rule.unit != "ns" {
            continue;
        }
        if let Some(noise) = rule.noise {
            let words = format!(
                "history: median {}, band up to {}",
                crate::text::fmt_duration(rule.baseline.round() as i64, false),
                crate::text::fmt_duration((rule.baseline + noise).round() as i64, false)
            );
            rule.note = if rule.note.is_empty() {
                words
            } else {
                format!("{words}; {}", rule.note)
            };
        }
    }
}

/// Too few runs since the last change point: the pair gate against the latest run, with a note.
fn fallback(
    config: &GateConfig,
    (runs, start, since, min): (&[&StoredRun], usize, usize, usize),
    candidate: &std::path::Path,
    sel: &SideSelection,
    mut notes: Vec<String>,
) -> Result<(GateReport, Vec<String>)> {
    let Some(latest) = runs.last() else {
        return Err(Error::usage("the history holds no run"));
    };
    let since_words = if since > 0 {
        format!(" since its last change point (run {})", runs[since].entry.label)
    } else {
        String::new()
    };
    notes.push(format!(
        "history: {} run{}{since_words}, fewer than --min-history {min}: judged by the pair rule against the latest run ({}), \
         which cannot tell a rerun's noise from a change",
        runs.len() - start,
        if runs.len() - start == 1 { "" } else { "s" },
        latest.entry.label
    ));
    let dir = latest.dir.clone();
    let (report, found) =
        crate::analysis::gate::run::gate_pair(config, &SidePaths::Path(dir), &SidePaths::Path(candidate.into()), sel)?;
    notes.extend(found);
    Ok((report, notes))
}
