//! Device time launched outside every ATen operator (docs/graphs.md#launch-owners): the
//! operator view's non-ATen rows (`gemm_a16w16 [python]`), the kernel view's owners with
//! `--by-operator`, and the share of the device time the views attribute.

use crate::analysis::aggregate::Keying;
use crate::analysis::load::loaded::Loaded;
use crate::analysis::select::{Device, Selected};
use crate::model::calltree::NONE;
use crate::model::graphs::{CapturedLaunch, GraphJoin};
use crate::model::owners::{WorkKind, owner_label};
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::request::side::SideId;
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
    let graphs = file.graphs.get();
    let selected = Selected::new(iterations);
    // Sums per (kind, name id): the owner's name, or the kernel's for a Triton launcher; each
    // becomes a row key once.
    let mut sums: FxHashMap<(WorkKind, u32), ([i64; 5], usize)> = FxHashMap::default();
    let mut counted: FxHashSet<(u32, WorkKind, u32)> = FxHashSet::default();
    // A kernel joined to its capture: its time per captured launch, and what it leaves the
    // replay's operator that launched the graph.
    let mut joined: FxHashMap<u32, (i64, usize)> = FxHashMap::default();
    let mut moved: FxHashMap<u32, i64> = FxHashMap::default();
    for i in file.row_ranges(iterations).into_iter().flatten() {
        let owner = work.row[i];
        let kind = work.kind[i];
        let capture = graphs.and_then(|g| g.joined.get(&(i as u32)).copied());
        // A joined kernel is also inside the module node built from its capture (`modules`).
        let outside = |rows: &[bool]| !rows[owner as usize] && (capture.is_none() || !rows[i]);
        if owner == NONE || !selected.admits(ev.iteration.get(i)) || inside.is_some_and(outside) {
            continue;
        }
        let mut d = ev.dur_ns[i];
        if let Some(at) = capture {
            joined.entry(at).or_insert((0, i)).0 += d;
            // Inside only through its captured node: the replay's owner is not.
            if inside.is_some_and(|rows| !rows[owner as usize]) {
                continue;
            }
            if kind == WorkKind::Operator {
                *moved.entry(owner).or_default() += d;
            }
            d = 0;
        }
        if !matches!(
            kind,
            WorkKind::Python | WorkKind::Triton | WorkKind::Annotation | WorkKind::Launch
        ) {
            continue;
        }
        let id = if kind == WorkKind::Triton {
            ev.name[i].0
        } else {
            ev.name[owner as usize].0
        };
        let (s, _) = sums.entry((kind, id)).or_insert(([0; 5], i));
        s[3] += d;
        s[4] += d;
        if counted.insert((owner, kind, id)) {
            let o = owner as usize;
            s[0] += 1;
            s[1] += tree.host_self_ns[o];
            s[2] += tree.host_total_ns[o];
        }
    }
    owner_rows(file, keying, sums, moved, joined)
}

/// The rows of [`non_aten_rows`] from its sums per (kind, name id), the device time each
/// replay operator gave to joined kernels (`moved`), and per captured launch its joined
/// kernels' time (`joined`).
#[allow(clippy::type_complexity)]
fn owner_rows(
    file: &TraceFile,
    keying: &Keying,
    sums: FxHashMap<(WorkKind, u32), ([i64; 5], usize)>,
    moved: FxHashMap<u32, i64>,
    joined: FxHashMap<u32, (i64, usize)>,
) -> Vec<(String, [i64; 5])> {
    let ev = &file.events;
    let work = &file.call_tree().work;
    let graphs = file.graphs.get();
    let keyed = |name: &str| keying.name_key(name);
    let mut rows: std::collections::BTreeMap<String, [i64; 5]> = Default::default();
    for (_, (s, row)) in sums {
        if let Some(label) = work.label(&file.strings, ev, row, &keyed) {
            let r = rows.entry(label).or_default();
            for (a, b) in r.iter_mut().zip(s) {
                *a += b;
            }
        }
    }
    for (op, d) in moved {
        rows.entry(keyed(file.strings.resolve(ev.name[op as usize])))
            .or_default()[3] -= d;
    }
    if let Some(g) = graphs {
        for (at, (d, row)) in joined {
            captured_rows(file, g, at, row, d, keying, &mut rows);
        }
    }
    rows.into_iter().collect()
}

