//! Nothing lost, nothing forged (docs/robustness.md): a test per defect class — times past what
//! an i64 sums exactly, torn output files, control characters in names, corrupt inputs.

use crate::common;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Writes a trace of `ops` (name, ts µs, dur µs) as `name` in `dir`.
fn trace(dir: &Path, name: &str, ops: &[(&str, f64, f64)]) -> PathBuf {
    let events: Vec<serde_json::Value> = ops
        .iter()
        .map(|(n, ts, dur)| serde_json::json!({"ph": "X", "name": n, "cat": "cpu_op", "ts": ts, "dur": dur, "pid": 1, "tid": 1}))
        .collect();
    let path = dir.join(name);
    std::fs::write(&path, serde_json::json!({ "traceEvents": events }).to_string()).unwrap();
    path
}

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn sums_past_an_i64_are_exact_or_refused_naming_the_event() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let small = trace(d, "small.json", &[("aten::big", 1000.0, 10.0)]);
    // Three 4e15 µs ops: each past 2^61 ns, refused naming the first.
    let big = trace(
        d,
        "big.json",
        &[
            ("aten::big", 1000.0, 4e15),
            ("aten::big", 1001.0, 4e15),
            ("aten::big", 1002.0, 4e15),
        ],
    );
    assert_eq!(
        common::fails(&["compare", text(&big), text(&small)]),
        format!(
            "event 'aten::big' lasts 4000000000000000000 ns, past 2^61 ns (73 years), the most tracediff sums exactly ({}: byte 16)",
            big.display()
        )
    );
    // Ten 3e14 µs ops: each fits, their sum does not: the side is refused.
    let ten: Vec<(&str, f64, f64)> = (0..10).map(|i| ("aten::big", 1000.0 + f64::from(i), 3e14)).collect();
    let many = trace(d, "many.json", &ten);
    for cmd in ["compare", "modules", "overview", "operators"] {
        assert_eq!(
            common::fails(&[cmd, text(&many), text(&small)]),
            format!(
                "the durations of {0} add up past 2^61 ns (73 years), the most tracediff sums exactly ({0})",
                many.display()
            ),
            "{cmd}"
        );
    }
    // Three 5e14 µs ops sum to 1.5e18 ns exactly.
    let three = trace(
        d,
        "three.json",
        &[
            ("aten::big", 1000.0, 5e14),
            ("aten::big", 1001.0, 5e14),
            ("aten::big", 1002.0, 5e14),
        ],
    );
    let v = common::json(&["compare", text(&three), text(&small)]);
    assert_eq!(v["rows"][0]["control_total_us"], 1_500_000_000_000_000i64, "{v}");
    assert_eq!(v["rows"][0]["diff_total_us"], -1_499_999_999_999_990i64, "{v}");
    // An end past 2^63: refused, never a wrapped 0 ns.
    let late = trace(d, "late.json", &[("aten::late", 9.2e15, 1e15)]);
    assert_eq!(
        common::fails(&["overview", text(&late), text(&small)]),
        format!(
            "event 'aten::late' starts at 9200000000000000000 ns, outside -2^60..=2^62 ns, the times tracediff keeps exactly ({}: byte 16)",
            late.display()
        )
    );
}

#[test]
fn a_negative_dur_is_refused() {
    let dir = TempDir::new().unwrap();
    let neg = trace(dir.path(), "neg.json", &[("aten::neg", 1000.0, -5.0)]);
    assert_eq!(
        common::fails(&["operators", text(&neg), text(&neg)]),
        format!(
            "event 'aten::neg' has a negative 'dur' (-5000 ns) ({}: byte 16)",
            neg.display()
        )
    );
}

/// Every command that writes a file checks its path before loading anything: a missing
/// directory fails first, even with a missing trace.
#[test]
fn a_bad_output_path_fails_before_the_work() {
    let dir = TempDir::new().unwrap();
    let bad = dir.path().join("no/such/dir/out");
    let b = bad.display();
    for (args, file) in [
        (vec!["compare", "missing-a", "missing-b", "-o"], "x.csv"),
        (vec!["ops-diff", "missing-a", "missing-b", "-o"], "x.csv"),
        (vec!["operators", "missing-a", "missing-b", "-o"], "x.csv"),
        (vec!["kernels", "missing-a", "missing-b", "-o"], "x.csv"),
        (vec!["overview", "missing-a", "missing-b", "-o"], "x.json"),
        (vec!["modules", "missing-a", "missing-b", "-o"], "x.json"),
        (vec!["gate", "missing-a", "missing-b", "-o"], "x.json"),
        (vec!["plot", "missing-a", "missing-b", "-o"], "x.svg"),
        (vec!["report", "missing-a", "missing-b", "-o"], "x.html"),
        (vec!["events", "missing-a", "-o"], "x.csv"),
        (vec!["summarize", "missing-a", "-o"], "x.parquet"),
    ] {
        let out = format!("{b}/{file}");
        let mut all = args.clone();
        all.push(&out);
        assert_eq!(
            common::fails(&all),
            format!("cannot write {out}: no such file or directory"),
            "{args:?}"
        );
    }
}

