//! What every format does once its events are parsed: places and iterations assigned, repeated
//! steps refused, and the hook a host sets to give freed memory back after a summarised trace.

use crate::error::{Error, Result};
use crate::input::attrs::AttrRequest;
use crate::input::format::Header;
use crate::input::format::SummarizeFn;
use crate::input::json::parse::ParsedTrace;
use crate::model::iteration::{assign_iterations_marked, step_number};
use crate::model::place::Place;
use crate::model::store::{DeviceProperties, NewEvent, TraceFile};
use crate::model::summary::FileSummary;
use crate::model::table::{EventTable, StringTable};
use rustc_hash::FxHashMap;
use std::path::Path;

/// A parsed trace with its places and iterations assigned (its steps named by `marker` when
/// given). Every format parses into a [`ParsedTrace`] and ends here.
pub fn into_trace_file(mut parsed: ParsedTrace, path: &Path, marker: Option<&regex::Regex>) -> Result<TraceFile> {
    let steps = assign_iterations_marked(&parsed.strings, &mut parsed.events, marker);
    repeated_step(&parsed.strings, &parsed.events, path)?;
    Ok(TraceFile {
        path: path.to_path_buf(),
        declared_rank: parsed.declared_rank,
        declared_world_size: parsed.declared_world_size,
        strings: parsed.strings,
        events: parsed.events,
        attrs: parsed.attrs,
        steps,
        total_events: parsed.total_events,
        begin_end_events: parsed.begin_end_events,
        json_bytes: parsed.json_bytes,
        memory: parsed.memory,
        flows: parsed.flows,
        devices: parsed.devices,
        device_use: parsed.device_use,
        call_tree: Default::default(),
        graphs: Default::default(),
        iteration_runs: Default::default(),
    })
}

/// The rows of a format read whole (an Nsight export, a rocprofv3 file) put in file order into
/// the parse's columns: sorted by start, the longer first (stable: rows of one start and
/// length keep their table's order), each numbered by its place, with the devices and each
/// device's use sorted by device.
pub fn rows_into_parsed(
    path: &Path,
    strings: StringTable,
    mut events: Vec<NewEvent>,
    devices: Vec<DeviceProperties>,
    device_use: FxHashMap<i64, u64>,
) -> ParsedTrace {
    events.sort_by_key(|e| (e.ts_ns, std::cmp::Reverse(e.dur_ns)));
    let mut out = ParsedTrace {
        declared_rank: rank_of_file(path),
        strings,
        total_events: events.len() as u64,
        json_bytes: std::fs::metadata(path).map_or(0, |m| m.len()),
        devices,
        ..ParsedTrace::default()
    };
    out.events.reserve(events.len(), true);
    for (k, mut e) in events.into_iter().enumerate() {
        e.index = k as u32;
        out.events.push(e);
    }
    let mut use_: Vec<(i64, u64)> = device_use.into_iter().collect();
    use_.sort_unstable();
    out.device_use = use_;
    out
}

/// `TraceFormat::load` of a format read whole by `read`: its steps named by the request's
/// marker.
pub fn load_whole(path: &Path, attrs: &AttrRequest, read: fn(&Path) -> Result<ParsedTrace>) -> Result<TraceFile> {
    let marker = crate::model::serving::step_marker(attrs.step_marker.as_deref()).map_err(Error::usage)?;
    into_trace_file(read(path)?, path, marker.as_ref())
}

/// How a format reads a file whole into one parse per rank it holds.
pub type ReadRanksFn = fn(&Path) -> Result<Vec<ParsedTrace>>;

/// How a format reads a file's ProfilerStep numbers without reading it whole.
pub type StepNumbersFn = fn(&Path) -> Result<Vec<i64>>;

