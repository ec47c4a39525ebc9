//! The overview (design §4.3): one row per side — steps, ranks, mean step time, GPU busy time
//! per step and utilisation, host busy time per step, allocated memory, the device — then Δ.
//!
//! - Windows: per selected rank, the selected host `ProfilerStep`s (a `gpu_user_annotation`
//!   step of the same number is ignored). A file without ProfilerStep has one window: the span
//!   of its kept events, and the side has no steps (and no mean step time).
//! - GPU busy: the union of device work intervals (kernels, copies, sets; not
//!   `gpu_user_annotation`) clipped to the windows, per window; utilisation = busy ÷ window time.
//! - Host busy: the same union over operator (`cpu_op`/`Operator`) intervals on any thread
//!   (absent without operators).
//! - Absent values (no GPU, no memory events) are `None`, never 0.

use super::Loaded;
use super::memory::{Levels, WindowStats, device_type_name};
use crate::analysis::compare::{CompareRequest, check_labels};
use crate::analysis::select::{Resolved, resolve};
use crate::analysis::summary::{load_summary_pair, summarize};
use crate::error::{Error, Result};
use crate::input::load::{Side, SummarySide, pair_notes};
use crate::model::store::TraceFile;
use crate::model::summary::{FileSummary, MemoryStats, Window};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One side of the overview. Times are nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideOverview {
    pub label: String,
    pub path: String,
    pub ranks: usize,
    /// Selected step numbers; `None` when the side has no ProfilerStep.
    pub steps: Option<usize>,
    /// (rank, step) windows measured (one per file without steps).
    pub windows: usize,
    pub mean_step_time_ns: Option<i64>,
    pub gpu_busy_per_step_ns: Option<i64>,
    /// GPU busy ÷ window time, 0–1.
    pub gpu_utilization: Option<f64>,
    pub host_busy_per_step_ns: Option<i64>,
    pub peak_allocated_bytes: Option<i64>,
    pub avg_allocated_bytes: Option<i64>,
    /// The device whose memory is reported (`cuda:0`, `cpu:0`): the largest peak.
    pub memory_device: Option<String>,
    pub device_name: Option<String>,
    pub device_memory_bytes: Option<u64>,
    /// Why the device was named as it was, when the trace does not say it plainly.
    #[serde(skip)]
    pub device_note: Option<String>,
}

/// The overview of a loaded pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overview {
    pub control: SideOverview,
    pub test: SideOverview,
}

impl Overview {
    /// What the caller should tell the user (stderr notes), side by side.
    pub fn notes(&self) -> Vec<String> {
        [&self.control, &self.test]
            .iter()
            .filter_map(|s| s.device_note.as_ref().map(|n| format!("{}: {n}", s.label)))
            .collect()
    }
}

/// The overview of a loaded pair (each selected file summarised, as `overview` over traces).
pub fn overview(loaded: &Loaded, labels: &[String; 2]) -> Overview {
    let summaries = |side: &Side| SummarySide {
        input: side.input.clone(),
        present: side.present.clone(),
        files: side.files.par_iter().map(|f| Arc::new(summarize(f, &f.path))).collect(),
        notes: side.notes.clone(),
    };
    let (c, t) = rayon::join(|| summaries(&loaded.control), || summaries(&loaded.test));
    overview_of([&c, &t], &loaded.resolved, labels)
}

/// Loads both sides of `req` as summaries (traces, summary files, or both) and gives their
/// overview, with the notes the loading produced.
pub fn overview_request(req: &CompareRequest) -> Result<(Overview, Vec<String>)> {
    check_labels(&req.labels)?;
    if !req.group_by.is_empty() || !req.arg_specs.is_empty() {
        return Err(Error::usage(
            "overview keys rows by name: --group-by and --arg-spec are for compare",
        ));
    }
    let (control, test) = load_summary_pair(&req.control, &req.test, (&req.control_selection, &req.test_selection))?;
    let notes = pair_notes(&control, &test);
    let resolved = [
        resolve(&control, &req.labels[0], &req.control_selection)?,
        resolve(&test, &req.labels[1], &req.test_selection)?,
    ];
    Ok((overview_of([&control, &test], &resolved, &req.labels), notes))
}

/// The overview of two sides' summaries.
pub fn overview_of(sides: [&SummarySide; 2], resolved: &[Resolved; 2], labels: &[String; 2]) -> Overview {
    let side = |k: usize| side_overview(sides[k], &resolved[k], &labels[k]);
    Overview {
        control: side(0),
        test: side(1),
    }
}

