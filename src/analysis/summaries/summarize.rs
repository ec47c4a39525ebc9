//! One trace file → its [`FileSummary`]: per (iteration, name, category, place) the count and
//! total duration, per iteration the gate's samples, per host ProfilerStep the overview's window
//! measures. Compare, gate and overview reduce summaries, so their output over summaries is the
//! output over the traces by construction.

use crate::analysis::breakdown::BreakdownSpans;
use crate::analysis::intervals::{clipped_length, merge_spans, union_length};
use crate::analysis::memory::{device_properties, levels_of};
use crate::analysis::select::SideSelection;
use crate::error::Result;
use crate::input::load::SummarySide;
use crate::model::calltree::{Nesting, host_order, nest_host_events};
use crate::model::iteration::step_number;
use crate::model::place::Place;
use crate::model::store::{NameId, TraceFile};
use crate::model::summary::{
    FileSummary, IterationSample, MemoryStats, OpRow, SUMMARY_SCHEMA_VERSION, SummaryMeta, ThreadRow, Window,
};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Summarises `file`; `source` is the path recorded as the trace it was made from.
pub fn summarize(file: &TraceFile, source: &Path) -> FileSummary {
    summarize_with(file, source, true)
}

/// Summarises `file` as [`summarize`] does but without each window's time breakdown and host
/// communication (`None`): what `compare` reads of a trace it summarises as it loads. The
/// breakdown's per-thread interval sets are the largest thing a summary builds (on two 1 GB
/// traces they held ~60 MB at the peak), and compare's tables use none of it.
pub(crate) fn summarize_for_compare(file: &TraceFile, source: &Path) -> FileSummary {
    summarize_with(file, source, false)
}

fn summarize_with(file: &TraceFile, source: &Path, breakdown: bool) -> FileSummary {
    // The rows (one nesting pass over the host events) beside the windows, on two cores.
    let ((strings, rows, threads), meta) = rayon::join(|| op_rows(file), || summary_meta(file, source, breakdown));
    FileSummary {
        meta,
        strings,
        rows,
        begin_end_events: file.begin_end_events,
        threads,
    }
}

/// Everything of `file`'s summary but its rows: windows, span, devices, ranks and steps.
fn summary_meta(file: &TraceFile, source: &Path, with_breakdown: bool) -> SummaryMeta {
    let ev = &file.events;
    let step_of: Vec<Option<i64>> = file.strings.iter().map(|(_, s)| step_number(s)).collect();
    let op_cat = crate::model::calltree::operator_categories(&file.strings);
    let span_of = |i: usize| (ev.ts_ns[i], ev.ts_ns[i] + ev.dur_ns[i].max(0));
    let gpu = merge_spans(
        (0..ev.len())
            .filter(|&i| ev.place[i] == Place::Device)
            .map(span_of)
            .collect(),
    );
    // Operators only: in older traces the step itself (`ProfilerStep#N`) is an `Operator`,
    // and counting it made the host busy for the whole step.
    let host = merge_spans(
        (0..ev.len())
            .filter(|&i| op_cat[ev.cat[i].index()] && step_of[ev.name[i].index()].is_none())
            .map(span_of)
            .collect(),
    );
    let levels = levels_of(file);
    let parts = with_breakdown.then(|| BreakdownSpans::of_file(file));
    let window = |step: Option<i64>, (start, end): (i64, i64)| Window {
        step,
        start_ns: start,
        end_ns: end,
        gpu_busy_ns: clipped_length(&gpu, &[(start, end)]),
        host_busy_ns: clipped_length(&host, &[(start, end)]),
        memory: levels
            .values()
            .map(|l| {
                l.stats(&[(start, end)]).map(|s| MemoryStats {
                    peak: s.peak,
                    integral: s.integral,
                    length: s.length,
                })
            })
            .collect(),
        breakdown: parts.as_ref().map(|p| p.window((start, end))),
        host_comm_ns: parts.as_ref().map(|p| p.host_comm((start, end))),
    };
    let mut windows: Vec<Window> = (0..ev.len())
        .filter(|&i| ev.place[i] == Place::Host)
        .filter_map(|i| step_of[ev.name[i].index()].map(|n| window(Some(n), span_of(i))))
        .collect();
    // Steps that are not ProfilerStep (a serving loop's annotations, `--step-marker`): their
    // windows are the steps themselves, as the iterations were assigned.
    let profiler: Vec<i64> = {
        let mut n: Vec<i64> = windows.iter().filter_map(|w| w.step).collect();
        n.sort_unstable();
        n.dedup();
        n
    };
    if profiler != file.step_numbers() {
        windows = file
            .steps
            .iter()
            .map(|st| window(Some(st.number), (st.ts_ns, st.ts_ns + st.dur_ns.max(0))))
            .collect();
    }
    let span = (!ev.is_empty()).then(|| {
        let start = ev.ts_ns.iter().copied().min().unwrap_or(0);
        let end = (0..ev.len()).map(|i| span_of(i).1).max().unwrap_or(0);
        window(None, (start, end))
    });
    let (device_name, device_memory_bytes, device_note) = device_properties(&[file]);
    SummaryMeta {
        windows,
        span,
        has_gpu: !gpu.is_empty(),
        has_ops: !host.is_empty(),
        memory_devices: levels.keys().copied().collect(),
        memory_relative: levels.iter().filter(|(_, l)| l.relative).map(|(d, _)| *d).collect(),
        device_name,
        device_memory_bytes,
        device_note,
        ..ranks_and_steps(file, source, &step_of)
    }
}

