//! `tracediff gate`: regression rules for CI that fail on real slowdowns, not on noise.
//!
//! Everything is measured per step (per rank × ProfilerStep sample), so runs with different
//! numbers of steps compare fairly. A timing rule fails only when the change of the medians
//! exceeds its threshold *and* exceeds `k` × the pooled, scaled MAD of the per-step samples
//! (the run-to-run variation); with a single sample per side no noise estimate is possible
//! and the threshold alone decides (the report says so).

use crate::analysis::aggregate::Keying;
use crate::analysis::noise::Shift;
use crate::analysis::select::{Device, Resolved};
use crate::error::{Error, Result};
use crate::input::load::SummarySide;
use regex::Regex;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A relative threshold, always written with its percent sign: `5%` is five percent. A bare
/// number is refused: `5` could mean 5% or 500%, and a gate must not guess. Returns the ratio
/// (`0.05`), or why the text is not one.
pub fn parse_percent(text: &str) -> std::result::Result<f64, String> {
    let t = text.trim();
    let Some(number) = t.strip_suffix('%') else {
        return Err(match t.parse::<f64>() {
            Ok(v) => format!(
                "a percentage needs its % sign: write {t}% for {t} percent (a bare number is refused; {v} could mean either {t}% or {}%)",
                v * 100.0
            ),
            Err(_) => "expected a percentage such as 5%".to_string(),
        });
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v / 100.0),
        _ => Err("expected a percentage ≥ 0 such as 5%".to_string()),
    }
}

/// A duration with its unit: `200us`, `1.5ms`, `2s`, `500ns`. A bare number is refused (it
/// could be any unit). Returns nanoseconds, or why the text is not a duration.
pub fn parse_duration(text: &str) -> std::result::Result<i64, String> {
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic() || c == 'µ').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" => {
            return Err(format!(
                "a duration needs its unit: write e.g. {}us, {}ms or {}s (a bare number is refused)",
                num.trim(),
                num.trim(),
                num.trim()
            ));
        }
        _ => return Err("expected a duration such as 200us, 1.5ms, 2s or 500ns".to_string()),
    };
    match num.trim().parse::<f64>() {
        // Up to about 292 years, so that the nanoseconds fit an i64.
        Ok(v) if v.is_finite() && v >= 0.0 && v * scale < 9.2e18 => Ok((v * scale).round() as i64),
        _ => Err("expected a duration ≥ 0 such as 200us, 1.5ms, 2s or 500ns".to_string()),
    }
}

/// A count limit: an absolute number of extra events per step (`4`) or a ratio (`10%`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CountLimit {
    /// At most this many extra events per step.
    Absolute(f64),
    /// At most this share of the baseline's count more (`0.1` for `10%`).
    Ratio(f64),
}

/// `4` (extra events per step) or `10%` (a share of the baseline's count).
pub fn parse_count_limit(text: &str) -> std::result::Result<CountLimit, String> {
    if text.trim().ends_with('%') {
        return parse_percent(text).map(CountLimit::Ratio);
    }
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(CountLimit::Absolute(v)),
        _ => Err("expected a number of events ≥ 0 (4) or a percentage (10%)".to_string()),
    }
}

/// A threshold value as written in the TOML file: text, or a bare number (kept as its text so
/// that it is judged like the same value on the command line).
fn text_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum TextOrNumber {
        Text(String),
        Int(i64),
        Float(f64),
    }
    Ok(Option::<TextOrNumber>::deserialize(d)?.map(|v| match v {
        TextOrNumber::Text(s) => s,
        TextOrNumber::Int(i) => i.to_string(),
        TextOrNumber::Float(f) => f.to_string(),
    }))
}

/// The rules, as read from `--config` and the command line (which overrides the file).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateConfig {
    /// Fail when the median step time grows by more than this percentage (`5%`).
    #[serde(default, deserialize_with = "text_or_number")]
    pub max_step_time_regression: Option<String>,
    /// Fail when an op's or kernel's median time per step grows by more than this percentage.
    #[serde(default, deserialize_with = "text_or_number")]
    pub max_op_regression: Option<String>,
    /// Ignore op changes smaller than this duration per step (`200us`).
    #[serde(default, deserialize_with = "text_or_number")]
    pub min_op_time: Option<String>,
    /// Leave unjudged the rows under this share of the baseline's mean step time (`1%`).
    #[serde(default, deserialize_with = "text_or_number")]
    pub min_op_share: Option<String>,
    /// Fail when a name only the candidate has matches this regular expression.
    pub fail_on_added: Option<String>,
    /// Fail when a name only the baseline has matches this regular expression.
    pub fail_on_deleted: Option<String>,
    /// Fail when an op runs more often per step by more than this: a count (`4`) or a
    /// percentage of the baseline's (`10%`).
    #[serde(default, deserialize_with = "text_or_number")]
    pub max_count_increase: Option<String>,
    /// Fail when the GPU busy time per step grows by more than this percentage.
    #[serde(default, deserialize_with = "text_or_number")]
    pub max_gpu_busy_regression: Option<String>,
    /// The noise multiplier k: a timing change must exceed k × the pooled scaled MAD.
    pub noise_k: Option<f64>,
    /// Judge each op by its share of the step time rather than its time.
    pub relative: Option<bool>,
    /// The events the op and count rules judge.
    pub device: Option<Device>,
    /// Normalise names before keying rows (the default).
    pub normalize_names: Option<bool>,
    /// Key rows by HTA's short names.
    pub short_names: Option<bool>,
    /// Judge the timing rules beyond a run-wide shift where one is found (the whole run slower
    /// or faster by one factor, the mark of the machine rather than the program): the
    /// baseline's times are scaled by the shift before the thresholds apply.
    pub beyond_run_shift: Option<bool>,
    /// Judge a side that lacks some of its job's ranks (`distributedInfo.world_size` says more
    /// than it holds); refused by default.
    #[serde(default)]
    pub allow_missing_ranks: Option<bool>,
}

/// The TOML file: the rules under `[gate]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    gate: GateConfig,
}

