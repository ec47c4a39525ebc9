//! Which ProfilerStep (iteration) each event belongs to (docs/semantics.md#iterations).
//!
//! - A step is an event named `ProfilerStep#N`; its window is `[ts, ts + dur)`. A trace without
//!   any takes its steps from a serving loop's annotations ([`crate::model::serving`]).
//! - A host event ([`crate::model::place`]) belongs to the last step, in file order, whose window
//!   holds its `ts`.
//! - A device event with a correlation belongs to the iteration of its launch: the last host
//!   event in file order with the same `correlation` (any host category: `cuda_runtime`,
//!   `cuda_driver`, `mtia_runtime`, …). HTA only links streams > 0; stream 0 (every AMD kernel)
//!   is linked too (docs/semantics.md#differences-from-hta, point 1). No launch: [`NO_ITERATION`].
//! - A device event without a correlation (MTIA DMA requests) is placed by its own `ts`, like a
//!   host event; HTA drops it (docs/semantics.md#differences-from-hta, point 8).

use crate::model::place::{CategoryPlace, Place, category_place, place_of};
use crate::model::table::{EventTable, NO_CORRELATION, NO_ITERATION, Step, StringTable};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// The step number in a name such as `ProfilerStep#12` (HTA's `ProfilerStep\s*#\s*(\d+)`).
pub fn step_number(name: &str) -> Option<i64> {
    let rest = name.strip_prefix("ProfilerStep")?;
    let rest = rest.trim_start_matches(char::is_whitespace).strip_prefix('#')?;
    let rest = rest.trim_start_matches(char::is_whitespace);
    let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    digits.parse().ok()
}

/// Classifies every event as host or device, finds the steps of a trace and fills its
/// `iteration` column. Returns the steps in file order. Once the steps' windows and the
/// launches are known, each event's iteration depends on nothing else, so the column is filled
/// in parallel (on the current rayon pool): the same values whatever the thread count.
pub fn assign_iterations(strings: &StringTable, events: &mut EventTable) -> Vec<Step> {
    assign_iterations_marked(strings, events, None)
}

/// [`assign_iterations`], with the steps named by `marker` (`--step-marker`) when given: the
/// outermost host user annotations whose names it matches, instead of ProfilerStep
/// ([`crate::model::serving`]).
pub fn assign_iterations_marked(
    strings: &StringTable,
    events: &mut EventTable,
    marker: Option<&regex::Regex>,
) -> Vec<Step> {
    classify(strings, events);
    let step_of_name: Vec<Option<i64>> = strings.iter().map(|(_, s)| step_number(s)).collect();
    let steps: Vec<Step> = (0..events.len())
        .filter_map(|i| {
            step_of_name[events.name[i].index()].map(|number| Step {
                number,
                ts_ns: events.ts_ns[i],
                dur_ns: events.dur_ns[i],
                on_device: events.place[i].on_device(),
            })
        })
        .collect();
    let (mut steps, annotated) = match marker {
        Some(m) => (
            crate::model::serving::marked_steps(strings, events, &|s: &str| m.is_match(s)),
            true,
        ),
        // No ProfilerStep: a serving loop's annotations, where it has them.
        None if steps.is_empty() => (crate::model::serving::serving_steps(strings, events), true),
        None => (steps, false),
    };
    let windows = StepWindows::new(&steps);
    let launches = launch_rows(events);
    let mut column = std::mem::take(&mut events.iteration);
    let ev = &*events;
    // A launch is a host event, so its iteration is the one its own time gives.
    let iteration = |i: usize| {
        let correlation = ev.correlation.get(i);
        if ev.place[i].on_device() && correlation != NO_CORRELATION {
            match launches.get(&correlation) {
                Some(&host) => windows.iteration_at(ev.ts_ns[host]),
                None => NO_ITERATION,
            }
        } else {
            windows.iteration_at(ev.ts_ns[i])
        }
    };
    column.fill_with(events.len(), &iteration);
    events.iteration = column;
    if annotated {
        reach_device_work(&mut steps, events);
    }
    steps
}

/// Stretches steps that are annotations (a serving loop's, `--step-marker`'s) to the end of the
/// device work launched inside them, never past the next step's start. Such an annotation
/// closes when the host has queued the step (a graph replay), while its kernels run on: an
/// SGLang decode step's annotation lasts 3 ms, its kernels end 10 ms later, and a window of the
/// annotation alone read 90% of the device time as outside every step. ProfilerStep windows
/// stay the host's (HTA's steps). Events keep the iteration the annotation gave them.
fn reach_device_work(steps: &mut [Step], events: &EventTable) {
    let mut device_end: FxHashMap<i64, i64> = FxHashMap::default();
    for i in 0..events.len() {
        let iteration = events.iteration.get(i);
        if events.place[i].on_device() && iteration != NO_ITERATION {
            let end = events.ts_ns[i].saturating_add(events.dur_ns[i].max(0));
            let e = device_end.entry(iteration).or_insert(end);
            *e = (*e).max(end);
        }
    }
    let mut order: Vec<usize> = (0..steps.len()).collect();
    order.sort_by_key(|&k| (steps[k].ts_ns, steps[k].number));
    for (at, &k) in order.iter().enumerate() {
        let next_start = order.get(at + 1).map_or(i64::MAX, |&n| steps[n].ts_ns);
        let Some(&end) = device_end.get(&steps[k].number) else {
            continue;
        };
        let host_end = steps[k].ts_ns.saturating_add(steps[k].dur_ns.max(0));
        if end > host_end {
            steps[k].dur_ns = end.min(next_start).max(host_end) - steps[k].ts_ns;
        }
    }
}

