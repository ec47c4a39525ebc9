//! The join of a replay trace's graph kernels to a capture (docs/graphs.md#graph-replays): the
//! graphs a trace captured, the graph launches it replayed, and the join by identity or by
//! position ([`crate::model::graph_position`]), all or nothing.

use crate::model::graph_position::{CapturedGraph, attr_text, join_by_position};
use crate::model::graphs::{CapturedFrame, CapturedLaunch, GRAPH_ID, GRAPH_NODE_ID, GraphJoin, is_node_launch};
use crate::model::iteration::launch_rows;
use crate::model::owners::{GRAPH_LAUNCHES, WorkKind, is_triton_launcher, python_op_name};
use crate::model::place::Place;
use crate::model::store::TraceFile;
use rustc_hash::FxHashMap;
use std::path::PathBuf;

/// The graphs captured in `file`: between each stream's begin and end capture on a host
/// thread, or, where the trace records no begin capture, under each innermost `capture_*`
/// user annotation. In capture order (by start time).
pub fn captured_graphs(file: &TraceFile) -> Vec<CapturedGraph> {
    let ev = &file.events;
    let names: Vec<u8> = file
        .strings
        .iter()
        .map(|(_, s)| {
            if s.contains("StreamBeginCapture") {
                1
            } else if s.contains("StreamEndCapture") {
                2
            } else if is_node_launch(s) {
                3
            } else if s.starts_with("capture_") {
                4
            } else {
                0
            }
        })
        .collect();
    let kind = |i: usize| names[ev.name[i].index()];
    let mut host: Vec<u32> = (0..ev.len() as u32)
        .filter(|&i| ev.place[i as usize] == Place::Host && kind(i as usize) != 0)
        .collect();
    host.sort_by_key(|&i| (ev.thread_key(i as usize), ev.ts_ns[i as usize], i));
    let is_launch = |i: usize| kind(i) == 3 && ev.correlation.get(i) >= 0;
    let mut out: Vec<(i64, CapturedGraph)> = Vec::new();
    if host.iter().any(|&i| kind(i as usize) == 1) {
        let mut open: Option<(u64, u32, Vec<u32>)> = None;
        for &r in &host {
            let i = r as usize;
            let thread = ev.thread_key(i);
            if open.as_ref().is_some_and(|(t, _, _)| *t != thread) {
                open = None;
            }
            match kind(i) {
                1 => open = Some((thread, r, Vec::new())),
                2 => {
                    if let Some((_, begin, launches)) = open.take() {
                        out.push((ev.ts_ns[begin as usize], CapturedGraph { launches, begin }));
                    }
                }
                _ if is_launch(i) => {
                    if let Some((_, _, launches)) = open.as_mut() {
                        launches.push(r);
                    }
                }
                _ => {}
            }
        }
    } else {
        let is_capture = |i: usize| kind(i) == 4 && file.strings.resolve(ev.cat[i]) == "user_annotation";
        let windows: Vec<u32> = host.iter().copied().filter(|&r| is_capture(r as usize)).collect();
        let inside = |w: usize, i: usize| {
            ev.thread_key(w) == ev.thread_key(i)
                && ev.ts_ns[w] <= ev.ts_ns[i]
                && ev.ts_ns[i] < ev.ts_ns[w].saturating_add(ev.dur_ns[w])
        };
        for &w in &windows {
            let w = w as usize;
            if windows.iter().any(|&o| o as usize != w && inside(w, o as usize)) {
                continue;
            }
            let launches: Vec<u32> = host
                .iter()
                .copied()
                .filter(|&r| is_launch(r as usize) && inside(w, r as usize))
                .collect();
            out.push((
                ev.ts_ns[w],
                CapturedGraph {
                    launches,
                    begin: w as u32,
                },
            ));
        }
    }
    out.retain(|(_, g)| !g.launches.is_empty());
    out.sort_by_key(|(ts, g)| (*ts, g.launches[0]));
    out.into_iter().map(|(_, g)| g).collect()
}

/// The graph launches of `file` that launched device events, in time order: per launch its
/// device events by start time.
pub fn replayed_graphs(file: &TraceFile) -> Vec<(u32, Vec<u32>)> {
    let ev = &file.events;
    let graph_name: Vec<bool> = file.strings.iter().map(|(_, s)| GRAPH_LAUNCHES.contains(&s)).collect();
    let launches = launch_rows(ev);
    let mut by_launch: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    for i in 0..ev.len() {
        if ev.place[i] != Place::Device {
            continue;
        }
        if let Some(&l) = launches.get(&ev.correlation.get(i))
            && graph_name[ev.name[l].index()]
        {
            by_launch.entry(l as u32).or_default().push(i as u32);
        }
    }
    let mut out: Vec<(u32, Vec<u32>)> = by_launch.into_iter().collect();
    for (_, kernels) in &mut out {
        kernels.sort_by_key(|&k| (ev.ts_ns[k as usize], k));
    }
    out.sort_by_key(|&(l, _)| (ev.ts_ns[l as usize], l));
    out
}

