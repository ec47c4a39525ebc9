//! The module-aligned diff as a terminal tree, Markdown and JSON (docs/semantics.md#module-aligned-diff).

use super::compare::describe_side;
use super::{
    Format, TableStyle, elide_middle, fit_table_dropping, fmt_count, fmt_duration, fmt_percent, json_us, md_cell,
    wrap_line, wrap_text,
};
use crate::analysis::align::{AlignedNode, NodeKind, PathStack, Status, Times};
use crate::analysis::modules::{BACKWARD_KEY, BackwardPlaced, ModuleDiff};
use crate::analysis::modules_noise::NodeSignificance;
use serde_json::{Map, Value, json};
use std::fmt::Write;
use std::io;

/// Which time orders and folds the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ModuleTime {
    /// The operators' time on the CPU.
    Host,
    /// The time of the GPU work launched inside.
    Device,
}

/// How siblings are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ModuleOrder {
    /// Largest absolute change first (`unknown` last).
    Delta,
    /// As they ran (the aligned order).
    Logical,
}

/// What to show of a module diff.
#[derive(Debug, Clone)]
pub struct ModuleView<'a> {
    /// The aligned module trees of both sides.
    pub diff: &'a ModuleDiff,
    /// The node shown at the top (the root, or the `--zoom` node).
    pub top: &'a AlignedNode,
    /// Levels below `top` to show; `None`: all.
    pub depth: Option<usize>,
    /// Fold children whose time is below this share (percent) of `top`'s.
    pub min_share: f64,
    /// The order of siblings.
    pub order: ModuleOrder,
    /// The time that orders and folds (and whose Δ % is shown).
    pub time: ModuleTime,
    /// Fold runs of consecutive added (or deleted) siblings with one key into one row
    /// (`Bottleneck ×30`) in the table and Markdown; JSON and CSV keep every node.
    pub fold_runs: bool,
    /// Per node, whether its `time` changed significantly (docs/significance.md);
    /// `None`: not estimated, and the output has no `sig`/`significant` field at all.
    pub significance: Option<&'a NodeSignificance>,
}

/// A row of siblings: one node, or a run of added (or deleted) siblings with one key.
#[derive(Debug, Clone)]
pub enum Shown<'n> {
    /// One node, shown as it is.
    Node(&'n AlignedNode),
    /// `count` consecutive siblings, added or deleted alike, with one key.
    Run {
        /// The first of them (its key and status stand for all).
        first: &'n AlignedNode,
        /// How many siblings the run holds.
        count: usize,
        /// Their control-side times summed; `None` where no node of the run has one.
        control: Option<Times>,
        /// Their test-side times summed.
        test: Option<Times>,
    },
}

impl<'n> Shown<'n> {
    fn first(&self) -> &'n AlignedNode {
        match self {
            Shown::Node(n) => n,
            Shown::Run { first, .. } => first,
        }
    }

    fn times(&self) -> (Option<Times>, Option<Times>) {
        match self {
            Shown::Node(n) => (n.control, n.test),
            Shown::Run { control, test, .. } => (*control, *test),
        }
    }
}

/// Runs of consecutive added (or deleted) siblings with one key (two or more) as one row each,
/// their times summed.
pub fn fold_runs(children: &[AlignedNode]) -> Vec<Shown<'_>> {
    let mut out: Vec<Shown<'_>> = Vec::with_capacity(children.len());
    let mut k = 0;
    while k < children.len() {
        let c = &children[k];
        let foldable = matches!(c.status, Status::Added | Status::Deleted);
        let len = if foldable {
            children[k..]
                .iter()
                .take_while(|x| x.status == c.status && x.kind == c.kind && x.key == c.key)
                .count()
        } else {
            1
        };
        if len < 2 {
            out.push(Shown::Node(c));
        } else {
            let sum = |side: fn(&AlignedNode) -> Option<Times>| {
                children[k..k + len].iter().filter_map(side).reduce(Times::plus)
            };
            out.push(Shown::Run {
                first: c,
                count: len,
                control: sum(|x| x.control),
                test: sum(|x| x.test),
            });
        }
        k += len;
    }
    out
}

