//! Inference and graph-mode traces (docs/graphs.md): launch owners outside every ATen operator,
//! graph replays without a capture, and steps from a serving loop's annotations, on
//! `fixtures/serving/` (made by `fixtures/make_serving_fixtures.py`) and, when `../shared` is
//! beside the repository, on the real SGLang and vLLM traces; graph replays joined to their
//! capture on `fixtures/graphs/` (made by `fixtures/make_graph_fixtures.py`). Output is
//! checked exactly.

use crate::common;

use common::{ok, run, traces};

const SERVING: [&str; 2] = ["fixtures/serving/control", "fixtures/serving/test"];

/// A slice of a vLLM piecewise CUDA-graph replay, its capture in `capture_traces/` beside it.
const REPLAY: &str = "fixtures/graphs/replay";
/// The same capture with the kernels each captured graph names reversed.
const MISMATCHED: &str = "fixtures/graphs/mismatched";

/// The sum of one CSV column (by header name) over the data rows.
fn column_sum(csv: &str, column: &str) -> f64 {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split(',').collect();
    let k = header.iter().position(|h| *h == column).unwrap();
    lines
        .map(|l| l.rsplit(',').nth(header.len() - 1 - k).unwrap().parse::<f64>().unwrap())
        .sum()
}

/// Every launch outside an ATen operator has an owner row: a custom op called from Python, a
/// Triton launcher (not the built-in inside it), the step annotation (its batch size dropped),
/// the Python wrapper of a graph replay; the rows' device self time is every kernel's time.
#[test]
fn non_aten_launchers_are_operator_rows_that_hold_every_kernel() {
    let r = run(&[
        "operators",
        SERVING[0],
        SERVING[1],
        "--iteration",
        "all",
        "--format",
        "csv",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!(r.stdout);
    let kernels = ok(&[
        "kernels",
        SERVING[0],
        SERVING[1],
        "--iteration",
        "all",
        "--format",
        "csv",
    ]);
    for side in ["control", "test"] {
        let (ops, all) = (
            column_sum(&r.stdout, &format!("{side}_device_self_us")),
            column_sum(&kernels, &format!("{side}_device_total_us")),
        );
        assert!((ops - all).abs() < 1e-6, "{side}: operators {ops} µs, kernels {all} µs");
    }
    let md = ok(&[
        "operators",
        SERVING[0],
        SERVING[1],
        "--iteration",
        "all",
        "--format",
        "markdown",
    ]);
    assert!(
        md.contains(
            "\nattribution: control: 100.0% of the device time attributed (1.5% to ATen operators, \
             98.5% to other launchers; 78.7% via graph replay, 78.7% owned by what launched the graph); \
             test: 100.0% of the device time attributed"
        ),
        "{md}"
    );
}

/// `kernels --by-operator` keys kernels by the same owners: no `(no operator)` row is left.
#[test]
fn kernels_by_operator_use_the_same_owners() {
    insta::assert_snapshot!(ok(&[
        "kernels",
        "--by-operator",
        SERVING[0],
        SERVING[1],
        "--iteration",
        "all",
        "--format",
        "csv"
    ]));
}

/// Three `step[DECODE bs=N]` annotations and no ProfilerStep: three steps, so significance is
/// estimated; the modules' step roots of batch 16 and 32 align.
#[test]
fn serving_annotations_are_steps_and_align_across_batch_sizes() {
    let r = run(&["operators", SERVING[0], SERVING[1], "--iteration", "all"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("(rank 0, steps 0–2)"), "{}", r.stdout);
    assert!(!r.stderr.contains("significant is null"), "{}", r.stderr);
    let replay = r.stdout.lines().find(|l| l.contains("replay [python]")).unwrap();
    assert!(
        replay.trim_end().ends_with('*'),
        "the slower graph GEMM is significant: {replay}"
    );
    let j = common::json(&["modules", SERVING[0], SERVING[1], "--iteration", "all"]);
    assert_eq!((&j["kind"], &j["status"]), (&"step".into(), &"matched".into()), "{j}");
}

/// The real SGLang Qwen3-MoE decode pair (MI300X against B300, graph replays, no ProfilerStep):
/// one step per side from its annotations, every kernel's time in the operator rows.
#[test]
fn the_sglang_decode_pair_is_attributed_whole() {
    let Some(dir) = traces("the SGLang decode pair") else {
        return;
    };
    let dir = dir.join("inference/sglang_qwen3moe_decode_mi300_b300");
    let [c, t] = [dir.join("control"), dir.join("test")].map(|p| p.display().to_string());
    let r = run(&["operators", &c, &t, "--format", "csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let kernels = ok(&["kernels", &c, &t, "--format", "csv"]);
    for side in ["control", "test"] {
        let (ops, all) = (
            column_sum(&r.stdout, &format!("{side}_device_self_us")),
            column_sum(&kernels, &format!("{side}_device_total_us")),
        );
        assert!(ops >= 0.99 * all, "{side}: operators {ops} µs of {all} µs");
    }
    assert!(r.stdout.contains("\nreplay [python],1,1,"), "{}", r.stdout);
    assert!(!r.stderr.contains("no ProfilerStep"), "{}", r.stderr);
}

/// `--step-marker REGEX` names the steps (any user annotation); a pattern that is no regular
/// expression is a one-line usage error. `compare` rows drop a serving step's batch size too.
#[test]
fn a_step_marker_names_the_steps_and_compare_keys_drop_batch_sizes() {
    let r = run(&[
        "operators",
        SERVING[0],
        SERVING[1],
        "--step-marker",
        "bs=16",
        "--iteration",
        "all",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("control: fixtures/serving/control (rank 0, the whole trace: its 3 steps and between"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("no ProfilerStep: the whole trace"),
        "test has no bs=16: {}",
        r.stdout
    );
    assert_eq!(
        common::fails(&["compare", SERVING[0], SERVING[1], "--step-marker", "("]),
        "--step-marker \"(\": not a regular expression (unclosed group)"
    );
    let csv = ok(&[
        "compare",
        SERVING[0],
        SERVING[1],
        "--iteration",
        "all",
        "--format",
        "csv",
    ]);
    // Per step by default (one step annotation a step); --totals gives the sums.
    assert!(
        csv.contains("\nstep[DECODE bs=*],3,2700,3,2700,0,0,1,900,1,900,0,0,=,false\n"),
        "{csv}"
    );
    let totals = ok(&[
        "compare",
        SERVING[0],
        SERVING[1],
        "--iteration",
        "all",
        "--totals",
        "--format",
        "csv",
    ]);
    assert!(
        totals.contains("\nstep[DECODE bs=*],3,2700,3,2700,0,0,=,false\n"),
        "{totals}"
    );
}

/// Where `--step-marker` names no step on a side, the notes say so by the marker, not by
/// ProfilerStep (the steps that were never looked for).
#[test]
fn the_notes_name_the_step_marker_a_side_lacks() {
    let out = run(&["compare", SERVING[0], SERVING[1], "--step-marker", "bs=16"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let notes = [
        "no step that --step-marker 'bs=16' names in fixtures/serving/test; comparing the whole trace",
        "significant is null: it is estimated per step, and --step-marker 'bs=16' names none on a side",
    ];
    for note in notes {
        assert!(out.stderr.contains(note), "{}", out.stderr);
    }
    assert!(!out.stderr.contains("ProfilerStep"), "{}", out.stderr);
}

/// `--step-marker` names the steps of a side of runs as it does of one run: the runs' rows
/// (two copies of each side's run) equal the one-run comparison's, where `bs=16` makes the
/// control's three decode steps the steps and leaves the test (`bs=32`) without any. The
/// per-run loader once ignored the marker and took the test's serving steps.
#[test]
fn a_step_marker_names_the_steps_of_runs_too() {
    let marker = ["--step-marker", "bs=16", "--format", "csv"];
    let one = ok(&[&["compare", SERVING[0], SERVING[1]][..], &marker].concat());
    let runs = run(&[
        &[
            "compare",
            "--control-run",
            SERVING[0],
            "--control-run",
            SERVING[0],
            "--test-run",
            SERVING[1],
            "--test-run",
            SERVING[1],
        ][..],
        &marker,
    ]
    .concat());
    assert_eq!(runs.code, 0, "{}", runs.stderr);
    // The note names the marker the steps were looked for by, not ProfilerStep.
    let note = "no step that --step-marker 'bs=16' names in fixtures/serving/test; comparing the whole trace";
    assert!(runs.stderr.contains(note), "{}", runs.stderr);
    assert!(!runs.stderr.contains("ProfilerStep"), "{}", runs.stderr);
    // The runs' per-step columns (their sums cover both runs) are the one run's values: the
    // control is taken whole in each run as in the one-run comparison (one window a run, so
    // that comparison has no per-step columns); the significance is judged between runs.
    let values = |csv: &str, from: usize| -> Vec<String> {
        csv.lines()
            .skip(1)
            .map(|l| {
                let cells: Vec<&str> = l.split(',').collect();
                [&cells[..1], &cells[from..from + 6]].concat().join(",")
            })
            .collect()
    };
    assert_eq!(values(&runs.stdout, 7), values(&one, 1));
    // Like with like: the test has no bs=16 step, so the control's three steps count whole
    // too (3 launches, 600 µs), never one step's mean against a whole trace.
    assert!(one.contains("\ngraph_gemm,3,600,3,780,0,180,=,"), "{one}");
}

/// The replay joins the capture found in `capture_traces/` beside it: its graph kernels take
/// the captured operators (`vllm::moe_forward`, `aten::addmm`, …) and `replay [python]` keeps
/// only its calls. The same replay given a deliberately mismatched capture (each graph's kernel
/// names reversed) is refused with a note that says why, and never joined.
#[test]
fn a_replay_joins_the_capture_beside_it_and_a_mismatched_capture_is_refused() {
    let r = run(&[
        "operators",
        REPLAY,
        REPLAY,
        "--test-capture",
        MISMATCHED,
        "--format",
        "markdown",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    insta::assert_snapshot!(r.stdout);
    assert!(
        r.stderr.contains(
            "note: control: rank 0: 3 graph launches joined to capture \
             fixtures/graphs/replay/capture_traces/graph_capture_rank_0.pt.trace.json: 34 replayed \
             kernels take the captured launches' operators\n"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "note: test: rank 0: graph replays not joined to capture \
             fixtures/graphs/mismatched/graph_capture_rank_0.pt.trace.json: graph launch 1 of 3 (at \
             6520488437747.732 µs): its node 0 ran `triton_poi_fused_0` where the capture launched \
             `void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long…` (captured graph 1 of \
             3); the replayed kernels keep the owners of the replay\n"
        ),
        "{}",
        r.stderr
    );
}

/// Joined kernels are keyed by their captured operator in `kernels --by-operator`; kernels of a
/// graph not joined, by the graph's replay owner and their node ordinal inside the graph. The
/// operators' device self time is every kernel's time, and JSON says what share is attributed.
#[test]
fn joined_kernels_key_by_captured_operator_and_others_by_node() {
    insta::assert_snapshot!(ok(&[
        "kernels",
        "--by-operator",
        REPLAY,
        REPLAY,
        "--test-capture",
        MISMATCHED,
        "--format",
        "csv"
    ]));
    let ops = ok(&["operators", REPLAY, REPLAY, "--format", "csv"]);
    let kernels = ok(&["kernels", REPLAY, REPLAY, "--format", "csv"]);
    let (o, k) = (
        column_sum(&ops, "control_device_self_us"),
        column_sum(&kernels, "control_device_total_us"),
    );
    assert!((o - k).abs() < 1e-6, "operators {o} µs, kernels {k} µs");
    assert!(
        ops.contains("\nreplay [python],3,3,0,27.87,27.87,0,144.709,144.709,0,0,0,0,0,0,0,\n"),
        "the replay keeps its calls and host time, not the kernels' time: {ops}"
    );
    let j = common::json(&["operators", REPLAY, REPLAY]);
    let a = &j["attribution"]["control"];
    assert_eq!(
        (&a["device_total"], &a["joined_to_capture"], &a["attributed_share"]),
        (&13421.526.into(), &12942.693.into(), &1.0.into()),
        "{a}"
    );
}

/// A capture that cannot be used is a one-line error (exit 2): missing, a folder without a
/// trace that names the rank, a truncated file.
#[test]
fn a_bad_capture_is_a_one_line_error() {
    assert_eq!(
        common::fails(&["operators", REPLAY, REPLAY, "--capture", "fixtures/graphs/nope"]),
        "cannot open: no such file or directory (fixtures/graphs/nope)"
    );
    assert_eq!(
        common::fails(&[
            "kernels",
            REPLAY,
            REPLAY,
            "--control-capture",
            "fixtures/bad/truncated.json"
        ]),
        "invalid JSON: unexpected end of text (truncated file?) (fixtures/bad/truncated.json: byte 189)"
    );
}

/// The real vLLM replay with its capture folder: every graph launch joins, and the operator
/// rows hold every kernel's time, none of it under `replay [python]`.
#[test]
fn the_vllm_replay_joins_its_capture_folder() {
    let Some(dir) = traces("the vLLM replay and its capture") else {
        return;
    };
    let v = dir.join("inference/vllm_piecewise").display().to_string();
    let r = run(&["operators", &v, &v, "--format", "csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("rank 0: 25 graph launches joined to capture"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("\nreplay [python],25,25,0,"), "{}", r.stdout);
    let kernels = ok(&["kernels", &v, &v, "--format", "csv"]);
    let (o, k) = (
        column_sum(&r.stdout, "control_device_self_us"),
        column_sum(&kernels, "control_device_total_us"),
    );
    assert!((o - k).abs() < 1e-3, "operators {o} µs, kernels {k} µs");
}
