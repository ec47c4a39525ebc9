//! `explain`: why each operator row changed, more calls, more work per call or less efficient
//! (docs/cost-model.md).

use super::views::{View, ViewRead, view_table};
use super::{Done, collect};
use crate::analysis::diff::NameFilter;
use crate::analysis::views::Measure;
use crate::analysis::views::operators::{mark_operator_significance, operators};
use crate::request::CompareRequest;

pub use crate::analysis::cost::decompose::{Parts, Ratios, SideCost};
pub use crate::analysis::cost::model::Unit as WorkUnit;
pub use crate::analysis::explain::causes::{Cause, CauseKind};
pub use crate::analysis::explain::{Explained, Explanation};

/// The options of `explain`: none yet. It takes them as every command does (the request, then
/// its options), so that one can come without changing its signature.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ExplainOptions {}

/// The explanation of a pair: every operator row whose self time per step changed (device
/// self where the pair has device events, else host self), largest change first, each split
/// into calls, work and efficiency with its causes named; and the summary.
pub fn explain(req: &CompareRequest, _options: &ExplainOptions) -> Done<Explanation> {
    collect(|notes| {
        let filter = NameFilter::new(&req.include, &req.exclude)?;
        let view = View {
            command: "explain",
            attribution: true,
            shapes: true,
        };
        let options = super::ViewOptions::default();
        let (table, read) = view_table(
            req,
            &options,
            view,
            notes,
            |r, loaded, s| operators(r, loaded, &filter, s),
            |table, r, loaded, s| mark_operator_significance(table, r, loaded, s, None),
        )?;
        let time = time_of(&table);
        let e = match read {
            ViewRead::Pair(loaded) => crate::analysis::explain::explain(req, &loaded, &table, time),
            // Sides of runs: the table joined over the runs and judged between them, each
            // side's figures gathered from all of its runs.
            ViewRead::Runs(gathered) => {
                let sides = gathered.unwrap_or_default();
                crate::analysis::explain::explain_gathered(req, sides, &table, time)
            }
        };
        notes.caveats(e.notes.iter().cloned());
        Ok(e)
    })
}

/// The index of the measure `explain` times rows by: device self time where the pair has
/// device events, else host self time.
fn time_of(table: &crate::analysis::views::ViewTable) -> usize {
    let measure = if table.has_device {
        Measure::DeviceSelf
    } else {
        Measure::HostSelf
    };
    table.measure(measure).unwrap_or(0)
}
