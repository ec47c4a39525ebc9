//! One chunk of `traceEvents` parsed with serde_json, event by event, into chunk-local columns.
//!
//! Each event is deserialised through serde's visitor API straight from the chunk's bytes: the
//! fields tracediff reads are borrowed as raw JSON text ([`RawValue`]) and converted here, so
//! numbers keep every digit (`ts` in exact nanoseconds) and nothing builds a `Value` tree.
//! Chunks are independent: they are parsed on any thread and merged in file order.

use crate::input::attrs::{AttrKeys, RawValue as AttrRaw};
use crate::input::json::fields::MAX_EVENT_BYTES;
use crate::input::json::split::{ArrayCut, Expect, Found, MAX_DEPTH};
use crate::model::store::{EventTable, MemorySample, NameId, NewEvent};
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::input::json::entry::{Entry, Event, EventAttrs, attr_value_text, id_text, parse_event, parse_event_text};
pub(crate) use crate::input::json::entry::{Failure, LocalFlow, deserialize, member, string_text, text_of, utf8};

/// Consecutive events of one file's `traceEvents`, as text.
#[derive(Debug, Default)]
pub(crate) struct Chunk {
    /// A buffer of the reader, whose bytes `start..start + len` are the chunk's text.
    pub bytes: Vec<u8>,
    pub start: usize,
    pub len: usize,
    /// Offset in the file's JSON text of the chunk's text.
    pub base: u64,
    /// Each event's start and end in the chunk's text.
    pub spans: Vec<(usize, usize)>,
    /// Position in `traceEvents` of the chunk's first event.
    pub first_index: u64,
}

impl Chunk {
    /// The chunk's text.
    pub(crate) fn text(&self) -> &[u8] {
        &self.bytes[self.start..self.start + self.len]
    }
}

/// What a chunk parse keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Collect {
    /// Every kept event, with the attributes asked for, one by one ([`ChunkOut::events`]).
    Events,
    /// Every kept event as columns of the store ([`ChunkOut::table`]), with no attributes; with
    /// `index`, the `index` column too. The merge then appends whole columns.
    Columns { index: bool },
    /// Only the numbers of kept ProfilerSteps and the host user annotations that may mark
    /// steps ([`ChunkOut::annotations`]); every event is still checked.
    Steps,
}

/// A kept event with chunk-local string ids.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalEvent {
    pub index: u64,
    /// Offset of the event in the file, for errors found on merge.
    pub at: u64,
    pub name: u32,
    pub cat: u32,
    pub pid: u32,
    pub tid: u32,
    pub ts_ns: i64,
    pub dur_ns: i64,
    pub stream: i64,
    pub correlation: i64,
    /// `args.device`, when an integer.
    pub device: Option<i64>,
}

/// A requested attribute of a kept event: (row in the chunk, column or `None` to infer, key, value).
pub(crate) type LocalAttr<'c> = (u32, Option<usize>, Cow<'c, str>, AttrRaw<'c>);

/// Strings of one chunk, borrowed from its bytes where they hold no escapes. They are looked up
/// by their bytes (an event's text is known to be UTF-8 as a whole, not as `str` pieces) and
/// made text once each, when first met.
#[derive(Debug, Default)]
pub(crate) struct LocalStrings<'c> {
    pub list: Vec<Cow<'c, str>>,
    ids: FxHashMap<Cow<'c, [u8]>, u32>,
    /// In front of `ids`: per slot (from a string's length and its first and last eight bytes),
    /// the id of the last string met there, plus one (0: none). A name seen before is found by
    /// one comparison, without hashing all of it (kernel names run to hundreds of bytes).
    recent: Vec<u32>,
}

/// Slots of [`LocalStrings::recent`].
const RECENT_SLOTS: usize = 256;

/// The slot of `s` in [`LocalStrings::recent`].
#[inline(always)]
fn recent_slot(s: &[u8]) -> usize {
    let (head, tail) = match (s.first_chunk::<8>(), s.last_chunk::<8>()) {
        (Some(h), Some(t)) => (u64::from_le_bytes(*h), u64::from_le_bytes(*t)),
        _ => (s.iter().fold(0u64, |w, &x| w << 8 | u64::from(x)), 0),
    };
    let mixed = (head ^ tail.rotate_left(29) ^ s.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> 56) as usize
}

