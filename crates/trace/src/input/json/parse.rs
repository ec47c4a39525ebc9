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
pub use crate::input::format::Header;
use crate::input::json::event::{self, Collect};
use crate::input::json::number::Number;
pub use crate::input::json::parsed::ParsedTrace;
use crate::input::json::parsed::{Fail, check_value, truncated_at};
use crate::input::json::pipeline::Events;
use crate::input::json::split::{Cut, Input, describe_byte, kind_of};
use crate::input::parser::Parser;
use crate::input::read::{Compression, ReadAhead};
use crate::model::store::DeviceProperties;
use serde_json::value::RawValue;
use std::io::{self, Read};
use std::path::Path;

/// Bytes of events per chunk, about: each chunk is one of the reader's buffers.
pub const CHUNK_BYTES: usize = crate::input::json::split::READ_SIZE;

/// How far the parse goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Full,
    /// Every event, without the column a summary does not need (`index`).
    Summary,
    Rank,
    RankAndSteps,
}

/// Parses a whole trace from `reader` (on a [`Parser`] of its own, with the default
/// [`ParseOptions`](crate::input::parser::ParseOptions): to parse many files, make one `Parser` and use its methods). `path` and
/// `compression` only serve error messages.
pub fn parse_trace(
    reader: impl Read + Send,
    path: &Path,
    compression: Compression,
    request: &AttrRequest,
) -> Result<ParsedTrace> {
    Parser::default().parse_trace(reader, path, compression, request)
}

/// [`Parser::parse_trace_for_summary`] on a [`Parser`] of its own.
pub fn parse_trace_for_summary(reader: impl Read + Send, path: &Path, compression: Compression) -> Result<ParsedTrace> {
    Parser::default().parse_trace_for_summary(reader, path, compression)
}

/// [`Parser::scan_rank`] on a [`Parser`] of its own.
pub fn scan_rank(reader: impl Read + Send, path: &Path, compression: Compression) -> Result<Option<i64>> {
    Parser::default().scan_rank(reader, path, compression)
}

/// [`Parser::scan_header`] on a [`Parser`] of its own.
pub fn scan_header(
    reader: impl Read + Send,
    path: &Path,
    compression: Compression,
    want_steps: bool,
    marker: Option<&regex::Regex>,
) -> Result<Header> {
    Parser::default().scan_header(reader, path, compression, want_steps, marker)
}

impl Parser {
    /// Parses a whole trace from `reader`. `path` and `compression` only serve error messages.
    pub fn parse_trace(
        &self,
        reader: impl Read + Send,
        path: &Path,
        compression: Compression,
        request: &AttrRequest,
    ) -> Result<ParsedTrace> {
        walk(self, (reader, path, compression), Mode::Full, request, None)
    }

    /// Parses a whole trace for its summary: as [`Parser::parse_trace`] with no attributes, but
    /// the store's `index` column stays empty (nothing a summary reads), which saves 4 bytes
    /// per event at the peak, and so do `iteration` and `place` until
    /// [`crate::model::iteration::assign_iterations`] sizes and fills them (5 bytes more).
    /// `pid` and `tid` are kept: the summary's own times nest events per thread.
    pub fn parse_trace_for_summary(
        &self,
        reader: impl Read + Send,
        path: &Path,
        compression: Compression,
    ) -> Result<ParsedTrace> {
        walk(
            self,
            (reader, path, compression),
            Mode::Summary,
            &AttrRequest::default(),
            None,
        )
    }

    /// Reads only as far as needed to know the file's `distributedInfo.rank`: up to
    /// `traceEvents` when the rank comes before it (as torch.profiler writes it), else through
    /// the events, checking them without storing anything. `None` when the file declares no
    /// rank.
    pub fn scan_rank(&self, reader: impl Read + Send, path: &Path, compression: Compression) -> Result<Option<i64>> {
        walk(
            self,
            (reader, path, compression),
            Mode::Rank,
            &AttrRequest::default(),
            None,
        )
        .map(|t| t.declared_rank)
    }