/// The rows of `file`'s summary (with their own times), its rank and steps: what the run-wide
/// shift reads (docs/significance.md#a-run-wide-shift), for the views, which hold traces. The
/// windows and devices are left out.
pub(crate) fn own_time_summary(file: &TraceFile, source: &Path) -> FileSummary {
    let step_of: Vec<Option<i64>> = file.strings.iter().map(|(_, s)| step_number(s)).collect();
    let (strings, rows, threads) = op_rows(file);
    FileSummary {
        meta: ranks_and_steps(file, source, &step_of),
        strings,
        rows,
        begin_end_events: file.begin_end_events,
        threads,
    }
}

/// The summary's metadata with only its rank, steps and per-step samples filled in: what
/// [`own_time_summary`] needs, and what [`summarize`] completes with the windows and devices.
fn ranks_and_steps(file: &TraceFile, source: &Path, step_of: &[Option<i64>]) -> SummaryMeta {
    SummaryMeta {
        schema_version: SUMMARY_SCHEMA_VERSION,
        tracediff_version: env!("CARGO_PKG_VERSION").to_string(),
        source: source.to_path_buf(),
        run: None,
        declared_rank: file.declared_rank,
        world_size: file.declared_world_size,
        steps: file.step_numbers(),
        iterations: iteration_samples(file, step_of),
        windows: Vec::new(),
        span: None,
        has_gpu: false,
        has_ops: false,
        memory_devices: Vec::new(),
        memory_relative: Vec::new(),
        device_name: None,
        device_memory_bytes: None,
        device_note: None,
    }
}

/// Per iteration present: the longest host step event of that number and the device busy time
/// (as the gate measures them).
fn iteration_samples(file: &TraceFile, step_of: &[Option<i64>]) -> Vec<IterationSample> {
    let ev = &file.events;
    // Per iteration: the longest step event, and the device's spans.
    type Slot = (i64, Vec<(i64, i64)>);
    let mut per: BTreeMap<i64, Slot> = BTreeMap::new();
    // Events come in runs of one iteration: the run's slot is looked up once, not per event.
    let mut run: Option<(i64, Slot)> = None;
    for i in 0..ev.len() {
        let it = ev.iteration.get(i);
        if run.as_ref().is_none_or(|(r, _)| *r != it) {
            if let Some((r, slot)) = run.take() {
                per.insert(r, slot);
            }
            run = Some((it, per.remove(&it).unwrap_or_default()));
        }
        let Some((_, slot)) = run.as_mut() else { continue };
        let place = ev.place[i];
        if place == Place::Host && step_of[ev.name[i].index()] == Some(it) {
            slot.0 = slot.0.max(ev.dur_ns[i]);
        }
        if place == Place::Device {
            slot.1.push((ev.ts_ns[i], ev.ts_ns[i] + ev.dur_ns[i].max(0)));
        }
    }
    if let Some((r, slot)) = run {
        per.insert(r, slot);
    }
    per.into_iter()
        .map(|(iteration, (step_ns, mut spans))| IterationSample {
            iteration,
            step_ns,
            gpu_busy_ns: union_length(&mut spans),
        })
        .collect()
}

