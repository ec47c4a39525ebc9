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

use crate::analysis::load::loaded::Loaded;
use crate::analysis::memory::{WindowStats, device_name};
use crate::analysis::select::{Resolved, Selected, resolve};
use crate::analysis::summaries::summarize::summarize;
use crate::error::{Error, Result};
use crate::input::load::{SummarySide, pair_notes};
use crate::model::summary::{Breakdown, FileSummary, IdleCauses, MemoryStats, Window};
use crate::request::CompareRequest;
use crate::request::check_labels;
use serde::Serialize;

/// One side of the overview. Times are nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideOverview {
    /// The side's name.
    pub label: String,
    /// The path given for it.
    pub path: String,
    /// Number of selected ranks.
    pub ranks: usize,
    /// The selected ranks, sorted.
    pub rank_numbers: Vec<i64>,
    /// Number of selected steps; 0 when the side has no ProfilerStep.
    pub steps: usize,
    /// The selected step numbers, sorted (empty without ProfilerStep).
    pub step_numbers: Vec<i64>,
    /// The steps the side's traces hold (the most of any selected rank): the header's "of N"
    /// and its hint when fewer were used.
    #[serde(skip)]
    pub steps_available: usize,
    /// The ranks the side holds.
    #[serde(skip)]
    pub ranks_available: usize,
    /// (rank, step) windows measured (one per file without steps).
    pub windows: usize,
    /// Mean length of a window (the step time), in ns; `None` without windows.
    pub mean_step_time_ns: Option<i64>,
    /// Mean time per window that some device work ran (the union of device events), in ns;
    /// `None` without device events.
    pub gpu_busy_per_step_ns: Option<i64>,
    /// GPU busy ÷ window time, 0–1.
    pub gpu_utilization: Option<f64>,
    /// Mean time per window that some operator ran (the union of operator events, never a
    /// step annotation), in ns.
    pub host_busy_per_step_ns: Option<i64>,
    /// Mean time per window that some host collective ran (gloo, c10d, NCCL calls without a
    /// kernel of their own; the union over every thread), in ns; `None` from summaries older
    /// than version 5.
    pub host_comm_per_step_ns: Option<i64>,
    /// The highest allocated level of `memory_device` inside the windows, in bytes; `None`
    /// without `[memory]` events.
    pub peak_allocated_bytes: Option<i64>,
    /// Its mean level over the windows, in bytes.
    pub avg_allocated_bytes: Option<i64>,
    /// The device whose memory is reported (`cuda:0`, `cpu:0`): the largest peak.
    pub memory_device: Option<String>,
    /// The device the kernels ran on (`NVIDIA H100 80GB HBM3`), from `deviceProperties`.
    pub device_name: Option<String>,
    /// Its memory, in bytes.
    pub device_memory_bytes: Option<u64>,
    /// Why the device was named as it was, when the trace does not say it plainly.
    #[serde(skip)]
    pub device_note: Option<String>,
    /// Whether the memory figures are rises above each step's start, not levels: the trace
    /// writes only `Bytes` changes, no `Total Allocated` (absent from JSON when false).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub memory_relative: bool,
    /// Where the step time went, means per window; `None` without device events (or from
    /// summaries written before the breakdown existed).
    pub breakdown: Option<BreakdownMean>,
    /// One row per selected (rank, window), in rank then time order.
    pub per_step: Vec<StepParts>,
    /// One row per selected rank: means over its windows.
    pub per_rank: Vec<RankParts>,
    /// With two ranks or more: the slowest rank of each step.
    pub straggler: Option<Straggler>,
    /// With a side of runs (docs/significance.md#several-runs-per-side): the steps each run
    /// used; empty for one run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub run_steps: Vec<usize>,
}

/// The mean breakdown of some windows. `idle_ns` takes the rounding of the means, so the
/// parts add up to `step_ns` exactly.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BreakdownMean {
    /// The mean window length, in ns.
    pub step_ns: i64,
    /// Mean time some compute kernel ran, in ns.
    pub compute_ns: i64,
    /// Mean time some communication kernel ran, in ns.
    pub comm_total_ns: i64,
    /// The part of `comm_total_ns` that compute overlapped, in ns.
    pub comm_overlapped_ns: i64,
    /// The part that no compute overlapped, in ns.
    pub comm_exposed_ns: i64,
    /// Mean time only memory copies and sets ran, in ns.
    pub memory_exposed_ns: i64,
    /// Mean time no device work ran, in ns.
    pub idle_ns: i64,
    /// `idle_ns` split by what the host was doing (means; `untraced_ns` takes the rounding, so
    /// the parts add up to `idle_ns` exactly); `None` from summaries older than version 5.
    pub idle_causes: Option<IdleCauses>,
    /// `compute_ns` per kernel class, in the class table's order (means; the largest class
    /// takes the rounding, so they add up to `compute_ns` exactly); `None` from summaries older
    /// than version 5.
    pub compute_by_class: Option<[i64; 12]>,
    /// comm_overlapped ÷ comm_total; `None` without communication.
    pub overlap_ratio: Option<f64>,
}