/// Per selected file, the windows it measures: its selected steps, or its span.
fn selected_windows<'a>(file: &'a FileSummary, iterations: Option<&[i64]>) -> Vec<&'a Window> {
    match iterations {
        Some(its) => file
            .meta
            .windows
            .iter()
            .filter(|w| w.step.is_some_and(|n| its.contains(&n)))
            .collect(),
        None => file.meta.span.iter().collect(),
    }
}

fn side_overview(side: &SummarySide, resolved: &Resolved, label: &str) -> SideOverview {
    let files: Vec<&FileSummary> = resolved.ranks.iter().filter_map(|&r| side.file_of_rank(r)).collect();
    let iterations = resolved.iterations.as_deref();
    let selected: Vec<Vec<&Window>> = files.iter().map(|f| selected_windows(f, iterations)).collect();
    let windows: usize = selected.iter().map(Vec::len).sum();
    let window_ns: i64 = selected.iter().flatten().map(|w| w.end_ns - w.start_ns).sum();
    let busy = |has: &dyn Fn(&FileSummary) -> bool, of: &dyn Fn(&Window) -> i64| -> Option<i64> {
        files
            .iter()
            .zip(&selected)
            .filter(|(f, _)| has(f))
            .map(|(_, w)| w.iter().map(|w| of(w)).sum::<i64>())
            .reduce(|a, b| a + b)
    };
    let gpu_busy = busy(&|f| f.meta.has_gpu, &|w| w.gpu_busy_ns);
    let host_busy = busy(&|f| f.meta.has_ops, &|w| w.host_busy_ns);
    let per_window = |ns: i64| (windows > 0).then(|| ns / windows as i64);
    let info = crate::analysis::compare::side_info(side, label, resolved.clone());
    let memory = memory(&files, &selected);
    SideOverview {
        label: label.to_string(),
        path: info.path,
        ranks: resolved.ranks.len(),
        steps: iterations.map(<[i64]>::len),
        windows,
        mean_step_time_ns: iterations.and_then(|_| per_window(window_ns)),
        gpu_busy_per_step_ns: gpu_busy.and_then(per_window),
        gpu_utilization: gpu_busy.and_then(|b| (window_ns > 0).then(|| b as f64 / window_ns as f64)),
        host_busy_per_step_ns: host_busy.and_then(per_window),
        peak_allocated_bytes: memory.peak,
        avg_allocated_bytes: memory.avg,
        memory_device: memory.device,
        device_name: memory.device_name,
        device_memory_bytes: memory.device_memory,
        device_note: memory.device_note,
    }
}

/// Allocated memory and the device, from the `[memory]` instants and `deviceProperties`.
#[derive(Debug, Clone, Default)]
struct Memory {
    peak: Option<i64>,
    avg: Option<i64>,
    device: Option<String>,
    device_name: Option<String>,
    device_memory: Option<u64>,
    device_note: Option<String>,
}

/// Per (device type, device id) of one file: its allocation levels, in time order.
pub(crate) fn levels_of(file: &TraceFile) -> BTreeMap<(i32, i32), Levels> {
    let m = &file.memory;
    let mut rows: Vec<usize> = (0..m.ts_ns.len()).filter(|&k| m.total_allocated[k].is_some()).collect();
    rows.sort_by_key(|&k| (m.device_type[k], m.device_id[k], m.ts_ns[k], k));
    let mut out: BTreeMap<(i32, i32), Levels> = BTreeMap::new();
    for k in rows {
        let total = m.total_allocated[k].unwrap_or(0);
        let l = out.entry((m.device_type[k], m.device_id[k])).or_insert_with(|| Levels {
            initial: total - m.bytes[k],
            events: Vec::new(),
        });
        l.events.push((m.ts_ns[k], total));
    }
    out
}

