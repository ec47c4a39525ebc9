//! Counting and summing the selected events of a side, per name (docs/semantics.md#the-comparison-table).

use crate::analysis::names::{demangled, normalize_name, shorten_name};
use crate::analysis::select::Selected;
use crate::analysis::select::{Device, Resolved};
use crate::input::attrs::{AttrColumn, AttrValue, value_text};
use crate::input::load::{RankedFile, SideOf};
use crate::model::store::NameId;
use crate::model::store::TraceFile;
use crate::model::summary::{FileSummary, OpRow};
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeMap;

pub use crate::request::selection::{Keying, Naming};

/// Number of events and their summed duration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Number of events.
    pub count: u64,
    /// Their durations summed, in ns.
    pub dur_ns: i64,
}

impl Totals {
    /// Adds `other`'s events and time to these.
    pub fn add(&mut self, other: Totals) {
        self.count += other.count;
        self.dur_ns += other.dur_ns;
    }
}

/// Per-name totals of one side, sorted by name.
pub(crate) type NameTotals = BTreeMap<String, Totals>;

/// The category of the GPU-side spans of user annotations.
pub(crate) const GPU_ANNOTATION_CATEGORY: &str = "gpu_user_annotation";

/// What a GPU annotation's row name ends with when [`Keying::gpu_annotations_apart`] holds.
pub(crate) const GPU_ANNOTATION_SUFFIX: &str = " (GPU)";

/// The category of Python call-stack frames (`with_stack` traces).
pub(crate) const PYTHON_FRAME_CATEGORY: &str = "python_function";

impl Keying {
    /// The row name for an event name of a category: [`Keying::name_key`], and the GPU
    /// annotation suffix where it applies (`gpu_annotation`: the event is one).
    pub fn row_key(&self, name: &str, gpu_annotation: bool) -> String {
        let key = self.name_key(name);
        if gpu_annotation && self.gpu_annotations_apart {
            key + GPU_ANNOTATION_SUFFIX
        } else {
            key
        }
    }

    /// The row name for an event name.
    pub fn name_key(&self, name: &str) -> String {
        let base: Cow<'_, str> = match self.naming {
            Naming::Name => Cow::Borrowed(name),
            // A mangled name has no brackets to shorten: normalised, its demangled form is.
            Naming::ShortName if self.normalize => Cow::Owned(shorten_name(&demangled(name))),
            Naming::ShortName => Cow::Owned(shorten_name(name)),
        };
        if self.normalize {
            normalize_name(&base).into_owned()
        } else {
            base.into_owned()
        }
    }
}

/// A file that can be counted per row key: a parsed trace, or its summary (which knows no
/// attributes: its `group_by` must be empty).
pub(crate) trait Aggregate: RankedFile {
    /// `iterations`: `None` admits every event (a trace without ProfilerStep is taken whole).
    fn totals(&self, iterations: Option<&[i64]>, device: Device, keying: &Keying) -> NameTotals;
}

impl Aggregate for TraceFile {
    fn totals(&self, iterations: Option<&[i64]>, device: Device, keying: &Keying) -> NameTotals {
        aggregate_file(self, iterations, device, keying)
    }
}

impl Aggregate for FileSummary {
    fn totals(&self, iterations: Option<&[i64]>, device: Device, keying: &Keying) -> NameTotals {
        let frames = keying
            .skip_python_frames
            .then(|| self.strings.iter().position(|s| **s == *PYTHON_FRAME_CATEGORY));
        let selected = Selected::new(iterations);
        let admitted = |r: &&OpRow| {
            selected.admits(r.iteration)
                && device.admits(r.place)
                && frames.is_none_or(|f| f != Some(r.category as usize))
        };
        let gpu_annotation = self.strings.iter().position(|s| **s == *GPU_ANNOTATION_CATEGORY);
        // Summed per name id (and GPU annotation or not) first, keyed once per name.
        let mut by_id: Vec<[Totals; 2]> = vec![[Totals::default(); 2]; self.strings.len()];
        for r in self.rows.iter().filter(admitted) {
            let apart = usize::from(gpu_annotation == Some(r.category as usize));
            if let Some(t) = by_id.get_mut(r.name as usize) {
                t[apart].add(Totals {
                    count: r.count,
                    dur_ns: r.total_ns,
                });
            }
        }
        let mut out = NameTotals::new();
        for (name, both) in self.strings.iter().zip(by_id) {
            for (apart, t) in both.into_iter().enumerate() {
                if t.count > 0 {
                    out.entry(keying.row_key(name, apart == 1)).or_default().add(t);
                }
            }
        }
        out
    }
}

/// How many files [`aggregate`] counts side by side before merging their rows.
const AGGREGATE_BATCH: usize = 64;

