//! Significance from runs (docs/significance.md#several-runs-per-side): each run of a side gives
//! one sample per row, its per-step mean; a row is significant when Welch's two-sided t test
//! rejects "no change" with the false discovery rate over the rows of one table held at
//! [`FDR`] (Benjamini–Hochberg), and its change is at least the floor (a share of the mean step
//! time). One implementation for every table, the module tree and the gate.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The false discovery rate held over the rows of one table.
pub(crate) const FDR: f64 = 0.05;

/// The fewest runs per side from which the between-run test is made.
pub(crate) const MIN_RUNS: usize = 2;

/// The arithmetic mean and the unbiased variance of `v` (n − 1 in the denominator).
fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, var)
}

/// The two-sided p-value of Welch's t test that `control` and `test` (one sample per run) have
/// the same mean; `None` with fewer than [`MIN_RUNS`] samples on a side. Two sides without any
/// scatter give 1 where their means are equal and 0 where they differ.
pub(crate) fn welch_p(control: &[f64], test: &[f64]) -> Option<f64> {
    if control.len() < MIN_RUNS || test.len() < MIN_RUNS {
        return None;
    }
    let (mc, vc) = mean_var(control);
    let (mt, vt) = mean_var(test);
    let (sc, st) = (vc / control.len() as f64, vt / test.len() as f64);
    let se2 = sc + st;
    if se2.is_nan() || se2 <= 0.0 {
        return Some(if mc == mt { 1.0 } else { 0.0 });
    }
    let t = (mt - mc) / se2.sqrt();
    // Welch–Satterthwaite degrees of freedom.
    let df = se2 * se2 / (sc * sc / (control.len() as f64 - 1.0) + st * st / (test.len() as f64 - 1.0));
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some((2.0 * dist.sf(t.abs())).clamp(0.0, 1.0))
}

/// Which of `p` the Benjamini–Hochberg procedure rejects at false discovery rate `q`: the
/// largest k with p₍ₖ₎ ≤ k·q/m, and every p-value up to it. `None` (not tested) is never
/// rejected and does not count among the m tests.
pub(crate) fn benjamini_hochberg(p: &[Option<f64>], q: f64) -> Vec<bool> {
    let mut tested: Vec<(f64, usize)> = p.iter().enumerate().filter_map(|(i, p)| p.map(|p| (p, i))).collect();
    tested.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let m = tested.len() as f64;
    let cut = tested
        .iter()
        .enumerate()
        .rev()
        .find(|(k, (p, _))| *p <= (*k as f64 + 1.0) * q / m)
        .map_or(0, |(k, _)| k + 1);
    let mut rejected = vec![false; p.len()];
    for &(_, i) in &tested[..cut] {
        rejected[i] = true;
    }
    rejected
}

/// One row's samples: per run of each side (control, test), its per-step time and count.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RowSamples {
    /// Per-step time of each run, in one unit (control, test).
    pub time: [Vec<f64>; 2],
    /// Per-step count of each run (control, test).
    pub count: [Vec<f64>; 2],
    /// Judged alone at [`FDR`], outside the table's family: the step itself (`ProfilerStep`),
    /// the one question every comparison asks first.
    pub alone: bool,
}

/// A row's p-value: the smaller of Welch's on its time and on its count, doubled (Bonferroni
/// over the two; the time's alone where every run of both sides has the same count). A count that every run of each side repeats exactly and that differs
/// between the sides (an operation gone, added, or run more often) has p = 0: no rerun
/// changes it. `None` with fewer than [`MIN_RUNS`] runs on a side.
pub(crate) fn row_p(s: &RowSamples) -> Option<f64> {
    let time = welch_p(&s.time[0], &s.time[1])?;
    let first = s.count[0].first().copied();
    if s.count.iter().flatten().all(|&c| Some(c) == first) {
        // The same count in every run of both sides: one question left, the time's.
        return Some(time);
    }
    let count = welch_p(&s.count[0], &s.count[1]).unwrap_or(1.0);
    Some((2.0 * time.min(count)).min(1.0))
}