impl ModuleView<'_> {
    /// Whether node `n` changed significantly; `None`: not estimated.
    fn significant(&self, n: &AlignedNode) -> Option<bool> {
        self.significance.and_then(|s| s.of(n))
    }

    /// The path of the top node (`""` for the step), found in the diff's tree by its id.
    fn top_path(&self) -> String {
        self.diff.root.path_of(self.top.id).unwrap_or_default()
    }

    fn has_device(&self) -> bool {
        self.diff.has_device.iter().any(|&d| d)
    }

    fn primary(&self, t: Option<&Times>) -> i64 {
        t.map_or(0, |t| match self.time {
            ModuleTime::Host => t.host_total_ns,
            ModuleTime::Device => t.device_total_ns.unwrap_or(0),
        })
    }

    /// The children to show, in order, and what was folded: (count, control, test) of the
    /// primary time.
    fn children<'n>(&self, n: &'n AlignedNode) -> (Vec<Shown<'n>>, Option<Folded>) {
        let scale = self
            .primary(self.top.control.as_ref())
            .abs()
            .max(self.primary(self.top.test.as_ref()).abs()) as f64;
        let small = |c: &Shown<'_>| {
            let (ct, tt) = c.times();
            let size = self.primary(ct.as_ref()).abs().max(self.primary(tt.as_ref()).abs()) as f64;
            self.min_share > 0.0 && size * 100.0 < self.min_share * scale
        };
        let rows = if self.fold_runs {
            fold_runs(&n.children)
        } else {
            n.children.iter().map(Shown::Node).collect()
        };
        let mut shown: Vec<Shown<'n>> = Vec::new();
        let mut folded = Folded::default();
        for c in rows {
            if small(&c) {
                let (ct, tt) = c.times();
                folded.count += 1;
                folded.control.host_total_ns += ct.map_or(0, |t| t.host_total_ns);
                folded.test.host_total_ns += tt.map_or(0, |t| t.host_total_ns);
                folded.control.device_total_ns =
                    Some(folded.control.device_total_ns.unwrap_or(0) + ct.and_then(|t| t.device_total_ns).unwrap_or(0));
                folded.test.device_total_ns =
                    Some(folded.test.device_total_ns.unwrap_or(0) + tt.and_then(|t| t.device_total_ns).unwrap_or(0));
            } else {
                shown.push(c);
            }
        }
        if self.order == ModuleOrder::Delta {
            // Stable: equal changes keep the aligned order.
            shown.sort_by_key(|c| {
                let (ct, tt) = c.times();
                let delta = self.primary(tt.as_ref()) - self.primary(ct.as_ref());
                (
                    c.first().kind == NodeKind::Unknown,
                    std::cmp::Reverse(delta.unsigned_abs()),
                )
            });
        }
        (shown, (folded.count > 0).then_some(folded))
    }
}

/// Children folded by `--min-share`.
#[derive(Debug, Default)]
struct Folded {
    count: usize,
    control: Times,
    test: Times,
}

