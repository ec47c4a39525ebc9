//! The differential flame graph's stacks (docs/flamegraph.md): the module diff's aligned tree
//! as stacks `ProfilerStep;ResNet;Sequential[2];Bottleneck[5];aten::conv2d;…`, each weighted by
//! self time in nanoseconds on each side.
//!
//! - The frames down to the operators are the aligned module tree's nodes (their path segments,
//!   `[0]` left out), so both sides share one name for a node and a node that only one side has
//!   appears on that side only. Below a node come the operators that ran inside it and outside
//!   its child nodes (the chain of nested operators), and with device time the kernels they
//!   launched.
//! - A node's weight is its time as the module view gives it: what its child nodes take, plus
//!   the rest, split among its own operators (in the order they ran) and what is left as the
//!   node's own frame. So a side's stacks sum to its root's host (device) time, exactly the
//!   module view's step total, unless children ran concurrently and take more than their parent
//!   (the module view then reports `children_overlap`): the stacks then sum to the children's
//!   total.

use crate::analysis::classes::Classifier;
use crate::analysis::load::loaded::Loaded;
use crate::analysis::modules::align::{AlignedNode, NodeKind, Source, Times};
use crate::analysis::modules::{ModuleDiff, STEP_KEY};
use crate::model::calltree::{CallTree, NONE};
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::request::side::{PerSide, SideId};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// Module nodes deeper than this many levels below the step fold into their ancestor at this
/// level: its frame takes their time. A folded stack names every frame below it, so the stacks
/// of a tree thousands of nodes deep would grow with the square of the depth (6,000 nested
/// modules gave 300 MB), for frames no picture can show.
pub(crate) const MAX_NODE_DEPTH: usize = 256;

/// Operators nested more than this many levels below their module node fold into the operator
/// at this level: its frame takes their self time (and their kernels), so no nanosecond is lost
/// and a stack holds at most [`MAX_NODE_DEPTH`] + this many frames. 10,000 nested operators
/// gave 500 MB of folded stacks, growing with the square of the depth.
pub(crate) const MAX_OPERATOR_DEPTH: usize = 256;

/// Which time weighs the stacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum FlameTime {
    /// Host self time of operators (and of nodes' own time outside them).
    #[default]
    Host,
    /// Device time of the kernels, under the operators that launched them.
    Device,
}

impl FlameTime {
    /// The name `--time` takes: `host` or `device`.
    pub fn as_str(self) -> &'static str {
        match self {
            FlameTime::Host => "host",
            FlameTime::Device => "device",
        }
    }

    fn of(self, t: &Times) -> i64 {
        match self {
            FlameTime::Host => t.host_total_ns,
            FlameTime::Device => t.device_total_ns.unwrap_or(0),
        }
    }
}

/// Both sides' stacks: frames joined by `;` → (control ns, test ns), sorted by stack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlameStacks {
    /// Which time the values are.
    pub time: FlameTime,
    /// Each stack (`root;child;…`) → its own time in ns on the control and test sides.
    pub stacks: BTreeMap<String, [i64; 2]>,
    /// The step's host and device time on both sides, whichever time the stacks weigh: the
    /// picture's title gives both changes. `None` where not known (stacks made by hand).
    pub step: Option<StepTimes>,
}

/// The selected step's times on both sides (control, test), in ns, as the module view's root
/// gives them: per step where the stacks are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepTimes {
    /// The step's host time (its `ProfilerStep` spans).
    pub host_ns: [i64; 2],
    /// The device time of the work launched in it; `None` where neither side has any.
    pub device_ns: Option<[i64; 2]>,
}

impl StepTimes {
    /// The times of the module tree's root (the step).
    pub fn of(root: &AlignedNode) -> StepTimes {
        let [c, t] = [&root.control, &root.test];
        let host = |s: &Option<Times>| s.as_ref().map_or(0, |t| t.host_total_ns);
        let device = |s: &Option<Times>| s.as_ref().and_then(|t| t.device_total_ns);
        let device_ns =
            (device(c).is_some() || device(t).is_some()).then(|| [device(c).unwrap_or(0), device(t).unwrap_or(0)]);
        StepTimes {
            host_ns: [host(c), host(t)],
            device_ns,
        }
    }
}

