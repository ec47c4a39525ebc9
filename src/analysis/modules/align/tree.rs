//! The trees: one side's ([`TreeNode`], with its [`Times`]) and the aligned one
//! ([`AlignedNode`], with the [`Status`] of each node), and the paths that name their nodes.

use super::keys::{escape_key, parse_segment, path_segments};
use crate::request::side::PerSide;
use serde::Serialize;

/// What a node of the tree stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// The selected ProfilerStep: the root.
    Step,
    /// An `nn.Module` frame.
    Module,
    /// A user annotation (`record_function`, `Optimizer.step#…`, …).
    Annotation,
    /// The autograd engine's work of a step.
    Backward,
    /// A top-level operator, where a trace has no module events.
    Op,
    /// A node's time that its children do not cover.
    Unknown,
}

impl NodeKind {
    /// The kind as outputs write it: `step`, `module`, `annotation`, `backward`, `op`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Step => "step",
            NodeKind::Module => "module",
            NodeKind::Annotation => "annotation",
            NodeKind::Backward => "backward",
            NodeKind::Op => "op",
            NodeKind::Unknown => "unknown",
        }
    }
}

/// The key of the `unknown` child that every node with children gets.
pub(super) const UNKNOWN_KEY: &str = "(unknown)";

/// Time of one node on one side. `calls` is `None` for `unknown` nodes; `device_total_ns` is
/// `None` on a side without device events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Times {
    /// How many events were merged into the node.
    pub calls: Option<u64>,
    /// Host time: the durations of those events summed, in ns.
    pub host_total_ns: i64,
    /// Device time of the work they launched (kernels, copies, sets), in ns.
    pub device_total_ns: Option<i64>,
}

impl Times {
    /// Two nodes' times summed; a device time absent on both stays absent.
    pub fn plus(self, other: Times) -> Times {
        let calls = match (self.calls, other.calls) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        let device_total_ns = match (self.device_total_ns, other.device_total_ns) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        Times {
            calls,
            host_total_ns: self.host_total_ns + other.host_total_ns,
            device_total_ns,
        }
    }
}

/// Where a node came from: (file, row) of each event merged into it, so that a view can be
/// narrowed to what ran inside it (`operators --zoom`). The file is an index into the side's
/// selected files.
pub(crate) type Source = (u32, u32);

/// One side's tree (steps and ranks already merged node by node).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeNode {
    /// What the node stands for.
    pub kind: NodeKind,
    /// Its name: the module's (`Linear`), the annotation's, the operator's; nodes with one key
    /// under one parent are told apart by their order.
    pub key: String,
    /// Its time, all its events summed.
    pub times: Times,
    /// The nodes that ran inside it, in the order they first ran.
    pub children: Vec<TreeNode>,
    /// The events merged into it.
    pub sources: Vec<Source>,
    /// What the children do not cover (the `unknown` child; calls `None`): host time outside
    /// the union of the children's intervals, device time outside their subtrees. Never
    /// negative. Zero without children.
    pub rest: Times,
    /// How much the children's host times overlap (children that ran concurrently, on other
    /// threads): Σ children − the time their union covers. 0 when they ran one after another.
    pub children_overlap_ns: i64,
    /// Whether the node was built from a graph's capture: its device time is replayed kernels
    /// placed on their captured module path (docs/graphs.md), its host time none.
    pub replayed: bool,
}

impl TreeNode {
    /// A node without children.
    pub(crate) fn new(kind: NodeKind, key: String, times: Times, sources: Vec<Source>) -> TreeNode {
        TreeNode {
            kind,
            key,
            times,
            children: Vec::new(),
            sources,
            rest: Times::default(),
            children_overlap_ns: 0,
            replayed: false,
        }
    }

    /// The node with `children`, taken to run one after another inside it: its rest is what
    /// their summed times leave (never below 0; the excess of host time is their overlap).
    #[cfg(test)]
    pub(crate) fn with_children(mut self, children: Vec<TreeNode>) -> TreeNode {
        let host: i64 = children.iter().map(|c| c.times.host_total_ns).sum();
        let device: i64 = children.iter().filter_map(|c| c.times.device_total_ns).sum();
        self.rest = Times {
            calls: None,
            host_total_ns: (self.times.host_total_ns - host).max(0),
            device_total_ns: self.times.device_total_ns.map(|d| (d - device).max(0)),
        };
        self.children_overlap_ns = (host - self.times.host_total_ns).max(0);
        self.children = children;
        self
    }

    /// The number of nodes in this subtree, itself included.
    #[cfg(test)]
    pub(crate) fn size(&self) -> usize {
        let mut count = 0;
        let mut todo = vec![self];
        while let Some(n) = todo.pop() {
            count += 1;
            todo.extend(&n.children);
        }
        count
    }
}

/// How a node of the aligned tree came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// On both sides.
    Matched,
    /// Only on the test side.
    Added,
    /// Only on the control side.
    Deleted,
    /// The time of a parent that its children do not cover.
    Unknown,
}

