//! `tracediff modules` (docs/semantics.md#module-aligned-diff): its options and runner.

use super::views::RunsArgs;
use super::{Env, OutputArgs, SelectArgs, StepArgs, UnusedRowArgs, emit, finish};
use crate::commands::{self, ModulesOptions};
use crate::error::Result;
use crate::output::render::Format;
use crate::output::render::modules::{ModuleOrder, ModuleTime, ModuleView, write};
use clap::Args;
use std::path::PathBuf;

pub(crate) const MODULES_HELP: &str = "\
The run as a tree of the model's own pieces: nn.Module frames (traces recorded with_stack), user
annotations (record_function, Optimizer.step#…, enumerate(DataLoader)#…), compiled graphs
(keyed without their hash) and one `backward` node per step (the autograd engine's top-level
operators, with the annotations inside them), under the step (ProfilerStep). Both sides' trees
are aligned level by level by the longest common subsequence of their keys (the class name
without its _N suffix): never greedily. Among equally long alignments, the one matching the most
nodes inside the pairs wins, then the earliest pairs; timing never decides. So a 6-block layer
pairs with the first 6 blocks of a 36-block one, in order, and the other 30 are `added` (shown
as one folded row `Bottleneck ×30`; --no-fold shows each). Wrappers (OptimizedModule,
DistributedDataParallel, FullyShardedDataParallel, DataParallel, a module whose only child is one
module) are aligned through, so a compiled model pairs with its eager self. Every node with
children gets an `(unknown)` child: its host time outside the union of its children's intervals
and the device time of kernels it launched itself; never negative. Children that ran concurrently
(other threads) are marked ∥ (children_overlap_us in JSON). Device time counts every kernel a
node's events launched, with or without an operator. Several steps or ranks are merged node by
node; with more than one step or run, values are per step (sums ÷ steps used; --totals for
sums). A side may be a directory of runs (control/run1/ … runN/): the runs' trees are merged and
nodes judged between runs (2 or more runs per side). A trace without module events falls back to annotations and top-level
operators. PATH is the keys below the step with their ordinals among same-key siblings, e.g.
ResNet/Sequential[2]/Bottleneck[4] ([0] may be left out); --format json gives every node's path.
The rules in full: docs/modules.md.";

#[derive(Debug, Args)]
pub(crate) struct ModulesArgs {
    #[command(flatten)]
    pub pair: RunsArgs,
    /// Show only this node's subtree (a path such as ResNet/Sequential[2]).
    #[arg(long, value_name = "PATH")]
    pub zoom: Option<String>,
    /// Levels to show below the top node [default: 3 in table and markdown, all in json and csv].
    #[arg(long, value_name = "N", value_parser = super::numbers::count)]
    pub depth: Option<usize>,
    /// Fold children smaller than PCT percent of the top node's time into one line.
    #[arg(long, value_name = "PCT", default_value_t = 0.0, value_parser = parse_share)]
    pub min_share: f64,
    /// Show every added or deleted sibling on its own row, rather than folding runs of them with
    /// one key into one row (`Bottleneck ×30`).
    #[arg(long)]
    pub no_fold: bool,
    /// Sibling order: largest change first, or as they ran.
    #[arg(long, value_enum, default_value_t = ModuleOrder::Delta)]
    pub order: ModuleOrder,
    /// The time that orders, folds and gets a Δ % [default: device where a side has device events].
    #[arg(long, value_enum)]
    pub time: Option<ModuleTime>,
    /// Keep only the nodes whose time (--time) changed significantly, beyond run-to-run noise and
    /// 1% of the mean step time (between runs with 2 or more runs per side, else between the 3
    /// or more steps of each run; see docs/significance.md), with the nodes above them.
    #[arg(long)]
    pub only_significant: bool,
    /// Judge significance against no change even when the whole run moved by one factor (a
    /// slower or faster machine); by default nodes are judged beyond such a shift
    /// (docs/significance.md#a-run-wide-shift).
    #[arg(long)]
    pub no_run_shift: bool,
    /// Times and calls as sums over the selected steps and runs; by default they are per step
    /// wherever more than one step or run is used.
    #[arg(long, help_heading = "Output")]
    pub totals: bool,
    #[command(flatten)]
    pub select: StepArgs,
    #[command(flatten)]
    pub captures: super::views::CaptureArgs,
    #[command(flatten)]
    pub unused: UnusedRowArgs,
    /// Output format [default: from the -o extension (.csv .json .md), else table].
    #[arg(long, value_enum, help_heading = "Output")]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub fit: super::fit::FitArgs,
}

fn parse_share(s: &str) -> std::result::Result<f64, String> {
    let v: f64 = s
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| format!("'{s}' is not a percentage (e.g. 1 or 2.5%)"))?;
    if !(0.0..=100.0).contains(&v) {
        return Err(format!("'{s}' is outside 0–100%"));
    }
    Ok(v)
}

pub(crate) fn run_modules(args: ModulesArgs, env: &mut Env<'_>) -> Result<i32> {
    let output = OutputArgs {
        format: args.format,
        output: args.output.clone(),
        top: None,
        sort: None,
    };
    // Before the traces are read: they may take seconds to load.
    args.unused.refuse(
        "modules",
        "it shows the module tree whole (--time picks host or device time)",
    )?;
    super::check_output(&output)?;
    let select = SelectArgs::from(&args.select);
    let mut req = args.pair.request(&select)?;
    super::every_step_by_default(&mut req, &select);
    req.beyond_shift = !args.no_run_shift;
    req.captures = args.captures.sides();
    let options = ModulesOptions {
        zoom: args.zoom.clone(),
        time: args.time,
        only_significant: args.only_significant,
        one_run: false,
        totals: args.totals,
    };
    let m = finish(commands::modules(&req, &options), env)?;
    emit(&output, false, env, |format, style, out| {
        let depth = args.depth.or(match format {
            Format::Table | Format::Markdown => Some(3),
            Format::Json | Format::Csv => None,
        });
        let view = ModuleView {
            diff: &m.diff,
            top: m.top(),
            depth,
            min_share: args.min_share,
            order: args.order,
            time: m.time,
            fold_runs: !args.no_fold,
            significance: m.significance.as_ref(),
        };
        write(&view, format, style, out)
    })
}
