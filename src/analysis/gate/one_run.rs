//! The op rule with one run per side (docs/significance.md#the-gate-with-one-run-per-side):
//! where the host moved no run-wide shift, each host op is judged beyond the common move of the
//! host rows the rule judges (their median ln(candidate ÷ baseline), held within
//! ×[`crate::analysis::measure::noise::SHIFT_MAX`]) and their scatter about it, at the level
//! Benjamini–Hochberg sets over the ops checked, as `compare` marks its rows: two processes of
//! one program move every row by a common factor and a scatter about it, which the steps
//! inside one run do not show.

use crate::analysis::measure::one_run::{PairRow, Scatter, scatter_p};

/// The two-sided level each op is judged at beyond the pair's scatter `s`: the one
/// Benjamini–Hochberg at 5% sets over the `ops` checked (each its per-step times, baseline and
/// candidate, in ns) ([`super::between::family_alpha`]); `floor_ns` widens small rows' spread as
/// [`scatter_p`] does.
pub(super) fn family_alpha(s: &Scatter, ops: &[(Vec<f64>, Vec<f64>)], floor_ns: f64) -> f64 {
    let p: Vec<Option<f64>> = ops
        .iter()
        .map(|(b, c)| {
            let row = PairRow {
                time: [b, c],
                count: [&[], &[]],
                moved_with: 0.0,
            };
            scatter_p(&row, Some(s), floor_ns)
        })
        .collect();
    super::between::family_alpha(&p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::measure::one_run::scatter_quantile;

    #[test]
    fn the_family_asks_more_of_each_op_than_one_row_alone() {
        let s = Scatter {
            center: 0.2,
            spread: 0.1,
            rows: 20,
        };
        let same: Vec<(Vec<f64>, Vec<f64>)> = (0..20)
            .map(|i| (vec![100.0 + i as f64], vec![122.0 + i as f64]))
            .collect();
        // Nothing beyond: the level is 5%/20, far past the single row's 3.18 spreads.
        let alpha = family_alpha(&s, &same, 1.0);
        assert!((alpha - 0.05 / 20.0).abs() < 1e-12, "{alpha}");
        assert!(scatter_quantile(alpha) > scatter_quantile(0.05) * 2.0);
        // The common move is held within ×2.
        let far = Scatter { center: 3.0, ..s };
        let shift = super::super::change::pair_shift(&far);
        assert!((shift.factor - 2.0).abs() < 1e-12, "{shift:?}");
    }
}