impl Status {
    /// The status as outputs write it: `matched`, `added`, `deleted`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Matched => "matched",
            Status::Added => "added",
            Status::Deleted => "deleted",
            Status::Unknown => "unknown",
        }
    }
}

/// A node of the aligned tree: one side's node, the other's, or both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignedNode {
    /// What the node stands for.
    pub kind: NodeKind,
    /// Its name (see [`TreeNode::key`]).
    pub key: String,
    /// Its place among its siblings: the ordinal among those with its key (its path segment is
    /// `key[ordinal]`); `None` for the root. The path (`A[0]/B[2]`) is not stored: it names
    /// every ancestor, so storing it would cost memory quadratic in the depth. Walks build it.
    pub ordinal: Option<u32>,
    /// The node's number in its tree (0 for the root, then parents before children, siblings
    /// in order), which keys per-node data such as significance.
    pub id: usize,
    /// On which sides it is.
    pub status: Status,
    /// Its time on the control side; `None` when only the test side has it.
    pub control: Option<Times>,
    /// Its time on the test side; `None` when only the control side has it.
    pub test: Option<Times>,
    /// The aligned children, in the order they ran.
    pub children: Vec<AlignedNode>,
    /// The events merged into the node on each side.
    pub sources: PerSide<Vec<Source>>,
    /// Per side (control, test), how much its children's host times overlap (they ran
    /// concurrently); 0 when they ran one after another.
    pub children_overlap_ns: [i64; 2],
    /// Per side, the wrappers aligned through to reach this node, outermost first
    /// (`OptimizedModule`, `DistributedDataParallel`, …); empty where none.
    pub wrappers: [Vec<String>; 2],
    /// Per side, whether the node was built from a graph's capture ([`TreeNode::replayed`]):
    /// its kernels ran via graph replay.
    pub replayed: [bool; 2],
}

impl AlignedNode {
    /// The number of matched nodes in this subtree, itself included.
    pub fn matched(&self) -> usize {
        let mut count = 0;
        let mut todo = vec![self];
        while let Some(n) = todo.pop() {
            count += usize::from(n.status == Status::Matched);
            todo.extend(&n.children);
        }
        count
    }

    /// The node at `path` (segments `Key[ordinal]` or `Key`, meaning `[0]`, joined by `/`).
    pub fn find(&self, path: &str) -> Option<&AlignedNode> {
        let mut node = self;
        for segment in path_segments(path) {
            let (key, ordinal) = parse_segment(&segment)?;
            node = node.children.iter().filter(|c| c.key == key).nth(ordinal)?;
        }
        Some(node)
    }

    /// Its path segment, `Key[ordinal]`; `None` for the root.
    pub fn segment(&self) -> Option<String> {
        self.ordinal.map(|k| format!("{}[{k}]", escape_key(&self.key)))
    }

    /// Its last segment, or its key for the root (how a tree's label names it).
    pub fn label(&self) -> String {
        self.segment().unwrap_or_else(|| self.key.clone())
    }

    /// The path of node `id` below this one (`""` for this one), or `None` when the subtree has
    /// no such node. One walk with parent links: linear in the subtree.
    pub fn path_of(&self, id: usize) -> Option<String> {
        let mut order: Vec<(&AlignedNode, usize)> = vec![(self, usize::MAX)];
        let mut k = 0;
        let found = loop {
            let (n, _) = *order.get(k)?;
            if n.id == id {
                break k;
            }
            order.extend(n.children.iter().map(|c| (c, k)));
            k += 1;
        };
        let mut segments = Vec::new();
        let mut at = found;
        while at != 0 {
            segments.extend(order[at].0.segment());
            at = order[at].1;
        }
        segments.reverse();
        Some(segments.join("/"))
    }
}

/// A node's path from its parent's: `parent/segment` (just the segment under the root).
pub(crate) fn child_path(parent: &str, n: &AlignedNode) -> String {
    match n.segment() {
        None => parent.to_string(),
        Some(s) if parent.is_empty() => s,
        Some(s) => format!("{parent}/{s}"),
    }
}

/// The paths of a depth-first walk, built one level at a time: the path of the node just
/// visited at `level` is the current path up to that level plus its segment. Memory stays
/// linear in the depth, where storing every node's path would be quadratic.
#[derive(Debug, Default)]
pub(crate) struct PathStack {
    path: String,
    /// Where each level's path ends in `path` (the root's is 0).
    ends: Vec<usize>,
}

impl PathStack {
    /// The path of `n`, visited at `level` (0 for the walk's top, whose path is `top_path`)
    /// right after an ancestor at `level - 1` (a preorder walk).
    pub(crate) fn visit(&mut self, n: &AlignedNode, level: usize, top_path: &str) -> &str {
        if level == 0 {
            self.path.clear();
            self.path.push_str(top_path);
        } else {
            self.path.truncate(self.ends[level - 1]);
            if let Some(s) = n.segment() {
                if !self.path.is_empty() {
                    self.path.push('/');
                }
                self.path.push_str(&s);
            }
        }
        self.ends.truncate(level);
        self.ends.push(self.path.len());
        &self.path
    }
}
