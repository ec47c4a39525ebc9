//! The call tree of one trace file (docs/semantics.md#the-call-tree), as columns parallel to the event table.
//!
//! - Per `(pid, tid)`, host events nest by time: sorted by `ts` ascending, then `dur` descending,
//!   then file order, an event is a child of the innermost open event that it starts inside
//!   (`parent.ts ≤ ts < parent.ts + parent.dur`) and ends inside. An event that starts inside an
//!   open event but ends after it is a child of the innermost open event that does contain it,
//!   else a root; those events are counted in [`CallTree::partial_overlaps`].
//! - An event still open when the trace ends (PyTorch writes a frame open at profiler stop with
//!   an end at the trace's last timestamp) nests by its start, in the innermost open event, and
//!   is clipped to it ([`CallTree::host_total_ns`], counted in [`CallTree::clipped_at_end`]).
//! - A device event's launch is the host event with its correlation
//!   ([`crate::model::iteration::launch_rows`]); the launch's innermost enclosing `cpu_op` or
//!   `Operator` is the device event's **launching operator**. The device event's **owner** is
//!   that operator, else (a kernel launched straight from an annotation or a comm hook) the
//!   launch's innermost enclosing host event, else the launch itself: every launched device
//!   event has an owner.
//! - `host_self` = host total − Σ host total of the direct children; `device_self` = Σ `dur` of
//!   the device events the node owns; `device_total` = the same over the node's subtree.
//!
//! Nesting keeps the open events as a chain (each inside the one below) and pops what a later,
//! longer event replaces, so it takes linear time whatever the overlaps.
//!
//! The tree is built once per file, on first use
//! ([`TraceFile::call_tree`](crate::model::store::TraceFile::call_tree)).

use crate::model::iteration::launch_rows;
use crate::model::place::Place;
use crate::model::table::{EventTable, StringTable};
use rayon::prelude::*;

/// Row index meaning "none" in the `parent` and `launcher` columns.
pub const NONE: u32 = u32::MAX;

/// Categories whose events are operators (rows of the operator view, launching operators).
pub const OPERATOR_CATEGORIES: [&str; 2] = ["cpu_op", "Operator"];

/// The call tree of one file: one entry per event, in the event table's row order.
#[derive(Debug, Clone, Default)]
pub struct CallTree {
    /// The enclosing host event's row, or [`NONE`] for roots and device events.
    pub parent: Vec<u32>,
    /// 0 for roots (and device events), parent's depth + 1 otherwise.
    pub depth: Vec<u32>,
    /// For a device event, the row of its launching operator, or [`NONE`].
    pub launcher: Vec<u32>,
    /// For a device event, the host row its time is attributed to (its launching operator, else
    /// the launch's enclosing host event, else the launch), or [`NONE`] without a launch.
    pub owner: Vec<u32>,
    /// A host event's time in the tree: its `dur`, clipped to its parent's end for an event
    /// still open when the trace ended.
    pub host_total_ns: Vec<i64>,
    /// A host event's time in the tree minus its direct children's.
    pub host_self_ns: Vec<i64>,
    /// The summed duration of the device events this event owns itself.
    pub device_self_ns: Vec<i64>,
    /// The summed duration of the device events owned by this event or anything below it.
    pub device_total_ns: Vec<i64>,
    /// Whether each event is an operator (`cpu_op` / `Operator`).
    pub is_operator: Vec<bool>,
    /// Host events that started inside an open event and ended after it (docs/semantics.md#the-call-tree).
    pub partial_overlaps: u64,
    /// Host events still open at the trace's end that were clipped to their parent.
    pub clipped_at_end: u64,
    /// Who owns each device event's launch, ATen operator or not (docs/graphs.md#launch-owners).
    pub work: crate::model::owners::WorkOwners,
}

