//! The summary of one trace file: everything `compare`, `ops-diff`, `plot`, `gate` and `overview`
//! read from a file, without its events. It is the plain type between the aggregate stage and
//! the diff stage: a trace is loaded, summarised, and its event store dropped; a summary written
//! by `tracediff summarize` (Parquet) reads back into the same type.

use crate::model::place::Place;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// Bumped whenever the summary layout changes. Version 2 added [`Window::breakdown`]; version 3
/// the rows' checksum (`tracediff.summary.sha256`); version 4 the rows' own times
/// ([`OpRow::self_ns`]); version 5 why the device was idle ([`Breakdown::idle_causes`]) and the
/// host's collectives ([`Window::host_comm_ns`]); version 6 one table of rows (a `kind` column:
/// the op rows and a row per step), the run label ([`SummaryMeta::run`]), the world size and
/// the normalised name as columns.
pub const SUMMARY_SCHEMA_VERSION: u32 = 6;
/// The first version written as one table of op and step rows, with the run, world size and
/// normalised name columns (docs/summaries.md).
pub const SUMMARY_SCHEMA_TABLE: u32 = 6;
/// The first version whose rows carry their own times (older ones read with none).
pub const SUMMARY_SCHEMA_OWN_TIMES: u32 = 4;
/// The first version that must carry the checksum (older ones are read without it).
pub const SUMMARY_SCHEMA_CHECKSUMMED: u32 = 3;
/// The oldest version still read: its windows read with no breakdown.
pub const SUMMARY_SCHEMA_OLDEST: u32 = 1;
/// The Parquet key-value metadata key that marks a tracediff summary; its value is the
/// [`SummaryMeta`] as JSON.
pub const SUMMARY_META_KEY: &str = "tracediff.summary";

/// Events of one (iteration, name, category, place) of a file: their number and summed duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpRow {
    /// The ProfilerStep the events belong to (−1: none).
    pub iteration: i64,
    /// Index into [`FileSummary::strings`].
    pub name: u32,
    /// Index into [`FileSummary::strings`].
    pub category: u32,
    /// Host, device or annotation (docs/semantics.md#host-and-device-events).
    pub place: Place,
    /// Number of events.
    pub count: u64,
    /// Their durations summed, in ns.
    pub total_ns: i64,
    /// Their own times summed, in ns (docs/significance.md#a-run-wide-shift): on the host each
    /// event's self time in the call tree (its time less its direct children's), on the device
    /// its duration; 0 for annotations (`gpu_user_annotation` spans are drawn over the kernels
    /// they annotate, and own none), and 0 in summaries older than
    /// [`SUMMARY_SCHEMA_OWN_TIMES`] ([`FileSummary::has_own_times`]).
    pub self_ns: i64,
}

/// Per iteration present among a file's events: what the gate samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IterationSample {
    /// The ProfilerStep number (−1: the events outside every step).
    pub iteration: i64,
    /// The duration in ns of the longest host `ProfilerStep#N` event of iteration N (0 when none).
    pub step_ns: i64,
    /// The length in ns of the union of the device work intervals of this iteration.
    pub gpu_busy_ns: i64,
}

/// Allocated memory of one device inside one window: peak, ∫ level dt, window length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryStats {
    /// The highest allocated level, in bytes.
    pub peak: i64,
    /// The allocated level integrated over the window, in bytes × ns (the mean level is
    /// `integral / length`); written as text, as it can exceed 64 bits.
    #[serde(with = "i128_text")]
    pub integral: i128,
    /// The window's length, in ns.
    pub length: i64,
}

impl MemoryStats {
    /// Both windows' stats together (peak of both, integrals and lengths summed).
    pub fn merge(a: Option<MemoryStats>, b: Option<MemoryStats>) -> Option<MemoryStats> {
        match (a, b) {
            (Some(a), Some(b)) => Some(MemoryStats {
                peak: a.peak.max(b.peak),
                integral: a.integral + b.integral,
                length: a.length + b.length,
            }),
            (a, None) => a,
            (None, b) => b,
        }
    }
}

