//! Inference and graph-mode traces (docs/graphs.md): launch owners outside every ATen operator,
//! graph replays without a capture, and steps from a serving loop's annotations, on
//! `fixtures/serving/` (made by `fixtures/make_serving_fixtures.py`) and, when `../shared` is
//! beside the repository, on the real SGLang and vLLM traces. Output is checked exactly.

use crate::common;

use common::{ok, run, traces};

const SERVING: [&str; 2] = ["fixtures/serving/control", "fixtures/serving/test"];

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
            column_sum(&r.stdout, &format!("{side}_device_self")),
            column_sum(&kernels, &format!("{side}_device_total")),
        );
        assert!((ops - all).abs() < 1e-6, "{side}: operators {ops} µs, kernels {all} µs");
    }
    assert!(
        r.stderr.contains(
            "note: control: 100.0% of the device time attributed (1.5% to ATen operators, 98.5% to \
             other launchers; 78.7% via graph replay, owned by what launched the graph)"
        ),
        "{}",
        r.stderr
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
            column_sum(&r.stdout, &format!("{side}_device_self")),
            column_sum(&kernels, &format!("{side}_device_total")),
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
            .contains("control: fixtures/serving/control (rank 0, steps 0–2)"),
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
    assert!(csv.contains("\nstep[DECODE bs=*],1,900,1,900,0,0,=,false\n"), "{csv}");
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
