//! One event of `traceEvents` parsed with serde_json into an [`Entry`]: the members tracediff
//! reads borrowed as raw JSON text and converted here (strings, times in exact nanoseconds,
//! ids), nothing built as a `Value` tree. The chunks of the `event` module are made of these.

use crate::input::attrs::{AttrKeys, RawValue as AttrRaw};
use crate::input::json::fields::{Fields, MAX_EVENT_BYTES, Member, PLAIN_CAT, PLAIN_NAME, Raw, is_place_arg};
use crate::input::json::number::Number;
use crate::input::json::split::kind_of;
use crate::model::store::{MemorySample, NO_CORRELATION, NO_STREAM};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// Bytes of a string checked as UTF-8 (by the scan or by serde_json), as text; were they not
/// (they are), each bad sequence would read as U+FFFD rather than fail.
pub(crate) fn text_of(bytes: Cow<'_, [u8]>) -> Cow<'_, str> {
    match bytes {
        Cow::Borrowed(b) => match std::str::from_utf8(b) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(b),
        },
        Cow::Owned(v) => match String::from_utf8(v) {
            Ok(s) => Cow::Owned(s),
            Err(e) => Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned()),
        },
    }
}

/// One end of a `fwdbwd` flow, its thread as text.
#[derive(Debug, Clone)]
pub(crate) struct LocalFlow<'c> {
    pub id: u64,
    pub start: bool,
    pub ts_ns: i64,
    pub pid: Cow<'c, str>,
    pub tid: Cow<'c, str>,
}

/// A kept event, its text decoded.
#[derive(Debug)]
pub(super) struct Event<'a> {
    /// `name` and `cat`, decoded, as UTF-8 bytes (made text when interned).
    pub name: Cow<'a, [u8]>,
    pub cat: Cow<'a, [u8]>,
    pub ts_ns: i64,
    pub dur_ns: i64,
    /// `pid` and `tid` as written (a string with its quotes, or a number; empty when absent),
    /// decoded when kept: an `Event` stays small enough to be copied without `memcpy`.
    pub pid: &'a [u8],
    pub tid: &'a [u8],
    pub stream: i64,
    pub correlation: i64,
    pub device: Option<i64>,
}

/// The attributes asked for of a kept event: (column or `None` to infer, key, value).
pub(super) type EventAttrs<'a> = Vec<(Option<usize>, Cow<'a, str>, AttrRaw<'a>)>;

/// What one entry of `traceEvents` is to tracediff.
#[derive(Debug)]
pub(super) enum Entry<'a> {
    /// An event that counts as an op (docs/semantics.md#which-events-count).
    Kept(Event<'a>),
    /// A `[memory]` instant event.
    Memory(MemorySample),
    /// One end of a `fwdbwd` flow.
    Flow(LocalFlow<'a>),
    /// A duration event given as its two ends (`ph` `B`/`E`, or async `b`/`e`): not read (the
    /// profiler writes complete events), counted so that a note can say how many were left out.
    BeginEnd,
    /// Anything else (metadata, flows, counters, other instants).
    Other,
}

/// An error inside one value: offset in the parsed text and message.
pub(crate) type Failure = (usize, String);

/// Parses one event object.
pub(super) fn parse_event<'a>(s: &'a [u8], keys: &AttrKeys) -> Result<(Entry<'a>, EventAttrs<'a>), Failure> {
    match s.first() {
        Some(b'{') => {}
        Some(&b) => {
            return Err((
                0,
                format!("an entry of 'traceEvents' must be an object, found {}", kind_of(b)),
            ));
        }
        None => return Err((0, "invalid JSON: expected a value".to_string())),
    }
    parse_event_text(utf8(s)?, keys)
}

