//! The checks that hold for every format whose one file may hold several ranks (an Nsight
//! export, a rocprofv3 JSON of several processes): the file reads as a folder of one file per
//! rank, and summarises into one summary per rank. `tests/nsight.rs` and `tests/rocprof.rs`
//! run them on their own fixtures.

use crate::common::{json, run};
use std::collections::BTreeMap;
use tempfile::TempDir;

/// A format's fixtures: a pair of one-process files, the file of two processes whose rank 0
/// is the control's run and rank 1 the test's, and how a folder names a rank's file.
pub(crate) struct RankFiles {
    pub(crate) control: &'static str,
    pub(crate) test: &'static str,
    pub(crate) two: &'static str,
    /// The name of rank `r`'s file in a folder of one file per rank.
    pub(crate) rank_file: fn(usize) -> String,
    /// Text the overview of the two-process file names (its GPU).
    pub(crate) device: &'static str,
}

/// compare, overview and gate read each rank of the one file as those of a folder of one file
/// per rank: rank 1 against rank 0 is the test pair against the control (the GEMM slower),
/// each rank with the GPU it ran on.
pub(crate) fn each_rank_reads_as_a_folder_of_ranks(f: &RankFiles) {
    let dir = TempDir::new().unwrap();
    let folder = |name: &str, ranks: [&str; 2]| -> String {
        let side = dir.path().join(name);
        std::fs::create_dir(&side).unwrap();
        for (r, file) in ranks.iter().enumerate() {
            std::fs::copy(file, side.join((f.rank_file)(r))).unwrap();
        }
        side.to_str().unwrap().to_string()
    };
    let job = folder("job", [f.control, f.test]);
    let before = folder("before", [f.control, f.control]);
    let rows = |v: &serde_json::Value| -> BTreeMap<String, (serde_json::Value, serde_json::Value)> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["name"].as_str().unwrap().to_string(),
                    (r["control_total_us"].clone(), r["test_total_us"].clone()),
                )
            })
            .collect()
    };
    let two = f.two;
    let ranks = ["--control-rank", "0", "--test-rank", "1"];
    let split = json(&[&["compare", two, two, "--no-save"][..], &ranks[..]].concat());
    assert_eq!(rows(&split), rows(&json(&["compare", f.control, f.test, "--no-save"])));
    for args in [&["--rank", "all"][..], &["--rank", "1"][..], &[][..]] {
        let one = json(&[&["compare", two, two, "--no-save"][..], args].concat());
        let per_file = json(&[&["compare", &job, &job, "--no-save"][..], args].concat());
        assert_eq!(rows(&one), rows(&per_file), "{args:?}");
    }
    let overview = json(&[&["overview", two, two][..], &ranks[..]].concat());
    let text = overview.to_string();
    assert!(text.contains(f.device), "{text}");
    let all = json(&["overview", two, two, "--rank", "all"]);
    assert_eq!(all["control"]["ranks"], 2, "{all}");
    // The gate matches ranks by number, as between two folders.
    let r = run(&["gate", &before, two, "--max-op-regression", "10%", "--rank", "1"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("gate: FAIL: op time (2 ops)"), "{}", r.stdout);
    let r = run(&["gate", &before, two, "--max-op-regression", "10%", "--rank", "0"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let r = run(&["gate", &job, two, "--max-op-regression", "10%", "--rank", "all"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

/// `summarize` of the two-process file into a dataset writes one summary per rank, and those
/// summaries are the file's ranks: compared with it, every row is unchanged. Returns the
/// temporary directory (for the caller's further checks) and the dataset's path in it.
pub(crate) fn a_dataset_is_one_summary_per_rank(f: &RankFiles) -> (TempDir, std::path::PathBuf) {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("data");
    let o = out.to_str().unwrap();
    let r = run(&["summarize", f.two, "--output", o, "--label", "job"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for rank in 0..2 {
        assert!(
            out.join(format!("run=job/rank={rank}.parquet")).exists(),
            "{}",
            r.stderr
        );
    }
    assert!(!out.join("run=job/rank=2.parquet").exists());
    let run_dir = out.join("run=job");
    let v = json(&[
        "compare",
        run_dir.to_str().unwrap(),
        f.two,
        "--rank",
        "all",
        "--no-save",
    ]);
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["name"] == "aten::mm"), "{v}");
    for r in rows {
        assert_eq!(r["control_total_us"], r["test_total_us"], "{r}");
        assert_eq!(r["control_count"], r["test_count"], "{r}");
    }
    (dir, out)
}
