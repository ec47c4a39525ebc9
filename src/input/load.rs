//! Loading a side: discover its files, read and parse them in parallel, assign iterations.

use crate::analysis::select::{Pick, SideSelection};
use crate::error::{Error, Result};
use crate::input::attrs::AttrRequest;
use crate::input::discover::discover;
use crate::input::parse::{Header, parse_trace, scan_header};
use crate::input::read::{Compression, open};
use crate::model::iteration::assign_iterations;
use crate::model::store::TraceFile;
use rayon::prelude::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The traces of one side of a comparison, one file per rank, sorted by rank.
#[derive(Debug, Clone)]
pub struct Side {
    /// The path the user gave: a directory or a file.
    pub input: PathBuf,
    /// Every trace file of the side, sorted by rank.
    pub present: Vec<PresentFile>,
    /// The parsed files: all of them, or those of the ranks asked for.
    pub files: Vec<Arc<TraceFile>>,
    /// Things worth telling the user on stderr (not errors).
    pub notes: Vec<String>,
}

/// A trace file of a side, parsed or only scanned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresentFile {
    pub rank: i64,
    pub path: PathBuf,
    /// Its ProfilerStep numbers, when known (always for parsed files).
    pub steps: Option<Vec<i64>>,
}

impl Side {
    /// Ranks present, sorted.
    pub fn ranks(&self) -> Vec<i64> {
        self.present.iter().map(|f| f.rank).collect()
    }

