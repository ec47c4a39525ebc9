//! A whole comparison, from two paths to a [`Comparison`]: load → select → aggregate → diff.

use crate::analysis::aggregate::{Aggregate, aggregate};
use crate::analysis::diff::side_info;
use crate::analysis::diff::{Comparison, NameFilter, SideInfo, diff_owned};
use crate::analysis::select::{Device, Resolved, resolve};
use crate::error::{Error, Result};
use crate::input::load::{SideOf, SummarySide, load_pair, pair_notes};
use crate::request::side::{PerSide, SideId};
use crate::request::{CompareRequest, check_labels};

/// Loads both sides and compares them. Also returns the notes the loading produced.
///
/// Without `--group-by`, each file is summarised as it is loaded (its events dropped) and the
/// summaries are compared: traces, `tracediff summarize` files, or both. `--group-by` needs the
/// events' attributes, so it reads traces only.
pub(crate) fn compare(req: &CompareRequest) -> Result<(Comparison, Vec<String>)> {
    check_labels(&req.labels)?;
    let filter = NameFilter::new(&req.include, &req.exclude)?;
    let selections = (&req.control_selection, &req.test_selection);
    if !req.is_hta() && req.compares_runs() {
        return compare_runs(req, &filter);
    }
    if req.group_by.is_empty() {
        req.attr_request()?;
        let (control, test) = crate::analysis::summaries::summarize::load_compare_pair_marked(
            req.control
                .single(if req.is_hta() { "compare --hta" } else { "compare" })?,
            req.test
                .single(if req.is_hta() { "compare --hta" } else { "compare" })?,
            selections,
            req.step_marker.as_deref(),
        )?;
        return compare_summaries(req, &filter, &control, &test);
    }
    let (control, test) = load_pair(
        req.control
            .single(if req.is_hta() { "compare --hta" } else { "compare" })?,
        req.test
            .single(if req.is_hta() { "compare --hta" } else { "compare" })?,
        &req.attr_request()?,
        selections,
    )?;
    let (mut comparison, mut notes) = compare_loaded(req, &filter, &control, &test)?;
    if !req.is_hta() {
        comparison.significance = true;
        notes.push("significant is null: it is not estimated with --group-by".to_string());
        if !req.totals {
            crate::analysis::load::runs::per_step_rows(&mut comparison);
            let step_ns = |side: &crate::input::load::Side, resolved: &Resolved| {
                let files: Vec<&crate::model::store::TraceFile> =
                    resolved.ranks.iter().filter_map(|&r| side.file_of_rank(r)).collect();
                crate::analysis::load::runs::mean_step_ns_of_traces(&files, resolved)
            };
            let s = [
                step_ns(&control, &comparison.control.resolved),
                step_ns(&test, &comparison.test.resolved),
            ];
            comparison.step_ns = s.iter().all(|&x| x > 0.0).then_some(s);
        }
    }
    Ok((comparison, notes))
}

/// The comparison of two sides of one run each, summarised: the rows, their significance and
/// their values per step.
fn compare_summaries(
    req: &CompareRequest,
    filter: &NameFilter,
    control: &SummarySide,
    test: &SummarySide,
) -> Result<(Comparison, Vec<String>)> {
    let (mut comparison, mut notes) = compare_loaded(req, filter, control, test)?;
    if !req.is_hta() {
        notes.extend(mark_significance(req, control, test, &mut comparison)?);
        if comparison.rows.iter().any(|r| r.significant.is_some()) {
            notes.push(crate::analysis::load::runs::ONE_RUN_NOTE.to_string());
        }
        if !req.totals {
            crate::analysis::load::runs::per_step_one_run((req.device, &req.keying()), control, test, &mut comparison)?;
        }
    }
    Ok((comparison, notes))
}

/// [`compare`] of a pair of one run each already loaded with its events (`compare --why`,
/// which reads the operators' shapes as well): each file summarised as `compare` summarises
/// it while loading, so the table is the one `compare` gives, from one read of each trace.
pub(crate) fn compare_of_loaded(
    req: &CompareRequest,
    loaded: &crate::analysis::load::loaded::Loaded,
) -> Result<(Comparison, Vec<String>)> {
    check_labels(&req.labels)?;
    let filter = NameFilter::new(&req.include, &req.exclude)?;
    let [control, test] = loaded.summarized(crate::analysis::summaries::summarize::summarize_for_compare, true);
    compare_summaries(req, &filter, &control, &test)
}

