//! The module tree drawn for people: the terminal table, Markdown, and the CSV rows.

use super::view::{Chunks, ModuleTime, ModuleView, Shown, collect, walk};
use crate::analysis::modules::align::{AlignedNode, PathStack, Status, Times};
use crate::analysis::modules::{BACKWARD_KEY, ModuleDiff};
use crate::output::render::compare::describe_side;
use crate::output::render::table::{Cell, Column, Line as Title, Table, markdown, terminal};
use crate::output::render::{TableStyle, elide_middle, fmt_count, fmt_percent, md_cell};
use std::borrow::Cow;
use std::fmt::Write;
use std::io;

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
pub(super) const DRAWN_LEVELS: usize = 32;

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
        label: label_of(top, [false, false]),
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
                        label: format!("{prefix}{branch}{}", label_of(c, n.replayed)),
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

/// Where a node was built from a graph's capture and its parent (`parent`: per side) was not:
/// `via graph replay` (on one side only, the side's name first). The nodes below it were built
/// from the capture too and are not marked again.
fn replayed_note(n: &AlignedNode, parent: [bool; 2]) -> Option<String> {
    match [n.replayed[0] && !parent[0], n.replayed[1] && !parent[1]] {
        [true, true] => Some("via graph replay".to_string()),
        [true, false] if n.test.is_some() => Some("control via graph replay".to_string()),
        [false, true] if n.control.is_some() => Some("test via graph replay".to_string()),
        [true, false] | [false, true] => Some("via graph replay".to_string()),
        [false, false] => None,
    }
}

/// A node's label: its segment, and the wrappers it was aligned through and whether it ran via
/// graph replay (`parent`: whether its parent did, per side).
fn label_of(n: &AlignedNode, parent: [bool; 2]) -> String {
    let own = n.label();
    let notes: Vec<String> = [0, 1]
        .into_iter()
        .filter(|&k| !n.wrappers[k].is_empty())
        .map(|k| format!("{} in {}", ["control", "test"][k], n.wrappers[k].join("/")))
        .chain(replayed_note(n, parent))
        .collect();
    if notes.is_empty() {
        own
    } else {
        format!("{own} ({})", notes.join(", "))
    }
}

/// A side's host or device time, where it has one.
fn time(t: Option<&Times>, device: bool) -> Option<i64> {
    t.and_then(|t| {
        if device {
            t.device_total_ns
        } else {
            Some(t.host_total_ns)
        }
    })
}

/// A side's time as a cell (`-` where it has none).
fn time_cell(t: Option<&Times>, device: bool) -> Cell<'static> {
    time(t, device).map_or(Cell::Empty, Cell::Duration)
}

/// Δ and Δ % of a time: `-` and nothing where neither side has it, a side without it as 0.
fn delta(c: Option<&Times>, t: Option<&Times>, device: bool) -> [Cell<'static>; 2] {
    match (time(c, device), time(t, device)) {
        (None, None) => [Cell::Empty, Cell::Empty],
        (a, b) => {
            let (a, b) = (a.unwrap_or(0), b.unwrap_or(0));
            [Cell::Duration(b - a), Cell::Percent(fmt_percent(a, b))]
        }
    }
}

fn header(view: &ModuleView<'_>, prefix: &str) -> String {
    let d = view.diff;
    let mut out = String::new();
    let _ = writeln!(out, "{prefix}{}", describe_side(&d.control));
    let _ = writeln!(out, "{prefix}{}", describe_side(&d.test));
    if let Some(hint) = crate::output::render::compare::more_steps_hint([&d.control, &d.test]) {
        let _ = writeln!(out, "{prefix}{hint}");
    }
    if d.per_step {
        let _ = writeln!(
            out,
            "{prefix}values are per step: each side's sums ÷ its steps used; --totals shows sums"
        );
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

/// The tree's columns: the node, its status, each side's host time and Δ, with device time
/// each side's device time and Δ, the Δ % of the time shown (`--time`), and with significance
/// estimated its mark.
fn columns(view: &ModuleView<'_>) -> Vec<Column> {
    let (cl, tl) = (&view.diff.control.label, &view.diff.test.label);
    let column = |header: String| {
        let markdown = header.replace('\n', " ");
        Column::new("", "", header).markdown(markdown)
    };
    let mut columns = vec![
        column("module".into()).left(),
        column("status".into()),
        column(format!("{cl}\nhost")),
        column(format!("{tl}\nhost")),
        column("Δ\nhost".into()).signed(),
    ];
    if view.has_device() {
        columns.extend([
            column(format!("{cl}\ndevice")),
            column(format!("{tl}\ndevice")),
            column("Δ\ndevice".into()).signed(),
        ]);
    }
    let which = if view.time == ModuleTime::Device && view.has_device() {
        "device"
    } else {
        "host"
    };
    columns.push(column(format!("Δ %\n{which}")).blank(""));
    if view.significance.is_some() {
        columns.push(column("sig".into()));
    }
    columns
}

/// A line's cells under [`columns`].
fn line_cells(view: &ModuleView<'_>, l: &Line, cells: &mut Vec<Cell<'_>>) {
    let (c, t) = (l.control.as_ref(), l.test.as_ref());
    let [dh, ph] = delta(c, t, false);
    cells.extend([
        Cell::Tree(Cow::Owned(l.label.clone())),
        Cell::Text(Cow::Owned(l.status.clone())),
        time_cell(c, false),
        time_cell(t, false),
        dh,
    ]);
    if view.has_device() {
        let [dd, pd] = delta(c, t, true);
        cells.extend([time_cell(c, true), time_cell(t, true), dd]);
        cells.push(if view.time == ModuleTime::Device { pd } else { ph });
    } else {
        cells.push(ph);
    }
    if view.significance.is_some() {
        cells.push(Cell::Mark(Some(l.significant == Some(true))));
    }
}

/// The tree's lines as the table model, the labels lent to the terminal as they are.
fn model<'a>(view: &'a ModuleView<'a>, lines: &'a [Line]) -> Table<'a> {
    let mut table = Table::new(columns(view), lines.len(), move |i, cells| {
        line_cells(view, &lines[i], cells)
    });
    table.names = Some(Box::new(move |i| lines[i].label.as_str()));
    table
}

