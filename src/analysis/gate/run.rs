//! The gate on a pair of sides, loaded from their paths (docs/significance.md#the-gates-rules):
//! the rules of [`crate::analysis::gate`], and the run-wide shift looked for as `compare` looks
//! (kept apart from the rules' module, which judges measured rows and reads no file).

use crate::analysis::aggregate::Keying;
use crate::analysis::compare::run_shift_of;
use crate::analysis::gate::{Beyond, GateConfig, GateReport, Rules, device_row_keys, evaluate, measure};
use crate::analysis::load::runs::SideRuns;
use crate::analysis::measure::per_step::Samples;
use crate::analysis::measure::replicates::MIN_RUNS;
use crate::analysis::measure::shift::gate_shift_note;
use crate::analysis::select::{Device, Resolved, SideSelection};
use crate::error::{Error, Result};
use crate::input::load::SummarySide;
use crate::request::CompareRequest;
use crate::request::side::PerSide;
use crate::request::side::SidePaths;
use std::path::Path;

/// The gate on a pair of sides, as the command line and the Python package run it: loads both
/// sides into summaries with `sel`, keys rows as the rules say (names normalised unless they
/// say otherwise; Python frames never judged), measures the judged rows and evaluates `config`.
/// Returns the report and the notes of loading.
pub(crate) fn gate_pair(
    config: &GateConfig,
    baseline: &SidePaths,
    candidate: &SidePaths,
    sel: &crate::analysis::select::SideSelection,
) -> Result<(GateReport, Vec<String>)> {
    let rules = Rules::from_config(config)?;
    let runs = [baseline, candidate].iter().any(|p| SideRuns::of(p).is_set);
    let keying = Keying {
        naming: if config.short_names.unwrap_or(false) {
            crate::analysis::aggregate::Naming::ShortName
        } else {
            crate::analysis::aggregate::Naming::Name
        },
        normalize: config.normalize_names.unwrap_or(true),
        group_by: Vec::new(),
        skip_python_frames: true,
        gpu_annotations_apart: true,
    };
    if runs {
        let device = config.device.unwrap_or_default();
        return gate_runs(config, rules, (device, &keying), baseline, candidate, sel);
    }
    let (baseline, candidate) = (baseline.single("gate")?, candidate.single("gate")?);
    let (base, cand) = crate::analysis::summaries::summarize::load_summary_pair(baseline, candidate, (sel, sel))?;
    if !config.allow_missing_ranks.unwrap_or(false) {
        super::ranks::refuse_missing_ranks(&base, "baseline", &cand)?;
        super::ranks::refuse_missing_ranks(&cand, "candidate", &base)?;
    }
    let mut notes = crate::input::load::pair_notes(&base, &cand);
    let base_res = crate::analysis::select::resolve(&base, "baseline", sel)?;
    let cand_res = crate::analysis::select::resolve(&cand, "candidate", sel)?;
    notes.extend(crate::request::defaults::rank_sets_warning(
        ["baseline", "candidate"],
        [&base_res.ranks, &cand_res.ranks],
        [base.ranks().len(), cand.ranks().len()],
    ));
    let sides: [(&SummarySide, &Resolved); 2] = [(&base, &base_res), (&cand, &cand_res)];
    let (device, samples) = judged_samples(config.device, sides, &keying)?;
    let [base_samples, cand_samples] = &samples;
    // Looked for as `compare` looks, over host and device whatever `device` judges (a step
    // holds both): a user whose gate fails on a slower machine learns why, and the timing rules
    // judge beyond it unless `beyond_run_shift = false` (`--no-run-shift`).
    let mut req = CompareRequest::new(baseline, candidate).operations();
    (req.control_selection, req.test_selection) = (sel.clone(), sel.clone());
    req.device = crate::analysis::select::Device::All;
    req.naming = keying.naming;
    req.normalize_names = keying.normalize;
    req.labels = ["baseline".to_string(), "candidate".to_string()];
    req.beyond_shift = rules.beyond_run_shift;
    let mut run_shift = run_shift_of(&req, PerSide::new(&base, &cand), PerSide::new(&base_res, &cand_res))?.0;
    // The timing rules scale by the host's and the device's factors alone.
    crate::analysis::measure::threads::not_per_thread(&mut run_shift);
    let beyond = if rules.beyond_run_shift {
        beyond_of(&run_shift, sides, &keying, [base_samples, cand_samples])?
    } else {
        Beyond::default()
    };
    let mut report = evaluate(
        &rules,
        (&base, &base_res, base_samples),
        (&cand, &cand_res, cand_samples),
        &beyond,
    );
    report.run_shift = run_shift;
    report.run_shift_note = gate_shift_note(&report.run_shift, PerSide::new("baseline", "candidate"));
    let no_device_events = samples.iter().all(|s| s.gpu_busy_ns.iter().all(|&b| b == 0));
    super::judged::refuse_nothing_judged(&mut report, (device, no_device_events), candidate)?;
    notes.extend(super::judged::one_run_notes(device, config.device.is_none(), &report));
    Ok((report, notes))
}

