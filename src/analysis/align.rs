//! Aligning two trees of the model's pieces (docs/semantics.md#module-aligned-diff): children of matched nodes are paired
//! by the longest common subsequence of their keys — never greedily — and the pairs recursed into.
//!
//! Among alignments with the most pairs, the one that matches the most nodes inside the paired
//! subtrees wins, then the one whose pairs come earliest; timing never decides. That order is
//! what keeps a ResNet-50 layer of 6 blocks paired with the first 6 of a ResNet-152 layer's 36
//! (the first block holds the shortcut, so it only matches nodes inside the other first block;
//! the plain blocks then pair in order), whatever the timing noise.
//!
//! Wrappers are transparent: `OptimizedModule`, `DistributedDataParallel`,
//! `FullyShardedDataParallel`, `DataParallel`, and any module whose only child is one module
//! covering (nearly) all its time, align by what they wrap, so a compiled model pairs with its
//! eager self; the aligned node notes the wrappers of each side ([`AlignedNode::wrappers`]).
//!
//! Memory stays linear in the number of children: common prefixes and suffixes pair first, a
//! middle small enough gets the full search, a longer one Myers' diff of the keys.

use rustc_hash::FxHashMap;
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
pub const UNKNOWN_KEY: &str = "(unknown)";

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

/// Where a node came from: (file, row) of each event merged into it, so that a view can be
/// narrowed to what ran inside it (`operators --zoom`). The file is an index into the side's
/// selected files.
pub type Source = (u32, u32);

/// One side's tree (steps and ranks already merged node by node).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeNode {
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
}

impl TreeNode {
    /// A node without children.
    pub fn new(kind: NodeKind, key: String, times: Times, sources: Vec<Source>) -> TreeNode {
        TreeNode {
            kind,
            key,
            times,
            children: Vec::new(),
            sources,
            rest: Times::default(),
            children_overlap_ns: 0,
        }
    }