impl GateConfig {
    /// Reads the `[gate]` table; its thresholds are checked here, so that an error names the key.
    pub fn from_toml(text: &str, path: &std::path::Path) -> Result<GateConfig> {
        let config = toml::from_str::<ConfigFile>(text)
            .map(|f| f.gate)
            .map_err(|e| Error::input(path, toml_error(text, &e)))?;
        Thresholds::of(&config, |key| key.to_string())
            .map_err(|e| Error::input(path, format!("invalid gate config: {e}")))?;
        Ok(config)
    }

    /// `other`'s settings win where it has them.
    pub fn overridden_by(self, other: GateConfig) -> GateConfig {
        GateConfig {
            max_step_time_regression: other.max_step_time_regression.or(self.max_step_time_regression),
            max_op_regression: other.max_op_regression.or(self.max_op_regression),
            min_op_time: other.min_op_time.or(self.min_op_time),
            min_op_share: other.min_op_share.or(self.min_op_share),
            fail_on_added: other.fail_on_added.or(self.fail_on_added),
            fail_on_deleted: other.fail_on_deleted.or(self.fail_on_deleted),
            max_count_increase: other.max_count_increase.or(self.max_count_increase),
            max_gpu_busy_regression: other.max_gpu_busy_regression.or(self.max_gpu_busy_regression),
            noise_k: other.noise_k.or(self.noise_k),
            relative: other.relative.or(self.relative),
            device: other.device.or(self.device),
            normalize_names: other.normalize_names.or(self.normalize_names),
            short_names: other.short_names.or(self.short_names),
            beyond_run_shift: other.beyond_run_shift.or(self.beyond_run_shift),
            allow_missing_ranks: other.allow_missing_ranks.or(self.allow_missing_ranks),
        }
    }
}

/// A TOML error as one line: the message, then where (line and column, and the key of that
/// line when it has one), any value it quotes elided.
fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().lines().next().unwrap_or("").trim();
    let message = crate::text::elide(message, 4 * crate::text::QUOTED_MAX);
    let Some(span) = e.span() else {
        return format!("invalid gate config: {message}");
    };
    let start = span.start.min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_no = text[..start].matches('\n').count() + 1;
    let column = text[line_start..start].chars().count() + 1;
    let line = text[line_start..].lines().next().unwrap_or("");
    let key = line
        .split_once('=')
        .map(|(k, _)| k.trim())
        .filter(|k| !k.is_empty() && !k.starts_with('#'))
        .map(|k| format!(", key {}", crate::text::elide(k, 60)))
        .unwrap_or_default();
    format!("invalid gate config: {message} (line {line_no}, column {column}{key})")
}

/// Default k: a change must exceed 3 × the pooled scaled MAD (≈ 3 σ for normal noise).
pub const DEFAULT_NOISE_K: f64 = crate::analysis::noise::DEFAULT_K;

/// Rows whose time per step stays under this share of the baseline's mean step time are too
/// small to judge by time or count (their run-to-run jitter is large next to their size).
pub const DEFAULT_MIN_OP_SHARE: f64 = crate::analysis::noise::MIN_STEP_SHARE;

/// Whether events of this category are judged by the per-op rules: operators, kernels,
/// copies and sets, user annotations, and other device work. Python frames (the call stack
/// around the operations: nested frames count the same time many times) and runtime calls
/// (`cudaLaunchKernel`: the launch cost of the kernels, judged through them) are not.
pub fn judged_category(cat: &str, place: crate::model::place::Place) -> bool {
    matches!(
        cat,
        "cpu_op"
            | "Operator"
            | "user_annotation"
            | "kernel"
            | "Kernel"
            | "gpu_memcpy"
            | "gpu_memset"
            | "Memcpy"
            | "Memset"
            | "gpu_user_annotation"
    ) || (place == crate::model::place::Place::Device && cat != crate::analysis::aggregate::PYTHON_FRAME_CATEGORY)
}

/// Names never judged per op: the steps themselves (the step-time rule judges them).
fn judged_name(name: &str) -> bool {
    !name.starts_with("ProfilerStep")
}

/// The checked form of [`GateConfig`].
#[derive(Debug, Clone)]
pub struct Rules {
    /// The step-time rule's threshold, as a ratio (`0.05` for `5%`).
    pub max_step_time_regression: Option<f64>,
    /// The per-op time rule's threshold, as a ratio.
    pub max_op_regression: Option<f64>,
    /// Op changes under this many ns per step are not judged.
    pub min_op_time_ns: i64,
    /// Share of the baseline's mean step time under which a row is not judged by time or count.
    pub min_op_share: f64,
    /// Names only the candidate may not have.
    pub fail_on_added: Option<Regex>,
    /// Names only the baseline may not have.
    pub fail_on_deleted: Option<Regex>,
    /// The per-op count rule's limit.
    pub max_count_increase: Option<CountLimit>,
    /// The GPU-busy rule's threshold, as a ratio.
    pub max_gpu_busy_regression: Option<f64>,
    /// The noise multiplier k.
    pub noise_k: f64,
    /// Whether ops are judged by their share of the step time.
    pub relative: bool,
    /// Whether the timing rules judge beyond a run-wide shift where one is found.
    pub beyond_run_shift: bool,
}

/// The thresholds of a [`GateConfig`], parsed.
struct Thresholds {
    max_step_time_regression: Option<f64>,
    max_op_regression: Option<f64>,
    min_op_time_ns: Option<i64>,
    min_op_share: Option<f64>,
    max_count_increase: Option<CountLimit>,
    max_gpu_busy_regression: Option<f64>,
}

impl Thresholds {
    /// `name` turns a key into the way the user wrote it (`--max-op-regression` or
    /// `max_op_regression`), for the message.
    fn of(c: &GateConfig, name: impl Fn(&str) -> String) -> std::result::Result<Thresholds, String> {
        fn one<T>(
            key: &str,
            value: &Option<String>,
            parse: fn(&str) -> std::result::Result<T, String>,
            name: &impl Fn(&str) -> String,
        ) -> std::result::Result<Option<T>, String> {
            value
                .as_deref()
                .map(|v| parse(v).map_err(|why| format!("{} '{v}': {why}", name(key))))
                .transpose()
        }
        Ok(Thresholds {
            max_step_time_regression: one(
                "max_step_time_regression",
                &c.max_step_time_regression,
                parse_percent,
                &name,
            )?,
            max_op_regression: one("max_op_regression", &c.max_op_regression, parse_percent, &name)?,
            min_op_time_ns: one("min_op_time", &c.min_op_time, parse_duration, &name)?,
            min_op_share: one("min_op_share", &c.min_op_share, parse_percent, &name)?,
            max_count_increase: one("max_count_increase", &c.max_count_increase, parse_count_limit, &name)?,
            max_gpu_busy_regression: one(
                "max_gpu_busy_regression",
                &c.max_gpu_busy_regression,
                parse_percent,
                &name,
            )?,
        })
    }
}

