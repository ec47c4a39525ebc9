//! The module-aligned diff (docs/semantics.md#module-aligned-diff): each side's run as a tree of the model's own pieces —
//! `nn.Module` frames, user annotations, one `backward` node per step — built from the call
//! tree ([`crate::model::calltree`]), merged over the selected steps and ranks, and aligned
//! with [`crate::analysis::modules::align`].
//!
//! - The root is the selected ProfilerStep (key `ProfilerStep`, its number dropped); a side
//!   without steps has one root spanning its host events.
//! - A node's parent is its innermost enclosing node on the same thread. Nodes with none (the
//!   autograd engine's threads) hang under the root of their iteration.
//! - `backward` holds the step's top-level `autograd::engine::evaluate_function: …` operators
//!   that no module or annotation encloses: calls = their number, host time = their summed
//!   `dur`, placed at the first one.
//! - Where a side has no module events (recorded without `with_stack`), top-level operators are
//!   nodes instead (the fallback), on both sides so that they align.
//! - An annotation inside a top-level autograd operator belongs to the backward subtree only
//!   (the `<Module>.backward` node its operator is placed on, else `backward`).
//! - Compiled code (`## Call CompiledFxGraph <hash> ##`, `CompiledFunction`,
//!   `CompiledFunctionBackward`, `Torch-Compiled Region`) are annotation nodes keyed without
//!   their hash ([`node_key`]), inside whatever node ran them.
//! - Host time is the event's time in the call tree (its `dur`, clipped for a frame still open
//!   at the trace's end); device time is what the events inside own (`device_total` of the
//!   call tree: a kernel launched outside any operator counts for its enclosing event), absent
//!   on a side without device events.
//! - Every node with children gets its `unknown` part ([`TreeNode::rest`]): its host time not
//!   covered by the union of its children's intervals, and its device time not in a child;
//!   children that ran concurrently report their overlap instead of a negative remainder.

pub(crate) mod align;
pub(crate) mod noise;
pub(crate) mod roles;
pub(crate) mod runs;
pub(crate) mod scopes;

use crate::analysis::diff::SideInfo;
use crate::analysis::intervals::{clipped_union, merge_spans};
use crate::analysis::load::loaded::Loaded;
use crate::analysis::modules::align::{AlignedNode, NodeKind, Times, TreeNode, align, merge};
pub(crate) use crate::analysis::modules::roles::{MODULE_PREFIX, compiled_key, module_key};
use crate::analysis::modules::roles::{Role, enclosing_node, roles};
use crate::analysis::select::Selected;
use crate::error::{Error, Result};
use crate::model::calltree::{CallTree, NONE};
use crate::model::flows::flow_links;
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::request::CompareRequest;
use crate::request::side::{PerSide, SideId};
use rustc_hash::FxHashMap;

/// The key of the root.
pub(crate) const STEP_KEY: &str = "ProfilerStep";
/// The key of a step's backward node.
pub(crate) const BACKWARD_KEY: &str = "backward";

/// The aligned module trees of a pair.
#[derive(Debug, Clone)]
pub struct ModuleDiff {
    /// The step node: both sides' trees, aligned node by node below it.
    pub root: AlignedNode,
    /// What the control side is.
    pub control: SideInfo,
    /// What the test side is.
    pub test: SideInfo,
    /// Whether the tree fell back to top-level operators (a side had no module events).
    pub fallback: bool,
    /// Whether each side has device events (else its device times are absent).
    pub has_device: [bool; 2],
    /// Per side, the host time of its backward nodes and the part of it that `fwdbwd` flows
    /// placed on `<Module>.backward` nodes.
    pub backward_placed: [BackwardPlaced; 2],
    /// Whether the times and calls are per step (sums ÷ the steps used on each side,
    /// docs/modules.md#several-steps-and-runs) rather than sums.
    pub per_step: bool,
}

/// How much of a side's backward host time was placed on modules.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BackwardPlaced {
    /// Host time of the step-level `backward` nodes, in ns.
    pub backward_host_ns: i64,
    /// The part of it placed on `<Module>.backward` nodes, in ns.
    pub placed_host_ns: i64,
}

