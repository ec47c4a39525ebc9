//! Runs: a side made of several runs of one program (docs/significance.md#several-runs-per-side).
//!
//! A side directory that holds no trace file of its own but subdirectories that do is a set of
//! runs, one per subdirectory in name order. Each run is selected, aggregated and measured alone;
//! a row's per-step value is its mean over the steps of a run, then over the runs; each run gives
//! one sample per row to the between-run test ([`crate::analysis::measure::replicates`]).

use crate::analysis::aggregate::{Keying, NameTotals, Totals, aggregate};
use crate::analysis::diff::{Comparison, Rate, Row, SideInfo};
use crate::analysis::select::{Device, Resolved, SideSelection, resolve};
use crate::error::Result;
use crate::input::discover::{is_summary_file_name, is_trace_file_name};
use crate::input::load::SummarySide;
use crate::model::pick::Pick;
use crate::request::side::{PerSide, Side, SideId, SidePaths};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The runs of `path` when it is a directory of runs: it holds no trace or summary file of its
/// own, and subdirectories that do (those, in name order). `None` for anything else (a file, a
/// directory of traces, a summary dataset of one run, which is that run; a path that cannot be
/// listed: loading it then says what is wrong).
pub(crate) fn runs_of(path: &Path) -> Option<Vec<PathBuf>> {
    if !path.is_dir() || crate::input::discover::single_dataset_run(path).is_some() {
        return None;
    }
    let holds_traces = |dir: &Path| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name();
                (is_trace_file_name(&name) || is_summary_file_name(&name)) && e.path().is_file()
            })
        })
    };
    if holds_traces(path) {
        return None;
    }
    let mut runs: Vec<PathBuf> = std::fs::read_dir(path)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && holds_traces(p))
        .collect();
    runs.sort();
    (!runs.is_empty()).then_some(runs)
}

impl crate::request::CompareRequest {
    /// Whether a side is runs: a directory of runs (subdirectories that hold traces) or runs
    /// given one by one.
    pub fn compares_runs(&self) -> bool {
        SideId::BOTH.iter().any(|&id| SideRuns::of(self.side(id).paths).is_set)
    }
}

/// One side of a request as runs: the paths given, and each of its runs' paths (the
/// subdirectories of a directory of runs in name order; runs given one by one in the order
/// given; else the path itself, one run). The one answer to "the runs of a side", whichever
/// way they were given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SideRuns {
    /// The paths given for the side.
    pub paths: SidePaths,
    /// Each run's path; never empty.
    pub runs: Vec<PathBuf>,
    /// Whether the side was given as runs (a directory of runs, even of one run, or runs given
    /// one by one).
    pub is_set: bool,
}

impl SideRuns {
    /// The runs of the side given as `paths` ([`runs_of`] where it is one path).
    pub(crate) fn of(paths: &SidePaths) -> SideRuns {
        let runs = match paths {
            SidePaths::Runs(runs) => Some(runs.clone()),
            SidePaths::Path(path) => runs_of(path),
        };
        match runs {
            Some(runs) => SideRuns {
                paths: paths.clone(),
                runs,
                is_set: true,
            },
            None => SideRuns {
                paths: paths.clone(),
                runs: paths.paths().to_vec(),
                is_set: false,
            },
        }
    }
}

/// The side of the runs `paths` given one by one (`label` names the side in messages): one
/// path is that path; none, or a path that is itself a directory of runs, is refused (a run
/// given one by one is one run).
pub fn given_runs(paths: Vec<PathBuf>, label: &str) -> Result<SidePaths> {
    if paths.len() > 1
        && let Some(set) = paths.iter().find(|p| runs_of(p).is_some())
    {
        return Err(crate::error::Error::usage(format!(
            "{label}: {} is a directory of runs, and each path of a list of runs is one run: give the directory \
             alone, or its runs one by one",
            set.display()
        )));
    }
    SidePaths::runs(paths, label)
}

/// What a side of runs is, as headers name it, from what each run's side 0 was
/// (the loaded pair's `side_info`): the path given, every run's files, the
/// first run's selection, and each run's step count (where there are two runs or more).
pub(crate) fn side_info_of_runs(runs: Vec<SideInfo>, label: &str, paths: &SidePaths) -> SideInfo {
    let steps = |s: &SideInfo| s.resolved.iterations.as_ref().map_or(1, |v| v.len().max(1));
    let run_steps: Vec<usize> = if runs.len() > 1 {
        runs.iter().map(steps).collect()
    } else {
        Vec::new()
    };
    let files = runs.iter().flat_map(|r| r.files.iter().cloned()).collect();
    let first = runs.into_iter().next();
    let (resolved, steps_available, ranks_available) = first.map_or_else(
        || {
            (
                Resolved {
                    ranks: Vec::new(),
                    iterations: None,
                },
                0,
                0,
            )
        },
        |f| (f.resolved, f.steps_available, f.ranks_available),
    );
    SideInfo {
        label: label.to_string(),
        path: paths.shown(),
        files,
        resolved,
        steps_available,
        ranks_available,
        run_steps,
    }
}

