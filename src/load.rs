//! Loading a side: discover its files, read and parse them in parallel, assign iterations.

use crate::attrs::AttrRequest;
use crate::discover::discover;
use crate::error::{Error, Result};
use crate::iteration::assign_iterations;
use crate::parse::parse_trace;
use crate::read::{Compression, open};
use crate::store::TraceFile;
use rayon::prelude::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The traces of one side of a comparison, one file per rank, sorted by rank.
#[derive(Debug, Clone)]
pub struct Side {
    /// The path the user gave: a directory or a file.
    pub input: PathBuf,
    pub files: Vec<Arc<TraceFile>>,
    /// Things worth telling the user on stderr (not errors).
    pub notes: Vec<String>,
}

impl Side {
    /// Ranks present, sorted.
    pub fn ranks(&self) -> Vec<i64> {
        self.files.iter().map(|f| f.rank()).collect()
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
    reader: impl Read,
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
    })
}

/// Loads every trace file of `input` (a directory or one file).
pub fn load_side(input: &Path, attrs: &AttrRequest) -> Result<Side> {
    let paths = discover(input)?;
    let results: Vec<Result<TraceFile>> = paths.par_iter().map(|p| load_file(p, attrs)).collect();
    // The first error in path order, so the message does not depend on scheduling.
    let mut files = results.into_iter().collect::<Result<Vec<_>>>()?;
    files.sort_by(|a, b| a.rank().cmp(&b.rank()).then_with(|| a.path.cmp(&b.path)));
    for pair in files.windows(2) {
        if pair[0].rank() == pair[1].rank() {
            return Err(Error::input(
                input,
                format!(
                    "two trace files with rank {}: {} and {} (pass one file to compare it alone)",
                    pair[0].rank(),
                    pair[0].path.display(),
                    pair[1].path.display()
                ),
            ));
        }
    }
    let mut notes = Vec::new();
    let files: Vec<Arc<TraceFile>> = files.into_iter().map(Arc::new).collect();
    let rankless: Vec<&Arc<TraceFile>> = files.iter().filter(|f| f.declared_rank.is_none()).collect();
    if let Some(f) = rankless.first() {
        notes.push(format!(
            "no distributedInfo.rank in {}; taking it as rank 0",
            f.path.display()
        ));
    }
    if files.iter().all(|f| f.steps.is_empty()) {
        notes.push(format!(
            "no ProfilerStep in {}; comparing the whole trace",
            input.display()
        ));
    }
    Ok(Side {
        input: input.to_path_buf(),
        files,
        notes,
    })
}

/// Loads both sides at once; the control side's error wins when both fail. When both sides
/// are the same path (rank against rank in one job), it is read once and shared.
pub fn load_pair(control: &Path, test: &Path, attrs: &AttrRequest) -> Result<(Arc<Side>, Arc<Side>)> {
    let same = match (std::fs::canonicalize(control), std::fs::canonicalize(test)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        let side = load_side(control, attrs)?;
        // Cheap: the files are shared, only the path as typed differs.
        let mut test_side = side.clone();
        test_side.input = test.to_path_buf();
        return Ok((Arc::new(side), Arc::new(test_side)));
    }
    let (c, t) = rayon::join(|| load_side(control, attrs), || load_side(test, attrs));
    Ok((Arc::new(c?), Arc::new(t?)))
}
