//! Kernel frames of the differential flame graph keyed by class where both sides run kernels
//! under a frame, under other names (docs/kernel-classes.md#in-the-flame-graph): under a frame whose kernels are not the
//! same set of names on both sides, each kernel frame becomes `<class> #<k>`, the `k`-th
//! distinct kernel of that class under that frame in launch order, so an H100 GEMM and the
//! MI300X GEMM in its place share one frame.

use super::Classifier;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

/// Per side, the kernel names under each parent stack, distinct, in first-launch order.
type Children<'a> = BTreeMap<&'a str, Vec<&'a str>>;

fn children(order: &[String]) -> Children<'_> {
    let mut out: Children<'_> = BTreeMap::new();
    let mut seen: FxHashSet<&str> = FxHashSet::default();
    for stack in order {
        if !seen.insert(stack.as_str()) {
            continue;
        }
        if let Some(cut) = stack.rfind(';') {
            out.entry(&stack[..cut]).or_default().push(&stack[cut + 1..]);
        }
    }
    out
}

/// `stacks` with the kernel frames renamed (see the module's documentation); `order` holds each
/// side's kernel stacks in launch order. Each side's total is kept.
pub(crate) fn key_by_class(
    stacks: BTreeMap<String, [i64; 2]>,
    order: &[Vec<String>; 2],
    classifier: &Classifier,
) -> BTreeMap<String, [i64; 2]> {
    let sides = [children(&order[0]), children(&order[1])];
    // Per side: kernel stack → its new stack.
    let mut renamed: [FxHashMap<String, String>; 2] = Default::default();
    let parents: FxHashSet<&str> = sides.iter().flat_map(|s| s.keys().copied()).collect();
    for parent in parents {
        let names = |k: usize| -> FxHashSet<&str> { sides[k].get(parent).into_iter().flatten().copied().collect() };
        // Only where both sides run kernels there, under other names.
        let (a, b) = (names(0), names(1));
        if a == b || a.is_empty() || b.is_empty() {
            continue;
        }
        for (k, map) in renamed.iter_mut().enumerate() {
            let mut ordinal: FxHashMap<&str, usize> = FxHashMap::default();
            for name in sides[k].get(parent).into_iter().flatten() {
                let class = classifier.classify(name).name();
                let n = ordinal.entry(class).or_default();
                *n += 1;
                map.insert(format!("{parent};{name}"), format!("{parent};{class} #{n}"));
            }
        }
    }
    if renamed.iter().all(FxHashMap::is_empty) {
        return stacks;
    }
    let mut out: BTreeMap<String, [i64; 2]> = BTreeMap::new();
    for (stack, ns) in stacks {
        for (k, map) in renamed.iter().enumerate() {
            if ns[k] != 0 {
                let key = map.get(&stack).cloned().unwrap_or_else(|| stack.clone());
                out.entry(key).or_default()[k] += ns[k];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_whose_names_differ_share_a_frame_by_class_and_position() {
        let stacks: BTreeMap<String, [i64; 2]> = [
            ("S;aten::mm;nvjet_a".to_string(), [10, 0]),
            ("S;aten::mm;Cijk_b".to_string(), [0, 12]),
            ("S;aten::add;add_kernel".to_string(), [3, 4]),
        ]
        .into_iter()
        .collect();
        let order = [
            vec!["S;aten::mm;nvjet_a".to_string(), "S;aten::add;add_kernel".to_string()],
            vec!["S;aten::mm;Cijk_b".to_string(), "S;aten::add;add_kernel".to_string()],
        ];
        let out = key_by_class(stacks, &order, &Classifier::builtin());
        assert_eq!(out["S;aten::mm;gemm #1"], [10, 12]);
        assert_eq!(out["S;aten::add;add_kernel"], [3, 4]);
        assert_eq!(out.len(), 2);
    }
}