/// Compares two sides of which one or both are directories of runs (docs/significance.md):
/// each run aggregated alone, rows per step (unless `--totals`) and judged between runs.
fn compare_runs(req: &CompareRequest, filter: &NameFilter) -> Result<(Comparison, Vec<String>)> {
    use crate::analysis::load::runs::{load_runs, load_runs_whole};
    if !req.group_by.is_empty() {
        return Err(Error::usage(
            "--group-by compares one run per side: give each side's run directory instead of the directory of runs",
        ));
    }
    let keying = req.keying();
    let marker = req.step_marker.as_deref();
    let (mut c, mut notes) = load_runs(req.side(SideId::Control), req.device, &keying, marker)?;
    let (mut t, t_notes) = load_runs(req.side(SideId::Test), req.device, &keying, marker)?;
    notes.extend(t_notes);
    // Like with like: where one side's runs have no steps, the other's are read again whole.
    if let Some(id) = whole_side_of_runs(req, PerSide::new(&c, &t)) {
        let (again, _) = load_runs_whole(req.side(id), req.device, &keying, marker, true)?;
        *(if id == SideId::Control { &mut c } else { &mut t }) = again;
    }
    let (comparison, judged) = compare_of_runs(req, filter, PerSide::new(&c, &t));
    notes.extend(whole_note(&comparison.control, &comparison.test));
    notes.extend(judged);
    Ok((comparison, notes))
}

/// The side of runs to read whole because every run of the other side has no steps and its
/// own steps were left to the default (as [`crate::analysis::select::whole_where_other_has_none`]
/// decides for one run a side).
fn whole_side_of_runs(req: &CompareRequest, runs: PerSide<&Vec<crate::analysis::load::runs::Run>>) -> Option<SideId> {
    if req.is_hta() {
        return None;
    }
    // Whether every run of a side has steps (`None`: only some do).
    let has_steps = |rs: &Vec<crate::analysis::load::runs::Run>| {
        let stepped = rs.iter().filter(|r| r.has_steps()).count();
        (stepped == 0 || stepped == rs.len()).then_some(stepped > 0)
    };
    let k = crate::analysis::select::side_to_take_whole(
        [has_steps(runs.control), has_steps(runs.test)],
        [&req.control_selection, &req.test_selection],
    )?;
    Some(SideId::BOTH[k])
}

/// The comparison of two sides of runs already aggregated (`compare`'s with runs; the report
/// aggregates the runs it read whole), with the notes of the judgement and of the filter.
pub(crate) fn compare_of_runs(
    req: &CompareRequest,
    filter: &NameFilter,
    runs: PerSide<&[crate::analysis::load::runs::Run]>,
) -> (Comparison, Vec<String>) {
    use crate::analysis::load::runs::{judge_runs, side_info};
    let mut notes = Vec::new();
    let (mut rows, step_ns, why_not) = judge_runs(runs, req.totals, req.side_labels());
    notes.extend(why_not);
    if let Some(why) = filter.retain_explained(&mut rows, &req.group_by) {
        notes.push(why);
    }
    let comparison = Comparison {
        control: side_info(runs.control, req.side(SideId::Control).label, &req.control),
        test: side_info(runs.test, req.side(SideId::Test).label, &req.test),
        device: req.device,
        naming: req.naming,
        normalize_names: req.normalize_names,
        python_frames: req.python_frames,
        group_by: Vec::new(),
        include: req.include.clone(),
        exclude: req.exclude.clone(),
        significance: true,
        shift: Default::default(),
        step_ns: (!req.totals && step_ns.iter().all(|(_, &s)| s > 0.0)).then_some(step_ns.into_array()),
        rows,
        why: None,
    };
    (comparison, notes)
}

