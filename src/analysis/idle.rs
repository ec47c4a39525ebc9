//! Why the device was idle (docs/breakdown.md#why-the-gpu-was-idle): each nanosecond of a
//! window in which no device event ran goes to the first of these that some host thread of the
//! rank was in at that time: a host collective, a synchronize (or blocking copy), another
//! runtime call (a launch), the data loader, any other operator, annotation or Python frame;
//! else it is untraced. The parts of a window sum to its idle time exactly.

use crate::analysis::intervals::{clipped_length, merge_spans, subtract_merged, union_merged};
use crate::model::iteration::step_number;
use crate::model::place::Place;
use crate::model::serving::is_serving_step;
use crate::model::store::TraceFile;
use crate::model::summary::IdleCauses;
use regex::Regex;
use rustc_hash::FxHashMap;
use std::sync::LazyLock;

/// What a host event is, for the idle causes; the order is the precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum HostActivity {
    /// A host-side collective: `gloo:*`, `c10d::*`, `nccl:*`, `record_param_comms`.
    Collective,
    /// A device, stream or event synchronize, or a blocking (not `Async`) copy.
    Synchronize,
    /// Any other runtime or driver call: launches, async copies and sets, event records.
    Launch,
    /// The data loader's annotation (`enumerate(DataLoader)#…`).
    Dataloader,
    /// Any other operator, annotation or Python frame (never a step annotation: `ProfilerStep#N`
    /// or a serving loop's step): the host was running its own code.
    Compute,
}

/// The runtime and driver categories (CUDA, the older `Runtime`, and every `*_runtime`).
fn is_runtime(cat: &str) -> bool {
    matches!(cat, "cuda_runtime" | "cuda_driver" | "Runtime") || cat.ends_with("_runtime")
}

static COLLECTIVE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(gloo:|c10d::|nccl:)|^record_param_comms$").expect("a valid pattern"));
// Synchronize calls of CUDA, HIP and the driver API, and the blocking copies: `cudaMemcpy`,
// `cudaMemcpy2D`, `hipMemcpy`, `cuMemcpyDtoH_v2` (not their `Async` forms).
static SYNCHRONIZE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)synchronize|^(cuda|hip)Memcpy(2D|3D|ToSymbol|FromSymbol|Peer)?$|^cuMemcpy(HtoD|DtoH|DtoD|2D|3D)?(_v2)?$",
    )
    .expect("a valid pattern")
});

/// The activity of a host event named `name` in category `cat`, or `None` for events that say
/// nothing of what the host was doing (step annotations, which cover everything).
pub(crate) fn host_activity(name: &str, cat: &str) -> Option<HostActivity> {
    if is_runtime(cat) {
        return Some(if SYNCHRONIZE.is_match(name) {
            HostActivity::Synchronize
        } else {
            HostActivity::Launch
        });
    }
    let step = step_number(name).is_some() || is_serving_step(name);
    if !matches!(cat, "cpu_op" | "Operator" | "user_annotation" | "python_function") || step {
        return None;
    }
    if cat == "python_function" {
        // A frame of `torch/distributed/distributed_c10d.py` is Python, not a collective.
        return Some(HostActivity::Compute);
    }
    Some(if COLLECTIVE.is_match(name) {
        HostActivity::Collective
    } else if name.starts_with("enumerate(DataLoader)") {
        HostActivity::Dataloader
    } else {
        HostActivity::Compute
    })
}

/// A file's host activity as merged spans, ready to split any window's idle time.
#[derive(Debug, Clone, Default)]
pub(crate) struct IdleSpans {
    /// Per activity, in precedence order: where the host was in it, outside every device
    /// event and every activity before it. Disjoint.
    layers: [Vec<(i64, i64)>; 5],
    /// Host collectives on every thread (device work or not): the host communication time.
    collectives: Vec<(i64, i64)>,
}

