//! The events of `traceEvents`, read on every core with no serial pass over the text.
//!
//! - The text is handed out in blocks as it is read (no scan: [`Input::take_block`]).
//! - A parsing thread takes a block, guesses where its first event starts (a `{` after `}` and
//!   `,`: [`guess_element_start`]), cuts the events from there ([`ArrayCut`]) and parses them
//!   into chunk-local columns ([`parse_chunk`]). The first block starts at a known place.
//! - This thread takes the parsed blocks in file order. It cuts the text between the end of the
//!   last block's last whole event and the next block's guessed start with the same cut,
//!   carried on from where the last block left it, and parses those events (one or two a
//!   block). If that cut arrives at the guessed start expecting an event after a `,`, the
//!   block's parse is the one a serial pass would have made (the cut is a deterministic
//!   state machine in the same state at the same byte) and it is kept; if not (the guess was
//!   inside a string or a nested value), the block is cut and parsed again here, from where
//!   the cut really stands. A bad guess costs time, never a wrong answer.
//! - The chunks are merged in file order: a chunk's strings are interned into the file's table
//!   once per distinct string, its columns appended whole; ids are put right, in parallel,
//!   once the file is read. So the store, and every output byte, is the same whatever the
//!   number of threads.

use crate::input::attrs::{AttrBuilder, AttrKeys, AttrRequest, RawValue as AttrRaw};
use crate::input::json::event::{BlockEnd, Chunk, ChunkError, ChunkOut, Collect, parse_block_events, parse_chunk};
use crate::input::json::parsed::{Fail, ParsedTrace, check_value, truncated_at};
use crate::input::json::split::{ArrayCut, Expect, Found, Input, TextBlock, guess_element_start};
use crate::input::parser::Parser;
use crate::input::read::ReadAhead;
use crate::model::store::NameId;
use rayon::prelude::*;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

/// Distinct strings one file may hold: ids are `u32`.
const MAX_STRINGS: usize = u32::MAX as usize - 1;

self_cell::self_cell!(
    /// A chunk and what parsing it gave, which borrows the chunk's text: the two travel
    /// together from the parsing thread to the merge.
    struct ParsedChunk {
        owner: Chunk,
        #[covariant]
        dependent: ChunkResult,
    }
);

type ChunkResult<'c> = Result<ChunkOut<'c>, ChunkError>;

impl ParsedChunk {
    /// Parses `chunk`'s events (its `spans`), keeping what `collect` asks for.
    fn parse(chunk: Chunk, keys: &AttrKeys, collect: Collect) -> Self {
        ParsedChunk::new(chunk, |c| parse_chunk(c, keys, collect))
    }
}

/// Where a parsing thread began in its block.
#[derive(Debug, Clone, Copy)]
enum Guess {
    /// At the block's start, which is known (the first block: just after the `[`).
    Known,
    /// At this guessed event start.
    At(usize),
    /// Nowhere: the block has no likely event start (inside a huge value, or white space).
    None,
}

/// One block, cut and parsed on a parsing thread.
struct Block {
    guess: Guess,
    end: BlockEnd,
    parsed: ParsedChunk,
}

/// Parses the events of `chunk` from where it guesses the first starts.
fn parse_block(chunk: Chunk, known: bool, outer: usize, keys: &AttrKeys, how: How) -> Block {
    let How { collect, fast } = how;
    let (guess, expect, at) = if known {
        (Guess::Known, Expect::First, 0)
    } else {
        match guess_element_start(chunk.text()) {
            Some(g) => (Guess::At(g), Expect::Element, g),
            None => {
                return Block {
                    guess: Guess::None,
                    end: BlockEnd::More(ArrayCut::new(Expect::First, 0, outer)),
                    parsed: ParsedChunk::parse(chunk, keys, collect),
                };
            }
        }
    };
    let mut end = BlockEnd::More(ArrayCut::new(expect, at, outer));
    let parsed = ParsedChunk::new(chunk, |c| {
        let (out, block_end) = parse_block_events(c, expect, at, outer, keys, collect, fast);
        end = block_end;
        out
    });
    Block { guess, end, parsed }
}