/// A failed run leaves the previous file as it was, and no temporary file beside it (a write
/// failing mid-way, as on a full disk, is the unit test in `src/atomic.rs`).
#[test]
fn summarize_and_events_replace_their_file_whole() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("s.parquet");
    std::fs::write(&out, "previous").unwrap();
    // A trace that fails to parse: the previous summary stays.
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, r#"{"traceEvents": [{"ph": "X", "#).unwrap();
    let r = common::run(&["summarize", text(&broken), "-o", text(&out)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous");
    // A good one replaces it whole; nothing else is left in the directory.
    common::ok(&["summarize", "fixtures/basic/control/trace.json", "-o", text(&out)]);
    assert!(tracediff::read_summary(&out).is_ok());
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["broken.json", "s.parquet"]);
}

const EVIL: &str = "aten::evil\u{1b}]0;pwned\u{7}\u{9b}31m<&>";

/// Tables and errors show control characters escaped; CSV and JSON keep the name exactly; an
/// SVG chart stays well-formed XML.
#[test]
fn control_characters_are_shown_never_sent_raw() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let a = trace(d, "a.json", &[(EVIL, 1000.0, 10.0)]);
    let b = trace(d, "b.json", &[(EVIL, 1000.0, 20.0)]);
    let shown = "aten::evil\\x1b]0;pwned\\x07\\u{9b}31m<&>";
    let table = common::ok(&["compare", text(&a), text(&b), "--full-names"]);
    assert!(table.contains(shown), "{table}");
    let md = common::ok(&["operators", text(&a), text(&b), "--format", "markdown"]);
    assert!(md.contains("aten::evil\\x1b"), "{md}");
    for out in [&table, &md] {
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{7}') && !out.contains('\u{9b}'),
            "{out}"
        );
    }
    let csv = common::ok(&["compare", text(&a), text(&b), "--format", "csv"]);
    assert!(csv.contains(EVIL), "CSV keeps the exact name: {csv}");
    let v = common::json(&["compare", text(&a), text(&b)]);
    assert_eq!(v["rows"][0]["name"], EVIL);
    // An error naming a file whose name holds an escape sequence.
    let odd = d.join("x\u{1b}[2J.json");
    std::fs::write(&odd, "{").unwrap();
    let r = common::run(&["compare", text(&odd), text(&b)]);
    assert!(
        !r.stderr.contains('\u{1b}') && r.stderr.contains("x\\x1b[2J.json"),
        "{}",
        r.stderr
    );
    // The SVG parses as XML and shows the name.
    let svg = d.join("x.svg");
    common::ok(&["plot", text(&a), text(&b), "--metric", "counts", "-o", text(&svg)]);
    let page = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&page).expect("the SVG is well-formed XML");
    assert!(
        doc.descendants()
            .any(|n| n.text().is_some_and(|t| t.contains("aten::evil\\x1b"))),
        "{page}"
    );
}

/// An op named `{{SCRIPT}}` (or `</script>`) keeps the report's page whole: one script element,
/// allowed by its hash in the CSP, with no `'unsafe-inline'` for scripts.
#[test]
fn the_report_keeps_its_page_whatever_the_names() {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let ops = [
        ("{{SCRIPT}}", 1000.0, 10.0),
        ("</script><script>alert(1)</script>\u{2028}", 2000.0, 10.0),
    ];
    let a = trace(d, "a.json", &ops);
    let b = trace(d, "b.json", &ops);
    let out = d.join("r.html");
    common::run(&["report", text(&a), text(&b), "-o", text(&out)]);
    let page = std::fs::read_to_string(&out).unwrap();
    assert_eq!(page.matches("<script>").count(), 1, "one executable script");
    assert_eq!(page.matches("</script>").count(), 2, "the data's and the code's");
    let csp = page.lines().find(|l| l.contains("Content-Security-Policy")).unwrap();
    assert!(
        !csp.contains("'unsafe-inline'; img") && !csp.contains("script-src 'unsafe-inline'"),
        "{csp}"
    );
    let code = page
        .split("<script>")
        .nth(1)
        .unwrap()
        .split("</script>")
        .next()
        .unwrap();
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(code.as_bytes()));
    assert!(csp.contains(&format!("script-src 'sha256-{hash}'")), "{csp}");
    let data = page
        .split(r#"id="report-data">"#)
        .nth(1)
        .unwrap()
        .split("</script>")
        .next()
        .unwrap();
    assert!(!data.contains('\u{2028}'), "escaped in JSON-in-script");
}

/// The byte an error names, from its message's `(FILE: byte N)`.
fn byte_of(error: &str) -> usize {
    let at = error.rfind("byte ").expect("names a byte") + 5;
    error[at..].trim_end_matches(')').parse().unwrap()
}