impl BreakdownMean {
    /// The mean of `windows` windows whose parts sum to `total`.
    pub fn of(total: Breakdown, windows: usize) -> BreakdownMean {
        let n = windows.max(1) as i64;
        let step_ns = total.step_ns() / n;
        let compute_ns = total.compute_ns / n;
        let comm_exposed_ns = total.comm_exposed_ns / n;
        let memory_exposed_ns = total.memory_exposed_ns / n;
        let idle_ns = step_ns - compute_ns - comm_exposed_ns - memory_exposed_ns;
        let idle_causes = total.idle_causes.map(|c| {
            let mean = IdleCauses {
                host_comm_ns: c.host_comm_ns / n,
                synchronize_ns: c.synchronize_ns / n,
                launch_ns: c.launch_ns / n,
                dataloader_ns: c.dataloader_ns / n,
                host_compute_ns: c.host_compute_ns / n,
                untraced_ns: 0,
            };
            IdleCauses {
                untraced_ns: idle_ns - mean.total_ns(),
                ..mean
            }
        });
        let compute_by_class = total.compute_by_class.map(|c| {
            let mut mean = c.map(|ns| ns / n);
            // The rounding goes to the largest class (the first of equals).
            let largest = (0..mean.len()).rev().max_by_key(|&k| c[k]).unwrap_or(0);
            mean[largest] += compute_ns - mean.iter().sum::<i64>();
            mean
        });
        BreakdownMean {
            step_ns,
            compute_ns,
            comm_total_ns: total.comm_total_ns / n,
            comm_overlapped_ns: total.comm_overlapped_ns / n,
            comm_exposed_ns,
            memory_exposed_ns,
            idle_ns,
            idle_causes,
            compute_by_class,
            overlap_ratio: (total.comm_total_ns > 0)
                .then(|| total.comm_overlapped_ns as f64 / total.comm_total_ns as f64),
        }
    }
}

/// One window of one rank: its step number (`None`: the span of a file without steps), its
/// length and its parts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StepParts {
    /// The rank.
    pub rank: i64,
    /// The step number; `None` for the span of a file without steps.
    pub step: Option<i64>,
    /// The window's length (the step time), in ns.
    pub step_ns: i64,
    /// The window's breakdown (a mean over one window); `None` when the side has no device
    /// events (a CPU-only run: the step time alone).
    pub parts: Option<BreakdownMean>,
}

/// One rank: the means over its selected windows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RankParts {
    /// The rank.
    pub rank: i64,
    /// Number of its windows measured.
    pub windows: usize,
    /// The mean window length (step time), in ns; `None` for a rank that ran none of the
    /// selected steps (not a 0 ns step).
    pub step_ns: Option<i64>,
    /// The means of the parts; `None` when the side has no device events or the rank ran none
    /// of the selected steps.
    pub parts: Option<BreakdownMean>,
}

/// The rank that holds the others back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Straggler {
    /// The rank with the longest mean step time, and that time ÷ the median of the ranks' means.
    pub rank: i64,
    /// Its mean step time ÷ the median of the ranks' means (1.0: no straggler).
    pub max_over_median: f64,
    /// Per step: the slowest rank, its step time and the ratio to the median across ranks.
    pub per_step: Vec<StepStraggler>,
}

/// The slowest rank of one step.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct StepStraggler {
    /// The step number; `None` for files without steps.
    pub step: Option<i64>,
    /// The rank whose step took longest.
    pub rank: i64,
    /// Its step time, in ns.
    pub step_ns: i64,
    /// The median step time across the ranks, in ns.
    pub median_ns: f64,
    /// `step_ns ÷ median_ns`.
    pub max_over_median: f64,
}

/// The overview of a loaded pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overview {
    /// The control side's.
    pub control: SideOverview,
    /// The test side's.
    pub test: SideOverview,
}

impl Overview {
    /// What the caller should tell the user (stderr notes), side by side.
    pub fn notes(&self) -> Vec<String> {
        [&self.control, &self.test]
            .iter()
            .flat_map(|s| {
                let relative = s.memory_relative.then(|| {
                    format!(
                        "{}: the trace's memory events carry only `Bytes` changes (no `Total Allocated`): \
                         peak and average allocated are the rise above each step's start",
                        s.label
                    )
                });
                let device = s.device_note.as_ref().map(|n| format!("{}: {n}", s.label));
                device.into_iter().chain(relative)
            })
            .collect()
    }
}

