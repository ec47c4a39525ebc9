//! Parsing a Kineto trace straight into the columnar store.
//!
//! The JSON text is read in chunks and never held whole: the top-level object is walked
//! one member at a time, and `traceEvents` one event at a time. Each piece is parsed from
//! the current chunk; when a piece runs past the end of the chunk, more text is read and
//! that piece (only) is parsed again. Names are borrowed from the chunk and interned once.

use crate::error::{Error, Location, Result};
use crate::input::attrs::{AttrBuilder, AttrKeys, AttrRequest, AttrTable};
use crate::input::json::{self, Scan, ScanResult};
use crate::input::read::{Compression, describe_read_error};
use crate::model::store::{
    DeviceProperties, EventTable, MemoryEvents, MemorySample, NO_CORRELATION, NO_STREAM, NameId, NewEvent, StringTable,
};
use std::borrow::Cow;
use std::io::{self, Read};
use std::path::Path;

const CHUNK: usize = 1 << 20;
/// Distinct strings one file may hold: ids are `u32`.
const MAX_STRINGS: usize = u32::MAX as usize - 1;

/// What the parser extracts from one trace file.
#[derive(Debug, Default)]
pub struct ParsedTrace {
    pub declared_rank: Option<i64>,
    pub strings: StringTable,
    pub events: EventTable,
    pub attrs: AttrTable,
    pub total_events: u64,
    pub json_bytes: u64,
    /// Step numbers seen by a [`scan_header`] that asked for them, sorted and unique.
    pub scanned_steps: Vec<i64>,
    pub memory: MemoryEvents,
    pub devices: Vec<DeviceProperties>,
    pub device_use: Vec<(i64, u64)>,
}

/// What [`scan_header`] learns about a file without storing its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub rank: Option<i64>,
    /// The file's ProfilerStep numbers, when asked for.
    pub steps: Option<Vec<i64>>,
}

/// How far [`walk`] goes.
enum Mode<'r> {
    Full(&'r AttrRequest),
    Rank,
    RankAndSteps,
}

/// Parses a whole trace from `reader`. `path` and `compression` only serve error messages.
pub fn parse_trace(
    reader: impl Read,
    path: &Path,
    compression: Compression,
    request: &AttrRequest,
) -> Result<ParsedTrace> {
    walk(reader, path, compression, Mode::Full(request))
}

/// Reads only as far as needed to know the file's `distributedInfo.rank`: up to `traceEvents`
/// when the rank comes before it (as torch.profiler writes it), else through the events,
/// skipping them without storing anything. `None` when the file declares no rank.
pub fn scan_rank(reader: impl Read, path: &Path, compression: Compression) -> Result<Option<i64>> {
    walk(reader, path, compression, Mode::Rank).map(|t| t.declared_rank)
}

/// The file's rank and, with `want_steps`, its ProfilerStep numbers: every event is read
/// (and checked) but none is stored.
pub fn scan_header(reader: impl Read, path: &Path, compression: Compression, want_steps: bool) -> Result<Header> {
    if !want_steps {
        return scan_rank(reader, path, compression).map(|rank| Header { rank, steps: None });
    }
    walk(reader, path, compression, Mode::RankAndSteps).map(|t| Header {
        rank: t.declared_rank,
        steps: Some(t.scanned_steps),
    })
}

