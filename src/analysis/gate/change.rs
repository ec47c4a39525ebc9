//! How two sets of per-step samples compare: the change of their medians and its noise band,
//! measured as is or beyond a run-wide shift.

use crate::analysis::measure::noise::{SHIFT_MAX, Shift, median};
use crate::analysis::measure::one_run::Scatter;
use serde::Serialize;
use std::collections::BTreeSet;

/// How two sets of per-step samples compare.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct Change {
    /// The baseline's median.
    pub baseline: f64,
    /// The candidate's median.
    pub candidate: f64,
    /// (candidate − baseline) / baseline; infinite when the baseline is 0.
    pub relative: f64,
    /// k × pooled scaled MAD, in the samples' unit; `None` without a noise estimate.
    pub noise: Option<f64>,
}

impl Change {
    /// The medians of `base` and `cand`, their relative change, and the noise band when each
    /// side has two samples or more: `k` × the pooled scaled MAD of the samples' logarithms,
    /// capped at the larger side's whole range ([`super::band`]).
    pub(crate) fn of(base: &[f64], cand: &[f64], k: f64) -> Change {
        let (b, c) = (median(base), median(cand));
        let relative = if b == 0.0 {
            if c == 0.0 { 0.0 } else { f64::INFINITY }
        } else {
            (c - b) / b.abs()
        };
        let noise = (base.len() >= 2 && cand.len() >= 2).then(|| super::band::band_above(base, cand, k, b));
        Change {
            baseline: b,
            candidate: c,
            relative,
            noise,
        }
    }

    /// Whether the change is a regression beyond `threshold` and beyond the noise.
    pub(crate) fn regressed(&self, threshold: f64) -> bool {
        self.relative > threshold && self.noise.is_none_or(|n| self.candidate - self.baseline > n)
    }
}

/// A run-wide shift the timing rules judge beyond (`beyond_run_shift`,
/// docs/significance.md#a-run-wide-shift): each baseline time is scaled by the factor of where
/// its events ran before the change is measured, so a rule fails only for what moved more than
/// the whole run did. Empty (no factor) where none was found or the rules judge absolutely.
#[derive(Debug, Clone, Default)]
pub(crate) struct Beyond {
    /// The shift of host time (operators, annotations), where one was found.
    pub host: Option<Shift>,
    /// The shift of device time (kernels, copies, sets).
    pub device: Option<Shift>,
    /// Row keys of device events: they take the device's factor, the others the host's.
    pub on_device: BTreeSet<String>,
    /// One run per side where no run-wide shift was found: how far the pair's rows moved apart
    /// ([`crate::analysis::measure::one_run::Scatter`]), which the step time is judged beyond
    /// (docs/significance.md#the-gate-with-one-run-per-side).
    pub pair: Option<Scatter>,
    /// One run per side where the host moved no run-wide shift: the scatter of the host rows the
    /// op rule judges, which each host op is judged beyond (device rows hold still between
    /// processes and are judged against the device's shift, or no change).
    pub rows: Option<Scatter>,
}

