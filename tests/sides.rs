//! A side's runs given one by one (`--control-run`, `--test-run`; `--baseline-run`,
//! `--candidate-run` for the gate; docs/commands.md#the-runs-of-a-side): the same runs as the
//! directory that holds them, the same output but for the header's paths, on every command; a
//! side viewed alone; and the refusals, on `fixtures/replicates`.

use crate::common;
use common::{fails, json, ok, run};

const R: &str = "fixtures/replicates";

/// `--FLAG DIR/run1 --FLAG DIR/run2 --FLAG DIR/run3`.
fn given(flag: &str, dir: &str) -> Vec<String> {
    (1..=3)
        .flat_map(|i| [flag.to_string(), format!("{dir}/run{i}")])
        .collect()
}

fn args<'a>(head: &[&'a str], rest: &'a [String]) -> Vec<&'a str> {
    head.iter().copied().chain(rest.iter().map(String::as_str)).collect()
}

/// The output without its header (which names the paths given, its long lines wrapped).
fn body(out: &str) -> String {
    let header = |l: &&str| ["control: ", "test: ", "run: ", "  "].iter().any(|p| l.starts_with(p));
    out.lines().skip_while(header).collect::<Vec<_>>().join("\n")
}

/// JSON without the sides' paths and files (named as given).
fn without_paths(mut v: serde_json::Value) -> serde_json::Value {
    for side in ["control", "test"] {
        if let Some(s) = v.get_mut(side).and_then(|s| s.as_object_mut()) {
            s.remove("path");
            s.remove("files");
        }
    }
    v
}

#[test]
fn runs_given_one_by_one_are_the_directory_of_runs() {
    let (c, t) = (format!("{R}/fused/control"), format!("{R}/fused/test"));
    let runs = [given("--control-run", &c), given("--test-run", &t)].concat();
    for command in ["compare", "operators", "kernels", "overview", "modules"] {
        let save: &[&str] = if command == "compare" { &["--no-save"] } else { &[] };
        let by_dir = ok(&[&[command, c.as_str(), t.as_str()][..], save].concat());
        let one_by_one = ok(&[args(&[command], &runs), save.to_vec()].concat());
        assert_eq!(body(&by_dir), body(&one_by_one), "{command}");
    }
    let by_dir = json(&["operators", &c, &t]);
    let one_by_one = json(&args(&["operators"], &runs));
    // The header names the runs given.
    assert_eq!(one_by_one["control"]["path"], format!("{c}/run1, {c}/run2, {c}/run3"));
    assert_eq!(one_by_one["test"]["run_steps"], serde_json::json!([3, 3, 3]));
    assert_eq!(without_paths(by_dir), without_paths(one_by_one));
    // A side of runs given one by one against a directory of runs, the path naming TEST.
    let mixed = ok(&args(&["operators", &t], &given("--control-run", &c)));
    assert_eq!(body(&mixed), body(&ok(&["operators", &c, &t])));
}

#[test]
fn a_side_of_runs_alone_is_its_own_view() {
    let c = format!("{R}/fused/control");
    let alone = ok(&args(&["operators"], &given("--control-run", &c)));
    let header = alone
        .split(" (")
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(header, format!("run: {c}/run1, {c}/run2, {c}/run3"), "{alone}");
    assert_eq!(body(&alone), body(&ok(&["operators", &c])));
}

#[test]
fn the_gate_takes_runs_one_by_one() {
    let (c, t) = (format!("{R}/aa/control"), format!("{R}/aa/test"));
    let rules = ["--config", "examples/tracediff-gate.toml", "--format", "json"];
    let by_dir = run(&[&["gate", c.as_str(), t.as_str()][..], &rules].concat());
    let runs = [given("--baseline-run", &c), given("--candidate-run", &t)].concat();
    let one_by_one = run(&args(&[&["gate"][..], &rules].concat(), &runs));
    assert_eq!((by_dir.code, one_by_one.code), (0, 0), "{}", one_by_one.stderr);
    let strip = |text: &str| {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        for side in ["baseline", "candidate"] {
            v["report"][side]["path"] = serde_json::Value::Null;
        }
        v
    };
    assert_eq!(strip(&by_dir.stdout), strip(&one_by_one.stdout));
}

#[test]
fn compare_saves_runs_given_one_by_one_for_ops_diff() {
    let state = tempfile::TempDir::new().unwrap();
    let (c, t) = (format!("{R}/fused/control"), format!("{R}/fused/test"));
    let runs = [given("--control-run", &c), given("--test-run", &t)].concat();
    let saved = common::run_in(state.path(), &args(&["compare"], &runs));
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    let again = common::run_in(state.path(), &["ops-diff", "--category", "added"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stderr.contains("run1, "), "{}", again.stderr);
    assert!(again.stdout.contains("aten::fused"), "{}", again.stdout);
}

#[test]
fn a_side_given_twice_or_as_runs_of_runs_is_refused() {
    let (c, t) = (format!("{R}/fused/control"), format!("{R}/fused/test"));
    let runs = given("--control-run", &c);
    assert_eq!(
        fails(&args(&["compare", "--no-save", &t, &t], &runs)),
        format!(
            "{t}: a path too many: --control-run gives its side's runs in place of a path, so the paths given name TEST only"
        )
    );
    assert_eq!(
        fails(&["operators", "--control-run", &c, "--control-run", &t, &t]),
        format!(
            "--control-run: {c} is a directory of runs, and each path of a list of runs is one run: give the directory alone, or its runs one by one"
        )
    );
    assert!(
        fails(&args(&["compare", "--hta", "--no-save", &t], &runs))
            .contains("compare --hta reads one path per side here, and 3 runs were given one by one"),
    );
}