/// What follows a block in the chain.
enum Flow {
    Go,
    /// The array ended: the text after its `]` (and its offset), to be read as the rest of the
    /// document.
    End(Vec<u8>, u64),
}

/// What a parsing thread keeps of a block's events, and whether it reads them by the fast scan.
#[derive(Debug, Clone, Copy)]
struct How {
    collect: Collect,
    fast: bool,
}

/// Reads the events of one file's `traceEvents` and builds its store.
pub(crate) struct Events<'p> {
    merger: Merger,
    keys: Arc<AttrKeys>,
    how: How,
    /// The parser's threads (`None`: blocks are parsed here), and the most text a block holds.
    pool: Option<&'p rayon::ThreadPool>,
    threads: usize,
    block_bytes: usize,
    /// Buffers of merged chunks, to be read into again (no fresh pages).
    spares: Vec<Vec<u8>>,
}

/// The blocks handed to the parsing threads and not yet taken back, in file order.
struct InFlight {
    done: Sender<(u64, Block)>,
    parsed: Receiver<(u64, Block)>,
    /// Blocks parsed ahead of their turn, by number.
    waiting: BTreeMap<u64, Block>,
    sent: u64,
    taken: u64,
}

impl<'p> Events<'p> {
    /// A reader of one file's events, storing the attributes `request` asks for, as `parser`
    /// says: on its pool (none with one thread), in blocks of its size.
    pub(super) fn new(request: &AttrRequest, collect: Collect, parser: &'p Parser) -> Self {
        let options = parser.options();
        let pool = parser.pool();
        Events {
            merger: Merger::new(request, collect),
            keys: Arc::new(AttrKeys::from_request(request)),
            how: How {
                collect,
                fast: options.fast_scan,
            },
            pool,
            threads: pool.map_or(1, |p| p.current_num_threads()),
            block_bytes: options.block_bytes,
            spares: Vec::new(),
        }
    }

    /// Steps are marked by `marker` (`--step-marker`) in a [`Collect::Steps`] scan.
    pub(super) fn mark_steps_by(&mut self, marker: Option<&regex::Regex>) {
        self.merger.marker = marker.cloned();
    }

    /// The file's store, once its events are read: ids and `index` put right chunk by chunk,
    /// in parallel on the parse pool.
    pub(super) fn finish(self) -> ParsedTrace {
        let pool = self.pool;
        let merger = self.merger;
        match pool {
            Some(pool) => pool.install(|| merger.finish()),
            None => merger.finish(),
        }
    }

    /// Reads the elements of an array whose `[` is consumed, at nesting depth `outer`; with
    /// `open_ended` the text may end instead of the `]` (the Trace Event Format's JSON-array
    /// form allows it). The text after the `]` is left in `input`.
    pub(super) fn read(
        &mut self,
        input: &mut Input<ReadAhead<'_>>,
        outer: usize,
        open_ended: bool,
    ) -> Result<(), Fail> {
        let (done, parsed) = channel();
        let mut flight = InFlight {
            done,
            parsed,
            waiting: BTreeMap::new(),
            sent: 0,
            taken: 0,
        };
        // At most two blocks per thread in flight: bounds the memory.
        let limit = if self.pool.is_some() {
            2 * self.threads as u64
        } else {
            1
        };
        let mut chain = Chain::new(outer, input.offset());
        let mut ended: Option<io::Result<()>> = None;
        loop {
            for bytes in self.spares.drain(..) {
                input.recycle(bytes);
            }
            while ended.is_none() && flight.sent - flight.taken < limit {
                match input.take_block(self.block_bytes) {
                    Ok(Some(TextBlock {
                        bytes,
                        start,
                        len,
                        base,
                    })) => {
                        let chunk = Chunk {
                            bytes,
                            start,
                            len,
                            base,
                            ..Chunk::default()
                        };
                        self.dispatch(chunk, outer, &mut flight);
                    }
                    Ok(None) => ended = Some(Ok(())),
                    Err(e) => ended = Some(Err(e)),
                }
            }
            let Some(block) = flight.next() else { break };
            if let Flow::End(mut rest, base) = chain.take(block, self)? {
                // The blocks read after the array's end are the rest of the document.
                while let Some(block) = flight.next() {
                    let bytes = block.parsed.into_owner();
                    rest.extend_from_slice(bytes.text());
                    self.spares.push(bytes.bytes);
                }
                input.put_back(&rest, base, ended.and_then(Result::err));
                return Ok(());
            }
        }
        if let Some(Err(e)) = ended {
            return Err(Fail::Io(e, input.read_so_far()));
        }
        chain.finish(open_ended, self)
    }

