//! Files the tool names but does not read as traces: each is told in one line, with what it
//! is and what to do, instead of a parse error at its first byte.

use crate::error::{Error, Result};
use crate::input::attrs::AttrRequest;
use crate::input::format::{FileHead, Header, SummarizeFn, TraceFormat};
use crate::input::parser::Parser;
use crate::input::read::{PARQUET_MAGIC, is_tracediff_summary};
use crate::model::store::TraceFile;
use crate::model::summary::FileSummary;
use std::path::Path;

/// What the file that starts with `head` is, where it is a format the tool knows but does not
/// read: the line to tell the user. `None` for anything else.
pub fn name(_head: &FileHead<'_>) -> Option<String> {
    None
}

/// Why a summary cannot stand in for a trace here.
pub fn summary_holds_no_events(path: &Path) -> Error {
    if is_tracediff_summary(path) {
        Error::input(
            path,
            "a tracediff summary holds no events: this command needs the trace (summaries serve compare, ops-diff, plot, gate and overview)",
        )
    } else {
        Error::input(path, "a Parquet file, not a trace")
    }
}

/// A Parquet file, which this crate does not read: a tracediff summary is read by the
/// tracediff crate, whose own format for it is tried before this one.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParquetFile;

impl TraceFormat for ParquetFile {
    fn name(&self) -> &'static str {
        "Parquet"
    }

    fn sniff(&self, head: &FileHead<'_>) -> bool {
        head.raw.starts_with(PARQUET_MAGIC)
    }

    fn scan(&self, _parser: &Parser, path: &Path, _want_steps: bool) -> Result<Header> {
        Err(summary_holds_no_events(path))
    }

    fn load(&self, _parser: &Parser, path: &Path, _attrs: &AttrRequest) -> Result<TraceFile> {
        Err(summary_holds_no_events(path))
    }

    fn summarize(
        &self,
        _parser: &Parser,
        path: &Path,
        _marker: Option<&regex::Regex>,
        _summarize: &SummarizeFn<'_>,
    ) -> Result<FileSummary> {
        Err(summary_holds_no_events(path))
    }
}
