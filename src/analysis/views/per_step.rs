//! Per-step values of a view's rows (docs/significance.md#per-step-values): where more than one
//! step is used, a row's counts and times are shown per step (its sums ÷ the side's selected
//! steps), so a side of 3 steps compares with a side of 5; a kernel's mean, min and max are
//! durations of single kernels and stay as they are.

use super::{Measure, ViewTable};

/// Whether `measure` is a duration of single kernels (mean, min, max), not a sum over them: it
/// is never divided by the steps.
pub(crate) fn is_duration(measure: Measure) -> bool {
    measure.is_statistic()
}

/// One side's values of a row per step: sums ÷ `steps`, durations as they are.
pub(crate) fn per_step_values(values: &[Option<i64>], measures: &[Measure], steps: usize) -> Vec<Option<f64>> {
    let steps = steps.max(1) as f64;
    values
        .iter()
        .zip(measures)
        .map(|(v, m)| v.map(|x| if is_duration(*m) { x as f64 } else { x as f64 / steps }))
        .collect()
}

/// Gives the rows of a table of one run per side their per-step values where a side used more
/// than one step (`steps`: each side's selected steps), and the table each side's mean step
/// time (`step_ns`, where both have one); whether the rows changed. One step on each side: the
/// rows are already that step's values, and the footer still gives the step times rather than
/// the rows' sum (rows nest: their sum is the time of nothing).
pub(crate) fn per_step_one_run(table: &mut ViewTable, steps: [usize; 2], step_ns: [f64; 2]) -> bool {
    table.step_ns = step_ns.iter().all(|&s| s > 0.0).then_some(step_ns);
    if steps == [1, 1] {
        return false;
    }
    let measures = table.measures;
    for row in &mut table.rows {
        row.per_step = Some([
            per_step_values(&row.control, measures, steps[0]),
            per_step_values(&row.test, measures, steps[1]),
        ]);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_divided_by_the_steps_and_durations_kept() {
        use Measure::*;
        let m = [Calls, DeviceTotal, DeviceMean, DeviceMin, DeviceMax];
        let v = [Some(6), Some(300), Some(50), Some(10), None];
        assert_eq!(
            per_step_values(&v, &m, 4),
            [Some(1.5), Some(75.0), Some(50.0), Some(10.0), None]
        );
        assert_eq!(per_step_values(&v, &m, 0)[0], Some(6.0));
    }
}
