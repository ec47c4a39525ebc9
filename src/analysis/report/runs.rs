//! The report of two sides of runs (docs/significance.md#several-runs-per-side): every part of
//! the page from the same functions as the commands with runs, so that the page and the
//! terminal agree. The module tree and its between-run marks as `modules`, the flame graph as
//! `flamegraph` (both need every run's events at once, as those commands do), each node's
//! tables as `operators --zoom`, `kernels --zoom` and `kernels --by-class --zoom` (each run's
//! table made alone, then joined), the overview as `overview`, the comparison as `compare`.
//! Each run is read once, for all of them.

use super::{Explain, ExplainRuns, NodeTables, Report, ReportLimits, ReportWhy, finish_tables, reachable, step_why};
use crate::analysis::aggregate::aggregate;
use crate::analysis::classes::Classifier;
use crate::analysis::diff::NameFilter;
use crate::analysis::diff::side_info;
use crate::analysis::explain::Gathered;
use crate::analysis::flamegraph::flame_stacks_default_of;
use crate::analysis::load::loaded::LoadFor;
use crate::analysis::load::loaded::Loaded;
use crate::analysis::load::runs::{Run, steps_of};
use crate::analysis::load::side_runs::{mean_step_ns_of_loaded, run_request};
use crate::analysis::modules::align::AlignedNode;
use crate::analysis::modules::noise::NodeSignificance;
use crate::analysis::modules::runs::{LoadedRuns, load_runs_with, modules_of_runs, per_step, runs_significance};
use crate::analysis::modules::scopes::NodeScopes;
use crate::analysis::modules::{modules, zoom};
use crate::analysis::views::ViewTable;
use crate::analysis::views::classes::classes_of_kernels;
use crate::analysis::views::kernels::{kernels, kernels_per_node};
use crate::analysis::views::operators::{operators, operators_per_node};
use crate::analysis::views::overview::{SideOverview, overview_for_request};
use crate::analysis::views::overview_runs::overview_of_run_overviews;
use crate::analysis::views::runs::{RunTable, join_runs};
use crate::analysis::views::sequences::{Aligned, aligned};
use crate::error::Result;
use crate::request::CompareRequest;
use crate::request::side::{PerSide, SideId, SidePaths};
use std::path::PathBuf;

/// One run's share of the page: its tables of every listed node (operators, kernels, kernel
/// classes), its overview, its rows for the comparison.
struct RunParts {
    tables: Vec<[RunTable; 3]>,
    overview: SideOverview,
    totals: Run,
}

