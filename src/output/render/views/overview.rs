//! The overview (docs/semantics.md#overview) in each format: one row per measure, a column per
//! side, the stragglers' ranks.

use super::overview_table::{Figure, Kind, Line};
use crate::analysis::classes::KernelClass;
use crate::analysis::views::overview::{BreakdownMean, Overview, SideOverview};
use crate::output::render::breakdown::OverviewTables;
use crate::output::render::{Format, json_us};
use serde_json::{Map, Value, json};

/// The overview's rows: (JSON key, label for people, kind).
/// Keys under `breakdown.` form the side's `breakdown` object in JSON; an empty label keeps a
/// row out of the terminal and Markdown tables.
const OVERVIEW_ROWS: [(&str, &str, Kind); 38] = [
    ("device_name", "device", Kind::Text),
    ("device_memory_bytes", "device memory", Kind::Bytes),
    ("ranks", "ranks", Kind::Count),
    ("steps", "steps", Kind::Count),
    ("mean_step_time_us", "mean step time", Kind::Time),
    ("breakdown.step_time_per_step_us", "", Kind::Time),
    ("breakdown.compute_per_step_us", "├ compute", Kind::Time),
    ("breakdown.compute_by_class.gemm_per_step_us", "│ ├ gemm", Kind::Time),
    (
        "breakdown.compute_by_class.attention_per_step_us",
        "│ ├ attention",
        Kind::Time,
    ),
    ("breakdown.compute_by_class.conv_per_step_us", "│ ├ conv", Kind::Time),
    ("breakdown.compute_by_class.norm_per_step_us", "│ ├ norm", Kind::Time),
    (
        "breakdown.compute_by_class.elementwise_per_step_us",
        "│ ├ elementwise",
        Kind::Time,
    ),
    (
        "breakdown.compute_by_class.reduce_per_step_us",
        "│ ├ reduce",
        Kind::Time,
    ),
    ("breakdown.compute_by_class.index_per_step_us", "│ ├ index", Kind::Time),
    ("breakdown.compute_by_class.copy_per_step_us", "│ ├ copy", Kind::Time),
    (
        "breakdown.compute_by_class.communication_per_step_us",
        "│ ├ communication",
        Kind::Time,
    ),
    ("breakdown.compute_by_class.moe_per_step_us", "│ ├ moe", Kind::Time),
    (
        "breakdown.compute_by_class.optimizer_per_step_us",
        "│ ├ optimizer",
        Kind::Time,
    ),
    ("breakdown.compute_by_class.other_per_step_us", "│ ├ other", Kind::Time),
    (
        "breakdown.comm_exposed_per_step_us",
        "├ exposed communication",
        Kind::Time,
    ),
    (
        "breakdown.memory_exposed_per_step_us",
        "├ exposed memory copies",
        Kind::Time,
    ),
    ("breakdown.idle_per_step_us", "└ GPU idle", Kind::Time),
    (
        "breakdown.idle.host_communication_per_step_us",
        "  ├ host communication",
        Kind::Time,
    ),
    ("breakdown.idle.synchronize_per_step_us", "  ├ synchronize", Kind::Time),
    ("breakdown.idle.launch_per_step_us", "  ├ launch", Kind::Time),
    ("breakdown.idle.dataloader_per_step_us", "  ├ dataloader", Kind::Time),
    (
        "breakdown.idle.host_compute_per_step_us",
        "  ├ host compute",
        Kind::Time,
    ),
    ("breakdown.idle.untraced_per_step_us", "  └ untraced", Kind::Time),
    ("breakdown.comm_total_per_step_us", "communication per step", Kind::Time),
    (
        "breakdown.comm_overlapped_per_step_us",
        "├ overlapped with compute",
        Kind::Time,
    ),
    ("breakdown.overlap_ratio", "└ overlap ratio", Kind::Ratio),
    ("host_comm_per_step_us", "host communication per step", Kind::Time),
    ("gpu_busy_per_step_us", "GPU busy per step", Kind::Time),
    ("gpu_utilization", "GPU utilization", Kind::Ratio),
    ("host_busy_per_step_us", "host ops busy per step", Kind::Time),
    ("memory_device", "memory of", Kind::Text),
    ("avg_allocated_bytes", "avg allocated", Kind::Bytes),
    ("peak_allocated_bytes", "peak allocated", Kind::Bytes),
];