mod i128_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(v: &i128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A window the overview measures: a host ProfilerStep, or the span of a file's events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// The step number; `None` for the span of the whole file.
    pub step: Option<i64>,
    /// Start, in ns since the trace's epoch.
    pub start_ns: i64,
    /// End (exclusive), in ns since the trace's epoch.
    pub end_ns: i64,
    /// The length in ns of the union of device work intervals inside the window.
    pub gpu_busy_ns: i64,
    /// The length in ns of the union of operator intervals inside the window.
    pub host_busy_ns: i64,
    /// Per device of [`SummaryMeta::memory_devices`], its memory inside the window.
    pub memory: Vec<Option<MemoryStats>>,
    /// Where the window's time went on the device; `None` in summaries older than version 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub breakdown: Option<Breakdown>,
    /// The length in ns of the union of host collectives (gloo, c10d, NCCL calls that launch no
    /// kernel of their own) on every thread, inside the window; `None` in summaries older than
    /// version 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_comm_ns: Option<i64>,
}

/// The step-time breakdown of one window (docs/breakdown.md), on the union timeline of its
/// device events: `compute_ns + comm_exposed_ns + memory_exposed_ns + idle_ns` is the window's
/// length exactly. Nanoseconds. Its default is the breakdown of no window: every part zero,
/// the idle causes known (zero); adding a window whose causes are unknown makes them unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakdown {
    /// |∪ compute|.
    pub compute_ns: i64,
    /// |∪ communication|.
    pub comm_total_ns: i64,
    /// |∪ communication ∩ ∪ compute|.
    pub comm_overlapped_ns: i64,
    /// |∪ communication ∖ ∪ compute|.
    pub comm_exposed_ns: i64,
    /// |∪ memory ∖ (∪ compute ∪ ∪ communication)|.
    pub memory_exposed_ns: i64,
    /// The window's length less the union of all its device events.
    pub idle_ns: i64,
    /// `idle_ns` split by what the host was doing meanwhile; `None` in summaries older than
    /// version 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_causes: Option<IdleCauses>,
    /// `compute_ns` split by kernel class, in the order of the kernel-class table (gemm,
    /// attention, conv, norm, elementwise, reduce, index, copy, communication, moe, optimizer,
    /// other: docs/kernel-classes.md); where kernels of several classes run at once, the time
    /// goes to the first in that order, so the parts sum to `compute_ns` exactly. `None` in
    /// summaries older than version 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_by_class: Option<[i64; 12]>,
}

/// Why the device was idle (docs/breakdown.md): each idle nanosecond goes to the first of
/// these that the host threads of the rank were in at that time, in this order; the parts sum
/// to the idle time exactly. Nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleCauses {
    /// A host collective ran (gloo, c10d, an NCCL call without a kernel of its own).
    pub host_comm_ns: i64,
    /// The host was blocked in a device, stream or event synchronize or a blocking copy.
    pub synchronize_ns: i64,
    /// The host was inside another runtime or driver call (launches, async copies).
    pub launch_ns: i64,
    /// The host was waiting on the data loader (`enumerate(DataLoader)…`).
    pub dataloader_ns: i64,
    /// The host was inside another operator or annotation.
    pub host_compute_ns: i64,
    /// No host event ran on any thread.
    pub untraced_ns: i64,
}

impl IdleCauses {
    /// The parts in their order of precedence, with their JSON keys.
    pub fn parts(&self) -> [(&'static str, i64); 6] {
        [
            ("host_communication", self.host_comm_ns),
            ("synchronize", self.synchronize_ns),
            ("launch", self.launch_ns),
            ("dataloader", self.dataloader_ns),
            ("host_compute", self.host_compute_ns),
            ("untraced", self.untraced_ns),
        ]
    }

    /// The sum of the parts: the idle time they split.
    pub fn total_ns(&self) -> i64 {
        self.parts().iter().map(|(_, ns)| ns).sum()
    }
}

impl std::ops::Add for IdleCauses {
    type Output = IdleCauses;