/// The view as text in `format`: the tree with both sides' times (table, Markdown), a row per
/// node with its path (CSV), or the nested nodes (JSON). The table fits `style`.
pub fn render(view: &ModuleView<'_>, format: Format, style: TableStyle) -> String {
    let mut out = Vec::new();
    // Writing to memory cannot fail.
    let _ = write(view, format, style, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// [`render`], written to `out` as it is made. CSV and JSON name every node's full path, so
/// their text grows with the square of a tree's depth; they are written in pieces, never held
/// whole, so memory stays linear.
pub fn write(view: &ModuleView<'_>, format: Format, style: TableStyle, out: &mut dyn io::Write) -> io::Result<()> {
    match format {
        Format::Json => write_json(view, out),
        Format::Markdown => out.write_all(markdown(view).as_bytes()),
        Format::Csv => csv(view, out),
        Format::Table => out.write_all(table(view, style).as_bytes()),
    }
}

/// Text made in pieces and passed on to a writer whenever it holds more than a few KiB.
struct Chunks<'w> {
    buf: String,
    out: &'w mut dyn io::Write,
}

impl<'w> Chunks<'w> {
    const FLUSH_AT: usize = 1 << 16;

    fn new(out: &'w mut dyn io::Write) -> Chunks<'w> {
        Chunks {
            buf: String::new(),
            out,
        }
    }

    /// Passes the text on once there is enough of it.
    fn pass(&mut self) -> io::Result<()> {
        if self.buf.len() >= Self::FLUSH_AT {
            self.out.write_all(self.buf.as_bytes())?;
            self.buf.clear();
        }
        Ok(())
    }

    fn finish(mut self) -> io::Result<()> {
        self.out.write_all(self.buf.as_bytes())?;
        self.buf.clear();
        Ok(())
    }
}

/// One line of the tree: the label (with its tree drawing), the node's times, its status.
struct Line {
    label: String,
    status: String,
    control: Option<Times>,
    test: Option<Times>,
    /// Whether the node changed significantly (`None` for a folded row or not estimated).
    significant: Option<bool>,
}

/// Tree drawing is kept whole down to this many levels below the top node...
pub const DRAWN_LEVELS: usize = 32;
/// ... past which a line draws the first this many levels, `… N levels … `, and the last
/// [`DRAWN_LEVELS`] − this many, so that a line stays as wide as at [`DRAWN_LEVELS`] levels
/// however deep the node (a model 6,000 modules deep drew lines of 18,000 characters, 289 MB
/// in all; docs/commands.md#modules).
const DRAWN_HEAD: usize = 8;

/// The drawing before a node's branch (`├─ `, `└─ `): per level above it, `│  ` where that
/// level has siblings still to come, else spaces. Past [`DRAWN_LEVELS`] levels only its first
/// [`DRAWN_HEAD`] and its last levels are kept, and the count of those between: each line's
/// drawing costs the same at any depth.
#[derive(Clone, Default)]
struct Drawing {
    /// The first [`DRAWN_HEAD`] levels, drawn (shared by a subtree's lines).
    head: std::rc::Rc<String>,
    /// The levels after the head: whether each has siblings to come, the last
    /// [`DRAWN_LEVELS`] − [`DRAWN_HEAD`] of them.
    tail: std::collections::VecDeque<bool>,
    /// How many levels in all.
    levels: usize,
}

impl Drawing {
    /// The drawing one level deeper, below a node with (`more`) or without siblings to come.
    fn deeper(&self, more: bool) -> Drawing {
        let mut d = self.clone();
        if d.levels < DRAWN_HEAD {
            d.head = std::rc::Rc::new(format!("{}{}", d.head, segment(more)));
        } else {
            d.tail.push_back(more);
            if d.tail.len() > DRAWN_LEVELS - DRAWN_HEAD {
                d.tail.pop_front();
            }
        }
        d.levels += 1;
        d
    }

    fn text(&self) -> String {
        let mut s = self.head.as_str().to_string();
        if self.levels > DRAWN_LEVELS {
            let hidden = self.levels - DRAWN_LEVELS;
            let _ = write!(
                s,
                "… {hidden} {} … ",
                crate::analysis::diff::plural(hidden, "level", "levels")
            );
        }
        self.tail.iter().for_each(|&more| s.push_str(segment(more)));
        s
    }
}

fn segment(more: bool) -> &'static str {
    if more { "│  " } else { "   " }
}

/// The visible nodes, depth first, with `├─`/`└─` drawing (an explicit stack: models nest
/// modules thousands deep).
fn lines(view: &ModuleView<'_>) -> Vec<Line> {
    let top = view.top;
    let first = Line {
        label: label_of(top),
        status: status_of(top),
        control: top.control,
        test: top.test,
        significant: view.significant(top),
    };
    let mut out = Vec::new();
    // Lines still to write, each with the node to expand below it (its drawing, level).
    type Below<'n> = Option<(&'n AlignedNode, Drawing, usize)>;
    let mut todo: Vec<(Line, Below<'_>)> = vec![(first, Some((top, Drawing::default(), 1)))];
    while let Some((line, below)) = todo.pop() {
        out.push(line);
        let Some((n, drawing, level)) = below else { continue };
        if view.depth.is_some_and(|d| level > d) {
            continue;
        }
        let (kids, folded) = view.children(n);
        let total = kids.len() + usize::from(folded.is_some());
        let prefix = drawing.text();
        let mut block = Vec::with_capacity(total);
        for (k, c) in kids.iter().enumerate() {
            let last = k + 1 == total;
            let branch = if last { "└─ " } else { "├─ " };
            block.push(match c {
                Shown::Node(c) => (
                    Line {
                        label: format!("{prefix}{branch}{}", label_of(c)),
                        status: status_of(c),
                        control: c.control,
                        test: c.test,
                        significant: view.significant(c),
                    },
                    Some((*c, drawing.deeper(!last), level + 1)),
                ),
                Shown::Run {
                    first,
                    count,
                    control,
                    test,
                } => (
                    Line {
                        label: format!("{prefix}{branch}{} ×{count}", first.key),
                        status: first.status.as_str().to_string(),
                        control: *control,
                        test: *test,
                        significant: None,
                    },
                    None,
                ),
            });
        }
        if let Some(f) = folded {
            block.push((
                Line {
                    label: format!("{prefix}└─ … {} more under {}%", f.count, view.min_share),
                    status: "folded".to_string(),
                    control: Some(f.control),
                    test: Some(f.test),
                    significant: None,
                },
                None,
            ));
        }
        todo.extend(block.into_iter().rev());
    }
    out
}

/// A node's status, marked `∥` where its children ran concurrently (they overlap in time and
/// sum to more than the node), and with the wrappers it was aligned through.
fn status_of(n: &AlignedNode) -> String {
    let mut s = n.status.as_str().to_string();
    if n.children_overlap_ns.iter().any(|&o| o > 0) {
        s.push_str(" ∥");
    }
    s
}

fn label_of(n: &AlignedNode) -> String {
    let own = n.label();
    let notes: Vec<String> = [0, 1]
        .into_iter()
        .filter(|&k| !n.wrappers[k].is_empty())
        .map(|k| format!("{} in {}", ["control", "test"][k], n.wrappers[k].join("/")))
        .collect();
    if notes.is_empty() {
        own
    } else {
        format!("{own} ({})", notes.join(", "))
    }
}

fn human(t: Option<&Times>, device: bool) -> String {
    match t {
        None => "-".to_string(),
        Some(t) if device => t.device_total_ns.map_or("-".to_string(), |d| fmt_duration(d, false)),
        Some(t) => fmt_duration(t.host_total_ns, false),
    }
}

fn delta(c: Option<&Times>, t: Option<&Times>, device: bool) -> (String, String) {
    let get = |x: Option<&Times>| {
        x.and_then(|x| {
            if device {
                x.device_total_ns
            } else {
                Some(x.host_total_ns)
            }
        })
    };
    match (get(c), get(t)) {
        (None, None) => ("-".to_string(), String::new()),
        (a, b) => {
            let (a, b) = (a.unwrap_or(0), b.unwrap_or(0));
            (fmt_duration(b - a, true), fmt_percent(a, b))
        }
    }
}

fn header(view: &ModuleView<'_>, prefix: &str) -> String {
    let d = view.diff;
    let mut out = String::new();
    let _ = writeln!(out, "{prefix}{}", describe_side(&d.control));
    let _ = writeln!(out, "{prefix}{}", describe_side(&d.test));
    if let Some(hint) = super::compare::more_steps_hint([&d.control, &d.test]) {
        let _ = writeln!(out, "{prefix}{hint}");
    }
    let top_path = view.top_path();
    if !top_path.is_empty() {
        let _ = writeln!(out, "{prefix}zoom: {top_path}");
    }
    if let Some(line) = backward_line(d) {
        let _ = writeln!(out, "{prefix}{line}");
    }
    if d.fallback {
        let _ = writeln!(
            out,
            "{prefix}no nn.Module events on a side: nodes are annotations and top-level operators (record with torch.profiler.profile(with_stack=True) for modules)"
        );
    }
    out
}

/// How much backward time the flows placed on modules, when a side has backward time.
fn backward_line(d: &ModuleDiff) -> Option<String> {
    let shares = d.backward_placed.map(|b| b.percent());
    // The fallback has no modules to place backward work on.
    if d.fallback || shares.iter().all(Option::is_none) {
        return None;
    }
    let show = |s: Option<f64>| s.map_or("no backward".to_string(), |p| format!("{p:.1}%"));
    Some(format!(
        "backward host time placed on modules by fwdbwd flows: {} {}, {} {}",
        d.control.label,
        show(shares[0]),
        d.test.label,
        show(shares[1])
    ))
}

fn value_cells(view: &ModuleView<'_>, l: &Line) -> Vec<String> {
    let (c, t) = (l.control.as_ref(), l.test.as_ref());
    let (dh, ph) = delta(c, t, false);
    let mut cells = vec![l.status.clone(), human(c, false), human(t, false), dh];
    if view.has_device() {
        let (dd, pd) = delta(c, t, true);
        cells.extend([human(c, true), human(t, true), dd]);
        cells.push(if view.time == ModuleTime::Device { pd } else { ph });
    } else {
        cells.push(ph);
    }
    if view.significance.is_some() {
        cells.push(if l.significant == Some(true) { "*" } else { "" }.to_string());
    }
    cells
}

fn value_headers(view: &ModuleView<'_>) -> Vec<String> {
    let (cl, tl) = (&view.diff.control.label, &view.diff.test.label);
    let mut h = vec![
        "status".to_string(),
        format!("{cl}\nhost"),
        format!("{tl}\nhost"),
        "Δ\nhost".to_string(),
    ];
    if view.has_device() {
        h.extend([
            format!("{cl}\ndevice"),
            format!("{tl}\ndevice"),
            "Δ\ndevice".to_string(),
        ]);
    }
    let which = if view.time == ModuleTime::Device && view.has_device() {
        "device"
    } else {
        "host"
    };
    h.push(format!("Δ %\n{which}"));
    if view.significance.is_some() {
        h.push("sig".to_string());
    }
    h
}

fn table(view: &ModuleView<'_>, style: TableStyle) -> String {
    let lines = lines(view);
    let names: Vec<String> = lines.iter().map(|l| l.label.clone()).collect();
    let cells: Vec<Vec<String>> = lines.iter().map(|l| value_cells(view, l)).collect();
    let width = style.name_width();
    let mut out = wrap_text(&header(view, ""), width);
    // Too narrow for every column: the per-side times go first (those of the time not shown
    // in Δ % before the other's), then the other time's Δ (docs/commands.md#terminal-width).
    let drop_order: &[&[usize]] = if !view.has_device() {
        &[&[1, 2]]
    } else if view.time == ModuleTime::Device {
        &[&[1, 2], &[4, 5], &[3]]
    } else {
        &[&[4, 5], &[1, 2], &[6]]
    };
    let _ = writeln!(
        out,
        "{}",
        fit_table_dropping(
            "module",
            &value_headers(view),
            &names,
            &cells,
            width,
            drop_order,
            cut_labels
        )
    );
    let (matched, added, deleted) = counts(view.top);
    let top_path = view.top_path();
    let footer = format!(
        "{} matched, {} added, {} deleted below {}; zoom with --zoom PATH (see --format json for paths)",
        fmt_count(matched),
        fmt_count(added),
        fmt_count(deleted),
        if top_path.is_empty() {
            "the step"
        } else {
            top_path.as_str()
        }
    );
    let _ = writeln!(out, "{}", wrap_line(&footer, width));
    if let Some(line) = significance_line(view) {
        let _ = writeln!(out, "{}", wrap_line(&line, width));
    }
    out
}

/// How many shown nodes changed significantly, where it was estimated.
fn significance_line(view: &ModuleView<'_>) -> Option<String> {
    view.significance?;
    let mut nodes = Vec::new();
    collect(view.top, None, &mut nodes);
    let marked = nodes.iter().filter(|n| view.significant(n) == Some(true)).count();
    let which = if view.time == ModuleTime::Device && view.has_device() {
        "device"
    } else {
        "host"
    };
    Some(format!(
        "{} of {} nodes (sig *) changed their {which} time beyond run-to-run noise and 1% of the step (docs/significance.md)",
        fmt_count(marked),
        fmt_count(nodes.len())
    ))
}

/// Tree labels cut to `width`: the drawing before the key and the `[ordinal]` after it stay
/// whole, the key is cut in the middle (so `Sequential.backward` keeps its `.backward`).
fn cut_labels(labels: &[String], width: usize) -> Vec<String> {
    labels
        .iter()
        .map(|label| {
            if label.chars().count() <= width {
                return label.clone();
            }
            // The key starts after the branch (`├─ `, `└─ `), the drawing's one; the top line has none.
            let key_at = label.find(['├', '└']).map_or(0, |b| b + "├─ ".len());
            let (drawing, rest) = label.split_at(key_at);
            let (key, ordinal) = match rest.rfind('[') {
                Some(k) if rest.ends_with(']') => rest.split_at(k),
                _ => (rest, ""),
            };
            let room = width.saturating_sub(drawing.chars().count() + ordinal.chars().count());
            format!("{drawing}{}{ordinal}", cut_key(key, room.max(5)))
        })
        .collect()
}

/// A key cut to `room` characters: in the middle, except that a mirror's `.backward` stays
/// whole while there is room for a few characters of its class (`Sequen….backward`).
fn cut_key(key: &str, room: usize) -> String {
    let suffix = format!(".{BACKWARD_KEY}");
    match key.strip_suffix(&suffix) {
        Some(class) if room >= suffix.len() + 4 => {
            let keep = room - suffix.len() - 1;
            let head: String = class.chars().take(keep).collect();
            format!("{head}…{suffix}")
        }
        _ => elide_middle(key, room),
    }
}

/// Matched, added and deleted nodes in a subtree (the node itself excluded).
fn counts(n: &AlignedNode) -> (usize, usize, usize) {
    let mut c = (0, 0, 0);
    let mut todo: Vec<&AlignedNode> = n.children.iter().collect();
    while let Some(k) = todo.pop() {
        match k.status {
            Status::Matched => c.0 += 1,
            Status::Added => c.1 += 1,
            Status::Deleted => c.2 += 1,
            Status::Unknown => {}
        }
        todo.extend(&k.children);
    }
    c
}

fn markdown(view: &ModuleView<'_>) -> String {
    let mut out = header(view, "");
    out = out.lines().map(|l| format!("{}  \n", md_cell(l))).collect();
    out.push('\n');
    let headers: Vec<String> = value_headers(view).iter().map(|h| h.replace('\n', " ")).collect();
    let _ = writeln!(out, "| module | {} |", headers.join(" | "));
    let _ = writeln!(out, "|---|{}", "---:|".repeat(headers.len()));
    for l in lines(view) {
        // Keep the tree drawing's indentation: Markdown trims plain leading spaces.
        let label = md_cell(&l.label).replace(' ', "\u{a0}");
        let _ = writeln!(out, "| {label} | {} |", value_cells(view, &l).join(" | "));
    }
    out
}

fn csv(view: &ModuleView<'_>, sink: &mut dyn io::Write) -> io::Result<()> {
    let (cl, tl) = (&view.diff.control.label, &view.diff.test.label);
    let mut out = Chunks::new(sink);
    out.buf = format!(
        "path,status,{cl}_calls,{tl}_calls,{cl}_host_total,{tl}_host_total,diff_host_total,{cl}_device_total,{tl}_device_total,diff_device_total{}\n",
        if view.significance.is_some() {
            ",significant"
        } else {
            ""
        }
    );
    let top_path = view.top_path();
    let mut paths = PathStack::default();
    for (n, level) in walk(view.top, view.depth) {
        let path = paths.visit(n, level, &top_path);
        let (c, t) = (n.control.as_ref(), n.test.as_ref());
        let calls = |x: Option<&Times>| x.and_then(|x| x.calls).map_or(String::new(), |v| v.to_string());
        let host = |x: Option<&Times>| x.map_or(String::new(), |x| super::fmt_us(x.host_total_ns));
        let dev = |x: Option<&Times>| x.and_then(|x| x.device_total_ns).map_or(String::new(), super::fmt_us);
        let dh = super::fmt_us(t.map_or(0, |x| x.host_total_ns) - c.map_or(0, |x| x.host_total_ns));
        let dd = match (c.and_then(|x| x.device_total_ns), t.and_then(|x| x.device_total_ns)) {
            (None, None) => String::new(),
            (a, b) => super::fmt_us(b.unwrap_or(0) - a.unwrap_or(0)),
        };
        let sig = match view.significance {
            None => String::new(),
            Some(_) => format!(",{}", view.significant(n).map_or(String::new(), |b| b.to_string())),
        };
        let _ = writeln!(
            out.buf,
            "{},{},{},{},{},{},{dh},{},{},{dd}{sig}",
            super::csv_field(if path.is_empty() { &n.key } else { path }),
            n.status.as_str(),
            calls(c),
            calls(t),
            host(c),
            host(t),
            dev(c),
            dev(t)
        );
        out.pass()?;
    }
    out.finish()
}

/// The nodes down to `depth` levels below `top`, depth first.
fn collect<'n>(top: &'n AlignedNode, depth: Option<usize>, out: &mut Vec<&'n AlignedNode>) {
    out.extend(walk(top, depth).map(|(n, _)| n));
}

