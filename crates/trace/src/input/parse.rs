//! Parsing a Kineto trace straight into the columnar store.
//!
//! The pipeline: a thread reads (and decompresses) the text ahead; the calling thread walks
//! the top-level object by hand and hands `traceEvents` out in blocks, whose events the parsing
//! threads parse with serde_json straight from the text (the private `pipeline` module); the
//! parsed chunks are merged into the store in file order, so the result is the same whatever the
//! number of threads. Memory holds a few blocks and the store, never the whole text. The
//! JSON-array form of the Trace Event
//! Format (`[{...}, ...]`, the closing `]` optional) is read as a bare `traceEvents`.

use crate::error::Result;
use crate::input::attrs::{AttrKeys, AttrRequest};
use crate::input::event::{self, Collect};
use crate::input::number::Number;
pub use crate::input::parsed::ParsedTrace;
use crate::input::parsed::{Fail, check_value, truncated_at};
use crate::input::pipeline::Events;
use crate::input::read::{Compression, ReadAhead};
use crate::input::split::{Cut, Input, describe_byte, kind_of};
use crate::model::store::DeviceProperties;
use serde_json::value::RawValue;
use std::io::{self, Read};
use std::path::Path;

/// Bytes of events per chunk, about: each chunk is one of the reader's buffers.
pub const CHUNK_BYTES: usize = crate::input::split::READ_SIZE;

/// What [`scan_header`] learns about a file without storing its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `distributedInfo.rank`, when the file declares one.
    pub rank: Option<i64>,
    /// `distributedInfo.world_size`, when the file declares one.
    pub world_size: Option<i64>,
    /// The file's ProfilerStep numbers, when asked for.
    pub steps: Option<Vec<i64>>,
}

/// How far the parse goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Full,
    /// Every event, without the column a summary does not need (`index`).
    Summary,
    Rank,
    RankAndSteps,
}

/// Parses a whole trace from `reader`. `path` and `compression` only serve error messages.
pub fn parse_trace(
    reader: impl Read + Send,
    path: &Path,
    compression: Compression,
    request: &AttrRequest,
) -> Result<ParsedTrace> {
    walk(reader, path, compression, Mode::Full, request)
}

/// Parses a whole trace for its summary: as [`parse_trace`] with no attributes, but the store's
/// `index` column stays empty (nothing a summary reads), which saves 4 bytes per event at the
/// peak, and so do `iteration` and `place` until
/// [`crate::model::iteration::assign_iterations`] sizes and fills them (5 bytes more). `pid`
/// and `tid` are kept: the summary's own times nest events per thread.
pub fn parse_trace_for_summary(reader: impl Read + Send, path: &Path, compression: Compression) -> Result<ParsedTrace> {
    walk(reader, path, compression, Mode::Summary, &AttrRequest::default())
}

/// Reads only as far as needed to know the file's `distributedInfo.rank`: up to `traceEvents`
/// when the rank comes before it (as torch.profiler writes it), else through the events,
/// checking them without storing anything. `None` when the file declares no rank.
pub fn scan_rank(reader: impl Read + Send, path: &Path, compression: Compression) -> Result<Option<i64>> {
    walk(reader, path, compression, Mode::Rank, &AttrRequest::default()).map(|t| t.declared_rank)
}

/// The file's rank and, with `want_steps`, its ProfilerStep numbers: every event is read
/// (and checked) but none is stored.
pub fn scan_header(
    reader: impl Read + Send,
    path: &Path,
    compression: Compression,
    want_steps: bool,
) -> Result<Header> {
    if !want_steps {
        let t = walk(reader, path, compression, Mode::Rank, &AttrRequest::default())?;
        return Ok(Header {
            rank: t.declared_rank,
            world_size: t.declared_world_size,
            steps: None,
        });
    }
    walk(reader, path, compression, Mode::RankAndSteps, &AttrRequest::default()).map(|t| Header {
        rank: t.declared_rank,
        world_size: t.declared_world_size,
        steps: Some(t.scanned_steps),
    })
}

/// What is learnt outside `traceEvents`.
#[derive(Debug, Default)]
struct Head {
    declared_rank: Option<i64>,
    declared_world_size: Option<i64>,
    json_bytes: u64,
    devices: Vec<DeviceProperties>,
}

