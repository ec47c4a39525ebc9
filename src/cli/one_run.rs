//! `operators`, `kernels`, `overview` and `modules` given one path: that run's own view
//! (docs/semantics.md#one-run).

use super::modules::ModulesArgs;
use super::views::{KernelsArgs, OperatorsArgs, OverviewArgs, ViewOutputArgs, kernels_options, view_options};
use super::{Env, OutputArgs, SelectArgs, emit};
use crate::commands::{self, ModulesOptions, OperatorsOptions, Shown};
use crate::error::{Error, Result};
use crate::output::render::Format;
use crate::output::render::modules::{ModuleOrder, ModuleTime};
use crate::output::render::one_run::{self as render, RunTable, RunTree, run_view_table, write_run_table};
use crate::request::CompareRequest;
use crate::request::side::SidePaths;

/// The request of one run: both sides are the run (read once), with the selection given.
fn run_request(select: &SelectArgs, run: SidePaths) -> CompareRequest {
    let mut req = super::fresh_request(select, run.clone(), run);
    req.test_selection = req.control_selection.clone();
    req
}

/// Prints a run's notes (each once, named `run`) and gives its result or error.
fn finish<T>(done: commands::Done<T>, req: &CompareRequest, env: &mut Env<'_>) -> Result<T> {
    let done = match done {
        Ok(mut outcome) => {
            outcome.notes = commands::notes_of_one_run(outcome.notes, &req.labels);
            Ok(outcome)
        }
        Err(mut failure) => {
            failure.notes = commands::notes_of_one_run(failure.notes, &req.labels);
            Err(failure)
        }
    };
    super::finish(done, env)
}

/// Refuses what only a pair has: a second name, significance, a run-wide shift.
fn refuse(labels: bool, only_significant: bool, no_run_shift: bool) -> Result<()> {
    let given = [
        ("--labels", labels),
        ("--only-significant", only_significant),
        ("--no-run-shift", no_run_shift),
    ];
    match given.iter().find(|(_, g)| *g) {
        Some((flag, _)) => Err(Error::usage(format!(
            "{flag} compares two runs: give CONTROL and TEST (one path shows that run alone)"
        ))),
        None => Ok(()),
    }
}

/// Refuses `--why` with one run: it explains a change.
fn refuse_why(o: &ViewOutputArgs) -> Result<()> {
    if o.why {
        return Err(Error::usage(
            "--why explains what changed between two runs: give CONTROL and TEST (one path shows that run alone)",
        ));
    }
    Ok(())
}

/// Refuses per-side options with one run: its selection is `--rank` and `--iteration`.
fn refuse_sides(select: &super::StepArgs) -> Result<()> {
    let given = [
        ("--control-rank", select.control_rank.is_some()),
        ("--test-rank", select.test_rank.is_some()),
        ("--control-iteration", select.control_iteration.is_some()),
        ("--test-iteration", select.test_iteration.is_some()),
    ];
    match given.iter().find(|(_, g)| *g) {
        Some((flag, _)) => Err(Error::usage(format!(
            "{flag} picks one side of two: one run takes --rank and --iteration"
        ))),
        None => Ok(()),
    }
}

/// Writes a run's table to `-o FILE` or standard output.
fn show(table: &RunTable, output: &OutputArgs, full_names: bool, env: &mut Env<'_>) -> Result<i32> {
    emit(output, full_names, env, |format, style, out| {
        write_run_table(table, format, style, out)
    })
}

fn view_output(out: &ViewOutputArgs) -> OutputArgs {
    OutputArgs {
        format: out.format,
        output: out.output.clone(),
        top: None,
        sort: None,
    }
}

/// The rows of a view cut to `--top`, as a run's table.
fn run_rows(shown: &Shown, top: Option<usize>) -> RunTable {
    let mut rows: Vec<_> = shown.table.rows.iter().collect();
    if let Some(n) = top {
        rows.truncate(n);
    }
    run_view_table(&shown.table, &rows)
}

