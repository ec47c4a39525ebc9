//! rocprofv3's JSON (`fixtures/rocprof/`, written by `scripts/make_rocprof_fixtures.py` in
//! rocprofiler-sdk's own layout): the kernels view agrees with the file's own records, the
//! commands work on a pair and on a mixed pair with a Kineto trace, the layout before streams
//! were traced reads alike, a file of several processes reads as one rank per process, and
//! bad files are refused in one line naming the file and place.

use crate::common::{error_line, json, run};
use crate::ranks_in_one_file::{RankFiles, a_dataset_is_one_summary_per_rank, each_rank_reads_as_a_folder_of_ranks};
use std::collections::BTreeMap;
use tempfile::TempDir;

const CONTROL: &str = "fixtures/rocprof/control.json";
const TEST: &str = "fixtures/rocprof/test.json";
/// One file of a job of two ranks: pid 4343 (test's steps, GPU 1, first in the file and
/// starting earlier), a launcher (pid 4100) without GPU work, and pid 4242 (control's steps,
/// GPU 0).
const TWO: &str = "fixtures/rocprof/two_processes.json";

/// The fixtures of the checks every format of several ranks in one file passes.
const FILES: RankFiles = RankFiles {
    control: CONTROL,
    test: TEST,
    two: TWO,
    rank_file: |r| format!("rank{r}_results.json"),
    device: "AMD Instinct MI300X",
};

/// Per name: calls and summed ns, straight from the file's records (kernels by their demangled
/// name, else the symbol without `.kd`; copies by their ends' agent types).
fn by_records(path: &str) -> BTreeMap<String, (u64, i64)> {
    by_records_of(path, None)
}

/// [`by_records`] of the process `pid` only, where given, else of every process.
fn by_records_of(path: &str, pid: Option<u64>) -> BTreeMap<String, (u64, i64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut out: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    for process in file["rocprofiler-sdk-tool"].as_array().unwrap() {
        if pid.is_some_and(|p| process["metadata"]["pid"].as_u64() != Some(p)) {
            continue;
        }
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
        let records = &process["buffer_records"];
        let span =
            |r: &serde_json::Value| r["end_timestamp"].as_i64().unwrap() - r["start_timestamp"].as_i64().unwrap();
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
    }
    out
}

/// Per name: the calls and summed ns of `side` in the kernels view's JSON `v`.
fn by_view(v: &serde_json::Value, side: &str) -> BTreeMap<String, (u64, i64)> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r[format!("{side}_calls")].as_u64().unwrap_or(0) > 0)
        .map(|r| {
            let us = r[format!("{side}_device_total_us")].as_f64().unwrap();
            let ns = (us * 1000.0).round() as i64;
            (
                r["name"].as_str().unwrap().to_string(),
                (r[format!("{side}_calls")].as_u64().unwrap(), ns),
            )
        })
        .collect()
}

#[test]
fn kernels_of_a_pair_equal_the_files_own_records() {
    let v = json(&["kernels", CONTROL, TEST]);
    for (side, path) in [("control", CONTROL), ("test", TEST)] {
        assert_eq!(by_view(&v, side), by_records(path), "{side}");
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
    // A file of the folder that cannot be read is refused, naming it and the place, though its
    // rank is left out of the selection: its processes cannot be counted (as an Nsight
    // export's: tests/nsight.rs). It was once taken as one rank and never read.
    std::fs::copy("fixtures/rocprof/bad/truncated.json", side.join("rank1_results.json")).unwrap();
    let bad = side.join("rank1_results.json");
    let expected = format!(
        "tracediff: rocprofv3's JSON: EOF while parsing an object at line 1 column 19148 ({})",
        bad.display()
    );
    for args in [
        &["kernels", s][..],
        &["kernels", s, "--rank", "all"],
        &["compare", s, s, "--rank", "0"],
    ] {
        assert_eq!(error_line(&run(args)), expected, "{args:?}");
    }
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
    ];
    for (path, expected) in cases {
        let r = run(&["kernels", path]);
        assert_eq!(r.code, 2, "{path}: {}", r.stderr);
        assert_eq!(error_line(&r), format!("tracediff: {expected} ({path})"));
    }
}

