//! `explain`: why each operator row changed, more calls, more work per call or less efficient
//! (docs/cost-model.md).

use super::views::{View, view_table};
use super::{Done, collect};
use crate::analysis::diff::NameFilter;
use crate::analysis::views::Measure;
use crate::analysis::views::operators::{mark_operator_significance, operators};
use crate::error::Error;
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
        if crate::analysis::load::side_runs::compares_runs(req) {
            return Err(Error::usage(
                "explain compares one run per side: give a trace file or a directory of one run's ranks",
            ));
        }
        let filter = NameFilter::new(&req.include, &req.exclude)?;
        let view = View {
            command: "explain",
            attribution: true,
            shapes: true,
        };
        let options = super::ViewOptions::default();
        let (table, loaded) = view_table(
            req,
            &options,
            view,
            notes,
            |r, loaded, s| operators(r, loaded, &filter, s),
            |table, r, loaded, s| mark_operator_significance(table, r, loaded, s, None),
        )?;
        let loaded = loaded.ok_or_else(|| Error::usage("explain compares one run per side"))?;
        let measure = if table.has_device {
            Measure::DeviceSelf
        } else {
            Measure::HostSelf
        };
        let time = table.measure(measure).unwrap_or(0);
        let e = crate::analysis::explain::explain(req, &loaded, &table, time);
        notes.caveats(e.notes.iter().cloned());
        Ok(e)
    })
}
