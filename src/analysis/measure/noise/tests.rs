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