/// `TraceFormat::scan` of a format read whole by `read`: the rank its file's name gives
/// ([`rank_of_file`]) and, with `want_steps`, the step numbers loading it gives — its
/// ProfilerSteps, else its serving loop's annotations, or the annotations `marker`
/// (`--step-marker`) names — so that a rank left out of the selection reports the steps it
/// would have. `profiler_steps`, where a format has one, reads the ProfilerStep numbers
/// without reading the file whole; the file is read whole where it finds none or a marker is
/// given.
pub fn scan_whole(
    path: &Path,
    (want_steps, marker): (bool, Option<&regex::Regex>),
    read: fn(&Path) -> Result<ParsedTrace>,
    profiler_steps: Option<StepNumbersFn>,
) -> Result<Header> {
    let steps = if !want_steps {
        None
    } else {
        let quick = match (marker, profiler_steps) {
            (None, Some(numbers)) => numbers(path)?,
            _ => Vec::new(),
        };
        Some(if quick.is_empty() {
            steps_loaded(read(path)?, marker)
        } else {
            quick
        })
    };
    Ok(Header {
        rank: rank_of_file(path),
        world_size: None,
        steps,
    })
}

/// `TraceFormat::scan_ranks` of a file of `count` ranks (more than one) of a format read
/// whole by `read_ranks`: ranks `0..count`, each with (where `want_steps`) the steps loading
/// it gives, its ProfilerSteps, else its serving loop's annotations, or those `marker` names.
pub fn scan_ranks_whole(
    path: &Path,
    (want_steps, marker): (bool, Option<&regex::Regex>),
    count: usize,
    read_ranks: ReadRanksFn,
) -> Result<Vec<Header>> {
    let steps: Vec<Option<Vec<i64>>> = if want_steps {
        (read_ranks(path)?.into_iter())
            .map(|parsed| Some(steps_loaded(parsed, marker)))
            .collect()
    } else {
        vec![None; count]
    };
    Ok(steps
        .into_iter()
        .enumerate()
        .map(|(rank, steps)| Header {
            rank: Some(rank as i64),
            world_size: None,
            steps,
        })
        .collect())
}

/// `TraceFormat::scan_ranks` with steps of a format whose file is read whole to count its
/// ranks (a rocprofv3 file): one read by `read_ranks` gives both, each rank with the rank it
/// is read as (its file name's where the file is one rank, else `0..N`) and the steps loading
/// it gives, its ProfilerSteps, else its serving loop's annotations, or those `marker` names.
pub fn scan_ranks_read(path: &Path, marker: Option<&regex::Regex>, read_ranks: ReadRanksFn) -> Result<Vec<Header>> {
    Ok((read_ranks(path)?.into_iter())
        .map(|parsed| Header {
            rank: parsed.declared_rank,
            world_size: None,
            steps: Some(steps_loaded(parsed, marker)),
        })
        .collect())
}

/// `TraceFormat::load_ranks` of a format read whole by `read_ranks`: each rank's steps named
/// by the request's marker.
pub fn load_ranks_whole(path: &Path, attrs: &AttrRequest, read_ranks: ReadRanksFn) -> Result<Vec<TraceFile>> {
    let marker = crate::model::serving::step_marker(attrs.step_marker.as_deref()).map_err(Error::usage)?;
    (read_ranks(path)?.into_iter())
        .map(|parsed| into_trace_file(parsed, path, marker.as_ref()))
        .collect()
}

/// `TraceFormat::summarize_ranks` of a format read whole by `read_ranks`: each rank
/// summarised and dropped in turn ([`summarize_whole`]).
pub fn summarize_ranks_whole(
    path: &Path,
    marker: Option<&regex::Regex>,
    summarize: &SummarizeFn<'_>,
    read_ranks: ReadRanksFn,
) -> Result<Vec<FileSummary>> {
    let ranks = read_ranks(path)?;
    let mut out = Vec::with_capacity(ranks.len());
    for parsed in ranks {
        out.push(summarize_parsed(parsed, path, marker, summarize)?);
    }
    Ok(out)
}

