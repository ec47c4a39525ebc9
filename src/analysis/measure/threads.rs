//! The thread-level shift (docs/significance.md#a-thread-that-moved): beside the run-wide shift,
//! one host thread of a process can run slower or faster as a whole, every step alike, while
//! the others hold (the autograd engine's thread of a GPU training loop, a dataloader's pin
//! thread). Two recordings of one program differ that way, and judged against their steps every
//! large row of that thread is "significant". Where no run-wide host shift was found, each host
//! thread of a rank is matched with the test side's thread that ran the same rows, and the
//! run-wide detector ([`crate::analysis::measure::noise::run_shift`]) looks at that thread's own times
//! alone; a thread whose large rows all moved by one factor is named, and each row is judged
//! beyond the factor of the threads its time ran on.

use crate::analysis::aggregate::{Keying, PYTHON_FRAME_CATEGORY};
use crate::analysis::measure::noise::RunShift;
pub(crate) use crate::analysis::measure::noise::ThreadShift;
use crate::analysis::measure::noise::{MIN_STEP_SHARE, SHIFT_WITHIN, Shift, ShiftRow, mean, run_shift};
use crate::analysis::select::Resolved;
use crate::input::load::SummarySide;
use crate::model::summary::FileSummary;
use crate::request::side::PerSide;
use std::collections::BTreeMap;

/// A thread must hold at least this share of its file's host own time to be looked at: a
/// thread of a few short calls says nothing of a process.
pub(crate) const MIN_THREAD_SHARE: f64 = 0.05;

/// A test thread is the control thread's counterpart when at least this share of the control
/// thread's own time lies in rows the test thread also ran.
pub(crate) const MIN_OVERLAP: f64 = 0.5;

/// Per thread of one file: per row key, (count, total ns, own ns) summed over the selected
/// iterations; per thread, whether it ran a ProfilerStep.
struct FileThreads {
    rows: BTreeMap<u32, BTreeMap<String, (u64, i64, i64)>>,
    stepping: Vec<u32>,
}

/// The threads of `file` over `iterations`, rows keyed as `keying` keys a table's rows.
fn file_threads(file: &FileSummary, iterations: &[i64], keying: &Keying) -> FileThreads {
    let mut out = FileThreads {
        rows: BTreeMap::new(),
        stepping: Vec::new(),
    };
    for r in file
        .threads
        .iter()
        .filter(|r| iterations.binary_search(&r.iteration).is_ok())
    {
        let name = file.text(r.name);
        if name.starts_with("ProfilerStep") {
            out.stepping.push(r.thread);
        }
        let frame = file.text(r.category) == PYTHON_FRAME_CATEGORY;
        if frame && keying.skip_python_frames {
            continue;
        }
        let slot = out
            .rows
            .entry(r.thread)
            .or_default()
            .entry(keying.row_key(name, false))
            .or_default();
        slot.0 += r.count;
        slot.1 += r.total_ns;
        // Frames nest around operators: their own times are looked at by no detector.
        slot.2 += if frame { 0 } else { r.self_ns };
    }
    out.stepping.sort_unstable();
    out.stepping.dedup();
    out
}

/// Own time of a thread's rows, steps' spans left out.
fn own_ns(rows: &BTreeMap<String, (u64, i64, i64)>) -> i64 {
    rows.iter()
        .filter(|(k, _)| !k.starts_with("ProfilerStep"))
        .map(|(_, v)| v.2)
        .sum()
}

/// The test thread that ran the rows of control thread `c` (most of its own time in names the
/// test thread also ran), among those not yet `taken`.
fn counterpart(
    c: &BTreeMap<String, (u64, i64, i64)>,
    test: &BTreeMap<u32, BTreeMap<String, (u64, i64, i64)>>,
    taken: &[u32],
) -> Option<u32> {
    let total = own_ns(c).max(1) as f64;
    let overlap = |t: &BTreeMap<String, (u64, i64, i64)>| {
        c.iter()
            .filter(|(k, _)| t.contains_key(*k))
            .map(|(_, v)| v.2.max(0))
            .sum::<i64>() as f64
            / total
    };
    test.iter()
        .filter(|(id, _)| !taken.contains(id))
        .map(|(id, t)| (*id, overlap(t)))
        .filter(|(_, o)| *o >= MIN_OVERLAP)
        // The largest overlap; among equal ones, the lowest thread number.
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(id, _)| id)
}

