//! The comparison's rows (HTA's `compare_traces` columns, docs/semantics.md) as one table model:
//! the terminal and Markdown columns, the CSV columns with the sides' labels, and the JSON
//! columns with fixed keys, each declared once.

use super::{CompareView, describe_side, filter_note, marks_significance, more_steps_hint, summary_lines};
use crate::analysis::diff::Row;
use crate::output::render::fmt_percent;
use crate::output::render::table::{Cell, Column, Formats, Line, Table};
use crate::output::render::why::{self, WhyOf};
use std::borrow::Cow;

/// What a cell of a column holds.
#[derive(Debug, Clone, Copy)]
enum Of {
    /// The name.
    Name,
    /// A side's count as shown (per step where the rows are), 0 control, 1 test, 2 the change.
    Count(usize),
    /// A side's time as shown, as [`Of::Count`].
    Time(usize),
    /// Δ% of the time as shown.
    TimePercent,
    /// A side's count summed, as [`Of::Count`].
    RawCount(usize),
    /// A side's time summed, as [`Of::Count`].
    RawTime(usize),
    /// HTA's symbol of the change of count.
    ChangeSymbol,
    /// Added, deleted, increased, decreased or unchanged.
    Category,
    /// A side's count per step (empty where the row holds no per-step values), as [`Of::Count`].
    PerStepCount(usize),
    /// A side's time per step, as [`Of::PerStepCount`].
    PerStepTime(usize),
    /// Whether the time changed significantly.
    Significant,
    /// A `--why` value.
    Why(WhyOf),
}

/// The comparison's table: its columns, rows, and the lines around them.
pub(super) fn table<'a>(view: &'a CompareView<'a>) -> Table<'a> {
    let (columns, of): (Vec<Column>, Vec<Of>) = columns(view).into_iter().unzip();
    let c = view.comparison;
    let mut table = Table::new(columns, view.rows.len(), move |i, cells| {
        let r = view.rows[i];
        cells.extend(of.iter().map(|&o| match o {
            Of::Why(w) => why::cell(c.why.as_ref().and_then(|why| why.get(None, &r.name)), w),
            o => cell(r, o),
        }));
    });
    table.title = vec![
        Line::new(describe_side(&c.control)),
        Line::new(describe_side(&c.test)),
        Line::new(format!("device: {}{}", c.device, filter_note(c))),
    ];
    table
        .title
        .extend(more_steps_hint([&c.control, &c.test]).map(Line::new));
    table.notes = summary_lines(view).into_iter().map(Line::new).collect();
    if let Some(why) = &c.why {
        let rows = view.rows.iter().map(|r| (r.name.clone(), why.get(None, &r.name)));
        table.notes.extend(why::cause_lines(rows));
    }
    table.names = Some(Box::new(move |i| view.rows[i].name.as_str()));
    table
}

/// Every column, in order, with what its cells hold.
fn columns(view: &CompareView<'_>) -> Vec<(Column, Of)> {
    use Formats as F;
    let c = view.comparison;
    let (cl, tl) = (&c.control.label, &c.test.label);
    let naming = c.naming.column();
    let mut cols = vec![(Column::new("name", naming, naming).markdown(naming).left(), Of::Name)];
    let people = |header: String| Column::new("", "", header).only(F::TERMINAL | F::MARKDOWN);
    cols.extend([
        (people(format!("{cl}\ncount")), Of::Count(0)),
        (people(format!("{tl}\ncount")), Of::Count(1)),
        (people("Δ\ncount".to_string()).signed(), Of::Count(2)),
        (people(format!("{cl}\ntime")), Of::Time(0)),
        (people(format!("{tl}\ntime")), Of::Time(1)),
        (people("Δ\ntime".to_string()).signed(), Of::Time(2)),
        (people("Δ\ntime %".to_string()), Of::TimePercent),
    ]);
    if marks_significance(c) {
        cols.push((
            Column::new("", "", "sig").only(F::TERMINAL | F::MARKDOWN),
            Of::Significant,
        ));
    }
    // `--hta`: HTA's CSV; JSON keeps the fields of docs/fields.md.
    let fields = if view.hta {
        cols.extend(hta_columns(cl, tl));
        F::JSON
    } else {
        F::CSV | F::JSON
    };
    cols.extend(field_columns(view.per_step(), fields));
    let symbol = Column::new("counts_change_categories", "counts_change_categories", "");
    cols.push((symbol.only(F::CSV | F::JSON), Of::ChangeSymbol));
    cols.push((Column::new("category", "", "").only(F::JSON), Of::Category));
    if c.significance {
        let significant = Column::new("significant", "significant", "").only(F::CSV | F::JSON);
        cols.push((significant, Of::Significant));
    }
    if c.why.is_some() {
        cols.extend(
            why::columns(view.per_step(), false)
                .into_iter()
                .map(|(col, w)| (col, Of::Why(w))),
        );
    }
    cols
}

