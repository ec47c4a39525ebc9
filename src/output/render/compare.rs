//! The comparison table in each output format.

use super::table::{self, terminal};
use super::{Format, TableStyle, fmt_count, fmt_duration, fmt_percent, json_us};
use crate::analysis::diff::{Comparison, Row, SideInfo, SortKey, Summary, plural};
use crate::analysis::select::Device;
use serde::Serialize;
use serde_json::{Value, json};
use std::io::{self, Write};

mod columns;

pub(crate) use columns::hundredths;

/// The rows to show, in order, and how they were chosen.
#[derive(Debug, Clone)]
pub struct CompareView<'a> {
    /// The comparison the rows come from.
    pub comparison: &'a Comparison,
    /// In output order, at most `top` of them.
    pub rows: Vec<&'a Row>,
    /// How `rows` were sorted.
    pub sort: SortKey,
    /// The `--top` asked for; `None`: every row.
    pub top: Option<usize>,
    /// Whether the CSV has HTA's columns under HTA's names (`--hta`) rather than the fields of
    /// docs/fields.md.
    pub hta: bool,
}

impl<'a> CompareView<'a> {
    /// The rows of `comparison` sorted by `sort`, at most `top`.
    pub fn new(comparison: &'a Comparison, sort: SortKey, top: Option<usize>) -> Self {
        let mut ordered: Vec<&Row> = comparison.rows.iter().collect();
        crate::analysis::diff::sort_rows(&mut ordered, sort);
        if let Some(n) = top {
            ordered.truncate(n);
        }
        CompareView {
            comparison,
            rows: ordered,
            sort,
            top,
            hta: false,
        }
    }

    /// The same, with HTA's CSV columns where `hta` (`--hta`).
    pub fn hta_columns(self, hta: bool) -> Self {
        CompareView { hta, ..self }
    }

    /// Whether any row holds per-step values (more than one step or run on a side).
    pub fn per_step(&self) -> bool {
        self.comparison.rows.iter().any(|r| r.per_step.is_some())
    }
}

/// Writes the table to `out` in `format` (the terminal table fitted to `style`). Fails only
/// when `out` does.
pub fn render(view: &CompareView<'_>, format: Format, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Csv => csv(view, out),
        Format::Json => json(view, out),
        Format::Markdown => markdown(view, out),
        Format::Table => table(view, style, out),
    }
}

/// The fields of docs/fields.md; with [`CompareView::hta`], HTA's columns with `--labels` in
/// the headers.
pub(crate) fn csv(view: &CompareView<'_>, out: &mut dyn Write) -> io::Result<()> {
    table::csv::write(&columns::table(view), out)
}

/// What one side is (label, path, files, ranks and iterations compared, device) as the JSON
/// outputs write it.
pub(crate) fn side_json(s: &SideInfo) -> Value {
    json!({
        "label": s.label,
        "path": s.path,
        "files": s.files,
        "ranks": s.resolved.ranks,
        "iterations": s.resolved.iterations,
        "steps_available": s.steps_available,
        "ranks_available": s.ranks_available,
        "runs": s.run_steps.len().max(1),
        "run_steps": s.run_steps,
    })
}

fn summary_json(s: &Summary) -> Value {
    json!({
        "rows": s.rows,
        "added": s.added,
        "deleted": s.deleted,
        "increased": s.increased,
        "decreased": s.decreased,
        "unchanged": s.unchanged,
        "control_total_us": json_us(s.control_dur_ns),
        "test_total_us": json_us(s.test_dur_ns),
    })
}

#[derive(Serialize)]
struct JsonDoc<'a, 't> {
    tool: &'static str,
    version: &'static str,
    duration_unit: &'static str,
    control: Value,
    test: Value,
    device: Device,
    naming: &'static str,
    normalize_names: bool,
    python_frames: bool,
    group_by: &'a [String],
    include: &'a [String],
    exclude: &'a [String],
    sort: &'static str,
    top: Option<usize>,
    summary: Value,
    /// Each side's mean step time (µs), where the rows are per step.
    #[serde(skip_serializing_if = "Option::is_none")]
    mean_step_time_us: Option<Value>,
    /// Run-wide shifts (factor test ÷ control), where significance was estimated.
    #[serde(skip_serializing_if = "Option::is_none")]
    run_shift: Option<&'a crate::analysis::measure::noise::RunShift>,
    /// With `--why`: whether each side recorded input shapes.
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<Value>,
    rows: table::json::Rows<'t, 'a>,
}

