//! The columnar event store: one `Vec` per column, names and categories interned.
//!
//! A [`TraceFile`] holds the events of one trace file (one rank) that count as ops
//! (docs/semantics.md#which-events-count), in file order, plus the string table they index into.

use crate::model::attrs::AttrTable;
use crate::model::calltree::CallTree;
pub use crate::model::table::{
    EventTable, IdColumn, NO_CORRELATION, NO_ITERATION, NO_STREAM, NameId, NewEvent, Step, StringTable,
};
use std::path::PathBuf;
use std::sync::OnceLock;

/// One `[memory]` instant event: the allocator's state on one device after an allocation or a
/// free (docs/semantics.md#overview).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemorySample {
    /// When, in ns since the trace's epoch (as every `ts_ns`).
    pub ts_ns: i64,
    /// `args."Device Type"`: 0 CPU, 1 CUDA, others for other backends.
    pub device_type: i32,
    /// `args."Device Id"` (−1 for the CPU).
    pub device_id: i32,
    /// `args."Total Allocated"`: bytes allocated after this event; absent in 2021 traces.
    pub total_allocated: Option<i64>,
    /// `args.Bytes`: this allocation (positive) or free (negative).
    pub bytes: i64,
}

/// The `[memory]` instant events of one file, column by column, in file order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct MemoryEvents {
    /// [`MemorySample::ts_ns`] per event.
    pub ts_ns: Vec<i64>,
    /// [`MemorySample::device_type`] per event.
    pub device_type: Vec<i32>,
    /// [`MemorySample::device_id`] per event.
    pub device_id: Vec<i32>,
    /// [`MemorySample::total_allocated`] per event.
    pub total_allocated: Vec<Option<i64>>,
    /// [`MemorySample::bytes`] per event.
    pub bytes: Vec<i64>,
}

impl MemoryEvents {
    /// Number of events.
    pub fn len(&self) -> usize {
        self.ts_ns.len()
    }

    /// Whether the file had no `[memory]` events.
    pub fn is_empty(&self) -> bool {
        self.ts_ns.is_empty()
    }

    /// Appends one event, after those already held.
    pub fn push(&mut self, m: MemorySample) {
        self.ts_ns.push(m.ts_ns);
        self.device_type.push(m.device_type);
        self.device_id.push(m.device_id);
        self.total_allocated.push(m.total_allocated);
        self.bytes.push(m.bytes);
    }

    /// The event at `row` (file order). Panics when `row` is not below [`Self::len`].
    pub fn get(&self, row: usize) -> MemorySample {
        MemorySample {
            ts_ns: self.ts_ns[row],
            device_type: self.device_type[row],
            device_id: self.device_id[row],
            total_allocated: self.total_allocated[row],
            bytes: self.bytes[row],
        }
    }
}

/// One end of a `fwdbwd` flow (docs/semantics.md#which-events-count): the autograd engine links a forward operator
/// (`ph: "s"`, at the operator's start) to the backward operator it created (`ph: "f"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlowEnd {
    /// The flow's `id`: the two ends of one flow share it.
    pub id: u64,
    /// `true` for the start (`s`, the forward side), `false` for the finish (`f`).
    pub start: bool,
    /// When, in ns since the trace's epoch.
    pub ts_ns: i64,
    /// Index into [`FlowEvents::threads`].
    pub thread: u32,
}

/// The `fwdbwd` flow events of one file, in file order. Their threads are kept as text, apart
/// from the string table, so that reading flows never changes the ids of event strings.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FlowEvents {
    /// Both ends of every flow, in file order.
    pub ends: Vec<FlowEnd>,
    /// Distinct (pid, tid) texts, in order of first appearance.
    pub threads: Vec<(String, String)>,
}

impl FlowEvents {
    /// Adds one end, given its thread's text.
    pub fn push(&mut self, id: u64, start: bool, ts_ns: i64, pid: &str, tid: &str) {
        let thread = match self.threads.iter().position(|(p, t)| p == pid && t == tid) {
            Some(k) => k,
            None => {
                self.threads.push((pid.to_string(), tid.to_string()));
                self.threads.len() - 1
            }
        };
        self.ends.push(FlowEnd {
            id,
            start,
            ts_ns,
            thread: thread as u32,
        });
    }
}

/// A device the trace describes in its top-level `deviceProperties`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProperties {
    /// `id`: the device's number, as `args.device` of its kernels gives it.
    pub id: i64,
    /// `name`, such as "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// `totalGlobalMem`, bytes.
    pub total_global_mem: Option<u64>,
}