impl Rules {
    /// Checks and parses `c`; a usage error naming the option (`--max-op-regression '5'`) when
    /// a value is malformed (a percentage without its `%`, a duration without its unit, a bad
    /// pattern).
    pub fn from_config(c: &GateConfig) -> Result<Rules> {
        let regex = |flag: &str, p: &Option<String>| -> Result<Option<Regex>> {
            p.as_deref()
                .map(|p| crate::analysis::diff::compile_pattern(flag, p))
                .transpose()
        };
        let t = Thresholds::of(c, |key| format!("--{}", key.replace('_', "-")))
            .map_err(|e| Error::usage(format!("invalid {e}")))?;
        let rules = Rules {
            max_step_time_regression: t.max_step_time_regression,
            max_op_regression: t.max_op_regression,
            min_op_time_ns: t.min_op_time_ns.unwrap_or(0),
            min_op_share: t.min_op_share.unwrap_or(DEFAULT_MIN_OP_SHARE),
            fail_on_added: regex("--fail-on-added", &c.fail_on_added)?,
            fail_on_deleted: regex("--fail-on-deleted", &c.fail_on_deleted)?,
            max_count_increase: t.max_count_increase,
            max_gpu_busy_regression: t.max_gpu_busy_regression,
            noise_k: c.noise_k.unwrap_or(DEFAULT_NOISE_K),
            relative: c.relative.unwrap_or(false),
            beyond_run_shift: c.beyond_run_shift.unwrap_or(false),
        };
        if !(rules.noise_k.is_finite() && rules.noise_k >= 0.0) {
            return Err(Error::usage(format!(
                "invalid noise k {} (expected a number ≥ 0)",
                rules.noise_k
            )));
        }
        let any = rules.max_step_time_regression.is_some()
            || rules.max_op_regression.is_some()
            || rules.fail_on_added.is_some()
            || rules.fail_on_deleted.is_some()
            || rules.max_count_increase.is_some()
            || rules.max_gpu_busy_regression.is_some();
        if !any {
            return Err(Error::usage(
                "no rule to check: give at least one of --max-step-time-regression, --max-op-regression, \
                 --fail-on-added, --fail-on-deleted, --max-count-increase, --max-gpu-busy-regression (or --config)",
            ));
        }
        Ok(rules)
    }
}

/// Per-step measurements of one side: one sample per (rank, step).
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// (rank, step) of each sample.
    pub keys: Vec<(i64, i64)>,
    /// The step's duration per sample, in ns.
    pub step_ns: Vec<i64>,
    /// Time during which at least one device event ran, per sample.
    pub gpu_busy_ns: Vec<i64>,
    /// Per row key: (count, total ns) in the samples where it ran.
    pub ops: BTreeMap<String, StepValues>,
}

/// A row's (count, total ns) in the samples where it ran, sorted by sample, zero elsewhere.
/// Sparse, so that memory follows the summary's rows and not rows × samples: a name that runs
/// in one step of 8,000 (`ProfilerStep#N` under `--raw-names`) holds one entry, not 8,000.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StepValues {
    /// (sample index, count, total ns), sorted by sample index, each index once.
    entries: Vec<(u32, u64, i64)>,
}

impl StepValues {
    /// Adds `count` events of `ns` to sample `slot` (entries stay sorted when slots come in
    /// order, as [`measure`] adds them; out of order they are merged at [`Self::finish`]).
    fn add(&mut self, slot: u32, count: u64, ns: i64) {
        match self.entries.last_mut() {
            Some(last) if last.0 == slot => {
                last.1 += count;
                last.2 += ns;
            }
            _ => self.entries.push((slot, count, ns)),
        }
    }

    /// Sorts by sample and merges the entries of one sample.
    fn finish(&mut self) {
        if self.entries.is_sorted_by_key(|e| e.0) && self.entries.windows(2).all(|w| w[0].0 != w[1].0) {
            return;
        }
        self.entries.sort_by_key(|e| e.0);
        let mut merged: Vec<(u32, u64, i64)> = Vec::with_capacity(self.entries.len());
        for e in self.entries.drain(..) {
            match merged.last_mut() {
                Some(last) if last.0 == e.0 => {
                    last.1 += e.1;
                    last.2 += e.2;
                }
                _ => merged.push(e),
            }
        }
        self.entries = merged;
    }

    /// (count, total ns) in each of `n` samples.
    pub fn dense(&self, n: usize) -> Vec<(u64, i64)> {
        let mut v = vec![(0, 0); n];
        for &(slot, count, ns) in &self.entries {
            if let Some(x) = v.get_mut(slot as usize) {
                *x = (count, ns);
            }
        }
        v
    }

    /// Whether any sample holds an event.
    pub fn present(&self) -> bool {
        self.entries.iter().any(|e| e.1 > 0)
    }
}

impl Samples {
    /// Row `name`'s (count, total ns) in each sample; zeros when it never ran.
    pub fn op(&self, name: &str) -> Vec<(u64, i64)> {
        self.ops
            .get(name)
            .map_or_else(|| vec![(0, 0); self.keys.len()], |v| v.dense(self.keys.len()))
    }

    /// Row `name`'s total ns in each sample, as floats.
    pub fn durations(&self, name: &str) -> Vec<f64> {
        self.op(name).into_iter().map(|(_, d)| d as f64).collect()
    }
}

/// Measures the selected ranks and steps of a side, from each file's summary.
/// `judged_only`: only the rows the gate judges ([`judged_category`], not ProfilerStep), else every
/// row the keying admits (a table's rows). Memory follows the summaries' rows (see
/// [`StepValues`]), whatever the number of steps.
pub fn measure(
    side: &SummarySide,
    resolved: &Resolved,
    device: Device,
    keying: &Keying,
    judged_only: bool,
) -> Result<Samples> {
    measure_times(side, resolved, (device, keying, judged_only), Times::Total)
}

