//! Which ranks, iterations and device of a side take part (docs/semantics.md#command-line, docs/semantics.md#iterations, docs/semantics.md#host-and-device-events).

use crate::error::{Error, Result};
use crate::input::load::{RankedFile, SideOf};
pub use crate::model::pick::{Pick, SideSelection};
pub(crate) use crate::model::pick::{join, ranges};
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
pub(crate) fn resolve<T: RankedFile>(side: &SideOf<T>, label: &str, sel: &SideSelection) -> Result<Resolved> {
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
                    "{label}: no iteration {} (the trace of rank {} has no steps: no ProfilerStep, no serving loop's step annotation, no --step-marker match; leave out --iteration to compare it whole)",
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
                            "{label}: no iteration {} (steps present: {})",
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

/// Like with like: where one side has no ProfilerStep (its whole trace counts) and the other
/// has steps whose choice was left to the default, the other side is taken whole too — a
/// whole-trace total against a mean per step made every row of a 6-step side read as ÷6
/// (docs/semantics.md#a-side-without-steps). Steps named with `--iteration` are kept as named.
/// Returns the side made whole, where one was.
pub(crate) fn whole_where_other_has_none(
    resolved: [&mut Resolved; 2],
    selections: [&SideSelection; 2],
) -> Option<usize> {
    let [a, b] = resolved;
    let stepped = side_to_take_whole([Some(a.iterations.is_some()), Some(b.iterations.is_some())], selections)?;
    let side = if stepped == 0 { a } else { b };
    side.iterations = None;
    Some(stepped)
}

/// The rule of [`whole_where_other_has_none`] on what is known of each side: whether it has
/// steps (`None`: some of its runs have and some have not, which no rule pairs). The side to
/// take whole, where one is.
pub(crate) fn side_to_take_whole(has_steps: [Option<bool>; 2], selections: [&SideSelection; 2]) -> Option<usize> {
    let stepped = match has_steps {
        [Some(true), Some(false)] => 0,
        [Some(false), Some(true)] => 1,
        _ => return None,
    };
    (!matches!(selections[stepped].iterations, Pick::List(_))).then_some(stepped)
}

/// The note where side `whole` (of `steps` steps) was taken whole because side `other` has
/// none ([`whole_where_other_has_none`]).
pub(crate) fn whole_note_text(other: &str, whole: &str, steps: usize) -> String {
    format!(
        "{other} has no steps, so {whole} is compared whole too (its {steps} steps and what ran between them, \
         not a mean per step): like with like; name its steps with --iteration to compare them instead"
    )
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
    fn a_stepped_side_against_one_without_steps_is_taken_whole() {
        let stepped = || Resolved {
            ranks: vec![0],
            iterations: Some(vec![1, 2, 3]),
        };
        let whole = || Resolved {
            ranks: vec![0],
            iterations: None,
        };
        let default = SideSelection::default();
        let (mut a, mut b) = (stepped(), whole());
        assert_eq!(
            whole_where_other_has_none([&mut a, &mut b], [&default, &default]),
            Some(0)
        );
        assert_eq!(a.iterations, None);
        // Named steps stay; two stepped sides, or two whole ones, are left alone.
        let named = SideSelection {
            iterations: Pick::List(vec![2]),
            ..SideSelection::default()
        };
        let (mut a, mut b) = (stepped(), whole());
        assert_eq!(whole_where_other_has_none([&mut a, &mut b], [&named, &default]), None);
        let (mut a, mut b) = (stepped(), stepped());
        assert_eq!(whole_where_other_has_none([&mut a, &mut b], [&default, &default]), None);
        assert_eq!(a, stepped());
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