/// correlation → row of the last host event in file order that carries it (the launch).
pub fn launch_rows(events: &EventTable) -> FxHashMap<i64, usize> {
    let is_launch = |i: usize| events.correlation.get(i) != NO_CORRELATION && !events.place[i].on_device();
    // Sized up front: growing a map of a million launches holds the old table and the new one.
    let n = (0..events.len()).into_par_iter().filter(|&i| is_launch(i)).count();
    let mut launches: FxHashMap<i64, usize> = FxHashMap::with_capacity_and_hasher(n, Default::default());
    for i in (0..events.len()).filter(|&i| is_launch(i)) {
        launches.insert(events.correlation.get(i), i);
    }
    launches
}

/// For each event, the row of its partner: a launch's kernel (the last device event with its
/// correlation) or a device event's launch. `None` without one.
pub fn partner_rows(events: &EventTable) -> Vec<Option<usize>> {
    let launches = launch_rows(events);
    let mut device: FxHashMap<i64, usize> = FxHashMap::default();
    for i in 0..events.len() {
        if events.place[i].on_device() && events.correlation.get(i) != NO_CORRELATION {
            device.insert(events.correlation.get(i), i);
        }
    }
    (0..events.len())
        .map(|i| {
            let c = events.correlation.get(i);
            if c == NO_CORRELATION {
                None
            } else if events.place[i].on_device() {
                launches.get(&c).copied()
            } else if launches.get(&c) == Some(&i) {
                device.get(&c).copied()
            } else {
                None
            }
        })
        .collect()
}

/// The steps' windows cut into disjoint segments, each labelled with the step that wins there
/// (the last in file order among those covering it), for a binary search per event.
struct StepWindows {
    /// Segment starts, sorted; segment k is `[bounds[k], bounds[k + 1])`.
    bounds: Vec<i64>,
    /// The iteration of segment k.
    label: Vec<i64>,
}

impl StepWindows {
    fn new(steps: &[Step]) -> Self {
        let mut bounds: Vec<i64> = steps
            .iter()
            .filter(|s| s.dur_ns > 0)
            .flat_map(|s| [s.ts_ns, s.ts_ns.saturating_add(s.dur_ns)])
            .collect();
        bounds.sort_unstable();
        bounds.dedup();
        // Later steps in file order win, as in HTA: walking the steps from the last, each
        // segment takes the first step that covers it and is then skipped (`next` jumps over
        // taken segments), so heavily overlapping steps cost n log n, not n².
        let mut winner: Vec<Option<usize>> = vec![None; bounds.len()];
        let mut next: Vec<usize> = (0..=bounds.len()).collect();
        for (order, s) in steps.iter().enumerate().rev().filter(|(_, s)| s.dur_ns > 0) {
            let end = s.ts_ns.saturating_add(s.dur_ns);
            let first = bounds.partition_point(|&b| b < s.ts_ns);
            let last = bounds.partition_point(|&b| b < end);
            let mut w = untaken(&mut next, first);
            while w < last {
                winner[w] = Some(order);
                next[w] = w + 1;
                w = untaken(&mut next, w + 1);
            }
        }
        let label = winner
            .into_iter()
            .map(|w| w.map_or(NO_ITERATION, |o| steps[o].number))
            .collect();
        StepWindows { bounds, label }
    }

    fn iteration_at(&self, ts_ns: i64) -> i64 {
        // The segment whose start is the last bound <= ts.
        let k = self.bounds.partition_point(|&b| b <= ts_ns);
        if k == 0 { NO_ITERATION } else { self.label[k - 1] }
    }
}

/// The first segment at or after `at` that no step has taken yet (`next.len() - 1` when none),
/// shortening the chain it followed.
fn untaken(next: &mut [usize], at: usize) -> usize {
    let mut root = at;
    while next[root] != root {
        root = next[root];
    }
    let mut k = at;
    while next[k] != root {
        let following = next[k];
        next[k] = root;
        k = following;
    }
    root
}

/// Fills the `place` column of `events`, in parallel (on the current rayon pool).
pub fn classify(strings: &StringTable, events: &mut EventTable) {
    let by_id: Vec<CategoryPlace> = strings.iter().map(|(_, s)| category_place(s)).collect();
    let mut place = std::mem::take(&mut events.place);
    place.resize(events.len(), Place::Host);
    let (cat, stream) = (&events.cat, &events.stream);
    place
        .par_iter_mut()
        .enumerate()
        .for_each(|(i, p)| *p = place_of(by_id[cat[i].index()], stream.get(i)));
    events.place = place;
}

#[cfg(test)]
mod tests;
