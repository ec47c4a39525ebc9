//! Run-to-run noise, one statistic for the gate and for every table's `significant` column
//! (docs/significance.md).
//!
//! A side's samples are its per-step values, one per selected (rank, ProfilerStep). The noise
//! band of a pair is `k` × the pooled scaled MAD of both sides' samples (MAD × 1.4826 estimates
//! σ for normal noise; pooled as the root mean square of the two). A change is significant when
//! it exceeds the band and matters for the step (a share of the mean step time).

/// The fewest samples per side from which a band is estimated for a table row.
pub const MIN_SAMPLES: usize = 3;

/// Default k: a change must exceed 3 × the pooled scaled MAD (≈ 3 σ for normal noise).
pub const DEFAULT_K: f64 = 3.0;

/// A row whose per-step change is under this share of the mean step time is never significant:
/// too small to matter for the step, however steady.
pub const MIN_STEP_SHARE: f64 = 0.01;

/// The note given when a side has fewer than [`MIN_SAMPLES`] (rank, step) samples: what each
/// side has, and `--iteration all` only where a side's traces hold more steps than were used.
/// `labels`: the sides' names; `selected`: samples per side; `selected_steps`: steps used per
/// rank; `available_steps`: the most steps one rank's trace holds, per side.
pub fn too_few_samples_note(
    labels: [&str; 2],
    selected: [usize; 2],
    selected_steps: [usize; 2],
    available_steps: [usize; 2],
) -> String {
    let more = (0..2).any(|k| available_steps[k] > selected_steps[k]);
    let hint = if more {
        format!(
            "; the traces hold {} and {} steps per rank: --iteration all uses them",
            available_steps[0], available_steps[1]
        )
    } else {
        "; the traces hold no more steps: record more, or compare more ranks".to_string()
    };
    format!(
        "significant is null: it needs {MIN_SAMPLES} or more steps (ranks × steps) per side; {} has {} \
         selected, {} {}{hint}",
        labels[0], selected[0], labels[1], selected[1]
    )
}

/// How many distinct step numbers `numbers` holds (a step can have both a host and a device
/// ProfilerStep: `vit_precision`'s 3 steps are 6 spans), for [`too_few_samples_note`].
pub fn distinct_steps(numbers: impl Iterator<Item = i64>) -> usize {
    let mut numbers: Vec<i64> = numbers.filter(|&n| n >= 0).collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers.len()
}

/// The arithmetic mean of `v`; 0 for no value.
pub fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The median of `v` (the mean of the middle two for an even count); 0 for no value.
pub fn median(v: &[f64]) -> f64 {
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
pub fn scaled_mad(v: &[f64]) -> f64 {
    let m = median(v);
    let dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    1.4826 * median(&dev)
}

/// `k` × the pooled scaled MAD of two sets of samples, in their unit.
pub fn noise_band(control: &[f64], test: &[f64], k: f64) -> f64 {
    let (mc, mt) = (scaled_mad(control), scaled_mad(test));
    k * ((mc * mc + mt * mt) / 2.0).sqrt()
}

/// Whether the per-step means of two sides differ beyond the noise band and by more than
/// `floor` (in the samples' unit); `None` with fewer than [`MIN_SAMPLES`] samples on a side.
pub fn significant(control: &[f64], test: &[f64], k: f64, floor: f64) -> Option<bool> {
    if control.len() < MIN_SAMPLES || test.len() < MIN_SAMPLES {
        return None;
    }
    let change = (mean(test) - mean(control)).abs();
    Some(change > noise_band(control, test, k) && change > floor)
}

/// A run-wide shift: most of one side's time moved by one factor (docs/significance.md).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Shift {
    /// test ÷ control of the per-step means, the time-weighted median over the rows that hold
    /// [`SHIFT_COVER`] of the control side's time.
    pub factor: f64,
    /// The share of those rows' time whose own ratio lies within ±[`SHIFT_WITHIN`] of it.
    pub agreeing: f64,
    /// How many rows were looked at.
    pub rows: usize,
}