    /// The node with `children`, taken to run one after another inside it: its rest is what
    /// their summed times leave (never below 0; the excess of host time is their overlap).
    pub fn with_children(mut self, children: Vec<TreeNode>) -> TreeNode {
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
    pub fn size(&self) -> usize {
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
    /// The events merged into the node on each side (control, test).
    pub sources: [Vec<Source>; 2],
    /// Per side (control, test), how much its children's host times overlap (they ran
    /// concurrently); 0 when they ran one after another.
    pub children_overlap_ns: [i64; 2],
    /// Per side, the wrappers aligned through to reach this node, outermost first
    /// (`OptimizedModule`, `DistributedDataParallel`, …); empty where none.
    pub wrappers: [Vec<String>; 2],
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
pub fn child_path(parent: &str, n: &AlignedNode) -> String {
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
pub struct PathStack {
    path: String,
    /// Where each level's path ends in `path` (the root's is 0).
    ends: Vec<usize>,
}

impl PathStack {
    /// The path of `n`, visited at `level` (0 for the walk's top, whose path is `top_path`)
    /// right after an ancestor at `level - 1` (a preorder walk).
    pub fn visit(&mut self, n: &AlignedNode, level: usize, top_path: &str) -> &str {
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

/// A key as a path writes it: `/` and `\` inside it escaped with `\` (an annotation named
/// `model/encoder` is the segment `model\/encoder[0]`), so every path reads back as the node.
pub fn escape_key(key: &str) -> std::borrow::Cow<'_, str> {
    if key.contains(['/', '\\']) {
        std::borrow::Cow::Owned(key.replace('\\', "\\\\").replace('/', "\\/"))
    } else {
        std::borrow::Cow::Borrowed(key)
    }
}

/// The segments of a path: split at each `/` that no `\` escapes, escapes undone (`\/` a
/// slash, `\\` a backslash), empty segments (a slash at either end) left out.
pub fn path_segments(path: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => current.push(chars.next().unwrap_or('\\')),
            '/' => segments.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    segments.push(current);
    segments.retain(|s| !s.is_empty());
    segments
}

/// `Key[3]` → (`Key`, 3); `Key` → (`Key`, 0). `None` for a malformed ordinal.
pub fn parse_segment(segment: &str) -> Option<(&str, usize)> {
    match segment.strip_suffix(']').and_then(|s| s.rsplit_once('[')) {
        Some((key, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => Some((key, n.parse().ok()?)),
        Some(_) => None,
        None => Some((segment, 0)),
    }
}

/// Aligns two trees whose roots match (the selected steps).
pub fn align(control: &TreeNode, test: &TreeNode) -> AlignedNode {
    let mut aligner = Aligner::default();
    aligner.build(Task::Pair(control, test, None, [Vec::new(), Vec::new()]))
}

/// A side's tree on its own, every node `added` (test) or `deleted` (control).
pub fn one_sided(node: &TreeNode, status: Status) -> AlignedNode {
    let mut aligner = Aligner::default();
    aligner.build(Task::OneSided(node, status, None))
}

/// A node of the aligned tree still to make.
enum Task<'t> {
    /// Two nodes paired (after their wrappers, which are named), with their ordinal.
    Pair(&'t TreeNode, &'t TreeNode, Option<u32>, [Vec<String>; 2]),
    OneSided(&'t TreeNode, Status, Option<u32>),
    /// A node already made (an `unknown` child).
    Done(AlignedNode),
}

/// Merges two trees of one side (steps or ranks) node by node: aligned as two sides would be
/// (without seeing through wrappers), matched nodes summed (calls, host and device time, what
/// the children leave), the others kept in aligned order.
pub fn merge(a: TreeNode, b: TreeNode) -> TreeNode {
    // Bottom-up over the pairs to merge, so that deep trees need no deep recursion.
    let mut aligner = Aligner::default();
    // Each entry: the two nodes, their children (merged ones filled in later), and where the
    // merged node goes.
    struct Entry {
        a: TreeNode,
        b: TreeNode,
        children: Vec<Option<TreeNode>>,
        up: Option<(usize, usize)>,
    }
    let mut entries: Vec<Entry> = Vec::new();
    // The two nodes to merge, and where the result goes (parent entry, child slot).
    type Todo = (TreeNode, TreeNode, Option<(usize, usize)>);
    let mut todo: Vec<Todo> = vec![(a, b, None)];
    while let Some((mut a, mut b, up)) = todo.pop() {
        let pairs = aligner.align_children(&a.children, &b.children, false);
        let mut a_children: Vec<Option<TreeNode>> = std::mem::take(&mut a.children).into_iter().map(Some).collect();
        let mut b_children: Vec<Option<TreeNode>> = std::mem::take(&mut b.children).into_iter().map(Some).collect();
        let id = entries.len();
        let mut children: Vec<Option<TreeNode>> = Vec::with_capacity(a_children.len().max(b_children.len()));
        let (mut i, mut j) = (0, 0);
        for &(pi, pj) in &pairs {
            children.extend((i..pi).map(|k| a_children[k].take()));
            children.extend((j..pj).map(|k| b_children[k].take()));
            if let (Some(x), Some(y)) = (a_children[pi].take(), b_children[pj].take()) {
                todo.push((x, y, Some((id, children.len()))));
                children.push(None);
            }
            i = pi + 1;
            j = pj + 1;
        }
        children.extend((i..a_children.len()).map(|k| a_children[k].take()));
        children.extend((j..b_children.len()).map(|k| b_children[k].take()));
        entries.push(Entry { a, b, children, up });
    }
    // Children entries come after their parents: finish from the back.
    let mut root = None;
    while let Some(e) = entries.pop() {
        let node = TreeNode {
            kind: e.a.kind,
            key: e.a.key,
            times: e.a.times.plus(e.b.times),
            children: e.children.into_iter().flatten().collect(),
            sources: [e.a.sources, e.b.sources].concat(),
            rest: e.a.rest.plus(e.b.rest),
            children_overlap_ns: e.a.children_overlap_ns + e.b.children_overlap_ns,
        };
        match e.up {
            Some((parent, slot)) => entries[parent].children[slot] = Some(node),
            None => root = Some(node),
        }
    }
    root.unwrap_or_else(|| TreeNode::new(NodeKind::Unknown, String::new(), Times::default(), Vec::new()))
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

/// The score of an alignment, compared field by field: more pairs, then more nodes matched
/// inside the pairs.
type Score = (u32, u64);

fn plus(a: Score, b: Score) -> Score {
    (a.0 + b.0, a.1 + b.1)
}

/// Module wrappers that are always aligned through (what `torch.compile` and the data-parallel
/// wrappers put around a model).
pub const WRAPPERS: [&str; 4] = [
    "OptimizedModule",
    "DistributedDataParallel",
    "FullyShardedDataParallel",
    "DataParallel",
];

/// The node that wrapper `n` wraps, or `None` when `n` is no wrapper: a named wrapper's module
/// (through single-child annotations such as `DistributedDataParallel.forward`), or the only
/// child of a module when it is a module covering at least 90% of its host time.
pub fn wrapped(n: &TreeNode) -> Option<&TreeNode> {
    // A module, or its mirror in the backward tree (`OptimizedModule.backward`).
    let (class, inner_kind) = match n.kind {
        NodeKind::Module => (n.key.as_str(), NodeKind::Module),
        NodeKind::Backward => (n.key.strip_suffix(".backward")?, NodeKind::Backward),
        _ => return None,
    };
    if WRAPPERS.contains(&class) {
        let mut inner = n;
        while let [only] = inner.children.as_slice() {
            if only.kind == inner_kind {
                return Some(only);
            }
            inner = only;
        }
        return None;
    }
    match n.children.as_slice() {
        [only]
            if only.kind == inner_kind
                && only.times.host_total_ns.saturating_mul(10) >= n.times.host_total_ns.saturating_mul(9) =>
        {
            Some(only)
        }
        _ => None,
    }
}

/// A node and what it wraps, outermost first.
fn chain(n: &TreeNode) -> Vec<&TreeNode> {
    let mut out = vec![n];
    while let Some(inner) = out.last().and_then(|&x| wrapped(x)) {
        out.push(inner);
    }
    out
}

/// Whether `n` is one of the named wrappers (or its backward mirror).
fn is_named_wrapper(n: &TreeNode) -> bool {
    let class = match n.kind {
        NodeKind::Module => n.key.as_str(),
        NodeKind::Backward => n.key.strip_suffix(".backward").unwrap_or(""),
        _ => "",
    };
    WRAPPERS.contains(&class)
}

/// The key a node aligns by: its own, or (`see_through`) that of the node inside its named
/// wrappers. Single-child wrappers pair afterwards, in the gaps ([`pair_single_wrappers`]).
fn align_key(n: &TreeNode, see_through: bool) -> (NodeKind, &str) {
    let mut inner = n;
    while see_through && is_named_wrapper(inner) {
        match wrapped(inner) {
            Some(next) => inner = next,
            None => break,
        }
    }
    (inner.kind, inner.key.as_str())
}

/// Whether one node's wrapper chain reaches the other's key.
fn wraps_the_other(a: &TreeNode, b: &TreeNode) -> bool {
    chain(a).iter().any(|x| same_key(x, b)) || chain(b).iter().any(|y| same_key(a, y))
}

/// Adds to `pairs` (of `a` and `b`, in order) the gaps of exactly one unpaired node per side
/// where one is a wrapper around the other's key (`Sequential` holding just a `Linear` against
/// a `Linear`).
fn pair_single_wrappers(a: &[TreeNode], b: &[TreeNode], pairs: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(pairs.len());
    let (mut i, mut j) = (0, 0);
    let ends = pairs.iter().copied().chain([(a.len(), b.len())]);
    for (pi, pj) in ends {
        if pi == i + 1 && pj == j + 1 && wraps_the_other(&a[i], &b[j]) {
            out.push((i, j));
        }
        if pi < a.len() && pj < b.len() {
            out.push((pi, pj));
        }
        (i, j) = (pi + 1, pj + 1);
    }
    out
}

/// For two nodes with the same alignment key: the outermost pair in their wrapper chains with
/// the same key, and the wrappers' keys above it on each side.
fn unwrap_pair<'t>(a: &'t TreeNode, b: &'t TreeNode) -> (&'t TreeNode, &'t TreeNode, [Vec<String>; 2]) {
    if same_key(a, b) {
        return (a, b, [Vec::new(), Vec::new()]);
    }
    let (ca, cb) = (chain(a), chain(b));
    let mut first_in_b: FxHashMap<(NodeKind, &str), usize> = FxHashMap::default();
    for (j, y) in cb.iter().enumerate() {
        first_in_b.entry((y.kind, y.key.as_str())).or_insert(j);
    }
    let mut best: Option<(usize, usize)> = None;
    for (i, x) in ca.iter().enumerate() {
        if let Some(&j) = first_in_b.get(&(x.kind, x.key.as_str()))
            && best.is_none_or(|(bi, bj)| i + j < bi + bj)
        {
            best = Some((i, j));
        }
    }
    let (i, j) = best.unwrap_or((ca.len() - 1, cb.len() - 1));
    let names = |c: &[&TreeNode], k: usize| c[..k].iter().map(|n| n.key.clone()).collect();
    (ca[i], cb[j], [names(&ca, i), names(&cb, j)])
}

/// What the wrappers of a paired node leave besides what they wrap, added to its rest.
fn wrapped_rest(outer: &TreeNode, inner: &TreeNode) -> (Times, i64) {
    let mut rest = inner.rest;
    let mut overlap = inner.children_overlap_ns;
    let mut n = outer;
    while !std::ptr::eq(n, inner) {
        rest = rest.plus(n.rest);
        overlap += n.children_overlap_ns;
        match wrapped(n) {
            Some(next) => n = next,
            None => break,
        }
    }
    (rest, overlap)
}

/// Memoised counts of matched nodes inside aligned subtrees, keyed by the nodes' addresses
/// (the trees are borrowed and unchanged for the whole alignment).
#[derive(Default)]
struct Aligner {
    inner: FxHashMap<(usize, usize), u64>,
}

fn addr(a: &TreeNode, b: &TreeNode) -> (usize, usize) {
    (a as *const TreeNode as usize, b as *const TreeNode as usize)
}

impl Aligner {
    /// Makes the aligned tree of `task` without recursion: nodes are made parents first into
    /// an arena, then each moved into its parent from the back.
    fn build(&mut self, task: Task<'_>) -> AlignedNode {
        let mut made: Vec<(Option<AlignedNode>, usize)> = Vec::new();
        // A queue: each node's children are made in their order.
        let mut todo: std::collections::VecDeque<(Task<'_>, usize)> = [(task, usize::MAX)].into();
        while let Some((task, parent)) = todo.pop_front() {
            let id = made.len();
            let (mut node, children) = match task {
                Task::Pair(a, b, ordinal, wrappers) => self.pair_children(a, b, ordinal, wrappers),
                Task::OneSided(n, status, ordinal) => one_sided_children(n, status, ordinal),
                Task::Done(node) => (node, Vec::new()),
            };
            node.id = id;
            made.push((Some(node), parent));
            todo.extend(children.into_iter().map(|t| (t, id)));
        }
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); made.len()];
        for (id, &(_, parent)) in made.iter().enumerate() {
            if parent != usize::MAX {
                kids[parent].push(id);
            }
        }
        for id in (0..made.len()).rev() {
            let children: Vec<AlignedNode> = kids[id].iter().filter_map(|&k| made[k].0.take()).collect();
            if let Some(node) = made[id].0.as_mut() {
                node.children = children;
            }
        }
        made.first_mut()
            .and_then(|m| m.0.take())
            .unwrap_or_else(|| unknown_node(&mut Ordinals::default(), None, None))
    }

    /// The aligned node of a pair (without its children), and its children to make.
    fn pair_children<'t>(
        &mut self,
        outer_a: &'t TreeNode,
        outer_b: &'t TreeNode,
        ordinal: Option<u32>,
        wrappers: [Vec<String>; 2],
    ) -> (AlignedNode, Vec<Task<'t>>) {
        let (a, b) = (outer_a, outer_b);
        let (ia, ib) = inner_of_pair(a, b, &wrappers);
        let pairs = self.align_children(&ia.children, &ib.children, true);
        let mut ordinals = Ordinals::default();
        let mut children = Vec::with_capacity(ia.children.len().max(ib.children.len()) + 1);
        let (mut i, mut j) = (0, 0);
        let deleted = |c: &'t TreeNode, o: &mut Ordinals| Task::OneSided(c, Status::Deleted, Some(o.next(&c.key)));
        let added = |c: &'t TreeNode, o: &mut Ordinals| Task::OneSided(c, Status::Added, Some(o.next(&c.key)));
        for &(pi, pj) in &pairs {
            for c in &ia.children[i..pi] {
                children.push(deleted(c, &mut ordinals));
            }
            for c in &ib.children[j..pj] {
                children.push(added(c, &mut ordinals));
            }
            let (x, y, w) = unwrap_pair(&ia.children[pi], &ib.children[pj]);
            let p = Some(ordinals.next(&x.key));
            let _ = y;
            children.push(Task::Pair(&ia.children[pi], &ib.children[pj], p, w));
            i = pi + 1;
            j = pj + 1;
        }
        for c in &ia.children[i..] {
            children.push(deleted(c, &mut ordinals));
        }
        for c in &ib.children[j..] {
            children.push(added(c, &mut ordinals));
        }
        let (rest_a, overlap_a) = wrapped_rest(a, ia);
        let (rest_b, overlap_b) = wrapped_rest(b, ib);
        if !ia.children.is_empty() || !ib.children.is_empty() {
            children.push(Task::Done(unknown_node(&mut ordinals, Some(rest_a), Some(rest_b))));
        }
        let node = AlignedNode {
            kind: ia.kind,
            key: ia.key.clone(),
            ordinal,
            id: 0,
            status: Status::Matched,
            control: Some(a.times),
            test: Some(b.times),
            children: Vec::new(),
            sources: [a.sources.clone(), b.sources.clone()],
            children_overlap_ns: [overlap_a, overlap_b],
            wrappers,
        };
        (node, children)
    }

    /// The number of nodes matched inside the alignment of `a` and `b` (both excluded), with
    /// the counts of the child pairs it needs computed first, bottom-up (no recursion).
    fn inner_matches(&mut self, a: &TreeNode, b: &TreeNode) -> u64 {
        let mut todo = vec![(a, b)];
        while let Some(&(a, b)) = todo.last() {
            let (a, b, _) = unwrap_pair(a, b);
            if a.children.is_empty() || b.children.is_empty() {
                self.inner.insert(addr(a, b), 0);
                todo.pop();
                continue;
            }
            if self.inner.contains_key(&addr(a, b)) {
                todo.pop();
                continue;
            }
            let before = todo.len();
            for (i, j) in candidate_pairs(&a.children, &b.children) {
                let (x, y) = (&a.children[i], &b.children[j]);
                let (ux, uy, _) = unwrap_pair(x, y);
                if !self.inner.contains_key(&addr(ux, uy)) {
                    todo.push((x, y));
                }
            }
            if todo.len() == before {
                let pairs = self.align_children(&a.children, &b.children, true);
                let n = pairs
                    .iter()
                    .map(|&(i, j)| 1 + self.known_inner(&a.children[i], &b.children[j]))
                    .sum();
                self.inner.insert(addr(a, b), n);
                todo.pop();
            }
        }
        self.known_inner(a, b)
    }

    fn known_inner(&self, a: &TreeNode, b: &TreeNode) -> u64 {
        let (a, b, _) = unwrap_pair(a, b);
        self.inner.get(&addr(a, b)).copied().unwrap_or(0)
    }

    /// The pairs `(i, j)` of the best alignment of two child lists, in order. `see_through`:
    /// wrappers align by what they wrap.
    fn align_children(&mut self, a: &[TreeNode], b: &[TreeNode], see_through: bool) -> Vec<(usize, usize)> {
        if a.len().saturating_mul(b.len()) <= LARGE_TABLE {
            let pairs = self.best_pairs(a, b, see_through);
            return if see_through {
                pair_single_wrappers(a, b, pairs)
            } else {
                pairs
            };
        }
        let (prefix, suffix) = common_ends(a, b, see_through);
        let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let shift = |v: Vec<(usize, usize)>, da: usize, db: usize| v.into_iter().map(move |(i, j)| (i + da, j + db));
        pairs.extend((0..prefix).map(|k| (k, k)));
        if a_mid.len().saturating_mul(b_mid.len()) <= LARGE_TABLE {
            pairs.extend(shift(self.best_pairs(a_mid, b_mid, see_through), prefix, prefix));
        } else {
            pairs.extend(shift(myers_pairs(a_mid, b_mid, see_through), prefix, prefix));
        }
        pairs.extend((0..suffix).rev().map(|k| (a.len() - 1 - k, b.len() - 1 - k)));
        pairs
    }

    /// What pairing `a` with `b` adds to an alignment's score.
    fn gain(&mut self, a: &TreeNode, b: &TreeNode, see_through: bool) -> Score {
        let _ = see_through;
        (1, self.inner_matches(a, b))
    }

    /// The full search: a table of the best score of every pair of suffixes.
    fn best_pairs(&mut self, a: &[TreeNode], b: &[TreeNode], see_through: bool) -> Vec<(usize, usize)> {
        let (n, m) = (a.len(), b.len());
        if n == 0 || m == 0 {
            return Vec::new();
        }
        let same = |x: &TreeNode, y: &TreeNode| align_key(x, see_through) == align_key(y, see_through);
        // best[i * width + j]: the best score of a[i..] against b[j..]; filled from the ends.
        let width = m + 1;
        let mut best: Vec<Score> = vec![(0, 0); (n + 1) * width];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                let mut s = best[(i + 1) * width + j].max(best[i * width + j + 1]);
                if same(&a[i], &b[j]) {
                    s = s.max(plus(
                        best[(i + 1) * width + j + 1],
                        self.gain(&a[i], &b[j], see_through),
                    ));
                }
                best[i * width + j] = s;
            }
        }
        // Walk forward, pairing as soon as pairing is as good as anything else: among equal
        // alignments, the earliest pairs.
        let mut pairs = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < n && j < m {
            let here = best[i * width + j];
            if same(&a[i], &b[j]) && plus(best[(i + 1) * width + j + 1], self.gain(&a[i], &b[j], see_through)) == here {
                pairs.push((i, j));
                i += 1;
                j += 1;
            } else if best[(i + 1) * width + j] == here {
                i += 1;
            } else {
                j += 1;
            }
        }
        pairs
    }
}

/// Long lists: the lengths of the common prefix and suffix of keys, which pair directly (the
/// earliest pairs; a run of same-key siblings, an RNN cell called 8,000 times, pairs in order).
fn common_ends(a: &[TreeNode], b: &[TreeNode], see_through: bool) -> (usize, usize) {
    let same = |x: &TreeNode, y: &TreeNode| align_key(x, see_through) == align_key(y, see_through);
    let prefix = a.iter().zip(b).take_while(|(x, y)| same(x, y)).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| same(x, y))
        .count();
    (prefix, suffix)
}

/// Every pair of children whose inner count [`Aligner::align_children`] may ask for: each pair
/// of same-key children of short lists; of long lists, the common prefix and suffix and the
/// pairs of the middle (each same-key pair of a short middle, Myers' pairs of a long one). So
/// the counts take memory linear in long lists, not their product.
fn candidate_pairs(a: &[TreeNode], b: &[TreeNode]) -> Vec<(usize, usize)> {
    let same = |x: &TreeNode, y: &TreeNode| align_key(x, true) == align_key(y, true);
    let all_same = |a: &[TreeNode], b: &[TreeNode], da: usize, db: usize| {
        let mut out = Vec::new();
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                if same(x, y) {
                    out.push((i + da, j + db));
                }
            }
        }
        out
    };
    if a.len().saturating_mul(b.len()) <= LARGE_TABLE {
        return all_same(a, b, 0, 0);
    }
    let (prefix, suffix) = common_ends(a, b, true);
    let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut out: Vec<(usize, usize)> = (0..prefix).map(|k| (k, k)).collect();
    if a_mid.len().saturating_mul(b_mid.len()) <= LARGE_TABLE {
        out.extend(all_same(a_mid, b_mid, prefix, prefix));
    } else {
        out.extend(
            myers_pairs(a_mid, b_mid, true)
                .into_iter()
                .map(|(i, j)| (i + prefix, j + prefix)),
        );
    }
    out.extend((0..suffix).map(|k| (a.len() - 1 - k, b.len() - 1 - k)));
    out
}

