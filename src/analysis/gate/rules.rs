//! The gate's rules: the thresholds as written (`5%`, `200us`, `4`), the `[gate]` table of a
//! TOML file, and their checked form, [`Rules`].

use crate::analysis::select::Device;
use crate::error::{Error, Result};
use regex::Regex;
use serde::{Deserialize, Serialize};

/// A relative threshold, always written with its percent sign: `5%` is five percent. A bare
/// number is refused: `5` could mean 5% or 500%, and a gate must not guess. Returns the ratio
/// (`0.05`), or why the text is not one.
pub(super) fn parse_percent(text: &str) -> std::result::Result<f64, String> {
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
pub(super) fn parse_duration(text: &str) -> std::result::Result<i64, String> {
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
pub(crate) enum CountLimit {
    /// At most this many extra events per step.
    Absolute(f64),
    /// At most this share of the baseline's count more (`0.1` for `10%`).
    Ratio(f64),
}

/// `4` (extra events per step) or `10%` (a share of the baseline's count).
pub(super) fn parse_count_limit(text: &str) -> std::result::Result<CountLimit, String> {
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
    super::config_words::text_or_number(d)
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
    /// The events the op and count rules judge; by default the device's where both sides have
    /// device events (the host time of ops scatters between processes), else every event.
    pub device: Option<Device>,
    /// Normalise names before keying rows (the default).
    pub normalize_names: Option<bool>,
    /// Key rows by HTA's short names.
    pub short_names: Option<bool>,
    /// Judge the timing rules beyond a run-wide shift of the host where one is found (the whole
    /// run slower or faster by one factor, the mark of the machine rather than the program):
    /// the baseline's host times are scaled by the shift before the thresholds apply. With one
    /// run per side and no such shift, the step time and each host op are judged beyond the
    /// common move of the pair's rows (held within ×2) and their scatter
    /// (docs/significance.md#the-gate-with-one-run-per-side). On unless `false`.
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
        let invalid = |e: String| Error::input(path, format!("invalid gate config: {e}"));
        Thresholds::of(&config, |key| super::config_words::key_at(text, key)).map_err(invalid)?;
        if let Some(k) = config.noise_k.filter(|k| !(k.is_finite() && *k >= 0.0)) {
            let key = super::config_words::key_at(text, "noise_k");
            let v = if k.is_nan() { "nan".to_string() } else { k.to_string() };
            return Err(invalid(format!("{key} {v}: expected a finite number ≥ 0 such as 3")));
        }
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
    let message = crate::text::elide(&super::config_words::user_words(message), 4 * crate::text::QUOTED_MAX);
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
pub(super) const DEFAULT_NOISE_K: f64 = crate::analysis::measure::noise::DEFAULT_K;

/// Rows whose time per step stays under this share of the baseline's mean step time are too
/// small to judge by time or count (their run-to-run jitter is large next to their size).
pub(super) const DEFAULT_MIN_OP_SHARE: f64 = crate::analysis::measure::noise::MIN_STEP_SHARE;

/// The checked form of [`GateConfig`].
#[derive(Debug, Clone)]
pub(crate) struct Rules {
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
    /// Whether the timing rules judge beyond a run-wide shift where one is found (the default).
    pub beyond_run_shift: bool,
    /// Whether each sample is a run (its mean per step) and the timing rules judge the band
    /// between runs (docs/significance.md#the-gate-with-runs) instead of `noise_k` × the steps' MAD.
    pub between_runs: bool,
    /// Whether the baseline is a history's runs (one sample each) and the candidate one run,
    /// each timing judged against the history's prediction band ([`super::predict`]).
    pub history: bool,
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
    pub(crate) fn from_config(c: &GateConfig) -> Result<Rules> {
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
            beyond_run_shift: c.beyond_run_shift.unwrap_or(true),
            between_runs: false,
            history: false,
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

#[cfg(test)]
mod tests {
    use super::*;

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
