use super::*;
use crate::input::attrs::Preset;
use crate::input::parser::{ParseOptions, Parser};
use crate::input::read::Compression;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Guesses found wrong, in every test.
pub(super) static WRONG_GUESSES: AtomicUsize = AtomicUsize::new(0);

/// A parser on `threads` threads that cuts blocks of `block` bytes, by the fast scan or not.
fn parser(threads: usize, block: usize, fast_scan: bool) -> Parser {
    Parser::new(ParseOptions {
        threads,
        read_here: false,
        block_bytes: block,
        fast_scan,
    })
}

/// Everything a parse by `parser` gives, as text, or its error.
fn outcome(parser: &Parser, text: &[u8], request: &AttrRequest) -> String {
    let parsed = parser.parse_trace(text, Path::new("t.json"), Compression::None, request);
    let header = parser.scan_header(text, Path::new("t.json"), Compression::None, true, None);
    let header = format!("{header:?}");
    match parsed {
        Ok(t) => format!(
            "{:?}\n{:?}\n{:?}\n{} {} {:?}\n{:?} {:?} {:?}\n{header}",
            t.strings.iter().collect::<Vec<_>>(),
            t.events,
            t.attrs,
            t.total_events,
            t.json_bytes,
            t.declared_rank,
            t.memory,
            t.flows,
            t.device_use
        ),
        Err(e) => format!("{e}\n{header}"),
    }
}

