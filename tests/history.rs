//! The history store, `history add`/`show` and `gate --history` (docs/history.md) on
//! `fixtures/history` (one program recorded run after run, A/A candidates, a real slowdown,
//! runs after an accepted change) and, where `../shared` is beside the repository, on the
//! replicate runs of `../shared/traces/replicates`.

use crate::common;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

const RULES: &[&str] = &["--max-step-time-regression", "5%", "--max-op-regression", "10%"];

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// A store of `fixtures/history/runs/c01 … c10` (and `after/` where asked) in a fresh directory.
fn store_of(with_after: bool) -> (TempDir, PathBuf) {
    let dir = TempDir::new().unwrap();
    let store = dir.path().join("hist");
    let mut runs: Vec<String> = (1..=10).map(|i| format!("fixtures/history/runs/c{i:02}")).collect();
    if with_after {
        runs.extend((11..=16).map(|i| format!("fixtures/history/after/c{i}")));
    }
    for run in &runs {
        let label = run.rsplit('/').next().unwrap();
        common::ok(&["history", "add", &s(&store), run, "--label", label, "--branch", "main"]);
    }
    (dir, store)
}

fn gate(store: &Path, candidate: &str, extra: &[&str]) -> common::Run {
    let st = s(store);
    let mut args = vec!["gate", "--history", st.as_str(), candidate];
    args.extend(RULES);
    args.extend(extra);
    common::run(&args)
}