/// The nodes down to `depth` levels below `top` (at level 0), depth first, with their levels.
fn walk(top: &AlignedNode, depth: Option<usize>) -> impl Iterator<Item = (&AlignedNode, usize)> {
    let mut todo = vec![(top, 0)];
    std::iter::from_fn(move || {
        let (n, level) = todo.pop()?;
        if depth.is_none_or(|d| level < d) {
            todo.extend(n.children.iter().rev().map(|c| (c, level + 1)));
        }
        Some((n, level))
    })
}

fn side_json(t: Option<&Times>, overlap_ns: i64) -> Value {
    match t {
        None => Value::Null,
        Some(t) => {
            let mut v = json!({
                "calls": t.calls,
                "host_total_us": json_us(t.host_total_ns),
                "device_total_us": t.device_total_ns.map(json_us),
            });
            if overlap_ns > 0
                && let Value::Object(m) = &mut v
            {
                m.insert("children_overlap_us".into(), json_us(overlap_ns));
            }
            v
        }
    }
}

/// A node's fields but its children. `path`: where the node names its full path (`None` in the
/// flat list, whose nodes name their segment and parent instead).
fn node_fields(view: &ModuleView<'_>, n: &AlignedNode, path: Option<&str>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("kind".into(), Value::from(n.kind.as_str()));
    m.insert("key".into(), Value::from(n.key.as_str()));
    if let Some(path) = path {
        m.insert("path".into(), Value::from(path));
    }
    m.insert("status".into(), Value::from(n.status.as_str()));
    m.insert(
        "control".into(),
        side_json(n.control.as_ref(), n.children_overlap_ns[0]),
    );
    m.insert("test".into(), side_json(n.test.as_ref(), n.children_overlap_ns[1]));
    if n.wrappers.iter().any(|w| !w.is_empty()) {
        m.insert(
            "wrappers".into(),
            json!({ "control": n.wrappers[0], "test": n.wrappers[1] }),
        );
    }
    if view.significance.is_some() {
        m.insert("significant".into(), json!(view.significant(n)));
    }
    m
}

