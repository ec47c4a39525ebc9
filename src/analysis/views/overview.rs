//! The overview (docs/semantics.md#overview): one row per side — steps, ranks, mean step time, GPU busy time
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

use super::memory::{WindowStats, device_type_name};
use crate::analysis::compare::{CompareRequest, check_labels};
use crate::analysis::loaded::Loaded;
use crate::analysis::select::{Resolved, resolve};
use crate::analysis::summary::{load_summary_pair, summarize};
use crate::error::{Error, Result};
use crate::input::load::{Side, SummarySide, pair_notes};
use crate::model::summary::{FileSummary, MemoryStats, Window};
use rayon::prelude::*;
use serde::Serialize;
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
