//! Kernel sequences aligned across runs (`kernels --aligned`, docs/kernel-classes.md#aligned-sequences).
//!
//! Per side, the device events of the selected steps, per stream in start order, are one
//! sequence per stream; streams pair across sides by their rank in device time (the busiest
//! with the busiest). In each sequence the shortest period whose repetition covers the most of
//! it (at least half, twice or more) is the model's layer: the sequence is a prefix, the layer
//! `×N` and a suffix. The two sides' prefixes, layers and suffixes are aligned by class (Myers'
//! diff in linear memory); a position where both sides have a kernel is `same` (one name) or
//! `changed` (two), one side only `added` or `deleted`. Every event lies in one row, so the
//! rows of a side sum to its device time.

use crate::analysis::aggregate::Keying;
use crate::analysis::classes::{Classifier, KernelClass};
use crate::analysis::diff::SideInfo;
use crate::analysis::load::loaded::Loaded;
use crate::analysis::select::Selected;
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::request::CompareRequest;
use crate::request::side::SideId;
use serde::Serialize;
use std::collections::BTreeMap;

/// The longest layer looked for, in kernels.
pub(crate) const MAX_PERIOD: usize = 4096;

/// Where in a sequence a row stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// Before the first repetition of the layer.
    Prefix,
    /// A position of the repeated layer (its time summed over the repetitions).
    Layer,
    /// After the last repetition.
    Suffix,
}

impl Part {
    /// The part's name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Part::Prefix => "prefix",
            Part::Layer => "layer",
            Part::Suffix => "suffix",
        }
    }
}

/// How the two sides compare at a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Both sides run a kernel of the same name.
    Same,
    /// Both sides run a kernel there, under different names.
    Changed,
    /// Only the test side runs one.
    Added,
    /// Only the control side runs one.
    Deleted,
}

impl Status {
    /// The status's name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Status::Same => "same",
            Status::Changed => "changed",
            Status::Added => "added",
            Status::Deleted => "deleted",
        }
    }
}

/// One side's kernel at a position: its class, its name (the one with the most time there),
/// its calls and summed duration (ns).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Slot {
    /// What the kernel does.
    pub class: KernelClass,
    /// The kernel's name (as the request keys names).
    pub name: String,
    /// How many events the position holds (one per repetition of the layer, per step).
    pub calls: i64,
    /// Their summed duration, ns.
    pub dur_ns: i64,
}

/// One aligned position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignedRow {
    /// The stream group (0: the busiest stream of each side).
    pub group: usize,
    /// Prefix, layer or suffix.
    pub part: Part,
    /// The position inside its part, from 0, in aligned order.
    pub position: usize,
    /// The control side's kernel there.
    pub control: Option<Slot>,
    /// The test side's.
    pub test: Option<Slot>,
    /// Same, changed, added or deleted.
    pub status: Status,
}

/// How one side's sequence of a stream group is made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shape {
    /// The stream (`args.stream`; -1 where the events have none).
    pub stream: i64,
    /// Events in the sequence (of the first step used).
    pub events: usize,
    /// Kernels in the prefix.
    pub prefix: usize,
    /// Kernels per layer (0: no repetition found).
    pub period: usize,
    /// Repetitions of the layer.
    pub blocks: usize,
    /// Kernels in the suffix.
    pub suffix: usize,
}

/// One stream group: each side's shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The group's number (0: the busiest streams).
    pub index: usize,
    /// The control side's sequence, where it has this many streams.
    pub control: Option<Shape>,
    /// The test side's.
    pub test: Option<Shape>,
}

/// The aligned sequences of a pair.
#[derive(Debug, Clone)]
pub struct Aligned {
    /// What the control side is.
    pub control: SideInfo,
    /// What the test side is.
    pub test: SideInfo,
    /// The stream groups, busiest first.
    pub groups: Vec<Group>,
    /// Every position, by group, part (prefix, layer, suffix) and aligned order.
    pub rows: Vec<AlignedRow>,
    /// Per side, how many (rank, step) windows the rows sum (windows whose sequences differ
    /// from the first one's are left out, with a note).
    pub windows: [usize; 2],
    /// What the user should know (windows left out).
    pub notes: Vec<String>,
}

impl Aligned {
    /// Per side, the share of its device time in paired (`same` or `changed`) rows (0–1);
    /// `None` for a side without device time.
    pub fn paired_share(&self) -> [Option<f64>; 2] {
        let share = |side: fn(&AlignedRow) -> Option<&Slot>| {
            let total: i64 = self.rows.iter().filter_map(|r| side(r)).map(|s| s.dur_ns).sum();
            let paired: i64 = self
                .rows
                .iter()
                .filter(|r| matches!(r.status, Status::Same | Status::Changed))
                .filter_map(|r| side(r))
                .map(|s| s.dur_ns)
                .sum();
            (total > 0).then(|| paired as f64 / total as f64)
        };
        [share(|r| r.control.as_ref()), share(|r| r.test.as_ref())]
    }
}