/// The overview of a loaded pair as `tracediff overview` gives it for `req`: every step of a
/// side whose steps `req` leaves to the default.
pub(crate) fn overview_for_request(loaded: &Loaded, req: &CompareRequest) -> Result<Overview> {
    let [c, t] = loaded.summarized(summarize, true);
    let req = req.every_step_where_lowest();
    let resolved = [
        resolve(&c, &req.labels[0], &req.control_selection)?,
        resolve(&t, &req.labels[1], &req.test_selection)?,
    ];
    Ok(overview_of([&c, &t], &resolved, &req.labels))
}

/// Loads both sides of `req` as summaries (traces, summary files, or both) and gives their
/// overview, with the notes the loading produced.
pub(crate) fn overview_request(req: &CompareRequest) -> Result<(Overview, Vec<String>)> {
    check_labels(&req.labels)?;
    if !req.group_by.is_empty() || !req.arg_specs.is_empty() {
        return Err(Error::usage(
            "overview keys rows by name: --group-by and --arg-spec are for compare",
        ));
    }
    let req = req.every_step_where_lowest();
    let (control, test) = crate::analysis::summaries::summarize::load_summary_pair_marked(
        req.control.single("overview")?,
        req.test.single("overview")?,
        (&req.control_selection, &req.test_selection),
        req.step_marker.as_deref(),
    )?;
    let mut notes = pair_notes(&control, &test);
    let resolved = [
        resolve(&control, &req.labels[0], &req.control_selection)?,
        resolve(&test, &req.labels[1], &req.test_selection)?,
    ];
    notes.extend(crate::request::defaults::rank_sets_warning(
        [&req.labels[0], &req.labels[1]],
        [&resolved[0].ranks, &resolved[1].ranks],
        [control.ranks().len(), test.ranks().len()],
    ));
    Ok((overview_of([&control, &test], &resolved, &req.labels), notes))
}

/// The overview of two sides' summaries.
pub(crate) fn overview_of(sides: [&SummarySide; 2], resolved: &[Resolved; 2], labels: &[String; 2]) -> Overview {
    let side = |k: usize| side_overview(sides[k], &resolved[k], &labels[k]);
    Overview {
        control: side(0),
        test: side(1),
    }
}

/// Per selected file, the windows it measures: its selected steps, or its span.
fn selected_windows<'a>(file: &'a FileSummary, iterations: Option<&[i64]>) -> Vec<&'a Window> {
    match iterations {
        Some(_) => {
            let steps = Selected::new(iterations);
            file.meta
                .windows
                .iter()
                .filter(|w| w.step.is_some_and(|n| steps.admits(n)))
                .collect()
        }
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
    let info = crate::analysis::diff::side_info(side, label, resolved.clone());
    let memory = memory(&files, &selected);
    let parts = parts(&files, &selected);
    SideOverview {
        label: label.to_string(),
        path: info.path,
        ranks: resolved.ranks.len(),
        rank_numbers: sorted_unique(Some(&resolved.ranks)),
        steps: iterations.map_or(0, <[i64]>::len),
        step_numbers: sorted_unique(iterations),
        steps_available: info.steps_available,
        ranks_available: info.ranks_available,
        windows,
        mean_step_time_ns: iterations.and_then(|_| per_window(window_ns)),
        gpu_busy_per_step_ns: gpu_busy.and_then(per_window),
        gpu_utilization: gpu_busy.and_then(|b| (window_ns > 0).then(|| b as f64 / window_ns as f64)),
        host_busy_per_step_ns: host_busy.and_then(per_window),
        host_comm_per_step_ns: host_comm(&selected).and_then(per_window),
        peak_allocated_bytes: memory.peak,
        avg_allocated_bytes: memory.avg,
        memory_device: memory.device,
        device_name: memory.device_name,
        device_memory_bytes: memory.device_memory,
        device_note: memory.device_note,
        memory_relative: memory.relative,
        breakdown: parts.mean,
        per_step: parts.per_step,
        per_rank: parts.per_rank,
        straggler: parts.straggler,
        run_steps: Vec::new(),
    }
}

/// The summed host communication of the selected windows; `None` when one of them lacks it
/// (older summaries) or there is none.
fn host_comm(selected: &[Vec<&Window>]) -> Option<i64> {
    let windows: Vec<&&Window> = selected.iter().flatten().collect();
    if windows.is_empty() {
        return None;
    }
    windows.iter().map(|w| w.host_comm_ns).sum()
}

fn sorted_unique(iterations: Option<&[i64]>) -> Vec<i64> {
    let mut steps = iterations.map(<[i64]>::to_vec).unwrap_or_default();
    steps.sort_unstable();
    steps.dedup();
    steps
}

/// The breakdown of a side's selected windows, whole, per window and per rank. The step times
/// need only the windows; the parts need device events (and summaries that hold them).
#[derive(Debug, Default)]
struct Parts {
    mean: Option<BreakdownMean>,
    per_step: Vec<StepParts>,
    per_rank: Vec<RankParts>,
    straggler: Option<Straggler>,
}

