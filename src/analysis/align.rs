//! Aligning two trees of the model's pieces (docs/semantics.md#module-aligned-diff): children of matched nodes are paired
//! by the longest common subsequence of their keys — never greedily — and the pairs recursed into.
//!
//! Among alignments with the most pairs, the one that matches the most nodes inside the paired
//! subtrees wins, then the one whose pairs have the closest host times, then the one whose
//! pairs come earliest. That order is what keeps a ResNet-50 layer of 6 blocks paired with the
//! first 6 of a ResNet-152 layer's 36 (the first block holds the shortcut, so it only matches
//! nodes inside the other first block), whatever the timing noise.

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
    pub calls: Option<u64>,
    pub host_total_ns: i64,
    pub device_total_ns: Option<i64>,
}

/// Where a node came from: (file, row) of each event merged into it, so that a view can be
/// narrowed to what ran inside it (`operators --zoom`). The file is an index into the side's
/// selected files.
pub type Source = (u32, u32);

/// One side's tree (steps and ranks already merged node by node).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeNode {
    pub kind: NodeKind,
    pub key: String,
    pub times: Times,
    pub children: Vec<TreeNode>,
    pub sources: Vec<Source>,
}

impl TreeNode {
    /// The number of nodes in this subtree, itself included.
    pub fn size(&self) -> usize {
        1 + self.children.iter().map(TreeNode::size).sum::<usize>()
    }
}

/// How a node of the aligned tree came about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Matched,
    Added,
    Deleted,
    Unknown,
}

impl Status {
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
    pub kind: NodeKind,
    pub key: String,
    /// The keys below the root with their ordinals among same-key siblings, `A[0]/B[2]`; empty
    /// for the root.
    pub path: String,
    pub status: Status,
    pub control: Option<Times>,
    pub test: Option<Times>,
    pub children: Vec<AlignedNode>,
    /// The events merged into the node on each side (control, test).
    pub sources: [Vec<Source>; 2],
}

impl AlignedNode {
    /// The number of matched nodes in this subtree, itself included.
    pub fn matched(&self) -> usize {
        usize::from(self.status == Status::Matched) + self.children.iter().map(AlignedNode::matched).sum::<usize>()
    }

    /// The node at `path` (segments `Key[ordinal]` or `Key`, meaning `[0]`, joined by `/`).
    pub fn find(&self, path: &str) -> Option<&AlignedNode> {
        let mut node = self;
        for segment in path.split('/').filter(|s| !s.is_empty()) {
            let (key, ordinal) = parse_segment(segment)?;
            node = node.children.iter().filter(|c| c.key == key).nth(ordinal)?;
        }
        Some(node)
    }
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
    aligner.pair(control, test, String::new())
}

/// A side's tree on its own, every node `added` (test) or `deleted` (control).
pub fn one_sided(node: &TreeNode, status: Status, path: String) -> AlignedNode {
    let times = Some(node.times);
    let (control, test) = if status == Status::Added {
        (None, times)
    } else {
        (times, None)
    };
    let mut ordinals = Ordinals::default();
    let mut children: Vec<AlignedNode> = node
        .children
        .iter()
        .map(|c| {
            let p = ordinals.child_path(&path, &c.key);
            one_sided(c, status, p)
        })
        .collect();
    if !node.children.is_empty() {
        let unknown = uncovered(node, &node.children);
        let (control, test) = if status == Status::Added {
            (None, Some(unknown))
        } else {
            (Some(unknown), None)
        };
        children.push(unknown_node(&path, &mut ordinals, control, test));
    }
    let sources = if status == Status::Added {
        [Vec::new(), node.sources.clone()]
    } else {
        [node.sources.clone(), Vec::new()]
    };
    AlignedNode {
        kind: node.kind,
        key: node.key.clone(),
        path,
        status,
        control,
        test,
        children,
        sources,
    }
}