fn overview_cell(s: &SideOverview, key: &str) -> Option<Figure> {
    match key {
        "device_name" => s.device_name.clone().map(Figure::Text),
        "device_memory_bytes" => s.device_memory_bytes.map(|b| Figure::Num(b as i64)),
        "ranks" => Some(Figure::Num(s.ranks as i64)),
        "steps" => Some(Figure::Num(s.steps as i64)),
        "mean_step_time_us" => s.mean_step_time_ns.map(Figure::Num),
        "gpu_busy_per_step_us" => s.gpu_busy_per_step_ns.map(Figure::Num),
        "gpu_utilization" => s.gpu_utilization.map(Figure::Ratio),
        "host_busy_per_step_us" => s.host_busy_per_step_ns.map(Figure::Num),
        "host_comm_per_step_us" => s.host_comm_per_step_ns.map(Figure::Num),
        "memory_device" => s.memory_device.clone().map(Figure::Text),
        "avg_allocated_bytes" => s.avg_allocated_bytes.map(Figure::Num),
        "peak_allocated_bytes" => s.peak_allocated_bytes.map(Figure::Num),
        _ => breakdown_cell(s.breakdown.as_ref()?, key.strip_prefix("breakdown.")?),
    }
}

fn breakdown_cell(b: &BreakdownMean, key: &str) -> Option<Figure> {
    let ns = match key {
        "step_time_per_step_us" => b.step_ns,
        "compute_per_step_us" => b.compute_ns,
        "comm_total_per_step_us" => b.comm_total_ns,
        "comm_overlapped_per_step_us" => b.comm_overlapped_ns,
        "comm_exposed_per_step_us" => b.comm_exposed_ns,
        "memory_exposed_per_step_us" => b.memory_exposed_ns,
        "idle_per_step_us" => b.idle_ns,
        "overlap_ratio" => return b.overlap_ratio.map(Figure::Ratio),
        _ => {
            if let Some(class) = key.strip_prefix("compute_by_class.") {
                let class = class.strip_suffix("_per_step_us")?;
                let k = KernelClass::ALL.iter().position(|c| c.name() == class)?;
                return b.compute_by_class.map(|ns| Figure::Num(ns[k]));
            }
            let cause = key.strip_prefix("idle.")?.strip_suffix("_per_step_us")?;
            let parts = b.idle_causes?.parts();
            parts.iter().find(|(name, _)| *name == cause)?.1
        }
    };
    Some(Figure::Num(ns))
}

fn cell_json(kind: Kind, c: Option<&Figure>) -> Value {
    match c {
        None => Value::Null,
        Some(Figure::Text(t)) => json!(t),
        Some(Figure::Ratio(r)) => json!(r),
        Some(Figure::Num(n)) if kind == Kind::Time => json_us(*n),
        Some(Figure::Num(n)) => json!(n),
    }
}

/// The overview as text in `format`, without the per-step rows ([`render_overview_with`] adds
/// them).
pub(crate) fn render_overview(o: &Overview, format: Format) -> String {
    render_overview_with(o, format, &OverviewTables::default())
}

/// The overview; with two ranks or more on a side, its per-rank rows and straggler too.
pub fn render_overview_with(o: &Overview, format: Format, options: &OverviewTables) -> String {
    render_overview_fitted(o, format, options, usize::MAX)
}