/// A row's `graph id` and node id (the low 32 bits of `graph node id`).
fn graph_node(file: &TraceFile, row: usize) -> Option<(u64, u32)> {
    let parse = |c: &str| attr_text(file, c, row)?.trim_matches('"').parse::<u64>().ok();
    Some((parse(GRAPH_ID)?, parse(GRAPH_NODE_ID)? as u32))
}

/// The host row that owns captured launch `launch`, and its kind: the innermost enclosing
/// operator; else the outer of the innermost Python op frame and Triton launcher; else the
/// innermost user annotation; else the launch (the rules of [`crate::model::owners`]).
pub fn launch_owner(file: &TraceFile, launch: usize) -> (u32, WorkKind) {
    let tree = file.call_tree();
    let ev = &file.events;
    let (mut python, mut triton, mut annotation) = (None, None, None);
    for (k, r) in tree.up_from(launch).skip(1).enumerate() {
        if tree.is_operator[r] {
            return (r as u32, WorkKind::Operator);
        }
        let name = file.strings.resolve(ev.name[r]);
        match file.strings.resolve(ev.cat[r]) {
            "python_function" if python_op_name(name).is_some() => {
                python = python.or(Some((k, r)));
            }
            "python_function" if is_triton_launcher(name) => triton = triton.or(Some((k, r))),
            "user_annotation" => annotation = annotation.or(Some(r)),
            _ => {}
        }
    }
    match (python, triton) {
        (Some((kp, p)), Some((kt, _))) if kp > kt => return (p as u32, WorkKind::Python),
        (_, Some((_, t))) => return (t as u32, WorkKind::Triton),
        (Some((_, p)), None) => return (p as u32, WorkKind::Python),
        (None, None) => {}
    }
    match annotation {
        Some(a) => (a as u32, WorkKind::Annotation),
        None => (launch as u32, WorkKind::Launch),
    }
}

/// The node ordinals of every graph kernel: its place among its launch's kernels.
pub fn node_ordinals(replayed: &[(u32, Vec<u32>)]) -> FxHashMap<u32, u32> {
    let mut node = FxHashMap::default();
    for (_, kernels) in replayed {
        for (k, &r) in kernels.iter().enumerate() {
            node.insert(r, k as u32);
        }
    }
    node
}

/// Joins the graph kernels of `replay` to the launches captured in `capture` (the replay
/// itself for a capture inside it). `Err` says why the join was refused.
pub fn join(replay: &TraceFile, capture: &TraceFile, replayed: &[(u32, Vec<u32>)]) -> Result<Vec<(u32, u32)>, String> {
    join_to(replay, capture, replayed, &captured_graphs(capture))
}

/// [`join`] to the graphs `graphs` captured in `capture`.
fn join_to(
    replay: &TraceFile,
    capture: &TraceFile,
    replayed: &[(u32, Vec<u32>)],
    graphs: &[CapturedGraph],
) -> Result<Vec<(u32, u32)>, String> {
    if replayed.is_empty() {
        return Ok(Vec::new());
    }
    if graphs.is_empty() {
        return Err("it captures no graph (no stream begin and end capture around launches)".to_string());
    }
    if let Some(pairs) = join_by_ids(replay, capture, replayed, graphs)? {
        return Ok(pairs);
    }
    join_by_position(replay, capture, replayed, graphs)
}

/// The join by `graph id` and `graph node id`, where every replayed kernel and every captured
/// launch carries them; `Ok(None)` where some do not.
fn join_by_ids(
    replay: &TraceFile,
    capture: &TraceFile,
    replayed: &[(u32, Vec<u32>)],
    graphs: &[CapturedGraph],
) -> Result<Option<Vec<(u32, u32)>>, String> {
    let mut captured: FxHashMap<(u64, u32), u32> = FxHashMap::default();
    for &l in graphs.iter().flat_map(|g| &g.launches) {
        let Some(id) = graph_node(capture, l as usize) else {
            return Ok(None);
        };
        captured.insert(id, l);
    }
    let mut pairs = Vec::new();
    for &k in replayed.iter().flat_map(|(_, k)| k) {
        let Some(id) = graph_node(replay, k as usize) else {
            return Ok(None);
        };
        match captured.get(&id) {
            Some(&l) => pairs.push((k, l)),
            None => {
                return Err(format!(
                    "graph {} node {} of the replay is not in the capture",
                    id.0, id.1
                ));
            }
        }
    }
    Ok(Some(pairs))
}

