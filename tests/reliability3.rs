//! The third reliability audit's findings (issue 54): each test builds a small input shaped like
//! the case that showed the defect and checks what the tool promises instead.

use crate::common;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Writes `{"traceEvents": events}` as `name` in `dir`.
pub(crate) fn write_trace(dir: &Path, name: &str, events: Vec<Value>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, json!({ "traceEvents": events }).to_string()).unwrap();
    path
}

/// A CPU op (times in µs).
pub(crate) fn op(name: &str, ts: f64, dur: f64) -> Value {
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

/// `--iteration 1-18446744073709551615` said "is not a number" and `--top 99999999999999999999`
/// "number too large to fit in target type". Every numeric flag says that the value is out of
/// range and what the range is.
#[test]
fn numeric_flags_out_of_range_say_so_and_name_the_range() {
    let dir = TempDir::new().unwrap();
    let p = write_trace(dir.path(), "t.json", vec![op("ProfilerStep#1", 0.0, 100.0)]);
    let t = text(&p);
    let cases: [(&[&str], &str); 7] = [
        (
            &["operators", "--iteration", "1-18446744073709551615"],
            "9223372036854775807",
        ),
        (&["operators", "--rank", "99999999999999999999"], "9223372036854775807"),
        (
            &["operators", "--control-iteration=-99999999999999999999"],
            "-9223372036854775808",
        ),
        (&["operators", "--top", "99999999999999999999"], "18446744073709551615"),
        (&["modules", "--depth", "99999999999999999999"], "18446744073709551615"),
        (&["plot", "--width", "4294967296", "-o", "x.png"], "4294967295"),
        (
            &["gate", "--max-step-time-regression", "5%", "--noise-k", "1e999"],
            "finite",
        ),
    ];
    for (args, range) in cases {
        let r = common::run(&[args, &[t, t]].concat());
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        let first = r.stderr.lines().next().unwrap_or("");
        assert!(
            first.contains("is out of range") && first.contains(range),
            "{args:?}: {first}"
        );
        assert!(
            !r.stderr.contains("is not a number") && !r.stderr.contains("target type"),
            "{}",
            r.stderr
        );
    }
}

/// `max_count_increase = ["2"]` said "data did not match any variant of untagged enum
/// TextOrNumber" and `noise_k = nan` "invalid noise k NaN", without the file or the key. Every
/// config error names the file, the key and the line, in the words a user writes TOML in.
#[test]
fn gate_config_errors_name_the_file_key_and_line_in_user_words() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let p = write_trace(d, "t.json", vec![op("ProfilerStep#1", 0.0, 100.0)]);
    let cases = [
        (
            "max_count_increase = [\"2\"]",
            "expected a number or a string such as \"10%\"",
        ),
        ("noise_k = nan", "expected a finite number ≥ 0"),
        ("noise_k = inf", "expected a finite number ≥ 0"),
        ("noise_k = \"3\"", "expected a number"),
        ("max_op_regression = 5", "needs its % sign"),
        ("min_op_time = true", "expected a number or a string such as \"10%\""),
        ("device = \"gpuu\"", "unknown value"),
    ];
    for (k, (line, want)) in cases.iter().enumerate() {
        let config = d.join(format!("gate{k}.toml"));
        std::fs::write(&config, format!("[gate]\nmax_step_time_regression = \"5%\"\n{line}\n")).unwrap();
        let err = common::fails(&["gate", "--config", text(&config), text(&p), text(&p)]);
        let key = line.split(' ').next().unwrap();
        assert!(err.contains(want), "{line}: {err}");
        assert!(err.contains(&format!("gate{k}.toml")), "{line}: {err}");
        assert!(err.contains(key) && err.contains("line 3"), "{line}: {err}");
        for rust in ["enum", "variant", "f64", "NaN", "sequence"] {
            assert!(!err.contains(rust), "{line}: {err}");
        }
    }
}