/// The nodes a pair aligns the children of: after the wrappers its path names.
fn inner_of_pair<'t>(a: &'t TreeNode, b: &'t TreeNode, wrappers: &[Vec<String>; 2]) -> (&'t TreeNode, &'t TreeNode) {
    // `k` steps down the wrapper chain (never the whole chain: on a deep chain of single-child
    // modules that walk, once per node, was quadratic).
    let down = |n: &'t TreeNode, k: usize| {
        let mut inner = n;
        for _ in 0..k {
            match wrapped(inner) {
                Some(next) => inner = next,
                None => return n,
            }
        }
        inner
    };
    (down(a, wrappers[0].len()), down(b, wrappers[1].len()))
}

/// A one-sided node (without its children) and its children to make.
fn one_sided_children(node: &TreeNode, status: Status, ordinal: Option<u32>) -> (AlignedNode, Vec<Task<'_>>) {
    let side = |t: Times| {
        if status == Status::Added {
            (None, Some(t))
        } else {
            (Some(t), None)
        }
    };
    let mut ordinals = Ordinals::default();
    let mut children: Vec<Task<'_>> = node
        .children
        .iter()
        .map(|c| Task::OneSided(c, status, Some(ordinals.next(&c.key))))
        .collect();
    if !node.children.is_empty() {
        let (control, test) = side(node.rest);
        children.push(Task::Done(unknown_node(&mut ordinals, control, test)));
    }
    let (control, test) = side(node.times);
    let (sources, overlap) = if status == Status::Added {
        ([Vec::new(), node.sources.clone()], [0, node.children_overlap_ns])
    } else {
        ([node.sources.clone(), Vec::new()], [node.children_overlap_ns, 0])
    };
    let aligned = AlignedNode {
        kind: node.kind,
        key: node.key.clone(),
        ordinal,
        id: 0,
        status,
        control,
        test,
        children: Vec::new(),
        sources,
        children_overlap_ns: overlap,
        wrappers: [Vec::new(), Vec::new()],
    };
    (aligned, children)
}