/// The thread shifts of a pair of sides whose selections have ProfilerSteps (`sides`: control,
/// test), one run each: per rank selected on both, each control thread holding at least
/// [`MIN_THREAD_SHARE`] of the host own time with its test counterpart. Rows are keyed as
/// `keying` keys a table's. Empty where a file holds one host thread.
pub(crate) fn detect_threads(
    sides: PerSide<&SummarySide>,
    resolved: PerSide<&Resolved>,
    keying: &Keying,
) -> Vec<ThreadShift> {
    let (Some(c_its), Some(t_its)) = (&resolved.control.iterations, &resolved.test.iterations) else {
        return Vec::new();
    };
    let (mut c_its, mut t_its) = (c_its.clone(), t_its.clone());
    c_its.sort_unstable();
    t_its.sort_unstable();
    let mut found = Vec::new();
    for (&c_rank, &t_rank) in resolved.control.ranks.iter().zip(&resolved.test.ranks) {
        let (Some(cf), Some(tf)) = (sides.control.file_of_rank(c_rank), sides.test.file_of_rank(t_rank)) else {
            continue;
        };
        if cf.threads.is_empty() || tf.threads.is_empty() {
            continue;
        }
        let steps: Vec<f64> = cf
            .meta
            .iterations
            .iter()
            .filter(|s| c_its.binary_search(&s.iteration).is_ok())
            .map(|s| s.step_ns as f64)
            .collect();
        let floor = MIN_STEP_SHARE * mean(&steps);
        let (c, t) = (file_threads(cf, &c_its, keying), file_threads(tf, &t_its, keying));
        let n = PerSide::new(c_its.len().max(1) as f64, t_its.len().max(1) as f64);
        found.extend(rank_threads(c_rank, PerSide::new(&c, &t), n, floor));
    }
    found
}

/// The shifted threads of one rank's files (`files`: control, test; `n`: their selected steps).
fn rank_threads(rank: i64, files: PerSide<&FileThreads>, n: PerSide<f64>, floor: f64) -> Vec<ThreadShift> {
    let PerSide { control: c, test: t } = files;
    let all: i64 = c.rows.values().map(own_ns).sum();
    // Control threads, largest own time first (ties: the lower number).
    let mut order: Vec<(&u32, i64)> = c.rows.iter().map(|(id, rows)| (id, own_ns(rows))).collect();
    order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut taken = Vec::new();
    let mut found = Vec::new();
    for (id, own) in order {
        if all <= 0 || (own as f64) < MIN_THREAD_SHARE * all as f64 {
            continue;
        }
        let Some(tid) = counterpart(&c.rows[id], &t.rows, &taken) else {
            continue;
        };
        taken.push(tid);
        let (cr, tr) = (&c.rows[id], &t.rows[&tid]);
        let rows: Vec<ShiftRow> = cr
            .keys()
            .chain(tr.keys().filter(|k| !cr.contains_key(*k)))
            .filter(|k| !k.starts_with("ProfilerStep"))
            .map(|k| {
                let (cv, tv) = (
                    cr.get(k).copied().unwrap_or_default(),
                    tr.get(k).copied().unwrap_or_default(),
                );
                ShiftRow {
                    control_ns: cv.2 as f64 / n.control,
                    test_ns: tv.2 as f64 / n.test,
                    same_calls: cv.0 as f64 / n.control == tv.0 as f64 / n.test,
                }
            })
            .collect();
        let Some(shift) = run_shift(&rows, floor) else {
            continue;
        };
        found.push(ThreadShift {
            rank,
            thread: thread_label(cr, c.stepping.contains(id)),
            share: own as f64 / all as f64,
            shift,
            rows: row_shares(c, *id),
        });
    }
    found
}

/// `main` for the thread of the ProfilerSteps, else its largest row by total time.
fn thread_label(rows: &BTreeMap<String, (u64, i64, i64)>, stepping: bool) -> String {
    if stepping {
        return "main".to_string();
    }
    rows.iter()
        .max_by(|a, b| a.1.1.cmp(&b.1.1).then(b.0.cmp(a.0)))
        .map_or_else(String::new, |(k, _)| k.clone())
}

