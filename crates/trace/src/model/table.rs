//! The event table: one `Vec` per column, names and categories interned in a string table. The
//! lowest piece of the model: places, iterations, attributes and the call tree build on it, and
//! [`crate::model::store::TraceFile`] holds one.

use crate::model::place::Place;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Index into a [`StringTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

impl NameId {
    /// The id as a position in its table's strings.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Interned strings of one trace file. Each distinct string is stored once.
#[derive(Debug, Default, Clone)]
pub struct StringTable {
    strings: Vec<Box<str>>,
    ids: FxHashMap<Box<str>, NameId>,
}

impl StringTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `s`, adding it if it is new.
    pub fn intern(&mut self, s: &str) -> NameId {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        // The parser refuses a file before it reaches 2^32 - 1 strings (parse::MAX_STRINGS).
        let id = NameId(u32::try_from(self.strings.len()).unwrap_or(u32::MAX));
        let boxed: Box<str> = s.into();
        self.strings.push(boxed.clone());
        self.ids.insert(boxed, id);
        id
    }

    /// The id of `s`, or `None` when the table does not hold it (without adding it).
    pub fn get(&self, s: &str) -> Option<NameId> {
        self.ids.get(s).copied()
    }

    /// The text of `id`. Panics on an id from another table that this one has no entry for.
    pub fn resolve(&self, id: NameId) -> &str {
        &self.strings[id.index()]
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether the table holds no string.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// Every string with its id, in order of first interning.
    pub fn iter(&self) -> impl Iterator<Item = (NameId, &str)> {
        self.strings.iter().enumerate().map(|(i, s)| (NameId(i as u32), &**s))
    }
}

/// Iteration number of an event that belongs to no ProfilerStep.
pub const NO_ITERATION: i64 = -1;
/// `stream` of an event without a (numeric) `args.stream`: a host event.
pub const NO_STREAM: i64 = -1;
/// `correlation` of an event without `args.correlation`.
pub const NO_CORRELATION: i64 = -1;

/// A column of ids: `stream`, `correlation` and `iteration`, where −1 means none. It holds 32
/// bits a value (`v + 1`) while every value is in −1 to [`IdColumn::MAX`], which CUDA's stream
/// and correlation ids always are; the first value outside that range widens it to 64 bits, so
/// every value a trace holds is kept exactly and nothing wraps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdColumn {
    /// Each value stored as `v + 1` in 32 bits (so −1 is 0).
    Narrow(Vec<u32>),
    /// Each value as it is.
    Wide(Vec<i64>),
}

impl Default for IdColumn {
    fn default() -> Self {
        IdColumn::Narrow(Vec::new())
    }
}

impl IdColumn {
    /// The largest value a narrow column keeps: 2^32 − 2.
    pub const MAX: i64 = u32::MAX as i64 - 1;

    /// Whether `v` fits a narrow column.
    pub fn fits(v: i64) -> bool {
        (-1..=Self::MAX).contains(&v)
    }

    /// `v` as a narrow column stores it, when it fits.
    fn narrow(v: i64) -> Option<u32> {
        Self::fits(v).then(|| u32::try_from(v + 1).unwrap_or(0))
    }

    /// Makes room for `n` more values.
    pub fn reserve(&mut self, n: usize) {
        match self {
            IdColumn::Narrow(c) => c.reserve(n),
            IdColumn::Wide(c) => c.reserve(n),
        }
    }

    /// Turns a narrow column into a wide one.
    fn widen(&mut self) -> &mut Vec<i64> {
        if let IdColumn::Narrow(c) = self {
            *self = IdColumn::Wide(c.iter().map(|&v| i64::from(v) - 1).collect());
        }
        match self {
            IdColumn::Wide(c) => c,
            IdColumn::Narrow(_) => unreachable!("just widened"),
        }
    }

    /// The value at `row`, −1 for none. Panics when `row` is not below [`Self::len`].
    #[inline]
    pub fn get(&self, row: usize) -> i64 {
        match self {
            IdColumn::Narrow(c) => i64::from(c[row]) - 1,
            IdColumn::Wide(c) => c[row],
        }
    }

    /// Replaces the value at `row` with `v`, widening the column when `v` does not fit it.
    pub fn set(&mut self, row: usize, v: i64) {
        match (&mut *self, Self::narrow(v)) {
            (IdColumn::Narrow(c), Some(n)) => c[row] = n,
            _ => self.widen()[row] = v,
        }
    }

    /// Appends `v`, widening the column when `v` does not fit it.
    pub fn push(&mut self, v: i64) {
        match (&mut *self, Self::narrow(v)) {
            (IdColumn::Narrow(c), Some(n)) => c.push(n),
            _ => self.widen().push(v),
        }
    }

    /// Makes the column `len` values long, value `i` being `f(i)`, computed in parallel (on the
    /// current rayon pool); narrow unless a value does not fit.
    pub fn fill_with(&mut self, len: usize, f: &(dyn Fn(usize) -> i64 + Sync)) {
        if let IdColumn::Narrow(c) = self {
            let wide = AtomicBool::new(false);
            c.resize(len, 0);
            c.par_iter_mut()
                .enumerate()
                .for_each(|(i, v)| match Self::narrow(f(i)) {
                    Some(n) => *v = n,
                    None => wide.store(true, Ordering::Relaxed),
                });
            if !wide.load(Ordering::Relaxed) {
                return;
            }
        }
        *self = IdColumn::Wide((0..len).into_par_iter().map(f).collect());
    }

    /// Moves every value of `other` to the end of this column (widening it if `other` is wide).
    pub fn append(&mut self, other: &mut IdColumn) {
        match (&mut *self, other) {
            (IdColumn::Narrow(c), IdColumn::Narrow(o)) => c.append(o),
            (_, IdColumn::Narrow(o)) => {
                self.widen().extend(o.iter().map(|&v| i64::from(v) - 1));
                o.clear();
            }
            (_, IdColumn::Wide(o)) => self.widen().append(o),
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            IdColumn::Narrow(c) => c.len(),
            IdColumn::Wide(c) => c.len(),
        }
    }

    /// Whether the column holds no value.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the column holds (its capacity).
    pub fn bytes(&self) -> usize {
        match self {
            IdColumn::Narrow(c) => c.capacity() * 4,
            IdColumn::Wide(c) => c.capacity() * 8,
        }
    }

    /// Gives back the spare capacity.
    pub fn shrink_to_fit(&mut self) {
        match self {
            IdColumn::Narrow(c) => c.shrink_to_fit(),
            IdColumn::Wide(c) => c.shrink_to_fit(),
        }
    }

    /// Every value, widened to `i64`.
    pub fn to_vec(&self) -> Vec<i64> {
        self.iter().collect()
    }

    /// Every value in row order, −1 for none.
    pub fn iter(&self) -> impl Iterator<Item = i64> + '_ {
        (0..self.len()).map(|row| self.get(row))
    }
}

impl FromIterator<i64> for IdColumn {
    fn from_iter<I: IntoIterator<Item = i64>>(iter: I) -> Self {
        let mut c = IdColumn::default();
        for v in iter {
            c.push(v);
        }
        c
    }
}

/// The kept events of one trace file, column by column, in file order.
#[derive(Debug, Default, Clone)]
pub struct EventTable {
    /// Position of the event in the file's `traceEvents` array.
    pub index: Vec<u32>,
    /// `name`, interned.
    pub name: Vec<NameId>,
    /// `cat` (category, such as `cpu_op` or `kernel`), interned.
    pub cat: Vec<NameId>,
    /// Start: the file's `ts` (µs) in ns.
    pub ts_ns: Vec<i64>,
    /// The file's `dur` (µs) in ns; never negative (the parser refuses such events).
    pub dur_ns: Vec<i64>,
    /// `pid` and `tid` as interned text: they may be numbers or strings in the file.
    pub pid: Vec<NameId>,
    /// The event's thread (`tid`), as `pid`.
    pub tid: Vec<NameId>,
    /// In a table that is only summarised, the events' threads numbered from 0, one per distinct
    /// (`pid`, `tid`), in place of `pid` and `tid` (then empty): all the call tree's nesting needs
    /// of them, in 4 bytes per event instead of 8 ([`EventTable::number_threads`]). Empty
    /// otherwise.
    pub thread: Vec<u32>,
    /// `args.stream`: the CUDA stream of a kernel, copy or set; [`NO_STREAM`] on the host.
    pub stream: IdColumn,
    /// `args.correlation`: links a kernel to the runtime call (`cudaLaunchKernel`) that
    /// launched it; [`NO_CORRELATION`] when absent.
    pub correlation: IdColumn,
    /// The ProfilerStep number each event falls in, [`NO_ITERATION`] for none; filled in after
    /// parsing by [`crate::model::iteration::assign_iterations`].
    pub iteration: IdColumn,
    /// Host or device (docs/semantics.md#host-and-device-events), filled in after parsing by [`crate::model::iteration::classify`].
    pub place: Vec<Place>,
}

impl EventTable {
    /// Number of events.
    pub fn len(&self) -> usize {
        self.name.len()
    }

    /// Frees the columns that only link events to each other or to the file (`index`, `pid`,
    /// `tid`, `stream`, `correlation`), once places and iterations are assigned, for a table
    /// that is only summarised from now on (`analysis::summary::summarize` reads names,
    /// categories, times, places, iterations and [`EventTable::thread`]): its work then runs in
    /// the memory they held.
    pub fn drop_link_columns(&mut self) {
        self.index = Vec::new();
        self.pid = Vec::new();
        self.tid = Vec::new();
        self.stream = IdColumn::default();
        self.correlation = IdColumn::default();
    }

    /// Replaces `pid` and `tid` by [`EventTable::thread`], one number per distinct pair, for a
    /// table that is only summarised: its call tree nests by thread and needs no more of them.
    /// The numbers are written over the `pid` column, so the memory only shrinks.
    pub fn number_threads(&mut self) {
        let tid = std::mem::take(&mut self.tid);
        let mut pid = std::mem::take(&mut self.pid);
        if tid.len() != pid.len() {
            return;
        }
        let mut numbers: FxHashMap<(NameId, NameId), u32> = FxHashMap::default();
        let mut last: Option<((NameId, NameId), u32)> = None;
        for (p, &t) in pid.iter_mut().zip(&tid) {
            let key = (*p, t);
            let n = match last {
                Some((k, n)) if k == key => n,
                _ => {
                    let next = numbers.len() as u32;
                    *numbers.entry(key).or_insert(next)
                }
            };
            last = Some((key, n));
            *p = NameId(n);
        }
        drop(tid);
        // Collected in place: the same allocation, read as numbers.
        self.thread = pid.into_iter().map(|n| n.0).collect();
    }

    /// A key that equals another row's exactly when both events ran on the same thread (`pid`
    /// and `tid`, or [`EventTable::thread`] where a summarised table holds it instead).
    pub fn thread_key(&self, row: usize) -> u64 {
        match self.thread.get(row) {
            Some(&n) => u64::from(n),
            None => (u64::from(self.pid[row].0) << 32) | u64::from(self.tid[row].0),
        }
    }

    /// Whether the table holds no event.
    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }
}

/// One event as the parser hands it to the store.
#[derive(Debug, Clone, Copy)]
pub struct NewEvent {
    /// [`EventTable::index`].
    pub index: u32,
    /// [`EventTable::name`].
    pub name: NameId,
    /// [`EventTable::cat`].
    pub cat: NameId,
    /// [`EventTable::ts_ns`].
    pub ts_ns: i64,
    /// [`EventTable::dur_ns`].
    pub dur_ns: i64,
    /// [`EventTable::pid`].
    pub pid: NameId,
    /// [`EventTable::tid`].
    pub tid: NameId,
    /// [`EventTable::stream`].
    pub stream: i64,
    /// [`EventTable::correlation`].
    pub correlation: i64,
}

impl EventTable {
    /// Gives back the spare capacity of every column once parsing is done.
    pub fn shrink_to_fit(&mut self) {
        self.index.shrink_to_fit();
        self.name.shrink_to_fit();
        self.cat.shrink_to_fit();
        self.ts_ns.shrink_to_fit();
        self.dur_ns.shrink_to_fit();
        self.pid.shrink_to_fit();
        self.tid.shrink_to_fit();
        self.thread.shrink_to_fit();
        self.stream.shrink_to_fit();
        self.correlation.shrink_to_fit();
        self.iteration.shrink_to_fit();
        self.place.shrink_to_fit();
    }

    /// Appends one event, in no iteration and on the host until iterations and places are
    /// assigned.
    pub fn push(&mut self, e: NewEvent) {
        self.index.push(e.index);
        self.name.push(e.name);
        self.cat.push(e.cat);
        self.ts_ns.push(e.ts_ns);
        self.dur_ns.push(e.dur_ns);
        self.pid.push(e.pid);
        self.tid.push(e.tid);
        self.stream.push(e.stream);
        self.correlation.push(e.correlation);
        self.iteration.push(NO_ITERATION);
        self.place.push(Place::Host);
    }

    /// Makes room for `rows` more events in every column a parse fills: those of
    /// [`EventTable::push`] with `index`, else those of [`EventTable::push_without_index`]; so
    /// that a chunk's columns are not grown (and copied) as it is parsed.
    pub fn reserve(&mut self, rows: usize, index: bool) {
        if index {
            self.index.reserve(rows);
            self.iteration.reserve(rows);
            self.place.reserve(rows);
        }
        self.name.reserve(rows);
        self.cat.reserve(rows);
        self.ts_ns.reserve(rows);
        self.dur_ns.reserve(rows);
        self.pid.reserve(rows);
        self.tid.reserve(rows);
        self.stream.reserve(rows);
        self.correlation.reserve(rows);
    }

    /// Moves every row of `other` to the end of this table.
    pub fn append(&mut self, other: &mut EventTable) {
        self.index.append(&mut other.index);
        self.name.append(&mut other.name);
        self.cat.append(&mut other.cat);
        self.ts_ns.append(&mut other.ts_ns);
        self.dur_ns.append(&mut other.dur_ns);
        self.pid.append(&mut other.pid);
        self.tid.append(&mut other.tid);
        self.thread.append(&mut other.thread);
        self.stream.append(&mut other.stream);
        self.correlation.append(&mut other.correlation);
        self.iteration.append(&mut other.iteration);
        self.place.append(&mut other.place);
    }

    /// As [`EventTable::push`], leaving `index` out (it stays empty), and `iteration` and
    /// `place`, which [`crate::model::iteration::assign_iterations`] sizes and fills: for a
    /// trace that is only summarised (5 bytes less per event while it is parsed).
    pub fn push_without_index(&mut self, e: NewEvent) {
        self.name.push(e.name);
        self.cat.push(e.cat);
        self.ts_ns.push(e.ts_ns);
        self.dur_ns.push(e.dur_ns);
        self.pid.push(e.pid);
        self.tid.push(e.tid);
        self.stream.push(e.stream);
        self.correlation.push(e.correlation);
    }
}

/// A ProfilerStep found in a trace: its number and window `[ts_ns, ts_ns + dur_ns)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The `N` of `ProfilerStep#N`.
    pub number: i64,
    /// Start, in ns since the trace's epoch.
    pub ts_ns: i64,
    /// Duration in ns.
    pub dur_ns: i64,
    /// Whether the span is on the device timeline (a `gpu_user_annotation` mirror of a host
    /// step): its window is not the step's, and its duration is not the step time.
    pub on_device: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_columns_keep_every_value_exactly_and_widen_only_when_they_must() {
        let values = [-1, 0, 7, i64::from(i32::MAX) + 1, IdColumn::MAX];
        let mut c: IdColumn = values.into_iter().collect();
        assert_eq!(c.iter().collect::<Vec<_>>(), values);
        assert!(matches!(c, IdColumn::Narrow(_)));
        c.set(1, 42);
        assert_eq!(c.get(1), 42);
        assert!(!IdColumn::fits(-2) && !IdColumn::fits(IdColumn::MAX + 1));
        // A value outside widens the column; what was there stays.
        c.push(IdColumn::MAX + 1);
        c.set(0, -5);
        assert!(matches!(c, IdColumn::Wide(_)));
        assert_eq!(
            c.to_vec(),
            [-5, 42, 7, i64::from(i32::MAX) + 1, IdColumn::MAX, IdColumn::MAX + 1]
        );
        let mut d = IdColumn::default();
        d.push(0);
        d.set(0, i64::MIN);
        assert_eq!(d.to_vec(), [i64::MIN]);
    }

    #[test]
    fn interning_is_stable_and_deduplicated() {
        let mut t = StringTable::new();
        let a = t.intern("aten::mm");
        let b = t.intern("aten::add");
        assert_eq!(t.intern("aten::mm"), a);
        assert_ne!(a, b);
        assert_eq!(t.resolve(b), "aten::add");
        assert_eq!(t.len(), 2);
        assert_eq!(t.get("nope"), None);
    }
}
