//! The work a call does, from its recorded shapes and element types (docs/cost-model.md): the
//! cost model (`cost`, with `cost_memory` and `cost_attention`; `work` its units, `shapes` a
//! call's recorded inputs), the split of a row's Δ into calls, work and efficiency
//! (`decompose`), the devices' peaks (`peaks`) and the `--why` values a table carries
//! (`why_table`). Plain values and arithmetic: it reads no trace and knows no view, so the
//! comparison can carry its figures and `explain` (above) words them.

mod cost_attention;
mod cost_memory;
pub(crate) mod decompose;
pub(crate) mod model;
pub(crate) mod peaks;
pub(crate) mod shapes;
pub(crate) mod why_table;
pub(crate) mod work;
