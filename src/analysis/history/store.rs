//! A history store (docs/history.md#the-store): a directory of run summaries, one run per
//! entry, laid out `STORE/run=<seq>/rank=<r>.parquet` (Hive partitioning: DuckDB, pandas and
//! pyarrow read `run` as a column), each run's `run.jsonl` (one line: its label, time, branch,
//! `k=v` metadata and the tracediff that added it), `STORE/runs.csv` (the runs table, every
//! run's line, for SQL and pandas) and `STORE/history.toml` (what the directory is).
//!
//! An entry lands whole or not at all: it is written into a directory of its own and renamed
//! to `run=<seq>` (`output::history` writes it). This module reads a store: each run's
//! directory and its `run.jsonl` are the truth (the runs table is their copy); an entry that
//! cannot be read is named in a note and skipped, never read as something else.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file that says a directory is a history store, and of which version.
pub(crate) const MARKER: &str = "history.toml";
/// The runs table: one line per run, written again after each append.
pub(crate) const RUNS_TABLE: &str = "runs.csv";
/// Each run's own line, inside its directory.
pub(crate) const RUN_META: &str = "run.jsonl";
/// What [`MARKER`] names the format.
pub(crate) const FORMAT: &str = "tracediff-history";
/// The store's layout version this tracediff writes and reads.
pub(crate) const VERSION: u32 = 1;
/// The prefix of an entry being written (renamed to `run=<seq>` once whole).
pub(crate) const INCOMING_PREFIX: &str = ".incoming-";
/// The digits of a run's directory name (`run=000012`), so that names sort as numbers.
pub(crate) const SEQ_DIGITS: usize = 6;

/// One run of the store, as its `run.jsonl` says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunEntry {
    /// Its number in the store: 1 for the first, each append one more than the largest.
    pub seq: u64,
    /// What the user named it (a commit id): unique in the store.
    pub label: String,
    /// When it was added, RFC 3339 in UTC (`2026-05-01T12:00:00Z`).
    pub time: String,
    /// The branch it was recorded on, where given.
    #[serde(default)]
    pub branch: Option<String>,
    /// `k=v` metadata given on adding it, by key.
    #[serde(default)]
    pub meta: BTreeMap<String, String>,
    /// The version of tracediff that added it.
    pub tool_version: String,
    /// The ranks stored, one `rank=<r>.parquet` each.
    pub ranks: Vec<i64>,
    /// What it was added from, as given.
    pub source: String,
}

/// A run of the store and where its summaries lie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRun {
    /// Its line.
    pub entry: RunEntry,
    /// Its directory (`STORE/run=<seq>`).
    pub dir: PathBuf,
}

/// A store as read: its runs in seq order and the notes of reading it (entries skipped).
#[derive(Debug, Clone)]
pub struct Store {
    /// The store's directory.
    pub root: PathBuf,
    /// Every readable run, by seq.
    pub runs: Vec<StoredRun>,
    /// Entries that could not be read, each named with why.
    pub notes: Vec<String>,
}

/// The directory name of run `seq`.
pub(crate) fn run_dir_name(seq: u64) -> String {
    format!("run={seq:0width$}", width = SEQ_DIGITS)
}

/// The seq a directory name holds (`run=000012` → 12), if it is a run's.
pub(crate) fn seq_of_dir_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("run=")?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The marker's text for a new store.
pub(crate) fn marker_text() -> String {
    format!(
        "# A tracediff history store: run=<seq>/rank=<r>.parquet, run=<seq>/run.jsonl, runs.csv.\n\
         format = \"{FORMAT}\"\nversion = {VERSION}\n"
    )
}

#[derive(Deserialize)]
struct Marker {
    format: String,
    version: u32,
}

/// Checks the marker of the store `root`: a store of this format and version.
fn check_marker(root: &Path) -> Result<()> {
    let path = root.join(MARKER);
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::input(
            root,
            format!(
                "not a tracediff history store: no readable {MARKER} ({}); `tracediff history add` makes one in a new or empty directory",
                crate::error::io_reason(&e)
            ),
        )
    })?;
    let marker: Marker = toml::from_str(&text).map_err(|_| {
        Error::input(
            &path,
            format!("not a tracediff history store's {MARKER} (no format and version)"),
        )
    })?;
    if marker.format != FORMAT {
        return Err(Error::input(
            &path,
            format!(
                "a store of another tool ('{}'), not a tracediff history store",
                marker.format
            ),
        ));
    }
    if marker.version != VERSION {
        return Err(Error::input(
            &path,
            format!(
                "history store version {}, this tracediff reads version {VERSION}",
                marker.version
            ),
        ));
    }
    Ok(())
}