impl CallTree {
    /// `row` and then its enclosing host events, innermost first.
    pub fn up_from(&self, row: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(row), move |&r| match self.parent[r] {
            NONE => None,
            p => Some(p as usize),
        })
    }

    /// The call tree of one file's events (docs/semantics.md#the-call-tree).
    pub fn build(strings: &StringTable, ev: &EventTable) -> CallTree {
        let n = ev.len();
        let op_cat: Vec<bool> = strings.iter().map(|(_, s)| OPERATOR_CATEGORIES.contains(&s)).collect();
        let mut t = CallTree {
            parent: vec![NONE; n],
            depth: vec![0; n],
            launcher: vec![NONE; n],
            owner: vec![NONE; n],
            host_total_ns: ev.dur_ns.clone(),
            host_self_ns: ev.dur_ns.clone(),
            device_self_ns: vec![0; n],
            device_total_ns: vec![0; n],
            is_operator: (0..n).map(|i| op_cat[ev.cat[i].index()]).collect(),
            partial_overlaps: 0,
            clipped_at_end: 0,
            work: Default::default(),
        };
        let order = host_order(ev);
        // Innermost operator at or above each host event (itself included).
        let mut nearest_op: Vec<u32> = vec![NONE; n];
        t.nest(ev, &order, &mut nearest_op);
        let launches = launch_rows(ev);
        for i in 0..n {
            if ev.place[i] != Place::Device {
                continue;
            }
            let Some(&launch) = launches.get(&ev.correlation.get(i)) else {
                continue;
            };
            let p = t.parent[launch];
            let op = if p == NONE { NONE } else { nearest_op[p as usize] };
            t.launcher[i] = op;
            let owner = match (op, p) {
                (NONE, NONE) => launch as u32,
                (NONE, p) => p,
                (op, _) => op,
            };
            t.owner[i] = owner;
            t.device_self_ns[owner as usize] += ev.dur_ns[i];
        }
        let links = crate::model::owners::Links {
            parent: &t.parent,
            depth: &t.depth,
            launcher: &t.launcher,
        };
        t.work = crate::model::owners::WorkOwners::build(strings, ev, links, &order, &launches);
        // Children come after their parents in `order`: sum the subtrees from the back.
        t.device_total_ns.clone_from(&t.device_self_ns);
        for &i in order.iter().rev() {
            let p = t.parent[i as usize];
            if p != NONE {
                t.device_total_ns[p as usize] += t.device_total_ns[i as usize];
            }
        }
        t
    }

    /// Links every host event to its parent (in `order`), and fills depth, host times and the
    /// nearest operator.
    fn nest(&mut self, ev: &EventTable, order: &[u32], nearest_op: &mut [u32]) {
        nest_host_events(ev, order, |e: Nesting<()>| {
            let i = e.row as usize;
            self.host_total_ns[i] = e.total_ns;
            self.host_self_ns[i] += e.total_ns - ev.dur_ns[i];
            self.clipped_at_end += u64::from(e.clipped);
            self.partial_overlaps += u64::from(e.partial);
            if let Some((p, ())) = e.parent {
                let p = p as usize;
                self.parent[i] = p as u32;
                self.depth[i] = self.depth[p] + 1;
                self.host_self_ns[p] -= e.total_ns;
            }
            nearest_op[i] = if self.is_operator[i] {
                e.row
            } else {
                e.parent.map_or(NONE, |(p, ())| nearest_op[p as usize])
            };
        });
    }
}

/// One host event as [`nest_host_events`] places it.
#[derive(Debug, Clone, Copy)]
pub struct Nesting<P> {
    /// Its row.
    pub row: u32,
    /// Its parent's row and what the visit returned for the parent; `None` for a root.
    pub parent: Option<(u32, P)>,
    /// Its time in the tree ([`CallTree::host_total_ns`]): `dur`, or clipped to the parent.
    pub total_ns: i64,
    /// Whether it was still open at the trace's end and clipped to its parent.
    pub clipped: bool,
    /// Whether it started inside an open event and ended after it.
    pub partial: bool,
}

