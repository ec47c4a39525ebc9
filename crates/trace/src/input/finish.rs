//! What every format does once its events are parsed: places and iterations assigned, repeated
//! steps refused, and the hook a host sets to give freed memory back after a summarised trace.

use crate::error::{Error, Result};
use crate::input::json::parse::ParsedTrace;
use crate::model::iteration::{assign_iterations_marked, step_number};
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::model::table::{EventTable, StringTable};
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
    })
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