/// The row keys of device events (kernels, copies, sets, GPU annotations) on either side, keyed
/// and admitted as [`measure`] keys and admits them: the rows a device shift applies to and a
/// host shift never does.
pub fn device_row_keys(
    sides: [(&SummarySide, &Resolved); 2],
    keying: &Keying,
    judged_only: bool,
) -> Result<BTreeSet<String>> {
    let mut keys = BTreeSet::new();
    for (side, resolved) in sides {
        keys.extend(
            measure(side, resolved, Device::Gpu, keying, judged_only)?
                .ops
                .into_keys(),
        );
    }
    Ok(keys)
}

/// Which time of a summary row [`measure_times`] sums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Times {
    /// Its total (inclusive) time.
    Total,
    /// Its own time ([`crate::model::summary::OpRow::self_ns`]: host self time, device
    /// duration), GPU annotation spans left out (they cover kernels' time again), as the
    /// run-wide shift looks at them.
    Own,
}

/// [`measure`], summing the rows' `times`: read from the summaries as they are, so that
/// looking at own times copies no summary (16 ranks a side hold many).
pub fn measure_times(
    side: &SummarySide,
    resolved: &Resolved,
    (device, keying, judged_only): (Device, &Keying, bool),
    times: Times,
) -> Result<Samples> {
    let Some(iterations) = &resolved.iterations else {
        return Err(Error::input(
            &side.input,
            "the gate measures per ProfilerStep, and these traces have none",
        ));
    };
    let mut s = Samples::default();
    let slot_of: FxHashMap<i64, usize> = iterations.iter().enumerate().map(|(k, &it)| (it, k)).collect();
    for &rank in &resolved.ranks {
        let Some(file) = side.file_of_rank(rank) else { continue };
        let base = s.keys.len();
        let sample_of: FxHashMap<i64, &crate::model::summary::IterationSample> =
            file.meta.iterations.iter().map(|x| (x.iteration, x)).rev().collect();
        for &it in iterations {
            // The first sample of an iteration, as a search in file order finds it.
            let sample = sample_of.get(&it).copied();
            s.keys.push((rank, it));
            s.step_ns.push(sample.map_or(0, |x| x.step_ns));
            s.gpu_busy_ns.push(sample.map_or(0, |x| x.gpu_busy_ns));
        }
        // Per name id of this file, its samples; names are keyed once, at the end.
        let gpu_annotation = file
            .strings
            .iter()
            .position(|s| s == crate::analysis::aggregate::GPU_ANNOTATION_CATEGORY);
        let mut per_name: FxHashMap<(u32, bool), StepValues> = FxHashMap::default();
        for r in &file.rows {
            let Some(&k) = slot_of.get(&r.iteration) else {
                continue;
            };
            if !device.admits(r.place) {
                continue;
            }
            let cat = file.text(r.category);
            let admitted = if judged_only {
                judged_category(cat, r.place) && judged_name(file.text(r.name))
            } else {
                !(keying.skip_python_frames && cat == crate::analysis::aggregate::PYTHON_FRAME_CATEGORY)
            };
            if !admitted {
                continue;
            }
            let ns = match times {
                Times::Total => r.total_ns,
                Times::Own if r.place == crate::model::place::Place::Annotation => continue,
                Times::Own => r.self_ns,
            };
            let slot = u32::try_from(base + k).unwrap_or(u32::MAX);
            let apart = gpu_annotation == Some(r.category as usize);
            per_name.entry((r.name, apart)).or_default().add(slot, r.count, ns);
        }
        let mut ids: Vec<((u32, bool), StepValues)> = per_name.into_iter().collect();
        ids.sort_unstable_by_key(|(id, _)| *id);
        for ((id, apart), per) in ids {
            let all = s.ops.entry(keying.row_key(file.text(id), apart)).or_default();
            for (slot, count, ns) in per.entries {
                all.add(slot, count, ns);
            }
        }
    }
    for v in s.ops.values_mut() {
        v.finish();
    }
    Ok(s)
}

pub use crate::analysis::noise::{mean, median, scaled_mad};

/// How two sets of per-step samples compare.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Change {
    /// The baseline's median.
    pub baseline: f64,
    /// The candidate's median.
    pub candidate: f64,
    /// (candidate − baseline) / baseline; infinite when the baseline is 0.
    pub relative: f64,
    /// k × pooled scaled MAD, in the samples' unit; `None` without a noise estimate.
    pub noise: Option<f64>,
}

impl Change {
    /// The medians of `base` and `cand`, their relative change, and the noise band (`k` × the
    /// pooled scaled MAD) when each side has two samples or more.
    pub fn of(base: &[f64], cand: &[f64], k: f64) -> Change {
        let (b, c) = (median(base), median(cand));
        let relative = if b == 0.0 {
            if c == 0.0 { 0.0 } else { f64::INFINITY }
        } else {
            (c - b) / b.abs()
        };
        let noise = (base.len() >= 2 && cand.len() >= 2).then(|| crate::analysis::noise::noise_band(base, cand, k));
        Change {
            baseline: b,
            candidate: c,
            relative,
            noise,
        }
    }

    /// Whether the change is a regression beyond `threshold` and beyond the noise.
    pub fn regressed(&self, threshold: f64) -> bool {
        self.relative > threshold && self.noise.is_none_or(|n| self.candidate - self.baseline > n)
    }
}

/// A run-wide shift the timing rules judge beyond (`beyond_run_shift`,
/// docs/significance.md#a-run-wide-shift): each baseline time is scaled by the factor of where
/// its events ran before the change is measured, so a rule fails only for what moved more than
/// the whole run did. Empty (no factor) where none was found or the rules judge absolutely.
#[derive(Debug, Clone, Default)]
pub struct Beyond {
    /// The shift of host time (operators, annotations), where one was found.
    pub host: Option<Shift>,
    /// The shift of device time (kernels, copies, sets).
    pub device: Option<Shift>,
    /// Row keys of device events: they take the device's factor, the others the host's.
    pub on_device: BTreeSet<String>,
}