/// One device event of a sequence: its class, its name's index in the side's names, its
/// duration.
#[derive(Debug, Clone, Copy)]
struct Ev {
    class: KernelClass,
    name: u32,
    dur: i64,
}

/// One side's sequences: per stream, the events of the reference window, with the durations
/// of every matching window summed per position.
struct SideSeqs {
    names: Vec<String>,
    /// (stream, events), busiest stream first.
    streams: Vec<(i64, Vec<Ev>)>,
    windows: usize,
    left_out: usize,
}

/// Aligns the two sides' kernel sequences of `req`'s selection.
pub(crate) fn aligned(req: &CompareRequest, loaded: &Loaded, classifier: &Classifier) -> Aligned {
    let keying = req.keying();
    let (c, t) = rayon::join(
        || side_sequences(loaded, SideId::Control, req, &keying, classifier),
        || side_sequences(loaded, SideId::Test, req, &keying, classifier),
    );
    let mut notes = Vec::new();
    let labels = req.side_labels();
    for (s, label) in [(&c, labels.control), (&t, labels.test)] {
        if s.left_out > 0 {
            notes.push(format!(
                "{label}: {} of {} selected (rank, step) windows run another kernel sequence than the first and are left out of --aligned",
                s.left_out,
                s.left_out + s.windows
            ));
        }
    }
    let mut groups = Vec::new();
    let mut rows = Vec::new();
    for g in 0..c.streams.len().max(t.streams.len()) {
        let (cs, ts) = (c.streams.get(g), t.streams.get(g));
        let cp = cs.map(|(s, ev)| structure(*s, ev));
        let tp = ts.map(|(s, ev)| structure(*s, ev));
        // Layers pair with layers only when both sides have one.
        let layered = cp
            .as_ref()
            .zip(tp.as_ref())
            .is_some_and(|(a, b)| a.period > 0 && b.period > 0);
        let parts = |side: Option<&(i64, Vec<Ev>)>, shape: Option<&Shape>, names: &[String]| {
            side.zip(shape)
                .map(|((_, ev), sh)| split_parts(ev, sh, layered, names))
                .unwrap_or_default()
        };
        let cparts = parts(cs, cp.as_ref(), &c.names);
        let tparts = parts(ts, tp.as_ref(), &t.names);
        for part in [Part::Prefix, Part::Layer, Part::Suffix] {
            let empty = Vec::new();
            let a = cparts.get(&part).unwrap_or(&empty);
            let b = tparts.get(&part).unwrap_or(&empty);
            align_part(g, part, a, b, &mut rows);
        }
        let flat = |shape: Option<Shape>| {
            shape.map(|s| {
                if layered {
                    s
                } else {
                    Shape {
                        prefix: s.events,
                        period: 0,
                        blocks: 0,
                        suffix: 0,
                        ..s
                    }
                }
            })
        };
        groups.push(Group {
            index: g,
            control: flat(cp),
            test: flat(tp),
        });
    }
    Aligned {
        control: loaded.side_info(SideId::Control, req.side(SideId::Control).label),
        test: loaded.side_info(SideId::Test, req.side(SideId::Test).label),
        groups,
        rows,
        windows: [c.windows, t.windows],
        notes,
    }
}

/// The device events of one window of `file`, per stream, in start order.
fn window_streams(
    file: &TraceFile,
    step: Option<i64>,
    req: &CompareRequest,
    classes: &[KernelClass],
    name_of: &mut impl FnMut(u32) -> u32,
) -> BTreeMap<i64, Vec<(i64, Ev)>> {
    let ev = &file.events;
    let steps = step.map(|s| vec![s]);
    let selected = Selected::new(steps.as_deref());
    let mut out: BTreeMap<i64, Vec<(i64, Ev)>> = BTreeMap::new();
    for i in file.row_ranges(steps.as_deref()).into_iter().flatten() {
        if ev.place[i] != Place::Device || !req.device.admits(ev.place[i]) || !selected.admits(ev.iteration.get(i)) {
            continue;
        }
        let id = ev.name[i];
        out.entry(ev.stream.get(i)).or_default().push((
            ev.ts_ns[i],
            Ev {
                class: classes[id.index()],
                name: name_of(id.0),
                dur: ev.dur_ns[i],
            },
        ));
    }
    for seq in out.values_mut() {
        // Stable: events that start together keep their file order.
        seq.sort_by_key(|(ts, _)| *ts);
    }
    out
}

