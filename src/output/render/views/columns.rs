//! The operator and kernel tables (docs/semantics.md#operator-and-kernel-views) as one table
//! model: every column of every format declared once, in the order each format keeps.

use super::{TableView, percent, shown_percent, significant_of};
use crate::analysis::views::{Measure, ViewKind, ViewRow, ViewTable};
use crate::output::render::classes_table::{self, Extra};
use crate::output::render::compare::hundredths;
use crate::output::render::table::{Cell, Column, Formats, Table};
use crate::output::render::why::{self, WhyOf};
use std::borrow::Cow;

/// The CSV columns of each view (HTA's): (measure, with a diff column).
fn csv_columns(kind: ViewKind) -> &'static [(Measure, bool)] {
    match kind {
        ViewKind::Operators => &[
            (Measure::Calls, true),
            (Measure::HostSelf, true),
            (Measure::HostTotal, true),
            (Measure::DeviceSelf, true),
            (Measure::DeviceTotal, true),
        ],
        ViewKind::Kernels | ViewKind::Classes => &[
            (Measure::Calls, true),
            (Measure::DeviceTotal, true),
            (Measure::DeviceMean, false),
        ],
    }
}

/// What a cell of a column holds.
#[derive(Debug, Clone, Copy)]
enum Of {
    /// The row's name as the terminal shows it (`operator → kernel` where keyed so).
    ShownName,
    /// The launching operator.
    Operator,
    /// The name.
    Name,
    /// The kernel's class.
    Class,
    /// Measure `k` summed over the steps, `side` 0 control, 1 test, 2 the change.
    Raw(usize, usize),
    /// Δ% of measure `k` summed.
    RawPercent(usize),
    /// Measure `k` as shown (per step where the rows are), `side` as [`Of::Raw`].
    Shown(usize, usize),
    /// Δ% of measure `k` as shown.
    ShownPercent(usize),
    /// Measure `k` per step (empty where the row holds no per-step values), `side` as [`Of::Raw`].
    PerStep(usize, usize),
    /// Δ% of measure `k` per step.
    PerStepPercent(usize),
    /// Whether measure `k` changed significantly.
    Significant(usize),
    /// A side's share of its steps' time (0 control, 1 test).
    Share(usize),
    /// A `--why` value.
    Why(WhyOf),
}

/// The view's table: its columns (what each holds beside them) and its rows.
pub(super) fn table<'a>(view: &'a TableView<'a>) -> Table<'a> {
    let (columns, of): (Vec<Column>, Vec<Of>) = columns(view).into_iter().unzip();
    let t = view.table;
    let mut table = Table::new(columns, view.rows.len(), move |i, cells| {
        let r = view.rows[i];
        cells.extend(of.iter().map(|&o| match o {
            Of::Why(w) => why::cell(view.why.and_then(|why| why.get(r.operator.as_deref(), &r.name)), w),
            o => cell(t, r, o),
        }));
    });
    if !t.by_operator {
        table.names = Some(Box::new(move |i| view.rows[i].name.as_str()));
    }
    table
}

/// Every column of the view, in order, with what its cells hold.
fn columns(view: &TableView<'_>) -> Vec<(Column, Of)> {
    use Formats as F;
    let t = view.table;
    let (cl, tl) = (&t.control.label, &t.test.label);
    let extra = Extra::of(t);
    let first = if t.by_operator { "operator → kernel" } else { "name" };
    let mut c = vec![(Column::new("", "", first).left().only(F::TERMINAL), Of::ShownName)];
    if t.by_operator {
        let operator = Column::new("operator", "operator", "operator").left();
        c.push((operator.only(F::CSV | F::JSON | F::MARKDOWN), Of::Operator));
    }
    let name = Column::new("name", "name", "name").left();
    c.push((name.only(F::CSV | F::JSON | F::MARKDOWN), Of::Name));
    if extra.class {
        c.push((
            Column::new("class", "class", "class").left().only(F::CSV | F::JSON),
            Of::Class,
        ));
    }
    let per_step = t.rows.iter().any(|r| r.per_step.is_some());
    for (k, &m) in t.measures.iter().enumerate() {
        c.extend(measure_columns(t.kind, m, k, per_step));
    }
    c.extend(terminal_columns(view));
    if t.significance {
        c.push((
            Column::new("significant", "significant", "").only(F::CSV | F::JSON),
            Of::Significant(view.time),
        ));
    }
    if extra.share {
        let share = |key: &str, label: &str| {
            Column::new(key, key, format!("{label}\nshare")).only(F::TERMINAL | F::CSV | F::JSON)
        };
        c.push((share("control_share", cl), Of::Share(0)));
        c.push((share("test_share", tl), Of::Share(1)));
    }
    if view.why.is_some() {
        c.extend(
            why::columns(per_step, true)
                .into_iter()
                .map(|(col, w)| (col, Of::Why(w))),
        );
    }
    c
}

