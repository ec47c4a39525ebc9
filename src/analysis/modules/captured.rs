//! Replayed kernels placed on their captured module path (docs/graphs.md#graph-replays): a
//! graph kernel joined to its capture hangs below the node where the replay launched its graph,
//! on nodes made from the captured launch's frames inside the captured work (`nn.Module`
//! frames, annotations, compiled code: the module tree's own kinds), as if it had run eagerly.
//!
//! - The frames are those that started inside the capture (the ones around the begin capture
//!   call, or around the `capture_*` annotation, wrap the capture and are where the replay
//!   launched it): a piecewise graph captured inside `GraphModule` and replayed there gets the
//!   captured `## Call CompiledFxGraph ##` below the replay's `GraphModule`.
//! - Where no module frame is among them, the captured operator is the leaf: the outermost
//!   operator around the launch inside the capture, else its non-ATen owner
//!   (`triton_poi_fused_0 [triton]`).
//! - One node per captured event per graph launch (a replay is a call): calls 1, host time
//!   none (the replay ran no host code for it), device time the kernels below it. Nodes are
//!   ordered by their graph launch, then by their first kernel, and marked
//!   [`TreeNode::replayed`]. Each holds its kernels as sources, so `--zoom` keeps them.

use super::{Builder, node_key};
use crate::analysis::modules::align::{NodeKind, Times, TreeNode};
use crate::analysis::modules::roles::{Role, compiled_key, module_key};
use crate::model::calltree::NONE;
use crate::model::graphs::{CapturedLaunch, GraphJoin};
use crate::model::owners::owner_label;
use crate::model::place::Place;
use rustc_hash::{FxHashMap, FxHashSet};

/// One node of a captured path: its kind, key, and the capture row it stands for.
type PathNode = (NodeKind, String, u32);

/// The nodes a kernel joined to `launch` hangs on below its replay site, outermost first;
/// `kernel` is the replayed kernel's name (a Triton owner is named after it). `fallback`: the
/// module frames are no nodes (a side has none).
pub(super) fn captured_path(join: &GraphJoin, launch: &CapturedLaunch, kernel: &str, fallback: bool) -> Vec<PathNode> {
    let mut path: Vec<PathNode> = Vec::new();
    for f in &launch.frames {
        let (name, cat) = (join.name(f.name), join.name(f.cat));
        let kind = if cat == "python_function" && module_key(name).is_some() && !fallback {
            NodeKind::Module
        } else if compiled_key(name).is_some() || cat == "user_annotation" {
            NodeKind::Annotation
        } else {
            continue;
        };
        path.push((kind, node_key(kind, name).into_owned(), f.row));
    }
    if path.iter().all(|(kind, _, _)| *kind != NodeKind::Module) {
        path.extend(leaf(join, launch, kernel));
    }
    path
}

/// The captured operator as a leaf node: the outermost operator inside the capture, else the
/// launch's owner under its non-ATen label.
fn leaf(join: &GraphJoin, launch: &CapturedLaunch, kernel: &str) -> Option<PathNode> {
    if let Some(op) = launch.frames.iter().find(|f| f.operator) {
        return Some((NodeKind::Op, join.name(op.name).to_string(), op.row));
    }
    let owner = join.name(launch.owner);
    // A node's key, as `node_key` makes it: a serving step without its numbers.
    let key = owner_label(launch.kind, owner, kernel, &|n: &str| {
        crate::model::serving::serving_step_key(n).unwrap_or_else(|| n.to_string())
    })?;
    let row = launch
        .frames
        .iter()
        .rev()
        .find(|f| f.name == launch.owner)
        .map_or(launch.row, |f| f.row);
    Some((NodeKind::Op, key, row))
}

/// Places the selected joined kernels of the builder's file on their captured paths, below
/// the node that encloses their owner in the replay (`site`: that node's id, else `None`).
fn place(builder: &mut Builder<'_>, join: &GraphJoin, fallback: bool, site: impl Fn(usize) -> Option<usize>) {
    let file = builder.file;
    let (ev, tree) = (&file.events, builder.tree);
    let mut kernels: Vec<(u32, u32)> = join
        .joined
        .iter()
        .map(|(&k, &at)| (k, at))
        .filter(|&(k, _)| ev.place[k as usize] == Place::Device && tree.owner[k as usize] != NONE)
        .collect();
    kernels.sort_by_key(|&(k, _)| (ev.ts_ns[k as usize], k));
    let launch_ts = graph_launch_starts(builder, &kernels);
    // (graph launch, parent node, capture row) → node: one node per captured event per replay.
    let mut made: FxHashMap<(i64, usize, u32), usize> = FxHashMap::default();
    for (k, at) in kernels {
        let k = k as usize;
        let Some(launch) = join.launches.get(at as usize) else {
            continue;
        };
        let Some(mut parent) = site(tree.owner[k] as usize) else {
            continue;
        };
        let correlation = ev.correlation.get(k);
        let start = launch_ts.get(&correlation).copied().unwrap_or(ev.ts_ns[k]);
        let kernel = file.strings.resolve(ev.name[k]);
        for (kind, key, row) in captured_path(join, launch, kernel, fallback) {
            let id = *made
                .entry((correlation, parent, row))
                .or_insert_with(|| builder.replayed_node(parent, kind, key, start));
            let node = &mut builder.nodes[id];
            node.times.device_total_ns = Some(node.times.device_total_ns.unwrap_or(0) + ev.dur_ns[k]);
            node.sources.push((builder.file_index, k as u32));
            parent = id;
        }
    }
}

