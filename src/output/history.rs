//! Appending a run to a history store (docs/history.md#the-store): the run's summaries and its
//! `run.jsonl` are written into a directory of their own inside the store (`.incoming-<seq>`,
//! its files named `.part` until each is whole), which is renamed to `run=<seq>` in one step,
//! then the runs table is written again. The append holds the store's lock (`.lock`, an
//! exclusive file lock the system drops with the process) from choosing its seq to writing the
//! table, so two appends at once take two seqs and both land; a killed append leaves its
//! `.incoming-` directory, which no reader reads and the next append removes.

use crate::analysis::history::store::{
    INCOMING_PREFIX, MARKER, RUN_META, RUNS_TABLE, RunEntry, Store, check_for_append, marker_text, open, run_dir_name,
};
use crate::error::{Error, Result};
use crate::model::summary::FileSummary;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What is said of a run on adding it.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewRun {
    /// Its label (a commit id): unique in the store.
    pub label: String,
    /// The branch it was recorded on.
    pub branch: Option<String>,
    /// `k=v` metadata.
    pub meta: BTreeMap<String, String>,
    /// What it was added from, as given.
    pub source: String,
    /// When, RFC 3339 (now where `None`).
    pub time: Option<String>,
}

fn output_error(path: &Path, source: std::io::Error) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        source,
    }
}

/// Appends the run of `summaries` (one per rank) to the store `root`, making the store where
/// `root` is absent or empty. Returns the run's line. A label the store already has is refused.
pub(crate) fn append(root: &Path, summaries: Vec<FileSummary>, new: NewRun) -> Result<RunEntry> {
    crate::analysis::summaries::dataset::check_run_label(&new.label)?;
    if summaries.is_empty() {
        return Err(Error::input(&new.source, "no trace or summary to add"));
    }
    // Checked before anything is made, then again under the lock (two first appends at once).
    check_for_append(root)?;
    std::fs::create_dir_all(root).map_err(|e| output_error(root, e))?;
    let _lock = lock(root)?;
    if check_for_append(root)? {
        crate::atomic::write_atomically(&root.join(MARKER), |w| w.write_all(marker_text().as_bytes()))?;
    }
    remove_leftovers(root);
    let store = open(root)?;
    if let Some(run) = store.runs.iter().find(|r| r.entry.label == new.label) {
        return Err(Error::input(
            root,
            format!(
                "the history already has a run labelled '{}' ({}): labels are unique (a commit recorded twice? give it another label)",
                new.label,
                run.dir.display()
            ),
        ));
    }
    let seq = Store::max_seq_on_disk(root) + 1;
    let mut ranks: Vec<i64> = summaries.iter().map(FileSummary::rank).collect();
    ranks.sort_unstable();
    let entry = RunEntry {
        seq,
        label: new.label,
        time: new
            .time
            .unwrap_or_else(|| crate::analysis::history::store::rfc3339(std::time::SystemTime::now())),
        branch: new.branch,
        meta: new.meta,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        ranks,
        source: new.source,
    };
    let incoming = root.join(format!("{INCOMING_PREFIX}{seq}"));
    write_entry(&incoming, &entry, summaries)?;
    let dir = root.join(run_dir_name(seq));
    std::fs::rename(&incoming, &dir).map_err(|e| output_error(&dir, e))?;
    sync_dir(root);
    let mut entries: Vec<&RunEntry> = store.runs.iter().map(|r| &r.entry).collect();
    entries.push(&entry);
    write_runs_table(&root.join(RUNS_TABLE), &entries)?;
    Ok(entry)
}

/// The store's lock, held until dropped.
fn lock(root: &Path) -> Result<std::fs::File> {
    let path = root.join(".lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| output_error(&path, e))?;
    file.lock().map_err(|e| output_error(&path, e))?;
    Ok(file)
}

/// Removes what killed appends left (under the lock: no append is writing one now).
fn remove_leftovers(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(INCOMING_PREFIX) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Writes the run's summaries and line into `dir`, each file whole before it takes its name.
fn write_entry(dir: &Path, entry: &RunEntry, summaries: Vec<FileSummary>) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| output_error(dir, e))?;
    let mut parts: Vec<(PathBuf, PathBuf)> = Vec::new();
    for mut summary in summaries {
        summary.meta.run = Some(run_dir_name(entry.seq).trim_start_matches("run=").to_string());
        let name = crate::analysis::history::rank_file_name(summary.rank());
        let (part, whole) = (dir.join(format!("{name}.part")), dir.join(name));
        crate::analysis::summaries::write::save_summary(&summary, &part)?;
        parts.push((part, whole));
    }
    let line = serde_json::to_string(entry).map_err(|e| output_error(dir, std::io::Error::other(e)))?;
    crate::atomic::write_atomically(&dir.join(RUN_META), |w| writeln!(w, "{line}"))?;
    for (part, whole) in parts {
        std::fs::rename(&part, &whole).map_err(|e| output_error(&whole, e))?;
    }
    sync_dir(dir);
    Ok(())
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// The runs table's header.
pub(crate) const RUNS_TABLE_HEADER: &str = "seq,label,time,branch,meta,tool_version,ranks,source";

/// The runs table of `entries` as CSV: one line per run (`meta` a JSON object, `ranks` the
/// number of ranks).
pub(crate) fn runs_table_csv(entries: &[&RunEntry]) -> String {
    let mut out = format!("{RUNS_TABLE_HEADER}\n");
    for e in entries {
        let meta = serde_json::to_string(&e.meta).unwrap_or_default();
        let cells = [
            e.seq.to_string(),
            e.label.clone(),
            e.time.clone(),
            e.branch.clone().unwrap_or_default(),
            meta,
            e.tool_version.clone(),
            e.ranks.len().to_string(),
            e.source.clone(),
        ];
        let line: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

fn csv_cell(c: &str) -> String {
    if c.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", c.replace('"', "\"\""))
    } else {
        c.to_string()
    }
}

fn write_runs_table(path: &Path, entries: &[&RunEntry]) -> Result<()> {
    let text = runs_table_csv(entries);
    crate::atomic::write_atomically(path, |w| w.write_all(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runs_table_quotes_what_csv_needs() {
        let e = RunEntry {
            seq: 3,
            label: "c,3".into(),
            time: "2026-01-01T00:00:00Z".into(),
            branch: Some("main".into()),
            meta: BTreeMap::from([("host".to_string(), "a\"b".to_string())]),
            tool_version: "0.1.0".into(),
            ranks: vec![0, 1],
            source: "runs/c3".into(),
        };
        let csv = runs_table_csv(&[&e]);
        assert_eq!(
            csv.lines().nth(1).unwrap(),
            "3,\"c,3\",2026-01-01T00:00:00Z,main,\"{\"\"host\"\":\"\"a\\\"\"b\"\"}\",0.1.0,2,runs/c3"
        );
    }
}
