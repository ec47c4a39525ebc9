//! Who launched each device event, when no ATen operator did (docs/graphs.md#launch-owners).
//!
//! A device event's launch (by correlation) is owned by its innermost enclosing `cpu_op` (its
//! launching operator, [`crate::model::calltree`]). With none, by the innermost enclosing host
//! event that names work, in this order:
//! 1. a Python frame of a native or custom op: `<built-in method gemm_a16w16 of …>` or
//!    `<built-in function launch_x>` (named `gemm_a16w16`, `launch_x`), or the Python wrapper
//!    of a graph replay (`torch/cuda/graphs.py(…): replay`, named `replay`);
//! 2. a Triton or Inductor launcher: a frame of `triton/runtime/`, `triton/backends/` or
//!    Inductor's `triton_heuristics.py` (named after the kernel it launched); the native frames
//!    inside a launcher are its own machinery and never win over it;
//! 3. a user annotation (`record_function`, `execute_…`, `step[DECODE …]`);
//! 4. else the launch itself (`cudaLaunchKernel`).
//!
//! [`WorkOwners`] holds the result per event; [`WorkOwners::label`] names a non-ATen owner as
//! the operator view shows it (`gemm_a16w16 [python]`).

use crate::model::place::Place;
use crate::model::table::{EventTable, StringTable};
use rustc_hash::FxHashMap;

/// Row index meaning "none" (as in the call tree's columns).
const NONE: u32 = u32::MAX;

/// What kind of host event owns a device event's launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum WorkKind {
    /// No owner: the device event has no launch (or is not a device event).
    #[default]
    None,
    /// An ATen operator (`cpu_op`/`Operator`): its launching operator.
    Operator,
    /// A Python frame of a native or custom op.
    Python,
    /// A Triton or Inductor launcher.
    Triton,
    /// A user annotation.
    Annotation,
    /// The launch itself (no host event that names work encloses it).
    Launch,
}

impl WorkKind {
    /// The tag a non-ATen owner's row carries (`python`, `triton`, `annotation`, `launch`);
    /// empty for an operator and for none.
    pub fn tag(self) -> &'static str {
        match self {
            WorkKind::None | WorkKind::Operator => "",
            WorkKind::Python => "python",
            WorkKind::Triton => "triton",
            WorkKind::Annotation => "annotation",
            WorkKind::Launch => "launch",
        }
    }
}

/// The graph launch calls: their kernels were captured earlier and replayed as a whole.
pub const GRAPH_LAUNCHES: [&str; 4] = [
    "cudaGraphLaunch",
    "hipGraphLaunch",
    "cuGraphLaunch",
    "hipGraphLaunch_spt",
];

/// Per event, the host row that owns its launch and what kind of event that is.
#[derive(Debug, Clone, Default)]
pub struct WorkOwners {
    /// For a device event, the owning host row, or `u32::MAX` without a launch.
    pub row: Vec<u32>,
    /// For a device event, what kind of event [`Self::row`] is.
    pub kind: Vec<WorkKind>,
    /// For a device event, whether its launch is a graph launch (`cudaGraphLaunch`, …).
    pub graph: Vec<bool>,
}

/// What a host event's own name and category say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Other,
    Python,
    Triton,
    Annotation,
}

/// The native op a Python frame calls: `<built-in method NAME of …>` or `<built-in function
/// NAME>`.
pub fn native_op_name(frame: &str) -> Option<&str> {
    let rest = frame.strip_prefix("<built-in ")?;
    let name = if let Some(m) = rest.strip_prefix("method ") {
        m.split(" of ").next()?
    } else {
        rest.strip_prefix("function ")?.strip_suffix('>')?
    };
    (!name.is_empty()).then_some(name)
}

