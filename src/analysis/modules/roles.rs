//! What each host event is to the module tree (docs/semantics.md#module-aligned-diff): a step
//! (a root), a node (module, annotation, compiled code, or an operator where a trace has no
//! modules), part of the backward node, or inside its enclosing node; and the names that
//! make nodes (`nn.Module` frames, the autograd engine's operators, compiled code).

use crate::analysis::modules::align::NodeKind;
use crate::analysis::select::Selected;
use crate::model::calltree::CallTree;
use crate::model::iteration::step_number;
use crate::model::place::Place;
use crate::model::store::TraceFile;

/// The prefix of an `nn.Module` frame's name (python_function events, `with_stack`).
pub(crate) const MODULE_PREFIX: &str = "nn.Module: ";
/// The prefix of the autograd engine's operators.
pub(crate) const BACKWARD_PREFIX: &str = "autograd::engine::evaluate_function: ";
/// The module key of a name: `nn.Module: Bottleneck_43` → `Bottleneck`; `None` for any other
/// name.
pub(crate) fn module_key(name: &str) -> Option<&str> {
    let bare = name.strip_prefix(MODULE_PREFIX)?;
    Some(match bare.rsplit_once('_') {
        Some((class, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => class,
        _ => bare,
    })
}

/// Names of compiled code, matched at the start of an event's name, with the key they get.
const COMPILED: [(&str, &str); 4] = [
    ("## Call CompiledFxGraph", "## Call CompiledFxGraph ##"),
    ("Torch-Compiled Region", "Torch-Compiled Region"),
    ("CompiledFunctionBackward", "CompiledFunctionBackward"),
    ("CompiledFunction", "CompiledFunction"),
];

/// The key of compiled code's event (its hash or graph id dropped, so that it aligns across
/// runs), `None` for any other name.
pub(crate) fn compiled_key(name: &str) -> Option<&'static str> {
    COMPILED
        .iter()
        .find(|(prefix, _)| {
            name.strip_prefix(prefix)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', ':']))
        })
        .map(|&(_, key)| key)
}

/// What a host event is to the module tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// Not a node; its time belongs to the enclosing node.
    Inside,
    /// A selected step: a root.
    Root,
    Node(NodeKind),
    /// A top-level autograd operator: part of its step's backward node.
    Backward,
}

/// The user annotations that are steps (a serving loop's in a trace without ProfilerStep, or
/// `--step-marker`'s; [`crate::model::serving`]): row → step number.
fn serving_step_rows(file: &TraceFile) -> rustc_hash::FxHashMap<usize, i64> {
    let ev = &file.events;
    let annotation = file.strings.get("user_annotation");
    let step_at: rustc_hash::FxHashMap<i64, &crate::model::table::Step> =
        file.steps.iter().map(|s| (s.ts_ns, s)).collect();
    // Per step, the longest annotation that starts with it and fits in it: the step's own
    // (an annotation inside it may start at the same time; the step may have been stretched
    // to its device work, so its length is no longer the annotation's).
    let mut best: rustc_hash::FxHashMap<i64, (i64, usize)> = rustc_hash::FxHashMap::default();
    for i in 0..ev.len() {
        if Some(ev.cat[i]) != annotation || step_number(file.strings.resolve(ev.name[i])).is_some() {
            continue;
        }
        let Some(step) = step_at.get(&ev.ts_ns[i]) else {
            continue;
        };
        if ev.dur_ns[i] <= step.dur_ns {
            let entry = best.entry(step.number).or_insert((ev.dur_ns[i], i));
            if ev.dur_ns[i] > entry.0 {
                *entry = (ev.dur_ns[i], i);
            }
        }
    }
    best.into_iter().map(|(number, (_, row))| (row, number)).collect()
}

/// The role of every event of a file.
pub(crate) fn roles(file: &TraceFile, tree: &CallTree, iterations: Option<&[i64]>, fallback: bool) -> Vec<Role> {
    let ev = &file.events;
    // Without a step selection no ProfilerStep is a root (the whole file is one).
    let steps = iterations.map(|_| Selected::new(iterations));
    let cats: Vec<&str> = file.strings.iter().map(|(_, s)| s).collect();
    let by_name: Vec<Role> = file
        .strings
        .iter()
        .map(|(_, s)| {
            if module_key(s).is_some() {
                Role::Node(NodeKind::Module)
            } else if s.starts_with(BACKWARD_PREFIX) {
                Role::Backward
            } else if compiled_key(s).is_some() {
                Role::Node(NodeKind::Annotation)
            } else {
                Role::Inside
            }
        })
        .collect();
    // Steps are annotations only where no ProfilerStep names them.
    let profiler_steps = file.strings.iter().any(|(_, s)| step_number(s).is_some());
    let serving_rows = if file.steps.is_empty() || profiler_steps {
        Default::default()
    } else {
        serving_step_rows(file)
    };
    let mut roles = vec![Role::Inside; ev.len()];
    for i in 0..ev.len() {
        if ev.place[i] != Place::Host {
            continue;
        }
        let name = file.strings.resolve(ev.name[i]);
        let cat = cats[ev.cat[i].index()];
        roles[i] = if let Some(n) = step_number(name).or_else(|| serving_rows.get(&i).copied()) {
            if steps.as_ref().is_some_and(|steps| steps.admits(n)) {
                Role::Root
            } else {
                Role::Inside
            }
        } else {
            match by_name[ev.name[i].index()] {
                Role::Node(NodeKind::Module) if cat == "python_function" && !fallback => Role::Node(NodeKind::Module),
                Role::Backward if tree.is_operator[i] => Role::Backward,
                Role::Node(NodeKind::Annotation) => Role::Node(NodeKind::Annotation),
                _ if cat == "user_annotation" => Role::Node(NodeKind::Annotation),
                _ if fallback && tree.is_operator[i] => Role::Node(NodeKind::Op),
                _ => Role::Inside,
            }
        };
    }
    // Only the outermost autograd operator and, in the fallback, the outermost operator count:
    // an operator inside another one is part of it.
    for (i, role) in roles.iter_mut().enumerate() {
        if matches!(role, Role::Backward | Role::Node(NodeKind::Op)) && has_operator_ancestor(tree, i) {
            *role = Role::Inside;
        }
    }
    roles
}

fn has_operator_ancestor(tree: &CallTree, i: usize) -> bool {
    tree.up_from(i).skip(1).any(|a| tree.is_operator[a])
}

/// The row of the innermost enclosing event that is a node, a root or a top-level autograd
/// operator.
pub(crate) fn enclosing_node(tree: &CallTree, roles: &[Role], i: usize) -> Option<usize> {
    tree.up_from(i)
        .skip(1)
        .find(|&a| matches!(roles[a], Role::Node(_) | Role::Root | Role::Backward))
}
