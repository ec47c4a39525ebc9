//! What the HTML report (docs/semantics.md#report) shows, computed from one loaded pair: the module diff, the
//! overview, the `compare` rows, and an operator and a kernel table for each module node a user
//! can reach within a few levels of the step. Every number comes from the same functions as the
//! CLI views (`modules`, `operators --zoom`, `kernels --zoom`, `overview`, `compare`), so the page
//! and the terminal agree on the same selection.

use crate::analysis::classes::Classifier;
use crate::analysis::compare::compare_sides;
use crate::analysis::cost::decompose::Parts;
use crate::analysis::diff::{Comparison, NameFilter};
use crate::analysis::flamegraph::{FlameStacks, flame_stacks_default};
use crate::analysis::load::loaded::Loaded;
use crate::analysis::load::side_runs::mean_step_ns_of_loaded;
use crate::analysis::modules::align::{AlignedNode, Status, child_path};
use crate::analysis::modules::noise::{NodeSignificance, module_significance_both};
use crate::analysis::modules::scopes::NodeScopes;
use crate::analysis::modules::{ModuleDiff, modules};
use crate::analysis::views::kernels::kernels_per_node;
use crate::analysis::views::operators::operators_per_node;
use crate::analysis::views::overview::{Overview, overview_for_request};
use crate::analysis::views::sequences::{Aligned, aligned};
use crate::analysis::views::{Measure, SortSide, SortSpec, ViewTable, sort_view_rows};
use crate::error::Result;
use crate::request::CompareRequest;
use crate::request::side::PerSide;

pub(crate) mod headline;
mod marks;
mod runs;
pub(crate) use runs::report_of_runs;

/// How much of the per-node tables goes into the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReportLimits {
    /// Nodes up to this many levels below the step get tables (the step itself is level 0).
    pub depth: usize,
    /// Rows kept per table: the largest |Δ| of the table's main time first.
    pub rows: usize,
}

impl Default for ReportLimits {
    fn default() -> Self {
        ReportLimits { depth: 3, rows: 100 }
    }
}

/// The operator and kernel tables of one module node, cut to the limits.
#[derive(Debug, Clone)]
pub struct NodeTables {
    /// The node's path (`""` for the step).
    pub path: String,
    /// The node's [`AlignedNode::id`].
    pub id: usize,
    /// The operator view inside the node, at most the limit's rows.
    pub operators: ViewTable,
    /// The kernel view inside the node, at most the limit's rows.
    pub kernels: ViewTable,
    /// The node's kernels by class (every kernel of the node, not only the rows kept).
    pub classes: ViewTable,
    /// The row counts before the cut (operators, kernels).
    pub totals: (usize, usize),
}

/// Everything the report shows.
#[derive(Debug, Clone)]
pub struct Report {
    /// What was compared.
    pub request: CompareRequest,
    /// The aligned module trees.
    pub modules: ModuleDiff,
    /// Device, steps, step time and its breakdown, memory, per side.
    pub overview: Overview,
    /// The comparison table (`compare`).
    pub comparison: Comparison,
    /// The operator and kernel tables of the step and of each module node down to the depth
    /// limit.
    pub tables: Vec<NodeTables>,
    /// The depth and rows the tables were cut to.
    pub limits: ReportLimits,
    /// Whether either side has device events (the tables then rank by device time).
    pub has_device: bool,
    /// The stacks of the differential flame graph: device time where either side has device
    /// events (as the module chart shows by default), else host self time.
    pub flame: FlameStacks,
    /// Per module node, whether its host time and its device time (in that order) changed
    /// beyond run-to-run noise (docs/significance.md), or why that was not estimated.
    pub significance: std::result::Result<[NodeSignificance; 2], String>,
    /// The kernel sequences of the selection aligned by class (`kernels --aligned`), where
    /// either side has device events.
    pub aligned: Option<Aligned>,
    /// How many runs each side holds (1: the side is one run). With two or more a side, the
    /// module marks are judged between runs; with one run each, against step-to-step noise.
    pub runs: [usize; 2],
    /// Which runs [`Report::aligned`] compares where a side holds several (the sequences of
    /// one run against one run's: the first of each side).
    pub aligned_runs: Option<[String; 2]>,
    /// The names of the comparison's rows of device events, where it holds host and device
    /// rows alike: the bar charts draw them in a panel of their own. `None`: not known.
    pub device_rows: Option<std::collections::BTreeSet<String>>,
    /// The operators whose self time moved most, as `explain` reads them (the page's "Why"
    /// section); `None` for sides of runs, which `explain` does not read.
    pub why: Option<ReportWhy>,
}

/// The most operator rows the page's "Why" section lists (as `explain`'s `--top` default).
pub(crate) const WHY_ROWS: usize = 10;

/// The changed operator rows of the step as `explain` reads them: the largest changes of self
/// time, each split into calls, work and efficiency, with its causes.
#[derive(Debug, Clone)]
pub struct ReportWhy {
    /// The time the rows are measured by: device self, or host self without device events.
    pub measure: Measure,
    /// The rows of the largest |Δ|, at most [`WHY_ROWS`], the largest first.
    pub rows: Vec<WhyLine>,
    /// How many operator rows changed in all.
    pub changed: usize,
    /// `explain`'s paragraph on the whole change.
    pub summary: String,
    /// Whether the values are per step.
    pub per_step: bool,
}