/// [`render_overview_with`], a table fitted to `width` display columns (`usize::MAX`: whole):
/// long values (device names) are cut in the middle, long lines wrapped.
pub(crate) fn render_overview_fitted(o: &Overview, format: Format, options: &OverviewTables, width: usize) -> String {
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
fn overview_json(o: &Overview, lines: &[Line], options: &OverviewTables) -> String {
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
        // Only where true: the memory figures are rises above each step's start (a trace of
        // `Bytes` changes alone), not levels.
        if s.memory_relative {
            m.insert("memory_relative".into(), Value::Bool(true));
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
    crate::output::render::pretty_json(&doc)
}

/// One row per metric: `metric,control,test,diff,diff_pct`. With two ranks or more on a side, a
/// `rank` column last (as hyperfine adds its parameter columns: the others keep their places):
/// empty on the side totals and on the straggler's rows (`straggler.rank`,
/// `straggler.max_over_median`), then each rank's own rows (its steps, mean step time and
/// parts), rank by rank, both sides' rank N side by side.
fn overview_csv(o: &Overview, lines: &[Line]) -> String {
    let sides = [&o.control, &o.test];
    let mut ranks: Vec<(Line, Option<i64>)> = Vec::new();
    if sides.iter().any(|s| s.per_rank.len() > 1) {
        ranks.extend(straggler_lines(o).into_iter().map(|l| (l, None)));
        let mut numbers: Vec<i64> = sides.iter().flat_map(|s| s.per_rank.iter().map(|r| r.rank)).collect();
        numbers.sort_unstable();
        numbers.dedup();
        for rank in numbers {
            for &(key, label, kind) in OVERVIEW_ROWS.iter().filter(|r| RANK_KEYS.contains(&r.0)) {
                let line = Line {
                    key,
                    label,
                    kind,
                    control: rank_cell_of(&o.control, rank, key),
                    test: rank_cell_of(&o.test, rank, key),
                };
                ranks.push((line, Some(rank)));
            }
        }
    }
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = super::overview_table::write_csv(o, lines, &ranks, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The keys of the overview that a rank has too (its own rows in the CSV).
const RANK_KEYS: [&str; 16] = [
    "steps",
    "mean_step_time_us",
    "breakdown.step_time_per_step_us",
    "breakdown.compute_per_step_us",
    "breakdown.comm_exposed_per_step_us",
    "breakdown.memory_exposed_per_step_us",
    "breakdown.idle_per_step_us",
    "breakdown.idle.host_communication_per_step_us",
    "breakdown.idle.synchronize_per_step_us",
    "breakdown.idle.launch_per_step_us",
    "breakdown.idle.dataloader_per_step_us",
    "breakdown.idle.host_compute_per_step_us",
    "breakdown.idle.untraced_per_step_us",
    "breakdown.comm_total_per_step_us",
    "breakdown.comm_overlapped_per_step_us",
    "breakdown.overlap_ratio",
];

/// A rank's value of `key` on side `s`, as the side totals define it: steps counted, the mean
/// step time only with steps, the parts only with device events.
fn rank_cell_of(s: &SideOverview, rank: i64, key: &str) -> Option<Figure> {
    let r = s.per_rank.iter().find(|r| r.rank == rank)?;
    let steps = s.per_step.iter().filter(|p| p.rank == rank && p.step.is_some()).count();
    match key {
        "steps" => Some(Figure::Num(steps as i64)),
        "mean_step_time_us" => r.step_ns.filter(|_| steps > 0).map(Figure::Num),
        // As the JSON's `per_rank` row: the step time even where the parts are unknown.
        "breakdown.step_time_per_step_us" => r.step_ns.map(Figure::Num),
        _ => breakdown_cell(r.parts.as_ref()?, key.strip_prefix("breakdown.")?),
    }
}

/// The straggler of each side (the slowest rank and its mean step ÷ the median rank's) as two
/// lines; empty on a side with one rank.
fn straggler_lines(o: &Overview) -> [Line; 2] {
    let rank = |s: &SideOverview| s.straggler.as_ref().map(|st| Figure::Text(st.rank.to_string()));
    let ratio = |s: &SideOverview| s.straggler.as_ref().map(|st| Figure::Ratio(st.max_over_median));
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

fn overview_text(o: &Overview, lines: &[Line], md: bool, width: usize) -> String {
    let mut title: Vec<String> = [&o.control, &o.test]
        .iter()
        .map(|side| format!("{}: {} ({})", side.label, side.path, used_text(side)))
        .collect();
    let sides = [&o.control, &o.test];
    let steps = sides
        .iter()
        .any(|s| !s.step_numbers.is_empty() && s.step_numbers.len() < s.steps_available);
    let ranks = sides.iter().any(|s| s.rank_numbers.len() < s.ranks_available);
    if let Some(hint) = crate::output::render::compare::unused_hint(steps, ranks) {
        title.push(hint.to_string());
    }
    // The idle causes only where a side has them: on CPU-only runs they would be six more rows
    // of `-` under a GPU idle that is `-` already. The kernel classes of compute only where a
    // side ran some.
    let zero = |c: &Option<Figure>| matches!(c, None | Some(Figure::Num(0)));
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
    super::overview_table::write_text(o, title, &lines, &names, md, width)
}
