//! What one side's operator rows did, beside their calls and times: their work (from the cost
//! model), their input shapes and element types, and the kernels they launched themselves.
//! The rows are the operator view's (the same events, the same keys), so the figures here
//! describe the calls the view counts.

use crate::analysis::aggregate::Keying;
use crate::analysis::cost::model::{Cost, Unit, cost};
use crate::analysis::cost::shapes::Call;
use crate::analysis::load::loaded::Loaded;
use crate::analysis::modules::Scope;
use crate::analysis::select::Selected;
use crate::analysis::views::{Accumulated, Accumulator, accumulate_side, name_key};
use crate::model::attrs::AttrValue;
use crate::model::calltree::NONE;
use crate::model::store::{NameId, TraceFile};
use crate::request::CompareRequest;
use crate::request::selection::Device;
use crate::request::side::SideId;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// One side's figures of one operator row, summed over its calls.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct OpStats {
    /// Calls.
    pub calls: u64,
    /// Calls with a work figure, and its unit (`None` while there is none, or where calls of
    /// the row had different units: then no figure).
    pub with_work: u64,
    /// The unit of the figures.
    pub unit: Option<Unit>,
    /// Whether calls of the row had figures of different units.
    pub mixed_units: bool,
    /// The summed work of the calls with a figure.
    pub work: u128,
    /// Calls whose shapes were not recorded.
    pub without_shapes: u64,
    /// Whether the op is not in the cost model.
    pub unknown_op: bool,
    /// Why calls had no figure, with how many.
    pub skipped: BTreeMap<String, u64>,
    /// Calls per shape text (`[64, 512]×[512, 512]`).
    pub shapes: BTreeMap<String, u64>,
    /// Calls per element types text (`float`).
    pub dtypes: BTreeMap<String, u64>,
    /// Per kernel the row launched itself: (launches, ns).
    pub kernels: BTreeMap<String, (u64, i64)>,
}

impl OpStats {
    /// The work per call where every call has a figure of one unit.
    pub(crate) fn work_per_call(&self) -> Option<(Unit, f64)> {
        let unit = self
            .unit
            .filter(|_| !self.mixed_units && self.calls > 0 && self.with_work == self.calls)?;
        Some((unit, self.work as f64 / self.calls as f64))
    }

    fn add_cost(&mut self, c: &Cost, n: u64) {
        match c {
            Cost::Known(w) => match w.amount() {
                Some((unit, amount)) => {
                    self.mixed_units |= self.unit.is_some_and(|u| u != unit);
                    self.unit = Some(unit);
                    self.with_work += n;
                    self.work += amount as u128 * n as u128;
                }
                None => *self.skipped.entry("no element type known".to_string()).or_default() += n,
            },
            Cost::Unknown => self.unknown_op = true,
            Cost::Skipped(why) => *self.skipped.entry(why.clone()).or_default() += n,
        }
    }
}

impl Accumulator for OpStats {
    fn merge(&mut self, o: &Self) {
        self.calls += o.calls;
        self.with_work += o.with_work;
        self.mixed_units |= o.mixed_units || (self.unit.is_some() && o.unit.is_some() && self.unit != o.unit);
        self.unit = self.unit.or(o.unit);
        self.work += o.work;
        self.without_shapes += o.without_shapes;
        self.unknown_op |= o.unknown_op;
        let add = |a: &mut BTreeMap<String, u64>, b: &BTreeMap<String, u64>| {
            for (k, v) in b {
                *a.entry(k.clone()).or_default() += v;
            }
        };
        add(&mut self.skipped, &o.skipped);
        add(&mut self.shapes, &o.shapes);
        add(&mut self.dtypes, &o.dtypes);
        for (k, (n, ns)) in &o.kernels {
            let e = self.kernels.entry(k.clone()).or_default();
            e.0 += n;
            e.1 += ns;
        }
    }
}

pub(crate) use crate::analysis::cost::shapes::COLUMNS;

/// The text id of column `col` at `row`, where the file has the column and the row a value.
fn text_id(file: &TraceFile, col: Option<usize>, row: usize) -> Option<NameId> {
    match file.attrs.columns.get(col?)?.get(row) {
        AttrValue::Text(id) => Some(id),
        _ => None,
    }
}

/// One call's inputs read once per distinct (name, dims, types, values) of a file.
#[derive(Debug, Clone)]
struct Read {
    cost: Cost,
    shapes: String,
    dtypes: String,
}

