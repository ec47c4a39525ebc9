//! `operators`, `kernels` (by name, by operator, by class, aligned) and `overview`
//! (docs/semantics.md#operator-and-kernel-views, docs/semantics.md#overview).

use super::{Done, Notes, collect};
use crate::analysis::classes::Classifier;
use crate::analysis::diff::NameFilter;
use crate::analysis::explain::Gathered;
use crate::analysis::explain::why::{RowKind, WhyStats, WhyTable, shown_sides};
use crate::analysis::load::loaded::{LoadFor, Loaded, load};
use crate::analysis::modules::{Scope, zoom_scope};
use crate::analysis::views::attribution::{coverage, coverage_note};
use crate::analysis::views::overview::{Overview, overview_request};
use crate::analysis::views::runs::{RunTable, join_runs};
use crate::analysis::views::sequences::Aligned;
use crate::analysis::views::{Measure, SortSide, SortSpec, ViewTable, sort_view_rows};
use crate::error::{Error, Result};
use crate::request::CompareRequest;
use crate::request::side::{PerSide, SideId};
use std::path::{Path, PathBuf};

/// The time group the operator table shows (and sorts by, unless told).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperatorTime {
    /// The operator's duration less its direct children's.
    HostSelf,
    /// The operator's duration.
    HostTotal,
    /// The device work it launched itself.
    DeviceSelf,
    /// The device work launched by it or anything under it.
    DeviceTotal,
}

impl OperatorTime {
    fn measure(self) -> Measure {
        match self {
            OperatorTime::HostSelf => Measure::HostSelf,
            OperatorTime::HostTotal => Measure::HostTotal,
            OperatorTime::DeviceSelf => Measure::DeviceSelf,
            OperatorTime::DeviceTotal => Measure::DeviceTotal,
        }
    }
}

/// The time the kernel table shows beside the calls (and sorts by, unless told).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KernelTime {
    /// The kernels' total duration.
    #[default]
    Total,
    /// Their mean duration.
    Mean,
    /// Their shortest duration.
    Min,
    /// Their longest duration.
    Max,
}

impl KernelTime {
    fn measure(self) -> Measure {
        match self {
            KernelTime::Total => Measure::DeviceTotal,
            KernelTime::Mean => Measure::DeviceMean,
            KernelTime::Min => Measure::DeviceMin,
            KernelTime::Max => Measure::DeviceMax,
        }
    }
}

/// What every operator and kernel table takes beside the request.
#[derive(Debug, Clone, Default)]
pub struct ViewOptions {
    /// Only what ran inside this module node (a `modules` path).
    pub zoom: Option<String>,
    /// The row order as `--sort` takes it (`name`, `abs-diff-device-total`, …); `None`: the
    /// largest change of the shown time first.
    pub sort: Option<String>,
    /// Keep only the rows whose shown time changed significantly (refused where significance
    /// cannot be judged).
    pub only_significant: bool,
    /// The request's two sides are one run (`CompareRequest::new(run, run)`, read once): rows
    /// are ordered by the run's own values (a bare measure or `control-KEY` sorts; `name`
    /// too), and significance is not judged.
    pub one_run: bool,
    /// The `--why` columns: each row's change split into calls, work and efficiency, with
    /// its causes (docs/cost-model.md#the-why-columns); the operators' input shapes are read.
    pub why: bool,
}

/// The options of the kernel table.
#[derive(Debug, Clone, Default)]
pub struct KernelsOptions {
    /// Zoom, order and significance.
    pub view: ViewOptions,
    /// Rows keyed by (launching operator, kernel) (not with [`kernel_classes`]).
    pub by_operator: bool,
    /// The time shown beside the calls.
    pub time: KernelTime,
    /// A TOML file of kernel class patterns tried before the built-in rules.
    pub classes: Option<PathBuf>,
}

/// The options of the operator table.
#[derive(Debug, Clone, Default)]
pub struct OperatorsOptions {
    /// Zoom, order and significance.
    pub view: ViewOptions,
    /// The time shown (and sorted by, unless told); `None`: device total where there are
    /// device events, else host total.
    pub time: Option<OperatorTime>,
}

/// The options of the two sides' kernel sequences aligned by class.
#[derive(Debug, Clone, Default)]
pub struct AlignedOptions {
    /// A TOML file of kernel class patterns tried before the built-in rules.
    pub classes: Option<PathBuf>,
}

/// The options of the overview of a pair: none yet. It takes them as every command does (the
/// request, then its options), so that one can come without changing its signature.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct OverviewOptions {}

