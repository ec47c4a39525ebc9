//! Where a step's time went on the device (docs/breakdown.md): each device event (never a
//! `gpu_user_annotation` span) is memory, communication or compute; on the union timeline of a
//! window W, compute = |∪C|, communication overlapped = |∪M ∩ ∪C|, exposed = |∪M ∖ ∪C|,
//! memory exposed = |∪Y ∖ (∪C ∪ ∪M)|, idle = |W| − |∪all|. The parts of a window add up to
//! its length exactly.

use crate::analysis::classes::{Classifier, KernelClass};
use crate::analysis::idle::IdleSpans;
use crate::analysis::intervals::{clipped_length, intersect_merged, merge_spans, subtract_merged, union_merged};
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::model::summary::Breakdown;
use regex::{Regex, RegexBuilder};
use rustc_hash::FxHashMap;
use std::sync::LazyLock;

/// What a device event does, for the breakdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeviceClass {
    /// Kernels that compute (every kernel that is not communication).
    Compute,
    /// Collective and peer-to-peer kernels (NCCL and the like, by name).
    Communication,
    /// Memory copies and sets.
    Memory,
}

static MEMORY_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(hip)?Memcpy|^(hip)?Memset|^dma").expect("a valid pattern"));
// Case-insensitive: NCCL, RCCL and HCCL kernels are spelled in several cases.
static COMM_NAME: LazyLock<Regex> = LazyLock::new(|| {
    RegexBuilder::new(r"^nccl|ncclKernel|^rccl|^hccl")
        .case_insensitive(true)
        .build()
        .expect("a valid pattern")
});

/// The class of a device event of `name` and category `cat`: memory first (a copy or set by
/// its category or name), then communication (collective kernels by name), else compute.
pub(crate) fn classify(name: &str, cat: &str) -> DeviceClass {
    let memory_cat = ["gpu_memcpy", "gpu_memset", "Memcpy", "Memset"].contains(&cat);
    if memory_cat || MEMORY_NAME.is_match(name) {
        DeviceClass::Memory
    } else if COMM_NAME.is_match(name) {
        DeviceClass::Communication
    } else {
        DeviceClass::Compute
    }
}

/// A file's device work as merged span lists, ready to measure any window's breakdown.
#[derive(Debug, Clone, Default)]
pub(crate) struct BreakdownSpans {
    compute: Vec<(i64, i64)>,
    comm: Vec<(i64, i64)>,
    comm_and_compute: Vec<(i64, i64)>,
    /// Memory copies under compute or communication (hidden by them).
    memory_hidden: Vec<(i64, i64)>,
    memory: Vec<(i64, i64)>,
    all: Vec<(i64, i64)>,
    /// What the host was doing, to say why the device was idle.
    idle: IdleSpans,
    /// Per kernel class (in the class table's order), the compute time it holds: its
    /// kernels' union less that of the classes before it. Disjoint; together, `compute`.
    compute_classes: Vec<Vec<(i64, i64)>>,
}

impl BreakdownSpans {
    /// The device events (`Place::Device`) of `file`, classified.
    pub(crate) fn of_file(file: &TraceFile) -> BreakdownSpans {
        let ev = &file.events;
        // Per (name, category): a kernel name recurs thousands of times.
        let mut cache: FxHashMap<(u32, u32), DeviceClass> = FxHashMap::default();
        let mut spans: [Vec<(i64, i64)>; 3] = Default::default();
        let kernel_classes = Classifier::builtin();
        let mut by_class: Vec<Vec<(i64, i64)>> = vec![Vec::new(); KernelClass::ALL.len()];
        let mut class_of: FxHashMap<u32, usize> = FxHashMap::default();
        for i in (0..ev.len()).filter(|&i| ev.place[i] == Place::Device) {
            let class = *cache
                .entry((ev.name[i].0, ev.cat[i].0))
                .or_insert_with(|| classify(file.strings.resolve(ev.name[i]), file.strings.resolve(ev.cat[i])));
            let k = match class {
                DeviceClass::Compute => 0,
                DeviceClass::Communication => 1,
                DeviceClass::Memory => 2,
            };
            let span = (ev.ts_ns[i], ev.ts_ns[i] + ev.dur_ns[i].max(0));
            spans[k].push(span);
            if class == DeviceClass::Compute {
                let c = *class_of.entry(ev.name[i].0).or_insert_with(|| {
                    let class = kernel_classes.classify(file.strings.resolve(ev.name[i]));
                    KernelClass::ALL
                        .iter()
                        .position(|&k| k == class)
                        .unwrap_or(KernelClass::ALL.len() - 1)
                });
                by_class[c].push(span);
            }
        }
        let [compute, comm, memory] = spans.map(merge_spans);
        let device_comm = !comm.is_empty();
        let mut spans = Self::of_spans(compute, comm, memory);
        spans.idle = IdleSpans::of_file(file, &spans.all, device_comm);
        let mut covered: Vec<(i64, i64)> = Vec::new();
        spans.compute_classes = by_class
            .into_iter()
            .map(|s| {
                let merged = merge_spans(s);
                let layer = subtract_merged(&merged, &covered);
                covered = union_merged(&covered, &merged);
                layer
            })
            .collect();
        spans
    }

