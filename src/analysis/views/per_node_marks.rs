//! The rows of many module nodes' tables marked at once (the report's operator, kernel and
//! class tables of one run per side): each (rank, step) sample read in one pass over its file
//! for every node, then each node's table judged from its own samples exactly as
//! [`super::mark_significance`] judges a table zoomed into that node (docs/significance.md).

use super::{Accumulated, Accumulator, ViewTable, judge, sample_jobs};
use crate::analysis::load::loaded::Loaded;
use crate::analysis::measure::noise::RunShift;
use crate::analysis::modules::scopes::{NodeScopes, RowSets};
use crate::model::store::TraceFile;
use crate::request::side::{PerSide, SideId};
use rayon::prelude::*;

/// Per side, per node, its samples in the order of `jobs` (a table's [`sample_jobs`]): each
/// sample one pass of `per_file` over its file for every node of `scopes`.
fn samples_per_node<A: Accumulator + Sync>(
    loaded: &Loaded,
    scopes: &NodeScopes,
    jobs: &PerSide<Vec<(usize, i64)>>,
    per_file: impl Fn(&TraceFile, Option<&[i64]>, &RowSets) -> Vec<Accumulated<A>> + Sync,
) -> [Vec<Vec<Accumulated<A>>>; 2] {
    let empty = RowSets::default();
    let side = |k: SideId| {
        let files = loaded.files(k);
        let parts: Vec<Vec<Accumulated<A>>> = jobs[k]
            .par_iter()
            .map(|&(i, step)| per_file(files[i], Some(&[step]), scopes.rows(k, i).unwrap_or(&empty)))
            .collect();
        let mut by_node: Vec<Vec<Accumulated<A>>> =
            (0..scopes.nodes).map(|_| Vec::with_capacity(parts.len())).collect();
        for part in parts {
            for (node, sums) in by_node.iter_mut().zip(part) {
                node.push(sums);
            }
        }
        by_node
    };
    let (c, t) = rayon::join(|| side(SideId::Control), || side(SideId::Test));
    [c, t]
}

/// Marks the rows of `tables` (node `n` of `scopes` at index `n`) from samples read once for
/// all of them by `per_file`; `values` as the tables' own. Where significance cannot be
/// estimated (too few steps), the tables are left unjudged. `shift`: the pair's run-wide shift.
pub(crate) fn mark_per_node<A: Accumulator + Sync>(
    tables: &mut [ViewTable],
    (loaded, scopes, shift): (&Loaded, &NodeScopes, &RunShift),
    per_file: impl Fn(&TraceFile, Option<&[i64]>, &RowSets) -> Vec<Accumulated<A>> + Sync,
    values: impl Fn(Option<&A>) -> Vec<Option<i64>> + Copy,
) {
    let Some(jobs) = tables.first().and_then(|t| sample_jobs(t, loaded).ok()) else {
        return;
    };
    let [c, t] = samples_per_node(loaded, scopes, &jobs, per_file);
    for ((table, c), t) in tables.iter_mut().zip(c).zip(t) {
        judge(table, loaded, Some(shift), [&c, &t], values);
    }
}

/// Marks the rows of many nodes' tables and of the tables grouped from them (`grouped[n]` from
/// `tables[n]`: the kernel tables and their by-class tables): the grouped samples are the
/// tables' samples with each key's sums merged under `group(name)`, as the grouped tables are
/// made from the tables.
pub(crate) fn mark_grouped_per_node<A: Accumulator + Sync>(
    (tables, grouped): (&mut [ViewTable], &mut [ViewTable]),
    (loaded, scopes, shift): (&Loaded, &NodeScopes, &RunShift),
    (per_file, group): (
        impl Fn(&TraceFile, Option<&[i64]>, &RowSets) -> Vec<Accumulated<A>> + Sync,
        impl Fn(&str) -> String,
    ),
    values: impl Fn(Option<&A>) -> Vec<Option<i64>> + Copy,
) {
    let Some(jobs) = tables.first().and_then(|t| sample_jobs(t, loaded).ok()) else {
        return;
    };
    let [c, t] = samples_per_node(loaded, scopes, &jobs, per_file);
    let by_group = |samples: &[Accumulated<A>]| -> Vec<Accumulated<A>> {
        samples
            .iter()
            .map(|sample| {
                let mut out: Accumulated<A> = Accumulated::new();
                for ((_, name), sums) in sample {
                    out.entry((None, group(name))).or_default().merge(sums);
                }
                out
            })
            .collect()
    };
    for (((table, g), c), t) in tables.iter_mut().zip(grouped.iter_mut()).zip(c).zip(t) {
        judge(table, loaded, Some(shift), [&c, &t], values);
        judge(g, loaded, Some(shift), [&by_group(&c), &by_group(&t)], values);
    }
}
