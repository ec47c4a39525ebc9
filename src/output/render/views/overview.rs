//! The overview (docs/semantics.md#overview) in each format: one row per measure, a column per
//! side, the stragglers' ranks.

use crate::analysis::classes::KernelClass;
use crate::analysis::views::overview::{BreakdownMean, Overview, SideOverview};
use crate::output::render::breakdown::OverviewOptions;
use crate::output::render::{
    Format, csv_field, fit_table, fmt_duration, fmt_percent, fmt_signed, fmt_us, json_us, md_cell, wrap_line,
};
use serde_json::{Map, Value, json};
use std::fmt::Write;

/// The overview's rows: (JSON key, label for people, kind).
/// Keys under `breakdown.` form the side's `breakdown` object in JSON; an empty label keeps a
/// row out of the terminal and Markdown tables.
const OVERVIEW_ROWS: [(&str, &str, Kind); 38] = [
    ("device_name", "device", Kind::Text),
    ("device_memory_bytes", "device memory", Kind::Bytes),
    ("ranks", "ranks", Kind::Count),
    ("steps", "steps", Kind::Count),
    ("mean_step_time_us", "mean step time", Kind::Time),
    ("breakdown.step_us", "", Kind::Time),
    ("breakdown.compute_us", "├ compute", Kind::Time),
    ("breakdown.compute_by_class.gemm_us", "│ ├ gemm", Kind::Time),
    ("breakdown.compute_by_class.attention_us", "│ ├ attention", Kind::Time),
    ("breakdown.compute_by_class.conv_us", "│ ├ conv", Kind::Time),
    ("breakdown.compute_by_class.norm_us", "│ ├ norm", Kind::Time),
    (
        "breakdown.compute_by_class.elementwise_us",
        "│ ├ elementwise",
        Kind::Time,
    ),
    ("breakdown.compute_by_class.reduce_us", "│ ├ reduce", Kind::Time),
    ("breakdown.compute_by_class.index_us", "│ ├ index", Kind::Time),
    ("breakdown.compute_by_class.copy_us", "│ ├ copy", Kind::Time),
    (
        "breakdown.compute_by_class.communication_us",
        "│ ├ communication",
        Kind::Time,
    ),
    ("breakdown.compute_by_class.moe_us", "│ ├ moe", Kind::Time),
    ("breakdown.compute_by_class.optimizer_us", "│ ├ optimizer", Kind::Time),
    ("breakdown.compute_by_class.other_us", "│ ├ other", Kind::Time),
    ("breakdown.comm_exposed_us", "├ exposed communication", Kind::Time),
    ("breakdown.memory_exposed_us", "├ exposed memory copies", Kind::Time),
    ("breakdown.idle_us", "└ GPU idle", Kind::Time),
    (
        "breakdown.idle.host_communication_us",
        "  ├ host communication",
        Kind::Time,
    ),
    ("breakdown.idle.synchronize_us", "  ├ synchronize", Kind::Time),
    ("breakdown.idle.launch_us", "  ├ launch", Kind::Time),
    ("breakdown.idle.dataloader_us", "  ├ dataloader", Kind::Time),
    ("breakdown.idle.host_compute_us", "  ├ host compute", Kind::Time),
    ("breakdown.idle.untraced_us", "  └ untraced", Kind::Time),
    ("breakdown.comm_total_us", "communication per step", Kind::Time),
    ("breakdown.comm_overlapped_us", "├ overlapped with compute", Kind::Time),
    ("breakdown.overlap_ratio", "└ overlap ratio", Kind::Ratio),
    ("host_comm_per_step_us", "host communication per step", Kind::Time),
    ("gpu_busy_per_step_us", "GPU busy per step", Kind::Time),
    ("gpu_utilization", "GPU utilization", Kind::Ratio),
    ("host_busy_per_step_us", "host ops busy per step", Kind::Time),
    ("memory_device", "memory of", Kind::Text),
    ("avg_allocated_bytes", "avg allocated", Kind::Bytes),
    ("peak_allocated_bytes", "peak allocated", Kind::Bytes),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Count,
    Time,
    Bytes,
    Ratio,
}