/// Per row key of control's threads: the share of its (total, own) time that ran on `thread`.
/// The step (`ProfilerStep#*`, on the main thread) waits for the work of every thread: the
/// share of its total time is the thread's own time over the step's (a thread ×1.5 slower
/// that holds 40% of the step makes it ×1.2).
fn row_shares(c: &FileThreads, thread: u32) -> BTreeMap<String, [f64; 2]> {
    let mut sums: BTreeMap<&String, ([i64; 2], [i64; 2])> = BTreeMap::new();
    for (id, rows) in &c.rows {
        for (k, v) in rows {
            let s = sums.entry(k).or_default();
            s.0[0] += v.1;
            s.0[1] += v.2;
            if *id == thread {
                s.1[0] += v.1;
                s.1[1] += v.2;
            }
        }
    }
    let share = |part: i64, all: i64| {
        if all > 0 {
            (part as f64 / all as f64).clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let own = c.rows.get(&thread).map_or(0, own_ns);
    let stepping = c.stepping.contains(&thread);
    sums.into_iter()
        .map(|(k, (all, on))| {
            if k.starts_with("ProfilerStep") && !stepping {
                (k.clone(), [share(own, all[0]), 0.0])
            } else {
                (k.clone(), [share(on[0], all[0]), share(on[1], all[1])])
            }
        })
        .filter(|(_, s)| s[0] > 0.0 || s[1] > 0.0)
        .collect()
}

/// The shift a row's control samples are scaled by, where `shift.applied`: the run-wide shift
/// of where it ran (host or device), else, for a host row, the blend of the thread shifts its
/// time ran under (`own`: weighed by own time, else by total time). `None` where neither applies.
pub(crate) fn row_shift(shift: &RunShift, key: &str, on_device: bool, own: bool) -> Option<Shift> {
    if !shift.applied {
        return None;
    }
    if let Some(s) = if on_device { shift.device } else { shift.host } {
        return Some(s);
    }
    if on_device {
        return None;
    }
    let mut factor = 1.0;
    let (mut error, mut spread, mut rows, mut on) = (0.0f64, 0.0f64, 0, 0.0);
    for t in &shift.threads {
        let Some(share) = t.rows.get(key).map(|s| s[usize::from(own)]) else {
            continue;
        };
        if share <= 0.0 {
            continue;
        }
        factor += share * (t.shift.factor - 1.0);
        error = error.max(t.shift.error);
        spread = spread.max(t.shift.spread);
        rows = rows.max(t.shift.rows);
        on += share;
    }
    (on > 0.0).then_some(Shift {
        factor,
        agreeing: on.min(1.0),
        rows,
        error,
        spread,
    })
}

/// ln of the factor a row moved by with its threads (`own`: weighed by own time), for the
/// scatter of a one-run pair's rows ([`crate::analysis::measure::one_run::PairRow::moved_with`]); 0
/// where no thread shift applies to it.
pub(crate) fn thread_log_factor(shift: &RunShift, key: &str, on_device: bool, own: bool) -> f64 {
    if shift.threads.is_empty() || shift.host.is_some() || on_device {
        return 0.0;
    }
    row_shift(shift, key, false, own).map_or(0.0, |s| s.factor.ln())
}

/// `shift` without its thread shifts, for what judges beyond the run's shifts alone (the gate,
/// module nodes): `applied` only where a run-wide shift remains.
pub(crate) fn not_per_thread(shift: &mut RunShift) {
    shift.threads.clear();
    shift.applied = shift.applied && shift.found();
}

/// The note on threads that moved (`what`: `rows`), or `None` where none did.
pub(crate) fn threads_note(shift: &RunShift, labels: PerSide<&str>, what: &str) -> Option<String> {
    let moved: Vec<String> = shift
        .threads
        .iter()
        .map(|t| {
            let s = &t.shift;
            let pct = (s.factor - 1.0).abs() * 100.0;
            let way = if s.factor > 1.0 { "slower" } else { "faster" };
            let thread = if t.thread == "main" {
                "the main thread (the ProfilerSteps')".to_string()
            } else {
                format!("the thread that ran `{}`", t.thread)
            };
            format!(
                "on rank {}, {thread} ({:.0}% of {}'s host time) runs {pct:.0}% {way} in {} (×{:.2}: the \
                 time-weighted median over its {} largest rows by own time, {:.0}% of that time within ±{:.0}% of \
                 it; single rows scatter around it by ×{:.2})",
                t.rank,
                t.share * 100.0,
                labels.control,
                labels.test,
                s.factor,
                s.rows,
                s.agreeing * 100.0,
                SHIFT_WITHIN * 100.0,
                s.spread.exp()
            )
        })
        .collect();
    if moved.is_empty() {
        return None;
    }
    let judged = if shift.applied {
        format!(
            "its {what} are judged against it: significant means beyond it (--no-run-shift judges them against \
             no change)"
        )
    } else {
        format!("as --no-run-shift asks, {what} are judged against no change, so their marks include it")
    };
    Some(format!(
        "one thread moved as a whole: {}, while the run as a whole did not; this looks like the process (that \
         thread's scheduling, its core's clock) rather than the program, and {judged} \
         (docs/significance.md#a-thread-that-moved)",
        moved.join("; ")
    ))
}

#[cfg(test)]
mod tests;