impl BackwardPlaced {
    /// Summed over the step-level `backward` nodes of a tree.
    pub(crate) fn of(node: &TreeNode) -> BackwardPlaced {
        if node.kind == NodeKind::Backward && node.key == BACKWARD_KEY {
            return BackwardPlaced {
                backward_host_ns: node.times.host_total_ns,
                placed_host_ns: node.children.iter().map(|c| c.times.host_total_ns).sum(),
            };
        }
        node.children
            .iter()
            .map(BackwardPlaced::of)
            .fold(BackwardPlaced::default(), |a, b| BackwardPlaced {
                backward_host_ns: a.backward_host_ns + b.backward_host_ns,
                placed_host_ns: a.placed_host_ns + b.placed_host_ns,
            })
    }

    /// The placed share in percent, `None` without backward time.
    pub fn percent(&self) -> Option<f64> {
        (self.backward_host_ns > 0).then(|| 100.0 * self.placed_host_ns as f64 / self.backward_host_ns as f64)
    }
}

/// The key of a node of `kind` named `name`.
/// A serving loop's step annotation drops its batch sizes and lengths (`step[DECODE bs=*]`),
/// so that runs at other loads align.
pub(crate) fn node_key(kind: NodeKind, name: &str) -> std::borrow::Cow<'_, str> {
    match kind {
        NodeKind::Module => module_key(name).unwrap_or(name).into(),
        _ => match crate::model::serving::serving_step_key(name) {
            Some(key) => key.into(),
            None => compiled_key(name).unwrap_or(name).into(),
        },
    }
}

/// Whether a file has `nn.Module` frames.
pub(crate) fn has_modules(file: &TraceFile) -> bool {
    let ids: Vec<bool> = file.strings.iter().map(|(_, s)| s.starts_with(MODULE_PREFIX)).collect();
    file.events.name.iter().any(|n| ids[n.index()])
}

/// Builds both sides' trees and aligns them.
pub(crate) fn modules(req: &CompareRequest, loaded: &Loaded) -> Result<ModuleDiff> {
    let fallback = !SideId::BOTH
        .iter()
        .all(|&id| loaded.files(id).iter().any(|f| has_modules(f)));
    let has_device = PerSide::from_fn(|id| loaded.files(id).iter().any(|f| f.events.place.contains(&Place::Device)));
    let side = |id: SideId| -> Result<TreeNode> {
        let iterations = loaded.resolved[id].iterations.as_deref();
        let files = loaded.files(id);
        let trees: Vec<TreeNode> = files
            .iter()
            .enumerate()
            .flat_map(|(i, f)| file_trees(f, i as u32, iterations, fallback, has_device[id]))
            .collect();
        trees
            .into_iter()
            .reduce(merge)
            .ok_or_else(|| Error::usage(format!("{}: no step to build a module tree from", req.side(id).label)))
    };
    let (control, test) = rayon::join(|| side(SideId::Control), || side(SideId::Test));
    let (control, test) = (control?, test?);
    let labels = req.side_labels();
    Ok(ModuleDiff {
        backward_placed: [BackwardPlaced::of(&control), BackwardPlaced::of(&test)],
        root: align(&control, &test),
        control: loaded.side_info(SideId::Control, labels.control),
        test: loaded.side_info(SideId::Test, labels.test),
        fallback,
        has_device: has_device.into_array(),
        per_step: false,
    })
}

/// The events inside one node of a module diff, per side and selected file: what `operators`
/// and `kernels` count with `--zoom`. An event is inside when one of the node's events encloses
/// it in the call tree (or is it); a device event, when its launching operator is inside.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// Per side, file (index into the side's selected files) → row → inside.
    inside: PerSide<Vec<Vec<bool>>>,
}

impl Scope {
    /// The events of `loaded`'s selected files that ran inside `node` (on either side).
    pub(crate) fn of(loaded: &Loaded, node: &AlignedNode) -> Scope {
        let inside = PerSide::from_fn(|id| {
            loaded
                .files(id)
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let rows: Vec<u32> = node.sources[id]
                        .iter()
                        .filter(|&&(file, _)| file as usize == i)
                        .map(|&(_, row)| row)
                        .collect();
                    rows_inside(f, &rows)
                })
                .collect()
        });
        Scope { inside }
    }

    /// The rows of file `file` (an index into the side's selected files) that are inside.
    pub(crate) fn rows(&self, side: SideId, file: usize) -> Option<&[bool]> {
        self.inside[side].get(file).map(Vec::as_slice)
    }
}

