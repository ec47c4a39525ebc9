//! Edges of real traces found on a sweep of public ones (issue 55): each test builds a small trace
//! shaped like the one that showed it.

use crate::common;
// The small traces of the reliability audit, built the same way.
use crate::reliability3::{op, write_trace};
use serde_json::{Value, json};
use tempfile::TempDir;

/// A 2021 `[memory]` instant: only the change, `Bytes`, no `Total Allocated`.
fn bytes_only(ts: f64, bytes: i64) -> Value {
    json!({"ph": "i", "name": "[memory]", "ts": ts, "pid": 1, "tid": 1, "s": "t",
        "args": {"Device Type": 1, "Device Id": 0, "Bytes": bytes}})
}

/// Old traces whose `[memory]` events carry only `Bytes` gave no memory figure at all. Their
/// figures are the rise above each step's start (the level before the profiler started is
/// unknown), and a note says so.
#[test]
fn memory_from_bytes_alone_is_the_rise_above_each_step_start() {
    let dir = TempDir::new().unwrap();
    let events = vec![
        op("ProfilerStep#1", 0.0, 100.0),
        bytes_only(10.0, 4000),
        bytes_only(30.0, 2000),
        bytes_only(60.0, -6000),
        op("ProfilerStep#2", 100.0, 100.0),
        bytes_only(120.0, 1000),
        bytes_only(150.0, -1000),
    ];
    let p = write_trace(dir.path(), "old.json", events);
    let t = p.to_str().unwrap();
    let r = common::run(&["overview", t, t, "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let side = &v["control"];
    // Step 1 rises by 6000 (at 30 µs), step 2 by 1000: the peak is 6000.
    assert_eq!(side["peak_allocated_bytes"], json!(6000), "{side}");
    assert_eq!(side["memory_relative"], json!(true), "{side}");
    assert_eq!(side["memory_device"], json!("cuda:0"), "{side}");
    assert!(
        r.stderr.contains("only `Bytes` changes (no `Total Allocated`)"),
        "{}",
        r.stderr
    );
    // A trace with totals says nothing of the kind.
    let events = vec![
        op("ProfilerStep#1", 0.0, 100.0),
        json!({"ph": "i", "name": "[memory]", "ts": 10.0, "pid": 1, "tid": 1, "s": "t",
            "args": {"Device Type": 1, "Device Id": 0, "Total Allocated": 4000, "Bytes": 4000}}),
    ];
    let p = write_trace(dir.path(), "new.json", events);
    let t = p.to_str().unwrap();
    let r = common::run(&["overview", t, t, "--format", "json"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["control"].get("memory_relative").is_none(), "{}", v["control"]);
    assert!(!r.stderr.contains("Total Allocated"), "{}", r.stderr);
}

/// A side without ProfilerStep against a side with steps mixed a whole-trace total with a mean per
/// step (`aten::cudnn_convolution` 636 against 106 on a 6-step side: 148 rows "decreased"). The
/// stepped side is compared whole too, its header and a note say so; named steps stay named.
#[test]
fn a_side_without_steps_is_compared_with_the_whole_of_the_other() {
    let args = [
        "compare",
        "fixtures/basic/control",
        "fixtures/nosteps/test",
        "--format",
        "json",
    ];
    let r = common::run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("test has no steps, so control is compared whole too (its 3 steps"),
        "{}",
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let step = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["name"] == "ProfilerStep#*")
        .unwrap()
        .clone();
    // Every step of the control, not their mean: 3 calls.
    assert_eq!(step["control_count"], json!(3), "{step}");
    let text = common::ok(&["compare", "fixtures/basic/control", "fixtures/nosteps/test"]);
    assert!(
        text.starts_with("control: fixtures/basic/control (rank 0, the whole trace: its 3 steps and between"),
        "{text}"
    );
    // `--iteration 2` keeps the control's step 2.
    let named = common::run(&[
        "compare",
        "fixtures/basic/control",
        "fixtures/nosteps/test",
        "--control-iteration",
        "2",
    ]);
    assert_eq!(named.code, 0, "{}", named.stderr);
    assert!(
        named
            .stdout
            .starts_with("control: fixtures/basic/control (rank 0, step 2"),
        "{}",
        named.stdout
    );
    assert!(!named.stderr.contains("compared whole too"), "{}", named.stderr);
}