/// A view's table, sorted and filtered as asked, with the time it shows.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The rows, in order.
    pub table: ViewTable,
    /// The index in `table.measures` of the time shown (and marked significant).
    pub time: usize,
    /// The order the rows are in.
    pub sort: SortSpec,
    /// The `--why` values of the rows, where asked.
    pub why: Option<WhyTable>,
}

/// The operator table of a pair, showing `options.time` (by default device total where there
/// are device events, else host total).
pub fn operators(req: &CompareRequest, options: &OperatorsOptions) -> Done<Shown> {
    use crate::analysis::views::operators::{MEASURES, mark_operator_significance, operators};
    let (time, options) = (options.time, &options.view);
    collect(|notes| {
        let filter = check(req, options, MEASURES)?;
        let view = View {
            command: "operators",
            attribution: true,
            shapes: options.why,
        };
        let (table, read) = view_table(
            req,
            options,
            view,
            notes,
            |r, loaded, s| operators(r, loaded, &filter, s),
            |table, r, loaded, s| mark_operator_significance(table, r, loaded, s, None),
        )?;
        let time = time.unwrap_or(if table.has_device {
            OperatorTime::DeviceTotal
        } else {
            OperatorTime::HostTotal
        });
        let mut shown = shown(table, time.measure(), options)?;
        shown.why = why_columns(req, options, &shown, shown.time, &read, notes)?;
        Ok(shown)
    })
}

/// The kernel table of a pair, by kernel name or by (launching operator, kernel).
pub fn kernels(req: &CompareRequest, options: &KernelsOptions) -> Done<Shown> {
    use crate::analysis::views::kernels::{MEASURES, kernels, mark_kernel_significance};
    collect(|notes| {
        let filter = check(req, &options.view, MEASURES)?;
        let classifier = classifier(options.classes.as_deref())?;
        let by_operator = options.by_operator;
        let view = View {
            command: "kernels",
            attribution: by_operator,
            shapes: options.view.why,
        };
        let (mut table, read) = view_table(
            req,
            &options.view,
            view,
            notes,
            |r, loaded, s| kernels(r, loaded, &filter, by_operator, s),
            |table, r, loaded, s| mark_kernel_significance(table, r, loaded, s, None),
        )?;
        table.classifier = Some(classifier);
        let mut shown = shown(table, options.time.measure(), &options.view)?;
        // A kernel's calls and its total time split, whatever time the table shows.
        let total = shown.table.measure(Measure::DeviceTotal).unwrap_or(shown.time);
        shown.why = why_columns(req, &options.view, &shown, total, &read, notes)?;
        Ok(shown)
    })
}

/// The kernel table of a pair by kernel class (docs/kernel-classes.md), with each side's share
/// of its step time.
pub fn kernel_classes(req: &CompareRequest, options: &KernelsOptions) -> Done<Shown> {
    use crate::analysis::views::classes::{kernels_by_class, mark_class_significance};
    collect(|notes| {
        if options.view.why {
            return Err(Error::usage(
                "--why explains operator and kernel rows, not kernel classes",
            ));
        }
        let filter = check(req, &options.view, crate::analysis::views::kernels::MEASURES)?;
        let classifier = classifier(options.classes.as_deref())?;
        let view = View {
            command: "kernels",
            attribution: false,
            shapes: false,
        };
        let (table, _) = view_table(
            req,
            &options.view,
            view,
            notes,
            |r, loaded, s| kernels_by_class(r, loaded, &filter, &classifier, s),
            |table, r, loaded, s| mark_class_significance(table, r, loaded, &classifier, s, None),
        )?;
        shown(table, options.time.measure(), &options.view)
    })
}

/// What tells one view's table apart in [`view_table`] beside its make and mark.
#[derive(Debug, Clone, Copy)]
pub(super) struct View {
    /// The command the sides are loaded for (`operators`, `kernels`).
    pub command: &'static str,
    /// Whether one run per side gets the notes on overlapping operators and on kernels no
    /// operator launched.
    pub attribution: bool,
    /// Whether the operators' input shapes are loaded (`explain`, `--why`).
    pub shapes: bool,
}