/// Counts and sums the events of `side` that the selection admits, per row key.
pub(crate) fn aggregate<T: Aggregate>(
    side: &SideOf<T>,
    resolved: &Resolved,
    device: Device,
    keying: &Keying,
) -> NameTotals {
    let files: Vec<&T> = resolved.ranks.iter().filter_map(|&r| side.file_of_rank(r)).collect();
    // Merged in rank order, so the result never depends on scheduling (and sums are integers);
    // a batch of files at a time, so that a thousand ranks never hold a thousand maps at once.
    let mut merged = NameTotals::new();
    for batch in files.chunks(AGGREGATE_BATCH) {
        let per_file: Vec<NameTotals> = batch
            .par_iter()
            .map(|f| f.totals(resolved.iterations.as_deref(), device, keying))
            .collect();
        for totals in per_file {
            for (name, t) in totals {
                merged.entry(name).or_default().add(t);
            }
        }
    }
    merged
}

/// A group-by column: a core column or an attribute column of the file.
enum GroupColumn<'a> {
    Missing,
    Stream,
    Correlation,
    Attr(&'a AttrColumn),
}

impl GroupColumn<'_> {
    fn value(&self, file: &TraceFile, row: usize) -> AttrValue {
        match self {
            GroupColumn::Missing => AttrValue::Int(-1),
            GroupColumn::Stream => AttrValue::Int(file.events.stream.get(row)),
            GroupColumn::Correlation => AttrValue::Int(file.events.correlation.get(row)),
            GroupColumn::Attr(c) => c.get(row),
        }
    }
}

fn value_bits(v: AttrValue) -> u64 {
    match v {
        AttrValue::Int(i) => i as u64,
        AttrValue::Float(f) => f.to_bits(),
        AttrValue::Text(id) => u64::from(id.0),
    }
}

/// `iterations`: `None` admits every event (a trace without ProfilerStep is taken whole).
pub fn aggregate_file(file: &TraceFile, iterations: Option<&[i64]>, device: Device, keying: &Keying) -> NameTotals {
    let ev = &file.events;
    let frames = keying
        .skip_python_frames
        .then(|| file.strings.get(PYTHON_FRAME_CATEGORY));
    let gpu_annotation = file.strings.get(GPU_ANNOTATION_CATEGORY);
    let selected = Selected::new(iterations);
    let admitted = |i: usize| {
        selected.admits(ev.iteration.get(i))
            && device.admits(ev.place[i])
            && frames.is_none_or(|f| f != Some(ev.cat[i]))
    };
    let mut out = NameTotals::new();
    if keying.group_by.is_empty() {
        let mut by_id: Vec<[Totals; 2]> = vec![[Totals::default(); 2]; file.strings.len()];
        for i in (0..ev.len()).filter(|&i| admitted(i)) {
            let t = &mut by_id[ev.name[i].index()][usize::from(Some(ev.cat[i]) == gpu_annotation)];
            t.count += 1;
            t.dur_ns += ev.dur_ns[i];
        }
        for (id, name) in file.strings.iter() {
            for (apart, t) in by_id[id.index()].into_iter().enumerate() {
                if t.count > 0 {
                    out.entry(keying.row_key(name, apart == 1)).or_default().add(t);
                }
            }
        }
        return out;
    }
    let columns: Vec<(&str, GroupColumn<'_>)> = keying
        .group_by
        .iter()
        .map(|g| {
            let col = match g.as_str() {
                "stream" => GroupColumn::Stream,
                "correlation" => GroupColumn::Correlation,
                other => match file.attrs.column(other) {
                    Some((k, _)) => GroupColumn::Attr(&file.attrs.columns[k]),
                    // Not among the loaded attributes: the same absent value for every event.
                    None => GroupColumn::Missing,
                },
            };
            (g.as_str(), col)
        })
        .collect();
    let mut groups: FxHashMap<(NameId, bool, Vec<u64>), (Totals, usize)> = FxHashMap::default();
    for i in (0..ev.len()).filter(|&i| admitted(i)) {
        let key: Vec<u64> = columns.iter().map(|(_, c)| value_bits(c.value(file, i))).collect();
        let apart = Some(ev.cat[i]) == gpu_annotation;
        let slot = groups.entry((ev.name[i], apart, key)).or_insert((Totals::default(), i));
        slot.0.count += 1;
        slot.0.dur_ns += ev.dur_ns[i];
    }
    for ((name, apart, _), (t, first_row)) in groups {
        let attrs: Vec<String> = columns
            .iter()
            .map(|(label, c)| format!("{label}={}", value_text(c.value(file, first_row), &file.strings)))
            .collect();
        let key = format!(
            "{} [{}]",
            keying.row_key(file.strings.resolve(name), apart),
            attrs.join(", ")
        );
        out.entry(key).or_default().add(t);
    }
    out
}