/// One changed operator as `explain` words it.
#[derive(Debug, Clone)]
pub struct WhyLine {
    /// The operator's name.
    pub name: String,
    /// Its Δ and the three parts (ns; per step where the page's values are).
    pub parts: Parts,
    /// Whether the row has a work figure on both sides (else its work part is not one).
    pub has_work: bool,
    /// Whether its change is beyond run-to-run noise (`None`: not judged).
    pub significant: Option<bool>,
    /// `explain`'s words on the parts (`work ×2.25 (dims …), efficiency ×0.89, calls same`).
    pub reading: String,
    /// The shapes, element types and kernels that changed, in short words.
    pub causes: Vec<String>,
}

/// What reads the step's operator table (every row, per step where the page's values are) with
/// the index of the measure that times its rows, into the page's "Why" section: `explain`,
/// which the command hands in (it sits beside the report, not below it).
pub(crate) type Explain<'a> = &'a dyn Fn(&ViewTable, usize) -> Option<ReportWhy>;

/// [`Explain`] for sides of runs: the table joined over the runs, with each side's figures
/// gathered from all of its runs.
pub(crate) type ExplainRuns<'a> =
    &'a dyn Fn(&ViewTable, usize, &[crate::analysis::explain::Gathered; 2]) -> Option<ReportWhy>;

impl Report {
    /// The note on a run-wide shift that the module marks were judged beyond (or, under
    /// `--no-run-shift`, include), as `modules` prints it; `None` where no shift was found or
    /// significance was not estimated.
    pub fn shift_note(&self) -> Option<String> {
        let marks = self.significance.as_ref().ok()?;
        marks[0].shift_note(self.request.side_labels())
    }
}

/// Builds the report of a loaded pair; `explain` reads the step's operators for the "Why"
/// section.
pub(crate) fn report(
    req: &CompareRequest,
    loaded: &Loaded,
    limits: ReportLimits,
    explain: Explain<'_>,
) -> Result<Report> {
    let filter = NameFilter::new(&req.include, &req.exclude)?;
    let classifier = req.classifier()?;
    let mut diff = modules(req, loaded)?;
    let mut comparison = compare_sides(req, &loaded.control, &loaded.test, &filter)?;
    let device_rows = device_rows(req, loaded, &filter);
    let per_step = PerStep::of(req, loaded);
    let mut nodes = Vec::new();
    reachable(&diff.root, limits.depth, &mut nodes);
    let (tables, why) = all_node_tables(
        req,
        loaded,
        (&filter, &classifier),
        &nodes,
        (limits.rows, per_step),
        explain,
    );
    let has_device = tables.first().is_some_and(|t| t.operators.has_device);
    // The flame graph's default time: device on a GPU pair, as its module chart.
    let mut flame = flame_stacks_default(&diff, loaded, None, &classifier);
    let significance = module_significance_both(req, loaded, &diff);
    let aligned = has_device.then(|| aligned(req, loaded, &classifier));
    // Per-step values (docs/significance.md#per-step-values), as every view shows them; the
    // marks above were judged on the sums' steps.
    if let Some(p) = per_step {
        crate::analysis::modules::runs::per_step(&mut diff, p.steps);
        flame.per_step(p.steps);
        if crate::analysis::load::runs::per_step_rows(&mut comparison) {
            comparison.step_ns = p
                .step_ns
                .iter()
                .all(|(_, &s)| s > 0.0)
                .then_some(p.step_ns.into_array());
        }
    }
    Ok(Report {
        aligned,
        aligned_runs: None,
        device_rows,
        runs: [1, 1],
        significance,
        flame,
        request: req.clone(),
        overview: overview_for_request(loaded, req)?,
        modules: diff,
        comparison,
        tables,
        limits,
        has_device,
        why,
    })
}

/// The row names of the pair's device events, where the request compares host and device alike
/// (the rows `compare --device gpu` gives).
fn device_rows(
    req: &CompareRequest,
    loaded: &Loaded,
    filter: &NameFilter,
) -> Option<std::collections::BTreeSet<String>> {
    use crate::analysis::select::Device;
    if req.device != Device::All {
        return None;
    }
    let mut gpu = req.clone();
    gpu.device = Device::Gpu;
    let rows = compare_sides(&gpu, &loaded.control, &loaded.test, filter).ok()?.rows;
    Some(rows.into_iter().map(|r| r.name).collect())
}

/// How the page's values become per step: each side's selected steps and mean step time.
#[derive(Debug, Clone, Copy)]
struct PerStep {
    steps: PerSide<usize>,
    step_ns: PerSide<f64>,
}

impl PerStep {
    /// `None` under `--totals`, or where each side used one step (the sums are the step's).
    fn of(req: &CompareRequest, loaded: &Loaded) -> Option<PerStep> {
        let steps = loaded.resolved.as_ref().map(crate::analysis::load::runs::steps_of);
        (!req.totals && steps != PerSide::new(1, 1)).then(|| PerStep {
            steps,
            step_ns: PerSide::from_fn(|id| crate::analysis::load::side_runs::mean_step_ns_of_loaded(loaded, id)),
        })
    }

