//! Which ranks of a job a side holds: the world size its files declare
//! (`distributedInfo.world_size`) against the ranks present, and a note naming those missing.

use std::path::Path;

/// The most missing ranks a note names one by one; past it the note gives the count of the rest.
const NAMED: usize = 8;

/// What a side's files say about its job's ranks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RankCheck {
    /// The largest `world_size` any file declares.
    pub world_size: Option<i64>,
    /// The ranks in `0..world_size` no file holds, sorted.
    pub missing: Vec<i64>,
    /// The note for the user: the missing ranks, or world sizes that disagree.
    pub note: Option<String>,
}

impl RankCheck {
    /// Checks the ranks `present` of the side `input` against the world sizes its files
    /// declare (`worlds`, one per file, `None` where a file declares none).
    pub fn new(input: &Path, present: impl Iterator<Item = i64>, worlds: &[Option<i64>]) -> Self {
        let declared: Vec<i64> = worlds.iter().flatten().copied().collect();
        let Some(&world) = declared.iter().max() else {
            return RankCheck::default();
        };
        let mut have: Vec<i64> = present.filter(|r| (0..world).contains(r)).collect();
        have.sort_unstable();
        have.dedup();
        // At most `world` ranks are missing; a huge declared world with few files is named by
        // count past the first few, never listed (or allocated) in full.
        let missing_count = world - have.len() as i64;
        let mut missing = Vec::new();
        let mut next = have.iter().peekable();
        let mut r = 0i64;
        while r < world && (missing.len() as i64) < missing_count.min(1 << 20) {
            if next.peek() == Some(&&r) {
                next.next();
            } else {
                missing.push(r);
            }
            r += 1;
        }
        let smallest = declared.iter().min().copied().unwrap_or(world);
        let note = if missing_count > 0 {
            Some(missing_note(input, world, &missing, missing_count))
        } else if smallest != world {
            Some(format!(
                "the files of {} declare different world sizes ({smallest} to {world}); taking {world}",
                input.display()
            ))
        } else {
            None
        };
        RankCheck {
            world_size: Some(world),
            missing,
            note,
        }
    }
}

/// "control/ lacks ranks 3, 7 of its 64 (distributedInfo.world_size): …".
fn missing_note(input: &Path, world: i64, missing: &[i64], count: i64) -> String {
    let mut names: Vec<String> = missing.iter().take(NAMED).map(i64::to_string).collect();
    if count > NAMED as i64 {
        names.push(format!("and {} more", count - NAMED as i64));
    }
    let what = if count == 1 { "rank" } else { "ranks" };
    format!(
        "{} lacks {what} {} of its {world} (distributedInfo.world_size); the side is compared without {}",
        input.display(),
        names.join(", "),
        if count == 1 { "it" } else { "them" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(present: &[i64], worlds: &[Option<i64>]) -> RankCheck {
        RankCheck::new(Path::new("run/"), present.iter().copied(), worlds)
    }

    #[test]
    fn every_rank_present_or_no_world_size_says_nothing() {
        assert_eq!(check(&[0, 1], &[Some(2), Some(2)]).note, None);
        assert_eq!(check(&[0, 5], &[None, None]), RankCheck::default());
        assert_eq!(check(&[0, 1], &[Some(2), None]).missing, Vec::<i64>::new());
    }

    #[test]
    fn missing_ranks_are_named() {
        let c = check(&[0, 1, 3], &[Some(4); 3]);
        assert_eq!(c.missing, vec![2]);
        assert_eq!(
            c.note.unwrap(),
            "run/ lacks rank 2 of its 4 (distributedInfo.world_size); the side is compared without it"
        );
        let c = check(&[0], &[Some(64)]);
        assert_eq!(c.missing.len(), 63);
        assert_eq!(
            c.note.unwrap(),
            "run/ lacks ranks 1, 2, 3, 4, 5, 6, 7, 8, and 55 more of its 64 (distributedInfo.world_size); the side is compared without them"
        );
    }

    #[test]
    fn a_huge_world_size_is_counted_not_listed() {
        let c = check(&[0], &[Some(i64::MAX)]);
        assert_eq!(c.missing.len(), 1 << 20);
        assert!(c.note.unwrap().contains("and 9223372036854775798 more"));
    }

    #[test]
    fn world_sizes_that_disagree_are_noted() {
        let c = check(&[0, 1, 2, 3], &[Some(4), Some(2), Some(4), Some(4)]);
        assert_eq!(c.world_size, Some(4));
        assert!(c.note.unwrap().contains("declare different world sizes (2 to 4)"));
    }
}
