//! One run per side (docs/significance.md#what-one-run-per-side-can-and-cannot-tell): the
//! steps of one process scatter far less than two processes of one program differ, so a mark
//! made against the steps' noise must also stand out from how far the pair's rows moved apart
//! as a whole. A row keeps its mark when its count changed for certain (the same count in every
//! step of each side, different between them: no rerun changes that), or when its time moved
//! beyond the scatter of the pair's rows: z = (ln(test ÷ control) − the rows' median) ÷ their
//! robust spread, its two-sided p-value from Student's t with [`SCATTER_DF`] degrees of freedom
//! (rows scatter with heavy tails between processes), and Benjamini–Hochberg at
//! [`crate::analysis::measure::replicates::FDR`] over the table's rows. Two runs of one program move
//! their rows by a common factor and a scatter about it (a thread, an allocator, a cache); a
//! real change moves some rows far beyond it.

use crate::analysis::measure::noise::{mean, median};
use crate::analysis::measure::per_step::Samples;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The degrees of freedom of the t distribution that models how far single rows scatter
/// between two processes: heavy-tailed (on 48 CPU A/A pairs rows lay up to 7 robust spreads
/// from the median: a preemption lands in one operation of a step, and another in the next).
pub(crate) const SCATTER_DF: f64 = 3.0;

/// The smallest spread assumed, on the log scale (±5% per robust σ): a pair whose rows all moved
/// alike says little about how far a rerun moves one row.
pub(crate) const MIN_SPREAD: f64 = 0.05;

/// The largest spread assumed (×1.82 per robust σ): two processes of one program on a quiet
/// machine scatter their rows by ×1.15 to ×1.31 (`torch_cpu/identical` ×1.30), on a loaded one
/// by up to ×2.5 and more (docs/significance.md#what-one-run-per-side-can-and-cannot-tell).
/// Rows that scatter more than this moved by the program, not by the process (an MLP 36 times
/// as large: its rows ×1 to ×49, a spread of ×4), and must not hide each other.
pub(crate) const MAX_SPREAD: f64 = 0.6;

/// The fewest rows from which the scatter is estimated; fewer, and marks stand as they are.
pub(crate) const MIN_ROWS: usize = 5;

/// One row of a one-run pair: its per-step values on each side, per selected step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PairRow<'a> {
    /// Per-step time of each selected step (control, test).
    pub time: [&'a [f64]; 2],
    /// Per-step count of each selected step (control, test).
    pub count: [&'a [f64]; 2],
    /// ln of the factor it is expected to have moved by with the threads its time ran on
    /// ([`crate::analysis::measure::threads`]); 0 where no thread moved. Its move is judged beyond it.
    pub moved_with: f64,
}

impl PairRow<'_> {
    /// Whether its count changed for certain: one count in every step of each side, and the
    /// two differ.
    pub(crate) fn count_changed(&self) -> bool {
        let constant = |v: &[f64]| v.first().is_some_and(|f| v.iter().all(|x| x == f));
        constant(self.count[0]) && constant(self.count[1]) && self.count[0][0] != self.count[1][0]
    }

    /// Whether it ran as often per step on both sides.
    fn same_calls(&self) -> bool {
        mean(self.count[0]) == mean(self.count[1])
    }

    /// ln(test ÷ control) of the per-step mean times, where both ran, less what it moved with
    /// its threads.
    fn log_ratio(&self) -> Option<f64> {
        let (c, t) = (mean(self.time[0]), mean(self.time[1]));
        (c > 0.0 && t > 0.0).then(|| (t / c).ln() - self.moved_with)
    }
}

/// The pair's scatter: the median of its rows' log ratios and their robust spread about it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scatter {
    /// The median of ln(test ÷ control) over the rows looked at.
    pub center: f64,
    /// 1.4826 × the median absolute deviation of those log ratios about `center`, from
    /// [`MIN_SPREAD`] to [`MAX_SPREAD`].
    pub spread: f64,
    /// How many rows were looked at.
    pub rows: usize,
}

