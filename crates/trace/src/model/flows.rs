//! Where `fwdbwd` flows point (docs/semantics.md#which-events-count, docs/semantics.md#module-aligned-diff): the autograd engine writes a flow from the
//! forward operator that created an autograd node (`ph: "s"`, at the operator's start) to the
//! backward operator that ran it (`ph: "f"`, `bp: "e"`: bound to the enclosing slice).
//!
//! Each end is bound to the innermost host event of its thread that contains its time. On a
//! properly nested thread that event is the last one starting at or before the time, or one of
//! its ancestors in the call tree.

use crate::model::calltree::CallTree;
use crate::model::place::Place;
use crate::model::store::{NameId, TraceFile};
use rustc_hash::FxHashMap;

/// A flow whose two ends both landed on host events: (forward row, backward row).
pub type FlowLink = (u32, u32);

/// The links of every `fwdbwd` flow of `file` with both ends bound, in the order of the finish
/// ends in the file. Where an id has several starts (a trace that reuses ids across steps), a
/// finish takes the latest start at or before it, else the first.
pub fn flow_links(file: &TraceFile) -> Vec<FlowLink> {
    let flows = &file.flows;
    if flows.ends.is_empty() {
        return Vec::new();
    }
    let threads = ThreadIndex::new(file);
    let mut starts: FxHashMap<u64, Vec<(i64, u32)>> = FxHashMap::default();
    for end in flows.ends.iter().filter(|e| e.start) {
        if let Some(row) = threads.innermost(end.thread, end.ts_ns) {
            starts.entry(end.id).or_default().push((end.ts_ns, row));
        }
    }
    for list in starts.values_mut() {
        list.sort_unstable();
    }
    flows
        .ends
        .iter()
        .filter(|e| !e.start)
        .filter_map(|end| {
            let list = starts.get(&end.id)?;
            let before = list.partition_point(|&(ts, _)| ts <= end.ts_ns);
            let forward = list[before.saturating_sub(1)].1;
            let backward = threads.innermost(end.thread, end.ts_ns)?;
            Some((forward, backward))
        })
        .collect()
}

/// The host events of the threads the flows name, each thread's sorted by start.
struct ThreadIndex<'f> {
    file: &'f TraceFile,
    tree: &'f CallTree,
    /// Per flow thread (an index into `FlowEvents::threads`): its host rows by (ts, -dur, row).
    rows: Vec<Vec<u32>>,
}

impl<'f> ThreadIndex<'f> {
    fn new(file: &'f TraceFile) -> Self {
        let ev = &file.events;
        let ids: FxHashMap<(NameId, NameId), usize> = file
            .flows
            .threads
            .iter()
            .enumerate()
            .filter_map(|(k, (pid, tid))| Some(((file.strings.get(pid)?, file.strings.get(tid)?), k)))
            .collect();
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); file.flows.threads.len()];
        for i in 0..ev.len() {
            if ev.place[i] == Place::Host
                && let Some(&k) = ids.get(&(ev.pid[i], ev.tid[i]))
            {
                rows[k].push(i as u32);
            }
        }
        for list in &mut rows {
            list.sort_by_key(|&r| (ev.ts_ns[r as usize], std::cmp::Reverse(ev.dur_ns[r as usize]), r));
        }
        ThreadIndex {
            file,
            tree: file.call_tree(),
            rows,
        }
    }

    /// The innermost host event of `thread` whose window `[ts, ts + dur]` holds `ts_ns`.
    fn innermost(&self, thread: u32, ts_ns: i64) -> Option<u32> {
        let ev = &self.file.events;
        let list = self.rows.get(thread as usize)?;
        let after = list.partition_point(|&r| ev.ts_ns[r as usize] <= ts_ns);
        let last = *list.get(after.checked_sub(1)?)?;
        self.tree
            .up_from(last as usize)
            .find(|&r| ts_ns <= ev.ts_ns[r].saturating_add(ev.dur_ns[r]))
            .map(|r| r as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::attrs::AttrRequest;
    use crate::input::load::trace_from_reader;
    use crate::input::read::Compression;
    use std::path::Path;

    fn load_trace_text(text: &str) -> TraceFile {
        trace_from_reader(
            text.as_bytes(),
            Path::new("t.json"),
            Compression::None,
            &AttrRequest::default(),
        )
        .unwrap()
    }

    #[test]
    fn ends_bind_to_the_innermost_event_and_reused_ids_to_the_latest_start() {
        let file = load_trace_text(
            r#"{"traceEvents": [
              {"ph": "X", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
              {"ph": "X", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 2, "dur": 3},
              {"ph": "X", "cat": "cpu_op", "name": "later", "pid": 1, "tid": 1, "ts": 20, "dur": 5},
              {"ph": "X", "cat": "cpu_op", "name": "bwd1", "pid": 1, "tid": 2, "ts": 12, "dur": 2},
              {"ph": "X", "cat": "cpu_op", "name": "bwd2", "pid": 1, "tid": 2, "ts": 30, "dur": 2},
              {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 2, "cat": "fwdbwd", "name": "fwdbwd"},
              {"ph": "f", "id": 7, "pid": 1, "tid": 2, "ts": 12, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
              {"ph": "s", "id": 7, "pid": 1, "tid": 1, "ts": 20, "cat": "fwdbwd", "name": "fwdbwd"},
              {"ph": "f", "id": 7, "pid": 1, "tid": 2, "ts": 30, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
              {"ph": "s", "id": 8, "pid": 1, "tid": 1, "ts": 6, "cat": "fwdbwd", "name": "fwdbwd"},
              {"ph": "f", "id": 8, "pid": 1, "tid": 2, "ts": 100, "cat": "fwdbwd", "name": "fwdbwd"},
              {"ph": "f", "id": 9, "pid": 1, "tid": 2, "ts": 12, "cat": "fwdbwd", "name": "fwdbwd"}
            ]}"#,
        );
        let name = |row: u32| file.strings.resolve(file.events.name[row as usize]).to_string();
        let links: Vec<(String, String)> = flow_links(&file).into_iter().map(|(f, b)| (name(f), name(b))).collect();
        // id 8 ends where no event is (ts 100), id 9 has no start: no links.
        assert_eq!(
            links,
            [
                ("inner".to_string(), "bwd1".to_string()),
                ("later".to_string(), "bwd2".to_string())
            ]
        );
    }
}
