//! `tracediff flamegraph` (docs/flamegraph.md): the differential flame graph as SVG, or its
//! folded stacks.

use super::views::{PairArgs, view_request};
use super::{Env, SelectArgs, StepArgs, UnusedRowArgs, finish};
use crate::analysis::flamegraph::FlameTime;
use crate::commands::{self, FlamegraphOptions, Outcome};
use crate::error::{Error, Result};
use crate::output::render::flamegraph::FlameWidths;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

pub(crate) const FLAMEGRAPH_HELP: &str = "\
The module tree as stacks: ProfilerStep, then the module and annotation nodes of `tracediff
modules` (aligned, so a node has one name on both sides; a node only one side has is on that
side only), then the operators that ran inside each node, and with device time (the default on a
pair with kernels; --time host weighs host self time) the kernels they launched. Each stack weighs its self time in nanoseconds, so one side's stacks sum to the
module view's step total (host or device). The SVG is a differential flame graph drawn by
inferno: widths are the test run's time (--widths control: the control run's, which shows what
shrank or vanished), and each frame is coloured by the change of its own time, red more in test,
blue less, full colour at the largest own change (the legend under the frames gives the scale);
the title gives the step's change on host and device and the time drawn. Hover for the full
name and both sides' times, click to zoom, Ctrl+F to search.
--folded writes `frame;frame;… CONTROL_NS TEST_NS` lines (the differential format of
inferno and FlameGraph), --side one side's `frame;frame;… NS` lines (speedscope, pprof and other
viewers read those).";

/// Which side `--side` draws or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FlameSide {
    Control,
    Test,
}

#[derive(Debug, Args)]
pub(crate) struct FlamegraphArgs {
    #[command(flatten)]
    pub pair: PairArgs,
    /// Weigh stacks by host self time, or by the device time of the kernels they launched
    /// [default: device on a pair with kernels under its operators, host otherwise].
    #[arg(long, value_enum)]
    pub time: Option<FlameTime>,
    /// One side's stacks instead of the differential ones.
    #[arg(long, value_enum)]
    pub side: Option<FlameSide>,
    /// Whose times are the differential SVG's widths: test (where it spends its time) or
    /// control (also what shrank or vanished in test).
    #[arg(long, value_enum, default_value_t = FlameWidths::Test, conflicts_with_all = ["side", "folded"])]
    pub widths: FlameWidths,
    /// Kernel-class patterns (TOML) tried before the built-in rules: a kernel frame whose names
    /// differ between the sides is keyed by its class and position (docs/kernel-classes.md).
    #[arg(long, value_name = "FILE")]
    pub kernel_classes: Option<PathBuf>,
    /// Weights as sums over the selected steps and runs; by default they are per step wherever
    /// more than one step or run is used.
    #[arg(long, help_heading = "Output")]
    pub totals: bool,
    #[command(flatten)]
    pub select: StepArgs,
    #[command(flatten)]
    pub captures: super::views::CaptureArgs,
    #[command(flatten)]
    pub unused: UnusedRowArgs,
    /// Write folded stacks (text) instead of the SVG.
    #[arg(long, help_heading = "Output")]
    pub folded: bool,
    /// Write to FILE (.svg for the picture) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,
}

/// Refuses what cannot be written before anything is loaded.
fn check(args: &FlamegraphArgs, env: &Env<'_>) -> Result<()> {
    let is_svg = |p: &Path| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    match (&args.output, args.folded) {
        (Some(p), true) if is_svg(p) => Err(Error::usage(format!(
            "--folded writes text, not an SVG: name the file other than {}",
            p.display()
        ))),
        (Some(p), false) if !is_svg(p) => Err(Error::usage(format!(
            "-o {}: the flame graph is an SVG (name the file .svg), or give --folded for text",
            p.display()
        ))),
        (None, false) if env.terminal_width.is_some() => Err(Error::usage(
            "the flame graph is an SVG: write it with -o diff.svg, or give --folded for text",
        )),
        _ => Ok(()),
    }
}

pub(crate) fn run_flamegraph(mut args: FlamegraphArgs, env: &mut Env<'_>) -> Result<i32> {
    args.output = super::dash_is_stdout(args.output);
    check(&args, env)?;
    args.unused.refuse(
        "flamegraph",
        "it draws the module tree whole (--time picks host or device time)",
    )?;
    let select = SelectArgs::from(&args.select);
    let mut req = view_request(&args.pair, &select)?;
    super::every_step_by_default(&mut req, &select);
    req.kernel_classes = args.kernel_classes.clone();
    req.captures = args.captures.sides();
    let options = FlamegraphOptions {
        time: args.time,
        side: args.side.map(|s| match s {
            FlameSide::Control => commands::FlameSide::Control,
            FlameSide::Test => commands::FlameSide::Test,
        }),
        folded: args.folded,
        widths: args.widths,
        totals: args.totals,
    };
    let bytes = finish(commands::flamegraph(&req, &options), env)?;
    match &args.output {
        Some(path) => {
            let wrote = commands::write_file(path, &bytes)?;
            finish(
                Ok(Outcome {
                    value: (),
                    notes: vec![wrote],
                }),
                env,
            )?;
        }
        None => env
            .stdout
            .write_all(&bytes)
            .and_then(|()| env.stdout.flush())
            .map_err(|e| Error::Output {
                path: PathBuf::from("<stdout>"),
                source: e,
            })?,
    }
    Ok(0)
}
