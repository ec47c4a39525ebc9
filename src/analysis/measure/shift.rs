//! The run-wide shift of a pair, found once for `compare`, the views and `modules`
//! (docs/significance.md#a-run-wide-shift): the per-step own times (self times on the host,
//! durations on the device) of both sides, looked at by [`crate::analysis::measure::noise::run_shift`].
//! Its input is the sides' summaries, whose rows carry their own times: `compare` has them from
//! its one read, the views make them from the traces they hold.

use crate::analysis::aggregate::Keying;
use crate::analysis::measure::noise::{MIN_STEP_SHARE, RunShift, SHIFT_WITHIN, Shift, ShiftRow, mean, run_shift};
use crate::analysis::measure::per_step::{Samples, Times, measure_times};
use crate::analysis::select::{Device, Resolved};
use crate::error::Result;
use crate::input::load::SummarySide;
use crate::request::side::PerSide;

/// The shifts of host and device time of a pair of sides as summaries (`sides`: control, test)
/// whose selections (`resolved`) both have ProfilerSteps, over the places `device` admits, from
/// the rows' own times ([`Times::Own`]). Rows are keyed as `keying` keys a table's
/// rows. `applied` is `beyond` where a shift was found. No shift where a summary holds no own
/// times ([`crate::model::summary::FileSummary::has_own_times`]).
pub(crate) fn detect(
    sides: PerSide<&SummarySide>,
    resolved: PerSide<&Resolved>,
    device: Device,
    keying: &Keying,
    beyond: bool,
) -> Result<RunShift> {
    let mut shift = RunShift::default();
    if resolved.iter().any(|(_, r)| r.iterations.is_none()) || !has_own_times(sides) {
        return Ok(shift);
    }
    let own = |side: &SummarySide, resolved: &Resolved, place: Device| {
        measure_times(side, resolved, (place, keying, false), Times::Own)
    };
    for (place, slot) in [(Device::Cpu, &mut shift.host), (Device::Gpu, &mut shift.device)] {
        if device == Device::All || device == place {
            let cs = own(sides.control, resolved.control, place)?;
            let ts = own(sides.test, resolved.test, place)?;
            // The significance floor, over which rows also tell how rows scatter around the factor.
            let step_ns: Vec<f64> = cs.step_ns.iter().map(|&n| n as f64).collect();
            *slot = run_shift(&shift_rows(&cs, &ts), MIN_STEP_SHARE * mean(&step_ns));
        }
    }
    // Where the host as a whole did not move, one of its threads may have.
    if shift.host.is_none() && device != Device::Gpu {
        shift.threads = crate::analysis::measure::threads::detect_threads(sides, resolved, keying);
    }
    shift.applied = beyond && (shift.found() || !shift.threads.is_empty());
    Ok(shift)
}

/// Whether every file of both sides carries own times.
pub(crate) fn has_own_times(sides: PerSide<&SummarySide>) -> bool {
    sides.iter().all(|(_, s)| s.files.iter().all(|f| f.has_own_times()))
}

/// Per row key but the steps' own spans: the (control, test) per-step means and whether both
/// sides ran it as often per step.
fn shift_rows(c: &Samples, t: &Samples) -> Vec<ShiftRow> {
    let mut names: Vec<&String> = c.ops.keys().chain(t.ops.keys()).collect();
    names.sort_unstable();
    names.dedup();
    let calls = |s: &Samples, name: &str| -> u64 { s.op(name).iter().map(|x| x.0).sum() };
    names
        .into_iter()
        .filter(|n| !n.starts_with("ProfilerStep"))
        .map(|n| {
            // Calls per step equal: total_c / samples_c == total_t / samples_t.
            let same = u128::from(calls(c, n)) * t.keys.len() as u128 == u128::from(calls(t, n)) * c.keys.len() as u128;
            ShiftRow {
                control_ns: mean(&c.durations(n)),
                test_ns: mean(&t.durations(n)),
                same_calls: same,
            }
        })
        .collect()
}

/// The shift a row's control samples are scaled by before its significance is judged: the host
/// or device shift, by where the row's events ran (`on_device`), where `shift.applied`.
pub(crate) fn shift_of(shift: &RunShift, on_device: bool) -> Option<&Shift> {
    if !shift.applied {
        return None;
    }
    if on_device {
        shift.device.as_ref()
    } else {
        shift.host.as_ref()
    }
}

/// The note on a run-wide shift of host or device time: real for these two runs, more likely
/// the machine's doing than the program's, and what significance was judged against (`what`:
/// `rows`, `nodes`).
pub(crate) fn shift_note(shift: &RunShift, labels: PerSide<&str>, what: &str) -> Option<String> {
    let moved = how_the_run_moved(shift, labels)?;
    let judged = if shift.applied {
        format!(
            "{what} are judged against it: significant means beyond it and beyond that scatter (--no-run-shift \
             judges them against no change)"
        )
    } else {
        format!("as --no-run-shift asks, {what} are judged against no change, so their marks include it")
    };
    Some(format!(
        "{moved}; this looks like the machine (load, clock speed, another host) rather than the program, and \
         {judged} (docs/significance.md#a-run-wide-shift)"
    ))
}

/// The gate's note on a run-wide shift. By default (`beyond_run_shift`, `shift.applied`) the
/// timing rules judged the host's time beyond it: the note says so. With `--no-run-shift` its
/// rules judge the change itself, shift included (a machine 40% slower is a real 40% for a rule
/// on the step time), so a rule may fail for the machine's sake: the note says that instead.
/// A device that moved as a whole is named and judged against no change either way.
pub(crate) fn gate_shift_note(shift: &RunShift, labels: PerSide<&str>) -> Option<String> {
    let moved = how_the_run_moved(shift, labels)?;
    let judged = if shift.applied {
        "The timing rules judged the change beyond it (--beyond-run-shift, the default): each baseline time on \
         the host was scaled by its factor, so a rule fails only for what moved more than the whole run did \
         (device time is judged against no change: it holds still between processes)"
    } else {
        "The gate's rules judge the change itself, this shift included: a timing rule may fail for it. Run both \
         sides on one machine, or judge the timing rules beyond it (leave out --no-run-shift, \
         `beyond_run_shift = false`)"
    };
    Some(format!(
        "{moved}; this looks like the machine (load, clock speed, another host) rather than the program. {judged} \
         (docs/significance.md#a-run-wide-shift)"
    ))
}

/// "the whole run moved: on host, …; on device, …", or `None` where neither moved.
fn how_the_run_moved(shift: &RunShift, labels: PerSide<&str>) -> Option<String> {
    let parts: Vec<String> = [("host", shift.host), ("device", shift.device)]
        .into_iter()
        .filter_map(|(kind, s)| {
            let s = s?;
            let pct = (s.factor - 1.0).abs() * 100.0;
            let way = if s.factor > 1.0 { "slower" } else { "faster" };
            Some(format!(
                "on {kind}, {} runs {pct:.0}% {way} than {} (×{:.2}: the time-weighted median over its {} largest \
                 rows by own time, {:.0}% of that time within ±{:.0}% of it; single rows scatter around it by ×{:.2})",
                labels.test,
                labels.control,
                s.factor,
                s.rows,
                s.agreeing * 100.0,
                SHIFT_WITHIN * 100.0,
                s.spread.exp()
            ))
        })
        .collect();
    (!parts.is_empty()).then(|| format!("the whole run moved: {}", parts.join("; ")))
}