/// For each row of `file`: whether it is one of `roots` or under one in the call tree, or (a
/// device event) launched from there.
fn rows_inside(file: &TraceFile, roots: &[u32]) -> Vec<bool> {
    let tree = file.call_tree();
    let n = file.events.len();
    let mut inside = vec![false; n];
    for &r in roots {
        inside[r as usize] = true;
    }
    if roots.is_empty() {
        return inside;
    }
    for i in file.host_rows_parents_first() {
        let p = tree.parent[i as usize];
        if p != NONE && inside[p as usize] {
            inside[i as usize] = true;
        }
    }
    for i in 0..n {
        let l = tree.launcher[i];
        if file.events.place[i] != Place::Host && l != NONE && inside[l as usize] {
            inside[i] = true;
        }
    }
    inside
}

/// One root per selected step of `file` (or one for the whole file without steps), each the
/// tree of that step.
pub(crate) fn file_trees(
    file: &TraceFile,
    file_index: u32,
    iterations: Option<&[i64]>,
    fallback: bool,
    device: bool,
) -> Vec<TreeNode> {
    let ev = &file.events;
    let tree = file.call_tree();
    let roles = roles(file, tree, iterations, fallback);
    let steps = Selected::new(iterations);
    let selected = |i: usize| steps.admits(ev.iteration.get(i));
    // Each root: (row or NONE for a whole-file root, iteration).
    let roots: Vec<(u32, i64)> = match iterations {
        None => vec![(NONE, ev.iteration.iter().next().unwrap_or(-1))],
        Some(_) => (0..ev.len())
            .filter(|&i| roles[i] == Role::Root)
            .map(|i| (i as u32, ev.iteration.get(i)))
            .collect(),
    };
    let mut builder = Builder::new(file, file_index, tree, device);
    let root_ids: Vec<usize> = roots
        .iter()
        .map(|&(row, _)| builder.root(row, iterations.is_none()))
        .collect();
    let root_of_iteration = |it: i64| {
        roots
            .iter()
            .position(|&(_, r)| r == it || iterations.is_none())
            .map(|k| root_ids[k])
    };
    // Nodes in time order, so that children are listed as they ran.
    let mut rows: Vec<usize> = (0..ev.len())
        .filter(|&i| matches!(roles[i], Role::Node(_) | Role::Backward) && selected(i))
        .collect();
    rows.sort_by_key(|&i| (ev.ts_ns[i], std::cmp::Reverse(ev.dur_ns[i]), i));
    let mut node_of_row: Vec<usize> = vec![usize::MAX; ev.len()];
    for (&(row, _), &id) in roots.iter().zip(&root_ids) {
        if row != NONE {
            node_of_row[row as usize] = id;
        }
    }
    let (backward_rows, inside_backward) =
        place_nodes(&mut builder, &roles, rows, &mut node_of_row, &root_of_iteration);
    let forward = forward_modules(file, tree, &roles, &node_of_row, &builder);
    place_backward(&mut builder, &forward, &backward_rows, inside_backward);
    if device {
        captured::place_replayed(
            &mut builder,
            &roles,
            &node_of_row,
            fallback,
            &root_of_iteration,
            &selected,
        );
        let launched = launched_device_ns(file, tree);
        for (&(_, it), &id) in roots.iter().zip(&root_ids) {
            builder.nodes[id].times.device_total_ns = Some(root_device_ns(&launched, it, iterations.is_none()));
        }
    }
    root_ids.into_iter().map(|r| builder.finish(r)).collect()
}

