//! The operator view (docs/semantics.md#operator-and-kernel-views): per `cpu_op`/`Operator` name, calls and host and device,
//! self and total time, per side. Every event counts, as in `compare` (an op nested in an op of
//! the same name counts twice), so `calls` equals `compare`'s count.

use super::Measure;
use super::{
    Accumulated, Accumulator, Loaded, ViewKind, ViewRow, ViewTable, accumulate_groups, accumulate_pair, join, name_key,
    spread_per_node,
};
use crate::analysis::aggregate::Keying;
use crate::analysis::diff::NameFilter;
use crate::analysis::modules::Scope;
use crate::analysis::modules::scopes::{NodeScopes, RowSets};
use crate::analysis::select::{Device, Selected};
use crate::model::calltree::CallTree;
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::request::CompareRequest;
use crate::request::side::SideId;

/// The measures of an operator row, in column order.
pub(crate) const MEASURES: &[Measure] = &[
    Measure::Calls,
    Measure::HostSelf,
    Measure::HostTotal,
    Measure::DeviceSelf,
    Measure::DeviceTotal,
];

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct OpSums([i64; 5]);

impl OpSums {
    /// Adds operator `row` of `file`.
    fn add(&mut self, file: &TraceFile, tree: &CallTree, row: usize) {
        let s = &mut self.0;
        s[0] += 1;
        s[1] += tree.host_self_ns[row];
        s[2] += file.events.dur_ns[row];
        s[3] += tree.device_self_ns[row];
        s[4] += tree.device_total_ns[row];
    }
}

impl Accumulator for OpSums {
    fn merge(&mut self, other: &Self) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
}

/// The operator table of a loaded pair.
/// With `scope` (`--zoom`), only the operators inside one module node count.
pub(crate) fn operators(
    req: &CompareRequest,
    loaded: &Loaded,
    filter: &NameFilter,
    scope: Option<&Scope>,
) -> ViewTable {
    let keying = req.keying();
    let (c, t) = accumulate_pair(loaded, scope, |f, iterations, inside| {
        per_file(f, iterations, req.device, &keying, inside)
    });
    table(req, loaded, join(c, t, filter, values), has_device(loaded))
}

/// The operator tables of many module nodes (as [`operators`] with each node's scope), in one
/// pass over the events.
pub(crate) fn operators_per_node(
    req: &CompareRequest,
    loaded: &Loaded,
    filter: &NameFilter,
    scopes: &NodeScopes,
) -> Vec<ViewTable> {
    let keying = req.keying();
    let sums = accumulate_groups(loaded, scopes, |f, iterations, rows| {
        per_file_per_node(f, iterations, req.device, &keying, rows, scopes.nodes)
    });
    let device = has_device(loaded);
    sums.into_iter()
        .map(|(c, t)| table(req, loaded, join(c, t, filter, values), device))
        .collect()
}

/// Marks the operator tables of many module nodes ([`operators_per_node`]'s, node `n` at
/// index `n`) as [`mark_operator_significance`] marks each one zoomed into its node, reading
/// each sample once for all of them; `shift` the pair's run-wide shift.
pub(crate) fn mark_operators_per_node(
    tables: &mut [ViewTable],
    req: &CompareRequest,
    (loaded, scopes, shift): (&Loaded, &NodeScopes, &crate::analysis::measure::noise::RunShift),
) {
    let keying = req.keying();
    super::per_node_marks::mark_per_node(
        tables,
        (loaded, scopes, shift),
        |f, iterations, rows| per_file_per_node(f, iterations, req.device, &keying, rows, scopes.nodes),
        values,
    );
}

fn values(a: Option<&OpSums>) -> Vec<Option<i64>> {
    a.copied().unwrap_or_default().0.iter().map(|&x| Some(x)).collect()
}

