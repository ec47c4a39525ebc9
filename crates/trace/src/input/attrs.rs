//! Event attributes from `args` that the user chooses (HTA's `AttributeSpec` / `ParserConfig`).
//!
//! Only the chosen attributes are stored, one column each, so memory grows with what is asked
//! for. `stream` and `correlation` are always read: they are core columns of the store.

use crate::error::{Error, Result};
use crate::input::json::number::Number;
pub use crate::model::attrs::{AttrColumn, AttrSpec, AttrTable, AttrType, AttrValue, format_float, value_text};
use crate::model::store::StringTable;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

const fn spec(column: &'static str, raw_key: &'static str, ty: AttrType, default: &'static str) -> BuiltinSpec {
    BuiltinSpec {
        column,
        raw_key,
        ty,
        default,
    }
}

struct BuiltinSpec {
    column: &'static str,
    raw_key: &'static str,
    ty: AttrType,
    default: &'static str,
}

use AttrType::{Float, Int, Object, String as Str};

/// HTA 0.5.0's available attributes (`AVAILABLE_ARGS`), same columns, keys, types and defaults.
const BUILTIN: &[BuiltinSpec] = &[
    spec("ev_idx", "Ev Idx", Int, "-1"),
    spec("external_id", "External id", Int, "-1"),
    spec("concrete_inputs", "Concrete Inputs", Object, "[]"),
    spec("fwd_thread_id", "Fwd thread id", Int, "-1"),
    spec("input_dims", "Input Dims", Object, "-1"),
    spec("input_type", "Input type", Object, "-1"),
    spec("input_strides", "Input Strides", Object, "-1"),
    spec("sequence", "Sequence number", Int, "-1"),
    spec("kernel_backend", "kernel_backend", Str, ""),
    spec("kernel_hash", "kernel_hash", Str, ""),
    spec("cbid", "cbid", Int, "-1"),
    spec("correlation", "correlation", Int, "-1"),
    spec("blocks_per_sm", "blocks per SM", Object, "[]"),
    spec("est_occupancy", "est. achieved occupancy %", Int, "-1"),
    spec("warps_per_sm", "warps per SM", Float, "0.0"),
    spec("bytes", "bytes", Int, "-1"),
    spec("memory_bw_gbps", "memory bandwidth (GB/s)", Float, "0.0"),
    spec("context", "context", Int, "-1"),
    spec("device", "device", Int, "-1"),
    spec("stream", "stream", Int, "-1"),
    spec("queued", "queued", Int, "-1"),
    spec("shared_memory", "shared memory", Int, "-1"),
    spec("block", "block", Object, "[]"),
    spec("grid", "grid", Object, "[]"),
    spec("registers_per_thread", "registers per thread", Int, "-1"),
    spec("wait_on_stream", "wait_on_stream", Int, "-1"),
    spec(
        "wait_on_cuda_event_record_corr_id",
        "wait_on_cuda_event_record_corr_id",
        Int,
        "-1",
    ),
    spec("finished", "finished", Str, ""),
    spec("labels", "labels", Str, ""),
    spec("arg_name", "name", Int, "-1"),
    spec("op_count", "Op count", Int, "-1"),
    spec("sort_index", "sort_index", Int, "-1"),
    spec("collective_name", "Collective name", Str, ""),
    spec("in_msg_nelems", "In msg nelems", Int, "0"),
    spec("out_msg_nelems", "Out msg nelems", Int, "0"),
    spec("in_msg_size", "In msg size", Int, "0"),
    spec("out_msg_size", "Out msg size", Int, "0"),
    spec("group_size", "Group size", Int, "0"),
    spec("msg_dtype", "dtype", Str, ""),
    spec("in_split_size", "In split size", Object, "[]"),
    spec("out_split_size", "Out split size", Object, "[]"),
    spec("input_tensors_start", "Input Tensors start", Object, "[]"),
    spec("output_tensors_start", "Output Tensors start", Object, "[]"),
    spec("process_group_name", "Process Group Name", Str, ""),
    spec("process_group_desc", "Process Group Description", Str, ""),
    spec("process_group_ranks", "Process Group Ranks", Object, "[]"),
    spec("process_rank", "Rank", Int, "-1"),
    spec("batch_size", "batchSize", Int, "-1"),
    spec("batch_id", "batchId", Str, ""),
];

