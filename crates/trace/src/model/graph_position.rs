//! The join of graph replays to their capture by position (docs/graphs.md#graph-replays):
//! each graph launch, in time order, against the next captured graph in capture order, or
//! against the one captured graph that alone matches it; the kernels by start time against
//! the captured launches in order, per stream; accepted only where the counts agree and every
//! kernel name that both record agrees. One launch that matches no captured graph, or more
//! than one without the next, refuses the whole join.

use crate::model::attrs::AttrValue;
use crate::model::graphs::LAUNCH_KERNEL;
use crate::model::store::{NO_STREAM, TraceFile};

/// One captured graph: its launches in the capture's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedGraph {
    /// The rows of its launches, by start time.
    pub launches: Vec<u32>,
    /// The row that opened the capture: the stream's begin capture, or the `capture_*`
    /// annotation around the launches. The host events enclosing it are the capture's
    /// wrappers, not captured work.
    pub begin: u32,
}

/// The text of attribute `column` at `row`, where the file has the column and the row a value.
pub(crate) fn attr_text<'a>(file: &'a TraceFile, column: &str, row: usize) -> Option<&'a str> {
    let (col, _) = file.attrs.column(column)?;
    match file.attrs.columns[col].get(row) {
        AttrValue::Text(id) => Some(file.strings.resolve(id)).filter(|s| !s.is_empty()),
        _ => None,
    }
}

/// The kernel name a captured launch records, where it records one.
pub(crate) fn captured_kernel(file: &TraceFile, launch: usize) -> Option<&str> {
    attr_text(file, LAUNCH_KERNEL, launch)
}

/// The rows' streams in order of first appearance, and each row's group among them;
/// `None` where a row has no stream.
pub(crate) fn stream_groups(file: &TraceFile, rows: &[u32]) -> Option<Vec<Vec<u32>>> {
    let mut order: Vec<i64> = Vec::new();
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for &r in rows {
        let s = file.events.stream.get(r as usize);
        if s == NO_STREAM {
            return None;
        }
        let k = match order.iter().position(|&o| o == s) {
            Some(k) => k,
            None => {
                order.push(s);
                groups.push(Vec::new());
                order.len() - 1
            }
        };
        groups[k].push(r);
    }
    Some(groups)
}

/// The longest kernel name a refusal quotes, in characters.
const QUOTED: usize = 60;

fn quoted(name: &str) -> String {
    match name.char_indices().nth(QUOTED) {
        Some((at, _)) => format!("`{}…`", &name[..at]),
        None => format!("`{name}`"),
    }
}

/// Pairs one graph launch's kernels (by start time) with one captured graph's launches, or
/// says why they do not match.
fn match_graph(
    replay: &TraceFile,
    capture: &TraceFile,
    kernels: &[u32],
    graph: &CapturedGraph,
) -> Result<Vec<(u32, u32)>, String> {
    if kernels.len() != graph.launches.len() {
        return Err(format!(
            "it replayed {} kernels where the captured graph has {} launches",
            kernels.len(),
            graph.launches.len()
        ));
    }
    let replay_groups = stream_groups(replay, kernels).unwrap_or_else(|| vec![kernels.to_vec()]);
    let capture_groups = if replay_groups.len() == 1 {
        vec![graph.launches.clone()]
    } else {
        match stream_groups(capture, &graph.launches) {
            Some(g) => g,
            None => {
                return Err(format!(
                    "it ran on {} streams and the capture records no stream per launch",
                    replay_groups.len()
                ));
            }
        }
    };
    if replay_groups.len() != capture_groups.len() {
        return Err(format!(
            "it ran on {} streams where the capture launched on {}",
            replay_groups.len(),
            capture_groups.len()
        ));
    }
    let mut pairs = Vec::with_capacity(kernels.len());
    for (r, c) in replay_groups.iter().zip(&capture_groups) {
        if r.len() != c.len() {
            return Err(format!(
                "a stream ran {} kernels where the capture launched {} on it",
                r.len(),
                c.len()
            ));
        }
        for (node, (&k, &l)) in r.iter().zip(c).enumerate() {
            let ran = replay.strings.resolve(replay.events.name[k as usize]);
            if let Some(named) = captured_kernel(capture, l as usize)
                && named != ran
            {
                return Err(format!(
                    "its node {node} ran {} where the capture launched {}",
                    quoted(ran),
                    quoted(named)
                ));
            }
            pairs.push((k, l));
        }
    }
    Ok(pairs)
}

/// The join by position of every graph launch of `replayed` (in time order, each with its
/// kernels by start time) to `graphs` (in capture order).
pub(crate) fn join_by_position(
    replay: &TraceFile,
    capture: &TraceFile,
    replayed: &[(u32, Vec<u32>)],
    graphs: &[CapturedGraph],
) -> Result<Vec<(u32, u32)>, String> {
    let mut next = 0usize;
    let mut pairs = Vec::new();
    for (n, (launch, kernels)) in replayed.iter().enumerate() {
        let found = match match_graph(replay, capture, kernels, &graphs[next]) {
            Ok(p) => Ok((next, p)),
            Err(why) => {
                let mut matching = graphs
                    .iter()
                    .enumerate()
                    .filter_map(|(g, graph)| match_graph(replay, capture, kernels, graph).ok().map(|p| (g, p)));
                match (matching.next(), matching.next()) {
                    (Some(one), None) => Ok(one),
                    (Some(_), Some(_)) => Err(format!(
                        "it matches {} captured graphs but not the next in capture order ({why})",
                        2 + matching.count()
                    )),
                    (None, _) => Err(format!("{why} (captured graph {} of {})", next + 1, graphs.len())),
                }
            }
        };
        match found {
            Ok((g, p)) => {
                pairs.extend(p);
                next = (g + 1) % graphs.len();
            }
            Err(why) => {
                let ts = replay.events.ts_ns[*launch as usize];
                return Err(format!(
                    "graph launch {} of {} (at {}): {why}",
                    n + 1,
                    replayed.len(),
                    micros(ts)
                ));
            }
        }
    }
    Ok(pairs)
}

/// A timestamp in µs, as the trace writes it.
fn micros(ns: i64) -> String {
    format!("{}.{:03} µs", ns.div_euclid(1000), ns.rem_euclid(1000))
}
