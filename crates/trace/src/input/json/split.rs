//! Cutting JSON text into values without parsing them: a small state machine over strings,
//! escapes and nesting depth, which resumes where it stopped when the text arrives in pieces
//! (so a value of any size is cut in time linear in its length). The values it cuts are parsed
//! by serde_json; this module only finds where each one ends.

use crate::input::read::ReadAhead;
use std::io::{self, Read};

/// Deepest nesting of arrays and objects accepted, counted from the document root.
pub const MAX_DEPTH: usize = 256;

/// Bytes of text a buffer holds (it grows for a larger value): also the size of the chunks of
/// events handed out whole by [`Input::detach`].
pub const READ_SIZE: usize = 256 << 10;

/// What kind of JSON value starts with byte `b`, for messages.
pub fn kind_of(b: u8) -> &'static str {
    match b {
        b'"' => "a string",
        b'{' => "an object",
        b'[' => "an array",
        b'-' | b'0'..=b'9' => "a number",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "an invalid value",
    }
}

/// A byte as a message names it: the value it starts, or the character itself.
pub fn describe_byte(b: u8) -> String {
    match (kind_of(b), b) {
        ("an invalid value", 0x20..=0x7e) => format!("'{}'", b as char),
        ("an invalid value", _) => format!("byte 0x{b:02x}"),
        (kind, _) => kind.to_string(),
    }
}

/// Whether `b` is JSON white space.
#[inline]
pub fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// The first `"` or `\\` in `s`. Most strings in a trace are short (keys, categories, numbers
/// as text), so a plain loop looks first; memchr takes over for long ones.
#[inline]
fn find_quote_or_backslash(s: &[u8]) -> Option<usize> {
    let head = &s[..s.len().min(32)];
    if let Some(k) = head.iter().position(|&b| b == b'"' || b == b'\\') {
        return Some(k);
    }
    memchr::memchr2(b'"', b'\\', &s[head.len()..]).map(|k| head.len() + k)
}

/// Where the scan of one value stands.
#[derive(Debug, Default, Clone)]
struct Extent {
    started: bool,
    /// Nesting inside the value (0: not in a container).
    depth: usize,
    in_string: bool,
    /// A backslash ended the previous piece.
    escape: bool,
    /// A number or a literal (or garbage) outside any container.
    scalar: bool,
}

/// How the scan of a value ended.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// The value ends just before this index.
    Done(usize),
    /// Every byte given was used: the value goes on.
    More,
    /// Nesting deeper than [`MAX_DEPTH`] at this index.
    TooDeep(usize),
}

/// Eight copies of byte `b`.
const fn splat(b: u8) -> u64 {
    u64::from_le_bytes([b; 8])
}

/// The high bit of each byte of `x` that is zero, exactly (no borrow between bytes).
#[inline]
fn zero_bytes(x: u64) -> u64 {
    const LOW7: u64 = splat(0x7f);
    !(((x & LOW7).wrapping_add(LOW7)) | x) & splat(0x80)
}