/// Merges two trees of one side (steps or ranks) node by node: aligned as two sides would be,
/// matched nodes summed (calls, host and device time), the others kept in aligned order.
pub fn merge(a: TreeNode, b: TreeNode) -> TreeNode {
    let mut aligner = Aligner::default();
    let pairs = aligner.align_children(&a.children, &b.children);
    let mut a_children: Vec<Option<TreeNode>> = a.children.into_iter().map(Some).collect();
    let mut b_children: Vec<Option<TreeNode>> = b.children.into_iter().map(Some).collect();
    let mut children = Vec::with_capacity(a_children.len().max(b_children.len()));
    let (mut i, mut j) = (0, 0);
    let take = |v: &mut Vec<Option<TreeNode>>, k: usize| v[k].take();
    for &(pi, pj) in &pairs {
        children.extend((i..pi).filter_map(|k| take(&mut a_children, k)));
        children.extend((j..pj).filter_map(|k| take(&mut b_children, k)));
        if let (Some(x), Some(y)) = (take(&mut a_children, pi), take(&mut b_children, pj)) {
            children.push(merge(x, y));
        }
        i = pi + 1;
        j = pj + 1;
    }
    children.extend((i..a_children.len()).filter_map(|k| take(&mut a_children, k)));
    children.extend((j..b_children.len()).filter_map(|k| take(&mut b_children, k)));
    let mut sources = a.sources;
    sources.extend(b.sources);
    TreeNode {
        kind: a.kind,
        key: a.key,
        times: a.times.plus(b.times),
        children,
        sources,
    }
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
/// inside the pairs, then a smaller summed host-time distance between paired nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Score {
    pairs: u32,
    inner: u64,
    distance_ns: u64,
}

impl Score {
    fn plus(self, other: Score) -> Score {
        Score {
            pairs: self.pairs + other.pairs,
            inner: self.inner + other.inner,
            distance_ns: self.distance_ns.saturating_add(other.distance_ns),
        }
    }

    fn better_than(&self, other: &Score) -> bool {
        (self.pairs, self.inner, std::cmp::Reverse(self.distance_ns))
            > (other.pairs, other.inner, std::cmp::Reverse(other.distance_ns))
    }
}

/// Memoised counts of matched nodes inside aligned subtrees, keyed by the nodes' addresses
/// (the trees are borrowed and unchanged for the whole alignment).
#[derive(Default)]
struct Aligner {
    inner: FxHashMap<(usize, usize), u64>,
}

impl Aligner {
    /// Aligns two nodes with the same key, giving them `path`.
    fn pair(&mut self, a: &TreeNode, b: &TreeNode, path: String) -> AlignedNode {
        let pairs = self.align_children(&a.children, &b.children);
        let mut ordinals = Ordinals::default();
        let mut children = Vec::with_capacity(a.children.len().max(b.children.len()) + 1);
        let (mut i, mut j) = (0, 0);
        for &(pi, pj) in &pairs {
            while i < pi {
                children.push(one_sided(
                    &a.children[i],
                    Status::Deleted,
                    ordinals.child_path(&path, &a.children[i].key),
                ));
                i += 1;
            }
            while j < pj {
                children.push(one_sided(
                    &b.children[j],
                    Status::Added,
                    ordinals.child_path(&path, &b.children[j].key),
                ));
                j += 1;
            }
            let p = ordinals.child_path(&path, &a.children[pi].key);
            children.push(self.pair(&a.children[pi], &b.children[pj], p));
            i = pi + 1;
            j = pj + 1;
        }
        for c in &a.children[i..] {
            children.push(one_sided(c, Status::Deleted, ordinals.child_path(&path, &c.key)));
        }
        for c in &b.children[j..] {
            children.push(one_sided(c, Status::Added, ordinals.child_path(&path, &c.key)));
        }
        if !a.children.is_empty() || !b.children.is_empty() {
            let control = Some(uncovered(a, &a.children));
            let test = Some(uncovered(b, &b.children));
            children.push(unknown_node(&path, &mut ordinals, control, test));
        }
        AlignedNode {
            kind: a.kind,
            key: a.key.clone(),
            path,
            status: Status::Matched,
            control: Some(a.times),
            test: Some(b.times),
            children,
            sources: [a.sources.clone(), b.sources.clone()],
        }
    }

