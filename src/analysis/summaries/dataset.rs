//! Writing a summary dataset (docs/summaries.md#datasets): `OUTDIR/run=<label>/rank=<r>.parquet`,
//! Hive-partitioned by run, one summary per rank, each file written whole or not at all. A
//! directory of traces is summarised as one run (read as `compare` reads a side: side by side
//! when there are more files than threads, two files of one rank refused); one trace file is
//! filed under its rank (what a Slurm array task or a Dask worker does).

use crate::analysis::summaries::read::read_summary;
use crate::analysis::summaries::write::save_summary;
use crate::error::{Error, Result};
use crate::input::discover::{RUN_DIR_PREFIX, is_summary_file_name};
use crate::input::guess::Formats;
use crate::input::load::{SummarizeFn, SummarySide, load_side_with};
use crate::input::parser::Parser;
use crate::model::pick::Pick;
use crate::model::summary::FileSummary;
use std::path::{Path, PathBuf};

/// The directory of run `label` inside the dataset `out_dir`.
pub(crate) fn run_dir(out_dir: &Path, label: &str) -> PathBuf {
    out_dir.join(format!("{RUN_DIR_PREFIX}{label}"))
}

/// The file name of rank `rank`'s summary inside a run's directory.
pub(crate) fn rank_file_name(rank: i64) -> String {
    format!("rank={rank}.parquet")
}

/// Refuses a run label that cannot be one directory name: empty, `.` or `..`, or holding a
/// path separator or a control character.
pub(crate) fn check_run_label(label: &str) -> Result<()> {
    let bad = label.is_empty()
        || label == "."
        || label == ".."
        || label.contains(['/', '\\'])
        || label.chars().any(char::is_control);
    if bad {
        return Err(Error::usage(format!(
            "invalid run label '{}': a label is one directory name (not empty, no '/', '\\' or control character)",
            label.escape_debug()
        )));
    }
    Ok(())
}

/// The run label a directory gives: its name (of its absolute path for `.` and the like).
pub(crate) fn label_of_dir(dir: &Path) -> Result<String> {
    let name = match dir.file_name() {
        Some(n) => Some(n.to_os_string()),
        None => std::fs::canonicalize(dir)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_os_string())),
    };
    let label = name
        .and_then(|n| n.into_string().ok())
        .ok_or_else(|| Error::input(dir, "no run label in this directory's name: give --label"))?;
    check_run_label(&label).map_err(|_| Error::input(dir, "no run label in this directory's name: give --label"))?;
    Ok(label)
}

/// Summarises the trace `trace` into the dataset `out_dir` as rank `r` of run `label` (by
/// default the name of the directory holding the trace), and returns the paths written: one,
/// or one per rank of a trace that holds several (an Nsight export or a rocprofv3 JSON of
/// several processes). A file already there that was summarised from another trace is refused, not replaced: two
/// traces of one rank (files without `distributedInfo.rank` are rank 0) would otherwise leave
/// one.
pub(crate) fn summarize_file_into(
    trace: &Path,
    out_dir: &Path,
    label: Option<&str>,
    summarize: &SummarizeFn<'_>,
) -> Result<Vec<PathBuf>> {
    let label = match label {
        Some(l) => l.to_string(),
        None => label_of_dir(
            trace
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
        )?,
    };
    check_run_label(&label)?;
    let summaries = Parser::default().summarize_ranks(trace, summarize)?;
    let paths: Vec<PathBuf> = (summaries.iter())
        .map(|s| run_dir(out_dir, &label).join(rank_file_name(s.rank())))
        .collect();
    // Every rank is checked before any is written.
    for (summary, path) in summaries.iter().zip(&paths) {
        if path.exists()
            && let Ok(there) = read_summary(path)
            && there.meta.source != summary.meta.source
        {
            return Err(Error::input(
                trace,
                format!(
                    "{} already holds rank {} summarised from {} (two traces of one rank? remove it to write it again)",
                    path.display(),
                    summary.rank(),
                    there.meta.source.display()
                ),
            ));
        }
    }
    for (summary, path) in summaries.into_iter().zip(&paths) {
        write_into(summary, &label, path)?;
    }
    Ok(paths)
}

