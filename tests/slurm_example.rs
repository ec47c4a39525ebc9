//! `examples/slurm-array.sh`, run as Slurm would run it: a plain loop over the array task ids
//! stands in for the scheduler. Its compare over the summary dataset equals compare over the
//! traces.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bash(script: &str, cwd: &Path) -> (String, String, i32) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(cwd)
        .env("TRACEDIFF", assert_cmd::cargo::cargo_bin("tracediff"))
        .env("EXAMPLE", repo().join("examples/slurm-array.sh"))
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn slurm_array_example_with_a_loop_for_the_scheduler() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = repo().join("fixtures/ranks");
    let script = format!(
        r#"set -e
for side in control test; do
    for task in 0 1; do
        SLURM_ARRAY_TASK_ID=$task "$EXAMPLE" summarize {f}/$side summaries
    done
done
ls summaries/run=control; ls summaries/run=test
"$EXAMPLE" compare summaries/run=control summaries/run=test --rank all --iteration all --format csv --no-save
"#,
        f = fixtures.display()
    );
    let (out, err, code) = bash(&script, dir.path());
    assert_eq!(code, 0, "{err}");
    let over_traces = bash(
        &format!(
            r#""$TRACEDIFF" compare {f}/control {f}/test --rank all --iteration all --format csv --no-save"#,
            f = fixtures.display()
        ),
        dir.path(),
    );
    assert_eq!(over_traces.2, 0, "{}", over_traces.1);
    let listing = "rank=0.parquet\nrank=1.parquet\nrank=0.parquet\nrank=1.parquet\n";
    assert_eq!(
        out,
        format!(
            "summaries/run=control/rank=0.parquet\nsummaries/run=control/rank=1.parquet\nsummaries/run=test/rank=0.parquet\nsummaries/run=test/rank=1.parquet\n{listing}{}",
            over_traces.0
        )
    );
}

#[test]
fn slurm_array_example_refuses_a_task_beyond_the_traces() {
    let dir = tempfile::tempdir().unwrap();
    let f = repo().join("fixtures/ranks/control");
    let (_, err, code) = bash(
        &format!(r#"SLURM_ARRAY_TASK_ID=2 "$EXAMPLE" summarize {} out"#, f.display()),
        dir.path(),
    );
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!("slurm-array.sh: task 2, but {} holds 2 traces\n", f.display())
    );
    let (_, err, code) = bash(r#""$EXAMPLE" summarize a b"#, dir.path());
    assert_ne!(code, 0);
    assert!(err.contains("SLURM_ARRAY_TASK_ID is not set"), "{err}");
}
