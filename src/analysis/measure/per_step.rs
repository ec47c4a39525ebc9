//! The per-step measure of a side: each row's count and time in every (rank, ProfilerStep)
//! sample, with the step's duration and GPU-busy time. The gate judges these samples;
//! `compare` and the run-wide shift detector measure with them too.

use crate::analysis::aggregate::Keying;
use crate::analysis::select::{Device, Resolved};
use crate::error::{Error, Result};
use crate::input::load::SummarySide;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

/// Whether events of this category are judged by the per-op rules: operators, kernels,
/// copies and sets, user annotations, and other device work. Python frames (the call stack
/// around the operations: nested frames count the same time many times) and runtime calls
/// (`cudaLaunchKernel`: the launch cost of the kernels, judged through them) are not.
pub(crate) fn judged_category(cat: &str, place: crate::model::place::Place) -> bool {
    matches!(
        cat,
        "cpu_op"
            | "Operator"
            | "user_annotation"
            | "kernel"
            | "Kernel"
            | "gpu_memcpy"
            | "gpu_memset"
            | "Memcpy"
            | "Memset"
            | "gpu_user_annotation"
    ) || (place == crate::model::place::Place::Device && cat != crate::analysis::aggregate::PYTHON_FRAME_CATEGORY)
}

/// Names never judged per op: the steps themselves (the step-time rule judges them).
fn judged_name(name: &str) -> bool {
    !name.starts_with("ProfilerStep")
}

/// Per-step measurements of one side: one sample per (rank, step).
#[derive(Debug, Clone, Default)]
pub(crate) struct Samples {
    /// (rank, step) of each sample.
    pub keys: Vec<(i64, i64)>,
    /// The step's duration per sample, in ns.
    pub step_ns: Vec<i64>,
    /// Time during which at least one device event ran, per sample.
    pub gpu_busy_ns: Vec<i64>,
    /// Per row key: (count, total ns) in the samples where it ran.
    pub ops: BTreeMap<String, StepValues>,
}

/// A row's (count, total ns) in the samples where it ran, sorted by sample, zero elsewhere.
/// Sparse, so that memory follows the summary's rows and not rows × samples: a name that runs
/// in one step of 8,000 (`ProfilerStep#N` under `--raw-names`) holds one entry, not 8,000.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct StepValues {
    /// (sample index, count, total ns), sorted by sample index, each index once.
    entries: Vec<(u32, u64, i64)>,
}

impl StepValues {
    /// Adds `count` events of `ns` to sample `slot` (entries stay sorted when slots come in
    /// order, as [`measure`] adds them; out of order they are merged at [`Self::finish`]).
    pub(crate) fn add(&mut self, slot: u32, count: u64, ns: i64) {
        match self.entries.last_mut() {
            Some(last) if last.0 == slot => {
                last.1 += count;
                last.2 += ns;
            }
            _ => self.entries.push((slot, count, ns)),
        }
    }

    /// Sorts by sample and merges the entries of one sample.
    fn finish(&mut self) {
        if self.entries.is_sorted_by_key(|e| e.0) && self.entries.windows(2).all(|w| w[0].0 != w[1].0) {
            return;
        }
        self.entries.sort_by_key(|e| e.0);
        let mut merged: Vec<(u32, u64, i64)> = Vec::with_capacity(self.entries.len());
        for e in self.entries.drain(..) {
            match merged.last_mut() {
                Some(last) if last.0 == e.0 => {
                    last.1 += e.1;
                    last.2 += e.2;
                }
                _ => merged.push(e),
            }
        }
        self.entries = merged;
    }

    /// (count, total ns) in each of `n` samples.
    pub(crate) fn dense(&self, n: usize) -> Vec<(u64, i64)> {
        let mut v = vec![(0, 0); n];
        for &(slot, count, ns) in &self.entries {
            if let Some(x) = v.get_mut(slot as usize) {
                *x = (count, ns);
            }
        }
        v
    }

    /// Whether any sample holds an event.
    pub(crate) fn present(&self) -> bool {
        self.entries.iter().any(|e| e.1 > 0)
    }
}

impl Samples {
    /// Row `name`'s (count, total ns) in each sample; zeros when it never ran.
    pub(crate) fn op(&self, name: &str) -> Vec<(u64, i64)> {
        self.ops
            .get(name)
            .map_or_else(|| vec![(0, 0); self.keys.len()], |v| v.dense(self.keys.len()))
    }

    /// Row `name`'s total ns in each sample, as floats.
    pub(crate) fn durations(&self, name: &str) -> Vec<f64> {
        self.op(name).into_iter().map(|(_, d)| d as f64).collect()
    }
}

/// Measures the selected ranks and steps of a side, from each file's summary.
/// `judged_only`: only the rows the gate judges ([`judged_category`], not ProfilerStep), else every
/// row the keying admits (a table's rows). Memory follows the summaries' rows (see
/// [`StepValues`]), whatever the number of steps.
pub(crate) fn measure(
    side: &SummarySide,
    resolved: &Resolved,
    device: Device,
    keying: &Keying,
    judged_only: bool,
) -> Result<Samples> {
    measure_times(side, resolved, (device, keying, judged_only), Times::Total)
}