/// One document: the tool, what was compared, the summary and the rows. Row keys are fixed
/// (`control_*`, `test_*`) whatever the labels, so scripts need not know them.
pub(crate) fn json(view: &CompareView<'_>, out: &mut dyn Write) -> io::Result<()> {
    let c = view.comparison;
    let table = columns::table(view);
    let doc = JsonDoc {
        tool: "tracediff",
        version: env!("CARGO_PKG_VERSION"),
        duration_unit: "us",
        control: side_json(&c.control),
        test: side_json(&c.test),
        device: c.device,
        naming: c.naming.column(),
        normalize_names: c.normalize_names,
        python_frames: c.python_frames,
        group_by: &c.group_by,
        include: &c.include,
        exclude: &c.exclude,
        sort: view.sort.as_str(),
        top: view.top,
        summary: summary_json(&c.summary()),
        mean_step_time_us: c
            .step_ns
            .map(|[sc, st]| json!({"control": json_us(sc.round() as i64), "test": json_us(st.round() as i64)})),
        run_shift: marks_significance(c).then_some(&c.shift),
        why: c
            .why
            .as_ref()
            .map(|w| json!({"measure": "total", "shapes_recorded": w.shapes})),
        rows: table::json::Rows(&table),
    };
    serde_json::to_writer_pretty(&mut *out, &doc).map_err(io::Error::from)?;
    writeln!(out)
}

/// One line saying what one side is: its label, path, ranks and iterations, and how many of the
/// side's ranks and steps those are where it holds more (`rank 3, step 1009; 1 of 6 steps`).
pub(crate) fn describe_side(s: &SideInfo) -> String {
    let ranks = crate::analysis::select::ranges(&s.resolved.ranks);
    let rank_word = if s.resolved.ranks.len() == 1 { "rank" } else { "ranks" };
    let steps_used = s.resolved.iterations.as_ref().map_or(0, Vec::len);
    let iters = match &s.resolved.iterations {
        // Taken whole because the other side has no steps.
        None if s.steps_available > 0 => format!(
            "the whole trace: its {} steps and between, as the other side has no steps",
            s.steps_available
        ),
        None => "no ProfilerStep: the whole trace".to_string(),
        Some(v) if v.len() == 1 => format!("step {}", v[0]),
        Some(v) => format!("steps {}", crate::analysis::select::ranges(v)),
    };
    let steps_used = if s.resolved.iterations.is_none() {
        s.steps_available
    } else {
        steps_used
    };
    let tally = used_of_available(
        (s.resolved.ranks.len(), s.ranks_available),
        (steps_used, s.steps_available),
    );
    if s.run_steps.len() > 1 {
        return format!(
            "{}: {} ({} runs × {}, {rank_word} {ranks})",
            s.label,
            s.path,
            s.run_steps.len(),
            run_steps_text(&s.run_steps)
        );
    }
    format!("{}: {} ({rank_word} {ranks}, {iters}{tally})", s.label, s.path)
}

/// `5 steps`, or `3–5 steps` where the runs used different numbers of steps.
fn run_steps_text(steps: &[usize]) -> String {
    let (lo, hi) = (
        steps.iter().min().copied().unwrap_or(0),
        steps.iter().max().copied().unwrap_or(0),
    );
    match (lo, hi) {
        (1, 1) => "1 step".to_string(),
        (a, b) if a == b => format!("{a} steps"),
        (a, b) => format!("{a}–{b} steps"),
    }
}

/// `"; 1 of 2 ranks, 3 of 6 steps"`: how many of a side's ranks and steps were used, for those
/// of which it holds more (`(used, available)` each; a step count of 0 is a side without
/// ProfilerStep). A count, never set against a step's number: `step 1009 of 6` read as the
/// 1009th of 6 steps.
pub(crate) fn used_of_available(ranks: (usize, usize), steps: (usize, usize)) -> String {
    let part = |(used, available): (usize, usize), word: &str| {
        (used > 0 && available > used).then(|| format!("{used} of {available} {word}"))
    };
    let parts: Vec<String> = [part(ranks, "ranks"), part(steps, "steps")]
        .into_iter()
        .flatten()
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("; {}", parts.join(", "))
    }
}

/// What the footer says the rows are: per step, or per rank and step where a side read more
/// than one rank (docs/semantics.md#ranks), as its mean step time is.
pub(crate) fn rows_are_per_step(sides: [&SideInfo; 2]) -> &'static str {
    if sides.iter().any(|s| s.resolved.ranks.len() > 1) {
        "rows are per rank and step"
    } else {
        "rows are per step"
    }
}

/// A hint when a side holds more steps or ranks than were used: what uses them all.
pub(crate) fn more_steps_hint(sides: [&SideInfo; 2]) -> Option<String> {
    let steps = sides.iter().any(|s| {
        s.resolved
            .iterations
            .as_ref()
            .is_some_and(|v| v.len() < s.steps_available)
    });
    let ranks = sides.iter().any(|s| s.resolved.ranks.len() < s.ranks_available);
    unused_hint(steps, ranks)
}

