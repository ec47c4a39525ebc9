//! One default for ranks and steps in every command, and one meaning of "per step" whatever the
//! ranks (docs/semantics.md#ranks). Before, `compare` read the lowest rank and `gate` every rank;
//! with `--rank all` on 2 ranks against 4 the step row said +140% while the footer said +20%
//! (rows summed the ranks, the footer averaged them), with no warning; and `--help` said
//! `--iteration` defaults to the lowest step while every step was used.

use crate::common::{json, ok, run};

/// A job of 2 ranks against one of 4, every step 20% slower on every rank.
const PAIR: [&str; 2] = ["fixtures/rankcounts/control", "fixtures/rankcounts/test"];

/// The Δ % of the `ProfilerStep#*` row and of the footer's mean step time, from the table.
fn row_and_footer_percent(out: &str) -> (String, String) {
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("ProfilerStep#*"))
        .unwrap_or_else(|| panic!("no step row:\n{out}"));
    let row_pct = row
        .split_whitespace()
        .rev()
        .find(|w| w.ends_with('%'))
        .unwrap()
        .to_string();
    let footer = out
        .lines()
        .find(|l| l.contains("mean step time:"))
        .unwrap_or_else(|| panic!("no footer:\n{out}"));
    let footer_pct = footer.rsplit(", ").find(|w| w.contains('%')).unwrap();
    let footer_pct = footer_pct.split(')').next().unwrap().to_string();
    (row_pct, footer_pct)
}

#[test]
fn the_step_row_and_the_footer_agree_whatever_the_ranks() {
    for extra in [
        &[][..],
        &["--rank", "all"],
        &["--control-rank", "1", "--test-rank", "3"],
    ] {
        let args = [&["compare", PAIR[0], PAIR[1], "--no-save"][..], extra].concat();
        let out = ok(&args);
        let (row, footer) = row_and_footer_percent(&out);
        assert_eq!(row, "+20.0%", "{extra:?}:\n{out}");
        assert_eq!(footer, "+20.0%", "{extra:?}:\n{out}");
    }
    // The views' footer and rows are per rank and step too.
    let out = ok(&["operators", PAIR[0], PAIR[1], "--rank", "all", "--time", "host-total"]);
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("rows are per rank and step"), "{out}");
    let doc = json(&["compare", PAIR[0], PAIR[1], "--no-save", "--rank", "all"]);
    let step = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "ProfilerStep#*")
        .unwrap();
    assert_eq!(
        step["control_total_per_step_us"], doc["mean_step_time_us"]["control"],
        "{doc:#}"
    );
    assert_eq!(
        step["test_total_per_step_us"], doc["mean_step_time_us"]["test"],
        "{doc:#}"
    );
    // The sums stay the sums: 2 ranks × 3 steps × 1 ms, 4 ranks × 3 steps × 1.2 ms.
    assert_eq!(step["control_total_us"], 6000, "{step}");
    assert_eq!(step["test_total_us"], 14400, "{step}");
}

#[test]
fn sides_of_different_ranks_are_warned_of_naming_both() {
    let all = run(&["compare", PAIR[0], PAIR[1], "--no-save", "--rank", "all"]);
    assert_eq!(all.code, 0, "{}", all.stderr);
    assert!(
        all.stderr.contains(
            "the sides read different ranks: control ranks 0–1, test ranks 0–3; each row is per rank and step of its side"
        ),
        "{}",
        all.stderr
    );
    let lowest = run(&["operators", PAIR[0], PAIR[1]]);
    assert!(
        lowest
            .stderr
            .contains("the sides hold different numbers of ranks: control 2 ranks, test 4 ranks; both read rank 0"),
        "{}",
        lowest.stderr
    );
    let gate = run(&[
        "gate",
        PAIR[0],
        PAIR[1],
        "--max-step-time-regression",
        "50%",
        "--rank",
        "all",
    ]);
    assert!(
        gate.stderr.contains("baseline ranks 0–1, candidate ranks 0–3"),
        "{}",
        gate.stderr
    );
    // The same ranks on both sides: no warning.
    let same = run(&["compare", "fixtures/ranks/control", "fixtures/ranks/test", "--no-save"]);
    assert!(!same.stderr.contains("different"), "{}", same.stderr);
}

/// `compare`, the views, `overview` and `gate` read the same ranks and steps by default.
#[test]
fn every_command_reads_the_lowest_rank_and_every_step_by_default() {
    let (c, t) = ("fixtures/cpuranks/control", "fixtures/cpuranks/test");
    let compare = json(&["compare", c, t, "--no-save"]);
    let operators = json(&["operators", c, t]);
    let gate = json(&["gate", c, t, "--max-step-time-regression", "500%"]);
    for side in ["control", "test"] {
        assert_eq!(compare[side]["ranks"], serde_json::json!([0]), "{compare:#}");
        assert_eq!(compare[side]["iterations"], serde_json::json!([1, 2, 3]), "{compare:#}");
        assert_eq!(operators[side]["ranks"], compare[side]["ranks"]);
        assert_eq!(operators[side]["iterations"], compare[side]["iterations"]);
    }
    for (side, gate_side) in [("control", "baseline"), ("test", "candidate")] {
        assert_eq!(gate["report"][gate_side]["ranks"], compare[side]["ranks"], "{gate:#}");
        assert_eq!(
            gate["report"][gate_side]["iterations"], compare[side]["iterations"],
            "{gate:#}"
        );
    }
    let overview = json(&["overview", c, t]);
    assert_eq!(overview["control"]["ranks"], 1, "{overview:#}");
}

