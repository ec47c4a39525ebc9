//! Unit tests of the join of graph replays to their capture, on traces written inline.

use super::*;
use crate::input::attrs::AttrRequest;
use crate::input::load::trace_from_reader;
use crate::input::read::Compression;
use crate::model::graphs::attr_specs;
use std::path::Path;

fn load(events: &str, capture: bool) -> TraceFile {
    let text = format!(r#"{{"traceEvents": [{events}]}}"#);
    let attrs = AttrRequest {
        specs: attr_specs(capture),
        ..AttrRequest::default()
    };
    trace_from_reader(text.as_bytes(), Path::new("t.json"), Compression::None, &attrs).unwrap()
}

fn host(cat: &str, name: &str, ts: i64, dur: i64, args: &str) -> String {
    format!(
        r#"{{"ph": "X", "cat": "{cat}", "name": "{name}", "pid": 1, "tid": 1, "ts": {ts}, "dur": {dur}, "args": {{{args}}}}}"#
    )
}

fn kernel(name: &str, ts: i64, correlation: i64, stream: i64, extra: &str) -> String {
    format!(
        r#"{{"ph": "X", "cat": "kernel", "name": "{name}", "pid": 0, "tid": {stream}, "ts": {ts}, "dur": 2, "args": {{"stream": {stream}, "correlation": {correlation}{extra}}}}}"#
    )
}

/// A capture of one graph (`aten::mm` launching `gemm`, then a Triton launcher's `tri`) between
/// begin and end capture, `names` saying whether launches record their kernel.
fn capture_events(names: [&str; 2], ids: bool) -> Vec<String> {
    let id = |n: u64| {
        if ids {
            format!(r#", "graph id": 7, "graph node id": {}"#, (1u64 << 32) | n)
        } else {
            String::new()
        }
    };
    vec![
        host("user_annotation", "capture_graphs", 0, 100, ""),
        host("cuda_runtime", "cudaStreamBeginCapture", 1, 1, r#""correlation": 1"#),
        host("cpu_op", "aten::mm", 10, 10, r#""Input Dims": [[2, 3], [3, 4]]"#),
        host(
            "cuda_runtime",
            "cudaLaunchKernel",
            12,
            2,
            &format!(r#""correlation": 2{}{}"#, names[0], id(0)),
        ),
        host("python_function", "triton/runtime/jit.py(700): run", 30, 10, ""),
        host(
            "cuda_runtime",
            "cuLaunchKernel",
            32,
            2,
            &format!(r#""correlation": 3{}{}"#, names[1], id(1)),
        ),
        host("cuda_runtime", "cudaStreamEndCapture", 50, 1, r#""correlation": 4"#),
    ]
}

/// Two replays of the graph, the first at 200 µs, by `cudaGraphLaunch`.
fn replay_events(ids: bool) -> Vec<String> {
    let id = |n: u64| {
        if ids {
            format!(r#", "graph id": 7, "graph node id": {}"#, (2u64 << 32) | n)
        } else {
            String::new()
        }
    };
    let mut out = Vec::new();
    for (k, ts) in [(0, 200), (1, 300)] {
        let c = 100 + k;
        out.push(host("python_function", "torch/cuda/graphs.py(139): replay", ts, 10, ""));
        out.push(host(
            "cuda_runtime",
            "cudaGraphLaunch",
            ts + 1,
            2,
            &format!(r#""correlation": {c}"#),
        ));
        out.push(kernel("gemm", ts + 5, c, 7, &id(0)));
        out.push(kernel("tri", ts + 8, c, 7, &id(1)));
    }
    out
}

fn names(file: &TraceFile, capture: &TraceFile, rows: &[(u32, u32)]) -> Vec<(String, String)> {
    rows.iter()
        .map(|&(k, l)| {
            let (owner, _) = launch_owner(capture, l as usize);
            (
                file.strings.resolve(file.events.name[k as usize]).to_string(),
                capture.strings.resolve(capture.events.name[owner as usize]).to_string(),
            )
        })
        .collect()
}

#[test]
fn a_capture_inside_the_trace_joins_each_replay_by_position() {
    let mut events = capture_events([r#", "kernel": "gemm""#, ""], false);
    events.extend(replay_events(false));
    let file = load(&events.join(","), true);
    let g = graph_join(&file, None);
    assert_eq!((g.graph_launches, g.joined.len(), g.refused.as_deref()), (2, 4, None));
    let replayed = replayed_graphs(&file);
    let pairs = join(&file, &file, &replayed).unwrap();
    assert_eq!(
        names(&file, &file, &pairs)[..2],
        [
            ("gemm".to_string(), "aten::mm".to_string()),
            ("tri".to_string(), "triton/runtime/jit.py(700): run".to_string())
        ]
    );
    let owners: Vec<WorkKind> = g.launches.iter().map(|l| l.kind).collect();
    assert_eq!(owners, [WorkKind::Operator, WorkKind::Triton]);
    let ordinals: Vec<u32> = replayed.iter().flat_map(|(_, k)| k.iter().map(|r| g.node[r])).collect();
    assert_eq!(ordinals, [0, 1, 0, 1]);
}

/// A joined launch's frames are those inside the captured work: `aten::mm` started after the
/// begin capture call; `capture_graphs`, around that call, wraps the capture.
#[test]
fn a_joined_launch_keeps_its_frames_inside_the_capture() {
    let capture = load(&capture_events([r#", "kernel": "gemm""#, ""], false).join(","), true);
    let replay = load(&replay_events(false).join(","), false);
    let g = graph_join(&replay, Some((&capture, PathBuf::from("c.json"))));
    assert_eq!(g.refused, None);
    let frames: Vec<Vec<(&str, &str, bool)>> = g
        .launches
        .iter()
        .map(|l| {
            l.frames
                .iter()
                .map(|f| (g.name(f.name), g.name(f.cat), f.operator))
                .collect()
        })
        .collect();
    assert_eq!(
        frames,
        [
            vec![("aten::mm", "cpu_op", true)],
            vec![("triton/runtime/jit.py(700): run", "python_function", false)]
        ]
    );
    assert_eq!(g.name(g.launches[0].stack[0]), "capture_graphs");
}

#[test]
fn a_capture_whose_names_or_counts_disagree_is_refused_whole() {
    let capture = load(&capture_events([r#", "kernel": "other""#, ""], false).join(","), true);
    let replay = load(&replay_events(false).join(","), false);
    let g = graph_join(&replay, Some((&capture, PathBuf::from("c.json"))));
    assert!(g.joined.is_empty());
    assert_eq!(
        g.refused.as_deref(),
        Some(
            "graph launch 1 of 2 (at 201.000 µs): its node 0 ran `gemm` where the capture launched `other` (captured graph 1 of 1)"
        )
    );
    let mut short = capture_events(["", ""], false);
    short.remove(5);
    let capture = load(&short.join(","), true);
    let g = graph_join(&replay, Some((&capture, PathBuf::from("c.json"))));
    assert!(g.joined.is_empty());
    assert!(
        g.refused
            .as_deref()
            .unwrap()
            .contains("it replayed 2 kernels where the captured graph has 1 launches"),
        "{:?}",
        g.refused
    );
    let none = load(&host("cpu_op", "aten::mm", 0, 1, ""), true);
    let g = graph_join(&replay, Some((&none, PathBuf::from("c.json"))));
    assert_eq!(
        g.refused.as_deref(),
        Some("it captures no graph (no stream begin and end capture around launches)")
    );
}

#[test]
fn graph_and_node_ids_join_by_identity() {
    // The replay's kernels in the opposite order of the capture's launches: ids decide.
    let capture = load(&capture_events(["", ""], true).join(","), true);
    let mut events = replay_events(true);
    events.swap(2, 3);
    let replay = load(&events.join(","), false);
    let pairs = join(&replay, &capture, &replayed_graphs(&replay)).unwrap();
    let mut joined = names(&replay, &capture, &pairs);
    joined.sort();
    assert_eq!(joined[0], ("gemm".to_string(), "aten::mm".to_string()));
    // A node the capture does not hold refuses the join.
    let mut events = replay_events(true);
    events[2] = kernel("gemm", 205, 100, 7, r#", "graph id": 7, "graph node id": 9"#);
    let replay = load(&events.join(","), false);
    assert_eq!(
        join(&replay, &capture, &replayed_graphs(&replay)),
        Err("graph 7 node 9 of the replay is not in the capture".to_string())
    );
}

#[test]
fn kernels_on_two_streams_need_the_capture_to_record_streams() {
    let capture = load(&capture_events(["", ""], false).join(","), true);
    let mut events = replay_events(false);
    events[3] = kernel("tri", 208, 100, 8, "");
    let replay = load(&events.join(","), false);
    let err = join(&replay, &capture, &replayed_graphs(&replay)).unwrap_err();
    assert!(
        err.contains("it ran on 2 streams and the capture records no stream per launch"),
        "{err}"
    );
}

#[test]
fn node_launches_are_kernel_launches_copies_and_sets() {
    for n in [
        "cudaLaunchKernel",
        "hipExtModuleLaunchKernel",
        "cuLaunchKernelEx",
        "cudaMemcpyAsync",
        "hipMemsetAsync",
    ] {
        assert!(is_node_launch(n), "{n}");
    }
    for n in ["cudaMemcpy", "hipStreamGetCaptureInfo", "cudaGraphLaunch"] {
        assert!(!is_node_launch(n), "{n}");
    }
}
