//! Scenarios on the real traces in `../shared/traces` (skipped, with a printed reason, when
//! `../shared` is not beside the repository).

use crate::common;

use common::{json, run};

fn traces() -> Option<std::path::PathBuf> {
    common::traces("the real-trace scenarios")
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn identical_runs_differ_only_by_addresses() {
    let Some(t) = traces() else { return };
    let c = t.join("torch_cpu/identical/control");
    let tt = t.join("torch_cpu/identical/test");
    let (c, tt) = (c.to_str().unwrap(), tt.to_str().unwrap());
    let plain = json(&["compare", c, tt, "--hta"]);
    assert_eq!(plain["summary"]["added"], 23, "HTA also finds 23 added names");
    // By default: the operations, normalised, and nothing added or deleted.
    let first = json(&["compare", c, tt]);
    assert_eq!(
        (first["summary"]["added"].as_u64(), first["summary"]["deleted"].as_u64()),
        (Some(0), Some(0))
    );
    let normalized = json(&["compare", c, tt, "--python-frames", "--iteration", "all"]);
    assert_eq!(normalized["summary"]["added"], 0);
    assert_eq!(normalized["summary"]["deleted"], 0);
    assert_eq!(normalized["summary"]["increased"], 0);
    assert_eq!(normalized["summary"]["decreased"], 0);
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn linear_dims_shows_the_shape_change_with_group_by() {
    let Some(t) = traces() else { return };
    let c = t.join("torch_cpu/linear_dims/control");
    let tt = t.join("torch_cpu/linear_dims/test");
    let v = json(&[
        "compare",
        c.to_str().unwrap(),
        tt.to_str().unwrap(),
        "--group-by",
        "input_dims",
        "--include",
        "^aten::addmm",
        "--sort",
        "name",
    ]);
    let rows: Vec<(String, String)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["category"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    // Without --group-by aten::addmm is one unchanged row; with it, old shapes go, new ones come.
    assert!(rows.contains(&(
        "aten::addmm [input_dims=[[100],[16,128],[128,100],[],[]]]".into(),
        "deleted".into()
    )));
    assert!(rows.contains(&(
        "aten::addmm [input_dims=[[1024],[16,2048],[2048,1024],[],[]]]".into(),
        "added".into()
    )));
    assert!(
        rows.iter().all(|(_, cat)| cat == "added" || cat == "deleted"),
        "{rows:?}"
    );
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn every_edge_trace_loads() {
    let Some(t) = traces() else { return };
    for entry in std::fs::read_dir(t.join("edge")).unwrap() {
        let p = entry.unwrap().path();
        let p = p.to_str().unwrap();
        let v = json(&["compare", p, p, "--no-save"]);
        let s = &v["summary"];
        assert!(s["rows"].as_u64().unwrap() > 0, "{p}");
        assert_eq!(s["rows"], s["unchanged"], "{p} against itself");
    }
}

fn gate(args: &[&str]) -> (i32, String) {
    let mut all = vec!["gate"];
    all.extend_from_slice(args);
    let r = run(&all);
    // The harness's terminal is 100 columns wide: headers wrap, their continuations indented by
    // two; the tests read them as the one line they are.
    (r.code, r.stdout.replace("\n  ", " "))
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn gate_on_identical_runs_passes_count_rules_and_shows_the_spread() {
    let Some(t) = traces() else { return };
    let c = t.join("torch_cpu/identical/control");
    let tt = t.join("torch_cpu/identical/test");
    let (code, out) = gate(&[
        c.to_str().unwrap(),
        tt.to_str().unwrap(),
        "--normalize-names",
        "--fail-on-added",
        ".",
        "--fail-on-deleted",
        ".",
        "--max-count-increase",
        "0",
    ]);
    assert_eq!(code, 0, "{out}");
    // Both sides' step-time spread is reported (min, max, MAD over the three steps).
    assert!(
        out.contains("baseline: ") && out.contains("step time median") && out.contains("MAD"),
        "{out}"
    );
    assert!(out.contains("over 3 samples"), "{out}");
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn gate_on_loss_fn_fails_the_deleted_exp() {
    let Some(t) = traces() else { return };
    let (code, out) = gate(&[
        t.join("torch_cpu/loss_fn/control").to_str().unwrap(),
        t.join("torch_cpu/loss_fn/test").to_str().unwrap(),
        "--fail-on-deleted",
        "aten::exp",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("gate: FAIL: fail on deleted"), "{out}");
}

/// The overview's inputs (`[memory]` instants, `deviceProperties`, `args.device`) as the
/// traces hold them, counted independently with serde_json.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn memory_instants_and_devices_are_captured_from_real_traces() {
    let Some(t) = traces() else { return };
    for rel in [
        "tracelens_bert_small/h100/gaunernst_bert-small-uncased__1016001.json.gz",
        "tracelens_bert_small/mi300/gaunernst_bert-small-uncased__1016001.json.gz",
        "kineto_resnet50_workers/w0/worker0.1623143089861.pt.trace.json.gz",
        "torch_cpu/linear_dims/control/linear_dims_control.pt.trace.json.gz",
    ] {
        let path = t.join(rel);
        let file =
            tracediff_trace::input::load::load_file(&path, &tracediff_trace::input::attrs::AttrRequest::default())
                .unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap()),
            &mut text,
        )
        .unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        let events = doc["traceEvents"].as_array().unwrap();
        let memory: Vec<&serde_json::Value> = events
            .iter()
            .filter(|e| e["name"] == "[memory]" && e.get("dur").is_none())
            .collect();
        assert_eq!(file.memory.len(), memory.len(), "{rel}");
        for (row, e) in memory.iter().enumerate() {
            let sample = file.memory.get(row);
            assert_eq!(sample.total_allocated, e["args"]["Total Allocated"].as_i64(), "{rel}");
            assert_eq!(Some(sample.bytes), e["args"]["Bytes"].as_i64(), "{rel}");
            assert_eq!(
                Some(i64::from(sample.device_id)),
                e["args"]["Device Id"].as_i64(),
                "{rel}"
            );
        }
        let names: Vec<&str> = doc["deviceProperties"]
            .as_array()
            .map(|a| a.iter().filter_map(|d| d["name"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(
            file.devices.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(),
            names,
            "{rel}"
        );
        let with_device = events
            .iter()
            .filter(|e| e.get("dur").is_some() && e.get("cat").is_some_and(|c| c != "Trace"))
            .filter(|e| e["args"]["device"].is_i64())
            .count() as u64;
        assert_eq!(
            file.device_use.iter().map(|(_, n)| n).sum::<u64>(),
            with_device,
            "{rel}"
        );
    }
}

/// Counts of (status, kind, key) over a `modules --format json` tree (matched and unknown by
/// status alone).
fn module_changes(root: &serde_json::Value) -> std::collections::BTreeMap<String, usize> {
    fn walk(n: &serde_json::Value, out: &mut std::collections::BTreeMap<String, usize>) {
        let status = n["status"].as_str().unwrap_or("");
        let key = match status {
            "added" | "deleted" => format!(
                "{status} {} {}",
                n["kind"].as_str().unwrap_or(""),
                n["key"].as_str().unwrap_or("")
            ),
            other => other.to_string(),
        };
        *out.entry(key).or_insert(0) += 1;
        for c in n["children"].as_array().into_iter().flatten() {
            walk(c, out);
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(root, &mut out);
    out
}

#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn modules_on_real_cpu_runs_align_as_the_model_says() {
    let Some(t) = traces() else { return };
    let pair = |s: &str| {
        let c = t.join(format!("torch_cpu/{s}/control"));
        let tt = t.join(format!("torch_cpu/{s}/test"));
        json(&["modules", c.to_str().unwrap(), tt.to_str().unwrap()])
    };
    // fused_op: every hand-written LayerNorm is deleted and an nn.LayerNorm added in its place,
    // in the forward and (placed by the fwdbwd flows) in the backward; nothing else changes.
    let fused = module_changes(&pair("fused_op"));
    let changed: Vec<(&String, &usize)> = fused
        .iter()
        .filter(|(k, _)| k.starts_with("added") || k.starts_with("deleted"))
        .collect();
    assert_eq!(
        changed,
        vec![
            (&"added backward LayerNorm.backward".to_string(), &32),
            (&"added module LayerNorm".to_string(), &32),
            (&"deleted backward ManualLayerNorm.backward".to_string(), &32),
            (&"deleted module ManualLayerNorm".to_string(), &32)
        ]
    );
    // linear_dims: every module matched, and the Linear layers take longer.
    let linear = pair("linear_dims");
    let changes = module_changes(&linear);
    assert!(changes.keys().all(|k| k == "matched" || k == "unknown"), "{changes:?}");
    fn linear_host(n: &serde_json::Value, side: &str, key: &str) -> f64 {
        let own = if n["key"] == key {
            n[side]["host_total_us"].as_f64().unwrap_or(0.0)
        } else {
            0.0
        };
        own + n["children"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| linear_host(c, side, key))
            .sum::<f64>()
    }
    for key in ["Linear", "Linear.backward"] {
        assert!(linear_host(&linear, "test", key) > 2.0 * linear_host(&linear, "control", key));
    }
    // A run against its rerun: the same model, everything matched.
    let same = module_changes(&pair("identical"));
    assert!(same.keys().all(|k| k == "matched" || k == "unknown"), "{same:?}");
    // The flows place most of the backward time on modules (the rest: the loss, AccumulateGrad).
    for s in [
        "fused_op",
        "linear_dims",
        "loss_fn",
        "precision",
        "identical",
        "multi_rank",
    ] {
        let placed = &pair(s)["compared"]["backward_placed"];
        for side in ["control", "test"] {
            let share =
                placed[side]["placed_host_us"].as_f64().unwrap() / placed[side]["backward_host_us"].as_f64().unwrap();
            assert!(share > 0.75, "{s} {side}: {share}");
        }
    }
}

/// The gzipped trace that is the only file of `dir`, read with serde_json.
fn only_trace(dir: &std::path::Path) -> serde_json::Value {
    let file = std::fs::read_dir(dir).unwrap().next().unwrap().unwrap().path();
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&file).unwrap()),
        &mut text,
    )
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Every module node's host time is its own nn.Module event's duration, and per module class
/// the tree holds exactly the trace's events of the selected step (read here with serde_json).
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn module_node_times_are_the_traces_own_module_events() {
    let Some(t) = traces() else { return };
    for dir in ["torch_cpu/fused_op/control", "tracelens_bert_small/h100"] {
        let d = t.join(dir);
        let doc = only_trace(&d);
        let events = doc["traceEvents"].as_array().unwrap();
        // The lowest host ProfilerStep's window.
        let step = events
            .iter()
            .filter(|e| {
                e["cat"] == "user_annotation" && e["name"].as_str().is_some_and(|n| n.starts_with("ProfilerStep#"))
            })
            .min_by_key(|e| e["name"].as_str().unwrap()[13..].parse::<i64>().unwrap())
            .unwrap();
        // That step alone: every step is the default, its values per step.
        let number = &step["name"].as_str().unwrap()[13..];
        let root = json(&[
            "modules",
            d.to_str().unwrap(),
            d.to_str().unwrap(),
            "--iteration",
            number,
        ]);
        let (s0, s1) = (
            step["ts"].as_f64().unwrap(),
            step["ts"].as_f64().unwrap() + step["dur"].as_f64().unwrap(),
        );
        let mut expected: std::collections::BTreeMap<String, (usize, i64)> = Default::default();
        for e in events {
            let name = e["name"].as_str().unwrap_or("");
            let ts = e["ts"].as_f64().unwrap_or(-1.0);
            if e["cat"] == "python_function" && name.starts_with("nn.Module: ") && ts >= s0 && ts < s1 {
                let class = name[11..].rsplit_once('_').map_or(&name[11..], |(c, _)| c).to_string();
                let entry = expected.entry(class).or_default();
                entry.0 += 1;
                entry.1 += (e["dur"].as_f64().unwrap() * 1000.0).round() as i64;
            }
        }
        let mut found: std::collections::BTreeMap<String, (usize, i64)> = Default::default();
        fn walk(n: &serde_json::Value, found: &mut std::collections::BTreeMap<String, (usize, i64)>) {
            if n["kind"] == "module" {
                let e = found.entry(n["key"].as_str().unwrap().to_string()).or_default();
                e.0 += n["control"]["calls"].as_u64().unwrap() as usize;
                e.1 += (n["control"]["host_total_us"].as_f64().unwrap() * 1000.0).round() as i64;
            }
            for c in n["children"].as_array().into_iter().flatten() {
                walk(c, found);
            }
        }
        walk(&root, &mut found);
        assert!(!expected.is_empty(), "{dir}");
        assert_eq!(found, expected, "{dir}");
    }
}

/// Per leaf module class, the `<Class>.backward` nodes hold exactly the autograd operators that a
/// `fwdbwd` flow links to a forward operator inside that class's frames (read here with
/// serde_json, by brute force over the events that contain each flow end).
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn backward_nodes_hold_the_autograd_operators_their_flows_point_at() {
    let Some(t) = traces() else { return };
    let d = t.join("torch_cpu/fused_op/control");
    // The lowest step alone (every step is the default, its values per step).
    let root = json(&["modules", d.to_str().unwrap(), d.to_str().unwrap(), "--iteration", "2"]);
    let doc = only_trace(&d);
    let events = doc["traceEvents"].as_array().unwrap();
    let complete: Vec<&serde_json::Value> = events.iter().filter(|e| e["dur"].is_number()).collect();
    let f = |e: &serde_json::Value, k: &str| e[k].as_f64().unwrap();
    let step = complete
        .iter()
        .filter(|e| e["name"].as_str().is_some_and(|n| n.starts_with("ProfilerStep#")))
        .min_by_key(|e| e["name"].as_str().unwrap()[13..].parse::<i64>().unwrap())
        .unwrap();
    let (s0, s1) = (f(step, "ts"), f(step, "ts") + f(step, "dur"));
    // Flows and operators of the step's window (brute force stays quick).
    let complete: Vec<&serde_json::Value> = complete
        .into_iter()
        .filter(|e| f(e, "ts") <= s1 && f(e, "ts") + f(e, "dur") >= s0)
        .collect();
    let containing = |tid: &serde_json::Value, ts: f64| -> Vec<&serde_json::Value> {
        complete
            .iter()
            .copied()
            .filter(|e| &e["tid"] == tid && f(e, "ts") <= ts && ts <= f(e, "ts") + f(e, "dur"))
            .collect()
    };
    let flows = |ph: &str| {
        events
            .iter()
            .filter(|e| e["cat"] == "fwdbwd" && e["ph"] == ph && (s0..s1).contains(&f(e, "ts")))
            .map(|e| (e["id"].as_u64().unwrap(), e))
            .collect::<std::collections::BTreeMap<u64, &serde_json::Value>>()
    };
    let (starts, finishes) = (flows("s"), flows("f"));
    let mut expected: std::collections::BTreeMap<String, i64> = Default::default();
    for (id, fin) in &finishes {
        let ts = f(fin, "ts");
        let Some(start) = starts.get(id) else { continue };
        let Some(op) = containing(&fin["tid"], ts).into_iter().find(|e| {
            e["name"]
                .as_str()
                .unwrap()
                .starts_with("autograd::engine::evaluate_function: ")
        }) else {
            continue;
        };
        if !(f(op, "ts") >= s0 && f(op, "ts") < s1) {
            continue;
        }
        let module = containing(&start["tid"], f(start, "ts"))
            .into_iter()
            .filter(|e| e["name"].as_str().unwrap().starts_with("nn.Module: "))
            .max_by(|a, b| f(a, "ts").total_cmp(&f(b, "ts")));
        if let Some(m) = module {
            let name = &m["name"].as_str().unwrap()[11..];
            let class = name.rsplit_once('_').map_or(name, |(c, _)| c);
            *expected.entry(format!("{class}.backward")).or_default() += (f(op, "dur") * 1000.0).round() as i64;
        }
    }
    let mut found: std::collections::BTreeMap<String, i64> = Default::default();
    fn walk(n: &serde_json::Value, found: &mut std::collections::BTreeMap<String, i64>) {
        let key = n["key"].as_str().unwrap();
        if n["kind"] == "backward" && key != "backward" {
            // A node's own share: its time less its `.backward` children's.
            let kids: f64 = n["children"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| c["kind"] == "backward")
                .map(|c| c["control"]["host_total_us"].as_f64().unwrap())
                .sum();
            let own = n["control"]["host_total_us"].as_f64().unwrap() - kids;
            *found.entry(key.to_string()).or_default() += (own * 1000.0).round() as i64;
        }
        for c in n["children"].as_array().into_iter().flatten() {
            walk(c, found);
        }
    }
    walk(&root, &mut found);
    assert!(expected.len() >= 3, "{expected:?}");
    for (class, ns) in &expected {
        let got = found.get(class).copied().unwrap_or(0);
        assert!((got - ns).abs() <= 2, "{class}: tree {got} ns, trace {ns} ns");
    }
}

/// The shipped example gate passes runs of one program and fails real slowdowns; no run fails
/// on a Python frame.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn the_example_gate_passes_identical_runs_and_fails_real_slowdowns() {
    let Some(t) = traces() else { return };
    let side = |p: &str| t.join(p).to_str().unwrap().to_string();
    let gate = |base: &str, cand: &str, extra: &[&str]| {
        let (b, c) = (side(base), side(cand));
        let mut args = vec!["gate", &b, &c];
        args.extend_from_slice(extra);
        let r = run(&args);
        assert!(r.code == 0 || r.code == 1, "{base} vs {cand}: {}", r.stderr);
        (r.code, r.stdout)
    };
    let config = ["--config", "examples/tracediff-gate.toml"];
    for (base, cand, want) in [
        // The same program twice: on a CPU whose second run was ×1.44 slower throughout (the
        // step time is judged beyond that run-wide shift), either way round...
        ("torch_cpu/identical/control", "torch_cpu/identical/test", 0),
        ("torch_cpu/identical/test", "torch_cpu/identical/control", 0),
        // ...and on the H100 (the fp32 transformer of two scenarios: step time ±0.7%).
        ("gpu_h100/attention/test", "gpu_h100/precision/control", 0),
        ("gpu_h100/precision/control", "gpu_h100/attention/test", 0),
        ("gpu_h100/resnet/control", "gpu_h100/resnet/control", 0),
        ("gpu_h100/vit_precision/control", "gpu_h100/vit_precision/control", 0),
        // ResNet-50 → ResNet-152.
        ("gpu_h100/resnet/control", "gpu_h100/resnet/test", 1),
        // bf16 → fp32: the slower direction.
        ("gpu_h100/vit_precision/test", "gpu_h100/vit_precision/control", 1),
        ("gpu_h100/precision/test", "gpu_h100/precision/control", 1),
        // A slower step time on a CPU, where the GPU rules have nothing to judge: LayerNorm/GELU
        // fused → written out from elementwise ops (+111%, the rows that ran as often ×1.03).
        ("torch_cpu/fused_op/test", "torch_cpu/fused_op/control", 1),
        // bf16 → fp32 on a CPU (+26%) moved every row alike (the median row ×1.45, as a rerun
        // of `identical` moved ×1.44): with one run per side the step is judged beyond that
        // common move and passes; judged against no change it fails.
        ("torch_cpu/precision/test", "torch_cpu/precision/control", 0),
    ] {
        let (code, out) = gate(base, cand, &config);
        assert_eq!(code, want, "{base} vs {cand}:\n{out}");
    }
    let mut plain = config.to_vec();
    plain.push("--no-run-shift");
    let (code, out) = gate("torch_cpu/precision/test", "torch_cpu/precision/control", &plain);
    assert_eq!(code, 1, "{out}");
    // Whatever the thresholds, a Python frame is never judged.
    let (code, out) = gate(
        "gpu_h100/resnet/control",
        "gpu_h100/resnet/test",
        &["--max-op-regression", "10%", "--min-op-share", "0%", "--format", "csv"],
    );
    assert_eq!(code, 1);
    for line in out.lines().filter(|l| l.starts_with("op time,")) {
        assert!(
            !line.contains("nn.Module:") && !line.contains(".py(") && !line.contains("<built-in"),
            "{line}"
        );
    }
}

/// H100 against MI300: the vendors' kernels share almost no names, and a note says so.
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn sides_that_share_few_names_get_a_comparability_note() {
    let Some(t) = traces() else { return };
    let (c, tt) = (
        t.join("tracelens_bert_small/h100"),
        t.join("tracelens_bert_small/mi300"),
    );
    let r = run(&["compare", c.to_str().unwrap(), tt.to_str().unwrap(), "--no-save"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("note: the sides share few names: 14% of control's device time and 13% of test's"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("`kernels --by-operator` and `modules`"),
        "{}",
        r.stderr
    );
    // Two runs of one program share their names: no note.
    let (c, tt) = (
        t.join("torch_cpu/identical/control"),
        t.join("torch_cpu/identical/test"),
    );
    let r = run(&["compare", c.to_str().unwrap(), tt.to_str().unwrap(), "--no-save"]);
    assert!(!r.stderr.contains("share few names"), "{}", r.stderr);
}

/// The same CPU program twice, the second run on a slower host: the whole run moved by one
/// factor, `compare` says so and judges rows beyond it (`--no-run-shift`: against no change);
/// a change of the program (fp32 → bf16, a larger MLP, another DDP bucket size, another loss)
/// gets no such note (docs/significance.md#a-run-wide-shift).
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
#[test]
fn a_run_wide_shift_is_named_and_a_program_change_is_not() {
    let Some(t) = traces() else { return };
    let pair = |name: &str| common::sides(&t.join("torch_cpu").join(name));
    let significant = |v: &serde_json::Value| {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["significant"] == true)
            .count()
    };
    let [c, tt] = pair("identical");
    let r = run(&["compare", &c, &tt, "--iteration", "all", "--no-save"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("the whole run moved: on host, test runs 44% slower than control")
            && r.stderr.contains("rows are judged against it"),
        "{}",
        r.stderr
    );
    let v = json(&["compare", &c, &tt, "--iteration", "all", "--no-save"]);
    let factor = v["run_shift"]["host"]["factor"].as_f64().unwrap();
    assert!((1.4..1.5).contains(&factor), "{factor}");
    assert!(v["run_shift"]["device"].is_null());
    assert_eq!(v["run_shift"]["applied"], true);
    // Beyond the shift and how far rows scatter around it (the large rows' own factors lie
    // from ×1.12 to ×1.44): nothing. AccumulateGrad, ×2.0 where the run is ×1.44, is within
    // e^(3 × spread) of it.
    let spread = v["run_shift"]["host"]["spread"].as_f64().unwrap();
    assert!((0.2..0.3).contains(&spread), "{spread}");
    assert_eq!(significant(&v), 0, "{v}");
    let plain = json(&["compare", &c, &tt, "--iteration", "all", "--no-save", "--no-run-shift"]);
    assert_eq!(plain["run_shift"]["applied"], false);
    // The step and AccumulateGrad twice (Optimizer.step moved in its mean, not in its median).
    assert_eq!(significant(&plain), 3);
    for name in ["precision", "linear_dims", "loss_fn", "fused_op", "multi_rank"] {
        let [c, tt] = pair(name);
        let v = json(&["compare", &c, &tt, "--iteration", "all", "--rank", "all", "--no-save"]);
        assert!(v["run_shift"]["host"].is_null(), "{name}: {}", v["run_shift"]);
        assert_eq!(v["run_shift"]["applied"], false, "{name}");
    }
}
