//! A small, strict JSON scanner over byte slices that may end early.
//!
//! Trace files are read in chunks, so every function here may find that its input stops
//! in the middle of a value; it then returns [`Scan::Incomplete`] and the caller retries
//! with more bytes. Nothing is allocated unless a string holds escapes.
//! Everything JSON forbids is rejected: control characters and invalid UTF-8 in strings,
//! malformed numbers and literals, and nesting deeper than [`MAX_DEPTH`].

use std::borrow::Cow;

/// Deepest nesting of arrays and objects accepted, counted from the document root.
pub const MAX_DEPTH: usize = 256;

/// Why a scan stopped without a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scan {
    /// The slice ends before the value does: retry with more input.
    Incomplete,
    /// Not valid JSON (or not the JSON a trace must have) at byte `at` of the slice.
    Invalid { at: usize, msg: String },
}

pub type ScanResult<T> = Result<T, Scan>;

/// A syntax error: the text is not JSON.
pub fn invalid<T>(at: usize, msg: impl Into<String>) -> ScanResult<T> {
    Err(Scan::Invalid {
        at,
        msg: format!("invalid JSON: {}", msg.into()),
    })
}

/// Valid JSON that is not what a trace holds there (a wrong type, a missing field).
pub fn wrong<T>(at: usize, msg: impl Into<String>) -> ScanResult<T> {
    Err(Scan::Invalid { at, msg: msg.into() })
}

#[inline]
pub fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && matches!(s[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// The byte at `i` after white space, and its index; `Incomplete` at the end of the slice.
#[inline]
pub fn peek(s: &[u8], i: usize) -> ScanResult<(u8, usize)> {
    let i = skip_ws(s, i);
    match s.get(i) {
        Some(&b) => Ok((b, i)),
        None => Err(Scan::Incomplete),
    }
}

/// Expects `byte` (after white space) and returns the index after it.
#[inline]
pub fn expect(s: &[u8], i: usize, byte: u8, what: &str) -> ScanResult<usize> {
    let (b, i) = peek(s, i)?;
    if b == byte {
        Ok(i + 1)
    } else {
        invalid(i, format!("expected {what}, found {}", describe_byte(b)))
    }
}

pub fn describe_byte(b: u8) -> String {
    match (kind_of(b), b) {
        (kind, _) if kind != INVALID_VALUE => kind.to_string(),
        (_, 0x20..=0x7e) => format!("'{}'", b as char),
        _ => format!("byte 0x{b:02x}"),
    }
}

const INVALID_VALUE: &str = "an invalid value";

/// What kind of JSON value starts with byte `b`.
pub fn kind_of(b: u8) -> &'static str {
    match b {
        b'"' => "a string",
        b'{' => "an object",
        b'[' => "an array",
        b'-' | b'0'..=b'9' => "a number",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => INVALID_VALUE,
    }
}

/// Checks the raw bytes between two quotes that hold no escapes, and returns them as text.
#[inline]
fn check_plain(s: &[u8], start: usize, end: usize) -> ScanResult<&str> {
    let raw = &s[start..end];
    // One branch-free pass for the common case; the position only when there is a problem.
    if raw.iter().fold(false, |bad, &b| bad | (b < 0x20)) {
        let p = raw.iter().position(|&b| b < 0x20).unwrap_or(0);
        return invalid(start + p, "control character in string");
    }
    std::str::from_utf8(raw).map_err(|e| Scan::Invalid {
        at: start + e.valid_up_to(),
        msg: "invalid JSON: invalid UTF-8 in string".to_string(),
    })
}

/// The index of the first `"` or `\\` at or after `from`. Most strings in a trace are short
/// (keys, categories, names), so a plain loop looks first; memchr takes over for long ones.
#[inline]
fn find_quote_or_backslash(s: &[u8], from: usize) -> Option<usize> {
    let head_end = s.len().min(from + 24);
    for (k, &b) in s[from..head_end].iter().enumerate() {
        if b == b'"' || b == b'\\' {
            return Some(from + k);
        }
    }
    memchr::memchr2(b'"', b'\\', &s[head_end..]).map(|k| head_end + k)
}

/// Parses the string starting at the quote `s[i]`; returns its value and the index after it.
pub fn string(s: &[u8], i: usize) -> ScanResult<(Cow<'_, str>, usize)> {
    debug_assert_eq!(s[i], b'"');
    let start = i + 1;
    let Some(k) = find_quote_or_backslash(s, start) else {
        return Err(Scan::Incomplete);
    };
    if s[k] == b'"' {
        let text = check_plain(s, start, k)?;
        return Ok((Cow::Borrowed(text), k + 1));
    }
    let mut out: Vec<u8> = Vec::with_capacity(k - start + 16);
    let mut seg = start;
    let mut j = k;
    loop {
        // s[j] is a quote or a backslash; s[seg..j] is plain text.
        out.extend_from_slice(check_plain(s, seg, j)?.as_bytes());
        if s[j] == b'"' {
            let text = String::from_utf8(out).map_err(|_| Scan::Invalid {
                at: start,
                msg: "invalid JSON: invalid UTF-8 in string".to_string(),
            })?;
            return Ok((Cow::Owned(text), j + 1));
        }
        j = unescape(s, j, &mut out)?;
        seg = j;
        match memchr::memchr2(b'"', b'\\', &s[j..]) {
            Some(n) => j += n,
            None => return Err(Scan::Incomplete),
        }
    }
}

/// Decodes the escape at `s[j] == '\\'` into `out`; returns the index after it.
fn unescape(s: &[u8], j: usize, out: &mut Vec<u8>) -> ScanResult<usize> {
    let Some(&c) = s.get(j + 1) else {
        return Err(Scan::Incomplete);
    };
    let simple = match c {
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        b'u' => {
            let (unit, next) = hex4(s, j + 2)?;
            let (code, next) = if (0xD800..0xDC00).contains(&unit) {
                // A high surrogate: use the low one that should follow.
                if s.len() < next + 2 {
                    return Err(Scan::Incomplete);
                }
                if s[next] == b'\\' && s[next + 1] == b'u' {
                    let (low, after) = hex4(s, next + 2)?;
                    if (0xDC00..0xE000).contains(&low) {
                        (0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), after)
                    } else {
                        (0xFFFD, next)
                    }
                } else {
                    (0xFFFD, next)
                }
            } else if (0xDC00..0xE000).contains(&unit) {
                (0xFFFD, next)
            } else {
                (unit, next)
            };
            let ch = char::from_u32(code).unwrap_or('\u{FFFD}');
            let mut buf = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            return Ok(next);
        }
        _ => return invalid(j, "invalid escape in string"),
    };
    out.push(simple);
    Ok(j + 2)
}