/// HTA's `ARGS_DEFAULT`, less `stream` and `correlation`, which are always columns.
const DEFAULT_SET: &[&str] = &[
    "bytes",
    "memory_bw_gbps",
    "wait_on_stream",
    "wait_on_cuda_event_record_corr_id",
    "input_dims",
    "input_type",
    "input_strides",
    "external_id",
];

/// Columns that every event row has; attributes may not take these names.
pub const CORE_COLUMNS: &[&str] = &[
    "index",
    "rank",
    "name",
    "cat",
    "pid",
    "tid",
    "ts",
    "dur",
    "stream",
    "correlation",
    "index_correlation",
    "iteration",
];

fn to_spec(b: &BuiltinSpec) -> AttrSpec {
    AttrSpec {
        column: b.column.to_string(),
        raw_key: b.raw_key.to_string(),
        ty: b.ty,
        default: b.default.to_string(),
    }
}

/// Every built-in attribute.
pub fn builtin_specs() -> Vec<AttrSpec> {
    BUILTIN.iter().map(to_spec).collect()
}

/// The built-in spec with this column name or raw key.
pub fn builtin(name: &str) -> Option<AttrSpec> {
    BUILTIN
        .iter()
        .find(|b| b.column == name || b.raw_key == name)
        .map(to_spec)
}

/// Named sets of attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// No attribute columns beyond the core ones.
    #[default]
    None,
    /// HTA's default set: bytes, bandwidth, sync waits, input dims/types/strides, external id.
    Default,
    /// Every built-in attribute but the `info` ones (HTA's `ARGS_COMPLETE`).
    Complete,
    /// A column for every key found in any event's `args`, typed by its first value.
    All,
}

/// What to read from `args`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttrRequest {
    /// Fixed columns, in output order.
    pub specs: Vec<AttrSpec>,
    /// Also infer a column for every other key seen (`--args all`).
    pub infer_all: bool,
    /// `--step-marker`: a regular expression naming the user annotations that are the steps
    /// (instead of ProfilerStep, [`crate::model::serving`]).
    #[serde(default)]
    pub step_marker: Option<String>,
}

impl AttrRequest {
    /// Whether nothing is read from `args` (no column, nothing inferred).
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty() && !self.infer_all
    }

    /// Builds the request from a preset, attribute names (`--arg`) and user specs (`--arg-spec`).
    pub fn build(preset: Preset, names: &[String], user_specs: &[String]) -> Result<AttrRequest> {
        let mut specs: Vec<AttrSpec> = match preset {
            Preset::None | Preset::All => Vec::new(),
            Preset::Default => DEFAULT_SET.iter().filter_map(|n| builtin(n)).collect(),
            Preset::Complete => BUILTIN
                .iter()
                .filter(|b| !["labels", "arg_name", "sort_index", "stream", "correlation"].contains(&b.column))
                .map(to_spec)
                .collect(),
        };
        for n in names {
            for n in n.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let Some(s) = builtin(n) else {
                    return Err(Error::usage(format!(
                        "unknown attribute '{n}' (known: {}; or define it with --arg-spec 'column=raw key:type:default')",
                        BUILTIN.iter().map(|b| b.column).collect::<Vec<_>>().join(", ")
                    )));
                };
                push_unique(&mut specs, s);
            }
        }
        for text in user_specs {
            push_unique(&mut specs, parse_spec(text)?);
        }
        specs.retain(|s| s.column != "stream" && s.column != "correlation");
        for s in &specs {
            if CORE_COLUMNS.contains(&s.column.as_str()) {
                return Err(Error::usage(format!(
                    "attribute column '{}' clashes with a core column",
                    s.column
                )));
            }
            check_default(s)?;
        }
        Ok(AttrRequest {
            specs,
            infer_all: preset == Preset::All,
            step_marker: None,
        })
    }

    /// The fixed columns' names, in output order.
    pub fn column_names(&self) -> Vec<&str> {
        self.specs.iter().map(|s| s.column.as_str()).collect()
    }
}

fn push_unique(specs: &mut Vec<AttrSpec>, s: AttrSpec) {
    if let Some(existing) = specs.iter_mut().find(|e| e.column == s.column) {
        *existing = s;
    } else {
        specs.push(s);
    }
}

fn check_default(s: &AttrSpec) -> Result<()> {
    let ok = match s.ty {
        AttrType::Int => s.default.trim().parse::<i64>().is_ok(),
        AttrType::Float => s.default.trim().parse::<f64>().is_ok(),
        AttrType::String | AttrType::Object => true,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "default '{}' of attribute '{}' is not a valid {}",
            s.default, s.column, s.ty
        )))
    }
}