/// A shift a baseline is scaled by, and where it was found (`host`, `device`, or [`PAIR_ROWS`]:
/// the common move of a one-run pair's rows, its spread their scatter).
pub(super) type Scale = Option<(Shift, &'static str)>;

/// The place of a [`Scale`] that is a one-run pair's common move ([`Beyond::pair`]).
pub(super) const PAIR_ROWS: &str = "rows";

/// A one-run pair's scatter as a shift: its common move (the median row's factor, held within
/// ×[`SHIFT_MAX`] either way, the most a rerun is taken to move a whole program: an MLP 36 times
/// as large moved every row ×3.3 to ×49, which is the program's, not the machine's) and its
/// rows' spread about it, with no error of its own (the spread holds it).
pub(super) fn pair_shift(s: &Scatter) -> Shift {
    let most = SHIFT_MAX.ln();
    Shift {
        factor: s.center.clamp(-most, most).exp(),
        agreeing: 0.0,
        rows: s.rows,
        error: 0.0,
        spread: s.spread,
    }
}

fn factor_of(shift: Option<&Shift>, place: &'static str) -> Scale {
    shift.map(|s| (*s, place))
}

impl Beyond {
    /// The shift of row `name`'s place: the device's for a device row; the host's for a host
    /// row, else the common move of the pair's host rows ([`Beyond::rows`]).
    pub(super) fn op(&self, name: &str) -> Scale {
        if self.on_device.contains(name) {
            factor_of(self.device.as_ref(), "device")
        } else if self.host.is_some() {
            factor_of(self.host.as_ref(), "host")
        } else {
            self.rows.as_ref().map(|s| (pair_shift(s), PAIR_ROWS))
        }
    }

    /// The step's: the larger factor found, since either the host or the device may bound a
    /// step (a step cannot slow by more than both did); where neither moved as a whole, the
    /// common move of a one-run pair's rows ([`Beyond::pair`]).
    pub(super) fn step(&self) -> Scale {
        match (self.host.as_ref(), self.device.as_ref()) {
            (Some(h), Some(d)) if d.factor > h.factor => factor_of(Some(d), "device"),
            (Some(h), _) => factor_of(Some(h), "host"),
            (None, Some(d)) => factor_of(Some(d), "device"),
            (None, None) => self.pair.as_ref().map(|s| (pair_shift(s), PAIR_ROWS)),
        }
    }

    /// The GPU's busy time's: the device's.
    pub(super) fn gpu_busy(&self) -> Scale {
        factor_of(self.device.as_ref(), "device")
    }
}

/// `base` and `cand` compared as [`Change::of`] does, `base` first scaled by `scale`'s factor
/// and the noise band widened as `compare` widens a row's beyond a shift
/// ([`crate::analysis::measure::noise::shift_band`]); `rows`: whether single rows' scatter around the
/// factor applies (one row's time), or not (the step, a sum over every row). Returns the change
/// (its `baseline` the expected value) and the unscaled baseline's median.
/// Beyond a one-run pair's common move ([`PAIR_ROWS`]) the rows' scatter always applies, at
/// the quantile that judges a row beyond it at the two-sided level `alpha`
/// ([`crate::analysis::measure::one_run::scatter_quantile`]) instead of `k`.
pub(super) fn change_beyond(
    base: &[f64],
    cand: &[f64],
    k: f64,
    (scale, rows): (Scale, bool),
    alpha: f64,
) -> (Change, f64) {
    let Some((shift, place)) = scale else {
        return (Change::of(base, cand, k), median(base));
    };
    let scaled: Vec<f64> = base.iter().map(|b| b * shift.factor).collect();
    let mut ch = Change::of(&scaled, cand, k);
    let pair = place == PAIR_ROWS;
    let shift = Shift {
        spread: if rows || pair { shift.spread } else { 0.0 },
        ..shift
    };
    let up = ch.candidate >= ch.baseline;
    let k_rows = if pair {
        crate::analysis::measure::one_run::scatter_quantile(alpha)
    } else {
        k
    };
    ch.noise = Some(crate::analysis::measure::noise::shift_band(
        ch.noise.unwrap_or(0.0),
        ch.baseline.abs(),
        up,
        k_rows,
        &shift,
    ));
    (ch, median(base))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::measure::noise::scaled_mad;
    use crate::analysis::measure::replicates::FDR;

    #[test]
    fn beyond_a_shift_the_step_takes_the_larger_factor_and_ops_their_places() {
        let shift = |factor| Shift {
            factor,
            agreeing: 1.0,
            rows: 5,
            error: 0.0,
            spread: 0.0,
        };
        let both = Beyond {
            host: Some(shift(1.4)),
            device: Some(shift(1.1)),
            on_device: BTreeSet::from(["gemm".to_string()]),
            pair: None,
            rows: None,
        };
        assert_eq!(both.step().map(|(s, p)| (s.factor, p)), Some((1.4, "host")));
        assert_eq!(both.op("gemm").map(|(s, p)| (s.factor, p)), Some((1.1, "device")));
        assert_eq!(both.op("aten::mm").map(|(s, p)| (s.factor, p)), Some((1.4, "host")));
        let device_only = Beyond {
            device: Some(shift(0.8)),
            ..Default::default()
        };
        assert_eq!(device_only.step().map(|(s, p)| (s.factor, p)), Some((0.8, "device")));
        assert_eq!(device_only.op("aten::mm"), None);
        // Scaled by the factor: 10% beyond ×1.4 is a change of +10%, and no shift leaves the
        // change as measured.
        let (ch, raw) = change_beyond(&[100.0, 100.0], &[154.0, 154.0], 3.0, (both.step(), false), FDR);
        assert!(
            (ch.relative - 0.1).abs() < 1e-9 && ch.baseline == 140.0 && raw == 100.0,
            "{ch:?}"
        );
        let (plain, _) = change_beyond(&[100.0, 100.0], &[154.0, 154.0], 3.0, (None, false), FDR);
        assert!((plain.relative - 0.54).abs() < 1e-9);
    }

    #[test]
    fn one_run_per_side_judges_the_step_beyond_the_pairs_common_move() {
        // The rows moved ×1.5 as a median, scattering ×1.2 (ln 1.2 = 0.18) about it.
        let pair = Scatter {
            center: 1.5f64.ln(),
            spread: 1.2f64.ln(),
            rows: 20,
        };
        let beyond = Beyond {
            pair: Some(pair),
            ..Default::default()
        };
        let scale = beyond.step();
        assert_eq!(scale.map(|(s, p)| (s.factor, p)), Some((1.5, PAIR_ROWS)));
        // Not for ops: their place's shift alone (none here).
        assert_eq!(beyond.op("aten::mm"), None);
        // A step ×1.8 slower (steps tight) moved ×1.2 beyond the rows: within the scatter
        // (3.18 spreads: ×1.79).
        let base = [100.0, 101.0, 99.0];
        let within: Vec<f64> = base.iter().map(|b| b * 1.8).collect();
        let (ch, raw) = change_beyond(&base, &within, 3.0, (scale, false), FDR);
        assert!((ch.baseline - 150.0).abs() < 1e-9 && raw == 100.0, "{ch:?}");
        assert!((ch.relative - 0.2).abs() < 1e-9 && !ch.regressed(0.05), "{ch:?}");
        // ×3 slower is ×2 beyond them: a regression.
        let far: Vec<f64> = base.iter().map(|b| b * 3.0).collect();
        assert!(change_beyond(&base, &far, 3.0, (scale, false), FDR).0.regressed(0.05));
        // A run-wide shift, where found, is what the step is judged beyond.
        let shifted = Beyond {
            host: Some(Shift {
                factor: 1.1,
                agreeing: 1.0,
                rows: 5,
                error: 0.0,
                spread: 0.0,
            }),
            ..beyond
        };
        assert_eq!(shifted.step().map(|(s, p)| (s.factor, p)), Some((1.1, "host")));
    }

    #[test]
    fn medians_mad_and_noise() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!((scaled_mad(&[1.0, 2.0, 3.0, 4.0, 100.0]) - 1.4826).abs() < 1e-9);
        // 30% slower but the samples spread as much: within noise.
        let noisy = Change::of(&[100.0, 60.0, 140.0], &[130.0, 80.0, 180.0], 3.0);
        assert!(!noisy.regressed(0.05));
        // 30% slower with tight samples: a regression.
        let tight = Change::of(&[100.0, 101.0, 99.0], &[130.0, 131.0, 129.0], 3.0);
        assert!(tight.regressed(0.05));
        // One sample: no noise estimate, the threshold decides.
        let single = Change::of(&[100.0], &[106.0], 3.0);
        assert_eq!(single.noise, None);
        assert!(single.regressed(0.05));
    }
}
