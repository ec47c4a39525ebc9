//! Nsight Systems SQLite exports (`fixtures/nsight/`, written by
//! `scripts/make_nsight_fixtures.py` from the documented export schema): the kernels view
//! agrees with SQL over the export's own tables, the commands work on a pair of exports and on
//! a mixed pair with a Kineto trace, and what cannot be read is refused in one line.

use crate::common::{error_line, json, run};
use std::collections::BTreeMap;
use std::path::Path;
use tempfile::TempDir;

const CONTROL: &str = "fixtures/nsight/control.sqlite";
const TEST: &str = "fixtures/nsight/test.sqlite";

/// Per name: calls and summed ns, by SQL over the export's device tables (kernels by their
/// demangled name; copies and sets by the names Kineto gives them).
fn by_sql(path: &str) -> BTreeMap<String, (u64, i64)> {
    let db = rusqlite::Connection::open(path).unwrap();
    let mut out = BTreeMap::new();
    for sql in [
        "SELECT s.value, COUNT(*), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value",
        "SELECT 'Memcpy HtoD (Pageable -> Device)', COUNT(*), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1 AND srcKind = 0 AND dstKind = 2",
        "SELECT 'Memset (Device)', COUNT(*), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE memKind = 2",
    ] {
        let mut q = db.prepare(sql).unwrap();
        let rows = q
            .query_map([], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, u64>(1)?, r.get::<_, i64>(2)?))
            })
            .unwrap();
        for row in rows {
            let (name, calls, ns) = row.unwrap();
            out.insert(name, (calls, ns));
        }
    }
    out
}

#[test]
fn kernels_of_an_export_pair_equal_sql_over_its_tables() {
    let v = json(&["kernels", CONTROL, TEST]);
    let rows = v["rows"].as_array().unwrap();
    for (side, path) in [("control", CONTROL), ("test", TEST)] {
        let expected = by_sql(path);
        let got: BTreeMap<String, (u64, i64)> = rows
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
            .collect();
        assert_eq!(got, expected, "{side}");
    }
}

#[test]
fn compare_overview_gate_and_explain_work_on_an_export_pair() {
    let v = json(&["compare", CONTROL, TEST]);
    let names: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    // Runtime calls lose nsys's version suffix; emit_nvtx ranges lose their sequence numbers.
    for name in [
        "cudaLaunchKernel",
        "aten::mm",
        "aten::add_",
        "forward",
        "Memset (Device)",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    assert!(
        !names
            .iter()
            .any(|n| n.contains("_v7000") || n.contains("seq =") || *n == "checkpoint"),
        "{names:?}"
    );
    let overview = json(&["overview", CONTROL, TEST]);
    let text = overview.to_string();
    assert!(text.contains("NVIDIA H100 80GB HBM3"), "{text}");
    let r = run(&["gate", CONTROL, TEST, "--max-op-regression", "10%"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("gate: FAIL: op time (2 ops)"), "{}", r.stdout);
    let r = run(&["gate", CONTROL, CONTROL, "--max-op-regression", "10%"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // Kernels are joined to their operators through the runtime calls' correlation ids.
    let r = run(&["explain", CONTROL, TEST]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("aten::mm  +100 µs/step (+50.0%)"), "{}", r.stdout);
    assert!(
        r.stdout.contains("kernels: 1.00 → 2.00 kernels per call"),
        "{}",
        r.stdout
    );
    // An NVTX range of the user's names the steps with --step-marker.
    let r = run(&["kernels", CONTROL, "--step-marker", "^forward$"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("steps 0–2"), "{}", r.stdout);
}

#[test]
fn a_mixed_pair_of_kineto_and_nsight_compares_with_a_note() {
    let r = run(&["compare", "fixtures/basic/control/trace.json", TEST]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("tracediff: note: control is Kineto JSON and test Nsight Systems SQLite export: kernels, copies, sets and CUDA runtime calls mean the same on both"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("cudaLaunchKernel"), "{}", r.stdout);
    // Two exports, or an export and its summary: no such note.
    let r = run(&["compare", CONTROL, TEST]);
    assert!(!r.stderr.contains("mean the same"), "{}", r.stderr);
}

#[test]
fn a_folder_of_rank_exports_reads_each_as_its_rank_and_a_report_of_two_is_refused() {
    let dir = TempDir::new().unwrap();
    let side = dir.path().join("job");
    std::fs::create_dir(&side).unwrap();
    std::fs::copy(CONTROL, side.join("rank0.sqlite")).unwrap();
    std::fs::copy(TEST, side.join("rank1.sqlite")).unwrap();
    let s = side.to_str().unwrap();
    let v = json(&["overview", s, s, "--rank", "all"]);
    assert_eq!(v["control"]["ranks"], 2, "{v}");
    let two = "fixtures/nsight/two_processes.sqlite";
    let line = error_line(&run(&["compare", two, TEST]));
    assert_eq!(
        line,
        format!(
            "tracediff: the Nsight Systems export holds the GPU work of 2 processes (pids 4242, 4343), one per rank: profile each rank into a report of its own (nsys profile -o rank%q{{RANK}} …), export each, and pass their folder ({two})"
        )
    );
    let other = "fixtures/nsight/other.sqlite";
    let line = error_line(&run(&["kernels", other]));
    assert!(
        line.contains("not a trace: an SQLite database that is not an Nsight Systems export"),
        "{line}"
    );
    assert!(Path::new(other).exists());
}