/// The table of one view, the same body for every view: with runs, each run's table made by
/// `make` and joined ([`over_runs`]); with one run per side, the pair loaded, the zoom node
/// found, the table made by `make` and its rows judged by `mark` (unless the two sides are one
/// run), then the notes, the zoom and the per-step values. What was read comes back beside the
/// table ([`ViewRead`]).
pub(super) fn view_table(
    req: &CompareRequest,
    options: &ViewOptions,
    view: View,
    notes: &mut Notes,
    make: impl Fn(&CompareRequest, &Loaded, Option<&Scope>) -> ViewTable,
    mark: impl FnOnce(&mut ViewTable, &CompareRequest, &Loaded, Option<&Scope>) -> Option<String>,
) -> Result<(ViewTable, ViewRead)> {
    if crate::analysis::load::side_runs::compares_runs(req) {
        let what = LoadFor::view(view.command).with_shapes(view.shapes);
        let zoom = options.zoom.as_deref();
        let mut gathered: PerSide<Option<Gathered>> = PerSide::new(None, None);
        let each_run = |id: SideId, r: &CompareRequest, loaded: &Loaded| {
            if !view.shapes {
                return;
            }
            // A run request's control side is the run; a run without the zoomed node ran
            // nothing inside it.
            let run = match zoom_scope(r, loaded, zoom) {
                Ok(scope) => Gathered::of_side(r, loaded, SideId::Control, scope.as_ref().map(|(s, _)| s)),
                Err(_) => Gathered::default(),
            };
            match &mut gathered[id] {
                Some(g) => g.add_run(run),
                slot @ None => *slot = Some(run),
            }
        };
        let (table, note) = over_runs(req, what, zoom, notes, make, each_run)?;
        significance(options, &table, note, notes)?;
        let gathered = view.shapes.then(|| {
            let control = gathered.control.take().unwrap_or_default();
            // A side that repeats the other (one side viewed alone) was read once.
            let test = gathered.test.take().unwrap_or_else(|| control.clone());
            [control, test]
        });
        return Ok((table, ViewRead::Runs(gathered)));
    }
    let what = LoadFor::view(view.command).with_shapes(view.shapes);
    let loaded = crate::analysis::load::loaded::load_with(req, what)?;
    notes.caveats(loaded.notes.iter().cloned());
    let scope = zoom_scope(req, &loaded, options.zoom.as_deref())?;
    let s = scope.as_ref().map(|(s, _)| s);
    let mut table = make(req, &loaded, s);
    let note = if options.one_run {
        None
    } else {
        mark(&mut table, req, &loaded, s)
    };
    significance(options, &table, note, notes)?;
    one_run_note(&table, notes);
    table.zoom = scope.map(|(_, path)| path);
    if view.attribution {
        attribution_notes(req, &loaded, notes);
    }
    per_step(req, &loaded, &mut table);
    Ok((table, ViewRead::Pair(loaded)))
}

/// What a view read beside its table: the pair, or with sides of runs each side's operator
/// figures gathered from every run where the view asked for the input shapes.
pub(super) enum ViewRead {
    /// One run per side, loaded.
    Pair(Loaded),
    /// Sides of runs, read one run at a time; with the shapes, each side's figures.
    Runs(Option<[Gathered; 2]>),
}

/// The two sides' kernel sequences aligned by class, per stream, with the class patterns of
/// `options.classes` tried before the built-in rules.
pub fn aligned(req: &CompareRequest, options: &AlignedOptions) -> Done<Aligned> {
    collect(|notes| {
        let classifier = classifier(options.classes.as_deref())?;
        let loaded = loaded(req, "kernels", notes)?;
        let a = crate::analysis::views::sequences::aligned(req, &loaded, &classifier);
        notes.caveats(a.notes.iter().cloned());
        Ok(a)
    })
}

/// The overview of a pair: device, steps, step time and where it went, GPU busy time, memory.
/// Reads traces or their summaries.
pub fn overview(req: &CompareRequest, _options: &OverviewOptions) -> Done<Overview> {
    collect(|notes| {
        let (o, found) = if crate::analysis::load::side_runs::compares_runs(req) {
            crate::analysis::views::overview_runs::overview_of_runs(req)?
        } else {
            overview_request(req)?
        };
        notes.caveats(found);
        notes.caveats(o.notes());
        Ok(o)
    })
}