/// The report of `req`, whose sides are read as runs (a side of one run is that run); with the
/// notes of loading.
pub(crate) fn report_of_runs(
    req: &CompareRequest,
    limits: ReportLimits,
    explain: ExplainRuns<'_>,
) -> Result<(Report, Vec<String>)> {
    let filter = NameFilter::new(&req.include, &req.exclude)?;
    let classifier = req.classifier()?;
    // With the operators' input shapes: the "Why" section's work figures.
    let (sides, notes) = load_runs_with(req, LoadFor::view("report").with_shapes(true))?;
    let paths = PerSide::from_fn(|id| run_paths(req, id));
    let (mut diff, trees) = modules_of_runs(req, &sides)?;
    let judge = |device: bool| runs_significance(&diff, &sides, &trees, device);
    let significance: std::result::Result<[NodeSignificance; 2], String> =
        judge(false).and_then(|host| judge(true).map(|device| [host, device]));
    let files = sides.as_ref().map(LoadedRuns::files);
    let mut flame = flame_stacks_default_of(&diff, files.as_ref().map(Vec::as_slice), None, &classifier);
    let mut nodes = Vec::new();
    reachable(&diff.root, limits.depth, &mut nodes);
    let listed: Vec<(usize, String)> = nodes.into_iter().map(|(n, path)| (n.id, path)).collect();
    let node_paths: Vec<&str> = listed.iter().map(|(_, p)| p.as_str()).collect();
    let mut parts: PerSide<Vec<RunParts>> = PerSide::default();
    for id in SideId::BOTH {
        for (loaded, path) in sides[id].runs.iter().zip(&paths[id]) {
            let r = run_request(req, id, path);
            parts[id].push(run_parts(&r, loaded, &node_paths, (&filter, &classifier))?);
        }
    }
    // As a pair's page: device time and the kernel sequences where any run has device events.
    let has_device = parts
        .iter()
        .flat_map(|(_, p)| p)
        .any(|p| p.tables.first().is_some_and(|t| t[0].table.has_device));
    let aligned = has_device.then(|| first_runs_aligned(req, &sides, &paths, &classifier));
    let gathered = gathered_sides(req, &sides, &paths);
    let runs = sides.as_ref().map(|s| s.runs.len());
    let steps = sides.as_ref().map(LoadedRuns::steps);
    // The events are no longer needed: what is left is the runs' aggregates.
    drop(files);
    drop(sides);
    if !req.totals {
        per_step(&mut diff, steps);
        flame.per_step(steps);
    }
    let PerSide { control: c, test: t } = parts;
    let (c_totals, c_overviews, c_tables) = unzip(c);
    let (t_totals, t_overviews, t_tables) = unzip(t);
    let overview = overview_of_run_overviews(req, PerSide::new(c_overviews, t_overviews))?;
    let (comparison, _) = crate::analysis::compare::compare_of_runs(req, &filter, PerSide::new(&c_totals, &t_totals));
    let why_of = |ops: &ViewTable, time: usize| explain(ops, time, &gathered);
    let (tables, why) = join_tables(
        req,
        &listed,
        PerSide::new(c_tables, t_tables),
        (limits.rows, &classifier),
        &why_of,
    );
    let aligned_runs = aligned
        .as_ref()
        .map(|_| paths.as_ref().map(|p| p[0].display().to_string()).into_array());
    let report = Report {
        request: req.clone(),
        modules: diff,
        overview,
        comparison,
        tables,
        limits,
        has_device,
        flame,
        significance,
        aligned,
        runs: runs.into_array(),
        aligned_runs,
        device_rows: None,
        why,
    };
    Ok((report, notes))
}

/// The paths of side `id`'s runs, in the order [`load_runs`] reads them.
fn run_paths(req: &CompareRequest, id: SideId) -> Vec<PathBuf> {
    crate::analysis::load::runs::SideRuns::of(req.side(id).paths).runs
}

/// Splits the runs' parts into their comparison rows, overviews and tables.
fn unzip(parts: Vec<RunParts>) -> (Vec<Run>, Vec<SideOverview>, Vec<Vec<[RunTable; 3]>>) {
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for p in parts {
        out.0.push(p.totals);
        out.1.push(p.overview);
        out.2.push(p.tables);
    }
    out
}

/// What the page takes of one run `loaded` (read alone by `r`, its side 0): the tables of each
/// node path (as `operators --zoom PATH` makes a run's table: the path found in the run's own
/// tree; a path the run lacks gives it no rows), its overview and its comparison rows.
fn run_parts(
    r: &CompareRequest,
    loaded: &Loaded,
    paths: &[&str],
    (filter, classifier): (&NameFilter, &Classifier),
) -> Result<RunParts> {
    let own = modules(r, loaded)?;
    let found: Vec<Option<&AlignedNode>> = paths
        .iter()
        .map(|p| if p.is_empty() { None } else { zoom(&own, Some(p)).ok() })
        .collect();
    let scoped: Vec<&AlignedNode> = found.iter().flatten().copied().collect();
    let scopes = NodeScopes::of(loaded, &scoped);
    let ((ops, ks), root) = rayon::join(
        || {
            rayon::join(
                || operators_per_node(r, loaded, filter, &scopes),
                || kernels_per_node(r, loaded, filter, &scopes),
            )
        },
        || {
            (
                operators(r, loaded, filter, None),
                kernels(r, loaded, filter, false, None),
            )
        },
    );
    let (steps, step_ns) = (
        steps_of(&loaded.resolved.control),
        mean_step_ns_of_loaded(loaded, SideId::Control),
    );
    let mut scoped_tables = ops.into_iter().zip(ks);
    let empty = (no_rows(&root.0), no_rows(&root.1));
    let mut tables = Vec::with_capacity(paths.len());
    for (path, node) in paths.iter().zip(&found) {
        let (ops, mut ks) = match (path.is_empty(), node) {
            (true, _) => root.clone(),
            (false, Some(_)) => scoped_tables.next().unwrap_or_else(|| empty.clone()),
            (false, None) => empty.clone(),
        };
        ks.classifier = Some(classifier.clone());
        let classes = classes_of_kernels(&ks, classifier);
        tables.push([ops, ks, classes].map(|table| RunTable { table, steps, step_ns }));
    }
    let overview = overview_for_request(loaded, r)?.control;
    let resolved = loaded.resolved.control.clone();
    let totals = Run::of_parts(
        aggregate(&loaded.control, &resolved, r.device, &r.keying()),
        side_info(&loaded.control, r.side(SideId::Control).label, resolved),
        step_ns,
    );
    Ok(RunParts {
        tables,
        overview,
        totals,
    })
}

