//! rocprofv3's JSON (`rocprofv3 --output-format json`: rocprofiler-sdk's `rocprofiler-sdk-tool`
//! file) as a [`TraceFormat`]: the layout read is in [`schema`], how its records map onto the
//! store in [`read`] and docs/formats.md.

pub mod read;
pub mod schema;

use crate::error::Result;
use crate::input::attrs::AttrRequest;
use crate::input::finish::{
    load_ranks_whole, load_whole, scan_ranks_whole, scan_whole, summarize_ranks_whole, summarize_whole,
};
use crate::input::format::{FileHead, Header, SummarizeFn, TraceFormat};
use crate::input::parser::Parser;
use crate::model::store::TraceFile;
use crate::model::summary::FileSummary;
use std::path::Path;

/// The top-level member that names a rocprofv3 JSON file.
pub const TOOL_KEY: &str = "rocprofiler-sdk-tool";

/// rocprofv3's JSON: an object whose first member is `rocprofiler-sdk-tool`.
#[derive(Debug, Clone, Copy, Default)]
pub struct RocprofJson;

impl TraceFormat for RocprofJson {
    fn name(&self) -> &'static str {
        "rocprofv3 JSON"
    }

    fn sniff(&self, head: &FileHead<'_>) -> bool {
        crate::input::not_traces::first_key(crate::input::not_traces::skip_space(head.text)) == Some(TOOL_KEY)
    }

    fn scan(&self, _parser: &Parser, path: &Path, want_steps: bool, marker: Option<&regex::Regex>) -> Result<Header> {
        // A file of one process declares no rank: its name may (`rank3_results.json`). Its
        // steps need the whole file read.
        scan_whole(path, (want_steps, marker), read::read_tool_file, None)
    }

    fn load(&self, _parser: &Parser, path: &Path, attrs: &AttrRequest) -> Result<TraceFile> {
        load_whole(path, attrs, read::read_tool_file)
    }

    fn summarize(
        &self,
        _parser: &Parser,
        path: &Path,
        marker: Option<&regex::Regex>,
        summarize: &SummarizeFn<'_>,
    ) -> Result<FileSummary> {
        summarize_whole(path, marker, summarize, read::read_tool_file)
    }

    /// One rank per process that dispatched a kernel, by pid, where there are several
    /// (docs/formats.md#several-processes-in-one-rocprofv3-file); else the file is one rank.
    fn scan_ranks(
        &self,
        parser: &Parser,
        path: &Path,
        want_steps: bool,
        marker: Option<&regex::Regex>,
    ) -> Result<Vec<Header>> {
        // A file whose processes cannot be counted is refused here, naming the place its JSON
        // stops making sense, as an Nsight export is: taken as one rank, a rank left out of
        // the selection would never be read, its damage never told.
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
