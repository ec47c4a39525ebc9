//! One run given alone to `operators`, `kernels`, `overview` and `modules`
//! (docs/semantics.md#one-run): that run's columns, no Δ, a header naming the run. Output is
//! checked exactly on the fixtures.

use crate::common::{fails, json, ok, run};

const RUN: &str = "fixtures/modules/control";

#[test]
fn operators_of_one_run() {
    insta::assert_snapshot!(ok(&["operators", RUN]));
    insta::assert_snapshot!("operators_of_one_run_csv", ok(&["operators", RUN, "--format", "csv"]));
    insta::assert_snapshot!(
        "operators_of_one_run_markdown",
        ok(&[
            "operators",
            RUN,
            "--format",
            "markdown",
            "--top",
            "3",
            "--sort",
            "calls"
        ])
    );
}

#[test]
fn kernels_of_one_run() {
    insta::assert_snapshot!(ok(&["kernels", RUN]));
    insta::assert_snapshot!(
        "kernels_of_one_run_by_operator",
        ok(&["kernels", RUN, "--by-operator", "--format", "csv"])
    );
    insta::assert_snapshot!("kernels_of_one_run_by_class", ok(&["kernels", RUN, "--by-class"]));
}

#[test]
fn overview_of_one_run() {
    insta::assert_snapshot!(ok(&["overview", "fixtures/breakdown/control", "--iteration", "all"]));
    insta::assert_snapshot!(
        "overview_of_one_run_csv",
        ok(&[
            "overview",
            "fixtures/breakdown/control",
            "--iteration",
            "all",
            "--format",
            "csv"
        ])
    );
}

#[test]
fn modules_of_one_run() {
    insta::assert_snapshot!(ok(&["modules", RUN]));
    insta::assert_snapshot!(
        "modules_of_one_run_zoomed_csv",
        ok(&["modules", RUN, "--zoom", "Net/Sequential", "--format", "csv"])
    );
    insta::assert_snapshot!(
        "modules_of_one_run_min_share",
        ok(&["modules", RUN, "--min-share", "20", "--order", "logical"])
    );
}

#[test]
fn one_runs_json_names_the_run_and_carries_microseconds() {
    let doc = json(&["operators", RUN]);
    assert_eq!(doc["view"], "operators");
    assert_eq!(doc["duration_unit"], "us");
    assert_eq!(doc["run"]["path"], RUN);
    assert!(doc["run"].get("label").is_none());
    let rows = doc["rows"].as_array().expect("rows");
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|r| r.get("calls").is_some() && r.get("host_total_us").is_some())
    );
    assert!(rows.iter().all(|r| r.get("significant").is_none()));
}

/// One run's rows are the pair's control columns: the same numbers as `operators RUN RUN`.
#[test]
fn one_runs_numbers_are_the_pairs_control_side() {
    let one = json(&["operators", RUN]);
    let pair = json(&["operators", RUN, RUN]);
    let pair_rows = pair["rows"].as_array().expect("rows");
    for row in one["rows"].as_array().expect("rows") {
        let name = &row["name"];
        let p = pair_rows.iter().find(|r| &r["name"] == name).expect("same rows");
        assert_eq!(row["calls"], p["control_calls"], "{name}");
        assert_eq!(row["host_total_us"], p["control_host_total_us"], "{name}");
    }
}

#[test]
fn what_needs_two_runs_is_refused_with_the_reason() {
    assert_eq!(
        fails(&["operators", RUN, "--only-significant"]),
        "--only-significant compares two runs: give CONTROL and TEST (one path shows that run alone)"
    );
    assert_eq!(
        fails(&["kernels", RUN, "--aligned"]),
        "--aligned aligns two runs' kernel sequences: give CONTROL and TEST"
    );
    assert_eq!(
        fails(&["operators", RUN, "--sort", "abs-diff-calls"]),
        "--sort abs-diff-calls: one run has no test side nor change; sort by name or a measure (e.g. calls)"
    );
    assert_eq!(
        fails(&["modules", RUN, "--control-rank", "0"]),
        "--control-rank picks one side of two: one run takes --rank and --iteration"
    );
    // The report and the flame graph compare two runs: clap asks for the second path.
    assert_eq!(run(&["report", RUN, "-o", "x.html"]).code, 2);
}
