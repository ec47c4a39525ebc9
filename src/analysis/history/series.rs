//! Each run of a history reduced to one sample: its step time, GPU busy time and each row's
//! count and time per step over the run's ranks and steps, times as trimmed means (what a gate
//! against the history judges and `history show` draws; docs/history.md#the-gate).

use crate::analysis::aggregate::{Keying, Naming};
use crate::analysis::gate::{GateConfig, measure};
use crate::analysis::measure::per_step::{Samples, StepValues};
use crate::analysis::select::{Device, Resolved, SideSelection};
use crate::error::Result;
use crate::input::load::SummarySide;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// How a run is measured: its rows' keys, the events judged and the ranks and steps.
#[derive(Debug, Clone)]
pub(crate) struct Measuring {
    /// How rows are keyed (the gate's: names normalised, Python frames never judged).
    pub keying: Keying,
    /// The events the per-row rules judge.
    pub device: Device,
    /// The ranks and steps of each run.
    pub selection: SideSelection,
}

impl Measuring {
    /// As the gate measures under `config`, over `selection`.
    pub(crate) fn of_gate(config: &GateConfig, selection: &SideSelection) -> Measuring {
        Measuring {
            keying: Keying {
                naming: if config.short_names.unwrap_or(false) {
                    Naming::ShortName
                } else {
                    Naming::Name
                },
                normalize: config.normalize_names.unwrap_or(true),
                group_by: Vec::new(),
                skip_python_frames: true,
                gpu_annotations_apart: true,
            },
            device: config.device.unwrap_or_default(),
            selection: selection.clone(),
        }
    }
}

/// One run as one sample: typical values per step over its (rank, step) samples.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RunSample {
    /// The (rank, step) samples it is made of.
    pub steps: usize,
    /// The step time, ns.
    pub step_ns: i64,
    /// The GPU's busy time, ns.
    pub gpu_busy_ns: i64,
    /// Each row's (events, ns) per step, rounded, where it ran.
    pub rows: BTreeMap<String, (u64, i64)>,
}

/// The share of samples [`trimmed_mean`] drops at each end.
pub(crate) const TRIM: f64 = 0.2;

/// The mean of `values` without the `⌊TRIM · n⌋` smallest and largest (all of them under 5
/// values). One step of a run whose thread was taken off the CPU inside a small op (4 ms of a
/// scheduler's time slice in a 50 µs op, seen on a shared CI machine) makes that op's plain mean
/// over 8 steps ten times its usual value; trimmed, the step is left out.
pub(crate) fn trimmed_mean(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let k = (values.len() as f64 * TRIM).floor() as usize;
    let kept = &values[k..values.len() - k];
    kept.iter().sum::<f64>() / kept.len() as f64
}

/// `samples` as one sample: the step and GPU busy times their [`trimmed_mean`] over the
/// samples; each row's count its mean per step, its time the trimmed mean over the samples
/// where it ran times the share of samples where it ran (a row of every other step keeps half
/// its time per step). Under 5 samples every value is the plain mean per step.
pub(crate) fn reduce(samples: &Samples) -> RunSample {
    let n = samples.keys.len().max(1) as f64;
    let typical = |v: &[i64]| trimmed_mean(&mut v.iter().map(|&x| x as f64).collect::<Vec<_>>()).round() as i64;
    let mut rows = BTreeMap::new();
    for (name, values) in &samples.ops {
        let dense = values.dense(samples.keys.len());
        let count = dense.iter().map(|x| x.0 as f64).sum::<f64>() / n;
        let mut ran: Vec<f64> = dense
            .iter()
            .filter(|x| x.0 > 0 || x.1 != 0)
            .map(|x| x.1 as f64)
            .collect();
        let share = ran.len() as f64 / n;
        let ns = trimmed_mean(&mut ran) * share;
        if count > 0.0 || ns != 0.0 {
            rows.insert(name.clone(), (count.round() as u64, ns.round() as i64));
        }
    }
    RunSample {
        steps: samples.keys.len(),
        step_ns: typical(&samples.step_ns),
        gpu_busy_ns: typical(&samples.gpu_busy_ns),
        rows,
    }
}