/// Count, summed duration and summed own time of one row.
#[derive(Default, Clone, Copy)]
struct RowSums {
    count: u64,
    total_ns: i64,
    self_ns: i64,
}

/// (iteration, name id, category id, place, thread): a row's key, split by the thread of a host
/// event (0 on the device).
type ThreadKey = (i64, u32, u32, u8, u64);

/// The rows being summed: a slot per [`ThreadKey`].
#[derive(Default)]
struct RowSlots {
    slot_of: FxHashMap<ThreadKey, u32>,
    sums: Vec<RowSums>,
}

impl RowSlots {
    /// Counts event `i` of `ev` into its row (its duration, and its own time on the device);
    /// returns the row's slot.
    fn add(&mut self, ev: &crate::model::store::EventTable, i: usize) -> usize {
        let thread = if ev.place[i] == Place::Host {
            ev.thread_key(i)
        } else {
            0
        };
        let key = (
            ev.iteration.get(i),
            ev.name[i].0,
            ev.cat[i].0,
            ev.place[i] as u8,
            thread,
        );
        let next = self.sums.len() as u32;
        let k = *self.slot_of.entry(key).or_insert(next) as usize;
        if k == self.sums.len() {
            self.sums.push(RowSums::default());
        }
        let s = &mut self.sums[k];
        s.count += 1;
        s.total_ns += ev.dur_ns[i];
        if ev.place[i] == Place::Device {
            s.self_ns += ev.dur_ns[i];
        }
        k
    }
}

/// The string table, the count, total time and own time per (iteration, name, category,
/// place), sorted by iteration, then name, category and place as text, and the host rows split
/// by thread where the host events ran on more than one
/// ([`crate::model::summary::FileSummary::threads`]). Own times
/// ([`crate::model::summary::OpRow::self_ns`]): host events are nested per thread by the call
/// tree's own walk, each adding its time in the tree to its row and taking it from its parent's;
/// device events own their durations; annotations none.
fn op_rows(file: &TraceFile) -> (Vec<Arc<str>>, Vec<OpRow>, Vec<ThreadRow>) {
    let ev = &file.events;
    let mut rows = RowSlots::default();
    // Host events in nesting order: each row's slot travels with it on the stack, so a child
    // takes its time from its parent's row without a second look-up.
    nest_host_events(ev, &host_order(ev), |e: Nesting<u32>| {
        let k = rows.add(ev, e.row as usize);
        rows.sums[k].self_ns += e.total_ns;
        if let Some((_, parent)) = e.parent {
            rows.sums[parent as usize].self_ns -= e.total_ns;
        }
        k as u32
    });
    for i in (0..ev.len()).filter(|&i| ev.place[i] != Place::Host) {
        rows.add(ev, i);
    }
    let RowSlots { slot_of, sums } = rows;
    let by_thread: Vec<(ThreadKey, RowSums)> = slot_of.into_iter().map(|(key, k)| (key, sums[k as usize])).collect();
    let mut merged: FxHashMap<(i64, u32, u32, u8), RowSums> = FxHashMap::default();
    for ((iteration, name, cat, place, _), s) in &by_thread {
        let m = merged.entry((*iteration, *name, *cat, *place)).or_default();
        m.count += s.count;
        m.total_ns += s.total_ns;
        m.self_ns += s.self_ns;
    }
    // The strings used, renumbered in text order (so ids compare as the texts do).
    let mut used: Vec<u32> = merged.keys().flat_map(|k| [k.1, k.2]).collect();
    used.sort_unstable();
    used.dedup();
    used.sort_by(|a, b| file.strings.resolve(NameId(*a)).cmp(file.strings.resolve(NameId(*b))));
    let mut new_id: FxHashMap<u32, u32> = FxHashMap::default();
    for (k, id) in used.iter().enumerate() {
        new_id.insert(*id, k as u32);
    }
    let strings: Vec<Arc<str>> = used
        .iter()
        .map(|id| Arc::from(file.strings.resolve(NameId(*id))))
        .collect();
    let place_of = |p: u8| match p {
        0 => Place::Host,
        1 => Place::Device,
        _ => Place::Annotation,
    };
    let mut rows: Vec<OpRow> = merged
        .into_iter()
        .map(|((iteration, name, cat, place), sums)| OpRow {
            iteration,
            name: new_id[&name],
            category: new_id[&cat],
            place: place_of(place),
            count: sums.count,
            total_ns: sums.total_ns,
            self_ns: sums.self_ns,
        })
        .collect();
    rows.sort_by_key(|r| (r.iteration, r.name, r.category, r.place as u8));
    let threads = thread_rows(&by_thread, &new_id);
    (strings, rows, threads)
}