/// Judges every row of one table at once: significant when Benjamini–Hochberg at [`FDR`] over
/// the rows' p-values ([`row_p`]) rejects it (a row judged `alone`: its own p ≤ [`FDR`]) and
/// |Δ of the mean times over runs| ≥ `floor` (in the times' unit). `None` where a side has
/// fewer than [`MIN_RUNS`] runs.
pub(crate) fn judge(rows: &[RowSamples], floor: f64) -> Vec<Option<bool>> {
    let p: Vec<Option<f64>> = rows.iter().map(row_p).collect();
    let family: Vec<Option<f64>> = rows
        .iter()
        .zip(&p)
        .map(|(r, p)| if r.alone { None } else { *p })
        .collect();
    let rejected = benjamini_hochberg(&family, FDR);
    rows.iter()
        .zip(p)
        .zip(rejected)
        .map(|((r, p), rejected)| {
            let change = (crate::analysis::measure::noise::mean(&r.time[1])
                - crate::analysis::measure::noise::mean(&r.time[0]))
            .abs();
            p.map(|p| (rejected || (r.alone && p <= FDR)) && change >= floor)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn welch_matches_a_known_value() {
        // R: t.test(c(10, 11, 12, 13), c(14, 15, 17, 18)) gives t = -4.0166, df = 5.4, p = 0.00865.
        let p = welch_p(&[10.0, 11.0, 12.0, 13.0], &[14.0, 15.0, 17.0, 18.0]).unwrap();
        assert!((p - 0.00865).abs() < 2e-4, "{p}");
        // The same samples: no evidence at all.
        let same = welch_p(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap();
        assert!((same - 1.0).abs() < 1e-12, "{same}");
    }

    #[test]
    fn welch_needs_two_runs_a_side_and_handles_no_scatter() {
        assert_eq!(welch_p(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(welch_p(&[5.0, 5.0], &[5.0, 5.0]), Some(1.0));
        assert_eq!(welch_p(&[5.0, 5.0], &[6.0, 6.0]), Some(0.0));
        // One side scatters, the other not: still a test.
        let p = welch_p(&[5.0, 5.0, 5.0], &[6.0, 7.0, 8.0]).unwrap();
        assert!(p > 0.0 && p < 0.1, "{p}");
    }

    #[test]
    fn benjamini_hochberg_steps_up() {
        // m = 5, q = 0.05: thresholds 0.01, 0.02, 0.03, 0.04, 0.05. The third p (0.03) passes
        // its own threshold, so the two below it are rejected with it, though 0.021 > 0.02.
        let p = [Some(0.005), Some(0.021), Some(0.03), Some(0.2), Some(0.9)];
        assert_eq!(benjamini_hochberg(&p, 0.05), [true, true, true, false, false]);
        // Untested rows neither count nor are rejected.
        let q = [None, Some(0.01), None, Some(0.5)];
        assert_eq!(benjamini_hochberg(&q, 0.05), [false, true, false, false]);
        assert!(benjamini_hochberg(&[], 0.05).is_empty());
        // Many rows of pure chance: nothing rejected.
        let chance: Vec<Option<f64>> = (1..=100).map(|i| Some(i as f64 / 100.0)).collect();
        assert!(benjamini_hochberg(&chance, 0.05).iter().all(|r| !r));
    }

    #[test]
    fn judge_needs_both_the_test_and_the_floor() {
        let row = |c: &[f64], t: &[f64]| RowSamples {
            time: [c.to_vec(), t.to_vec()],
            count: [vec![1.0; c.len()], vec![1.0; t.len()]],
            alone: false,
        };
        let steady = [100.0, 101.0, 99.0, 100.0];
        let moved = [120.0, 121.0, 119.0, 120.0];
        let rows = [row(&steady, &moved), row(&steady, &steady), row(&[1.0], &moved)];
        assert_eq!(judge(&rows, 5.0), [Some(true), Some(false), None]);
        // Under the floor: not significant however clear.
        assert_eq!(judge(&rows[..1], 50.0), [Some(false)]);
        // Scatter as large as the change: not significant.
        let wide = [row(&[80.0, 120.0, 100.0], &[100.0, 140.0, 120.0])];
        assert_eq!(judge(&wide, 1.0), [Some(false)]);
    }

    #[test]
    fn a_count_every_run_repeats_is_certain_and_the_step_is_judged_alone() {
        // fused_op's aten::mul: 308 calls a step in each control run, gone from every test run;
        // its time scatters between runs (19.2, 16.2, 14.9 ms), too widely for 3 runs alone.
        let gone = RowSamples {
            time: [vec![19.2, 16.2, 14.9], vec![0.0; 3]],
            count: [vec![308.0; 3], vec![0.0; 3]],
            alone: false,
        };
        assert_eq!(row_p(&gone), Some(0.0));
        // The step: 62.1, 48.9, 43.9 ms against 30.5, 19.1, 33.7 (p ≈ 0.03), beside 30 rows
        // that did not move: alone, it is judged at 5%; in the family it would not pass.
        let step = RowSamples {
            time: [vec![62.1, 48.9, 43.9], vec![30.5, 19.1, 33.7]],
            count: [vec![1.0; 3], vec![1.0; 3]],
            alone: true,
        };
        let calm = RowSamples {
            time: [vec![5.0, 6.0, 4.0], vec![5.5, 4.5, 6.0]],
            count: [vec![2.0; 3], vec![2.0; 3]],
            alone: false,
        };
        let mut rows = vec![step.clone(), gone];
        rows.extend(std::iter::repeat_n(calm, 30));
        let marks = judge(&rows, 0.5);
        assert_eq!(&marks[..3], [Some(true), Some(true), Some(false)]);
        let mut in_family = rows.clone();
        in_family[0].alone = false;
        assert_eq!(judge(&in_family, 0.5)[0], Some(false));
    }
}