/// Runs as the samples of one side, one sample per run in the order given (what the gate's
/// rules judge: sample `i` is run `i`).
pub(crate) fn as_samples(runs: &[&RunSample]) -> Samples {
    let mut out = Samples::default();
    for (i, run) in runs.iter().enumerate() {
        out.keys.push((i as i64, 0));
        out.step_ns.push(run.step_ns);
        out.gpu_busy_ns.push(run.gpu_busy_ns);
        let slot = u32::try_from(i).unwrap_or(u32::MAX);
        for (name, &(count, ns)) in &run.rows {
            out.ops
                .entry(name.clone())
                .or_insert_with(StepValues::default)
                .add(slot, count, ns);
        }
    }
    out
}

/// A run loaded and measured: its side (for what the report says of it), its selection and
/// its samples.
pub(crate) struct MeasuredRun {
    /// The run as loaded.
    pub side: SummarySide,
    /// Its ranks and steps.
    pub resolved: Resolved,
    /// Its per-step samples.
    pub samples: Samples,
}

/// Loads the run at `path` (traces or summaries; `label` names it in messages) and measures it.
pub(crate) fn measure_run(path: &Path, label: &str, how: &Measuring) -> Result<MeasuredRun> {
    let (side, resolved) = crate::analysis::load::runs::load_summary_run(path, label, &how.selection, None)?;
    let samples = measure(&side, &resolved, how.device, &how.keying, true)?;
    Ok(MeasuredRun {
        side,
        resolved,
        samples,
    })
}

/// Each of `dirs` (runs of a store, labelled as given) measured and reduced, side by side on
/// the pool's threads, in the order given: a run that cannot be read gives its error, which
/// the caller names and skips. Only one run's summaries per thread are held at a time.
pub(crate) fn reduce_runs(dirs: &[(&Path, &str)], how: &Measuring) -> Vec<Result<RunSample>> {
    dirs.par_iter()
        .map(|(dir, label)| measure_run(dir, label, how).map(|run| reduce(&run.samples)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_its_means_per_step() {
        let mut s = Samples {
            keys: vec![(0, 1), (0, 2)],
            step_ns: vec![100, 300],
            gpu_busy_ns: vec![0, 10],
            ops: BTreeMap::new(),
        };
        let mut v = StepValues::default();
        v.add(1, 3, 60);
        s.ops.insert("aten::mm".into(), v);
        let r = reduce(&s);
        assert_eq!((r.steps, r.step_ns, r.gpu_busy_ns), (2, 200, 5));
        assert_eq!(r.rows["aten::mm"], (2, 30));
        let packed = as_samples(&[&r, &r]);
        assert_eq!(packed.step_ns, vec![200, 200]);
        assert_eq!(packed.durations("aten::mm"), vec![30.0, 30.0]);
    }

    #[test]
    fn one_preempted_step_of_eight_is_left_out_and_a_row_of_some_steps_keeps_its_share() {
        let keys: Vec<(i64, i64)> = (1..=8).map(|i| (0, i)).collect();
        let mut s = Samples {
            keys,
            step_ns: vec![1000, 1010, 990, 1000, 5000, 1005, 995, 1000],
            gpu_busy_ns: vec![0; 8],
            ops: BTreeMap::new(),
        };
        let mut small = StepValues::default();
        let mut every_other = StepValues::default();
        for slot in 0..8u32 {
            small.add(slot, 1, if slot == 4 { 4050 } else { 50 });
            if slot % 2 == 0 {
                every_other.add(slot, 1, 100);
            }
        }
        s.ops.insert("aten::log_softmax".into(), small);
        s.ops.insert("optimizer.step".into(), every_other);
        let r = reduce(&s);
        assert_eq!(r.rows["aten::log_softmax"], (1, 50));
        assert_eq!(r.rows["optimizer.step"], (1, 50));
        assert_eq!(r.step_ns, 1002);
        let mut v = vec![3.0, 1.0, 2.0];
        assert_eq!(trimmed_mean(&mut v), 2.0);
        assert_eq!(trimmed_mean(&mut []), 0.0);
    }
}