    /// The parts of both added.
    fn add(self, o: IdleCauses) -> IdleCauses {
        IdleCauses {
            host_comm_ns: self.host_comm_ns + o.host_comm_ns,
            synchronize_ns: self.synchronize_ns + o.synchronize_ns,
            launch_ns: self.launch_ns + o.launch_ns,
            dataloader_ns: self.dataloader_ns + o.dataloader_ns,
            host_compute_ns: self.host_compute_ns + o.host_compute_ns,
            untraced_ns: self.untraced_ns + o.untraced_ns,
        }
    }
}

impl std::ops::Add for Breakdown {
    type Output = Breakdown;

    /// The parts of both windows added.
    fn add(self, o: Breakdown) -> Breakdown {
        Breakdown {
            compute_ns: self.compute_ns + o.compute_ns,
            comm_total_ns: self.comm_total_ns + o.comm_total_ns,
            comm_overlapped_ns: self.comm_overlapped_ns + o.comm_overlapped_ns,
            comm_exposed_ns: self.comm_exposed_ns + o.comm_exposed_ns,
            memory_exposed_ns: self.memory_exposed_ns + o.memory_exposed_ns,
            idle_ns: self.idle_ns + o.idle_ns,
            // Known only where both are.
            idle_causes: self.idle_causes.zip(o.idle_causes).map(|(a, b)| a + b),
            compute_by_class: self
                .compute_by_class
                .zip(o.compute_by_class)
                .map(|(a, b)| std::array::from_fn(|k| a[k] + b[k])),
        }
    }
}

impl Default for Breakdown {
    fn default() -> Breakdown {
        Breakdown {
            compute_ns: 0,
            comm_total_ns: 0,
            comm_overlapped_ns: 0,
            comm_exposed_ns: 0,
            memory_exposed_ns: 0,
            idle_ns: 0,
            idle_causes: Some(IdleCauses::default()),
            compute_by_class: Some([0; 12]),
        }
    }
}

impl Breakdown {
    /// The time the parts cover: the window's length.
    pub fn step_ns(&self) -> i64 {
        self.compute_ns + self.comm_exposed_ns + self.memory_exposed_ns + self.idle_ns
    }
}

/// Everything of a summary but its rows: the Parquet key-value metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryMeta {
    /// The layout version it was written with ([`SUMMARY_SCHEMA_VERSION`] for new summaries).
    pub schema_version: u32,
    /// The version of tracediff that wrote it.
    pub tracediff_version: String,
    /// The trace the summary was made from, as it was given to `summarize`.
    pub source: PathBuf,
    /// The run's label in a summary dataset (`run=<label>/rank=<r>.parquet`); `None` for a
    /// summary written as a file of its own, and in summaries older than version 6.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// `distributedInfo.rank`, when the trace has one.
    pub declared_rank: Option<i64>,
    /// `distributedInfo.world_size`, when the trace has one (absent from summaries written
    /// before it was recorded).
    #[serde(default)]
    pub world_size: Option<i64>,
    /// ProfilerStep numbers present, sorted and unique.
    pub steps: Vec<i64>,
    /// One sample per iteration present among the events, sorted by iteration.
    pub iterations: Vec<IterationSample>,
    /// Host ProfilerStep windows, in file order.
    pub windows: Vec<Window>,
    /// The span of the file's kept events (`None` without events).
    pub span: Option<Window>,
    /// Whether the file has device events (kernels, copies, sets).
    pub has_gpu: bool,
    /// Whether the file has operator events (`cpu_op` and the like).
    pub has_ops: bool,
    /// (Device Type, Device Id) of each device with allocation levels, sorted.
    pub memory_devices: Vec<(i32, i32)>,
    /// Those of [`SummaryMeta::memory_devices`] whose levels are sums of `Bytes` changes (the
    /// trace has no `Total Allocated` for them): their figures are rises above each window's
    /// start.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_relative: Vec<(i32, i32)>,
    /// The device the kernels ran on, from `deviceProperties`.
    pub device_name: Option<String>,
    /// That device's memory (`totalGlobalMem`), in bytes.
    pub device_memory_bytes: Option<u64>,
    /// Why the device was named as it was, when the trace does not say it plainly.
    pub device_note: Option<String>,
}