/// Walks the top-level object.
fn walk(reader: impl Read, path: &Path, compression: Compression, mode: Mode<'_>) -> Result<ParsedTrace> {
    let no_attrs = AttrRequest::default();
    let request = match mode {
        Mode::Full(r) => r,
        _ => &no_attrs,
    };
    let mut input = Input::new(reader, path, compression);
    let mut out = ParsedTrace::default();
    let mut attrs = AttrBuilder::new(request, &mut out.strings);
    let mut seen_events = false;

    input
        .unit(|s| {
            let mut i = 0;
            // A UTF-8 byte order mark is tolerated, as Python's json does for bytes.
            if s.len() >= 3 && s[..3] == [0xEF, 0xBB, 0xBF] {
                i = 3;
            }
            match json::peek(s, i) {
                Ok((b'{', i)) => Ok(((), i + 1)),
                Ok((b, i)) => json::wrong(
                    i,
                    format!("not a trace: the JSON text is {}, not an object", json::kind_of(b)),
                ),
                Err(e) => Err(e),
            }
        })
        .map_err(|e| match e {
            ParseFailure::Eof { .. } if input.offset() == 0 => Error::input(path, "empty file"),
            other => input.error(other),
        })?;

    let mut first = true;
    loop {
        let key: Option<String> = input
            .unit(|s| {
                let i = match next_member(s, 0, first, b'}')? {
                    Next::Close(end) => return Ok((None, end)),
                    Next::Member(i) => i,
                };
                let (b, i) = json::peek(s, i)?;
                if b != b'"' {
                    return json::invalid(i, format!("expected a key string, found {}", json::describe_byte(b)));
                }
                let (key, i) = json::string(s, i)?;
                let i = json::expect(s, i, b':', "':'")?;
                Ok((Some(key.into_owned()), i))
            })
            .map_err(|e| input.error(e))?;
        first = false;
        let Some(key) = key else { break };
        match key.as_str() {
            "traceEvents" => {
                if seen_events {
                    return Err(input.error_here("'traceEvents' appears twice"));
                }
                seen_events = true;
                match mode {
                    Mode::Full(_) => parse_events(&mut input, &mut out, &mut attrs)?,
                    Mode::Rank if out.declared_rank.is_some() => return Ok(out),
                    Mode::Rank => skip_events(&mut input, None)?,
                    Mode::RankAndSteps => {
                        let mut steps = Vec::new();
                        skip_events(&mut input, Some(&mut steps))?;
                        steps.sort_unstable();
                        steps.dedup();
                        out.scanned_steps = steps;
                    }
                }
            }
            "distributedInfo" => {
                out.declared_rank = input.unit(|s| distributed_rank(s, 0)).map_err(|e| input.error(e))?;
            }
            "deviceProperties" if matches!(mode, Mode::Full(_)) => {
                out.devices = input.unit(|s| device_properties(s, 0)).map_err(|e| input.error(e))?;
            }
            _ => {
                input
                    .unit(|s| json::skip_value(s, 0, 1).map(|i| ((), i)))
                    .map_err(|e| input.error(e))?;
            }
        }
    }
    // Only white space may follow the top-level object.
    loop {
        let rest = input.data();
        let i = json::skip_ws(rest, 0);
        if i < rest.len() {
            return Err(input.error(ParseFailure::Scan(Scan::Invalid {
                at: input.start + i,
                msg: "invalid JSON: unexpected text after the end of the JSON object".to_string(),
            })));
        }
        input.consume(i);
        if !input.fill().map_err(|e| input.error(e))? {
            break;
        }
    }
    if !seen_events {
        return Err(Error::input(path, "not a Kineto trace: no 'traceEvents' array"));
    }
    out.json_bytes = input.offset();
    out.events.shrink_to_fit();
    out.attrs = attrs.finish();
    Ok(out)
}

/// The rank in the `distributedInfo` object starting at `s[i]`.
fn distributed_rank(s: &[u8], i: usize) -> ScanResult<(Option<i64>, usize)> {
    let (b, i) = json::peek(s, i)?;
    if b != b'{' {
        // Anything but an object carries no rank.
        let end = json::skip_value(s, i, 1)?;
        return Ok((None, end));
    }
    let mut rank = None;
    let mut j = i + 1;
    let (b, k) = json::peek(s, j)?;
    if b == b'}' {
        return Ok((None, k + 1));
    }
    loop {
        let (b, k) = json::peek(s, j)?;
        if b != b'"' {
            return json::invalid(k, format!("expected a key string, found {}", json::describe_byte(b)));
        }
        let (key, k) = json::key(s, k)?;
        j = json::expect(s, k, b':', "':'")?;
        if *key == *b"rank" {
            let (b, v) = json::peek(s, j)?;
            match b {
                b'-' | b'0'..=b'9' => {
                    let (n, end) = json::number(s, v)?;
                    if !n.is_integer {
                        return json::wrong(v, "'distributedInfo.rank' must be an integer");
                    }
                    rank = Some(n.to_i64());
                    j = end;
                }
                b'"' => {
                    let (text, end) = json::string(s, v)?;
                    match text.trim().parse::<i64>() {
                        Ok(r) => rank = Some(r),
                        Err(_) => return json::wrong(v, "'distributedInfo.rank' must be an integer"),
                    }
                    j = end;
                }
                b'n' => j = json::literal(s, v)?,
                _ => {
                    return json::wrong(
                        v,
                        format!("'distributedInfo.rank' must be an integer, found {}", json::kind_of(b)),
                    );
                }
            }
        } else {
            j = json::skip_value(s, j, 2)?;
        }
        let (b, k) = json::peek(s, j)?;
        match b {
            b',' => j = k + 1,
            b'}' => return Ok((rank, k + 1)),
            _ => return json::invalid(k, format!("expected ',' or '}}', found {}", json::describe_byte(b))),
        }
    }
}