/// A control character inside a string is named at its own byte, on any line.
#[test]
fn a_control_character_error_names_its_own_byte() {
    let dir = TempDir::new().unwrap();
    let texts = [
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ab\u{1}c\", \"ts\": 1, \"dur\": 2}]}",
        "{\"traceEvents\": [\n{\"ph\": \"X\",\n \"cat\": \"cpu_op\", \"name\": \"\u{1f}\", \"ts\": 1, \"dur\": 2}]}",
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu\nop\", \"name\": \"a\", \"ts\": 1, \"dur\": 2}]}",
    ];
    for (k, body) in texts.iter().enumerate() {
        let path = dir.path().join(format!("t{k}.json"));
        std::fs::write(&path, body).unwrap();
        let e = common::fails(&["compare", text(&path), text(&path)]);
        assert!(e.starts_with("invalid JSON: control character"), "{e}");
        let at = byte_of(&e);
        assert!(body.as_bytes()[at] < 0x20, "{k}: byte {at} of {body:?}: {e}");
    }
}

/// `stream`, `correlation` and `distributedInfo.rank` past the 64-bit integers are refused at
/// their byte, never saturated; within them they are kept exactly.
#[test]
fn ids_beyond_64_bits_are_refused_not_saturated() {
    let dir = TempDir::new().unwrap();
    let event = |extra: &str| {
        format!(
            "{{\"traceEvents\": [{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": 2{extra}}}]}}"
        )
    };
    let cases = [
        (
            event(", \"args\": {\"correlation\": 99999999999999999999}"),
            "'correlation' 99999999999999999999",
        ),
        (
            event(", \"args\": {\"stream\": \"-99999999999999999999\"}"),
            "'stream' \"-99999999999999999999\"",
        ),
        (event(", \"args\": {\"stream\": 1e30}"), "'stream' 1e30"),
        (
            "{\"distributedInfo\": {\"rank\": 18446744073709551616}, \"traceEvents\": []}".to_string(),
            "'distributedInfo.rank' 18446744073709551616",
        ),
    ];
    for (k, (body, what)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("t{k}.json"));
        std::fs::write(&path, body).unwrap();
        let e = common::fails(&["compare", text(&path), text(&path)]);
        assert!(
            e.starts_with(&format!(
                "{what} is outside the 64-bit integers tracediff keeps exactly"
            )),
            "{e}"
        );
        let at = byte_of(&e);
        let number = what.split(' ').nth(1).unwrap();
        assert!(body[at..].starts_with(number), "{k}: byte {at} of {body}: {e}");
    }
    // The largest id is kept as it is.
    let path = dir.path().join("max.json");
    std::fs::write(&path, event(", \"args\": {\"correlation\": 9223372036854775807}")).unwrap();
    common::ok(&["compare", text(&path), text(&path)]);
}

/// A second `deviceProperties` that says the same is read once; one that differs is refused.
#[test]
fn a_repeated_device_properties_never_silently_wins() {
    let dir = TempDir::new().unwrap();
    let body = |second: &str| {
        format!(
            "{{\"deviceProperties\": [{{\"id\": 0, \"name\": \"A\"}}], \"traceEvents\": [{{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 2}}], \"deviceProperties\": [{{\"id\": 0, \"name\": \"{second}\"}}]}}"
        )
    };
    let same = dir.path().join("same.json");
    std::fs::write(&same, body("A")).unwrap();
    common::ok(&["overview", text(&same), text(&same)]);
    let other = dir.path().join("other.json");
    std::fs::write(&other, body("B")).unwrap();
    let e = common::fails(&["overview", text(&other), text(&other)]);
    assert!(
        e.starts_with("'deviceProperties' appears twice, describing different devices"),
        "{e}"
    );
}

/// A dangling `*.json` link in a trace directory gets a note; bytes after a gzip stream are named
/// as trailing data, not as a truncated stream.
#[cfg(unix)]
#[test]
fn dangling_links_and_trailing_gzip_data_are_named() {
    use std::io::Write;
    let dir = TempDir::new().unwrap();
    let d = dir.path().join("side");
    std::fs::create_dir(&d).unwrap();
    trace(&d, "a.json", &[("aten::mm", 1000.0, 10.0)]);
    std::os::unix::fs::symlink(dir.path().join("moved.json"), d.join("b.json")).unwrap();
    let r = common::run(&["compare", text(&d), text(&d)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "note: skipped {}: a symbolic link to a file that does not exist",
            d.join("b.json").display()
        )),
        "{}",
        r.stderr
    );
    let plain = std::fs::read(d.join("a.json")).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&plain).unwrap();
    let mut bytes = gz.finish().unwrap();
    bytes.extend(b"appended log line\n");
    let path = dir.path().join("t.json.gz");
    std::fs::write(&path, bytes).unwrap();
    let e = common::fails(&["compare", text(&path), text(&path)]);
    assert!(
        e.starts_with("18 bytes of trailing data after the gzip stream, which is not gzip"),
        "{e}"
    );
}
