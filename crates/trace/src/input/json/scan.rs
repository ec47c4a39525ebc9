//! The fast path's reading of one event: a single validating pass over its text that keeps
//! where the values of the members tracediff reads are, and checks that everything else is
//! JSON exactly as serde_json checks it, without decoding anything.
//!
//! It takes only what it can take as it stands. Anything else gives `None` and the event goes
//! the exact way (serde_json, then the array cut), which reads it or names the error and its
//! byte: a syntax error, the text's end, an escape in a key (`"na\u006de"` is `name` to
//! serde_json), nesting deeper than [`MAX_NESTING`], `args` that is not an object or `null`.
//! So what it accepts, serde_json accepts, with the same values: valid JSON text (UTF-8: the
//! characters of its strings are checked here, all else is ASCII), strings with their escapes
//! checked as serde_json checks the values it skips or keeps raw (`\u` with four hex digits,
//! lone surrogates included), numbers by JSON's grammar whatever their size, `null` for a
//! member read as absent, the last of two equal keys.
//! `pipeline.rs` holds it to that on JSONTestSuite at every place in an event.

use super::fields::{Fields, Member, Raw, is_place_arg};
use super::split::is_ws;
use crate::input::attrs::AttrKeys;
use wide::{i8x16, u8x16};

/// Deepest nesting the scan follows (the event's own braces count 1); deeper events go the
/// exact way, which knows the document's limit.
pub(super) const MAX_NESTING: usize = 60;

/// One attribute the scan found in `args`: its column (`None`: to infer), key and the raw text
/// of its value, as the exact way collects them (in the order of the text, equal keys each).
pub(super) type ScanAttr<'a> = (Option<usize>, &'a str, &'a str);

/// Reads the event object at the start of `s` (its `{`): the fields tracediff reads and the
/// event's length, or `None` where serde_json should decide. `limit` is the deepest nesting
/// the document allows, the event's own braces counting 1. The `args` members that `keys`
/// asks for are pushed on `attrs` (cleared first), as serde_json's visitor collects them.
pub(super) fn event<'a>(
    s: &'a [u8],
    limit: usize,
    keys: &AttrKeys,
    attrs: &mut Vec<ScanAttr<'a>>,
) -> Option<(Fields<'a>, usize)> {
    if s.first() != Some(&b'{') || limit == 0 {
        return None;
    }
    attrs.clear();
    let mut scan = Scan {
        s,
        i: 1,
        limit: limit.min(MAX_NESTING),
        escaped: false,
        keys,
        attrs,
    };
    let mut f = Fields::default();
    let mut b = scan.ws()?;
    if b == b'}' {
        return Some((f, scan.i + 1));
    }
    loop {
        let (key, first) = scan.member_key(b)?;
        let at = scan.i;
        // The slot, and for a name or category its bit of `plain`.
        let (slot, bit) = match f.member(key) {
            Member::Read(slot, bit) => (slot, bit),
            Member::Args => {
                scan.args(first, &mut f)?;
                b = scan.after_member()?;
                if b == b'}' {
                    break;
                }
                continue;
            }
            Member::Other => {
                scan.value(first, 1)?;
                b = scan.after_member()?;
                if b == b'}' {
                    break;
                }
                continue;
            }
        };
        scan.escaped = false;
        scan.value(first, 1)?;
        // `null` (the only valid value that starts with `n`) reads as absent, as a missing
        // member.
        let raw = &s[at..scan.i];
        *slot = if raw[0] == b'n' { Raw::default() } else { Raw::span(raw) };
        // A name or category without escapes is its text as it stands: not searched again.
        if scan.escaped || raw[0] != b'"' {
            f.plain &= !bit;
        } else {
            f.plain |= bit;
        }
        b = scan.after_member()?;
        if b == b'}' {
            break;
        }
    }
    // `after_member` took the `}`.
    Some((f, scan.i))
}

struct Scan<'a, 'k> {
    s: &'a [u8],
    /// The next byte to read.
    i: usize,
    /// Deepest nesting taken.
    limit: usize,
    /// Whether a string skipped since this was last cleared held an escape.
    escaped: bool,
    /// The attributes asked for, and where the found ones go.
    keys: &'k AttrKeys,
    attrs: &'k mut Vec<ScanAttr<'a>>,
}

