//! Which format a file is: its first bytes (inflated where it is gzip) offered to each format
//! of a [`Formats`] list in turn, then to the formats the tool names but does not read
//! ([`crate::input::not_traces`]), and Kineto JSON last, which takes the rest (as inferno's
//! `guess`). Every read of a file goes through [`Formats::of`].

use crate::error::{Error, Result, io_reason};
use crate::input::format::{FileHead, TraceFormat};
use crate::input::json::format::KinetoJson;
use crate::input::not_traces::{self, NotATrace, ParquetFile};
use crate::input::nsight::NsightSqlite;
use crate::input::rocprof::RocprofJson;
use flate2::read::GzDecoder;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most bytes of a file's start a format is shown to tell whether the file is its.
pub const HEAD_BYTES: usize = 4096;

/// The formats this crate reads (or names), tried in this order. Kineto JSON is not in it: it
/// takes what none of these claims.
static BUILTIN: [&dyn TraceFormat; 3] = [&ParquetFile, &NsightSqlite, &RocprofJson];

/// The format a file is read as when no other claims it.
static FALLBACK: KinetoJson = KinetoJson;

/// A list of formats to tell files apart by: this crate's, and those a caller puts before them
/// (the tracediff crate's Parquet summary).
#[derive(Clone)]
pub struct Formats {
    list: Vec<&'static dyn TraceFormat>,
}

impl Default for Formats {
    fn default() -> Self {
        Formats::builtin()
    }
}

impl std::fmt::Debug for Formats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.list.iter().map(|x| x.name())).finish()
    }
}

impl Formats {
    /// The formats of this crate.
    pub fn builtin() -> Self {
        Formats { list: BUILTIN.to_vec() }
    }

    /// These formats with `format` tried before them.
    pub fn with(mut self, format: &'static dyn TraceFormat) -> Self {
        self.list.insert(0, format);
        self
    }

    /// The format of the file at `path`: the first of the list that claims it; an error naming
    /// what the file is where it is a format the tool does not read; else Kineto JSON.
    pub fn of(&self, path: &Path) -> Result<&'static dyn TraceFormat> {
        let raw = read_head(path)?;
        let text = inflated(&raw);
        let head = FileHead {
            path,
            raw: &raw,
            text: text.as_deref().unwrap_or(&raw),
        };
        if let Some(format) = self.list.iter().find(|f| f.sniff(&head)) {
            return Ok(*format);
        }
        if let Some(what) = not_traces::name(&head) {
            return Err(Error::input(path, what.message()));
        }
        Ok(&FALLBACK)
    }
}

/// The name of the format the file at `path` is read in by this crate's formats; `None`
/// where it is none of them or cannot be read.
pub fn format_name(path: &Path) -> Option<&'static str> {
    Formats::builtin().of(path).ok().map(|f| f.name())
}

/// The files of a side that are not traces, left out with a note each (an execution trace or
/// a memory timeline beside the Kineto trace it was written with); of a side of one file, or
/// one whose every file is such, none is left out: the load then says what the file is. A
/// file that cannot be read is kept, for its load to report.
pub fn skip_not_traces(paths: Vec<PathBuf>) -> (Vec<PathBuf>, Vec<String>) {
    if paths.len() < 2 {
        return (paths, Vec::new());
    }
    let judged: Vec<(PathBuf, Option<NotATrace>)> = paths
        .into_iter()
        .map(|p| {
            let what = read_head(&p).ok().and_then(|raw| {
                let text = inflated(&raw);
                not_traces::name(&FileHead {
                    path: &p,
                    raw: &raw,
                    text: text.as_deref().unwrap_or(&raw),
                })
            });
            (p, what)
        })
        .collect();
    if judged.iter().all(|(_, what)| what.is_some()) {
        return (judged.into_iter().map(|(p, _)| p).collect(), Vec::new());
    }
    let mut kept = Vec::new();
    let mut notes = Vec::new();
    for (path, what) in judged {
        match what {
            Some(what) => notes.push(format!("skipped {}: {}, not a trace", path.display(), what.what)),
            None => kept.push(path),
        }
    }
    (kept, notes)
}

/// The first [`HEAD_BYTES`] of the file (fewer where it is shorter).
fn read_head(path: &Path) -> Result<Vec<u8>> {
    let file = std::fs::File::open(path).map_err(|e| Error::input(path, format!("cannot open: {}", io_reason(&e))))?;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    file.take(HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::input(path, format!("cannot read: {}", io_reason(&e))))?;
    Ok(head)
}

/// The text that a gzip head inflates to, as far as it goes (`None` where it is not gzip). A
/// corrupt stream gives what came before the fault: the parse reports the fault itself.
fn inflated(raw: &[u8]) -> Option<Vec<u8>> {
    if !raw.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    let mut decoder = GzDecoder::new(raw);
    let mut text = vec![0u8; HEAD_BYTES];
    let mut n = 0;
    while n < text.len() {
        match decoder.read(&mut text[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    text.truncate(n);
    Some(text)
}