/// Adds `d` ns of replayed kernels joined to captured launch `at` (one of them: replay row
/// `row`) to the rows of the capture: device self and total time to the launch's owner, device
/// total time to every operator enclosing it in the capture.
fn captured_rows(
    file: &TraceFile,
    g: &GraphJoin,
    at: u32,
    row: usize,
    d: i64,
    keying: &Keying,
    rows: &mut std::collections::BTreeMap<String, [i64; 5]>,
) {
    let Some(launch) = g.launches.get(at as usize) else {
        return;
    };
    let r = rows.entry(captured_key(file, g, launch, row, keying)).or_default();
    r[3] += d;
    r[4] += d;
    for &op in &launch.operators {
        rows.entry(keying.name_key(g.name(op))).or_default()[4] += d;
    }
}

/// The row key of the captured owner of replayed kernel `row`, joined to `launch`.
fn captured_key(file: &TraceFile, g: &GraphJoin, launch: &CapturedLaunch, row: usize, keying: &Keying) -> String {
    let owner = g.name(launch.owner);
    let kernel = file.strings.resolve(file.events.name[row]);
    owner_label(launch.kind, owner, kernel, &|n: &str| keying.name_key(n)).unwrap_or_else(|| keying.name_key(owner))
}

/// The operator view's key for the owner of device event `row` with `--by-operator`: the
/// launching operator's key, a non-ATen owner's label, or `None` without a launch. A graph
/// kernel joined to its capture is keyed by the captured launch's owner; one not joined by
/// its replay owner and its node ordinal inside the graph (`replay [python] node 3`).
pub(crate) fn owner_key(file: &TraceFile, keying: &Keying, row: usize) -> Option<String> {
    let tree = file.call_tree();
    let ev = &file.events;
    let graphs = file.graphs.get();
    if let Some((g, launch)) = graphs.and_then(|g| Some((g, g.launch_of(row)?))) {
        return Some(captured_key(file, g, launch, row, keying));
    }
    let key = match tree.work.kind[row] {
        WorkKind::None => None,
        WorkKind::Operator => Some(keying.name_key(file.strings.resolve(ev.name[tree.work.row[row] as usize]))),
        _ => tree.work.label(&file.strings, ev, row, &|n: &str| keying.name_key(n)),
    }?;
    match graphs.and_then(|g| g.node.get(&(row as u32))) {
        Some(n) => Some(format!("{key} node {n}")),
        None => Some(key),
    }
}

/// What keys device event `row` of `file` in the kernel view by operator, finer than its key
/// ([`owner_key`]): its owner's kind and name id, and a joined kernel's captured launch or a
/// graph kernel's node ordinal (`u32::MAX` for neither).
pub(crate) fn owner_slot(file: &TraceFile, row: usize) -> (WorkKind, u32, u32) {
    let work = &file.call_tree().work;
    let graphs = file.graphs.get();
    if let Some(g) = graphs
        && let Some(&at) = g.joined.get(&(row as u32))
    {
        return (WorkKind::None, NONE, at | 0x8000_0000);
    }
    let node = graphs.and_then(|g| g.node.get(&(row as u32)).copied()).unwrap_or(NONE);
    match work.kind[row] {
        // A Triton launcher is named after the kernel it launched.
        kind @ (WorkKind::None | WorkKind::Triton) => (kind, NONE, node),
        kind => (kind, file.events.name[work.row[row] as usize].0, node),
    }
}

/// How one side's selected device time (kernels, copies, sets; not GPU annotations) is owned.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    /// All of it, ns.
    pub total_ns: i64,
    /// Owned by ATen operators (a replayed kernel by the captured launch's operator).
    pub operator_ns: i64,
    /// Owned by Python frames of native ops, Triton launchers, annotations, launches.
    pub non_aten_ns: i64,
    /// Of all of it, launched by a graph launch (`cudaGraphLaunch`, …).
    pub graph_ns: i64,
    /// Of the graph kernels', joined to their capture (owned by the captured launch's owner).
    pub joined_ns: i64,
    /// Launched by no host event (no launch with its correlation).
    pub unlaunched_ns: i64,
}

