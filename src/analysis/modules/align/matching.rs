//! Pairing the children of matched nodes: the longest common subsequence of their keys (the
//! full search on short lists, common ends and Myers' diff on long ones), scored by the nodes
//! matched inside the pairs, and the aligned tree built from the pairs without recursion.

use super::tree::{AlignedNode, NodeKind, Status, Times, TreeNode, UNKNOWN_KEY};
use super::wrappers::{align_key, pair_single_wrappers, unwrap_pair, wrapped, wrapped_rest};
use crate::request::side::PerSide;
use rustc_hash::FxHashMap;

/// Aligns two trees whose roots match (the selected steps).
pub(crate) fn align(control: &TreeNode, test: &TreeNode) -> AlignedNode {
    let mut aligner = Aligner::default();
    aligner.build(Task::Pair(control, test, None, PerSide::default()))
}

/// A node of the aligned tree still to make.
enum Task<'t> {
    /// Two nodes paired (after their wrappers, which are named), with their ordinal.
    Pair(&'t TreeNode, &'t TreeNode, Option<u32>, PerSide<Vec<String>>),
    OneSided(&'t TreeNode, Status, Option<u32>),
    /// A node already made (an `unknown` child).
    Done(AlignedNode),
}

/// The score of an alignment, compared field by field: more pairs, then more nodes matched
/// inside the pairs.
type Score = (u32, u64);

fn plus(a: Score, b: Score) -> Score {
    (a.0 + b.0, a.1 + b.1)
}

/// Memoised counts of matched nodes inside aligned subtrees, keyed by the nodes' addresses
/// (the trees are borrowed and unchanged for the whole alignment).
#[derive(Default)]
pub(super) struct Aligner {
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
        wrappers: PerSide<Vec<String>>,
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
            sources: PerSide::new(a.sources.clone(), b.sources.clone()),
            children_overlap_ns: [overlap_a, overlap_b],
            wrappers: wrappers.into_array(),
            replayed: [ia.replayed, ib.replayed],
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
    pub(super) fn align_children(&mut self, a: &[TreeNode], b: &[TreeNode], see_through: bool) -> Vec<(usize, usize)> {
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
fn inner_of_pair<'t>(
    a: &'t TreeNode,
    b: &'t TreeNode,
    wrappers: &PerSide<Vec<String>>,
) -> (&'t TreeNode, &'t TreeNode) {
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
    (down(a, wrappers.control.len()), down(b, wrappers.test.len()))
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
        (
            PerSide::new(Vec::new(), node.sources.clone()),
            [0, node.children_overlap_ns],
        )
    } else {
        (
            PerSide::new(node.sources.clone(), Vec::new()),
            [node.children_overlap_ns, 0],
        )
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
        replayed: if status == Status::Added {
            [false, node.replayed]
        } else {
            [node.replayed, false]
        },
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
        sources: PerSide::default(),
        children_overlap_ns: [0, 0],
        wrappers: [Vec::new(), Vec::new()],
        replayed: [false, false],
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
