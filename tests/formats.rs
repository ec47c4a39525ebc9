//! Files that are not traces the tool reads are named in one line with what to do (exit 2),
//! and skipped with a note in a folder beside traces.

use crate::common::{error_line, run};
use flate2::Compression;
use flate2::write::GzEncoder;
use std::io::Write;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// `bytes` written to `dir/name`.
fn file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// The error line of `compare FILE FILE`, without the prefix and the file's name.
fn refusal(path: &Path) -> String {
    let p = path.to_str().unwrap();
    let line = error_line(&run(&["compare", p, p]));
    let line = line.strip_prefix("tracediff: ").expect("prefixed");
    line.strip_suffix(&format!(" ({p})"))
        .unwrap_or_else(|| panic!("names the file: {line}"))
        .to_string()
}

const EXECUTION_TRACE: &[u8] =
    br#"{"schema": "1.0.2-chakra.0.0.4", "pid": 7, "time": "2024-01-01", "start_ts": 1, "nodes": [{"id": 1, "name": "[pytorch|profiler|execution_trace|process]", "ctrl_deps": 1}]}"#;

#[test]
fn each_format_the_tool_does_not_read_is_named_in_one_line() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let rep = file(d, "run.nsys-rep", b"\x00\x01not a database");
    assert_eq!(
        refusal(&rep),
        format!(
            "not a trace: an Nsight Systems report, which only nsys reads; export it to SQLite and pass that: nsys export --type sqlite --output {} {}",
            d.join("run.sqlite").display(),
            rep.display()
        )
    );
    let cases: Vec<(PathBuf, &str)> = vec![
        (
            file(d, "host.xplane.pb", b"\x0a\x05plane"),
            "an XPlane protobuf (the JAX or TensorFlow profiler's); tracediff reads",
        ),
        (
            file(d, "t.pftrace", b"\x0a\x02\x08\x01"),
            "a Perfetto protobuf trace; convert it to Chrome-trace JSON (traceconv json IN OUT.json)",
        ),
        (
            file(d, "t.pb", b"\x0a\x02\x08\x01"),
            "a protocol buffer (a Perfetto or XPlane trace?); convert it",
        ),
        (
            file(d, "et.json", EXECUTION_TRACE),
            "a PyTorch execution trace (ExecutionTraceObserver",
        ),
        (
            file(d, "et.json.gz", &gzip(EXECUTION_TRACE)),
            "a PyTorch execution trace",
        ),
        (
            file(d, "mem.json", b"[[1000, 2000], [[0, 512], [0, 1024]]]"),
            "the output of torch.profiler's export_memory_timeline (memory over time, no events); pass the trace itself",
        ),
        (
            file(d, "mem.json.gz", &gzip(b" [ [1, 2], [[3]]]")),
            "the output of torch.profiler's export_memory_timeline",
        ),
        (
            file(
                d,
                "chrome.json",
                br#"{"displayTimeUnit": "ns", "otherData": {"version": 1}}"#,
            ),
            "a JSON object with no 'traceEvents' array (its members: displayTimeUnit, otherData); pass the trace torch.profiler writes",
        ),
    ];
    for (path, expected) in cases {
        let line = refusal(&path);
        assert!(line.starts_with("not a "), "{line}");
        assert!(line.contains(expected), "{}: {line}", path.display());
    }
}

#[test]
fn a_folder_skips_an_execution_trace_beside_the_kineto_trace() {
    let dir = TempDir::new().unwrap();
    let side = dir.path().join("control");
    std::fs::create_dir(&side).unwrap();
    for entry in std::fs::read_dir("fixtures/basic/control").unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), side.join(entry.file_name())).unwrap();
    }
    let et = file(&side, "rank0_et.json", EXECUTION_TRACE);
    let mem = file(&side, "memory.json", b"[[1], [[2]]]");
    let with = run(&[
        "compare",
        side.to_str().unwrap(),
        "fixtures/basic/test",
        "--format",
        "csv",
    ]);
    assert_eq!(with.code, 0, "{}", with.stderr);
    let alone = run(&[
        "compare",
        "fixtures/basic/control",
        "fixtures/basic/test",
        "--format",
        "csv",
    ]);
    assert_eq!(with.stdout, alone.stdout);
    for (p, what) in [
        (
            &et,
            "a PyTorch execution trace (ExecutionTraceObserver: the graph's nodes, no times)",
        ),
        (
            &mem,
            "the output of torch.profiler's export_memory_timeline (memory over time, no events)",
        ),
    ] {
        let note = format!("tracediff: note: skipped {}: {what}, not a trace", p.display());
        assert!(with.stderr.contains(&note), "{}", with.stderr);
    }
    // A folder of nothing but such files is refused with what the first one is.
    let only = dir.path().join("only");
    std::fs::create_dir(&only).unwrap();
    file(&only, "a_et.json", EXECUTION_TRACE);
    file(&only, "b_et.json", EXECUTION_TRACE);
    let line = error_line(&run(&["compare", only.to_str().unwrap(), "fixtures/basic/test"]));
    assert!(line.contains("not a trace: a PyTorch execution trace"), "{line}");
    assert!(
        line.ends_with(&format!("({})", only.join("a_et.json").display())),
        "{line}"
    );
}
