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
use crate::model::iteration::step_number;
use crate::model::place::Place;
use crate::model::store::TraceFile;
use serde::Serialize;
use std::collections::BTreeMap;

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

/// What one file contributes.
#[derive(Debug, Clone, Default)]
struct FileMeasure {
    windows: Vec<(i64, i64)>,
    gpu_busy_ns: Option<i64>,
    host_busy_ns: Option<i64>,
}

pub fn overview(loaded: &Loaded, labels: &[String; 2]) -> Overview {
    let side = |k: usize| side_overview(loaded, k, &labels[k]);
    Overview {
        control: side(0),
        test: side(1),
    }
}

fn side_overview(loaded: &Loaded, k: usize, label: &str) -> SideOverview {
    let files = loaded.files(k);
    let iterations = loaded.resolved[k].iterations.as_deref();
    let measures: Vec<FileMeasure> = files.iter().map(|f| measure_file(f, iterations)).collect();
    let windows: usize = measures.iter().map(|m| m.windows.len()).sum();
    let window_ns: i64 = measures.iter().flat_map(|m| m.windows.iter().map(|(s, e)| e - s)).sum();
    let gpu_busy: Option<i64> = measures.iter().filter_map(|m| m.gpu_busy_ns).reduce(|a, b| a + b);
    let host_busy: Option<i64> = measures.iter().filter_map(|m| m.host_busy_ns).reduce(|a, b| a + b);
    let per_window = |ns: i64| (windows > 0).then(|| ns / windows as i64);
    let info = loaded.side_info(k, label);
    let memory = memory(&files, &measures_windows(&measures));
    SideOverview {
        label: label.to_string(),
        path: info.path,
        ranks: loaded.resolved[k].ranks.len(),
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
fn levels_of(file: &TraceFile) -> BTreeMap<(i32, i32), Levels> {
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

fn memory(files: &[&TraceFile], windows: &[Vec<(i64, i64)>]) -> Memory {
    let mut best: Option<((i32, i32), WindowStats)> = None;
    for (file, w) in files.iter().zip(windows) {
        for (device, levels) in levels_of(file) {
            if let Some(s) = levels.stats(w)
                && best.is_none_or(|(_, b)| s.peak > b.peak)
            {
                best = Some((device, s));
            }
        }
    }
    let (name, total, note) = device_properties(files);
    Memory {
        peak: best.map(|(_, s)| s.peak),
        avg: best.and_then(|(_, s)| s.average()),
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
fn device_properties(files: &[&TraceFile]) -> (Option<String>, Option<u64>, Option<String>) {
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

fn measures_windows(m: &[FileMeasure]) -> Vec<Vec<(i64, i64)>> {
    m.iter().map(|m| m.windows.clone()).collect()
}

/// The windows of one file: its selected host ProfilerSteps, or the span of its events.
pub fn windows(file: &TraceFile, iterations: Option<&[i64]>) -> Vec<(i64, i64)> {
    let ev = &file.events;
    match iterations {
        Some(its) => {
            let step_of: Vec<Option<i64>> = file.strings.iter().map(|(_, s)| step_number(s)).collect();
            (0..ev.len())
                .filter(|&i| ev.place[i] == Place::Host)
                .filter(|&i| step_of[ev.name[i].index()].is_some_and(|n| its.contains(&n)))
                .map(|i| (ev.ts_ns[i], ev.ts_ns[i] + ev.dur_ns[i].max(0)))
                .collect()
        }
        None if ev.is_empty() => Vec::new(),
        None => {
            let start = ev.ts_ns.iter().copied().min().unwrap_or(0);
            let end = (0..ev.len())
                .map(|i| ev.ts_ns[i] + ev.dur_ns[i].max(0))
                .max()
                .unwrap_or(0);
            vec![(start, end)]
        }
    }
}

fn measure_file(file: &TraceFile, iterations: Option<&[i64]>) -> FileMeasure {
    let ev = &file.events;
    let op_cat = crate::model::calltree::operator_categories(&file.strings);
    let is_op = |i: usize| op_cat[ev.cat[i].index()];
    let windows = windows(file, iterations);
    let spans = |keep: &dyn Fn(usize) -> bool| -> Vec<(i64, i64)> {
        (0..ev.len())
            .filter(|&i| keep(i))
            .map(|i| (ev.ts_ns[i], ev.ts_ns[i] + ev.dur_ns[i].max(0)))
            .collect()
    };
    let has_gpu = ev.place.contains(&Place::Device);
    let has_ops = (0..ev.len()).any(is_op);
    let gpu = spans(&|i| ev.place[i] == Place::Device);
    let host = spans(&is_op);
    FileMeasure {
        gpu_busy_ns: has_gpu.then(|| clipped_union(gpu, &windows)),
        host_busy_ns: has_ops.then(|| clipped_union(host, &windows)),
        windows,
    }
}

/// Σ over the windows of the length of the union of `spans` inside each window.
pub fn clipped_union(mut spans: Vec<(i64, i64)>, windows: &[(i64, i64)]) -> i64 {
    spans.sort_unstable();
    // Merge into disjoint, sorted intervals.
    let mut merged: Vec<(i64, i64)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
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
}