/// Reads the file (and decompresses it) on a thread of its own (on this one inside
/// [`crate::input::read::reading_here`]), walks the top-level value here and reads
/// `traceEvents` on every core ([`Events`]).
fn walk(
    reader: impl Read + Send,
    path: &Path,
    compression: Compression,
    mode: Mode,
    request: &AttrRequest,
) -> Result<ParsedTrace> {
    let collect = match mode {
        Mode::Full if AttrKeys::from_request(request).is_active() => Collect::Events,
        Mode::Full => Collect::Columns { index: true },
        Mode::Summary => Collect::Columns { index: false },
        Mode::Rank | Mode::RankAndSteps => Collect::Steps,
    };
    let read = std::thread::scope(|scope| {
        let ahead = if crate::input::read::read_here() {
            ReadAhead::here(reader)
        } else {
            ReadAhead::scoped(scope, reader)
        };
        let mut input = Input::new(ahead);
        let mut events = Events::new(request, collect);
        let head = read_top(&mut input, mode, &mut events);
        // Dropping the input stops the reading thread, which the scope waits for.
        drop(input);
        head.map(|head| (head, events))
    });
    let (head, events) = read.map_err(|f| f.into_error(path, compression))?;
    let mut out = events.finish();
    out.declared_rank = head.declared_rank;
    out.declared_world_size = head.declared_world_size;
    out.json_bytes = head.json_bytes;
    out.devices = head.devices;
    Ok(out)
}

/// The top-level value, by hand; its members other than `traceEvents` are parsed with
/// serde_json, `traceEvents` is read by `events`.
fn read_top(input: &mut Input<ReadAhead<'_>>, mode: Mode, events: &mut Events) -> Result<Head, Fail> {
    let io = |input: &Input<ReadAhead<'_>>| {
        let at = input.read_so_far();
        move |e: io::Error| Fail::Io(e, at)
    };
    // A UTF-8 byte order mark is tolerated, as Python's json does for bytes.
    input.want(3).map_err(io(input))?;
    if input.data().starts_with(&[0xEF, 0xBB, 0xBF]) {
        input.consume(3);
    }
    let Some((i, b)) = input.skip_ws(0).map_err(io(input))? else {
        return Err(Fail::Whole("empty file".to_string()));
    };
    let head = match b {
        b'{' => {
            input.consume(i + 1);
            match read_object(input, mode, events)? {
                Top::Done(head) => head,
                // The rank is known and nothing more is needed.
                Top::Early(head) => return Ok(head),
            }
        }
        // The JSON-array form declares no rank.
        b'[' if mode == Mode::Rank => return Ok(Head::default()),
        b'[' => {
            input.consume(i + 1);
            events.read(input, 1, true)?;
            Head::default()
        }
        _ => {
            return Err(Fail::At(
                input.offset() + i as u64,
                format!("not a trace: the JSON text is {}, not an object", kind_of(b)),
            ));
        }
    };
    // Only white space may follow.
    if let Some((i, _)) = input.skip_ws(0).map_err(io(input))? {
        return Err(Fail::At(
            input.offset() + i as u64,
            format!(
                "invalid JSON: unexpected text after the end of the JSON {}",
                if b == b'{' { "object" } else { "array" }
            ),
        ));
    }
    Ok(Head {
        json_bytes: input.read_so_far(),
        ..head
    })
}

fn truncated<R: Read>(input: &Input<R>) -> Fail {
    truncated_at(input.read_so_far())
}

/// The next byte after white space from `at`; the end of the text is a truncation.
fn next_byte<R: Read>(input: &mut Input<R>, at: usize) -> Result<(usize, u8), Fail> {
    match input.skip_ws(at) {
        Ok(Some(found)) => Ok(found),
        Ok(None) => Err(truncated(input)),
        Err(e) => Err(Fail::Io(e, input.read_so_far())),
    }
}

/// The end of the value at `at`, as a failure the user can read when it has none.
fn value_end<R: Read>(input: &mut Input<R>, at: usize, outer: usize) -> Result<usize, Fail> {
    match input.value_end(at, outer) {
        Ok(end) => Ok(end),
        // Only a `release` that stops gives this, and `value_end` has none.
        Err(Cut::Stopped) => Err(Fail::Whole("reading stopped".to_string())),
        Err(Cut::TooDeep(k)) => Err(Fail::At(
            input.offset() + k as u64,
            format!(
                "invalid JSON: nesting deeper than {} levels",
                crate::input::split::MAX_DEPTH
            ),
        )),
        Err(Cut::Io(e)) => Err(Fail::Io(e, input.read_so_far())),
        Err(Cut::Eof(at)) => {
            // The text ends inside the value: say so, unless it breaks the grammar earlier.
            let partial = &input.data()[at..];
            match check_value(partial) {
                Err((k, msg)) if !msg.contains("EOF while parsing") && k < partial.len() => {
                    Err(Fail::At(input.offset() + (at + k) as u64, msg))
                }
                _ => Err(truncated(input)),
            }
        }
    }
}