fn placed_json(b: BackwardPlaced) -> Value {
    json!({
        "backward_host_us": json_us(b.backward_host_ns),
        "placed_host_us": json_us(b.placed_host_ns),
    })
}

/// `value` pretty-printed with every line after the first indented by `indent`.
fn pretty_at(value: &Value, indent: &str) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.replace('\n', &format!("\n{indent}"))
}

/// Trees shown deeper than this many levels are written as compact JSON: pretty-printing indents
/// each level further, so its size would grow with the square of the depth (6,000 nested
/// modules gave 2.9 GB).
pub const COMPACT_JSON_DEPTH: usize = 32;

/// The shown node as docs/semantics.md#module-aligned-diff's JSON tree, with what was compared
/// beside it (see [`write_json`]).
pub fn json_text(view: &ModuleView<'_>) -> String {
    render(view, Format::Json, TableStyle::default())
}

/// The shown node as docs/semantics.md#module-aligned-diff's JSON tree, with what was compared
/// beside it. Written node by node from an explicit stack (the same text as serde_json's
/// pretty printer, or its compact one beyond [`COMPACT_JSON_DEPTH`] levels): a model's tree can
/// nest thousands deep, and each node names its full path.
pub fn write_json(view: &ModuleView<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    let compared = compared_json(view);
    let mut out = Chunks::new(out);
    if shown_levels(view) > COMPACT_JSON_DEPTH {
        compact_json(view, &compared, &mut out)?;
    } else {
        pretty_json(view, &compared, &mut out)?;
    }
    out.finish()
}