/// Parses one event object, already checked as UTF-8.
pub(super) fn parse_event_text<'a>(text: &'a str, keys: &AttrKeys) -> Result<(Entry<'a>, EventAttrs<'a>), Failure> {
    match text.as_bytes().first() {
        Some(b'{') => {}
        Some(&b) => {
            return Err((
                0,
                format!("an entry of 'traceEvents' must be an object, found {}", kind_of(b)),
            ));
        }
        None => return Err((0, "invalid JSON: expected a value".to_string())),
    }
    if text.len() > MAX_EVENT_BYTES {
        return Err((0, "an event longer than 4 GiB".to_string()));
    }
    let (mut args_kind, mut attrs) = (None, Vec::new());
    let fields = deserialize(text, |de| {
        de.deserialize_map(EventVisitor {
            keys,
            args_kind: &mut args_kind,
            attrs: &mut attrs,
        })
    })
    .map_err(|e| match args_kind {
        Some(kind) => (
            member_offset(text, "args").unwrap_or(0),
            format!("'args' must be an object, found {kind}"),
        ),
        None => e,
    })?;
    let entry = fields.into_event(text.as_bytes())?;
    let attrs = match entry {
        Entry::Kept(_) => attrs
            .into_iter()
            .map(|(col, key, raw)| (col, key, attr_value(raw)))
            .collect(),
        _ => Vec::new(),
    };
    Ok((entry, attrs))
}

/// The fields serde_json reads of the event `text` (no attributes asked for): what the fast
/// scan's are compared with.
#[cfg(test)]
pub(crate) fn exact_fields(text: &str) -> Result<Fields<'_>, Failure> {
    let (mut args_kind, mut attrs) = (None, Vec::new());
    deserialize(text, |de| {
        de.deserialize_map(EventVisitor {
            keys: &AttrKeys::default(),
            args_kind: &mut args_kind,
            attrs: &mut attrs,
        })
    })
}

/// Checks that `s` is UTF-8 (JSON text must be).
pub(crate) fn utf8(s: &[u8]) -> Result<&str, Failure> {
    std::str::from_utf8(s).map_err(|e| (e.valid_up_to(), "invalid JSON: invalid UTF-8 in string".to_string()))
}

/// Runs a serde_json deserialisation over `text`, turning its errors into (offset, message).
pub(crate) fn deserialize<'a, T>(
    text: &'a str,
    f: impl FnOnce(&mut serde_json::Deserializer<serde_json::de::StrRead<'a>>) -> serde_json::Result<T>,
) -> Result<T, Failure> {
    let mut de = serde_json::Deserializer::from_str(text);
    // The splitter has already refused nesting deeper than MAX_DEPTH.
    de.disable_recursion_limit();
    f(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| serde_failure(text, &e))
}

/// serde_json's error as (offset in `text`, message); its position is a line and a column.
pub(super) fn serde_failure(text: &str, e: &serde_json::Error) -> Failure {
    let mut start = 0;
    for _ in 1..e.line() {
        match memchr::memchr(b'\n', &text.as_bytes()[start..]) {
            Some(k) => start += k + 1,
            None => break,
        }
    }
    let mut at = (start + e.column()).saturating_sub(1).min(text.len());
    let full = e.to_string();
    // serde_json places this one error a byte before its cause (its column counts from 0
    // there, from 1 elsewhere): name the control character's own byte.
    if full.starts_with("control character") {
        let bytes = text.as_bytes();
        if let Some(k) = (at..text.len().min(at + 2)).find(|&k| bytes[k] < 0x20) {
            at = k;
        }
    }
    let what = match full.rfind(" at line ") {
        Some(i) => &full[..i],
        None => &full,
    };
    (at, format!("invalid JSON: {what}"))
}

/// The offset of the last value of member `key` in the object `text` (for messages).
pub(super) fn member_offset(text: &str, key: &str) -> Option<usize> {
    let raw = member(text, key).ok()??;
    Some(offset_of(text.as_bytes(), raw.get().as_bytes()))
}

