//! The Parquet summary (`tracediff summarize`) as an input format: the trace crate's formats
//! tell files apart, and this one, tried first, reads a summary where a command takes
//! summaries (a side of compare, gate, overview…). It holds no events: a command that needs
//! them is told so.

use crate::analysis::summaries::read::read_summary;
use crate::error::Error;
use crate::input::attrs::AttrRequest;
use crate::input::format::{FileHead, Header, SummarizeFn, TraceFormat};
use crate::input::guess::Formats;
use crate::input::not_traces::summary_holds_no_events;
use crate::input::parser::Parser;
use crate::input::read::PARQUET_MAGIC;
use crate::model::store::TraceFile;
use crate::model::summary::FileSummary;
use std::path::Path;

/// A summary written by `tracediff summarize`: any file that starts with the Parquet magic
/// (one that is not a summary is refused by the reader, which says why).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ParquetSummary;

/// The formats a side of summaries is read in: the Parquet summary, then the trace crate's.
pub(crate) fn summary_formats() -> Formats {
    Formats::builtin().with(&ParquetSummary)
}

impl TraceFormat for ParquetSummary {
    fn name(&self) -> &'static str {
        "tracediff summary"
    }

    fn sniff(&self, head: &FileHead<'_>) -> bool {
        head.raw.starts_with(PARQUET_MAGIC)
    }

    fn scan(
        &self,
        _parser: &Parser,
        path: &Path,
        _want_steps: bool,
        _marker: Option<&regex::Regex>,
    ) -> tracediff_trace::Result<Header> {
        let s = read_summary(path).map_err(Error::into_trace)?;
        Ok(Header {
            rank: s.meta.declared_rank,
            world_size: s.meta.world_size,
            steps: Some(s.meta.steps),
        })
    }

    fn load(&self, _parser: &Parser, path: &Path, _attrs: &AttrRequest) -> tracediff_trace::Result<TraceFile> {
        Err(summary_holds_no_events(path))
    }

    fn summarize(
        &self,
        _parser: &Parser,
        path: &Path,
        _marker: Option<&regex::Regex>,
        _summarize: &SummarizeFn<'_>,
    ) -> tracediff_trace::Result<FileSummary> {
        read_summary(path).map_err(Error::into_trace)
    }
}
