//! Regression tests for the defects a new user hit (issue 9): each runs the binary and checks
//! exact output, and each failed before its fix.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tempfile::TempDir;

#[allow(dead_code)]
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs tracediff in the repository root with its state in `state`.
#[allow(dead_code)]
fn run_in(state: &Path, args: &[&str]) -> Run {
    let out = Command::cargo_bin("tracediff")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TRACEDIFF_STATE_DIR", state)
        .args(args)
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

#[allow(dead_code)]
fn run(args: &[&str]) -> Run {
    let state = TempDir::new().unwrap();
    run_in(state.path(), args)
}

/// Runs and expects exit code 2 with one `tracediff: ` line on stderr and nothing on stdout;
/// returns that line without the prefix.
#[allow(dead_code)]
fn fails(args: &[&str]) -> String {
    let r = run(args);
    assert_eq!(r.code, 2, "args {args:?}\nstdout: {}\nstderr: {}", r.stdout, r.stderr);
    assert!(r.stdout.is_empty(), "nothing on stdout on error: {}", r.stdout);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one error line: {}", r.stderr);
    lines[0].strip_prefix("tracediff: ").expect("prefixed").to_string()
}

/// A trace with one 1 µs `cpu_op` event per name, one after the other.
fn write_trace(path: &Path, names: &[String]) {
    let mut text = String::from("{\"traceEvents\":[\n");
    for (i, n) in names.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        text.push_str(&format!(
            "{sep}{{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":{},\"pid\":1,\"tid\":1,\"ts\":{},\"dur\":1}}\n",
            serde_json::to_string(n).unwrap(),
            i * 2
        ));
    }
    text.push_str("]}\n");
    std::fs::write(path, text).unwrap();
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_tracediff"))
}

/// Runs `command` under a pseudo-terminal (util-linux `script`); `None` when `script` is missing.
/// Fails the test when the command has not exited after `limit`.
fn under_pty(command: &str, limit: Duration) -> Option<(i32, String)> {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        println!("skipped: the `script` utility (util-linux) is not installed");
        return None;
    }
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut child = std::process::Command::new("script")
        .args(["-qec", command])
        .arg(out.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let text = String::from_utf8_lossy(&std::fs::read(out.path()).unwrap()).into_owned();
            return Some((status.code().unwrap_or(-1), text));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{command}` did not exit within {limit:?} on a terminal (hang)");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Defect 1: a run longer than a second with stderr on a terminal printed its output and never
/// exited (the progress thread waited for the stderr lock that main held while joining it).
/// Here the run lasts over a second because its reader only starts after two.
#[test]
fn a_long_run_on_a_terminal_shows_progress_and_exits() {
    let dir = TempDir::new().unwrap();
    let names: Vec<String> = (0..4000).map(|i| format!("aten::op_{i:05}")).collect();
    write_trace(&dir.path().join("a.json"), &names);
    let command = format!(
        "cd '{}' && '{}' compare a.json a.json --no-save --format csv | (sleep 2; wc -l)",
        dir.path().display(),
        bin().display()
    );
    let Some((code, text)) = under_pty(&command, Duration::from_secs(30)) else {
        return;
    };
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("tracediff: reading traces…"), "{text}");
    assert!(text.contains("4001"), "every row arrived: {text}");
}