/// One side's sequences over its selected ranks and steps (see [`SideSeqs`]).
fn side_sequences(
    loaded: &Loaded,
    k: SideId,
    req: &CompareRequest,
    keying: &Keying,
    classifier: &Classifier,
) -> SideSeqs {
    let mut names: Vec<String> = Vec::new();
    let mut index: rustc_hash::FxHashMap<String, u32> = Default::default();
    let mut reference: Option<Vec<(i64, Vec<Ev>)>> = None;
    let (mut windows, mut left_out) = (0, 0);
    let steps: Vec<Option<i64>> = match &loaded.resolved[k].iterations {
        Some(s) => s.iter().copied().map(Some).collect(),
        None => vec![None],
    };
    for file in loaded.files(k) {
        let classes = classifier.file_classes(file);
        let mut ids: rustc_hash::FxHashMap<u32, u32> = Default::default();
        let mut name_of = |id: u32| {
            *ids.entry(id).or_insert_with(|| {
                let key = crate::analysis::views::name_key(file, keying, id);
                let next = names.len() as u32;
                *index.entry(key.clone()).or_insert_with(|| {
                    names.push(key);
                    next
                })
            })
        };
        for &step in &steps {
            let streams = window_streams(file, step, req, &classes, &mut name_of);
            let seqs: BTreeMap<i64, Vec<Ev>> = streams
                .into_iter()
                .map(|(s, v)| (s, v.into_iter().map(|(_, e)| e).collect()))
                .collect();
            if seqs.is_empty() {
                continue;
            }
            match &mut reference {
                None => {
                    let mut streams: Vec<(i64, Vec<Ev>)> = seqs.into_iter().collect();
                    let total = |v: &[Ev]| v.iter().map(|e| e.dur).sum::<i64>();
                    streams.sort_by(|a, b| total(&b.1).cmp(&total(&a.1)).then(a.0.cmp(&b.0)));
                    reference = Some(streams);
                    windows += 1;
                }
                Some(reference) => {
                    if add_window(reference, &seqs) {
                        windows += 1;
                    } else {
                        left_out += 1;
                    }
                }
            }
        }
    }
    SideSeqs {
        names,
        streams: reference.unwrap_or_default(),
        windows,
        left_out,
    }
}

/// Adds a window's durations to the reference position by position, where its streams hold
/// the same class sequences; says whether it did.
fn add_window(reference: &mut [(i64, Vec<Ev>)], seqs: &BTreeMap<i64, Vec<Ev>>) -> bool {
    let same = seqs.len() == reference.len()
        && reference.iter().all(|(s, r)| {
            seqs.get(s)
                .is_some_and(|v| v.len() == r.len() && v.iter().zip(r).all(|(a, b)| a.class == b.class))
        });
    if same {
        for (s, r) in reference.iter_mut() {
            for (into, e) in r.iter_mut().zip(&seqs[s]) {
                into.dur += e.dur;
            }
        }
    }
    same
}

/// The shape of a sequence: its layer (see [`find_period`]) or none.
fn structure(stream: i64, ev: &[Ev]) -> Shape {
    let classes: Vec<KernelClass> = ev.iter().map(|e| e.class).collect();
    let (start, period, blocks) = find_period(&classes).unwrap_or((ev.len(), 0, 0));
    Shape {
        stream,
        events: ev.len(),
        prefix: start,
        period,
        blocks,
        suffix: ev.len() - start - period * blocks,
    }
}

/// The layer of a class sequence: `(start, period, repetitions)` for the shortest period whose
/// repetition (twice or more, from its earliest start) covers the most of the sequence, and at
/// least half of it; `None` where none does.
pub(crate) fn find_period<T: PartialEq>(s: &[T]) -> Option<(usize, usize, usize)> {
    let n = s.len();
    let mut best: Option<(usize, usize, usize)> = None;
    let mut best_cover = 0;
    for p in 1..=(n / 2).min(MAX_PERIOD) {
        // The longest run of i with s[i] == s[i + p], earliest on ties.
        let (mut run, mut longest, mut at) = (0usize, 0usize, 0usize);
        for i in 0..n - p {
            if s[i] == s[i + p] {
                run += 1;
                if run > longest {
                    longest = run;
                    at = i + 1 - run;
                }
            } else {
                run = 0;
            }
        }
        let blocks = (longest + p) / p;
        let cover = blocks * p;
        if blocks >= 2 && cover > best_cover && cover * 2 >= n {
            best_cover = cover;
            best = Some((at, p, blocks));
        }
    }
    best
}

