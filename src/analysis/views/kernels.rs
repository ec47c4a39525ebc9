//! The kernel view (docs/semantics.md#operator-and-kernel-views): per device event name (not `gpu_user_annotation` spans),
//! calls and total, mean, min and max duration per side; with `--by-operator`, per (launching
//! operator, kernel).

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
use crate::model::calltree::NONE;
use crate::model::owners::WorkKind;
use crate::request::CompareRequest;
use crate::request::side::SideId;

/// What keys a kernel's owner with `--by-operator` (`attribution::owner_slot`).
type OwnerSlot = (WorkKind, u32, u32);
use crate::model::place::Place;
use crate::model::store::TraceFile;

/// The measures of a kernel row, in column order. The mean is the total divided by the calls,
/// in whole nanoseconds (rounded toward zero).
pub(crate) const MEASURES: &[Measure] = &[
    Measure::Calls,
    Measure::DeviceTotal,
    Measure::DeviceMean,
    Measure::DeviceMin,
    Measure::DeviceMax,
];

/// The owner of device events that have none: no host event launched them (a launch outside
/// every operator is owned by what names its work, docs/graphs.md#launch-owners).
pub(crate) const NO_OPERATOR: &str = "(no operator)";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KernelSums {
    calls: i64,
    total: i64,
    min: i64,
    max: i64,
}

impl Default for KernelSums {
    fn default() -> Self {
        KernelSums {
            calls: 0,
            total: 0,
            min: i64::MAX,
            max: i64::MIN,
        }
    }
}

impl KernelSums {
    /// Sums made of `calls` events totalling `total` ns, the shortest `min`, the longest `max`.
    pub(crate) fn of(calls: i64, total: i64, min: i64, max: i64) -> KernelSums {
        KernelSums { calls, total, min, max }
    }

    pub(crate) fn add(&mut self, dur: i64) {
        self.merge(&KernelSums {
            calls: 1,
            total: dur,
            min: dur,
            max: dur,
        });
    }
}

impl Accumulator for KernelSums {
    fn merge(&mut self, o: &Self) {
        self.calls += o.calls;
        self.total += o.total;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
    }
}

pub(crate) fn values(k: Option<&KernelSums>) -> Vec<Option<i64>> {
    match k {
        Some(k) if k.calls > 0 => vec![
            Some(k.calls),
            Some(k.total),
            Some(k.total / k.calls),
            Some(k.min),
            Some(k.max),
        ],
        _ => vec![Some(0), Some(0), None, None, None],
    }
}

/// The kernel table of a loaded pair.
/// With `scope` (`--zoom`), only the kernels launched inside one module node count.
pub(crate) fn kernels(
    req: &CompareRequest,
    loaded: &Loaded,
    filter: &NameFilter,
    by_operator: bool,
    scope: Option<&Scope>,
) -> ViewTable {
    let keying = req.keying();
    let (c, t) = accumulate_pair(loaded, scope, |f, iterations, inside| {
        per_file(f, iterations, req.device, &keying, by_operator, inside)
    });
    let has_device = super::operators::has_device(loaded);
    table(req, loaded, by_operator, join(c, t, filter, values), has_device)
}

/// The kernel tables (not by operator) of many module nodes (as [`kernels`] with each node's
/// scope), in one pass over the events.
pub(crate) fn kernels_per_node(
    req: &CompareRequest,
    loaded: &Loaded,
    filter: &NameFilter,
    scopes: &NodeScopes,
) -> Vec<ViewTable> {
    let keying = req.keying();
    let sums = accumulate_groups(loaded, scopes, |f, iterations, rows| {
        per_file_per_node(f, iterations, req.device, &keying, rows, scopes.nodes)
    });
    let has_device = super::operators::has_device(loaded);
    sums.into_iter()
        .map(|(c, t)| table(req, loaded, false, join(c, t, filter, values), has_device))
        .collect()
}

/// Marks the kernel tables of many module nodes ([`kernels_per_node`]'s, node `n` at index
/// `n`) and their by-class tables (`classes[n]` grouped from `kernels[n]`) as
/// [`mark_kernel_significance`] and the class view mark each one zoomed into its node, reading
/// each sample once for all of them; `shift` the pair's run-wide shift.
pub(crate) fn mark_kernels_per_node(
    (kernels, classes): (&mut [ViewTable], &mut [ViewTable]),
    (req, classifier): (&CompareRequest, &crate::analysis::classes::Classifier),
    (loaded, scopes, shift): (&Loaded, &NodeScopes, &crate::analysis::measure::noise::RunShift),
) {
    let keying = req.keying();
    super::per_node_marks::mark_grouped_per_node(
        (kernels, classes),
        (loaded, scopes, shift),
        (
            |f: &TraceFile, iterations: Option<&[i64]>, rows: &RowSets| {
                per_file_per_node(f, iterations, req.device, &keying, rows, scopes.nodes)
            },
            |name: &str| classifier.classify(name).name().to_string(),
        ),
        values,
    );
}

