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
mod tests {
    use super::*;

    /// Rows of control time `sizes` whose test time is `ratios` times as much, same calls.
    fn rows(sizes: &[f64], ratios: &[f64]) -> Vec<ShiftRow> {
        sizes
            .iter()
            .zip(ratios)
            .map(|(&c, &r)| ShiftRow {
                control_ns: c,
                test_ns: c * r,
                same_calls: true,
            })
            .collect()
    }

    const SIZES: [f64; 9] = [60.0, 50.0, 45.0, 40.0, 35.0, 30.0, 25.0, 20.0, 1.0];

    #[test]
    fn a_machine_shift_moves_most_time_by_one_factor() {
        let slower = rows(&SIZES, &[1.40, 1.45, 1.42, 1.48, 1.41, 1.44, 1.46, 1.43, 3.0]);
        let s = run_shift(&slower, f64::INFINITY).unwrap();
        assert_eq!((s.factor, s.agreeing, s.rows), (1.42, 1.0, 6));
        // Uneven but all slower, as torch_cpu/identical's self times (×1.12 to ×1.44).
        let uneven = rows(
            &[55.0, 20.0, 6.0, 2.0, 1.5, 1.0],
            &[1.444, 1.376, 1.197, 1.121, 1.219, 1.238],
        );
        let s = run_shift(&uneven, f64::INFINITY).unwrap();
        assert_eq!((s.factor, s.rows), (1.444, 5));
        // Faster too.
        let faster = rows(&SIZES, &[0.80; 9]);
        assert_eq!(run_shift(&faster, f64::INFINITY).map(|s| s.factor), Some(0.8));
    }

    #[test]
    fn noise_around_one_is_no_shift() {
        let noise = rows(&SIZES, &[1.03, 0.98, 1.05, 1.01, 0.97, 1.02, 1.04, 0.99, 1.5]);
        assert_eq!(run_shift(&noise, f64::INFINITY), None);
    }

    #[test]
    fn a_count_change_or_a_missing_row_is_the_program() {
        let mut counted = rows(&SIZES, &[1.4; 9]);
        counted[3].same_calls = false;
        assert_eq!(run_shift(&counted, f64::INFINITY), None);
        let mut gone = rows(&SIZES, &[1.4; 9]);
        gone[0].test_ns = 0.0;
        assert_eq!(run_shift(&gone, f64::INFINITY), None);
        // A count change in a row too small to be looked at does not matter.
        let mut small = rows(&SIZES, &[1.4; 9]);
        small[8].same_calls = false;
        assert!(run_shift(&small, f64::INFINITY).is_some());
    }

    #[test]
    fn one_dominating_row_is_not_a_shift() {
        // 80% of the time in one operation twice as slow, the rest unchanged.
        let one = rows(
            &[400.0, 30.0, 25.0, 20.0, 15.0, 10.0],
            &[1.5, 1.0, 1.0, 1.02, 0.99, 1.0],
        );
        assert_eq!(run_shift(&one, f64::INFINITY), None);
        // 85%: agreeing passes, but the rest did not move.
        let more = rows(&[850.0, 40.0, 40.0, 30.0, 20.0, 20.0], &[1.5, 1.0, 1.0, 1.0, 1.0, 1.0]);
        assert_eq!(run_shift(&more, f64::INFINITY), None);
    }

    #[test]
    fn a_program_change_moves_rows_unevenly_or_too_far() {
        let half = rows(&SIZES, &[1.4, 1.0, 1.4, 1.0, 1.4, 1.0, 1.4, 1.0, 1.0]);
        assert_eq!(run_shift(&half, f64::INFINITY), None);
        // Every row 36 times as slow: a larger model, not a machine.
        let larger = rows(&SIZES, &[36.0; 9]);
        assert_eq!(run_shift(&larger, f64::INFINITY), None);
        // Too few rows to tell.
        assert_eq!(run_shift(&rows(&[60.0, 50.0, 45.0], &[1.4; 3]), f64::INFINITY), None);
    }

    #[test]
    fn significance_beyond_a_shift_scales_the_control_side() {
        let control = [100.0, 101.0, 99.0];
        let test = [144.0, 145.0, 143.0];
        let shift = |factor, error| Shift {
            factor,
            agreeing: 1.0,
            rows: 5,
            error,
            spread: 0.0,
        };
        assert_eq!(significant_beyond(&control, &test, DEFAULT_K, 1.0, None), Some(true));
        assert_eq!(
            significant_beyond(&control, &test, DEFAULT_K, 1.0, Some(&shift(1.44, 0.0))),
            Some(false)
        );
        // Twice as slow where the run is ×1.44: still significant.
        let twice = [200.0, 201.0, 199.0];
        assert_eq!(
            significant_beyond(&control, &twice, DEFAULT_K, 1.0, Some(&shift(1.44, 0.0))),
            Some(true)
        );
        // 4% off a factor known to ±2%: within what the factor allows.
        let off = [150.0, 151.0, 149.0];
        assert_eq!(
            significant_beyond(&control, &off, DEFAULT_K, 1.0, Some(&shift(1.44, 0.0))),
            Some(true)
        );
        assert_eq!(
            significant_beyond(&control, &off, DEFAULT_K, 1.0, Some(&shift(1.44, 0.02))),
            Some(false)
        );
    }

