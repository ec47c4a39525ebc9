//! The noise band of a timing rule on per-step samples (docs/significance.md#the-gates-rules),
//! on a log scale: a step's scatter grows with its level (a program 25 times as slow scatters
//! its steps 25 times as widely), so k × the pooled scaled MAD is taken of ln(time), where a
//! slow side's own scatter does not stand for the noise of a fast one. The band never exceeds
//! the larger of the two sides' whole ranges (ln(max ÷ min) of each side's samples): a change
//! larger than every step of either side varied is no noise of those steps, whatever the MAD
//! says (three steps of 323 ms, 673 ms and 1.13 s have a MAD of half their median).

use crate::analysis::measure::noise::scaled_mad;

/// The band of `base` and `cand` in ln units: k × the pooled scaled MAD of their logarithms,
/// at most the larger side's ln(max ÷ min). `None` where a sample is not positive (a row that
/// did not run in a step has no logarithm: [`linear_band`] judges it).
pub(super) fn log_band(base: &[f64], cand: &[f64], k: f64) -> Option<f64> {
    let ln = |v: &[f64]| -> Option<Vec<f64>> { v.iter().map(|&x| (x > 0.0).then(|| x.ln())).collect() };
    let (lb, lc) = (ln(base)?, ln(cand)?);
    let (mb, mc) = (scaled_mad(&lb), scaled_mad(&lc));
    let band = k * ((mb * mb + mc * mc) / 2.0).sqrt();
    Some(band.min(range(&lb).max(range(&lc))))
}

/// k × the pooled scaled MAD of `base` and `cand` as they are, at most the larger side's
/// max − min: for samples with zeros.
pub(super) fn linear_band(base: &[f64], cand: &[f64], k: f64) -> f64 {
    crate::analysis::measure::noise::noise_band(base, cand, k).min(range(base).max(range(cand)))
}

/// The band of `base` and `cand` in their unit, above `level` (the value the candidate is
/// compared with): `level` × (e^[`log_band`] − 1), else [`linear_band`].
pub(super) fn band_above(base: &[f64], cand: &[f64], k: f64, level: f64) -> f64 {
    match log_band(base, cand, k) {
        Some(b) => level.abs() * b.exp_m1(),
        None => linear_band(base, cand, k),
    }
}

/// max − min of `v`; 0 for fewer than two values.
fn range(v: &[f64]) -> f64 {
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    if v.len() < 2 { 0.0 } else { max - min }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::measure::noise::median as mid;

    #[test]
    fn a_slow_side_scattering_widely_does_not_hide_a_25x_change() {
        // torch_cpu/linear_dims: 37.4 ms steps against 323 ms, 673 ms and 1.13 s.
        let base = [32.1e6, 37.4e6, 37.8e6];
        let cand = [323e6, 673e6, 1130e6];
        // The linear MAD band (±1.10 s) held the +1699% change; the log band is capped at the
        // candidate's range, ln(1130 ÷ 323) = 1.25: ×3.5.
        let b = log_band(&base, &cand, 3.0).unwrap();
        assert!((b - (1130.0f64 / 323.0).ln()).abs() < 1e-9, "{b}");
        let above = band_above(&base, &cand, 3.0, mid(&base));
        assert!(mid(&cand) - mid(&base) > above, "{above}");
    }

    #[test]
    fn tight_steps_keep_their_mad_band_and_zeros_fall_back_to_linear() {
        let base = [100.0, 101.0, 99.0, 100.0, 102.0];
        let cand = [103.0, 104.0, 102.0, 103.0, 101.0];
        let b = log_band(&base, &cand, 3.0).unwrap();
        assert!(b > 0.0 && b < (102.0f64 / 99.0).ln(), "{b}");
        assert_eq!(log_band(&[0.0, 5.0], &[5.0, 5.0], 3.0), None);
        // The linear band is capped at the larger range too: 5.
        assert_eq!(linear_band(&[0.0, 5.0], &[5.0, 5.0], 3.0), 5.0);
        // One sample a side: no range, no band.
        assert_eq!(linear_band(&[4.0], &[8.0], 3.0), 0.0);
    }
}