impl Extent {
    /// Scans `s[i..]`; `outer` is the depth of the container the value is in.
    fn scan(&mut self, s: &[u8], mut i: usize, outer: usize) -> Step {
        if !self.started {
            let Some(&b) = s.get(i) else { return Step::More };
            self.started = true;
            i += 1;
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.depth = 1;
                    if outer + 1 > MAX_DEPTH {
                        return Step::TooDeep(i - 1);
                    }
                }
                _ => self.scalar = true,
            }
        }
        if self.scalar {
            return match s[i..].iter().position(|&b| is_ws(b) || matches!(b, b',' | b']' | b'}')) {
                Some(k) => Step::Done(i + k),
                None => Step::More,
            };
        }
        if self.depth == 0 {
            return self.top_string(s, i);
        }
        // In a container: eight bytes at a time, byte by byte around backslashes.
        loop {
            if !self.escape {
                match self.words(s, i, outer) {
                    Ok(step) => return step,
                    Err(at) => i = at,
                }
            }
            let end = s.len().min(i + 8);
            if let Some(step) = self.bytes(s, i, end, outer) {
                return step;
            }
            i = end;
            if i >= s.len() {
                return Step::More;
            }
        }
    }

    /// A string that is the whole value.
    fn top_string(&mut self, s: &[u8], mut i: usize) -> Step {
        loop {
            if self.escape {
                if i >= s.len() {
                    return Step::More;
                }
                self.escape = false;
                i += 1;
            }
            let Some(k) = find_quote_or_backslash(&s[i..]) else {
                return Step::More;
            };
            i += k + 1;
            if s[i - 1] == b'\\' {
                self.escape = true;
                continue;
            }
            self.in_string = false;
            return Step::Done(i);
        }
    }

    /// Inside a container, whole words of eight bytes from `i` while none holds a backslash:
    /// the quotes give which bytes are in strings (a prefix XOR), and only the brackets outside
    /// strings are looked at one by one. `Err` with the index where it stopped (a word with a
    /// backslash, or fewer than eight bytes left), the state kept up to there.
    fn words(&mut self, s: &[u8], mut i: usize, outer: usize) -> Result<Step, usize> {
        while let Some(word) = s.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
            let x = u64::from_le_bytes(*word);
            if zero_bytes(x ^ splat(b'\\')) != 0 {
                return Err(i);
            }
            let quotes = zero_bytes(x ^ splat(b'"'));
            // `[`, `]`, `{` and `}` (and `Y`, `_`, `y`, DEL, checked below) or 0x26 to 0x7f.
            let brackets = zero_bytes((x | splat(0x26)) ^ splat(0x7f));
            let mut inside = quotes;
            inside ^= inside << 8;
            inside ^= inside << 16;
            inside ^= inside << 32;
            // Without a branch: whether a word starts in a string is hard to predict.
            inside ^= 0u64.wrapping_sub(u64::from(self.in_string));
            self.in_string = inside >> 63 == 1;
            let mut structural = brackets & !inside;
            while structural != 0 {
                let k = i + (structural.trailing_zeros() / 8) as usize;
                structural &= structural - 1;
                match s[k] {
                    b'{' | b'[' => {
                        self.depth += 1;
                        if outer + self.depth > MAX_DEPTH {
                            return Ok(Step::TooDeep(k));
                        }
                    }
                    b'}' | b']' => {
                        self.depth -= 1;
                        if self.depth == 0 {
                            return Ok(Step::Done(k + 1));
                        }
                    }
                    _ => {}
                }
            }
            i += 8;
        }
        Err(i)
    }

    /// Inside a container, `s[i..end]` byte by byte.
    fn bytes(&mut self, s: &[u8], i: usize, end: usize, outer: usize) -> Option<Step> {
        for (k, &b) in s.iter().enumerate().take(end).skip(i) {
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    self.depth += 1;
                    if outer + self.depth > MAX_DEPTH {
                        return Some(Step::TooDeep(k));
                    }
                }
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(Step::Done(k + 1));
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// What the cut of an array's elements expects next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Just after the `[`: an element or the `]`.
    First,
    /// After an element: `,` or `]`.
    Separator,
    /// After a `,`: an element.
    Element,
}

/// What [`ArrayCut::next`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// An element: its start and end in the text.
    Element(usize, usize),
    /// The array's `]`, at this index.
    End(usize),
    /// The text given is used up: the cut goes on when more is appended.
    More,
    /// A syntax error at this index, and its message.
    Fail(usize, String),
}

/// Cuts the elements of an array whose `[` is behind it, from a text that may grow between
/// calls (pieces appended at its end): where the cut stands is kept, so an element of any size
/// is scanned once. The same cut runs on a parsing thread over one block from a guessed element
/// start, and on the merging thread over the text between blocks; being the same state
/// machine, two cuts in the same state at the same byte cut the rest alike.
#[derive(Debug, Clone)]
pub struct ArrayCut {
    expect: Expect,
    /// The element being scanned: its start and the scan's state.
    open: Option<(usize, Extent)>,
    /// Where the cut goes on.
    at: usize,
    /// Nesting depth of the array.
    outer: usize,
    /// Elements cut so far.
    pub count: u64,
}