/// What `root` is before an append: `Ok(false)` a store, `Ok(true)` a directory to make one
/// in (absent, or empty); an error for anything else (a file, a directory of other things, a
/// store of another tool or version).
pub(crate) fn check_for_append(root: &Path) -> Result<bool> {
    match std::fs::metadata(root) {
        Err(_) => return Ok(true),
        Ok(m) if !m.is_dir() => {
            return Err(Error::input(root, "a history store is a directory, and this is a file"));
        }
        Ok(_) => {}
    }
    // What appends leave before the marker is written (the lock, temporary files) is no content.
    let empty = std::fs::read_dir(root)
        .map_err(|e| Error::input(root, format!("cannot list: {}", crate::error::io_reason(&e))))?
        .flatten()
        .all(|e| e.file_name().to_string_lossy().starts_with('.'));
    if empty {
        return Ok(true);
    }
    check_marker(root)?;
    Ok(false)
}

/// Reads the store `root`: every run whose directory and `run.jsonl` are readable and agree,
/// by seq; the others named in [`Store::notes`] and left out.
pub(crate) fn open(root: &Path) -> Result<Store> {
    if root.is_file() {
        return Err(Error::input(root, "a history store is a directory, and this is a file"));
    }
    if !root.exists() {
        return Err(Error::input(
            root,
            "no history store here: `tracediff history add STORE RUN --label L` makes one",
        ));
    }
    check_marker(root)?;
    let entries = std::fs::read_dir(root)
        .map_err(|e| Error::input(root, format!("cannot list: {}", crate::error::io_reason(&e))))?;
    let mut dirs: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            seq_of_dir_name(&name).map(|s| (s, e.path()))
        })
        .collect();
    dirs.sort();
    let mut store = Store {
        root: root.to_path_buf(),
        runs: Vec::new(),
        notes: Vec::new(),
    };
    let mut labels: BTreeMap<String, u64> = BTreeMap::new();
    for (seq, dir) in dirs {
        match read_entry(seq, &dir) {
            Ok(entry) => {
                if let Some(first) = labels.get(&entry.label) {
                    store.notes.push(format!(
                        "history: {} skipped: its label '{}' is run {first}'s too",
                        dir.display(),
                        entry.label
                    ));
                    continue;
                }
                labels.insert(entry.label.clone(), seq);
                store.runs.push(StoredRun { entry, dir });
            }
            Err(why) => store.notes.push(format!("history: {} skipped: {why}", dir.display())),
        }
    }
    Ok(store)
}

/// Run `seq`'s line, checked against its directory: the seq it names, and a summary for each
/// rank it lists.
fn read_entry(seq: u64, dir: &Path) -> std::result::Result<RunEntry, String> {
    let path = dir.join(RUN_META);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read its {RUN_META} ({})", crate::error::io_reason(&e)))?;
    let entry: RunEntry =
        serde_json::from_str(text.trim()).map_err(|e| format!("its {RUN_META} is not a run's line ({e})"))?;
    if entry.seq != seq {
        return Err(format!("its {RUN_META} names run {}", entry.seq));
    }
    if entry.ranks.is_empty() {
        return Err("it lists no rank".to_string());
    }
    for rank in &entry.ranks {
        let file = dir.join(crate::analysis::history::rank_file_name(*rank));
        if !file.is_file() {
            return Err(format!("rank {rank}'s summary is missing"));
        }
    }
    Ok(entry)
}

impl Store {
    /// The runs of branch `branch` (every run where `None`), by seq.
    pub fn on_branch(&self, branch: Option<&str>) -> Vec<&StoredRun> {
        self.runs
            .iter()
            .filter(|r| branch.is_none_or(|b| r.entry.branch.as_deref() == Some(b)))
            .collect()
    }

    /// The largest seq of a run's directory, readable or not (so that a new run never takes
    /// the number of one skipped).
    pub fn max_seq_on_disk(root: &Path) -> u64 {
        std::fs::read_dir(root)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| seq_of_dir_name(&e.file_name().to_string_lossy()))
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0)
    }
}

/// A moment as RFC 3339 in UTC, to the second.
pub(crate) fn rfc3339(time: std::time::SystemTime) -> String {
    let secs = time
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_times() {
        assert_eq!(run_dir_name(12), "run=000012");
        assert_eq!(seq_of_dir_name("run=000012"), Some(12));
        assert_eq!(seq_of_dir_name("run=abc"), None);
        assert_eq!(seq_of_dir_name("run="), None);
        assert_eq!(seq_of_dir_name(".incoming-1"), None);
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        assert_eq!(rfc3339(t), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(std::time::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }
}