/// The `deviceProperties` array: each object's `id`, `name` and `totalGlobalMem`. Anything that
/// is not an array of objects describes no device and is skipped; entries without an integer `id`
/// are left out.
fn device_properties(s: &[u8], i: usize) -> ScanResult<(Vec<DeviceProperties>, usize)> {
    let (b, i) = json::peek(s, i)?;
    if b != b'[' {
        return Ok((Vec::new(), json::skip_value(s, i, 1)?));
    }
    let mut devices = Vec::new();
    let mut j = i + 1;
    let mut first = true;
    loop {
        j = match next_member(s, j, first, b']')? {
            Next::Close(end) => return Ok((devices, end)),
            Next::Member(k) => k,
        };
        first = false;
        let (b, k) = json::peek(s, j)?;
        if b != b'{' {
            j = json::skip_value(s, k, 2)?;
            continue;
        }
        let (device, end) = device_object(s, k)?;
        devices.extend(device);
        j = end;
    }
}

/// One object of `deviceProperties`, starting at its `{`.
fn device_object(s: &[u8], i: usize) -> ScanResult<(Option<DeviceProperties>, usize)> {
    let (mut id, mut name, mut memory) = (None, None, None);
    let mut j = i + 1;
    let mut first = true;
    loop {
        j = match next_member(s, j, first, b'}')? {
            Next::Close(end) => {
                let device = id.map(|id| DeviceProperties {
                    id,
                    name: name.unwrap_or_default(),
                    total_global_mem: memory,
                });
                return Ok((device, end));
            }
            Next::Member(k) => k,
        };
        first = false;
        let (b, k) = json::peek(s, j)?;
        if b != b'"' {
            return json::invalid(k, format!("expected a key string, found {}", json::describe_byte(b)));
        }
        let (key, k) = json::key(s, k)?;
        let v = json::expect(s, k, b':', "':'")?;
        j = match key.as_ref() {
            b"id" | b"totalGlobalMem" => {
                let (value, end) = raw_value(s, v)?;
                if let RawValue::Number(n) = value
                    && n.is_integer
                {
                    if key.as_ref() == b"id" {
                        id = Some(n.to_i64());
                    } else {
                        memory = u64::try_from(n.to_i64()).ok();
                    }
                }
                end
            }
            b"name" => {
                let (value, end) = raw_value(s, v)?;
                if let RawValue::Text(t) = value {
                    name = Some(t.into_owned());
                }
                end
            }
            _ => json::skip_value(s, v, 3)?,
        };
    }
}

/// Reads the `[` that opens `traceEvents`.
fn open_events<R: Read>(input: &mut Input<'_, R>) -> Result<()> {
    input
        .unit(|s| {
            let (b, i) = json::peek(s, 0)?;
            if b != b'[' {
                return json::wrong(i, format!("'traceEvents' must be an array, found {}", json::kind_of(b)));
            }
            Ok(((), i + 1))
        })
        .map_err(|e| input.error(e))
}