fn hex4(s: &[u8], i: usize) -> ScanResult<(u32, usize)> {
    if s.len() < i + 4 {
        return Err(Scan::Incomplete);
    }
    let mut v = 0u32;
    for (k, &b) in s[i..i + 4].iter().enumerate() {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return invalid(i + k, "invalid \\u escape in string"),
        };
        v = v * 16 + u32::from(d);
    }
    Ok((v, i + 4))
}

/// Parses an object key at the quote `s[i]` as bytes: validated like any string, but without
/// making a `&str` of it, since keys are only compared with known (ASCII) names.
pub fn key(s: &[u8], i: usize) -> ScanResult<(Cow<'_, [u8]>, usize)> {
    let start = i + 1;
    let Some(k) = find_quote_or_backslash(s, start) else {
        return Err(Scan::Incomplete);
    };
    if s[k] == b'"' {
        let raw = &s[start..k];
        // One pass for the common case: control characters and non-ASCII bytes.
        let (control, high) = raw
            .iter()
            .fold((false, false), |(c, h), &b| (c | (b < 0x20), h | (b >= 0x80)));
        if control || high {
            check_plain(s, start, k)?;
        }
        return Ok((Cow::Borrowed(raw), k + 1));
    }
    let (text, end) = string(s, i)?;
    Ok((Cow::Owned(text.into_owned().into_bytes()), end))
}

/// Skips the string at the quote `s[i]`, validating it; returns the index after it.
pub fn skip_string(s: &[u8], i: usize) -> ScanResult<usize> {
    let mut j = i + 1;
    loop {
        let Some(k) = find_quote_or_backslash(s, j) else {
            return Err(Scan::Incomplete);
        };
        check_plain(s, j, k)?;
        if s[k] == b'"' {
            return Ok(k + 1);
        }
        let Some(&c) = s.get(k + 1) else {
            return Err(Scan::Incomplete);
        };
        j = match c {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => k + 2,
            b'u' => hex4(s, k + 2)?.1,
            _ => return invalid(k, "invalid escape in string"),
        };
    }
}

/// The text of a JSON number starting at `s[i]`, checked against the JSON grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Number<'a> {
    pub text: &'a [u8],
    /// Whether it has a fraction or an exponent.
    pub is_integer: bool,
}