/// Nests the host events of `order` ([`host_order`]), calling `visit` on each, parents before
/// their children; what `visit` returns for an event comes back with each of its children. The
/// one nesting of the call tree (docs/semantics.md#the-call-tree): [`CallTree::build`] and the
/// summaries' own times both walk it.
///
/// The stack holds the open events as a chain, each inside the one below. An event that
/// outlasts the top replaces it: every later event inside the top is inside the newer, longer
/// event too, and that one is innermost, so the top can never be a parent again.
pub fn nest_host_events<P: Copy>(ev: &EventTable, order: &[u32], mut visit: impl FnMut(Nesting<P>) -> P) {
    let trace_end = order
        .iter()
        .map(|&r| ev.ts_ns[r as usize].saturating_add(ev.dur_ns[r as usize]))
        .max()
        .unwrap_or(i64::MIN);
    // (row, end after clipping, what the visit returned).
    let mut stack: Vec<(u32, i64, P)> = Vec::new();
    let mut thread: Option<u64> = None;
    for &r in order {
        let i = r as usize;
        let key = ev.thread_key(i);
        if thread != Some(key) {
            thread = Some(key);
            stack.clear();
        }
        let ts = ev.ts_ns[i];
        let mut end = ts.saturating_add(ev.dur_ns[i]);
        let (mut clipped, mut partial) = (false, false);
        while stack.last().is_some_and(|&(_, top_end, _)| top_end <= ts) {
            stack.pop();
        }
        if let Some(&(_, top_end, _)) = stack.last()
            && end > top_end
        {
            if end == trace_end {
                // Open at the trace's end: it belongs where it started.
                end = top_end;
                clipped = true;
            } else {
                partial = true;
                while stack.last().is_some_and(|&(_, top_end, _)| top_end < end) {
                    stack.pop();
                }
            }
        }
        let payload = visit(Nesting {
            row: r,
            parent: stack.last().map(|&(p, _, x)| (p, x)),
            total_ns: if clipped { end - ts } else { ev.dur_ns[i] },
            clipped,
            partial,
        });
        stack.push((r, end, payload));
    }
}

/// Host events' rows ordered by thread, `ts` ascending, `dur` descending, file order: the order
/// [`nest_host_events`] walks. Rows are counted out by thread in file order, and each thread's
/// run, nearly in time order as profilers write them, is put right by a stable sort that runs
/// in about linear time on such input; it holds 4 bytes per host event beside the table.
pub fn host_order(ev: &EventTable) -> Vec<u32> {
    let host = || (0..ev.len()).filter(|&i| ev.place[i] == Place::Host);
    // Each event's thread as a number from 0: a summarised table holds them; otherwise (pid,
    // tid) pairs are numbered by first appearance.
    let numbered: Vec<u32> = if ev.thread.is_empty() {
        let mut number: rustc_hash::FxHashMap<u64, u32> = rustc_hash::FxHashMap::default();
        (0..ev.len())
            .map(|i| {
                let next = number.len() as u32;
                *number.entry(ev.thread_key(i)).or_insert(next)
            })
            .collect()
    } else {
        Vec::new()
    };
    let thread = if numbered.is_empty() { &ev.thread } else { &numbered };
    let mut counts: Vec<usize> = Vec::new();
    for i in host() {
        let n = thread[i] as usize;
        if n >= counts.len() {
            counts.resize(n + 1, 0);
        }
        counts[n] += 1;
    }
    let mut starts: Vec<usize> = Vec::with_capacity(counts.len() + 1);
    let mut at = 0;
    for c in &counts {
        starts.push(at);
        at += c;
    }
    starts.push(at);
    let mut order: Vec<u32> = vec![0; at];
    let mut next = starts.clone();
    for i in host() {
        let n = thread[i] as usize;
        order[next[n]] = i as u32;
        next[n] += 1;
    }
    // The threads' runs, each sorted on its own (in parallel).
    let mut runs: Vec<&mut [u32]> = Vec::with_capacity(counts.len());
    let mut rest = order.as_mut_slice();
    for &c in &counts {
        let (run, after) = std::mem::take(&mut rest).split_at_mut(c);
        runs.push(run);
        rest = after;
    }
    runs.into_par_iter().for_each(|run| sort_nearly_sorted(ev, run));
    order
}