/// A shift a baseline is scaled by, and where it was found (`host`, `device`).
type Scale = Option<(Shift, &'static str)>;

fn factor_of(shift: Option<&Shift>, place: &'static str) -> Scale {
    shift.map(|s| (*s, place))
}

impl Beyond {
    /// The shift of row `name`'s place.
    fn op(&self, name: &str) -> Scale {
        if self.on_device.contains(name) {
            factor_of(self.device.as_ref(), "device")
        } else {
            factor_of(self.host.as_ref(), "host")
        }
    }

    /// The step's: the larger factor found, since either the host or the device may bound a
    /// step (a step cannot slow by more than both did).
    fn step(&self) -> Scale {
        match (self.host.as_ref(), self.device.as_ref()) {
            (Some(h), Some(d)) if d.factor > h.factor => factor_of(Some(d), "device"),
            (Some(h), _) => factor_of(Some(h), "host"),
            (None, d) => factor_of(d, "device"),
        }
    }

    /// The GPU's busy time's: the device's.
    fn gpu_busy(&self) -> Scale {
        factor_of(self.device.as_ref(), "device")
    }
}

/// `base` and `cand` compared as [`Change::of`] does, `base` first scaled by `scale`'s factor
/// and the noise band widened as `compare` widens a row's beyond a shift
/// ([`crate::analysis::noise::shift_band`]); `rows`: whether single rows' scatter around the
/// factor applies (one row's time), or not (the step, a sum over every row). Returns the change
/// (its `baseline` the expected value) and the unscaled baseline's median.
fn change_beyond(base: &[f64], cand: &[f64], k: f64, scale: Scale, rows: bool) -> (Change, f64) {
    let Some((shift, _)) = scale else {
        return (Change::of(base, cand, k), median(base));
    };
    let scaled: Vec<f64> = base.iter().map(|b| b * shift.factor).collect();
    let mut ch = Change::of(&scaled, cand, k);
    let shift = Shift {
        spread: if rows { shift.spread } else { 0.0 },
        ..shift
    };
    let up = ch.candidate >= ch.baseline;
    ch.noise = Some(crate::analysis::noise::shift_band(
        ch.noise.unwrap_or(0.0),
        ch.baseline.abs(),
        up,
        k,
        &shift,
    ));
    (ch, median(base))
}

/// What a rule says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Within the rule (exit 0).
    Pass,
    /// Beyond it and beyond the noise (exit 1).
    Fail,
}

/// One checked rule (or, for per-op rules, one op).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleResult {
    /// The rule, as reports name it (`step time`, `op time`, `count`, `fail on added`, …).
    pub rule: String,
    /// What it is about: `step time`, an op name, a pattern.
    pub subject: String,
    /// The unit of `baseline`/`candidate`/`noise`: `ns`, `share`, `count` or `names`.
    pub unit: &'static str,
    /// The baseline's value (a median per step for timings and counts).
    pub baseline: f64,
    /// The candidate's value.
    pub candidate: f64,
    /// Where the rule judged beyond a run-wide shift (`beyond_run_shift`): the baseline's
    /// value scaled by the shift's factor, what the candidate was expected to take had only the
    /// machine changed; `relative_change` and `noise` are then about it. `None` otherwise.
    pub expected: Option<f64>,
    /// (candidate − baseline) / baseline, or (candidate − expected) / expected where `expected`
    /// is given; `None` where it means nothing (names matched, the number of ops that failed a
    /// per-op rule, a baseline of 0).
    pub relative_change: Option<f64>,
    /// The threshold, a number: a fraction where `threshold_on` is `relative_change` (`0.05`
    /// for `5%`), a count per step where it is `increase`, `0` for `matches`. A rule fails
    /// where that value exceeds it (and, for a timing, the noise band). On the line summing up a
    /// per-op rule, each op's threshold.
    pub threshold: f64,
    /// What the threshold bounds: `relative_change`, `increase` (candidate − baseline, in
    /// `unit`) or `matches` (names matched: none may).
    pub threshold_on: &'static str,
    /// The threshold as tables show it (`> 5.0%`, `> +2 per step`, `none may match`).
    pub threshold_text: String,
    /// The noise band, in `unit`; `None` without enough samples.
    pub noise: Option<f64>,
    /// Pass or fail.
    pub verdict: Verdict,
    /// Why, in words, when there is more to say.
    pub note: String,
}

/// An op's share in a step-time change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contributor {
    /// The op's row key.
    pub name: String,
    /// Its median time per step in the baseline, in ns.
    pub baseline_ns: f64,
    /// In the candidate, in ns.
    pub candidate_ns: f64,
    /// `candidate_ns − baseline_ns`.
    pub diff_ns: f64,
}

/// One side of a gate: what was judged and its step times.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideSummary {
    /// `baseline` or `candidate`.
    pub label: String,
    /// The path given for it.
    pub path: String,
    /// The ranks judged.
    pub ranks: Vec<i64>,
    /// The ProfilerSteps judged.
    pub iterations: Vec<i64>,
    /// Number of (rank, step) samples.
    pub samples: usize,
    /// The median step time, in ns.
    pub step_median_ns: f64,
    /// The shortest step, in ns.
    pub step_min_ns: f64,
    /// The longest step, in ns.
    pub step_max_ns: f64,
    /// Scaled MAD of the step times.
    pub step_mad_ns: f64,
}

/// What a gate found: the verdict, each rule's result and what moved the step time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateReport {
    /// Fail when any rule failed.
    pub verdict: Verdict,
    /// The noise multiplier used.
    pub noise_k: f64,
    /// Whether ops were judged by their share of the step time.
    pub relative: bool,
    /// How the noise was estimated, or why it could not be (too few samples).
    pub noise_note: String,
    /// The baseline's side.
    pub baseline: SideSummary,
    /// The candidate's side.
    pub candidate: SideSummary,
    /// Every rule checked (per-op rules: one result per op judged).
    pub rules: Vec<RuleResult>,
    /// Ops that account for the step-time change, largest increase first.
    pub top_contributors: Vec<Contributor>,
    /// The run-wide shift of the pair (docs/significance.md#a-run-wide-shift), never applied:
    /// the rules judge the change itself, a machine's shift included.
    pub run_shift: crate::analysis::diff::RunShift,
    /// What the shift means for the verdict, where one was found (the command line prints it).
    pub run_shift_note: Option<String>,
}