    /// Sends `chunk` to be cut and parsed, or parses it here with one thread.
    fn dispatch(&self, chunk: Chunk, outer: usize, flight: &mut InFlight) {
        let (seq, known, how) = (flight.sent, flight.sent == 0, self.how);
        flight.sent += 1;
        match self.pool {
            Some(pool) => {
                let (done, keys) = (flight.done.clone(), Arc::clone(&self.keys));
                // A send fails only once the reading has stopped with an error.
                pool.spawn(move || {
                    let _ = done.send((seq, parse_block(chunk, known, outer, &keys, how)));
                });
            }
            None => {
                let block = parse_block(chunk, known, outer, &self.keys, how);
                flight.waiting.insert(seq, block);
            }
        }
    }

    /// Merges a parsed chunk whose first event is entry `first` of the array; gives its buffer
    /// back for reuse.
    fn merge(&mut self, mut parsed: ParsedChunk, first: u64) -> Result<(), Fail> {
        let merger = &mut self.merger;
        parsed
            .with_dependent_mut(|_, out| match out {
                Ok(out) => {
                    let entries = out.entries;
                    merger.merge(std::mem::take(out), entries, first)
                }
                Err(e) => Err(e.clone()),
            })
            .map_err(|e| Fail::At(e.at, e.msg))?;
        self.spares.push(parsed.into_owner().bytes);
        Ok(())
    }

    /// Parses and merges the elements `spans` of `text` (at offset `base` in the file) here.
    fn merge_here(&mut self, text: &[u8], base: u64, spans: Vec<(usize, usize)>, first: u64) -> Result<(), Fail> {
        let Some(&(_, last)) = spans.last() else { return Ok(()) };
        let chunk = Chunk {
            bytes: text[..last].to_vec(),
            start: 0,
            len: last,
            base,
            spans,
            first_index: 0,
        };
        let parsed = ParsedChunk::parse(chunk, &self.keys, self.how.collect);
        self.merge(parsed, first)
    }
}

impl InFlight {
    /// The next block in file order, once parsed; `None` when none is in flight.
    fn next(&mut self) -> Option<Block> {
        if self.taken == self.sent {
            return None;
        }
        loop {
            if let Some(block) = self.waiting.remove(&self.taken) {
                self.taken += 1;
                return Some(block);
            }
            // The pool holds `done`'s clones until their blocks are parsed, so this returns.
            let (seq, block) = self.parsed.recv().ok()?;
            self.waiting.insert(seq, block);
        }
    }
}

/// The cut of the array as a serial pass would make it, carried from block to block: it covers
/// the text between blocks' whole events, and whole blocks whose guess was wrong.
struct Chain {
    cut: ArrayCut,
    /// Text not yet cut, or the open element's: from the file's offset `base`.
    carry: Vec<u8>,
    base: u64,
}

impl Chain {
    fn new(outer: usize, base: u64) -> Self {
        Chain {
            cut: ArrayCut::new(Expect::First, 0, outer),
            carry: Vec::new(),
            base,
        }
    }

