//! Nsight Systems SQLite exports (`fixtures/nsight/`, written by
//! `scripts/make_nsight_fixtures.py` from the documented export schema): the kernels view
//! agrees with SQL over the export's own tables, the commands work on a pair of exports and on
//! a mixed pair with a Kineto trace, an export of several processes reads as one rank per
//! process, and what cannot be read is refused in one line.

use crate::common::{error_line, json, run};
use crate::ranks_in_one_file::{RankFiles, a_dataset_is_one_summary_per_rank, each_rank_reads_as_a_folder_of_ranks};
use std::collections::BTreeMap;
use std::path::Path;
use tempfile::TempDir;

const CONTROL: &str = "fixtures/nsight/control.sqlite";
const TEST: &str = "fixtures/nsight/test.sqlite";
/// One report of a job of two ranks: pid 4242 (control's steps, device 0) and pid 4343
/// (test's, device 1, its rows written first), and a launcher (pid 4100) without GPU work.
const TWO: &str = "fixtures/nsight/two_processes.sqlite";

/// The fixtures of the checks every format of several ranks in one file passes.
const FILES: RankFiles = RankFiles {
    control: CONTROL,
    test: TEST,
    two: TWO,
    rank_file: |r| format!("rank{r}.sqlite"),
    device: "NVIDIA H100 80GB HBM3",
};

/// Per name: calls and summed ns, by SQL over the export's device tables (kernels by their
/// demangled name; copies and sets by the names Kineto gives them).
fn by_sql(path: &str) -> BTreeMap<String, (u64, i64)> {
    by_sql_of(path, None)
}

