//! The kernel table by class (`kernels --by-class`, docs/kernel-classes.md): one row per
//! class of [`crate::analysis::classes`], with the kernel view's measures summed over the
//! kernels of the class, so the rows sum exactly to the kernel total.

use super::kernels::{KernelSums, MEASURES, values};
use super::{Accumulated, Accumulator, Loaded, ViewKind, ViewRow, ViewTable, accumulate_pair, join};
use crate::analysis::classes::Classifier;
use crate::analysis::diff::NameFilter;
use crate::analysis::modules::Scope;
use crate::analysis::select::{Device, Selected};
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::request::CompareRequest;
use crate::request::side::SideId;

/// The by-class kernel table of a loaded pair: rows named by class, `--include`/`--exclude`
/// matching the class names. With `scope` (`--zoom`), only the kernels launched inside one
/// module node count.
pub(crate) fn kernels_by_class(
    req: &CompareRequest,
    loaded: &Loaded,
    filter: &NameFilter,
    classifier: &Classifier,
    scope: Option<&Scope>,
) -> ViewTable {
    let (c, t) = accumulate_pair(loaded, scope, |f, iterations, inside| {
        per_file(f, iterations, req.device, classifier, inside)
    });
    ViewTable {
        kind: ViewKind::Classes,
        by_operator: false,
        measures: MEASURES,
        rows: join(c, t, filter, values),
        control: loaded.side_info(SideId::Control, req.side(SideId::Control).label),
        test: loaded.side_info(SideId::Test, req.side(SideId::Test).label),
        request: req.clone(),
        has_device: super::operators::has_device(loaded),
        zoom: None,
        significance: false,
        shift: Default::default(),
        classifier: Some(classifier.clone()),
        step_total_ns: [step_total(loaded, SideId::Control), step_total(loaded, SideId::Test)],
        coverage: None,
        step_ns: None,
    }
}

/// Marks the rows of a by-class table significant or not (calls and total), as the kernel
/// table's (docs/significance.md); a note when it cannot be estimated. `shift`: the pair's run-wide shift where the caller
/// measured it once for many tables, else measured here.
pub(crate) fn mark_class_significance(
    table: &mut ViewTable,
    req: &CompareRequest,
    loaded: &Loaded,
    classifier: &Classifier,
    scope: Option<&Scope>,
    shift: Option<&crate::analysis::measure::noise::RunShift>,
) -> Option<String> {
    super::mark_significance(
        table,
        loaded,
        (scope, shift),
        |f, iterations, inside| per_file(f, iterations, req.device, classifier, inside),
        values,
    )
}

/// The summed duration of side `k`'s selected steps over its selected ranks; `None` without
/// ProfilerStep.
pub(crate) fn step_total(loaded: &Loaded, k: SideId) -> Option<i64> {
    let iterations = loaded.resolved[k].iterations.as_deref()?;
    let selected = Selected::new(Some(iterations));
    Some(
        loaded
            .files(k)
            .iter()
            .flat_map(|f| f.step_durations_ns(|n| selected.admits(n)))
            .sum(),
    )
}

fn per_file(
    file: &TraceFile,
    iterations: Option<&[i64]>,
    device: Device,
    classifier: &Classifier,
    inside: Option<&[bool]>,
) -> Accumulated<KernelSums> {
    let ev = &file.events;
    let selected = Selected::new(iterations);
    let classes = classifier.file_classes(file);
    let mut sums = [KernelSums::default(); 12];
    for i in file.row_ranges(iterations).into_iter().flatten() {
        if ev.place[i] != Place::Device
            || inside.is_some_and(|rows| !rows[i])
            || !device.admits(ev.place[i])
            || !selected.admits(ev.iteration.get(i))
        {
            continue;
        }
        sums[classes[ev.name[i].index()] as usize].add(ev.dur_ns[i]);
    }
    let mut out: Accumulated<KernelSums> = Accumulated::new();
    for (class, s) in crate::analysis::classes::KernelClass::ALL.iter().zip(sums) {
        if s != KernelSums::default() {
            out.entry((None, class.name().to_string())).or_default().merge(&s);
        }
    }
    out
}

/// The by-class table of a kernel table (not by operator): its rows grouped by the class of
/// their name, each class the sum of its kernels' calls and totals and the least and greatest
/// of their minima and maxima. Built from the whole table, before any cut, the rows sum to the
/// kernel total exactly as [`kernels_by_class`]'s; the report groups each module node's kernel
/// table this way instead of reading the events once more per node.
pub(crate) fn classes_of_kernels(kernels: &ViewTable, classifier: &Classifier) -> ViewTable {
    let mut sums: [[KernelSums; 2]; 12] = [[KernelSums::default(); 2]; 12];
    for row in &kernels.rows {
        let class = classifier.classify(&row.name) as usize;
        for (side, values) in [&row.control, &row.test].into_iter().enumerate() {
            if let Some(s) = sums_of(values) {
                sums[class][side].merge(&s);
            }
        }
    }
    let rows = crate::analysis::classes::KernelClass::ALL
        .iter()
        .zip(sums)
        .filter(|(_, s)| s.iter().any(|s| *s != KernelSums::default()))
        .map(|(class, [c, t])| ViewRow {
            operator: None,
            name: class.name().to_string(),
            control: values(Some(&c)),
            test: values(Some(&t)),
            significant: Vec::new(),
            per_step: None,
        })
        .collect();
    ViewTable {
        kind: ViewKind::Classes,
        by_operator: false,
        measures: MEASURES,
        rows,
        control: kernels.control.clone(),
        test: kernels.test.clone(),
        request: kernels.request.clone(),
        has_device: kernels.has_device,
        zoom: kernels.zoom.clone(),
        significance: false,
        shift: Default::default(),
        classifier: Some(classifier.clone()),
        step_total_ns: kernels.step_total_ns,
        coverage: None,
        step_ns: None,
    }
}

/// A kernel row's sums back from its values (calls, total, mean, min, max); `None` for a side
/// without calls.
fn sums_of(values: &[Option<i64>]) -> Option<KernelSums> {
    match values {
        [Some(calls), Some(total), _, Some(min), Some(max)] if *calls > 0 => {
            Some(KernelSums::of(*calls, *total, *min, *max))
        }
        _ => None,
    }
}