pub fn number(s: &[u8], i: usize) -> ScanResult<(Number<'_>, usize)> {
    let mut j = i;
    if s.get(j) == Some(&b'-') {
        j += 1;
    }
    let digits = |s: &[u8], mut j: usize| {
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    match s.get(j) {
        None => return Err(Scan::Incomplete),
        Some(b'0') => j += 1,
        Some(b'1'..=b'9') => j = digits(s, j + 1),
        Some(_) => return invalid(j, "invalid number"),
    }
    let mut is_integer = true;
    if j < s.len() && s[j] == b'.' {
        is_integer = false;
        let k = digits(s, j + 1);
        if k == s.len() {
            return Err(Scan::Incomplete);
        }
        if k == j + 1 {
            return invalid(k, "invalid number: no digits after '.'");
        }
        j = k;
    }
    if j < s.len() && (s[j] == b'e' || s[j] == b'E') {
        is_integer = false;
        j += 1;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            j += 1;
        }
        let k = digits(s, j);
        if k == s.len() {
            return Err(Scan::Incomplete);
        }
        if k == j {
            return invalid(k, "invalid number: no digits in exponent");
        }
        j = k;
    }
    if j == s.len() {
        // More digits may follow in the next chunk.
        return Err(Scan::Incomplete);
    }
    Ok((
        Number {
            text: &s[i..j],
            is_integer,
        },
        j,
    ))
}

impl Number<'_> {
    fn as_str(&self) -> &str {
        // The grammar check admits only ASCII.
        std::str::from_utf8(self.text).unwrap_or("0")
    }

    /// The value as an integer: exact for integers that fit in `i64`, truncated toward
    /// zero (and saturated) otherwise.
    pub fn to_i64(&self) -> i64 {
        if self.is_integer
            && let Ok(v) = self.as_str().parse::<i64>()
        {
            return v;
        }
        self.to_f64() as i64
    }

    pub fn to_f64(&self) -> f64 {
        self.as_str().parse::<f64>().unwrap_or(f64::NAN)
    }

    /// A time in microseconds, as written, converted to integer nanoseconds.
    ///
    /// Plain decimals are converted digit by digit, so `1700000000123456.789` is exact
    /// (an `f64` holds such a timestamp only to 0.25 µs). A fourth decimal rounds half up.
    /// Numbers with an exponent go through `f64`. `None` when out of range.
    pub fn micros_to_ns(&self) -> Option<i64> {
        let t = self.text;
        if t.iter().any(|&b| b == b'e' || b == b'E') {
            let ns = (self.to_f64() * 1000.0).round();
            return if ns.is_finite() && ns.abs() < 9.2e18 {
                Some(ns as i64)
            } else {
                None
            };
        }
        let (neg, t) = match t.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, t),
        };
        let (int_part, frac) = match t.iter().position(|&b| b == b'.') {
            Some(p) => (&t[..p], &t[p + 1..]),
            None => (t, &t[..0]),
        };
        let mut v: i64 = 0;
        for &d in int_part {
            v = v.checked_mul(10)?.checked_add(i64::from(d - b'0'))?;
        }
        let mut frac_ns: i64 = 0;
        for k in 0..3 {
            frac_ns = frac_ns * 10 + frac.get(k).map_or(0, |&d| i64::from(d - b'0'));
        }
        if frac.get(3).is_some_and(|&d| d >= b'5') {
            frac_ns += 1;
        }
        let ns = v.checked_mul(1000)?.checked_add(frac_ns)?;
        Some(if neg { -ns } else { ns })
    }
}

/// Checks the literal `true`, `false` or `null` at `s[i]`.
pub fn literal(s: &[u8], i: usize) -> ScanResult<usize> {
    let word: &[u8] = match s[i] {
        b't' => b"true",
        b'f' => b"false",
        _ => b"null",
    };
    let avail = &s[i..s.len().min(i + word.len())];
    if avail != &word[..avail.len()] {
        return invalid(i, "invalid literal");
    }
    if avail.len() < word.len() {
        return Err(Scan::Incomplete);
    }
    Ok(i + word.len())
}

/// Skips any JSON value at `s[i]` (after white space), validating it.
/// `depth` is the nesting level of the value's container.
pub fn skip_value(s: &[u8], i: usize, depth: usize) -> ScanResult<usize> {
    let (b, i) = peek(s, i)?;
    match b {
        b'"' => skip_string(s, i),
        b'{' | b'[' => skip_container(s, i, depth + 1),
        b'-' | b'0'..=b'9' => number(s, i).map(|(_, j)| j),
        b't' | b'f' | b'n' => literal(s, i),
        _ => invalid(i, format!("expected a value, found {}", describe_byte(b))),
    }
}

