//! Each loaded trace's graph replays joined to their capture (docs/graphs.md#graph-replays):
//! where the capture is (the side's `--capture` file or folder, else a `capture_traces/`
//! folder beside the trace, else the trace itself), reading it, and the notes that say what
//! was joined or why not.

use crate::error::{Error, Result};
use crate::input::attrs::AttrRequest;
use crate::input::discover::discover;
use crate::input::load::load_file;
use crate::model::graph_join::graph_join;
use crate::model::graphs::{GraphJoin, attr_specs};
use crate::model::store::TraceFile;
use std::path::{Path, PathBuf};

/// The folder servers write captures to, beside the replay trace (vLLM, SGLang).
pub(crate) const CAPTURE_FOLDER: &str = "capture_traces";

/// Whether a trace file's name names rank `rank` (`…rank_0.…`, `…rank0_…`, `…rank-0.…`).
fn names_rank(name: &str, rank: i64) -> bool {
    let name = name.to_ascii_lowercase();
    ["rank_", "rank", "rank-"].iter().any(|p| {
        let at = format!("{p}{rank}");
        name.match_indices(&at)
            .any(|(i, _)| !name[i + at.len()..].starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// The capture trace of rank `rank` in `path`: the file itself, or in a folder its only trace
/// or the one whose name names the rank. `Err` says why none can be chosen.
fn capture_in(path: &Path, rank: i64) -> Result<PathBuf> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let files = discover(path)?;
    if let [one] = files.as_slice() {
        return Ok(one.clone());
    }
    let named: Vec<&PathBuf> = files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| names_rank(&n.to_string_lossy(), rank)))
        .collect();
    match named.as_slice() {
        [one] => Ok((*one).clone()),
        _ => Err(Error::input(
            path,
            format!(
                "{} capture traces and {} whose name names rank {rank}: give the file",
                files.len(),
                named.len()
            ),
        )),
    }
}

/// Whether `file` replays a graph: a graph launch call is among its names.
fn replays_graphs(file: &TraceFile) -> bool {
    file.strings
        .iter()
        .any(|(_, s)| crate::model::owners::GRAPH_LAUNCHES.contains(&s))
}

/// Joins every file's graph replays to its capture and returns the notes: `given` is the
/// side's `--capture` (read errors are then errors); otherwise a `capture_traces/` folder beside
/// the trace (a capture that cannot be read is a note) or a capture inside the trace.
pub(crate) fn join_captures(files: &[&TraceFile], given: Option<&Path>, label: &str) -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for file in files {
        if file.graphs.get().is_some() || !replays_graphs(file) {
            continue;
        }
        let beside = file
            .path
            .parent()
            .map(|p| p.join(CAPTURE_FOLDER))
            .filter(|p| p.is_dir());
        let capture = match (given, beside) {
            (Some(g), _) => Some(read_capture(g, file.rank())?),
            (None, Some(b)) => match read_capture(&b, file.rank()) {
                Ok(c) => Some(c),
                Err(e) => {
                    notes.push(format!("{label}: graph replays not joined: {e}"));
                    None
                }
            },
            (None, None) => None,
        };
        let join = graph_join(file, capture.as_ref().map(|(f, p)| (f, p.clone())));
        notes.extend(join_note(&join, file, label));
        let _ = file.graphs.set(join);
    }
    Ok(notes)
}

/// Reads the capture trace of rank `rank` at `path` with what a join reads.
fn read_capture(path: &Path, rank: i64) -> Result<(TraceFile, PathBuf)> {
    let file = capture_in(path, rank)?;
    let attrs = AttrRequest {
        specs: attr_specs(true),
        ..AttrRequest::default()
    };
    Ok((load_file(&file, &attrs)?, file))
}

/// What the join of one file did, for the user.
fn join_note(join: &GraphJoin, file: &TraceFile, label: &str) -> Option<String> {
    let from = join.capture_path.as_ref()?;
    let from = if join.in_trace {
        "the capture inside the trace".to_string()
    } else {
        format!("capture {}", from.display())
    };
    let rank = file.rank();
    Some(match &join.refused {
        Some(why) => format!(
            "{label}: rank {rank}: graph replays not joined to {from}: {why}; the replayed kernels keep the owners of the replay"
        ),
        None => format!(
            "{label}: rank {rank}: {} graph launches joined to {from}: {} replayed kernels take the captured launches' operators",
            join.graph_launches,
            join.joined.len()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_name_their_rank() {
        assert!(names_rank(
            "graph_capture_rank_0.1773709679453551615.pt.trace.json.gz",
            0
        ));
        assert!(!names_rank("graph_capture_rank_10.pt.trace.json.gz", 1));
        assert!(names_rank("rank1_trace.json", 1));
        assert!(!names_rank("trace.json", 0));
    }
}