/// The start of the graph launch of each of `kernels` (by correlation).
fn graph_launch_starts(builder: &Builder<'_>, kernels: &[(u32, u32)]) -> FxHashMap<i64, i64> {
    let ev = &builder.file.events;
    let wanted: FxHashSet<i64> = kernels.iter().map(|&(k, _)| ev.correlation.get(k as usize)).collect();
    let mut out = FxHashMap::default();
    for i in 0..ev.len() {
        if ev.place[i] == Place::Host && wanted.contains(&ev.correlation.get(i)) {
            out.insert(ev.correlation.get(i), ev.ts_ns[i]);
        }
    }
    out
}

impl Builder<'_> {
    /// A node made from a capture under `parent`: one call, no host time, its device time
    /// filled in by the kernels placed on it.
    fn replayed_node(&mut self, parent: usize, kind: NodeKind, key: String, start: i64) -> usize {
        let times = Times {
            calls: Some(1),
            host_total_ns: 0,
            device_total_ns: Some(0),
        };
        let mut node = TreeNode::new(kind, key, times, Vec::new());
        node.replayed = true;
        self.push(node, start, parent, Vec::new())
    }
}

/// Places the builder's file's joined graph kernels (where a capture was joined) on their
/// captured paths, below the innermost node that holds their owner in the replay (itself
/// included), else the root of its iteration; kernels whose owner is not selected are left.
pub(super) fn place_replayed(
    builder: &mut Builder<'_>,
    roles: &[Role],
    node_of_row: &[usize],
    fallback: bool,
    root_of: &dyn Fn(i64) -> Option<usize>,
    selected: &dyn Fn(usize) -> bool,
) {
    let Some(join) = builder.file.graphs.get().filter(|j| !j.joined.is_empty()) else {
        return;
    };
    let (tree, ev) = (builder.tree, &builder.file.events);
    let site = |owner: usize| {
        if !selected(owner) {
            return None;
        }
        tree.up_from(owner)
            .find(|&a| matches!(roles[a], Role::Node(_) | Role::Root | Role::Backward))
            .map(|p| node_of_row[p])
            .filter(|&n| n != usize::MAX)
            .or_else(|| root_of(ev.iteration.get(owner)))
    };
    place(builder, join, fallback, site);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::graphs::CapturedFrame;
    use crate::model::owners::WorkKind;

    /// A join whose names are `names` and whose one launch has frames `(name, cat, operator)`.
    fn launch(names: &[&str], frames: &[(u32, u32, bool)], kind: WorkKind, owner: u32) -> (GraphJoin, CapturedLaunch) {
        let join = GraphJoin {
            names: names.iter().map(|s| s.to_string()).collect(),
            ..GraphJoin::default()
        };
        let frames = frames
            .iter()
            .enumerate()
            .map(|(k, &(name, cat, operator))| CapturedFrame {
                row: 10 + k as u32,
                name,
                cat,
                operator,
            })
            .collect();
        let launch = CapturedLaunch {
            row: 99,
            kind,
            owner,
            operators: Vec::new(),
            shapes: None,
            stack: Vec::new(),
            frames,
        };
        (join, launch)
    }

    const NAMES: [&str; 8] = [
        "python_function",
        "user_annotation",
        "cpu_op",
        "nn.Module: Attention_0",
        "## Call CompiledFxGraph abc123 ##",
        "aten::linear",
        "aten::addmm",
        "<built-in method gemm_a16w16 of PyCapsule object at 0x1>",
    ];

    /// A launch of `aten::addmm` under `aten::linear`, inside a compiled graph's annotation,
    /// inside the `Attention_0` module: the frames the path tests below share.
    fn attention_launch() -> (GraphJoin, CapturedLaunch) {
        let frames = [(3, 0, false), (4, 1, false), (5, 2, true), (6, 2, true)];
        launch(&NAMES, &frames, WorkKind::Operator, 6)
    }

    #[test]
    fn module_frames_and_annotations_are_the_path() {
        let (join, l) = attention_launch();
        let path = captured_path(&join, &l, "gemm", false);
        assert_eq!(
            path,
            [
                (NodeKind::Module, "Attention".to_string(), 10),
                (NodeKind::Annotation, "## Call CompiledFxGraph ##".to_string(), 11),
            ]
        );
    }

    #[test]
    fn without_a_module_the_outermost_operator_is_the_leaf() {
        let (join, l) = attention_launch();
        // In the fallback (a side without modules) the module frame is no node.
        let path = captured_path(&join, &l, "gemm", true);
        assert_eq!(
            path,
            [
                (NodeKind::Annotation, "## Call CompiledFxGraph ##".to_string(), 11),
                (NodeKind::Op, "aten::linear".to_string(), 12),
            ]
        );
    }

    #[test]
    fn without_an_operator_the_non_aten_owner_is_the_leaf() {
        let (join, l) = launch(&NAMES, &[(7, 0, false)], WorkKind::Python, 7);
        let path = captured_path(&join, &l, "gemm", false);
        assert_eq!(path, [(NodeKind::Op, "gemm_a16w16 [python]".to_string(), 10)]);
        let (join, l) = launch(&NAMES, &[], WorkKind::Triton, 0);
        let path = captured_path(&join, &l, "triton_poi_fused_0", false);
        assert_eq!(path, [(NodeKind::Op, "triton_poi_fused_0 [triton]".to_string(), 99)]);
    }
}