fn table(req: &CompareRequest, loaded: &Loaded, rows: Vec<ViewRow>, has_device: bool) -> ViewTable {
    ViewTable {
        kind: ViewKind::Operators,
        by_operator: false,
        measures: MEASURES,
        rows,
        control: loaded.side_info(SideId::Control, req.side(SideId::Control).label),
        test: loaded.side_info(SideId::Test, req.side(SideId::Test).label),
        request: req.clone(),
        has_device,
        zoom: None,
        significance: false,
        shift: Default::default(),
        classifier: None,
        step_total_ns: [None, None],
        coverage: super::attribution::visible_coverage(loaded),
        step_ns: None,
    }
}

/// Marks the rows of an operator table significant or not per measure (docs/significance.md);
/// a note when it cannot be estimated. `shift`: the pair's run-wide shift where the caller
/// measured it once for many tables, else measured here.
pub(crate) fn mark_operator_significance(
    table: &mut ViewTable,
    req: &CompareRequest,
    loaded: &Loaded,
    scope: Option<&Scope>,
    shift: Option<&crate::analysis::measure::noise::RunShift>,
) -> Option<String> {
    let keying = req.keying();
    super::mark_significance(
        table,
        loaded,
        (scope, shift),
        |f, iterations, inside| per_file(f, iterations, req.device, &keying, inside),
        |a: Option<&OpSums>| a.copied().unwrap_or_default().0.iter().map(|&x| Some(x)).collect(),
    )
}

/// Whether any selected file of either side has a device event.
pub(crate) fn has_device(loaded: &Loaded) -> bool {
    SideId::BOTH
        .iter()
        .any(|&k| loaded.files(k).iter().any(|f| f.events.place.contains(&Place::Device)))
}

fn per_file(
    file: &TraceFile,
    iterations: Option<&[i64]>,
    device: Device,
    keying: &Keying,
    inside: Option<&[bool]>,
) -> Accumulated<OpSums> {
    let ev = &file.events;
    let selected = Selected::new(iterations);
    let tree = file.call_tree();
    let mut by_id: Vec<OpSums> = vec![OpSums::default(); file.strings.len()];
    let mut seen = vec![false; file.strings.len()];
    for i in file.row_ranges(iterations).into_iter().flatten() {
        if !tree.is_operator[i]
            || inside.is_some_and(|rows| !rows[i])
            || !device.admits(ev.place[i])
            || !selected.admits(ev.iteration.get(i))
        {
            continue;
        }
        let id = ev.name[i].index();
        seen[id] = true;
        by_id[id].add(file, tree, i);
    }
    let mut out: Accumulated<OpSums> = Accumulated::new();
    for (id, sums) in by_id.into_iter().enumerate() {
        if seen[id] {
            out.entry((None, name_key(file, keying, id as u32)))
                .or_default()
                .merge(&sums);
        }
    }
    for (key, sums) in super::attribution::non_aten_rows(file, iterations, device, keying, inside) {
        out.entry((None, key)).or_default().merge(&OpSums(sums));
    }
    out
}

/// [`per_file`] for many nodes: one sum per node, from one pass over the file's events.
fn per_file_per_node(
    file: &TraceFile,
    iterations: Option<&[i64]>,
    device: Device,
    keying: &Keying,
    rows: &RowSets,
    nodes: usize,
) -> Vec<Accumulated<OpSums>> {
    let ev = &file.events;
    let selected = Selected::new(iterations);
    let tree = file.call_tree();
    // (node, name id) → sums
    let mut sums: rustc_hash::FxHashMap<(u32, u32), OpSums> = Default::default();
    for i in file.row_ranges(iterations).into_iter().flatten() {
        let inside = rows.of(i);
        if inside.is_empty()
            || !tree.is_operator[i]
            || !device.admits(ev.place[i])
            || !selected.admits(ev.iteration.get(i))
        {
            continue;
        }
        for &node in inside {
            sums.entry((node, ev.name[i].0)).or_default().add(file, tree, i);
        }
    }
    spread_per_node(sums, file, keying, nodes)
}