/// The help of `--rank` and `--iteration` says what the code applies, in every command that
/// takes them.
#[test]
fn the_help_gives_the_defaults_the_code_applies() {
    for command in [
        "compare",
        "operators",
        "kernels",
        "overview",
        "modules",
        "flamegraph",
        "report",
        "plot",
        "gate",
    ] {
        let help = ok(&[command, "--help"]).replace('\n', " ");
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(help.contains("[default: the lowest]"), "{command}: {help}");
        let steps = if ["overview", "modules", "flamegraph"].contains(&command) {
            "[default: every step]"
        } else {
            "[default: every step; --hta: the lowest]"
        };
        assert!(help.contains(steps), "{command}: {help}");
    }
}

/// A serving loop's steps (no ProfilerStep) on a rank left unselected count among the side's
/// steps as a selected rank's do: the scan of the other ranks knew only ProfilerStep, so with
/// rank 0's 2 steps and rank 1's 3 the header said "1 of 2 steps" by default and "1 of 3" with
/// `--rank all`. `--step-marker` names the unselected ranks' steps too.
#[test]
fn an_unselected_serving_rank_reports_its_steps() {
    let (c, t) = ("fixtures/serving-ranks/control", "fixtures/serving-ranks/test");
    let header = |extra: &[&str]| {
        let mut args = vec!["compare", c, t, "--hta", "--no-save"];
        args.extend_from_slice(extra);
        ok(&args).lines().take(2).collect::<Vec<_>>().join("\n")
    };
    let lowest = "control: fixtures/serving-ranks/control (rank 0, step 0; 1 of 2 ranks, 1 of 3 steps)\n\
                  test: fixtures/serving-ranks/test (rank 0, step 0; 1 of 2 ranks, 1 of 3 steps)";
    assert_eq!(header(&[]), lowest);
    assert_eq!(header(&["--step-marker", "^step\\[DECODE"]), lowest);
    assert_eq!(
        header(&["--rank", "all"]),
        "control: fixtures/serving-ranks/control (ranks 0–1, step 0; 1 of 3 steps)\n\
         test: fixtures/serving-ranks/test (ranks 0–1, step 0; 1 of 3 steps)"
    );
    let v = json(&["compare", c, t, "--hta", "--no-save"]);
    assert_eq!(v["control"]["steps_available"], 3, "{v:#}");
}

/// A rank left out of the selection reports the steps `--step-marker` names in the formats
/// read whole too (Nsight exports, rocprofv3 files): their header scan counted the
/// unselected rank's ProfilerSteps (1–3) beside the selected rank's marked steps (0–2), so the
/// header said "1 of 4 steps".
#[test]
fn an_unselected_rank_of_a_whole_read_format_reports_its_marked_steps() {
    let dir = tempfile::TempDir::new().unwrap();
    let formats = [
        (
            "rocprof",
            "fixtures/rocprof/control.json",
            "fixtures/rocprof/test.json",
            "results.json",
        ),
        (
            "nsight",
            "fixtures/nsight/control.sqlite",
            "fixtures/nsight/test.sqlite",
            ".sqlite",
        ),
    ];
    for (format, rank0, rank1, ending) in formats {
        let side = dir.path().join(format);
        std::fs::create_dir(&side).unwrap();
        std::fs::copy(rank0, side.join(format!("rank0{ending}"))).unwrap();
        std::fs::copy(rank1, side.join(format!("rank1{ending}"))).unwrap();
        let s = side.to_str().unwrap();
        let args = ["compare", s, s, "--hta", "--no-save", "--step-marker", "^forward$"];
        let header = ok(&args).lines().next().unwrap().to_string();
        assert_eq!(
            header,
            format!("control: {s} (rank 0, step 0; 1 of 2 ranks, 1 of 3 steps)")
        );
        let header = ok(&["compare", s, s, "--hta", "--no-save"])
            .lines()
            .next()
            .unwrap()
            .to_string();
        assert_eq!(
            header,
            format!("control: {s} (rank 0, step 1; 1 of 2 ranks, 1 of 3 steps)")
        );
    }
}

/// A serving trace's steps are its loop's annotations, numbered from 0: an iteration it lacks
/// is refused naming the steps it has, without calling them ProfilerSteps.
#[test]
fn a_missing_serving_step_is_refused_naming_the_steps_present() {
    let (c, t) = ("fixtures/serving-ranks/control", "fixtures/serving-ranks/test");
    let r = run(&["compare", c, t, "--iteration", "7", "--no-save"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(
        r.stderr.trim_end(),
        "tracediff: control: no iteration 7 (steps present: 0, 1) (fixtures/serving-ranks/control)"
    );
}