/// Pairs of a long middle by Myers' diff of the keys (linear memory): equal runs pair one to
/// one, in order.
fn myers_pairs<'t>(a: &'t [TreeNode], b: &'t [TreeNode], see_through: bool) -> Vec<(usize, usize)> {
    let mut ids: FxHashMap<(NodeKind, &'t str), u32> = FxHashMap::default();
    let mut id_of = |n: &'t TreeNode| -> u32 {
        let next = ids.len() as u32;
        *ids.entry(align_key(n, see_through)).or_insert(next)
    };
    let ka: Vec<u32> = a.iter().map(&mut id_of).collect();
    let kb: Vec<u32> = b.iter().map(&mut id_of).collect();
    let mut pairs = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &ka, &kb) {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            pairs.extend((0..len).map(|k| (old_index + k, new_index + k)));
        }
    }
    pairs
}

/// Child lists whose middle (after the common prefix and suffix) exceeds this many table cells
/// (16 bytes each) are aligned by Myers' diff of their keys instead of the full search.
const LARGE_TABLE: usize = 1 << 20;

fn same_key(a: &TreeNode, b: &TreeNode) -> bool {
    a.kind == b.kind && a.key == b.key
}

fn unknown_node(ordinals: &mut Ordinals, control: Option<Times>, test: Option<Times>) -> AlignedNode {
    AlignedNode {
        kind: NodeKind::Unknown,
        key: UNKNOWN_KEY.to_string(),
        ordinal: Some(ordinals.next(UNKNOWN_KEY)),
        id: 0,
        status: Status::Unknown,
        control,
        test,
        children: Vec::new(),
        sources: [Vec::new(), Vec::new()],
        children_overlap_ns: [0, 0],
        wrappers: [Vec::new(), Vec::new()],
    }
}

