//! rocprofv3's JSON (`rocprofv3 --output-format json`: rocprofiler-sdk's `rocprofiler-sdk-tool`
//! file) as a [`TraceFormat`]: the layout read is in [`schema`], how its records map onto the
//! store in [`read`] and docs/formats.md.

pub mod read;
pub mod schema;

use crate::error::Result;
use crate::input::attrs::AttrRequest;
use crate::input::finish::{
    load_ranks_whole, load_whole, scan_ranks_read, scan_ranks_whole, scan_whole, summarize_ranks_whole, summarize_whole,
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
        // The steps need the file read whole, which counts its ranks too: one read.
        if want_steps {
            return scan_ranks_read(path, marker, read::read_ranks);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::rocprof::read::READS;

    fn fixture(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/rocprof")
            .join(name)
    }

    /// A scan reads the file once, with its steps or without: the count of its processes and
    /// its steps come from the one read (the steps' read counted them twice over before), and
    /// the steps are those loading it gives.
    #[test]
    fn a_scan_reads_the_file_once() {
        let parser = Parser::default();
        for (name, ranks) in [("control.json", 1), ("two_processes.json", 2)] {
            let path = fixture(name);
            let loaded = RocprofJson.load_ranks(&parser, &path, &AttrRequest::default()).unwrap();
            for want_steps in [false, true] {
                let before = READS.with(|n| n.get());
                let headers = RocprofJson.scan_ranks(&parser, &path, want_steps, None).unwrap();
                assert_eq!(READS.with(|n| n.get()) - before, 1, "{name}, steps {want_steps}");
                assert_eq!(headers.len(), ranks, "{name}");
                for (h, f) in headers.iter().zip(&loaded) {
                    assert_eq!(h.rank, f.declared_rank, "{name}");
                    let steps: Vec<i64> = f.steps.iter().map(|s| s.number).collect();
                    assert_eq!(h.steps, want_steps.then_some(steps), "{name}");
                }
            }
        }
    }
}