    #[test]
    fn the_spread_is_how_far_rows_lie_from_the_factor() {
        // Every row at the factor: no spread.
        let even = rows(&SIZES, &[1.4; 9]);
        assert_eq!(run_shift(&even, 0.0).map(|s| s.spread), Some(0.0));
        // torch_cpu/identical's six rows above 1% of the step: ×1.12 to ×1.44 around ×1.444.
        let real = rows(
            &[124.3, 45.2, 13.9, 4.0, 3.5, 2.4],
            &[1.444, 1.376, 1.197, 1.121, 1.219, 1.169],
        );
        let s = run_shift(&real, 2.26).unwrap();
        assert_eq!(s.factor, 1.444);
        let expected = 1.4826 * ((1.219f64 / 1.444).ln().abs() + (1.197f64 / 1.444).ln().abs()) / 2.0;
        assert!((s.spread - expected).abs() < 1e-12, "{}", s.spread);
        assert!((0.25..0.27).contains(&s.spread), "{}", s.spread);
    }

    #[test]
    fn the_spread_counts_each_row_once_and_ignores_a_few_real_changes() {
        let by_size = |sizes: &[f64], ratios: &[f64]| rows(sizes, ratios);
        // One row holding most of the time sets the factor; the others still tell the spread.
        let big = by_size(&[1000.0, 10.0, 10.0, 10.0, 10.0], &[1.5, 1.2, 1.8, 1.8, 1.5]);
        let spread = factor_spread(&big, 5, 1.5, 0.0);
        assert!((spread - 1.4826 * (1.8f64 / 1.5).ln()).abs() < 1e-12, "{spread}");
        // Two rows of seven far off (an operation 11 times as slow) do not move it.
        let calm = by_size(&[10.0; 7], &[1.4, 1.45, 1.35, 1.4, 1.42, 1.38, 1.4]);
        let mut hit = calm.clone();
        hit[0].test_ns *= 11.0;
        hit[1].test_ns *= 5.0;
        let (a, b) = (factor_spread(&calm, 7, 1.4, 0.0), factor_spread(&hit, 7, 1.4, 0.0));
        assert!(b < 0.05 && b - a < 0.03, "{a} {b}");
        // Rows past those looked at count above the floor only, and only with the same calls.
        let mut tail = by_size(&[50.0, 40.0, 5.0, 5.0], &[1.4, 1.4, 2.0, 2.0]);
        assert_eq!(factor_spread(&tail, 2, 1.4, 10.0), 0.0);
        assert!(factor_spread(&tail, 2, 1.4, 1.0) > 0.2);
        tail[2].same_calls = false;
        tail[3].same_calls = false;
        assert_eq!(factor_spread(&tail, 2, 1.4, 1.0), 0.0);
    }

    #[test]
    fn a_row_is_judged_beyond_the_spread_of_rows_too() {
        let control = [100.0, 101.0, 99.0];
        let shift = |spread| Shift {
            factor: 1.44,
            agreeing: 1.0,
            rows: 5,
            error: 0.0,
            spread,
        };
        // AccumulateGrad on torch_cpu/identical: ×2.01 where the run is ×1.44 (×1.39 beyond it).
        let doubled = [201.0, 202.0, 200.0];
        assert_eq!(
            significant_beyond(&control, &doubled, DEFAULT_K, 1.0, Some(&shift(0.0))),
            Some(true)
        );
        assert_eq!(
            significant_beyond(&control, &doubled, DEFAULT_K, 1.0, Some(&shift(0.265))),
            Some(false)
        );
        // Three times as slow beyond the run's factor: beyond e^(3 × 0.265) = ×2.2 as well.
        let thrice = [432.0, 433.0, 431.0];
        assert_eq!(
            significant_beyond(&control, &thrice, DEFAULT_K, 1.0, Some(&shift(0.265))),
            Some(true)
        );
        // Below the factor the band is e^(−k × spread): a third of the expected time is beyond it.
        let third = [48.0, 48.5, 47.5];
        assert_eq!(
            significant_beyond(&control, &third, DEFAULT_K, 1.0, Some(&shift(0.265))),
            Some(true)
        );
        let most = [80.0, 80.5, 79.5];
        assert_eq!(
            significant_beyond(&control, &most, DEFAULT_K, 1.0, Some(&shift(0.265))),
            Some(false)
        );
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[]), 0.0);
        assert_eq!(median(&[7.0]), 7.0);
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[0.0, 0.0, 9.0, 0.0]), 0.0);
        assert_eq!(median(&[2.0, 2.0]), 2.0);
    }

    #[test]
    fn a_steady_shift_is_significant_and_jitter_is_not() {
        let steady = [100.0, 101.0, 99.0];
        assert_eq!(significant(&steady, &[130.0, 131.0, 129.0], DEFAULT_K, 1.0), Some(true));
        // Same means as above, but the samples spread as much as they moved.
        assert_eq!(
            significant(&[100.0, 60.0, 140.0], &[130.0, 90.0, 170.0], DEFAULT_K, 1.0),
            Some(false)
        );
        // Steady but under the floor.
        assert_eq!(significant(&steady, &[102.0, 102.0, 102.0], 0.0, 5.0), Some(false));
        // Two samples: no estimate.
        assert_eq!(significant(&[1.0, 2.0], &[5.0, 6.0, 7.0], DEFAULT_K, 0.0), None);
        assert!((noise_band(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], 3.0) - 3.0 * 1.4826).abs() < 1e-9);
    }
}