impl IdleSpans {
    /// The host events of `file`, against `device_all`, the merged spans of its device work;
    /// `device_comm`: whether it has communication kernels (NCCL's and the like).
    pub(crate) fn of_file(file: &TraceFile, device_all: &[(i64, i64)], device_comm: bool) -> IdleSpans {
        let ev = &file.events;
        // Per (name, category): its activity, and whether it is a launch call or may launch
        // one (a collective other than gloo's).
        let mut cache: FxHashMap<(u32, u32), (Option<HostActivity>, bool)> = FxHashMap::default();
        let mut spans: [Vec<(i64, i64)>; 5] = Default::default();
        let mut collectives = Vec::new();
        // Launch calls per thread: a collective that launches a kernel (NCCL's) is device
        // communication, not host communication. gloo runs on the host (what it launches is a
        // copy back to the device, or the caller's own work on the thread that started it), and
        // in a file without communication kernels no collective launched one.
        let mut launches: Vec<(u64, i64)> = Vec::new();
        for i in (0..ev.len()).filter(|&i| ev.place[i] == Place::Host) {
            let (activity, launches_or_may) = *cache.entry((ev.name[i].0, ev.cat[i].0)).or_insert_with(|| {
                let name = file.strings.resolve(ev.name[i]);
                let activity = host_activity(name, file.strings.resolve(ev.cat[i]));
                let flag = match activity {
                    Some(HostActivity::Launch) => name.contains("Launch"),
                    Some(HostActivity::Collective) => device_comm && !name.starts_with("gloo:"),
                    _ => false,
                };
                (activity, flag)
            });
            let Some(activity) = activity else { continue };
            let span = (ev.ts_ns[i], ev.ts_ns[i] + ev.dur_ns[i].max(0));
            if activity == HostActivity::Collective && !launches_or_may {
                spans[activity as usize].push(span);
            } else if activity == HostActivity::Collective {
                collectives.push((ev.thread_key(i), span));
            } else {
                if launches_or_may {
                    launches.push((ev.thread_key(i), span.0));
                }
                spans[activity as usize].push(span);
            }
        }
        launches.sort_unstable();
        // A collective that may launch a kernel and does is, on the host, the launch it makes:
        // its own time counts as an operator's.
        for (thread, span) in collectives {
            let first = launches.partition_point(|&l| l < (thread, span.0));
            let launches_one = launches.get(first).is_some_and(|&(t, ts)| t == thread && ts < span.1);
            let activity = if launches_one {
                HostActivity::Compute
            } else {
                HostActivity::Collective
            };
            spans[activity as usize].push(span);
        }
        let collectives = merge_spans(std::mem::take(&mut spans[HostActivity::Collective as usize]));
        let mut covered = device_all.to_vec();
        let mut layers: [Vec<(i64, i64)>; 5] = Default::default();
        for (k, s) in spans.into_iter().enumerate() {
            let merged = if k == HostActivity::Collective as usize {
                collectives.clone()
            } else {
                merge_spans(s)
            };
            layers[k] = subtract_merged(&merged, &covered);
            covered = union_merged(&covered, &merged);
        }
        IdleSpans { layers, collectives }
    }

    /// The idle causes of the window `[start, end)`, whose idle time is `idle_ns`.
    pub(crate) fn window(&self, (start, end): (i64, i64), idle_ns: i64) -> IdleCauses {
        let len = |k: usize| clipped_length(&self.layers[k], &[(start, end)]);
        let [host_comm_ns, synchronize_ns, launch_ns, dataloader_ns, host_compute_ns] = [0, 1, 2, 3, 4].map(len);
        IdleCauses {
            host_comm_ns,
            synchronize_ns,
            launch_ns,
            dataloader_ns,
            host_compute_ns,
            untraced_ns: idle_ns - host_comm_ns - synchronize_ns - launch_ns - dataloader_ns - host_compute_ns,
        }
    }

    /// The host communication time of the window `[start, end)`: the union of host collectives
    /// on every thread inside it, whether or not the device was busy meanwhile.
    pub(crate) fn host_comm(&self, (start, end): (i64, i64)) -> i64 {
        clipped_length(&self.collectives, &[(start, end)])
    }
}
