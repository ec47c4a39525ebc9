//! Summary datasets (`summarize DIR -o OUTDIR`: `OUTDIR/run=<label>/rank=<r>.parquet`): every
//! command that reads summaries reads a dataset as a side — its directory (one run: that run;
//! several: a set of runs) or one `run=` directory — with the traces' output, byte for byte; the
//! one-table layout of schema 6 (op and step rows, run, world size, normalised name) reads
//! back; a rank written twice or a stale rank is refused.

use crate::summaries::{assert_same, commands, run};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Links the trace files of `from` into `to` (made first).
fn link_traces(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.to_string_lossy().contains(".json") {
            std::os::unix::fs::symlink(std::fs::canonicalize(&p).unwrap(), to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// `t/<side>/` holds the traces of each side, `s/<side>/` the dataset `summarize <side> -o
/// ../s/<side>` wrote from `t` (so its summaries name the same trace paths): a command run in
/// `t` and in `s` reads traces in one and a dataset of one run in the other.
fn dataset_mirror(sides: &[(&str, &Path)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let t = root.path().join("t");
    for (side, dir) in sides {
        link_traces(dir, &t.join(side));
        let out = format!("../s/{side}");
        let (stdout, err, code) = run(&t, &["summarize", side, "-o", &out]);
        assert_eq!(code, 0, "summarize {side}: {err}");
        let written = String::from_utf8(stdout).unwrap();
        assert!(
            written
                .lines()
                .all(|l| l.starts_with(&format!("{out}/run={side}/rank="))),
            "{written}"
        );
    }
    root
}

#[test]
fn a_dataset_of_one_run_reads_as_its_traces_byte_for_byte() {
    let f = repo().join("fixtures");
    let pairs: [(&str, &str, &[&str]); 5] = [
        ("ranks/control", "ranks/test", &["--rank", "all", "--iteration", "all"]),
        ("ranks/control", "ranks/test", &[]),
        ("shift/base", "shift/slow", &["--iteration", "all"]),
        ("gate/base", "gate/kernel2x", &[]),
        ("amd/control", "amd/test", &["--iteration", "all"]),
    ];
    for (c, t, extra) in pairs {
        let root = dataset_mirror(&[("control", &f.join(c)), ("test", &f.join(t))]);
        assert_same(root.path(), &commands("control", "test", extra));
    }
}

#[test]
fn a_run_directory_of_a_dataset_is_a_side() {
    let f = repo().join("fixtures/ranks");
    let root = dataset_mirror(&[("control", &f.join("control")), ("test", &f.join("test"))]);
    let csv = |cwd: &Path, c: &str, t: &str| {
        let (out, err, code) = run(cwd, &["compare", c, t, "--rank", "all", "--format", "csv", "--no-save"]);
        assert_eq!(code, 0, "{err}");
        out
    };
    let over_traces = csv(&root.path().join("t"), "control", "test");
    let s = root.path().join("s");
    assert_eq!(csv(&s, "control/run=control", "test/run=test"), over_traces);
    // One dataset holding both runs: each run=<label> directory is a side.
    std::fs::rename(s.join("test/run=test"), s.join("control/run=test")).unwrap();
    assert_eq!(csv(&s, "control/run=control", "control/run=test"), over_traces);
}

#[test]
fn a_dataset_of_several_runs_is_a_set_of_runs() {
    let f = repo().join("fixtures/replicates/fused");
    let root = tempfile::tempdir().unwrap();
    let t = root.path().join("t");
    for side in ["control", "test"] {
        for r in ["run1", "run2", "run3"] {
            link_traces(&f.join(side).join(r), &t.join(side).join(r));
        }
        // A directory of runs is written as one run=<name> per run.
        let (out, err, code) = run(&t, &["summarize", side, "-o", &format!("../s/{side}")]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            ["run1", "run2", "run3"]
                .map(|r| format!("../s/{side}/run={r}/rank=0.parquet\n"))
                .concat()
        );
    }
    let cmds: Vec<Vec<String>> = commands("control", "test", &["--iteration", "all"])
        .into_iter()
        .filter(|a| a[0] == "compare")
        .collect();
    assert_same(root.path(), &cmds);
    let (_, err, code) = run(&t, &["summarize", "control", "-o", "../x", "--label", "a"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("a directory of runs: each run is labelled by its directory's name"),
        "{err}"
    );
}

#[test]
fn one_trace_is_filed_under_its_rank_and_a_second_trace_of_that_rank_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    link_traces(&repo().join("fixtures/ranks/control"), &d.join("control"));
    link_traces(&repo().join("fixtures/basic/control"), &d.join("other"));
    // The label defaults to the trace's directory; --label names it.
    let (out, err, code) = run(d, &["summarize", "control/rank1.json", "-o", "ds/"]);
    assert_eq!(
        (code, String::from_utf8(out).unwrap()),
        (0, "ds/run=control/rank=1.parquet\n".into()),
        "{err}"
    );
    let (out, _, code) = run(d, &["summarize", "control/rank0.json", "-o", "ds", "--label", "a"]);
    assert_eq!(
        (code, String::from_utf8(out).unwrap()),
        (0, "ds/run=a/rank=0.parquet\n".into())
    );
    let back = tracediff::read_summary(&d.join("ds/run=a/rank=0.parquet")).unwrap();
    assert_eq!(back.meta.run.as_deref(), Some("a"));
    // Again from the same trace: replaced. From another trace of rank 0: refused.
    assert_eq!(
        run(d, &["summarize", "control/rank0.json", "-o", "ds", "--label", "a"]).2,
        0
    );
    let (_, err, code) = run(d, &["summarize", "other/trace.json", "-o", "ds", "--label", "a"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "tracediff: ds/run=a/rank=0.parquet already holds rank 0 summarised from control/rank0.json (two traces of one rank? remove it to write it again) (other/trace.json)\n"
    );
    let (_, err, code) = run(d, &["summarize", "other/trace.json", "-o", "ds", "--label", "x/y"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("tracediff: invalid run label 'x/y'"), "{err}");
    // A directory whose run already holds a rank it does not have: refused, nothing written.
    std::fs::write(d.join("ds/run=control/rank=7.parquet"), b"").unwrap();
    let (_, err, code) = run(d, &["summarize", "control", "-o", "ds"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("this run's directory already holds 1 summary of ranks the traces do not have (ds/run=control/rank=7.parquet)"),
        "{err}"
    );
    assert!(!d.join("ds/run=control/rank=0.parquet").exists());
}

#[test]
fn the_one_table_layout_holds_op_and_step_rows_with_run_rank_and_world_size() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::{Field, RowAccessor};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    link_traces(&repo().join("fixtures/ranks/control"), &d.join("control"));
    assert_eq!(run(d, &["summarize", "control", "-o", "ds"]).2, 0);
    let path = d.join("ds/run=control/rank=1.parquet");
    let summary = tracediff::read_summary(&path).unwrap();
    assert_eq!(summary.meta.schema_version, 6);
    let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let rows: Vec<_> = reader.get_row_iter(None).unwrap().map(|r| r.unwrap()).collect();
    let steps: Vec<_> = rows.iter().filter(|r| r.get_string(0).unwrap() == "step").collect();
    let ops: Vec<_> = rows.iter().filter(|r| r.get_string(0).unwrap() == "op").collect();
    assert_eq!(ops.len(), summary.rows.len());
    assert_eq!(steps.len(), summary.meta.windows.len());
    for r in &rows {
        assert_eq!(r.get_string(1).unwrap(), "control");
        assert_eq!((r.get_long(2).unwrap(), r.get_long(3).unwrap()), (1, 2));
    }
    let step = steps[0];
    let w = &summary.meta.windows[0];
    assert_eq!(step.get_long(4).unwrap(), w.step.unwrap());
    assert_eq!(step.get_long(14).unwrap(), w.end_ns - w.start_ns);
    assert!(matches!(step.get_column_iter().nth(5).unwrap().1, Field::Null));
    let profiler = ops
        .iter()
        .find(|r| r.get_string(5).unwrap().starts_with("ProfilerStep#"))
        .unwrap();
    assert_eq!(profiler.get_string(6).unwrap(), "ProfilerStep#*");
}
