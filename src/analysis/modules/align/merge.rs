//! Merging two trees of one side (steps or ranks) node by node.

use super::matching::Aligner;
use super::tree::{NodeKind, Times, TreeNode};

/// Merges two trees of one side (steps or ranks) node by node: aligned as two sides would be
/// (without seeing through wrappers), matched nodes summed (calls, host and device time, what
/// the children leave), the others kept in aligned order.
pub(crate) fn merge(a: TreeNode, b: TreeNode) -> TreeNode {
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
            replayed: e.a.replayed || e.b.replayed,
        };
        match e.up {
            Some((parent, slot)) => entries[parent].children[slot] = Some(node),
            None => root = Some(node),
        }
    }
    root.unwrap_or_else(|| TreeNode::new(NodeKind::Unknown, String::new(), Times::default(), Vec::new()))
}
