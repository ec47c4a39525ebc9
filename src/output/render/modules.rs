//! The module-aligned diff as a terminal tree, Markdown and JSON (docs/semantics.md#module-aligned-diff).

use super::compare::describe_side;
use super::{Format, TableStyle, elide_middle, fit_table_with, fmt_duration, fmt_percent, json_us, md_cell};
use crate::analysis::align::{AlignedNode, NodeKind, Status, Times};
use crate::analysis::modules::{BACKWARD_KEY, BackwardPlaced, ModuleDiff};
use serde_json::{Map, Value, json};
use std::fmt::Write;

/// Which time orders and folds the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ModuleTime {
    Host,
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
    pub diff: &'a ModuleDiff,
    /// The node shown at the top (the root, or the `--zoom` node).
    pub top: &'a AlignedNode,
    /// Levels below `top` to show; `None`: all.
    pub depth: Option<usize>,
    /// Fold children whose time is below this share (percent) of `top`'s.
    pub min_share: f64,
    pub order: ModuleOrder,
    /// The time that orders and folds (and whose Δ % is shown).
    pub time: ModuleTime,
}

impl ModuleView<'_> {
    fn has_device(&self) -> bool {
        self.diff.has_device.iter().any(|&d| d)
    }

    fn primary(&self, t: Option<&Times>) -> i64 {
        t.map_or(0, |t| match self.time {
            ModuleTime::Host => t.host_total_ns,
            ModuleTime::Device => t.device_total_ns.unwrap_or(0),
        })
    }

    fn delta(&self, n: &AlignedNode) -> i64 {
        self.primary(n.test.as_ref()) - self.primary(n.control.as_ref())
    }

    /// The children to show, in order, and what was folded: (count, control, test) of the
    /// primary time.
    fn children<'n>(&self, n: &'n AlignedNode) -> (Vec<&'n AlignedNode>, Option<Folded>) {
        let scale = self
            .primary(self.top.control.as_ref())
            .abs()
            .max(self.primary(self.top.test.as_ref()).abs()) as f64;
        let small = |c: &AlignedNode| {
            let size = self
                .primary(c.control.as_ref())
                .abs()
                .max(self.primary(c.test.as_ref()).abs()) as f64;
            self.min_share > 0.0 && size * 100.0 < self.min_share * scale
        };
        let mut shown: Vec<&AlignedNode> = Vec::new();
        let mut folded = Folded::default();
        for c in &n.children {
            if small(c) {
                folded.count += 1;
                folded.control.host_total_ns += c.control.map_or(0, |t| t.host_total_ns);
                folded.test.host_total_ns += c.test.map_or(0, |t| t.host_total_ns);
                folded.control.device_total_ns = Some(
                    folded.control.device_total_ns.unwrap_or(0)
                        + c.control.and_then(|t| t.device_total_ns).unwrap_or(0),
                );
                folded.test.device_total_ns = Some(
                    folded.test.device_total_ns.unwrap_or(0) + c.test.and_then(|t| t.device_total_ns).unwrap_or(0),
                );
            } else {
                shown.push(c);
            }
        }
        if self.order == ModuleOrder::Delta {
            // Stable: equal changes keep the aligned order.
            shown.sort_by_key(|c| {
                (
                    c.kind == NodeKind::Unknown,
                    std::cmp::Reverse(self.delta(c).unsigned_abs()),
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

pub fn render(view: &ModuleView<'_>, format: Format, style: TableStyle) -> String {
    match format {
        Format::Json => json_text(view),
        Format::Markdown => markdown(view),
        Format::Csv => csv(view),
        Format::Table => table(view, style),
    }
}

/// One line of the tree: the label (with its tree drawing), the node's times, its status.
struct Line {
    label: String,
    status: String,
    control: Option<Times>,
    test: Option<Times>,
}

/// The visible nodes, depth first, with `├─`/`└─` drawing.
fn lines(view: &ModuleView<'_>) -> Vec<Line> {
    let mut out = Vec::new();
    let top = view.top;
    out.push(Line {
        label: label_of(top),
        status: top.status.as_str().to_string(),
        control: top.control,
        test: top.test,
    });
    walk(view, top, "", 1, &mut out);
    out
}

fn label_of(n: &AlignedNode) -> String {
    match n.path.rsplit('/').next() {
        Some(last) if !last.is_empty() => last.to_string(),
        _ => n.key.clone(),
    }
}

fn walk(view: &ModuleView<'_>, n: &AlignedNode, prefix: &str, level: usize, out: &mut Vec<Line>) {
    if view.depth.is_some_and(|d| level > d) {
        return;
    }
    let (kids, folded) = view.children(n);
    let total = kids.len() + usize::from(folded.is_some());
    for (k, c) in kids.iter().enumerate() {
        let last = k + 1 == total;
        out.push(Line {
            label: format!("{prefix}{}{}", if last { "└─ " } else { "├─ " }, label_of(c)),
            status: c.status.as_str().to_string(),
            control: c.control,
            test: c.test,
        });
        let deeper = format!("{prefix}{}", if last { "   " } else { "│  " });
        walk(view, c, &deeper, level + 1, out);
    }
    if let Some(f) = folded {
        out.push(Line {
            label: format!("{prefix}└─ … {} more under {}%", f.count, view.min_share),
            status: "folded".to_string(),
            control: Some(f.control),
            test: Some(f.test),
        });
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
    if !view.top.path.is_empty() {
        let _ = writeln!(out, "{prefix}zoom: {}", view.top.path);
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
    h
}

pub fn table(view: &ModuleView<'_>, style: TableStyle) -> String {
    let lines = lines(view);
    let names: Vec<String> = lines.iter().map(|l| l.label.clone()).collect();
    let cells: Vec<Vec<String>> = lines.iter().map(|l| value_cells(view, l)).collect();
    let mut out = header(view, "");
    let _ = writeln!(
        out,
        "{}",
        fit_table_with(
            "module",
            &value_headers(view),
            &names,
            &cells,
            style.name_width(),
            cut_labels
        )
    );
    let (matched, added, deleted) = counts(view.top);
    let _ = writeln!(
        out,
        "{matched} matched, {added} added, {deleted} deleted below {}; zoom with --zoom PATH (see --format json for paths)",
        if view.top.path.is_empty() {
            "the step"
        } else {
            view.top.path.as_str()
        }
    );
    out
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
            let key_at = label.find(|c: char| !"│├└─ ".contains(c)).unwrap_or(0);
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
    for k in &n.children {
        match k.status {
            Status::Matched => c.0 += 1,
            Status::Added => c.1 += 1,
            Status::Deleted => c.2 += 1,
            Status::Unknown => {}
        }
        let (a, b, d) = counts(k);
        c = (c.0 + a, c.1 + b, c.2 + d);
    }
    c
}

pub fn markdown(view: &ModuleView<'_>) -> String {
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

pub fn csv(view: &ModuleView<'_>) -> String {
    let (cl, tl) = (&view.diff.control.label, &view.diff.test.label);
    let mut out = format!(
        "path,status,{cl}_calls,{tl}_calls,{cl}_host_total,{tl}_host_total,diff_host_total,{cl}_device_total,{tl}_device_total,diff_device_total\n"
    );
    let mut rows = Vec::new();
    collect(view.top, view.depth, 0, &mut rows);
    for n in rows {
        let (c, t) = (n.control.as_ref(), n.test.as_ref());
        let calls = |x: Option<&Times>| x.and_then(|x| x.calls).map_or(String::new(), |v| v.to_string());
        let host = |x: Option<&Times>| x.map_or(String::new(), |x| super::fmt_us(x.host_total_ns));
        let dev = |x: Option<&Times>| x.and_then(|x| x.device_total_ns).map_or(String::new(), super::fmt_us);
        let dh = super::fmt_us(t.map_or(0, |x| x.host_total_ns) - c.map_or(0, |x| x.host_total_ns));
        let dd = match (c.and_then(|x| x.device_total_ns), t.and_then(|x| x.device_total_ns)) {
            (None, None) => String::new(),
            (a, b) => super::fmt_us(b.unwrap_or(0) - a.unwrap_or(0)),
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{dh},{},{},{dd}",
            super::csv_field(if n.path.is_empty() { &n.key } else { &n.path }),
            n.status.as_str(),
            calls(c),
            calls(t),
            host(c),
            host(t),
            dev(c),
            dev(t)
        );
    }
    out
}

fn collect<'n>(n: &'n AlignedNode, depth: Option<usize>, level: usize, out: &mut Vec<&'n AlignedNode>) {
    out.push(n);
    if depth.is_some_and(|d| level >= d) {
        return;
    }
    for c in &n.children {
        collect(c, depth, level + 1, out);
    }
}

fn side_json(t: Option<&Times>) -> Value {
    match t {
        None => Value::Null,
        Some(t) => json!({
            "calls": t.calls,
            "host_total_us": json_us(t.host_total_ns),
            "device_total_us": t.device_total_ns.map(json_us),
        }),
    }
}

fn node_json(n: &AlignedNode, depth: Option<usize>, level: usize) -> Value {
    let mut m = Map::new();
    m.insert("kind".into(), Value::from(n.kind.as_str()));
    m.insert("key".into(), Value::from(n.key.as_str()));
    m.insert("path".into(), Value::from(n.path.as_str()));
    m.insert("status".into(), Value::from(n.status.as_str()));
    m.insert("control".into(), side_json(n.control.as_ref()));
    m.insert("test".into(), side_json(n.test.as_ref()));
    let children: Vec<Value> = if depth.is_some_and(|d| level >= d) {
        Vec::new()
    } else {
        n.children.iter().map(|c| node_json(c, depth, level + 1)).collect()
    };
    m.insert("children".into(), Value::Array(children));
    Value::Object(m)
}

fn placed_json(b: BackwardPlaced) -> Value {
    json!({
        "backward_host_us": json_us(b.backward_host_ns),
        "placed_host_us": json_us(b.placed_host_ns),
    })
}

/// The shown node as docs/semantics.md#module-aligned-diff's JSON tree, with what was compared beside it.
pub fn json_text(view: &ModuleView<'_>) -> String {
    let mut root = node_json(view.top, view.depth, 0);
    if let Value::Object(m) = &mut root {
        let d = view.diff;
        m.insert(
            "compared".into(),
            json!({
                "control": d.control,
                "test": d.test,
                "fallback": d.fallback,
                "has_device": { "control": d.has_device[0], "test": d.has_device[1] },
                "backward_placed": {
                    "control": placed_json(d.backward_placed[0]),
                    "test": placed_json(d.backward_placed[1]),
                },
            }),
        );
    }
    let mut s = serde_json::to_string_pretty(&root).unwrap_or_default();
    s.push('\n');
    s
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
