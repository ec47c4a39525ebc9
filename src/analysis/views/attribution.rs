//! Device time launched outside every ATen operator (docs/graphs.md#launch-owners): the
//! operator view's non-ATen rows (`gemm_a16w16 [python]`), the kernel view's owners with
//! `--by-operator`, and the share of the device time the views attribute.

use crate::analysis::aggregate::Keying;
use crate::analysis::loaded::Loaded;
use crate::analysis::select::{Device, Selected};
use crate::model::calltree::NONE;
use crate::model::owners::WorkKind;
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::text::fmt_duration;
use rustc_hash::{FxHashMap, FxHashSet};

/// The non-ATen owners of one file's selected device events, by row key: per key the sums of
/// an operator row (calls, host self, host total, device self, device total). A row's calls
/// are the owning events that launched a selected device event, its host times theirs, and its
/// device self and total time the device events they own (nothing nests below such a row: an
/// ATen operator inside it has its own row). `inside`: the rows a `--zoom` keeps, judged by
/// the owning event.
pub(crate) fn non_aten_rows(
    file: &TraceFile,
    iterations: Option<&[i64]>,
    device: Device,
    keying: &Keying,
    inside: Option<&[bool]>,
) -> Vec<(String, [i64; 5])> {
    if !device.admits(Place::Host) {
        return Vec::new();
    }
    let ev = &file.events;
    let tree = file.call_tree();
    let work = &tree.work;
    let selected = Selected::new(iterations);
    let keyed = |name: &str| keying.name_key(name);
    // Sums per (kind, name id): the owner's name, or the kernel's for a Triton launcher; each
    // becomes a row key once.
    let mut sums: FxHashMap<(WorkKind, u32), ([i64; 5], usize)> = FxHashMap::default();
    let mut counted: FxHashSet<(u32, WorkKind, u32)> = FxHashSet::default();
    for i in 0..ev.len() {
        let owner = work.row[i];
        let kind = work.kind[i];
        if owner == NONE
            || !matches!(
                kind,
                WorkKind::Python | WorkKind::Triton | WorkKind::Annotation | WorkKind::Launch
            )
            || !selected.admits(ev.iteration.get(i))
            || inside.is_some_and(|rows| !rows[owner as usize])
        {
            continue;
        }
        let id = if kind == WorkKind::Triton {
            ev.name[i].0
        } else {
            ev.name[owner as usize].0
        };
        let (s, _) = sums.entry((kind, id)).or_insert(([0; 5], i));
        s[3] += ev.dur_ns[i];
        s[4] += ev.dur_ns[i];
        if counted.insert((owner, kind, id)) {
            let o = owner as usize;
            s[0] += 1;
            s[1] += tree.host_self_ns[o];
            s[2] += tree.host_total_ns[o];
        }
    }
    let mut rows: std::collections::BTreeMap<String, [i64; 5]> = Default::default();
    for (_, (s, row)) in sums {
        if let Some(label) = work.label(&file.strings, ev, row, &keyed) {
            let r = rows.entry(label).or_default();
            for (a, b) in r.iter_mut().zip(s) {
                *a += b;
            }
        }
    }
    rows.into_iter().collect()
}

/// The operator view's key for the owner of device event `row` with `--by-operator`: the
/// launching operator's key, a non-ATen owner's label, or `None` without a launch.
pub(crate) fn owner_key(file: &TraceFile, keying: &Keying, row: usize) -> Option<String> {
    let tree = file.call_tree();
    let ev = &file.events;
    match tree.work.kind[row] {
        WorkKind::None => None,
        WorkKind::Operator => Some(keying.name_key(file.strings.resolve(ev.name[tree.work.row[row] as usize]))),
        _ => tree.work.label(&file.strings, ev, row, &|n: &str| keying.name_key(n)),
    }
}

/// How one side's selected device time (kernels, copies, sets; not GPU annotations) is owned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    /// All of it, ns.
    pub total_ns: i64,
    /// Owned by ATen operators.
    pub operator_ns: i64,
    /// Owned by Python frames of native ops, Triton launchers, annotations, launches.
    pub non_aten_ns: i64,
    /// Of all of it, launched by a graph launch (`cudaGraphLaunch`, …).
    pub graph_ns: i64,
    /// Launched by no host event (no launch with its correlation).
    pub unlaunched_ns: i64,
}

/// The coverage of one file's selected device events.
pub(crate) fn file_coverage(file: &TraceFile, iterations: Option<&[i64]>) -> Coverage {
    let ev = &file.events;
    let work = &file.call_tree().work;
    let selected = Selected::new(iterations);
    let mut c = Coverage::default();
    for i in 0..ev.len() {
        if ev.place[i] != Place::Device || !selected.admits(ev.iteration.get(i)) {
            continue;
        }
        let d = ev.dur_ns[i];
        c.total_ns += d;
        match work.kind[i] {
            WorkKind::None => c.unlaunched_ns += d,
            WorkKind::Operator => c.operator_ns += d,
            _ => c.non_aten_ns += d,
        }
        if work.graph[i] {
            c.graph_ns += d;
        }
    }
    c
}

/// The coverage of both sides' selection.
pub fn coverage(loaded: &Loaded) -> [Coverage; 2] {
    [0, 1].map(|k| {
        let iterations = loaded.resolved[k].iterations.as_deref();
        let mut sum = Coverage::default();
        for f in loaded.files(k) {
            let c = file_coverage(f, iterations);
            sum.total_ns += c.total_ns;
            sum.operator_ns += c.operator_ns;
            sum.non_aten_ns += c.non_aten_ns;
            sum.graph_ns += c.graph_ns;
            sum.unlaunched_ns += c.unlaunched_ns;
        }
        sum
    })
}

fn share(part: i64, whole: i64) -> String {
    format!("{:.1}%", part as f64 * 100.0 / whole.max(1) as f64)
}

/// The note that says what share of each side's device time the rows attribute and names what
/// they cannot; `None` where neither side launched anything outside an ATen operator (an eager
/// trace: nothing new to say).
pub fn coverage_note(cov: &[Coverage; 2], labels: &[String; 2]) -> Option<String> {
    if cov.iter().all(|c| c.non_aten_ns == 0 && c.unlaunched_ns == 0) {
        return None;
    }
    let parts: Vec<String> = cov
        .iter()
        .zip(labels)
        .filter(|(c, _)| c.total_ns > 0)
        .map(|(c, label)| {
            let mut s = format!(
                "{label}: {} of the device time attributed ({} to ATen operators, {} to other launchers",
                share(c.operator_ns + c.non_aten_ns, c.total_ns),
                share(c.operator_ns, c.total_ns),
                share(c.non_aten_ns, c.total_ns),
            );
            if c.graph_ns > 0 {
                s += &format!(
                    "; {} via graph replay, owned by what launched the graph",
                    share(c.graph_ns, c.total_ns)
                );
            }
            s += ")";
            if c.unlaunched_ns > 0 {
                s += &format!(
                    "; not attributed: {} ({}) launched by no host event",
                    share(c.unlaunched_ns, c.total_ns),
                    fmt_duration(c.unlaunched_ns, false)
                );
            }
            s
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}
