//! The named causes of a changed row and the words every surface shows them in: the row's line,
//! its causes (shapes, element types, kernels, the rate achieved and its share of the peak) and
//! the paragraph on the whole change (docs/cost-model.md#named-causes).

use super::gather::OpStats;
use super::{Explained, Ratios};
use crate::analysis::cost::decompose::{SideCost, decompose, ratios};
use crate::analysis::cost::model::Unit;
use crate::analysis::cost::peaks::{Peak, Precision};
use crate::analysis::views::ViewRow;
use crate::text::fmt_duration;
use serde::Serialize;
use std::collections::BTreeMap;

/// What a cause is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CauseKind {
    /// The input shapes changed.
    Shapes,
    /// The element types changed.
    Dtypes,
    /// The kernels the op launched changed.
    Kernels,
    /// The rate the op achieved (and its share of the peak).
    Rate,
    /// Why the row has no work figure.
    NoWork,
}

/// One named cause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cause {
    /// What it is about.
    pub kind: CauseKind,
    /// It in words, with the share of calls of each side's most frequent value where it is not
    /// every call (`[64, 512]×[512, 512] (60% of calls) → [64, 768]×[768, 768]`).
    pub text: String,
    /// It in the row's line: the values alone (`[64, 512]×[512, 512] → [64, 768]×[768, 768]`).
    pub short: String,
}

/// Side `k`'s calls and time per step of view row `r` (time measure `time`), with the work per
/// call of its figures.
pub(crate) fn side_cost(r: &ViewRow, k: usize, time: usize, stats: &OpStats) -> SideCost {
    let shown = |m: usize| r.shown(k, m).unwrap_or(0.0);
    SideCost {
        calls: shown(0),
        time_ns: shown(time).round() as i64,
        work: stats.work_per_call().map(|(_, w)| w),
    }
}

/// A row explained: its parts, ratios, causes and line.
pub(crate) fn explained(
    name: &str,
    [c, t]: [SideCost; 2],
    stats: &[OpStats; 2],
    significant: Option<bool>,
    peaks: &[Option<Peak>; 2],
    per_step: bool,
) -> Explained {
    let unit = match (stats[0].work_per_call(), stats[1].work_per_call()) {
        (Some((a, _)), Some((b, _))) if a == b => Some(a),
        _ => None,
    };
    let (c, t) = if unit.is_some() {
        (c, t)
    } else {
        (SideCost { work: None, ..c }, SideCost { work: None, ..t })
    };
    let parts = decompose(c, t);
    let ratios = ratios(c, t);
    let causes = causes(stats, [c, t], unit, peaks);
    let (line, reading) = line(name, [c, t], &ratios, &causes, (significant, per_step));
    Explained {
        name: name.to_string(),
        control: c,
        test: t,
        unit,
        parts,
        ratios,
        significant,
        causes,
        line,
        reading,
        per_step,
        kernels: stats[0]
            .kernels
            .keys()
            .chain(stats[1].kernels.keys())
            .cloned()
            .collect::<std::collections::BTreeSet<String>>()
            .into_iter()
            .collect(),
    }
}

impl Explained {
    /// The row's line with `significant` as the noise mark in place of its own: what a caller
    /// that judged the row by a rule of its own (the gate's failing ops) shows.
    pub fn line_judged(&self, significant: Option<bool>) -> String {
        line(
            &self.name,
            [self.control, self.test],
            &self.ratios,
            &self.causes,
            (significant, self.per_step),
        )
        .0
    }
}

/// The most frequent key of `counts` (ties by key) and its share.
fn top(counts: &BTreeMap<String, u64>) -> Option<(&str, f64)> {
    let total: u64 = counts.values().sum();
    let (k, n) = counts.iter().max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))?;
    Some((k.as_str(), *n as f64 / total.max(1) as f64))
}

/// `key` with its share where it is not every call (`[2, 3] (62% of calls)`).
fn with_share((key, share): (&str, f64)) -> String {
    if share >= 0.9995 {
        key.to_string()
    } else {
        format!("{key} ({:.0}% of calls)", share * 100.0)
    }
}