/// Sorts one thread's rows (in file order) by `ts` ascending, `dur` descending, row. Profilers
/// write events nearly in that order (a parent after the children it outlasts), so the rows
/// that break it are set aside, sorted apart and merged back in place, reading the columns
/// front to back; many of them (an eighth of the run) and a stable sort does it all.
fn sort_nearly_sorted(ev: &EventTable, run: &mut [u32]) {
    let key = |r: u32| (ev.ts_ns[r as usize], std::cmp::Reverse(ev.dur_ns[r as usize]), r);
    let mut strays: Vec<u32> = Vec::new();
    let mut kept = 0;
    for k in 0..run.len() {
        let r = run[k];
        if kept > 0 && key(r) < key(run[kept - 1]) {
            strays.push(r);
            if strays.len() > run.len() / 8 + 16 {
                // The rows read so far are the kept and the strays: put them back, sort all.
                run[kept..=k].copy_from_slice(&strays);
                run.sort_by_key(|&r| key(r));
                return;
            }
        } else {
            run[kept] = r;
            kept += 1;
        }
    }
    if strays.is_empty() {
        return;
    }
    strays.sort_unstable_by_key(|&r| key(r));
    // Merge from the back: the kept rows sit at the front, the strays fill the rest.
    let (mut a, mut b, mut to) = (kept, strays.len(), run.len());
    while b > 0 {
        to -= 1;
        if a > 0 && key(run[a - 1]) > key(strays[b - 1]) {
            run[to] = run[a - 1];
            a -= 1;
        } else {
            run[to] = strays[b - 1];
            b -= 1;
        }
    }
}