fn parse_events<R: Read>(input: &mut Input<'_, R>, out: &mut ParsedTrace, attrs: &mut AttrBuilder) -> Result<()> {
    open_events(input)?;
    let mut index: u64 = 0;
    let mut device_use: std::collections::BTreeMap<i64, u64> = std::collections::BTreeMap::new();
    loop {
        let strings = &mut out.strings;
        let events = &mut out.events;
        let memory = &mut out.memory;
        let done = input
            .unit(|s| {
                let i = match next_member(s, 0, index == 0, b']')? {
                    Next::Close(end) => return Ok((true, end)),
                    Next::Member(i) => i,
                };
                let (entry, end) = raw_event(s, i, attrs.keys())?;
                match entry {
                    Entry::Kept(raw) => {
                        if let Some(device) = raw.device {
                            *device_use.entry(device).or_insert(0) += 1;
                        }
                        store_event(raw, index, strings, events, attrs)?;
                    }
                    Entry::Memory(sample) => memory.push(sample),
                    Entry::Other => {}
                }
                Ok((false, end))
            })
            .map_err(|e| input.error(e))?;
        if done {
            break;
        }
        index += 1;
    }
    out.total_events = index;
    out.device_use = device_use.into_iter().collect();
    Ok(())
}

/// What comes next inside an array or object that is walked one member at a time.
enum Next {
    /// The closing bracket; the index after it.
    Close(usize),
    /// A member starts at (or after white space from) this index.
    Member(usize),
}

/// Reads the closing bracket `close`, or the `,` before a member (none before the first).
fn next_member(s: &[u8], from: usize, first: bool, close: u8) -> ScanResult<Next> {
    let (b, i) = json::peek(s, from)?;
    if b == close {
        return Ok(Next::Close(i + 1));
    }
    if first {
        return Ok(Next::Member(i));
    }
    if b != b',' {
        return json::invalid(
            i,
            format!("expected ',' or '{}', found {}", close as char, json::describe_byte(b)),
        );
    }
    Ok(Next::Member(i + 1))
}

/// Skips the `traceEvents` array one element at a time, so memory stays one chunk. With
/// `steps`, each event is read (not stored) and the numbers of kept ProfilerSteps collected.
fn skip_events<R: Read>(input: &mut Input<'_, R>, mut steps: Option<&mut Vec<i64>>) -> Result<()> {
    let no_keys = AttrKeys::default();
    open_events(input)?;
    let mut first = true;
    loop {
        let done = input
            .unit(|s| {
                let i = match next_member(s, 0, first, b']')? {
                    Next::Close(end) => return Ok((true, end)),
                    Next::Member(i) => i,
                };
                match steps.as_deref_mut() {
                    None => Ok((false, json::skip_value(s, i, 1)?)),
                    Some(found) => {
                        let (entry, end) = raw_event(s, i, &no_keys)?;
                        if let Entry::Kept(raw) = entry
                            && let Some(n) = raw.name.as_deref().and_then(crate::model::iteration::step_number)
                        {
                            found.push(n);
                        }
                        Ok((false, end))
                    }
                }
            })
            .map_err(|e| input.error(e))?;
        if done {
            return Ok(());
        }
        first = false;
    }
}

/// `pid` and `tid` may be numbers or strings.
#[derive(Debug)]
enum IdText<'a> {
    Text(Cow<'a, str>),
    Number(&'a [u8]),
}

/// The fields of one event that tracediff reads, borrowed from the chunk.
#[derive(Debug, Default)]
struct RawEvent<'a> {
    /// Where the event starts in the chunk, for error messages.
    at: usize,
    name: Option<Cow<'a, str>>,
    cat: Option<Cow<'a, str>>,
    ts_ns: Option<i64>,
    dur_ns: Option<i64>,
    pid: Option<IdText<'a>>,
    tid: Option<IdText<'a>>,
    stream: i64,
    correlation: i64,
    /// Requested attributes found in `args`: (column, or `None` for a key to infer; key; value).
    attrs: Vec<(Option<usize>, Cow<'a, str>, RawValue<'a>)>,
    /// `args.device`: the device a kernel, copy or set ran on.
    device: Option<i64>,
    /// The `args` of a `[memory]` instant event.
    memory: MemoryArgs,
}

/// The `args` fields of a `[memory]` instant event (design §4.3).
#[derive(Debug, Default, Clone, Copy)]
struct MemoryArgs {
    total_allocated: Option<i64>,
    bytes: Option<i64>,
    device_type: Option<i64>,
    device_id: Option<i64>,
}

