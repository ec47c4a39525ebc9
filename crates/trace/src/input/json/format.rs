//! Kineto JSON as a [`TraceFormat`]: the file opened (gzip or plain, by its magic), walked by
//! [`crate::input::json::parse`] and finished into a [`TraceFile`].

use crate::error::{Error, Result};
use crate::input::attrs::AttrRequest;
use crate::input::finish::{into_trace_file, release_free_memory};
use crate::input::format::{FileHead, Header, SummarizeFn, TraceFormat};
use crate::input::parser::Parser;
use crate::input::read::{Compression, TraceReader, open};
use crate::model::store::TraceFile;
use crate::model::summary::FileSummary;
use std::io::Read;
use std::path::Path;

/// The PyTorch profiler's Chrome-trace JSON (plain or gzip). It is the format a file is read
/// as when no other format claims it, so that a file that is not JSON at all is told so at
/// its first byte.
#[derive(Debug, Clone, Copy, Default)]
pub struct KinetoJson;

impl TraceFormat for KinetoJson {
    fn name(&self) -> &'static str {
        "Kineto JSON"
    }

    fn sniff(&self, _head: &FileHead<'_>) -> bool {
        true
    }

    fn scan(&self, parser: &Parser, path: &Path, want_steps: bool, marker: Option<&regex::Regex>) -> Result<Header> {
        let r = open(path)?;
        parser.scan_header(r.inner, path, r.compression, want_steps, marker)
    }

    fn load(&self, parser: &Parser, path: &Path, attrs: &AttrRequest) -> Result<TraceFile> {
        let r = open(path)?;
        parser.trace_from_reader(r.inner, path, r.compression, attrs)
    }

    fn summarize(
        &self,
        parser: &Parser,
        path: &Path,
        marker: Option<&regex::Regex>,
        summarize: &SummarizeFn<'_>,
    ) -> Result<FileSummary> {
        parser.summarize_opened_marked(open(path)?, path, marker, summarize)
    }
}

impl Parser {
    /// Parses JSON text from `reader` into a [`TraceFile`] with its iterations assigned.
    /// `path` and `compression` only serve error messages and the file's record.
    pub fn trace_from_reader(
        &self,
        reader: impl Read + Send,
        path: &Path,
        compression: Compression,
        attrs: &AttrRequest,
    ) -> Result<TraceFile> {
        let marker = crate::model::serving::step_marker(attrs.step_marker.as_deref()).map_err(Error::usage)?;
        let parsed = self.parse_trace(reader, path, compression, attrs)?;
        into_trace_file(parsed, path, marker.as_ref())
    }

    /// Parses a trace already opened (and known not to be a summary) and summarises it, its
    /// steps named by `marker` (`--step-marker`) when given. The store keeps only what the
    /// summary reads (see [`crate::input::load::summarize_trace`]).
    pub fn summarize_opened_marked(
        &self,
        reader: TraceReader,
        path: &Path,
        marker: Option<&regex::Regex>,
        summarize: &SummarizeFn<'_>,
    ) -> Result<FileSummary> {
        let mut parsed = self.parse_trace_for_summary(reader.inner, path, reader.compression)?;
        parsed.events.number_threads();
        let mut file = into_trace_file(parsed, path, marker)?;
        file.events.drop_link_columns();
        let summary = summarize(&file, path);
        drop(file);
        release_free_memory();
        Ok(summary)
    }
}

/// [`Parser::trace_from_reader`] on a [`Parser`] of its own.
pub fn trace_from_reader(
    reader: impl Read + Send,
    path: &Path,
    compression: Compression,
    attrs: &AttrRequest,
) -> Result<TraceFile> {
    Parser::default().trace_from_reader(reader, path, compression, attrs)
}

/// [`crate::input::load::summarize_trace`] of a trace already opened (and known not to be a
/// summary).
pub fn summarize_opened(reader: TraceReader, path: &Path, summarize: &SummarizeFn<'_>) -> Result<FileSummary> {
    Parser::default().summarize_opened_marked(reader, path, None, summarize)
}