#[test]
fn the_store_is_laid_out_as_documented_and_reruns_pass_a_slowdown_fails() {
    let (_dir, store) = store_of(false);
    assert!(store.join("history.toml").is_file());
    for seq in 1..=10 {
        let run = store.join(format!("run={seq:06}"));
        assert!(
            run.join("rank=0.parquet").is_file() && run.join("run.jsonl").is_file(),
            "{run:?}"
        );
    }
    let table = std::fs::read_to_string(store.join("runs.csv")).unwrap();
    assert!(
        table.starts_with("seq,label,time,branch,meta,tool_version,ranks,source\n"),
        "{table}"
    );
    assert_eq!(table.lines().count(), 11);
    assert!(table.lines().nth(10).unwrap().starts_with("10,c10,"), "{table}");
    // Every A/A candidate passes; the slowdown fails, naming its row and the history.
    for aa in ["a1", "a2", "a3", "a4"] {
        let r = gate(&store, &format!("fixtures/history/aa/{aa}"), &[]);
        assert_eq!(r.code, 0, "{aa}:\n{}\n{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("judged against 10 runs (c01–c10)"), "{}", r.stdout);
    }
    let r = gate(&store, "fixtures/history/slow", &["--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let v = &v["report"];
    let failed: Vec<&str> = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] == "fail" && r["rule"] == "op time" && r["unit"] == "us")
        .map(|r| r["subject"].as_str().unwrap())
        .collect();
    assert_eq!(failed, vec!["aten::mm"], "{}", r.stdout);
    let step = &v["rules"][0];
    assert_eq!(step["verdict"], "fail");
    assert!(step["note"].as_str().unwrap().starts_with("history: median"), "{step}");
    assert_eq!(v["baseline"]["label"], "history");
}

#[test]
fn history_show_finds_the_change_where_it_starts_and_the_gate_rebaselines() {
    let (_dir, store) = store_of(true);
    let show = |format: &str| common::ok(&["history", "show", &s(&store), "--top", "2", "--format", format]);
    let v: serde_json::Value = serde_json::from_str(&show("json")).unwrap();
    let step = &v["series"][0];
    assert_eq!(step["name"], "step time");
    let changes = step["change_points"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{step}");
    assert_eq!(changes[0]["label"], "c11");
    assert!(changes[0]["relative_change"].as_f64().unwrap() > 0.15, "{step}");
    let mm = v["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "aten::mm")
        .unwrap();
    assert_eq!(mm["change_points"][0]["label"], "c11");
    the_csv_and_json_write_us_with_one_meaning(&v, &show("csv"));
    // Byte-identical from one run to the next, in every format.
    for format in ["table", "json", "csv", "markdown"] {
        assert_eq!(show(format), show(format), "{format}");
    }
    assert!(show("table").contains("change at run c11 (seq 11)"));
    // The gate judges against the runs since the change (c11–c16): the old program is faster,
    // which passes, and the report says which runs it judged.
    let r = gate(&store, "fixtures/history/aa/a1", &[]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // Notes wrap at the terminal's width: read them unwrapped.
    let out = r.stdout.replace("\n  ", " ");
    assert!(out.contains("judged against 6 runs (c11–c16)"), "{out}");
    assert!(out.contains("since its last change point (run c11"), "{out}");
    // --window keeps the latest runs; fewer than --min-history falls back to the pair rule.
    let r = gate(&store, "fixtures/history/aa/a1", &["--window", "4"]);
    assert!(r.stderr.contains("fewer than --min-history 5"), "{}", r.stderr);
    assert!(r.stderr.contains("against the latest run (c16)"), "{}", r.stderr);
    let svg = _dir.path().join("h.svg");
    common::ok(&["history", "show", &s(&store), "--plot", &s(&svg)]);
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
}

#[test]
fn add_on_pass_appends_only_a_run_that_passes() {
    let (_dir, store) = store_of(false);
    let pass = gate(&store, "fixtures/history/aa/a1", &["--add-on-pass", "--label", "a1"]);
    assert_eq!(pass.code, 0, "{}", pass.stderr);
    let fail = gate(&store, "fixtures/history/slow", &["--add-on-pass", "--label", "slow"]);
    assert_eq!(fail.code, 1);
    let table = std::fs::read_to_string(store.join("runs.csv")).unwrap();
    assert!(table.contains("\n11,a1,") && !table.contains(",slow,"), "{table}");
}

#[test]
fn a_killed_append_leaves_nothing_read_and_the_next_removes_it() {
    let dir = TempDir::new().unwrap();
    let store = dir.path().join("hist");
    common::ok(&[
        "history",
        "add",
        &s(&store),
        "fixtures/history/runs/c01",
        "--label",
        "c01",
    ]);
    // What a killed append leaves: its incoming directory, never read, removed by the next.
    let leftover = store.join(".incoming-9");
    std::fs::create_dir_all(&leftover).unwrap();
    std::fs::write(leftover.join("rank=0.parquet.part"), b"torn").unwrap();
    let bin = assert_cmd::cargo::cargo_bin("tracediff");
    let children: Vec<_> = (2..=5)
        .map(|i| {
            std::process::Command::new(&bin)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .args(["history", "add", &s(&store), &format!("fixtures/history/runs/c{i:02}")])
                .args(["--label", &format!("c{i:02}")])
                .output()
                .unwrap()
        })
        .collect();
    for c in &children {
        assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    }
    let v: serde_json::Value =
        serde_json::from_str(&common::ok(&["history", "show", &s(&store), "--format", "json"])).unwrap();
    let seqs: Vec<u64> = v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, vec![1, 2, 3, 4, 5]);
    assert!(!leftover.exists());
    let table = std::fs::read_to_string(store.join("runs.csv")).unwrap();
    assert_eq!(table.lines().count(), 6, "{table}");
}

/// Issue 53: `history show`'s JSON and CSV write µs under names that say so, as every command
/// does (they wrote ns under `values`, `median`, `value_ns`), name the run the last segment
/// starts at by seq and label (an index before), and the CSV holds the JSON's numbers.
fn the_csv_and_json_write_us_with_one_meaning(v: &serde_json::Value, csv: &str) {
    fn keys_name_units(v: &serde_json::Value, place: &str) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, inner) in m {
                    let old = ["values", "median", "spread", "band_upper", "before", "after", "since"];
                    assert!(!k.ends_with("_ns") && !old.contains(&k.as_str()), "{place}.{k}");
                    keys_name_units(inner, &format!("{place}.{k}"));
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|inner| keys_name_units(inner, place)),
            _ => {}
        }
    }
    keys_name_units(v, "");
    assert_eq!(v["tool"], "tracediff");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(v["schema_version"], 2);
    let step = &v["series"][0];
    assert_eq!(
        (&step["since_seq"], &step["since_label"]),
        (&11.into(), &"c11".into()),
        "{step}"
    );
    // The fixtures' step times are a few ms: µs in the thousands, not ns in the millions.
    let median = step["median_us"].as_f64().unwrap();
    assert!((100.0..100_000.0).contains(&median), "{step}");
    assert!(step["band_upper_us"].as_f64().unwrap() > median, "{step}");
    let before = step["change_points"][0]["before_us"].as_f64().unwrap();
    assert!((100.0..100_000.0).contains(&before), "{step}");
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let headers: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(
        headers,
        [
            "series",
            "kind",
            "seq",
            "label",
            "value_us",
            "change_point",
            "p_value",
            "segment_median_us"
        ]
    );
    let mut compared = 0;
    for rec in r.records() {
        let rec = rec.unwrap();
        let series = v["series"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == rec[0])
            .unwrap();
        let seq: u64 = rec[2].parse().unwrap();
        let i = v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .position(|r| r["seq"] == seq)
            .unwrap();
        assert_eq!(rec[4].parse::<f64>().ok(), series["values_us"][i].as_f64(), "{rec:?}");
        let last = series["since_seq"].as_u64().unwrap();
        if seq >= last {
            assert_eq!(rec[7].parse::<f64>().ok(), series["median_us"].as_f64(), "{rec:?}");
        }
        compared += 1;
    }
    assert_eq!(compared, 16 * v["series"].as_array().unwrap().len());
}

