//! `gate --history` and `history show` on a history recorded by `scripts/record_history.py`
//! (`fixtures/history_torch`: real traces of one CPU training program, each run a fresh
//! process on a shared machine): every A/A candidate passes, the commit with a wider Linear
//! layer fails naming its rows, and `history show` puts the change where it starts.

use crate::common;
use std::path::Path;
use tempfile::TempDir;

const RULES: &[&str] = &["--max-step-time-regression", "5%", "--max-op-regression", "10%"];

fn fixture(label: &str) -> String {
    format!("fixtures/history_torch/{label}")
}

fn add(store: &Path, label: &str) {
    let st = store.display().to_string();
    common::ok(&[
        "history",
        "add",
        &st,
        &fixture(label),
        "--label",
        label,
        "--branch",
        "main",
    ]);
}

fn gate(store: &Path, label: &str) -> common::Run {
    let st = store.display().to_string();
    let cand = fixture(label);
    let mut args = vec!["gate", "--history", st.as_str(), cand.as_str()];
    args.extend(RULES);
    args.extend(["--format", "json"]);
    common::run(&args)
}

#[test]
fn a_recorded_history_passes_reruns_fails_the_wider_layer_and_finds_the_change() {
    let dir = TempDir::new().unwrap();
    let store = dir.path().join("hist");
    for i in 1..=8 {
        add(&store, &format!("c{i:02}"));
    }
    for aa in ["a1", "a2", "a3"] {
        let r = gate(&store, aa);
        assert_eq!(r.code, 0, "{aa}:\n{}\n{}", r.stdout, r.stderr);
    }
    let r = gate(&store, "x01");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let rules = v["report"]["rules"].as_array().unwrap();
    assert_eq!(rules[0]["rule"], "step time");
    assert_eq!(rules[0]["verdict"], "fail");
    let failed: Vec<&str> = rules
        .iter()
        .filter(|r| r["verdict"] == "fail" && r["rule"] == "op time" && r["unit"] == "us")
        .map(|r| r["subject"].as_str().unwrap())
        .collect();
    for row in ["aten::mm", "aten::addmm", "aten::linear", "AddmmBackward0"] {
        assert!(failed.contains(&row), "{row} not in {failed:?}");
    }
    for label in ["x01", "x02", "x03"] {
        add(&store, label);
    }
    let st = store.display().to_string();
    let show: serde_json::Value =
        serde_json::from_str(&common::ok(&["history", "show", &st, "--top", "3", "--format", "json"])).unwrap();
    let step = &show["series"][0];
    assert_eq!(step["name"], "step time");
    let changes: Vec<&str> = step["change_points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(changes, ["x01"], "{step}");
}

/// The test cases of a JUnit report: (classname, name, failure message where it failed).
fn junit_cases(path: &Path) -> Vec<(String, String, Option<String>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|n| {
            let failure = n
                .children()
                .find(|c| c.has_tag_name("failure"))
                .map(|f| f.attribute("message").unwrap().to_string());
            (
                n.attribute("classname").unwrap().to_string(),
                n.attribute("name").unwrap().to_string(),
                failure,
            )
        })
        .collect()
}

#[test]
fn the_gate_writes_a_junit_report_for_a_history_and_a_pair() {
    let dir = TempDir::new().unwrap();
    let store = dir.path().join("hist");
    for i in 1..=8 {
        add(&store, &format!("c{i:02}"));
    }
    let (st, xml) = (store.display().to_string(), dir.path().join("gate.xml"));
    let x = xml.display().to_string();
    let mut args = vec!["gate", "--history", &st, "fixtures/history_torch/x01"];
    args.extend(RULES);
    args.extend(["--junit", &x]);
    let r = common::run(&args);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let cases = junit_cases(&xml);
    let mm = cases.iter().find(|c| c.1 == "aten::mm").unwrap();
    assert_eq!(mm.0, "tracediff.gate.op_time");
    assert!(mm.2.as_deref().unwrap().starts_with("aten::mm: +"), "{mm:?}");
    assert_eq!(cases[0].0, "tracediff.gate.step_time");
    let text = std::fs::read_to_string(&xml).unwrap();
    let failed = cases.iter().filter(|c| c.2.is_some()).count();
    assert!(
        text.contains(&format!("tests=\"{}\" failures=\"{failed}\"", cases.len())),
        "{text}"
    );
    // A pass: every case without a failure; the pair gate writes one too.
    let mut args = vec!["gate", "fixtures/history_torch/c01", "fixtures/history_torch/a1"];
    args.extend(["--max-step-time-regression", "50%", "--junit", &x]);
    let r = common::run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let cases = junit_cases(&xml);
    assert!(!cases.is_empty() && cases.iter().all(|c| c.2.is_none()), "{cases:?}");
}

#[test]
fn the_report_shows_the_history_with_its_change_and_a_bad_store_writes_nothing() {
    let dir = TempDir::new().unwrap();
    let store = dir.path().join("hist");
    for label in ["c01", "c02", "c03", "c04", "c05", "x01", "x02", "x03"] {
        add(&store, label);
    }
    let (st, page) = (store.display().to_string(), dir.path().join("r.html"));
    let p = page.display().to_string();
    let pair = [
        "report",
        "fixtures/history_torch/c05",
        "fixtures/history_torch/x01",
        "-o",
        &p,
    ];
    let mut args = pair.to_vec();
    args.extend(["--history", &st]);
    common::ok(&args);
    let html = std::fs::read_to_string(&page).unwrap();
    let section = &html[html.find("<section id=\"history\"").unwrap()..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(section.contains("(8 runs, c01–x03)"), "{section}");
    assert!(section.contains("<svg") && section.contains("role=\"img\""), "a chart");
    let step = section
        .lines()
        .find(|l| l.starts_with("<tr><td>step time</td>"))
        .unwrap();
    assert!(step.contains("at x01 (seq 6)"), "{step}");
    assert!(section.contains("<td>aten::mm</td>"), "{section}");
    // Without --history the page has no such section; with a store that is not one, nothing is written.
    std::fs::remove_file(&page).unwrap();
    common::ok(&pair);
    assert!(!std::fs::read_to_string(&page).unwrap().contains("id=\"history\""));
    std::fs::remove_file(&page).unwrap();
    let mut args = pair.to_vec();
    let absent = dir.path().join("absent").display().to_string();
    args.extend(["--history", &absent]);
    let r = common::run(&args);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no history store here"), "{}", r.stderr);
    assert!(!page.exists());
}
