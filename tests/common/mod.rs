//! The harness the integration tests share: the `tracediff` binary run in the repository root
//! with its saved state in a fresh directory, and `../shared` (real traces, HTA's output) when it
//! is beside the repository.
// Each test file uses part of it.
#![allow(dead_code)]

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tempfile::TempDir;

/// How a run of the binary ended.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs tracediff in the repository root with its state in `state`, its tables fitted to 100
/// columns (`COLUMNS=100`, as on a terminal of that width; a pipe would get full names). A run
/// that takes more than five minutes is a hang: the test fails instead of waiting.
pub fn run_in(state: &Path, args: &[&str]) -> Run {
    run_with(state, args, Some("100"))
}

/// Runs tracediff with `COLUMNS` set to `columns` (`None`: unset, a plain pipe).
pub fn run_with(state: &Path, args: &[&str], columns: Option<&str>) -> Run {
    let mut cmd = Command::cargo_bin("tracediff").unwrap();
    match columns {
        Some(c) => cmd.env("COLUMNS", c),
        None => cmd.env_remove("COLUMNS"),
    };
    let out = cmd
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TRACEDIFF_STATE_DIR", state)
        .args(args)
        .timeout(Duration::from_secs(300))
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs tracediff with a fresh state directory.
pub fn run(args: &[&str]) -> Run {
    let state = TempDir::new().unwrap();
    run_in(state.path(), args)
}

/// Runs and expects success; returns stdout.
pub fn ok(args: &[&str]) -> String {
    let r = run(args);
    assert_eq!(r.code, 0, "args {args:?}\nstderr: {}", r.stderr);
    r.stdout
}

/// Runs with `--format json` appended, expects success, and parses stdout.
pub fn json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_str(&ok(&all)).unwrap()
}

/// The one error line (notes aside) of a run that must fail with exit code 2 and print nothing
/// on stdout, with its `tracediff: ` prefix.
pub fn error_line(r: &Run) -> String {
    assert_eq!(r.code, 2, "stdout: {}\nstderr: {}", r.stdout, r.stderr);
    assert!(r.stdout.is_empty(), "nothing on stdout on error: {}", r.stdout);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| !l.starts_with("tracediff: note:"))
        .collect();
    assert_eq!(lines.len(), 1, "one error line: {}", r.stderr);
    lines[0].to_string()
}

/// Runs a command that must fail (see [`error_line`]); returns its error without the prefix.
pub fn fails(args: &[&str]) -> String {
    let line = error_line(&run(args));
    line.strip_prefix("tracediff: ").expect("prefixed").to_string()
}

/// `../shared` (or `$TRACEDIFF_SHARED`) when it holds `sub`; otherwise says that `what` is
/// skipped and why.
pub fn shared(sub: &str, what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("TRACEDIFF_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    if dir.join(sub).is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED {what}: {} not found (set TRACEDIFF_SHARED to the directory holding it)",
            dir.join(sub).display()
        );
        None
    }
}

/// `../shared/traces`, or `None` after saying that `what` is skipped.
pub fn traces(what: &str) -> Option<PathBuf> {
    shared("traces", what).map(|d| d.join("traces"))
}

/// The lines of a terminal table below its header rule (`───`).
pub fn table_rows(out: &str) -> impl Iterator<Item = &str> {
    out.lines().skip_while(|l| !l.starts_with('─')).skip(1)
}

/// The name cell of a table row: its text up to the first two spaces.
pub fn name_cell(row: &str) -> &str {
    row.get(..row.find("  ").unwrap_or(row.len())).unwrap_or(row).trim()
}

/// The `control` and `test` directories of a pair of traces in `dir`, as the arguments to pass.
pub fn sides(dir: &Path) -> [String; 2] {
    [dir.join("control"), dir.join("test")].map(|p| p.to_str().unwrap().to_string())
}

/// The names of a JSON table's rows marked significant, sorted.
pub fn significant_names(v: &serde_json::Value) -> Vec<String> {
    let mut names: Vec<String> = v["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["significant"] == true)
        .map(|r| r["name"].as_str().unwrap_or_default().to_string())
        .collect();
    names.sort();
    names
}
