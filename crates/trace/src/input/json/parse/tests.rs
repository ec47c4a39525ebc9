use super::*;

fn parse(text: &str) -> Result<ParsedTrace> {
    parse_trace(
        text.as_bytes(),
        Path::new("t.json"),
        Compression::None,
        &AttrRequest::default(),
    )
}

/// A reader that hands out at most `n` bytes per call, to exercise chunk boundaries.
struct Trickle<'a> {
    data: &'a [u8],
    n: usize,
}
impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.n.min(buf.len()).min(self.data.len());
        buf[..k].copy_from_slice(&self.data[..k]);
        self.data = &self.data[k..];
        Ok(k)
    }
}

const SMALL: &str = r#"{"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": "7", "ts": 10.5, "dur": 2.25,
     "args": {"External id": 3, "stream": "0x0", "Input Dims": [[2, 3]]}},
    {"ph": "X", "cat": "kernel", "name": "gemm\u0020k", "pid": 0, "tid": 7, "ts": 12, "dur": 1,
     "args": {"stream": 7, "correlation": 99}},
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler", "ts": 0, "dur": 100},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "ts": 11},
    {"ph": "M", "name": "process_name", "args": {"name": "x"}}
], "distributedInfo": {"backend": "nccl", "rank": 3}}"#;

