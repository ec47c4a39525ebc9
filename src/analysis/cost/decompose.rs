//! A row's change of time per step split into calls, work and efficiency (docs/cost-model.md#the-decomposition).
//!
//! With `n` calls per step, `w` work per call and `T` time per step (whole ns) on each side:
//!
//! - **calls** = (n_test − n_control) × T_control / n_control: the new calls at the control's
//!   time per call;
//! - **work** = n_test × (w_test − w_control) × T_control / (n_control × w_control): the work
//!   added per call, at the control's time per unit of work;
//! - **efficiency** = Δ − calls − work: the rest, the change of time per unit of work.
//!
//! The calls and work parts are rounded to whole ns (half away from zero) and efficiency is
//! what remains, so the three add up to Δ = T_test − T_control exactly. A row without a work
//! figure on both sides has no work part: its efficiency part is the change of time per call.
//! A row that only one side has is all calls.

use serde::Serialize;

/// One side of a row: calls per step, time per step, work per call.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct SideCost {
    /// Calls per step.
    pub calls: f64,
    /// Time per step, whole ns.
    pub time_ns: i64,
    /// Work per call (FLOPs or bytes), where every call has a figure.
    pub work: Option<f64>,
}

/// The three parts of a change, in ns per step; they sum to `delta_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Parts {
    /// test − control time per step.
    pub delta_ns: i64,
    /// More or fewer calls at the control's time per call.
    pub calls_ns: i64,
    /// More or less work per call at the control's time per unit of work (0 without a figure).
    pub work_ns: i64,
    /// The rest: the time per unit of work (per call, without a figure) that changed.
    pub efficiency_ns: i64,
}

/// The parts of the change from `control` to `test`.
pub(crate) fn decompose(control: SideCost, test: SideCost) -> Parts {
    let delta_ns = test.time_ns - control.time_ns;
    if control.calls <= 0.0 || test.calls <= 0.0 || control.time_ns == 0 {
        // A row one side lacks (or whose control took no time) is all calls.
        return Parts {
            delta_ns,
            calls_ns: delta_ns,
            ..Parts::default()
        };
    }
    let per_call = control.time_ns as f64 / control.calls;
    let calls_ns = round((test.calls - control.calls) * per_call);
    let work_ns = match (control.work, test.work) {
        (Some(wc), Some(wt)) if wc > 0.0 => round(test.calls * per_call * (wt / wc - 1.0)),
        _ => 0,
    };
    Parts {
        delta_ns,
        calls_ns,
        work_ns,
        efficiency_ns: delta_ns - calls_ns - work_ns,
    }
}

/// Whole ns, half away from zero; a value beyond `i64` (never a real trace's) is clamped.
fn round(ns: f64) -> i64 {
    if ns.is_finite() {
        ns.round().clamp(i64::MIN as f64, i64::MAX as f64) as i64
    } else {
        0
    }
}

/// test ÷ control of each side's calls, work per call and efficiency (work per ns; time per
/// call without work), where both sides have it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Ratios {
    /// Calls per step, test ÷ control.
    pub calls: Option<f64>,
    /// Work per call, test ÷ control.
    pub work: Option<f64>,
    /// Work per ns, test ÷ control (above 1: more efficient).
    pub efficiency: Option<f64>,
    /// Time per call, test ÷ control.
    pub time_per_call: Option<f64>,
}

/// The ratios of a row.
pub(crate) fn ratios(c: SideCost, t: SideCost) -> Ratios {
    let div = |a: f64, b: f64| (b > 0.0 && a.is_finite() && b.is_finite()).then(|| a / b);
    let per_call = |s: SideCost| div(s.time_ns as f64, s.calls);
    let work = match (c.work, t.work) {
        (Some(wc), Some(wt)) => div(wt, wc),
        _ => None,
    };
    let rate = |s: SideCost| Some(s.work? * s.calls / s.time_ns as f64).filter(|r| r.is_finite() && *r > 0.0);
    Ratios {
        calls: if t.calls > 0.0 { div(t.calls, c.calls) } else { None },
        work,
        efficiency: match (rate(c), rate(t)) {
            (Some(rc), Some(rt)) => div(rt, rc),
            _ => None,
        },
        time_per_call: match (per_call(c), per_call(t)) {
            (Some(pc), Some(pt)) => div(pt, pc),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(calls: f64, time_ns: i64, work: Option<f64>) -> SideCost {
        SideCost { calls, time_ns, work }
    }

    #[test]
    fn the_parts_sum_to_the_change() {
        // Twice the calls, 1.5× the work each, and each unit of work 10% slower.
        let c = side(10.0, 1_000, Some(100.0));
        let t = side(20.0, 3_300, Some(150.0));
        let p = decompose(c, t);
        assert_eq!((p.calls_ns, p.work_ns, p.efficiency_ns), (1_000, 1_000, 300));
        assert_eq!(p.calls_ns + p.work_ns + p.efficiency_ns, p.delta_ns);
        // Rounding: thirds of a ns land in efficiency.
        let p = decompose(side(3.0, 10, Some(3.0)), side(4.0, 17, Some(4.0)));
        assert_eq!((p.delta_ns, p.calls_ns, p.work_ns), (7, 3, 4));
        assert_eq!(p.efficiency_ns, 0);
        let p = decompose(side(3.0, 10, None), side(3.0, 5, None));
        assert_eq!((p.calls_ns, p.work_ns, p.efficiency_ns), (0, 0, -5));
    }

    #[test]
    fn a_row_one_side_lacks_is_all_calls() {
        let p = decompose(side(0.0, 0, None), side(4.0, 900, Some(1.0)));
        assert_eq!((p.delta_ns, p.calls_ns, p.work_ns, p.efficiency_ns), (900, 900, 0, 0));
        let p = decompose(side(4.0, 900, Some(1.0)), side(0.0, 0, None));
        assert_eq!((p.calls_ns, p.efficiency_ns), (-900, 0));
    }

    #[test]
    fn ratios_of_calls_work_and_efficiency() {
        let r = ratios(side(10.0, 1_000, Some(100.0)), side(20.0, 3_300, Some(150.0)));
        assert_eq!(r.calls, Some(2.0));
        assert_eq!(r.work, Some(1.5));
        // Work per ns: 1 → 3000 / 3300.
        assert!((r.efficiency.unwrap() - 1.0 / 1.1).abs() < 1e-12);
        assert_eq!(ratios(side(0.0, 0, None), side(1.0, 5, None)).calls, None);
    }
}
