//! `tracediff summarize` and the commands that read summaries in place of traces: the output
//! over summaries is the output over the traces, byte for byte; bad Parquet is one line, exit 2.

use crate::common;
use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs tracediff in `cwd`: (stdout, stderr, exit code).
pub fn run(cwd: &Path, args: &[&str]) -> (Vec<u8>, String, i32) {
    let out = Command::cargo_bin("tracediff")
        .unwrap()
        .current_dir(cwd)
        .env("TRACEDIFF_STATE_DIR", cwd.join(".state"))
        .args(args)
        .output()
        .unwrap();
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// `t/<side>/` holds the traces (links to `dir`'s trace files), `s/<side>/` their summaries,
/// made from `t` with the same relative paths: a command run in `t` and in `s` reads the same
/// paths, traces in one and summaries in the other.
fn mirror(sides: &[(&str, &Path)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let (t, s) = (root.path().join("t"), root.path().join("s"));
    for (side, dir) in sides {
        std::fs::create_dir_all(t.join(side)).unwrap();
        std::fs::create_dir_all(s.join(side)).unwrap();
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files.iter().filter(|f| f.to_string_lossy().contains(".json")) {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            std::os::unix::fs::symlink(std::fs::canonicalize(f).unwrap(), t.join(side).join(&name)).unwrap();
            let stem = name.split('.').next().unwrap();
            let trace = format!("{side}/{name}");
            let summary = format!("../s/{side}/{stem}.parquet");
            let (out, err, code) = run(&t, &["summarize", &trace, "-o", &summary]);
            assert_eq!(code, 0, "summarize {trace}: {err}");
            assert_eq!(String::from_utf8(out).unwrap(), format!("{summary}\n"));
        }
    }
    root
}

/// Every command that reads summaries, in every format, with `extra` selection options.
pub fn commands(control: &str, test: &str, extra: &[&str]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let with = |v: Vec<&str>| {
        v.into_iter()
            .chain(extra.iter().copied())
            .map(String::from)
            .collect::<Vec<String>>()
    };
    for format in ["table", "csv", "json", "markdown"] {
        out.push(with(vec!["compare", control, test, "--no-save", "--format", format]));
        out.push(with(vec![
            "compare",
            control,
            test,
            "--no-save",
            "--format",
            format,
            "--device",
            "gpu",
            "--short-names",
        ]));
        out.push(with(vec![
            "ops-diff",
            control,
            test,
            "--category",
            "all",
            "--format",
            format,
        ]));
        out.push(with(vec!["overview", control, test, "--format", format]));
        out.push(with(vec![
            "gate",
            control,
            test,
            "--max-op-regression",
            "10%",
            "--max-step-time-regression",
            "5%",
            "--max-gpu-busy-regression",
            "5%",
            "--fail-on-added",
            "nccl",
            "--format",
            format,
        ]));
    }
    out.push(with(vec![
        "compare",
        control,
        test,
        "--no-save",
        "--format",
        "csv",
        "--device",
        "cpu",
        "--normalize-names",
        "--exclude",
        "^aten::",
        "--top",
        "5",
    ]));
    out.push(with(vec![
        "plot",
        control,
        test,
        "--metric",
        "duration",
        "-o",
        "chart.svg",
    ]));
    out
}

/// A gate's output without its causes: JSON's `causes` (the last member of `report`),
/// Markdown's **Why** list (the last section), the table's "why" lines (up to the verdict).
fn without_causes(out: &str) -> String {
    if let Some(at) = out.find(",\n    \"causes\": [") {
        let end = out[at..]
            .find("\n    ]")
            .map_or(out.len(), |e| at + e + "\n    ]".len());
        return format!("{}{}", &out[..at], &out[end..]);
    }
    if let Some(at) = out.find("\n**Why** (") {
        return out[..at].to_string();
    }
    let mut keep = true;
    let mut text = String::new();
    for line in out.split_inclusive('\n') {
        if line.starts_with("why (tracediff explain") {
            keep = false;
        } else if line.starts_with("gate: ") {
            keep = true;
        }
        if keep {
            text.push_str(line);
        }
    }
    text
}

/// Runs each command over the traces (in `t`) and over the summaries (in `s`): the same stdout,
/// exit code, and chart bytes.
pub fn assert_same(root: &Path, commands: &[Vec<String>]) {
    let (t, s) = (root.join("t"), root.join("s"));
    for args in commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut over_traces = run(&t, &args);
        let over_summaries = run(&s, &args);
        // A failed gate over traces says why each op changed (explain reads the events, which a
        // summary does not hold): everything else is the same.
        over_traces.0 = without_causes(&String::from_utf8_lossy(&over_traces.0)).into_bytes();
        assert_eq!(
            String::from_utf8_lossy(&over_traces.0),
            String::from_utf8_lossy(&over_summaries.0),
            "{args:?}: {}",
            over_summaries.1
        );
        assert_eq!(over_traces.2, over_summaries.2, "{args:?}: {}", over_summaries.1);
        assert!(over_traces.2 <= 1, "{args:?} failed: {}", over_traces.1);
        if args[0] == "plot" {
            let chart = |d: &Path| std::fs::read(d.join("chart.svg")).unwrap();
            assert!(chart(&t) == chart(&s), "{args:?}: the charts differ");
        }
    }
}

#[test]
fn fixtures_over_summaries_equal_fixtures_over_traces() {
    let f = repo().join("fixtures");
    let pairs: [(&str, &str, &[&str]); 9] = [
        ("ranks/control", "ranks/test", &["--rank", "all", "--iteration", "all"]),
        // A run-wide shift, found from the summaries' own times as from the traces'.
        ("shift/base", "shift/slow", &["--iteration", "all"]),
        ("shift/base", "shift/slowchanged", &["--iteration", "all"]),
        ("shift/slow", "shift/base", &["--iteration", "all"]),
        ("ranks/control", "ranks/test", &[]),
        ("basic/control", "basic/test", &["--iteration", "all"]),
        ("gate/base", "gate/kernel2x", &[]),
        ("nosteps/control", "nosteps/test", &[]),
        ("amd/control", "amd/test", &["--iteration", "all"]),
    ];
    for (c, t, extra) in pairs {
        let root = mirror(&[("control", &f.join(c)), ("test", &f.join(t))]);
        // The gate needs steps; on the no-step pair it refuses both ways alike (exit 2).
        let cmds: Vec<Vec<String>> = commands("control", "test", extra)
            .into_iter()
            .filter(|a| !(c.starts_with("nosteps") && a[0] == "gate"))
            .collect();
        assert_same(root.path(), &cmds);
    }
}

#[test]
fn a_side_may_mix_traces_and_summaries() {
    let f = repo().join("fixtures/ranks");
    let root = mirror(&[("control", &f.join("control")), ("test", &f.join("test"))]);
    let mixed = root.path().join("mixed");
    std::fs::create_dir_all(&mixed).unwrap();
    std::fs::copy(root.path().join("s/test/rank0.parquet"), mixed.join("rank0.parquet")).unwrap();
    std::fs::copy(f.join("test/rank1.pt.trace.json"), mixed.join("rank1.pt.trace.json")).unwrap();
    let args = [
        "compare",
        "t/control",
        "mixed",
        "--rank",
        "all",
        "--format",
        "csv",
        "--no-save",
    ];
    let over_traces = run(
        root.path(),
        &[
            "compare",
            "t/control",
            "t/test",
            "--rank",
            "all",
            "--format",
            "csv",
            "--no-save",
        ],
    );
    let (out, err, code) = run(root.path(), &args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        String::from_utf8(out).unwrap(),
        String::from_utf8(over_traces.0).unwrap()
    );
}

/// The real multi-rank pairs beside the project (ignored, saying why, when absent).
#[test]
#[cfg_attr(
    tracediff_no_shared,
    ignore = "needs ../shared (real traces, HTA's output), absent when the tests were built: put it beside the repository or set TRACEDIFF_SHARED"
)]
fn real_multi_rank_pairs_over_summaries_equal_traces() {
    let Some(shared) = common::traces("the real multi-rank pairs over summaries") else {
        return;
    };
    let cases: [(&str, &str, &[&str]); 3] = [
        (
            "torch_cpu/multi_rank/control",
            "torch_cpu/multi_rank/test",
            &["--rank", "all", "--iteration", "all"],
        ),
        (
            "hta_two_ranks",
            "hta_two_ranks",
            &["--control-rank", "0", "--test-rank", "1"],
        ),
        ("hta_trace_diff/control", "hta_trace_diff/test", &["--iteration", "all"]),
    ];
    for (c, t, extra) in cases {
        let root = if c == t {
            mirror(&[("both", &shared.join(c))])
        } else {
            mirror(&[("control", &shared.join(c)), ("test", &shared.join(t))])
        };
        let (cs, ts) = if c == t { ("both", "both") } else { ("control", "test") };
        let mut cmds = commands(cs, ts, extra);
        // The gate has no per-side ranks: it runs with its defaults (every rank and step).
        cmds.retain(|a| !(a[0] == "gate" && extra.contains(&"--control-rank")));
        cmds.extend(
            commands(cs, ts, &[])
                .into_iter()
                .filter(|a| a[0] == "compare" || a[0] == "gate"),
        );
        // HTA's two ranks are a sample of a job of 128 (distributedInfo.world_size): the gate
        // judges them when told that the other ranks are missing on purpose.
        if c == "hta_two_ranks" {
            for a in cmds.iter_mut().filter(|a| a[0] == "gate") {
                a.push("--allow-missing-ranks".to_string());
            }
        }
        assert_same(root.path(), &cmds);
    }
}