/// One serving step annotation per side (vLLM's `execute_N_context_N(…)_generation_N(…)`, as
/// SGLang traces carry it) that owns a kernel's launch outside any ATen operator.
fn serving_side(dir: &Path, name: &str, tokens: u32) -> PathBuf {
    let step = format!("execute_{tokens}_context_0(sq0sk0)_generation_{tokens}(sq{tokens}sk64)");
    let events = vec![
        json!({"ph": "X", "cat": "user_annotation", "name": step, "pid": 1, "tid": 1, "ts": 0, "dur": 100}),
        json!({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
            "ts": 10, "dur": 5, "args": {"correlation": 1}}),
        json!({"ph": "X", "cat": "kernel", "name": "fused_moe", "pid": 0, "tid": 7, "ts": 20, "dur": 30,
            "args": {"correlation": 1, "stream": 7, "device": 0}}),
    ];
    write_trace(dir, name, events)
}

/// `operators --raw-names` merged the two sides' step annotations into one row
/// `execute_*_context_*(sq*sk*)_generation_*(…) [annotation]`. Under `--raw-names` each keeps
/// its recorded name, in every view that takes the flag (`compare` keys the annotation itself);
/// the default still aligns them.
#[test]
fn raw_names_keep_the_names_of_annotation_owner_rows() {
    let dir = TempDir::new().unwrap();
    let c = serving_side(dir.path(), "c.json", 32);
    let t = serving_side(dir.path(), "t.json", 16);
    let owners = |view: &[&str]| -> Vec<String> {
        let out = common::ok(&[view, &[text(&c), text(&t), "--format", "csv"]].concat());
        let mut rows: Vec<String> = out
            .lines()
            .filter(|l| l.starts_with("execute_"))
            .map(|l| {
                l.split(',')
                    .next()
                    .unwrap()
                    .trim_end_matches(" [annotation]")
                    .to_string()
            })
            .collect();
        rows.sort();
        rows
    };
    let raw = vec![
        "execute_16_context_0(sq0sk0)_generation_16(sq16sk64)".to_string(),
        "execute_32_context_0(sq0sk0)_generation_32(sq32sk64)".to_string(),
    ];
    assert_eq!(owners(&["operators", "--raw-names"]), raw);
    assert_eq!(owners(&["compare", "--no-save", "--raw-names"]), raw);
    assert_eq!(
        owners(&["operators"]),
        vec!["execute_*_context_*(sq*sk*)_generation_*(sq*sk*)".to_string()]
    );
}