fn causes(stats: &[OpStats; 2], sides: [SideCost; 2], unit: Option<Unit>, peaks: &[Option<Peak>; 2]) -> Vec<Cause> {
    let mut out = Vec::new();
    let mut changed = |kind: CauseKind, pick: &dyn Fn(&OpStats) -> Option<(&str, f64)>| {
        if let (Some(a), Some(b)) = (pick(&stats[0]), pick(&stats[1]))
            && a.0 != b.0
        {
            out.push(Cause {
                kind,
                text: format!("{} → {}", with_share(a), with_share(b)),
                short: match kind {
                    CauseKind::Shapes => format!("dims {} → {}", a.0, b.0),
                    _ => format!("{} → {}", a.0, b.0),
                },
            });
        }
    };
    changed(CauseKind::Shapes, &|s| top(&s.shapes).filter(|t| !t.0.is_empty()));
    changed(CauseKind::Dtypes, &|s| top(&s.dtypes));
    if let Some(k) = kernels(stats) {
        out.push(k);
    }
    if let Some(unit) = unit {
        out.push(rate(stats, sides, unit, peaks));
    } else if let Some(why) = no_work(stats) {
        out.push(Cause {
            kind: CauseKind::NoWork,
            short: why.clone(),
            text: why,
        });
    }
    out
}

/// The kernel a side's op spent most time in, shortened (an anonymous namespace kept:
/// [`crate::analysis::names::readable_short_name`]), with its class.
fn top_kernel(s: &OpStats) -> Option<String> {
    let (name, _) = s
        .kernels
        .iter()
        .max_by(|a, b| a.1.1.cmp(&b.1.1).then_with(|| b.0.cmp(a.0)))?;
    let class = crate::analysis::classes::Classifier::builtin().classify(name);
    Some(format!(
        "{} ({})",
        crate::analysis::names::readable_short_name(name),
        class.name()
    ))
}

fn kernels(stats: &[OpStats; 2]) -> Option<Cause> {
    let text = match (top_kernel(&stats[0]), top_kernel(&stats[1])) {
        (Some(a), Some(b)) if a != b => format!("{a} → {b}"),
        (None, Some(b)) => format!("none → {b}"),
        (Some(a), None) => format!("{a} → none"),
        _ => {
            let per_call = |s: &OpStats| s.kernels.values().map(|k| k.0).sum::<u64>() as f64 / s.calls.max(1) as f64;
            let (a, b) = (per_call(&stats[0]), per_call(&stats[1]));
            if stats[0].calls == 0 || stats[1].calls == 0 || (a - b).abs() < 0.005 {
                return None;
            }
            format!("{a:.2} → {b:.2} kernels per call")
        }
    };
    let text = format!("kernels: {text}");
    Some(Cause {
        kind: CauseKind::Kernels,
        short: text.clone(),
        text,
    })
}

/// A rate for people: `312 TFLOP/s`, `1.20 TB/s`.
pub(crate) fn fmt_rate(per_s: f64, unit: Unit) -> String {
    let (v, p) = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(f, _)| per_s >= *f)
        .map_or((per_s, ""), |(f, p)| (per_s / f, p));
    let v = if v < 10.0 { format!("{v:.2}") } else { format!("{v:.0}") };
    format!("{v} {p}{}/s", unit.symbol())
}

fn rate(stats: &[OpStats; 2], sides: [SideCost; 2], unit: Unit, peaks: &[Option<Peak>; 2]) -> Cause {
    let per_s = |s: &SideCost| {
        s.work
            .map(|w| w * s.calls / (s.time_ns as f64 * 1e-9))
            .filter(|r| r.is_finite())
    };
    let rates: Vec<String> = sides
        .iter()
        .map(|s| per_s(s).map_or("-".into(), |r| fmt_rate(r, unit)))
        .collect();
    let shares: Vec<Option<(f64, String)>> = (0..2)
        .map(|k| {
            let peak = peaks[k]?;
            let (value, name) = match unit {
                Unit::Bytes => (peak.bytes_per_s(), "memory bandwidth".to_string()),
                Unit::Flops => {
                    let ty = top(&stats[k].dtypes)?.0.split(", ").next()?.to_string();
                    let tf32 = stats[k].kernels.keys().any(|n| n.to_ascii_lowercase().contains("tf32"));
                    let p = Precision::of(&ty, tf32)?;
                    (peak.flops_per_s(p)?, format!("{} peak", p.name()))
                }
            };
            Some((per_s(&sides[k])? / value, format!("{} {name}", peak.device)))
        })
        .collect();
    let mut text = format!("{} → {}", rates[0], rates[1]);
    let pct = |s: &Option<(f64, String)>| {
        s.as_ref()
            .map_or("-".to_string(), |(v, _)| format!("{:.1}%", v * 100.0))
    };
    if shares.iter().any(Option::is_some) {
        let names: Vec<&str> = shares.iter().flatten().map(|(_, n)| n.as_str()).collect();
        let of = if names.len() == 2 && names[0] != names[1] {
            format!("{} / {}", names[0], names[1])
        } else {
            names[0].to_string()
        };
        text.push_str(&format!(" ({} → {} of {of})", pct(&shares[0]), pct(&shares[1])));
    }
    Cause {
        kind: CauseKind::Rate,
        short: text.clone(),
        text,
    }
}