impl FlameStacks {
    /// A frame's own time on both sides: the weight of the stack that ends in it (`[0, 0]`
    /// where it has none), what a differential frame's colour stands for.
    pub fn own_ns(&self, path: &str) -> [i64; 2] {
        self.stacks.get(path).copied().unwrap_or_default()
    }

    /// The sum of one side's weights (0 control, 1 test).
    pub fn total_ns(&self, side: usize) -> i64 {
        self.stacks.values().map(|v| v[side]).sum()
    }

    /// Every frame's inclusive time on both sides: a frame is a stack's prefix (`a;b` of
    /// `a;b;c`) and holds its own time and that of every frame above it, as its width in a
    /// flame graph. `""` is the whole (inferno's `all`). A flame graph drawn with one side's
    /// widths colours each frame by the change of this time, so a module whose kernels were
    /// all replaced by faster ones reads as faster, not as white under red new kernels.
    pub fn frame_totals(&self) -> FxHashMap<&str, [i64; 2]> {
        let mut totals: FxHashMap<&str, [i64; 2]> = FxHashMap::default();
        for (stack, ns) in &self.stacks {
            let ends = std::iter::once(0)
                .chain(stack.match_indices(';').map(|(i, _)| i))
                .chain(std::iter::once(stack.len()));
            for end in ends {
                let t = totals.entry(&stack[..end]).or_default();
                t[0] += ns[0];
                t[1] += ns[1];
            }
        }
        totals
    }
}

/// The stacks of `time`, or when none is asked for: device time on a pair with kernels under its
/// operators, host self time otherwise (also where the device events launched from no operator).
/// One rule for the command, the report and Python: on a GPU pair the question is the kernels.
pub(crate) fn flame_stacks_default(
    diff: &ModuleDiff,
    loaded: &Loaded,
    time: Option<FlameTime>,
    classifier: &Classifier,
) -> FlameStacks {
    let files = PerSide::from_fn(|id| loaded.files(id));
    flame_stacks_default_of(diff, files.as_ref().map(Vec::as_slice), time, classifier)
}

/// [`flame_stacks_default`] over each side's files (the sources' file indices index them): a
/// side of several runs lists every run's files, run after run.
pub(crate) fn flame_stacks_default_of(
    diff: &ModuleDiff,
    files: PerSide<&[&TraceFile]>,
    time: Option<FlameTime>,
    classifier: &Classifier,
) -> FlameStacks {
    if let Some(time) = time {
        return flame_stacks_of(diff, files, time, classifier);
    }
    if diff.has_device.iter().any(|&d| d) {
        let device = flame_stacks_of(diff, files, FlameTime::Device, classifier);
        if !device.stacks.is_empty() {
            return device;
        }
    }
    flame_stacks_of(diff, files, FlameTime::Host, classifier)
}

/// Builds the stacks of both sides from the module diff and each side's files. With device
/// time, a kernel frame whose names differ between the sides is keyed by `classifier`'s class
/// and its position (docs/flamegraph.md); [`flame_stacks_default_of`] picks the time.
pub(crate) fn flame_stacks_of(
    diff: &ModuleDiff,
    files: PerSide<&[&TraceFile]>,
    time: FlameTime,
    classifier: &Classifier,
) -> FlameStacks {
    let mut stacks: BTreeMap<String, [i64; 2]> = BTreeMap::new();
    let kernel_order = files.map_sides(|side, files| {
        let walker = SideWalker::new(files, &diff.root, side, time);
        let mut out: BTreeMap<String, i64> = BTreeMap::new();
        walker.node(&diff.root, 0, frame_name(STEP_KEY), &mut out);
        let place = match side {
            SideId::Control => 0,
            SideId::Test => 1,
        };
        for (stack, ns) in out {
            if ns != 0 {
                stacks.entry(stack).or_default()[place] += ns;
            }
        }
        walker.kernel_order.into_inner()
    });
    if time == FlameTime::Device {
        stacks = crate::analysis::classes::flame::key_by_class(stacks, &kernel_order.into_array(), classifier);
    }
    FlameStacks {
        time,
        stacks,
        step: Some(StepTimes::of(&diff.root)),
    }
}

