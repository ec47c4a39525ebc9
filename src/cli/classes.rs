//! `tracediff kernels --by-class` and `--aligned` (docs/kernel-classes.md): the runners.

use super::views::{KernelsArgs, check_view_args, classifier, show};
use super::{Env, OutputArgs, emit, print_notes};
use crate::analysis::classes::sequences::aligned;
use crate::analysis::modules::zoom_scope;
use crate::analysis::views::classes::{kernels_by_class, mark_class_significance};
use crate::analysis::views::kernels;
use crate::error::{Error, Result};
use crate::output::render::aligned::render_aligned;

/// Runs `kernels --by-class` or `kernels --aligned`.
pub(crate) fn run_kernel_classes(args: KernelsArgs, env: &mut Env<'_>) -> Result<i32> {
    if args.aligned {
        return run_aligned(args, env);
    }
    let filter = check_view_args(&args.output, &args.select, kernels::MEASURES)?;
    let classifier = classifier(args.kernel_classes.as_deref())?;
    let (mut req, loaded) = super::views::load_view_captured(&args.pair, &args.select, &args.captures, "kernels", env)?;
    req.beyond_shift = !args.output.no_run_shift;
    let scope = zoom_scope(&req, &loaded, args.zoom.as_deref())?;
    let scope_ref = scope.as_ref().map(|(s, _)| s);
    let mut table = kernels_by_class(&req, &loaded, &filter, &classifier, scope_ref);
    let note = mark_class_significance(&mut table, &req, &loaded, &classifier, scope_ref);
    super::only_significant_can_be_judged(args.output.only_significant, note.as_deref())?;
    print_notes(&note.into_iter().collect::<Vec<_>>(), env);
    table.zoom = scope.map(|(_, path)| path);
    show(table, args.time_measure(), &args.output, env)
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
    let classifier = classifier(args.kernel_classes.as_deref())?;
    let (req, loaded) = super::views::load_view_captured(&args.pair, &args.select, &args.captures, "kernels", env)?;
    let a = aligned(&req, &loaded, &classifier);
    print_notes(&a.notes, env);
    emit(&output, args.output.full_names, env, |format, style, out| {
        out.write_all(render_aligned(&a, format, style).as_bytes())
    })
}
