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
mod tests;