/// The samples the op and count rules judge, and which events they are: `given`, or by default
/// the device's work where both sides have some (kernels, copies, sets: the host time of
/// operators scatters between two processes of one program far more than their kernels'),
/// else every event.
fn judged_samples(
    given: Option<Device>,
    sides: [(&SummarySide, &Resolved); 2],
    keying: &Keying,
) -> Result<(Device, [Samples; 2])> {
    let measure_both = |device| -> Result<[Samples; 2]> {
        Ok([
            measure(sides[0].0, sides[0].1, device, keying, true)?,
            measure(sides[1].0, sides[1].1, device, keying, true)?,
        ])
    };
    let all = measure_both(given.unwrap_or(Device::All))?;
    let on_device = |s: &Samples| s.gpu_busy_ns.iter().any(|&b| b > 0);
    if given.is_none() && all.iter().all(on_device) {
        return Ok((Device::Gpu, measure_both(Device::Gpu)?));
    }
    Ok((given.unwrap_or(Device::All), all))
}

/// What the timing rules judge beyond with one run per side: the run-wide shift where one was
/// found, else the common move of the pair's rows for the step
/// (docs/significance.md#the-gate-with-one-run-per-side) and of the judged host rows for each
/// host op; device rows take the device's shift or none.
fn beyond_of(
    run_shift: &crate::analysis::measure::noise::RunShift,
    sides: [(&SummarySide, &Resolved); 2],
    keying: &Keying,
    judged: [&Samples; 2],
) -> Result<Beyond> {
    let on_device = device_row_keys(sides, keying, true)?;
    let floor = crate::analysis::measure::noise::MIN_STEP_SHARE * mean_step(judged[0]);
    let host_only = |s: &Samples| Samples {
        ops: s
            .ops
            .iter()
            .filter(|(n, _)| !on_device.contains(*n))
            .map(|(n, v)| (n.clone(), v.clone()))
            .collect(),
        ..s.clone()
    };
    let rows = match run_shift.host {
        Some(_) => None,
        None => {
            crate::analysis::measure::one_run::scatter_of_samples(&host_only(judged[0]), &host_only(judged[1]), floor)
        }
    };
    let pair = match run_shift.host.is_some() {
        true => None,
        false => pair_scatter([sides[0].0, sides[1].0], [sides[0].1, sides[1].1], keying)?,
    };
    // The device's work holds still between two processes of one program (the H100 pairs'
    // GPU busy time ±0.1%): a device that moved as a whole is named by the note, and judged
    // against no change, so that a uniformly slower GPU or every kernel twice as slow fails.
    Ok(Beyond {
        host: run_shift.host,
        device: None,
        on_device,
        pair,
        rows,
    })
}

fn mean_step(s: &Samples) -> f64 {
    let steps: Vec<f64> = s.step_ns.iter().map(|&n| n as f64).collect();
    crate::analysis::measure::noise::mean(&steps)
}

/// One run per side where no run-wide shift was found: how far the pair's rows moved apart
/// (docs/significance.md#the-gate-with-one-run-per-side), over the rows `compare` shows (every
/// place, ProfilerSteps included, frames left out) that ran as often per step on both sides
/// with at least 1% of the baseline's mean step; `None` with fewer than
/// [`crate::analysis::measure::one_run::MIN_ROWS`] such rows.
fn pair_scatter(
    sides: [&SummarySide; 2],
    resolved: [&Resolved; 2],
    keying: &Keying,
) -> Result<Option<crate::analysis::measure::one_run::Scatter>> {
    let base = measure(sides[0], resolved[0], Device::All, keying, false)?;
    let cand = measure(sides[1], resolved[1], Device::All, keying, false)?;
    let steps: Vec<f64> = base.step_ns.iter().map(|&n| n as f64).collect();
    let floor = crate::analysis::measure::noise::MIN_STEP_SHARE * crate::analysis::measure::noise::mean(&steps);
    Ok(crate::analysis::measure::one_run::scatter_of_samples(
        &base, &cand, floor,
    ))
}

// The gate where a side is a directory of runs (docs/significance.md#the-gate-with-runs): each
// run is measured alone and gives one sample per subject (its mean per step), and the rules
// judge the band between runs (`analysis::gate`'s `between` part).

