//! rocprofv3's JSON (`fixtures/rocprof/`, written by `scripts/make_rocprof_fixtures.py` in
//! rocprofiler-sdk's own layout): the kernels view agrees with the file's own records, the
//! commands work on a pair and on a mixed pair with a Kineto trace, the layout before streams
//! were traced reads alike, and bad files are refused in one line naming the file and place.

use crate::common::{error_line, json, run};
use std::collections::BTreeMap;
use tempfile::TempDir;

const CONTROL: &str = "fixtures/rocprof/control.json";
const TEST: &str = "fixtures/rocprof/test.json";

/// Per name: calls and summed ns, straight from the file's records (kernels by their demangled
/// name, else the symbol without `.kd`; copies by their ends' agent types).
fn by_records(path: &str) -> BTreeMap<String, (u64, i64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let process = &file["rocprofiler-sdk-tool"][0];
    let mut names = BTreeMap::new();
    for k in process["kernel_symbols"].as_array().unwrap() {
        let name = k["demangled_kernel_name"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| k["kernel_name"].as_str().unwrap().trim_end_matches(".kd").to_string());
        names.insert(k["kernel_id"].as_u64().unwrap(), name);
    }
    let gpu = |agent: &serde_json::Value| {
        process["agents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == *agent && a["type"] == 2)
    };
    let mut out: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    let records = &process["buffer_records"];
    let span = |r: &serde_json::Value| r["end_timestamp"].as_i64().unwrap() - r["start_timestamp"].as_i64().unwrap();
    for r in records["kernel_dispatch"].as_array().unwrap() {
        let name = names[&r["dispatch_info"]["kernel_id"].as_u64().unwrap()].clone();
        let e = out.entry(name).or_default();
        *e = (e.0 + 1, e.1 + span(r));
    }
    for r in records["memory_copy"].as_array().unwrap() {
        let word = |gpu: bool| if gpu { ("D", "Device") } else { ("H", "Host") };
        let (s, d) = (word(gpu(&r["src_agent_id"])), word(gpu(&r["dst_agent_id"])));
        let e = out
            .entry(format!("Memcpy {}to{} ({} -> {})", s.0, d.0, s.1, d.1))
            .or_default();
        *e = (e.0 + 1, e.1 + span(r));
    }
    out
}

#[test]
fn kernels_of_a_pair_equal_the_files_own_records() {
    let v = json(&["kernels", CONTROL, TEST]);
    let rows = v["rows"].as_array().unwrap();
    for (side, path) in [("control", CONTROL), ("test", TEST)] {
        let expected = by_records(path);
        let got: BTreeMap<String, (u64, i64)> = rows
            .iter()
            .filter(|r| r[format!("{side}_calls")].as_u64().unwrap_or(0) > 0)
            .map(|r| {
                let us = r[format!("{side}_device_total_us")].as_f64().unwrap();
                let calls = r[format!("{side}_calls")].as_u64().unwrap();
                (
                    r["name"].as_str().unwrap().to_string(),
                    (calls, (us * 1000.0).round() as i64),
                )
            })
            .collect();
        assert_eq!(got, expected, "{side}");
    }
    // The file of the layout before streams were traced holds the same kernels and copies.
    let v = json(&["kernels", CONTROL, "fixtures/rocprof/old_layout.json"]);
    for r in v["rows"].as_array().unwrap() {
        assert_eq!(r["control_calls"], r["test_calls"], "{r}");
        assert_eq!(r["control_device_total_us"], r["test_device_total_us"], "{r}");
    }
}

#[test]
fn compare_overview_gate_explain_and_kernel_views_work_on_a_pair() {
    let v = json(&["compare", CONTROL, TEST]);
    let names: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    for name in [
        "hipLaunchKernel",
        "hipMemcpyAsync",
        "hipStreamSynchronize",
        "aten::mm",
        "aten::add_",
        "forward",
        "Memcpy HtoD (Host -> Device)",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    // Marks, the compiler's calls and emit_nvtx's sequence numbers are not rows.
    assert!(
        !names
            .iter()
            .any(|n| n.contains("seq =") || *n == "checkpoint" || n.starts_with("__hip")),
        "{names:?}"
    );
    let text = json(&["overview", CONTROL, TEST]).to_string();
    assert!(text.contains("AMD Instinct MI300X"), "{text}");
    let r = run(&["gate", CONTROL, TEST, "--max-op-regression", "10%"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("gate: FAIL: op time (2 ops)"), "{}", r.stdout);
    assert_eq!(run(&["gate", CONTROL, CONTROL, "--max-op-regression", "10%"]).code, 0);
    // Kernels are joined to the operators that launched them through the HIP calls'
    // correlation ids.
    let r = run(&["explain", CONTROL, TEST]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("aten::mm  +100 µs/step (+50.0%)"), "{}", r.stdout);
    assert!(
        r.stdout.contains("kernels: 1.00 → 2.00 kernels per call"),
        "{}",
        r.stdout
    );
    let v = json(&["kernels", CONTROL, TEST, "--by-class"]);
    let classes: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(classes, ["gemm", "elementwise", "copy"]);
    let r = run(&["kernels", CONTROL, TEST, "--aligned"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("stream group 0: control: stream 0, prefix 1, layer of 1 ×2, suffix 1; test: stream 0, prefix 1, layer of 1 ×3, suffix 1"),
        "{}",
        r.stdout
    );
    let r = run(&["kernels", CONTROL, TEST, "--by-operator", "--width", "200"]);
    assert!(
        r.stdout.contains("aten::mm → Cijk_Alik_Bljk_SB_MT128x128x16"),
        "{}",
        r.stdout
    );
    // A roctx range of the user's names the steps with --step-marker.
    let r = run(&["kernels", CONTROL, "--step-marker", "^forward$"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("steps 0–2"), "{}", r.stdout);
}

#[test]
fn a_mixed_pair_of_kineto_and_rocprofv3_compares_with_a_note() {
    let r = run(&["compare", "fixtures/basic/control/trace.json", TEST]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("tracediff: note: control is Kineto JSON and test rocprofv3 JSON: kernels, copies, sets and HIP runtime calls mean the same on both; operators and annotations are the roctx ranges of the file"),
        "{}",
        r.stderr
    );
    let r = run(&["compare", CONTROL, TEST]);
    assert!(!r.stderr.contains("mean the same"), "{}", r.stderr);
}

#[test]
fn a_folder_of_rank_files_reads_each_as_its_rank() {
    let dir = TempDir::new().unwrap();
    let side = dir.path().join("job");
    std::fs::create_dir(&side).unwrap();
    std::fs::copy(CONTROL, side.join("rank0_results.json")).unwrap();
    std::fs::copy(TEST, side.join("rank1_results.json")).unwrap();
    let s = side.to_str().unwrap();
    let v = json(&["overview", s, s, "--rank", "all"]);
    assert_eq!(v["control"]["ranks"], 2, "{v}");
}

#[test]
fn bad_files_are_refused_naming_the_file_and_the_place() {
    let dir = TempDir::new().unwrap();
    let bare = dir.path().join("bare.json");
    std::fs::write(&bare, br#"{"rocprofiler-sdk-tool": [{"metadata": {"pid": 1}}]}"#).unwrap();
    let bare = bare.to_str().unwrap();
    let cases = [
        (
            "fixtures/rocprof/bad/truncated.json",
            "rocprofv3's JSON: EOF while parsing an object at line 1 column 19148",
        ),
        (
            "fixtures/rocprof/bad/unknown_kernel.json",
            "rocprofv3's JSON: rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[4]: kernel_id 99 is not in kernel_symbols",
        ),
        (
            "fixtures/rocprof/bad/no_records.json",
            "rocprofv3's JSON: rocprofiler-sdk-tool[0]: no buffer_records (trace with rocprofv3 --kernel-trace, --hip-trace or --marker-trace and --output-format json)",
        ),
        (
            bare,
            "rocprofv3's JSON: rocprofiler-sdk-tool[0]: no buffer_records (trace with rocprofv3 --kernel-trace, --hip-trace or --marker-trace and --output-format json)",
        ),
        (
            "fixtures/rocprof/two_processes.json",
            "rocprofv3's JSON holds the GPU work of 2 processes (pids 4242, 4343), one per rank: pass one file per process (rocprofv3 writes one, %pid%_results.json, unless -o names them alike) in a folder",
        ),
    ];
    for (path, expected) in cases {
        let r = run(&["kernels", path]);
        assert_eq!(r.code, 2, "{path}: {}", r.stderr);
        assert_eq!(error_line(&r), format!("tracediff: {expected} ({path})"));
    }
}
