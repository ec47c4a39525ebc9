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
            let part = part.trim();
            let n = part
                .parse::<i64>()
                .map_err(|_| format!("'{part}' is not a number (expected a number, a comma list, or 'all')"))?;
            if !list.contains(&n) {
                list.push(n);
            }
        }
        list.sort_unstable();
        Ok(Pick::List(list))
    }
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
    fn picks_parse_numbers_lists_and_all() {
        assert_eq!("3".parse::<Pick>(), Ok(Pick::List(vec![3])));
        assert_eq!(" 5, 1,5 ".parse::<Pick>(), Ok(Pick::List(vec![1, 5])));
        assert_eq!("ALL".parse::<Pick>(), Ok(Pick::All));
        assert!("x".parse::<Pick>().unwrap_err().contains("'x' is not a number"));
        assert!("1,,2".parse::<Pick>().is_err());
    }
}
