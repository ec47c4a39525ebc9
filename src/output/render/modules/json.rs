//! The module tree as JSON: nested (pretty, or compact past a depth) or as one flat list,
//! written node by node.

use super::view::{Chunks, ModuleTime, ModuleView};
use crate::analysis::modules::BackwardPlaced;
use crate::analysis::modules::align::{AlignedNode, PathStack, Times};
use crate::output::render::json_us;
use serde_json::{Map, Value, json};
use std::fmt::Write;
use std::io;

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
    if n.replayed.iter().any(|&r| r) {
        m.insert(
            "via_graph_replay".into(),
            json!({ "control": n.replayed[0], "test": n.replayed[1] }),
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
pub(super) const COMPACT_JSON_DEPTH: usize = 32;

/// The shown node as docs/semantics.md#module-aligned-diff's JSON tree, with what was compared
/// beside it. Written node by node from an explicit stack (the same text as serde_json's
/// pretty printer, or its compact one beyond [`COMPACT_JSON_DEPTH`] levels): a model's tree can
/// nest thousands deep, and each node names its full path.
pub(crate) fn write_json(view: &ModuleView<'_>, out: &mut dyn io::Write) -> io::Result<()> {
    let compared = compared_json(view);
    let mut out = Chunks::new(out);
    let layout = if shown_levels(view) > COMPACT_JSON_DEPTH {
        Layout::Compact
    } else {
        Layout::Pretty
    };
    write_tree(view, &compared, &mut out, layout)?;
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
        "per_step": d.per_step,
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

/// How the JSON tree is laid out: serde_json's pretty printer, or its compact one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    Pretty,
    Compact,
}

impl Layout {
    /// A node's fields up to its `children` array, opened (`[]` whole where it has none).
    fn head(self, fields: Value, level: usize, has_kids: bool) -> String {
        match self {
            Layout::Pretty => {
                let indent = " ".repeat(4 * level);
                let head = pretty_at(&fields, &indent);
                // Without its closing brace: the children go before it.
                let open = if has_kids { "[\n" } else { "[]" };
                format!(
                    "{},\n{indent}  \"children\": {open}",
                    head.trim_end_matches('}').trim_end()
                )
            }
            Layout::Compact => {
                let head = serde_json::to_string(&fields).unwrap_or_default();
                // Without its closing brace (only that one: `wrappers` ends in a brace too).
                format!("{},\"children\":[", head.strip_suffix('}').unwrap_or(&head))
            }
        }
    }

    /// What goes before the `index`-th child of a node at `level - 1`.
    fn before_child(self, level: usize, index: usize) -> String {
        match self {
            Layout::Pretty if index > 0 => format!(",\n{}", " ".repeat(4 * level)),
            Layout::Pretty => " ".repeat(4 * level),
            Layout::Compact if index > 0 => ",".to_string(),
            Layout::Compact => String::new(),
        }
    }

    /// What closes a node after its children (and, for the top node, what was compared).
    fn tail(self, level: usize, has_kids: bool, compared: &Value) -> String {
        match self {
            Layout::Pretty => {
                let indent = " ".repeat(4 * level);
                let close = if level == 0 {
                    format!(",\n  \"compared\": {}\n}}\n", pretty_at(compared, "  "))
                } else {
                    format!("\n{indent}}}")
                };
                if has_kids {
                    format!("\n{indent}  ]{close}")
                } else {
                    close
                }
            }
            Layout::Compact if level == 0 => format!("],\"compared\":{compared}}}\n"),
            Layout::Compact => "]}".to_string(),
        }
    }
}

/// Writes the tree in `layout`, node by node from an explicit stack.
fn write_tree(view: &ModuleView<'_>, compared: &Value, chunks: &mut Chunks<'_>, layout: Layout) -> io::Result<()> {
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
        let kids = shown_children(view, n, level);
        let fields = Value::Object(node_fields(view, n, Some(path)));
        out.push_str(&layout.head(fields, level, !kids.is_empty()));
        todo.push(Step::Text(layout.tail(level, !kids.is_empty(), compared)));
        for (k, c) in kids.iter().enumerate().rev() {
            todo.push(Step::Node(c, level + 1));
            todo.push(Step::Text(layout.before_child(level + 1, k)));
        }
    }
    Ok(())
}
