//! The third reliability audit's findings (issue 54): each test builds a small input shaped like
//! the case that showed the defect and checks what the tool promises instead.

use crate::common;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Writes `{"traceEvents": events}` as `name` in `dir`.
fn write_trace(dir: &Path, name: &str, events: Vec<Value>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, json!({ "traceEvents": events }).to_string()).unwrap();
    path
}

/// A CPU op (times in µs).
fn op(name: &str, ts: f64, dur: f64) -> Value {
    json!({"ph": "X", "name": name, "cat": "cpu_op", "ts": ts, "dur": dur, "pid": 1, "tid": 1})
}

/// A `[memory]` instant on cuda:0.
fn memory(ts: f64, total: i64, bytes: i64) -> Value {
    json!({"ph": "i", "name": "[memory]", "ts": ts, "pid": 1, "tid": 1, "s": "t",
        "args": {"Device Type": 1, "Device Id": 0, "Total Allocated": total, "Bytes": bytes}})
}

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A `Total Allocated` of -5 made `overview` report a peak of -5 bytes and an average of -15.
/// A negative level is refused naming the file and the byte; a first allocation larger than its
/// total (the level before it below zero) starts from zero, never a negative average.
#[test]
fn negative_allocated_memory_is_refused_and_never_averaged_below_zero() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let step = op("ProfilerStep#1", 0.0, 100.0);
    let bad = write_trace(d, "neg.json", vec![step.clone(), memory(20.0, -5, 10)]);
    let err = common::fails(&["overview", text(&bad), text(&bad)]);
    assert!(err.contains("'Total Allocated' -5 is negative"), "{err}");
    assert!(err.contains("neg.json") && err.contains("byte"), "{err}");
    let odd = write_trace(d, "odd.json", vec![step, memory(50.0, 5, 20)]);
    let v = common::json(&["overview", text(&odd), text(&odd)]);
    let s = v.to_string();
    for key in ["peak_allocated_bytes", "avg_allocated_bytes"] {
        let mut found = 0;
        walk(&v, &mut |k, x| {
            if k == key {
                found += 1;
                assert!(x.as_i64().is_none_or(|n| n >= 0), "{key} {x}: {s}");
            }
        });
        assert!(found > 0, "{key} in {s}");
    }
}

/// Calls `f` with every (key, value) of `v`, at any depth.
fn walk(v: &Value, f: &mut dyn FnMut(&str, &Value)) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                f(k, x);
                walk(x, f);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, f)),
        _ => {}
    }
}
