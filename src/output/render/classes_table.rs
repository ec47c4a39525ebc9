//! The class columns of the kernel tables (docs/kernel-classes.md): `class` in `kernels`' CSV
//! and JSON, and each side's share of its steps in `kernels --by-class`.

use crate::analysis::views::{ViewKind, ViewRow, ViewTable};

/// Which class columns a table has.
pub(crate) struct Extra {
    /// A `class` column (kernel rows).
    pub class: bool,
    /// `control_share` and `test_share` columns (class rows).
    pub share: bool,
}

impl Extra {
    /// The class columns of `t`.
    pub(crate) fn of(t: &ViewTable) -> Extra {
        Extra {
            class: t.kind == ViewKind::Kernels && t.classifier.is_some(),
            share: t.kind == ViewKind::Classes,
        }
    }
}

/// The class of a kernel row's kernel.
pub(crate) fn class_of(t: &ViewTable, r: &ViewRow) -> &'static str {
    t.classifier.as_ref().map_or("other", |c| c.classify(&r.name).name())
}

/// Each side's device total of row `r` as a share of its selected steps' summed time (0–1,
/// to 4 decimals); `None` for a side without ProfilerStep.
pub(crate) fn shares(t: &ViewTable, r: &ViewRow) -> [Option<f64>; 2] {
    let k = t.measure(crate::analysis::views::Measure::DeviceTotal);
    let share = |v: Option<i64>, total: Option<i64>| -> Option<f64> {
        let total = total.filter(|&d| d > 0)?;
        let v = v.unwrap_or(0) as f64 / total as f64;
        Some((v * 10_000.0).round() / 10_000.0)
    };
    match k {
        Some(k) => [
            share(r.control[k], t.step_total_ns[0]),
            share(r.test[k], t.step_total_ns[1]),
        ],
        None => [None, None],
    }
}