fn fails(cwd: &Path, args: &[&str]) -> String {
    let (out, err, code) = run(cwd, args);
    assert_eq!(code, 2, "{args:?}: {err}");
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    err.trim_end().to_string()
}

#[test]
fn bad_parquet_is_one_line_naming_the_file() {
    let f = repo().join("fixtures/ranks");
    let root = mirror(&[("control", &f.join("control")), ("test", &f.join("test"))]);
    let dir = root.path();
    let good = std::fs::read(dir.join("s/control/rank0.parquet")).unwrap();
    std::fs::write(dir.join("truncated.parquet"), &good[..good.len() / 2]).unwrap();
    assert_eq!(
        fails(dir, &["compare", "truncated.parquet", "s/test/rank0.parquet"]),
        "tracediff: invalid Parquet file: Parquet error: Invalid Parquet file. Corrupt footer (truncated.parquet)"
    );
    // A Parquet file that is not a summary: the events table.
    let (_, err, code) = run(dir, &["events", "t/control", "-o", "events.parquet"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        fails(dir, &["compare", "events.parquet", "s/test/rank0.parquet"]),
        "tracediff: a Parquet file but not a tracediff summary (no 'tracediff.summary' metadata) (events.parquet)"
    );
    // Another schema version.
    let mut summary = tracediff::read_summary(&dir.join("s/control/rank0.parquet")).unwrap();
    summary.meta.schema_version = 99;
    tracediff::save_summary(&summary, &dir.join("v99.parquet")).unwrap();
    assert_eq!(
        fails(dir, &["gate", "v99.parquet", "s/test", "--fail-on-added", "."]),
        "tracediff: summary schema version 99, this tracediff reads versions 1 to 6 (run tracediff summarize again) (v99.parquet)"
    );
    // Commands that need events refuse summaries, naming the file.
    let refused = "a tracediff summary holds no events: this command needs the trace (summaries serve compare, ops-diff, plot, gate and overview)";
    for args in [
        &["operators", "s/control", "s/test"][..],
        &["kernels", "s/control", "t/test"],
        &["modules", "s/control", "s/test"],
        &["report", "s/control", "s/test", "-o", "r.html"],
        &["events", "s/control"],
        &["compare", "s/control", "s/test", "--group-by", "stream"],
        &["summarize", "s/control/rank0.parquet", "-o", "again.parquet"],
    ] {
        assert_eq!(
            fails(dir, args),
            format!("tracediff: {refused} (s/control/rank0.parquet)"),
            "{args:?}"
        );
    }
}

#[test]
fn summaries_round_trip_and_are_small() {
    let trace = repo().join("fixtures/ranks/control/rank0.json");
    let file = tracediff_trace::input::load::load_file(&trace, &Default::default()).unwrap();
    let summary = tracediff::summarize_file(&file, &trace);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.parquet");
    tracediff::save_summary(&summary, &path).unwrap();
    let back = tracediff::read_summary(&path).unwrap();
    assert_eq!(back, summary);
    assert_eq!(back.meta.source, trace);
    assert_eq!(back.meta.tracediff_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(back.rows.len(), 12);
}

/// `events --format parquet` holds the CSV's rows and values, typed: µs as float64 and exact ns
/// as int64, attributes typed by their specs (null where a file lacks them).
#[test]
fn events_parquet_holds_the_csv_values_typed() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::{Field, RowAccessor};
    let dir = tempfile::tempdir().unwrap();
    let trace = repo().join("fixtures/ranks/control");
    let trace = trace.to_str().unwrap();
    let args = ["events", trace, "--arg", "external_id,input_dims", "--iteration", "5,6"];
    let (csv_out, err, code) = run(dir.path(), &[&args[..], &["--format", "csv"]].concat());
    assert_eq!(code, 0, "{err}");
    let (out, err, code) = run(dir.path(), &[&args[..], &["-o", "e.parquet"]].concat());
    assert_eq!((code, out.len()), (0, 0), "{err}");
    let reader = SerializedFileReader::new(std::fs::File::open(dir.path().join("e.parquet")).unwrap()).unwrap();
    let schema: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| format!("{} {}", c.name(), c.physical_type()))
        .collect();
    assert_eq!(
        schema.join(", "),
        "index INT64, rank INT64, name BYTE_ARRAY, cat BYTE_ARRAY, pid BYTE_ARRAY, tid BYTE_ARRAY, \
         ts DOUBLE, ts_ns INT64, dur DOUBLE, dur_ns INT64, stream INT64, correlation INT64, \
         index_correlation INT64, iteration INT64, external_id INT64, input_dims BYTE_ARRAY"
    );
    let mut csv = csv::Reader::from_reader(&csv_out[..]);
    let header = csv.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    let pq: Vec<parquet::record::Row> = reader.get_row_iter(None).unwrap().map(Result::unwrap).collect();
    assert_eq!(pq.len(), rows.len());
    assert!(pq.len() > 10);
    for (c, p) in rows.iter().zip(&pq) {
        let text = |name: &str| {
            c.get(header.iter().position(|h| h == name).unwrap())
                .unwrap()
                .to_string()
        };
        let col = |name: &str| p.get_column_iter().position(|(n, _)| n == name).unwrap();
        for int in [
            "index",
            "rank",
            "stream",
            "correlation",
            "index_correlation",
            "iteration",
            "external_id",
        ] {
            assert_eq!(p.get_long(col(int)).unwrap().to_string(), text(int), "{int}");
        }
        for s in ["name", "cat", "pid", "tid", "input_dims"] {
            assert_eq!(p.get_string(col(s)).unwrap(), &text(s), "{s}");
        }
        for t in ["ts", "dur"] {
            let us: f64 = text(t).parse().unwrap();
            assert_eq!(p.get_double(col(t)).unwrap(), us, "{t}");
            let ns = p.get_long(col(&format!("{t}_ns"))).unwrap();
            assert_eq!(ns as f64, (us * 1000.0).round(), "{t}_ns");
        }
        assert!(!matches!(p.get_column_iter().next().unwrap().1, Field::Null));
    }
    // Parquet is a file: not standard output.
    let (_, err, code) = run(dir.path(), &[&args[..], &["--format", "parquet"]].concat());
    assert_eq!(
        (code, err.as_str()),
        (2, "tracediff: --format parquet writes a file: give -o FILE\n")
    );
}