/// Parses `column=raw key:type:default` (type and default optional: `string`, and the type's
/// zero: `-1` for int, `0.0` for float, empty text).
pub fn parse_spec(text: &str) -> Result<AttrSpec> {
    let bad = |why: &str| {
        Error::usage(format!(
            "invalid --arg-spec '{text}': {why} (expected 'column=raw key:type:default')"
        ))
    };
    let (column, rest) = text.split_once('=').ok_or_else(|| bad("no '='"))?;
    let column = column.trim();
    if column.is_empty() || !column.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad("the column must be letters, digits and '_'"));
    }
    let mut parts = rest.splitn(3, ':');
    let raw_key = parts.next().unwrap_or("").to_string();
    if raw_key.is_empty() {
        return Err(bad("empty raw key"));
    }
    let ty = match parts.next() {
        None => AttrType::String,
        Some(t) => AttrType::parse(t).ok_or_else(|| bad("type must be int, float, string or object"))?,
    };
    let default = match parts.next() {
        Some(d) => d.to_string(),
        None => match ty {
            AttrType::Int => "-1".to_string(),
            AttrType::Float => "0.0".to_string(),
            AttrType::String => String::new(),
            AttrType::Object => "null".to_string(),
        },
    };
    let s = AttrSpec {
        column: column.to_string(),
        raw_key,
        ty,
        default,
    };
    check_default(&s)?;
    Ok(s)
}

/// HTA's `transform_arg_name`: a column name for a raw key seen with `--args all`.
pub fn column_for_key(raw: &str) -> String {
    let mut no_parens = String::with_capacity(raw.len());
    let mut depth = 0usize;
    for c in raw.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => no_parens.push(c),
            _ => {}
        }
    }
    let mut out = String::new();
    for c in no_parens.to_lowercase().chars() {
        if matches!(c, ' ' | '-' | '/' | '.' | '%' | '_') {
            if !out.ends_with('_') {
                out.push('_');
            }
        } else {
            out.push(c);
        }
    }
    let out = out.trim_matches('_').to_string();
    if out == "name" { "arg_name".to_string() } else { out }
}