/// The host rows of `by_thread` split by thread, threads numbered from 0 in the order of their
/// keys; empty where the host events ran on one thread.
fn thread_rows(by_thread: &[(ThreadKey, RowSums)], new_id: &FxHashMap<u32, u32>) -> Vec<ThreadRow> {
    let host = || by_thread.iter().filter(|(k, _)| k.3 == Place::Host as u8);
    let mut keys: Vec<u64> = host().map(|(k, _)| k.4).collect();
    keys.sort_unstable();
    keys.dedup();
    if keys.len() < 2 {
        return Vec::new();
    }
    let mut threads: Vec<ThreadRow> = host()
        .map(|((iteration, name, cat, _, thread), s)| ThreadRow {
            thread: keys.partition_point(|k| k < thread) as u32,
            iteration: *iteration,
            name: new_id[name],
            category: new_id[cat],
            count: s.count,
            total_ns: s.total_ns,
            self_ns: s.self_ns,
        })
        .collect();
    threads.sort_by_key(|r| (r.thread, r.iteration, r.name, r.category));
    threads
}

/// Loads both sides as summaries (traces are summarised as they load, their events dropped).
pub(crate) fn load_summary_pair(
    control: &Path,
    test: &Path,
    selections: (&SideSelection, &SideSelection),
) -> Result<(Arc<SummarySide>, Arc<SummarySide>)> {
    crate::analysis::summaries::load::load_summary_pair(control, test, selections, &summarize)
}

/// [`load_summary_pair`] with the steps named by `--step-marker` when given (a bad regular
/// expression is a usage error).
pub(crate) fn load_summary_pair_marked(
    control: &Path,
    test: &Path,
    selections: (&SideSelection, &SideSelection),
    marker: Option<&str>,
) -> Result<(Arc<SummarySide>, Arc<SummarySide>)> {
    load_pair_marked_with(control, test, selections, marker, &summarize)
}

/// [`load_summary_pair_marked`] for `compare`: traces summarised without their windows' time
/// breakdown ([`summarize_for_compare`]); summary files are read whole, as they are.
pub(crate) fn load_compare_pair_marked(
    control: &Path,
    test: &Path,
    selections: (&SideSelection, &SideSelection),
    marker: Option<&str>,
) -> Result<(Arc<SummarySide>, Arc<SummarySide>)> {
    load_pair_marked_with(control, test, selections, marker, &summarize_for_compare)
}

fn load_pair_marked_with(
    control: &Path,
    test: &Path,
    selections: (&SideSelection, &SideSelection),
    marker: Option<&str>,
    summarize: &crate::input::load::SummarizeFn<'_>,
) -> Result<(Arc<SummarySide>, Arc<SummarySide>)> {
    let marker = crate::model::serving::step_marker(marker).map_err(crate::error::Error::usage)?;
    crate::analysis::summaries::load::load_summary_pair_marked(control, test, selections, marker.as_ref(), summarize)
}