/// What one entry of `traceEvents` is to tracediff.
// Lives on the stack for one event; boxing the large variant would cost an allocation per event.
#[allow(clippy::large_enum_variant)]
enum Entry<'a> {
    /// An event that counts as an op (design §3.2).
    Kept(RawEvent<'a>),
    /// A `[memory]` instant event.
    Memory(MemorySample),
    /// Anything else (metadata, flows, counters, other instants).
    Other,
}

impl RawEvent<'_> {
    /// Design §3.2: an event counts when it has `dur` and `cat`, and `cat` is not `Trace`.
    fn is_kept(&self) -> bool {
        self.dur_ns.is_some() && self.cat.as_deref().is_some_and(|c| c != "Trace")
    }
}

/// Parses the event object at `s[i]` (after white space).
fn raw_event<'a>(s: &'a [u8], i: usize, keys: &AttrKeys) -> ScanResult<(Entry<'a>, usize)> {
    let (b, i) = json::peek(s, i)?;
    if b != b'{' {
        return json::wrong(
            i,
            format!(
                "an entry of 'traceEvents' must be an object, found {}",
                json::kind_of(b)
            ),
        );
    }
    let mut ev = RawEvent {
        at: i,
        stream: NO_STREAM,
        correlation: NO_CORRELATION,
        ..RawEvent::default()
    };
    let mut j = i + 1;
    let (b, k) = json::peek(s, j)?;
    if b == b'}' {
        return Ok((Entry::Other, k + 1));
    }
    loop {
        let (b, k) = json::peek(s, j)?;
        if b != b'"' {
            return json::invalid(k, format!("expected a key string, found {}", json::describe_byte(b)));
        }
        let (key, k) = json::key(s, k)?;
        j = json::expect(s, k, b':', "':'")?;
        let (b, v) = json::peek(s, j)?;
        j = match key.as_ref() {
            b"name" => opt_string(s, v, b, "name", &mut ev.name)?,
            b"cat" => opt_string(s, v, b, "cat", &mut ev.cat)?,
            b"ts" => opt_micros(s, v, b, "ts", &mut ev.ts_ns)?,
            b"dur" => opt_micros(s, v, b, "dur", &mut ev.dur_ns)?,
            b"pid" => id_text(s, v, b, "pid", &mut ev.pid)?,
            b"tid" => id_text(s, v, b, "tid", &mut ev.tid)?,
            b"args" => args(s, v, b, &mut ev, keys)?,
            _ => json::skip_value(s, v, 2)?,
        };
        let (b, k) = json::peek(s, j)?;
        match b {
            b',' => j = k + 1,
            b'}' => {
                j = k + 1;
                break;
            }
            _ => return json::invalid(k, format!("expected ',' or '}}', found {}", json::describe_byte(b))),
        }
    }
    if !ev.is_kept() {
        return Ok((memory_sample(&ev).map_or(Entry::Other, Entry::Memory), j));
    }
    if ev.name.is_none() {
        return json::wrong(ev.at, "event with 'dur' and 'cat' has no 'name'");
    }
    if ev.ts_ns.is_none() {
        return json::wrong(ev.at, "event with 'dur' and 'cat' has no 'ts'");
    }
    Ok((Entry::Kept(ev), j))
}

/// The sample of a `[memory]` instant event; `None` for any other event, or one without a time
/// or a device.
fn memory_sample(ev: &RawEvent<'_>) -> Option<MemorySample> {
    if ev.name.as_deref() != Some("[memory]") {
        return None;
    }
    let m = ev.memory;
    Some(MemorySample {
        ts_ns: ev.ts_ns?,
        device_type: i32::try_from(m.device_type?).ok()?,
        device_id: i32::try_from(m.device_id?).ok()?,
        total_allocated: m.total_allocated,
        bytes: m.bytes.unwrap_or(0),
    })
}

fn type_error<T>(at: usize, field: &str, want: &str, found: u8) -> ScanResult<T> {
    json::wrong(at, format!("'{field}' must be {want}, found {}", json::kind_of(found)))
}