pub(super) fn table(view: &ModuleView<'_>, style: TableStyle) -> String {
    let lines = lines(view);
    let width = style.name_width();
    let mut table = model(view, &lines);
    table.title = header(view, "").lines().map(Title::new).collect();
    table.notes = notes(view);
    // Too narrow for every column: the per-side times go first (those of the time not shown
    // in Δ % before the other's), then the other time's Δ (docs/commands.md#terminal-width).
    let drop_order: &[&[usize]] = if !view.has_device() {
        &[&[1, 2]]
    } else if view.time == ModuleTime::Device {
        &[&[1, 2], &[4, 5], &[3]]
    } else {
        &[&[4, 5], &[1, 2], &[6]]
    };
    let layout = terminal::Layout {
        color: false,
        width,
        fit: terminal::Fit::Drop {
            drop_order,
            cut: Some(&cut_labels),
            widen_to_header: true,
        },
    };
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = terminal::write(&table, &layout, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The lines under the tree (terminal and Markdown): the nodes matched, added and deleted, and
/// how many changed significantly (what `sig` marks), where it was estimated.
fn notes(view: &ModuleView<'_>) -> Vec<Title> {
    let (matched, added, deleted) = counts(view.top);
    let top_path = view.top_path();
    let mut notes = vec![Title::new(format!(
        "{} matched, {} added, {} deleted below {}; zoom with --zoom PATH (see --format json for paths)",
        fmt_count(matched),
        fmt_count(added),
        fmt_count(deleted),
        if top_path.is_empty() {
            "the step"
        } else {
            top_path.as_str()
        }
    ))];
    notes.extend(significance_line(view).map(Title::new));
    notes
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
fn cut_labels(labels: &[&str], width: usize) -> Vec<String> {
    labels
        .iter()
        .map(|label| {
            if label.chars().count() <= width {
                return label.to_string();
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

/// The tree as Markdown: the header's lines ending in a hard break, then the table and the
/// notes under it (what `sig` marks), as the terminal has them.
pub(super) fn markdown(view: &ModuleView<'_>) -> String {
    let mut out: String = header(view, "")
        .lines()
        .map(|l| format!("{}  \n", md_cell(l)))
        .collect();
    out.push('\n');
    let lines = lines(view);
    let mut rows = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = markdown::write_rows(&model(view, &lines), &mut rows);
    out.push_str(&String::from_utf8(rows).unwrap_or_default());
    out.push('\n');
    for line in notes(view) {
        out.push_str(&format!("{}  \n", md_cell(&line.text)));
    }
    out
}

pub(super) fn csv(view: &ModuleView<'_>, sink: &mut dyn io::Write) -> io::Result<()> {
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
        let host = |x: Option<&Times>| x.map_or(String::new(), |x| crate::output::render::fmt_us(x.host_total_ns));
        let dev = |x: Option<&Times>| {
            x.and_then(|x| x.device_total_ns)
                .map_or(String::new(), crate::output::render::fmt_us)
        };
        let dh = crate::output::render::fmt_us(t.map_or(0, |x| x.host_total_ns) - c.map_or(0, |x| x.host_total_ns));
        let dd = match (c.and_then(|x| x.device_total_ns), t.and_then(|x| x.device_total_ns)) {
            (None, None) => String::new(),
            (a, b) => crate::output::render::fmt_us(b.unwrap_or(0) - a.unwrap_or(0)),
        };
        let sig = match view.significance {
            None => String::new(),
            Some(_) => format!(",{}", view.significant(n).map_or(String::new(), |b| b.to_string())),
        };
        let _ = writeln!(
            out.buf,
            "{},{},{},{},{},{},{dh},{},{},{dd}{sig}",
            crate::output::render::csv_field(if path.is_empty() { &n.key } else { path }),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_keep_their_drawing_ordinal_and_backward_suffix() {
        let labels = [
            "│  ├─ Sequential.backward[2]",
            "│  ├─ Optimizer.step#SGD.step[0]",
            "├─ Net[0]",
        ];
        assert_eq!(
            cut_labels(&labels, 24),
            ["│  ├─ Seque….backward[2]", "│  ├─ Optimizer….step[0]", "├─ Net[0]"]
        );
    }
}
