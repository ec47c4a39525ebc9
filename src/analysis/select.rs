//! Which ranks, iterations and device of a side take part (design §2, §3.3, §3.4).

use crate::error::{Error, Result};
use crate::input::load::{RankedFile, SideOf};
use crate::model::place::Place;
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
    All,
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

pub fn join(v: &[i64]) -> String {
    v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

/// Which events count by where they ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Device {
    Cpu,
    Gpu,
    #[default]
    All,
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Device::Cpu => "cpu",
            Device::Gpu => "gpu",
            Device::All => "all",
        })
    }
}

impl Device {
    /// Whether an event that ran at `place` is selected (design §3.4, [`crate::model::place`]).
    #[inline]
    pub fn admits(self, place: Place) -> bool {
        match self {
            Device::All => true,
            Device::Gpu => place.on_device(),
            Device::Cpu => !place.on_device(),
        }
    }
}

/// What one side asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SideSelection {
    pub ranks: Pick,
    pub iterations: Pick,
}

/// What was found for one side: concrete ranks and iterations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolved {
    pub ranks: Vec<i64>,
    /// `None` when the selected traces have no ProfilerStep: the whole trace counts.
    pub iterations: Option<Vec<i64>>,
}

/// Turns a side's request into concrete ranks and iterations, or says what exists.
pub fn resolve<T: RankedFile>(side: &SideOf<T>, label: &str, sel: &SideSelection) -> Result<Resolved> {
    let present = side.ranks();
    let ranks = match &sel.ranks {
        Pick::Lowest => present.iter().copied().min().into_iter().collect(),
        Pick::All => present.clone(),
        Pick::List(want) => {
            let missing: Vec<i64> = want.iter().copied().filter(|r| !present.contains(r)).collect();
            if !missing.is_empty() {
                return Err(Error::input(
                    &side.input,
                    format!(
                        "{label}: no rank {} (ranks present: {})",
                        join(&missing),
                        join(&present)
                    ),
                ));
            }
            want.clone()
        }
    };
    // As HTA: the steps of the whole side count (every rank's), not only the selected ranks'.
    let steps = side.step_numbers();
    let iterations = if steps.is_empty() {
        if let Pick::List(want) = &sel.iterations {
            return Err(Error::input(
                &side.input,
                format!(
                    "{label}: no iteration {} (the trace of rank {} has no ProfilerStep; leave out --iteration to compare it whole)",
                    join(want),
                    join(&ranks)
                ),
            ));
        }
        None
    } else {
        Some(match &sel.iterations {
            Pick::Lowest => vec![steps[0]],
            Pick::All => steps.clone(),
            Pick::List(want) => {
                let missing: Vec<i64> = want.iter().copied().filter(|i| !steps.contains(i)).collect();
                if !missing.is_empty() {
                    return Err(Error::input(
                        &side.input,
                        format!(
                            "{label}: no iteration {} (ProfilerSteps present: {})",
                            join(&missing),
                            join(&steps)
                        ),
                    ));
                }
                want.clone()
            }
        })
    };
    Ok(Resolved { ranks, iterations })
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

    #[test]
    fn device_filter_follows_the_place() {
        assert!(Device::Gpu.admits(Place::Device));
        assert!(Device::Gpu.admits(Place::Annotation));
        assert!(!Device::Gpu.admits(Place::Host));
        assert!(Device::Cpu.admits(Place::Host));
        assert!(!Device::Cpu.admits(Place::Device));
        assert!(Device::All.admits(Place::Host));
    }
}