/// The row keys of device events (kernels, copies, sets, GPU annotations) on either side, keyed
/// and admitted as [`measure`] keys and admits them: the rows a device shift applies to and a
/// host shift never does.
pub(crate) fn device_row_keys(
    sides: [(&SummarySide, &Resolved); 2],
    keying: &Keying,
    judged_only: bool,
) -> Result<BTreeSet<String>> {
    let mut keys = BTreeSet::new();
    for (side, resolved) in sides {
        keys.extend(
            measure(side, resolved, Device::Gpu, keying, judged_only)?
                .ops
                .into_keys(),
        );
    }
    Ok(keys)
}

/// Which time of a summary row [`measure_times`] sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Times {
    /// Its total (inclusive) time.
    Total,
    /// Its own time ([`crate::model::summary::OpRow::self_ns`]: host self time, device
    /// duration), GPU annotation spans left out (they cover kernels' time again), as the
    /// run-wide shift looks at them.
    Own,
}

/// [`measure`], summing the rows' `times`: read from the summaries as they are, so that
/// looking at own times copies no summary (16 ranks a side hold many).
pub(crate) fn measure_times(
    side: &SummarySide,
    resolved: &Resolved,
    (device, keying, judged_only): (Device, &Keying, bool),
    times: Times,
) -> Result<Samples> {
    let Some(iterations) = &resolved.iterations else {
        return Err(Error::input(
            &side.input,
            "the gate measures per ProfilerStep, and these traces have none",
        ));
    };
    let mut s = Samples::default();
    let slot_of: FxHashMap<i64, usize> = iterations.iter().enumerate().map(|(k, &it)| (it, k)).collect();
    // Each name's row key, made once for the side (a thousand ranks run the same names, and
    // normalising one runs regexes).
    let mut keys: FxHashMap<(&str, bool), String> = FxHashMap::default();
    for &rank in &resolved.ranks {
        let Some(file) = side.file_of_rank(rank) else { continue };
        let base = s.keys.len();
        let sample_of: FxHashMap<i64, &crate::model::summary::IterationSample> =
            file.meta.iterations.iter().map(|x| (x.iteration, x)).rev().collect();
        for &it in iterations {
            // The first sample of an iteration, as a search in file order finds it.
            let sample = sample_of.get(&it).copied();
            s.keys.push((rank, it));
            s.step_ns.push(sample.map_or(0, |x| x.step_ns));
            s.gpu_busy_ns.push(sample.map_or(0, |x| x.gpu_busy_ns));
        }
        // Per name id of this file, its samples; names are keyed once, at the end.
        let per_name = file_values(file, (&slot_of, base), (device, keying, judged_only), times);
        let mut ids: Vec<((u32, bool), StepValues)> = per_name.into_iter().collect();
        ids.sort_unstable_by_key(|(id, _)| *id);
        for ((id, apart), per) in ids {
            let name = file.text(id);
            let key = keys.entry((name, apart)).or_insert_with(|| keying.row_key(name, apart));
            if !s.ops.contains_key(key.as_str()) {
                s.ops.insert(key.clone(), StepValues::default());
            }
            let Some(all) = s.ops.get_mut(key.as_str()) else {
                continue;
            };
            for (slot, count, ns) in per.entries {
                all.add(slot, count, ns);
            }
        }
    }
    for v in s.ops.values_mut() {
        v.finish();
    }
    Ok(s)
}

/// One file's values per (name id, GPU annotation or not), each step's in slot `base + k` of
/// the side's samples (`slot_of`: iteration → k).
fn file_values(
    file: &crate::model::summary::FileSummary,
    (slot_of, base): (&FxHashMap<i64, usize>, usize),
    (device, keying, judged_only): (Device, &Keying, bool),
    times: Times,
) -> FxHashMap<(u32, bool), StepValues> {
    let gpu_annotation = file
        .strings
        .iter()
        .position(|s| **s == *crate::analysis::aggregate::GPU_ANNOTATION_CATEGORY);
    let mut per_name: FxHashMap<(u32, bool), StepValues> = FxHashMap::default();
    for r in &file.rows {
        let Some(&k) = slot_of.get(&r.iteration) else {
            continue;
        };
        if !device.admits(r.place) {
            continue;
        }
        let cat = file.text(r.category);
        let admitted = if judged_only {
            judged_category(cat, r.place) && judged_name(file.text(r.name))
        } else {
            !(keying.skip_python_frames && cat == crate::analysis::aggregate::PYTHON_FRAME_CATEGORY)
        };
        if !admitted {
            continue;
        }
        let ns = match times {
            Times::Total => r.total_ns,
            Times::Own if r.place == crate::model::place::Place::Annotation => continue,
            Times::Own => r.self_ns,
        };
        let slot = u32::try_from(base + k).unwrap_or(u32::MAX);
        let apart = gpu_annotation == Some(r.category as usize);
        per_name.entry((r.name, apart)).or_default().add(slot, r.count, ns);
    }
    per_name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_values_are_sparse_and_merge_out_of_order_slots() {
        let mut v = StepValues::default();
        v.add(5, 1, 10);
        v.add(5, 2, 20);
        v.add(1, 1, 7);
        v.add(5, 1, 1);
        v.finish();
        assert_eq!(v.entries, vec![(1, 1, 7), (5, 4, 31)]);
        assert_eq!(v.dense(6), vec![(0, 0), (1, 7), (0, 0), (0, 0), (0, 0), (4, 31)]);
        assert!(v.present());
        assert!(!StepValues::default().present());
        let s = Samples {
            keys: vec![(0, 1), (0, 2)],
            ..Samples::default()
        };
        assert_eq!(s.durations("absent"), vec![0.0, 0.0]);
    }
}
