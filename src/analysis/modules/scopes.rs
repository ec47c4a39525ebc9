//! The events inside many module nodes at once, for the report's per-node tables: one pass over
//! each file's events gives every event the set of listed nodes that hold it, where one
//! [`Scope`](crate::analysis::modules::Scope) per node would scan every event once per node
//! (20,000 top-level operators made 20,000 scans of 20,000 events).
//!
//! The rule is [`Scope`](crate::analysis::modules::Scope)'s: an event is inside a node when one of
//! the node's events encloses it in the call tree (or is it); a device event, when its launching
//! event is inside. Nested nodes share events, so a row maps to a *set* of nodes; sets are
//! interned (a child inherits its parent's set unless it is itself one of a node's events), which
//! keeps the memory linear in the events plus the nodes' own events.

use crate::analysis::load::loaded::Loaded;
use crate::analysis::modules::align::AlignedNode;
use crate::model::calltree::NONE;
use crate::model::place::Place;
use crate::model::store::TraceFile;
use crate::request::side::{PerSide, SideId};
use rustc_hash::FxHashMap;

/// For one file: per row, the nodes (indices into the list given to [`NodeScopes::of`]) it is
/// inside, sorted.
#[derive(Debug, Clone, Default)]
pub(crate) struct RowSets {
    /// Row → index into `sets`; 0 is the empty set.
    set_of_row: Vec<u32>,
    sets: Vec<Vec<u32>>,
}

impl RowSets {
    /// The nodes that hold `row`.
    pub(crate) fn of(&self, row: usize) -> &[u32] {
        match self.set_of_row.get(row) {
            Some(&set) => &self.sets[set as usize],
            None => &[],
        }
    }
}

/// The row sets of every selected file of both sides, for a list of nodes.
#[derive(Debug, Clone)]
pub(crate) struct NodeScopes {
    /// Per side, file (index into the side's selected files) → its row sets.
    files: PerSide<Vec<RowSets>>,
    /// How many nodes were listed.
    pub nodes: usize,
}

impl NodeScopes {
    /// The scopes of `nodes` (their index in this list is their id in the row sets).
    pub(crate) fn of(loaded: &Loaded, nodes: &[&AlignedNode]) -> NodeScopes {
        let files = PerSide::from_fn(|side| {
            let mut roots: Vec<Vec<(u32, u32)>> = vec![Vec::new(); loaded.files(side).len()];
            for (id, node) in nodes.iter().enumerate() {
                for &(file, row) in &node.sources[side] {
                    if let Some(list) = roots.get_mut(file as usize) {
                        list.push((row, id as u32));
                    }
                }
            }
            loaded
                .files(side)
                .iter()
                .zip(roots)
                .map(|(f, roots)| row_sets(f, roots))
                .collect()
        });
        NodeScopes {
            files,
            nodes: nodes.len(),
        }
    }

    /// The row sets of file `file` (an index into the side's selected files).
    pub(crate) fn rows(&self, side: SideId, file: usize) -> Option<&RowSets> {
        self.files[side].get(file)
    }
}

/// Interns node sets, so that a row stores one number.
struct Interner {
    sets: Vec<Vec<u32>>,
    ids: FxHashMap<Vec<u32>, u32>,
    unions: FxHashMap<(u32, u32), u32>,
}

impl Interner {
    fn new() -> Interner {
        let mut ids = FxHashMap::default();
        ids.insert(Vec::new(), 0);
        Interner {
            sets: vec![Vec::new()],
            ids,
            unions: FxHashMap::default(),
        }
    }

    fn intern(&mut self, mut set: Vec<u32>) -> u32 {
        set.sort_unstable();
        set.dedup();
        if let Some(&id) = self.ids.get(&set) {
            return id;
        }
        let id = self.sets.len() as u32;
        self.sets.push(set.clone());
        self.ids.insert(set, id);
        id
    }

    fn union(&mut self, a: u32, b: u32) -> u32 {
        if a == 0 || a == b {
            return b;
        }
        if b == 0 {
            return a;
        }
        if let Some(&id) = self.unions.get(&(a, b)) {
            return id;
        }
        let merged = [self.sets[a as usize].as_slice(), self.sets[b as usize].as_slice()].concat();
        let id = self.intern(merged);
        self.unions.insert((a, b), id);
        id
    }
}

/// The row sets of one file, given each node's own rows there `(row, node)`: the same
/// propagation as one scope's, with sets for booleans (own rows, then host events by depth from
/// their parent, then device events from their launcher).
fn row_sets(file: &TraceFile, mut roots: Vec<(u32, u32)>) -> RowSets {
    let n = file.events.len();
    let mut interner = Interner::new();
    let mut set_of_row = vec![0u32; n];
    if roots.is_empty() {
        return RowSets {
            set_of_row,
            sets: interner.sets,
        };
    }
    roots.sort_unstable();
    for group in roots.chunk_by(|a, b| a.0 == b.0) {
        let row = group[0].0 as usize;
        if row < n {
            set_of_row[row] = interner.intern(group.iter().map(|&(_, id)| id).collect());
        }
    }
    let tree = file.call_tree();
    for i in file.host_rows_parents_first() {
        let p = tree.parent[i as usize];
        if p != NONE {
            set_of_row[i as usize] = interner.union(set_of_row[p as usize], set_of_row[i as usize]);
        }
    }
    for i in 0..n {
        let l = tree.launcher[i];
        if file.events.place[i] != Place::Host && l != NONE {
            set_of_row[i] = interner.union(set_of_row[l as usize], set_of_row[i]);
        }
    }
    RowSets {
        set_of_row,
        sets: interner.sets,
    }
}