/// Places the node rows (in time order) under their innermost enclosing node on their thread,
/// else the root of their iteration. Returns the top-level autograd operators with their
/// backward node, and the annotations inside one of them with that operator.
#[allow(clippy::type_complexity)]
fn place_nodes(
    builder: &mut Builder<'_>,
    roles: &[Role],
    rows: Vec<usize>,
    node_of_row: &mut [usize],
    root_of_iteration: &dyn Fn(i64) -> Option<usize>,
) -> (Vec<(usize, usize)>, Vec<(usize, usize)>) {
    let (ev, tree) = (&builder.file.events, builder.tree);
    let mut backward_rows: Vec<(usize, usize)> = Vec::new();
    let mut inside_backward: Vec<(usize, usize)> = Vec::new();
    for i in rows {
        let enclosing = enclosing_node(tree, roles, i);
        let parent = enclosing
            .map(|p| node_of_row[p])
            .filter(|&n| n != usize::MAX)
            .or_else(|| root_of_iteration(ev.iteration.get(i)));
        let Some(parent) = parent else { continue };
        match roles[i] {
            Role::Backward => {
                let id = builder.backward(parent, i);
                node_of_row[i] = id;
                backward_rows.push((i, id));
            }
            Role::Node(kind) => {
                node_of_row[i] = builder.node(parent, kind, i);
                if let Some(op) = enclosing.filter(|&p| roles[p] == Role::Backward) {
                    inside_backward.push((node_of_row[i], op));
                }
            }
            _ => {}
        }
    }
    (backward_rows, inside_backward)
}

/// The device time launched in iteration `it` (`whole`: in the whole file).
fn root_device_ns(launched: &std::collections::BTreeMap<i64, i64>, it: i64, whole: bool) -> i64 {
    if whole {
        launched.values().sum()
    } else {
        launched.get(&it).copied().unwrap_or(0)
    }
}

/// Places each top-level autograd operator's backward node (`backward_rows`: row, node) under
/// the forward module `forward` links its row to, and moves the annotations inside one
/// (`inside_backward`: node, operator row) with it to the module's mirror.
fn place_backward(
    builder: &mut Builder<'_>,
    forward: &FxHashMap<usize, usize>,
    backward_rows: &[(usize, usize)],
    inside_backward: Vec<(usize, usize)>,
) {
    for &(row, backward) in backward_rows {
        if let Some(&module) = forward.get(&row) {
            builder.place_backward(backward, module, row);
        }
    }
    // An annotation inside a placed autograd operator moves with it to the module's mirror.
    for (node, op) in inside_backward {
        if let Some(&module) = forward.get(&op) {
            let backward = builder.parent[node];
            if let Some(&mirror) = builder.mirrors.get(&(backward, module)) {
                builder.reparent(node, mirror);
            }
        }
    }
}

/// For each top-level autograd operator that a `fwdbwd` flow links to a forward operator inside
/// a module node: that node (the first link wins).
fn forward_modules(
    file: &TraceFile,
    tree: &CallTree,
    roles: &[Role],
    node_of_row: &[usize],
    builder: &Builder<'_>,
) -> FxHashMap<usize, usize> {
    let mut out = FxHashMap::default();
    for (forward, backward) in flow_links(file) {
        let op = tree.up_from(backward as usize).find(|&i| roles[i] == Role::Backward);
        let module = tree
            .up_from(forward as usize)
            .find(|&i| node_of_row[i] != usize::MAX && builder.nodes[node_of_row[i]].kind == NodeKind::Module);
        if let (Some(op), Some(module)) = (op, module) {
            out.entry(op).or_insert(node_of_row[module]);
        }
    }
    out
}

/// Per iteration, the device time of launched device events (a root's device time: every kernel
/// its step launched, on any thread, with or without an operator).
fn launched_device_ns(file: &TraceFile, tree: &CallTree) -> std::collections::BTreeMap<i64, i64> {
    let ev = &file.events;
    let mut out = std::collections::BTreeMap::new();
    for i in 0..ev.len() {
        if ev.place[i] == Place::Device && tree.owner[i] != NONE {
            *out.entry(ev.iteration.get(i)).or_insert(0) += ev.dur_ns[i];
        }
    }
    out
}

