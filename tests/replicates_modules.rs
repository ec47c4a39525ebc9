//! Several runs per side and every step by default for `modules`, `flamegraph` and the gate, on
//! the tiny replicate traces of `fixtures/replicates` (fixtures/make_replicates.py).

use crate::common;
use common::{error_line, json, ok, run};
use serde_json::Value;

const R: &str = "fixtures/replicates";
const GATE: &str = "examples/tracediff-gate.toml";

fn side(which: &str, side: &str) -> String {
    format!("{R}/{which}/{side}")
}

/// Every node's (path, significant), walking the JSON tree.
fn marks(root: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut todo = vec![root];
    while let Some(n) = todo.pop() {
        out.push((
            n["path"].as_str().unwrap_or_default().to_string(),
            n["significant"].clone(),
        ));
        todo.extend(n["children"].as_array().into_iter().flatten());
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn modules_of_runs_names_runs_and_steps_and_shows_values_per_step() {
    let out = ok(&["modules", &side("fused", "control"), &side("fused", "test")]);
    insta::assert_snapshot!(out);
}

#[test]
fn modules_of_runs_of_one_program_mark_no_node() {
    let root = json(&["modules", &side("aa", "control"), &side("aa", "test")]);
    assert_eq!(root["compared"]["control"]["run_steps"], serde_json::json!([3, 3, 3]));
    assert_eq!(root["compared"]["per_step"], true);
    for (path, mark) in marks(&root) {
        assert_eq!(mark, Value::Bool(false), "{path}");
    }
}

#[test]
fn modules_of_runs_of_a_real_change_mark_the_step_and_the_fused_op() {
    let root = json(&["modules", &side("fused", "control"), &side("fused", "test")]);
    let significant: Vec<String> = marks(&root)
        .into_iter()
        .filter(|(_, m)| *m == Value::Bool(true))
        .map(|(p, _)| p)
        .collect();
    // The step (judged alone), the fused op that is new, the unfused ones that are gone; the
    // matrix products did not change.
    assert!(significant.contains(&String::new()), "{significant:?}");
    assert!(significant.contains(&"aten::fused[0]".to_string()), "{significant:?}");
    assert!(
        significant.iter().all(|p| !p.starts_with("aten::mm")),
        "{significant:?}"
    );
    // Per step: the root's control host time is the mean step of compare's footer.
    let c = json(&[
        "compare",
        &side("fused", "control"),
        &side("fused", "test"),
        "--no-save",
    ]);
    let step_us = root["control"]["host_total_us"].as_f64().unwrap_or(f64::NAN);
    let footer_us = c["mean_step_time_us"]["control"].as_f64().unwrap_or(f64::NAN);
    assert!((step_us - footer_us).abs() < 0.01, "{step_us} vs {footer_us}");
    // --totals: the sums over the 9 steps.
    let totals = json(&["modules", &side("fused", "control"), &side("fused", "test"), "--totals"]);
    assert_eq!(totals["compared"]["per_step"], false);
    assert_eq!(totals["control"]["calls"], 9);
    let sum_us = totals["control"]["host_total_us"].as_f64().unwrap_or(f64::NAN);
    assert!((sum_us / 9.0 - step_us).abs() < 0.01, "{sum_us} / 9 vs {step_us}");
}

#[test]
fn modules_of_runs_zoom_and_only_significant() {
    let zoomed = json(&[
        "modules",
        &side("fused", "control"),
        &side("fused", "test"),
        "--zoom",
        "aten::mm[1]",
    ]);
    assert_eq!(zoomed["path"], "aten::mm[1]");
    let only = json(&[
        "modules",
        &side("fused", "control"),
        &side("fused", "test"),
        "--only-significant",
    ]);
    for (path, mark) in marks(&only) {
        assert!(path.is_empty() || mark == Value::Bool(true), "{path}");
    }
}

#[test]
fn a_side_of_one_run_against_runs_is_not_judged_and_says_why() {
    let r = run(&["modules", &side("fused", "control"), &format!("{R}/fused/test/run1")]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "significant is null: the test between runs needs 2 or more runs per side; control has 3, test 1"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout
            .contains("control: fixtures/replicates/fused/control (3 runs × 3 steps")
    );
}

#[test]
fn three_steps_against_five_give_equal_per_step_calls_in_modules() {
    let root = json(&["modules", &side("steps", "three"), &side("steps", "five")]);
    let mut todo = vec![&root];
    while let Some(n) = todo.pop() {
        if n["status"] == "matched" {
            assert_eq!(n["control"]["calls"], n["test"]["calls"], "{}", n["path"]);
        }
        todo.extend(n["children"].as_array().into_iter().flatten());
    }
    // The default is every step, and --iteration narrows it.
    assert_eq!(root["compared"]["control"]["iterations"], serde_json::json!([1, 2, 3]));
    let one = json(&[
        "modules",
        &side("steps", "three"),
        &side("steps", "five"),
        "--control-iteration",
        "1",
        "--test-iteration",
        "10",
    ]);
    assert_eq!(one["compared"]["control"]["iterations"], serde_json::json!([1]));
    assert_eq!(one["compared"]["per_step"], false);
}

#[test]
fn flamegraph_of_runs_weighs_stacks_per_step() {
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "flamegraph".to_string(),
            side("fused", "control"),
            side("fused", "test"),
            "--folded".to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let folded = |extra: &[&'static str]| {
        let a = args(extra);
        ok(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let per_step = folded(&[]);
    insta::assert_snapshot!(per_step);
    // Each side's stacks sum to its mean step's host time (modules' root), to the ns per stack.
    let root = json(&["modules", &side("fused", "control"), &side("fused", "test")]);
    let sum = |k: usize| -> f64 {
        per_step
            .lines()
            .map(|l| {
                l.rsplit(' ')
                    .nth(1 - k)
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(0.0)
            })
            .sum()
    };
    for (k, name) in [(0, "control"), (1, "test")] {
        let step_ns = root[name]["host_total_us"].as_f64().unwrap_or(f64::NAN) * 1000.0;
        assert!((sum(k) - step_ns).abs() <= 16.0, "{name}: {} vs {step_ns}", sum(k));
    }
    // --totals: the sums over every step of every run.
    let totals = folded(&["--totals"]);
    assert_ne!(per_step, totals);
    let first = |text: &str| -> i64 {
        text.lines()
            .find(|l| l.starts_with("ProfilerStep;aten::mm "))
            .and_then(|l| l.split(' ').nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    assert!((first(&totals) as f64 / 9.0 - first(&per_step) as f64).abs() <= 1.0);
}

#[test]
fn the_gate_between_runs_passes_runs_of_one_program_and_fails_a_slowdown() {
    let aa = run(&["gate", "--config", GATE, &side("aa", "control"), &side("aa", "test")]);
    assert_eq!(aa.code, 0, "{}{}", aa.stdout, aa.stderr);
    assert!(
        aa.stdout
            .contains("baseline: fixtures/replicates/aa/control (3 runs × 3 steps")
    );
    // The fused op's runs reversed: the candidate is the unfused, slower program.
    let slow = run(&[
        "gate",
        "--config",
        GATE,
        &side("fused", "test"),
        &side("fused", "control"),
    ]);
    assert_eq!(slow.code, 1, "{}{}", slow.stdout, slow.stderr);
    insta::assert_snapshot!(slow.stdout);
    let r = run(&[
        "gate",
        "--config",
        GATE,
        &side("fused", "test"),
        &side("fused", "control"),
        "--format",
        "json",
    ]);
    let report: Value = serde_json::from_str(&r.stdout).unwrap_or_default();
    assert_eq!(report["report"]["baseline"]["runs"], serde_json::json!([3, 3, 3]));
    // The faster program passes.
    let fast = run(&[
        "gate",
        "--config",
        GATE,
        &side("fused", "control"),
        &side("fused", "test"),
    ]);
    assert_eq!(fast.code, 0, "{}{}", fast.stdout, fast.stderr);
}

#[test]
fn the_gate_between_runs_refuses_a_side_of_one_run() {
    let r = run(&[
        "gate",
        "--config",
        GATE,
        &side("fused", "control"),
        &format!("{R}/fused/test/run1"),
    ]);
    assert_eq!(r.code, 2);
    assert_eq!(
        error_line(&r),
        "tracediff: the gate between runs needs 2 or more runs per side and the candidate has 1: give a directory of runs (run1/ … runN/) for each side, or each side's run itself to judge its steps (fixtures/replicates/fused/test/run1)"
    );
}