/// A file of two processes is two ranks, by pid: rank 0 is pid 4242 though pid 4343 comes
/// first and starts earlier; each rank's kernels and copies equal its process's records, and
/// `--rank all` both processes' (the launcher, without GPU work, is no rank).
#[test]
fn a_file_of_two_processes_reads_as_two_ranks_by_pid() {
    let v = json(&["kernels", TWO, TWO, "--control-rank", "0", "--test-rank", "1"]);
    assert_eq!(by_view(&v, "control"), by_records_of(TWO, Some(4242)));
    assert_eq!(by_view(&v, "test"), by_records_of(TWO, Some(4343)));
    // The processes differ (the GEMM 50% slower, one more elementwise kernel per step).
    assert_ne!(by_records_of(TWO, Some(4242)), by_records_of(TWO, Some(4343)));
    let v = json(&["kernels", TWO, TWO, "--rank", "all"]);
    assert_eq!(by_view(&v, "control"), by_records(TWO));
    let r = run(&["compare", TWO, TWO, "--rank", "all"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .starts_with(&format!("control: {TWO} (ranks 0–1, steps 1–3)\n")),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains(&format!(
            "tracediff: note: {TWO} holds the GPU work of 2 processes: read as ranks 0–1, in the order of their pids"
        )),
        "{}",
        r.stderr
    );
    // The launcher's range is left out with its process.
    assert!(!r.stdout.contains("torchrun"), "{}", r.stdout);
    // By default the lowest rank, as of a folder of ranks; a rank the file lacks is named.
    let out = run(&["compare", TWO, CONTROL]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with(&format!("control: {TWO} (rank 0, steps 1–3; 1 of 2 ranks)\n")),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("the sides hold different numbers of ranks: control 2 ranks, test 1 rank; both read rank 0"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("holds the GPU work of 2 processes"),
        "{}",
        out.stderr
    );
    let line = error_line(&run(&["compare", TWO, TWO, "--rank", "2"]));
    assert!(line.contains("no rank 2 (ranks present: 0, 1)"), "{line}");
}

/// compare, overview and gate read each rank of the one file as those of a folder of one file
/// per rank: rank 1 against rank 0 is the test pair against the control (the GEMM slower),
/// each rank with the GPU it ran on.
#[test]
fn compare_overview_and_gate_read_each_rank_of_one_file() {
    each_rank_reads_as_a_folder_of_ranks(&FILES);
}

/// A dataset of a file of two processes is one summary per rank; `summarize` into one file
/// refuses it, saying what to do.
#[test]
fn a_dataset_of_a_file_of_two_processes_is_one_summary_per_rank() {
    let (dir, _) = a_dataset_is_one_summary_per_rank(&FILES);
    let one = dir.path().join("one.parquet");
    let line = error_line(&run(&["summarize", TWO, "--output", one.to_str().unwrap()]));
    assert!(
        line.contains("rocprofv3's JSON holds the GPU work of 2 processes, read as ranks 0–1: pass it as a side"),
        "{line}"
    );
}

/// A file of one process reads as one rank, as before: no note, no rank but its own.
#[test]
fn a_file_of_one_process_is_one_rank() {
    let r = run(&["compare", CONTROL, TEST, "--rank", "all"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("processes"), "{}", r.stderr);
    assert!(
        r.stdout.starts_with(&format!("control: {CONTROL} (rank 0")),
        "{}",
        r.stdout
    );
    let v = json(&["overview", CONTROL, TEST, "--rank", "all"]);
    assert_eq!(v["control"]["ranks"], 1, "{v}");
}