    /// Takes the next block in file order: keeps its parse when its guess holds, else cuts and
    /// parses it here.
    fn take(&mut self, block: Block, ev: &mut Events<'_>) -> Result<Flow, Fail> {
        let Block { guess, end, parsed } = block;
        let chunk = parsed.borrow_owner();
        let (text, base) = (chunk.text(), chunk.base);
        let g = match guess {
            Guess::Known => return self.accept(parsed, end, ev),
            Guess::At(g) => g,
            Guess::None => 0,
        };
        let mut flow = self.feed(&text[..g], base, ev)?;
        if matches!(guess, Guess::At(_)) && matches!(flow, Flow::Go) && self.cut.between() {
            return self.accept(parsed, end, ev);
        }
        #[cfg(test)]
        if matches!(guess, Guess::At(_)) {
            tests::WRONG_GUESSES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        match &mut flow {
            // The array ended before the guess: the rest of the block is the document's.
            Flow::End(rest, _) => rest.extend_from_slice(&text[g..]),
            Flow::Go => flow = self.feed(&text[g..], base + g as u64, ev)?,
        }
        ev.spares.push(parsed.into_owner().bytes);
        Ok(flow)
    }

    /// Keeps a block's own parse: the chain stood where the block's cut began.
    fn accept(&mut self, parsed: ParsedChunk, end: BlockEnd, ev: &mut Events<'_>) -> Result<Flow, Fail> {
        let before = self.cut.count;
        let chunk = parsed.borrow_owner();
        let base = chunk.base;
        let flow = match end {
            BlockEnd::More(mut cut) => {
                let keep = cut.keep_from();
                self.carry = chunk.text()[keep..].to_vec();
                self.base = base + keep as u64;
                cut.rebase(keep);
                cut.count += before;
                self.cut = cut;
                Ok(Flow::Go)
            }
            BlockEnd::End(at) => Ok(Flow::End(chunk.text()[at + 1..].to_vec(), base + at as u64 + 1)),
            BlockEnd::Fail(at, msg) => Err(Fail::At(base + at as u64, msg)),
        };
        // The block's events come before anything its cut found after them.
        ev.merge(parsed, before)?;
        flow
    }

    /// Cuts `piece` (at offset `base` in the file, right after the carried text) here, and
    /// parses and merges the elements it completes.
    fn feed(&mut self, piece: &[u8], base: u64, ev: &mut Events<'_>) -> Result<Flow, Fail> {
        debug_assert_eq!(self.base + self.carry.len() as u64, base);
        self.carry.extend_from_slice(piece);
        let mut spans = Vec::new();
        let found = loop {
            match self.cut.next(&self.carry) {
                Found::Element(a, b) => spans.push((a, b)),
                other => break other,
            }
        };
        let first = self.cut.count - spans.len() as u64;
        ev.merge_here(&self.carry, self.base, spans, first)?;
        match found {
            Found::End(at) => Ok(Flow::End(self.carry[at + 1..].to_vec(), self.base + at as u64 + 1)),
            Found::Fail(at, msg) => Err(Fail::At(self.base + at as u64, msg)),
            Found::Element(..) | Found::More => {
                let keep = self.cut.keep_from();
                self.carry.drain(..keep);
                self.base += keep as u64;
                self.cut.rebase(keep);
                Ok(Flow::Go)
            }
        }
    }

    /// The text has ended without the array's `]`: the end of an open-ended array, or a
    /// truncated text.
    fn finish(mut self, open_ended: bool, ev: &mut Events<'_>) -> Result<(), Fail> {
        let end = self.base + self.carry.len() as u64;
        if let Some(span) = self.cut.end_scalar(self.carry.len()) {
            let first = self.cut.count - 1;
            ev.merge_here(&self.carry, self.base, vec![span], first)?;
        }
        if let Some(start) = self.cut.open_start() {
            // The text ends inside an element: say so, unless it breaks the grammar earlier.
            let partial = &self.carry[start..];
            return match check_value(partial) {
                Err((k, msg)) if !msg.contains("EOF while parsing") && k < partial.len() => {
                    Err(Fail::At(self.base + (start + k) as u64, msg))
                }
                _ => Err(truncated_at(end)),
            };
        }
        // An open-ended array needs one entry at least: `[` alone is a truncated text.
        let complete = match self.cut.expect() {
            Expect::First => false,
            Expect::Separator => open_ended && self.cut.count > 0,
            Expect::Element => open_ended,
        };
        if complete { Ok(()) } else { Err(truncated_at(end)) }
    }
}

/// Where one chunk's rows begin in the file's columns, and its strings in `Merger::remap`.
#[derive(Debug, Clone, Copy)]
struct Segment {
    row: usize,
    remap: usize,
    /// The array entry of the chunk's first entry: its `index` values count from there.
    first: u32,
}

/// Builds the file's store from parsed chunks, in file order.
struct Merger {
    out: ParsedTrace,
    attrs: AttrBuilder,
    device_use: BTreeMap<i64, u64>,
    collect: Collect,
    /// With [`Collect::Steps`]: `--step-marker`, where given (else a serving loop's step
    /// annotations mark steps in a file without ProfilerStep).
    marker: Option<regex::Regex>,
    /// With [`Collect::Steps`]: (start, duration) of each annotation that marks a step.
    marks: Vec<(i64, i64)>,
    /// With [`Collect::Columns`]: each chunk's local string ids to the file's, one after the
    /// other, and where each chunk's rows and ids begin.
    remap: Vec<NameId>,
    segments: Vec<Segment>,
}

impl Merger {
    fn new(request: &AttrRequest, collect: Collect) -> Self {
        let mut out = ParsedTrace::default();
        let attrs = AttrBuilder::new(request, &mut out.strings);
        Merger {
            out,
            attrs,
            device_use: BTreeMap::new(),
            collect,
            marker: None,
            marks: Vec::new(),
            remap: Vec::new(),
            segments: Vec::new(),
        }
    }