/// The native op a Python frame stands for: a built-in ([`native_op_name`]), or the Python
/// wrapper of a graph replay (`torch/cuda/graphs.py(139): replay`, named `replay`, which
/// some builds record without the built-in below it).
pub fn python_op_name(frame: &str) -> Option<&str> {
    native_op_name(frame)
        .or_else(|| (frame.starts_with("torch/cuda/graphs.py(") && frame.ends_with("): replay")).then_some("replay"))
}

/// Whether a Python frame is part of a Triton or Inductor kernel launcher.
pub fn is_triton_launcher(frame: &str) -> bool {
    [
        "triton/runtime/",
        "triton/backends/",
        "_inductor/runtime/triton_heuristics.py",
    ]
    .iter()
    .any(|p| frame.contains(p))
}

fn classes(strings: &StringTable) -> (Vec<Class>, Vec<Class>) {
    // Per string id: its class as a name of a python_function, and whether it is the
    // user_annotation category; resolved per event below.
    let as_frame = strings
        .iter()
        .map(|(_, s)| {
            if python_op_name(s).is_some() {
                Class::Python
            } else if is_triton_launcher(s) {
                Class::Triton
            } else {
                Class::Other
            }
        })
        .collect();
    let as_cat = strings
        .iter()
        .map(|(_, s)| match s {
            "python_function" => Class::Python,
            "user_annotation" => Class::Annotation,
            _ => Class::Other,
        })
        .collect();
    (as_frame, as_cat)
}

/// Nearest enclosing candidates of one host event (itself included), as rows.
#[derive(Debug, Clone, Copy)]
struct Nearest {
    python: u32,
    triton: u32,
    annotation: u32,
}

const NO_NEAREST: Nearest = Nearest {
    python: NONE,
    triton: NONE,
    annotation: NONE,
};

impl WorkOwners {
    /// The owners of every device event of `ev`, given its call tree's columns, the host rows
    /// parents first (`order`) and the launches by correlation.
    pub fn build(
        strings: &StringTable,
        ev: &EventTable,
        tree: Links<'_>,
        order: &[u32],
        launches: &FxHashMap<i64, usize>,
    ) -> WorkOwners {
        let n = ev.len();
        let (as_frame, as_cat) = classes(strings);
        let class = |i: usize| match as_cat[ev.cat[i].index()] {
            Class::Python => as_frame[ev.name[i].index()],
            c => c,
        };
        // Parents come before their children in `order`: pass the nearest candidates down.
        let mut state: Vec<Nearest> = Vec::new();
        let needed = launches.values().any(|&l| tree.parent[l] != NONE);
        if needed {
            state = vec![NO_NEAREST; n];
            for &r in order {
                let i = r as usize;
                let mut s = match tree.parent[i] {
                    NONE => NO_NEAREST,
                    p => state[p as usize],
                };
                match class(i) {
                    Class::Python => s.python = r,
                    Class::Triton => s.triton = r,
                    Class::Annotation => s.annotation = r,
                    Class::Other => {}
                }
                state[i] = s;
            }
        }
        let graph_names: Vec<bool> = strings.iter().map(|(_, s)| GRAPH_LAUNCHES.contains(&s)).collect();
        let mut out = WorkOwners {
            row: vec![NONE; n],
            kind: vec![WorkKind::None; n],
            graph: vec![false; n],
        };
        for i in 0..n {
            if ev.place[i] != Place::Device {
                continue;
            }
            let Some(&launch) = launches.get(&ev.correlation.get(i)) else {
                continue;
            };
            out.graph[i] = graph_names[ev.name[launch].index()];
            let (row, kind) = owner_of(tree, &state, launch, i);
            out.row[i] = row;
            out.kind[i] = kind;
        }
        out
    }