/// A tree under construction: nodes in a flat arena, children by index.
struct Builder<'f> {
    file: &'f TraceFile,
    file_index: u32,
    tree: &'f CallTree,
    device: bool,
    nodes: Vec<TreeNode>,
    children: Vec<Vec<usize>>,
    /// Per node, its backward child, once made.
    backward: Vec<Option<usize>>,
    /// Per node, the start of the event it stands for (children are sorted by it).
    start: Vec<i64>,
    /// Per node, its parent (`usize::MAX` for roots).
    parent: Vec<usize>,
    /// Per node, the intervals `[start, end)` of the events it stands for.
    spans: Vec<Vec<(i64, i64)>>,
    /// (backward node, forward module node) → that module's `.backward` node.
    mirrors: FxHashMap<(usize, usize), usize>,
}

impl<'f> Builder<'f> {
    fn new(file: &'f TraceFile, file_index: u32, tree: &'f CallTree, device: bool) -> Self {
        Builder {
            file,
            file_index,
            tree,
            device,
            nodes: Vec::new(),
            children: Vec::new(),
            backward: Vec::new(),
            start: Vec::new(),
            parent: Vec::new(),
            spans: Vec::new(),
            mirrors: FxHashMap::default(),
        }
    }

    /// Adds a node under `parent` (`usize::MAX` for a root).
    fn push(&mut self, node: TreeNode, start: i64, parent: usize, spans: Vec<(i64, i64)>) -> usize {
        let id = self.nodes.len();
        self.nodes.push(node);
        self.children.push(Vec::new());
        self.backward.push(None);
        self.start.push(start);
        self.parent.push(parent);
        self.spans.push(spans);
        if parent != usize::MAX {
            self.children[parent].push(id);
        }
        id
    }

    /// Moves node `id` under `parent`.
    fn reparent(&mut self, id: usize, parent: usize) {
        let old = self.parent[id];
        if old != usize::MAX {
            self.children[old].retain(|&c| c != id);
        }
        self.children[parent].push(id);
        self.parent[id] = parent;
    }

    fn times(&self, row: usize) -> Times {
        Times {
            calls: Some(1),
            host_total_ns: self.tree.host_total_ns[row],
            device_total_ns: self.device.then(|| self.tree.device_total_ns[row]),
        }
    }

    fn span(&self, row: usize) -> (i64, i64) {
        let ts = self.file.events.ts_ns[row];
        (ts, ts.saturating_add(self.tree.host_total_ns[row]))
    }

    /// A root: a step event, or (`whole`) the span of the file's host events.
    fn root(&mut self, row: u32, whole: bool) -> usize {
        let ev = &self.file.events;
        let (times, start, sources, span) = if whole || row == NONE {
            let host = (0..ev.len()).filter(|&i| ev.place[i] == Place::Host);
            let first = host.clone().map(|i| ev.ts_ns[i]).min().unwrap_or(0);
            let last = host
                .map(|i| ev.ts_ns[i].saturating_add(ev.dur_ns[i]))
                .max()
                .unwrap_or(0);
            let times = Times {
                calls: Some(1),
                host_total_ns: last - first,
                device_total_ns: self.device.then_some(0),
            };
            (times, first, Vec::new(), (first, last))
        } else {
            let r = row as usize;
            let mut times = self.times(r);
            // Set once the nodes are in: every kernel the step launched, on any thread.
            times.device_total_ns = self.device.then_some(0);
            (times, ev.ts_ns[r], vec![(self.file_index, row)], self.span(r))
        };
        let node = TreeNode::new(NodeKind::Step, STEP_KEY.to_string(), times, sources);
        self.push(node, start, usize::MAX, vec![span])
    }

    fn node(&mut self, parent: usize, kind: NodeKind, row: usize) -> usize {
        let name = self.file.strings.resolve(self.file.events.name[row]);
        let node = TreeNode::new(
            kind,
            node_key(kind, name).to_string(),
            self.times(row),
            vec![(self.file_index, row as u32)],
        );
        let span = self.span(row);
        self.push(node, span.0, parent, vec![span])
    }

    /// Adds a top-level autograd operator to its step's backward node, and returns that node.
    fn backward(&mut self, parent: usize, row: usize) -> usize {
        let times = self.times(row);
        let source = (self.file_index, row as u32);
        let span = self.span(row);
        if let Some(id) = self.backward[parent] {
            let node = &mut self.nodes[id];
            node.times = node.times.plus(times);
            node.sources.push(source);
            self.spans[id].push(span);
            return id;
        }
        let node = TreeNode::new(NodeKind::Backward, BACKWARD_KEY.to_string(), times, vec![source]);
        let id = self.push(node, span.0, parent, vec![span]);
        self.backward[parent] = Some(id);
        id
    }