/// A value of the overview: a number (ns for times, a ratio, bytes, a count) or text.
#[derive(Debug, Clone, PartialEq)]
enum Cell {
    Num(i64),
    Ratio(f64),
    Text(String),
}

fn overview_cell(s: &SideOverview, key: &str) -> Option<Cell> {
    match key {
        "device_name" => s.device_name.clone().map(Cell::Text),
        "device_memory_bytes" => s.device_memory_bytes.map(|b| Cell::Num(b as i64)),
        "ranks" => Some(Cell::Num(s.ranks as i64)),
        "steps" => Some(Cell::Num(s.steps as i64)),
        "mean_step_time_us" => s.mean_step_time_ns.map(Cell::Num),
        "gpu_busy_per_step_us" => s.gpu_busy_per_step_ns.map(Cell::Num),
        "gpu_utilization" => s.gpu_utilization.map(Cell::Ratio),
        "host_busy_per_step_us" => s.host_busy_per_step_ns.map(Cell::Num),
        "host_comm_per_step_us" => s.host_comm_per_step_ns.map(Cell::Num),
        "memory_device" => s.memory_device.clone().map(Cell::Text),
        "avg_allocated_bytes" => s.avg_allocated_bytes.map(Cell::Num),
        "peak_allocated_bytes" => s.peak_allocated_bytes.map(Cell::Num),
        _ => breakdown_cell(s.breakdown.as_ref()?, key.strip_prefix("breakdown.")?),
    }
}

fn breakdown_cell(b: &BreakdownMean, key: &str) -> Option<Cell> {
    let ns = match key {
        "step_us" => b.step_ns,
        "compute_us" => b.compute_ns,
        "comm_total_us" => b.comm_total_ns,
        "comm_overlapped_us" => b.comm_overlapped_ns,
        "comm_exposed_us" => b.comm_exposed_ns,
        "memory_exposed_us" => b.memory_exposed_ns,
        "idle_us" => b.idle_ns,
        "overlap_ratio" => return b.overlap_ratio.map(Cell::Ratio),
        _ => {
            if let Some(class) = key.strip_prefix("compute_by_class.") {
                let class = class.strip_suffix("_us")?;
                let k = KernelClass::ALL.iter().position(|c| c.name() == class)?;
                return b.compute_by_class.map(|ns| Cell::Num(ns[k]));
            }
            let cause = key.strip_prefix("idle.")?.strip_suffix("_us")?;
            let parts = b.idle_causes?.parts();
            parts.iter().find(|(name, _)| *name == cause)?.1
        }
    };
    Some(Cell::Num(ns))
}

fn cell_json(kind: Kind, c: Option<&Cell>) -> Value {
    match c {
        None => Value::Null,
        Some(Cell::Text(t)) => json!(t),
        Some(Cell::Ratio(r)) => json!(r),
        Some(Cell::Num(n)) if kind == Kind::Time => json_us(*n),
        Some(Cell::Num(n)) => json!(n),
    }
}

fn cell_human(kind: Kind, c: Option<&Cell>, signed: bool) -> String {
    match c {
        None => "-".to_string(),
        Some(Cell::Text(t)) => t.clone(),
        // Under 0.05 pp either way prints as `0 pp` (`+0.0 pp` on identical sides, beside `0 ns`).
        Some(Cell::Ratio(r)) if signed && (r * 100.0).abs() < 0.05 => "0 pp".to_string(),
        Some(Cell::Ratio(r)) if signed => format!("{:+.1} pp", r * 100.0),
        Some(Cell::Ratio(r)) => format!("{:.1}%", r * 100.0),
        Some(Cell::Num(n)) => match kind {
            Kind::Time => fmt_duration(*n, signed),
            Kind::Bytes => fmt_bytes(*n, signed),
            _ if signed => fmt_signed(*n),
            _ => n.to_string(),
        },
    }
}

/// Bytes for people, in binary units: `512 B`, `1.50 GiB`.
pub fn fmt_bytes(n: i64, signed: bool) -> String {
    let sign = crate::output::render::sign_of(n, signed);
    let abs = n.unsigned_abs() as f64;
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = abs;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{sign}{} B", n.unsigned_abs())
    } else {
        format!("{sign}{v:.2} {}", units[u])
    }
}

