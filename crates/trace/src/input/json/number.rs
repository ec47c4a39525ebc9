//! Numbers as written in the JSON text (already checked against the grammar by serde_json),
//! converted the way tracediff stores them: exact integers, and microseconds as exact nanoseconds.

/// The text of a JSON number that serde_json has validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Number<'a> {
    /// The number as written in the file.
    pub text: &'a str,
    /// Whether it has neither a fraction nor an exponent.
    pub is_integer: bool,
}

impl<'a> Number<'a> {
    /// `text` must be a valid JSON number.
    pub fn new(text: &'a str) -> Self {
        Number {
            text,
            is_integer: !text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')),
        }
    }

    /// The value as an integer: exact for integers that fit in `i64`, truncated toward
    /// zero (and saturated) otherwise.
    pub fn to_i64(&self) -> i64 {
        if self.is_integer
            && let Ok(v) = self.text.parse::<i64>()
        {
            return v;
        }
        self.to_f64() as i64
    }

    /// The number as a float (NaN if the text is not one, which serde_json's check rules out).
    pub fn to_f64(&self) -> f64 {
        self.text.parse::<f64>().unwrap_or(f64::NAN)
    }

    /// A time in microseconds, as written, converted to integer nanoseconds.
    ///
    /// Plain decimals are converted digit by digit, so `1700000000123456.789` is exact
    /// (an `f64` holds such a timestamp only to 0.25 µs). A fourth decimal rounds half up.
    /// Numbers with an exponent go through `f64`. `None` when out of range.
    pub fn micros_to_ns(&self) -> Option<i64> {
        micros_to_ns(self.text)
    }
}

/// [`Number::micros_to_ns`] of a valid JSON number's text, in one pass over its digits.
pub fn micros_to_ns(text: &str) -> Option<i64> {
    micros_bytes_to_ns(text.as_bytes())
}

/// [`micros_to_ns`] of a valid JSON number's text as bytes (ASCII).
pub fn micros_bytes_to_ns(text: &[u8]) -> Option<i64> {
    let t = text;
    let (neg, t) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, t),
    };
    // Up to 18 digits cannot overflow an i64 (timestamps have 16): no check per digit, and
    // the first 16 eight at a time.
    let mut v: i64 = 0;
    let mut k = 0;
    while k < 16
        && let Some(word) = t.get(k..k + 8)
        && let Some(eight) = eight_digits(word)
    {
        v = v * 100_000_000 + eight;
        k += 8;
    }
    while let Some(&d) = t.get(k) {
        let d = d.wrapping_sub(b'0');
        if d > 9 || k == 18 {
            break;
        }
        v = v * 10 + i64::from(d);
        k += 1;
    }
    while let Some(&d) = t.get(k) {
        let d = d.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        match v.checked_mul(10).and_then(|v| v.checked_add(i64::from(d))) {
            Some(next) => v = next,
            // Too large, unless an exponent brings it down.
            None if t.iter().any(|&b| b == b'e' || b == b'E') => return micros_by_f64(std::str::from_utf8(text).ok()?),
            None => return None,
        }
        k += 1;
    }
    let mut frac_ns: i64 = 0;
    match t.get(k) {
        None => {}
        Some(b'.') => {
            let frac = &t[k + 1..];
            let digits = frac.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits < frac.len() {
                return micros_by_f64(std::str::from_utf8(text).ok()?);
            }
            for j in 0..3 {
                frac_ns = frac_ns * 10 + frac.get(j).map_or(0, |&d| i64::from(d - b'0'));
            }
            if frac.get(3).is_some_and(|&d| d >= b'5') {
                frac_ns += 1;
            }
        }
        Some(_) => return micros_by_f64(std::str::from_utf8(text).ok()?),
    }
    let ns = v.checked_mul(1000)?.checked_add(frac_ns)?;
    Some(if neg { -ns } else { ns })
}