impl FlameStacks {
    /// Per-step weights: each side's divided by its `steps` (to the nearest ns); stacks that
    /// round to nothing on both sides are dropped. Nothing changes for one step a side.
    pub fn per_step(&mut self, steps: PerSide<usize>) {
        if steps.iter().all(|(_, &s)| s <= 1) {
            return;
        }
        let div = |v: i64, d: usize| (v as f64 / d.max(1) as f64).round() as i64;
        let per = |ns: &mut [i64; 2]| *ns = [div(ns[0], steps.control), div(ns[1], steps.test)];
        self.stacks.values_mut().for_each(&per);
        self.stacks.retain(|_, ns| *ns != [0, 0]);
        if let Some(step) = &mut self.step {
            per(&mut step.host_ns);
            if let Some(device) = &mut step.device_ns {
                per(device);
            }
        }
    }
}

/// A frame's name as folded stacks can carry it: `;` separates frames, so it becomes `:`;
/// control characters (a newline would end the line, and XML refuses most of them) become their
/// visible Unicode pictures (U+2400…).
pub(crate) fn frame_name(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            ';' => ':',
            '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
            '\u{7f}' => '\u{2421}',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// A node's frame: the last segment of its path, without the ordinal `[0]`.
fn node_frame(node: &AlignedNode) -> String {
    let segment = node.label();
    frame_name(segment.strip_suffix("[0]").unwrap_or(&segment))
}

/// One side's files, with the call tree's children and launches as lists.
struct SideWalker<'a> {
    files: &'a [&'a TraceFile],
    side: SideId,
    time: FlameTime,
    /// Per file, the host children of each row (`offsets[row]..offsets[row + 1]` in `items`).
    children: Vec<Csr>,
    /// Per file, the device events each operator launched.
    launched: Vec<Csr>,
    /// Every event that some node of this side stands for: a walk stops there.
    sources: FxHashSet<Source>,
    /// With device time, each kernel stack in the order it was first written.
    kernel_order: std::cell::RefCell<Vec<String>>,
}