/// The shown nodes as one flat list, for programs that rebuild the tree themselves (the Python
/// API): `{"top_path", "nodes", "compared"}`, compact, each node with the JSON tree's fields
/// but `path` and `children`, plus `segment` (`Key[ordinal]`, `""` for the step) and `parent`
/// (its parent's index in the list; `null` for the top node). Parents come before their
/// children, siblings in order. Paths name every ancestor (their size grows with the square of
/// the depth), so only the top node's is written.
pub fn write_flat_json(view: &ModuleView<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    let mut out = Chunks::new(out);
    let top_path = serde_json::to_string(&view.top_path()).unwrap_or_default();
    let _ = write!(out.buf, "{{\"top_path\":{top_path},\"nodes\":[");
    let mut todo: Vec<(&AlignedNode, Option<usize>, usize)> = vec![(view.top, None, 0)];
    let mut count = 0;
    while let Some((n, parent, level)) = todo.pop() {
        let mut m = node_fields(view, n, None);
        let segment = if parent.is_none() { String::new() } else { n.label() };
        m.insert("segment".into(), Value::from(segment));
        m.insert("parent".into(), json!(parent));
        if count > 0 {
            out.buf.push(',');
        }
        out.buf.push_str(&Value::Object(m).to_string());
        out.pass()?;
        let index = count;
        count += 1;
        todo.extend(
            shown_children(view, n, level)
                .iter()
                .rev()
                .map(|c| (c, Some(index), level + 1)),
        );
    }
    let _ = writeln!(out.buf, "],\"compared\":{}}}", compared_json(view));
    out.finish()
}

