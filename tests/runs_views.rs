//! The views (`operators`, `kernels`, `kernels --by-class`, `overview`) on a side of runs and
//! on several steps: every step by default, per-step rows, the test between runs, and the same
//! steps and step time as `compare` (docs/significance.md#per-step-values), on the tiny
//! replicate traces of `fixtures/replicates` (fixtures/make_replicates.py).

use crate::common;
use common::{json, ok, significant_names as significant};

const R: &str = "fixtures/replicates";

fn pair(set: &str) -> [String; 2] {
    [format!("{R}/{set}/control"), format!("{R}/{set}/test")]
}

#[test]
fn operators_of_runs_name_runs_and_steps_and_mark_the_change() {
    let [c, t] = pair("fused");
    insta::assert_snapshot!(ok(&["operators", &c, &t]));
    let v = json(&["operators", &c, &t]);
    assert_eq!(v["control"]["runs"], 3);
    assert_eq!(v["control"]["run_steps"], serde_json::json!([3, 3, 3]));
    assert!(v["mean_step_time_us"]["control"].is_number(), "{v:#}");
    assert_eq!(significant(&v), ["aten::add", "aten::fused", "aten::mul"], "{v:#}");
    let mul = &v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "aten::mul")
        .unwrap();
    // Sums over 3 runs × 3 steps, and per step (averaged per run, then over runs).
    assert_eq!(mul["control_calls"], 27, "{mul}");
    assert_eq!(mul["control_calls_per_step"], 3.0, "{mul}");
    assert_eq!(mul["test_calls_per_step"], 0.0, "{mul}");
}

#[test]
fn runs_of_one_program_mark_no_row_in_any_view() {
    let [c, t] = pair("aa");
    for args in [
        &["operators"][..],
        &["kernels"][..],
        &["kernels", "--by-class"][..],
        &["kernels", "--by-operator"][..],
    ] {
        let v = json(&[args, &[c.as_str(), t.as_str()]].concat());
        assert!(significant(&v).is_empty(), "{args:?}: {v:#}");
    }
    insta::assert_snapshot!(ok(&["operators", &c, &t]));
}

/// Kernels on sides of runs (`fixtures/gate`: each trace copied as two runs a side; the
/// cutlass kernel doubled in test): by name, by operator and by class, the doubled kernel
/// (and its class, and its launching operator's row) is marked, nothing else.
#[test]
fn kernels_of_runs_by_name_operator_and_class() {
    let dir = tempfile::TempDir::new().unwrap();
    for (side, from) in [("control", "base"), ("test", "kernel2x")] {
        for run in ["run1", "run2"] {
            let to = dir.path().join(side).join(run);
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(format!("fixtures/gate/{from}/trace.json"), to.join("trace.json")).unwrap();
        }
    }
    let (c, t) = (dir.path().join("control"), dir.path().join("test"));
    let (c, t) = (c.to_str().unwrap(), t.to_str().unwrap());
    let v = json(&["kernels", c, t]);
    assert_eq!(v["control"]["runs"], 2, "{v:#}");
    let marked = significant(&v);
    assert_eq!(marked.len(), 1, "{v:#}");
    assert!(marked[0].starts_with("void cutlass::Kernel<"), "{marked:?}");
    let gemm = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["significant"] == true)
        .unwrap();
    // 5 steps a run: the kernel's calls per step, and its mean stays a duration.
    assert_eq!(gemm["control_calls_per_step"], gemm["test_calls_per_step"], "{gemm}");
    assert!(gemm["control_device_mean_us"].is_number(), "{gemm}");
    assert!(gemm.get("control_device_mean_per_step_us").is_none(), "{gemm}");
    let by_class = json(&["kernels", c, t, "--by-class"]);
    assert_eq!(significant(&by_class), ["gemm"], "{by_class:#}");
    let by_op = json(&["kernels", c, t, "--by-operator"]);
    assert_eq!(significant(&by_op).len(), 1, "{by_op:#}");
    let ops = json(&["operators", c, t]);
    assert_eq!(significant(&ops), ["aten::linear"], "{ops:#}");
}

#[test]
fn overview_of_runs_has_compare_footers_step_time() {
    let [c, t] = pair("fused");
    let out = ok(&["overview", &c, &t]);
    insta::assert_snapshot!(out);
    let o = json(&["overview", &c, &t]);
    let cmp = json(&["compare", &c, &t, "--no-save"]);
    for side in ["control", "test"] {
        assert_eq!(
            o[side]["mean_step_time_us"], cmp["mean_step_time_us"][side],
            "{side}: {o:#} {}",
            cmp["mean_step_time_us"]
        );
    }
    assert_eq!(o["control"]["run_steps"], serde_json::json!([3, 3, 3]), "{o:#}");
}

/// One run against several: averaged, and not judged between runs (compare's note).
#[test]
fn one_run_against_several_is_averaged_not_judged() {
    let [c, t] = pair("fused");
    let one = format!("{c}/run1");
    let r = common::run(&["operators", &one, &t, "--format", "json"]);
    assert!(
        r.stderr.contains(
            "significant is null: the test between runs needs 2 or more runs per side; control has 1, test 3"
        ),
        "{}",
        r.stderr
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["rows"].as_array().unwrap().iter().all(|r| r["significant"].is_null()));
}

/// The same program recorded with 3 steps and with 5: every view's per-step counts are equal
/// (sums would differ by 5/3), and one step of each gives the sums as before.
#[test]
fn three_steps_against_five_give_equal_calls_per_step() {
    let (three, five) = (format!("{R}/steps/three"), format!("{R}/steps/five"));
    for view in [&["operators"][..], &["kernels"][..], &["kernels", "--by-class"][..]] {
        let v = json(&[view, &[three.as_str(), five.as_str()]].concat());
        assert_eq!(v["control"]["iterations"].as_array().map(Vec::len), Some(3), "{v:#}");
        assert_eq!(v["test"]["iterations"].as_array().map(Vec::len), Some(5), "{v:#}");
        for row in v["rows"].as_array().unwrap() {
            assert_eq!(row["diff_calls_per_step"], 0.0, "{view:?}: {row}");
        }
        let sums = json(&[view, &[three.as_str(), five.as_str(), "--totals"]].concat());
        assert!(
            sums["rows"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r.get("control_calls_per_step").is_none())
        );
        assert!(sums.get("mean_step_time_us").is_none(), "{sums:#}");
    }
    insta::assert_snapshot!(ok(&["operators", &three, &five]));
    // One step a side: that step's values, no per-step field, and the footer gives the step
    // times (never the sum of nested rows) as compare's does; --totals keeps the sum.
    let one = ["operators", &three, &five, "--iteration", "1", "--test-iteration", "10"];
    let v = json(&one);
    assert!(
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r.get("control_calls_per_step").is_none()),
        "{v:#}"
    );
    assert!(
        v["mean_step_time_us"]["control"].as_f64().is_some_and(|s| s > 0.0),
        "{v:#}"
    );
    let footer = ok(&one);
    assert!(footer.contains("mean step time: control"), "{footer}");
    assert!(!footer.contains("summed"), "{footer}");
    let sums = ok(&[&one[..], &["--totals"]].concat());
    assert!(sums.contains("host total summed"), "{sums}");
}
