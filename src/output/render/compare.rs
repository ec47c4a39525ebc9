//! The comparison table in each output format.

use super::columns::{Columns, text_width};
use super::{
    Cuts, Format, TableStyle, csv_field, fit_columns, fmt_count, fmt_duration, fmt_percent, fmt_us, json_us, md_cell,
    wrap_line,
};
use crate::analysis::diff::{Comparison, Row, SideInfo, SortKey, Summary, plural};
use crate::analysis::select::Device;
use serde::Serialize;
use serde_json::{Value, json};
use std::io::{self, Write};

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
        }
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

/// HTA's columns, with `--labels` in the headers.
pub fn csv(view: &CompareView<'_>, out: &mut dyn Write) -> io::Result<()> {
    let c = view.comparison;
    let (cl, tl) = (&c.control.label, &c.test.label);
    writeln!(
        out,
        "{},{cl}_counts,{cl}_total_duration,{tl}_counts,{tl}_total_duration,diff_counts,diff_duration,counts_change_categories{}",
        c.naming.column(),
        if c.significance { ",significant" } else { "" }
    )?;
    for r in &view.rows {
        write!(
            out,
            "{},{},{},{},{},{},{},{}",
            csv_field(&r.name),
            r.shown_count(0),
            fmt_us(r.shown_dur_ns(0)),
            r.shown_count(1),
            fmt_us(r.shown_dur_ns(1)),
            r.shown_diff_counts().trim_start_matches('+'),
            fmt_us(r.shown_diff_dur_ns()),
            r.change_symbol()
        )?;
        if c.significance {
            write!(out, ",{}", significance_text(r.significant))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// `true`, `false`, or empty (CSV) where it could not be estimated.
fn significance_text(s: Option<bool>) -> &'static str {
    match s {
        Some(true) => "true",
        Some(false) => "false",
        None => "",
    }
}

/// What one side is (label, path, files, ranks and iterations compared, device) as the JSON
/// outputs write it.
pub fn side_json(s: &SideInfo) -> Value {
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
        "control_total_duration": json_us(s.control_dur_ns),
        "test_total_duration": json_us(s.test_dur_ns),
    })
}

/// A row of the JSON document: fixed keys (`control_*`, `test_*`) whatever the labels.
#[derive(Serialize)]
struct JsonRow<'a> {
    name: &'a str,
    control_counts: u64,
    control_total_duration: Value,
    test_counts: u64,
    test_total_duration: Value,
    diff_counts: i64,
    diff_duration: Value,
    counts_change_categories: &'static str,
    category: &'static str,
    /// Per-step values (control, test), where the rows hold them.
    #[serde(skip_serializing_if = "Option::is_none")]
    per_step: Option<Value>,
    /// Absent from HTA's exact table; null where it could not be estimated.
    #[serde(skip_serializing_if = "Option::is_none")]
    significant: Option<Option<bool>>,
}

/// The rows, serialized one at a time (never all as JSON values at once).
struct JsonRows<'a>(&'a [&'a Row], bool);

impl Serialize for JsonRows<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|r| JsonRow {
            significant: self.1.then_some(r.significant),
            name: &r.name,
            control_counts: r.control.count,
            control_total_duration: json_us(r.control.dur_ns),
            test_counts: r.test.count,
            test_total_duration: json_us(r.test.dur_ns),
            diff_counts: r.diff_counts(),
            diff_duration: json_us(r.diff_dur_ns()),
            counts_change_categories: r.change_symbol(),
            category: r.category().as_str(),
            per_step: r.per_step.map(|[c, t]| {
                json!({
                    "control_counts": c.count,
                    "control_duration": c.dur_ns / 1000.0,
                    "test_counts": t.count,
                    "test_duration": t.dur_ns / 1000.0,
                    "diff_counts": t.count - c.count,
                    "diff_duration": (t.dur_ns - c.dur_ns) / 1000.0,
                })
            }),
        }))
    }
}

#[derive(Serialize)]
struct JsonDoc<'a> {
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
    mean_step_time: Option<Value>,
    /// Run-wide shifts (factor test ÷ control), where significance was estimated.
    #[serde(skip_serializing_if = "Option::is_none")]
    run_shift: Option<&'a crate::analysis::diff::RunShift>,
    rows: JsonRows<'a>,
}