/// For each string id, whether a category of that name holds operators.
pub fn operator_categories(strings: &StringTable) -> Vec<bool> {
    strings.iter().map(|(_, s)| OPERATOR_CATEGORIES.contains(&s)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::iteration::assign_iterations;
    use crate::model::store::{NO_STREAM, NewEvent};

    /// (cat, name, tid, ts µs, dur µs, stream, correlation)
    type Ev<'a> = (&'a str, &'a str, u32, i64, i64, i64, i64);

    /// The events as a table, µs in ns, their iterations assigned.
    fn table_of(events: &[Ev<'_>]) -> (StringTable, EventTable) {
        let mut strings = StringTable::new();
        let mut table = EventTable::default();
        let pid = strings.intern("1");
        for (k, &(cat, name, tid, ts, dur, stream, correlation)) in events.iter().enumerate() {
            let (name, cat) = (strings.intern(name), strings.intern(cat));
            let tid = strings.intern(&tid.to_string());
            table.push(NewEvent {
                index: k as u32,
                name,
                cat,
                ts_ns: ts * 1000,
                dur_ns: dur * 1000,
                pid,
                tid,
                stream,
                correlation,
            });
        }
        assign_iterations(&strings, &mut table);
        (strings, table)
    }

    fn tree_of(events: &[Ev<'_>]) -> (CallTree, Vec<String>) {
        let (strings, table) = table_of(events);
        let names = (0..table.len())
            .map(|i| strings.resolve(table.name[i]).to_string())
            .collect();
        (CallTree::build(&strings, &table), names)
    }

    #[test]
    fn nesting_self_times_and_launching_operators() {
        let (t, _) = tree_of(&[
            ("cpu_op", "aten::linear", 1, 0, 100, NO_STREAM, -1),
            ("cpu_op", "aten::addmm", 1, 10, 50, NO_STREAM, -1),
            ("cuda_runtime", "cudaLaunchKernel", 1, 20, 5, NO_STREAM, 7),
            ("kernel", "gemm", 0, 200, 30, 7, 7),
            ("python_function", "frame", 1, 70, 20, NO_STREAM, -1),
            ("cuda_driver", "cuLaunchKernel", 1, 75, 5, NO_STREAM, 8),
            ("kernel", "add", 0, 240, 4, 7, 8),
        ]);
        assert_eq!(t.parent, vec![NONE, 0, 1, NONE, 0, 4, NONE]);
        assert_eq!(t.depth, vec![0, 1, 2, 0, 1, 2, 0]);
        // Launch time is not self time; a Python frame between op and launch does not matter.
        assert_eq!(t.launcher, vec![NONE, NONE, NONE, 1, NONE, NONE, 0]);
        assert_eq!(
            t.host_self_ns,
            vec![30_000, 45_000, 5_000, 30_000, 15_000, 5_000, 4_000]
        );
        assert_eq!(t.owner, t.launcher);
        assert_eq!(t.device_self_ns, vec![4_000, 30_000, 0, 0, 0, 0, 0]);
        assert_eq!(t.device_total_ns, vec![34_000, 30_000, 0, 0, 0, 0, 0]);
        assert_eq!(t.partial_overlaps, 0);
    }

    #[test]
    fn a_partial_overlap_goes_to_the_innermost_event_that_contains_it() {
        let (t, _) = tree_of(&[
            ("cpu_op", "outer", 1, 0, 100, NO_STREAM, -1),
            ("python_function", "frame", 1, 10, 40, NO_STREAM, -1),
            ("user_annotation", "span", 1, 30, 40, NO_STREAM, -1),
            ("cpu_op", "inner", 1, 55, 5, NO_STREAM, -1),
            // another thread: its own roots
            ("cpu_op", "other", 2, 12, 5, NO_STREAM, -1),
        ]);
        assert_eq!(t.parent, vec![NONE, 0, 0, 2, NONE]);
        assert_eq!(t.partial_overlaps, 1);
        assert_eq!(t.host_self_ns[0], 20_000);
    }

    #[test]
    fn recursive_ops_and_equal_starts() {
        let (t, _) = tree_of(&[
            ("cpu_op", "f", 1, 0, 10, NO_STREAM, -1),
            ("cpu_op", "f", 1, 0, 10, NO_STREAM, -1),
            ("cpu_op", "f", 1, 0, 4, NO_STREAM, -1),
            ("cpu_op", "g", 1, 10, 0, NO_STREAM, -1),
        ]);
        // Equal windows: the earlier in file order is the parent.
        assert_eq!(t.parent, vec![NONE, 0, 1, NONE]);
        assert_eq!(t.host_self_ns, vec![0, 6_000, 4_000, 0]);
    }

    #[test]
    fn a_launch_without_an_operator_is_owned_by_its_enclosing_event() {
        let (t, _) = tree_of(&[
            ("user_annotation", "gloo:all_reduce", 1, 0, 100, NO_STREAM, -1),
            ("cuda_runtime", "cudaLaunchKernel", 1, 10, 5, NO_STREAM, 7),
            ("kernel", "hook", 0, 200, 30, 7, 7),
            ("cuda_runtime", "cudaLaunchKernel", 2, 10, 5, NO_STREAM, 8),
            ("kernel", "bare", 0, 240, 4, 7, 8),
        ]);
        assert_eq!(t.launcher[2], NONE);
        assert_eq!(t.owner[2], 0);
        assert_eq!(t.owner[4], 3, "no enclosing event: the launch itself");
        assert_eq!(t.device_total_ns[0], 30_000);
    }

    #[test]
    fn a_frame_open_at_the_end_nests_where_it_started_and_is_clipped() {
        let (t, _) = tree_of(&[
            ("python_function", "nn.Module: M_0", 1, 0, 50, NO_STREAM, -1),
            // Left open at profiler stop: ends at the trace's last timestamp.
            ("python_function", "eval_frame", 1, 10, 90, NO_STREAM, -1),
            ("cpu_op", "CompiledFunction", 1, 20, 10, NO_STREAM, -1),
            ("cpu_op", "later", 1, 60, 10, NO_STREAM, -1),
            ("cpu_op", "last", 2, 0, 100, NO_STREAM, -1),
        ]);
        assert_eq!(t.parent, vec![NONE, 0, 1, NONE, NONE]);
        assert_eq!(t.host_total_ns[1], 40_000);
        assert_eq!(t.host_self_ns[0], 10_000);
        assert_eq!(t.host_self_ns[1], 30_000);
        assert_eq!((t.clipped_at_end, t.partial_overlaps), (1, 0));
    }

    #[test]
    fn a_staircase_of_crossing_events_nests_in_linear_time() {
        let n = 40_000;
        let events: Vec<Ev<'_>> = (0..n)
            .map(|k| ("cpu_op", "step", 1, k as i64, 2, NO_STREAM, -1))
            .chain([("cpu_op", "tail", 2, 0, n as i64 + 10, NO_STREAM, -1)])
            .collect();
        let (t, _) = tree_of(&events);
        assert!(t.parent.iter().all(|&p| p == NONE));
        assert_eq!(t.partial_overlaps, n as u64 - 1);
    }

    /// A table kept for a summary holds one thread number per event instead of `pid` and `tid`:
    /// nesting by it gives the tree's own self times, whatever the order events came in.
    #[test]
    fn a_summarised_table_nests_by_its_thread_numbers_as_the_tree_does() {
        let mut strings = StringTable::new();
        let mut table = EventTable::default();
        // (pid, tid, ts µs, dur µs): two processes share a tid; events out of time order, an
        // equal start (the longer first), a partial overlap and one still open at the end.
        let events = [
            ("1", "7", 10, 50),
            ("1", "7", 0, 100),
            ("2", "7", 5, 20),
            ("1", "8", 0, 30),
            ("1", "7", 10, 20),
            ("2", "7", 0, 40),
            ("1", "7", 90, 30),
            ("1", "8", 20, 90),
            ("1", "7", 95, 2),
        ];
        let cat = strings.intern("cpu_op");
        for (k, &(pid, tid, ts, dur)) in events.iter().enumerate() {
            let (pid, tid) = (strings.intern(pid), strings.intern(tid));
            let name = strings.intern(&format!("op{k}"));
            table.push(NewEvent {
                index: k as u32,
                name,
                cat,
                ts_ns: ts * 1000,
                dur_ns: dur * 1000,
                pid,
                tid,
                stream: NO_STREAM,
                correlation: -1,
            });
        }
        let tree = CallTree::build(&strings, &table);
        let mut summarised = table.clone();
        summarised.number_threads();
        assert!(summarised.pid.is_empty() && summarised.tid.is_empty());
        assert_eq!(summarised.thread, vec![0, 0, 1, 2, 0, 1, 0, 2, 0]);
        let mut self_ns = summarised.dur_ns.clone();
        let mut partial = 0;
        nest_host_events(&summarised, &host_order(&summarised), |e: Nesting<()>| {
            let i = e.row as usize;
            self_ns[i] += e.total_ns - summarised.dur_ns[i];
            partial += u64::from(e.partial);
            if let Some((p, ())) = e.parent {
                self_ns[p as usize] -= e.total_ns;
            }
        });
        assert_eq!(self_ns, tree.host_self_ns);
        assert_eq!(partial, tree.partial_overlaps);
        assert_eq!((tree.partial_overlaps, tree.clipped_at_end), (1, 1));
    }

    /// The host order is (thread, ts ascending, dur descending, row) whatever the file's order:
    /// nearly sorted (a few rows set aside and merged back) or not at all (sorted whole).
    #[test]
    fn host_order_sorts_nearly_sorted_and_shuffled_runs() {
        let order_of = |times: &[(i64, i64)]| {
            let mut strings = StringTable::new();
            let mut table = EventTable::default();
            let (pid, tid, cat) = (strings.intern("1"), strings.intern("2"), strings.intern("cpu_op"));
            for (k, &(ts, dur)) in times.iter().enumerate() {
                table.push(NewEvent {
                    index: k as u32,
                    name: cat,
                    cat,
                    ts_ns: ts,
                    dur_ns: dur,
                    pid,
                    tid,
                    stream: NO_STREAM,
                    correlation: -1,
                });
            }
            let mut want: Vec<u32> = (0..times.len() as u32).collect();
            want.sort_by_key(|&r| (times[r as usize].0, std::cmp::Reverse(times[r as usize].1), r));
            (host_order(&table), want)
        };
        // Children first, each parent after them (as written when it closes), equal starts: 50
        // rows of 650 set aside.
        let mut nearly: Vec<(i64, i64)> = Vec::new();
        for step in 0..50 {
            let t = step * 100;
            nearly.extend([(t + 1, 5), (t + 10, 3), (t + 10, 3), (t + 20, 50)]);
            nearly.extend((0..8).map(|k| (t + 30 + k, 1)));
            nearly.push((t, 90));
        }
        let (got, want) = order_of(&nearly);
        assert_eq!(got, want);
        // Backwards: nearly every row is out of place.
        let backwards: Vec<(i64, i64)> = (0..300).rev().map(|k| (k / 3, k % 7)).collect();
        let (got, want) = order_of(&backwards);
        assert_eq!(got, want);
    }

    /// Per event: (owner row, kind), label, graph kernel.
    type Owners = (
        Vec<(u32, crate::model::owners::WorkKind)>,
        Vec<Option<String>>,
        Vec<bool>,
    );

    fn owners_of(events: &[Ev<'_>]) -> Owners {
        let (strings, table) = table_of(events);
        let tree = CallTree::build(&strings, &table);
        let w = &tree.work;
        let labels = (0..table.len())
            .map(|i| w.label(&strings, &table, i, &|s: &str| s.to_string()))
            .collect();
        let owners = (0..table.len()).map(|i| (w.row[i], w.kind[i])).collect();
        (owners, labels, w.graph.clone())
    }

    #[test]
    fn launches_outside_operators_are_owned_by_what_names_their_work() {
        use crate::model::owners::WorkKind;
        let (owners, labels, graph) = owners_of(&[
            ("user_annotation", "step[DECODE bs=16]", 1, 0, 1000, NO_STREAM, -1),
            // 1: a custom op called from Python
            ("python_function", "model.py(10): forward", 1, 10, 100, NO_STREAM, -1),
            (
                "python_function",
                "<built-in method gemm_a16w16 of PyCapsule object at 0x1>",
                1,
                20,
                50,
                NO_STREAM,
                -1,
            ),
            ("cuda_runtime", "cudaLaunchKernel", 1, 30, 5, NO_STREAM, 1),
            ("kernel", "gemm", 0, 2000, 30, 7, 1),
            // 5: a Triton launch: the built-in inside the launcher does not win
            (
                "python_function",
                "triton/runtime/jit.py(708): run",
                1,
                200,
                100,
                NO_STREAM,
                -1,
            ),
            (
                "python_function",
                "<built-in function launch>",
                1,
                210,
                50,
                NO_STREAM,
                -1,
            ),
            ("cuda_driver", "cuLaunchKernel", 1, 220, 5, NO_STREAM, 2),
            ("kernel", "triton_red_fused_0", 0, 2100, 10, 7, 2),
            // 9: straight from the annotation, under a plain frame
            ("python_function", "sched.py(3): run_batch", 1, 400, 100, NO_STREAM, -1),
            ("cuda_runtime", "cudaLaunchKernel", 1, 410, 5, NO_STREAM, 3),
            ("kernel", "resolve_future", 0, 2200, 4, 7, 3),
            // 12: a graph replay from its Python wrapper
            (
                "python_function",
                "torch/cuda/graphs.py(139): replay",
                1,
                600,
                100,
                NO_STREAM,
                -1,
            ),
            ("cuda_runtime", "cudaGraphLaunch", 1, 610, 5, NO_STREAM, 4),
            ("kernel", "nvjet", 0, 2300, 40, 7, 4),
            ("kernel", "rmsnorm", 0, 2340, 5, 7, 4),
            // 16: an ATen operator; a bare launch on another thread; a kernel nothing launched
            ("cpu_op", "aten::mm", 1, 800, 100, NO_STREAM, -1),
            ("cuda_runtime", "cudaLaunchKernel", 1, 810, 5, NO_STREAM, 5),
            ("kernel", "sgemm", 0, 2400, 9, 7, 5),
            ("cuda_runtime", "cudaLaunchKernel", 2, 810, 5, NO_STREAM, 6),
            ("kernel", "bare", 0, 2500, 1, 7, 6),
            ("kernel", "orphan", 0, 2600, 1, 7, 99),
        ]);
        assert_eq!(owners[4], (2, WorkKind::Python));
        assert_eq!(labels[4].as_deref(), Some("gemm_a16w16 [python]"));
        assert_eq!(owners[8], (5, WorkKind::Triton));
        assert_eq!(labels[8].as_deref(), Some("triton_red_fused_0 [triton]"));
        assert_eq!(owners[11], (0, WorkKind::Annotation));
        // The annotation's name as the row's keying makes it: here as recorded.
        assert_eq!(labels[11].as_deref(), Some("step[DECODE bs=16] [annotation]"));
        assert_eq!(owners[14], (12, WorkKind::Python));
        assert_eq!(labels[15].as_deref(), Some("replay [python]"));
        assert!(graph[14] && graph[15] && !graph[4]);
        assert_eq!(owners[18], (16, WorkKind::Operator));
        assert_eq!(labels[18], None);
        assert_eq!(owners[20], (19, WorkKind::Launch));
        assert_eq!(labels[20].as_deref(), Some("cudaLaunchKernel [launch]"));
        assert_eq!(owners[21], (NONE, WorkKind::None));
    }
}