/// One trace file, summarised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSummary {
    /// Everything but the rows.
    pub meta: SummaryMeta,
    /// The names and categories the rows index, each once (a name recurs in every step),
    /// numbered in text order. Shared: the files of a side loaded together point at one copy
    /// of each text (a thousand ranks run the same few thousand names).
    pub strings: Vec<Arc<str>>,
    /// Sorted by (iteration, name, category, place).
    pub rows: Vec<OpRow>,
    /// Begin and end events (`ph` `B`/`E`, `b`/`e`) the trace left out, for a note; not
    /// stored in a summary file (0 when read from one).
    pub begin_end_events: u64,
    /// The host rows split by thread, where the file's host events ran on more than one
    /// thread (else empty), for the thread-level shift (docs/significance.md#a-thread-that-moved);
    /// sorted by (thread, iteration, name, category). Not stored in a summary file (empty when
    /// read from one).
    pub threads: Vec<ThreadRow>,
}

/// Host events of one (thread, iteration, name, category) of a file: a row of
/// [`FileSummary::rows`] split by the thread its events ran on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadRow {
    /// The thread, numbered from 0 in the order of the file's (pid, tid) pairs.
    pub thread: u32,
    /// The ProfilerStep the events belong to (−1: none).
    pub iteration: i64,
    /// Index into [`FileSummary::strings`].
    pub name: u32,
    /// Index into [`FileSummary::strings`].
    pub category: u32,
    /// Number of events.
    pub count: u64,
    /// Their durations summed, in ns.
    pub total_ns: i64,
    /// Their self times in the call tree summed, in ns ([`OpRow::self_ns`]).
    pub self_ns: i64,
}

impl FileSummary {
    /// The text of a row's name or category index.
    pub fn text(&self, id: u32) -> &str {
        self.strings.get(id as usize).map_or("", |s| s)
    }

    /// The rank this file stands for: its declared rank, or 0 when it declares none.
    pub fn rank(&self) -> i64 {
        self.meta.declared_rank.unwrap_or(0)
    }

    /// Step numbers present in the file, sorted and unique.
    pub fn step_numbers(&self) -> Vec<i64> {
        self.meta.steps.clone()
    }

    /// Whether the rows carry their own times ([`OpRow::self_ns`]): a summary written before
    /// [`SUMMARY_SCHEMA_OWN_TIMES`] has none.
    pub fn has_own_times(&self) -> bool {
        self.meta.schema_version >= SUMMARY_SCHEMA_OWN_TIMES
    }
}

/// The text a place is written as in a summary.
pub fn place_text(p: Place) -> &'static str {
    match p {
        Place::Host => "host",
        Place::Device => "device",
        Place::Annotation => "annotation",
    }
}

/// The place written as `t` by [`place_text`]; `None` for any other text.
pub fn place_from_text(t: &str) -> Option<Place> {
    match t {
        "host" => Some(Place::Host),
        "device" => Some(Place::Device),
        "annotation" => Some(Place::Annotation),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_round_trip_and_stats_merge() {
        for p in [Place::Host, Place::Device, Place::Annotation] {
            assert_eq!(place_from_text(place_text(p)), Some(p));
        }
        assert_eq!(place_from_text("gpu"), None);
        let a = MemoryStats {
            peak: 5,
            integral: i128::from(i64::MAX) * 4,
            length: 2,
        };
        let b = MemoryStats {
            peak: 9,
            integral: 1,
            length: 3,
        };
        let m = MemoryStats::merge(Some(a), Some(b)).unwrap();
        assert_eq!((m.peak, m.integral, m.length), (9, i128::from(i64::MAX) * 4 + 1, 5));
        assert_eq!(MemoryStats::merge(None, Some(b)), Some(b));
        let text = serde_json::to_string(&a).unwrap();
        assert_eq!(serde_json::from_str::<MemoryStats>(&text).unwrap(), a);
    }
}