/// Marks each row significant or not from the per-step (rank × ProfilerStep) totals of the
/// selected steps (docs/significance.md), keeping the marks that stand beyond the scatter of
/// the pair's rows (one run per side: [`crate::analysis::measure::one_run`]). Returns the notes: why it
/// cannot be estimated, a run-wide shift, marks the scatter cleared.
pub(crate) fn mark_significance(
    req: &CompareRequest,
    control: &SummarySide,
    test: &SummarySide,
    comparison: &mut Comparison,
) -> Result<Vec<String>> {
    use crate::analysis::measure::noise::{DEFAULT_K, MIN_STEP_SHARE, mean, significant_beyond};
    comparison.significance = true;
    let (c_res, t_res) = (&comparison.control.resolved, &comparison.test.resolved);
    if c_res.iterations.is_none() || t_res.iterations.is_none() {
        return Ok(vec![crate::analysis::measure::noise::no_steps_note(
            req.step_marker.as_deref(),
        )]);
    }
    if let Some(note) = too_few_samples(req, PerSide::new(control, test), PerSide::new(c_res, t_res)) {
        return Ok(vec![note]);
    }
    let keying = req.keying();
    let c = crate::analysis::measure::per_step::measure(control, c_res, req.device, &keying, false)?;
    let t = crate::analysis::measure::per_step::measure(test, t_res, req.device, &keying, false)?;
    let as_f64 = |v: &[i64]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    let floor = MIN_STEP_SHARE * mean(&as_f64(&c.step_ns));
    let (shift, not_looked_for) = run_shift_of(req, PerSide::new(control, test), PerSide::new(c_res, t_res))?;
    comparison.shift = shift;
    // Where a shift applies, the rows of device events (kernels, copies, sets, GPU annotations)
    // take the device's factor (none where only the host moved) and the others the host's.
    let on_device = if comparison.shift.applied {
        crate::analysis::measure::per_step::device_row_keys([(control, c_res), (test, t_res)], &keying, false)?
    } else {
        Default::default()
    };
    for row in &mut comparison.rows {
        let shift = crate::analysis::measure::threads::row_shift(
            &comparison.shift,
            &row.name,
            on_device.contains(&row.name),
            false,
        );
        row.significant = significant_beyond(
            &c.durations(&row.name),
            &t.durations(&row.name),
            DEFAULT_K,
            floor,
            shift.as_ref(),
        );
    }
    let labels = req.side_labels();
    // `--no-run-shift` asks for the plain rule: the steps' noise alone.
    let tempered = req
        .beyond_shift
        .then(|| {
            let moved = |name: &str| {
                crate::analysis::measure::threads::thread_log_factor(
                    &comparison.shift,
                    name,
                    on_device.contains(name),
                    false,
                )
            };
            temper_one_run(
                &mut comparison.rows,
                PerSide::new(&c, &t),
                (floor, true),
                (labels, &moved),
            )
        })
        .flatten();
    Ok(not_looked_for
        .or_else(|| crate::analysis::measure::shift::shift_note(&comparison.shift, labels, "rows"))
        .into_iter()
        .chain(crate::analysis::measure::threads::threads_note(
            &comparison.shift,
            labels,
            "rows",
        ))
        .chain(tempered)
        .collect())
}

/// The note where a side has fewer than [`crate::analysis::measure::noise::MIN_SAMPLES`] (rank, step)
/// samples in its selection (`resolved`, with ProfilerSteps); `None` where both have enough.
fn too_few_samples(req: &CompareRequest, sides: PerSide<&SummarySide>, resolved: PerSide<&Resolved>) -> Option<String> {
    use crate::analysis::measure::noise::{MIN_SAMPLES, too_few_samples_note};
    let steps = resolved.map(|r| r.iterations.as_ref().map_or(0, Vec::len));
    let samples = PerSide::from_fn(|id| steps[id] * resolved[id].ranks.len());
    if samples.iter().all(|(_, &n)| n >= MIN_SAMPLES) {
        return None;
    }
    let available = sides.map(|side| {
        let steps = |f: &std::sync::Arc<crate::model::summary::FileSummary>| {
            crate::analysis::measure::noise::distinct_steps(f.meta.iterations.iter().map(|s| s.iteration))
        };
        side.files.iter().map(steps).max().unwrap_or(0)
    });
    Some(too_few_samples_note(req.side_labels(), samples, steps, available))
}

/// ln of the factor a row (by name) moved by with its threads ([`crate::analysis::measure::threads`]).
type MovedWith<'a> = dyn Fn(&str) -> f64 + 'a;