/// One run of a side: loaded, selected and measured.
struct Run {
    side: SummarySide,
    resolved: Resolved,
    samples: Samples,
}

fn load_run(
    path: &Path,
    label: &str,
    sel: &SideSelection,
    device: Device,
    keying: &Keying,
) -> Result<(Run, Vec<String>)> {
    let (side, resolved) = crate::analysis::load::runs::load_summary_run(path, label, sel, None)?;
    let samples = measure(&side, &resolved, device, keying, true)?;
    let notes = side.notes.clone();
    Ok((
        Run {
            side,
            resolved,
            samples,
        },
        notes,
    ))
}

/// Every run of the side given as `given` ([`SideRuns::of`]: a directory of runs, runs given
/// one by one, else one run), refused with fewer than [`MIN_RUNS`].
fn load_side(
    given: &SidePaths,
    label: &str,
    sel: &SideSelection,
    (device, keying, allow_missing): (Device, &Keying, bool),
) -> Result<(Vec<Run>, Vec<String>)> {
    let paths = SideRuns::of(given).runs;
    if paths.len() < MIN_RUNS {
        return Err(Error::input(
            &given.paths()[0],
            format!(
                "the gate between runs needs {MIN_RUNS} or more runs per side and the {label} has {}: give a directory of runs (run1/ … runN/) for each side, or each side's run itself to judge its steps",
                paths.len()
            ),
        ));
    }
    let mut runs = Vec::with_capacity(paths.len());
    let mut notes = Vec::new();
    for p in &paths {
        let (run, found) = load_run(p, label, sel, device, keying)?;
        if !allow_missing {
            super::ranks::refuse_missing_ranks(&run.side, label, &run.side)?;
        }
        notes.extend(found);
        runs.push(run);
    }
    Ok((runs, notes))
}

/// One sample per run: each run's mean per step of every measure (counts to the nearest
/// whole event).
fn per_run(runs: &[Run]) -> Samples {
    let mut out = Samples::default();
    let mean_i = |v: &[i64]| {
        let f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
        crate::analysis::measure::noise::mean(&f).round() as i64
    };
    for (r, run) in runs.iter().enumerate() {
        let s = &run.samples;
        out.keys.push((r as i64, 0));
        out.step_ns.push(mean_i(&s.step_ns));
        out.gpu_busy_ns.push(mean_i(&s.gpu_busy_ns));
        let n = s.keys.len().max(1) as f64;
        for (name, values) in &s.ops {
            let dense = values.dense(s.keys.len());
            let count = dense.iter().map(|x| x.0 as f64).sum::<f64>() / n;
            let ns = dense.iter().map(|x| x.1 as f64).sum::<f64>() / n;
            if count > 0.0 || ns != 0.0 {
                let slot = u32::try_from(r).unwrap_or(u32::MAX);
                out.ops
                    .entry(name.clone())
                    .or_default()
                    .add(slot, count.round() as u64, ns.round() as i64);
            }
        }
    }
    out
}

/// The gate on two sides of which one is a directory of runs, judged between runs.
fn gate_runs(
    config: &GateConfig,
    rules: Rules,
    (device, keying): (Device, &Keying),
    baseline: &SidePaths,
    candidate: &SidePaths,
    sel: &SideSelection,
) -> Result<(GateReport, Vec<String>)> {
    let allow = config.allow_missing_ranks.unwrap_or(false);
    let (base, mut notes) = load_side(baseline, "baseline", sel, (device, keying, allow))?;
    let (cand, found) = load_side(candidate, "candidate", sel, (device, keying, allow))?;
    notes.extend(found);
    let rules = Rules {
        between_runs: true,
        ..rules
    };
    let (b, c) = (per_run(&base), per_run(&cand));
    let mut report = evaluate(
        &rules,
        (&base[0].side, &base[0].resolved, &b),
        (&cand[0].side, &cand[0].resolved, &c),
        &Beyond::default(),
    );
    for (summary, path, runs) in [
        (&mut report.baseline, baseline, &base),
        (&mut report.candidate, candidate, &cand),
    ] {
        summary.path = path.shown();
        summary.runs = runs.iter().map(|r| r.samples.keys.len()).collect();
    }
    report.noise_note = format!(
        "between runs: a timing rule fails only when the change of the means over runs exceeds its threshold and the band of Welch's t test at 5% between the runs' per-step means (ops: Benjamini–Hochberg over the ops checked), the noise column's ±; {} baseline, {} candidate runs",
        base.len(),
        cand.len()
    );
    Ok((report, notes))
}
