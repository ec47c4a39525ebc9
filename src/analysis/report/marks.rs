//! The report's operator, kernel and class tables of one run per side, with their rows marked
//! as `operators`, `kernels` and `kernels --by-class` with `--zoom PATH` mark them: against the
//! scatter of the steps inside each run, beyond a run-wide shift (docs/significance.md). The
//! step's tables are the views' without `--zoom`; the other nodes' samples are read once for
//! every node. A report of runs takes its marks from the runs' tables, judged between runs as
//! the views of runs judge them.

use crate::analysis::classes::Classifier;
use crate::analysis::diff::NameFilter;
use crate::analysis::load::loaded::Loaded;
use crate::analysis::measure::noise::RunShift;
use crate::analysis::modules::scopes::NodeScopes;
use crate::analysis::views::classes::{classes_of_kernels, mark_class_significance};
use crate::analysis::views::kernels::{kernels, mark_kernel_significance, mark_kernels_per_node};
use crate::analysis::views::operators::{mark_operator_significance, mark_operators_per_node, operators};
use crate::analysis::views::{ViewTable, sample_jobs};
use crate::request::CompareRequest;
use std::cell::OnceCell;

/// The pair's run-wide shift, measured the first time rows are judged (never where the pair
/// has too few steps to judge any).
pub(super) type Shift = OnceCell<RunShift>;

/// The step's operator, kernel and class tables (every row), marked.
pub(super) fn marked_step_tables(
    (req, loaded): (&CompareRequest, &Loaded),
    filter: &NameFilter,
    classifier: &Classifier,
    shift: &Shift,
) -> [ViewTable; 3] {
    let mut ops = operators(req, loaded, filter, None);
    let mut ks = kernels(req, loaded, filter, false, None);
    // Grouped before the cut: the class rows hold every kernel of the node.
    let mut classes = classes_of_kernels(&ks, classifier);
    if sample_jobs(&ops, loaded).is_ok() {
        let shift = Some(shift.get_or_init(|| loaded.run_shift(req)));
        // The notes say what rows were judged beyond; the page's legend says it once.
        let _ = mark_operator_significance(&mut ops, req, loaded, None, shift);
        let _ = mark_kernel_significance(&mut ks, req, loaded, None, shift);
        let _ = mark_class_significance(&mut classes, req, loaded, classifier, None, shift);
    }
    ks.classifier = Some(classifier.clone());
    [ops, ks, classes]
}

/// The tables of the nodes of `scopes` (their operator and kernel tables given, in the nodes'
/// order) with their class tables, marked.
pub(super) fn marked_node_tables(
    (req, loaded): (&CompareRequest, &Loaded),
    scopes: &NodeScopes,
    classifier: &Classifier,
    (mut ops, mut ks): (Vec<ViewTable>, Vec<ViewTable>),
    shift: &Shift,
) -> Vec<[ViewTable; 3]> {
    let mut classes: Vec<ViewTable> = ks.iter().map(|k| classes_of_kernels(k, classifier)).collect();
    if ops.first().is_some_and(|t| sample_jobs(t, loaded).is_ok()) {
        let shift = shift.get_or_init(|| loaded.run_shift(req));
        mark_operators_per_node(&mut ops, req, (loaded, scopes, shift));
        mark_kernels_per_node((&mut ks, &mut classes), (req, classifier), (loaded, scopes, shift));
    }
    for k in &mut ks {
        k.classifier = Some(classifier.clone());
    }
    ops.into_iter()
        .zip(ks)
        .zip(classes)
        .map(|((o, k), c)| [o, k, c])
        .collect()
}