/// [`by_sql`] of the rows of the process `pid` only, where given.
fn by_sql_of(path: &str, pid: Option<i64>) -> BTreeMap<String, (u64, i64)> {
    let db = rusqlite::Connection::open(path).unwrap();
    let mut out = BTreeMap::new();
    let of = pid.map_or(String::new(), |p| format!(" AND ((globalPid >> 24) & 16777215) = {p}"));
    for sql in [
        format!(
            "SELECT s.value, COUNT(*), SUM(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName WHERE 1{} GROUP BY s.value",
            of.replace("globalPid", "k.globalPid")
        ),
        format!(
            "SELECT 'Memcpy HtoD (Pageable -> Device)', COUNT(*), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1 AND srcKind = 0 AND dstKind = 2{of}"
        ),
        format!(
            "SELECT 'Memset (Device)', COUNT(*), SUM(end - start) FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE memKind = 2{of}"
        ),
    ] {
        let mut q = db.prepare(&sql).unwrap();
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
fn kernels_of_an_export_pair_equal_sql_over_its_tables() {
    let v = json(&["kernels", CONTROL, TEST]);
    for (side, path) in [("control", CONTROL), ("test", TEST)] {
        assert_eq!(by_view(&v, side), by_sql(path), "{side}");
    }
}

/// An export of two processes is two ranks, by pid: rank 0 is pid 4242 though pid 4343's rows
/// come first and start earlier; each rank's kernels equal SQL over its process's rows, and
/// `--rank all` both processes' (the launcher, without GPU work, is no rank).
#[test]
fn an_export_of_two_processes_reads_as_two_ranks_by_pid() {
    let v = json(&["kernels", TWO, TWO, "--control-rank", "0", "--test-rank", "1"]);
    assert_eq!(by_view(&v, "control"), by_sql_of(TWO, Some(4242)));
    assert_eq!(by_view(&v, "test"), by_sql_of(TWO, Some(4343)));
    // The processes differ (the GEMM 50% slower, one more elementwise kernel per step).
    assert_ne!(by_sql_of(TWO, Some(4242)), by_sql_of(TWO, Some(4343)));
    let v = json(&["kernels", TWO, TWO, "--rank", "all"]);
    assert_eq!(by_view(&v, "control"), by_sql(TWO));
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
    // By default the lowest rank, as of a folder of ranks; a rank the export lacks is named.
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
    let line = error_line(&run(&["compare", TWO, TWO, "--rank", "2"]));
    assert!(line.contains("no rank 2 (ranks present: 0, 1)"), "{line}");
}

/// compare, overview and gate read each rank of the one export as those of a folder of one
/// export per rank: rank 1 against rank 0 is the test pair against the control (the GEMM
/// slower), each rank with the GPU it ran on.
#[test]
fn compare_overview_and_gate_read_each_rank_of_one_export() {
    each_rank_reads_as_a_folder_of_ranks(&FILES);
}

/// A dataset of an export of two processes is one summary per rank; `summarize` into one file
/// refuses it, saying what to do.
#[test]
fn a_dataset_of_an_export_of_two_processes_is_one_summary_per_rank() {
    let (dir, out) = a_dataset_is_one_summary_per_rank(&FILES);
    let o = out.to_str().unwrap();
    // A folder that holds the export is summarised the same way.
    let folder = dir.path().join("dd");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(TWO, folder.join("job.sqlite")).unwrap();
    let r = run(&["summarize", folder.to_str().unwrap(), "--output", o]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for rank in 0..2 {
        assert!(out.join(format!("run=dd/rank={rank}.parquet")).exists(), "{}", r.stderr);
    }
    let one = dir.path().join("one.parquet");
    let line = error_line(&run(&["summarize", TWO, "--output", one.to_str().unwrap()]));
    assert!(
        line.contains("holds the GPU work of 2 processes, read as ranks 0–1: pass it as a side"),
        "{line}"
    );
}

/// An export of one process reads as one rank, as before: no note, no rank but its own.
#[test]
fn an_export_of_one_process_is_one_rank() {
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

/// A copy at `to` of the export `from` whose kernel table cannot be read (its first page
/// overwritten), the rest of the database intact: it is still told an Nsight export.
fn damaged_kernels(from: &str, to: &Path) {
    std::fs::copy(from, to).unwrap();
    let conn = rusqlite::Connection::open(to).unwrap();
    let page: u64 = conn
        .query_row(
            "SELECT rootpage FROM sqlite_master WHERE name = 'CUPTI_ACTIVITY_KIND_KERNEL'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let size: u64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    drop(conn);
    let mut bytes = std::fs::read(to).unwrap();
    let at = ((page - 1) * size) as usize;
    bytes[at..at + size as usize].fill(0xFF);
    std::fs::write(to, bytes).unwrap();
}

/// An export of a folder whose kernels' processes cannot be read is refused, naming it and
/// the table, though its rank is left out of the selection (as a rocprofv3 file that cannot
/// be read: tests/rocprof.rs); it was once taken as an export of one process and never read.
#[test]
fn a_folder_with_an_export_that_cannot_be_read_is_refused() {
    let dir = TempDir::new().unwrap();
    let side = dir.path().join("job");
    std::fs::create_dir(&side).unwrap();
    std::fs::copy(CONTROL, side.join("rank0.sqlite")).unwrap();
    let bad = side.join("rank1.sqlite");
    damaged_kernels(TEST, &bad);
    let s = side.to_str().unwrap();
    let expected = format!(
        "tracediff: cannot read the Nsight Systems export: CUPTI_ACTIVITY_KIND_KERNEL.globalPid (the processes that launched kernels): database disk image is malformed ({})",
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
fn a_folder_of_rank_exports_reads_each_as_its_rank() {
    let dir = TempDir::new().unwrap();
    let side = dir.path().join("job");
    std::fs::create_dir(&side).unwrap();
    std::fs::copy(CONTROL, side.join("rank0.sqlite")).unwrap();
    std::fs::copy(TEST, side.join("rank1.sqlite")).unwrap();
    let s = side.to_str().unwrap();
    let v = json(&["overview", s, s, "--rank", "all"]);
    assert_eq!(v["control"]["ranks"], 2, "{v}");
    // A folder of two exports of two processes each: two files of rank 0.
    std::fs::copy(TWO, side.join("a.sqlite")).unwrap();
    std::fs::copy(TWO, side.join("b.sqlite")).unwrap();
    std::fs::remove_file(side.join("rank0.sqlite")).unwrap();
    std::fs::remove_file(side.join("rank1.sqlite")).unwrap();
    let line = error_line(&run(&["compare", s, s]));
    assert!(line.contains("two trace files with rank 0"), "{line}");
    let other = "fixtures/nsight/other.sqlite";
    let line = error_line(&run(&["kernels", other]));
    assert!(
        line.contains("not a trace: an SQLite database that is not an Nsight Systems export"),
        "{line}"
    );
    assert!(Path::new(other).exists());
}
