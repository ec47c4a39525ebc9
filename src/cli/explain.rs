//! `tracediff explain` (docs/cost-model.md): its options and runner.

use super::views::{CaptureArgs, PairArgs, view_request};
use super::{Env, OutputArgs, SelectArgs, emit, finish};
use crate::commands;
use crate::error::Result;
use crate::output::render::Format;
use crate::output::render::explain::{ExplainView, write};
use clap::Args;
use std::path::PathBuf;

pub(crate) const EXPLAIN_HELP: &str = "\
Rows: the operators whose self time per step changed (device self with device events, else host
self: nested operators are not counted twice), the largest change first. Each row's Δ is split
into three parts that sum to it exactly: calls (the change of calls at the control's time per
call), work (the change of work per call, FLOPs or bytes from the recorded input shapes and
element types, at the control's time per unit of work) and efficiency (the rest). Under each row:
the parts, the shapes, element types and kernels that changed, and the rate achieved with its
share of the device's peak where the device is known. Then one paragraph on the whole change.
Traces recorded without record_shapes=True are explained by calls and time per call.
The cost model and the decomposition: docs/cost-model.md.";

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    #[command(flatten)]
    pub pair: PairArgs,
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub captures: CaptureArgs,
    #[command(flatten)]
    pub fit: super::fit::FitArgs,
    /// Output format [default: from the -o extension (.csv .json .md), else text].
    #[arg(long, value_enum, help_heading = "Output")]
    pub format: Option<Format>,
    /// Write to FILE instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,
    /// Show only the first N rows (the summary covers every changed row).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = super::numbers::count, help_heading = "Output")]
    pub top: usize,
    /// Judge significance against no change even when the whole run moved by one factor
    /// (docs/significance.md#a-run-wide-shift).
    #[arg(long, help_heading = "Output")]
    pub no_run_shift: bool,
}

pub(crate) fn run_explain(args: ExplainArgs, env: &mut Env<'_>) -> Result<i32> {
    let output = OutputArgs {
        format: args.format,
        output: args.output.clone(),
        top: None,
        sort: None,
    };
    super::check_output(&output)?;
    let mut req = view_request(&args.pair, &args.select)?;
    super::every_step_by_default(&mut req, &args.select);
    req.captures = args.captures.sides();
    req.beyond_shift = !args.no_run_shift;
    let explanation = finish(commands::explain(&req, &Default::default()), env)?;
    let view = ExplainView {
        explanation: &explanation,
        top: Some(args.top),
    };
    emit(&output, true, env, |format, style, out| {
        write(&view, format, style, out)
    })
}
