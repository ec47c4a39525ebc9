//! What a module view shows: the options, the rows of siblings (folded runs, small children
//! folded by `--min-share`), and the plumbing its writers share.

use crate::analysis::modules::ModuleDiff;
use crate::analysis::modules::align::{AlignedNode, NodeKind, Status, Times};
use crate::analysis::modules::noise::NodeSignificance;
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
pub(super) enum Shown<'n> {
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
    pub(super) fn first(&self) -> &'n AlignedNode {
        match self {
            Shown::Node(n) => n,
            Shown::Run { first, .. } => first,
        }
    }

    pub(super) fn times(&self) -> (Option<Times>, Option<Times>) {
        match self {
            Shown::Node(n) => (n.control, n.test),
            Shown::Run { control, test, .. } => (*control, *test),
        }
    }
}

/// Runs of consecutive added (or deleted) siblings with one key (two or more) as one row each,
/// their times summed.
pub(super) fn fold_runs(children: &[AlignedNode]) -> Vec<Shown<'_>> {
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
    pub(super) fn significant(&self, n: &AlignedNode) -> Option<bool> {
        self.significance.and_then(|s| s.of(n))
    }

    /// The path of the top node (`""` for the step), found in the diff's tree by its id.
    pub(super) fn top_path(&self) -> String {
        self.diff.root.path_of(self.top.id).unwrap_or_default()
    }

    pub(super) fn has_device(&self) -> bool {
        self.diff.has_device.iter().any(|&d| d)
    }

    pub(super) fn primary(&self, t: Option<&Times>) -> i64 {
        t.map_or(0, |t| match self.time {
            ModuleTime::Host => t.host_total_ns,
            ModuleTime::Device => t.device_total_ns.unwrap_or(0),
        })
    }

    /// The children to show, in order, and what was folded: (count, control, test) of the
    /// primary time.
    pub(super) fn children<'n>(&self, n: &'n AlignedNode) -> (Vec<Shown<'n>>, Option<Folded>) {
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
pub(super) struct Folded {
    pub(super) count: usize,
    pub(super) control: Times,
    pub(super) test: Times,
}

/// Text made in pieces and passed on to a writer whenever it holds more than a few KiB.
pub(super) struct Chunks<'w> {
    pub(super) buf: String,
    out: &'w mut dyn io::Write,
}

impl<'w> Chunks<'w> {
    const FLUSH_AT: usize = 1 << 16;

    pub(super) fn new(out: &'w mut dyn io::Write) -> Chunks<'w> {
        Chunks {
            buf: String::new(),
            out,
        }
    }

    /// Passes the text on once there is enough of it.
    pub(super) fn pass(&mut self) -> io::Result<()> {
        if self.buf.len() >= Self::FLUSH_AT {
            self.out.write_all(self.buf.as_bytes())?;
            self.buf.clear();
        }
        Ok(())
    }

    pub(super) fn finish(mut self) -> io::Result<()> {
        self.out.write_all(self.buf.as_bytes())?;
        self.buf.clear();
        Ok(())
    }
}

/// The nodes down to `depth` levels below `top`, depth first.
pub(super) fn collect<'n>(top: &'n AlignedNode, depth: Option<usize>, out: &mut Vec<&'n AlignedNode>) {
    out.extend(walk(top, depth).map(|(n, _)| n));
}

/// The nodes down to `depth` levels below `top` (at level 0), depth first, with their levels.
pub(super) fn walk(top: &AlignedNode, depth: Option<usize>) -> impl Iterator<Item = (&AlignedNode, usize)> {
    let mut todo = vec![(top, 0)];
    std::iter::from_fn(move || {
        let (n, level) = todo.pop()?;
        if depth.is_none_or(|d| level < d) {
            todo.extend(n.children.iter().rev().map(|c| (c, level + 1)));
        }
        Some((n, level))
    })
}