/// One document: the tool, what was compared, the summary and the rows. Row keys are fixed
/// (`control_*`, `test_*`) whatever the labels, so scripts need not know them.
pub fn json(view: &CompareView<'_>, out: &mut dyn Write) -> io::Result<()> {
    let c = view.comparison;
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
        mean_step_time: c
            .step_ns
            .map(|[sc, st]| json!({"control": json_us(sc.round() as i64), "test": json_us(st.round() as i64)})),
        run_shift: marks_significance(c).then_some(&c.shift),
        rows: JsonRows(&view.rows, c.significance),
    };
    serde_json::to_writer_pretty(&mut *out, &doc).map_err(io::Error::from)?;
    writeln!(out)
}

/// One line saying what one side is: its label, path, ranks and iterations, and how many of the
/// side's ranks and steps those are where it holds more (`rank 3, step 1009; 1 of 6 steps`).
pub fn describe_side(s: &SideInfo) -> String {
    let ranks = crate::analysis::select::ranges(&s.resolved.ranks);
    let rank_word = if s.resolved.ranks.len() == 1 { "rank" } else { "ranks" };
    let steps_used = s.resolved.iterations.as_ref().map_or(0, Vec::len);
    let iters = match &s.resolved.iterations {
        None => "no ProfilerStep: the whole trace".to_string(),
        Some(v) if v.len() == 1 => format!("step {}", v[0]),
        Some(v) => format!("steps {}", crate::analysis::select::ranges(v)),
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
pub fn used_of_available(ranks: (usize, usize), steps: (usize, usize)) -> String {
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

/// A hint when a side holds more steps or ranks than were used: what uses them all.
pub fn more_steps_hint(sides: [&SideInfo; 2]) -> Option<String> {
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
pub fn unused_hint(steps: bool, ranks: bool) -> Option<String> {
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
                    "mean step time: {} {}, {} {} ({}, {}); rows are per step",
                    c.control.label,
                    fmt_duration(sc, false),
                    c.test.label,
                    fmt_duration(st, false),
                    fmt_duration(st - sc, true),
                    fmt_percent(sc, st)
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

/// The cells of a row after its name.
fn number_cells(r: &Row) -> [String; 7] {
    [
        r.shown_count(0),
        r.shown_count(1),
        r.shown_diff_counts(),
        fmt_duration(r.shown_dur_ns(0), false),
        fmt_duration(r.shown_dur_ns(1), false),
        fmt_duration(r.shown_diff_dur_ns(), true),
        fmt_percent(r.shown_dur_ns(0), r.shown_dur_ns(1)),
    ]
}

/// Aligned columns that fit in `style.width`; long names are cut for display (in the middle, or
/// around where they differ when two cuts would look the same), unless `style.full_names`.
/// Written a row at a time: two passes over the rows (widths, then text), no copy of them.
pub fn table(view: &CompareView<'_>, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let c = view.comparison;
    let width = if style.full_names { usize::MAX } else { style.width };
    writeln!(out, "{}", wrap_line(&describe_side(&c.control), width))?;
    writeln!(out, "{}", wrap_line(&describe_side(&c.test), width))?;
    writeln!(
        out,
        "{}",
        wrap_line(&format!("device: {}{}", c.device, filter_note(c)), width)
    )?;
    if let Some(hint) = more_steps_hint([&c.control, &c.test]) {
        writeln!(out, "{}", wrap_line(&hint, width))?;
    }
    if view.rows.is_empty() {
        writeln!(out, "(no rows)")?;
    } else {
        rows_table(view, style, out)?;
    }
    for line in summary_lines(view) {
        writeln!(out, "{}", wrap_line(&line, width))?;
    }
    Ok(())
}

/// The rows of [`table`] as aligned columns fitted to `style` (see there).
fn rows_table(view: &CompareView<'_>, style: TableStyle, out: &mut dyn Write) -> io::Result<()> {
    let c = view.comparison;
    let (cl, tl) = (&c.control.label, &c.test.label);
    let marks = marks_significance(c);
    let mut header = vec![
        c.naming.column().to_string(),
        format!("{cl}\ncount"),
        format!("{tl}\ncount"),
        "Δ\ncount".to_string(),
        format!("{cl}\ntime"),
        format!("{tl}\ntime"),
        "Δ\ntime".to_string(),
        "Δ\ntime %".to_string(),
    ];
    let mut right = vec![false, true, true, true, true, true, true, true];
    if marks {
        header.push("sig".to_string());
        right.push(false);
    }
    let mut cols = Columns::new(right);
    for (k, h) in header.iter().enumerate() {
        cols.fit(k, h);
    }
    let mut longest = text_width(&header[0]);
    for r in &view.rows {
        longest = longest.max(text_width(&r.name));
        for (k, cell) in number_cells(r).iter().enumerate() {
            cols.fit(k + 1, cell);
        }
    }
    // Names get what the number columns leave of the width; when that is too little, the
    // per-side counts go first, then the per-side times, then Δ count (docs/commands.md).
    let (shown, name_width) = if style.full_names || style.width == usize::MAX {
        (vec![true; header.len() - 1], longest)
    } else {
        fit_columns(longest, &cols.widths[1..], 1, &[&[0, 1], &[3, 4], &[2]], style.width)
    };
    let cuts = if name_width < longest {
        Cuts::new(view.rows.len(), |i| &view.rows[i].name, name_width)
    } else {
        Cuts::new(0, |_| "", usize::MAX)
    };
    cols.widths[0] = name_width;
    let mut right = vec![false];
    right.extend(
        cols.widths[1..]
            .iter()
            .zip(&shown)
            .enumerate()
            .filter(|(_, (_, s))| **s)
            .map(|(k, _)| k < 7),
    );
    let mut widths = vec![name_width];
    widths.extend(
        cols.widths[1..]
            .iter()
            .zip(&shown)
            .filter(|(_, s)| **s)
            .map(|(w, _)| *w),
    );
    let mut cols = Columns::new(right);
    cols.widths = widths;
    cols.row(&keep(header.iter().map(String::as_str).collect(), &shown), out)?;
    cols.rule(out)?;
    for (i, r) in view.rows.iter().enumerate() {
        let name = cuts.cut(i, &r.name);
        let nums = number_cells(r);
        let mut cells: Vec<&str> = vec![&*name];
        cells.extend(nums.iter().map(String::as_str));
        if marks {
            cells.push(if r.significant == Some(true) { "*" } else { "" });
        }
        cols.row(&keep(cells, &shown), out)?;
    }
    Ok(())
}

/// The name cell and the value cells `shown` keeps.
fn keep<'a>(cells: Vec<&'a str>, shown: &[bool]) -> Vec<&'a str> {
    let mut kept = vec![cells[0]];
    kept.extend(cells[1..].iter().zip(shown).filter(|(_, s)| **s).map(|(c, _)| *c));
    kept
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
pub fn markdown(view: &CompareView<'_>, out: &mut dyn Write) -> io::Result<()> {
    let c = view.comparison;
    let (cl, tl) = (md_cell(&c.control.label), md_cell(&c.test.label));
    writeln!(out, "- {}", md_cell(&describe_side(&c.control)))?;
    writeln!(out, "- {}", md_cell(&describe_side(&c.test)))?;
    writeln!(out, "- device: {}{}", c.device, md_cell(&filter_note(c)))?;
    if let Some(hint) = more_steps_hint([&c.control, &c.test]) {
        writeln!(out, "- {}", md_cell(&hint))?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "| {} | {cl} count | {tl} count | Δ count | {cl} time | {tl} time | Δ time | Δ time % |",
        c.naming.column()
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|")?;
    for r in &view.rows {
        writeln!(
            out,
            "| `{}` | {} |",
            r.name.replace('`', "'").replace('|', "\\|"),
            number_cells(r).join(" | ")
        )?;
    }
    writeln!(out)?;
    for line in summary_lines(view) {
        writeln!(out, "{}  ", md_cell(&line))?;
    }
    Ok(())
}