    /// Places a top-level autograd operator of backward node `backward`, which a flow links to
    /// forward module node `module`, on `module`'s `.backward` node and its ancestors.
    fn place_backward(&mut self, backward: usize, module: usize, row: usize) {
        let times = self.times(row);
        let span = self.span(row);
        let mut id = self.mirror(backward, module);
        while id != backward {
            let node = &mut self.nodes[id];
            node.times = node.times.plus(times);
            node.sources.push((self.file_index, row as u32));
            self.spans[id].push(span);
            id = self.parent[id];
        }
    }

    /// The `<Module>.backward` node under `backward` that mirrors forward module node `module`,
    /// made (with the mirrors of its module ancestors) on first use. It sorts among its siblings
    /// by its forward module's start, so that the backward tree reads (and aligns, and numbers
    /// its paths) like the forward one, though autograd runs it in reverse.
    fn mirror(&mut self, backward: usize, module: usize) -> usize {
        // The module and its module ancestors without a mirror yet, innermost first.
        let mut missing = Vec::new();
        let mut up = module;
        let mut parent = backward;
        while up != usize::MAX {
            if self.nodes[up].kind == NodeKind::Module {
                if let Some(&id) = self.mirrors.get(&(backward, up)) {
                    parent = id;
                    break;
                }
                missing.push(up);
            }
            up = self.parent[up];
        }
        for &m in missing.iter().rev() {
            let times = Times {
                calls: Some(0),
                host_total_ns: 0,
                device_total_ns: self.device.then_some(0),
            };
            let node = TreeNode::new(
                NodeKind::Backward,
                format!("{}.{BACKWARD_KEY}", self.nodes[m].key),
                times,
                Vec::new(),
            );
            let id = self.push(node, self.start[m], parent, Vec::new());
            self.mirrors.insert((backward, m), id);
            parent = id;
        }
        parent
    }

    /// What node `id` has that its children do not: (host time outside the union of their
    /// intervals, device time outside their subtrees, overlap of the children's host times).
    fn rest_of(&self, id: usize) -> (Times, i64) {
        let node = &self.nodes[id];
        let kids = &self.children[id];
        let theirs: Vec<(i64, i64)> = kids.iter().flat_map(|&k| self.spans[k].iter().copied()).collect();
        let mine = merge_spans(self.spans[id].clone());
        let covered = clipped_union(theirs, &mine);
        let summed: i64 = kids.iter().map(|&k| self.nodes[k].times.host_total_ns).sum();
        let device = node.times.device_total_ns.map(|d| {
            let in_children: i64 = kids.iter().filter_map(|&k| self.nodes[k].times.device_total_ns).sum();
            (d - in_children).max(0)
        });
        let rest = Times {
            calls: None,
            host_total_ns: (node.times.host_total_ns - covered).max(0),
            device_total_ns: device,
        };
        (rest, (summed - covered).max(0))
    }

    /// The finished tree under `id`, children in time order (built bottom-up, without
    /// recursion: a model nests modules thousands deep).
    fn finish(&mut self, id: usize) -> TreeNode {
        // Nodes of the subtree, parents before children.
        let mut order = vec![id];
        let mut k = 0;
        while k < order.len() {
            let n = order[k];
            let mut kids = std::mem::take(&mut self.children[n]);
            kids.sort_by_key(|&c| (self.start[c], c));
            order.extend_from_slice(&kids);
            self.children[n] = kids;
            k += 1;
        }
        for &n in &order {
            if !self.children[n].is_empty() {
                let (rest, overlap) = self.rest_of(n);
                self.nodes[n].rest = rest;
                self.nodes[n].children_overlap_ns = overlap;
            }
        }
        let mut done: FxHashMap<usize, TreeNode> = FxHashMap::default();
        for &n in order.iter().rev() {
            let mut node = std::mem::replace(
                &mut self.nodes[n],
                TreeNode::new(NodeKind::Unknown, String::new(), Times::default(), Vec::new()),
            );
            node.children = self.children[n].iter().filter_map(|c| done.remove(c)).collect();
            done.insert(n, node);
        }
        done.remove(&id)
            .unwrap_or_else(|| TreeNode::new(NodeKind::Unknown, String::new(), Times::default(), Vec::new()))
    }
}