impl Coverage {
    fn add(&mut self, o: &Coverage) {
        self.total_ns += o.total_ns;
        self.operator_ns += o.operator_ns;
        self.non_aten_ns += o.non_aten_ns;
        self.graph_ns += o.graph_ns;
        self.joined_ns += o.joined_ns;
        self.unlaunched_ns += o.unlaunched_ns;
    }
}

/// The coverage of one file's selected device events.
pub(crate) fn file_coverage(file: &TraceFile, iterations: Option<&[i64]>) -> Coverage {
    let ev = &file.events;
    let work = &file.call_tree().work;
    let graphs = file.graphs.get();
    let selected = Selected::new(iterations);
    let mut c = Coverage::default();
    for i in file.row_ranges(iterations).into_iter().flatten() {
        if ev.place[i] != Place::Device || !selected.admits(ev.iteration.get(i)) {
            continue;
        }
        let d = ev.dur_ns[i];
        c.total_ns += d;
        let launch = graphs.and_then(|g| g.launch_of(i));
        match launch.map_or(work.kind[i], |l| l.kind) {
            WorkKind::None => c.unlaunched_ns += d,
            WorkKind::Operator => c.operator_ns += d,
            _ => c.non_aten_ns += d,
        }
        if work.graph[i] {
            c.graph_ns += d;
        }
        if launch.is_some() {
            c.joined_ns += d;
        }
    }
    c
}

/// The coverage of both sides' selection.
pub(crate) fn coverage(loaded: &Loaded) -> [Coverage; 2] {
    SideId::BOTH.map(|k| {
        let iterations = loaded.resolved[k].iterations.as_deref();
        let mut sum = Coverage::default();
        for f in loaded.files(k) {
            sum.add(&file_coverage(f, iterations));
        }
        sum
    })
}

/// The coverage of both sides where it is worth a line: where either side launched anything
/// outside an ATen operator, from a graph, or from no host event (an eager trace: `None`).
pub(crate) fn visible_coverage(loaded: &Loaded) -> Option<[Coverage; 2]> {
    let cov = coverage(loaded);
    cov.iter()
        .any(|c| c.non_aten_ns != 0 || c.unlaunched_ns != 0 || c.graph_ns != 0)
        .then_some(cov)
}

fn share(part: i64, whole: i64) -> String {
    format!("{:.1}%", part as f64 * 100.0 / whole.max(1) as f64)
}

/// What one side's rows attribute, in words: `100.0% of the device time attributed (…)`.
fn side_words(c: &Coverage) -> String {
    let mut s = format!(
        "{} of the device time attributed ({} to ATen operators, {} to other launchers",
        share(c.operator_ns + c.non_aten_ns, c.total_ns),
        share(c.operator_ns, c.total_ns),
        share(c.non_aten_ns, c.total_ns),
    );
    if c.graph_ns > 0 {
        s += &format!("; {} via graph replay", share(c.graph_ns, c.total_ns));
        if c.joined_ns > 0 {
            s += &format!(", {} joined to its capture", share(c.joined_ns, c.total_ns));
        }
        if c.joined_ns < c.graph_ns {
            s += &format!(
                ", {} owned by what launched the graph",
                share(c.graph_ns - c.joined_ns, c.total_ns)
            );
        }
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
}

/// The line that says what share of each side's device time the rows attribute and names what
/// they cannot; `None` where neither side launched anything outside an ATen operator or from
/// a graph (an eager trace: nothing new to say).
pub(crate) fn coverage_note(cov: &[Coverage; 2], labels: &[String; 2]) -> Option<String> {
    if cov
        .iter()
        .all(|c| c.non_aten_ns == 0 && c.unlaunched_ns == 0 && c.graph_ns == 0)
    {
        return None;
    }
    let parts: Vec<String> = cov
        .iter()
        .zip(labels)
        .filter(|(c, _)| c.total_ns > 0)
        .map(|(c, label)| format!("{label}: {}", side_words(c)))
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}