    /// The file's rank and, with `want_steps`, its step numbers as a parse gives them (the
    /// outermost annotations `marker` (`--step-marker`) matches where given, else ProfilerStep,
    /// else a serving loop's step annotations): every event is read (and checked) but none is
    /// stored.
    pub fn scan_header(
        &self,
        reader: impl Read + Send,
        path: &Path,
        compression: Compression,
        want_steps: bool,
        marker: Option<&regex::Regex>,
    ) -> Result<Header> {
        let source = (reader, path, compression);
        if !want_steps {
            let t = walk(self, source, Mode::Rank, &AttrRequest::default(), None)?;
            return Ok(Header {
                rank: t.declared_rank,
                world_size: t.declared_world_size,
                steps: None,
            });
        }
        walk(self, source, Mode::RankAndSteps, &AttrRequest::default(), marker).map(|t| Header {
            rank: t.declared_rank,
            world_size: t.declared_world_size,
            steps: Some(t.scanned_steps),
        })
    }
}

/// What is learnt outside `traceEvents`.
#[derive(Debug, Default)]
struct Head {
    declared_rank: Option<i64>,
    declared_world_size: Option<i64>,
    json_bytes: u64,
    devices: Vec<DeviceProperties>,
}

/// Reads the file (and decompresses it) on a thread of its own (on this one where `parser`
/// reads here), walks the top-level value here and reads `traceEvents` on the parser's threads
/// ([`Events`]).
fn walk(
    parser: &Parser,
    (reader, path, compression): (impl Read + Send, &Path, Compression),
    mode: Mode,
    request: &AttrRequest,
    marker: Option<&regex::Regex>,
) -> Result<ParsedTrace> {
    let collect = match mode {
        Mode::Full if AttrKeys::from_request(request).is_active() => Collect::Events,
        Mode::Full => Collect::Columns { index: true },
        Mode::Summary => Collect::Columns { index: false },
        Mode::Rank | Mode::RankAndSteps => Collect::Steps,
    };
    let read = std::thread::scope(|scope| {
        let options = parser.options();
        let ahead = if options.read_here {
            ReadAhead::here(reader)
        } else {
            ReadAhead::scoped(scope, reader, options.threads)
        };
        let mut input = Input::new(ahead);
        let mut events = Events::new(request, collect, parser);
        events.mark_steps_by(marker);
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
fn read_top(input: &mut Input<ReadAhead<'_>>, mode: Mode, events: &mut Events<'_>) -> Result<Head, Fail> {
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
        _ => return Err(not_an_object(input, i, b)),
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

/// The error for a text whose first value is not an object: its kind where it starts a JSON
/// value (`null`, `12`, `"a"`), else that the file is not JSON at all, with its first word (a
/// first byte of `n`, `t` or `f` is only a literal where the whole word is one).
fn not_an_object<R: Read>(input: &mut Input<R>, i: usize, b: u8) -> Fail {
    let at = input.offset() + i as u64;
    let _ = input.want(i + 32);
    let data = input.data();
    let word_end = data[i..]
        .iter()
        .position(|&c| c.is_ascii_whitespace() || b",:]}[{".contains(&c))
        .map_or(data.len(), |n| i + n);
    let word = &data[i..word_end];
    let json_value = match b {
        b'"' => true,
        b'-' | b'0'..=b'9' => std::str::from_utf8(word).is_ok_and(|w| w.parse::<f64>().is_ok()),
        _ => matches!(word, b"null" | b"true" | b"false"),
    };
    if data[i..].starts_with(b"SQLite format 3\0") {
        let what = "not a trace: the file is an SQLite database (an Nsight Systems export?), not a Kineto JSON trace";
        return Fail::At(at, what.to_string());
    }
    // A value with more after it (`null garbage`, `12 apples`) is no JSON text either.
    let rest = data.get(word_end..).unwrap_or_default();
    let more = json_value && b != b'"' && rest.iter().any(|c| !c.is_ascii_whitespace());
    if json_value && !more {
        return Fail::At(
            at,
            format!("not a trace: the JSON text is {}, not an object", kind_of(b)),
        );
    }
    let shown_end = if more {
        data[i..]
            .iter()
            .position(|&c| c == b'\n' || c == b'\r')
            .map_or(data.len(), |n| i + n)
    } else {
        word_end
    };
    let shown: String = data[i..shown_end]
        .iter()
        .take(16)
        .map(|&c| std::ascii::escape_default(c).to_string())
        .collect();
    Fail::At(
        at,
        format!("not a trace: the file is not JSON (it starts with '{shown}')"),
    )
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
                crate::input::json::split::MAX_DEPTH
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
fn read_object(input: &mut Input<ReadAhead<'_>>, mode: Mode, events: &mut Events<'_>) -> Result<Top, Fail> {
    let mut head = Head::default();
    let mut seen = Seen::default();
    let mut first = true;
    let mut members = Vec::new();
    while let Some((key, v, b)) = next_member(input, first)? {
        first = false;
        if read_member(input, (mode, &mut *events), (&key, v, b), &mut head, &mut seen)? {
            return Ok(Top::Early(head));
        }
        if members.len() <= SHOWN_MEMBERS {
            members.push(key);
        }
    }
    if !seen.events {
        return Err(Fail::Whole(no_trace_events(&members)));
    }
    Ok(Top::Done(head))
}

/// The members of an object without `traceEvents` its error names, at most.
const SHOWN_MEMBERS: usize = 4;

/// The error for a JSON object without `traceEvents`, naming its first members (a Chrome
/// trace's events are that array; a JSON file of another tool has other members).
fn no_trace_events(members: &[String]) -> String {
    let shown = match members.len() {
        0 => "it is empty".to_string(),
        n if n > SHOWN_MEMBERS => format!("its members: {}, …", members[..SHOWN_MEMBERS].join(", ")),
        _ => format!("its members: {}", members.join(", ")),
    };
    format!(
        "not a Kineto trace: a JSON object with no 'traceEvents' array ({shown}); pass the trace torch.profiler writes (on_trace_ready, export_chrome_trace)"
    )
}

/// The members of the top-level object met so far that may appear once.
#[derive(Default)]
struct Seen {
    events: bool,
    info: bool,
    devices: bool,
}

/// The next member of the top-level object: its key, and where its value starts (the offset in
/// the input's data, and the value's first byte). `None` past the object's closing brace (read).
fn next_member(input: &mut Input<ReadAhead<'_>>, first: bool) -> Result<Option<(String, usize, u8)>, Fail> {
    let (mut i, mut b) = next_byte(input, 0)?;
    if b == b'}' && first {
        input.consume(i + 1);
        return Ok(None);
    }
    if !first {
        match b {
            b'}' => {
                input.consume(i + 1);
                return Ok(None);
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
    Ok(Some((key, v, b)))
}

/// Reads the value of member `key`, which starts at `v` with byte `b`, into `head` (or, for
/// `traceEvents`, `events`). Returns whether reading stops here (`Mode::Rank` with the rank
/// known before the events).
fn read_member(
    input: &mut Input<ReadAhead<'_>>,
    (mode, events): (Mode, &mut Events<'_>),
    (key, v, b): (&str, usize, u8),
    head: &mut Head,
    seen: &mut Seen,
) -> Result<bool, Fail> {
    let at = input.offset() + v as u64;
    match key {
        "traceEvents" => {
            if seen.events {
                return Err(Fail::At(at, "'traceEvents' appears twice".to_string()));
            }
            seen.events = true;
            if b != b'[' {
                return Err(Fail::At(
                    at,
                    format!("'traceEvents' must be an array, found {}", kind_of(b)),
                ));
            }
            if mode == Mode::Rank && head.declared_rank.is_some() {
                return Ok(true);
            }
            input.consume(v + 1);
            events.read(input, 2, false)?;
        }
        "deviceProperties" if matches!(mode, Mode::Full | Mode::Summary) => {
            let end = value_end(input, v, 1)?;
            let devices = parse_slice(input, v, end, device_properties)?;
            // A second copy that says the same is harmless; one that differs would make
            // the device depend on which copy is read (docs/robustness.md#ids-and-ranks).
            if seen.devices && devices != head.devices {
                return Err(Fail::At(
                    at,
                    "'deviceProperties' appears twice, describing different devices".to_string(),
                ));
            }
            seen.devices = true;
            head.devices = devices;
            input.consume(end);
        }
        "distributedInfo" => {
            if seen.info {
                return Err(Fail::At(at, "'distributedInfo' appears twice".to_string()));
            }
            seen.info = true;
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
    Ok(false)
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
mod overview_inputs;
#[cfg(test)]
mod tests;
