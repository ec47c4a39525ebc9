//! The `--why` values of a table's rows (docs/cost-model.md#the-why-columns), apart from how
//! they are made ([`crate::analysis::explain::why`]): the comparison carries them, so this module imports nothing
//! that loads or views traces.

use super::decompose::{Parts, Ratios};
use super::work::Unit;
use std::collections::BTreeMap;

/// One row's `--why` values.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WhyRow {
    /// test ÷ control of calls, work per call, efficiency and time per call.
    pub ratios: Ratios,
    /// Δ of the row's shown time and its three parts (they sum to it exactly).
    pub parts: Parts,
    /// The unit of the work figures, where the row has them on both sides.
    pub unit: Option<Unit>,
    /// Each side's work per call, where the row has a unit.
    pub work: [Option<f64>; 2],
    /// The shapes, element types and kernels that changed, in short words, `; ` between (a
    /// kernel row's: those of the operator [`WhyRow::via`]).
    pub causes: String,
    /// The operator a kernel row's causes are drawn from.
    pub via: Option<String>,
}

/// The `--why` values of a table's rows, by (operator, name) key, and the note on what was
/// missing for them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WhyTable {
    /// Each row's values.
    pub rows: BTreeMap<(Option<String>, String), WhyRow>,
    /// Whether each side recorded input shapes.
    pub shapes: [bool; 2],
    /// The index of the measure whose change the parts split, in a view's measures (0 in
    /// `compare`: its one time).
    pub time: usize,
}

impl WhyTable {
    /// The values of the row keyed (`operator`, `name`).
    pub fn get(&self, operator: Option<&str>, name: &str) -> Option<&WhyRow> {
        self.rows.get(&(operator.map(str::to_string), name.to_string()))
    }
}

/// A side's calls and time as a table shows them: the control's time, and the change (the
/// row's Δ column, which the parts then sum to whatever the rounding of the sides).
pub(crate) fn shown_sides(calls: [f64; 2], control_ns: f64, delta_ns: f64) -> [(f64, i64); 2] {
    let c = control_ns.round() as i64;
    [(calls[0], c), (calls[1], c + delta_ns.round() as i64)]
}
