//! A gate over part of a job passes or fails for the ranks left out: a side that lacks ranks
//! of its job is refused unless `allow_missing_ranks` (docs/significance.md#the-gates-rules).

use crate::error::{Error, Result};
use crate::input::load::SideOf;

/// The ranks of its job (`0..world_size`) that `side` lacks: those its files' world size names
/// where it holds several files; where it is one file (a job traced on one rank, as is
/// common), those of them that `other`, a side of the same world size, holds (rank 1 of 2
/// against a baseline of both ranks).
/// Counted, with the first, since a huge declared world size cuts the list short.
fn lacking<T, U>(side: &SideOf<T>, other: &SideOf<U>) -> Option<(i64, i64, i64)> {
    let world = side.world_size?;
    if let Some(&first) = side.missing_ranks.first() {
        let held = side.present.iter().filter(|p| (0..world).contains(&p.rank)).count();
        return Some((world - held as i64, first, world));
    }
    // Another job (another world size) holds other ranks by right.
    if other.world_size != Some(world) {
        return None;
    }
    let held = |s: &SideOf<U>, r: i64| s.present.iter().any(|p| p.rank == r);
    let own = |r: i64| side.present.iter().any(|p| p.rank == r);
    let mut theirs: Vec<i64> = other
        .present
        .iter()
        .map(|p| p.rank)
        .filter(|&r| (0..world).contains(&r) && !own(r) && held(other, r))
        .collect();
    theirs.sort_unstable();
    theirs.dedup();
    theirs.first().map(|&first| (theirs.len() as i64, first, world))
}

/// Refuses `side` (the `label`) where it lacks ranks of its job ([`lacking`]), naming them.
pub(super) fn refuse_missing_ranks<T, U>(side: &SideOf<T>, label: &str, other: &SideOf<U>) -> Result<()> {
    let Some((count, first, world)) = lacking(side, other) else {
        return Ok(());
    };
    let which = if count == 1 {
        format!("rank {first}")
    } else {
        format!("{count} ranks (the first: {first})")
    };
    Err(Error::input(
        &side.input,
        format!(
            "the {label} lacks {which} of its {world} (distributedInfo.world_size): a gate over part of a job \
             judges only the ranks it holds; give every rank's file, or --allow-missing-ranks to gate it anyway"
        ),
    ))
}