/// Every single-bit flip of a summary is refused with a one-line error, or reads back exactly
/// the same summary (a bit the reader never looks at, such as a statistic): never a panic, never
/// a changed number.
#[test]
fn every_flipped_bit_is_refused_or_harmless() {
    let f = repo().join("fixtures/ranks");
    let root = mirror(&[("control", &f.join("control")), ("test", &f.join("test"))]);
    let path = root.path().join("s/control/rank0.parquet");
    let good = std::fs::read(&path).unwrap();
    let read = |bytes: Vec<u8>| tracediff::read_summary_bytes(Path::new("x.parquet"), bytes);
    let original = read(good.clone()).unwrap();
    let (mut refused, mut same) = (0, 0);
    for byte in 0..good.len() {
        for bit in [byte % 8, (byte + 3) % 8] {
            let mut bytes = good.clone();
            bytes[byte] ^= 1 << bit;
            match read(bytes) {
                Err(e) => {
                    let msg = e.to_string();
                    assert!(msg.ends_with("(x.parquet)") && !msg.contains('\n'), "{msg}");
                    refused += 1;
                }
                Ok(s) => {
                    assert_eq!(s, original, "bit {bit} of byte {byte} changed the summary");
                    same += 1;
                }
            }
        }
    }
    assert!(refused > same, "{refused} refused, {same} harmless");
}

