//! Several runs per side, per-step rows and the between-run test, on the tiny replicate traces
//! of `fixtures/replicates` (fixtures/make_replicates.py), and on `../shared`'s real runs.

use crate::common;
use common::{json, ok, significant_names as significant};

const R: &str = "fixtures/replicates";

fn rows(v: &serde_json::Value) -> &Vec<serde_json::Value> {
    v["rows"].as_array().expect("rows")
}

#[test]
fn runs_of_one_program_show_no_significant_row() {
    let v = json(&[
        "compare",
        &format!("{R}/aa/control"),
        &format!("{R}/aa/test"),
        "--no-save",
    ]);
    assert_eq!(v["control"]["runs"], 3);
    assert_eq!(v["control"]["run_steps"], serde_json::json!([3, 3, 3]));
    assert!(rows(&v).iter().all(|r| r["significant"] == false), "{v:#}");
}

#[test]
fn runs_of_a_real_change_mark_the_step_and_the_changed_operators() {
    let v = json(&[
        "compare",
        &format!("{R}/fused/control"),
        &format!("{R}/fused/test"),
        "--no-save",
    ]);
    assert_eq!(
        significant(&v),
        ["ProfilerStep#*", "aten::add", "aten::fused", "aten::mul"],
        "{v:#}"
    );
}

#[test]
fn runs_table_names_runs_and_steps() {
    let out = ok(&[
        "compare",
        &format!("{R}/fused/control"),
        &format!("{R}/fused/test"),
        "--no-save",
    ]);
    insta::assert_snapshot!(out);
}

#[test]
fn three_steps_against_five_give_equal_per_step_counts() {
    let v = json(&[
        "compare",
        &format!("{R}/steps/three"),
        &format!("{R}/steps/five"),
        "--no-save",
    ]);
    for r in rows(&v) {
        assert_eq!(r["control_count_per_step"], r["test_count_per_step"], "{r:#}");
        assert_eq!(r["category"], "unchanged", "{r:#}");
    }
    // --totals gives the sums: every count differs.
    let t = json(&[
        "compare",
        &format!("{R}/steps/three"),
        &format!("{R}/steps/five"),
        "--no-save",
        "--totals",
    ]);
    assert!(
        rows(&t)
            .iter()
            .all(|r| r["category"] == "increased" && r.get("control_count_per_step").is_none())
    );
}

#[test]
fn the_footer_gives_the_mean_step_time_of_overview() {
    let (c, t) = (format!("{R}/steps/three"), format!("{R}/steps/five"));
    let v = json(&["compare", &c, &t, "--no-save"]);
    let o = json(&["overview", &c, &t]);
    let us = |x: &serde_json::Value| x.as_f64().unwrap_or(f64::NAN);
    for side in ["control", "test"] {
        let overview_us = us(&o[side]["mean_step_time_us"]);
        let compare_us = us(&v["mean_step_time_us"][side]);
        assert!(
            (compare_us - overview_us).abs() < 0.001,
            "{side}: {compare_us} µs vs {overview_us} µs"
        );
    }
}

/// One step a side: the footer still gives the step times, never the rows' sum (rows nest, so
/// their sum was several times any step).
#[test]
fn one_step_a_side_gives_the_step_times_too() {
    let (c, t) = (format!("{R}/steps/three"), format!("{R}/steps/five"));
    let one = ["--control-iteration", "2", "--test-iteration", "11", "--no-save"];
    let v = json(&[&["compare", &c, &t][..], &one[..]].concat());
    let o = json(&["overview", &c, &t, "--control-iteration", "2", "--test-iteration", "11"]);
    for side in ["control", "test"] {
        assert_eq!(v["mean_step_time_us"][side], o[side]["mean_step_time_us"], "{side}");
    }
    let table = ok(&[&["compare", &c, &t][..], &one[..]].concat());
    let footer: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("step time") || l.contains("summed"))
        .collect();
    assert_eq!(footer.len(), 1, "{table}");
    assert!(footer[0].starts_with("mean step time: control "), "{table}");
    let totals = ok(&[&["compare", &c, &t, "--totals"][..], &one[..]].concat());
    assert!(totals.contains("\nsummed duration: control "), "{totals}");
}

#[test]
fn the_default_is_every_step_and_hta_keeps_the_lowest() {
    let (c, t) = (format!("{R}/steps/three"), format!("{R}/steps/five"));
    let v = json(&["compare", &c, &t, "--no-save"]);
    assert_eq!(v["control"]["iterations"], serde_json::json!([1, 2, 3]));
    assert_eq!(v["test"]["iterations"], serde_json::json!([10, 11, 12, 13, 14]));
    let h = json(&["compare", &c, &t, "--no-save", "--hta"]);
    assert_eq!(h["control"]["iterations"], serde_json::json!([1]));
    assert_eq!(h["test"]["iterations"], serde_json::json!([10]));
}

/// The fused-op scenario recorded three times a side (`../shared/traces/replicates/fused`).
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn real_runs_of_the_fused_op_mark_the_step_and_the_changed_operators() {
    let Some(dir) = common::traces("replicates/fused") else {
        return;
    };
    let dir = dir.join("replicates/fused");
    let (c, t) = (dir.join("control"), dir.join("test"));
    let v = json(&["compare", &c.to_string_lossy(), &t.to_string_lossy(), "--no-save"]);
    let marked = significant(&v);
    for name in [
        "ProfilerStep#*",
        "aten::mul",
        "aten::gelu",
        "aten::pow",
        "aten::layer_norm",
    ] {
        assert!(marked.iter().any(|m| m == name), "{name} not in {marked:?}");
    }
    // The runs of one side against each other: nothing.
    let a = json(&["compare", &c.to_string_lossy(), &c.to_string_lossy(), "--no-save"]);
    assert!(significant(&a).is_empty());
}
#[test]
fn plot_titles_say_per_step_where_the_values_are() {
    let dir = tempfile::tempdir().expect("tempdir");
    let svg = dir.path().join("p.svg");
    let (c, t) = (format!("{R}/fused/control"), format!("{R}/fused/test"));
    let svg_arg = svg.to_str().expect("utf-8 path");
    for (extra, title, axis) in [
        (None, "Duration per step per name", "duration per step ("),
        (Some("--totals"), "Total duration per name", "total duration ("),
    ] {
        let mut args = vec!["plot", c.as_str(), t.as_str(), "--metric", "duration", "-o", svg_arg];
        args.extend(extra);
        ok(&args);
        let text = std::fs::read_to_string(&svg).expect("the chart");
        assert!(text.contains(title), "{extra:?}: no {title:?} in the chart");
        assert!(text.contains(axis), "{extra:?}: no {axis:?} in the chart");
    }
}
