//! Aligning two trees of the model's pieces (docs/semantics.md#module-aligned-diff): children of matched nodes are paired
//! by the longest common subsequence of their keys — never greedily — and the pairs recursed into.
//!
//! Among alignments with the most pairs, the one that matches the most nodes inside the paired
//! subtrees wins, then the one whose pairs come earliest; timing never decides. That order is
//! what keeps a ResNet-50 layer of 6 blocks paired with the first 6 of a ResNet-152 layer's 36
//! (the first block holds the shortcut, so it only matches nodes inside the other first block;
//! the plain blocks then pair in order), whatever the timing noise.
//!
//! Wrappers are transparent: `OptimizedModule`, `DistributedDataParallel`,
//! `FullyShardedDataParallel`, `DataParallel`, and any module whose only child is one module
//! covering (nearly) all its time, align by what they wrap, so a compiled model pairs with its
//! eager self; the aligned node notes the wrappers of each side ([`AlignedNode::wrappers`]).
//!
//! Memory stays linear in the number of children: common prefixes and suffixes pair first, a
//! middle small enough gets the full search, a longer one Myers' diff of the keys.
//!
//! By job: `tree` holds the trees and their nodes' paths, `keys` a path's segments,
//! `wrappers` what a node aligns by, `matching` the pairing of children and the aligned tree
//! it builds, `merge` the merging of one side's trees.

mod keys;
mod matching;
mod merge;
mod tree;
mod wrappers;

pub(crate) use self::keys::{parse_segment, path_segments};
pub(crate) use self::matching::align;
pub(crate) use self::merge::merge;
pub(crate) use self::tree::{AlignedNode, NodeKind, PathStack, Source, Status, Times, TreeNode, child_path};

#[cfg(test)]
mod tests;