/// How the top-level object was read.
enum Top {
    Done(Head),
    /// Stopped at `traceEvents`: only the rank was wanted, and it is known.
    Early(Head),
}

/// The top-level object, member by member.
fn read_object(input: &mut Input<ReadAhead<'_>>, mode: Mode, events: &mut Events) -> Result<Top, Fail> {
    let mut head = Head::default();
    let (mut seen_events, mut seen_info, mut seen_devices) = (false, false, false);
    let mut first = true;
    loop {
        let (mut i, mut b) = next_byte(input, 0)?;
        if b == b'}' && first {
            input.consume(i + 1);
            break;
        }
        if !first {
            match b {
                b'}' => {
                    input.consume(i + 1);
                    break;
                }
                b',' => (i, b) = next_byte(input, i + 1)?,
                _ => {
                    return Err(syntax(
                        input,
                        i,
                        format!("expected ',' or '}}', found {}", describe_byte(b)),
                    ));
                }
            }
        }
        first = false;
        if b != b'"' {
            return Err(syntax(
                input,
                i,
                format!("expected a key string, found {}", describe_byte(b)),
            ));
        }
        let end = value_end(input, i, 1)?;
        let key: String = parse_slice(input, i, end, |text| {
            event::deserialize(text, |de| serde::Deserialize::deserialize(de))
        })?;
        let (colon, b) = next_byte(input, end)?;
        if b != b':' {
            return Err(syntax(
                input,
                colon,
                format!("expected ':', found {}", describe_byte(b)),
            ));
        }
        let (v, b) = next_byte(input, colon + 1)?;
        let at = input.offset() + v as u64;
        match key.as_str() {
            "traceEvents" => {
                if seen_events {
                    return Err(Fail::At(at, "'traceEvents' appears twice".to_string()));
                }
                seen_events = true;
                if b != b'[' {
                    return Err(Fail::At(
                        at,
                        format!("'traceEvents' must be an array, found {}", kind_of(b)),
                    ));
                }
                if mode == Mode::Rank && head.declared_rank.is_some() {
                    return Ok(Top::Early(head));
                }
                input.consume(v + 1);
                events.read(input, 2, false)?;
            }
            "deviceProperties" if matches!(mode, Mode::Full | Mode::Summary) => {
                let end = value_end(input, v, 1)?;
                let devices = parse_slice(input, v, end, device_properties)?;
                // A second copy that says the same is harmless; one that differs would make
                // the device depend on which copy is read (docs/robustness.md#ids-and-ranks).
                if seen_devices && devices != head.devices {
                    return Err(Fail::At(
                        at,
                        "'deviceProperties' appears twice, describing different devices".to_string(),
                    ));
                }
                seen_devices = true;
                head.devices = devices;
                input.consume(end);
            }
            "distributedInfo" => {
                if seen_info {
                    return Err(Fail::At(at, "'distributedInfo' appears twice".to_string()));
                }
                seen_info = true;
                let end = value_end(input, v, 1)?;
                (head.declared_rank, head.declared_world_size) = parse_slice(input, v, end, distributed_info)?;
                input.consume(end);
            }
            _ => {
                let end = value_end(input, v, 1)?;
                parse_slice(input, v, end, |text| check_value(text.as_bytes()))?;
                input.consume(end);
            }
        }
    }
    if !seen_events {
        return Err(Fail::Whole("not a Kineto trace: no 'traceEvents' array".to_string()));
    }
    Ok(Top::Done(head))
}

fn syntax<R: Read>(input: &Input<R>, at: usize, what: String) -> Fail {
    Fail::At(input.offset() + at as u64, format!("invalid JSON: {what}"))
}

/// Parses `data()[start..end]` with `f`, which gets it as text and fails with an offset in it.
fn parse_slice<R: Read, T>(
    input: &Input<R>,
    start: usize,
    end: usize,
    f: impl FnOnce(&str) -> Result<T, event::Failure>,
) -> Result<T, Fail> {
    let place = |(k, msg): event::Failure| Fail::At(input.offset() + (start + k) as u64, msg);
    let text = event::utf8(&input.data()[start..end]).map_err(place)?;
    f(text).map_err(|(k, msg)| {
        // The splitter ended a number or literal at a delimiter: serde_json, given only that
        // much, reports the end of the text, but the value itself is what is wrong.
        if msg.contains("EOF while parsing") && end < input.data().len() {
            let what = match text.as_bytes().first() {
                Some(b'-' | b'0'..=b'9') => "invalid JSON: invalid number",
                _ => "invalid JSON: invalid literal",
            };
            return place((0, what.to_string()));
        }
        place((k, msg))
    })
}