/// The table of a view where a side is a directory of runs
/// (docs/significance.md#several-runs-per-side): each run's table made alone by `make` (inside
/// the run's own `zoom` node), then joined; and the note where significance cannot be judged.
/// Each run is loaded as `what` asks and handed to `each_run` with its side (a side that only
/// repeats the other is not: its runs are not read again): what a command reads of the runs
/// beside the table (`explain`'s figures).
pub(super) fn over_runs(
    req: &CompareRequest,
    what: LoadFor<'_>,
    zoom: Option<&str>,
    notes: &mut Notes,
    make: impl Fn(&CompareRequest, &Loaded, Option<&Scope>) -> ViewTable,
    mut each_run: impl FnMut(crate::request::side::SideId, &CompareRequest, &Loaded),
) -> Result<(ViewTable, Option<String>)> {
    use crate::analysis::load::runs::steps_of;
    use crate::analysis::load::side_runs::{map_runs_with, mean_step_ns_of_loaded};
    // Runs whose tables were made, and those of them without the zoomed node (a side given
    // alone is made once and shown as both).
    let (mut made, mut missing) = (0, Vec::new());
    let (runs, found) = map_runs_with(req, what, |id, r, loaded| {
        made += 1;
        each_run(id, r, &loaded);
        let table = match zoom_scope(r, &loaded, zoom) {
            Ok(scope) => {
                let mut table = make(r, &loaded, scope.as_ref().map(|(s, _)| s));
                table.zoom = scope.map(|(_, path)| path);
                table
            }
            // A node some runs lack (added or deleted between the sides, or in a few runs
            // only): nothing ran inside it in this run. Refused below where no run has it.
            Err(e) => {
                missing.push(e);
                let mut table = make(r, &loaded, None);
                table.rows.clear();
                table.zoom = zoom.map(str::to_string);
                table
            }
        };
        Ok(RunTable {
            table,
            steps: steps_of(&loaded.resolved.control),
            step_ns: mean_step_ns_of_loaded(&loaded, crate::request::side::SideId::Control),
        })
    })?;
    if missing.len() == made
        && let Some(e) = missing.into_iter().next()
    {
        return Err(e);
    }
    notes.caveats(found);
    Ok(join_runs(req, runs))
}

/// Gives the rows of a table of one run per side their per-step values where more than one
/// step is used, unless `--totals` or HTA's table (docs/significance.md#per-step-values).
fn per_step(req: &CompareRequest, loaded: &Loaded, table: &mut ViewTable) {
    use crate::analysis::load::runs::steps_of;
    use crate::analysis::load::side_runs::mean_step_ns_of_loaded;
    if req.totals || req.is_hta() {
        return;
    }
    let steps = loaded.resolved.as_ref().map(steps_of).into_array();
    let step_ns = crate::request::side::PerSide::from_fn(|id| mean_step_ns_of_loaded(loaded, id)).into_array();
    crate::analysis::views::per_step::per_step_one_run(table, steps, step_ns);
}

/// Where rows of one run per side were judged, the note on what step-to-step noise cannot
/// tell ([`crate::analysis::load::runs::ONE_RUN_NOTE`]).
fn one_run_note(table: &ViewTable, notes: &mut Notes) {
    if table.rows.iter().any(|r| r.significant.iter().any(Option::is_some)) {
        notes.caveats([crate::analysis::load::runs::ONE_RUN_NOTE.to_string()]);
    }
}

/// The kernel classes: the built-in rules, and those of `path` first.
fn classifier(path: Option<&Path>) -> Result<Classifier> {
    match path {
        Some(p) => Classifier::from_file(p),
        None => Ok(Classifier::builtin()),
    }
}

/// Loads the pair of a view and keeps the load's notes.
pub(super) fn loaded(req: &CompareRequest, command: &str, notes: &mut Notes) -> Result<Loaded> {
    let loaded = load(req, command)?;
    notes.caveats(loaded.notes.iter().cloned());
    Ok(loaded)
}

/// Refuses, before the traces are read, a sort key the table lacks and a bad name pattern;
/// returns the name filter.
fn check(req: &CompareRequest, options: &ViewOptions, measures: &[Measure]) -> Result<NameFilter> {
    if let Some(text) = &options.sort {
        sort_spec(text, measures, options.one_run)?;
    }
    NameFilter::new(&req.include, &req.exclude)
}

/// Keeps the note on why significance could not be judged, or refuses `only_significant`
/// for it: it would keep nothing.
pub(super) fn significance(
    options: &ViewOptions,
    table: &ViewTable,
    note: Option<String>,
    notes: &mut Notes,
) -> Result<()> {
    // A note beside marks (the run-wide or a thread's shift they were judged beyond) is no
    // reason to refuse: only a table of which no row could be judged is.
    let judged = table.rows.iter().any(|r| r.significant.iter().any(Option::is_some));
    only_significant_can_be_judged(options.only_significant && !judged, note.as_deref())?;
    notes.caveats(note);
    Ok(())
}