    /// The number of nodes matched inside the alignment of `a` and `b` (both excluded).
    fn inner_matches(&mut self, a: &TreeNode, b: &TreeNode) -> u64 {
        if a.children.is_empty() || b.children.is_empty() {
            return 0;
        }
        let id = (a as *const TreeNode as usize, b as *const TreeNode as usize);
        if let Some(&n) = self.inner.get(&id) {
            return n;
        }
        let pairs = self.align_children(&a.children, &b.children);
        let n = pairs
            .iter()
            .map(|&(i, j)| 1 + self.inner_matches(&a.children[i], &b.children[j]))
            .sum();
        self.inner.insert(id, n);
        n
    }

    /// The pairs `(i, j)` of the best alignment of two child lists, in order.
    fn align_children(&mut self, a: &[TreeNode], b: &[TreeNode]) -> Vec<(usize, usize)> {
        if a.len().saturating_mul(b.len()) <= LARGE_TABLE {
            return self.best_pairs(a, b);
        }
        // Long lists (the top-level operators of a trace without modules): the common prefix
        // and suffix of equal keys pair directly, and only the middle gets the full search.
        let prefix = a.iter().zip(b).take_while(|(x, y)| same_key(x, y)).count();
        let suffix = a[prefix..]
            .iter()
            .rev()
            .zip(b[prefix..].iter().rev())
            .take_while(|(x, y)| same_key(x, y))
            .count();
        let (a_mid, b_mid) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
        let mut pairs: Vec<(usize, usize)> = (0..prefix).map(|k| (k, k)).collect();
        pairs.extend(
            self.best_pairs(a_mid, b_mid)
                .into_iter()
                .map(|(i, j)| (i + prefix, j + prefix)),
        );
        pairs.extend((0..suffix).rev().map(|k| (a.len() - 1 - k, b.len() - 1 - k)));
        pairs
    }

    /// What pairing `a` with `b` adds to an alignment's score.
    fn gain(&mut self, a: &TreeNode, b: &TreeNode) -> Score {
        Score {
            pairs: 1,
            inner: self.inner_matches(a, b),
            distance_ns: a.times.host_total_ns.abs_diff(b.times.host_total_ns),
        }
    }