/// The raw text of the last value of member `key` in the object `text`.
pub(crate) fn member<'a>(text: &'a str, key: &str) -> Result<Option<&'a RawValue>, Failure> {
    struct Find<'k>(&'k str);
    impl<'de> Visitor<'de> for Find<'_> {
        type Value = Option<&'de RawValue>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                let v: &'de RawValue = map.next_value()?;
                if k == self.0 {
                    found = Some(v);
                }
            }
            Ok(found)
        }
    }
    deserialize(text, |de| de.deserialize_map(Find(key)))
}

/// An object key, borrowed from the text unless it holds escapes (serde's `Cow<str>` always
/// allocates).
struct Key<'a>(Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// The attributes asked for that an event has: (column, key, value).
type RawAttrs<'a> = Vec<(Option<usize>, Cow<'a, str>, &'a RawValue)>;

struct EventVisitor<'k, 'f, 'a> {
    keys: &'k AttrKeys,
    args_kind: &'f mut Option<&'static str>,
    attrs: &'f mut RawAttrs<'a>,
}

impl<'de> Visitor<'de> for EventVisitor<'_, '_, 'de> {
    type Value = Fields<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an event object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields<'de>, A::Error> {
        let mut f = Fields::default();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            // `null` reads as absent, as a missing field.
            let slot = match f.member(key.as_bytes()) {
                Member::Read(slot, _) => slot,
                Member::Args => {
                    map.next_value_seed(ArgsSeed {
                        keys: self.keys,
                        fields: &mut f,
                        attrs: self.attrs,
                        kind: self.args_kind,
                    })?;
                    continue;
                }
                Member::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = map
                .next_value::<Option<&'de RawValue>>()?
                .map_or(Raw::default(), raw_of);
        }
        Ok(f)
    }
}

/// The `args` object: `stream` and `correlation`, and the attributes asked for.
struct ArgsSeed<'k, 'f, 'a> {
    keys: &'k AttrKeys,
    fields: &'f mut Fields<'a>,
    attrs: &'f mut RawAttrs<'a>,
    kind: &'f mut Option<&'static str>,
}

impl<'de> DeserializeSeed<'de> for ArgsSeed<'_, '_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> ArgsSeed<'_, '_, 'de> {
    fn not_an_object<E: de::Error>(self, kind: &'static str) -> Result<(), E> {
        *self.kind = Some(kind);
        Err(E::custom("'args' must be an object"))
    }
}

impl<'de> Visitor<'de> for ArgsSeed<'_, '_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.not_an_object("a boolean")
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.not_an_object("a number")
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.not_an_object("a number")
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.not_an_object("a number")
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.not_an_object("a string")
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        self.not_an_object("an array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let f = self.fields;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let slot = match f.arg(key.as_bytes()) {
                Some(slot) => slot,
                None => match self.keys.column_of(&key) {
                    Some(col) => {
                        let value: &'de RawValue = map.next_value()?;
                        self.attrs.push((col, key, value));
                        continue;
                    }
                    None => {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    }
                },
            };
            let value: &'de RawValue = map.next_value()?;
            *slot = raw_of(value);
            // `device` and the memory keys may also be attributes the user asked for.
            if !is_place_arg(key.as_bytes())
                && let Some(col) = self.keys.column_of(&key)
            {
                self.attrs.push((col, key, value));
            }
        }
        Ok(())
    }
}

/// Where the text of a value serde_json borrowed is.
fn raw_of(value: &RawValue) -> Raw {
    Raw::span(value.get().as_bytes())
}

/// The text of a JSON string value (with its quotes); a lone surrogate becomes U+FFFD.
pub(crate) fn string_text(raw: &str) -> Cow<'_, str> {
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains('\\') {
        return Cow::Borrowed(inner);
    }
    match serde_json::from_str::<String>(raw) {
        Ok(s) => Cow::Owned(s),
        Err(_) => Cow::Owned(lossy_string(raw)),
    }
}