/// Lists per row in one vector (compressed sparse rows).
struct Csr {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Csr {
    /// From (row, item) pairs of `n` rows; items keep the pairs' order.
    fn new(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Csr {
        let mut offsets = vec![0u32; n + 1];
        for (row, _) in pairs.clone() {
            offsets[row as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut items = vec![0u32; offsets[n] as usize];
        for (row, item) in pairs {
            items[fill[row as usize] as usize] = item;
            fill[row as usize] += 1;
        }
        Csr { offsets, items }
    }

    fn of(&self, row: usize) -> &[u32] {
        &self.items[self.offsets[row] as usize..self.offsets[row + 1] as usize]
    }
}

impl<'a> SideWalker<'a> {
    fn new(files: &'a [&'a TraceFile], root: &AlignedNode, side: SideId, time: FlameTime) -> Self {
        let children = files.iter().map(|f| host_children(f)).collect();
        let launched = files
            .iter()
            .map(|f| {
                let tree = f.call_tree();
                let ev = &f.events;
                let n = ev.len();
                let pairs = (0..n as u32)
                    .filter(move |&i| ev.place[i as usize] == Place::Device && tree.launcher[i as usize] != NONE)
                    .map(move |i| (tree.launcher[i as usize], i));
                Csr::new(n, pairs)
            })
            .collect();
        let mut sources = FxHashSet::default();
        collect_sources(root, side, &mut sources);
        SideWalker {
            files,
            side,
            time,
            children,
            launched,
            sources,
            kernel_order: Default::default(),
        }
    }

    /// Writes the stacks of `node` (on this side, `level` levels below the step) under
    /// `prefix`; returns their sum. Recursive, but never deeper than [`MAX_NODE_DEPTH`].
    fn node(&self, node: &AlignedNode, level: usize, prefix: String, out: &mut BTreeMap<String, i64>) -> i64 {
        let Some(times) = (match self.side {
            SideId::Control => &node.control,
            SideId::Test => &node.test,
        }) else {
            return 0;
        };
        let target = self.time.of(times);
        let mut children_ns = 0i64;
        let mut child_sources: FxHashSet<Source> = FxHashSet::default();
        // At the depth limit the children are not drawn: their time stays on this frame.
        let shown = if level < MAX_NODE_DEPTH {
            node.children.as_slice()
        } else {
            &[]
        };
        for child in shown.iter().filter(|c| c.kind != NodeKind::Unknown) {
            children_ns += self.node(child, level + 1, format!("{prefix};{}", node_frame(child)), out);
            child_sources.extend(child.sources[self.side].iter().copied());
        }
        // The node's own time: what its children do not take, never negative.
        let own_ns = (target - children_ns).max(0);
        let mut own_rows: Vec<Source> = node.sources[self.side]
            .iter()
            .copied()
            .filter(|s| !child_sources.contains(s))
            .collect();
        own_rows.sort_by_key(|&(f, r)| (f, self.files[f as usize].events.ts_ns[r as usize], r));
        own_rows.dedup();
        let mut pieces: Vec<(String, i64)> = Vec::new();
        for (file, row) in own_rows {
            // A fallback operator node is its operator: its frame is not repeated.
            let skip_self = node.kind == NodeKind::Op;
            self.walk(file as usize, row as usize, &prefix, skip_self, &mut pieces);
        }
        let mut left = own_ns;
        if self.time == FlameTime::Device {
            self.kernel_order
                .borrow_mut()
                .extend(pieces.iter().map(|(stack, _)| stack.clone()));
        }
        for (stack, ns) in pieces {
            let take = ns.min(left);
            if take > 0 {
                *out.entry(stack).or_default() += take;
                left -= take;
            }
        }
        if left > 0 {
            *out.entry(prefix).or_default() += left;
        }
        children_ns + own_ns
    }

    /// The operator stacks under event `row` (depth first, as they ran), without entering other
    /// nodes' events: host self time on the chain of operators above each event, or device time
    /// of each kernel under the chain that launched it.
    fn walk(&self, file: usize, row: usize, prefix: &str, skip_self: bool, pieces: &mut Vec<(String, i64)>) {
        let f = self.files[file];
        if f.events.place[row] == Place::Device {
            // A replayed kernel on its captured module path: its captured operators.
            if self.time == FlameTime::Device
                && let Some(frames) = replayed_frames(f, row, skip_self)
            {
                pieces.push((format!("{prefix}{frames}"), f.events.dur_ns[row]));
            }
            return;
        }
        let tree = f.call_tree();
        // (row, the stack above it): iterative, so deep trees cannot overflow the stack.
        // (row, the stack above it, the operator frames in it below the prefix).
        let mut todo: Vec<(usize, String, usize)> = vec![(row, prefix.to_string(), 0)];
        while let Some((i, above, depth)) = todo.pop() {
            let framed = tree.is_operator[i] && !(skip_self && i == row) && depth < MAX_OPERATOR_DEPTH;
            let (here, depth) = if framed {
                (
                    format!("{above};{}", frame_name(f.strings.resolve(f.events.name[i]))),
                    depth + 1,
                )
            } else {
                (above, depth)
            };
            // Time outside every operator belongs to the node's own frame, left over at the end.
            let in_operator = here.len() > prefix.len();
            match self.time {
                FlameTime::Host if in_operator => pieces.push((here.clone(), tree.host_self_ns[i])),
                FlameTime::Host => {}
                FlameTime::Device => {
                    for &k in self.launched[file].of(i) {
                        // A replayed kernel placed on its captured module path is there.
                        if self.sources.contains(&(file as u32, k)) {
                            continue;
                        }
                        let k = k as usize;
                        let kernel = frame_name(f.strings.resolve(f.events.name[k]));
                        pieces.push((format!("{here};{kernel}"), f.events.dur_ns[k]));
                    }
                }
            }
            for &c in self.children[file].of(i).iter().rev() {
                if !self.sources.contains(&(file as u32, c)) {
                    todo.push((c as usize, here.clone(), depth));
                }
            }
        }
    }
}

/// The frames below a replayed kernel's node (`;op;…;kernel`): the operators around its
/// captured launch inside the capture, outermost first (without the first where the node is
/// that operator), then the kernel; `None` for a device event not joined to a capture.
fn replayed_frames(file: &TraceFile, row: usize, skip_first: bool) -> Option<String> {
    let join = file.graphs.get()?;
    let launch = join.launch_of(row)?;
    let mut out = String::new();
    let operators = launch.frames.iter().filter(|f| f.operator);
    for f in operators.skip(usize::from(skip_first)).take(MAX_OPERATOR_DEPTH) {
        out.push(';');
        out.push_str(&frame_name(join.name(f.name)));
    }
    out.push(';');
    out.push_str(&frame_name(file.strings.resolve(file.events.name[row])));
    Some(out)
}

/// Every event some node of `side` stands for.
fn collect_sources(node: &AlignedNode, side: SideId, out: &mut FxHashSet<Source>) {
    let mut todo = vec![node];
    while let Some(n) = todo.pop() {
        out.extend(n.sources[side].iter().copied());
        todo.extend(n.children.iter());
    }
}

/// The host children of every row of a file, in the order they ran.
fn host_children(file: &TraceFile) -> Csr {
    let tree: &CallTree = file.call_tree();
    let ev = &file.events;
    let mut rows: Vec<u32> = (0..ev.len() as u32)
        .filter(|&i| ev.place[i as usize] == Place::Host && tree.parent[i as usize] != NONE)
        .collect();
    rows.sort_by_key(|&i| (ev.ts_ns[i as usize], std::cmp::Reverse(ev.dur_ns[i as usize]), i));
    Csr::new(ev.len(), rows.into_iter().map(|i| (tree.parent[i as usize], i)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_names_keep_folded_lines_and_xml_intact() {
        assert_eq!(frame_name("a;b"), "a:b");
        assert_eq!(frame_name("x\ny\u{1}"), "x\u{240a}y\u{2401}");
        assert_eq!(frame_name("z\u{7f}\u{85}"), "z\u{2421}\u{fffd}");
        assert_eq!(frame_name("aten::mm"), "aten::mm");
    }

    #[test]
    fn a_frame_holds_its_own_time_and_all_above_it() {
        let mut stacks = FlameStacks::default();
        // fp32 kernels replaced by bf16 ones under the same operator.
        stacks
            .stacks
            .insert("step;Block;aten::linear;fp32_gemm".into(), [90, 0]);
        stacks
            .stacks
            .insert("step;Block;aten::linear;bf16_gemm".into(), [0, 15]);
        stacks.stacks.insert("step;Block".into(), [5, 4]);
        stacks.stacks.insert("step;Other".into(), [1, 1]);
        let totals = stacks.frame_totals();
        assert_eq!(totals[""], [96, 20]);
        assert_eq!(totals["step"], [96, 20]);
        assert_eq!(totals["step;Block"], [95, 19]);
        assert_eq!(totals["step;Block;aten::linear"], [90, 15]);
        assert_eq!(totals["step;Block;aten::linear;bf16_gemm"], [0, 15]);
        assert_eq!(totals["step;Other"], [1, 1]);
        assert_eq!(totals.len(), 7);
    }

    #[test]
    fn per_step_weights_divide_each_side_and_drop_what_rounds_to_nothing() {
        let mut s = FlameStacks::default();
        s.stacks.insert("a".into(), [300, 500]);
        s.stacks.insert("a;b".into(), [1, 2]);
        s.per_step(PerSide::new(3, 5));
        assert_eq!(
            s.stacks.into_iter().collect::<Vec<_>>(),
            [("a".to_string(), [100, 100])]
        );
    }

    #[test]
    fn sparse_rows_keep_their_items_in_order() {
        let csr = Csr::new(3, [(2u32, 7u32), (0, 1), (2, 5)].into_iter());
        assert_eq!(csr.of(0), &[1]);
        assert!(csr.of(1).is_empty());
        assert_eq!(csr.of(2), &[7, 5]);
    }
}
