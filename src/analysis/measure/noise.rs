//! Run-to-run noise, one statistic for the gate and for every table's `significant` column
//! (docs/significance.md).
//!
//! A side's samples are its per-step values, one per selected (rank, ProfilerStep). The noise
//! band of a pair is `k` × the pooled scaled MAD of both sides' samples (MAD × 1.4826 estimates
//! σ for normal noise; pooled as the root mean square of the two). A change is significant when
//! it exceeds the band and matters for the step (a share of the mean step time).

use crate::request::side::{PerSide, SideId};
use serde::{Deserialize, Serialize};

/// The fewest samples per side from which a band is estimated for a table row.
pub(crate) const MIN_SAMPLES: usize = 3;

/// Default k: a change must exceed 3 × the pooled scaled MAD (≈ 3 σ for normal noise).
pub(crate) const DEFAULT_K: f64 = 3.0;

/// A row whose per-step change is under this share of the mean step time is never significant:
/// too small to matter for the step, however steady.
pub(crate) const MIN_STEP_SHARE: f64 = 0.01;

/// The note where significance cannot be estimated because a side has no steps: named by
/// `step_marker` (`--step-marker`) where one is given, else by ProfilerStep.
pub(crate) fn no_steps_note(step_marker: Option<&str>) -> String {
    match step_marker {
        Some(pattern) => {
            format!("significant is null: it is estimated per step, and --step-marker '{pattern}' names none on a side")
        }
        None => "significant is null: it is estimated per ProfilerStep, and a side has none".to_string(),
    }
}

/// The note given when a side has fewer than [`MIN_SAMPLES`] (rank, step) samples: what each
/// side has, and `--iteration all` only where a side's traces hold more steps than were used.
/// `labels`: the sides' names; `selected`: samples per side; `selected_steps`: steps used per
/// rank; `available_steps`: the most steps one rank's trace holds, per side.
pub(crate) fn too_few_samples_note(
    labels: PerSide<&str>,
    selected: PerSide<usize>,
    selected_steps: PerSide<usize>,
    available_steps: PerSide<usize>,
) -> String {
    let more = SideId::BOTH.iter().any(|&id| available_steps[id] > selected_steps[id]);
    let hint = if more {
        format!(
            "; the traces hold {} and {} steps per rank: --iteration all uses them",
            crate::text::fmt_count(available_steps.control),
            crate::text::fmt_count(available_steps.test)
        )
    } else {
        "; the traces hold no more steps: record more, or compare more ranks".to_string()
    };
    format!(
        "significant is null: it needs {MIN_SAMPLES} or more steps (ranks × steps) per side; {} has {} \
         selected, {} {}{hint}",
        labels.control, selected.control, labels.test, selected.test
    )
}

/// How many distinct step numbers `numbers` holds (a step can have both a host and a device
/// ProfilerStep: `vit_precision`'s 3 steps are 6 spans), for [`too_few_samples_note`].
pub(crate) fn distinct_steps(numbers: impl Iterator<Item = i64>) -> usize {
    let mut numbers: Vec<i64> = numbers.filter(|&n| n >= 0).collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers.len()
}

/// The arithmetic mean of `v`; 0 for no value.
pub(crate) fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The median of `v` (the mean of the middle two for an even count); 0 for no value.
pub(crate) fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    // Selection, not a sort: a table row's median over thousands of steps stays linear.
    let mut s = v.to_vec();
    let n = s.len();
    let (below, &mut upper, _) = s.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        upper
    } else {
        let lower = below.iter().copied().max_by(f64::total_cmp).unwrap_or(upper);
        (lower + upper) / 2.0
    }
}

/// Median absolute deviation, scaled by 1.4826 so that it estimates σ for normal noise.
pub(crate) fn scaled_mad(v: &[f64]) -> f64 {
    let m = median(v);
    let dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    1.4826 * median(&dev)
}

/// `k` × the pooled scaled MAD of two sets of samples, in their unit.
pub(crate) fn noise_band(control: &[f64], test: &[f64], k: f64) -> f64 {
    let (mc, mt) = (scaled_mad(control), scaled_mad(test));
    k * ((mc * mc + mt * mt) / 2.0).sqrt()
}