/// `distributedInfo`'s `rank` and `world_size` (see [`distributed_integer`]).
fn distributed_info(text: &str) -> Result<(Option<i64>, Option<i64>), event::Failure> {
    if !text.starts_with('{') {
        check_value(text.as_bytes())?;
        return Ok((None, None));
    }
    let rank = distributed_integer(text, "rank")?;
    let world = distributed_integer(text, "world_size")?;
    if let Some(w) = world
        && w < 1
    {
        let at = event::member(text, "world_size")?.map_or(0, |r| r.get().as_ptr() as usize - text.as_ptr() as usize);
        return Err((
            at,
            format!("'distributedInfo.world_size' must be at least 1, found {w}"),
        ));
    }
    Ok((rank, world))
}

/// The member `key` of the `distributedInfo` object `text`: an integer, or a string holding
/// one; `null` or no member: none.
fn distributed_integer(text: &str, key: &str) -> Result<Option<i64>, event::Failure> {
    let Some(raw) = event::member(text, key)? else {
        return Ok(None);
    };
    let r = raw.get();
    let at = r.as_ptr() as usize - text.as_ptr() as usize;
    let not_integer = || (at, format!("'distributedInfo.{key}' must be an integer"));
    match r.as_bytes()[0] {
        b'-' | b'0'..=b'9' => {
            let n = Number::new(r);
            if !n.is_integer {
                return Err(not_integer());
            }
            // Never saturated: a rank past the 64-bit integers is refused, not read as another.
            r.parse::<i64>().map(Some).map_err(|_| {
                (
                    at,
                    format!("'distributedInfo.{key}' {r} is outside the 64-bit integers tracediff keeps exactly"),
                )
            })
        }
        b'"' => event::string_text(r)
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| not_integer()),
        b'n' => Ok(None),
        b => Err((
            at,
            format!("'distributedInfo.{key}' must be an integer, found {}", kind_of(b)),
        )),
    }
}

/// The `deviceProperties` array: each object's `id`, `name` and `totalGlobalMem`. Anything that
/// is not an array of objects describes no device; entries without an integer `id` are left out.
fn device_properties(text: &str) -> Result<Vec<DeviceProperties>, event::Failure> {
    if !text.starts_with('[') {
        check_value(text.as_bytes())?;
        return Ok(Vec::new());
    }
    let entries: Vec<&RawValue> = event::deserialize(text, |de| serde::Deserialize::deserialize(de))?;
    let mut devices = Vec::new();
    for entry in entries {
        let e = entry.get();
        if !e.starts_with('{') {
            continue;
        }
        let integer = |key: &str| -> Result<Option<i64>, event::Failure> {
            Ok(event::member(e, key)?
                .map(|r| Number::new(r.get()))
                .filter(|n| matches!(n.text.as_bytes()[0], b'-' | b'0'..=b'9') && n.is_integer)
                .map(|n| n.to_i64()))
        };
        let Some(id) = integer("id")? else { continue };
        let name = event::member(e, "name")?
            .filter(|r| r.get().starts_with('"'))
            .map(|r| event::string_text(r.get()).into_owned());
        devices.push(DeviceProperties {
            id,
            name: name.unwrap_or_default(),
            total_global_mem: integer("totalGlobalMem")?.and_then(|m| u64::try_from(m).ok()),
        });
    }
    Ok(devices)
}

#[cfg(test)]
mod tests {
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
            "not a Kineto trace: no 'traceEvents' array (t.json)"
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
        let header = |text: &str| scan_header(text.as_bytes(), Path::new("t.json"), Compression::None, true).unwrap();
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
        let t = parse(
            r#"{"traceEvents": [{"cat": "cpu_op", "name": "a", "ts": 1, "dur": null}], "distributedInfo": null}"#,
        )
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
}
#[cfg(test)]
mod overview_inputs {
    use super::*;
    use crate::model::store::{FlowEnd, MemorySample};

    fn parse(text: &str) -> ParsedTrace {
        parse_trace(
            text.as_bytes(),
            Path::new("t.json"),
            Compression::None,
            &AttrRequest::default(),
        )
        .unwrap()
    }

