//! The wrappers aligned through (`OptimizedModule`, `DistributedDataParallel`, a module whose
//! only child covers its time) and the key a node aligns by.

use super::tree::{NodeKind, Times, TreeNode};
use crate::request::side::PerSide;
use rustc_hash::FxHashMap;

/// Module wrappers that are always aligned through (what `torch.compile` and the data-parallel
/// wrappers put around a model).
pub(super) const WRAPPERS: [&str; 4] = [
    "OptimizedModule",
    "DistributedDataParallel",
    "FullyShardedDataParallel",
    "DataParallel",
];

/// The node that wrapper `n` wraps, or `None` when `n` is no wrapper: a named wrapper's module
/// (through single-child annotations such as `DistributedDataParallel.forward`), or the only
/// child of a module when it is a module covering at least 90% of its host time.
pub(super) fn wrapped(n: &TreeNode) -> Option<&TreeNode> {
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
pub(super) fn align_key(n: &TreeNode, see_through: bool) -> (NodeKind, &str) {
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
pub(super) fn pair_single_wrappers(a: &[TreeNode], b: &[TreeNode], pairs: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
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
pub(super) fn unwrap_pair<'t>(a: &'t TreeNode, b: &'t TreeNode) -> (&'t TreeNode, &'t TreeNode, PerSide<Vec<String>>) {
    if same_key(a, b) {
        return (a, b, PerSide::default());
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
    (ca[i], cb[j], PerSide::new(names(&ca, i), names(&cb, j)))
}

/// What the wrappers of a paired node leave besides what they wrap, added to its rest.
pub(super) fn wrapped_rest(outer: &TreeNode, inner: &TreeNode) -> (Times, i64) {
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

fn same_key(a: &TreeNode, b: &TreeNode) -> bool {
    a.kind == b.kind && a.key == b.key
}
