//! The one default selection of every command (docs/semantics.md#defaults): which
//! ranks and steps of a side are read where none are named. `compare`, the views, `modules`,
//! `overview`, `flamegraph`, `report`, `plot` and `gate` (and Python's) apply these constants,
//! and the `--help` of `--rank` and `--iteration` is worded from them, so that the help cannot
//! say one thing while the code does another. `--hta` keeps HTA's lowest step instead.

use crate::model::pick::{Pick, SideSelection};

/// The ranks read where none are named: the lowest of each side. One rank is what one process
/// did; `--rank all` reads every rank (its values per rank and step, docs/semantics.md#ranks).
pub const DEFAULT_RANKS: Pick = Pick::Lowest;

/// The steps read where none are named: every ProfilerStep of each side, so that one noisy
/// step does not decide and the rows are per step.
pub const DEFAULT_STEPS: Pick = Pick::All;

/// The selection of a side that named neither ranks nor steps.
pub fn default_selection() -> SideSelection {
    SideSelection {
        ranks: DEFAULT_RANKS,
        iterations: DEFAULT_STEPS,
    }
}

/// How help words a default pick of `what` (`rank`, `step`): `the lowest`, `every step`.
pub(crate) fn describe(pick: &Pick, what: &str) -> String {
    match pick {
        Pick::Lowest => "the lowest".to_string(),
        Pick::All => format!("every {what}"),
        Pick::List(v) => crate::model::pick::join(v),
    }
}

/// The help of `--rank` (both sides; `side`: `both sides` or a side's name), its default worded
/// from [`DEFAULT_RANKS`].
pub(crate) fn rank_help(side: &str) -> String {
    format!(
        "Ranks of {side}: a number, a range (`2-4`), a comma list, or `all` (values per rank and step) [default: {}]",
        describe(&DEFAULT_RANKS, "rank")
    )
}

/// The help of `--iteration`, its default worded from [`DEFAULT_STEPS`] (`--hta`: the lowest).
pub(crate) fn iteration_help(side: &str) -> String {
    format!(
        "ProfilerStep numbers of {side}: a number, a range (`2-4`), a comma list, or `all` [default: {}; --hta: the lowest]",
        describe(&DEFAULT_STEPS, "step")
    )
}

/// [`iteration_help`] of the commands that take no `--hta` (`overview`, `modules`,
/// `flamegraph`).
pub(crate) fn iteration_help_without_hta() -> String {
    format!(
        "ProfilerStep numbers of both sides: a number, a range (`2-4`), a comma list, or `all` [default: {}]",
        describe(&DEFAULT_STEPS, "step")
    )
}

/// The warning where the two sides read different ranks (`ranks`: the ranks each side read) or
/// hold different numbers of ranks (`held`): the values are per rank and step either way, but a
/// rank one side lacks is compared with nothing.
pub(crate) fn rank_sets_warning(labels: [&str; 2], ranks: [&[i64]; 2], held: [usize; 2]) -> Option<String> {
    use crate::model::pick::ranges;
    let word = |r: &[i64]| if r.len() == 1 { "rank" } else { "ranks" };
    if ranks[0] != ranks[1] {
        return Some(format!(
            "the sides read different ranks: {} {} {}, {} {} {}; each row is per rank and step of its side \
             (docs/semantics.md#ranks)",
            labels[0],
            word(ranks[0]),
            ranges(ranks[0]),
            labels[1],
            word(ranks[1]),
            ranges(ranks[1]),
        ));
    }
    let count = |n: usize| format!("{n} {}", if n == 1 { "rank" } else { "ranks" });
    (held[0] != held[1]).then(|| {
        format!(
            "the sides hold different numbers of ranks: {} {}, {} {}; both read {} {}",
            labels[0],
            count(held[0]),
            labels[1],
            count(held[1]),
            word(ranks[0]),
            ranges(ranks[0]),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_says_what_the_constants_do() {
        assert!(rank_help("both sides").ends_with("[default: the lowest]"));
        assert!(iteration_help("both sides").contains("[default: every step;"));
        assert_eq!(default_selection().iterations, DEFAULT_STEPS);
    }

    #[test]
    fn different_rank_sets_are_named() {
        let w = rank_sets_warning(["control", "test"], [&[0, 1], &[0, 1, 2, 3]], [2, 4]);
        assert_eq!(
            w.as_deref(),
            Some(
                "the sides read different ranks: control ranks 0–1, test ranks 0–3; each row is per rank and step \
                 of its side (docs/semantics.md#ranks)"
            )
        );
        let held = rank_sets_warning(["a", "b"], [&[0], &[0]], [2, 1]);
        assert_eq!(
            held.as_deref(),
            Some("the sides hold different numbers of ranks: a 2 ranks, b 1 rank; both read rank 0")
        );
        assert_eq!(rank_sets_warning(["a", "b"], [&[0], &[0]], [1, 1]), None);
    }
}