impl<'c> LocalStrings<'c> {
    fn intern(&mut self, s: Cow<'c, [u8]>) -> u32 {
        if self.recent.is_empty() {
            self.recent = vec![0; RECENT_SLOTS];
        }
        let slot = recent_slot(&s);
        if let Some(id) = self.recent[slot].checked_sub(1)
            && self.list[id as usize].as_bytes() == &*s
        {
            return id;
        }
        let id = match self.ids.get(s.as_ref()) {
            Some(&id) => id,
            None => {
                let id = self.list.len() as u32;
                self.list.push(text_of(s.clone()));
                self.ids.insert(s, id);
                id
            }
        };
        self.recent[slot] = id + 1;
        id
    }
}

/// One chunk, parsed.
#[derive(Debug, Default)]
pub(crate) struct ChunkOut<'c> {
    /// Entries of `traceEvents` read, kept or not.
    pub entries: u64,
    pub strings: LocalStrings<'c>,
    pub events: Vec<LocalEvent>,
    pub attrs: Vec<LocalAttr<'c>>,
    pub steps: Vec<i64>,
    /// With [`Collect::Steps`]: the `user_annotation` events, (name, start, duration), whose
    /// names may mark steps (a serving loop's, or `--step-marker`'s: the merge decides).
    pub annotations: Vec<(Cow<'c, str>, i64, i64)>,
    /// `[memory]` instant events, in order.
    pub memory: Vec<MemorySample>,
    /// `fwdbwd` flow ends, in order.
    pub flows: Vec<LocalFlow<'c>>,
    /// Begin and end events (`ph` `B`, `E`, `b`, `e`), left out.
    pub begin_end: u64,
    /// With [`Collect::Columns`]: the kept events, names and threads as ids of `strings`, whose
    /// list is in the order a one-pass parse of the file would first meet them (`pid`, `tid`,
    /// `name`, `cat` of each event), and `index` counted from the chunk's first entry.
    pub table: EventTable,
    /// With [`Collect::Columns`]: the first kept event's offset in the file, for errors found
    /// on merge.
    pub first_at: Option<u64>,
    /// With [`Collect::Columns`]: the id in `strings` of the last kept event's `cat` (a few
    /// values, often repeated: compared before hashing).
    last_cat: Option<u32>,
    /// With [`Collect::Columns`]: the last kept event's `pid` and `tid` as written, with their
    /// ids (most events run on the thread of the event before: compared before hashing).
    last_pid: Option<(&'c [u8], u32)>,
    last_tid: Option<(&'c [u8], u32)>,
    /// With [`Collect::Columns`]: `args.device` value → kept events carrying it.
    pub device_use: BTreeMap<i64, u64>,
}

/// The first problem in a chunk: its offset in the file and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChunkError {
    pub at: u64,
    pub msg: String,
}

/// Parses every event of `chunk`; the first error in file order stops it.
pub(crate) fn parse_chunk<'c>(chunk: &'c Chunk, keys: &AttrKeys, collect: Collect) -> Result<ChunkOut<'c>, ChunkError> {
    let mut out = ChunkOut::default();
    let none = AttrKeys::default();
    let keys = if collect == Collect::Events { keys } else { &none };
    out.parse_spans(chunk, &chunk.spans, keys, collect)?;
    Ok(out)
}

/// Where the cut of a block's events stands at their end.
#[derive(Debug)]
pub(crate) enum BlockEnd {
    /// At the block's end, the cut as it stands there (its count: the block's entries).
    More(ArrayCut),
    /// At the array's `]`, at this index of the block's text.
    End(usize),
    /// At a syntax error of the array: index and message.
    Fail(usize, String),
}