/// A summary that makes the Parquet decoder itself panic (the first single-bit flip of a good
/// one that does) is refused by the binary with exit code 2 and one line: the panic is caught
/// and its own message is not printed (the command line's panic hook).
#[test]
fn a_summary_that_panics_the_decoder_is_one_line_and_exit_2() {
    let f = repo().join("fixtures/ranks");
    let root = mirror(&[("control", &f.join("control")), ("test", &f.join("test"))]);
    let dir = root.path();
    let good = std::fs::read(dir.join("s/control/rank0.parquet")).unwrap();
    let panics = (0..good.len() * 8)
        .map(|k| {
            let mut bytes = good.clone();
            bytes[k / 8] ^= 1 << (k % 8);
            bytes
        })
        .find(|bytes| {
            tracediff::read_summary_bytes(Path::new("x.parquet"), bytes.clone())
                .is_err_and(|e| e.to_string().contains("the Parquet decoder failed"))
        })
        .expect("a bit flip that makes the decoder panic");
    std::fs::write(dir.join("bad.parquet"), panics).unwrap();
    let line = fails(dir, &["compare", "bad.parquet", "s/test/rank0.parquet"]);
    assert!(
        line.starts_with("tracediff: corrupt summary: the Parquet decoder failed (")
            && line.ends_with(" (bad.parquet)"),
        "{line}"
    );
}