/// The figures of every operator row of one file, keyed as the operator view keys them.
pub(crate) fn per_file(
    file: &TraceFile,
    iterations: Option<&[i64]>,
    device: Device,
    keying: &Keying,
    inside: Option<&[bool]>,
) -> Accumulated<OpStats> {
    let ev = &file.events;
    let tree = file.call_tree();
    let selected = Selected::new(iterations);
    let cols = COLUMNS.map(|c| file.attrs.column(c).map(|(k, _)| k));
    let mut by_id: FxHashMap<u32, OpStats> = FxHashMap::default();
    let mut reads: FxHashMap<[u32; 4], Option<Read>> = FxHashMap::default();
    let mut counted = vec![false; ev.len()];
    for i in file.row_ranges(iterations).into_iter().flatten() {
        if !tree.is_operator[i]
            || inside.is_some_and(|rows| !rows[i])
            || !device.admits(ev.place[i])
            || !selected.admits(ev.iteration.get(i))
        {
            continue;
        }
        counted[i] = true;
        let ids = cols.map(|c| text_id(file, c, i).map_or(u32::MAX, |id| id.0));
        let key = [ev.name[i].0, ids[0], ids[1], ids[2]];
        let read = reads.entry(key).or_insert_with(|| read(file, i, ids)).as_ref();
        let stats = by_id.entry(ev.name[i].0).or_default();
        stats.calls += 1;
        match read {
            None => stats.without_shapes += 1,
            Some(r) => {
                stats.add_cost(&r.cost, 1);
                *stats.shapes.entry(r.shapes.clone()).or_default() += 1;
                if !r.dtypes.is_empty() {
                    *stats.dtypes.entry(r.dtypes.clone()).or_default() += 1;
                }
            }
        }
    }
    kernels(file, keying, &counted, &mut by_id);
    let mut out: Accumulated<OpStats> = Accumulated::new();
    for (id, stats) in by_id {
        out.entry((None, name_key(file, keying, id))).or_default().merge(&stats);
    }
    out
}

/// The kernels each counted operator row launched itself (the device events it owns), keyed as
/// the kernel view keys its rows.
fn kernels(file: &TraceFile, keying: &Keying, counted: &[bool], by_id: &mut FxHashMap<u32, OpStats>) {
    let ev = &file.events;
    let tree = file.call_tree();
    let mut keys: FxHashMap<u32, String> = FxHashMap::default();
    for j in 0..ev.len() {
        let owner = tree.owner[j];
        if owner == NONE || !counted[owner as usize] {
            continue;
        }
        let name = keys
            .entry(ev.name[j].0)
            .or_insert_with(|| name_key(file, keying, ev.name[j].0));
        if let Some(stats) = by_id.get_mut(&ev.name[owner as usize].0) {
            let e = stats.kernels.entry(name.clone()).or_default();
            e.0 += 1;
            e.1 += ev.dur_ns[j];
        }
    }
}

/// An attribute's text, empty where it holds the column's default (`-1`) or nothing.
fn recorded(t: &str) -> &str {
    if t == "-1" || t == "[]" { "" } else { t }
}

/// The inputs of row `i` read and costed, or `None` where its shapes were not recorded.
fn read(file: &TraceFile, i: usize, ids: [u32; 3]) -> Option<Read> {
    let text = |id: u32| {
        if id == u32::MAX {
            ""
        } else {
            file.strings.resolve(NameId(id))
        }
    };
    let dims = text(ids[0]);
    if dims.is_empty() || dims == "-1" {
        return None;
    }
    let name = file.strings.resolve(file.events.name[i]);
    let types = text(ids[1]);
    let values = text(ids[2]);
    Some(match Call::parse(dims, recorded(types), recorded(values)) {
        Ok(call) => Read {
            cost: cost(name, &call),
            shapes: call.shapes_text(),
            dtypes: call.dtypes_text(),
        },
        Err(why) => Read {
            cost: Cost::Skipped(why),
            shapes: String::new(),
            dtypes: String::new(),
        },
    })
}

/// The figures of side `id` of `loaded` (its selected files and steps; inside `scope`'s node
/// where given), summed over its files: what `explain` and the `--why` columns draw from.
pub(crate) fn side(req: &CompareRequest, loaded: &Loaded, id: SideId, scope: Option<&Scope>) -> Accumulated<OpStats> {
    let keying = req.keying();
    accumulate_side(loaded, id, scope, |f, iterations, inside| {
        per_file(f, iterations, req.device, &keying, inside)
    })
}