    /// From merged compute, communication and memory spans.
    pub(crate) fn of_spans(compute: Vec<(i64, i64)>, comm: Vec<(i64, i64)>, memory: Vec<(i64, i64)>) -> BreakdownSpans {
        let busy = union_merged(&compute, &comm);
        BreakdownSpans {
            comm_and_compute: intersect_merged(&comm, &compute),
            memory_hidden: intersect_merged(&memory, &busy),
            all: union_merged(&busy, &memory),
            compute,
            comm,
            memory,
            idle: IdleSpans::default(),
            compute_classes: Vec::new(),
        }
    }

    /// The breakdown of the window `[start, end)`.
    pub(crate) fn window(&self, (start, end): (i64, i64)) -> Breakdown {
        let len = |spans: &[(i64, i64)]| clipped_length(spans, &[(start, end)]);
        let comm_total = len(&self.comm);
        let overlapped = len(&self.comm_and_compute);
        let idle_ns = (end - start) - len(&self.all);
        Breakdown {
            compute_ns: len(&self.compute),
            comm_total_ns: comm_total,
            comm_overlapped_ns: overlapped,
            comm_exposed_ns: comm_total - overlapped,
            memory_exposed_ns: len(&self.memory) - len(&self.memory_hidden),
            idle_ns,
            idle_causes: Some(self.idle.window((start, end), idle_ns)),
            compute_by_class: self.compute_by_class((start, end)),
        }
    }

    /// The compute time of the window per kernel class; `None` where the spans were given
    /// without their events ([`BreakdownSpans::of_spans`]).
    fn compute_by_class(&self, window: (i64, i64)) -> Option<[i64; 12]> {
        if self.compute_classes.len() != KernelClass::ALL.len() {
            return None;
        }
        Some(std::array::from_fn(|k| {
            clipped_length(&self.compute_classes[k], &[window])
        }))
    }

    /// The host communication time of the window `[start, end)`: the union of host collectives
    /// (gloo's, and c10d or NCCL calls that launch no kernel) on every thread inside it.
    pub(crate) fn host_comm(&self, window: (i64, i64)) -> i64 {
        self.idle.host_comm(window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::summary::IdleCauses;

    #[test]
    fn events_classify_memory_first_then_communication() {
        assert_eq!(
            classify("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy"),
            DeviceClass::Memory
        );
        assert_eq!(classify("x", "Memset"), DeviceClass::Memory);
        assert_eq!(classify("hipMemcpyAsync", "kernel"), DeviceClass::Memory);
        assert_eq!(classify("dma_copy", "kernel"), DeviceClass::Memory);
        assert_eq!(
            classify("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", "kernel"),
            DeviceClass::Communication
        );
        assert_eq!(classify("void ncclKernel_x", "kernel"), DeviceClass::Communication);
        assert_eq!(
            classify("NCCLDevKernel_Broadcast", "kernel"),
            DeviceClass::Communication
        );
        assert_eq!(classify("rccl_allgather", "kernel"), DeviceClass::Communication);
        assert_eq!(classify("void at::native::nccl_like", "kernel"), DeviceClass::Compute);
        assert_eq!(classify("volta_sgemm_128x64_nn", "kernel"), DeviceClass::Compute);
    }

    #[test]
    fn parts_add_up_to_the_window() {
        // Compute [0,10) [20,30); comm [5,25) (10 overlapped: 5..10, 20..25; 10 exposed);
        // memory [8,12) (under compute: hidden) and [40,45) (5 exposed); window [0,50).
        let spans = BreakdownSpans::of_spans(vec![(0, 10), (20, 30)], vec![(5, 25)], vec![(8, 12), (40, 45)]);
        let b = spans.window((0, 50));
        assert_eq!(
            b,
            Breakdown {
                compute_ns: 20,
                comm_total_ns: 20,
                comm_overlapped_ns: 10,
                comm_exposed_ns: 10,
                memory_exposed_ns: 5,
                idle_ns: 15,
                // No host events: every idle nanosecond is untraced.
                idle_causes: Some(IdleCauses {
                    untraced_ns: 15,
                    ..IdleCauses::default()
                }),
                compute_by_class: None,
            }
        );
        assert_eq!(b.step_ns(), 50);
        // Clipped: [22, 42) sees compute 8, comm exposed 0 (22..25 overlaps), memory 2, idle 10.
        let c = spans.window((22, 42));
        assert_eq!(
            (c.compute_ns, c.comm_exposed_ns, c.memory_exposed_ns, c.idle_ns),
            (8, 0, 2, 10)
        );
        assert_eq!(c.step_ns(), 20);
    }
}