/// The samples a side's sums are divided by to be per step (docs/semantics.md#ranks): its
/// selected ranks × its selected steps ([`Resolved::iterations`]; a trace read whole is one
/// step), at least 1. Per step is per rank and step, as the mean step time of the footer is
/// the mean of the same rank × step samples: a row and the footer never disagree, and sides of
/// different numbers of ranks compare per rank.
pub(crate) fn steps_of(resolved: &Resolved) -> usize {
    let steps = resolved.iterations.as_ref().map_or(1, |v| v.len().max(1));
    steps * resolved.ranks.len().max(1)
}

/// One run of a side, aggregated: its rows' totals, how many steps they cover, its mean step
/// time, and what was read.
pub(crate) struct Run {
    totals: NameTotals,
    steps: usize,
    mean_step_ns: f64,
    resolved: Resolved,
    files: Vec<String>,
    steps_available: usize,
    ranks_available: usize,
}

impl Run {
    /// Whether the run's steps were selected (`false`: its whole trace counts).
    pub(crate) fn has_steps(&self) -> bool {
        self.resolved.iterations.is_some()
    }

    /// A run aggregated elsewhere (the report aggregates the runs it read with their events):
    /// its rows' totals, what its header names (selection, files, what was available) and its
    /// mean step time (as [`mean_step_ns_of_traces`] measures it).
    pub(crate) fn of_parts(totals: NameTotals, info: SideInfo, mean_step_ns: f64) -> Run {
        Run {
            totals,
            steps: steps_of(&info.resolved),
            mean_step_ns,
            files: info.files,
            steps_available: info.steps_available,
            ranks_available: info.ranks_available,
            resolved: info.resolved,
        }
    }
}

/// One run read as summaries (traces summarised as they load, or summary files) with `sel`
/// resolved (`label` names the side in messages): what `compare` and the gate measure of each
/// run of a side. The traces' steps are named by `marker` (`--step-marker`) when given, as
/// one run's are. The loading's notes are the side's.
pub(crate) fn load_summary_run(
    path: &Path,
    label: &str,
    sel: &SideSelection,
    marker: Option<&regex::Regex>,
) -> Result<(SummarySide, Resolved)> {
    load_summary_run_with(
        path,
        label,
        sel,
        marker,
        &crate::analysis::summaries::summarize::summarize,
    )
}

/// [`load_summary_run`] with the summariser given: compare's runs are summarised without the
/// windows' time breakdown, which its tables do not read.
fn load_summary_run_with(
    path: &Path,
    label: &str,
    sel: &SideSelection,
    marker: Option<&regex::Regex>,
    summarize: &crate::input::load::SummarizeFn<'_>,
) -> Result<(SummarySide, Resolved)> {
    let side: SummarySide = crate::analysis::summaries::load::load_summary_side_marked(
        &crate::input::parser::Parser::default(),
        path,
        &[&sel.ranks],
        sel.iterations == Pick::Lowest,
        marker,
        summarize,
    )?;
    let resolved = resolve(&side, label, sel)?;
    Ok((side, resolved))
}

/// Loads, selects and aggregates one run of a side (`label` names the side in messages), and
/// returns it with its loading notes.
fn load_run(
    path: &Path,
    label: &str,
    sel: &SideSelection,
    (device, keying): (Device, &Keying),
    (marker, whole): (Option<&regex::Regex>, bool),
) -> Result<(Run, Vec<String>)> {
    let (side, mut resolved) = load_summary_run_with(
        path,
        label,
        sel,
        marker,
        &crate::analysis::summaries::summarize::summarize_for_compare,
    )?;
    if whole {
        resolved.iterations = None;
    }
    let totals = aggregate(&side, &resolved, device, keying);
    let mean_step_ns = mean_step_ns(&side, &resolved, device, keying)?;
    let run = Run {
        totals,
        steps: steps_of(&resolved),
        mean_step_ns,
        files: side
            .files
            .iter()
            .filter(|f| {
                resolved
                    .ranks
                    .contains(&crate::input::load::RankedFile::rank(f.as_ref()))
            })
            .map(|f| crate::input::load::RankedFile::source(f.as_ref()).display().to_string())
            .collect(),
        steps_available: side.step_numbers().len(),
        ranks_available: side.ranks().len(),
        resolved,
    };
    Ok((run, side.notes))
}

