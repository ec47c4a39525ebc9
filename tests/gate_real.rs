//! The pair gate on recorded traces (docs/significance.md#the-gate-with-one-run-per-side): every
//! single-run A/A pair beside the project passes with the flags `gate --help` shows and with
//! the shipped example, a 25 times slower step fails the step-time rule with both, and real
//! slowdowns still fail. Ignored, saying why, without `../shared`.

use crate::common;
use serde_json::Value;
use std::path::Path;

const HELP_FLAGS: [&str; 4] = ["--max-step-time-regression", "5%", "--max-op-regression", "10%"];
const EXAMPLE: [&str; 2] = ["--config", "examples/tracediff-gate.toml"];

fn gate(t: &Path, base: &str, cand: &str, flags: &[&str]) -> common::Run {
    let (b, c) = (t.join(base), t.join(cand));
    common::run(&[&["gate", b.to_str().unwrap(), c.to_str().unwrap()][..], flags].concat())
}

/// The A/A pairs: the three runs of each side of `replicates/fused` against each other both
/// ways (12), `torch_cpu/identical` both ways, and the H100 fp32 transformer recorded by two
/// processes (`attention`'s test and `precision`'s control) both ways: 16 pairs.
fn aa_pairs() -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for side in ["control", "test"] {
        for a in 1..=3 {
            for b in (1..=3).filter(|&b| b != a) {
                pairs.push((
                    format!("replicates/fused/{side}/run{a}"),
                    format!("replicates/fused/{side}/run{b}"),
                ));
            }
        }
    }
    for (x, y) in [
        ("torch_cpu/identical/control", "torch_cpu/identical/test"),
        ("gpu_h100/attention/test", "gpu_h100/precision/control"),
    ] {
        pairs.push((x.to_string(), y.to_string()));
        pairs.push((y.to_string(), x.to_string()));
    }
    pairs
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn every_single_run_aa_pair_passes_with_the_help_flags_and_the_example() {
    let Some(t) = common::traces("the single-run A/A pairs") else {
        return;
    };
    let mut failed = Vec::new();
    for (b, c) in aa_pairs() {
        for flags in [&HELP_FLAGS[..], &EXAMPLE[..]] {
            let r = gate(&t, &b, &c, flags);
            if r.code != 0 {
                failed.push(format!(
                    "{b} → {c} {flags:?}: exit {}\n{}{}",
                    r.code, r.stdout, r.stderr
                ));
            }
            assert!(
                r.stderr.contains("one run per side") && r.stderr.contains("gate --history"),
                "{}",
                r.stderr
            );
            if b.starts_with("gpu_h100") && flags == HELP_FLAGS {
                assert!(r.stderr.contains("judge the device's work"), "{}", r.stderr);
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} of 32 failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn a_25x_slower_step_fails_the_step_rule_with_the_help_flags_and_the_example() {
    let Some(t) = common::traces("torch_cpu/linear_dims") else {
        return;
    };
    let (c, s) = ("torch_cpu/linear_dims/control", "torch_cpu/linear_dims/test");
    for flags in [&HELP_FLAGS[..], &EXAMPLE[..]] {
        let r = gate(&t, c, s, &[flags, &["--format", "json"]].concat());
        assert_eq!(r.code, 1, "{flags:?}: {}{}", r.stdout, r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let rules = v["report"]["rules"].as_array().unwrap();
        let step = &rules[0];
        assert_eq!(
            (step["rule"].as_str(), step["verdict"].as_str()),
            (Some("step time"), Some("fail")),
            "{step}"
        );
        // The pair's common move (×3.3) is held within ×2.
        let expected = step["expected"].as_f64().unwrap();
        let base = step["baseline"].as_f64().unwrap();
        assert!((expected / base - 2.0).abs() < 1e-6, "{step}");
        if flags == EXAMPLE {
            // device = "gpu" on a CPU trace: the GPU's rules have nothing to judge, and say so.
            for rule in ["gpu busy time", "op time", "count"] {
                let r = rules.iter().find(|r| r["rule"] == rule).unwrap();
                assert_eq!(r["verdict"], "not_judged", "{r}");
            }
        }
    }
    // The other way round, a speed-up: the step passes.
    assert_eq!(gate(&t, s, c, &["--max-step-time-regression", "5%"]).code, 0);
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn real_slowdowns_still_fail_with_one_run_per_side() {
    let Some(t) = common::traces("the real slowdowns") else {
        return;
    };
    for (b, c, flags) in [
        ("gpu_h100/resnet/control", "gpu_h100/resnet/test", &HELP_FLAGS[..]),
        ("gpu_h100/resnet/control", "gpu_h100/resnet/test", &EXAMPLE[..]),
        (
            "gpu_h100/vit_precision/test",
            "gpu_h100/vit_precision/control",
            &HELP_FLAGS[..],
        ),
        ("gpu_h100/precision/test", "gpu_h100/precision/control", &EXAMPLE[..]),
        ("torch_cpu/fused_op/test", "torch_cpu/fused_op/control", &HELP_FLAGS[..]),
        ("torch_cpu/fused_op/test", "torch_cpu/fused_op/control", &EXAMPLE[..]),
    ] {
        let r = gate(&t, b, c, flags);
        assert_eq!(r.code, 1, "{b} → {c} {flags:?}: {}{}", r.stdout, r.stderr);
    }
}
