//! Graph kernels joined to their capture carry their captured module path and stack into
//! `modules`, the flame graph and the report (docs/graphs.md#graph-replays), on
//! `fixtures/graphs/` (made by `fixtures/make_graph_fixtures.py`): the vLLM slice, a made-up
//! graph on two streams (`multistream/`) and a CUDA-style capture with graph and node ids
//! (`cuda_ids/`), each with a capture that must be refused. Output is checked exactly.

use crate::common;

use common::{ok, run};

/// A slice of a vLLM piecewise graph replay, its capture in `capture_traces/` beside it.
const REPLAY: &str = "fixtures/graphs/replay";
/// The same capture with the kernels each captured graph names reversed.
const MISMATCHED: &str = "fixtures/graphs/mismatched";
/// One graph on two streams, replayed in two steps from inside `Model`.
const MULTISTREAM: &str = "fixtures/graphs/multistream";
/// A capture of the same graph with one kernel more in `MoE`.
const MULTISTREAM_OTHER: &str = "fixtures/graphs/multistream_other";
/// Kernels and captured launches with `graph id` and `graph node id`, started out of order.
const CUDA_IDS: &str = "fixtures/graphs/cuda_ids";
/// A capture of graph 6 where the replay ran graph 5.
const CUDA_IDS_OTHER: &str = "fixtures/graphs/cuda_ids_other";

/// The nodes of a module tree (JSON) that say they ran via graph replay, with their device
/// time per side (µs).
fn replayed_nodes(j: &serde_json::Value) -> Vec<(String, serde_json::Value, serde_json::Value)> {
    let mut out = Vec::new();
    let mut todo = vec![j];
    while let Some(n) = todo.pop() {
        if !n["via_graph_replay"].is_null() {
            out.push((
                n["path"].as_str().unwrap_or_default().to_string(),
                n["control"]["device_total_us"].clone(),
                n["test"]["device_total_us"].clone(),
            ));
        }
        if let Some(children) = n["children"].as_array() {
            todo.extend(children.iter().rev());
        }
    }
    out
}