impl<'a> Scan<'a, '_> {
    /// Skips white space; the byte after it (not consumed).
    #[inline(always)]
    fn ws(&mut self) -> Option<u8> {
        // None or one byte of it most often (`": "`, `", "`), else a line's end and indent.
        let b = *self.s.get(self.i)?;
        if !is_ws(b) {
            return Some(b);
        }
        let b = *self.s.get(self.i + 1)?;
        if !is_ws(b) {
            self.i += 1;
            return Some(b);
        }
        self.i = ws_end(self.s, self.i + 2);
        self.s.get(self.i).copied()
    }

    /// A member's key, at `b` (the byte at `i`), without escapes, and the `:` after it; leaves
    /// `i` at the value's first byte, which it returns with the key.
    #[inline(always)]
    fn member_key(&mut self, b: u8) -> Option<(&'a [u8], u8)> {
        if b != b'"' {
            return None;
        }
        let start = self.i + 1;
        let end = string_end(self.s, start, false, &mut false)?;
        self.i = end + 1;
        // Most often `":"` or `": "` and the value: read at once.
        if let Some(&[b':', next, after]) = self.s.get(self.i..self.i + 3) {
            if !is_ws(next) {
                self.i += 1;
                return Some((&self.s[start..end], next));
            }
            if next == b' ' && !is_ws(after) {
                self.i += 2;
                return Some((&self.s[start..end], after));
            }
        }
        if self.ws()? != b':' {
            return None;
        }
        self.i += 1;
        let first = self.ws()?;
        Some((&self.s[start..end], first))
    }

    /// After a member's value: a `,` and the next key's first byte, or the `}` (consumed).
    #[inline(always)]
    fn after_member(&mut self) -> Option<u8> {
        // Most often `,"` or `, "`: read at once.
        if let Some(&[b',', next, after]) = self.s.get(self.i..self.i + 3) {
            if next == b'"' {
                self.i += 1;
                return Some(b'"');
            }
            if next == b' ' && after == b'"' {
                self.i += 2;
                return Some(b'"');
            }
        }
        match self.ws()? {
            b',' => {
                self.i += 1;
                let b = self.ws()?;
                (b == b'"').then_some(b)
            }
            b'}' => {
                self.i += 1;
                Some(b'}')
            }
            _ => None,
        }
    }

    /// The `args` member's value: an object, whose `stream`, `correlation`, `device` and
    /// `[memory]` keys are read, and the attributes asked for, or `null`.
    fn args(&mut self, first: u8, f: &mut Fields<'a>) -> Option<()> {
        match first {
            b'n' => return self.literal(b"null"),
            b'{' => self.i += 1,
            _ => return None,
        }
        let mut b = self.ws()?;
        if b == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            let (key, first) = self.member_key(b)?;
            let at = self.i;
            let slot = f.arg(key);
            self.value(first, 2)?;
            let raw = &self.s[at..self.i];
            // As serde_json's visitor: a key read into a slot is an attribute too, unless it
            // places the event (`stream`, `correlation`).
            let asked = self.keys.is_active() && (slot.is_none() || !is_place_arg(key));
            if let Some(slot) = slot {
                *slot = Raw::span(raw);
            }
            if asked {
                self.attr(key, raw)?;
            }
            b = self.after_member()?;
            if b == b'}' {
                return Some(());
            }
        }
    }

    /// Keeps the `args` member `key` with its value's text `raw` where an attribute is asked
    /// for under that key. The scan has checked both as UTF-8 (`None` were they not, for the
    /// exact way to decide).
    fn attr(&mut self, key: &'a [u8], raw: &'a [u8]) -> Option<()> {
        let key = std::str::from_utf8(key).ok()?;
        if let Some(col) = self.keys.column_of(key) {
            self.attrs.push((col, key, std::str::from_utf8(raw).ok()?));
        }
        Some(())
    }

    /// Skips the value at `i`, whose first byte (not white space) is `b`, inside `depth` levels.
    #[inline(always)]
    fn value(&mut self, b: u8, depth: usize) -> Option<()> {
        match b {
            b'[' | b'{' => self.nested(b, depth),
            _ => self.scalar(b),
        }
    }

    /// Skips a string, number, `true`, `false` or `null` at `i`, whose first byte is `b`.
    #[inline(always)]
    fn scalar(&mut self, b: u8) -> Option<()> {
        match b {
            b'"' => {
                self.i = string_end(self.s, self.i + 1, true, &mut self.escaped)? + 1;
                Some(())
            }
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        (self.s.get(self.i..self.i + word.len())? == word).then(|| self.i += word.len())
    }

    /// A number by JSON's grammar: `-`, no leading zero, digits after `.` and after `e`.
    #[inline(always)]
    fn number(&mut self) -> Option<()> {
        let (s, mut i) = (self.s, self.i);
        let digits = |i: usize| digits_end(s, i);
        if s[i] == b'-' {
            i += 1;
        }
        match *s.get(i)? {
            b'0' => i += 1,
            b'1'..=b'9' => i = digits(i + 1),
            _ => return None,
        }
        if s.get(i) == Some(&b'.') {
            let end = digits(i + 1);
            if end == i + 1 {
                return None;
            }
            i = end;
        }
        if matches!(s.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(s.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let end = digits(i);
            if end == i {
                return None;
            }
            i = end;
        }
        // A digit right after a leading zero (`01`) is refused by serde_json, and by the
        // caller's check of what follows a value.
        self.i = i;
        Some(())
    }

    /// Skips the array or object at `i`, whose first byte is `b`, inside `depth` levels,
    /// without recursion: one bit a level says whether it is an object.
    fn nested(&mut self, mut b: u8, depth: usize) -> Option<()> {
        let (mut objects, mut level) = (0u64, 0usize);
        loop {
            // A value starts at `i`, with the byte `b`.
            if b == b'[' || b == b'{' {
                self.i += 1;
                level += 1;
                if depth + level > self.limit {
                    return None;
                }
                let object = b == b'{';
                objects = objects << 1 | u64::from(object);
                let next = self.ws()?;
                if next != if object { b'}' } else { b']' } {
                    b = if object { self.member_key(next)?.1 } else { next };
                    continue;
                }
                self.i += 1;
                level -= 1;
                objects >>= 1;
            } else {
                self.scalar(b)?;
            }
            // After a value, `level` levels in.
            loop {
                if level == 0 {
                    return Some(());
                }
                let object = objects & 1 == 1;
                // Most often `, ` and the next value (`[[], []]`, `["", ""]`): read at once.
                if let Some(&[b',', b' ', next]) = self.s.get(self.i..self.i + 3)
                    && !is_ws(next)
                {
                    self.i += 2;
                    b = if object { self.member_key(next)?.1 } else { next };
                    break;
                }
                match self.ws()? {
                    b',' => {
                        self.i += 1;
                        let next = self.ws()?;
                        b = if object { self.member_key(next)?.1 } else { next };
                        break;
                    }
                    b'}' if object => {}
                    b']' if !object => {}
                    _ => return None,
                }
                self.i += 1;
                level -= 1;
                objects >>= 1;
            }
        }
    }
}

const ONES: u64 = u64::from_ne_bytes([1; 8]);
const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);