/// The scatter of the rows that ran as often per step on both sides with a control time of at
/// least `floor_ns` per step; `None` with fewer than [`MIN_ROWS`] such rows.
pub(crate) fn scatter(rows: &[PairRow<'_>], floor_ns: f64) -> Option<Scatter> {
    let ratios: Vec<f64> = rows
        .iter()
        .filter(|r| r.same_calls() && mean(r.time[0]) >= floor_ns)
        .filter_map(PairRow::log_ratio)
        .collect();
    if ratios.len() < MIN_ROWS {
        return None;
    }
    let center = median(&ratios);
    let off: Vec<f64> = ratios.iter().map(|r| (r - center).abs()).collect();
    Some(Scatter {
        center,
        spread: (1.4826 * median(&off)).clamp(MIN_SPREAD, MAX_SPREAD),
        rows: ratios.len(),
    })
}

/// How many spreads from the center a single subject must lie to be beyond the scatter at the
/// two-sided level `alpha` (Student's t with [`SCATTER_DF`] degrees of freedom: 3.18 at 5%).
pub(crate) fn scatter_quantile(alpha: f64) -> f64 {
    StudentsT::new(0.0, 1.0, SCATTER_DF).map_or(f64::INFINITY, |t| t.inverse_cdf(1.0 - alpha / 2.0))
}

/// The scatter of a one-run pair from its sides' per-step samples: every row of `control` and
/// `test` (the rows of `compare`'s table, each selected step one sample), with no thread's move
/// taken out; `floor_ns` as for [`scatter`]. The gate judges its step time beyond it
/// (docs/significance.md#the-gate-with-one-run-per-side).
pub(crate) fn scatter_of_samples(control: &Samples, test: &Samples, floor_ns: f64) -> Option<Scatter> {
    let split = |s: &Samples, name: &str| -> (Vec<f64>, Vec<f64>) {
        s.op(name).into_iter().map(|(n, d)| (d as f64, n as f64)).unzip()
    };
    // Rows on both sides only: a row on one side has no ratio.
    let values: Vec<[(Vec<f64>, Vec<f64>); 2]> = control
        .ops
        .keys()
        .filter(|n| test.ops.contains_key(*n))
        .map(|n| [split(control, n), split(test, n)])
        .collect();
    let rows: Vec<PairRow<'_>> = values
        .iter()
        .map(|[c, t]| PairRow {
            time: [&c.0, &t.0],
            count: [&c.1, &t.1],
            moved_with: 0.0,
        })
        .collect();
    scatter(&rows, floor_ns)
}

/// The two-sided p-value of a row's time under the pair's scatter (its median held within
/// ×[`crate::analysis::measure::noise::SHIFT_MAX`] either way); `None` where it ran on one side only or
/// no scatter was found. A row smaller than `floor_ns` (the rows the scatter was measured on
/// are at least that large) scatters more, as a sum of fewer events catches a preemption more
/// unevenly: its spread is widened by √(floor ÷ its control time).
pub(crate) fn scatter_p(row: &PairRow<'_>, scatter: Option<&Scatter>, floor_ns: f64) -> Option<f64> {
    let (s, r) = (scatter?, row.log_ratio()?);
    let center = s.center;
    // A rerun moves a program's rows together by at most SHIFT_MAX either way (as the run-wide
    // shift assumes): a larger common move (an MLP 36 times as large, every row ×49) is the
    // program's, and rows are judged against the most a rerun could have moved them.
    let most = crate::analysis::measure::noise::SHIFT_MAX.ln();
    let size = (floor_ns / mean(row.time[0])).sqrt().max(1.0);
    let z = (r - center.clamp(-most, most)).abs() / (s.spread * size);
    let t = StudentsT::new(0.0, 1.0, SCATTER_DF).ok()?;
    Some((2.0 * t.sf(z)).clamp(0.0, 1.0))
}

/// Clears the marks that do not stand among `rows`, each with its mark: a mark stands where the
/// row's count changed for certain, where Benjamini–Hochberg over the [`scatter_p`] of the rows
/// whose change exceeds `floor_ns` (the rows that could be marked: a family of hundreds of tiny
/// rows, each ×20 on a loaded machine, would lower the bar for the rest) rejects it, or where it
/// cannot be judged so (no scatter, a row on one side only). Returns the scatter found and how
/// many marks were cleared.
/// `about_center`: rows are judged about the pair's common move (the median); `false`
/// (`--no-run-shift`): about no change, with the rows' spread about their median.
pub(crate) fn temper(
    rows: &mut [(PairRow<'_>, &mut Option<bool>)],
    floor_ns: f64,
    about_center: bool,
) -> (Option<Scatter>, usize) {
    let plain: Vec<PairRow<'_>> = rows.iter().map(|(r, _)| *r).collect();
    let found = scatter(&plain, floor_ns).map(|s| if about_center { s } else { Scatter { center: 0.0, ..s } });
    let p: Vec<Option<f64>> = plain.iter().map(|r| scatter_p(r, found.as_ref(), floor_ns)).collect();
    let family: Vec<Option<f64>> = plain
        .iter()
        .zip(&p)
        .map(|(r, p)| p.filter(|_| (mean(r.time[1]) - mean(r.time[0])).abs() > floor_ns))
        .collect();
    let beyond =
        crate::analysis::measure::replicates::benjamini_hochberg(&family, crate::analysis::measure::replicates::FDR);
    let mut cleared = 0;
    for (((row, mark), p), beyond) in rows.iter_mut().zip(&p).zip(beyond) {
        let stands = row.count_changed() || beyond || p.is_none();
        if **mark == Some(true) && !stands {
            **mark = Some(false);
            cleared += 1;
        }
    }
    (found, cleared)
}

/// The note on a one-run pair whose scatter cleared marks: how far its rows moved apart.
pub(crate) fn scatter_note(s: &Scatter, cleared: usize, labels: [&str; 2]) -> String {
    format!(
        "{} {} moved within the scatter of this pair's rows ({} against {}: the median row ×{:.2}, rows scattering ×{:.2} \
         about it over {} rows) and {} not marked: two runs of one program differ that much (docs/significance.md#what-one-run-per-side-can-and-cannot-tell)",
        cleared,
        if cleared == 1 { "row" } else { "rows" },
        labels[1],
        labels[0],
        s.center.exp(),
        s.spread.exp(),
        s.rows,
        if cleared == 1 { "is" } else { "are" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(time: [&'a [f64]; 2], count: [&'a [f64]; 2]) -> PairRow<'a> {
        PairRow {
            time,
            count,
            moved_with: 0.0,
        }
    }

    #[test]
    fn a_count_changed_in_every_step_stands_and_a_time_within_the_scatter_does_not() {
        let one = [1.0, 1.0, 1.0];
        let c = [[100.0; 3], [80.0; 3], [60.0; 3], [50.0; 3], [40.0; 3], [30.0; 3]];
        // The second process ran everything 20–35% slower: a rerun.
        let t = [[125.0; 3], [104.0; 3], [72.0; 3], [67.0; 3], [50.0; 3], [40.0; 3]];
        let rows: Vec<PairRow<'_>> = c.iter().zip(&t).map(|(c, t)| row([c, t], [&one, &one])).collect();
        let s = scatter(&rows, 10.0).unwrap();
        assert_eq!(s.rows, 6);
        assert!((s.center - (1.26f64).ln()).abs() < 0.03, "{s:?}");
        let mut marks = [Some(true); 6];
        let mut marked: Vec<(PairRow<'_>, &mut Option<bool>)> = rows.iter().copied().zip(marks.iter_mut()).collect();
        assert_eq!(temper(&mut marked, 10.0, true).1, 6);
        // A row three times as slow lies far beyond it.
        let slow = [300.0; 3];
        let p = scatter_p(&row([&c[0], &slow], [&one, &one]), Some(&s), 10.0).unwrap();
        assert!(p < 1e-3, "{p}");
        // A row whose count changed in every step stands whatever its time.
        let two = [2.0, 2.0, 2.0];
        let changed = row([&c[0], &t[0]], [&one, &two]);
        assert!(changed.count_changed());
        let mut all = rows.clone();
        all.push(changed);
        let mut marks = [Some(true); 7];
        let mut marked: Vec<(PairRow<'_>, &mut Option<bool>)> = all.iter().copied().zip(marks.iter_mut()).collect();
        assert_eq!(temper(&mut marked, 10.0, true).1, 6);
        assert_eq!(marks[6], Some(true));
        // A count that varies between steps is not certain.
        let varies = [2.0, 1.0, 2.0];
        assert!(!row([&c[0], &t[0]], [&one, &varies]).count_changed());
    }

    #[test]
    fn the_scatter_of_samples_is_that_of_the_rows_on_both_sides() {
        // 5% two-sided under t with 3 degrees of freedom.
        assert!((scatter_quantile(0.05) - 3.182).abs() < 1e-3);
        // Three steps a side; six rows that ran as often, the second process ×1.2 to ×1.5
        // slower, one row only the test ran and one that ran twice as often.
        let side = |scale: &[f64], extra: &[(&str, u64, i64)]| {
            let mut s = Samples {
                keys: vec![(0, 1), (0, 2), (0, 3)],
                step_ns: vec![1000; 3],
                gpu_busy_ns: vec![0; 3],
                ..Samples::default()
            };
            for (i, f) in scale.iter().enumerate() {
                let v = s.ops.entry(format!("op{i}")).or_default();
                for slot in 0..3 {
                    v.add(slot, 1, (100.0 * f) as i64);
                }
            }
            for &(name, count, ns) in extra {
                let v = s.ops.entry(name.to_string()).or_default();
                for slot in 0..3 {
                    v.add(slot, count, ns);
                }
            }
            s
        };
        let control = side(&[1.0; 6], &[("twice", 1, 100)]);
        let test = side(&[1.2, 1.3, 1.3, 1.4, 1.4, 1.5], &[("new", 1, 900), ("twice", 2, 900)]);
        let s = scatter_of_samples(&control, &test, 10.0).unwrap();
        assert_eq!(s.rows, 6);
        assert!((s.center - 1.35f64.ln()).abs() < 0.01, "{s:?}");
        // Rows under the floor are not looked at: too few are left.
        assert_eq!(scatter_of_samples(&control, &test, 200.0), None);
    }

    #[test]
    fn too_few_rows_leave_the_marks_as_they_are() {
        let one = [1.0];
        let (c, t) = ([100.0], [150.0]);
        let rows = vec![row([&c, &t], [&one, &one]); 4];
        assert_eq!(scatter(&rows, 0.0), None);
        let mut mark = Some(true);
        let mut marks: Vec<(PairRow<'_>, &mut Option<bool>)> = vec![(rows[0], &mut mark)];
        assert_eq!(temper(&mut marks, 0.0, true), (None, 0));
        assert_eq!(mark, Some(true));
    }
}
