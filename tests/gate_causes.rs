//! A failed gate says why its ops changed: `explain`'s line for each failing op (or for the op
//! that launched a failing kernel), in the terminal, Markdown, JSON and JUnit.

use crate::common;
use common::run;

const PAIR: [&str; 2] = ["fixtures/explain/control", "fixtures/explain/test"];

fn gate(extra: &[&str]) -> common::Run {
    let mut args = vec!["gate", PAIR[0], PAIR[1], "--max-op-regression", "10%"];
    args.extend(extra);
    run(&args)
}

#[test]
fn a_failed_gate_names_the_cause_of_each_failing_kernel() {
    let r = gate(&["--full-names"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let why: Vec<&str> = r
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("why (tracediff explain on the same pair):"))
        .collect();
    assert_eq!(
        why[..3],
        [
            "why (tracediff explain on the same pair):",
            "  aten::mm  +100 µs/step (+100.0%) *  work ×2.25 (dims [64, 512]×[512, 512] → [64, 768]×[768, 768]), \
             efficiency ×1.12, calls same  [launches ampere_sgemm_64x64_nn]",
            "  aten::relu  +10.0 µs/step (+100.0%) *  calls ×2.00, work same, efficiency same  \
             [launches vectorized_elementwise_kernel<relu>]",
        ],
        "{}",
        r.stdout
    );
    let json: serde_json::Value = serde_json::from_str(&gate(&["--format", "json"]).stdout).unwrap();
    let causes = json["report"]["causes"].as_array().unwrap();
    assert_eq!(causes[0]["names"], serde_json::json!(["ampere_sgemm_64x64_nn"]));
    assert_eq!(causes[0]["op"], "aten::mm");
    assert!(causes[0]["line"].as_str().unwrap().contains("work ×2.25"), "{causes:?}");
    let dir = tempfile::TempDir::new().unwrap();
    let junit = dir.path().join("gate.xml");
    gate(&["--junit", junit.to_str().unwrap()]);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("why (launched by aten::mm): aten::mm  +100 µs/step"),
        "{xml}"
    );
    let md = gate(&["--format", "markdown"]).stdout;
    assert!(md.contains("**Why** (`tracediff explain` on the same pair):"), "{md}");
}

/// The cause lines are judged as the gate judged: an op whose time failed a rule is never
/// "within noise" (`explain` alone marks relu's +10 µs so, below its floor of 1% of the step),
/// with or without `--no-run-shift`; a top contributor that failed no rule keeps `explain`'s
/// mark, judged with the gate's run-shift setting.
#[test]
fn a_failed_ops_cause_line_carries_the_gates_verdict() {
    for extra in [&["--no-run-shift"][..], &[]] {
        let mut args = vec!["--full-names", "--format", "json"];
        args.extend(extra);
        let r = gate(&args);
        assert_eq!(r.code, 1, "{}", r.stderr);
        let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let failed: Vec<&str> = json["report"]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["verdict"] == "fail" && r["unit"] == "us")
            .map(|r| r["subject"].as_str().unwrap())
            .collect();
        assert!(failed.contains(&"vectorized_elementwise_kernel<relu>"), "{failed:?}");
        let lines: Vec<(String, &str)> = json["report"]["causes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["names"][0].as_str().unwrap().to_string(), c["line"].as_str().unwrap()))
            .collect();
        let relu = lines.iter().find(|(n, _)| n == "vectorized_elementwise_kernel<relu>");
        assert_eq!(
            relu.map(|(_, l)| *l),
            Some("aten::relu  +10.0 µs/step (+100.0%) *  calls ×2.00, work same, efficiency same"),
            "{extra:?}: {lines:?}"
        );
        for (name, line) in &lines {
            if failed.contains(&name.as_str()) {
                assert!(!line.contains("within noise"), "{extra:?}: {name}: {line}");
            }
        }
        let attention = lines.iter().find(|(n, _)| n.starts_with("fmha_cutlassF"));
        assert!(
            attention.is_some_and(|(_, l)| l.contains("(new) (within noise)")),
            "{extra:?}: {lines:?}"
        );
    }
}

#[test]
fn a_passing_gate_carries_no_causes() {
    let r = run(&[
        "gate",
        PAIR[0],
        PAIR[0],
        "--max-op-regression",
        "10%",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("\"causes\""), "{}", r.stdout);
}

/// Sides of runs: a failed gate between runs carries `explain`'s lines over the runs (they were
/// left out: `explain` read one run a side); on the replicate runs where the fused op replaced
/// the hand-written ones, judged the other way round (the step time fails), the ops the fusion
/// removed, its top contributors, are named.
#[test]
fn a_failed_gate_on_runs_names_its_causes() {
    let [c, t] = ["control", "test"].map(|s| format!("fixtures/replicates/fused/{s}"));
    let r = run(&["gate", &t, &c, "--max-step-time-regression", "5%", "--format", "json"]);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let ops: Vec<&str> = json["report"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["op"].as_str().unwrap())
        .collect();
    assert!(ops.contains(&"aten::mul") && ops.contains(&"aten::add"), "{ops:?}");
    let text = run(&["gate", &t, &c, "--max-step-time-regression", "5%"]).stdout;
    assert!(text.contains("why (tracediff explain on the same pair):"), "{text}");
}