/// `events --args all` wrote 0 (an integer column's default) for an event without a key its
/// file has elsewhere, where a file without the key read empty. Both are null now; a declared
/// column keeps its default.
#[test]
fn args_all_leaves_a_key_an_event_lacks_null() {
    let dir = TempDir::new().unwrap();
    let mut with = op("aten::a", 10.0, 5.0);
    with["args"] = json!({"count": 7, "label": "x", "External id": 3});
    let without = op("aten::b", 20.0, 5.0);
    let p = write_trace(dir.path(), "t.json", vec![with, without]);
    let csv = common::ok(&["events", text(&p), "--args", "all", "--format", "csv"]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let at = |row: &Vec<&str>, col: &str| row[header.iter().position(|h| *h == col).unwrap()].to_string();
    let b = rows.iter().find(|r| r.contains(&"aten::b")).unwrap();
    assert_eq!(
        (at(b, "count"), at(b, "label"), at(b, "external_id")),
        (String::new(), String::new(), String::new()),
        "{csv}"
    );
    let a = rows.iter().find(|r| r.contains(&"aten::a")).unwrap();
    assert_eq!(at(a, "count"), "7", "{csv}");
    // A declared column reads its default where the event lacks the key.
    let declared = common::ok(&["events", text(&p), "--arg", "external_id", "--format", "csv"]);
    assert!(
        declared.lines().any(|l| l.contains("aten::b") && l.ends_with(",-1")),
        "{declared}"
    );
}

/// A complete event on thread `tid` of the host (times in µs), with `args`.
fn host(name: &str, cat: &str, ts: i64, dur: i64, tid: i64, args: Value) -> Value {
    json!({"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": 1, "tid": tid, "args": args})
}

/// A gloo DDP step on a GPU, shaped like the H100 pair whose test side read 240 µs of host
/// communication per step: the backward launches a kernel every 20 µs on the autograd thread,
/// where one `gloo:all_reduce` was started and stays open [150,450); two gloo worker threads run
/// theirs, [200,400) and [500,800), each copying its result back to the device with a kernel
/// (`comm_kernel` names it; `collective` names the three).
fn gloo_step(dir: &Path, name: &str, collective: &str, comm_kernel: &str) -> PathBuf {
    let mut ev = vec![host("ProfilerStep#1", "user_annotation", 0, 1000, 1, json!({}))];
    let mut corr = 100;
    let mut launch = |ev: &mut Vec<Value>, tid: i64, ts: i64, kernel: &str| {
        corr += 1;
        ev.push(host(
            "cudaLaunchKernel",
            "cuda_runtime",
            ts,
            3,
            tid,
            json!({"correlation": corr}),
        ));
        ev.push(
            json!({"ph": "X", "name": kernel, "cat": "kernel", "ts": ts + 5, "dur": 4, "pid": 0,
            "tid": 7, "args": {"correlation": corr, "stream": 7, "device": 0}}),
        );
    };
    for t in (10..990).step_by(20) {
        ev.push(host("aten::mm", "cpu_op", t, 6, 2, json!({})));
        launch(&mut ev, 2, t + 1, "backward_kernel");
    }
    ev.push(host(collective, "user_annotation", 150, 300, 2, json!({})));
    for (tid, s, e) in [(3, 200, 400), (4, 500, 800)] {
        ev.push(host(collective, "user_annotation", s, e - s, tid, json!({})));
        ev.push(host("cudaStreamSynchronize", "cuda_runtime", s + 2, 5, tid, json!({})));
        ev.push(host("aten::copy_", "cpu_op", e - 20, 10, tid, json!({})));
        launch(&mut ev, tid, e - 19, comm_kernel);
    }
    write_trace(dir, name, ev)
}

/// Host communication is the union of the host collectives: gloo's, whatever they launch
/// (600 µs here: [150,450) ∪ [200,400) ∪ [500,800)), were host compute wherever a launch call
/// fell inside them on their thread. Only a collective other than gloo's that launches a kernel,
/// in a file with communication kernels (NCCL's), is the device's communication.
#[test]
fn gloo_collectives_that_launch_copies_are_host_communication() {
    let dir = TempDir::new().unwrap();
    let gloo = gloo_step(dir.path(), "gloo.json", "gloo:all_reduce", "elementwise_kernel");
    let v = common::json(&["overview", text(&gloo), text(&gloo)]);
    assert_eq!(v["control"]["host_comm_per_step_us"], 600.0, "{}", v["control"]);
    let idle = &v["control"]["breakdown"]["idle"];
    assert!(
        idle["host_communication_per_step_us"].as_f64().unwrap() > idle["host_compute_per_step_us"].as_f64().unwrap(),
        "{idle}"
    );
    // Even a gloo run whose copies back are NCCL-named kernels: gloo runs on the host.
    let copies = gloo_step(dir.path(), "copies.json", "gloo:all_reduce", "ncclDevKernel_Broadcast");
    let v = common::json(&["overview", text(&copies), text(&copies)]);
    assert_eq!(v["control"]["host_comm_per_step_us"], 600.0, "{}", v["control"]);
    // NCCL's collectives launch their kernels: the device's communication, none on the host.
    let nccl = gloo_step(
        dir.path(),
        "nccl.json",
        "nccl:all_reduce",
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
    );
    let v = common::json(&["overview", text(&nccl), text(&nccl)]);
    assert_eq!(v["control"]["host_comm_per_step_us"], 0.0, "{}", v["control"]);
    // c10d's own operator on gloo (no communication kernel in the file) launching a copy stays
    // host communication.
    let c10d = gloo_step(dir.path(), "c10d.json", "c10d::allreduce_", "elementwise_kernel");
    let v = common::json(&["overview", text(&c10d), text(&c10d)]);
    assert_eq!(v["control"]["host_comm_per_step_us"], 600.0, "{}", v["control"]);
}
