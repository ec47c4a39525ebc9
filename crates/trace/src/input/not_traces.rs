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

/// The first bytes of every SQLite database.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// A file of a format the tool knows but does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotATrace {
    /// What it is ("a PyTorch execution trace (…)").
    pub what: String,
    /// What to do instead.
    pub advice: String,
}

impl NotATrace {
    fn new(what: &str, advice: impl Into<String>) -> Option<Self> {
        Some(NotATrace {
            what: what.to_string(),
            advice: advice.into(),
        })
    }

    /// The line an error gives (the file's name follows it).
    pub fn message(&self) -> String {
        format!("not a trace: {}; {}", self.what, self.advice)
    }
}

/// What the file that starts with `head` is, where it is a format the tool knows but does not
/// read. `None` for anything else.
pub fn name(head: &FileHead<'_>) -> Option<NotATrace> {
    by_name(head).or_else(|| by_bytes(head))
}

/// What the tool reads, for advice.
const READS: &str = "tracediff reads the PyTorch profiler's Chrome-trace JSON, Nsight Systems SQLite exports, rocprofv3's JSON and tracediff summaries";

/// The formats whose names tell them (their bytes do not, or not cheaply).
fn by_name(head: &FileHead<'_>) -> Option<NotATrace> {
    if head.name_ends_with(".nsys-rep") || head.name_ends_with(".qdrep") {
        let advice = format!(
            "export it to SQLite and pass that: nsys export --type sqlite --output {} {}",
            sqlite_name(head.path),
            head.path.display()
        );
        return NotATrace::new("an Nsight Systems report, which only nsys reads", advice);
    }
    if head.name_ends_with(".xplane.pb") {
        return NotATrace::new("an XPlane protobuf (the JAX or TensorFlow profiler's)", READS);
    }
    if head.name_ends_with(".perfetto-trace") || head.name_ends_with(".pftrace") {
        return NotATrace::new("a Perfetto protobuf trace", CONVERT_PROTOBUF);
    }
    None
}

/// What to do with a protobuf trace.
const CONVERT_PROTOBUF: &str =
    "convert it to Chrome-trace JSON (traceconv json IN OUT.json) or pass the PyTorch profiler's own JSON";

/// `x.nsys-rep` → `x.sqlite`, beside it.
fn sqlite_name(path: &Path) -> String {
    let text = path.display().to_string();
    let stem = text
        .strip_suffix(".nsys-rep")
        .or_else(|| text.strip_suffix(".qdrep"))
        .unwrap_or(&text);
    format!("{stem}.sqlite")
}

/// The formats whose first bytes tell them.
fn by_bytes(head: &FileHead<'_>) -> Option<NotATrace> {
    if head.raw.starts_with(SQLITE_MAGIC) {
        return NotATrace::new(
            "an SQLite database that is not an Nsight Systems export (no CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME or NVTX_EVENTS table)",
            "export the Nsight Systems report with nsys export --type sqlite and pass that",
        );
    }
    let text = skip_space(head.text);
    // A protobuf trace (Perfetto's `Trace`, XPlane's `XSpace`) starts with its field 1.
    if head.name_ends_with(".pb") && head.raw.first() == Some(&0x0a) {
        return NotATrace::new("a protocol buffer (a Perfetto or XPlane trace?)", CONVERT_PROTOBUF);
    }
    if text.starts_with(b"[") && skip_space(&text[1..]).starts_with(b"[") {
        return NotATrace::new(
            "the output of torch.profiler's export_memory_timeline (memory over time, no events)",
            "pass the trace itself (on_trace_ready or export_chrome_trace), whose memory the overview reads",
        );
    }
    if first_key(text)? != "schema" {
        return None;
    }
    NotATrace::new(
        "a PyTorch execution trace (ExecutionTraceObserver: the graph's nodes, no times)",
        "pass the profiler's trace, the Kineto JSON written beside it",
    )
}

/// `text` after white space and a UTF-8 byte order mark.
pub(crate) fn skip_space(text: &[u8]) -> &[u8] {
    let text = text.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(text);
    let start = text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len());
    &text[start..]
}

/// The first key of the JSON object `text` starts, where it is a plain string (no escapes).
pub(crate) fn first_key(text: &[u8]) -> Option<&str> {
    let rest = skip_space(text.strip_prefix(b"{")?);
    let rest = rest.strip_prefix(b"\"")?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    if rest[end] != b'"' {
        return None;
    }
    std::str::from_utf8(&rest[..end]).ok()
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

    fn scan(&self, _parser: &Parser, path: &Path, _want_steps: bool, _marker: Option<&regex::Regex>) -> Result<Header> {
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