/// Counts same-key siblings to give each child its ordinal.
#[derive(Default)]
struct Ordinals {
    seen: FxHashMap<String, u32>,
}

impl Ordinals {
    /// The ordinal of the next child with `key`.
    fn next(&mut self, key: &str) -> u32 {
        let n = self.seen.entry(key.to_string()).or_insert(0);
        *n += 1;
        *n - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_escape_a_slash_and_read_back() {
        assert_eq!(escape_key("model/encoder"), "model\\/encoder");
        assert_eq!(escape_key("a\\b"), "a\\\\b");
        assert_eq!(escape_key("Linear"), "Linear");
        assert_eq!(
            path_segments("/model\\/encoder[0]/Linear/"),
            ["model/encoder[0]", "Linear"]
        );
        assert_eq!(path_segments("a\\\\/b"), ["a\\", "b"]);
        assert_eq!(path_segments("/[0]"), ["[0]"]);
        for key in ["model/encoder", "a\\b/", "x[3]"] {
            assert_eq!(path_segments(&escape_key(key)), [key]);
        }
    }

    fn node(kind: NodeKind, key: &str, host: i64, children: Vec<TreeNode>) -> TreeNode {
        let times = Times {
            calls: Some(1),
            host_total_ns: host,
            device_total_ns: None,
        };
        TreeNode::new(kind, key.to_string(), times, Vec::new()).with_children(children)
    }

    fn module(key: &str, host: i64, children: Vec<TreeNode>) -> TreeNode {
        node(NodeKind::Module, key, host, children)
    }

    fn step(children: Vec<TreeNode>) -> TreeNode {
        let host = children.iter().map(|c| c.times.host_total_ns).sum::<i64>() + 5;
        node(NodeKind::Step, "ProfilerStep", host, children)
    }

    /// The children of `n` (a node of the tree under `root`): their paths and statuses.
    fn statuses(root: &AlignedNode, n: &AlignedNode) -> Vec<(String, &'static str)> {
        let path = root.path_of(n.id).unwrap();
        n.children
            .iter()
            .map(|c| (child_path(&path, c), c.status.as_str()))
            .collect()
    }

    /// A bottleneck block; the first of a layer holds the shortcut (`downsample`).
    fn block(first: bool, host: i64) -> TreeNode {
        let mut children = vec![
            module("Conv2d", host / 4, vec![]),
            module("BatchNorm2d", host / 4, vec![]),
        ];
        if first {
            children.push(module("Sequential", host / 4, vec![module("Conv2d", host / 8, vec![])]));
        }
        module("Bottleneck", host, children)
    }

    fn layer(blocks: usize, noise: impl Fn(usize) -> i64) -> TreeNode {
        let children: Vec<TreeNode> = (0..blocks).map(|k| block(k == 0, 1000 + noise(k))).collect();
        let host = children.iter().map(|c| c.times.host_total_ns).sum();
        module("Sequential", host, children)
    }

    #[test]
    fn a_short_layer_pairs_with_the_first_blocks_of_a_long_one() {
        // Noise makes block 2 of the long layer closest in time to the short layer's first
        // block; the shortcut still pairs first with first, and the plain blocks in order.
        let control = step(vec![layer(3, |_| 0)]);
        let test = step(vec![layer(8, |k| if k == 2 { 0 } else { 300 })]);
        let aligned = align(&control, &test);
        let seq = aligned.find("Sequential").unwrap();
        let got = statuses(&aligned, seq);
        assert_eq!(got[0], ("Sequential[0]/Bottleneck[0]".to_string(), "matched"));
        assert_eq!(seq.children[0].children.len(), 4, "conv, bn, shortcut, unknown");
        assert_eq!(
            got.iter().filter(|(_, s)| *s == "matched").count(),
            3,
            "every block of the shorter layer is paired"
        );
        assert_eq!(got.iter().filter(|(_, s)| *s == "added").count(), 5);
        assert_eq!(got.iter().filter(|(_, s)| *s == "deleted").count(), 0);
        assert_eq!(got.last().unwrap().1, "unknown");
        let matched: Vec<&str> = got
            .iter()
            .filter(|(_, s)| *s == "matched")
            .map(|(p, _)| p.as_str())
            .collect();
        assert_eq!(
            matched,
            [
                "Sequential[0]/Bottleneck[0]",
                "Sequential[0]/Bottleneck[1]",
                "Sequential[0]/Bottleneck[2]"
            ]
        );
    }

    #[test]
    fn wrappers_are_transparent() {
        let model = || module("GPT2LMHeadModel", 100, vec![module("Linear", 50, vec![])]);
        let control = step(vec![model()]);
        let test = step(vec![module("OptimizedModule", 110, vec![model()])]);
        let aligned = align(&control, &test);
        let got = statuses(&aligned, &aligned);
        assert_eq!(got[0], ("GPT2LMHeadModel[0]".to_string(), "matched"));
        let m = &aligned.children[0];
        assert_eq!(m.wrappers, [vec![], vec!["OptimizedModule".to_string()]]);
        assert_eq!(m.test.unwrap().host_total_ns, 110);
        // The wrapper's own 10 ns go to the pair's unknown: children still add up.
        let unknown = m.children.last().unwrap();
        assert_eq!(unknown.test.unwrap().host_total_ns, 60);
        assert_eq!(unknown.control.unwrap().host_total_ns, 50);
        assert_eq!(
            statuses(&aligned, m)[0],
            ("GPT2LMHeadModel[0]/Linear[0]".to_string(), "matched")
        );
    }

    #[test]
    fn concurrent_children_report_their_overlap_never_a_negative_rest() {
        let control = node(
            NodeKind::Step,
            "ProfilerStep",
            100,
            vec![module("A", 80, vec![]), module("B", 60, vec![])],
        );
        let aligned = align(&control, &control);
        assert_eq!(aligned.children_overlap_ns, [40, 40]);
        assert_eq!(aligned.children.last().unwrap().control.unwrap().host_total_ns, 0);
    }

    #[test]
    fn deep_trees_align_without_recursion() {
        let make = || {
            let mut deep = module("Leaf", 1, vec![]);
            for k in 0..6_000 {
                deep = module(
                    if k % 2 == 0 { "Block" } else { "Layer" },
                    1,
                    vec![deep, module("Leaf", 0, vec![])],
                );
            }
            step(vec![deep])
        };
        let tree = make();
        let aligned = align(&tree, &tree);
        assert_eq!(aligned.matched(), tree.size());
        let merged = merge(make(), make());
        assert_eq!(merged.size(), tree.size());
        // Dropping is recursive in std: leak the deep trees rather than overflow a test thread.
        std::mem::forget((aligned, merged, tree));
    }

    #[test]
    fn timing_never_breaks_ties_the_earliest_pair_wins() {
        let control = step(vec![module("Linear", 100, vec![])]);
        let test = step(vec![
            module("Linear", 300, vec![]),
            module("Linear", 110, vec![]),
            module("Linear", 110, vec![]),
        ]);
        let aligned = align(&control, &test);
        assert_eq!(
            statuses(&aligned, &aligned),
            vec![
                ("Linear[0]".to_string(), "matched"),
                ("Linear[1]".to_string(), "added"),
                ("Linear[2]".to_string(), "added"),
                ("(unknown)[0]".to_string(), "unknown"),
            ]
        );
    }

    #[test]
    fn never_greedy_a_renamed_block_does_not_consume_the_rest() {
        let control = step(vec![
            module("Embedding", 10, vec![]),
            module("ManualLayerNorm", 50, vec![]),
            module("Linear", 20, vec![]),
            module("Dropout", 5, vec![]),
        ]);
        let test = step(vec![
            module("Embedding", 10, vec![]),
            module("LayerNorm", 30, vec![]),
            module("Linear", 20, vec![]),
            module("Dropout", 5, vec![]),
        ]);
        let aligned = align(&control, &test);
        let got: Vec<(String, &str)> = statuses(&aligned, &aligned);
        assert_eq!(
            got,
            vec![
                ("Embedding[0]".to_string(), "matched"),
                ("ManualLayerNorm[0]".to_string(), "deleted"),
                ("LayerNorm[0]".to_string(), "added"),
                ("Linear[0]".to_string(), "matched"),
                ("Dropout[0]".to_string(), "matched"),
                ("(unknown)[0]".to_string(), "unknown"),
            ]
        );
    }

    #[test]
    fn kinds_must_match_too() {
        let control = step(vec![node(NodeKind::Annotation, "Linear", 10, vec![])]);
        let test = step(vec![module("Linear", 10, vec![])]);
        let aligned = align(&control, &test);
        assert_eq!(aligned.matched(), 1, "only the roots");
    }

    #[test]
    fn children_always_sum_to_the_parent() {
        fn check(n: &AlignedNode) {
            let here = format!("{}", n.id);
            if !n.children.is_empty() {
                let sides: [fn(&AlignedNode) -> Option<Times>; 2] = [|t| t.control, |t| t.test];
                for side in sides {
                    if let Some(parent) = side(n) {
                        let sum: i64 = n.children.iter().filter_map(side).map(|t| t.host_total_ns).sum();
                        assert_eq!(sum, parent.host_total_ns, "node {here}");
                    }
                }
            }
            n.children.iter().for_each(check);
        }
        let control = step(vec![layer(3, |_| 0), module("Linear", 7, vec![])]);
        let test = step(vec![layer(5, |k| k as i64), module("Conv", 9, vec![])]);
        check(&align(&control, &test));
    }

    #[test]
    fn long_lists_pair_prefix_and_suffix_and_search_the_middle() {
        let ops = |keys: &[&str]| -> Vec<TreeNode> { keys.iter().map(|k| node(NodeKind::Op, k, 10, vec![])).collect() };
        let mut a_keys: Vec<&str> = vec!["aten::mm"; 1200];
        let mut b_keys = a_keys.clone();
        a_keys[600] = "aten::relu";
        b_keys[600] = "aten::gelu";
        b_keys.insert(601, "aten::add");
        let aligned = align(&step(ops(&a_keys)), &step(ops(&b_keys)));
        let count = |s: Status| aligned.children.iter().filter(|c| c.status == s).count();
        assert_eq!(count(Status::Matched), 1199);
        assert_eq!(count(Status::Deleted), 1);
        assert_eq!(count(Status::Added), 2);
        assert_eq!(aligned.children[600].key, "aten::relu");
    }

    #[test]
    fn merging_steps_sums_matched_nodes_and_keeps_the_rest() {
        let one = step(vec![module("Linear", 10, vec![]), module("Dropout", 2, vec![])]);
        let two = step(vec![
            node(NodeKind::Annotation, "enumerate(DataLoader)", 4, vec![]),
            module("Linear", 12, vec![]),
            module("Dropout", 3, vec![]),
        ]);
        let merged = merge(one.clone(), two.clone());
        let keys: Vec<&str> = merged.children.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, vec!["enumerate(DataLoader)", "Linear", "Dropout"]);
        assert_eq!(merged.children[1].times.calls, Some(2));
        assert_eq!(merged.children[1].times.host_total_ns, 22);
        assert_eq!(
            merged.times.host_total_ns,
            one.times.host_total_ns + two.times.host_total_ns
        );
    }

