//! The band between runs (docs/significance.md#the-gate-with-runs): a timing rule fails only
//! when the change of the means over runs is past its threshold *and* beyond the half-width of
//! Welch's t interval at 5% (the step and the GPU's busy time each judged alone; the ops at the
//! level Benjamini–Hochberg sets over the ops the rule checks), so that a rule fails exactly
//! where [`crate::analysis::measure::replicates`] rejects "no change", in the direction of a slowdown.

use super::change::Change;
use crate::analysis::measure::replicates::{FDR, MIN_RUNS, benjamini_hochberg};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The half-width of Welch's two-sided t interval at level `alpha` for the difference of the
/// means of `base` and `cand` (one sample per run): a difference beyond it is what
/// [`crate::analysis::measure::replicates::welch_p`] < `alpha` rejects. 0 where neither side scatters; `None` with fewer than
/// [`MIN_RUNS`] samples a side.
pub(super) fn welch_band(base: &[f64], cand: &[f64], alpha: f64) -> Option<f64> {
    if base.len() < MIN_RUNS || cand.len() < MIN_RUNS {
        return None;
    }
    let var = |v: &[f64]| {
        let m = crate::analysis::measure::noise::mean(v);
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - 1.0) / v.len() as f64
    };
    let (sb, sc) = (var(base), var(cand));
    let se2 = sb + sc;
    if se2.is_nan() || se2 <= 0.0 {
        return Some(0.0);
    }
    let df = se2 * se2 / (sb * sb / (base.len() as f64 - 1.0) + sc * sc / (cand.len() as f64 - 1.0));
    let t = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(t.inverse_cdf(1.0 - alpha / 2.0) * se2.sqrt())
}

/// The change of the means over runs of `base` and `cand` and its band at `alpha`
/// ([`welch_band`]), `base` first scaled by nothing (no run-wide shift is looked for between
/// runs: the runs' own spread holds the machine's). Returns it and the baseline's mean.
pub(super) fn change_between_runs(base: &[f64], cand: &[f64], alpha: f64) -> (Change, f64) {
    let (b, c) = (
        crate::analysis::measure::noise::mean(base),
        crate::analysis::measure::noise::mean(cand),
    );
    let relative = if b == 0.0 {
        if c == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        (c - b) / b.abs()
    };
    let change = Change {
        baseline: b,
        candidate: c,
        relative,
        noise: welch_band(base, cand, alpha),
    };
    (change, b)
}

/// The level at which each of a family of tests is judged so that exactly those
/// Benjamini–Hochberg rejects at [`FDR`] pass it: k·q/m for the k rejected of m (q/m where
/// none is, which none passes).
pub(super) fn family_alpha(p: &[Option<f64>]) -> f64 {
    let m = p.iter().flatten().count();
    if m == 0 {
        return FDR;
    }
    let k = benjamini_hochberg(p, FDR).iter().filter(|&&r| r).count();
    k.max(1) as f64 * FDR / m as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::measure::replicates::welch_p;

    #[test]
    fn beyond_the_band_is_where_welch_rejects() {
        let base = [100.0, 104.0, 97.0, 101.0];
        for shift in [0.0, 2.0, 4.0, 6.0, 8.0, 12.0, 20.0] {
            let cand: Vec<f64> = [103.0, 99.0, 106.0, 100.0].iter().map(|x| x + shift).collect();
            let (ch, _) = change_between_runs(&base, &cand, FDR);
            let beyond = ch.candidate - ch.baseline > ch.noise.unwrap();
            let p = welch_p(&base, &cand).unwrap();
            assert_eq!(
                beyond,
                p < FDR && ch.candidate > ch.baseline,
                "shift {shift}: p {p}, {ch:?}"
            );
        }
        // No scatter: any slowdown is beyond; one run a side: no band.
        assert_eq!(welch_band(&[5.0, 5.0], &[6.0, 6.0], FDR), Some(0.0));
        assert_eq!(welch_band(&[5.0], &[6.0, 6.0], FDR), None);
    }

    #[test]
    fn the_family_level_passes_what_benjamini_hochberg_rejects() {
        // m = 5: the third p passes 3·q/m = 0.03, so the level is 0.03.
        let p = [Some(0.005), Some(0.021), Some(0.03), Some(0.2), Some(0.9)];
        assert!((family_alpha(&p) - 0.03).abs() < 1e-12);
        // Nothing rejected: q/m, which no p reaches.
        let none = [Some(0.5), Some(0.9)];
        assert!((family_alpha(&none) - 0.025).abs() < 1e-12);
        assert_eq!(family_alpha(&[]), FDR);
    }
}