/// The rows looked at for a shift: the largest, until they hold this share of the time.
pub const SHIFT_COVER: f64 = 0.8;
/// A shift is reported from this far from 1 (±10%).
pub const SHIFT_MIN: f64 = 0.10;
/// A row agrees with the shift when its own ratio is within this of it (relative).
pub const SHIFT_WITHIN: f64 = 0.15;
/// ... and a shift needs this share of the time to agree (a program's change moves its rows
/// unevenly: fp32 → bf16 on a CPU moves the largest rows by ×0.69 with 68% of their time
/// agreeing; the same program on a slower host, ×1.44 with 100%).
pub const SHIFT_AGREE: f64 = 0.8;
/// ... over at least this many rows.
pub const SHIFT_MIN_ROWS: usize = 5;

/// The run-wide shift of a side's rows, each given as (control, test) per-step means, when
/// most of the time moved by one factor: the largest rows (by control time) holding
/// [`SHIFT_COVER`] of the control time all ran on both sides, their time-weighted median ratio
/// is at least [`SHIFT_MIN`] from 1, and [`SHIFT_AGREE`] of their time lies in rows within
/// ±[`SHIFT_WITHIN`] of it. `None` otherwise.
pub fn run_shift(rows: &[(f64, f64)]) -> Option<Shift> {
    let total: f64 = rows.iter().map(|r| r.0).sum();
    if total <= 0.0 {
        return None;
    }
    let mut by_size: Vec<(f64, f64)> = rows.iter().copied().filter(|r| r.0 > 0.0).collect();
    by_size.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.total_cmp(&b.1)));
    let mut held = 0.0;
    let mut kept: Vec<(f64, f64)> = Vec::new();
    for &(c, t) in &by_size {
        if held >= SHIFT_COVER * total {
            break;
        }
        // A large row gone from the other side: not a machine's shift.
        if t <= 0.0 {
            return None;
        }
        held += c;
        kept.push((t / c, c));
    }
    if kept.len() < SHIFT_MIN_ROWS {
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
    let agreeing = kept
        .iter()
        .filter(|(r, _)| (r / factor - 1.0).abs() <= SHIFT_WITHIN)
        .map(|(_, w)| w)
        .sum::<f64>()
        / held;
    ((factor - 1.0).abs() >= SHIFT_MIN && agreeing >= SHIFT_AGREE).then_some(Shift {
        factor,
        agreeing,
        rows: kept.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_wide_shift_needs_most_time_to_move_by_one_factor() {
        // Seven rows all 40-48% slower: the machine.
        let slower: Vec<(f64, f64)> = [60.0, 50.0, 45.0, 40.0, 35.0, 30.0, 25.0, 20.0, 1.0]
            .iter()
            .zip([1.40, 1.45, 1.42, 1.48, 1.41, 1.44, 1.46, 1.43, 3.0])
            .map(|(&c, r)| (c, c * r))
            .collect();
        let s = run_shift(&slower).unwrap();
        assert_eq!((s.factor, s.agreeing, s.rows), (1.42, 1.0, 6));
        // Noise around 1: no shift.
        let noise: Vec<(f64, f64)> = slower.iter().map(|&(c, _)| (c, c * 1.03)).collect();
        assert_eq!(run_shift(&noise), None);
        // Half the time moved a lot, half not at all: a change of the program.
        let uneven: Vec<(f64, f64)> = slower
            .iter()
            .enumerate()
            .map(|(k, &(c, t))| (c, if k % 2 == 0 { t } else { c }))
            .collect();
        assert_eq!(run_shift(&uneven), None);
        // A large row gone from the test side: not a shift.
        let mut gone = slower.clone();
        gone[0].1 = 0.0;
        assert_eq!(run_shift(&gone), None);
        // Too few rows to tell.
        assert_eq!(run_shift(&slower[..3]), None);
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