/// test − control, where both are numbers.
fn cell_diff(c: Option<&Cell>, t: Option<&Cell>) -> Option<Cell> {
    match (c?, t?) {
        (Cell::Num(a), Cell::Num(b)) => Some(Cell::Num(b - a)),
        (Cell::Ratio(a), Cell::Ratio(b)) => Some(Cell::Ratio(b - a)),
        _ => None,
    }
}

fn cell_pct(c: Option<&Cell>, t: Option<&Cell>) -> Option<String> {
    match (c?, t?) {
        (Cell::Num(a), Cell::Num(b)) => Some(fmt_percent(*a, *b)),
        (Cell::Ratio(a), Cell::Ratio(b)) => {
            let scale = 1e9;
            Some(fmt_percent((a * scale) as i64, (b * scale) as i64))
        }
        _ => None,
    }
}

/// One line of the overview: both sides' values of one metric.
struct Line {
    key: &'static str,
    label: &'static str,
    kind: Kind,
    control: Option<Cell>,
    test: Option<Cell>,
}

impl Line {
    fn diff(&self) -> Option<Cell> {
        cell_diff(self.control.as_ref(), self.test.as_ref())
    }
    fn pct(&self) -> Option<String> {
        cell_pct(self.control.as_ref(), self.test.as_ref())
    }
}

/// The overview as text in `format`, without the per-step rows ([`render_overview_with`] adds
/// them).
pub fn render_overview(o: &Overview, format: Format) -> String {
    render_overview_with(o, format, &OverviewOptions::default())
}

/// The overview; with two ranks or more on a side, its per-rank rows and straggler too.
pub fn render_overview_with(o: &Overview, format: Format, options: &OverviewOptions) -> String {
    render_overview_fitted(o, format, options, usize::MAX)
}

/// [`render_overview_with`], a table fitted to `width` display columns (`usize::MAX`: whole):
/// long values (device names) are cut in the middle, long lines wrapped.
pub fn render_overview_fitted(o: &Overview, format: Format, options: &OverviewOptions, width: usize) -> String {
    let lines: Vec<Line> = OVERVIEW_ROWS
        .iter()
        .map(|&(key, label, kind)| Line {
            key,
            label,
            kind,
            control: overview_cell(&o.control, key),
            test: overview_cell(&o.test, key),
        })
        .collect();
    match format {
        Format::Json => overview_json(o, &lines, options),
        Format::Csv => overview_csv(o, &lines),
        Format::Table | Format::Markdown => {
            let md = format == Format::Markdown;
            let width = if md { usize::MAX } else { width };
            let mut out = overview_text(o, &lines, md, width);
            out.push_str(&crate::output::render::breakdown::side_tables_text(
                o, options, md, width,
            ));
            out
        }
    }
}

/// Which ranks and steps a side's overview used: `rank 0, steps 1–6`, and how many of the side's
/// those are where it holds more (`rank 0, step 2; 1 of 3 steps`).
fn used_text(s: &SideOverview) -> String {
    let ranks = if s.rank_numbers.len() == 1 {
        format!("rank {}", s.rank_numbers[0])
    } else {
        format!("ranks {}", crate::analysis::select::ranges(&s.rank_numbers))
    };
    if s.run_steps.len() > 1 {
        // A side of runs, named as compare names it: `3 runs × 5 steps, rank 0`.
        let (lo, hi) = (
            s.run_steps.iter().min().copied().unwrap_or(0),
            s.run_steps.iter().max().copied().unwrap_or(0),
        );
        let steps = match (lo, hi) {
            (1, 1) => "1 step".to_string(),
            (a, b) if a == b => format!("{a} steps"),
            (a, b) => format!("{a}–{b} steps"),
        };
        return format!("{} runs × {steps}, {ranks}", s.run_steps.len());
    }
    let steps = match s.step_numbers.len() {
        0 => "no ProfilerStep: the whole trace".to_string(),
        1 => format!("step {}", s.step_numbers[0]),
        _ => format!("steps {}", crate::analysis::select::ranges(&s.step_numbers)),
    };
    let tally = crate::output::render::compare::used_of_available(
        (s.rank_numbers.len(), s.ranks_available),
        (s.step_numbers.len(), s.steps_available),
    );
    format!("{ranks}, {steps}{tally}")
}