/// Decodes a JSON string whose escapes serde_json refuses for text (lone surrogates).
fn lossy_string(raw: &str) -> String {
    struct Bytes;
    impl Visitor<'_> for Bytes {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a string")
        }
        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }
        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw);
    let mut bytes = de.deserialize_bytes(Bytes).unwrap_or_default();
    // serde_json writes a lone surrogate as its 3-byte (WTF-8) form: one U+FFFD each.
    let mut i = 0;
    while i + 2 < bytes.len() {
        if bytes[i] == 0xED && (0xA0..=0xBF).contains(&bytes[i + 1]) {
            bytes[i..i + 3].copy_from_slice("\u{FFFD}".as_bytes());
            i += 3;
        } else {
            i += 1;
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn type_error(text: &[u8], raw: &[u8], field: &str, want: &str) -> Failure {
    let kind = kind_of(raw[0]);
    (offset_of(text, raw), format!("'{field}' must be {want}, found {kind}"))
}

/// The offset of `raw` in `text`, which it was borrowed from.
fn offset_of(text: &[u8], raw: &[u8]) -> usize {
    raw.as_ptr() as usize - text.as_ptr() as usize
}

/// The text of a string value (with its quotes) as UTF-8 bytes; a lone surrogate becomes U+FFFD.
fn string_bytes(raw: &[u8]) -> Cow<'_, [u8]> {
    let inner = &raw[1..raw.len() - 1];
    if memchr::memchr(b'\\', inner).is_none() {
        return Cow::Borrowed(inner);
    }
    // Escaped: rare, decoded as text (the bytes were checked as UTF-8 with the event).
    match std::str::from_utf8(raw) {
        Ok(text) => Cow::Owned(string_text(text).into_owned().into_bytes()),
        Err(_) => Cow::Owned(String::from_utf8_lossy(raw).into_owned().into_bytes()),
    }
}

/// `plain`: the scan found `raw` a string without escapes.
fn string_field<'a>(
    text: &[u8],
    raw: Option<&'a [u8]>,
    field: &str,
    plain: bool,
) -> Result<Option<Cow<'a, [u8]>>, Failure> {
    match raw {
        None => Ok(None),
        Some(r) if plain => Ok(Some(Cow::Borrowed(&r[1..r.len() - 1]))),
        Some(r) if r[0] == b'"' => Ok(Some(string_bytes(r))),
        Some(r) => Err(type_error(text, r, field, "a string")),
    }
}

fn micros_field(text: &[u8], raw: Option<&[u8]>, field: &str) -> Result<Option<i64>, Failure> {
    let Some(r) = raw else { return Ok(None) };
    if !matches!(r[0], b'-' | b'0'..=b'9') {
        return Err(type_error(text, r, field, "a number"));
    }
    match crate::input::json::number::micros_bytes_to_ns(r) {
        Some(ns) => Ok(Some(ns)),
        None => Err((offset_of(text, r), format!("'{field}' is out of range"))),
    }
}

/// `pid` and `tid` may be numbers or strings; numbers are keyed by their text.
/// Checked here, decoded by [`id_text`] where it is kept.
fn id_field<'a>(text: &[u8], raw: Option<&'a [u8]>, field: &str) -> Result<Option<&'a [u8]>, Failure> {
    match raw {
        None => Ok(None),
        Some(r) => match r[0] {
            b'"' | b'-' | b'0'..=b'9' => Ok(Some(r)),
            _ => Err(type_error(text, r, field, "a number or a string")),
        },
    }
}

/// The text of a `pid` or `tid` checked by [`id_field`] (empty when absent), as UTF-8 bytes: a
/// string's text, or a number as written.
pub(crate) fn id_text(raw: &[u8]) -> Cow<'_, [u8]> {
    if raw.first() == Some(&b'"') {
        string_bytes(raw)
    } else {
        Cow::Borrowed(raw)
    }
}