/// The high bit of each byte of `w` that is zero; exact for the first (lowest) such byte.
#[inline(always)]
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGH
}

/// The high bit of each byte of `w` that equals `c`, exactly (no carry crosses a byte).
#[inline(always)]
fn equal_bytes(w: u64, c: u8) -> u64 {
    let x = w ^ (ONES * u64::from(c));
    !(((x & !HIGH) + !HIGH) | x) & HIGH
}

/// The first byte from `i` in `s` that is not white space (`s.len()` when there is none):
/// none or one byte of it most often (`},{`, `}, {`), else a line's end and indent.
#[inline(always)]
pub(super) fn skip_ws(s: &[u8], i: usize) -> usize {
    match s.get(i) {
        Some(&b) if is_ws(b) => match s.get(i + 1) {
            Some(&b) if is_ws(b) => ws_end(s, i + 2),
            Some(_) => i + 1,
            None => s.len(),
        },
        Some(_) => i,
        None => s.len(),
    }
}

/// The end of the run of JSON white space from `i` in `s`, eight bytes at a time.
#[inline(always)]
fn ws_end(s: &[u8], mut i: usize) -> usize {
    while let Some(word) = s.get(i..i + 8) {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        let w = u64::from_le_bytes(w);
        let ws = equal_bytes(w, b' ') | equal_bytes(w, b'\n') | equal_bytes(w, b'\r') | equal_bytes(w, b'\t');
        let other = !ws & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while s.get(i).copied().is_some_and(is_ws) {
        i += 1;
    }
    i
}

/// The end of the run of ASCII digits from `i` in `s`, eight bytes at a time (timestamps have
/// 16 digits).
#[inline(always)]
fn digits_end(s: &[u8], mut i: usize) -> usize {
    while let Some(word) = s.get(i..i + 8) {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        // Each byte minus `'0'` (xor: digits are 0x30..=0x39) is at most 9 for a digit; the low
        // seven bits plus 0x76 carry into the high bit from 10 on, and never into the next byte.
        let x = u64::from_le_bytes(w) ^ (ONES * u64::from(b'0'));
        let other = (((x & !HIGH) + ONES * 0x76) | x) & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// The index of the closing `"` of the string whose text starts at `i` (just past its opening
/// quote). `None` at a control character, at an escape serde_json refuses, at bytes that are
/// not UTF-8, at the text's end, or at any escape when `escapes` is false. A string it accepts
/// is valid UTF-8; the rest of an event the scan accepts is ASCII, so the whole event is.
#[inline(always)]
fn string_end(s: &[u8], mut i: usize, escapes: bool, escaped: &mut bool) -> Option<usize> {
    loop {
        i = plain_run_end(s, i);
        match *s.get(i)? {
            b'"' => return Some(i),
            b'\\' if escapes => {
                *escaped = true;
                i = escape_end(s, i + 1)?;
            }
            0..0x20 | b'\\' => return None,
            0x80.. => i = utf8_end(s, i)?,
            _ => i += 1,
        }
    }
}

/// The first byte from `i` in `s` that is a `"`, `\\`, control character or byte of a UTF-8
/// sequence (high bit set), or a byte near the text's end from which to go one at a time:
/// sixteen bytes at a time, then eight.
#[inline(always)]
fn plain_run_end(s: &[u8], mut i: usize) -> usize {
    while let Some(found) = special_bytes(s, i) {
        if found != 0 {
            return i + found.trailing_zeros() as usize;
        }
        i += 16;
    }
    if let Some(word) = s.get(i..i + 8) {
        let mut w = [0; 8];
        w.copy_from_slice(word);
        let w = u64::from_le_bytes(w);
        let found = zero_bytes(w ^ (ONES * u64::from(b'"')))
            | zero_bytes(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGH)
            | (w & HIGH);
        i += if found != 0 {
            (found.trailing_zeros() / 8) as usize
        } else {
            8
        };
    }
    i
}

/// One bit per byte of the sixteen from `i` (`None` where fewer are left) that is a `"`, a `\\`,
/// a control character or a byte of a UTF-8 sequence: what ends a string's plain run. One
/// SSE2 (or NEON) compare per class through `wide`, which keeps the `unsafe` to itself.
#[inline(always)]
fn special_bytes(s: &[u8], i: usize) -> Option<u32> {
    let bytes: [u8; 16] = s.get(i..i + 16)?.try_into().ok()?;
    let v = u8x16::new(bytes);
    let quote_or_escape = v.simd_eq(u8x16::splat(b'"')) | v.simd_eq(u8x16::splat(b'\\'));
    // As signed bytes, control characters (below 0x20) and 0x80 and above are both below 0x20.
    let control_or_high = v.cast_signed().simd_lt(i8x16::splat(0x20));
    Some(quote_or_escape.to_bitmask() | control_or_high.to_bitmask())
}

/// The end of the character whose UTF-8 sequence starts at `i`, when it is whole and valid as
/// `str::from_utf8` checks it (no overlong form, no surrogate, nothing past U+10FFFF).
#[inline(never)]
fn utf8_end(s: &[u8], i: usize) -> Option<usize> {
    let len = match s[i] {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return None,
    };
    std::str::from_utf8(s.get(i..i + len)?).ok()?;
    Some(i + len)
}

/// The end of the escape whose letter is at `i`, as serde_json checks escapes it does not
/// decode: any four hex digits after `\u`.
#[inline]
fn escape_end(s: &[u8], i: usize) -> Option<usize> {
    match *s.get(i)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 1),
        b'u' => s.get(i + 1..i + 5)?.iter().all(u8::is_ascii_hexdigit).then_some(i + 5),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
