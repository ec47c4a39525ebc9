//! Steps of a trace without ProfilerStep, from a serving loop's own annotations
//! (docs/graphs.md#steps-without-profilerstep).
//!
//! Serving loops mark each iteration with a `record_function` annotation: vLLM
//! `execute_N_context_N(…)_generation_N(…)`, SGLang `step[DECODE bs=16]` (also `EXTEND`,
//! `MIXED`, `PREFILL`, `IDLE`), diffusion `execute_diffusion_…`, ATOM `prefill[…]` and
//! `decode[…]`. When a trace has no ProfilerStep, the outermost of these host annotations are
//! its steps, numbered 0, 1, … in time order: an annotation inside another one (SGLang's
//! `step[…]` inside vLLM-style `execute_…`) is not a step of its own.
//!
//! `--step-marker REGEX` names the steps explicitly: the outermost host user annotations whose
//! names the expression matches (it replaces ProfilerStep too).
//!
//! Their names carry batch sizes and lengths; [`serving_step_key`] drops the numbers so that
//! runs at other loads align (`step[DECODE bs=16]` → `step[DECODE bs=*]`).

use crate::model::table::{EventTable, Step, StringTable};

/// Whether `name` is a serving loop's step annotation.
pub fn is_serving_step(name: &str) -> bool {
    if let Some(rest) = name.strip_prefix("execute_") {
        // vLLM: execute_<tokens>_context_<n>(…)_generation_<n>(…); diffusion: execute_diffusion_…
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        return rest.starts_with("diffusion_") || (digits > 0 && rest[digits..].starts_with("_context_"));
    }
    if let Some(rest) = name.strip_prefix("step[") {
        // SGLang: step[DECODE bs=16], step[EXTEND …], step[MIXED …]
        let word = rest.bytes().take_while(u8::is_ascii_uppercase).count();
        return word > 0 && matches!(rest.as_bytes().get(word), Some(b' ' | b']'));
    }
    // ATOM: prefill[…], decode[…]
    name.starts_with("prefill[") || name.starts_with("decode[")
}

/// The key of a serving step annotation, its numbers (batch sizes, lengths) replaced by `*`;
/// `None` for any other name.
pub fn serving_step_key(name: &str) -> Option<String> {
    if !is_serving_step(name) {
        return None;
    }
    let mut out = String::with_capacity(name.len());
    let mut in_number = false;
    for c in name.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push('*');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    Some(out)
}

/// The steps a serving loop's annotations define in a trace without ProfilerStep: the
/// outermost host `user_annotation` events whose names are serving steps, in time order,
/// numbered from 0. Empty where there are none.
pub fn serving_steps(strings: &StringTable, events: &EventTable) -> Vec<Step> {
    marked_steps(strings, events, &is_serving_step)
}

/// The regular expression of `--step-marker`, checked; `None` without one.
pub fn step_marker(pattern: Option<&str>) -> Result<Option<regex::Regex>, String> {
    pattern
        .map(|p| {
            regex::Regex::new(p).map_err(|e| {
                // The parser's message spans lines (the pattern, a caret, the reason): its last.
                let text = e.to_string();
                let reason = text
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .trim_start_matches("error: ")
                    .to_string();
                format!("--step-marker {p:?}: not a regular expression ({reason})")
            })
        })
        .transpose()
}

/// The steps that host user annotations whose names `is_marker` accepts define: the outermost
/// of them, in time order, numbered from 0 (`--step-marker`, or [`serving_steps`]).
pub fn marked_steps(strings: &StringTable, events: &EventTable, is_marker: &dyn Fn(&str) -> bool) -> Vec<Step> {
    let marker: Vec<bool> = strings.iter().map(|(_, s)| is_marker(s)).collect();
    if !marker.contains(&true) {
        return Vec::new();
    }
    let Some(annotation) = strings.get("user_annotation") else {
        return Vec::new();
    };
    let found: Vec<(i64, i64)> = (0..events.len())
        .filter(|&i| events.cat[i] == annotation && marker[events.name[i].index()])
        .map(|i| (events.ts_ns[i], events.dur_ns[i]))
        .collect();
    outermost_steps(found)
}

/// The steps that marker annotations at `found` (start, duration) define: the outermost of
/// them, in time order, numbered from 0 (an annotation inside or across the one before is not a
/// step of its own).
pub fn outermost_steps(mut found: Vec<(i64, i64)>) -> Vec<Step> {
    found.sort_by_key(|&(ts, dur)| (ts, std::cmp::Reverse(dur)));
    let mut steps: Vec<Step> = Vec::new();
    let mut end = i64::MIN;
    for (ts, dur) in found {
        if ts < end {
            // Inside (or across) the step before: not a step of its own.
            continue;
        }
        end = ts.saturating_add(dur);
        steps.push(Step {
            number: steps.len() as i64,
            ts_ns: ts,
            dur_ns: dur,
            on_device: false,
        });
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serving_annotations_are_steps_and_their_keys_drop_numbers() {
        let vllm = "execute_16_context_0(sq0sk0sqsq0sqsk0)_generation_16(sq16sk8193sqsq16sqsk8193)";
        assert!(is_serving_step(vllm));
        assert_eq!(
            serving_step_key(vllm).as_deref(),
            Some("execute_*_context_*(sq*sk*sqsq*sqsk*)_generation_*(sq*sk*sqsq*sqsk*)")
        );
        assert_eq!(
            serving_step_key("step[DECODE bs=16]").as_deref(),
            Some("step[DECODE bs=*]")
        );
        assert!(is_serving_step("step[EXTEND bs=2 tokens=8192]"));
        assert!(is_serving_step("step[IDLE]"));
        assert!(is_serving_step("execute_diffusion_step_3"));
        assert!(is_serving_step("prefill[bs=4]") && is_serving_step("decode[bs=64]"));
        assert!(!is_serving_step("execute_model"));
        assert!(!is_serving_step("step[decode]"));
        assert!(!is_serving_step("ProfilerStep#3"));
        assert_eq!(serving_step_key("aten::mm"), None);
    }
}
