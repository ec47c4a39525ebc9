//! The `--why` columns of `compare`, `operators` and `kernels` (docs/cost-model.md#the-why-columns):
//! each row's own change split into calls, work and efficiency by the decomposition that
//! `explain` uses, with the causes named from the operators' recorded inputs and kernels.
//!
//! An operator row takes its work per call from its own calls' shapes. A kernel row has no
//! work figure of its own: its change splits into calls (launches) and time per launch, and its
//! causes are those of the operator that launched it (the row's operator with
//! `--by-operator`, else the operator that launched most of the kernel's time on the two
//! sides). Any other row (a runtime call, an annotation) splits into calls and time per call.

use super::causes::{self, CauseKind};
use super::gather::{self, OpStats};
use crate::analysis::cost::decompose::{SideCost, decompose, ratios};
pub(crate) use crate::analysis::cost::why_table::{WhyRow, WhyTable, shown_sides};
use crate::analysis::load::loaded::Loaded;
use crate::analysis::modules::Scope;
use crate::analysis::views::Accumulated;
use crate::request::CompareRequest;
use crate::request::side::SideId;
use std::collections::BTreeMap;

/// What the `--why` columns are drawn from: each side's operator figures, by row key.
#[derive(Debug, Clone, Default)]
pub(crate) struct WhyStats {
    /// Each side's figures per operator name.
    sides: [BTreeMap<String, OpStats>; 2],
    /// Per kernel name, the operator that launched most of its time on the two sides.
    launcher: BTreeMap<String, String>,
    /// Whether each side recorded input shapes (`record_shapes=True`).
    pub shapes: [bool; 2],
}

/// What a row of a table is, for its `--why` values.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RowKind<'a> {
    /// An operator (a `compare` row may be one, or a kernel, or neither).
    Operator,
    /// A kernel, launched by this operator where the row says (`--by-operator`).
    Kernel(Option<&'a str>),
    /// A `compare` row: an operator where the traces have one of its name, else a kernel.
    Any,
}

impl WhyStats {
    /// The figures of `loaded`'s operators (inside `scope` where given), keyed as the views
    /// key their rows.
    pub(crate) fn of(req: &CompareRequest, loaded: &Loaded, scope: Option<&Scope>) -> WhyStats {
        let (c, t) = rayon::join(
            || gather::side(req, loaded, SideId::Control, scope),
            || gather::side(req, loaded, SideId::Test, scope),
        );
        WhyStats::from_sides([c, t])
    }