/// Whether the per-step means of two sides differ beyond the noise band and by more than
/// `floor` (in the samples' unit), and their medians too, the same way: the band is a robust
/// scale (the MAD ignores a step that a preemption made 60 times as long), so the change it
/// judges must be robust as well; a mean alone moves with one such step. `None` with fewer
/// than [`MIN_SAMPLES`] samples on a side.
pub(crate) fn significant(control: &[f64], test: &[f64], k: f64, floor: f64) -> Option<bool> {
    if control.len() < MIN_SAMPLES || test.len() < MIN_SAMPLES {
        return None;
    }
    let change = robust_change(mean(test) - mean(control), median(test) - median(control));
    Some(change > noise_band(control, test, k) && change > floor)
}

/// The smaller of a change of means and a change of medians where both go the same way, else
/// 0 (docs/significance.md#significance-of-a-row-compare-operators-kernels).
pub(crate) fn robust_change(of_means: f64, of_medians: f64) -> f64 {
    if of_means.signum() == of_medians.signum() {
        of_means.abs().min(of_medians.abs())
    } else {
        0.0
    }
}

/// `band` (the noise band of the scaled control and the test samples, in their unit) widened in
/// quadrature by what a run-wide shift leaves unsure at `expected` (the scaled control): k × the
/// factor's standard error × `expected`, and how far single rows scatter around the factor
/// (`expected` × (e^(k × spread) − 1) above it (`up`), × (1 − e^(−k × spread)) below).
pub(crate) fn shift_band(band: f64, expected: f64, up: bool, k: f64, shift: &Shift) -> f64 {
    let of_factor = k * shift.error * expected;
    let of_rows = if up {
        expected * (k * shift.spread).exp_m1()
    } else {
        -expected * (-k * shift.spread).exp_m1()
    };
    band.hypot(of_factor).hypot(of_rows)
}

/// Whether the per-step means of two sides differ beyond the noise band and by more than
/// `floor`, once the control side is scaled by a run-wide shift ([`run_shift`]): the change
/// judged is |mean(test) − factor × mean(control)|, and the band is that of the scaled control
/// samples and the test samples, widened in quadrature by the factor's own uncertainty (k × its
/// standard error × the scaled control mean) and by how far single rows scatter around it
/// (the scaled control mean × (e^(k × spread) − 1) above it, × (1 − e^(−k × spread)) below:
/// k spreads either way on a log scale). `None` shift: [`significant`].
pub(crate) fn significant_beyond(
    control: &[f64],
    test: &[f64],
    k: f64,
    floor: f64,
    shift: Option<&Shift>,
) -> Option<bool> {
    let Some(shift) = shift else {
        return significant(control, test, k, floor);
    };
    if control.len() < MIN_SAMPLES || test.len() < MIN_SAMPLES {
        return None;
    }
    let scaled: Vec<f64> = control.iter().map(|x| x * shift.factor).collect();
    let expected = mean(&scaled);
    let moved = mean(test) - expected;
    let change = robust_change(moved, median(test) - median(&scaled));
    let band = shift_band(noise_band(&scaled, test, k), expected, moved >= 0.0, k, shift);
    Some(change > band && change > floor)
}

/// A run-wide shift: most of one side's time moved by one factor (docs/significance.md).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Shift {
    /// test ÷ control of the per-step means, the time-weighted median over the rows looked at.
    pub factor: f64,
    /// The share of those rows' time whose own ratio lies within ±[`SHIFT_WITHIN`] of it.
    pub agreeing: f64,
    /// How many rows were looked at.
    pub rows: usize,
    /// The factor's standard error, relative to it: the scaled MAD of those rows' ratios ÷ the
    /// factor ÷ √rows (rows judged beyond the shift allow for it).
    #[serde(default)]
    pub error: f64,
    /// How far single rows' own factors scatter around it: the scaled MAD of ln(row's ratio ÷
    /// factor) over the rows looked at and every other row above the significance floor that
    /// ran as often per step on both sides ([`factor_spread`]). A row is judged beyond it too.
    #[serde(default)]
    pub spread: f64,
}

