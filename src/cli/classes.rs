//! `tracediff kernels --by-class` and `--aligned` (docs/kernel-classes.md): the runners.

use super::views::{KernelsArgs, check_view_output, kernels_options, show};
use super::{Env, OutputArgs, emit, finish};
use crate::commands::{self, AlignedOptions};
use crate::error::{Error, Result};
use crate::output::render::aligned::render_aligned;

/// Runs `kernels --by-class` or `kernels --aligned`.
pub(crate) fn run_kernel_classes(args: KernelsArgs, env: &mut Env<'_>) -> Result<i32> {
    if args.aligned {
        return run_aligned(args, env);
    }
    check_view_output(&args.output)?;
    let mut req = args.pair.request(&args.select)?;
    super::every_step_by_default(&mut req, &args.select);
    req.captures = args.captures.sides();
    req.beyond_shift = !args.output.no_run_shift;
    req.totals = args.output.totals;
    let shown = finish(commands::kernel_classes(&req, &kernels_options(&args)), env)?;
    show(&shown, &args.output, env)
}

/// Refuses the options `--aligned` has no use for: it keeps every position, in aligned order.
fn refuse_for_aligned(args: &KernelsArgs) -> Result<()> {
    let o = &args.output;
    let unused = [
        ("--sort", o.sort.is_some()),
        ("--top", o.top.is_some()),
        ("--only-significant", o.only_significant),
        ("--zoom", args.zoom.is_some()),
        ("--include", !args.select.include.is_empty()),
        ("--exclude", !args.select.exclude.is_empty()),
    ];
    match unused.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(Error::usage(format!(
            "{name} does not apply to --aligned: it shows every position of the sequences, in aligned order"
        ))),
        None => Ok(()),
    }
}

fn run_aligned(args: KernelsArgs, env: &mut Env<'_>) -> Result<i32> {
    refuse_for_aligned(&args)?;
    let output = OutputArgs {
        format: args.output.format,
        output: args.output.output.clone(),
        top: None,
        sort: None,
    };
    super::check_output(&output)?;
    let mut req = args.pair.request(&args.select)?;
    req.captures = args.captures.sides();
    let a = finish(
        commands::aligned(
            &req,
            &AlignedOptions {
                classes: args.kernel_classes.clone(),
            },
        ),
        env,
    )?;
    emit(&output, false, env, |format, style, out| {
        out.write_all(render_aligned(&a, format, style).as_bytes())
    })
}