/// What was compared, as the JSON tree writes it beside the nodes.
fn compared_json(view: &ModuleView<'_>) -> Value {
    let d = view.diff;
    let mut compared = json!({
        "control": d.control,
        "test": d.test,
        "fallback": d.fallback,
        "has_device": { "control": d.has_device[0], "test": d.has_device[1] },
        "backward_placed": {
            "control": placed_json(d.backward_placed[0]),
            "test": placed_json(d.backward_placed[1]),
        },
    });
    if let Some(significance) = view.significance
        && let Value::Object(m) = &mut compared
    {
        m.insert(
            "run_shift".into(),
            serde_json::to_value(&significance.shift).unwrap_or(Value::Null),
        );
        let which = if view.time == ModuleTime::Device && view.has_device() {
            "device_total"
        } else {
            "host_total"
        };
        m.insert("significance_measure".into(), Value::from(which));
    }
    compared
}

/// How many levels below the top node are shown (0: the top node alone).
fn shown_levels(view: &ModuleView<'_>) -> usize {
    let mut deepest = 0;
    let mut todo = vec![(view.top, 0usize)];
    while let Some((n, level)) = todo.pop() {
        deepest = deepest.max(level);
        if view.depth.is_none_or(|d| level < d) {
            todo.extend(n.children.iter().map(|c| (c, level + 1)));
        }
    }
    deepest
}