/// An id the way HTA reads `stream` and `correlation`: a number, or a string holding a decimal
/// integer (`"7"`); anything else (`"0x0"`, `null`, an object) has no integer value. Refused
/// when it is a whole number outside the 64-bit integers: such an id cannot be kept exactly,
/// and a saturated one could join unrelated events (docs/robustness.md#ids-and-ranks).
fn id_int(text: &[u8], raw: Option<&[u8]>, field: &str) -> Result<Option<i64>, Failure> {
    let Some(raw) = raw else { return Ok(None) };
    // Most often a few digits (a stream, a correlation id).
    if let Some(v) = small_digits(raw) {
        return Ok(Some(v));
    }
    let t = String::from_utf8_lossy(raw);
    let beyond = || {
        (
            offset_of(text, raw),
            format!("'{field}' {t} is outside the 64-bit integers tracediff keeps exactly"),
        )
    };
    match raw[0] {
        b'-' | b'0'..=b'9' => {
            let n = Number::new(&t);
            if n.is_integer {
                return t.parse::<i64>().map(Some).map_err(|_| beyond());
            }
            // A fraction or an exponent: truncated toward zero, as HTA's int() does.
            let f = n.to_f64();
            if (-9.223_372_036_854_775e18..9.223_372_036_854_775e18).contains(&f) {
                Ok(Some(f as i64))
            } else {
                Err(beyond())
            }
        }
        b'"' => {
            let inner = string_text(&t);
            let inner = inner.trim();
            let digits = inner.strip_prefix('-').unwrap_or(inner);
            match inner.parse::<i64>() {
                Ok(v) => Ok(Some(v)),
                Err(_) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => Err(beyond()),
                Err(_) => Ok(None),
            }
        }
        _ => Ok(None),
    }
}

/// The value of a number written as at most 18 digits (which cannot overflow), else `None`.
#[inline]
fn small_digits(raw: &[u8]) -> Option<i64> {
    (!raw.is_empty() && raw.len() <= 18 && raw.iter().all(u8::is_ascii_digit))
        .then(|| raw.iter().fold(0, |v, &d| v * 10 + i64::from(d - b'0')))
}

/// An integer number; anything else is none.
fn integer(raw: Option<&[u8]>) -> Option<i64> {
    let raw = raw?;
    // Most often a few digits (a device, a byte count).
    if let Some(v) = small_digits(raw) {
        return Some(v);
    }
    if !matches!(raw[0], b'-' | b'0'..=b'9') {
        return None;
    }
    let text = String::from_utf8_lossy(raw);
    let n = Number::new(&text);
    n.is_integer.then(|| n.to_i64())
}

/// [`integer`], refusing a whole number outside the 64-bit integers (naming `key`).
fn exact_integer(text: &[u8], raw: Option<&[u8]>, key: &str) -> Result<Option<i64>, Failure> {
    let Some(r) = raw else { return Ok(None) };
    if let Some(v) = small_digits(r) {
        return Ok(Some(v));
    }
    if !matches!(r[0], b'-' | b'0'..=b'9') {
        return Ok(None);
    }
    let t = String::from_utf8_lossy(r);
    if !Number::new(&t).is_integer {
        return Ok(None);
    }
    t.parse::<i64>().map(Some).map_err(|_| {
        (
            offset_of(text, r),
            format!("'{key}' {t} is outside the 64-bit integers tracediff keeps exactly"),
        )
    })
}

