//! `tracediff modules` (docs/semantics.md#module-aligned-diff): its options and runner.

use super::views::{PairArgs, load_view};
use super::{Env, OutputArgs, SelectArgs, emit};
use crate::analysis::modules::{modules, zoom};
use crate::error::Result;
use crate::output::render::Format;
use crate::output::render::modules::{ModuleOrder, ModuleTime, ModuleView, render};
use clap::Args;
use std::path::PathBuf;

pub const MODULES_HELP: &str = "\
The run as a tree of the model's own pieces: nn.Module frames (traces recorded with_stack), user
annotations (record_function, Optimizer.step#…, enumerate(DataLoader)#…) and one `backward` node
per step (the autograd engine's top-level operators), under the step (ProfilerStep). Both sides'
trees are aligned level by level by the longest common subsequence of their keys (the class name
without its _N suffix): never greedily, so a 6-block layer pairs with the first 6 of a 36-block
one and the other 30 are `added`. Among equally long alignments, the one matching the most nodes
inside the pairs wins, then the closest host times, then the earliest pairs. Every node with
children gets an `(unknown)` child: its time that the children do not cover, so children sum to
their parent. Host time is the node's own duration; device time is what the operators inside it
launched. Several steps or ranks are merged node by node (times summed). A trace without module
events falls back to annotations and top-level operators. PATH is the keys below the step with
their ordinals among same-key siblings, e.g. ResNet/Sequential[2]/Bottleneck[4] ([0] may be left
out); --format json gives every node's path.";

#[derive(Debug, Args)]
pub struct ModulesArgs {
    #[command(flatten)]
    pub pair: PairArgs,
    /// Show only this node's subtree (a path such as ResNet/Sequential[2]).
    #[arg(long, value_name = "PATH")]
    pub zoom: Option<String>,
    /// Levels to show below the top node [default: 3 in table and markdown, all in json and csv].
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Fold children smaller than PCT percent of the top node's time into one line.
    #[arg(long, value_name = "PCT", default_value_t = 0.0, value_parser = parse_share)]
    pub min_share: f64,
    /// Sibling order: largest change first, or as they ran.
    #[arg(long, value_enum, default_value_t = ModuleOrder::Delta)]
    pub order: ModuleOrder,
    /// The time that orders, folds and gets a Δ % [default: device where a side has device events].
    #[arg(long, value_enum)]
    pub time: Option<ModuleTime>,
    #[command(flatten)]
    pub select: SelectArgs,
    /// Output format [default: from the -o extension (.csv .json .md), else table].
    #[arg(long, value_enum, help_heading = "Output")]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,
    /// Show names whole in the terminal table, never cut to fit its width.
    #[arg(long, help_heading = "Output")]
    pub full_names: bool,
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

pub fn run_modules(args: ModulesArgs, env: &mut Env<'_>) -> Result<i32> {
    let (req, loaded) = load_view(&args.pair, &args.select, "modules", env)?;
    let diff = modules(&req, &loaded)?;
    super::print_notes(&loaded.overlap_notes(&req.labels), env);
    let top = zoom(&diff, args.zoom.as_deref())?;
    let output = OutputArgs {
        format: args.format,
        output: args.output.clone(),
        top: None,
        sort: None,
    };
    let time = args.time.unwrap_or(if diff.has_device.iter().any(|&d| d) {
        ModuleTime::Device
    } else {
        ModuleTime::Host
    });
    emit(&output, args.full_names, env, |format, style, out| {
        let depth = args.depth.or(match format {
            Format::Table | Format::Markdown => Some(3),
            Format::Json | Format::Csv => None,
        });
        let view = ModuleView {
            diff: &diff,
            top,
            depth,
            min_share: args.min_share,
            order: args.order,
            time,
        };
        out.write_all(render(&view, format, style).as_bytes())
    })
}
