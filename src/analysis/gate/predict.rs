//! The band of a gate against a history (docs/history.md#the-band): a prediction interval for
//! one new run from the `n` runs of the history, robust to one outlier run.
//!
//! On the log of the runs' values (run-to-run scatter grows with the level: a run twice as long
//! scatters twice as far), with `m` the median and `s` = 1.4826 × the MAD of the logs (the
//! normal's σ where the scatter is normal, and moved by at most one step of the sorted values
//! by one wild run), one new run from the same program lies above
//!
//! `m + t(n−1, 1−α) · s · √(1 + π / 2n)`
//!
//! with probability α: the `1` is the new run's own scatter, `π / 2n` the variance of the
//! median of `n` normal values (in units of σ²), and Student's t with `n − 1` degrees of
//! freedom pays for `s` being estimated from `n` runs. A candidate beyond that upper bound is
//! slower than the history predicts; the threshold of the rule applies as well, so a history
//! of identical runs (`s` = 0) does not fail a candidate that moved by a hair. Where a value is
//! 0 or below (a row absent from some runs) the same interval is taken on the values themselves.

use super::change::Change;
use crate::analysis::measure::noise::{median, scaled_mad};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The fewest runs a band is made from: with fewer the MAD says nothing.
pub(crate) const MIN_HISTORY_RUNS: usize = 3;

/// The centre and the scale of the band on the scale it is judged on, and that scale.
struct Fit {
    /// Whether `centre` and `scale` are of the logs of the values.
    log: bool,
    centre: f64,
    /// `s · √(1 + π / 2n)`: the standard error of one new run about the median.
    scale: f64,
    df: f64,
}

fn fit(history: &[f64]) -> Option<Fit> {
    if history.len() < MIN_HISTORY_RUNS || history.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let log = history.iter().all(|&v| v > 0.0);
    let values: Vec<f64> = if log {
        history.iter().map(|v| v.ln()).collect()
    } else {
        history.to_vec()
    };
    let n = values.len() as f64;
    Some(Fit {
        log,
        centre: median(&values),
        scale: scaled_mad(&values) * (1.0 + std::f64::consts::PI / (2.0 * n)).sqrt(),
        df: n - 1.0,
    })
}

impl Fit {
    fn at(&self, v: f64) -> f64 {
        if self.log { v.max(f64::MIN_POSITIVE).ln() } else { v }
    }

    fn back(&self, v: f64) -> f64 {
        if self.log { v.exp() } else { v }
    }
}

/// The one-sided p-value of `candidate` against the history: the chance that one new run of the
/// same program is at least as slow. `None` with fewer than [`MIN_HISTORY_RUNS`] runs.
pub(crate) fn p_value(history: &[f64], candidate: f64) -> Option<f64> {
    let f = fit(history)?;
    let d = f.at(candidate) - f.centre;
    if f.scale <= 0.0 {
        return Some(if d > 0.0 { 0.0 } else { 1.0 });
    }
    let t = StudentsT::new(0.0, 1.0, f.df).ok()?;
    Some(1.0 - t.cdf(d / f.scale))
}

/// The upper bound of the band at level `alpha` (one-sided), in the values' unit, and the
/// history's centre (its median). `None` with fewer than [`MIN_HISTORY_RUNS`] runs.
pub(crate) fn upper_bound(history: &[f64], alpha: f64) -> Option<(f64, f64)> {
    let f = fit(history)?;
    let q = if alpha >= 0.5 {
        0.0
    } else {
        StudentsT::new(0.0, 1.0, f.df).ok()?.inverse_cdf(1.0 - alpha.max(1e-12))
    };
    Some((f.back(f.centre + q * f.scale), f.back(f.centre)))
}

/// The change of the one candidate run `cand[0]` from the history `base` (one value per run)
/// and its band at `alpha`: `baseline` is the history's median, `noise` how far above it the
/// band reaches, so that [`Change::regressed`] fails exactly what lies beyond the band (and the
/// threshold). Returns it and the history's median.
pub(crate) fn change_against_history(base: &[f64], cand: &[f64], alpha: f64) -> (Change, f64) {
    let c = crate::analysis::measure::noise::mean(cand);
    let (noise, b) = match upper_bound(base, alpha) {
        Some((upper, centre)) => (Some((upper - centre).max(0.0)), centre),
        None => (None, median(base)),
    };
    let relative = if b == 0.0 {
        if c == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        (c - b) / b.abs()
    };
    let change = Change {
        baseline: b,
        candidate: c,
        relative,
        noise,
    };
    (change, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_band_holds_reruns_and_fails_a_slowdown() {
        let history = [100.0, 104.0, 97.0, 101.0, 99.0, 103.0, 98.0];
        let (upper, centre) = upper_bound(&history, 0.05).unwrap();
        assert_eq!(centre.round(), 100.0);
        assert!(upper > 104.0 && upper < 112.0, "{upper}");
        assert!(!change_against_history(&history, &[105.0], 0.05).0.regressed(0.02));
        assert!(change_against_history(&history, &[120.0], 0.05).0.regressed(0.02));
        // p falls as the candidate slows, and lies in [0, 1].
        let p = |c| p_value(&history, c).unwrap();
        assert!(p(95.0) > p(105.0) && p(105.0) > p(120.0) && p(120.0) >= 0.0 && p(95.0) <= 1.0);
        // Too few runs: no band.
        assert_eq!(upper_bound(&[1.0, 2.0], 0.05), None);
    }

    #[test]
    fn one_wild_run_does_not_widen_the_band() {
        let calm = [100.0, 104.0, 97.0, 101.0, 99.0, 103.0];
        let mut wild = calm.to_vec();
        wild.push(400.0);
        let (u_calm, _) = upper_bound(&calm, 0.05).unwrap();
        let (u_wild, _) = upper_bound(&wild, 0.05).unwrap();
        assert!(u_wild < u_calm * 1.05, "{u_calm} → {u_wild}");
        assert!(change_against_history(&wild, &[130.0], 0.05).0.regressed(0.05));
    }

    #[test]
    fn identical_runs_and_rows_absent_from_some_runs() {
        // No scatter: the threshold decides.
        let same = [50.0; 5];
        let (ch, _) = change_against_history(&same, &[50.5], 0.05);
        assert!(!ch.regressed(0.05));
        assert!(change_against_history(&same, &[60.0], 0.05).0.regressed(0.05));
        // A zero among the runs: judged on the values.
        let with_zero = [0.0, 10.0, 11.0, 9.0, 10.0];
        assert!(upper_bound(&with_zero, 0.05).is_some());
    }
}
