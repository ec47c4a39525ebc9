use super::*;

/// A thread's rows: (name, calls, own ns), total = own.
fn rows(list: &[(&str, u64, i64)]) -> BTreeMap<String, (u64, i64, i64)> {
    list.iter().map(|&(n, c, ns)| (n.to_string(), (c, ns, ns))).collect()
}

const MAIN: [(&str, u64, i64); 6] = [
    ("ProfilerStep#*", 1, 0),
    ("aten::conv2d", 1, 400),
    ("aten::linear", 1, 250),
    ("aten::batch_norm", 1, 150),
    ("aten::softmax", 1, 80),
    ("aten::mm", 1, 100),
];
const BACKWARD: [(&str, u64, i64); 6] = [
    ("aten::convolution_backward", 1, 600),
    ("aten::native_batch_norm_backward", 1, 200),
    ("aten::mm", 2, 300),
    ("aten::threshold_backward", 1, 70),
    ("aten::sum", 1, 50),
    ("aten::_softmax_backward_data", 1, 90),
];

/// One file's threads: the main thread (0, with the steps) and the backward thread (1), the
/// backward rows × `factor` (each row also × its own `jitter`), the step as long as both.
fn file(factor: f64, jitter: &[f64]) -> FileThreads {
    let backward: Vec<(&str, u64, i64)> = BACKWARD
        .iter()
        .zip(jitter.iter().chain(std::iter::repeat(&1.0)))
        .map(|(&(n, c, ns), j)| (n, c, (ns as f64 * factor * j) as i64))
        .collect();
    let mut main = rows(&MAIN);
    let step: i64 = MAIN.iter().map(|r| r.2).sum::<i64>() + backward.iter().map(|r| r.2).sum::<i64>();
    main.insert("ProfilerStep#*".to_string(), (1, step, 0));
    FileThreads {
        rows: BTreeMap::from([(0, main), (1, rows(&backward))]),
        stepping: vec![0],
    }
}

fn applied(threads: Vec<ThreadShift>) -> RunShift {
    RunShift {
        applied: true,
        threads,
        ..RunShift::default()
    }
}

#[test]
fn a_thread_that_moved_alone_is_found_and_named() {
    let c = file(1.0, &[]);
    let t = file(1.5, &[1.02, 0.97, 1.01, 1.03, 0.99, 1.0]);
    let found = rank_threads(0, PerSide::new(&c, &t), PerSide::new(1.0, 1.0), 10.0);
    assert_eq!(found.len(), 1, "{found:?}");
    let s = &found[0];
    assert_eq!(s.thread, "aten::convolution_backward");
    assert!((s.shift.factor - 1.5).abs() < 0.05, "{s:?}");
    assert!((s.share - 1310.0 / 2290.0).abs() < 1e-9, "{s:?}");
    // The same program: nothing moved.
    assert!(rank_threads(0, PerSide::new(&c, &file(1.02, &[])), PerSide::new(1.0, 1.0), 10.0).is_empty());
}

#[test]
fn a_count_change_on_the_thread_is_the_program() {
    let c = file(1.0, &[]);
    let mut t = file(1.5, &[]);
    if let Some(mm) = t.rows.get_mut(&1).and_then(|r| r.get_mut("aten::mm")) {
        mm.0 = 3;
    }
    assert!(rank_threads(0, PerSide::new(&c, &t), PerSide::new(1.0, 1.0), 10.0).is_empty());
}

#[test]
fn threads_are_matched_by_the_rows_they_ran_not_by_number() {
    let c = file(1.0, &[]);
    let t0 = file(1.5, &[]);
    // The test process numbered its threads the other way round.
    let t = FileThreads {
        rows: BTreeMap::from([(0, t0.rows[&1].clone()), (1, t0.rows[&0].clone())]),
        stepping: vec![1],
    };
    let found = rank_threads(0, PerSide::new(&c, &t), PerSide::new(1.0, 1.0), 10.0);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].thread, "aten::convolution_backward");
    // Per-step means: 2 steps against 1, the same per step.
    let mut twice = file(1.5, &[]);
    for rows in twice.rows.values_mut() {
        for v in rows.values_mut() {
            *v = (v.0 * 2, v.1 * 2, v.2 * 2);
        }
    }
    assert_eq!(
        rank_threads(0, PerSide::new(&c, &twice), PerSide::new(1.0, 2.0), 10.0).len(),
        1
    );
}

#[test]
fn a_row_takes_the_factor_of_the_threads_its_time_ran_on() {
    let c = file(1.0, &[]);
    let t = file(1.5, &[]);
    let shift = applied(rank_threads(0, PerSide::new(&c, &t), PerSide::new(1.0, 1.0), 10.0));
    let factor = |key: &str, own: bool| row_shift(&shift, key, false, own).map(|s| s.factor);
    assert_eq!(factor("aten::convolution_backward", true), Some(1.5));
    // aten::mm: 100 ns on the main thread, 300 on the backward thread.
    assert_eq!(factor("aten::mm", false), Some(1.0 + 0.75 * 0.5));
    // The main thread's own rows held.
    assert_eq!(factor("aten::conv2d", false), None);
    // The step waits for the backward thread: 1310 of its 2290 ns.
    let step = factor("ProfilerStep#*", false).unwrap_or_default();
    assert!((step - (1.0 + 0.5 * 1310.0 / 2290.0)).abs() < 1e-9, "{step}");
    // Device rows, and a shift not applied (--no-run-shift), take none.
    assert_eq!(row_shift(&shift, "aten::mm", true, false), None);
    let plain = RunShift {
        applied: false,
        ..shift.clone()
    };
    assert_eq!(row_shift(&plain, "aten::mm", false, false), None);
    assert_eq!(thread_log_factor(&plain, "aten::mm", false, false), 0.0);
    assert!((thread_log_factor(&shift, "aten::convolution_backward", false, true) - 1.5f64.ln()).abs() < 1e-12);
    // The note names the thread and how it was judged.
    let note = threads_note(&shift, PerSide::new("control", "test"), "rows").unwrap_or_default();
    assert!(
        note.contains("the thread that ran `aten::convolution_backward`"),
        "{note}"
    );
    assert!(note.contains("runs 50% slower in test (×1.50"), "{note}");
    assert!(
        threads_note(&plain, PerSide::new("control", "test"), "rows")
            .is_some_and(|n| n.contains("--no-run-shift asks"))
    );
    let mut gate = shift.clone();
    not_per_thread(&mut gate);
    assert!(gate.threads.is_empty() && !gate.applied);
}

#[test]
fn a_small_thread_is_not_looked_at() {
    let mut c = file(1.0, &[]);
    let mut t = file(1.0, &[]);
    // A third thread of a few short calls, twice as slow in test.
    let small = [
        ("aten::copy_", 1, 5),
        ("aten::to", 1, 4),
        ("aten::empty", 1, 3),
        ("aten::a", 1, 2),
        ("aten::b", 1, 1),
    ];
    c.rows.insert(2, rows(&small));
    t.rows.insert(2, rows(&small.map(|(n, k, ns)| (n, k, ns * 2))));
    assert!(rank_threads(0, PerSide::new(&c, &t), PerSide::new(1.0, 1.0), 0.0).is_empty());
}