fn summary(label: &str, side: &SummarySide, resolved: &Resolved, s: &Samples) -> SideSummary {
    let steps: Vec<f64> = s.step_ns.iter().map(|&x| x as f64).collect();
    SideSummary {
        label: label.to_string(),
        path: side.input.display().to_string(),
        ranks: resolved.ranks.clone(),
        iterations: resolved.iterations.clone().unwrap_or_default(),
        samples: steps.len(),
        step_median_ns: median(&steps),
        step_min_ns: steps.iter().copied().fold(f64::INFINITY, f64::min),
        step_max_ns: steps.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        step_mad_ns: scaled_mad(&steps),
    }
}

fn pct(r: f64) -> String {
    format!("{:.1}%", r * 100.0)
}

/// Evaluates every rule.
/// `beyond`: the run-wide shift the timing rules judge beyond (empty: absolutely).
pub fn evaluate(
    rules: &Rules,
    (base_side, base_res, base): (&SummarySide, &Resolved, &Samples),
    (cand_side, cand_res, cand): (&SummarySide, &Resolved, &Samples),
    beyond: &Beyond,
) -> GateReport {
    let k = rules.noise_k;
    let mut results = Vec::new();
    let f = |v: &[i64]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let (b_steps, c_steps) = (f(&base.step_ns), f(&cand.step_ns));

    if let Some(t) = rules.max_step_time_regression {
        let scale = beyond.step();
        let ch = change_beyond(&b_steps, &c_steps, k, scale, false);
        results.push(timing_result("step time", "median of steps", "ns", ch, t, "", scale));
    }
    if let Some(t) = rules.max_gpu_busy_regression {
        let scale = beyond.gpu_busy();
        let ch = change_beyond(&f(&base.gpu_busy_ns), &f(&cand.gpu_busy_ns), k, scale, false);
        let note = if ch.0.candidate == 0.0 && ch.1 == 0.0 {
            "no device events"
        } else {
            ""
        };
        results.push(timing_result(
            "gpu busy time",
            "median of steps",
            "ns",
            ch,
            t,
            note,
            scale,
        ));
    }
    let per_step = |s: &Samples, name: &str, steps: &[f64]| -> Vec<f64> {
        s.op(name)
            .iter()
            .zip(steps)
            .map(|(&(_, d), &st)| {
                if rules.relative {
                    if st > 0.0 { d as f64 / st } else { 0.0 }
                } else {
                    d as f64
                }
            })
            .collect()
    };
    // Rows smaller than this share of the baseline's step on both sides are not judged by time
    // or count: their jitter is large next to their size and they cannot move the step much.
    let share_floor_ns = rules.min_op_share * mean(&b_steps);
    let small = |name: &str| {
        let (b, c) = (median(&per_step_abs(base, name)), median(&per_step_abs(cand, name)));
        b.max(c) < share_floor_ns
    };
    if let Some(t) = rules.max_op_regression {
        let mut checked = 0usize;
        let mut failed = Vec::new();
        for name in base.ops.keys().filter(|n| cand.ops.contains_key(*n)) {
            if small(name) {
                continue;
            }
            let scale = beyond.op(name);
            // As a share of the step, the op's factor over the step's.
            let share_scale = match (scale, beyond.step()) {
                (Some((op, place)), Some((step, _))) if rules.relative => Some((
                    Shift {
                        factor: op.factor / step.factor,
                        ..op
                    },
                    place,
                )),
                _ => scale,
            };
            let (b, c) = (per_step(base, name, &b_steps), per_step(cand, name, &c_steps));
            let ch = change_beyond(&b, &c, k, share_scale, true);
            // The floor is on absolute per-step time, whatever the mode.
            let abs = change_beyond(&per_step_abs(base, name), &per_step_abs(cand, name), k, scale, false).0;
            if (abs.candidate - abs.baseline) < rules.min_op_time_ns as f64 {
                continue;
            }
            checked += 1;
            if ch.0.regressed(t) {
                let unit = if rules.relative { "share" } else { "ns" };
                failed.push(timing_result("op time", name, unit, ch, t, "", share_scale));
            }
        }
        failed.sort_by(|a, b| {
            (b.candidate - b.baseline)
                .total_cmp(&(a.candidate - a.baseline))
                .then_with(|| a.subject.cmp(&b.subject))
        });
        let summary_note = format!(
            "{checked} {} checked: at least {} per step ({} of the baseline's mean step), changed by at least {}{}",
            ops(checked),
            crate::text::fmt_duration(share_floor_ns.round() as i64, false),
            pct(rules.min_op_share),
            crate::text::fmt_duration(rules.min_op_time_ns, false),
            if rules.relative {
                ", as shares of step time (--relative)"
            } else {
                ""
            }
        );
        results.push(per_op_summary(
            "op time",
            format!("{} of {checked} {} regressed", failed.len(), ops(checked)),
            failed.len(),
            (t, "relative_change", format!("> {}", pct(t))),
            summary_note,
        ));
        results.extend(failed);
    }
    let added: Vec<&String> = cand
        .ops
        .iter()
        .filter(|(n, v)| v.present() && !base.ops.get(*n).is_some_and(StepValues::present))
        .map(|(n, _)| n)
        .collect();
    let deleted: Vec<&String> = base
        .ops
        .iter()
        .filter(|(n, v)| v.present() && !cand.ops.get(*n).is_some_and(StepValues::present))
        .map(|(n, _)| n)
        .collect();
    for (rule, pattern, names) in [
        ("added", &rules.fail_on_added, &added),
        ("deleted", &rules.fail_on_deleted, &deleted),
    ] {
        let Some(re) = pattern else { continue };
        let hits: Vec<&String> = names.iter().copied().filter(|n| re.is_match(n)).collect();
        results.push(RuleResult {
            rule: format!("fail on {rule}"),
            subject: re.as_str().to_string(),
            unit: "names",
            baseline: 0.0,
            candidate: hits.len() as f64,
            expected: None,
            relative_change: None,
            threshold: 0.0,
            threshold_on: "matches",
            threshold_text: "none may match".into(),
            noise: None,
            verdict: if hits.is_empty() { Verdict::Pass } else { Verdict::Fail },
            note: hits.iter().take(5).map(|s| s.as_str()).collect::<Vec<_>>().join("; "),
        });
    }
    if let Some(limit) = rules.max_count_increase {
        let mut worst: Vec<RuleResult> = Vec::new();
        let mut checked = 0usize;
        for (name, b) in &base.ops {
            let Some(c) = cand.ops.get(name) else { continue };
            let counts = |v: &StepValues, n: usize| v.dense(n).iter().map(|&(n, _)| n as f64).collect::<Vec<_>>();
            let (bm, cm) = (median(&counts(b, base.keys.len())), median(&counts(c, cand.keys.len())));
            if bm == 0.0 || small(name) {
                continue;
            }
            checked += 1;
            let over = match limit {
                CountLimit::Absolute(n) => cm - bm > n,
                CountLimit::Ratio(r) => (cm - bm) / bm > r,
            };
            if over {
                worst.push(RuleResult {
                    rule: "count".into(),
                    subject: name.clone(),
                    unit: "count",
                    baseline: bm,
                    candidate: cm,
                    expected: None,
                    relative_change: Some((cm - bm) / bm),
                    threshold: limit_value(limit).0,
                    threshold_on: limit_value(limit).1,
                    threshold_text: limit_text(limit),
                    noise: None,
                    verdict: Verdict::Fail,
                    note: "median events per step".into(),
                });
            }
        }
        worst.sort_by(|a, b| {
            (b.candidate - b.baseline)
                .total_cmp(&(a.candidate - a.baseline))
                .then_with(|| a.subject.cmp(&b.subject))
        });
        results.push(per_op_summary(
            "count",
            format!("{} of {checked} {} ran more often", worst.len(), ops(checked)),
            worst.len(),
            (limit_value(limit).0, limit_value(limit).1, limit_text(limit)),
            format!(
                "median events per step, ops present on both sides with at least {} of the baseline's mean step",
                pct(rules.min_op_share)
            ),
        ));
        results.extend(worst);
    }

    let mut contributors: Vec<Contributor> = base
        .ops
        .keys()
        .chain(cand.ops.keys().filter(|n| !base.ops.contains_key(*n)))
        .filter(|n| !n.starts_with("ProfilerStep"))
        .map(|n| {
            let b = median(&per_step_abs(base, n));
            let c = median(&per_step_abs(cand, n));
            Contributor {
                name: n.clone(),
                baseline_ns: b,
                candidate_ns: c,
                diff_ns: c - b,
            }
        })
        .filter(|c| c.diff_ns > 0.0)
        .collect();
    contributors.sort_by(|a, b| b.diff_ns.total_cmp(&a.diff_ns).then_with(|| a.name.cmp(&b.name)));
    contributors.truncate(10);

    let verdict = if results.iter().any(|r| r.verdict == Verdict::Fail) {
        Verdict::Fail
    } else {
        Verdict::Pass
    };
    let noise_note = if b_steps.len() < 2 || c_steps.len() < 2 {
        "one step per side: no noise estimate was possible, thresholds alone decide".to_string()
    } else {
        format!(
            "a timing rule fails only when the change of medians exceeds its threshold and {k} × the pooled scaled MAD of the per-step samples ({} baseline, {} candidate samples)",
            b_steps.len(),
            c_steps.len()
        )
    };
    GateReport {
        verdict,
        noise_k: k,
        relative: rules.relative,
        noise_note,
        baseline: summary("baseline", base_side, base_res, base),
        candidate: summary("candidate", cand_side, cand_res, cand),
        rules: results,
        top_contributors: contributors,
        run_shift: Default::default(),
        run_shift_note: None,
    }
}