/// JSONTestSuite's documents (`../shared/jsontestsuite`, or under `$TRACEDIFF_SHARED`) as
/// values in an event, among other events: the fast path gives what the exact way gives,
/// store or error and its byte, in one block and in small ones. Ignored where the suite was
/// absent when the tests were built (this crate's build.rs).
#[test]
#[cfg_attr(
    tracediff_no_jsontestsuite,
    ignore = "needs ../shared/jsontestsuite (JSONTestSuite), absent when the tests were built: put ../shared beside the repository or set TRACEDIFF_SHARED"
)]
fn the_fast_path_reads_json_test_suite_as_the_exact_way() {
    let shared = std::env::var_os("TRACEDIFF_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = std::fs::read_dir(shared.join("jsontestsuite/test_parsing")).expect("JSONTestSuite is in ../shared");
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let event = r#"{"ph": "X", "cat": "c", "name": "n", "ts": 1, "dur": 1}"#;
    // None; every key inferred; `k` (and `device`, a key the parser reads itself) as each type.
    let mut attr_requests = vec![
        AttrRequest::default(),
        AttrRequest::build(Preset::All, &[], &[]).unwrap(),
    ];
    for ty in ["string", "int", "float", "object"] {
        let specs = [format!("k=k:{ty}"), "d=device:int".to_string()];
        attr_requests.push(AttrRequest::build(Preset::None, &[], &specs).unwrap());
    }
    let mut docs = 0;
    for path in dir.map(|e| e.unwrap().path()) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("y_") || name.starts_with("n_") || name.starts_with("i_")) {
            continue;
        }
        let doc = std::fs::read(&path).unwrap();
        docs += 1;
        for (head, tail) in [
            (r#"{"ph": "X", "cat": "c", "name": "n", "ts": 1, "dur": 1, "k": "#, "}"),
            (
                r#"{"ph": "X", "cat": "c", "name": "n", "ts": 1, "dur": 1, "args": {"k": "#,
                "}}",
            ),
            (
                r#"{"ph": "X", "cat": "c", "name": "n", "ts": 1, "dur": 1, "args": {"device": 0, "k": 1, "k": "#,
                r#", "j": [1, "k"]}}"#,
            ),
            ("", ""),
        ] {
            let text = [
                format!(r#"{{"traceEvents": [{event}, {head}"#).as_bytes(),
                &doc,
                format!(r#"{tail}, {event}]}}"#).as_bytes(),
            ]
            .concat();
            // The document as an attribute the fast scan reads (`args.k`) as well as skips.
            let requests = if head.contains("args") {
                &attr_requests[..]
            } else {
                &attr_requests[..1]
            };
            for (r, request) in requests.iter().enumerate() {
                let exact = parser(1, usize::MAX, false);
                let want = one.install(|| outcome(&exact, &text, request));
                for block in [usize::MAX, 7, 64] {
                    let got = one.install(|| outcome(&parser(1, block, true), &text, request));
                    assert_eq!(got, want, "{name}, block {block}, request {r}");
                }
            }
        }
    }
    assert!(docs > 250, "{docs} documents");
}

/// A trace whose strings and args are full of what looks like an event boundary.
fn tricky_trace(seed: u64, events: usize) -> String {
    let mut x = seed | 1;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let pieces = [
        "},{",
        "}, {",
        "},\\n{",
        "\\\"},{\\\"",
        "\\\\",
        "]",
        "[{",
        "a",
        "é",
        "\\u00e9",
        ",",
        "{}",
    ];
    let mut out = Vec::new();
    for k in 0..events {
        let name: String = (0..1 + next(6))
            .map(|_| pieces[next(pieces.len() as u64) as usize])
            .collect();
        let args = match next(4) {
            0 => {
                r#", "args": {"list": [{"a": 1},{"b": [{}]},{"c": "},{"}], "stream": 7, "correlation": 3}"#.to_string()
            }
            1 => format!(r#", "args": {{"s": "{name}", "Input Dims": [[1, 2], []]}}"#),
            _ => String::new(),
        };
        let cat = ["cpu_op", "kernel", "Trace", "user_annotation"][next(4) as usize];
        let step = if k % 7 == 0 { format!("ProfilerStep#{k}") } else { name };
        out.push(format!(
            r#"{{"ph": "X", "cat": "{cat}", "name": "{step}", "pid": {}, "tid": "t{}", "ts": {k}.5, "dur": {}{args}}}"#,
            next(3),
            next(2),
            1 + next(9)
        ));
    }
    format!(
        "{{\"deviceProperties\": [{{\"id\": 0}},{{\"id\": 1}}], \"traceEvents\": [{}], \"distributedInfo\": {{\"rank\": 2}}, \"x\": [{{}},{{}}]}}",
        out.join(if seed.is_multiple_of(2) { ",\n  " } else { "," })
    )
}

/// Whatever the block size and the thread count, a parse gives what one pass over the whole
/// text gives: the same store, or the same first error at the same byte. Guesses land in
/// strings and nested values all the time here.
#[test]
fn blocks_and_threads_never_change_the_result() {
    let all = AttrRequest::build(Preset::All, &[], &[]).unwrap();
    let threads = [1, 2, 16];
    let pools: Vec<rayon::ThreadPool> = threads
        .iter()
        .map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap())
        .collect();
    // Each thread count's parsers, by block size: made once, as a side's files share one.
    let blocks = [1, 2, 3, 5, 8, 13, 29, 64, 200];
    let parsers: Vec<Vec<Parser>> = threads
        .iter()
        .map(|&n| blocks.iter().map(|&b| parser(n, b, true)).collect())
        .collect();
    let exact = parser(1, usize::MAX, false);
    for seed in 0..10u64 {
        let text = tricky_trace(seed, 40);
        let mut texts = vec![text.clone().into_bytes()];
        // Broken copies: a byte changed, the text cut short.
        let b = text.as_bytes();
        for k in 1..4 {
            let at = (seed as usize * 131 + k * 977) % b.len();
            let mut v = b.to_vec();
            v[at] = b"}{,]\"\\x"[(seed as usize + k) % 7];
            texts.push(v);
            texts.push(b[..at].to_vec());
        }
        for (t, text) in texts.iter().enumerate() {
            let request = if (seed + t as u64).is_multiple_of(3) {
                &all
            } else {
                &AttrRequest::default()
            };
            // One pass the exact way: every event cut first, then parsed.
            let want = pools[0].install(|| outcome(&exact, text, request));
            for (p, pool) in pools.iter().enumerate() {
                for (b, &block) in blocks.iter().enumerate() {
                    if (block + p + t) % 3 != 0 && block > 13 {
                        continue;
                    }
                    let got = pool.install(|| outcome(&parsers[p][b], text, request));
                    assert_eq!(got, want, "seed {seed}, text {t}, block {block}, pool {p}");
                }
            }
            if t == 0 {
                assert!(want.contains("ProfilerStep#"), "{want}");
            }
        }
    }
    assert!(
        WRONG_GUESSES.load(Ordering::Relaxed) > 100,
        "the guesses were never put to the test"
    );
}