#[test]
fn parallel_appends_take_distinct_seqs() {
    let dir = TempDir::new().unwrap();
    let store = dir.path().join("hist");
    let bin = assert_cmd::cargo::cargo_bin("tracediff");
    let children: Vec<std::process::Child> = (1..=6)
        .map(|i| {
            std::process::Command::new(&bin)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .args(["history", "add", &s(&store), &format!("fixtures/history/runs/c{i:02}")])
                .args(["--label", &format!("c{i:02}")])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let text = std::fs::read_to_string(store.join("runs.csv")).unwrap();
    let mut labels: Vec<&str> = text.lines().skip(1).map(|l| l.split(',').nth(1).unwrap()).collect();
    labels.sort();
    assert_eq!(labels, vec!["c01", "c02", "c03", "c04", "c05", "c06"], "{text}");
    for seq in 1..=6 {
        assert!(store.join(format!("run={seq:06}/rank=0.parquet")).is_file());
    }
}

#[test]
fn a_corrupt_entry_is_named_and_skipped() {
    let (_dir, store) = store_of(false);
    std::fs::write(store.join("run=000004/rank=0.parquet"), b"not parquet").unwrap();
    std::fs::remove_file(store.join("run=000007/run.jsonl")).unwrap();
    let r = common::run(&["history", "show", &s(&store), "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("run=000004 skipped"), "{}", r.stderr);
    assert!(
        r.stderr.contains("run=000007 skipped: cannot read its run.jsonl"),
        "{}",
        r.stderr
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["runs"].as_array().unwrap().len(), 8);
    // A new run never takes a skipped one's number.
    common::ok(&["history", "add", &s(&store), "fixtures/history/aa/a1", "--label", "a1"]);
    assert!(store.join("run=000011").is_dir());
}

#[test]
fn bad_input_is_refused_with_one_line_and_nothing_written() {
    let (dir, store) = store_of(false);
    let file = dir.path().join("afile");
    std::fs::write(&file, "x").unwrap();
    let e = common::fails(&["history", "add", &s(&file), "fixtures/history/aa/a1", "--label", "x"]);
    assert!(e.contains("a history store is a directory"), "{e}");
    let other = dir.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("history.toml"), "format = \"bencher\"\nversion = 1\n").unwrap();
    let e = common::fails(&["history", "show", &s(&other)]);
    assert!(e.contains("a store of another tool ('bencher')"), "{e}");
    std::fs::write(
        other.join("history.toml"),
        "format = \"tracediff-history\"\nversion = 9\n",
    )
    .unwrap();
    assert!(common::fails(&["history", "show", &s(&other)]).contains("history store version 9"));
    let stranger = dir.path().join("stranger");
    std::fs::create_dir_all(&stranger).unwrap();
    std::fs::write(stranger.join("notes.txt"), "mine").unwrap();
    let e = common::fails(&[
        "history",
        "add",
        &s(&stranger),
        "fixtures/history/aa/a1",
        "--label",
        "x",
    ]);
    assert!(e.contains("not a tracediff history store"), "{e}");
    let e = common::fails(&["history", "add", &s(&store), "fixtures/history/aa/a1", "--label", "c03"]);
    assert!(e.contains("already has a run labelled 'c03'"), "{e}");
    assert!(
        common::fails(&[
            "history",
            "add",
            &s(&store),
            "fixtures/history/aa/a1",
            "--label",
            "x",
            "--meta",
            "novalue"
        ])
        .contains("expected KEY=VALUE")
    );
    let st = s(&store);
    let e = common::error_line(&gate(&store, "fixtures/history/aa/a1", &["--window", "0"]));
    assert!(e.contains("--window 0"), "{e}");
    let e = common::error_line(&gate(
        &store,
        "fixtures/history/aa/a1",
        &["--min-history", "12", "--window", "20"],
    ));
    assert!(e.contains("--min-history 12 is above the 10 readable runs"), "{e}");
    let e = common::error_line(&gate(&store, "fixtures/graphs/replay", &[]));
    assert!(e.contains("shares no row with the history"), "{e}");
    let e = common::error_line(&gate(&store, "fixtures/amd/control", &[]));
    assert!(e.contains("of the candidate's time is in rows the history has"), "{e}");
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    common::error_line(&gate(&store, &s(&empty), &[]));
    common::error_line(&common::run(&["history", "add", &st, &s(&empty), "--label", "e"]));
    // Nothing was written by any of them.
    assert_eq!(
        std::fs::read_to_string(store.join("runs.csv")).unwrap().lines().count(),
        11
    );
    assert!(!store.join("run=000011").exists());
}

/// The replicate runs of the fused-op scenario (`../shared/traces/replicates/fused`): a history
/// of the fused program's three runs passes each of them again and fails every run of the
/// slower, unfused program, naming its rows.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn a_history_of_real_replicates_passes_reruns_and_fails_the_slower_program() {
    let Some(traces) = common::traces("replicates/fused") else {
        return;
    };
    let dir = TempDir::new().unwrap();
    let store = dir.path().join("hist");
    let fused = traces.join("replicates/fused");
    for i in 1..=3 {
        let run = fused.join(format!("test/run{i}"));
        common::ok(&["history", "add", &s(&store), &s(&run), "--label", &format!("t{i}")]);
    }
    for i in 1..=3 {
        let rerun = gate(&store, &s(&fused.join(format!("test/run{i}"))), &["--min-history", "3"]);
        assert_eq!(rerun.code, 0, "rerun {i}:\n{}\n{}", rerun.stdout, rerun.stderr);
        let slower = gate(
            &store,
            &s(&fused.join(format!("control/run{i}"))),
            &["--min-history", "3"],
        );
        assert_eq!(slower.code, 1, "control {i}:\n{}", slower.stdout);
        assert!(slower.stdout.contains("step time") && slower.stdout.contains("FAIL"));
    }
}

/// `history show` fits its text to the width it is given (`COLUMNS`, or the terminal's): the
/// list of last runs and the band line wrap with their continuation lines indented, and each
/// run's label stays with its value; without a width, each line is whole.
#[test]
fn history_show_wraps_its_lines_to_the_width() {
    let (dir, store) = store_of(true);
    let args = ["history", "show", &s(&store), "--top", "2"];
    let narrow = common::run_with(dir.path(), &args, Some("80"));
    assert_eq!(narrow.code, 0, "{}", narrow.stderr);
    for line in narrow.stdout.lines() {
        assert!(line.chars().count() <= 80, "{} columns: {line}", line.chars().count());
    }
    assert!(narrow.stdout.contains("\n    "), "{}", narrow.stdout);
    let whole = common::run_with(dir.path(), &args, None);
    let last_runs = whole.stdout.lines().find(|l| l.starts_with("  last runs: ")).unwrap();
    assert!(last_runs.chars().count() > 80, "{last_runs}");
    // The same words, only the line breaks differ; no run's label is parted from its value.
    let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(words(&narrow.stdout), words(&whole.stdout));
    let is_label = |w: &str| w.len() == 3 && w.starts_with('c') && w[1..].chars().all(|c| c.is_ascii_digit());
    for line in narrow.stdout.lines() {
        let last = line.split_whitespace().last().unwrap_or("");
        assert!(!is_label(last), "a label parted from its value: {line}");
    }
    assert!(!narrow.stdout.contains('\u{a0}'));
}
