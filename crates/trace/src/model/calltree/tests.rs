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
