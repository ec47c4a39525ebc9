//! Which ranks, iterations and device of a side take part (docs/semantics.md#command-line, docs/semantics.md#iterations, docs/semantics.md#host-and-device-events).

use crate::error::{Error, Result};
use crate::input::load::{RankedFile, SideOf};
pub use crate::model::pick::{Pick, SideSelection, join, ranges};
pub use crate::request::selection::Device;
use serde::{Deserialize, Serialize};

/// What was found for one side: concrete ranks and iterations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resolved {
    /// The ranks selected, sorted.
    pub ranks: Vec<i64>,
    /// `None` when the selected traces have no ProfilerStep: the whole trace counts.
    pub iterations: Option<Vec<i64>>,
}

/// Numbers for an error message: a comma list, or for a long one runs (`1–8000`) elided past a
/// line's worth.
fn listed(numbers: &[i64]) -> String {
    if numbers.len() <= 16 {
        return join(numbers);
    }
    crate::text::elide(&ranges(numbers), crate::text::QUOTED_MAX)
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
                        listed(&missing),
                        listed(&present)
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
                    listed(want),
                    listed(&ranks)
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
                            listed(&missing),
                            listed(&steps)
                        ),
                    ));
                }
                want.clone()
            }
        })
    };
    Ok(Resolved { ranks, iterations })
}

/// The selected iterations, looked up in constant time: a side of 100,000 steps searched per
/// event made `compare --iteration all` quadratic. `None` selects every event.
pub(crate) struct Selected(Option<rustc_hash::FxHashSet<i64>>);

impl Selected {
    /// The set of `iterations`; `None`: all.
    pub(crate) fn new(iterations: Option<&[i64]>) -> Selected {
        Selected(iterations.map(|its| its.iter().copied().collect()))
    }

    /// Whether an event of `iteration` is selected.
    pub(crate) fn admits(&self, iteration: i64) -> bool {
        self.0.as_ref().is_none_or(|set| set.contains(&iteration))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::place::Place;

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