/// The vLLM replay's kernels leave `GraphModule` for the piecewise graphs captured inside it
/// (`## Call CompiledFxGraph ##`, the captured operators below, marked via graph replay); the
/// side whose capture is refused keeps them on `GraphModule`, as one lump.
#[test]
fn modules_place_replayed_kernels_on_their_captured_modules() {
    let r = run(&[
        "modules",
        REPLAY,
        REPLAY,
        "--test-capture",
        MISMATCHED,
        "--depth",
        "4",
        "--order",
        "logical",
        "--format",
        "markdown",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!(r.stdout);
    assert!(
        r.stderr
            .contains("note: test: rank 0: graph replays not joined to capture"),
        "{}",
        r.stderr
    );
    let j = common::json(&["modules", REPLAY, REPLAY]);
    let nodes = replayed_nodes(&j);
    let top: Vec<&(String, _, _)> = nodes.iter().filter(|n| n.0.matches('/').count() == 2).collect();
    assert_eq!(
        top.iter().map(|n| n.0.as_str()).collect::<Vec<_>>(),
        [
            "GptOssForCausalLM[0]/GraphModule[0]/## Call CompiledFxGraph ##[0]",
            "GptOssForCausalLM[0]/GraphModule[0]/## Call CompiledFxGraph ##[1]",
            "GptOssForCausalLM[0]/GraphModule[0]/## Call CompiledFxGraph ##[2]",
        ]
    );
    // Every joined kernel (12,942.693 µs) is on a captured node, none left on GraphModule.
    let sum: f64 = top.iter().map(|n| n.1.as_f64().unwrap_or(0.0)).sum();
    assert!((sum - 12942.693).abs() < 1e-3, "{sum}");
}

/// The flame graph's frames below a replayed kernel's node are its captured operators, then the
/// kernel; the stacks still sum to the step's device time.
#[test]
fn the_flame_graph_places_replayed_kernels_on_captured_frames() {
    let folded = ok(&["flamegraph", REPLAY, REPLAY, "--folded", "--side", "control"]);
    assert!(
        folded.contains(
            "\nProfilerStep;GptOssForCausalLM;GraphModule;## Call CompiledFxGraph ##[1];vllm::moe_forward;\
             _matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1_swiglu 3403300\n"
        ),
        "{folded}"
    );
    let total: i64 = folded
        .lines()
        .filter_map(|l| l.rsplit(' ').next()?.parse::<i64>().ok())
        .sum();
    assert_eq!(total, 13_421_526);
    insta::assert_snapshot!(ok(&[
        "flamegraph",
        MULTISTREAM,
        MULTISTREAM,
        "--iteration",
        "all",
        "--folded",
        "--side",
        "test"
    ]));
}

/// The report's module tree marks the nodes built from a capture (`r` per side in its page
/// data), which its tables and tooltips name "via graph replay".
#[test]
fn the_report_marks_nodes_built_from_a_capture() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.html");
    let out = out.to_str().unwrap();
    let r = run(&["report", MULTISTREAM, MULTISTREAM, "-o", out]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let page = std::fs::read_to_string(out).unwrap();
    assert_eq!(page.matches(r#""r":[true,true]"#).count(), 2, "Attention and MoE");
    assert!(page.contains("via graph replay"));
}

/// One graph on two streams, its kernels interleaved by start time: joined stream by stream,
/// so each takes the operator that launched it in the capture, and `modules` places them in
/// the captured `Attention` and `MoE` under the replay's `Model`. A capture with one kernel
/// more in `MoE` is refused, and the test side keeps `replay [python]`.
#[test]
fn a_graph_on_two_streams_joins_stream_by_stream() {
    let args = |cmd: &[&'static str]| -> Vec<&'static str> {
        let mut v = cmd.to_vec();
        v.extend([
            MULTISTREAM,
            MULTISTREAM,
            "--test-capture",
            MULTISTREAM_OTHER,
            "--iteration",
            "all",
            "--format",
            "csv",
        ]);
        v
    };
    let r = run(&args(&["operators"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "note: test: rank 0: graph replays not joined to capture \
             fixtures/graphs/multistream_other/graph_capture_rank_0.pt.trace.json: graph launch 1 \
             of 2 (at 1030.000 µs): it replayed 4 kernels where the captured graph has 5 launches \
             (captured graph 1 of 1); the replayed kernels keep the owners of the replay\n"
        ),
        "{}",
        r.stderr
    );
    insta::assert_snapshot!("two_streams_operators", r.stdout);
    insta::assert_snapshot!(
        "two_streams_kernels_by_operator",
        ok(&args(&["kernels", "--by-operator"]))
    );
    insta::assert_snapshot!("two_streams_modules", ok(&args(&["modules"])));
}

/// Kernels with `graph id` and `graph node id` join by identity although they started in
/// another order than they were captured (a join by position would give the GEMM to
/// `aten::softmax`); the capture has no modules, so `modules` places each kernel on its
/// captured top-level operator. A capture of another graph is refused.
#[test]
fn graph_and_node_ids_join_by_identity() {
    let args = |cmd: &[&'static str]| -> Vec<&'static str> {
        let mut v = cmd.to_vec();
        v.extend([
            CUDA_IDS,
            CUDA_IDS,
            "--test-capture",
            CUDA_IDS_OTHER,
            "--iteration",
            "all",
            "--format",
            "csv",
        ]);
        v
    };
    let r = run(&args(&["kernels", "--by-operator"]));
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "note: test: rank 0: graph replays not joined to capture \
             fixtures/graphs/cuda_ids_other/graph_capture_rank_0.pt.trace.json: graph 5 node 1 of \
             the replay is not in the capture; the replayed kernels keep the owners of the replay\n"
        ),
        "{}",
        r.stderr
    );
    insta::assert_snapshot!("ids_kernels_by_operator", r.stdout);
    insta::assert_snapshot!("ids_operators", ok(&args(&["operators"])));
    let modules = ok(&["modules", CUDA_IDS, CUDA_IDS, "--iteration", "all", "--format", "csv"]);
    insta::assert_snapshot!("ids_modules", modules);
}