    /// Appends a chunk whose first entry is entry `first` of the array.
    fn merge(&mut self, mut chunk: ChunkOut<'_>, entries: u64, first: u64) -> Result<(), ChunkError> {
        let out = &mut self.out;
        out.total_events += entries;
        out.begin_end_events += chunk.begin_end;
        out.scanned_steps.extend_from_slice(&chunk.steps);
        for (name, ts, dur) in &chunk.annotations {
            let marks = match &self.marker {
                Some(m) => m.is_match(name),
                None => crate::model::serving::is_serving_step(name),
            };
            if marks {
                self.marks.push((*ts, *dur));
            }
        }
        for &m in &chunk.memory {
            out.memory.push(m);
        }
        for f in &chunk.flows {
            out.flows.push(f.id, f.start, f.ts_ns, &f.pid, &f.tid);
        }
        for (&device, &n) in &chunk.device_use {
            *self.device_use.entry(device).or_insert(0) += n;
        }
        match self.collect {
            Collect::Columns { .. } => self.merge_columns(&mut chunk, entries, first),
            Collect::Events | Collect::Steps => self.merge_events(chunk, first),
        }
    }

    /// Interns the chunk's strings (once each) and appends its columns whole; their ids are put
    /// right by [`Merger::finish`].
    fn merge_columns(&mut self, chunk: &mut ChunkOut<'_>, entries: u64, first: u64) -> Result<(), ChunkError> {
        let Some(at) = chunk.first_at else { return Ok(()) };
        let out = &mut self.out;
        let (Ok(first), Ok(_)) = (u32::try_from(first), u32::try_from(first + entries.saturating_sub(1))) else {
            return Err(ChunkError {
                at,
                msg: "more than 4294967295 events in one file".to_string(),
            });
        };
        if out.strings.len() + chunk.strings.list.len() >= MAX_STRINGS {
            return Err(ChunkError {
                at,
                msg: format!("more than {MAX_STRINGS} distinct strings in one file"),
            });
        }
        self.segments.push(Segment {
            row: out.events.len(),
            remap: self.remap.len(),
            first,
        });
        // In the chunk's order, which is the file's first-seen order.
        for s in &chunk.strings.list {
            self.remap.push(out.strings.intern(s));
        }
        out.events.append(&mut chunk.table);
        Ok(())
    }