fn memory(files: &[&FileSummary], windows: &[Vec<&Window>]) -> Memory {
    let mut best: Option<((i32, i32), MemoryStats)> = None;
    for (file, w) in files.iter().zip(windows) {
        for (d, &device) in file.meta.memory_devices.iter().enumerate() {
            let stats = w.iter().fold(None, |acc, w| {
                MemoryStats::merge(acc, w.memory.get(d).copied().flatten())
            });
            if let Some(s) = stats
                && best.is_none_or(|(_, b)| s.peak > b.peak)
            {
                best = Some((device, s));
            }
        }
    }
    let (name, total, note) = files
        .iter()
        .find(|f| f.meta.device_name.is_some())
        .map_or((None, None, None), |f| {
            (
                f.meta.device_name.clone(),
                f.meta.device_memory_bytes,
                f.meta.device_note.clone(),
            )
        });
    let average = |s: MemoryStats| {
        WindowStats {
            peak: s.peak,
            integral: s.integral,
            length: s.length,
        }
        .average()
    };
    Memory {
        peak: best.map(|(_, s)| s.peak),
        avg: best.and_then(|(_, s)| average(s)),
        device: best.map(|((t, id), _)| format!("{}:{id}", device_type_name(i64::from(t)))),
        device_name: name,
        device_memory: total,
        device_note: note,
    }
}

/// The name and memory of the device the kernels ran on (the most used `args.device` of the
/// first file that has one), from `deviceProperties`. A trace that describes one device while its
/// events name another id (the MI300 trace of `../shared/traces/tracelens_bert_small` describes
/// device 0 and runs its kernels on device 2) is taken to mean the one it describes, with a note.
pub(crate) fn device_properties(files: &[&TraceFile]) -> (Option<String>, Option<u64>, Option<String>) {
    for f in files {
        let used = f
            .device_use
            .iter()
            .max_by_key(|(id, n)| (*n, std::cmp::Reverse(*id)))
            .map(|(id, _)| *id);
        let only = (f.devices.len() == 1).then(|| &f.devices[0]);
        let (props, note) = match used {
            Some(id) => match f.devices.iter().find(|d| d.id == id) {
                Some(d) => (Some(d), None),
                None => (
                    only,
                    only.map(|d| {
                        format!(
                            "the device events name device {id}, which deviceProperties does not describe; \
                             naming it after the one device described ({}: {})",
                            d.id, d.name
                        )
                    }),
                ),
            },
            None => (only, None),
        };
        if let Some(d) = props {
            return (Some(d.name.clone()), d.total_global_mem, note);
        }
    }
    (None, None, None)
}

/// Σ over the windows of the length of the union of `spans` inside each window.
pub fn clipped_union(spans: Vec<(i64, i64)>, windows: &[(i64, i64)]) -> i64 {
    clipped_length(&merge_spans(spans), windows)
}

/// `spans` as disjoint, sorted intervals.
pub fn merge_spans(mut spans: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    spans.sort_unstable();
    // In place: a trace's host spans run to millions, and a second vector would double them.
    let mut merged = 0;
    for k in 0..spans.len() {
        let (s, e) = spans[k];
        if merged > 0 && s <= spans[merged - 1].1 {
            spans[merged - 1].1 = spans[merged - 1].1.max(e);
        } else {
            spans[merged] = (s, e);
            merged += 1;
        }
    }
    spans.truncate(merged);
    spans.shrink_to_fit();
    spans
}

/// Σ over the windows of the length of `merged` (from [`merge_spans`]) inside each window.
pub fn clipped_length(merged: &[(i64, i64)], windows: &[(i64, i64)]) -> i64 {
    let mut total = 0;
    for &(ws, we) in windows {
        let first = merged.partition_point(|&(_, e)| e <= ws);
        for &(s, e) in merged[first..].iter().take_while(|&&(s, _)| s < we) {
            total += e.min(we) - s.max(ws);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_clipped_to_windows() {
        let spans = vec![(0, 10), (5, 20), (30, 40), (50, 60)];
        assert_eq!(clipped_union(spans.clone(), &[(0, 100)]), 40);
        assert_eq!(clipped_union(spans.clone(), &[(8, 35), (55, 100)]), 12 + 5 + 5);
        assert_eq!(clipped_union(spans, &[(20, 30)]), 0);
        assert_eq!(clipped_union(Vec::new(), &[(0, 1)]), 0);
    }

    #[test]
    fn spans_merge_in_place_whatever_their_order() {
        // Overlapping, touching, nested, repeated and zero-length spans, out of order.
        let spans = vec![
            (30, 40),
            (0, 10),
            (5, 20),
            (20, 25),
            (31, 35),
            (50, 50),
            (50, 60),
            (0, 10),
        ];
        assert_eq!(merge_spans(spans), vec![(0, 25), (30, 40), (50, 60)]);
        assert_eq!(merge_spans(vec![(7, 9)]), vec![(7, 9)]);
        assert_eq!(merge_spans(Vec::new()), Vec::<(i64, i64)>::new());
    }
}