    #[test]
    fn paths_find_nodes_with_or_without_ordinals() {
        let control = step(vec![layer(2, |_| 0), layer(2, |_| 0)]);
        let aligned = align(&control, &control.clone());
        let b = aligned.find("Sequential[1]/Bottleneck[1]").unwrap();
        assert_eq!(aligned.path_of(b.id).unwrap(), "Sequential[1]/Bottleneck[1]");
        let first = aligned.find("Sequential/Bottleneck").unwrap();
        assert_eq!(aligned.path_of(first.id).unwrap(), "Sequential[0]/Bottleneck[0]");
        assert_eq!(aligned.path_of(0).unwrap(), "");
        assert!(aligned.path_of(usize::MAX).is_none());
        // A walk builds the same paths one level at a time.
        let mut stack = PathStack::default();
        let mut todo = vec![(&aligned, 0)];
        while let Some((n, level)) = todo.pop() {
            let walked = stack.visit(n, level, "").to_string();
            assert_eq!(walked, aligned.path_of(n.id).unwrap());
            todo.extend(n.children.iter().rev().map(|c| (c, level + 1)));
        }
        assert!(aligned.find("Sequential[2]").is_none());
        assert!(aligned.find("Sequential[x]").is_none());
        assert_eq!(aligned.matched(), control.size());
    }
}
