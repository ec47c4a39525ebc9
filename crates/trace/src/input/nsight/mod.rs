//! The Nsight Systems SQLite export (`nsys export --type sqlite`) as a [`TraceFormat`], read
//! with SQLite itself (rusqlite, bundled): how its tables map onto the store is in
//! docs/formats.md, and how rows are named in [`names`].

pub mod names;
pub mod read;

use crate::error::Result;
use crate::input::attrs::AttrRequest;
use crate::input::finish::{
    load_ranks_whole, load_whole, scan_ranks_whole, scan_whole, summarize_ranks_whole, summarize_whole,
};
use crate::input::format::{FileHead, Header, SummarizeFn, TraceFormat};
use crate::input::not_traces::SQLITE_MAGIC;
use crate::input::parser::Parser;
use crate::model::store::TraceFile;
use crate::model::summary::FileSummary;
use std::path::Path;

/// An Nsight Systems export: an SQLite database that holds `StringIds` and kernels, CUDA
/// runtime calls or NVTX ranges.
#[derive(Debug, Clone, Copy, Default)]
pub struct NsightSqlite;

/// Whether the SQLite database at `path` is an Nsight Systems export with work to read.
fn is_export(path: &Path) -> bool {
    let Ok(conn) = read::open(path) else { return false };
    let Ok(tables) = read::tables(&conn) else { return false };
    tables.contains("StringIds")
        && [read::KERNEL, read::RUNTIME, read::NVTX]
            .iter()
            .any(|t| tables.contains(*t))
}

impl TraceFormat for NsightSqlite {
    fn name(&self) -> &'static str {
        "Nsight Systems SQLite export"
    }

    fn sniff(&self, head: &FileHead<'_>) -> bool {
        head.raw.starts_with(SQLITE_MAGIC) && is_export(head.path)
    }

    fn scan(&self, _parser: &Parser, path: &Path, want_steps: bool, marker: Option<&regex::Regex>) -> Result<Header> {
        // An export of one process is one rank: the one its name gives, if any.
        scan_whole(path, (want_steps, marker), read::read_export, Some(read::step_numbers))
    }

    fn load(&self, _parser: &Parser, path: &Path, attrs: &AttrRequest) -> Result<TraceFile> {
        load_whole(path, attrs, read::read_export)
    }

    fn summarize(
        &self,
        _parser: &Parser,
        path: &Path,
        marker: Option<&regex::Regex>,
        summarize: &SummarizeFn<'_>,
    ) -> Result<FileSummary> {
        summarize_whole(path, marker, summarize, read::read_export)
    }

    /// One rank per process that launched GPU work, by pid, where there are several
    /// (docs/formats.md#several-processes-in-one-export); else the export is one rank.
    fn scan_ranks(
        &self,
        parser: &Parser,
        path: &Path,
        want_steps: bool,
        marker: Option<&regex::Regex>,
    ) -> Result<Vec<Header>> {
        match read::rank_count(path)? {
            0 | 1 => Ok(vec![self.scan(parser, path, want_steps, marker)?]),
            count => scan_ranks_whole(path, (want_steps, marker), count, read::read_ranks),
        }
    }

    fn load_ranks(&self, _parser: &Parser, path: &Path, attrs: &AttrRequest) -> Result<Vec<TraceFile>> {
        load_ranks_whole(path, attrs, read::read_ranks)
    }

    fn summarize_ranks(
        &self,
        _parser: &Parser,
        path: &Path,
        marker: Option<&regex::Regex>,
        summarize: &SummarizeFn<'_>,
    ) -> Result<Vec<FileSummary>> {
        summarize_ranks_whole(path, marker, summarize, read::read_ranks)
    }
}
