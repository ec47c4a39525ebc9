//! One run per side on real A/A pairs (docs/significance.md#what-one-run-per-side-can-and-cannot-tell):
//! `fixtures/aa_cpu/{fused,attention}` are two processes of one program each, recorded on a
//! loaded 2-core machine with `scripts/record_scenarios.py --same` (operators and annotations
//! kept, Python frames and arguments dropped). Their rows scatter by ×2.2 and ×1.4 between the
//! processes, single operations by up to ×9; no row may be marked, where the steps' noise alone
//! marks 7 and 1 (10 and 10 before the change of medians and the rows' scatter were judged).

use crate::common;
use common::json;

fn marked(v: &serde_json::Value) -> usize {
    v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["significant"] == true)
        .count()
}

fn pair(command: &str, set: &str, extra: &[&str]) -> serde_json::Value {
    let (c, t) = (
        format!("fixtures/aa_cpu/{set}/control"),
        format!("fixtures/aa_cpu/{set}/test"),
    );
    let mut args = vec![command, c.as_str(), t.as_str(), "--iteration", "all"];
    args.extend(extra);
    json(&args)
}

#[test]
fn two_processes_of_one_program_mark_no_row() {
    for (set, rows, plain) in [("fused", 109, 7), ("attention", 99, 1)] {
        let v = pair("compare", set, &[]);
        assert_eq!(v["rows"].as_array().map(Vec::len), Some(rows), "{set}");
        assert_eq!(marked(&v), 0, "{set}: {v:#}");
        assert_eq!(marked(&pair("operators", set, &[])), 0, "{set}");
        // Judged against the steps' noise alone, rows stand out: the scatter is what clears them.
        assert_eq!(marked(&pair("compare", set, &["--no-run-shift"])), plain, "{set}");
    }
}

/// The shipped example gate on the same pairs (docs/significance.md#the-gate-with-one-run-per-side):
/// the `fused` pair's second process ran its steps about 50% slower (median 216 ms → 331 ms,
/// MAD 28 ms and 11 ms), with no run-wide shift (its rows moved from ×0.13 to ×2.5),
/// so judged against its steps the step time failed. Judged beyond the pair's common move, as
/// its rows are, both pairs pass either way round; with `--no-run-shift` (against no change) the
/// `fused` pair still fails.
#[test]
fn the_example_gate_passes_two_processes_of_one_program() {
    let config = "examples/tracediff-gate.toml";
    for set in ["fused", "attention"] {
        let (c, t) = (
            format!("fixtures/aa_cpu/{set}/control"),
            format!("fixtures/aa_cpu/{set}/test"),
        );
        for (base, cand) in [(&c, &t), (&t, &c)] {
            let r = common::run(&["gate", "--config", config, base, cand, "--format", "json"]);
            assert_eq!(r.code, 0, "{base} vs {cand}: {}", r.stdout);
            let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
            let step = &v["report"]["rules"][0];
            assert_eq!(step["rule"], "step time");
            // Judged beyond the common move: the expected step time is given, and the note
            // names the move.
            assert!(step["expected"].as_f64().is_some(), "{step:#}");
            let note = step["note"].as_str().unwrap();
            assert!(
                note.starts_with("one run per side: judged beyond this pair's common move"),
                "{note}"
            );
        }
    }
    let plain = common::run(&[
        "gate",
        "--config",
        config,
        "fixtures/aa_cpu/fused/control",
        "fixtures/aa_cpu/fused/test",
        "--no-run-shift",
    ]);
    assert_eq!(plain.code, 1, "{}", plain.stdout);
    assert!(plain.stdout.contains("gate: FAIL: step time"), "{}", plain.stdout);
}