impl Fields<'_> {
    /// The sample of a `[memory]` instant event; `Other` for any other event, or one without a
    /// time or a device.
    /// A byte count beyond the 64-bit integers is refused naming its key, never saturated, and
    /// so is a negative `Total Allocated` (a level, where `Bytes` is a change and may be negative).
    fn memory_sample(&self, text: &[u8], name: Option<&[u8]>, ts_ns: Option<i64>) -> Result<Entry<'static>, Failure> {
        if name != Some(b"[memory]".as_slice()) {
            return Ok(Entry::Other);
        }
        let raw_total = self.total_allocated.get(text);
        let total_allocated = exact_integer(text, raw_total, "Total Allocated")?;
        if let (Some(t), Some(r)) = (total_allocated.filter(|t| *t < 0), raw_total) {
            let why = "a device's allocated bytes are never below zero";
            return Err((offset_of(text, r), format!("'Total Allocated' {t} is negative: {why}")));
        }
        let bytes = exact_integer(text, self.bytes.get(text), "Bytes")?;
        let integer = |raw: Raw| integer(raw.get(text));
        let sample = || {
            Some(MemorySample {
                ts_ns: ts_ns?,
                device_type: i32::try_from(integer(self.device_type)?).ok()?,
                device_id: i32::try_from(integer(self.device_id)?).ok()?,
                total_allocated,
                bytes: bytes.unwrap_or(0),
            })
        };
        Ok(sample().map_or(Entry::Other, Entry::Memory))
    }
}

impl<'a> Fields<'a> {
    /// One end of a `fwdbwd` flow: `ph` `s` or `f` with an integer `id` and a `ts`; `Other` for
    /// anything else (flows only place backward work, so a malformed one is left out).
    fn flow_end(&self, text: &[u8], ts_ns: Option<i64>, pid: Option<&'a [u8]>, tid: Option<&'a [u8]>) -> Entry<'a> {
        let start = match self.ph.get(text) {
            Some(b"\"s\"") => true,
            Some(b"\"f\"") => false,
            _ => return Entry::Other,
        };
        let id = integer(self.id.get(text)).and_then(|id| u64::try_from(id).ok());
        match (id, ts_ns) {
            (Some(id), Some(ts_ns)) => Entry::Flow(LocalFlow {
                id,
                start,
                ts_ns,
                pid: text_of(id_text(pid.unwrap_or(b""))),
                tid: text_of(id_text(tid.unwrap_or(b""))),
            }),
            _ => Entry::Other,
        }
    }
}

/// An attribute value as the attribute builder reads it.
pub(super) fn attr_value(raw: &RawValue) -> AttrRaw<'_> {
    attr_value_text(raw.get())
}

/// An attribute value as the attribute builder reads it, from the value's JSON text `r`
/// (never empty: a JSON value has at least one byte).
pub(super) fn attr_value_text(r: &str) -> AttrRaw<'_> {
    match r.as_bytes()[0] {
        b'-' | b'0'..=b'9' => AttrRaw::Number(Number::new(r)),
        b'"' => AttrRaw::Text(string_text(r)),
        _ => AttrRaw::Json(r),
    }
}