    /// Appends a chunk's events one by one, with their attributes. Strings are interned in the
    /// order a one-pass parse would meet them (pid, tid, attributes, name, cat), so ids do not
    /// depend on chunking.
    fn merge_events(&mut self, chunk: ChunkOut<'_>, first: u64) -> Result<(), ChunkError> {
        let out = &mut self.out;
        let mut ids: Vec<Option<NameId>> = vec![None; chunk.strings.list.len()];
        let mut attrs = chunk.attrs.into_iter().peekable();
        for (row, e) in chunk.events.iter().enumerate() {
            let Ok(index) = u32::try_from(first + e.index) else {
                return Err(ChunkError {
                    at: e.at,
                    msg: "more than 4294967295 events in one file".to_string(),
                });
            };
            let mut values: Vec<(Option<usize>, Cow<'_, str>, AttrRaw<'_>)> = Vec::new();
            while let Some((_, col, key, value)) = attrs.next_if(|a| a.0 as usize == row) {
                values.push((col, key, value));
            }
            // Interning a new string needs a free id; one event adds a few.
            if out.strings.len() + 4 + values.len() >= MAX_STRINGS {
                return Err(ChunkError {
                    at: e.at,
                    msg: format!("more than {MAX_STRINGS} distinct strings in one file"),
                });
            }
            let strings = &mut out.strings;
            let mut global = |local: u32| -> NameId {
                *ids[local as usize].get_or_insert_with(|| strings.intern(&chunk.strings.list[local as usize]))
            };
            let (pid, tid) = (global(e.pid), global(e.tid));
            self.attrs
                .push_row(values, &mut out.strings)
                .map_err(|msg| ChunkError { at: e.at, msg })?;
            let strings = &mut out.strings;
            let mut global = |local: u32| -> NameId {
                *ids[local as usize].get_or_insert_with(|| strings.intern(&chunk.strings.list[local as usize]))
            };
            let name = global(e.name);
            let cat = global(e.cat);
            if let Some(device) = e.device {
                *self.device_use.entry(device).or_insert(0) += 1;
            }
            out.events.push(crate::model::store::NewEvent {
                index,
                name,
                cat,
                ts_ns: e.ts_ns,
                dur_ns: e.dur_ns,
                pid,
                tid,
                stream: e.stream,
                correlation: e.correlation,
            });
        }
        Ok(())
    }

    /// The store, its ids put right chunk by chunk in parallel (on the current rayon pool).
    fn finish(mut self) -> ParsedTrace {
        let segments = std::mem::take(&mut self.segments);
        let remap = std::mem::take(&mut self.remap);
        let e = &mut self.out.events;
        let to_file = |s: &Segment, ids: &mut [NameId]| {
            for id in ids {
                *id = remap[s.remap + id.index()];
            }
        };
        for col in [&mut e.name, &mut e.cat, &mut e.pid, &mut e.tid] {
            by_segment(col, &segments, &to_file);
        }
        by_segment(&mut e.index, &segments, &|s: &Segment, index: &mut [u32]| {
            for i in index {
                *i += s.first;
            }
        });
        self.out.events.shrink_to_fit();
        self.out.attrs = self.attrs.finish();
        self.out.scanned_steps.sort_unstable();
        self.out.scanned_steps.dedup();
        // As a parse numbers them: `--step-marker` replaces ProfilerStep; without it a serving
        // loop's annotations are the steps of a file with no ProfilerStep.
        if self.marker.is_some() || self.out.scanned_steps.is_empty() {
            let marks = std::mem::take(&mut self.marks);
            self.out.scanned_steps = (crate::model::serving::outermost_steps(marks).iter())
                .map(|s| s.number)
                .collect();
        }
        self.out.device_use = self.device_use.into_iter().collect();
        self.out
    }
}

/// Runs `f` on each segment's rows of `col` (all segments' rows: `col` is empty in a store that
/// does not keep it), in parallel.
fn by_segment<T: Send>(col: &mut [T], segments: &[Segment], f: &(dyn Fn(&Segment, &mut [T]) + Sync)) {
    if col.is_empty() {
        return;
    }
    let mut parts = Vec::with_capacity(segments.len());
    let mut rest = col;
    for (k, s) in segments.iter().enumerate() {
        let rows = segments.get(k + 1).map_or(rest.len(), |next| next.row - s.row);
        let (part, after) = std::mem::take(&mut rest).split_at_mut(rows);
        parts.push((s, part));
        rest = after;
    }
    parts.into_par_iter().for_each(|(s, part)| f(s, part));
}

#[cfg(test)]
mod tests;