/// The numbers of the steps [`into_trace_file`] finds in `parsed`, sorted.
fn steps_loaded(mut parsed: ParsedTrace, marker: Option<&regex::Regex>) -> Vec<i64> {
    let steps = assign_iterations_marked(&parsed.strings, &mut parsed.events, marker);
    let mut numbers: Vec<i64> = steps.iter().map(|s| s.number).collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// The rank a file's name gives: the digits after its last `rank` (any case, with `_`, `-`,
/// `=` or nothing between), as `nsys profile -o rank%q{RANK}` names a rank's report
/// (`rank3.sqlite`, `train_rank-12.sqlite`). An Nsight export or a rocprofv3 file records no rank of its own.
pub fn rank_of_file(path: &std::path::Path) -> Option<i64> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let at = name.rfind("rank")?;
    let rest = name[at + 4..].trim_start_matches(['_', '-', '=']);
    let digits = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    digits.parse().ok()
}

/// `TraceFormat::summarize` of a format read whole by `read`: the file is summarised and
/// dropped, and the freed memory given back, before the next file is read.
pub fn summarize_whole(
    path: &Path,
    marker: Option<&regex::Regex>,
    summarize: &SummarizeFn<'_>,
    read: fn(&Path) -> Result<ParsedTrace>,
) -> Result<FileSummary> {
    summarize_parsed(read(path)?, path, marker, summarize)
}

/// The summary of `parsed`, read from `path`: its events dropped once it is made, and the
/// freed memory given back.
fn summarize_parsed(
    mut parsed: ParsedTrace,
    path: &Path,
    marker: Option<&regex::Regex>,
    summarize: &SummarizeFn<'_>,
) -> Result<FileSummary> {
    parsed.events.number_threads();
    let mut file = into_trace_file(parsed, path, marker)?;
    file.events.drop_link_columns();
    let summary = summarize(&file, path);
    drop(file);
    release_free_memory();
    Ok(summary)
}

/// Refuses a trace in which two host events are the same `ProfilerStep#N`: a step's number
/// names one window, and which copy to measure (or whether to add them) would be a guess that
/// changes the step time (docs/robustness.md#steps). A `gpu_user_annotation` copy of a step is
/// the device's view of the same step, not a repeat.
fn repeated_step(strings: &StringTable, events: &EventTable, path: &Path) -> Result<()> {
    let step_of: Vec<Option<i64>> = strings.iter().map(|(_, s)| step_number(s)).collect();
    let mut seen = rustc_hash::FxHashSet::default();
    for i in 0..events.len() {
        if events.place[i] != Place::Host {
            continue;
        }
        if let Some(n) = step_of[events.name[i].index()]
            && !seen.insert(n)
        {
            return Err(Error::input(
                path,
                format!(
                    "ProfilerStep#{n} appears twice (two host steps with one number; tracediff measures one window per step)"
                ),
            ));
        }
    }
    Ok(())
}

/// What to call after each summarised trace's events are dropped (see [`set_after_trace_dropped`]).
static AFTER_TRACE_DROPPED: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Sets a function to call each time a summarised trace's event store has been dropped. The
/// binary gives the allocator's freed pages back to the system there (glibc keeps them in its
/// heaps, where the summaries kept since pin them: without it the peak of 16 ranks a side grows
/// by 60%). A library cannot know whether it owns the process's allocator (a Python host does
/// not let it), so it never does this itself. The first call wins.
pub fn set_after_trace_dropped(hook: fn()) {
    let _ = AFTER_TRACE_DROPPED.set(hook);
}

/// Calls the hook of [`set_after_trace_dropped`], where one is set.
pub fn release_free_memory() {
    if let Some(hook) = AFTER_TRACE_DROPPED.get() {
        hook();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_name_gives_its_rank() {
        let rank = |s: &str| rank_of_file(std::path::Path::new(s));
        assert_eq!(rank("dir/rank3.sqlite"), Some(3));
        assert_eq!(rank("train_Rank-12.sqlite"), Some(12));
        assert_eq!(rank("rank=0.sqlite"), Some(0));
        assert_eq!(rank("report.sqlite"), None);
        assert_eq!(rank("ranking.sqlite"), None);
    }
}