impl ArrayCut {
    /// A cut expecting `expect` at index `at` of the text.
    pub fn new(expect: Expect, at: usize, outer: usize) -> Self {
        ArrayCut {
            expect,
            open: None,
            at,
            outer,
            count: 0,
        }
    }

    /// Whether the cut stands after a `,` (and the white space after it) with nothing of the
    /// next element read: the state a guessed element start assumes.
    pub fn between(&self) -> bool {
        self.expect == Expect::Element && self.open.is_none()
    }

    /// What the cut expects next.
    pub fn expect(&self) -> Expect {
        self.expect
    }

    /// Where the cut goes on.
    pub fn at(&self) -> usize {
        self.at
    }

    /// The start of the element being scanned, if one is.
    pub fn open_start(&self) -> Option<usize> {
        self.open.as_ref().map(|(start, _)| *start)
    }

    /// The first index of the text the cut still needs: the open element's start, or where it
    /// goes on.
    pub fn keep_from(&self) -> usize {
        self.open_start().unwrap_or(self.at)
    }

    /// Shifts the cut's indices after the first `n` bytes of its text (`n <= keep_from()`) were
    /// dropped.
    pub fn rebase(&mut self, n: usize) {
        self.at -= n;
        if let Some((start, _)) = &mut self.open {
            *start -= n;
        }
    }

    /// The text has ended: an open number or literal ends with it (its start and end);
    /// anything else open stays open.
    pub fn end_scalar(&mut self, len: usize) -> Option<(usize, usize)> {
        match &self.open {
            Some((start, extent)) if extent.scalar => {
                let start = *start;
                self.open = None;
                self.at = len;
                self.expect = Expect::Separator;
                self.count += 1;
                Some((start, len))
            }
            _ => None,
        }
    }

    /// The next element, the `]`, or the end of `s`.
    pub fn next(&mut self, s: &[u8]) -> Found {
        loop {
            if let Some((start, extent)) = &mut self.open {
                return match extent.scan(s, self.at, self.outer) {
                    Step::Done(end) => {
                        let start = *start;
                        self.open = None;
                        self.at = end;
                        self.expect = Expect::Separator;
                        self.count += 1;
                        Found::Element(start, end)
                    }
                    Step::More => {
                        self.at = s.len();
                        Found::More
                    }
                    Step::TooDeep(k) => Found::Fail(k, format!("invalid JSON: nesting deeper than {MAX_DEPTH} levels")),
                };
            }
            let Some(k) = s[self.at..].iter().position(|&b| !is_ws(b)) else {
                self.at = s.len();
                return Found::More;
            };
            let i = self.at + k;
            let b = s[i];
            match (self.expect, b) {
                (Expect::First | Expect::Separator, b']') => {
                    self.at = i + 1;
                    return Found::End(i);
                }
                (Expect::Element, b']') => return Found::Fail(i, "invalid JSON: trailing comma".to_string()),
                (Expect::Separator, b',') => {
                    self.at = i + 1;
                    self.expect = Expect::Element;
                }
                (Expect::Separator, _) => {
                    return Found::Fail(
                        i,
                        format!("invalid JSON: expected ',' or ']', found {}", describe_byte(b)),
                    );
                }
                (Expect::First | Expect::Element, _) => {
                    self.open = Some((i, Extent::default()));
                    self.at = i;
                }
            }
        }
    }
}

/// A likely element start in `s`: the first `{` after a `}`, a `,` and white space between
/// (how one event follows another). Only a guess: the `}` may be inside a string or a nested
/// value; whoever uses it checks it against the cut that arrives from the text before.
pub fn guess_element_start(s: &[u8]) -> Option<usize> {
    for comma in memchr::memchr_iter(b',', s) {
        if s[..comma].iter().rev().find(|&&b| !is_ws(b)) != Some(&b'}') {
            continue;
        }
        match s[comma + 1..].iter().position(|&b| !is_ws(b)) {
            Some(k) if s[comma + 1 + k] == b'{' => return Some(comma + 1 + k),
            Some(_) => {}
            None => return None,
        }
    }
    None
}

