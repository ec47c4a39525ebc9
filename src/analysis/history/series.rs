//! Each run of a history reduced to one sample: its step time, GPU busy time and each row's
//! count and time, as means per step over the run's ranks and steps (what a gate against the
//! history judges and `history show` draws).

use crate::analysis::aggregate::{Keying, Naming};
use crate::analysis::gate::{GateConfig, measure};
use crate::analysis::load::select::{Device, Resolved, SideSelection};
use crate::analysis::measure::per_step::{Samples, StepValues};
use crate::error::Result;
use crate::input::load::SummarySide;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// How a run is measured: its rows' keys, the events judged and the ranks and steps.
#[derive(Debug, Clone)]
pub struct Measuring {
    /// How rows are keyed (the gate's: names normalised, Python frames never judged).
    pub keying: Keying,
    /// The events the per-row rules judge.
    pub device: Device,
    /// The ranks and steps of each run.
    pub selection: SideSelection,
}

impl Measuring {
    /// As the gate measures under `config`, over `selection`.
    pub fn of_gate(config: &GateConfig, selection: &SideSelection) -> Measuring {
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

/// One run as one sample: means per step over its (rank, step) samples.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSample {
    /// The (rank, step) samples it is the mean of.
    pub steps: usize,
    /// The step time, ns.
    pub step_ns: i64,
    /// The GPU's busy time, ns.
    pub gpu_busy_ns: i64,
    /// Each row's (events, ns) per step, rounded, where it ran.
    pub rows: BTreeMap<String, (u64, i64)>,
}

/// `samples` as one sample of means per step.
pub fn reduce(samples: &Samples) -> RunSample {
    let n = samples.keys.len().max(1) as f64;
    let mean = |v: &[i64]| (v.iter().map(|&x| x as f64).sum::<f64>() / n).round() as i64;
    let mut rows = BTreeMap::new();
    for (name, values) in &samples.ops {
        let dense = values.dense(samples.keys.len());
        let count = dense.iter().map(|x| x.0 as f64).sum::<f64>() / n;
        let ns = dense.iter().map(|x| x.1 as f64).sum::<f64>() / n;
        if count > 0.0 || ns != 0.0 {
            rows.insert(name.clone(), (count.round() as u64, ns.round() as i64));
        }
    }
    RunSample {
        steps: samples.keys.len(),
        step_ns: mean(&samples.step_ns),
        gpu_busy_ns: mean(&samples.gpu_busy_ns),
        rows,
    }
}

/// Runs as the samples of one side, one sample per run in the order given (what the gate's
/// rules judge: sample `i` is run `i`).
pub fn as_samples(runs: &[&RunSample]) -> Samples {
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
pub struct MeasuredRun {
    /// The run as loaded.
    pub side: SummarySide,
    /// Its ranks and steps.
    pub resolved: Resolved,
    /// Its per-step samples.
    pub samples: Samples,
}

/// Loads the run at `path` (traces or summaries; `label` names it in messages) and measures it.
pub fn measure_run(path: &Path, label: &str, how: &Measuring) -> Result<MeasuredRun> {
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
pub fn reduce_runs(dirs: &[(&Path, &str)], how: &Measuring) -> Vec<Result<RunSample>> {
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
}