/// A string field; `null` counts as absent.
fn opt_string<'a>(s: &'a [u8], v: usize, b: u8, field: &str, slot: &mut Option<Cow<'a, str>>) -> ScanResult<usize> {
    match b {
        b'"' => {
            let (text, end) = json::string(s, v)?;
            *slot = Some(text);
            Ok(end)
        }
        b'n' => {
            *slot = None;
            json::literal(s, v)
        }
        _ => type_error(v, field, "a string", b),
    }
}

/// A time in µs, kept as ns; `null` counts as absent.
fn opt_micros(s: &[u8], v: usize, b: u8, field: &str, slot: &mut Option<i64>) -> ScanResult<usize> {
    match b {
        b'-' | b'0'..=b'9' => {
            let (n, end) = json::number(s, v)?;
            match n.micros_to_ns() {
                Some(ns) => *slot = Some(ns),
                None => return json::wrong(v, format!("'{field}' is out of range")),
            }
            Ok(end)
        }
        b'n' => {
            *slot = None;
            json::literal(s, v)
        }
        _ => type_error(v, field, "a number", b),
    }
}

fn id_text<'a>(s: &'a [u8], v: usize, b: u8, field: &str, slot: &mut Option<IdText<'a>>) -> ScanResult<usize> {
    match b {
        b'"' => {
            let (text, end) = json::string(s, v)?;
            *slot = Some(IdText::Text(text));
            Ok(end)
        }
        b'-' | b'0'..=b'9' => {
            let (n, end) = json::number(s, v)?;
            *slot = Some(IdText::Number(n.text));
            Ok(end)
        }
        b'n' => {
            *slot = None;
            json::literal(s, v)
        }
        _ => type_error(v, field, "a number or a string", b),
    }
}

/// The `args` object: `stream` and `correlation` are read, the rest is skipped.
fn args<'a>(s: &'a [u8], v: usize, b: u8, ev: &mut RawEvent<'a>, keys: &AttrKeys) -> ScanResult<usize> {
    match b {
        b'{' => {}
        b'n' => return json::literal(s, v),
        _ => return type_error(v, "args", "an object", b),
    }
    let mut j = v + 1;
    let (b, k) = json::peek(s, j)?;
    if b == b'}' {
        return Ok(k + 1);
    }
    loop {
        let (b, k) = json::peek(s, j)?;
        if b != b'"' {
            return json::invalid(k, format!("expected a key string, found {}", json::describe_byte(b)));
        }
        let (key, k) = json::key(s, k)?;
        j = json::expect(s, k, b':', "':'")?;
        j = match key.as_ref() {
            b"stream" => {
                let (value, end) = loose_int(s, j)?;
                ev.stream = value.unwrap_or(NO_STREAM);
                end
            }
            b"correlation" => {
                let (value, end) = loose_int(s, j)?;
                ev.correlation = value.unwrap_or(NO_CORRELATION);
                end
            }
            b"device" | b"Total Allocated" | b"Bytes" | b"Device Type" | b"Device Id" => {
                let (value, end) = raw_value(s, j)?;
                let number = match &value {
                    RawValue::Number(n) if n.is_integer => Some(n.to_i64()),
                    _ => None,
                };
                match key.as_ref() {
                    b"device" => ev.device = number,
                    b"Total Allocated" => ev.memory.total_allocated = number,
                    b"Bytes" => ev.memory.bytes = number,
                    b"Device Type" => ev.memory.device_type = number,
                    _ => ev.memory.device_id = number,
                }
                // These keys may also be attributes the user asked for (`device` is one of HTA's).
                if keys.is_active() {
                    let name = std::str::from_utf8(&key).unwrap_or("");
                    if let Some(col) = keys.column_of(name) {
                        ev.attrs.push((col, Cow::Owned(name.to_string()), value));
                    }
                }
                end
            }
            _ if !keys.is_active() => json::skip_value(s, j, 3)?,
            _ => match keys.column_of(std::str::from_utf8(&key).unwrap_or("")) {
                Some(col) => {
                    let (value, end) = raw_value(s, j)?;
                    // Keys were checked as UTF-8 by json::key.
                    let key = match key {
                        Cow::Borrowed(b) => Cow::Borrowed(std::str::from_utf8(b).unwrap_or("")),
                        Cow::Owned(b) => Cow::Owned(String::from_utf8(b).unwrap_or_default()),
                    };
                    ev.attrs.push((col, key, value));
                    end
                }
                None => json::skip_value(s, j, 3)?,
            },
        };
        let (b, k) = json::peek(s, j)?;
        match b {
            b',' => j = k + 1,
            b'}' => return Ok(k + 1),
            _ => return json::invalid(k, format!("expected ',' or '}}', found {}", json::describe_byte(b))),
        }
    }
}