/// Parses the events of `chunk`'s text from index `at`, where a cut expecting `expect` would
/// stand (the array at nesting depth `outer`), to the block's end or the array's `]`.
///
/// Each event is read straight from the text by one validating scan (`scan.rs`) that finds its
/// end and the members tracediff reads, so the text is scanned once. At the first thing this
/// fast path does not take as it stands (an error, an event cut by the block's end, an escaped
/// key, deep nesting, a byte that is not UTF-8), the rest is cut with [`ArrayCut`] and parsed
/// event by event with serde_json, as
/// [`parse_chunk`] does: so the events, the errors and their bytes, and the cut left at the
/// end are what cutting the whole block first would give. The attributes asked for are read by
/// the scan as serde_json's visitor reads them. With `fast` off every event goes that exact way.
pub(crate) fn parse_block_events<'c>(
    chunk: &'c Chunk,
    expect: Expect,
    at: usize,
    outer: usize,
    keys: &AttrKeys,
    collect: Collect,
    fast: bool,
) -> (Result<ChunkOut<'c>, ChunkError>, BlockEnd) {
    let none = AttrKeys::default();
    let keys = if collect == Collect::Events { keys } else { &none };
    let bytes = chunk.text();
    let mut out = ChunkOut::default();
    if let Collect::Columns { index } = collect {
        // About one kept event per 256 bytes of text (more than most traces hold): the chunk's
        // columns are not grown and copied as they fill.
        out.table.reserve(bytes.len().saturating_sub(at) / 256, index);
    }
    let (mut expect, mut at) = (expect, at);
    // The scan checks the UTF-8 of what it accepts (the block is not checked first).
    let mut found = Vec::new();
    while let Some((entry, attrs, event_at, sep)) = fast
        .then(|| next_whole_event(bytes, at, outer, keys, &mut found))
        .flatten()
    {
        let index = chunk.first_index + out.entries;
        out.entries += 1;
        if let Err(e) = out.keep(entry, attrs, index, chunk.base + event_at as u64, collect) {
            return (Err(e), BlockEnd::More(ArrayCut::new(expect, at, outer)));
        }
        if bytes[sep] == b']' {
            return (Ok(out), BlockEnd::End(sep));
        }
        (expect, at) = (Expect::Element, sep + 1);
    }
    let mut cut = ArrayCut::new(expect, at, outer);
    let mut spans = Vec::new();
    let end = loop {
        match cut.next(bytes) {
            Found::Element(a, b) => spans.push((a, b)),
            Found::More => break None,
            Found::End(at) => break Some(BlockEnd::End(at)),
            Found::Fail(at, msg) => break Some(BlockEnd::Fail(at, msg)),
        }
    };
    if let Err(e) = out.parse_spans(chunk, &spans, keys, collect) {
        return (Err(e), BlockEnd::More(cut));
    }
    cut.count += out.entries - spans.len() as u64;
    (Ok(out), end.unwrap_or(BlockEnd::More(cut)))
}

/// The whole event whose `{` comes first after white space from `at` in `s`, when it parses
/// and checks (UTF-8 included) and a `,` or `]` follows it: the entry, the attributes `keys`
/// asks for (as the exact way reads them: kept events only), its start, and the separator's
/// index. The array is at nesting depth `outer`; `found` is the scan's buffer.
fn next_whole_event<'s>(
    s: &'s [u8],
    at: usize,
    outer: usize,
    keys: &AttrKeys,
    found: &mut Vec<crate::input::json::scan::ScanAttr<'s>>,
) -> Option<(Entry<'s>, EventAttrs<'s>, usize, usize)> {
    let q = crate::input::json::scan::skip_ws(s, at);
    // The exact way refuses nesting past MAX_DEPTH from the document's root: the event's own
    // `{` is at depth `outer + 1`.
    let (fields, len) = crate::input::json::scan::event(&s[q..], MAX_DEPTH.saturating_sub(outer), keys, found)?;
    if len > MAX_EVENT_BYTES {
        return None;
    }
    let entry = fields.into_event(&s[q..q + len]).ok()?;
    let sep = crate::input::json::scan::skip_ws(s, q + len);
    if !matches!(s.get(sep), Some(b',' | b']')) {
        return None;
    }
    let attrs = match entry {
        Entry::Kept(_) => found
            .drain(..)
            .map(|(col, key, raw)| (col, Cow::Borrowed(key), attr_value_text(raw)))
            .collect(),
        _ => Vec::new(),
    };
    Some((entry, attrs, q, sep))
}