/// Why a row has no work figure, where a side has calls.
fn no_work(stats: &[OpStats; 2]) -> Option<String> {
    let s = stats.iter().find(|s| s.calls > 0 && s.work_per_call().is_none())?;
    Some(if s.unknown_op {
        "no work figure: the op is not in the cost model".to_string()
    } else if s.without_shapes > 0 {
        "no work figure: shapes not recorded (record_shapes=True gives the work part)".to_string()
    } else if s.mixed_units {
        "no work figure: its calls' figures are of different units".to_string()
    } else {
        let why = s.skipped.iter().max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)));
        format!("no work figure: {}", why.map_or("unknown", |(w, _)| w.as_str()))
    })
}

/// `×1.92`, or `same` where the ratio rounds to 1.
fn times(r: f64) -> String {
    if (r - 1.0).abs() < 0.005 {
        "same".to_string()
    } else {
        format!("×{r:.2}")
    }
}

/// The row's one line: its Δ and the three parts as ratios, largest part first, with the
/// causes that explain each; and those parts' words alone (the line after its Δ).
fn line(
    name: &str,
    [c, t]: [SideCost; 2],
    r: &Ratios,
    causes: &[Cause],
    (significant, per_step): (Option<bool>, bool),
) -> (String, String) {
    let delta = t.time_ns - c.time_ns;
    let pct = if c.time_ns > 0 {
        format!("{:+.1}%", delta as f64 / c.time_ns as f64 * 100.0)
    } else {
        "new".to_string()
    };
    let pct = if t.calls == 0.0 { "gone".to_string() } else { pct };
    let cause = |k: CauseKind| causes.iter().find(|c| c.kind == k).map(|c| c.short.as_str());
    let with = |text: String, k: CauseKind| match cause(k) {
        Some(why) => format!("{text} ({why})"),
        None => text,
    };
    let parts = decompose(c, t);
    let mut phrases: Vec<(i64, String)> = Vec::new();
    let calls = match r.calls {
        Some(x) => format!("calls {}", times(x)),
        None => with(format!("calls {pct}"), CauseKind::Kernels),
    };
    phrases.push((parts.calls_ns, calls));
    match (r.work, r.efficiency) {
        (Some(w), Some(e)) => {
            phrases.push((parts.work_ns, with(format!("work {}", times(w)), CauseKind::Shapes)));
            phrases.push((
                parts.efficiency_ns,
                with(format!("efficiency {}", times(e)), CauseKind::Dtypes),
            ));
        }
        _ if c.calls > 0.0 && t.calls > 0.0 => {
            let per_call = r.time_per_call.map_or("-".to_string(), times);
            phrases.push((
                parts.efficiency_ns,
                with(format!("time per call {per_call}"), CauseKind::Dtypes),
            ));
        }
        _ => {}
    }
    phrases.sort_by_key(|(ns, _)| std::cmp::Reverse(ns.unsigned_abs()));
    let noise = match significant {
        Some(true) => " *",
        Some(false) => " (within noise)",
        None => "",
    };
    let said: Vec<String> = phrases.into_iter().map(|(_, p)| p).collect();
    let reading = said.join(", ");
    let per = if per_step { "/step" } else { "" };
    let line = format!("{name}  {}{per} ({pct}){noise}  {reading}", fmt_duration(delta, true));
    (line, reading)
}