/// One host thread whose large rows all moved by one factor, the rest of the run not alike
/// (docs/significance.md#a-thread-that-moved; found by [`crate::analysis::measure::threads`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ThreadShift {
    /// The rank whose thread it is.
    pub rank: i64,
    /// The thread as notes name it: `main` (the thread of the ProfilerSteps) or the largest
    /// row it ran (by total time on the control side).
    pub thread: String,
    /// Its share of control's host own time on that rank.
    pub share: f64,
    /// Its shift, as the run-wide detector measures one over the thread's rows alone.
    pub shift: Shift,
    /// Per row key: the share of the row's control time that ran on this thread, (total, own).
    #[serde(skip)]
    pub rows: std::collections::BTreeMap<String, [f64; 2]>,
}

/// One independent row for [`run_shift`]: its per-step mean time on each side (a self time, or
/// the time of events that never nest, such as kernels) and whether it ran as many times per
/// step on both sides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ShiftRow {
    /// Control's mean per step, in ns.
    pub control_ns: f64,
    /// Test's mean per step, in ns.
    pub test_ns: f64,
    /// Whether both sides ran it the same number of times per step.
    pub same_calls: bool,
}

/// The rows looked at for a shift: the largest, until they hold this share of the time...
pub(crate) const SHIFT_COVER: f64 = 0.8;
/// ... and at least this many rows.
pub(crate) const SHIFT_MIN_ROWS: usize = 5;
/// A shift is reported from this far from 1 (±10%)...
pub(crate) const SHIFT_MIN: f64 = 0.10;
/// ... up to this factor either way: a machine rarely runs one program twice as slow or fast
/// with every operation alike, a bigger model does (an MLP 36 times as large: ×36).
pub(crate) const SHIFT_MAX: f64 = 2.0;
/// A row agrees with the shift when its own ratio is within this of it (relative).
pub(crate) const SHIFT_WITHIN: f64 = 0.15;
/// A shift needs this share of the time to agree (a program's change moves its rows unevenly:
/// fp32 → bf16 on a CPU moves the largest self times by ×0.69 with 57% of them agreeing; the
/// same program on a slower host, ×1.44 with 89%).
pub(crate) const SHIFT_AGREE: f64 = 0.8;
/// ... and this share to have moved the same way by at least a third of the factor's move: a
/// machine slows (or speeds) nearly everything, a program's change leaves much of it alone (one
/// large operation twice as slow among unchanged ones is not a shift).
pub(crate) const SHIFT_MOVED: f64 = 0.9;