/// Summarises the traces of the directory `dir` as run `label` (by default the directory's
/// name) of the dataset `out_dir`: one file per rank. Returns the paths written, in rank order,
/// and the notes of reading the side (missing ranks, files without a rank). A file of the
/// run's directory that this run does not write (a rank of an earlier, larger run) is refused
/// before anything is written: the dataset would mix two runs.
pub(crate) fn summarize_dir_into(
    dir: &Path,
    out_dir: &Path,
    label: Option<&str>,
    summarize: &SummarizeFn<'_>,
) -> Result<(Vec<PathBuf>, Vec<String>)> {
    let label = match label {
        Some(l) => l.to_string(),
        None => label_of_dir(dir)?,
    };
    check_run_label(&label)?;
    let formats = Formats::builtin();
    let scan = |parser: &Parser, p: &Path, steps: bool| formats.of(p)?.scan_ranks(parser, p, steps, None);
    let load = |parser: &Parser, p: &Path| parser.summarize_ranks(p, summarize);
    let side: SummarySide = load_side_with(&Parser::default(), (dir, None), &[&Pick::All], false, &load, &scan)?;
    let run = run_dir(out_dir, &label);
    let paths: Vec<PathBuf> = side.files.iter().map(|f| run.join(rank_file_name(f.rank()))).collect();
    refuse_strangers(&run, &paths)?;
    for (file, path) in side.files.iter().zip(&paths) {
        write_into(FileSummary::clone(file), &label, path)?;
    }
    Ok((paths, side.notes))
}

/// Summarises a directory of runs (`control/run1/ … runN/`, as compare reads them; `runs` are
/// its subdirectories, in order) into the dataset `out_dir`: one run per subdirectory,
/// labelled by its name (`--label` is refused: the runs have their own), each as
/// [`summarize_dir_into`] writes it.
pub(crate) fn summarize_runs_into(
    dir: &Path,
    runs: &[PathBuf],
    out_dir: &Path,
    label: Option<&str>,
    summarize: &SummarizeFn<'_>,
) -> Result<(Vec<PathBuf>, Vec<String>)> {
    if label.is_some() {
        return Err(Error::input(
            dir,
            "a directory of runs: each run is labelled by its directory's name, so --label does not apply (give one run's directory to label it)",
        ));
    }
    let (mut written, mut notes) = (Vec::new(), Vec::new());
    for run in runs {
        let (w, n) = summarize_dir_into(run, out_dir, None, summarize)?;
        written.extend(w);
        notes.extend(n);
    }
    Ok((written, notes))
}

/// Refuses a summary in the run's directory `run` that is not among `paths`.
fn refuse_strangers(run: &Path, paths: &[PathBuf]) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(run) else {
        return Ok(());
    };
    let mut strangers: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| is_summary_file_name(p.as_os_str()) && !paths.contains(p))
        .collect();
    strangers.sort();
    match strangers.first() {
        None => Ok(()),
        Some(first) => Err(Error::input(
            run,
            format!(
                "this run's directory already holds {} summar{} of ranks the traces do not have ({}{}): remove {} or write to another directory",
                strangers.len(),
                if strangers.len() == 1 { "y" } else { "ies" },
                first.display(),
                if strangers.len() > 1 { ", …" } else { "" },
                if strangers.len() == 1 { "it" } else { "them" }
            ),
        )),
    }
}

/// Writes `summary` as run `label` at `path` (its directories made first).
fn write_into(mut summary: FileSummary, label: &str, path: &Path) -> Result<()> {
    summary.meta.run = Some(label.to_string());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| Error::Output {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    save_summary(&summary, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_one_directory_name() {
        for good in ["control", "run 1", "a=b", "ünï"] {
            assert!(check_run_label(good).is_ok(), "{good}");
        }
        for bad in ["", ".", "..", "a/b", "a\\b", "a\nb"] {
            assert!(check_run_label(bad).is_err(), "{bad:?}");
        }
        assert_eq!(label_of_dir(Path::new("runs/control/")).unwrap(), "control");
        assert!(!label_of_dir(Path::new(".")).unwrap().is_empty());
        assert_eq!(
            run_dir(Path::new("ds"), "a").join(rank_file_name(3)),
            Path::new("ds/run=a/rank=3.parquet")
        );
    }
}
