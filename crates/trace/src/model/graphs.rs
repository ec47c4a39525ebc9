//! Graph replays joined to their capture (docs/graphs.md#graph-replays).
//!
//! A device event launched by a graph launch (`cudaGraphLaunch`, …) is one node of a graph
//! captured earlier. Its capture is a run of launches between a stream's begin and end capture
//! (`cudaStreamBeginCapture` … `cudaStreamEndCapture`, the HIP and driver calls alike), or,
//! in a trace that records none, under a `capture_*` annotation: the capture trace a server
//! writes (`capture_traces/` beside the replay), or the capture region of the replay's own
//! trace. The replay's kernels are joined to the captured launches:
//!
//! 1. by `graph id` + `graph node id` (the node id's low 32 bits) where every replayed kernel
//!    and every captured launch carries them (PyTorch 2.12 and later);
//! 2. else by position: each graph launch, in time order, against the next captured graph in
//!    capture order (a captured graph that alone matches it, when the next does not), its
//!    kernels by start time against the captured launches in order, per stream; accepted only
//!    where the counts agree and every kernel name that both record agrees.
//!
//! A join is all or nothing per trace: one graph launch that cannot be joined refuses the whole
//! capture, with the reason ([`GraphJoin::refused`]), and the replay's kernels keep their owners
//! in the replay (never a wrong join). Every graph kernel also gets its **node ordinal**, its
//! place by start time among the kernels of its graph launch, which keys it without a capture.

use crate::model::attrs::{AttrSpec, AttrType};
use crate::model::owners::WorkKind;
use rustc_hash::FxHashMap;
use std::path::PathBuf;

/// The attribute column of a kernel's or a captured launch's `graph id`.
pub const GRAPH_ID: &str = "graph_id";
/// The attribute column of a kernel's or a captured launch's `graph node id`.
pub const GRAPH_NODE_ID: &str = "graph_node_id";
/// The attribute column of the kernel a captured launch names (`args.kernel`, HIP traces).
pub const LAUNCH_KERNEL: &str = "launch_kernel";

/// The attribute columns a join reads: graph and node ids on every trace, and on a capture
/// the kernel a launch names and its operator's input shapes (`Input Dims`).
pub fn attr_specs(capture: bool) -> Vec<AttrSpec> {
    let text = |column: &str, raw_key: &str| AttrSpec {
        column: column.to_string(),
        raw_key: raw_key.to_string(),
        ty: AttrType::String,
        default: String::new(),
    };
    let mut specs = vec![text(GRAPH_ID, "graph id"), text(GRAPH_NODE_ID, "graph node id")];
    if capture {
        specs.push(text(LAUNCH_KERNEL, "kernel"));
        specs.push(AttrSpec {
            column: "input_dims".to_string(),
            raw_key: "Input Dims".to_string(),
            ty: AttrType::Object,
            default: String::new(),
        });
    }
    specs
}

/// Whether a host call launches work that a stream capture records as a graph node: a kernel
/// launch, an asynchronous copy or set.
pub fn is_node_launch(name: &str) -> bool {
    name.contains("LaunchKernel")
        || name.contains("LaunchCooperativeKernel")
        || name.starts_with("cuLaunch")
        || ((name.contains("Memcpy") || name.contains("Memset")) && name.contains("Async"))
}

/// One captured launch replayed kernels were joined to, with what they inherit from it (names
/// index [`GraphJoin::names`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedLaunch {
    /// The launch's row in the capture.
    pub row: u32,
    /// What kind of event owns the launch in the capture (docs/graphs.md#launch-owners).
    pub kind: WorkKind,
    /// The owner's name: its operator's, Python frame's, annotation's or launch's.
    pub owner: u32,
    /// The operators enclosing the owner in the capture, innermost first.
    pub operators: Vec<u32>,
    /// The owner's input shapes (`Input Dims`), where the capture recorded them.
    pub shapes: Option<u32>,
    /// The host events enclosing the launch in the capture (its module path and Python stack),
    /// outermost first.
    pub stack: Vec<u32>,
    /// The host events enclosing the launch inside the captured work (those that started after
    /// the capture began, below a `capture_*` annotation that opened it), outermost first:
    /// the captured module path the modules tree places a replayed kernel on.
    pub frames: Vec<CapturedFrame>,
}

/// One host event enclosing a captured launch inside the captured work (names index
/// [`GraphJoin::names`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapturedFrame {
    /// Its row in the capture: one event, however many kernels it launched.
    pub row: u32,
    /// Its name.
    pub name: u32,
    /// Its category (`python_function`, `user_annotation`, `cpu_op`, …).
    pub cat: u32,
    /// Whether it is an operator (as the call tree counts them).
    pub operator: bool,
}

/// A replay trace's graph kernels, and their join to a capture where one was accepted.
#[derive(Debug, Clone, Default)]
pub struct GraphJoin {
    /// Where the capture came from (a file; the replay itself for a capture inside it); `None`
    /// where the trace replays graphs and no capture was found.
    pub capture_path: Option<PathBuf>,
    /// Whether the capture is inside the replay's own trace.
    pub in_trace: bool,
    /// The names the captured launches refer to, each once.
    pub names: Vec<String>,
    /// The captured launches joined to, indexed by [`Self::joined`]'s values.
    pub launches: Vec<CapturedLaunch>,
    /// Replay device row → index into [`Self::launches`], for every joined kernel.
    pub joined: FxHashMap<u32, u32>,
    /// Replay device row → its node ordinal inside its graph launch, for every graph kernel.
    pub node: FxHashMap<u32, u32>,
    /// Number of graph launches in the replay that launched a device event.
    pub graph_launches: usize,
    /// Why the capture was not joined, where it was refused.
    pub refused: Option<String>,
}

impl GraphJoin {
    /// The captured launch replay device event `row` was joined to.
    pub fn launch_of(&self, row: usize) -> Option<&CapturedLaunch> {
        let k = *self.joined.get(&(row as u32))?;
        self.launches.get(k as usize)
    }

    /// The name `id` of [`Self::names`].
    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", String::as_str)
    }
}
