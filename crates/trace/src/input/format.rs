//! The format seam: what every input format the tool reads is to the rest of it. A format is
//! told by its first bytes (and, where those cannot tell, its name), scanned for its rank and
//! steps without storing its events, and parsed into the store (or read as a summary).
//! [`crate::input::guess`] picks a file's format from a list of them; a new format is a type
//! that implements [`TraceFormat`] and one entry in that list (docs/architecture.md).

use crate::error::Result;
use crate::input::attrs::AttrRequest;
use crate::input::parser::Parser;
use crate::model::store::TraceFile;
use crate::model::summary::FileSummary;
use std::path::Path;

/// What a scan learns about a file without storing its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// `distributedInfo.rank`, when the file declares one (the rank a format gives each of a
    /// file's ranks where it holds several: [`TraceFormat::scan_ranks`]).
    pub rank: Option<i64>,
    /// `distributedInfo.world_size`, when the file declares one.
    pub world_size: Option<i64>,
    /// The file's step numbers, when asked for.
    pub steps: Option<Vec<i64>>,
}

/// How a parsed trace becomes its summary (the analysis stage's `summarize`).
pub type SummarizeFn<'a> = dyn Fn(&TraceFile, &Path) -> FileSummary + Sync + 'a;

/// The start of a file, as a format's [`TraceFormat::sniff`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct FileHead<'a> {
    /// Where the file is (its name decides only where the bytes cannot).
    pub path: &'a Path,
    /// Its first bytes as stored ([`crate::input::guess::HEAD_BYTES`] at most).
    pub raw: &'a [u8],
    /// Its first bytes as text: inflated where the file is gzip (as far as they inflate),
    /// else [`FileHead::raw`].
    pub text: &'a [u8],
}

impl FileHead<'_> {
    /// Whether the file's name ends with `ending` (bytes, so any name is judged).
    pub fn name_ends_with(&self, ending: &str) -> bool {
        self.path
            .file_name()
            .is_some_and(|n| n.as_encoded_bytes().ends_with(ending.as_bytes()))
    }
}

/// An input format: how a file of it is recognised, scanned and read. A file is one rank of a
/// side, or several where the format says so ([`TraceFormat::scan_ranks`]): a side is read
/// through the `_ranks` methods, and the others read a file that is one trace.
pub trait TraceFormat: Sync {
    /// Its name, as messages give it ("Kineto JSON").
    fn name(&self) -> &'static str;

    /// Whether the file that starts with `head` is of this format.
    fn sniff(&self, head: &FileHead<'_>) -> bool;

    /// The file's rank and world size and, with `want_steps`, its step numbers (named by
    /// `marker`, `--step-marker`, where given), reading no more of it than needed and storing
    /// none of its events.
    fn scan(&self, parser: &Parser, path: &Path, want_steps: bool, marker: Option<&regex::Regex>) -> Result<Header>;

    /// The file's events in the store (with the attributes `attrs` asks for), iterations
    /// assigned; a format that holds no events (a summary) refuses.
    fn load(&self, parser: &Parser, path: &Path, attrs: &AttrRequest) -> Result<TraceFile>;

    /// The file's summary: `summarize` of its events, the steps named by `marker`
    /// (`--step-marker`) when given, the events dropped once it is made; a summary file is
    /// read as it is.
    fn summarize(
        &self,
        parser: &Parser,
        path: &Path,
        marker: Option<&regex::Regex>,
        summarize: &SummarizeFn<'_>,
    ) -> Result<FileSummary>;

    /// [`TraceFormat::scan`] of every rank the file holds, in rank order: one header, the
    /// file's, for a format whose file is one rank (the default); one per rank, each with its
    /// rank, where a file holds several (an Nsight export or a rocprofv3 JSON of several
    /// processes).
    fn scan_ranks(
        &self,
        parser: &Parser,
        path: &Path,
        want_steps: bool,
        marker: Option<&regex::Regex>,
    ) -> Result<Vec<Header>> {
        Ok(vec![self.scan(parser, path, want_steps, marker)?])
    }

    /// [`TraceFormat::load`] of every rank the file holds, in the order of
    /// [`TraceFormat::scan_ranks`], each with its rank declared.
    fn load_ranks(&self, parser: &Parser, path: &Path, attrs: &AttrRequest) -> Result<Vec<TraceFile>> {
        Ok(vec![self.load(parser, path, attrs)?])
    }

    /// [`TraceFormat::summarize`] of every rank the file holds, in the order of
    /// [`TraceFormat::scan_ranks`].
    fn summarize_ranks(
        &self,
        parser: &Parser,
        path: &Path,
        marker: Option<&regex::Regex>,
        summarize: &SummarizeFn<'_>,
    ) -> Result<Vec<FileSummary>> {
        Ok(vec![self.summarize(parser, path, marker, summarize)?])
    }
}