/// `table`'s frame without rows: the tables of a node that this run does not have.
fn no_rows(table: &ViewTable) -> ViewTable {
    let mut t = table.clone();
    t.rows = Vec::new();
    t
}

/// Each node's tables joined over the runs (as `operators`, `kernels` and `kernels --by-class`
/// join them), cut to `rows`.
fn join_tables(
    req: &CompareRequest,
    listed: &[(usize, String)],
    runs: PerSide<Vec<Vec<[RunTable; 3]>>>,
    (rows, classifier): (usize, &Classifier),
    explain: Explain<'_>,
) -> (Vec<NodeTables>, Option<ReportWhy>) {
    let mut why = None;
    // Per side, per run: the node tables in node order, taken one node at a time.
    let mut iters = runs.map(|side| side.into_iter().map(Vec::into_iter).collect::<Vec<_>>());
    let mut out = Vec::with_capacity(listed.len());
    for (id, path) in listed {
        let mut parts: [PerSide<Vec<RunTable>>; 3] = Default::default();
        for k in SideId::BOTH {
            for run in iters[k].iter_mut() {
                if let Some(three) = run.next() {
                    for (part, table) in parts.iter_mut().zip(three) {
                        part[k].push(table);
                    }
                }
            }
        }
        let [ops, ks, classes] = parts.map(|p| join_runs(req, p).0);
        let mut ks = ks;
        ks.classifier = Some(classifier.clone());
        // The step's operators, every row (before the page's cut): the "Why" section.
        if path.is_empty() {
            why = step_why(&ops, explain);
        }
        out.push(finish_tables(*id, path, [ops, ks, classes], rows));
    }
    (out, why)
}

/// Each side's operator figures (input shapes, element types, kernels) gathered from all of its
/// runs, as `explain` on runs gathers them; a side that repeats the other was read once.
fn gathered_sides(req: &CompareRequest, sides: &PerSide<LoadedRuns>, paths: &PerSide<Vec<PathBuf>>) -> [Gathered; 2] {
    let side = |id: SideId| {
        let mut all = Gathered::default();
        for (loaded, path) in sides[id].runs.iter().zip(&paths[id]) {
            let r = run_request(req, id, path);
            all.add_run(Gathered::of_side(&r, loaded, SideId::Control, None));
        }
        all
    };
    [side(SideId::Control), side(SideId::Test)]
}

/// The kernel sequences of the first run of each side aligned by class, where either has
/// device events: a sequence is one run's order, which runs do not average.
fn first_runs_aligned(
    req: &CompareRequest,
    sides: &PerSide<LoadedRuns>,
    paths: &PerSide<Vec<PathBuf>>,
    classifier: &Classifier,
) -> Aligned {
    let first = sides.as_ref().map(|s| &s.runs[0]);
    let pair = Loaded {
        control: first.control.control.clone(),
        test: first.test.control.clone(),
        resolved: first.map(|run| run.resolved.control.clone()),
        notes: Vec::new(),
    };
    let mut r = req.clone();
    r.control = SidePaths::Path(paths.control[0].clone());
    r.test = SidePaths::Path(paths.test[0].clone());
    aligned(&r, &pair, classifier)
}