    /// The full search: a table of the best score of every pair of suffixes.
    fn best_pairs(&mut self, a: &[TreeNode], b: &[TreeNode]) -> Vec<(usize, usize)> {
        let (n, m) = (a.len(), b.len());
        if n == 0 || m == 0 {
            return Vec::new();
        }
        // best[i * width + j]: the best score of a[i..] against b[j..]; filled from the ends.
        let width = m + 1;
        let mut best = vec![Score::default(); (n + 1) * width];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                let mut s = best[(i + 1) * width + j];
                let skip_b = best[i * width + j + 1];
                if skip_b.better_than(&s) {
                    s = skip_b;
                }
                if same_key(&a[i], &b[j]) {
                    let with = best[(i + 1) * width + j + 1].plus(self.gain(&a[i], &b[j]));
                    if with.better_than(&s) {
                        s = with;
                    }
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
            if same_key(&a[i], &b[j]) && best[(i + 1) * width + j + 1].plus(self.gain(&a[i], &b[j])) == here {
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

/// Child lists whose product exceeds this many table cells (24 bytes each) pair their common
/// prefix and suffix directly before the full search.
const LARGE_TABLE: usize = 1 << 20;

fn same_key(a: &TreeNode, b: &TreeNode) -> bool {
    a.kind == b.kind && a.key == b.key
}

/// A node's time not covered by its children.
fn uncovered(node: &TreeNode, children: &[TreeNode]) -> Times {
    let host: i64 = children.iter().map(|c| c.times.host_total_ns).sum();
    let device = node.times.device_total_ns.map(|d| {
        let covered: i64 = children.iter().filter_map(|c| c.times.device_total_ns).sum();
        d - covered
    });
    Times {
        calls: None,
        host_total_ns: node.times.host_total_ns - host,
        device_total_ns: device,
    }
}

fn unknown_node(parent: &str, ordinals: &mut Ordinals, control: Option<Times>, test: Option<Times>) -> AlignedNode {
    AlignedNode {
        kind: NodeKind::Unknown,
        key: UNKNOWN_KEY.to_string(),
        path: ordinals.child_path(parent, UNKNOWN_KEY),
        status: Status::Unknown,
        control,
        test,
        children: Vec::new(),
        sources: [Vec::new(), Vec::new()],
    }
}

/// Counts same-key siblings to give each child its ordinal.
#[derive(Default)]
struct Ordinals {
    seen: FxHashMap<String, usize>,
}

impl Ordinals {
    fn child_path(&mut self, parent: &str, key: &str) -> String {
        let n = self.seen.entry(key.to_string()).or_insert(0);
        let path = if parent.is_empty() {
            format!("{key}[{n}]")
        } else {
            format!("{parent}/{key}[{n}]")
        };
        *n += 1;
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(kind: NodeKind, key: &str, host: i64, children: Vec<TreeNode>) -> TreeNode {
        TreeNode {
            kind,
            key: key.to_string(),
            times: Times {
                calls: Some(1),
                host_total_ns: host,
                device_total_ns: None,
            },
            children,
            sources: Vec::new(),
        }
    }

    fn module(key: &str, host: i64, children: Vec<TreeNode>) -> TreeNode {
        node(NodeKind::Module, key, host, children)
    }

    fn step(children: Vec<TreeNode>) -> TreeNode {
        let host = children.iter().map(|c| c.times.host_total_ns).sum::<i64>() + 5;
        node(NodeKind::Step, "ProfilerStep", host, children)
    }

    fn statuses(n: &AlignedNode) -> Vec<(String, &'static str)> {
        n.children.iter().map(|c| (c.path.clone(), c.status.as_str())).collect()
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
        // block; the shortcut still pairs first with first.
        let control = step(vec![layer(3, |_| 0)]);
        let test = step(vec![layer(8, |k| if k == 2 { 0 } else { 300 })]);
        let aligned = align(&control, &test);
        let seq = aligned.find("Sequential").unwrap();
        let got = statuses(seq);
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
    }

    #[test]
    fn closest_time_breaks_ties_then_earliest() {
        let control = step(vec![module("Linear", 100, vec![])]);
        let test = step(vec![
            module("Linear", 300, vec![]),
            module("Linear", 110, vec![]),
            module("Linear", 110, vec![]),
        ]);
        let aligned = align(&control, &test);
        assert_eq!(
            statuses(&aligned),
            vec![
                ("Linear[0]".to_string(), "added"),
                ("Linear[1]".to_string(), "matched"),
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
        let got: Vec<(String, &str)> = statuses(&aligned);
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
            if !n.children.is_empty() {
                let sides: [fn(&AlignedNode) -> Option<Times>; 2] = [|t| t.control, |t| t.test];
                for side in sides {
                    if let Some(parent) = side(n) {
                        let sum: i64 = n.children.iter().filter_map(side).map(|t| t.host_total_ns).sum();
                        assert_eq!(sum, parent.host_total_ns, "{}", n.path);
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
        assert_eq!(b.path, "Sequential[1]/Bottleneck[1]");
        assert_eq!(
            aligned.find("Sequential/Bottleneck").unwrap().path,
            "Sequential[0]/Bottleneck[0]"
        );
        assert!(aligned.find("Sequential[2]").is_none());
        assert!(aligned.find("Sequential[x]").is_none());
        assert_eq!(aligned.matched(), control.size());
    }
}