/// Everything tracediff keeps of one trace file.
#[derive(Debug, Clone)]
pub struct TraceFile {
    /// The file it was read from, as discovered (relative when the directory given was).
    pub path: PathBuf,
    /// `distributedInfo.rank`, or `None` when the file has none (then it counts as rank 0).
    pub declared_rank: Option<i64>,
    /// `distributedInfo.world_size`, when the file declares one: the number of ranks of its job.
    pub declared_world_size: Option<i64>,
    /// Every name, category, pid and tid text the events refer to, each stored once.
    pub strings: StringTable,
    /// The kept events, one column each, in file order.
    pub events: EventTable,
    /// The attribute columns asked for, parallel to `events`.
    pub attrs: AttrTable,
    /// ProfilerSteps in file order.
    pub steps: Vec<Step>,
    /// Number of entries in `traceEvents`, kept or not.
    pub total_events: u64,
    /// Begin and end events (`ph` `B`, `E`, `b`, `e`: Chrome and Perfetto traces) left out:
    /// tracediff reads complete events (`ph` `X`); a note says how many.
    pub begin_end_events: u64,
    /// Bytes of JSON text read.
    pub json_bytes: u64,
    /// `[memory]` instant events, in file order.
    pub memory: MemoryEvents,
    /// `fwdbwd` flow events, in file order.
    pub flows: FlowEvents,
    /// `deviceProperties`, in file order.
    pub devices: Vec<DeviceProperties>,
    /// `args.device` value → number of kept events carrying it, sorted by device id: which
    /// devices the kernels, copies and sets ran on.
    pub device_use: Vec<(i64, u64)>,
    /// Built on first use by [`TraceFile::call_tree`].
    pub call_tree: OnceLock<CallTree>,
    /// Its graph kernels and their join to a capture (docs/graphs.md#graph-replays), set by
    /// whoever loads the file with its capture; unset, graph kernels keep their replay owners.
    pub graphs: OnceLock<crate::model::graphs::GraphJoin>,
    /// Built on first use by [`TraceFile::row_ranges`]: each run of consecutive rows of one
    /// iteration, (iteration, first row, row past the last), in row order.
    pub iteration_runs: OnceLock<Vec<(i64, u32, u32)>>,
}

impl TraceFile {
    /// The rank this file stands for: its declared rank, or 0 when it declares none.
    pub fn rank(&self) -> i64 {
        self.declared_rank.unwrap_or(0)
    }

    /// Bytes the event store holds: the event columns, the attribute columns and the string
    /// table (string bytes plus a pointer and a hash entry each).
    pub fn store_bytes(&self) -> usize {
        let e = &self.events;
        let columns = e.index.capacity() * 4
            + (e.name.capacity() + e.cat.capacity() + e.pid.capacity() + e.tid.capacity() + e.thread.capacity()) * 4
            + (e.ts_ns.capacity() + e.dur_ns.capacity()) * 8
            + e.stream.bytes()
            + e.correlation.bytes()
            + e.iteration.bytes()
            + e.place.capacity();
        let attrs: usize = self.attrs.columns.iter().map(|c| c.bytes()).sum();
        let strings: usize = self.strings.iter().map(|(_, s)| s.len() * 2 + 16 + 24).sum();
        columns + attrs + strings
    }

    /// The duration of each step of this file that `admits` keeps, in ns, in step order: a
    /// step's longest host span (where the device timeline mirrors a step as a
    /// `gpu_user_annotation`, the host's span is the step; a step with only a device span gives
    /// that span's).
    pub fn step_durations_ns(&self, admits: impl Fn(i64) -> bool) -> Vec<i64> {
        // Per step: (longest host span, longest span of any place).
        let mut longest: std::collections::BTreeMap<i64, (Option<i64>, i64)> = Default::default();
        for s in self.steps.iter().filter(|s| admits(s.number)) {
            let slot = longest.entry(s.number).or_insert((None, s.dur_ns));
            slot.1 = slot.1.max(s.dur_ns);
            if !s.on_device {
                slot.0 = Some(slot.0.map_or(s.dur_ns, |h| h.max(s.dur_ns)));
            }
        }
        longest.into_values().map(|(host, any)| host.unwrap_or(any)).collect()
    }

    /// Step numbers present in this file, sorted and unique.
    pub fn step_numbers(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self.steps.iter().map(|s| s.number).collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

impl TraceFile {
    /// The rows of the events of `iterations` (`None`: every row) as ranges in row order: what
    /// a pass over one step's events visits instead of every row (a view's per-step samples
    /// are one such pass each). Events are stored in runs of one iteration, so the ranges are
    /// few; they may hold rows of other iterations nowhere, and miss none of these.
    pub fn row_ranges(&self, iterations: Option<&[i64]>) -> Vec<std::ops::Range<usize>> {
        let Some(iterations) = iterations else {
            return std::iter::once(0..self.events.len()).collect();
        };
        let mut wanted = iterations.to_vec();
        wanted.sort_unstable();
        let runs = self.iteration_runs.get_or_init(|| iteration_runs(&self.events));
        let mut out: Vec<std::ops::Range<usize>> = Vec::new();
        for &(it, start, end) in runs {
            if wanted.binary_search(&it).is_err() {
                continue;
            }
            let (start, end) = (start as usize, end as usize);
            match out.last_mut() {
                Some(last) if last.end == start => last.end = end,
                _ => out.push(start..end),
            }
        }
        out
    }

    /// The file's call tree, built on first use.
    pub fn call_tree(&self) -> &CallTree {
        self.call_tree
            .get_or_init(|| CallTree::build(&self.strings, &self.events))
    }

    /// The rows of the host events, parents before children (by depth in the call tree): the
    /// order in which what a parent holds can be passed down to its children in one pass.
    pub fn host_rows_parents_first(&self) -> Vec<u32> {
        let tree = self.call_tree();
        let mut order: Vec<u32> = (0..self.events.len() as u32)
            .filter(|&i| self.events.place[i as usize] == crate::model::place::Place::Host)
            .collect();
        order.sort_by_key(|&i| tree.depth[i as usize]);
        order
    }
}

/// Each run of consecutive rows of `events` of one iteration: (iteration, first row, row past
/// the last), in row order.
fn iteration_runs(events: &EventTable) -> Vec<(i64, u32, u32)> {
    let mut runs: Vec<(i64, u32, u32)> = Vec::new();
    for i in 0..events.len() {
        let it = events.iteration.get(i);
        match runs.last_mut() {
            Some(last) if last.0 == it => last.2 = i as u32 + 1,
            _ => runs.push((it, i as u32, i as u32 + 1)),
        }
    }
    runs
}