/// What the JSON writers push on their stack: a node to write, or text to write as it is.
enum Step<'n> {
    Node(&'n AlignedNode, usize),
    Text(String),
}

/// The children of `n` that are shown at `level`.
fn shown_children<'n>(view: &ModuleView<'_>, n: &'n AlignedNode, level: usize) -> &'n [AlignedNode] {
    if view.depth.is_some_and(|dep| level >= dep) {
        &[]
    } else {
        &n.children
    }
}

fn pretty_json(view: &ModuleView<'_>, compared: &Value, chunks: &mut Chunks<'_>) -> io::Result<()> {
    let top_path = view.top_path();
    let mut paths = PathStack::default();
    let mut todo = vec![Step::Node(view.top, 0)];
    while let Some(step) = todo.pop() {
        chunks.pass()?;
        let out = &mut chunks.buf;
        let (n, level) = match step {
            Step::Text(t) => {
                out.push_str(&t);
                continue;
            }
            Step::Node(n, level) => (n, level),
        };
        let indent = " ".repeat(4 * level);
        let path = paths.visit(n, level, &top_path);
        let head = pretty_at(&Value::Object(node_fields(view, n, Some(path))), &indent);
        // Without its closing brace: the children go before it.
        out.push_str(head.trim_end_matches('}').trim_end());
        let _ = write!(out, ",\n{indent}  \"children\": ");
        let mut tail = if level == 0 {
            format!(",\n  \"compared\": {}\n}}\n", pretty_at(compared, "  "))
        } else {
            format!("\n{indent}}}")
        };
        let kids = shown_children(view, n, level);
        if kids.is_empty() {
            out.push_str("[]");
            todo.push(Step::Text(tail));
            continue;
        }
        out.push_str("[\n");
        tail = format!("\n{indent}  ]{tail}");
        todo.push(Step::Text(tail));
        let child_indent = " ".repeat(4 * (level + 1));
        for (k, c) in kids.iter().enumerate().rev() {
            todo.push(Step::Node(c, level + 1));
            todo.push(Step::Text(child_indent.clone()));
            if k > 0 {
                todo.push(Step::Text(",\n".to_string()));
            }
        }
    }
    Ok(())
}

/// The same document without whitespace (one line): no indentation that grows with the depth.
fn compact_json(view: &ModuleView<'_>, compared: &Value, chunks: &mut Chunks<'_>) -> io::Result<()> {
    let top_path = view.top_path();
    let mut paths = PathStack::default();
    let mut todo = vec![Step::Node(view.top, 0)];
    while let Some(step) = todo.pop() {
        chunks.pass()?;
        let out = &mut chunks.buf;
        let (n, level) = match step {
            Step::Text(t) => {
                out.push_str(&t);
                continue;
            }
            Step::Node(n, level) => (n, level),
        };
        let path = paths.visit(n, level, &top_path);
        let head = serde_json::to_string(&Value::Object(node_fields(view, n, Some(path)))).unwrap_or_default();
        // Without its closing brace (only that one: `wrappers` ends in a brace too).
        out.push_str(head.strip_suffix('}').unwrap_or(&head));
        out.push_str(",\"children\":[");
        let tail = if level == 0 {
            format!("],\"compared\":{compared}}}\n")
        } else {
            "]}".to_string()
        };
        todo.push(Step::Text(tail));
        for (k, c) in shown_children(view, n, level).iter().enumerate().rev() {
            todo.push(Step::Node(c, level + 1));
            if k > 0 {
                todo.push(Step::Text(",".to_string()));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_keep_their_drawing_ordinal_and_backward_suffix() {
        let labels = [
            "│  ├─ Sequential.backward[2]".to_string(),
            "│  ├─ Optimizer.step#SGD.step[0]".to_string(),
            "├─ Net[0]".to_string(),
        ];
        assert_eq!(
            cut_labels(&labels, 24),
            ["│  ├─ Seque….backward[2]", "│  ├─ Optimizer….step[0]", "├─ Net[0]"]
        );
    }
}