/// Row `r`'s cell of a column that holds `of`.
fn cell(r: &Row, of: Of) -> Cell<'_> {
    match of {
        Of::Name => Cell::Name(Cow::Borrowed(&r.name)),
        Of::Count(side) => match &r.per_step {
            Some([c, t]) => Cell::Rate([c.count, t.count, t.count - c.count][side]),
            None => Cell::Int([r.control.count as i64, r.test.count as i64, r.diff_counts()][side]),
        },
        Of::Time(2) => Cell::Duration(r.shown_diff_dur_ns()),
        Of::Time(side) => Cell::Duration(r.shown_dur_ns(side)),
        Of::TimePercent => Cell::Percent(fmt_percent(r.shown_dur_ns(0), r.shown_dur_ns(1))),
        Of::RawCount(side) => Cell::Int([r.control.count as i64, r.test.count as i64, r.diff_counts()][side]),
        Of::RawTime(side) => Cell::Duration([r.control.dur_ns, r.test.dur_ns, r.diff_dur_ns()][side]),
        Of::ChangeSymbol => Cell::Text(Cow::Borrowed(r.change_symbol())),
        Of::Category => Cell::Text(Cow::Borrowed(r.category().as_str())),
        Of::PerStepCount(side) => r.per_step.map_or(Cell::Absent, |[c, t]| {
            Cell::Rate(hundredths([c.count, t.count, t.count - c.count][side]))
        }),
        Of::PerStepTime(side) => r.per_step.map_or(Cell::Absent, |[c, t]| {
            Cell::Duration([c.dur_ns, t.dur_ns, t.dur_ns - c.dur_ns][side].round() as i64)
        }),
        Of::Significant => Cell::Mark(r.significant),
        Of::Why(_) => Cell::Empty,
    }
}

/// HTA's CSV columns (`--hta`), under HTA's names with the labels in them: the values as shown,
/// which with `--hta` (one step a side) are the sums.
fn hta_columns(cl: &str, tl: &str) -> Vec<(Column, Of)> {
    let csv = |name: String| Column::new("", name, "").only(Formats::CSV);
    vec![
        (csv(format!("{cl}_counts")), Of::Count(0)),
        (csv(format!("{cl}_total_duration")), Of::Time(0)),
        (csv(format!("{tl}_counts")), Of::Count(1)),
        (csv(format!("{tl}_total_duration")), Of::Time(1)),
        (csv("diff_counts".to_string()), Of::Count(2)),
        (csv("diff_duration".to_string()), Of::Time(2)),
    ]
}

/// The value fields of CSV and JSON, one meaning per name (docs/fields.md): the sums over the
/// steps used (`<side>_count`, `<side>_total_us`), then, where the rows are per step, the
/// means per step (`<side>_count_per_step`, `<side>_total_per_step_us`). The sides are
/// `control`, `test` and `diff` whatever the labels.
fn field_columns(per_step: bool, formats: Formats) -> Vec<(Column, Of)> {
    let field = |name: String| Column::new(name.clone(), name, "").only(formats);
    let sides = ["control", "test", "diff"];
    let mut cols = Vec::new();
    for (i, side) in sides.into_iter().enumerate() {
        cols.push((field(format!("{side}_count")), Of::RawCount(i)));
        cols.push((field(format!("{side}_total_us")), Of::RawTime(i)));
    }
    if per_step {
        for (i, side) in sides.into_iter().enumerate() {
            cols.push((field(format!("{side}_count_per_step")), Of::PerStepCount(i)));
            cols.push((field(format!("{side}_total_per_step_us")), Of::PerStepTime(i)));
        }
    }
    cols
}

/// `v` to two decimals: a count per step as every format writes it.
pub(crate) fn hundredths(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}