/// The mean duration of the selected steps (rank × step samples), in ns; 0 without steps.
fn mean_step_ns(side: &SummarySide, resolved: &Resolved, device: Device, keying: &Keying) -> Result<f64> {
    if resolved.iterations.is_none() {
        return Ok(0.0);
    }
    let samples = crate::analysis::measure::per_step::measure(side, resolved, device, keying, true)?;
    let steps: Vec<f64> = samples.step_ns.iter().map(|&s| s as f64).collect();
    Ok(crate::analysis::measure::noise::mean(&steps))
}

/// Every run of `side` ([`SideRuns::of`]: a directory of runs, runs given one by one, else
/// one run), loaded and aggregated in order, with the notes of loading; the steps are named by
/// `step_marker` (`--step-marker`, a regular expression) when given.
pub(crate) fn load_runs(
    side: Side<'_>,
    device: Device,
    keying: &Keying,
    step_marker: Option<&str>,
) -> Result<(Vec<Run>, Vec<String>)> {
    load_runs_whole(side, device, keying, step_marker, false)
}

/// [`load_runs`]; with `whole`, every run is taken whole, its steps and what ran between them
/// (the other side has no steps: [`crate::analysis::select::whole_where_other_has_none`]).
pub(crate) fn load_runs_whole(
    side: Side<'_>,
    device: Device,
    keying: &Keying,
    step_marker: Option<&str>,
    whole: bool,
) -> Result<(Vec<Run>, Vec<String>)> {
    let marker = crate::model::serving::step_marker(step_marker).map_err(crate::error::Error::usage)?;
    let paths = SideRuns::of(side.paths).runs;
    let mut runs = Vec::with_capacity(paths.len());
    let mut notes = Vec::new();
    for p in &paths {
        let (run, run_notes) = load_run(
            p,
            side.label,
            side.selection,
            (device, keying),
            (marker.as_ref(), whole),
        )?;
        notes.extend(run_notes);
        runs.push(run);
    }
    Ok((runs, notes))
}

/// The note given where one run per side was judged: what step-to-step noise cannot tell.
pub(crate) const ONE_RUN_NOTE: &str = "one run per side: significant is judged against the scatter of steps inside each run, \
     which a rerun of the same program can exceed; record several runs per side (control/run1/ … runN/) for a \
     verdict between runs (docs/significance.md#several-runs-per-side)";

/// Turns the rows of a one-run comparison into per-step values where a side used more than one
/// step (its sums ÷ its selected steps), and sets each side's mean step time for the footer.
pub(crate) fn per_step_one_run(
    (device, keying): (Device, &Keying),
    control: &SummarySide,
    test: &SummarySide,
    comparison: &mut Comparison,
) -> Result<()> {
    // One step a side: the rows are already that step's values, and the footer still gives
    // the step times rather than the rows' sums (rows nest: their sum is no time of anything).
    per_step_rows(comparison);
    let mut step_ns = [0.0; 2];
    for (k, (side, resolved)) in [
        (control, &comparison.control.resolved),
        (test, &comparison.test.resolved),
    ]
    .into_iter()
    .enumerate()
    {
        step_ns[k] = mean_step_ns(side, resolved, device, keying)?;
    }
    comparison.step_ns = step_ns.iter().all(|&s| s > 0.0).then_some(step_ns);
    Ok(())
}

/// Gives the rows of a one-run comparison their per-step values where a side used more than
/// one step; whether it did. The caller sets the sides' mean step times.
pub(crate) fn per_step_rows(comparison: &mut Comparison) -> bool {
    let n = PerSide::new(
        steps_of(&comparison.control.resolved),
        steps_of(&comparison.test.resolved),
    );
    if n == PerSide::new(1, 1) {
        return false;
    }
    let rate = |t: &Totals, steps: usize| Rate {
        count: t.count as f64 / steps as f64,
        dur_ns: t.dur_ns as f64 / steps as f64,
    };
    for row in &mut comparison.rows {
        row.per_step = Some([rate(&row.control, n.control), rate(&row.test, n.test)]);
    }
    true
}

/// The mean duration of the selected steps of a side's parsed files (every selected rank's),
/// in ns; 0 without steps: the mean step time of traces read whole (`--group-by`).
pub(crate) fn mean_step_ns_of_traces(files: &[&crate::model::store::TraceFile], resolved: &Resolved) -> f64 {
    let Some(its) = &resolved.iterations else { return 0.0 };
    let selected = crate::analysis::select::Selected::new(Some(its));
    let steps: Vec<f64> = files
        .iter()
        .flat_map(|f| f.step_durations_ns(|n| selected.admits(n)))
        .map(|ns| ns as f64)
        .collect();
    crate::analysis::measure::noise::mean(&steps)
}