fn ops(n: usize) -> &'static str {
    crate::analysis::diff::plural(n, "op", "ops")
}

/// The line that sums up a per-op rule: how many ops failed it.
/// `threshold`: each op's (value, what it bounds, text).
fn per_op_summary(
    rule: &str,
    subject: String,
    failed: usize,
    threshold: (f64, &'static str, String),
    note: String,
) -> RuleResult {
    RuleResult {
        rule: rule.to_string(),
        subject,
        unit: "count",
        baseline: 0.0,
        candidate: failed as f64,
        expected: None,
        relative_change: None,
        threshold: threshold.0,
        threshold_on: threshold.1,
        threshold_text: threshold.2,
        noise: None,
        verdict: if failed == 0 { Verdict::Pass } else { Verdict::Fail },
        note,
    }
}

fn per_step_abs(s: &Samples, name: &str) -> Vec<f64> {
    s.durations(name)
}

/// A count limit as a number and what it bounds: the increase per step, or the relative change.
fn limit_value(l: CountLimit) -> (f64, &'static str) {
    match l {
        CountLimit::Absolute(n) => (n, "increase"),
        CountLimit::Ratio(r) => (r, "relative_change"),
    }
}

fn limit_text(l: CountLimit) -> String {
    match l {
        CountLimit::Absolute(n) => format!("> +{n} per step"),
        CountLimit::Ratio(r) => format!("> {}", pct(r)),
    }
}

/// A timing rule's line. `ch`: the change and the unscaled baseline's median, from
/// [`change_beyond`] with `scale`.
fn timing_result(
    rule: &str,
    subject: &str,
    unit: &'static str,
    (ch, raw_baseline): (Change, f64),
    threshold: f64,
    note: &str,
    scale: Scale,
) -> RuleResult {
    let verdict = if ch.regressed(threshold) {
        Verdict::Fail
    } else {
        Verdict::Pass
    };
    let mut note = note.to_string();
    if verdict == Verdict::Pass && ch.relative > threshold {
        note = "above the threshold but within run-to-run noise".to_string();
    }
    if ch.noise.is_none() && note.is_empty() {
        note = "single sample: no noise estimate".to_string();
    }
    if let Some((shift, place)) = scale {
        let beyond = format!(
            "judged beyond the run-wide shift on {place} (×{:.2}): {} expected",
            shift.factor,
            value_text(ch.baseline, unit)
        );
        note = if note.is_empty() {
            beyond
        } else {
            format!("{beyond}; {note}")
        };
    }
    RuleResult {
        rule: rule.to_string(),
        subject: subject.to_string(),
        unit,
        baseline: if scale.is_some() { raw_baseline } else { ch.baseline },
        candidate: ch.candidate,
        expected: scale.map(|_| ch.baseline),
        relative_change: ch.relative.is_finite().then_some(ch.relative),
        threshold,
        threshold_on: "relative_change",
        threshold_text: format!("> {}", pct(threshold)),
        noise: ch.noise,
        verdict,
        note,
    }
}

/// A timing value as notes show it: a duration, or a share of the step.
fn value_text(v: f64, unit: &str) -> String {
    if unit == "share" {
        pct(v)
    } else {
        crate::text::fmt_duration(v.round() as i64, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_a_shift_the_step_takes_the_larger_factor_and_ops_their_places() {
        let shift = |factor| Shift {
            factor,
            agreeing: 1.0,
            rows: 5,
            error: 0.0,
            spread: 0.0,
        };
        let both = Beyond {
            host: Some(shift(1.4)),
            device: Some(shift(1.1)),
            on_device: BTreeSet::from(["gemm".to_string()]),
        };
        assert_eq!(both.step().map(|(s, p)| (s.factor, p)), Some((1.4, "host")));
        assert_eq!(both.op("gemm").map(|(s, p)| (s.factor, p)), Some((1.1, "device")));
        assert_eq!(both.op("aten::mm").map(|(s, p)| (s.factor, p)), Some((1.4, "host")));
        let device_only = Beyond {
            device: Some(shift(0.8)),
            ..Default::default()
        };
        assert_eq!(device_only.step().map(|(s, p)| (s.factor, p)), Some((0.8, "device")));
        assert_eq!(device_only.op("aten::mm"), None);
        // Scaled by the factor: 10% beyond ×1.4 is a change of +10%, and no shift leaves the
        // change as measured.
        let (ch, raw) = change_beyond(&[100.0, 100.0], &[154.0, 154.0], 3.0, both.step(), false);
        assert!(
            (ch.relative - 0.1).abs() < 1e-9 && ch.baseline == 140.0 && raw == 100.0,
            "{ch:?}"
        );
        let (plain, _) = change_beyond(&[100.0, 100.0], &[154.0, 154.0], 3.0, None, false);
        assert!((plain.relative - 0.54).abs() < 1e-9);
    }

    #[test]
    fn thresholds_parse() {
        assert_eq!(parse_percent("5%").unwrap(), 0.05);
        assert_eq!(parse_percent(" 12.5 % ").unwrap(), 0.125);
        assert!(parse_percent("0.1").unwrap_err().contains("needs its % sign"));
        assert!(parse_percent("5").unwrap_err().contains("write 5% for 5 percent"));
        assert!(parse_percent("-1%").is_err());
        assert!(parse_percent("inf%").is_err());
        assert_eq!(parse_duration("200us").unwrap(), 200_000);
        assert_eq!(parse_duration("200µs").unwrap(), 200_000);
        assert_eq!(parse_duration("1.5ms").unwrap(), 1_500_000);
        assert_eq!(parse_duration("2s").unwrap(), 2_000_000_000);
        assert_eq!(parse_duration("500ns").unwrap(), 500);
        assert!(parse_duration("7").unwrap_err().contains("needs its unit"));
        assert!(parse_duration("3 parsecs").is_err());
        assert!(parse_duration("1e300s").is_err());
        assert_eq!(parse_count_limit("4").unwrap(), CountLimit::Absolute(4.0));
        assert_eq!(parse_count_limit("10%").unwrap(), CountLimit::Ratio(0.1));
    }

    #[test]
    fn medians_mad_and_noise() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!((scaled_mad(&[1.0, 2.0, 3.0, 4.0, 100.0]) - 1.4826).abs() < 1e-9);
        // 30% slower but the samples spread as much: within noise.
        let noisy = Change::of(&[100.0, 60.0, 140.0], &[130.0, 80.0, 180.0], 3.0);
        assert!(!noisy.regressed(0.05));
        // 30% slower with tight samples: a regression.
        let tight = Change::of(&[100.0, 101.0, 99.0], &[130.0, 131.0, 129.0], 3.0);
        assert!(tight.regressed(0.05));
        // One sample: no noise estimate, the threshold decides.
        let single = Change::of(&[100.0], &[106.0], 3.0);
        assert_eq!(single.noise, None);
        assert!(single.regressed(0.05));
    }

    #[test]
    fn step_values_are_sparse_and_merge_out_of_order_slots() {
        let mut v = StepValues::default();
        v.add(5, 1, 10);
        v.add(5, 2, 20);
        v.add(1, 1, 7);
        v.add(5, 1, 1);
        v.finish();
        assert_eq!(v.entries, vec![(1, 1, 7), (5, 4, 31)]);
        assert_eq!(v.dense(6), vec![(0, 0), (1, 7), (0, 0), (0, 0), (0, 0), (4, 31)]);
        assert!(v.present());
        assert!(!StepValues::default().present());
        let s = Samples {
            keys: vec![(0, 1), (0, 2)],
            ..Samples::default()
        };
        assert_eq!(s.durations("absent"), vec![0.0, 0.0]);
    }

    #[test]
    fn config_file_and_overrides() {
        let c = GateConfig::from_toml(
            "[gate]\nmax_step_time_regression = \"5%\"\nnoise_k = 2.5\nfail_on_added = \"copy\"\n",
            std::path::Path::new("g.toml"),
        )
        .unwrap();
        assert_eq!(c.noise_k, Some(2.5));
        let cli = GateConfig {
            max_step_time_regression: Some("10%".into()),
            ..GateConfig::default()
        };
        let merged = c.overridden_by(cli);
        assert_eq!(merged.max_step_time_regression.as_deref(), Some("10%"));
        assert_eq!(merged.fail_on_added.as_deref(), Some("copy"));
        let e = GateConfig::from_toml("[gate]\nbogus = 1\n", std::path::Path::new("g.toml")).unwrap_err();
        assert!(e.to_string().contains("unknown field"), "{e}");
        assert!(Rules::from_config(&GateConfig::default()).is_err());
    }
}