/// The paragraph on the whole change: the step's Δ, the parts summed over the changed rows and
/// the rows each part is most of, the noise, and what is missing for the work part.
pub(crate) fn summary(
    rows: &[Explained],
    step_ns: Option<[f64; 2]>,
    judged: bool,
    shapes: [bool; 2],
    labels: &[String; 2],
) -> String {
    let mut s = match step_ns {
        Some([c, t]) => format!(
            "The step is {} ({:+.1}%).",
            fmt_duration((t - c).round() as i64, true),
            (t - c) / c * 100.0
        ),
        None => "The step time is not known (no step on a side).".to_string(),
    };
    let sum = |f: fn(&Explained) -> i64| rows.iter().map(f).sum::<i64>();
    let total = sum(|r| r.parts.delta_ns);
    s.push_str(&format!(
        " The self time of the {} changed operators changed by {}",
        rows.len(),
        fmt_duration(total, true)
    ));
    let mut parts = [
        (
            "calls",
            sum(|r| r.parts.calls_ns),
            part_rows(rows, |r| r.parts.calls_ns),
        ),
        ("work", sum(|r| r.parts.work_ns), part_rows(rows, |r| r.parts.work_ns)),
        (
            "efficiency",
            sum(|r| r.parts.efficiency_ns),
            part_rows(rows, |r| r.parts.efficiency_ns),
        ),
    ];
    parts.sort_by_key(|p| std::cmp::Reverse(p.1.unsigned_abs()));
    let said: Vec<String> = parts
        .iter()
        .map(|(name, ns, top)| format!("{name} {}{top}", fmt_duration(*ns, true)))
        .collect();
    s.push_str(&format!(": {}.", said.join(", ")));
    s.push_str(&replaced(rows));
    s.push_str(if judged {
        " Rows marked * changed beyond run-to-run noise."
    } else {
        " Significance was not judged (it needs at least 3 steps per side)."
    });
    for (k, has) in shapes.iter().enumerate() {
        if !has {
            s.push_str(&format!(
                " {} recorded no shapes: record_shapes=True gives the work part.",
                labels[k]
            ));
        }
    }
    s
}

/// ` (mostly aten::mm, aten::addmm)`: the rows whose part is the largest of theirs, by it.
fn part_rows(rows: &[Explained], part: fn(&Explained) -> i64) -> String {
    let mut mine: Vec<&Explained> = rows
        .iter()
        .filter(|r| {
            let p = r.parts;
            let own = part(r).unsigned_abs();
            own > 0
                && own
                    >= p.calls_ns
                        .unsigned_abs()
                        .max(p.work_ns.unsigned_abs())
                        .max(p.efficiency_ns.unsigned_abs())
        })
        .collect();
    mine.sort_by_key(|r| std::cmp::Reverse(part(r).unsigned_abs()));
    let names: Vec<&str> = mine.iter().take(3).map(|r| r.name.as_str()).collect();
    match mine.len() {
        0 => String::new(),
        n if n > 3 => format!(" (mostly {} and {} more)", names.join(", "), n - 3),
        _ => format!(" (mostly {})", names.join(", ")),
    }
}

/// ` Gone: aten::bmm (-97.7 µs); new: aten::_efficient_attention_forward (+35.0 µs).`: the
/// rows only one side has (an op replaced by another, a fused op), the largest three of each.
fn replaced(rows: &[Explained]) -> String {
    let list = |gone: bool| {
        let names: Vec<String> = rows
            .iter()
            .filter(|r| {
                if gone {
                    r.test.calls == 0.0
                } else {
                    r.control.calls == 0.0
                }
            })
            .take(3)
            .map(|r| format!("{} ({})", r.name, fmt_duration(r.parts.delta_ns, true)))
            .collect();
        names.join(", ")
    };
    match (list(true), list(false)) {
        (g, n) if g.is_empty() && n.is_empty() => String::new(),
        (g, n) if n.is_empty() => format!(" Gone: {g}."),
        (g, n) if g.is_empty() => format!(" New: {n}."),
        (g, n) => format!(" Gone: {g}; new: {n}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launched(kernels: &[(&str, i64)]) -> OpStats {
        OpStats {
            calls: 1,
            kernels: kernels.iter().map(|&(k, ns)| (k.to_string(), (1, ns))).collect(),
            ..OpStats::default()
        }
    }

    /// The kernel line names an anonymous namespace (it read `at::native::::…`), and two
    /// kernels of one short name are the same kernel on both sides.
    #[test]
    fn kernel_lines_keep_an_anonymous_namespace() {
        let apply = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<2>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, float)";
        let apply3 = apply.replace("<2>", "<3>");
        let gemm = "void cutlass::Kernel<P>(P::Params)";
        let cause = kernels(&[launched(&[(apply, 9)]), launched(&[(gemm, 9)])]).unwrap();
        let class = |n: &str| crate::analysis::classes::Classifier::builtin().classify(n).name();
        assert_eq!(
            cause.text,
            format!(
                "kernels: at::native::(anonymous namespace)::multi_tensor_apply_kernel ({}) → cutlass::Kernel ({})",
                class(apply),
                class(gemm)
            )
        );
        assert!(kernels(&[launched(&[(apply, 9)]), launched(&[(&apply3, 9)])]).is_none());
    }
}