/// Removes the white space outside strings from a JSON text.
pub fn compact_json(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut in_string = false;
    let mut escaped = false;
    for &b in raw {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
            if b == b'"' {
                in_string = true;
            }
            out.push(b);
        }
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The value of a number as an `int` attribute: exact for a whole number, truncated toward zero
/// for a fraction; `None` for either outside the 64-bit integers.
fn exact_i64(n: &Number<'_>) -> Option<i64> {
    if n.is_integer {
        return n.text.parse().ok();
    }
    let f = n.to_f64();
    (-9.223_372_036_854_775e18..9.223_372_036_854_775e18)
        .contains(&f)
        .then_some(f as i64)
}

/// An attribute value as found in `args`, borrowed from the text.
#[derive(Debug, Clone)]
pub(crate) enum RawValue<'a> {
    Number(Number<'a>),
    Text(Cow<'a, str>),
    /// Objects, arrays, booleans and null: their JSON text.
    Json(&'a str),
}

/// Which `args` keys the parser collects, and into which column.
#[derive(Debug, Default)]
pub(crate) struct AttrKeys {
    map: FxHashMap<Box<str>, usize>,
    infer_all: bool,
}

impl AttrKeys {
    /// The keys `request` asks for, each with its column (as [`AttrBuilder::new`] numbers them).
    pub(crate) fn from_request(request: &AttrRequest) -> Self {
        let mut map = FxHashMap::default();
        for (col, spec) in request.specs.iter().enumerate() {
            map.insert(spec.raw_key.clone().into_boxed_str(), col);
        }
        AttrKeys {
            map,
            infer_all: request.infer_all,
        }
    }

    /// Whether any key is collected at all.
    #[inline]
    pub(crate) fn is_active(&self) -> bool {
        !self.map.is_empty() || self.infer_all
    }

    /// `Some(Some(column))` for a known key, `Some(None)` for a key to infer, `None` to skip.
    #[inline]
    pub(crate) fn column_of(&self, key: &str) -> Option<Option<usize>> {
        if self.map.is_empty() && !self.infer_all {
            return None;
        }
        match self.map.get(key) {
            Some(&c) => Some(Some(c)),
            None if self.infer_all && key != "stream" && key != "correlation" => Some(None),
            None => None,
        }
    }
}

/// Builds the attribute columns while the parser stores events.
#[derive(Debug, Default)]
pub(crate) struct AttrBuilder {
    keys: AttrKeys,
    specs: Vec<AttrSpec>,
    columns: Vec<AttrColumn>,
    defaults: Vec<AttrValue>,
    /// Columns made up from the data (`--args all`) may change type as values come in.
    inferred: Vec<bool>,
    rows: usize,
}

fn default_value(spec: &AttrSpec, strings: &mut StringTable) -> AttrValue {
    match spec.ty {
        AttrType::Int => AttrValue::Int(spec.default.trim().parse().unwrap_or(-1)),
        AttrType::Float => AttrValue::Float(spec.default.trim().parse().unwrap_or(0.0)),
        AttrType::String | AttrType::Object => AttrValue::Text(strings.intern(&spec.default)),
    }
}

impl AttrBuilder {
    pub(crate) fn new(request: &AttrRequest, strings: &mut StringTable) -> Self {
        let mut b = AttrBuilder {
            keys: AttrKeys {
                map: FxHashMap::default(),
                infer_all: request.infer_all,
            },
            ..AttrBuilder::default()
        };
        for spec in &request.specs {
            b.add_column(spec.clone(), false, strings);
        }
        b
    }

    fn add_column(&mut self, spec: AttrSpec, inferred: bool, strings: &mut StringTable) -> usize {
        let col = self.specs.len();
        let default = default_value(&spec, strings);
        // Sparse: the rows before it read the default without storing anything.
        let column = AttrColumn::new(default);
        self.keys.map.insert(spec.raw_key.clone().into_boxed_str(), col);
        self.specs.push(spec);
        self.columns.push(column);
        self.defaults.push(default);
        self.inferred.push(inferred);
        col
    }

    /// Adds a row: defaults everywhere, then the values the event has.
    /// Every event gets a row, with or without attributes, so that a column that first appears
    /// late is backfilled to the right length.
    /// A whole number outside the 64-bit integers is kept exactly (an inferred column becomes
    /// JSON text) or, in a column declared `int`, refused naming its key.
    pub(crate) fn push_row<'v>(
        &mut self,
        values: impl IntoIterator<Item = (Option<usize>, Cow<'v, str>, RawValue<'v>)>,
        strings: &mut StringTable,
    ) -> Result<(), String> {
        self.rows += 1;
        for (col, key, value) in values {
            let col = match col.or_else(|| self.keys.map.get(key.as_ref()).copied()) {
                Some(c) => c,
                None => {
                    let spec = self.infer_spec(&key, &value);
                    self.add_column(spec, true, strings)
                }
            };
            self.set(col, &key, value, strings)?;
        }
        Ok(())
    }

    fn infer_spec(&self, key: &str, value: &RawValue<'_>) -> AttrSpec {
        if let Some(spec) = BUILTIN.iter().find(|b| b.raw_key == key).map(to_spec) {
            return spec;
        }
        let (ty, default) = match value {
            RawValue::Number(n) if n.is_integer => (AttrType::Int, "0"),
            RawValue::Number(_) => (AttrType::Float, "0.0"),
            RawValue::Text(_) => (AttrType::String, ""),
            RawValue::Json(_) => (AttrType::Object, "null"),
        };
        let mut column = column_for_key(key);
        if column.is_empty() {
            column = "arg".to_string();
        }
        while CORE_COLUMNS.contains(&column.as_str()) || self.specs.iter().any(|s| s.column == column) {
            column.push_str("_arg");
        }
        AttrSpec {
            column,
            raw_key: key.to_string(),
            ty,
            default: default.to_string(),
        }
    }

    fn set(&mut self, col: usize, key: &str, value: RawValue<'_>, strings: &mut StringTable) -> Result<(), String> {
        let row = self.rows - 1;
        let ty = self.specs[col].ty;
        if self.inferred[col] {
            let fits = match (&value, ty) {
                (RawValue::Number(n), AttrType::Int) => n.is_integer && exact_i64(n).is_some(),
                (RawValue::Number(n), AttrType::Float) => !n.is_integer || exact_i64(n).is_some(),
                (RawValue::Text(_), AttrType::String) => true,
                (_, AttrType::Object) => true,
                _ => false,
            };
            if !fits {
                self.widen(col, &value, strings);
            }
        }
        let ty = self.specs[col].ty;
        let converted = match (ty, &value) {
            (AttrType::Int, RawValue::Number(n)) => match exact_i64(n) {
                Some(v) => Some(AttrValue::Int(v)),
                None => {
                    return Err(format!(
                        "attribute '{key}' {} is outside the 64-bit integers tracediff keeps exactly",
                        n.text
                    ));
                }
            },
            (AttrType::Int, RawValue::Text(t)) => t.trim().parse().ok().map(AttrValue::Int),
            (AttrType::Int, RawValue::Json(j)) => match *j {
                "true" => Some(AttrValue::Int(1)),
                "false" => Some(AttrValue::Int(0)),
                _ => None,
            },
            (AttrType::Float, RawValue::Number(n)) => Some(AttrValue::Float(n.to_f64())),
            (AttrType::Float, RawValue::Text(t)) => t.trim().parse().ok().map(AttrValue::Float),
            (AttrType::Float, RawValue::Json(_)) => None,
            (AttrType::String, RawValue::Text(t)) => Some(AttrValue::Text(strings.intern(t))),
            (AttrType::String | AttrType::Object, RawValue::Number(n)) => Some(AttrValue::Text(strings.intern(n.text))),
            (AttrType::String | AttrType::Object, RawValue::Json(j)) => {
                Some(AttrValue::Text(strings.intern(&compact_json(j.as_bytes()))))
            }
            (AttrType::Object, RawValue::Text(t)) => Some(AttrValue::Text(
                strings.intern(&serde_json::to_string(t.as_ref()).unwrap_or_default()),
            )),
        };
        if let Some(v) = converted {
            self.columns[col].set(row as u32, v);
        }
        Ok(())
    }

    /// An inferred column meets a value of another type: int becomes float for a decimal,
    /// anything else becomes JSON text (existing values keep their text).
    fn widen(&mut self, col: usize, value: &RawValue<'_>, strings: &mut StringTable) {
        let to_float = matches!(
            (self.columns[col].default, value),
            (AttrValue::Int(_), RawValue::Number(n)) if exact_i64(n).is_some()
        );
        let ty = if to_float { AttrType::Float } else { AttrType::Object };
        let spec = &mut self.specs[col];
        spec.ty = ty;
        spec.default = match ty {
            AttrType::Float => "0.0".to_string(),
            _ => "null".to_string(),
        };
        let new_default = default_value(spec, strings);
        self.defaults[col] = new_default;
        let row = (self.rows - 1) as u32;
        self.columns[col].convert(row, new_default, |v| match (v, to_float) {
            (AttrValue::Int(x), true) => AttrValue::Float(x as f64),
            (AttrValue::Int(x), false) => AttrValue::Text(strings.intern(&x.to_string())),
            (AttrValue::Float(x), _) => AttrValue::Text(strings.intern(&format_float(x))),
            // Strings become JSON strings so that the column holds JSON text throughout.
            (AttrValue::Text(id), _) => {
                let quoted = serde_json::to_string(strings.resolve(id)).unwrap_or_default();
                AttrValue::Text(strings.intern(&quoted))
            }
        });
    }

    pub(crate) fn finish(mut self) -> AttrTable {
        for c in &mut self.columns {
            c.finish(self.rows);
        }
        AttrTable {
            specs: self.specs,
            columns: self.columns,
            inferred: self.inferred,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_specs_parse_with_defaults() {
        let s = parse_spec("occ=est. achieved occupancy %:int:-1").unwrap();
        assert_eq!(
            (s.column.as_str(), s.raw_key.as_str(), s.ty, s.default.as_str()),
            ("occ", "est. achieved occupancy %", AttrType::Int, "-1")
        );
        let s = parse_spec("mod=Module Hierarchy").unwrap();
        assert_eq!((s.ty, s.default.as_str()), (AttrType::String, ""));
        assert!(parse_spec("x").is_err());
        assert!(parse_spec("x=k:bogus").is_err());
        assert!(
            parse_spec("x=k:int:abc")
                .unwrap_err()
                .to_string()
                .contains("not a valid int")
        );
        assert!(parse_spec("bad name=k").is_err());
    }

    #[test]
    fn presets_and_names() {
        let r = AttrRequest::build(Preset::Default, &[], &[]).unwrap();
        assert_eq!(
            r.column_names(),
            [
                "bytes",
                "memory_bw_gbps",
                "wait_on_stream",
                "wait_on_cuda_event_record_corr_id",
                "input_dims",
                "input_type",
                "input_strides",
                "external_id"
            ]
        );
        let r = AttrRequest::build(Preset::None, &["input_dims,grid".into(), "Input type".into()], &[]).unwrap();
        assert_eq!(r.column_names(), ["input_dims", "grid", "input_type"]);
        let e = AttrRequest::build(Preset::None, &["nope".into()], &[])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("unknown attribute 'nope'"), "{e}");
        assert!(AttrRequest::build(Preset::None, &[], &["ts=x".into()]).is_err());
        assert!(AttrRequest::build(Preset::All, &[], &[]).unwrap().infer_all);
        let complete = AttrRequest::build(Preset::Complete, &[], &[]).unwrap();
        assert!(complete.column_names().contains(&"registers_per_thread"));
        assert!(!complete.column_names().contains(&"stream"));
    }

    #[test]
    fn inferred_column_names_follow_hta() {
        assert_eq!(column_for_key("memory bandwidth (GB/s)"), "memory_bandwidth");
        assert_eq!(column_for_key("est. achieved occupancy %"), "est_achieved_occupancy");
        assert_eq!(column_for_key("Input Dims"), "input_dims");
        assert_eq!(column_for_key("name"), "arg_name");
    }

    fn parse_with(request: &AttrRequest, events: &str) -> crate::input::json::parse::ParsedTrace {
        let text = format!(r#"{{"traceEvents": [{events}]}}"#);
        crate::input::json::parse::parse_trace(
            text.as_bytes(),
            std::path::Path::new("t.json"),
            crate::input::read::Compression::None,
            request,
        )
        .unwrap()
    }

    fn texts(t: &crate::input::json::parse::ParsedTrace, column: &str) -> Vec<String> {
        let (k, _) = t.attrs.column(column).unwrap();
        (0..t.events.len())
            .map(|row| t.attrs.text(k, row, &t.strings))
            .collect()
    }

    const EV: &str = r#"{"cat": "c", "name": "a", "ts": 1, "dur": 1, "args": {"n": 7, "f": 2.5, "s": "x y", "o": [[1, 2], [3]]}},
        {"cat": "c", "name": "b", "ts": 2, "dur": 1, "args": {"n": "12", "f": "0.5", "s": 3, "o": "t"}},
        {"cat": "c", "name": "c", "ts": 3, "dur": 1}"#;

    #[test]
    fn each_type_converts_and_defaults() {
        let specs: Vec<String> = ["n=n:int:-9", "f=f:float:1.5", "s=s:string:none", "o=o:object:[]"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let req = AttrRequest::build(Preset::None, &[], &specs).unwrap();
        let t = parse_with(&req, EV);
        assert_eq!(texts(&t, "n"), ["7", "12", "-9"]);
        assert_eq!(texts(&t, "f"), ["2.5", "0.5", "1.5"]);
        assert_eq!(texts(&t, "s"), ["x y", "3", "none"]);
        assert_eq!(texts(&t, "o"), ["[[1,2],[3]]", "\"t\"", "[]"]);
    }

    #[test]
    fn inferred_columns_widen_on_mixed_values() {
        let req = AttrRequest::build(Preset::All, &[], &[]).unwrap();
        let t = parse_with(&req, EV);
        let names: Vec<&str> = t.attrs.specs.iter().map(|s| s.column.as_str()).collect();
        assert_eq!(names, ["n", "f", "s", "o"]);
        // n: int, then the string "12": JSON text throughout.
        assert_eq!(t.attrs.specs[0].ty, AttrType::Object);
        assert_eq!(texts(&t, "n"), ["7", "\"12\"", "null"]);
        assert_eq!(texts(&t, "s"), ["\"x y\"", "3", "null"]);
        let only_ints = parse_with(
            &req,
            r#"{"cat": "c", "name": "a", "ts": 1, "dur": 1, "args": {"k": 1}},
            {"cat": "c", "name": "a", "ts": 1, "dur": 1, "args": {"k": 2.5}}"#,
        );
        assert_eq!(only_ints.attrs.specs[0].ty, AttrType::Float);
        assert_eq!(texts(&only_ints, "k"), ["1.0", "2.5"]);
    }

    #[test]
    fn compact_json_keeps_strings() {
        assert_eq!(compact_json(b"[[64, 128],\n [ 1 ]]"), "[[64,128],[1]]");
        assert_eq!(compact_json(br#"["a b", "c\" d"]"#), r#"["a b","c\" d"]"#);
        assert_eq!(format_float(2.0), "2.0");
        assert_eq!(format_float(0.25), "0.25");
    }
}
