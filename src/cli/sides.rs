//! The sides of a command as the command line gives them (docs/commands.md#the-runs-of-a-side):
//! CONTROL and TEST as paths (a run, or a directory of runs), or a side's runs given one by one
//! with `--control-run` / `--test-run` (`--baseline-run` / `--candidate-run` for the gate) in
//! place of its path.

use crate::error::{Error, Result};
use crate::request::side::{PerSide, SideId, SidePaths};
use clap::Args;
use std::path::PathBuf;

/// The runs of each side given one by one, in place of CONTROL or TEST.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Sides")]
pub(crate) struct GivenRuns {
    /// One run of the control side, in place of CONTROL (repeat it for a side of several runs,
    /// in the order given; a run is a trace file or a directory of one run's traces).
    #[arg(long = "control-run", value_name = "RUN")]
    pub control_run: Vec<PathBuf>,
    /// One run of the test side, in place of TEST (repeatable, as --control-run).
    #[arg(long = "test-run", value_name = "RUN")]
    pub test_run: Vec<PathBuf>,
}

/// The names a command gives its sides: the positionals and the run options.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SideNames {
    /// The positionals (`CONTROL`, `TEST`).
    pub paths: PerSide<&'static str>,
    /// The options that give runs one by one (`--control-run`, `--test-run`).
    pub runs: PerSide<&'static str>,
}

/// `CONTROL`/`TEST` and `--control-run`/`--test-run`.
pub(crate) const PAIR: SideNames = SideNames {
    paths: PerSide {
        control: "CONTROL",
        test: "TEST",
    },
    runs: PerSide {
        control: "--control-run",
        test: "--test-run",
    },
};

/// The gate's `BASELINE`/`CANDIDATE` and `--baseline-run`/`--candidate-run`.
pub(crate) const GATE: SideNames = SideNames {
    paths: PerSide {
        control: "BASELINE",
        test: "CANDIDATE",
    },
    runs: PerSide {
        control: "--baseline-run",
        test: "--candidate-run",
    },
};

impl GivenRuns {
    /// The two sides from the paths given on the command line, in the order clap read them,
    /// and these runs: a side given by runs takes no path, so the paths fill the other sides in
    /// order (`--control-run a --control-run b TEST`). `None` for a side given neither way.
    pub(crate) fn sides(&self, paths: [Option<&PathBuf>; 2]) -> Result<[Option<SidePaths>; 2]> {
        sides(paths, [&self.control_run, &self.test_run], PAIR)
    }

    /// Both sides, each given one way or the other (a command that compares two sides).
    pub(crate) fn pair(&self, paths: [Option<&PathBuf>; 2]) -> Result<[SidePaths; 2]> {
        both(self.sides(paths)?, PAIR)
    }
}

/// The sides from `paths` (in the order given: clap's positionals) and the runs given one by
/// one per side (control, test).
pub(crate) fn sides(
    paths: [Option<&PathBuf>; 2],
    runs: [&[PathBuf]; 2],
    names: SideNames,
) -> Result<[Option<SidePaths>; 2]> {
    let runs = PerSide::from(runs);
    let mut given = paths.into_iter().flatten();
    let out = PerSide::default().try_map(|id, _: Option<SidePaths>| match runs[id] {
        [] => Ok(given.next().map(|p| SidePaths::Path(p.clone()))),
        some => crate::analysis::load::runs::given_runs(some.to_vec(), names.runs[id]).map(Some),
    })?;
    if let Some(extra) = given.next() {
        let by_runs: Vec<&str> = runs
            .iter()
            .filter(|(_, r)| !r.is_empty())
            .map(|(id, _)| names.runs[id])
            .collect();
        return Err(Error::usage(format!(
            "{}: a path too many: {} gives its side's runs in place of a path, so the paths given name {}",
            extra.display(),
            by_runs.join(" and "),
            if by_runs.len() == 2 {
                "no side".to_string()
            } else {
                format!("{} only", names.paths.test)
            }
        )));
    }
    crate::analysis::load::layout::check_side_folders(out.as_ref().map(|s| s.as_ref()), names.paths)?;
    Ok(out.into_array())
}

/// Both sides of a pair, each given as a path or as runs.
pub(crate) fn both(sides: [Option<SidePaths>; 2], names: SideNames) -> Result<[SidePaths; 2]> {
    match sides {
        [Some(c), Some(t)] => Ok([c, t]),
        [c, _] => {
            let k = if c.is_some() { SideId::Test } else { SideId::Control };
            Err(Error::usage(format!(
                "give the {} side: {} (a run or a directory of runs), or {} for each of its runs",
                names.paths[k].to_lowercase(),
                names.paths[k],
                names.runs[k]
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(c: &[&str], t: &[&str]) -> GivenRuns {
        GivenRuns {
            control_run: c.iter().map(PathBuf::from).collect(),
            test_run: t.iter().map(PathBuf::from).collect(),
        }
    }

    #[test]
    fn paths_fill_the_sides_not_given_by_runs() {
        let (a, b) = (PathBuf::from("a"), PathBuf::from("b"));
        let pair = runs(&[], &[]).pair([Some(&a), Some(&b)]).unwrap();
        assert_eq!(pair, [SidePaths::from("a"), SidePaths::from("b")]);
        // `--control-run r1 --control-run r2 a`: `a` is TEST.
        let pair = runs(&["r1", "r2"], &[]).pair([Some(&a), None]).unwrap();
        assert_eq!(
            pair,
            [SidePaths::Runs(vec!["r1".into(), "r2".into()]), SidePaths::from("a")]
        );
        let pair = runs(&[], &["t1", "t2"]).pair([Some(&a), None]).unwrap();
        assert_eq!(pair[0], SidePaths::from("a"));
        // One run given is that run.
        let pair = runs(&["r1"], &["t1"]).pair([None, None]).unwrap();
        assert_eq!(pair, [SidePaths::from("r1"), SidePaths::from("t1")]);
    }

    #[test]
    fn a_side_given_twice_or_not_at_all_is_refused() {
        let (a, b) = (PathBuf::from("a"), PathBuf::from("b"));
        let e = runs(&["r1", "r2"], &[]).pair([Some(&a), Some(&b)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "b: a path too many: --control-run gives its side's runs in place of a path, so the paths given name TEST only"
        );
        let e = runs(&[], &["t1", "t2"]).pair([None, None]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "give the control side: CONTROL (a run or a directory of runs), or --control-run for each of its runs"
        );
        let alone = runs(&["r1", "r2"], &[]).sides([None, None]).unwrap();
        assert!(alone[1].is_none());
    }
}