impl<'a> Fields<'a> {
    /// Checks the types and decodes the event, whose text (UTF-8) is `text`; the first problem
    /// in the text wins.
    pub(crate) fn into_event(self, text: &'a [u8]) -> Result<Entry<'a>, Failure> {
        // Each field decoded in turn; at a problem, all are checked again for the first in the
        // text (rare: kept off the common path, whose values then travel unwrapped).
        let decoded = (|| {
            Some((
                string_field(text, self.name.get(text), "name", self.plain & PLAIN_NAME != 0).ok()?,
                string_field(text, self.cat.get(text), "cat", self.plain & PLAIN_CAT != 0).ok()?,
                micros_field(text, self.ts.get(text), "ts").ok()?,
                micros_field(text, self.dur.get(text), "dur").ok()?,
                id_field(text, self.pid.get(text), "pid").ok()?,
                id_field(text, self.tid.get(text), "tid").ok()?,
                id_int(text, self.stream.get(text), "stream").ok()?,
                id_int(text, self.correlation.get(text), "correlation").ok()?,
            ))
        })();
        let Some((name, cat, ts, dur, pid, tid, stream, correlation)) = decoded else {
            return Err(self.first_failure(text));
        };
        // Design docs/semantics.md#which-events-count: an event counts when it has `dur` and `cat`, and `cat` is not `Trace`.
        let flow = dur.is_none() && cat.as_deref() == Some(b"fwdbwd".as_slice());
        let (Some(dur_ns), Some(cat)) = (dur, cat) else {
            if flow {
                return Ok(self.flow_end(text, ts, pid, tid));
            }
            if dur.is_none() && matches!(self.ph.get(text), Some(b"\"B\"" | b"\"E\"" | b"\"b\"" | b"\"e\"")) {
                return Ok(Entry::BeginEnd);
            }
            return self.memory_sample(text, name.as_deref(), ts);
        };
        if *cat == *b"Trace" {
            return self.memory_sample(text, name.as_deref(), ts);
        }
        let Some(name) = name else {
            return Err((0, "event with 'dur' and 'cat' has no 'name'".to_string()));
        };
        let Some(ts_ns) = ts else {
            return Err((0, "event with 'dur' and 'cat' has no 'ts'".to_string()));
        };
        if let Some(why) = time_out_of_range(ts_ns, dur_ns) {
            return Err((0, format!("event '{}' {why}", String::from_utf8_lossy(&name))));
        }
        Ok(Entry::Kept(Event {
            device: integer(self.device.get(text)),
            name,
            cat,
            ts_ns,
            dur_ns,
            pid: pid.unwrap_or(b""),
            tid: tid.unwrap_or(b""),
            stream: stream.unwrap_or(NO_STREAM),
            correlation: correlation.unwrap_or(NO_CORRELATION),
        }))
    }
}

impl Fields<'_> {
    /// The first problem in the text among the fields' types and ranges.
    #[cold]
    fn first_failure(&self, text: &[u8]) -> Failure {
        let errors = [
            string_field(text, self.name.get(text), "name", false).err(),
            string_field(text, self.cat.get(text), "cat", false).err(),
            micros_field(text, self.ts.get(text), "ts").err(),
            micros_field(text, self.dur.get(text), "dur").err(),
            id_field(text, self.pid.get(text), "pid").err(),
            id_field(text, self.tid.get(text), "tid").err(),
            id_int(text, self.stream.get(text), "stream").err(),
            id_int(text, self.correlation.get(text), "correlation").err(),
        ];
        let first = errors.into_iter().flatten().min_by_key(|(at, _)| *at);
        first.unwrap_or((0, "invalid event".to_string()))
    }
}

/// The largest `|ts|` and `dur` kept exactly (docs/robustness.md#times-and-sums): every end
/// time `ts + dur` and every difference of two times then fits in an i64 with room to spare,
/// and the sums of a side's durations are bounded by [`crate::input::load::SIDE_TIME_BUDGET_NS`].
pub(super) const MAX_TS_NS: i64 = 1 << 62;
pub(super) const MIN_TS_NS: i64 = -(1 << 60);
pub(super) const MAX_DUR_NS: i64 = 1 << 61;

/// Why an event's times cannot be kept exactly, if they cannot: a negative `dur` is refused (a
/// profiler never writes one; summing it would hide time), as is a time past the range above.
fn time_out_of_range(ts_ns: i64, dur_ns: i64) -> Option<String> {
    if dur_ns < 0 {
        return Some(format!("has a negative 'dur' ({dur_ns} ns)"));
    }
    if dur_ns > MAX_DUR_NS {
        return Some(format!(
            "lasts {dur_ns} ns, past 2^61 ns (73 years), the most tracediff sums exactly"
        ));
    }
    if !(MIN_TS_NS..=MAX_TS_NS).contains(&ts_ns) {
        return Some(format!(
            "starts at {ts_ns} ns, outside -2^60..=2^62 ns, the times tracediff keeps exactly"
        ));
    }
    None
}