/// `key` into `m`; `group.key` into the object `m[group]` (`a.b.key` into `m[a][b]`).
fn nested_insert(m: &mut Map<String, Value>, key: &str, v: Value) {
    match key.split_once('.') {
        Some((group, k)) => {
            let inner = m.entry(group).or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(inner) = inner {
                nested_insert(inner, k, v);
            }
        }
        None => {
            m.insert(key.into(), v);
        }
    }
}

/// `control` and `test` objects (times in µs, null where absent), then `diff` and `diff_pct`.
fn overview_json(o: &Overview, lines: &[Line], options: &OverviewOptions) -> String {
    let side = |s: &SideOverview, control: bool| {
        let mut m = Map::new();
        m.insert("label".into(), json!(s.label));
        m.insert("path".into(), json!(s.path));
        m.insert("ranks_used".into(), json!(s.rank_numbers));
        m.insert("steps_used".into(), json!(s.step_numbers));
        if !s.run_steps.is_empty() {
            // A side of runs, as compare's JSON names it.
            m.insert("runs".into(), json!(s.run_steps.len()));
            m.insert("run_steps".into(), json!(s.run_steps));
        }
        for l in lines {
            let v = if control { &l.control } else { &l.test };
            nested_insert(&mut m, l.key, cell_json(l.kind, v.as_ref()));
        }
        if s.breakdown.is_none() {
            m.insert("breakdown".into(), Value::Null);
        }
        crate::output::render::breakdown::side_tables_json(s, options, &mut m);
        Value::Object(m)
    };
    let mut diff = Map::new();
    let mut pct = Map::new();
    for l in lines.iter().filter(|l| l.kind != Kind::Text) {
        nested_insert(&mut diff, l.key, cell_json(l.kind, l.diff().as_ref()));
        nested_insert(&mut pct, l.key, json!(l.pct()));
    }
    let doc = json!({
        "tool": "tracediff",
        "version": env!("CARGO_PKG_VERSION"),
        "duration_unit": "us",
        "control": side(&o.control, true),
        "test": side(&o.test, false),
        "diff": diff,
        "diff_pct": pct,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// One row per metric: `metric,control,test,diff,diff_pct`. With two ranks or more on a side, a
/// `rank` column last (as hyperfine adds its parameter columns: the others keep their places):
/// empty on the side totals and on the straggler's rows (`straggler.rank`,
/// `straggler.max_over_median`), then each rank's own rows (its steps, mean step time and
/// parts), rank by rank, both sides' rank N side by side.
fn overview_csv(o: &Overview, lines: &[Line]) -> String {
    let (cl, tl) = (&o.control.label, &o.test.label);
    let sides = [&o.control, &o.test];
    let by_rank = sides.iter().any(|s| s.per_rank.len() > 1);
    let mut out = format!("metric,{cl},{tl},diff,diff_pct{}\n", if by_rank { ",rank" } else { "" });
    let rank_cell = if by_rank { Some(String::new()) } else { None };
    for l in lines {
        csv_line(&mut out, l, rank_cell.as_deref());
    }
    if !by_rank {
        return out;
    }
    for l in straggler_lines(o) {
        csv_line(&mut out, &l, Some(""));
    }
    let mut ranks: Vec<i64> = sides.iter().flat_map(|s| s.per_rank.iter().map(|r| r.rank)).collect();
    ranks.sort_unstable();
    ranks.dedup();
    for rank in ranks {
        for &(key, label, kind) in OVERVIEW_ROWS.iter().filter(|r| RANK_KEYS.contains(&r.0)) {
            let line = Line {
                key,
                label,
                kind,
                control: rank_cell_of(&o.control, rank, key),
                test: rank_cell_of(&o.test, rank, key),
            };
            csv_line(&mut out, &line, Some(&rank.to_string()));
        }
    }
    out
}

/// The keys of the overview that a rank has too (its own rows in the CSV).
const RANK_KEYS: [&str; 16] = [
    "steps",
    "mean_step_time_us",
    "breakdown.step_us",
    "breakdown.compute_us",
    "breakdown.comm_exposed_us",
    "breakdown.memory_exposed_us",
    "breakdown.idle_us",
    "breakdown.idle.host_communication_us",
    "breakdown.idle.synchronize_us",
    "breakdown.idle.launch_us",
    "breakdown.idle.dataloader_us",
    "breakdown.idle.host_compute_us",
    "breakdown.idle.untraced_us",
    "breakdown.comm_total_us",
    "breakdown.comm_overlapped_us",
    "breakdown.overlap_ratio",
];

/// A rank's value of `key` on side `s`, as the side totals define it: steps counted, the mean
/// step time only with steps, the parts only with device events.
fn rank_cell_of(s: &SideOverview, rank: i64, key: &str) -> Option<Cell> {
    let r = s.per_rank.iter().find(|r| r.rank == rank)?;
    let steps = s.per_step.iter().filter(|p| p.rank == rank && p.step.is_some()).count();
    match key {
        "steps" => Some(Cell::Num(steps as i64)),
        "mean_step_time_us" => r.step_ns.filter(|_| steps > 0).map(Cell::Num),
        _ => breakdown_cell(r.parts.as_ref()?, key.strip_prefix("breakdown.")?),
    }
}

/// The straggler of each side (the slowest rank and its mean step ÷ the median rank's) as two
/// lines; empty on a side with one rank.
fn straggler_lines(o: &Overview) -> [Line; 2] {
    let rank = |s: &SideOverview| s.straggler.as_ref().map(|st| Cell::Text(st.rank.to_string()));
    let ratio = |s: &SideOverview| s.straggler.as_ref().map(|st| Cell::Ratio(st.max_over_median));
    [
        Line {
            key: "straggler.rank",
            label: "straggler rank",
            kind: Kind::Text,
            control: rank(&o.control),
            test: rank(&o.test),
        },
        Line {
            key: "straggler.max_over_median",
            label: "straggler ÷ median rank",
            kind: Kind::Ratio,
            control: ratio(&o.control),
            test: ratio(&o.test),
        },
    ]
}

/// One CSV row of `l`, with `rank` as a last column when given.
fn csv_line(out: &mut String, l: &Line, rank: Option<&str>) {
    let plain = |v: Option<&Cell>| match v {
        None => String::new(),
        Some(Cell::Text(s)) => csv_field(s),
        Some(Cell::Ratio(r)) => r.to_string(),
        Some(Cell::Num(n)) if l.kind == Kind::Time => fmt_us(*n),
        Some(Cell::Num(n)) => n.to_string(),
    };
    let _ = write!(
        out,
        "{},{},{},{},{}",
        l.key,
        plain(l.control.as_ref()),
        plain(l.test.as_ref()),
        plain(l.diff().as_ref()),
        l.pct().unwrap_or_default()
    );
    match rank {
        Some(r) => {
            let _ = writeln!(out, ",{r}");
        }
        None => out.push('\n'),
    }
}

fn overview_text(o: &Overview, lines: &[Line], md: bool, width: usize) -> String {
    let bullet = if md { "- " } else { "" };
    let mut out = String::new();
    for side in [&o.control, &o.test] {
        let line = format!("{bullet}{}: {} ({})", side.label, side.path, used_text(side));
        let _ = writeln!(out, "{}", wrap_line(&line, width));
    }
    let sides = [&o.control, &o.test];
    let steps = sides
        .iter()
        .any(|s| !s.step_numbers.is_empty() && s.step_numbers.len() < s.steps_available);
    let ranks = sides.iter().any(|s| s.rank_numbers.len() < s.ranks_available);
    if let Some(hint) = crate::output::render::compare::unused_hint(steps, ranks) {
        let _ = writeln!(out, "{}", wrap_line(&format!("{bullet}{hint}"), width));
    }
    let headers = [
        o.control.label.clone(),
        o.test.label.clone(),
        "Δ".to_string(),
        "Δ %".to_string(),
    ];
    // The idle causes only where a side has them: on CPU-only runs they would be six more rows
    // of `-` under a GPU idle that is `-` already. The kernel classes of compute only where a
    // side ran some.
    let zero = |c: &Option<Cell>| matches!(c, None | Some(Cell::Num(0)));
    let shown = |l: &&Line| {
        !l.label.is_empty()
            && (!l.key.starts_with("breakdown.idle.") || l.control.is_some() || l.test.is_some())
            && (!l.key.starts_with("breakdown.compute_by_class.") || !zero(&l.control) || !zero(&l.test))
    };
    let lines: Vec<&Line> = lines.iter().filter(shown).collect();
    let mut names: Vec<String> = lines.iter().map(|l| l.label.to_string()).collect();
    // The last class shown closes its branch.
    if let Some(last) = lines
        .iter()
        .rposition(|l| l.key.starts_with("breakdown.compute_by_class."))
    {
        names[last] = names[last].replacen("│ ├", "│ └", 1);
    }
    let mut cells: Vec<Vec<String>> = lines
        .iter()
        .map(|l| {
            let d = l.diff();
            vec![
                cell_human(l.kind, l.control.as_ref(), false),
                cell_human(l.kind, l.test.as_ref(), false),
                d.map(|d| cell_human(l.kind, Some(&d), true)).unwrap_or_default(),
                l.pct().unwrap_or_default(),
            ]
        })
        .collect();
    if md {
        out.push('\n');
        let _ = writeln!(
            out,
            "| | {} |",
            headers.iter().map(|h| md_cell(h)).collect::<Vec<_>>().join(" | ")
        );
        out.push_str("|---|---:|---:|---:|---:|\n");
        for (n, c) in names.iter().zip(&cells) {
            let c: Vec<String> = c.iter().map(|x| md_cell(x)).collect();
            let _ = writeln!(out, "| {} | {} |", md_cell(n), c.join(" | "));
        }
    } else {
        cut_text_values(&mut cells, &names, &headers, width);
        let _ = writeln!(out, "{}", fit_table("", &headers, &names, &cells, width));
    }
    out
}

/// `value` in at most `cap` columns, keeping the words that name a model: leading words
/// without a digit go first (`NVIDIA`, `AMD Instinct`), then the end (`H100 80GB H…`,
/// `MI300X`; a middle cut gave `NVIDIA …HBM3` and `AMD …MI300X`).
fn cut_value(value: &str, cap: usize) -> String {
    use crate::output::render::columns::text_width;
    let mut rest = value;
    while text_width(rest) > cap {
        let Some((word, after)) = rest.split_once(' ') else {
            break;
        };
        if word.chars().any(|c| c.is_ascii_digit()) || !after.chars().any(|c| c.is_ascii_digit()) {
            break;
        }
        rest = after.trim_start();
    }
    if text_width(rest) <= cap {
        return rest.to_string();
    }
    let kept: String = rest.chars().take(cap.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// Cuts the longest values (device names, memory places) until a table of `names` and `cells`
/// fits in `width`, keeping at least 10 columns of each ([`cut_value`]; `H100 80GB…`, before
/// the row labels are cut: `overlapped wi… compute` read worse). Every column wider than
/// the level is cut to it at once, from the values as they were, so that one device name on
/// both sides reads the same (cutting one column, then the other, cut `NVIDIA H100 80GB HBM3`
/// to `H100 80GB HBM3` on one side and `H100 80GB H…` on the other).
fn cut_text_values(cells: &mut [Vec<String>], names: &[String], headers: &[String], width: usize) {
    use crate::output::render::columns::text_width;
    if width == usize::MAX {
        return;
    }
    let label = names.iter().map(|n| text_width(n)).max().unwrap_or(0);
    let column = |cells: &[Vec<String>], k: usize| {
        cells
            .iter()
            .map(|row| text_width(&row[k]))
            .chain([text_width(&headers[k])])
            .max()
            .unwrap_or(0)
    };
    let total = |cells: &[Vec<String>]| label + 2 + (0..headers.len()).map(|k| column(cells, k) + 3).sum::<usize>();
    let widest = (0..headers.len()).map(|k| column(cells, k)).max().unwrap_or(0);
    let original = cells.to_vec();
    let mut cap = widest;
    while total(cells) > width && cap > 10 {
        cap -= 1;
        for (row, was) in cells.iter_mut().zip(&original) {
            for (cell, value) in row.iter_mut().zip(was) {
                if text_width(value) > cap {
                    *cell = cut_value(value, cap);
                }
            }
        }
    }
}
