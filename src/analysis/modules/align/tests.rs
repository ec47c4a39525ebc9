//! The alignment of two trees, their merge and their paths.

use super::keys::escape_key;
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