/// Refuses `only_significant` where significance could not be estimated (`note` says why):
/// it kept nothing, and the footer then read "0 operators" or "0 matched below the step".
pub(crate) fn only_significant_can_be_judged(only_significant: bool, note: Option<&str>) -> Result<()> {
    match note {
        Some(note) if only_significant => Err(Error::usage(format!(
            "--only-significant cannot judge these rows: {note}"
        ))),
        _ => Ok(()),
    }
}

/// The notes on operators that overlap and on kernels no operator launched.
fn attribution_notes(req: &CompareRequest, loaded: &Loaded, notes: &mut Notes) {
    notes.caveats(loaded.overlap_notes(&req.labels));
    notes.caveats(coverage_note(&coverage(loaded), &req.labels));
}

/// Sorts the table (the given key, else the shown time's largest change first) and keeps only
/// the significant rows when asked.
fn shown(mut table: ViewTable, time: Measure, options: &ViewOptions) -> Result<Shown> {
    let time = table.measure(time).unwrap_or(0);
    let sort = match &options.sort {
        Some(text) => sort_spec(text, table.measures, options.one_run)?,
        None => SortSpec::Column {
            side: if options.one_run {
                SortSide::Control
            } else {
                SortSide::AbsDiff
            },
            measure: time,
        },
    };
    sort_view_rows(&mut table.rows, &sort);
    if options.only_significant {
        table.rows.retain(|r| r.significant.get(time) == Some(&Some(true)));
    }
    Ok(Shown {
        table,
        time,
        sort,
        why: None,
    })
}

/// Refuses `compare --why` where a side is a directory of runs: compare's table of runs is
/// made from summaries, which hold no shapes (`operators --why` and `kernels --why` take runs).
pub(super) fn why_can_explain(req: &CompareRequest) -> Result<()> {
    if crate::analysis::load::side_runs::compares_runs(req) {
        return Err(Error::usage(
            "compare --why explains one run per side: give a trace file or a directory of one run's ranks (operators --why and kernels --why take a directory of runs)",
        ));
    }
    Ok(())
}

/// The `--why` values of every row of `shown` where asked: its calls and measure `time`
/// split by the operators' figures (inside the zoom node), and the note where a side recorded
/// no shapes.
fn why_columns(
    req: &CompareRequest,
    options: &ViewOptions,
    shown: &Shown,
    time: usize,
    read: &ViewRead,
    notes: &mut Notes,
) -> Result<Option<WhyTable>> {
    if !options.why {
        return Ok(None);
    }
    let stats = match read {
        ViewRead::Pair(loaded) => {
            let scope = zoom_scope(req, loaded, options.zoom.as_deref())?;
            WhyStats::of(req, loaded, scope.as_ref().map(|(s, _)| s))
        }
        ViewRead::Runs(Some([c, t])) => WhyStats::from_sides([c.stats.clone(), t.stats.clone()]),
        ViewRead::Runs(None) => return Err(Error::usage("--why reads the operators' input shapes")),
    };
    notes.caveats(stats.shapes_note(&req.labels));
    let t = &shown.table;
    let rows = t
        .rows
        .iter()
        .map(|r| {
            let kind = match t.kind {
                crate::analysis::views::ViewKind::Operators => RowKind::Operator,
                _ => RowKind::Kernel(r.operator.as_deref()),
            };
            let calls = [0, 1].map(|k| r.shown(k, 0).unwrap_or(0.0));
            let control = r.shown(0, time).unwrap_or(0.0);
            let delta = r.shown(1, time).unwrap_or(0.0) - control;
            let sides = shown_sides(calls, control, delta);
            ((r.operator.clone(), r.name.clone()), stats.row(&r.name, kind, sides))
        })
        .collect();
    Ok(Some(WhyTable {
        rows,
        shapes: stats.shapes,
        time,
    }))
}

/// A `--sort` key; with one run, a bare measure (`device-total`) sorts by the run's value, and
/// keys of a second side or of a change are refused.
fn sort_spec(text: &str, measures: &[Measure], one_run: bool) -> Result<SortSpec> {
    let parsed = SortSpec::parse(text, measures);
    let spec = match parsed {
        Err(_) if one_run => SortSpec::parse(&format!("control-{text}"), measures).or(parsed),
        other => other,
    }
    .map_err(|e| Error::usage(format!("--sort: {e}")))?;
    match spec {
        SortSpec::Column { side, .. } if one_run && side != SortSide::Control => Err(Error::usage(format!(
            "--sort {text}: one run has no test side nor change; sort by name or a measure (e.g. calls)"
        ))),
        spec => Ok(spec),
    }
}