    /// The row key of a non-ATen owner of device event `row`: `gemm_a16w16 [python]`, the
    /// kernel's name for a Triton launcher, the annotation's or the launch's own name; `keyed`
    /// turns a bare name into its row key (short or normalised names). `None` for an operator
    /// owner (its row is the operator's) and for no owner.
    pub fn label(
        &self,
        strings: &StringTable,
        ev: &EventTable,
        row: usize,
        keyed: &dyn Fn(&str) -> String,
    ) -> Option<String> {
        let owner = self.row[row];
        if owner == NONE {
            return None;
        }
        let owner_name = strings.resolve(ev.name[owner as usize]);
        owner_label(self.kind[row], owner_name, strings.resolve(ev.name[row]), keyed)
    }
}

/// The row key of a non-ATen owner named `owner` (its event's name) of a device event named
/// `kernel`: `gemm_a16w16 [python]`, the kernel's name for a Triton launcher, the annotation's
/// or the launch's own name; `keyed` turns a bare name into its row key (a serving step's
/// without its numbers under normalised names, as recorded under raw names). `None` for an
/// operator and for no owner.
pub fn owner_label(kind: WorkKind, owner: &str, kernel: &str, keyed: &dyn Fn(&str) -> String) -> Option<String> {
    let base = match kind {
        WorkKind::None | WorkKind::Operator => return None,
        WorkKind::Python => python_op_name(owner).unwrap_or(owner).to_string(),
        WorkKind::Triton => keyed(kernel),
        WorkKind::Annotation | WorkKind::Launch => keyed(owner),
    };
    Some(format!("{base} [{}]", kind.tag()))
}

/// The call tree's columns the owners are found from (`u32::MAX`: none).
#[derive(Debug, Clone, Copy)]
pub struct Links<'a> {
    /// Each event's enclosing host event.
    pub parent: &'a [u32],
    /// Each event's depth in the tree.
    pub depth: &'a [u32],
    /// Each device event's launching operator.
    pub launcher: &'a [u32],
}

/// The owner of device event `device` launched by host row `launch`.
fn owner_of(tree: Links<'_>, state: &[Nearest], launch: usize, device: usize) -> (u32, WorkKind) {
    if tree.launcher[device] != NONE {
        return (tree.launcher[device], WorkKind::Operator);
    }
    let p = tree.parent[launch];
    if p == NONE {
        return (launch as u32, WorkKind::Launch);
    }
    let s = state[p as usize];
    let depth = |r: u32| tree.depth[r as usize];
    // A native frame inside a Triton launcher is the launcher's machinery: the outer wins.
    match (s.python, s.triton) {
        (NONE, NONE) => {}
        (py, NONE) => return (py, WorkKind::Python),
        (NONE, tr) => return (tr, WorkKind::Triton),
        (py, tr) if depth(py) < depth(tr) => return (py, WorkKind::Python),
        (_, tr) => return (tr, WorkKind::Triton),
    }
    match s.annotation {
        NONE => (launch as u32, WorkKind::Launch),
        a => (a, WorkKind::Annotation),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn native_op_names_come_from_built_in_frames() {
        assert_eq!(
            native_op_name("<built-in method gemm_a16w16 of PyCapsule object at 0x7f>"),
            Some("gemm_a16w16")
        );
        assert_eq!(native_op_name("<built-in function launch>"), Some("launch"));
        assert_eq!(
            native_op_name("<built-in method replay of pybind11_builtins.pybind11_detail_function_record_v1 object>"),
            Some("replay")
        );
        assert_eq!(native_op_name("torch/_ops.py(1244): __call__"), None);
        assert_eq!(native_op_name("<built-in function >"), None);
        assert_eq!(python_op_name("torch/cuda/graphs.py(139): replay"), Some("replay"));
        assert_eq!(python_op_name("torch/cuda/graphs.py(80): capture_begin"), None);
    }

    #[test]
    fn triton_launcher_frames() {
        assert!(is_triton_launcher("/x/triton/runtime/jit.py(708): run"));
        assert!(is_triton_launcher(
            "torch/_inductor/runtime/triton_heuristics.py(1100): run"
        ));
        assert!(!is_triton_launcher("vllm/model_executor/layers/utils.py(122): f"));
    }
}