/// Why no value could be cut.
#[derive(Debug)]
pub enum Cut {
    /// The text ends inside the value (or before it), which starts at this offset from the
    /// window's start.
    Eof(usize),
    /// The `release` of [`Input::value_end_releasing`] asked to stop.
    Stopped,
    /// Nesting too deep, at this offset from the window's start.
    TooDeep(usize),
    /// Reading failed.
    Io(io::Error),
}

/// Text handed out by [`Input::take_block`]: `bytes[start..start + len]`, at offset `base` in
/// the whole text.
pub struct TextBlock {
    /// The buffer (the reader's block, not copied).
    pub bytes: Vec<u8>,
    /// Where the text starts in `bytes`.
    pub start: usize,
    /// Bytes of text.
    pub len: usize,
    /// Offset in the whole text of `bytes[start]`.
    pub base: u64,
}

/// A window over the JSON text, refilled from the reader. Offsets handed out are relative to the
/// window's start, which only [`Input::consume`] moves, so they stay valid across refills.
pub struct Input<R> {
    reader: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Offset in the whole text of `buf[0]`.
    base: u64,
    eof: bool,
    /// A read error that came after some text: reported once that text is used.
    pending: Option<io::Error>,
}

impl<R: Read> Input<R> {
    /// A window over the text of `reader`, nothing read yet.
    pub fn new(reader: R) -> Self {
        Input {
            reader,
            buf: vec![0; READ_SIZE],
            start: 0,
            end: 0,
            base: 0,
            eof: false,
            pending: None,
        }
    }