/// An integer the way HTA reads `stream`: a number, or a string holding a decimal integer
/// (`"7"`); anything else (`"0x0"`, `null`, an object) has no integer value.
fn loose_int(s: &[u8], i: usize) -> ScanResult<(Option<i64>, usize)> {
    let (b, i) = json::peek(s, i)?;
    match b {
        b'-' | b'0'..=b'9' => {
            let (n, end) = json::number(s, i)?;
            Ok((Some(n.to_i64()), end))
        }
        b'"' => {
            let (text, end) = json::string(s, i)?;
            Ok((text.trim().parse::<i64>().ok(), end))
        }
        _ => Ok((None, json::skip_value(s, i, 3)?)),
    }
}

/// An attribute value as found in `args`, borrowed from the chunk.
#[derive(Debug, Clone)]
pub enum RawValue<'a> {
    Number(json::Number<'a>),
    Text(Cow<'a, str>),
    /// Objects, arrays, booleans and null: their JSON text.
    Json(&'a [u8]),
}

fn raw_value(s: &[u8], i: usize) -> ScanResult<(RawValue<'_>, usize)> {
    let (b, i) = json::peek(s, i)?;
    match b {
        b'-' | b'0'..=b'9' => json::number(s, i).map(|(n, end)| (RawValue::Number(n), end)),
        b'"' => json::string(s, i).map(|(t, end)| (RawValue::Text(t), end)),
        _ => {
            let end = json::skip_value(s, i, 3)?;
            Ok((RawValue::Json(&s[i..end]), end))
        }
    }
}

fn store_event(
    raw: RawEvent<'_>,
    index: u64,
    strings: &mut StringTable,
    events: &mut EventTable,
    attrs: &mut AttrBuilder,
) -> ScanResult<()> {
    let Ok(index) = u32::try_from(index) else {
        return json::wrong(raw.at, "more than 4294967295 events in one file");
    };
    // Capacity guard: interning a new string needs a free id.
    // One event interns at most a few strings per attribute; keep far from the id limit.
    if strings.len() + 4 + raw.attrs.len() >= MAX_STRINGS {
        return json::wrong(raw.at, format!("more than {MAX_STRINGS} distinct strings in one file"));
    }
    let mut id = |t: &Option<IdText<'_>>| -> NameId {
        match t {
            Some(IdText::Text(text)) => strings.intern(text),
            // Numbers are keyed by their text, so "12" (string) and 12 (number) share an id.
            Some(IdText::Number(n)) => strings.intern(std::str::from_utf8(n).unwrap_or("")),
            None => strings.intern(""),
        }
    };
    let pid = id(&raw.pid);
    let tid = id(&raw.tid);
    let (Some(name), Some(cat), Some(ts_ns), Some(dur_ns)) = (raw.name, raw.cat, raw.ts_ns, raw.dur_ns) else {
        return json::wrong(raw.at, "incomplete event");
    };
    attrs.push_row(raw.attrs, strings);
    events.push(NewEvent {
        index,
        name: strings.intern(&name),
        cat: strings.intern(&cat),
        ts_ns,
        dur_ns,
        pid,
        tid,
        stream: raw.stream,
        correlation: raw.correlation,
    });
    Ok(())
}

/// How a unit of parsing failed.
#[derive(Debug)]
enum ParseFailure {
    Scan(Scan),
    Eof { at: u64 },
    Io(io::Error),
}

impl From<Scan> for ParseFailure {
    fn from(s: Scan) -> Self {
        ParseFailure::Scan(s)
    }
}

impl From<io::Error> for ParseFailure {
    fn from(e: io::Error) -> Self {
        ParseFailure::Io(e)
    }
}

/// The window of JSON text being parsed, refilled from the reader in chunks.
struct Input<'p, R> {
    reader: R,
    path: &'p Path,
    compression: Compression,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Offset in the whole text of `buf[0]`.
    base: u64,
    eof: bool,
}