/// A side's slots per part: the prefix and suffix events one by one, the layer's positions
/// summed over its repetitions. Without `layered`, the whole sequence is the prefix.
fn split_parts(ev: &[Ev], shape: &Shape, layered: bool, names: &[String]) -> BTreeMap<Part, Vec<Slot>> {
    let one = |e: &Ev| Slot {
        class: e.class,
        name: names[e.name as usize].clone(),
        calls: 1,
        dur_ns: e.dur,
    };
    let mut out = BTreeMap::new();
    if !layered {
        out.insert(Part::Prefix, ev.iter().map(one).collect());
        return out;
    }
    let (start, p) = (shape.prefix, shape.period);
    let end = start + p * shape.blocks;
    out.insert(Part::Prefix, ev[..start].iter().map(one).collect());
    let layer = (0..p)
        .map(|j| {
            let at: Vec<&Ev> = (0..shape.blocks).map(|b| &ev[start + b * p + j]).collect();
            // The name with the most time at the position, ties by name.
            let mut by_name: BTreeMap<&str, i64> = BTreeMap::new();
            for e in &at {
                *by_name.entry(names[e.name as usize].as_str()).or_default() += e.dur;
            }
            let name = by_name
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map_or("", |(n, _)| n);
            Slot {
                class: at[0].class,
                name: name.to_string(),
                calls: at.len() as i64,
                dur_ns: at.iter().map(|e| e.dur).sum(),
            }
        })
        .collect();
    out.insert(Part::Layer, layer);
    out.insert(Part::Suffix, ev[end..].iter().map(one).collect());
    out
}

/// Aligns one part of the two sides by class and appends its rows.
fn align_part(group: usize, part: Part, a: &[Slot], b: &[Slot], rows: &mut Vec<AlignedRow>) {
    let ka: Vec<KernelClass> = a.iter().map(|s| s.class).collect();
    let kb: Vec<KernelClass> = b.iter().map(|s| s.class).collect();
    let mut position = 0;
    let mut push = |c: Option<&Slot>, t: Option<&Slot>| {
        let status = match (c, t) {
            (Some(c), Some(t)) if c.name == t.name => Status::Same,
            (Some(_), Some(_)) => Status::Changed,
            (None, _) => Status::Added,
            (Some(_), None) => Status::Deleted,
        };
        rows.push(AlignedRow {
            group,
            part,
            position,
            control: c.cloned(),
            test: t.cloned(),
            status,
        });
        position += 1;
    };
    for (i, j) in crate::analysis::classes::pairing::pair_by_class(&ka, &kb) {
        push(i.map(|i| &a[i]), j.map(|j| &b[j]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layer_is_the_shortest_period_that_covers_the_most() {
        // prefix "xy", layer "abc" ×4, suffix "z"
        let s: Vec<char> = "xyabcabcabcabcz".chars().collect();
        assert_eq!(find_period(&s), Some((2, 3, 4)));
        assert_eq!(find_period(&"abcd".chars().collect::<Vec<_>>()), None);
        assert_eq!(find_period(&"aaaa".chars().collect::<Vec<_>>()), Some((0, 1, 4)));
    }

    fn slot(class: KernelClass, name: &str, dur_ns: i64) -> Slot {
        Slot {
            class,
            name: name.to_string(),
            calls: 1,
            dur_ns,
        }
    }

    #[test]
    fn a_replaced_kernel_is_one_changed_row_and_rows_keep_every_event() {
        use KernelClass::*;
        let a = [slot(Gemm, "nvjet", 5), slot(Norm, "ln", 2), slot(Gemm, "nvjet2", 7)];
        let b = [
            slot(Gemm, "Cijk", 6),
            slot(Attention, "attn_fwd", 3),
            slot(Norm, "ln", 1),
            slot(Gemm, "Cijk2", 8),
        ];
        let mut rows = Vec::new();
        align_part(0, Part::Layer, &a, &b, &mut rows);
        let status: Vec<Status> = rows.iter().map(|r| r.status).collect();
        assert_eq!(status, [Status::Changed, Status::Added, Status::Same, Status::Changed]);
        let sum = |f: fn(&AlignedRow) -> Option<&Slot>| rows.iter().filter_map(f).map(|s| s.dur_ns).sum::<i64>();
        assert_eq!(sum(|r| r.control.as_ref()), 14);
        assert_eq!(sum(|r| r.test.as_ref()), 18);
        assert_eq!(rows.iter().map(|r| r.position).collect::<Vec<_>>(), [0, 1, 2, 3]);
    }
}