    /// Step numbers found in any file of the side whose steps are known, sorted and unique.
    pub fn step_numbers(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self
            .present
            .iter()
            .filter_map(|f| f.steps.as_ref())
            .flatten()
            .copied()
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn file_of_rank(&self, rank: i64) -> Option<&TraceFile> {
        self.files.iter().find(|f| f.rank() == rank).map(|f| &**f)
    }
}

/// Reads and parses one trace file (with the attributes `attrs` asks for), and assigns its
/// iterations.
pub fn load_file(path: &Path, attrs: &AttrRequest) -> Result<TraceFile> {
    let reader = open(path)?;
    trace_from_reader(reader.inner, path, reader.compression, attrs)
}

/// Parses JSON text from `reader` into a [`TraceFile`] with its iterations assigned.
/// `path` and `compression` only serve error messages and the file's record.
pub fn trace_from_reader(
    reader: impl Read + Send,
    path: &Path,
    compression: Compression,
    attrs: &AttrRequest,
) -> Result<TraceFile> {
    let mut parsed = parse_trace(reader, path, compression, attrs)?;
    let steps = assign_iterations(&parsed.strings, &mut parsed.events);
    Ok(TraceFile {
        path: path.to_path_buf(),
        declared_rank: parsed.declared_rank,
        strings: parsed.strings,
        events: parsed.events,
        attrs: parsed.attrs,
        steps,
        total_events: parsed.total_events,
        json_bytes: parsed.json_bytes,
        memory: parsed.memory,
        flows: parsed.flows,
        devices: parsed.devices,
        device_use: parsed.device_use,
        call_tree: Default::default(),
    })
}

/// Loads every trace file of `input` (a directory or one file).
pub fn load_side(input: &Path, attrs: &AttrRequest) -> Result<Side> {
    load_side_ranks(input, attrs, &[&Pick::All], false)
}

/// Loads the files of `input` whose ranks any of `picks` selects. With several files and a
/// selection narrower than `all`, each file is first scanned only for its rank (up to
/// `traceEvents` when, as usual, `distributedInfo` comes first), and only the selected files are
/// parsed. With `want_steps`, the scan also reads the steps of the other files (every event is
/// read, none stored), for defaults that depend on the whole side (the lowest step).
pub fn load_side_ranks(input: &Path, attrs: &AttrRequest, picks: &[&Pick], want_steps: bool) -> Result<Side> {
    let paths = discover(input)?;
    let everything = paths.len() == 1 || picks.iter().any(|p| **p == Pick::All);
    let (present, files) = if everything {
        let results: Vec<Result<TraceFile>> = paths.par_iter().map(|p| load_file(p, attrs)).collect();
        // The first error in path order, so the message does not depend on scheduling.
        let files = results.into_iter().collect::<Result<Vec<_>>>()?;
        let present: Vec<(Option<i64>, PathBuf, Option<Vec<i64>>)> = files
            .iter()
            .map(|f| (f.declared_rank, f.path.clone(), Some(f.step_numbers())))
            .collect();
        (present, files)
    } else {
        // 1. Each file's rank: its head only, when distributedInfo comes before traceEvents.
        let scans: Vec<Result<Header>> = paths
            .par_iter()
            .map(|p| {
                let r = open(p)?;
                scan_header(r.inner, p, r.compression, false)
            })
            .collect();
        let mut present: Vec<(Option<i64>, PathBuf, Option<Vec<i64>>)> = scans
            .into_iter()
            .zip(&paths)
            .map(|(h, p)| h.map(|h| (h.rank, p.clone(), h.steps)))
            .collect::<Result<_>>()?;
        let lowest = present.iter().map(|(r, _, _)| r.unwrap_or(0)).min();
        let wanted = |rank: i64| {
            picks.iter().any(|p| match p {
                Pick::All => true,
                Pick::Lowest => Some(rank) == lowest,
                Pick::List(v) => v.contains(&rank),
            })
        };
        // 2. Parse the chosen files; with `want_steps`, read the others' steps alongside.
        enum Work {
            Parse(Box<TraceFile>),
            Steps(Vec<i64>),
            Nothing,
        }
        let work: Vec<Result<Work>> = present
            .par_iter()
            .map(|(rank, path, _)| {
                if wanted(rank.unwrap_or(0)) {
                    load_file(path, attrs).map(|f| Work::Parse(Box::new(f)))
                } else if want_steps {
                    let r = open(path)?;
                    let h = scan_header(r.inner, path, r.compression, true)?;
                    Ok(Work::Steps(h.steps.unwrap_or_default()))
                } else {
                    Ok(Work::Nothing)
                }
            })
            .collect();
        let mut files = Vec::new();
        for ((_, _, steps), w) in present.iter_mut().zip(work) {
            match w? {
                Work::Parse(f) => {
                    *steps = Some(f.step_numbers());
                    files.push(*f);
                }
                Work::Steps(s) => *steps = Some(s),
                Work::Nothing => {}
            }
        }
        (present, files)
    };
    let mut present: Vec<(i64, PathBuf, bool, Option<Vec<i64>>)> = present
        .into_iter()
        .map(|(r, p, s)| (r.unwrap_or(0), p, r.is_some(), s))
        .collect();
    present.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    for pair in present.windows(2) {
        if pair[0].0 == pair[1].0 {
            return Err(Error::input(
                input,
                format!(
                    "two trace files with rank {}: {} and {} (pass one file to compare it alone)",
                    pair[0].0,
                    pair[0].1.display(),
                    pair[1].1.display()
                ),
            ));
        }
    }
    let mut notes = Vec::new();
    // Only where ranks matter: a side of one file is that file, whatever its rank.
    if present.len() > 1
        && let Some((_, path, _, _)) = present.iter().find(|(_, _, declared, _)| !declared)
    {
        notes.push(format!(
            "no distributedInfo.rank in {}; taking it as rank 0",
            path.display()
        ));
    }
    let mut files: Vec<Arc<TraceFile>> = files.into_iter().map(Arc::new).collect();
    files.sort_by_key(|f| f.rank());
    if !files.is_empty() && files.iter().all(|f| f.steps.is_empty()) {
        notes.push(format!(
            "no ProfilerStep in {}; comparing the whole trace",
            input.display()
        ));
    }
    Ok(Side {
        input: input.to_path_buf(),
        present: present
            .into_iter()
            .map(|(rank, path, _, steps)| PresentFile { rank, path, steps })
            .collect(),
        files,
        notes,
    })
}

/// The notes of two sides, each once.
pub fn pair_notes(control: &Side, test: &Side) -> Vec<String> {
    let mut notes = control.notes.clone();
    notes.extend(test.notes.iter().filter(|n| !control.notes.contains(n)).cloned());
    notes
}

/// Loads both sides at once; the control side's error wins when both fail. When both sides
/// are the same path (rank against rank in one job), it is read once and shared.
pub fn load_pair(
    control: &Path,
    test: &Path,
    attrs: &AttrRequest,
    selections: (&SideSelection, &SideSelection),
) -> Result<(Arc<Side>, Arc<Side>)> {
    // The lowest step is the lowest of the whole side (as in HTA), so the other ranks' steps
    // are needed; an explicit list is checked against the files that are read anyway.
    let wants_steps = |s: &SideSelection| s.iterations == Pick::Lowest;
    let (c_sel, t_sel) = selections;
    let same = match (std::fs::canonicalize(control), std::fs::canonicalize(test)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        let side = load_side_ranks(
            control,
            attrs,
            &[&c_sel.ranks, &t_sel.ranks],
            wants_steps(c_sel) || wants_steps(t_sel),
        )?;
        // Cheap: the files are shared, only the path as typed differs.
        let mut test_side = side.clone();
        test_side.input = test.to_path_buf();
        return Ok((Arc::new(side), Arc::new(test_side)));
    }
    let (c, t) = rayon::join(
        || load_side_ranks(control, attrs, &[&c_sel.ranks], wants_steps(c_sel)),
        || load_side_ranks(test, attrs, &[&t_sel.ranks], wants_steps(t_sel)),
    );
    Ok((Arc::new(c?), Arc::new(t?)))
}
