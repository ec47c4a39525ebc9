//! A choice of ranks or iterations, as the user writes it, and what one side asks for: the
//! plain types that loading reads (which files to parse) and selection resolves.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A choice of ranks or iterations as the user writes it: `3`, `1,2,5`, `all`, or nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Pick {
    /// The lowest one present.
    #[default]
    Lowest,
    /// Every one present.
    All,
    /// These, each of which must be present.
    List(Vec<i64>),
}

impl FromStr for Pick {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return Ok(Pick::All);
        }
        let mut list = Vec::new();
        for part in s.split(',') {
            list.extend(numbers_of(part.trim())?);
        }
        list.sort_unstable();
        list.dedup();
        Ok(Pick::List(list))
    }
}

/// The most numbers one range may name: a typo such as `1-1000000000` is refused, not expanded.
const MAX_RANGE: i64 = 1_000_000;

/// One part of a list: a number, or a range `A-B` (or `A–B`, as headers print runs) of every
/// number from A to B.
fn numbers_of(part: &str) -> Result<Vec<i64>, String> {
    let expected = "expected a number, a range such as 2-4, a comma list, or 'all'";
    if let Ok(n) = part.parse::<i64>() {
        return Ok(vec![n]);
    }
    // The separator is looked for after the first character, so that "-1" stays a number.
    let split = part
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == '-' || c == '–')
        .map(|(i, c)| (&part[..i], &part[i + c.len_utf8()..]));
    if let Some(big) = std::iter::once(part)
        .chain(split.into_iter().flat_map(|(a, b)| [a, b]))
        .map(str::trim)
        .find(|n| out_of_range(n))
    {
        return Err(format!(
            "'{big}' is out of range: a step or a rank is a whole number from {} to {}",
            i64::MIN,
            i64::MAX
        ));
    }
    let range = split.and_then(|(a, b)| Some((a.trim().parse::<i64>().ok()?, b.trim().parse::<i64>().ok()?)));
    match range {
        Some((a, b)) if a <= b && b.checked_sub(a).is_some_and(|n| n < MAX_RANGE) => Ok((a..=b).collect()),
        Some((a, b)) if a > b => Err(format!("'{part}': the range runs backwards ({a} > {b})")),
        Some(_) => Err(format!("'{part}': a range of more than {MAX_RANGE} numbers")),
        None => Err(format!("'{part}' is not a number ({expected})")),
    }
}

/// Whether `n` is a whole number too large (or too small) for an `i64`.
fn out_of_range(n: &str) -> bool {
    use std::num::IntErrorKind::{NegOverflow, PosOverflow};
    n.parse::<i64>()
        .is_err_and(|e| matches!(e.kind(), PosOverflow | NegOverflow))
}

impl fmt::Display for Pick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pick::Lowest => f.write_str("lowest"),
            Pick::All => f.write_str("all"),
            Pick::List(v) => f.write_str(&join(v)),
        }
    }
}

/// Numbers as a comma-separated list for messages: `0, 2, 5`.
pub fn join(v: &[i64]) -> String {
    v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// Numbers as runs for headers, so that 8,000 steps take one line: `1–4, 7, 9–10`. Consecutive
/// numbers in the order given form a run.
pub fn ranges(numbers: &[i64]) -> String {
    let mut runs: Vec<(i64, i64)> = Vec::new();
    for &n in numbers {
        match runs.last_mut() {
            Some((_, end)) if end.checked_add(1) == Some(n) => *end = n,
            _ => runs.push((n, n)),
        }
    }
    let text: Vec<String> = runs
        .iter()
        .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}–{b}") })
        .collect();
    text.join(", ")
}

/// What one side asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SideSelection {
    /// Which ranks (files) of the side.
    pub ranks: Pick,
    /// Which ProfilerSteps of those ranks.
    pub iterations: Pick,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_as_headers_print_them_are_read_back() {
        let pick = |s: &str| s.parse::<Pick>();
        assert_eq!(pick("2-4"), Ok(Pick::List(vec![2, 3, 4])));
        assert_eq!(pick("2–4, 7, 9–10"), Ok(Pick::List(vec![2, 3, 4, 7, 9, 10])));
        assert_eq!(pick(&ranges(&[1, 2, 3, 5])), Ok(Pick::List(vec![1, 2, 3, 5])));
        assert_eq!(pick("3,1-2,2"), Ok(Pick::List(vec![1, 2, 3])));
        assert_eq!(pick("-1"), Ok(Pick::List(vec![-1])));
        assert!(pick("4-2").unwrap_err().contains("backwards"));
        assert!(pick("0-99999999999").unwrap_err().contains("more than"));
        assert!(pick("x").unwrap_err().contains("a range such as 2-4"));
        for big in [
            "1-18446744073709551615",
            "18446744073709551615",
            "-99999999999999999999-3",
        ] {
            let e = pick(big).unwrap_err();
            assert!(
                e.contains("is out of range") && e.contains("9223372036854775807"),
                "{e}"
            );
        }
    }

    #[test]
    fn runs_of_consecutive_numbers_are_ranges() {
        assert_eq!(ranges(&[]), "");
        assert_eq!(ranges(&[3]), "3");
        assert_eq!(ranges(&[1, 2, 3, 4, 7, 9, 10]), "1–4, 7, 9–10");
        assert_eq!(
            ranges(&[i64::MAX - 1, i64::MAX]),
            format!("{}–{}", i64::MAX - 1, i64::MAX)
        );
        let many: Vec<i64> = (1..=8000).collect();
        assert_eq!(ranges(&many), "1–8000");
    }

    #[test]
    fn picks_parse_numbers_lists_and_all() {
        assert_eq!("3".parse::<Pick>(), Ok(Pick::List(vec![3])));
        assert_eq!(" 5, 1,5 ".parse::<Pick>(), Ok(Pick::List(vec![1, 5])));
        assert_eq!("ALL".parse::<Pick>(), Ok(Pick::All));
        assert!("x".parse::<Pick>().unwrap_err().contains("'x' is not a number"));
        assert!("1,,2".parse::<Pick>().is_err());
    }
}