/// `tracediff operators RUN`.
pub(crate) fn run_operators(args: &OperatorsArgs, env: &mut Env<'_>) -> Result<i32> {
    let o = &args.output;
    refuse(args.pair.labels.is_some(), o.only_significant, o.no_run_shift)?;
    refuse_why(o)?;
    refuse_sides(&args.select.steps)?;
    super::check_output(&view_output(o))?;
    let mut req = run_request(&args.select, args.pair.run()?);
    super::every_step_by_default(&mut req, &args.select);
    req.totals = o.totals;
    let mut options = OperatorsOptions {
        view: view_options(args.zoom.as_ref(), o),
        time: args.time.map(super::views::operator_time),
    };
    options.view.one_run = true;
    let shown = finish(commands::operators(&req, &options), &req, env)?;
    show(&run_rows(&shown, o.top), &view_output(o), false, env)
}

/// `tracediff kernels RUN` (by name, by operator or by class).
pub(crate) fn run_kernels(args: &KernelsArgs, env: &mut Env<'_>) -> Result<i32> {
    let o = &args.output;
    refuse(args.pair.labels.is_some(), o.only_significant, o.no_run_shift)?;
    refuse_why(o)?;
    refuse_sides(&args.select.steps)?;
    if args.aligned {
        return Err(Error::usage(
            "--aligned aligns two runs' kernel sequences: give CONTROL and TEST",
        ));
    }
    super::check_output(&view_output(o))?;
    let mut req = run_request(&args.select, args.pair.run()?);
    super::every_step_by_default(&mut req, &args.select);
    req.totals = o.totals;
    let mut options = kernels_options(args);
    options.view.one_run = true;
    let shown = if args.by_class {
        finish(commands::kernel_classes(&req, &options), &req, env)?
    } else {
        finish(commands::kernels(&req, &options), &req, env)?
    };
    show(&run_rows(&shown, o.top), &view_output(o), false, env)
}

/// `tracediff overview RUN`.
pub(crate) fn run_overview(args: &OverviewArgs, env: &mut Env<'_>) -> Result<i32> {
    args.unused.refuse("overview", "it measures whole steps")?;
    refuse(args.pair.labels.is_some(), false, false)?;
    refuse_sides(&args.select)?;
    let output = OutputArgs {
        format: args.format,
        output: args.output.clone(),
        top: None,
        sort: None,
    };
    super::check_output(&output)?;
    if args.per_step {
        return Err(Error::usage(
            "--per-step: one run's overview has no per-step rows yet; give CONTROL and TEST",
        ));
    }
    let req = run_request(&SelectArgs::from(&args.select), args.pair.run()?);
    let o = finish(commands::overview(&req, &Default::default()), &req, env)?;
    show(&render::run_overview(&o.control), &output, false, env)
}

/// `tracediff modules RUN`.
pub(crate) fn run_modules(args: &ModulesArgs, env: &mut Env<'_>) -> Result<i32> {
    args.unused.refuse(
        "modules",
        "it shows the module tree whole (--time picks host or device time)",
    )?;
    refuse(args.pair.labels.is_some(), args.only_significant, args.no_run_shift)?;
    refuse_sides(&args.select)?;
    let output = OutputArgs {
        format: args.format,
        output: args.output.clone(),
        top: None,
        sort: None,
    };
    let format = super::check_output(&output)?;
    let select = SelectArgs::from(&args.select);
    let mut req = run_request(&select, args.pair.run()?);
    super::every_step_by_default(&mut req, &select);
    let options = ModulesOptions {
        zoom: args.zoom.clone(),
        time: args.time,
        only_significant: false,
        one_run: true,
        totals: args.totals,
    };
    let m = finish(commands::modules(&req, &options), &req, env)?;
    let tree = RunTree {
        depth: args.depth.or(match format {
            Format::Table | Format::Markdown => Some(3),
            Format::Json | Format::Csv => None,
        }),
        min_share: args.min_share,
        largest_first: args.order == ModuleOrder::Delta,
        device: m.time == ModuleTime::Device,
    };
    show(
        &render::run_modules(&m.diff.control, m.top(), tree),
        &output,
        false,
        env,
    )
}