/// The join of `replay` to `capture` (a capture trace and its path; `None`: a capture inside
/// the replay's own trace, if it holds one), with the node ordinals and what each joined kernel
/// inherits; a refused join keeps only the ordinals and the reason.
pub fn graph_join(replay: &TraceFile, capture: Option<(&TraceFile, PathBuf)>) -> GraphJoin {
    let replayed = replayed_graphs(replay);
    let mut out = GraphJoin {
        node: node_ordinals(&replayed),
        graph_launches: replayed.len(),
        ..GraphJoin::default()
    };
    if replayed.is_empty() {
        return out;
    }
    let (file, path) = match capture {
        Some((f, p)) => (f, p),
        None if captured_graphs(replay).is_empty() => return out,
        None => {
            out.in_trace = true;
            (replay, replay.path.clone())
        }
    };
    out.capture_path = Some(path);
    let graphs = captured_graphs(file);
    match join_to(replay, file, &replayed, &graphs) {
        Ok(pairs) => {
            let begin: FxHashMap<u32, u32> = graphs
                .iter()
                .flat_map(|g| g.launches.iter().map(|&l| (l, g.begin)))
                .collect();
            let mut names = Names::default();
            let mut index: FxHashMap<u32, u32> = FxHashMap::default();
            for (k, l) in pairs {
                let at = *index.entry(l).or_insert_with(|| {
                    let begin = begin.get(&l).copied().unwrap_or(l);
                    out.launches.push(inherited(file, l, begin, &mut names));
                    out.launches.len() as u32 - 1
                });
                out.joined.insert(k, at);
            }
            out.names = names.list;
        }
        Err(why) => out.refused = Some(why),
    }
    out
}

/// Names, each kept once.
#[derive(Default)]
struct Names {
    list: Vec<String>,
    ids: FxHashMap<String, u32>,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        self.list.push(name.to_string());
        self.ids.insert(name.to_string(), self.list.len() as u32 - 1);
        self.list.len() as u32 - 1
    }
}

/// What a kernel joined to captured launch `launch` of `file` (in the capture opened by row
/// `begin`) inherits: its owner, the operators around it, its shapes, its stack and the frames
/// of its stack inside the captured work.
fn inherited(file: &TraceFile, launch: u32, begin: u32, names: &mut Names) -> CapturedLaunch {
    let (owner, kind) = launch_owner(file, launch as usize);
    let tree = file.call_tree();
    let name = |r: usize| file.strings.resolve(file.events.name[r]);
    let operators = tree
        .up_from(owner as usize)
        .skip(1)
        .filter(|&r| tree.is_operator[r])
        .map(|r| names.id(name(r)))
        .collect();
    let mut stack: Vec<u32> = tree
        .up_from(launch as usize)
        .skip(1)
        .map(|r| names.id(name(r)))
        .collect();
    stack.reverse();
    let frames = captured_frames(file, launch as usize, begin as usize, names);
    let shapes = attr_text(file, "input_dims", owner as usize).map(|s| names.id(s));
    CapturedLaunch {
        row: launch,
        kind,
        owner: names.id(name(owner as usize)),
        operators,
        shapes,
        stack,
        frames,
    }
}

/// The host events enclosing `launch` inside the captured work, outermost first: below the
/// `capture_*` annotation `begin` where it encloses the launch, else those that started after
/// the begin capture call `begin` (the events enclosing that call wrap the capture).
fn captured_frames(file: &TraceFile, launch: usize, begin: usize, names: &mut Names) -> Vec<CapturedFrame> {
    let tree = file.call_tree();
    let ev = &file.events;
    let mut up: Vec<usize> = tree
        .up_from(launch)
        .skip(1)
        .take_while(|&r| r != begin && ev.ts_ns[r] > ev.ts_ns[begin])
        .collect();
    up.reverse();
    up.into_iter()
        .map(|r| CapturedFrame {
            row: r as u32,
            name: names.id(file.strings.resolve(ev.name[r])),
            cat: names.id(file.strings.resolve(ev.cat[r])),
            operator: tree.is_operator[r],
        })
        .collect()
}

#[cfg(test)]
mod tests;