/// The checksum catches a changed value that still decodes: a count rewritten in place.
#[test]
fn a_summary_whose_rows_do_not_match_its_checksum_is_refused() {
    let f = repo().join("fixtures/ranks");
    let root = mirror(&[("control", &f.join("control")), ("test", &f.join("test"))]);
    let dir = root.path();
    let mut summary = tracediff::read_summary(&dir.join("s/control/rank0.parquet")).unwrap();
    summary.rows[0].count += 1;
    // Written with a correct checksum: read back fine.
    let out = dir.join("edited.parquet");
    tracediff::save_summary(&summary, &out).unwrap();
    assert_eq!(tracediff::read_summary(&out).unwrap(), summary);
    // The rows of one file under the checksum of another.
    let mut forged = Vec::new();
    let original = tracediff::read_summary(&dir.join("s/control/rank0.parquet")).unwrap();
    tracediff::write_summary(&original, &mut forged).unwrap();
    let mut edited = std::fs::read(&out).unwrap();
    let key = b"tracediff.summary.sha256";
    let at = |b: &[u8]| b.windows(key.len()).position(|w| w == key).unwrap();
    let (a, b) = (at(&forged), at(&edited));
    // The hex digest follows the key (a thrift length prefix apart) in both files.
    let digest = forged[a + key.len()..a + key.len() + 70].to_vec();
    edited[b + key.len()..b + key.len() + 70].copy_from_slice(&digest);
    std::fs::write(&out, &edited).unwrap();
    assert_eq!(
        fails(dir, &["compare", "edited.parquet", "s/test/rank0.parquet"]),
        "tracediff: corrupt summary: its rows do not match the checksum stored with them (a damaged copy? run tracediff summarize again) (edited.parquet)"
    );
}

