//! The thread-level shift (docs/significance.md#a-thread-that-moved) on `fixtures/threads`
//! (fixtures/make_threads.py): a training step on two host threads, the autograd thread ×1.5
//! slower in the second process.

use crate::common;
use common::{json, run, significant_names as marked};

const T: &str = "fixtures/threads";

fn pair(command: &str, test: &str, extra: &[&str]) -> serde_json::Value {
    let (c, t) = (format!("{T}/base"), format!("{T}/{test}"));
    let mut args = vec![command, c.as_str(), t.as_str(), "--iteration", "all"];
    args.extend(extra);
    json(&args)
}

#[test]
fn rows_that_moved_only_with_their_thread_are_not_significant() {
    let v = pair("compare", "slowthread", &[]);
    assert_eq!(marked(&v), Vec::<String>::new(), "{v:#}");
    let shift = &v["run_shift"];
    assert!(shift["host"].is_null() && shift["applied"] == true, "{shift}");
    let threads = shift["threads"].as_array().expect("threads");
    assert_eq!(threads.len(), 1, "{shift}");
    assert_eq!(threads[0]["thread"], "aten::convolution_backward");
    assert_eq!(threads[0]["rank"], 0);
    let factor = threads[0]["shift"]["factor"].as_f64().unwrap_or_default();
    assert!((1.4..1.6).contains(&factor), "{shift}");
    // The same rows in the operator view.
    assert_eq!(marked(&pair("operators", "slowthread", &[])), Vec::<String>::new());
    // Judged against no change, every large row of that thread and the step are marked.
    let plain = pair("compare", "slowthread", &["--no-run-shift"]);
    assert_eq!(plain["run_shift"]["applied"], false);
    assert_eq!(
        marked(&plain),
        [
            "ProfilerStep#*",
            "aten::_softmax_backward_data",
            "aten::convolution_backward",
            "aten::mm",
            "aten::native_batch_norm_backward",
            "aten::threshold_backward"
        ]
    );
}

#[test]
fn a_row_that_moved_beyond_its_thread_is_significant() {
    // aten::threshold_backward three times as slow beyond its thread's ×1.5. The step (+34%)
    // is judged beyond what the thread adds to it (×1.29) and that thread's rows' scatter.
    let v = pair("compare", "changed", &[]);
    assert_eq!(marked(&v), ["aten::threshold_backward"], "{v:#}");
    assert_eq!(marked(&pair("operators", "changed", &[])), ["aten::threshold_backward"]);
}

#[test]
fn the_note_names_the_thread() {
    let r = run(&["compare", "fixtures/threads/base", "fixtures/threads/slowthread"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let note = r
        .stderr
        .lines()
        .find(|l| l.contains("one thread moved"))
        .unwrap_or_default()
        .to_string();
    insta::assert_snapshot!(note);
    insta::assert_snapshot!("slowthread_table", r.stdout);
    // A single thread's traces have no thread to name.
    let r = run(&["compare", "fixtures/shift/base", "fixtures/shift/slow"]);
    assert!(!r.stderr.contains("one thread moved"), "{}", r.stderr);
}

/// `--only-significant` beside a thread's shift keeps the rows that moved beyond it: the note
/// on the shift the rows were judged beyond once refused it as if nothing could be judged.
#[test]
fn only_significant_keeps_what_moved_beyond_the_thread() {
    for command in ["operators", "compare"] {
        let v = pair(command, "changed", &["--only-significant"]);
        let names: Vec<&str> = v["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r["name"].as_str().unwrap_or_default())
            .collect();
        assert!(names.contains(&"aten::threshold_backward"), "{command}: {names:?}");
        assert!(names.len() <= 2, "{command}: {names:?}");
        let v = pair(command, "slowthread", &["--only-significant"]);
        assert_eq!(v["rows"].as_array().map(Vec::len), Some(0), "{command}");
    }
}

/// The shipped gate example on the process whose autograd thread ran ×1.5 slower: the step grew
/// 26% (2.53 ms → 3.18 ms per step, the steps' band ±90 µs), no run-wide shift was found (the main
/// thread held), and judged against the steps the step-time rule failed. With one run per side
/// the step is judged beyond the pair's common move and its rows' scatter
/// (docs/significance.md#the-gate-with-one-run-per-side): it passes either way round, and fails
/// against no change (`--no-run-shift`).
#[test]
fn the_example_gate_passes_a_process_whose_thread_moved() {
    let (base, slow) = (format!("{T}/base"), format!("{T}/slowthread"));
    let config = "examples/tracediff-gate.toml";
    for (b, c) in [(&base, &slow), (&slow, &base)] {
        let r = run(&["gate", "--config", config, b, c]);
        assert_eq!(r.code, 0, "{b} vs {c}: {}", r.stdout);
        assert!(
            r.stdout.contains("judged beyond this pair's common move"),
            "{}",
            r.stdout
        );
    }
    let plain = run(&["gate", "--config", config, &base, &slow, "--no-run-shift"]);
    assert_eq!(plain.code, 1, "{}", plain.stdout);
}