/// The value of eight ASCII digits, or `None` when one of the bytes is not a digit: a few
/// multiplications instead of a loop (timestamps have 16 digits).
#[inline(always)]
fn eight_digits(word: &[u8]) -> Option<i64> {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let w = u64::from_le_bytes(word.try_into().ok()?);
    // Each byte minus `'0'` (xor: digits are 0x30..=0x39) is at most 9 for a digit; from 10 on,
    // the low seven bits plus 0x76 carry into the high bit, never into the next byte.
    let x = w ^ (ONES * u64::from(b'0'));
    if (((x & !HIGH) + ONES * 0x76) | x) & HIGH != 0 {
        return None;
    }
    // Pairs, then fours, then the eight: the first digit is the lowest byte.
    let x = x.wrapping_mul(10).wrapping_add(x >> 8);
    let x = ((x & 0x0000_00FF_0000_00FF).wrapping_mul(100 + (1_000_000 << 32))
        + ((x >> 16) & 0x0000_00FF_0000_00FF).wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    Some(x as i64)
}

/// A number with an exponent, through `f64`.
fn micros_by_f64(text: &str) -> Option<i64> {
    let ns = (text.parse::<f64>().unwrap_or(f64::NAN) * 1000.0).round();
    if ns.is_finite() && ns.abs() < 9.2e18 {
        Some(ns as i64)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(text: &str) -> Option<i64> {
        Number::new(text).micros_to_ns()
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
        assert_eq!(ns("1e999"), None, "a huge exponent is out of range, not infinite");
        assert_eq!(ns("99999999999999999999e-17"), Some(1_000_000));
        assert_eq!(ns("1.5E+1"), Some(15_000));
        assert_eq!(ns("-0.0001"), Some(0));
        assert_eq!(ns("0"), Some(0));
        // Around the 18 digits read without checks, and the most an i64 holds.
        assert_eq!(ns("999999999999999999"), None);
        assert_eq!(ns("9223372036854775"), Some(9_223_372_036_854_775_000));
        assert_eq!(ns("9223372036854776"), None);
        assert_eq!(ns("123456789012345678"), None);
        assert_eq!(ns("0.000999999999999999999"), Some(1));
        assert_eq!(ns("-9223372036854775.807"), Some(-9_223_372_036_854_775_807));
        assert_eq!(ns("9223372036854775.808"), None);
    }

    #[test]
    fn eight_digits_at_a_time_agree_with_one_at_a_time() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let digits = format!("{:020}", x);
            let n = 1 + (x % 19) as usize;
            let text = &digits[..n];
            let want = text.parse::<i64>().ok().and_then(|v| v.checked_mul(1000));
            assert_eq!(ns(text), want, "{text}");
            let frac = format!("{text}.{}", &digits[n..]);
            let whole = text.parse::<i128>().unwrap() * 1000;
            let f = &digits[n..];
            let mut part: i128 = format!("{:0<3}", &f[..f.len().min(3)]).parse().unwrap();
            if f.len() > 3 && f.as_bytes()[3] >= b'5' {
                part += 1;
            }
            let want = i64::try_from(whole + part).ok();
            assert_eq!(ns(&frac), want, "{frac}");
        }
        for b in 0..=255u8 {
            let mut w = *b"12345678";
            w[5] = b;
            assert_eq!(eight_digits(&w).is_some(), b.is_ascii_digit(), "{b}");
        }
        assert_eq!(eight_digits(b"01234567"), Some(1_234_567));
        assert_eq!(eight_digits(b"99999999"), Some(99_999_999));
    }

    #[test]
    fn integers_are_exact_or_truncated() {
        assert_eq!(Number::new("-7.5e2").to_i64(), -750);
        assert_eq!(Number::new("9223372036854775807").to_i64(), i64::MAX);
        assert_eq!(Number::new("1e999").to_i64(), i64::MAX);
        assert!(!Number::new("1.0").is_integer);
    }
}