fn skip_container(s: &[u8], i: usize, depth: usize) -> ScanResult<usize> {
    if depth > MAX_DEPTH {
        return invalid(i, format!("nesting deeper than {MAX_DEPTH} levels"));
    }
    let is_object = s[i] == b'{';
    let close = if is_object { b'}' } else { b']' };
    let mut j = i + 1;
    let (b, k) = peek(s, j)?;
    if b == close {
        return Ok(k + 1);
    }
    loop {
        if is_object {
            let (b, k) = peek(s, j)?;
            if b != b'"' {
                return invalid(k, format!("expected a key string, found {}", describe_byte(b)));
            }
            j = skip_string(s, k)?;
            j = expect(s, j, b':', "':'")?;
        }
        j = skip_value(s, j, depth)?;
        let (b, k) = peek(s, j)?;
        if b == b',' {
            j = k + 1;
        } else if b == close {
            return Ok(k + 1);
        } else {
            let want = if is_object { "',' or '}'" } else { "',' or ']'" };
            return invalid(k, format!("expected {want}, found {}", describe_byte(b)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(text: &str) -> Option<i64> {
        let padded = format!("{text} ");
        let (n, _) = number(padded.as_bytes(), 0).unwrap();
        n.micros_to_ns()
    }

    #[test]
    fn micros_become_exact_nanoseconds() {
        assert_eq!(ns("12"), Some(12_000));
        assert_eq!(ns("0.5"), Some(500));
        assert_eq!(ns("1700000000123456.789"), Some(1_700_000_000_123_456_789));
        assert_eq!(ns("1.2345"), Some(1_235));
        assert_eq!(ns("1.2344"), Some(1_234));
        assert_eq!(ns("-3.25"), Some(-3_250));
        assert_eq!(ns("1.5e3"), Some(1_500_000));
        assert_eq!(ns("99999999999999999999"), None);
    }

    #[test]
    fn numbers_follow_the_json_grammar() {
        assert!(matches!(number(b"01 ", 0), Ok((Number { text: b"0", .. }, 1))));
        assert!(number(b"- ", 0).is_err());
        assert!(matches!(number(b"1. ", 0), Err(Scan::Invalid { .. })));
        assert!(matches!(number(b"1e ", 0), Err(Scan::Invalid { .. })));
        assert_eq!(number(b"123", 0), Err(Scan::Incomplete));
        let (n, end) = number(b"-7.5e2,", 0).unwrap();
        assert_eq!((n.to_i64(), end), (-750, 6));
    }

    #[test]
    fn strings_unescape_and_borrow_when_plain() {
        let (v, end) = string(br#""aten::mm" "#, 0).unwrap();
        assert!(matches!(v, Cow::Borrowed("aten::mm")));
        assert_eq!(end, 10);
        let (v, _) = string(br#""a\"b\\c\u00e9\ud83d\ude00" "#, 0).unwrap();
        assert_eq!(v, "a\"b\\c\u{e9}\u{1f600}");
        assert_eq!(string(br#""abc"#, 0), Err(Scan::Incomplete));
        assert_eq!(string(br#""ab\u00"#, 0), Err(Scan::Incomplete));
        assert!(matches!(string(b"\"a\x01b\"", 0), Err(Scan::Invalid { at: 2, .. })));
        assert!(matches!(string(b"\"a\xffb\"", 0), Err(Scan::Invalid { at: 2, .. })));
        assert!(matches!(string(br#""\q""#, 0), Err(Scan::Invalid { at: 1, .. })));
    }

    #[test]
    fn skipping_validates_structure() {
        let doc = br#"{"a": [1, 2.5, "x", true, null, {"b": {}}], "c": []} "#;
        assert_eq!(skip_value(doc, 0, 0), Ok(doc.len() - 1));
        assert_eq!(skip_value(br#"{"a": [1, 2"#, 0, 0), Err(Scan::Incomplete));
        assert!(matches!(
            skip_value(br#"{"a" 1}"#, 0, 0),
            Err(Scan::Invalid { at: 5, .. })
        ));
        assert!(matches!(skip_value(b"[1 2]", 0, 0), Err(Scan::Invalid { at: 3, .. })));
        assert!(matches!(skip_value(b"[tru]", 0, 0), Err(Scan::Invalid { at: 1, .. })));
        assert_eq!(skip_value(b"[tr", 0, 0), Err(Scan::Incomplete));
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "[".repeat(MAX_DEPTH + 5);
        match skip_value(deep.as_bytes(), 0, 0) {
            Err(Scan::Invalid { msg, .. }) => assert!(msg.contains("nesting deeper")),
            other => panic!("unexpected {other:?}"),
        }
    }
}