    /// The same from each side's accumulated figures.
    pub(crate) fn from_sides(sides: [Accumulated<OpStats>; 2]) -> WhyStats {
        let sides = sides.map(|s| s.into_iter().map(|((_, name), stats)| (name, stats)).collect());
        let shapes = [0, 1].map(|k: usize| {
            let s: &BTreeMap<String, OpStats> = &sides[k];
            s.values().any(|o| o.calls > o.without_shapes)
        });
        let mut time: BTreeMap<&str, BTreeMap<&str, i64>> = BTreeMap::new();
        for side in &sides {
            for (op, stats) in side {
                for (kernel, (_, ns)) in &stats.kernels {
                    *time.entry(kernel).or_default().entry(op).or_default() += ns;
                }
            }
        }
        let launcher = time
            .into_iter()
            .filter_map(|(kernel, ops)| {
                // The most time, ties by name.
                let op = ops
                    .into_iter()
                    .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))?;
                Some((kernel.to_string(), op.0.to_string()))
            })
            .collect();
        WhyStats {
            sides,
            launcher,
            shapes,
        }
    }

    /// Whether neither side recorded shapes, or one did not: the note that says what gives
    /// the work columns.
    pub(crate) fn shapes_note(&self, labels: &[String; 2]) -> Option<String> {
        let missing: Vec<&str> = (0..2)
            .filter(|&k| !self.shapes[k])
            .map(|k| labels[k].as_str())
            .collect();
        (!missing.is_empty()).then(|| {
            format!(
                "--why: {} recorded no input shapes, so the work columns are empty: \
                 record_shapes=True gives them",
                missing.join(" and ")
            )
        })
    }

    fn stats(&self, k: usize, op: &str) -> Option<&OpStats> {
        self.sides[k].get(op)
    }

    fn is_operator(&self, name: &str) -> bool {
        self.sides.iter().any(|s| s.get(name).is_some_and(|o| o.calls > 0))
    }

    /// The `--why` values of the row `name` of `kind`, with each side's calls and time per
    /// step (or summed) as the table shows them.
    pub(crate) fn row(&self, name: &str, kind: RowKind<'_>, [c, t]: [(f64, i64); 2]) -> WhyRow {
        let kind = match kind {
            RowKind::Any if self.is_operator(name) => RowKind::Operator,
            RowKind::Any => RowKind::Kernel(None),
            k => k,
        };
        let sides = [c, t].map(|(calls, time_ns)| SideCost {
            calls,
            time_ns,
            work: None,
        });
        match kind {
            RowKind::Operator => self.operator_row(name, sides),
            _ => {
                let via = match kind {
                    RowKind::Kernel(Some(op)) => Some(op.to_string()),
                    _ => self.launcher.get(name).cloned(),
                };
                let causes = via.as_deref().map(|op| self.input_causes(op)).unwrap_or_default();
                WhyRow {
                    ratios: ratios(sides[0], sides[1]),
                    parts: decompose(sides[0], sides[1]),
                    unit: None,
                    work: [None, None],
                    causes,
                    via,
                }
            }
        }
    }

    fn operator_row(&self, name: &str, [c, t]: [SideCost; 2]) -> WhyRow {
        let empty = OpStats::default();
        let stats = [0, 1].map(|k| self.stats(k, name).cloned().unwrap_or_else(|| empty.clone()));
        let side = |s: SideCost, k: usize| SideCost {
            work: stats[k].work_per_call().map(|(_, w)| w),
            ..s
        };
        let e = causes::explained(name, [side(c, 0), side(t, 1)], &stats, None, &[None, None], true);
        let causes: Vec<&str> = e
            .causes
            .iter()
            .filter(|c| matches!(c.kind, CauseKind::Shapes | CauseKind::Dtypes | CauseKind::Kernels))
            .map(|c| c.short.as_str())
            .collect();
        WhyRow {
            ratios: e.ratios,
            parts: e.parts,
            unit: e.unit,
            work: [e.control.work, e.test.work],
            causes: causes.join("; "),
            via: None,
        }
    }

    /// The shapes and element types that changed under operator `op`, in short words.
    fn input_causes(&self, op: &str) -> String {
        let empty = OpStats::default();
        let stats = [0, 1].map(|k| self.stats(k, op).cloned().unwrap_or_else(|| empty.clone()));
        let side = SideCost::default();
        let e = causes::explained(op, [side, side], &stats, None, &[None, None], true);
        let said: Vec<&str> = e
            .causes
            .iter()
            .filter(|c| matches!(c.kind, CauseKind::Shapes | CauseKind::Dtypes))
            .map(|c| c.short.as_str())
            .collect();
        said.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cost::model::Unit;

    fn op(calls: u64, work: u128, shape: &str, dtype: &str, kernel: (&str, i64)) -> OpStats {
        let mut s = OpStats {
            calls,
            with_work: calls,
            unit: Some(Unit::Flops),
            work,
            ..OpStats::default()
        };
        s.shapes.insert(shape.to_string(), calls);
        s.dtypes.insert(dtype.to_string(), calls);
        s.kernels.insert(kernel.0.to_string(), (calls, kernel.1));
        s
    }

    fn stats() -> WhyStats {
        let side = |o: OpStats| {
            let mut a: Accumulated<OpStats> = Accumulated::new();
            a.insert((None, "aten::mm".to_string()), o);
            a
        };
        WhyStats::from_sides([
            side(op(10, 1000, "[2, 3]×[3, 4]", "float", ("gemm_a", 500))),
            side(op(10, 2000, "[4, 3]×[3, 4]", "float", ("gemm_a", 900))),
        ])
    }

    #[test]
    fn an_operator_row_splits_by_its_own_time() {
        let w = stats().row("aten::mm", RowKind::Operator, [(10.0, 1_000), (10.0, 2_100)]);
        assert_eq!(w.parts.delta_ns, 1_100);
        assert_eq!(
            (w.parts.calls_ns, w.parts.work_ns, w.parts.efficiency_ns),
            (0, 1_000, 100)
        );
        assert_eq!(w.ratios.work, Some(2.0));
        assert_eq!(w.unit, Some(Unit::Flops));
        assert_eq!(w.work, [Some(100.0), Some(200.0)]);
        assert_eq!(w.causes, "dims [2, 3]×[3, 4] → [4, 3]×[3, 4]");
    }

    #[test]
    fn a_kernel_row_takes_its_launchers_causes() {
        let s = stats();
        let w = s.row("gemm_a", RowKind::Kernel(None), [(10.0, 500), (20.0, 900)]);
        assert_eq!(w.via.as_deref(), Some("aten::mm"));
        assert_eq!(w.unit, None);
        assert_eq!(
            (w.parts.calls_ns, w.parts.work_ns, w.parts.efficiency_ns),
            (500, 0, -100)
        );
        assert_eq!(w.causes, "dims [2, 3]×[3, 4] → [4, 3]×[3, 4]");
        // A compare row of that name is the kernel's; a name nobody launched has no causes.
        assert_eq!(s.row("gemm_a", RowKind::Any, [(10.0, 500), (20.0, 900)]), w);
        let other = s.row("cudaLaunchKernel", RowKind::Any, [(1.0, 5), (1.0, 7)]);
        assert_eq!((other.via, other.causes.as_str()), (None, ""));
        assert_eq!(other.parts.efficiency_ns, 2);
    }

    #[test]
    fn a_side_without_shapes_is_named() {
        let mut s = stats();
        s.shapes = [true, false];
        let labels = ["fp32".to_string(), "bf16".to_string()];
        assert!(
            s.shapes_note(&labels)
                .unwrap()
                .starts_with("--why: bf16 recorded no input shapes")
        );
    }
}
