//! The second robustness audit's findings (docs/robustness.md): each test builds the hostile
//! input that showed the defect, small, and checks what the tool promises instead.

use crate::common;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Writes `{"traceEvents": events}` (plus `extra` top-level keys) as `name` in `dir`.
fn write_trace(dir: &Path, name: &str, events: Vec<Value>, extra: Value) -> PathBuf {
    let mut doc = json!({ "traceEvents": events });
    if let (Some(d), Some(e)) = (doc.as_object_mut(), extra.as_object()) {
        d.extend(e.clone());
    }
    let path = dir.join(name);
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

/// A CPU op (times in µs).
fn op(name: &str, ts: f64, dur: f64) -> Value {
    json!({"ph": "X", "name": name, "cat": "cpu_op", "ts": ts, "dur": dur, "pid": 1, "tid": 1})
}

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The Parquet columns of `path`: (name, physical type) in order.
fn parquet_columns(path: &Path) -> Vec<(String, String)> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr();
    schema
        .columns()
        .iter()
        .map(|c| (c.name().to_string(), c.physical_type().to_string()))
        .collect()
}

/// Attribute keys holding a tab, `;`, `,`, `}` or a line break panicked or failed the schema
/// parser; now they are column names like any other, read back exactly. Files of one run whose
/// attributes differ (a key only in one, a key int in one and float or text in another) write
/// one schema: the union, one type per column.
#[test]
fn parquet_events_take_any_attribute_key_and_the_union_of_a_runs_attributes() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let run = d.join("run");
    std::fs::create_dir(&run).unwrap();
    let hostile = ["a\tb;c", "x,y", "}z", "line\nbreak", "q\"uote"];
    let mut args = serde_json::Map::new();
    for (k, key) in hostile.iter().enumerate() {
        args.insert((*key).to_string(), json!(k));
    }
    args.insert("mixed".into(), json!(1));
    // Parquet adds `ts_ns` and `dur_ns` beside `ts` and `dur`: a key of that name is renamed.
    args.insert("ts_ns".into(), json!(3));
    let mut e0 = op("aten::a", 10.0, 5.0);
    e0["args"] = Value::Object(args);
    let rank = |r: i64| json!({"distributedInfo": {"rank": r}});
    write_trace(&run, "rank0.json", vec![e0], rank(0));
    let mut e1 = op("aten::b", 10.0, 5.0);
    e1["args"] = json!({"mixed": 2.5, "only_here": "text", "x,y": "seven"});
    write_trace(&run, "rank1.json", vec![e1], rank(1));
    let out = d.join("e.parquet");
    let r = common::run(&["events", text(&run), "--args", "all", "-o", text(&out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let cols = parquet_columns(&out);
    let attrs: Vec<(String, String)> = cols[14..].to_vec();
    let want = [
        ("a\tb;c", "INT64"),
        ("x,y", "BYTE_ARRAY"),
        ("}z", "INT64"),
        ("line\nbreak", "INT64"),
        ("q\"uote", "INT64"),
        ("mixed", "DOUBLE"),
        ("ts_ns_arg", "INT64"),
        ("only_here", "BYTE_ARRAY"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(attrs, want);
    // Each rank alone writes its own columns; read together the set is one table.
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;
    let reader = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
    let rows: Vec<parquet::record::Row> = reader.get_row_iter(None).unwrap().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].get_double(19).unwrap(), 1.0);
    assert_eq!(rows[1].get_double(19).unwrap(), 2.5);
    assert_eq!(rows[0].get_long(20).unwrap(), 3);
    assert_eq!(rows[0].get_string(15).unwrap(), "1");
    assert_eq!(rows[1].get_string(15).unwrap(), "seven");
}

/// A named FIFO as `-o`: it was opened twice (once to check it, once to write), so its reader
/// got 0 bytes and the tool blocked forever. Now the reader gets the output and the tool exits.
#[cfg(unix)]
#[test]
fn a_fifo_as_output_gets_the_bytes_and_the_tool_exits() {
    let dir = TempDir::new().unwrap();
    let fifo = dir.path().join("out.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(&fifo).unwrap())
    };
    let args = [
        "compare",
        "fixtures/ranks/control",
        "fixtures/ranks/test",
        "--format",
        "csv",
    ];
    let mut cmd = assert_cmd::Command::cargo_bin("tracediff").unwrap();
    let out = cmd
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TRACEDIFF_STATE_DIR", dir.path())
        .args(args)
        .args(["-o", text(&fifo)])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let got = reader.join().unwrap();
    let want = common::ok(&args);
    assert_eq!(String::from_utf8(got).unwrap(), want);
}

/// SIGINT or SIGTERM while an output is being written: the temporary file beside the target
/// (2–15 MB of it) was left behind. Now the handler removes it, then ends the process as the
/// signal would (the target is never created half-written).
#[cfg(unix)]
#[test]
fn a_signal_mid_write_leaves_no_temporary_file() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    // Enough events that writing them takes a while.
    let events: Vec<Value> = (0..150_000)
        .map(|k| op(&format!("aten::op{}", k % 97), f64::from(k), 0.5))
        .collect();
    let trace = write_trace(d, "big.json", events, json!({}));
    let out_dir = d.join("out");
    std::fs::create_dir(&out_dir).unwrap();
    for signal in ["TERM", "INT"] {
        let target = out_dir.join("events.csv");
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("tracediff"))
            .args(["events", text(&trace), "-o", text(&target)])
            .env("TRACEDIFF_STATE_DIR", d)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Wait for the temporary file, then signal.
        let start = std::time::Instant::now();
        let mut seen = false;
        while start.elapsed() < std::time::Duration::from_secs(120) {
            let tmp = std::fs::read_dir(&out_dir)
                .unwrap()
                .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp"));
            if tmp {
                seen = true;
                break;
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(seen, "the temporary file appeared before the write ended");
        let killed = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        // Ended by the signal (or, had it finished first, with 0).
        assert!(status.signal().is_some() || status.code() == Some(0), "{status:?}");
        let left: Vec<String> = std::fs::read_dir(&out_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "SIG{signal} left {left:?}");
        assert!(
            !target.exists() || status.code() == Some(0),
            "no half file under the target"
        );
    }
}

/// `plot --metric both`: the second chart failing (here its path is a directory; a full disk
/// does the same) left the first one new and the second old. Now both are written or neither.
#[test]
fn a_chart_pair_is_written_as_one_unit() {
    let dir = TempDir::new().unwrap();
    let counts = dir.path().join("c-counts.svg");
    std::fs::write(&counts, "old").unwrap();
    std::fs::create_dir(dir.path().join("c-duration.svg")).unwrap();
    let out = dir.path().join("c.svg");
    let r = common::run(&[
        "plot",
        "fixtures/ranks/control",
        "fixtures/ranks/test",
        "--metric",
        "both",
        "-o",
        text(&out),
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&counts).unwrap(), "old");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no temporary file left"
    );
}

/// A trace whose step holds `n` calls of one module (an RNN cell called `n` times a step), each
/// around an operator.
fn same_key_siblings(dir: &Path, name: &str, n: usize) -> PathBuf {
    let mut events = vec![
        json!({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 10 * n + 100}),
    ];
    events.push(json!({"ph": "X", "cat": "python_function", "name": "nn.Module: Net_0", "pid": 1, "tid": 1, "ts": 1, "dur": 10 * n + 50}));
    for k in 0..n {
        events.push(json!({"ph": "X", "cat": "python_function", "name": "nn.Module: RNNCell_0", "pid": 1, "tid": 1, "ts": 2 + 10 * k, "dur": 8}));
        events.push(
            json!({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 3 + 10 * k, "dur": 5}),
        );
    }
    write_trace(dir, name, events, json!({}))
}

/// 8,000 same-key siblings a side took 4.4 GB and 22 s: every pair of them was counted. Runs
/// of equal keys now pair in order, each call with its counterpart, in linear memory.
#[test]
fn thousands_of_same_key_siblings_pair_in_order() {
    let dir = TempDir::new().unwrap();
    let c = same_key_siblings(dir.path(), "c.json", 8000);
    let t = same_key_siblings(dir.path(), "t.json", 7990);
    let v = common::json(&["modules", text(&c), text(&t), "--no-fold", "--depth", "2"]);
    let net = &v["children"][0];
    let children = net["children"].as_array().unwrap();
    let status = |k: usize| children[k]["status"].as_str().unwrap().to_string();
    assert_eq!(children.len(), 8001, "8,000 cells and (unknown)");
    assert!((0..7990).all(|k| status(k) == "matched"));
    assert!((7990..8000).all(|k| status(k) == "deleted"));
}

/// 40,000 nested single-child modules took 15–48 s: each node walked the chain below it. The
/// walk now goes down only as far as the node's own wrappers.
#[test]
fn a_deep_chain_of_single_child_modules_aligns() {
    let dir = TempDir::new().unwrap();
    let depth = 40_000;
    let mut events = vec![
        json!({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 4 * depth + 100}),
    ];
    for k in 0..depth {
        events.push(json!({"ph": "X", "cat": "python_function", "name": format!("nn.Module: L{k}_0"), "pid": 1, "tid": 1, "ts": 1 + 2 * k, "dur": 4 * depth - 4 * k}));
    }
    let p = write_trace(dir.path(), "deep.json", events, json!({}));
    let r = common::run(&["modules", text(&p), text(&p), "--depth", "3"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("L0"), "{}", r.stdout);
}

/// 10,000 nested operators gave 500 MB of folded stacks (each line names every frame above
/// it). Operators deeper than 256 levels below their node now fold into the one at that level,
/// which takes their time: the stacks stay small and still add up to every nanosecond.
#[test]
fn deeply_nested_operators_fold_at_a_depth_and_keep_their_time() {
    let dir = TempDir::new().unwrap();
    let depth = 10_000i64;
    let mut events = vec![
        json!({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 4 * depth + 100}),
    ];
    for k in 0..depth {
        events.push(json!({"ph": "X", "cat": "cpu_op", "name": format!("aten::op{k}"), "pid": 1, "tid": 1, "ts": 1 + 2 * k, "dur": 4 * depth - 4 * k}));
    }
    let p = write_trace(dir.path(), "ops.json", events, json!({}));
    let out = dir.path().join("ops.folded");
    let r = common::run(&[
        "flamegraph",
        text(&p),
        text(&p),
        "--folded",
        "--side",
        "control",
        "-o",
        text(&out),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let folded = std::fs::read_to_string(&out).unwrap();
    assert!(folded.len() < 2_000_000, "{} bytes", folded.len());
    let deepest = folded.lines().map(|l| l.matches(';').count()).max().unwrap();
    assert!(deepest <= 256 + 2, "{deepest} frames");
    let total: i64 = folded
        .lines()
        .map(|l| l.rsplit_once(' ').unwrap().1.parse::<i64>().unwrap())
        .sum();
    // Every nanosecond of the step.
    assert_eq!(total, (4 * depth + 100) * 1000);
}

/// `overview --rank all --iteration N` counted a rank without step N as a 0 ns rank:
/// "straggler 2.00×" where every step took the same time. A rank that ran none of the selected
/// steps has no step time and is left out of the straggler.
#[test]
fn a_rank_without_the_step_is_no_zero_ns_straggler() {
    let dir = TempDir::new().unwrap();
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    for rank in 0..2 {
        let mut events = vec![op("ProfilerStep#1", 0.0, 100.0), op("aten::a", 10.0, 5.0)];
        if rank == 0 {
            events.extend([op("ProfilerStep#2", 200.0, 100.0), op("aten::a", 210.0, 5.0)]);
        }
        write_trace(
            &run,
            &format!("r{rank}.json"),
            events,
            json!({"distributedInfo": {"rank": rank}}),
        );
    }
    let r = text(&run);
    let v = common::json(&["overview", r, r, "--rank", "all", "--iteration", "2"]);
    assert_eq!(v["control"]["straggler"], Value::Null, "{v}");
    let out = common::ok(&["overview", r, r, "--rank", "all", "--iteration", "all"]);
    assert!(out.contains("control: no straggler"), "{out}");
}

/// clap's own errors quoted the argument raw: an ESC sequence in it cleared the screen or set
/// the window title. Now it is shown escaped, like every other error.
#[test]
fn clap_errors_show_control_characters_escaped() {
    for args in [vec!["\u{1b}]0;title\u{7}"], vec!["compare", "--bogus\u{1b}[2J"]] {
        let r = common::run(&args);
        assert_eq!(r.code, 2);
        assert!(
            !r.stderr.contains('\u{1b}') && !r.stderr.contains('\u{7}'),
            "{:?}",
            r.stderr
        );
        assert!(r.stderr.contains("\\x1b"), "{:?}", r.stderr);
    }
}

/// A name holding U+FFFE, U+FFFF or a C0 control made every SVG (plot, flame graph, the
/// report's) ill-formed XML. Each such character is now written as its escape.
#[test]
fn svgs_stay_well_formed_for_any_character_in_a_name() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let names = ["a\u{FFFE}b", "c\u{FFFF}d", "e\u{1}f", "g\u{10FFFF}h"];
    let events = |slow: f64| {
        let mut ev = vec![op("ProfilerStep#1", 0.0, 1000.0)];
        ev.extend(
            names
                .iter()
                .enumerate()
                .map(|(k, n)| op(n, 10.0 + 100.0 * k as f64, 50.0 * slow)),
        );
        ev
    };
    let c = write_trace(d, "c.json", events(1.0), json!({}));
    let t = write_trace(d, "t.json", events(1.5), json!({}));
    let svgs = [
        (vec!["plot", "--metric", "duration"], "plot.svg"),
        (vec!["flamegraph"], "flame.svg"),
        (vec!["flamegraph", "--side", "test"], "side.svg"),
    ];
    for (cmd, file) in svgs {
        let out = d.join(file);
        let mut args = cmd.clone();
        args.extend([text(&c), text(&t), "-o", text(&out)]);
        let r = common::run(&args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        let svg = std::fs::read_to_string(&out).unwrap();
        let options = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        };
        roxmltree::Document::parse_with_options(&svg, options).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        assert!(!svg.contains('\u{FFFE}') && !svg.contains('\u{FFFF}'), "{args:?}");
    }
    // The report's embedded SVGs.
    let report = d.join("r.html");
    let r = common::run(&["report", text(&c), text(&t), "-o", text(&report)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let html = std::fs::read_to_string(&report).unwrap();
    // Its inline charts and the flame graphs' data URLs (HTML text may hold any character).
    let mut pictures = 0;
    for part in html.split("<svg").skip(1) {
        let svg = part.split("</svg>").next().unwrap();
        assert!(!svg.contains('\u{FFFE}') && !svg.contains('\u{FFFF}'), "{svg}");
        pictures += 1;
    }
    for part in html.split("data:image/svg+xml,").skip(1) {
        let url = part.split('"').next().unwrap();
        assert!(!url.contains('\u{FFFE}') && !url.contains('\u{FFFF}'));
        pictures += 1;
    }
    assert!(pictures >= 3, "{pictures}");
}

/// Chrome and Perfetto `B`/`E` (and async `b`/`e`) events were dropped without a word. A
/// note now says how many were left out, naming the file.
#[test]
fn begin_end_events_left_out_are_counted_in_a_note() {
    let dir = TempDir::new().unwrap();
    let mut events = vec![op("ProfilerStep#1", 0.0, 100.0), op("aten::a", 1.0, 2.0)];
    events.extend([
        json!({"ph": "B", "name": "b", "cat": "cpu_op", "ts": 10, "pid": 1, "tid": 1}),
        json!({"ph": "E", "ts": 20, "pid": 1, "tid": 1}),
        json!({"ph": "b", "name": "x", "cat": "async", "id": 1, "ts": 10, "pid": 1, "tid": 1}),
        json!({"ph": "e", "name": "x", "cat": "async", "id": 1, "ts": 30, "pid": 1, "tid": 1}),
    ]);
    let p = write_trace(dir.path(), "be.json", events, json!({}));
    for cmd in ["compare", "operators"] {
        let r = common::run(&[cmd, text(&p), text(&p)]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let note = format!(
            "tracediff: note: left out 4 begin/end events (ph B/E or b/e) of {}: tracediff reads complete events (ph X) only",
            p.display()
        );
        assert!(r.stderr.lines().any(|l| l == note), "{cmd}: {}", r.stderr);
    }
}

/// `--zoom` could not reach an annotation named `model/encoder`, and `--zoom '/[0]'` opened
/// another node. A `/` inside a name is now written `\/` (in the paths tracediff prints too),
/// and a path resolves exactly or fails listing the nearest paths.
#[test]
fn zoom_paths_escape_a_slash_and_resolve_exactly() {
    let dir = TempDir::new().unwrap();
    let ann = |name: &str, ts: f64, dur: f64| json!({"ph": "X", "cat": "user_annotation", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur});
    let events = vec![
        ann("ProfilerStep#1", 0.0, 100.0),
        ann("model/encoder", 1.0, 50.0),
        op("aten::mm", 2.0, 10.0),
        ann("model", 60.0, 30.0),
        op("aten::add", 61.0, 10.0),
    ];
    let p = write_trace(dir.path(), "z.json", events, json!({}));
    let p = text(&p);
    let v = common::json(&["modules", p, p, "--zoom", "model\\/encoder"]);
    assert_eq!(v["key"], "model/encoder", "{v}");
    assert_eq!(v["path"], "model\\/encoder[0]", "{v}");
    let v = common::json(&["modules", p, p, "--zoom", "/model/"]);
    assert_eq!(v["key"], "model", "{v}");
    let err = common::fails(&["modules", p, p, "--zoom", "/[0]"]);
    assert!(
        err.starts_with("--zoom '/[0]': no such node; the step has children model\\/encoder[0], model[0]"),
        "{err}"
    );
}

/// Attribute and memory integers beyond i64 were written as i64's maximum. A column made from
/// the data keeps them exactly (as text); a column declared `int`, and a memory count, refuse
/// them naming the key.
#[test]
fn integers_beyond_i64_are_exact_or_refused_naming_the_key() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    const BIG: &str = "99999999999999999999";
    let with_big = |v: Value| v.to_string().replace("\"BIG\"", BIG);
    let mut e = op("aten::a", 10.0, 5.0);
    e["args"] = json!({"big": "BIG", "External id": 5});
    let big_attr = d.join("big_attr.json");
    std::fs::write(
        &big_attr,
        with_big(json!({"traceEvents": [op("ProfilerStep#1", 0.0, 100.0), e]})),
    )
    .unwrap();
    let csv = common::ok(&["events", text(&big_attr), "--args", "all", "--format", "csv"]);
    assert!(csv.lines().nth(2).unwrap().contains(",99999999999999999999,"), "{csv}");
    let mut ext = op("aten::a", 10.0, 5.0);
    ext["args"] = json!({"External id": "BIG"});
    let big_ext = d.join("big_ext.json");
    std::fs::write(&big_ext, with_big(json!({"traceEvents": [ext]}))).unwrap();
    let err = common::fails(&["events", text(&big_ext), "--arg", "external_id"]);
    assert!(
        err.starts_with(
            "attribute 'External id' 99999999999999999999 is outside the 64-bit integers tracediff keeps exactly"
        ),
        "{err}"
    );
    let mem = json!({"ph": "i", "name": "[memory]", "ts": 20, "pid": 1, "tid": 1,
        "args": {"Device Type": 1, "Device Id": 0, "Total Allocated": 7, "Bytes": 5}});
    let big_mem = d.join("big_mem.json");
    let doc = json!({"traceEvents": [op("ProfilerStep#1", 0.0, 100.0), mem]}).to_string();
    std::fs::write(
        &big_mem,
        doc.replace("\"Total Allocated\":7", "\"Total Allocated\":99999999999999999999"),
    )
    .unwrap();
    let err = common::fails(&["overview", text(&big_mem), text(&big_mem)]);
    assert!(
        err.starts_with(
            "'Total Allocated' 99999999999999999999 is outside the 64-bit integers tracediff keeps exactly"
        ),
        "{err}"
    );
}

/// A repeated `ProfilerStep#1` in one file made the gate report a 0 ns step. Two host steps
/// with one number are refused, naming the file and the step.
#[test]
fn a_repeated_step_number_in_one_file_is_refused() {
    let dir = TempDir::new().unwrap();
    let p = write_trace(
        dir.path(),
        "rep.json",
        vec![
            op("ProfilerStep#1", 0.0, 100.0),
            op("aten::a", 10.0, 5.0),
            op("ProfilerStep#1", 200.0, 100.0),
        ],
        json!({}),
    );
    for cmd in [
        &["gate", "--max-step-time-regression", "10%"][..],
        &["compare"],
        &["overview"],
    ] {
        assert_eq!(
            common::fails(&[cmd, &[text(&p), text(&p)]].concat()),
            format!(
                "ProfilerStep#1 appears twice (two host steps with one number; tracediff measures one window per step) ({})",
                p.display()
            ),
            "{cmd:?}"
        );
    }
}

/// TOML errors gave neither line nor key, and a long value made a message as long as itself.
#[test]
fn gate_config_errors_name_line_column_and_key_with_values_elided() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let cfg = d.join("g.toml");
    std::fs::write(&cfg, "[gate]\nmax_op_regression = \"10%\"\nnoise_k = \"abc\"\n").unwrap();
    let f = "fixtures/ranks/control";
    assert_eq!(
        common::fails(&["gate", f, f, "--config", text(&cfg)]),
        format!(
            "invalid gate config: invalid type: string \"abc\", expected a number (line 3, column 11, key noise_k) ({})",
            cfg.display()
        )
    );
    std::fs::write(&cfg, format!("[gate]\nfail_on_added = \"{}\n", "x".repeat(100_000))).unwrap();
    let err = common::fails(&["gate", f, f, "--config", text(&cfg)]);
    assert!(
        err.len() < 1000 && err.contains("(line 2, column 100018, key fail_on_added)"),
        "{err}"
    );
    // A long --iteration list in an error is written as runs, elided.
    let list: Vec<String> = (0..15_000).map(|k| (3 * k + 7).to_string()).collect();
    let err = common::fails(&["compare", f, f, "--iteration", &list.join(",")]);
    assert!(err.len() < 400 && err.contains('…'), "{err}");
}

/// Ranks written by separate invocations (`--rank 0`, `--rank 1`, as parallel CI jobs do) have
/// one schema for the core columns and the named `--arg` columns: their types come from the
/// spec, not from the values one invocation read (docs/commands.md: only `--args all` columns
/// may differ, read with `union_by_name`).
#[test]
fn parquet_events_of_separate_rank_invocations_share_their_named_columns() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let out = |r: &str| d.join(format!("rank{r}.parquet"));
    for r in ["0", "1"] {
        let path = out(r);
        let args = [
            "events",
            "fixtures/ranks/control",
            "--rank",
            r,
            "--arg",
            "input_dims",
            "--arg",
            "external_id",
            "-o",
            text(&path),
        ];
        let ran = common::run(&args);
        assert_eq!(ran.code, 0, "{}", ran.stderr);
    }
    let (zero, one) = (parquet_columns(&out("0")), parquet_columns(&out("1")));
    assert_eq!(zero, one);
    assert_eq!(zero.len(), 16, "{zero:?}");
}