/// The node at `path`, or a usage error that lists what is there.
pub(crate) fn zoom<'a>(diff: &'a ModuleDiff, path: Option<&str>) -> Result<&'a AlignedNode> {
    let Some(path) = path else { return Ok(&diff.root) };
    let path = without_root(path.trim(), &diff.root.key);
    if let Some(node) = diff.root.find(path) {
        return Ok(node);
    }
    // Name the deepest node that exists and its children, so the user can correct the path.
    let mut node = &diff.root;
    let mut good = 0;
    for segment in crate::analysis::modules::align::path_segments(path) {
        let next = crate::analysis::modules::align::parse_segment(&segment)
            .and_then(|(key, ordinal)| node.children.iter().filter(|c| c.key == key).nth(ordinal));
        match next {
            Some(next) => {
                node = next;
                good += 1;
            }
            _ => break,
        }
    }
    let here = if good == 0 {
        "the step".to_string()
    } else {
        diff.root.path_of(node.id).unwrap_or_default()
    };
    // The nearest paths: the children there, the first ones (a layer called 8,000 times has
    // 8,000 children; the message stays one readable line).
    const SHOWN: usize = 12;
    let children: Vec<String> = node.children.iter().take(SHOWN).map(AlignedNode::label).collect();
    let more = node.children.len().saturating_sub(SHOWN);
    let listed = match (children.is_empty(), more) {
        (true, _) => "no children".to_string(),
        (false, 0) => format!("children {}", children.join(", ")),
        (false, more) => format!("children {} and {more} more", children.join(", ")),
    };
    Err(Error::usage(format!(
        "--zoom '{}': no such node; {here} has {listed}",
        crate::text::elide(path, crate::text::QUOTED_MAX)
    )))
}

/// `path` without a leading segment that names the root (`ProfilerStep/Net[0]`: the table's top
/// row is the step, so users copy its name into the path).
fn without_root<'p>(path: &'p str, root_key: &str) -> &'p str {
    let trimmed = path.trim_start_matches('/');
    match trimmed.split_once('/') {
        Some((first, rest)) if first == root_key => rest,
        None if trimmed == root_key => "",
        _ => path,
    }
}

/// With `--zoom PATH`: the events inside that module node, and its full path.
pub(crate) fn zoom_scope(req: &CompareRequest, loaded: &Loaded, path: Option<&str>) -> Result<Option<(Scope, String)>> {
    let Some(path) = path else { return Ok(None) };
    let diff = modules(req, loaded)?;
    let node = zoom(&diff, Some(path))?;
    let full = diff.root.path_of(node.id).unwrap_or_default();
    Ok(Some((Scope::of(loaded, node), full)))
}

mod captured;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zoom_path_may_start_with_the_step() {
        assert_eq!(without_root("ProfilerStep/Net[0]", "ProfilerStep"), "Net[0]");
        assert_eq!(without_root("ProfilerStep", "ProfilerStep"), "");
        assert_eq!(
            without_root("Net[0]/ProfilerStep", "ProfilerStep"),
            "Net[0]/ProfilerStep"
        );
        assert_eq!(without_root("ProfilerSteps/x", "ProfilerStep"), "ProfilerSteps/x");
    }

    #[test]
    fn module_keys_drop_the_instance_number() {
        assert_eq!(module_key("nn.Module: Bottleneck_43"), Some("Bottleneck"));
        assert_eq!(module_key("nn.Module: Linear_0"), Some("Linear"));
        assert_eq!(module_key("nn.Module: My_Block_7"), Some("My_Block"));
        assert_eq!(module_key("nn.Module: ResNet"), Some("ResNet"));
        assert_eq!(module_key("nn.Module: Weird_"), Some("Weird_"));
        assert_eq!(module_key("aten::mm"), None);
    }
}