fn parts(files: &[&FileSummary], selected: &[Vec<&Window>]) -> Parts {
    let known = selected.iter().flatten().all(|w| w.breakdown.is_some());
    let with_parts = known && files.iter().any(|f| f.meta.has_gpu);
    let mut per_step = Vec::new();
    let mut per_rank = Vec::new();
    let mut total = Breakdown::default();
    let mut windows = 0;
    for (file, ws) in files.iter().zip(selected) {
        let mut rank_total = Breakdown::default();
        let mut rank_ns = 0;
        let mut sorted: Vec<&&Window> = ws.iter().collect();
        sorted.sort_by_key(|w| (w.start_ns, w.step));
        for w in sorted {
            let b = w.breakdown.unwrap_or_default();
            let step_ns = w.end_ns - w.start_ns;
            per_step.push(StepParts {
                rank: file.rank(),
                step: w.step,
                step_ns,
                parts: with_parts.then(|| BreakdownMean::of(b, 1)),
            });
            rank_total = rank_total + b;
            rank_ns += step_ns;
        }
        per_rank.push(RankParts {
            rank: file.rank(),
            windows: ws.len(),
            step_ns: (!ws.is_empty()).then(|| rank_ns / ws.len() as i64),
            parts: (with_parts && !ws.is_empty()).then(|| BreakdownMean::of(rank_total, ws.len())),
        });
        total = total + rank_total;
        windows += ws.len();
    }
    per_rank.sort_by_key(|r| r.rank);
    per_step.sort_by_key(|s| (s.rank, s.step));
    let straggler = straggler(&per_rank, &per_step);
    Parts {
        mean: (with_parts && windows > 0).then(|| BreakdownMean::of(total, windows)),
        per_step,
        per_rank,
        straggler,
    }
}

/// The median of `values` (the mean of the middle two when their number is even).
fn median(mut values: Vec<i64>) -> f64 {
    values.sort_unstable();
    let n = values.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => values[n / 2] as f64,
        _ => (values[n / 2 - 1] as f64 + values[n / 2] as f64) / 2.0,
    }
}

fn ratio(max: i64, median: f64) -> f64 {
    if median > 0.0 { max as f64 / median } else { 1.0 }
}

/// With two ranks or more: the slowest rank overall and of each step (ties: the lowest rank).
/// Only ranks that ran a selected step count: a rank without one has no step time (not a 0 ns
/// one, which would make every other rank a straggler).
fn straggler(per_rank: &[RankParts], per_step: &[StepParts]) -> Option<Straggler> {
    let ran: Vec<(i64, i64)> = per_rank.iter().filter_map(|r| Some((r.rank, r.step_ns?))).collect();
    if ran.len() < 2 {
        return None;
    }
    let &(slowest_rank, slowest_ns) = ran.iter().max_by_key(|(rank, ns)| (*ns, std::cmp::Reverse(*rank)))?;
    let mut by_step: std::collections::BTreeMap<Option<i64>, Vec<&StepParts>> = std::collections::BTreeMap::new();
    for s in per_step {
        by_step.entry(s.step).or_default().push(s);
    }
    let per_step = by_step
        .into_iter()
        .filter_map(|(step, of_step)| {
            let max = of_step.iter().max_by_key(|s| (s.step_ns, std::cmp::Reverse(s.rank)))?;
            let median_ns = median(of_step.iter().map(|s| s.step_ns).collect());
            Some(StepStraggler {
                step,
                rank: max.rank,
                step_ns: max.step_ns,
                median_ns,
                max_over_median: ratio(max.step_ns, median_ns),
            })
        })
        .collect();
    let rank_median = median(ran.iter().map(|(_, ns)| *ns).collect());
    Some(Straggler {
        rank: slowest_rank,
        max_over_median: ratio(slowest_ns, rank_median),
        per_step,
    })
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
    relative: bool,
}

fn memory(files: &[&FileSummary], windows: &[Vec<&Window>]) -> Memory {
    let mut best: Option<((i32, i32), MemoryStats)> = None;
    let mut relative = false;
    for (file, w) in files.iter().zip(windows) {
        for (d, &device) in file.meta.memory_devices.iter().enumerate() {
            let stats = w.iter().fold(None, |acc, w| {
                MemoryStats::merge(acc, w.memory.get(d).copied().flatten())
            });
            if let Some(s) = stats
                && best.is_none_or(|(_, b)| s.peak > b.peak)
            {
                best = Some((device, s));
                relative = file.meta.memory_relative.contains(&device);
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
        device: best.map(|((t, id), _)| device_name(i64::from(t), i64::from(id))),
        device_name: name,
        device_memory: total,
        device_note: note,
        relative,
    }
}