/// The terminal's value columns: calls and the `--time` measure per side, Δ and Δ %, then the
/// `sig` mark where any row was judged.
fn terminal_columns(view: &TableView<'_>) -> Vec<(Column, Of)> {
    let t = view.table;
    let (cl, tl, k) = (&t.control.label, &t.test.label, view.time);
    let column = |header: String| Column::new("", "", header).only(Formats::TERMINAL);
    let mut c = vec![
        (column(format!("{cl}\ncalls")), Of::Shown(0, 0)),
        (column(format!("{tl}\ncalls")), Of::Shown(1, 0)),
        (column("Δ\ncalls".to_string()).signed(), Of::Shown(2, 0)),
        (column(format!("{cl}\ntime")), Of::Shown(0, k)),
        (column(format!("{tl}\ntime")), Of::Shown(1, k)),
        (column("Δ\ntime".to_string()).signed(), Of::Shown(2, k)),
        (column("Δ\ntime %".to_string()).blank(""), Of::ShownPercent(k)),
    ];
    if t.significance && view.rows.iter().any(|r| significant_of(r, k).is_some()) {
        // Markdown marks significant rows as the terminal does.
        let sig = Column::new("", "", "sig").only(Formats::TERMINAL | Formats::MARKDOWN);
        c.push((sig, Of::Significant(k)));
    }
    c
}

/// Row `r`'s cell of a column that holds `of`.
fn cell<'a>(t: &ViewTable, r: &'a ViewRow, of: Of) -> Cell<'a> {
    match of {
        Of::ShownName => match &r.operator {
            Some(op) => Cell::Name(Cow::Owned(format!("{op} → {}", r.name))),
            None => Cell::Name(Cow::Borrowed(&r.name)),
        },
        Of::Operator => r
            .operator
            .as_deref()
            .map_or(Cell::Empty, |op| Cell::Name(Cow::Borrowed(op))),
        Of::Name => Cell::Name(Cow::Borrowed(&r.name)),
        Of::Class => Cell::Text(Cow::Borrowed(classes_table::class_of(t, r))),
        Of::Raw(side, k) => {
            let v = match side {
                0 => r.control[k],
                1 => r.test[k],
                _ => r.diff(k),
            };
            match v {
                None => Cell::Empty,
                Some(v) if t.measures[k].is_count() => Cell::Int(v),
                Some(v) => Cell::Duration(v),
            }
        }
        Of::RawPercent(k) => percent(r, k).map_or(Cell::Empty, Cell::Percent),
        Of::Shown(side, k) => {
            let v = if side == 2 { r.shown_diff(k) } else { r.shown(side, k) };
            match v {
                None => Cell::Empty,
                Some(v) if t.measures[k].is_count() && r.per_step.is_some() => Cell::Rate(v),
                Some(v) if t.measures[k].is_count() => Cell::Int(v as i64),
                Some(v) => Cell::Duration(v.round() as i64),
            }
        }
        Of::ShownPercent(k) => shown_percent(r, k).map_or(Cell::Empty, Cell::Percent),
        Of::PerStep(side, k) => match &r.per_step {
            None => Cell::Empty,
            Some(p) => {
                let (c, s) = (p[0].get(k).copied().flatten(), p[1].get(k).copied().flatten());
                let v = match side {
                    0 => c,
                    1 => s,
                    _ => c.zip(s).map(|(c, s)| s - c),
                };
                match v {
                    None => Cell::Empty,
                    Some(v) if t.measures[k].is_count() => Cell::Rate(hundredths(v)),
                    Some(v) => Cell::Duration(v.round() as i64),
                }
            }
        },
        Of::PerStepPercent(k) => match &r.per_step {
            None => Cell::Empty,
            Some(_) => shown_percent(r, k).map_or(Cell::Empty, Cell::Percent),
        },
        Of::Significant(k) => Cell::Mark(significant_of(r, k)),
        Of::Share(side) => classes_table::shares(t, r)[side].map_or(Cell::Empty, Cell::Share),
        Of::Why(_) => Cell::Empty,
    }
}

/// The name of field `measure` of `side` (`control`, `test`, `diff`, `diff_pct`), per step or
/// summed, the unit last (docs/fields.md): `control_calls`, `test_host_self_per_step_us`,
/// `diff_pct_device_total`.
pub(crate) fn field_name(side: &str, measure: Measure, per_step: bool) -> String {
    let step = if per_step { "_per_step" } else { "" };
    let unit = if measure.is_count() || side == "diff_pct" {
        ""
    } else {
        "_us"
    };
    format!("{side}_{measure}{step}{unit}")
}

/// The columns of measure `m` (the `k`th): its sums in JSON (and CSV where the view's CSV has
/// the measure), its per-step values beside them where `per_step` (not for a kernel's mean,
/// min and max, durations of single kernels that steps do not divide), and in Markdown the
/// values the terminal shows under the names of the fields they are.
fn measure_columns(kind: ViewKind, m: Measure, k: usize, per_step: bool) -> Vec<(Column, Of)> {
    use Formats as F;
    let csv = csv_columns(kind).iter().find(|(c, _)| *c == m).map(|&(_, diff)| diff);
    let stepped = per_step && !m.is_statistic();
    let mut c = Vec::new();
    for step in [false, true] {
        if step && !stepped {
            continue;
        }
        let of = |side: usize| if step { Of::PerStep(side, k) } else { Of::Raw(side, k) };
        let pct = if step { Of::PerStepPercent(k) } else { Of::RawPercent(k) };
        // Markdown shows the values as the terminal does: per step where the rows are.
        let md = step == stepped;
        let field = |side: &str, in_csv: bool| {
            let name = field_name(side, m, step);
            let mut formats = F::JSON;
            if in_csv {
                formats = formats | F::CSV;
            }
            if md {
                formats = formats | F::MARKDOWN;
            }
            Column::new(name.clone(), name.clone(), name).only(formats)
        };
        c.push((field("control", csv.is_some()), of(0)));
        c.push((field("test", csv.is_some()), of(1)));
        c.push((field("diff", csv == Some(true)).signed(), of(2)));
        c.push((field("diff_pct", false).blank(""), pct));
    }
    c
}