fn table(req: &CompareRequest, loaded: &Loaded, by_operator: bool, rows: Vec<ViewRow>, has_device: bool) -> ViewTable {
    ViewTable {
        kind: ViewKind::Kernels,
        by_operator,
        measures: MEASURES,
        rows,
        control: loaded.side_info(SideId::Control, req.side(SideId::Control).label),
        test: loaded.side_info(SideId::Test, req.side(SideId::Test).label),
        request: req.clone(),
        has_device,
        zoom: None,
        significance: false,
        shift: Default::default(),
        classifier: Some(crate::analysis::classes::Classifier::builtin()),
        step_total_ns: [None, None],
        coverage: by_operator
            .then(|| super::attribution::visible_coverage(loaded))
            .flatten(),
        step_ns: None,
    }
}

/// Marks the rows of a kernel table significant or not per measure (calls and total; not the
/// mean, min or max) (docs/significance.md); a note when it cannot be estimated. `shift`: the pair's run-wide shift where the caller
/// measured it once for many tables, else measured here.
pub(crate) fn mark_kernel_significance(
    table: &mut ViewTable,
    req: &CompareRequest,
    loaded: &Loaded,
    scope: Option<&Scope>,
    shift: Option<&crate::analysis::measure::noise::RunShift>,
) -> Option<String> {
    let keying = req.keying();
    let by_operator = table.by_operator;
    super::mark_significance(
        table,
        loaded,
        (scope, shift),
        |f, iterations, inside| per_file(f, iterations, req.device, &keying, by_operator, inside),
        values,
    )
}

fn per_file(
    file: &TraceFile,
    iterations: Option<&[i64]>,
    device: Device,
    keying: &Keying,
    by_operator: bool,
    inside: Option<&[bool]>,
) -> Accumulated<KernelSums> {
    let ev = &file.events;
    let selected = Selected::new(iterations);
    // (owner's kind, owner's name id or NONE, captured launch or node, kernel name id) → (a
    // row of it, sums)
    let mut sums: rustc_hash::FxHashMap<(OwnerSlot, u32), (usize, KernelSums)> = Default::default();
    for i in file.row_ranges(iterations).into_iter().flatten() {
        if ev.place[i] != Place::Device
            || inside.is_some_and(|rows| !rows[i])
            || !device.admits(ev.place[i])
            || !selected.admits(ev.iteration.get(i))
        {
            continue;
        }
        let owner = if by_operator {
            super::attribution::owner_slot(file, i)
        } else {
            (WorkKind::None, NONE, NONE)
        };
        let entry = sums.entry((owner, ev.name[i].0)).or_insert((i, KernelSums::default()));
        entry.1.add(ev.dur_ns[i]);
    }
    let mut out: Accumulated<KernelSums> = Accumulated::new();
    for ((_, name), (row, s)) in sums {
        let op_key = by_operator
            .then(|| super::attribution::owner_key(file, keying, row).unwrap_or_else(|| NO_OPERATOR.to_string()));
        out.entry((op_key, name_key(file, keying, name))).or_default().merge(&s);
    }
    out
}

/// [`per_file`] (not by operator) for many nodes: one sum per node, from one pass over the
/// file's events.
fn per_file_per_node(
    file: &TraceFile,
    iterations: Option<&[i64]>,
    device: Device,
    keying: &Keying,
    rows: &RowSets,
    nodes: usize,
) -> Vec<Accumulated<KernelSums>> {
    let ev = &file.events;
    let selected = Selected::new(iterations);
    // (node, kernel name id) → sums
    let mut sums: rustc_hash::FxHashMap<(u32, u32), KernelSums> = Default::default();
    for i in file.row_ranges(iterations).into_iter().flatten() {
        let inside = rows.of(i);
        if inside.is_empty()
            || ev.place[i] != Place::Device
            || !device.admits(ev.place[i])
            || !selected.admits(ev.iteration.get(i))
        {
            continue;
        }
        for &node in inside {
            sums.entry((node, ev.name[i].0)).or_default().add(ev.dur_ns[i]);
        }
    }
    spread_per_node(sums, file, keying, nodes)
}
