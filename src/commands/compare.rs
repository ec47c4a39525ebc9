//! `compare` and `ops-diff` (and the comparison `plot` draws): the comparison table of a pair,
//! given or saved.

use super::{Done, Notes, collect};
use crate::analysis::diff::{Comparison, NameFilter};
use crate::analysis::explain::why::{RowKind, WhyStats, WhyTable, shown_sides};
use crate::analysis::load::loaded::{LoadFor, Loaded};
use crate::error::{Error, Result};
use crate::output::state;
use crate::request::CompareRequest;
use crate::request::check_labels;
use std::path::Path;

/// The options of `compare`.
#[derive(Debug, Clone, Default)]
pub struct CompareOptions {
    /// Keep only the rows whose change is significant (refused where significance cannot be
    /// judged).
    pub only_significant: bool,
    /// The `--why` columns (docs/cost-model.md#the-why-columns): the traces are read once, with
    /// the operators' input shapes, for the table and the columns alike.
    pub why: bool,
}

/// The comparison table of a pair (HTA's `compare_traces`, with significance).
pub fn compare(req: &CompareRequest, options: &CompareOptions) -> Done<Comparison> {
    collect(|notes| {
        if options.why {
            if !req.group_by.is_empty() {
                return Err(Error::usage("--why keys rows by name: it does not take --group-by"));
            }
            super::views::why_can_explain(req)?;
        }
        // `--why` (one run a side: checked above) reads the pair once, with the operators'
        // shapes, for the table and the split alike.
        let (loaded, (mut comparison, mut found)) = if options.why {
            let what = LoadFor::view("compare --why").with_shapes(true);
            let loaded = crate::analysis::load::loaded::load_with(req, what)?;
            let compared = crate::analysis::compare::compare_of_loaded(req, &loaded)?;
            (Some(loaded), compared)
        } else {
            (None, crate::analysis::compare::compare(req)?)
        };
        let (c, t) = (&comparison.control, &comparison.test);
        found.extend(crate::request::defaults::rank_sets_warning(
            [&c.label, &t.label],
            [&c.resolved.ranks, &t.resolved.ranks],
            [c.ranks_available, t.ranks_available],
        ));
        if options.only_significant {
            only_significant(&mut comparison, &found)?;
        }
        notes.caveats(found);
        if let Some(loaded) = &loaded {
            comparison.why = Some(why(req, &comparison, loaded, notes));
        }
        Ok(comparison)
    })
}

/// The `--why` values of every row: `loaded`, the pair read with the operators' shapes, each
/// row's count and time as shown split by them (an operator's name by its work, a kernel's by
/// the operator that launched it, any other row by calls and time per call).
fn why(req: &CompareRequest, comparison: &Comparison, loaded: &Loaded, notes: &mut Notes) -> WhyTable {
    let stats = WhyStats::of(req, loaded, None);
    notes.caveats(stats.shapes_note(&req.labels));
    let rows = comparison
        .rows
        .iter()
        .map(|r| {
            let calls = match &r.per_step {
                Some([c, t]) => [c.count, t.count],
                None => [r.control.count as f64, r.test.count as f64],
            };
            let control = r.shown_dur_ns(0) as f64;
            let sides = shown_sides(calls, control, r.shown_diff_dur_ns() as f64);
            ((None, r.name.clone()), stats.row(&r.name, RowKind::Any, sides))
        })
        .collect();
    WhyTable {
        rows,
        shapes: stats.shapes,
        time: 0,
    }
}

/// Keeps the significant rows, or refuses where no row could be judged.
fn only_significant(comparison: &mut Comparison, notes: &[String]) -> Result<()> {
    if !comparison.significance {
        return Err(Error::usage(
            "--only-significant needs the significance of rows, which HTA's table (--hta) does not have",
        ));
    }
    if comparison.rows.iter().all(|r| r.significant.is_none()) {
        let why = notes.iter().find(|n| n.starts_with("significant is null"));
        super::views::only_significant_can_be_judged(true, Some(why.map_or("significant is null", String::as_str)))?;
    }
    comparison.rows.retain(|r| r.significant == Some(true));
    Ok(())
}

/// Which pair a command compares: one given, or the one the last `compare` saved.
pub enum Pair<'a> {
    /// This request.
    Given(Box<CompareRequest>),
    /// The request saved in `state_dir`, changed by `adjust` (the options given now), which
    /// may refuse it.
    Saved {
        /// Where the comparison was saved.
        state_dir: &'a Path,
        /// The options given now, applied to the saved request.
        adjust: &'a (dyn Fn(CompareRequest) -> Result<CompareRequest> + Sync),
    },
}

/// The comparison `ops-diff` lists by category: the pair's, or the saved one (reused as is
/// when the options given do not change which events count, recomputed from the saved paths
/// when they do). It carries no significance note: `ops-diff` and `plot` show none.
pub fn ops_diff(pair: &Pair<'_>) -> Done<Comparison> {
    collect(|notes| comparison_of(pair, notes))
}

pub(super) fn comparison_of(pair: &Pair<'_>, notes: &mut Notes) -> Result<Comparison> {
    match pair {
        Pair::Given(req) => fresh(req, notes),
        Pair::Saved { state_dir, adjust } => saved(state_dir, adjust, notes),
    }
}

fn fresh(req: &CompareRequest, notes: &mut Notes) -> Result<Comparison> {
    let (comparison, found) = crate::analysis::compare::compare(req)?;
    notes.caveats(without_significance(found));
    Ok(comparison)
}

fn saved(
    state_dir: &Path,
    adjust: &(dyn Fn(CompareRequest) -> Result<CompareRequest> + Sync),
    notes: &mut Notes,
) -> Result<Comparison> {
    let (saved, path) = state::load(state_dir)?;
    let req = adjust(saved.request.clone())?;
    notes.info(format!(
        "using the comparison saved in {} ({} vs {})",
        path.display(),
        req.control.shown(),
        req.test.shown()
    ));
    let same_events = saved.request.rows_key() == req.rows_key();
    let saved_unfiltered = saved.request.include.is_empty() && saved.request.exclude.is_empty();
    let same_filter = saved.request.include == req.include && saved.request.exclude == req.exclude;
    let filter = NameFilter::new(&req.include, &req.exclude)?;
    check_labels(&req.labels)?;
    if same_events && (saved_unfiltered || same_filter) {
        let mut c = saved.comparison;
        if let Some(why) = filter.retain_explained(&mut c.rows, &req.group_by) {
            notes.caveats([why]);
        }
        c.include = req.include.clone();
        c.exclude = req.exclude.clone();
        c.control.label = req.labels[0].clone();
        c.test.label = req.labels[1].clone();
        return Ok(c);
    }
    fresh(&req, notes)
}

/// `notes` less the one on why `significant` is null: `ops-diff` and `plot` show no
/// significance, so it would only send the user after `--iteration all` for nothing.
fn without_significance(notes: Vec<String>) -> Vec<String> {
    notes
        .into_iter()
        .filter(|n| !n.starts_with("significant is null"))
        .collect()
}