    #[test]
    fn memory_instants_devices_and_device_use_are_captured() {
        let t = parse(
            r#"{"deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85018279936, "computeMajor": 9},
                                     "junk", {"name": "no id"}, {"id": 1, "name": "second"}],
            "traceEvents": [
              {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "ts": 1.5,
               "args": {"Total Reserved": 0, "Total Allocated": 4096, "Bytes": 4096, "Device Id": 0, "Device Type": 1}},
              {"ph": "i", "name": "[memory]", "ts": 2, "args": {"Device Type": 0, "Device Id": -1, "Bytes": -4}},
              {"ph": "i", "name": "[memory]", "ts": 3, "args": {"Bytes": 4}},
              {"ph": "X", "cat": "kernel", "name": "k", "ts": 2, "dur": 1, "args": {"device": 1, "stream": 7}},
              {"ph": "X", "cat": "kernel", "name": "k", "ts": 3, "dur": 1, "args": {"device": 1, "stream": 7}},
              {"ph": "X", "cat": "gpu_memcpy", "name": "m", "ts": 4, "dur": 1, "args": {"device": 0, "stream": 7}}
            ]}"#,
        );
        assert_eq!(
            t.devices,
            vec![
                DeviceProperties {
                    id: 0,
                    name: "NVIDIA H100".into(),
                    total_global_mem: Some(85018279936)
                },
                DeviceProperties {
                    id: 1,
                    name: "second".into(),
                    total_global_mem: None
                },
            ]
        );
        // The third has no device: not a sample.
        assert_eq!(t.memory.len(), 2);
        assert_eq!(
            t.memory.get(0),
            MemorySample {
                ts_ns: 1500,
                device_type: 1,
                device_id: 0,
                total_allocated: Some(4096),
                bytes: 4096
            }
        );
        assert_eq!(t.memory.get(1).total_allocated, None);
        assert_eq!(t.memory.get(1).bytes, -4);
        assert_eq!(t.device_use, vec![(0, 1), (1, 2)]);
        assert_eq!(t.events.len(), 3);
    }

    #[test]
    fn fwdbwd_flow_ends_are_kept_and_other_flows_are_not() {
        let t = parse(
            r#"{"traceEvents": [
              {"ph": "X", "cat": "cpu_op", "name": "aten::t", "pid": 1, "tid": 1, "ts": 10, "dur": 1},
              {"ph": "s", "id": 17, "pid": 1, "tid": 1, "ts": 10.5, "cat": "fwdbwd", "name": "fwdbwd"},
              {"ph": "f", "id": 17, "pid": 1, "tid": "two", "ts": 20, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
              {"ph": "s", "id": 3, "pid": 1, "tid": 1, "ts": 10, "cat": "ac2g", "name": "ac2g"},
              {"ph": "f", "id": "x", "pid": 1, "tid": 1, "ts": 10, "cat": "fwdbwd"},
              {"ph": "t", "id": 4, "pid": 1, "tid": 1, "ts": 10, "cat": "fwdbwd"}
            ]}"#,
        );
        assert_eq!(
            t.flows.ends,
            vec![
                FlowEnd {
                    id: 17,
                    start: true,
                    ts_ns: 10_500,
                    thread: 0
                },
                FlowEnd {
                    id: 17,
                    start: false,
                    ts_ns: 20_000,
                    thread: 1
                },
            ]
        );
        assert_eq!(
            t.flows.threads,
            vec![("1".to_string(), "1".to_string()), ("1".to_string(), "two".to_string())]
        );
        // Flows are not ops, and their threads do not enter the string table.
        assert_eq!(t.events.len(), 1);
        assert!(t.strings.iter().all(|(_, s)| s != "two"));
    }

    #[test]
    fn device_properties_that_are_not_an_array_describe_nothing() {
        let t = parse(r#"{"deviceProperties": {"id": 0}, "traceEvents": []}"#);
        assert!(t.devices.is_empty());
    }

    #[test]
    fn a_broken_device_object_is_an_error_at_its_place() {
        let text = r#"{"deviceProperties": [{"id": 0, 5: 1}], "traceEvents": []}"#;
        let err = parse_trace(
            text.as_bytes(),
            Path::new("t.json"),
            Compression::None,
            &AttrRequest::default(),
        )
        .unwrap_err()
        .to_string();
        let at = text.find("5:").unwrap();
        assert!(err.contains(&format!("byte {at}")), "{err}");
    }

    #[test]
    fn the_device_attribute_is_still_an_attribute() {
        let request = AttrRequest::build(crate::input::attrs::Preset::Default, &["device".to_string()], &[]).unwrap();
        let t = parse_trace(
            r#"{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 2, "dur": 1, "args": {"device": 3}}]}"#
                .as_bytes(),
            Path::new("t.json"),
            Compression::None,
            &request,
        )
        .unwrap();
        let (col, _) = t.attrs.column("device").unwrap();
        assert_eq!(t.attrs.text(col, 0, &t.strings), "3");
        assert_eq!(t.device_use, vec![(3, 1)]);
    }
}