impl<'p, R: Read> Input<'p, R> {
    fn new(reader: R, path: &'p Path, compression: Compression) -> Self {
        Input {
            reader,
            path,
            compression,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            base: 0,
            eof: false,
        }
    }

    fn data(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    fn offset(&self) -> u64 {
        self.base + self.start as u64
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
    }

    /// Reads more text after what is unconsumed; `false` at the end of the input.
    fn fill(&mut self) -> Result<bool, ParseFailure> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.base += self.start as u64;
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            // One unit is larger than the buffer: grow it.
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ParseFailure::Io(e)),
            }
        }
    }

    /// Runs `f` on the unconsumed text until it has enough of it, then consumes what it used.
    fn unit<T>(&mut self, mut f: impl FnMut(&[u8]) -> ScanResult<(T, usize)>) -> Result<T, ParseFailure> {
        loop {
            match f(&self.buf[self.start..self.end]) {
                Ok((value, used)) => {
                    self.start += used;
                    return Ok(value);
                }
                Err(Scan::Incomplete) => {
                    if !self.fill()? {
                        return Err(ParseFailure::Eof {
                            at: self.base + self.end as u64,
                        });
                    }
                }
                Err(Scan::Invalid { at, msg }) => {
                    return Err(ParseFailure::Scan(Scan::Invalid {
                        at: self.start + at,
                        msg,
                    }));
                }
            }
        }
    }

    /// Turns a failure into the error the user sees.
    fn error(&self, failure: ParseFailure) -> Error {
        match failure {
            ParseFailure::Scan(Scan::Invalid { at, msg }) => {
                // `at` is relative to buf[0] here.
                let at = self.base + at as u64;
                Error::input_at(self.path, msg, Location::Byte(at))
            }
            ParseFailure::Scan(Scan::Incomplete) | ParseFailure::Eof { .. } => {
                let at = match failure {
                    ParseFailure::Eof { at } => at,
                    _ => self.base + self.end as u64,
                };
                Error::input_at(
                    self.path,
                    "invalid JSON: unexpected end of text (truncated file?)",
                    Location::Byte(at),
                )
            }
            ParseFailure::Io(e) => {
                let what = describe_read_error(&e, self.compression);
                Error::input_at(
                    self.path,
                    what,
                    Location::Text(format!("after {} bytes of JSON", self.base + self.end as u64)),
                )
            }
        }
    }

    fn error_here(&self, msg: &str) -> Error {
        Error::input_at(self.path, msg, Location::Byte(self.offset()))
    }
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
    fn keeps_complete_events_with_their_columns() {
        let t = parse(SMALL).unwrap();
        assert_eq!(t.declared_rank, Some(3));
        assert_eq!(t.total_events, 5);
        let e = &t.events;
        assert_eq!(e.len(), 2);
        assert_eq!(e.index, vec![0, 1]);
        assert_eq!(t.strings.resolve(e.name[0]), "aten::mm");
        assert_eq!(t.strings.resolve(e.name[1]), "gemm k");
        assert_eq!(t.strings.resolve(e.cat[1]), "kernel");
        assert_eq!(e.ts_ns, vec![10_500, 12_000]);
        assert_eq!(e.dur_ns, vec![2_250, 1_000]);
        assert_eq!(e.stream, vec![-1, 7]);
        assert_eq!(e.correlation, vec![-1, 99]);
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
            err("[1, 2]"),
            "not a trace: the JSON text is an array, not an object (t.json: byte 0)"
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
        assert_eq!(scan(r#"{"traceEvents": [{"a": 1}, 2]}"#).unwrap(), None);
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
                steps: Some(vec![7, 9])
            }
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
        let long = "x".repeat(3 * CHUNK);
        let text = format!(r#"{{"traceEvents": [{{"cat": "cpu_op", "name": "{long}", "ts": 1, "dur": 2}}]}}"#);
        let t = parse(&text).unwrap();
        assert_eq!(t.strings.resolve(t.events.name[0]).len(), 3 * CHUNK);
    }
}

#[cfg(test)]
mod overview_inputs {
    use super::*;

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
