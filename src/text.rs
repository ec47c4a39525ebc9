//! Numbers for people, shared by the stages that word results (analysis notes) and those that
//! print them (output): a module below both, like [`crate::error`].

/// A duration for people: `812 ns`, `12.4 µs`, `3.21 ms`, `1.50 s`, with three significant
/// digits. `signed` adds `+` to positive values.
pub fn fmt_duration(ns: i64, signed: bool) -> String {
    let sign = if ns < 0 {
        "-"
    } else if signed && ns > 0 {
        "+"
    } else {
        ""
    };
    let abs = ns.unsigned_abs() as f64;
    let (value, unit) = if abs < 1e3 {
        return format!("{sign}{} ns", ns.unsigned_abs());
    } else if abs < 1e6 {
        (abs / 1e3, "µs")
    } else if abs < 1e9 {
        (abs / 1e6, "ms")
    } else {
        (abs / 1e9, "s")
    };
    let text = if value < 9.995 {
        format!("{value:.2}")
    } else if value < 99.95 {
        format!("{value:.1}")
    } else {
        format!("{value:.0}")
    };
    format!("{sign}{text} {unit}")
}

/// `text` cut in the middle to at most `max` characters, with `…` where it was cut: an error
/// message quoting a value keeps to one readable line (a list of 100,000 steps or a 100 KB
/// string once made a 129 KB line).
pub(crate) fn elide(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let keep = max.saturating_sub(1);
    let head: String = text.chars().take(keep - keep / 2).collect();
    let tail: String = text.chars().skip(n - keep / 2).collect();
    format!("{head}…{tail}")
}

/// The most characters an error message quotes of a value or a list.
pub(crate) const QUOTED_MAX: usize = 120;

/// A count for people, its digits in groups of three: `74,936`, `1,024`, `-1,500`, `999` (a
/// note read `matched none of the 74936 events left`). Any integer.
pub(crate) fn fmt_count(n: impl std::fmt::Display) -> String {
    let digits = n.to_string();
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", digits.as_str()),
    };
    let mut out = String::with_capacity(sign.len() + digits.len() + digits.len() / 3);
    out.push_str(sign);
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fmt_count;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(fmt_count(0), "0");
        assert_eq!(fmt_count(999u64), "999");
        assert_eq!(fmt_count(1000usize), "1,000");
        assert_eq!(fmt_count(74_936), "74,936");
        assert_eq!(fmt_count(-1_500i64), "-1,500");
        assert_eq!(fmt_count(u64::MAX), "18,446,744,073,709,551,615");
    }
}