/// The rows of two sides of runs, judged between runs ([`crate::analysis::measure::replicates::judge`]:
/// where both sides have two runs or more), per step unless `totals`; each side's mean step
/// time (the mean over its runs); and a note where a side has too few runs to judge.
pub(crate) fn judge_runs(
    sides: PerSide<&[Run]>,
    totals: bool,
    labels: PerSide<&str>,
) -> (Vec<Row>, PerSide<f64>, Option<String>) {
    let (mut rows, samples) = rows_of(sides.control, sides.test);
    let mean_step =
        |runs: &[Run]| crate::analysis::measure::noise::mean(&runs.iter().map(|r| r.mean_step_ns).collect::<Vec<_>>());
    let step_ns = sides.map(mean_step);
    let floor = crate::analysis::measure::noise::MIN_STEP_SHARE * step_ns.control;
    let marks = crate::analysis::measure::replicates::judge(&samples, floor);
    for (r, m) in rows.iter_mut().zip(marks) {
        r.significant = m;
        if totals {
            r.per_step = None;
        }
    }
    let runs = sides.map(<[Run]>::len);
    let note = runs
        .iter()
        .any(|(_, &n)| n < crate::analysis::measure::replicates::MIN_RUNS)
        .then(|| {
            format!(
                "significant is null: the test between runs needs {} or more runs per side; {} has {}, {} {}",
                crate::analysis::measure::replicates::MIN_RUNS,
                labels.control,
                runs.control,
                labels.test,
                runs.test
            )
        });
    (rows, step_ns, note)
}

/// The rows of two sides of runs, sorted by name: totals summed over runs, per-step values
/// averaged per run then over runs; and per row its samples (per-step time of each run).
fn rows_of(control: &[Run], test: &[Run]) -> (Vec<Row>, Vec<crate::analysis::measure::replicates::RowSamples>) {
    let mut names: BTreeMap<&str, ()> = BTreeMap::new();
    for run in control.iter().chain(test) {
        names.extend(run.totals.keys().map(|k| (k.as_str(), ())));
    }
    let mut rows = Vec::with_capacity(names.len());
    let mut samples = Vec::with_capacity(names.len());
    for name in names.into_keys() {
        let side = |runs: &[Run]| {
            let mut total = Totals::default();
            let mut rate = Rate::default();
            let mut per_run = Vec::with_capacity(runs.len());
            let mut counts = Vec::with_capacity(runs.len());
            for run in runs {
                let t = run.totals.get(name).copied().unwrap_or_default();
                total.add(t);
                let steps = run.steps as f64;
                rate.count += t.count as f64 / steps / runs.len() as f64;
                rate.dur_ns += t.dur_ns as f64 / steps / runs.len() as f64;
                per_run.push(t.dur_ns as f64 / steps);
                counts.push(t.count as f64 / steps);
            }
            (total, rate, per_run, counts)
        };
        let (c_total, c_rate, c_runs, c_counts) = side(control);
        let (t_total, t_rate, t_runs, t_counts) = side(test);
        rows.push(Row {
            name: name.to_string(),
            control: c_total,
            test: t_total,
            significant: None,
            per_step: Some([c_rate, t_rate]),
        });
        samples.push(crate::analysis::measure::replicates::RowSamples {
            time: [c_runs, t_runs],
            count: [c_counts, t_counts],
            alone: name.starts_with("ProfilerStep"),
        });
    }
    (rows, samples)
}

/// What a side of runs is, as headers name it: the path given, every run's files, the first
/// run's selection, and each run's step count.
pub(crate) fn side_info(runs: &[Run], label: &str, paths: &SidePaths) -> SideInfo {
    let first = &runs[0];
    SideInfo {
        label: label.to_string(),
        path: paths.shown(),
        files: runs.iter().flat_map(|r| r.files.iter().cloned()).collect(),
        resolved: first.resolved.clone(),
        steps_available: first.steps_available,
        ranks_available: first.ranks_available,
        run_steps: if runs.len() > 1 {
            runs.iter().map(|r| r.steps).collect()
        } else {
            Vec::new()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_of_run_directories_is_a_set_of_runs() {
        let dir = std::env::temp_dir().join(format!("tracediff-runs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for run in ["run2", "run1", "empty"] {
            std::fs::create_dir_all(dir.join(run)).unwrap();
        }
        std::fs::write(dir.join("run1/a.json"), "{}").unwrap();
        std::fs::write(dir.join("run2/a.json"), "{}").unwrap();
        assert_eq!(runs_of(&dir), Some(vec![dir.join("run1"), dir.join("run2")]));
        // A run directory itself, or a file, is one run.
        assert_eq!(runs_of(&dir.join("run1")), None);
        assert_eq!(runs_of(&dir.join("run1/a.json")), None);
        // A trace beside the subdirectories: the directory is the run.
        std::fs::write(dir.join("b.json"), "{}").unwrap();
        assert_eq!(runs_of(&dir), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