#[test]
fn summaries_carry_the_breakdown_and_old_ones_read_without_it() {
    let f = repo().join("fixtures/ranks");
    let root = mirror(&[("control", &f.join("control")), ("test", &f.join("test"))]);
    let dir = root.path();
    let json = |c: &str, t: &str| -> serde_json::Value {
        let (out, err, code) = run(dir, &["overview", c, t, "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_slice(&out).unwrap()
    };
    let over_traces = json("t/control", "t/test");
    assert!(over_traces["control"]["breakdown"].is_object(), "{over_traces}");
    let over_summaries = json("s/control", "s/test");
    for side in ["control", "test"] {
        assert_eq!(over_summaries[side]["breakdown"], over_traces[side]["breakdown"]);
    }
    // A version 1 summary: the same windows without their breakdown.
    let mut old = tracediff::read_summary(&dir.join("s/control/rank0.parquet")).unwrap();
    old.meta.schema_version = 1;
    for w in old.meta.windows.iter_mut().chain(old.meta.span.as_mut()) {
        w.breakdown = None;
    }
    tracediff::save_summary(&old, &dir.join("v1.parquet")).unwrap();
    let from_old = json("v1.parquet", "s/test");
    assert!(from_old["control"]["breakdown"].is_null(), "{from_old}");
    assert!(from_old["test"]["breakdown"].is_object());
    assert!(from_old["diff"]["breakdown"]["compute_per_step_us"].is_null());
    assert_eq!(
        from_old["control"]["mean_step_time_us"],
        over_traces["control"]["mean_step_time_us"]
    );
}

/// Summaries carry the rows' own times, so `compare` finds a run-wide shift over them as over the
/// traces; a summary made before they were written (schema 3) reads, and the shift is then not
/// looked for, with a note saying why (docs/significance.md#a-run-wide-shift).
#[test]
fn summaries_carry_own_times_and_old_ones_get_no_run_wide_shift() {
    let f = repo().join("fixtures/shift");
    let root = mirror(&[("control", &f.join("base")), ("test", &f.join("slow"))]);
    let dir = root.path();
    let compare = |c: &str, t: &str| -> (serde_json::Value, String) {
        let args = ["compare", c, t, "--iteration", "all", "--no-save", "--format", "json"];
        let (out, err, code) = run(dir, &args);
        assert_eq!(code, 0, "{err}");
        (serde_json::from_slice(&out).unwrap(), err)
    };
    let (over_traces, _) = compare("t/control", "t/test");
    assert_eq!(
        over_traces["run_shift"]["applied"], true,
        "{}",
        over_traces["run_shift"]
    );
    let (over_summaries, err) = compare("s/control", "s/test");
    assert_eq!(over_summaries["run_shift"], over_traces["run_shift"]);
    assert!(err.contains("the whole run moved"), "{err}");
    let summary = tracediff::read_summary(&dir.join("s/control/trace.parquet")).unwrap();
    assert!(summary.has_own_times());
    // Host rows own less than their totals (children nest in them); device rows own their whole.
    assert!(summary.rows.iter().any(|r| r.self_ns < r.total_ns));
    // Written as schema 3 was: no self_ns column.
    let mut old = summary.clone();
    old.meta.schema_version = 3;
    tracediff::save_summary(&old, &dir.join("v3.parquet")).unwrap();
    let back = tracediff::read_summary(&dir.join("v3.parquet")).unwrap();
    assert!(!back.has_own_times());
    assert!(back.rows.iter().all(|r| r.self_ns == 0));
    let (from_old, err) = compare("v3.parquet", "s/test");
    assert!(from_old["run_shift"]["host"].is_null(), "{}", from_old["run_shift"]);
    assert_eq!(from_old["run_shift"]["applied"], false);
    assert!(
        err.contains(
            "a run-wide shift (the whole run slower or faster, as on another machine) was not looked for: \
             summaries made by tracediff before summary schema 4 hold no own times"
        ),
        "{err}"
    );
    // The rows and counts are the summaries' as before.
    assert_eq!(
        from_old["rows"].as_array().unwrap().len(),
        over_traces["rows"].as_array().unwrap().len()
    );
}