    /// The text from the window's start that has been read so far.
    pub fn data(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Offset in the whole text of the window's start.
    pub fn offset(&self) -> u64 {
        self.base + self.start as u64
    }

    /// Offset in the whole text of the end of what has been read.
    pub fn read_so_far(&self) -> u64 {
        self.base + self.end as u64
    }

    /// Moves the window's start `n` bytes on: the text before it is no longer needed.
    pub fn consume(&mut self, n: usize) {
        self.start += n;
    }

    /// Reads more text after what is held, until the buffer is full or the input ends; `false`
    /// when nothing more came.
    pub fn fill(&mut self) -> io::Result<bool> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
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
            // One value is larger than the buffer: grow it (amortised linear).
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let before = self.end;
        while self.end < self.buf.len() {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) if self.end > before => {
                    self.pending = Some(e);
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(self.end > before)
    }

    /// Hands out the buffer whose bytes `at..at + n` are the window's first `n` bytes (`at` is
    /// returned with it), and goes on with `spare` (any length) holding the rest of the window:
    /// the text handed out is not copied.
    pub fn detach(&mut self, n: usize, mut spare: Vec<u8>) -> (Vec<u8>, usize) {
        let from = self.start + n;
        let rest = self.end - from;
        spare.resize(READ_SIZE.max(2 * rest), 0);
        spare[..rest].copy_from_slice(&self.buf[from..self.end]);
        let old = std::mem::replace(&mut self.buf, spare);
        let at = self.start;
        self.base += from as u64;
        self.start = 0;
        self.end = rest;
        (old, at)
    }

    /// Reads until at least `n` bytes are held from the window's start; `false` if the text
    /// ends first.
    pub fn want(&mut self, n: usize) -> io::Result<bool> {
        while self.end - self.start < n {
            if !self.fill()? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The offset of the first byte that is not white space at or after `at`, and that byte;
    /// `None` at the end of the text.
    ///
    /// The text before `at` and the white space passed are let go of before more is read (the
    /// offset returned is from the window's start as it is then), so white space of any length
    /// is skipped in bounded memory.
    pub fn skip_ws(&mut self, mut at: usize) -> io::Result<Option<(usize, u8)>> {
        loop {
            let data = self.data();
            while at < data.len() {
                if !is_ws(data[at]) {
                    return Ok(Some((at, data[at])));
                }
                at += 1;
            }
            self.consume(at);
            at = 0;
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Puts `text`, whose offset in the whole text is `base`, back before the window: text
    /// handed out by [`Input::take_block`] and not used after all, which must end where the
    /// window starts. `pending` is a read error met after the window, reported once the text
    /// before it is used.
    pub fn put_back(&mut self, text: &[u8], base: u64, pending: Option<io::Error>) {
        debug_assert_eq!(base + text.len() as u64, self.offset());
        let mut buf = Vec::with_capacity(READ_SIZE.max(text.len() + self.end - self.start));
        buf.extend_from_slice(text);
        buf.extend_from_slice(self.data());
        let end = buf.len();
        buf.resize(buf.capacity(), 0);
        self.buf = buf;
        self.start = 0;
        self.end = end;
        self.base = base;
        if pending.is_some() {
            self.pending = pending;
        }
    }

    /// The end of the value that starts at `at` (no white space before it), reading as much
    /// as it needs. `outer` is the nesting depth of the value's container.
    pub fn value_end(&mut self, at: usize, outer: usize) -> Result<usize, Cut> {
        self.value_end_releasing(at, outer, &mut |_| Some(0))
            .map(|(_, end)| end)
    }

    /// [`Input::value_end`] that, before each read, lets `release` consume text before the
    /// value (it returns how many bytes, or `None` to stop). Returns the value's start and
    /// end, from the window's start as it is then.
    pub fn value_end_releasing(
        &mut self,
        mut at: usize,
        outer: usize,
        release: &mut dyn FnMut(&mut Self) -> Option<usize>,
    ) -> Result<(usize, usize), Cut> {
        let mut extent = Extent::default();
        let mut i = at;
        loop {
            let data = self.data();
            match extent.scan(data, i, outer) {
                Step::Done(end) => return Ok((at, end)),
                Step::TooDeep(k) => return Err(Cut::TooDeep(k)),
                Step::More => i = data.len(),
            }
            let n = release(self).ok_or(Cut::Stopped)?;
            at -= n;
            i -= n;
            if !self.fill().map_err(Cut::Io)? {
                // A number or literal may end the text.
                return if extent.scalar { Ok((at, i)) } else { Err(Cut::Eof(at)) };
            }
        }
    }
}

impl Input<ReadAhead<'_>> {
    /// Hands out the next text: the window's, else the next block read, not copied (the
    /// buffer, the index of the text in it, its length and its offset in the whole text).
    /// `None` at the end of the text. At most `max` bytes (tests cut small blocks with it).
    pub fn take_block(&mut self, max: usize) -> io::Result<Option<TextBlock>> {
        let max = max.max(1);
        if self.start == self.end {
            if let Some(e) = self.pending.take() {
                return Err(e);
            }
            let Some(bytes) = (if self.eof { None } else { self.reader.next_block()? }) else {
                self.eof = true;
                return Ok(None);
            };
            let base = self.offset();
            let len = bytes.len();
            if len <= max {
                // The window stays empty, after this block.
                self.base = base + len as u64;
                self.start = 0;
                self.end = 0;
                return Ok(Some(TextBlock {
                    bytes,
                    start: 0,
                    len,
                    base,
                }));
            }
            // Longer than asked for: the block becomes the window, handed out in pieces.
            self.buf = bytes;
            self.start = 0;
            self.end = len;
        }
        let len = (self.end - self.start).min(max);
        let base = self.offset();
        let (bytes, start) = self.detach(len, Vec::new());
        Ok(Some(TextBlock {
            bytes,
            start,
            len,
            base,
        }))
    }

    /// Gives the buffer of a block handed out back for reading into.
    pub fn recycle(&self, bytes: Vec<u8>) {
        self.reader.recycle(bytes);
    }
}

#[cfg(test)]
mod tests;
