//! Counting and summing the selected events of a side, per name (design §3.5).

use crate::load::Side;
use crate::names::shorten_name;
use crate::select::{Device, Resolved, device_categories};
use crate::store::TraceFile;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How rows are keyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Naming {
    /// The name as recorded.
    #[default]
    Name,
    /// HTA's short name (design §3.6).
    ShortName,
}

impl Naming {
    pub fn column(self) -> &'static str {
        match self {
            Naming::Name => "name",
            Naming::ShortName => "short_name",
        }
    }
}

/// Number of events and their summed duration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    pub count: u64,
    pub dur_ns: i64,
}

impl Totals {
    pub fn add(&mut self, other: Totals) {
        self.count += other.count;
        self.dur_ns += other.dur_ns;
    }
}

/// Per-name totals of one side, sorted by name.
pub type NameTotals = BTreeMap<String, Totals>;

/// Counts and sums the events of `side` that the selection admits, per name.
pub fn aggregate(side: &Side, resolved: &Resolved, device: Device, naming: Naming) -> NameTotals {
    let files: Vec<&TraceFile> = resolved.ranks.iter().filter_map(|&r| side.file_of_rank(r)).collect();
    let per_file: Vec<NameTotals> = files
        .par_iter()
        .map(|f| aggregate_file(f, resolved.iterations.as_deref(), device, naming))
        .collect();
    // Merged in rank order, so the result never depends on scheduling (and sums are integers).
    let mut merged = NameTotals::new();
    for totals in per_file {
        for (name, t) in totals {
            merged.entry(name).or_default().add(t);
        }
    }
    merged
}

/// `iterations`: `None` admits every event (a trace without ProfilerStep is taken whole).
pub fn aggregate_file(file: &TraceFile, iterations: Option<&[i64]>, device: Device, naming: Naming) -> NameTotals {
    let on_device = device_categories(file);
    let ev = &file.events;
    let mut by_id: Vec<Totals> = vec![Totals::default(); file.strings.len()];
    for i in 0..ev.len() {
        if let Some(iters) = iterations
            && !iters.contains(&ev.iteration[i])
        {
            continue;
        }
        if !device.admits(on_device[ev.cat[i].index()], ev.stream[i]) {
            continue;
        }
        let t = &mut by_id[ev.name[i].index()];
        t.count += 1;
        t.dur_ns += ev.dur_ns[i];
    }
    let mut out = NameTotals::new();
    for (id, name) in file.strings.iter() {
        let t = by_id[id.index()];
        if t.count == 0 {
            continue;
        }
        let key = match naming {
            Naming::Name => name.to_string(),
            Naming::ShortName => shorten_name(name),
        };
        out.entry(key).or_default().add(t);
    }
    out
}