/// The hint for steps (`steps`) or ranks (`ranks`) a side holds but did not use.
pub(crate) fn unused_hint(steps: bool, ranks: bool) -> Option<String> {
    match (steps, ranks) {
        (false, false) => None,
        (true, false) => Some("hint: more steps exist than were used; --iteration all uses every step".into()),
        (false, true) => Some("hint: more ranks exist than were used; --rank all uses every rank".into()),
        (true, true) => {
            Some("hint: more steps and ranks exist than were used; --iteration all and --rank all use them all".into())
        }
    }
}

fn summary_lines(view: &CompareView<'_>) -> Vec<String> {
    let c = view.comparison;
    let s = c.summary();
    let shown = if view.rows.len() < s.rows {
        format!(" (showing {} by {})", fmt_count(view.rows.len()), view.sort.as_str())
    } else {
        String::new()
    };
    let mut lines = vec![
        format!(
            "{} {}{shown}: {} added, {} deleted, {} increased, {} decreased, {} unchanged",
            fmt_count(s.rows),
            plural(s.rows, "row", "rows"),
            fmt_count(s.added),
            fmt_count(s.deleted),
            fmt_count(s.increased),
            fmt_count(s.decreased),
            fmt_count(s.unchanged)
        ),
        match c.step_ns {
            Some([sc, st]) => {
                let (sc, st) = (sc.round() as i64, st.round() as i64);
                format!(
                    "mean step time: {} {}, {} {} ({}, {}); {}",
                    c.control.label,
                    fmt_duration(sc, false),
                    c.test.label,
                    fmt_duration(st, false),
                    fmt_duration(st - sc, true),
                    fmt_percent(sc, st),
                    rows_are_per_step([&c.control, &c.test])
                )
            }
            None => format!(
                "summed duration: {} {}, {} {} ({}, {})",
                c.control.label,
                fmt_duration(s.control_dur_ns, false),
                c.test.label,
                fmt_duration(s.test_dur_ns, false),
                fmt_duration(s.test_dur_ns - s.control_dur_ns, true),
                fmt_percent(s.control_dur_ns, s.test_dur_ns)
            ),
        },
    ];
    if marks_significance(c) {
        let n = c.rows.iter().filter(|r| r.significant == Some(true)).count();
        lines.push(format!(
            "significant (sig *): {} of {} {} changed beyond run-to-run noise and 1% of the mean step",
            fmt_count(n),
            fmt_count(s.rows),
            plural(s.rows, "row", "rows")
        ));
    }
    lines
}

/// Aligned columns that fit in `style.width`; long names are cut for display (in the middle, or
/// around where they differ when two cuts would look the same), unless `style.full_names`.
/// Written a row at a time.
pub(crate) fn table(view: &CompareView<'_>, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    // Names get what the number columns leave of the width; when that is too little, the
    // per-side counts go first, then the per-side times, then Δ count (docs/commands.md).
    // With `--why`, then the ratios and Δ %.
    let table = columns::table(view);
    let order = super::why::drop_order(&table, &[&[0, 1], &[3, 4], &[2]], 6);
    let order: Vec<&[usize]> = order.iter().map(Vec::as_slice).collect();
    let layout = terminal::Layout {
        color: style.color,
        width: if style.full_names { usize::MAX } else { style.width },
        fit: terminal::Fit::Drop {
            drop_order: &order,
            cut: None,
            widen_to_header: false,
        },
    };
    terminal::write(&table, &layout, out)
}

/// Whether a table has the `sig` column: significance was estimated for its rows.
fn marks_significance(c: &Comparison) -> bool {
    c.significance && c.rows.iter().any(|r| r.significant.is_some())
}

fn filter_note(c: &Comparison) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    // Only what differs from the command line's defaults (the operations, normalised names).
    if c.python_frames {
        s.push_str(", --python-frames");
    }
    if !c.normalize_names {
        s.push_str(", --raw-names");
    }
    if !c.group_by.is_empty() {
        let _ = write!(s, ", --group-by {}", c.group_by.join(","));
    }
    for p in &c.include {
        let _ = write!(s, ", --include '{p}'");
    }
    for p in &c.exclude {
        let _ = write!(s, ", --exclude '{p}'");
    }
    s
}

/// A GitHub-flavoured Markdown table with the full names, for pull requests and CI summaries.
pub(crate) fn markdown(view: &CompareView<'_>, out: &mut dyn Write) -> io::Result<()> {
    table::markdown::write(&columns::table(view), out)
}