#[test]
fn keeps_the_world_size() {
    let t = parse(&SMALL.replace(r#""rank": 3}"#, r#""rank": 3, "world_size": "8"}"#)).unwrap();
    assert_eq!((t.declared_rank, t.declared_world_size), (Some(3), Some(8)));
}

#[test]
fn keeps_complete_events_with_their_columns() {
    let t = parse(SMALL).unwrap();
    assert_eq!(t.declared_rank, Some(3));
    assert_eq!(t.declared_world_size, None);
    assert_eq!(t.total_events, 5);
    let e = &t.events;
    assert_eq!(e.len(), 2);
    assert_eq!(e.index, vec![0, 1]);
    assert_eq!(t.strings.resolve(e.name[0]), "aten::mm");
    assert_eq!(t.strings.resolve(e.name[1]), "gemm k");
    assert_eq!(t.strings.resolve(e.cat[1]), "kernel");
    assert_eq!(e.ts_ns, vec![10_500, 12_000]);
    assert_eq!(e.dur_ns, vec![2_250, 1_000]);
    assert_eq!(e.stream.to_vec(), vec![-1, 7]);
    assert_eq!(e.correlation.to_vec(), vec![-1, 99]);
    assert_eq!(e.tid[0], e.tid[1], "\"7\" and 7 are the same thread");
    assert_eq!(t.json_bytes, SMALL.len() as u64);
}

#[test]
fn chunk_boundaries_do_not_change_the_result() {
    let whole = parse(SMALL).unwrap();
    for n in [1, 2, 3, 7, 64] {
        let t = parse_trace(
            Trickle {
                data: SMALL.as_bytes(),
                n,
            },
            Path::new("t.json"),
            Compression::None,
            &AttrRequest::default(),
        )
        .unwrap();
        assert_eq!(t.events.ts_ns, whole.events.ts_ns);
        assert_eq!(t.events.name, whole.events.name);
        assert_eq!(t.declared_rank, Some(3));
    }
}

fn err_bytes(bytes: &[u8]) -> String {
    parse_trace(bytes, Path::new("t.json"), Compression::None, &AttrRequest::default())
        .expect_err("should fail")
        .to_string()
}

fn err(text: &str) -> String {
    parse(text).expect_err("should fail").to_string()
}

#[test]
fn a_text_that_is_not_an_object_says_what_it_is() {
    assert_eq!(
        err("null"),
        "not a trace: the JSON text is null, not an object (t.json: byte 0)"
    );
    assert_eq!(
        err(" 12.5 "),
        "not a trace: the JSON text is a number, not an object (t.json: byte 1)"
    );
    // A first byte that could start a literal is no literal unless the whole word is one.
    assert_eq!(
        err("not json at all"),
        "not a trace: the file is not JSON (it starts with 'not') (t.json: byte 0)"
    );
    // A value with more after it is no JSON text: not "the JSON text is null".
    assert_eq!(
        err("null garbage"),
        "not a trace: the file is not JSON (it starts with 'null garbage') (t.json: byte 0)"
    );
    assert_eq!(
        err("12 apples\nand pears"),
        "not a trace: the file is not JSON (it starts with '12 apples') (t.json: byte 0)"
    );
    assert_eq!(
        err("nullx"),
        "not a trace: the file is not JSON (it starts with 'nullx') (t.json: byte 0)"
    );
    assert_eq!(
        err("\u{1}PK"),
        "not a trace: the file is not JSON (it starts with '\\x01PK') (t.json: byte 0)"
    );
}

#[test]
fn bad_input_is_named_with_its_place() {
    assert_eq!(err(""), "empty file (t.json)");
    assert_eq!(err("  "), "empty file (t.json)");
    assert_eq!(
        err(r#""a string""#),
        "not a trace: the JSON text is a string, not an object (t.json: byte 0)"
    );
    assert_eq!(
        err("[1, 2]"),
        "an entry of 'traceEvents' must be an object, found a number (t.json: byte 1)"
    );
    assert_eq!(
        err(r#"{"a": 1}"#),
        "not a Kineto trace: a JSON object with no 'traceEvents' array (its members: a); pass the trace torch.profiler writes (on_trace_ready, export_chrome_trace) (t.json)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [{"ph": "X""#),
        "invalid JSON: unexpected end of text (truncated file?) (t.json: byte 27)"
    );
    assert_eq!(
        err(r#"{"traceEvents": {}}"#),
        "'traceEvents' must be an array, found an object (t.json: byte 16)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [{"cat": "cpu_op", "name": "a", "ts": "12", "dur": 1}]}"#),
        "'ts' must be a number, found a string (t.json: byte 54)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [{"cat": 5}]}"#),
        "'cat' must be a string, found a number (t.json: byte 25)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [{"cat": "x", "dur": 1, "ts": 0}]}"#),
        "event with 'dur' and 'cat' has no 'name' (t.json: byte 17)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [1]}"#),
        "an entry of 'traceEvents' must be an object, found a number (t.json: byte 17)"
    );
    assert_eq!(
        err(r#"{"traceEvents": []} x"#),
        "invalid JSON: unexpected text after the end of the JSON object (t.json: byte 20)"
    );
    assert_eq!(
        err_bytes(b"{\"traceEvents\": [{\"name\": \"a\xff\"}]}"),
        "invalid JSON: invalid UTF-8 in string (t.json: byte 28)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [], "distributedInfo": {"rank": [0]}}"#),
        "'distributedInfo.rank' must be an integer, found an array (t.json: byte 48)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [], "distributedInfo": {"rank": 0, "world_size": 0}}"#),
        "'distributedInfo.world_size' must be at least 1, found 0 (t.json: byte 65)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [], "distributedInfo": {"world_size": 1.5}}"#),
        "'distributedInfo.world_size' must be an integer (t.json: byte 54)"
    );
}

#[test]
fn corrupted_input_never_panics() {
    // Every truncation, and a deterministic sweep of byte substitutions.
    let bytes = SMALL.as_bytes();
    for cut in 0..bytes.len() {
        let r = parse_trace(
            &bytes[..cut],
            Path::new("t.json"),
            Compression::None,
            &AttrRequest::default(),
        );
        let e = r
            .expect_err("every proper prefix of a JSON object is invalid")
            .to_string();
        assert!(e.contains("(t.json"), "{e}");
    }
    let all = AttrRequest::build(crate::input::attrs::Preset::All, &[], &[]).unwrap();
    for (k, pos) in (0..bytes.len()).step_by(3).enumerate() {
        for b in [b'"', b'{', b']', b'\\', 0xff, b'-', b'e', b'0', 0x01] {
            let mut v = bytes.to_vec();
            v[pos] = b;
            let request = if k % 2 == 0 { &all } else { &AttrRequest::default() };
            if let Err(e) = parse_trace(&v[..], Path::new("t.json"), Compression::None, request) {
                assert!(e.to_string().contains("(t.json"), "{e}");
            }
            if let Err(e) = scan_rank(&v[..], Path::new("t.json"), Compression::None) {
                assert!(e.to_string().contains("(t.json"), "{e}");
            }
        }
    }
}

#[test]
fn rank_scan_stops_early_or_skips_the_events() {
    let scan = |text: &str| scan_rank(text.as_bytes(), Path::new("t.json"), Compression::None);
    // The rank comes first: the (broken) events after it are never read.
    assert_eq!(
        scan(r#"{"distributedInfo": {"rank": 5}, "traceEvents": [{"#).unwrap(),
        Some(5)
    );
    assert_eq!(scan(SMALL).unwrap(), Some(3));
    assert_eq!(scan(r#"{"traceEvents": [{"a": 1}, {}]}"#).unwrap(), None);
    assert!(scan(r#"{"traceEvents": [{"a": 1}, 2]}"#).is_err());
    assert!(scan(r#"{"traceEvents": [{"a": 1} 2]}"#).is_err());
    let header = |text: &str| scan_header(text.as_bytes(), Path::new("t.json"), Compression::None, true, None).unwrap();
    let steps = r#"{"distributedInfo": {"rank": 2}, "traceEvents": [
        {"cat": "user_annotation", "name": "ProfilerStep#9", "ts": 1, "dur": 5},
        {"cat": "user_annotation", "name": "ProfilerStep#7", "ts": 9, "dur": 5},
        {"ph": "i", "cat": "x", "name": "ProfilerStep#1", "ts": 1},
        {"cat": "Trace", "name": "ProfilerStep#2", "ts": 1, "dur": 1}]}"#;
    assert_eq!(
        header(steps),
        Header {
            rank: Some(2),
            world_size: None,
            steps: Some(vec![7, 9])
        }
    );
}

#[test]
fn the_header_scan_counts_serving_and_marked_steps_as_a_parse_does() {
    let header = |text: &str, marker: Option<&str>| {
        let marker = marker.map(|m| regex::Regex::new(m).unwrap());
        let h = scan_header(
            text.as_bytes(),
            Path::new("t.json"),
            Compression::None,
            true,
            marker.as_ref(),
        );
        h.unwrap().steps.unwrap()
    };
    // Two vLLM-style steps, the second holding an SGLang-style one (not a step of its own), and
    // a step annotation on the device (not a user annotation: not a step).
    let serving = r#"{"traceEvents": [
        {"cat": "user_annotation", "name": "execute_8_context_0(sq0)_generation_8(sq8)", "ts": 30, "dur": 10},
        {"cat": "user_annotation", "name": "step[DECODE bs=8]", "ts": 32, "dur": 5},
        {"cat": "user_annotation", "name": "execute_8_context_0(sq0)_generation_8(sq8)", "ts": 10, "dur": 10},
        {"cat": "gpu_user_annotation", "name": "step[DECODE bs=8]", "ts": 50, "dur": 5},
        {"cat": "user_annotation", "name": "forward", "ts": 60, "dur": 5}]}"#;
    assert_eq!(header(serving, None), vec![0, 1]);
    // `--step-marker` replaces both ProfilerStep and the serving annotations.
    assert_eq!(header(serving, Some("^forward$")), vec![0]);
    assert_eq!(header(serving, Some("^step\\[")), vec![0]);
    assert_eq!(header(serving, Some("^nothing$")), Vec::<i64>::new());
    // ProfilerStep, where present, wins over the serving annotations.
    let both = r#"{"traceEvents": [
        {"cat": "user_annotation", "name": "ProfilerStep#4", "ts": 1, "dur": 50},
        {"cat": "user_annotation", "name": "step[DECODE bs=8]", "ts": 2, "dur": 5},
        {"cat": "user_annotation", "name": "step[DECODE bs=8]", "ts": 9, "dur": 5}]}"#;
    assert_eq!(header(both, None), vec![4]);
    assert_eq!(header(both, Some("^step\\[")), vec![0, 1]);
}

#[test]
fn core_ids_are_kept_exactly_whatever_their_range() {
    let t = parse(
        r#"{"traceEvents": [{"cat": "kernel", "name": "k", "ts": 1, "dur": 1,
            "args": {"stream": 4294967294, "correlation": "2147483648"}}]}"#,
    )
    .unwrap();
    assert_eq!(t.events.stream.to_vec(), vec![4_294_967_294]);
    assert_eq!(t.events.correlation.to_vec(), vec![2_147_483_648]);
    // Beyond 32 bits, and below -1: the column widens, nothing wraps and nothing is refused.
    let t = parse(
        r#"{"traceEvents": [
            {"cat": "kernel", "name": "k", "ts": 1, "dur": 1, "args": {"stream": 7, "correlation": 1}},
            {"cat": "kernel", "name": "k", "ts": 2, "dur": 1, "args": {"stream": 4294967295, "correlation": "-2"}},
            {"cat": "cpu_op", "name": "ProfilerStep#4294967296", "ts": 0, "dur": 9}]}"#,
    )
    .unwrap();
    assert_eq!(t.events.stream.to_vec(), vec![7, 4_294_967_295, -1]);
    assert_eq!(t.events.correlation.to_vec(), vec![1, -2, -1]);
}

#[test]
fn a_broken_scalar_member_is_named_at_its_start() {
    assert_eq!(
        err(r#"{"traceEvents": [], "x": tru}"#),
        "invalid JSON: invalid literal (t.json: byte 25)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [], "x": 1.}"#),
        "invalid JSON: invalid number (t.json: byte 26)"
    );
    assert_eq!(
        err(r#"{"traceEvents": [], "x": [1, 2}"#),
        "invalid JSON: expected `,` or `]` (t.json: byte 30)"
    );
}

#[test]
fn null_fields_count_as_absent_and_dur_null_is_not_kept() {
    let t =
        parse(r#"{"traceEvents": [{"cat": "cpu_op", "name": "a", "ts": 1, "dur": null}], "distributedInfo": null}"#)
            .unwrap();
    assert_eq!(t.events.len(), 0);
    assert_eq!(t.declared_rank, None);
}

#[test]
fn a_unit_larger_than_the_buffer_grows_it() {
    let long = "x".repeat(3 * CHUNK_BYTES);
    let text = format!(r#"{{"traceEvents": [{{"cat": "cpu_op", "name": "{long}", "ts": 1, "dur": 2}}]}}"#);
    let t = parse(&text).unwrap();
    assert_eq!(t.strings.resolve(t.events.name[0]).len(), 3 * CHUNK_BYTES);
}