impl<'c> ChunkOut<'c> {
    /// Parses the events at `spans` of `chunk`'s text, one by one, after the entries already
    /// read; the first error in file order stops it.
    fn parse_spans(
        &mut self,
        chunk: &'c Chunk,
        spans: &[(usize, usize)],
        keys: &AttrKeys,
        collect: Collect,
    ) -> Result<(), ChunkError> {
        // UTF-8 is checked once for the events, from the first one's start (the text before it
        // may begin inside a character); an event past the first invalid byte is checked alone
        // (events start and end with ASCII brackets, so they slice the valid text at char
        // boundaries).
        let bytes = chunk.text();
        let from = spans.first().map_or(0, |s| s.0);
        let to = spans.last().map_or(0, |s| s.1);
        let valid = match std::str::from_utf8(&bytes[from..to]) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&bytes[from..from + e.valid_up_to()]).unwrap_or(""),
        };
        for &(a, b) in spans {
            let fail = |(at, msg): (usize, String)| ChunkError {
                at: chunk.base + (a + at) as u64,
                msg,
            };
            let parsed = match valid.get(a - from..b - from) {
                Some(text) => parse_event_text(text, keys),
                None => parse_event(&bytes[a..b], keys),
            };
            let (entry, attrs) = parsed.map_err(fail)?;
            let index = chunk.first_index + self.entries;
            self.entries += 1;
            self.keep(entry, attrs, index, chunk.base + a as u64, collect)?;
        }
        Ok(())
    }

    /// Keeps what `collect` asks for of entry `index` of the array, at offset `at` in the file.
    fn keep(
        &mut self,
        entry: Entry<'c>,
        attrs: EventAttrs<'c>,
        index: u64,
        at: u64,
        collect: Collect,
    ) -> Result<(), ChunkError> {
        let ev = match entry {
            Entry::Kept(ev) => ev,
            Entry::Memory(m) if collect != Collect::Steps => {
                self.memory.push(m);
                return Ok(());
            }
            Entry::Flow(f) if collect != Collect::Steps => {
                self.flows.push(f);
                return Ok(());
            }
            Entry::BeginEnd => {
                self.begin_end += 1;
                return Ok(());
            }
            _ => return Ok(()),
        };
        match collect {
            Collect::Steps => {
                if ev.name.starts_with(b"ProfilerStep")
                    && let Some(n) = crate::model::iteration::step_number(&text_of(ev.name.clone()))
                {
                    self.steps.push(n);
                }
                if &*ev.cat == b"user_annotation" {
                    self.annotations.push((text_of(ev.name), ev.ts_ns, ev.dur_ns));
                }
            }
            Collect::Events => self.push(ev, attrs, index, at),
            Collect::Columns { index: keep } => self.push_columns(ev, index, at, keep)?,
        }
        Ok(())
    }

    /// Adds a kept event to the columns; its `index` only with `keep_index`.
    fn push_columns(&mut self, ev: Event<'c>, index: u64, at: u64, keep_index: bool) -> Result<(), ChunkError> {
        let Ok(index) = u32::try_from(index) else {
            return Err(ChunkError {
                at,
                msg: "more than 4294967295 events in one file".to_string(),
            });
        };
        let s = &mut self.strings;
        // Interned in the order the merge interns a file's strings, so that a chunk's list, taken
        // in order, gives the file's ids in first-seen order whatever the chunking.
        let mut thread_id = |raw: &'c [u8], last: &mut Option<(&'c [u8], u32)>| match *last {
            Some((text, id)) if text == raw => id,
            _ => {
                let id = s.intern(id_text(raw));
                *last = Some((raw, id));
                id
            }
        };
        let pid = NameId(thread_id(ev.pid, &mut self.last_pid));
        let tid = NameId(thread_id(ev.tid, &mut self.last_tid));
        let name = NameId(s.intern(ev.name));
        // Already in the list when it matches, so the list's order is as interning gives it.
        let cat = match self.last_cat {
            Some(id) if s.list[id as usize].as_bytes() == &*ev.cat => id,
            _ => {
                let id = s.intern(ev.cat);
                self.last_cat = Some(id);
                id
            }
        };
        let cat = NameId(cat);
        if let Some(device) = ev.device {
            *self.device_use.entry(device).or_insert(0) += 1;
        }
        let event = NewEvent {
            index,
            name,
            cat,
            ts_ns: ev.ts_ns,
            dur_ns: ev.dur_ns,
            pid,
            tid,
            stream: ev.stream,
            correlation: ev.correlation,
        };
        if keep_index {
            self.table.push(event);
        } else {
            self.table.push_without_index(event);
        }
        self.first_at.get_or_insert(at);
        Ok(())
    }

    /// Adds a kept event.
    fn push(&mut self, ev: Event<'c>, attrs: EventAttrs<'c>, index: u64, at: u64) {
        let name = self.strings.intern(ev.name);
        let row = self.events.len() as u32;
        let local = LocalEvent {
            index,
            at,
            pid: self.strings.intern(id_text(ev.pid)),
            tid: self.strings.intern(id_text(ev.tid)),
            name,
            cat: self.strings.intern(ev.cat),
            ts_ns: ev.ts_ns,
            dur_ns: ev.dur_ns,
            stream: ev.stream,
            correlation: ev.correlation,
            device: ev.device,
        };
        self.events.push(local);
        self.attrs
            .extend(attrs.into_iter().map(|(col, key, value)| (row, col, key, value)));
    }
}