/// The run-wide shift of a side's rows when most of the time moved by one factor, the mark of
/// the machine (load, clock speed, another host) rather than the program. The rows must be
/// independent (self times, or events that never nest: a nested row counts its children's time
/// again). The largest rows by control time, until they hold [`SHIFT_COVER`] of it and number at
/// least [`SHIFT_MIN_ROWS`], must all have run on both sides as many times per step (a program's
/// change changes counts; a machine changes durations only); their time-weighted median ratio
/// is the factor, from [`SHIFT_MIN`] to [`SHIFT_MAX`] away from 1; [`SHIFT_AGREE`] of their time
/// lies within ±[`SHIFT_WITHIN`] of it and [`SHIFT_MOVED`] moved its way. `None` otherwise.
/// `floor_ns`: the significance floor (a share of control's mean step time), above which rows
/// also tell how far rows scatter around the factor ([`factor_spread`]).
pub(crate) fn run_shift(rows: &[ShiftRow], floor_ns: f64) -> Option<Shift> {
    let mut by_size: Vec<ShiftRow> = rows.iter().copied().filter(|r| r.control_ns > 0.0).collect();
    let total: f64 = by_size.iter().map(|r| r.control_ns).sum();
    by_size.sort_by(|a, b| {
        b.control_ns
            .total_cmp(&a.control_ns)
            .then(a.test_ns.total_cmp(&b.test_ns))
    });
    let mut held = 0.0;
    // (ratio, weight) of each row looked at.
    let mut kept: Vec<(f64, f64)> = Vec::new();
    for r in &by_size {
        if held >= SHIFT_COVER * total && kept.len() >= SHIFT_MIN_ROWS {
            break;
        }
        // A large row gone from the test side, or run a different number of times: the program.
        if r.test_ns <= 0.0 || !r.same_calls {
            return None;
        }
        held += r.control_ns;
        kept.push((r.test_ns / r.control_ns, r.control_ns));
    }
    if kept.len() < SHIFT_MIN_ROWS || held < SHIFT_COVER * total {
        return None;
    }
    kept.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut below = 0.0;
    let factor = kept
        .iter()
        .find(|(_, w)| {
            below += w;
            below >= held / 2.0
        })
        .map_or(1.0, |r| r.0);
    let share = |keep: &dyn Fn(f64) -> bool| kept.iter().filter(|(r, _)| keep(*r)).map(|(_, w)| w).sum::<f64>() / held;
    let agreeing = share(&|r| (r / factor - 1.0).abs() <= SHIFT_WITHIN);
    let moved = share(&|r| (r - 1.0) / (factor - 1.0) >= 1.0 / 3.0);
    let sized = (factor - 1.0).abs() >= SHIFT_MIN && (1.0 / SHIFT_MAX..=SHIFT_MAX).contains(&factor);
    let ratios: Vec<f64> = kept.iter().map(|r| r.0).collect();
    let error = scaled_mad(&ratios) / factor / (kept.len() as f64).sqrt();
    (sized && agreeing >= SHIFT_AGREE && moved >= SHIFT_MOVED).then(|| Shift {
        factor,
        agreeing,
        rows: kept.len(),
        error,
        spread: factor_spread(&by_size, kept.len(), factor, floor_ns),
    })
}

/// How far single rows' own factors scatter around a run's `factor`: 1.4826 × the median of
/// |ln(row's ratio ÷ factor)|, a robust σ of the log ratio, over the first `looked` rows of
/// `by_size` (those the factor came from) and every other row whose control time is at least
/// `floor_ns`, each run as often per step on both sides. A machine does not scale every
/// operation alike (memory-bound against compute-bound work, the allocator, the caches): the
/// same program on a host ×1.44 slower moved its large rows by ×1.12 to ×1.44. Each row counts
/// once, whatever its time: weighted by time, the row that sets the factor would decide the
/// spread alone (0 where it holds half the time). The median is taken about the factor, not
/// about the rows' own median, since rows are judged against the factor; it ignores up to half
/// the rows, so a few real changes do not widen it. 0 for no row.
pub(crate) fn factor_spread(by_size: &[ShiftRow], looked: usize, factor: f64, floor_ns: f64) -> f64 {
    let off: Vec<f64> = by_size
        .iter()
        .enumerate()
        .filter(|(i, r)| (*i < looked || r.control_ns >= floor_ns) && r.same_calls && r.test_ns > 0.0)
        .map(|(_, r)| (r.test_ns / r.control_ns / factor).ln().abs())
        .collect();
    1.4826 * median(&off)
}

/// Most of a side's host or device time moved by one factor (docs/significance.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunShift {
    /// Over host rows (operators, annotations, runtime calls).
    pub host: Option<Shift>,
    /// Over device rows (kernels, copies, sets).
    pub device: Option<Shift>,
    /// Whether rows were judged against the shift (a shift was found and `--no-run-shift` was
    /// not given): a row is then significant when it moved beyond the run's factor.
    #[serde(default)]
    pub applied: bool,
    /// Host threads that moved as a whole where the run did not (one run per side;
    /// docs/significance.md#a-thread-that-moved); `applied` says whether rows were judged
    /// against them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<ThreadShift>,
}

impl RunShift {
    /// Whether a shift of host or device time was found.
    pub fn found(&self) -> bool {
        self.host.is_some() || self.device.is_some()
    }
}

#[cfg(test)]
mod tests;