/// Keeps the marks of one run per side that stand beyond the scatter of the pair's rows
/// ([`crate::analysis::measure::one_run`]); the note where some were cleared.
fn temper_one_run(
    rows: &mut [crate::analysis::diff::Row],
    samples: PerSide<&crate::analysis::measure::per_step::Samples>,
    (floor, about_center): (f64, bool),
    (labels, moved_with): (PerSide<&str>, &MovedWith<'_>),
) -> Option<String> {
    use crate::analysis::measure::one_run::{PairRow, scatter_note, temper};
    let split = |s: &crate::analysis::measure::per_step::Samples, name: &str| -> (Vec<f64>, Vec<f64>) {
        s.op(name).into_iter().map(|(n, d)| (d as f64, n as f64)).unzip()
    };
    let values: Vec<PerSide<(Vec<f64>, Vec<f64>)>> = rows.iter().map(|r| samples.map(|s| split(s, &r.name))).collect();
    let mut marked: Vec<(PairRow<'_>, &mut Option<bool>)> = values
        .iter()
        .zip(rows.iter_mut())
        .map(|(PerSide { control: c, test: t }, r)| {
            let row = PairRow {
                time: [&c.0, &t.0],
                count: [&c.1, &t.1],
                moved_with: moved_with(&r.name),
            };
            (row, &mut r.significant)
        })
        .collect();
    match temper(&mut marked, floor, about_center) {
        (Some(s), cleared) if cleared > 0 => Some(scatter_note(&s, cleared, labels.into_array())),
        _ => None,
    }
}

/// The run-wide shift of a pair, from the own times its summaries carry (made in the one read
/// of each trace). Not looked for where a side is read from summaries older than the own times
/// (then with a note saying so).
pub(crate) fn run_shift_of(
    req: &CompareRequest,
    sides: PerSide<&SummarySide>,
    resolved: PerSide<&Resolved>,
) -> Result<(crate::analysis::measure::noise::RunShift, Option<String>)> {
    if !crate::analysis::measure::shift::has_own_times(sides) {
        let note = format!(
            "a run-wide shift (the whole run slower or faster, as on another machine) was not looked for: \
             summaries made by tracediff before summary schema {} hold no own times (tracediff summarize \
             the traces again); rows are judged against no change (docs/significance.md#a-run-wide-shift)",
            crate::model::summary::SUMMARY_SCHEMA_OWN_TIMES
        );
        return Ok((Default::default(), req.beyond_shift.then_some(note)));
    }
    let shift = crate::analysis::measure::shift::detect(sides, resolved, req.device, &req.keying(), req.beyond_shift)?;
    Ok((shift, None))
}

fn compare_loaded<T: Aggregate>(
    req: &CompareRequest,
    filter: &NameFilter,
    control: &SideOf<T>,
    test: &SideOf<T>,
) -> Result<(Comparison, Vec<String>)> {
    let mut notes = pair_notes(control, test);
    let mut comparison = compare_sides(req, control, test, &NameFilter::default())?;
    notes.extend(whole_note(&comparison.control, &comparison.test));
    if !req.is_hta() {
        notes.extend(comparability_note(req, control, test)?);
    }
    if comparison.rows.is_empty() {
        notes.push(why_no_events(req, control, test)?);
    } else if let Some(why) = filter.retain_explained(&mut comparison.rows, &req.group_by) {
        notes.push(why);
    }
    Ok((comparison, notes))
}

/// The note where a side with steps was taken whole because the other has none
/// ([`crate::analysis::select::whole_where_other_has_none`]).
pub(crate) fn whole_note(control: &SideInfo, test: &SideInfo) -> Option<String> {
    let [whole, other] = if is_whole_of_steps(control) {
        [control, test]
    } else if is_whole_of_steps(test) {
        [test, control]
    } else {
        return None;
    };
    Some(crate::analysis::select::whole_note_text(
        &other.label,
        &whole.label,
        whole.steps_available,
    ))
}

/// Whether a side has steps but was taken whole.
fn is_whole_of_steps(side: &SideInfo) -> bool {
    side.resolved.iterations.is_none() && side.steps_available > 0
}

/// A note when less than half of either side's device time (host time where neither side has
/// device events) lies in names the other side also has: a name-by-name table then says little
/// (other hardware, other libraries), and the views keyed by operator or module still compare.
fn comparability_note<T: Aggregate>(
    req: &CompareRequest,
    control: &SideOf<T>,
    test: &SideOf<T>,
) -> Result<Option<String>> {
    let by = |device: Device| -> Result<Vec<crate::analysis::diff::Row>> {
        let r = CompareRequest { device, ..req.clone() };
        let mut rows = compare_sides(&r, control, test, &NameFilter::default())?.rows;
        // The steps' own spans (gpu_user_annotation ProfilerStep) are shared by any two runs.
        rows.retain(|r| !r.name.starts_with("ProfilerStep"));
        Ok(rows)
    };
    let mut rows = by(Device::Gpu)?;
    let mut time = "device time";
    if rows.iter().all(|r| r.control.dur_ns == 0 && r.test.dur_ns == 0) {
        rows = by(Device::Cpu)?;
        time = "host time";
    }
    let share = |side: fn(&crate::analysis::diff::Row) -> i64, other: fn(&crate::analysis::diff::Row) -> u64| {
        let total: i64 = rows.iter().map(side).sum();
        let shared: i64 = rows.iter().filter(|r| other(r) > 0).map(side).sum();
        (total > 0).then(|| shared as f64 / total as f64)
    };
    let c = share(|r| r.control.dur_ns, |r| r.test.count);
    let t = share(|r| r.test.dur_ns, |r| r.control.count);
    let (Some(c), Some(t)) = (c, t) else { return Ok(None) };
    if c >= 0.5 && t >= 0.5 {
        return Ok(None);
    }
    Ok(Some(format!(
        "the sides share few names: {:.0}% of {}'s {time} and {:.0}% of {}'s lie in names the other side also has; \
         `kernels --by-class` and `kernels --aligned` compare kernels by what they do and where they stand, \
         `kernels --by-operator` and `modules` by operator and module",
        c * 100.0,
        req.side(SideId::Control).label,
        t * 100.0,
        req.side(SideId::Test).label
    )))
}

/// Why a comparison has no rows before any name filter: the device filter, or a selection
/// without events.
fn why_no_events<T: Aggregate>(req: &CompareRequest, control: &SideOf<T>, test: &SideOf<T>) -> Result<String> {
    let sides = "the selected ranks and iterations of both sides";
    if req.device != Device::All {
        let all = CompareRequest {
            device: Device::All,
            ..req.clone()
        };
        let any = compare_sides(&all, control, test, &NameFilter::default())?.rows.len();
        if any > 0 {
            return Ok(format!(
                "no rows: --device {} removed every event of {sides} ({any} {} of other events)",
                req.device,
                crate::analysis::diff::plural(any, "name", "names")
            ));
        }
    }
    Ok(format!("no rows: {sides} hold no events"))
}

/// Compares two loaded sides.
pub(crate) fn compare_sides<T: Aggregate>(
    req: &CompareRequest,
    control: &SideOf<T>,
    test: &SideOf<T>,
    filter: &NameFilter,
) -> Result<Comparison> {
    let [cl, tl] = &req.labels;
    let mut c_sel = resolve(control, cl, &req.control_selection)?;
    let mut t_sel = resolve(test, tl, &req.test_selection)?;
    if !req.is_hta() {
        crate::analysis::select::whole_where_other_has_none(
            [&mut c_sel, &mut t_sel],
            [&req.control_selection, &req.test_selection],
        );
    }
    let keying = req.keying();
    let (c_tot, t_tot) = rayon::join(
        || aggregate(control, &c_sel, req.device, &keying),
        || aggregate(test, &t_sel, req.device, &keying),
    );
    let mut rows = diff_owned(c_tot, t_tot);
    rows.retain(|r| filter.admits_row(&r.name, &req.group_by));
    Ok(Comparison {
        control: side_info(control, cl, c_sel),
        test: side_info(test, tl, t_sel),
        device: req.device,
        naming: req.naming,
        normalize_names: req.normalize_names,
        python_frames: req.python_frames,
        group_by: req.group_by.clone(),
        include: req.include.clone(),
        exclude: req.exclude.clone(),
        significance: false,
        shift: Default::default(),
        step_ns: None,
        rows,
        why: None,
    })
}