    /// Turns a table's sums into per-step values.
    fn apply(self, table: &mut ViewTable) {
        crate::analysis::views::per_step::per_step_one_run(table, self.steps.into_array(), self.step_ns.into_array());
    }
}

/// The nodes that get tables, with their paths, in tree order: every node but `unknown` ones
/// (which hold no events) down to `depth` levels. An explicit stack: `--table-depth` may be
/// as deep as the model.
fn reachable<'a>(top: &'a AlignedNode, depth: usize, out: &mut Vec<(&'a AlignedNode, String)>) {
    let mut todo = vec![(top, String::new(), 0)];
    while let Some((node, path, level)) = todo.pop() {
        if node.status == Status::Unknown {
            continue;
        }
        if level < depth {
            todo.extend(node.children.iter().rev().map(|c| (c, child_path(&path, c), level + 1)));
        }
        out.push((node, path));
    }
}

/// The tables of every listed node, and the step's operators read by `explain` before the
/// cut. The step holds every selected event: no scope, exactly as the views without `--zoom`.
/// The other nodes' tables come from one pass over the events for all of them, not one per
/// node.
fn all_node_tables(
    req: &CompareRequest,
    loaded: &Loaded,
    (filter, classifier): (&NameFilter, &Classifier),
    nodes: &[(&AlignedNode, String)],
    (rows, per_step): (usize, Option<PerStep>),
    explain: Explain<'_>,
) -> (Vec<NodeTables>, Option<ReportWhy>) {
    let scoped: Vec<&AlignedNode> = nodes.iter().filter(|n| !n.1.is_empty()).map(|n| n.0).collect();
    let scopes = NodeScopes::of(loaded, &scoped);
    let (ops, ks) = rayon::join(
        || operators_per_node(req, loaded, filter, &scopes),
        || kernels_per_node(req, loaded, filter, &scopes),
    );
    let shift = marks::Shift::new();
    let mut scoped = marks::marked_node_tables((req, loaded), &scopes, classifier, (ops, ks), &shift).into_iter();
    let mut why = None;
    let tables = nodes
        .iter()
        .filter_map(|(node, path)| {
            // One set of tables per scoped node, in the nodes' order.
            let mut tables = if path.is_empty() {
                marks::marked_step_tables((req, loaded), filter, classifier, &shift)
            } else {
                scoped.next()?
            };
            if let Some(p) = per_step {
                tables.iter_mut().for_each(|t| p.apply(t));
            }
            if path.is_empty() {
                // The step's mean time, for the paragraph, also where each side used one step
                // (the tables hold that step's sums then, and no per-step values set it).
                if tables[0].step_ns.is_none() && !req.totals {
                    let step_ns = PerSide::from_fn(|id| mean_step_ns_of_loaded(loaded, id)).into_array();
                    tables[0].step_ns = step_ns.iter().all(|&s| s > 0.0).then_some(step_ns);
                }
                why = step_why(&tables[0], explain);
            }
            Some(finish_tables(node.id, path, tables, rows))
        })
        .collect();
    (tables, why)
}

/// The "Why" section of the step's operator table (every row): its rows timed by self time,
/// device self where the pair has device events, as `explain` times them.
pub(super) fn step_why(ops: &ViewTable, explain: Explain<'_>) -> Option<ReportWhy> {
    let measure = if ops.has_device {
        Measure::DeviceSelf
    } else {
        Measure::HostSelf
    };
    let mut why = explain(ops, ops.measure(measure).unwrap_or(0))?;
    why.per_step = ops.rows.iter().any(|r| r.per_step.is_some());
    Some(why)
}

/// A node's operator, kernel and class tables (every row, per step where they are), cut to
/// `rows` and named by the node's `path`.
fn finish_tables(id: usize, path: &str, [mut ops, mut ks, mut classes]: [ViewTable; 3], rows: usize) -> NodeTables {
    let totals = (ops.rows.len(), ks.rows.len());
    let op_time = if ops.has_device {
        Measure::DeviceTotal
    } else {
        Measure::HostTotal
    };
    cut(&mut ops, op_time, rows);
    cut(&mut ks, Measure::DeviceTotal, rows);
    if !path.is_empty() {
        ops.zoom = Some(path.to_string());
        ks.zoom = Some(path.to_string());
        classes.zoom = Some(path.to_string());
    }
    NodeTables {
        path: path.to_string(),
        id,
        operators: ops,
        kernels: ks,
        classes,
        totals,
    }
}

/// Keeps the `rows` rows of largest |Δ| of `measure` (ties by name), as `--top` does.
fn cut(table: &mut ViewTable, measure: Measure, rows: usize) {
    let measure = table.measure(measure).unwrap_or(0);
    let spec = SortSpec::Column {
        side: SortSide::AbsDiff,
        measure,
    };
    sort_view_rows(&mut table.rows, &spec);
    table.rows.truncate(rows);
}
