//! Two sequences of kernel classes paired position by position: Myers' diff (linear memory,
//! the `similar` crate) for the longest common subsequence, then each run of kernels only one
//! side has slid, where an equal-length alignment allows it, next to a run only the other side
//! has, so that a kernel replaced by others in the same place pairs with one of them.

use super::KernelClass;

/// One aligned position: the index in `a`, in `b`, or both.
pub(crate) type Pair = (Option<usize>, Option<usize>);

/// Pairs `a` and `b`: both indices where the classes agree (their longest common
/// subsequence), and inside each run of positions that are not in it, the `k`-th position only
/// `a` has with the `k`-th only `b` has; the rest alone. Every index of each side appears once,
/// in order.
pub(crate) fn pair_by_class(a: &[KernelClass], b: &[KernelClass]) -> Vec<Pair> {
    let mut pairs: Vec<Pair> = Vec::with_capacity(a.len().max(b.len()));
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, a, b) {
        let (o, n) = (op.old_range(), op.new_range());
        match op.tag() {
            similar::DiffTag::Equal => pairs.extend(o.zip(n).map(|(i, j)| (Some(i), Some(j)))),
            _ => {
                pairs.extend(o.map(|i| (Some(i), None)));
                pairs.extend(n.map(|j| (None, Some(j))));
            }
        }
    }
    slide(&mut pairs, a, b, true);
    slide(&mut pairs, a, b, false);
    merge_gaps(pairs)
}

/// Whether a pair holds only one side: only `b` (`inserts`) or only `a`.
fn lone(p: &Pair, inserts: bool) -> bool {
    if inserts { p.0.is_none() } else { p.1.is_none() }
}

/// Moves each run of one-sided positions (`inserts`: only `b`'s; else only `a`'s) left over the
/// equal pairs before it, while the alignment stays as long (the class leaving the run equals
/// the one it passes), where that brings it next to a run of the other side's; else leaves it.
fn slide(pairs: &mut [Pair], a: &[KernelClass], b: &[KernelClass], inserts: bool) {
    let class = |p: &Pair| if inserts { p.1.map(|j| b[j]) } else { p.0.map(|i| a[i]) };
    let both = |p: &Pair| p.0.is_some() && p.1.is_some();
    let mut s = 0;
    while s < pairs.len() {
        if !lone(&pairs[s], inserts) {
            s += 1;
            continue;
        }
        let mut e = s;
        while e < pairs.len() && lone(&pairs[e], inserts) {
            e += 1;
        }
        let (mut st, mut en) = (s, e);
        let mut saved: Vec<(usize, Pair)> = Vec::new();
        let next_to_other = |pairs: &[Pair], st: usize| st > 0 && lone(&pairs[st - 1], !inserts);
        while !next_to_other(pairs, st)
            && st > 0
            && both(&pairs[st - 1])
            && class(&pairs[en - 1]) == class(&pairs[st - 1])
        {
            // The equal pair (x, y) before the run takes the run's last element; the run
            // starts one place earlier with y (or x).
            let (eq, last) = (pairs[st - 1], pairs[en - 1]);
            saved.push((st - 1, eq));
            saved.push((en - 1, last));
            if inserts {
                pairs[st - 1] = (None, eq.1);
                pairs[en - 1] = (eq.0, last.1);
            } else {
                pairs[st - 1] = (eq.0, None);
                pairs[en - 1] = (last.0, eq.1);
            }
            st -= 1;
            en -= 1;
        }
        if !next_to_other(pairs, st) {
            for (at, p) in saved.into_iter().rev() {
                pairs[at] = p;
            }
        }
        s = e;
    }
}

/// Pairs the one-sided positions of each run between two equal pairs: the `k`-th of `a`'s with
/// the `k`-th of `b`'s.
fn merge_gaps(pairs: Vec<Pair>) -> Vec<Pair> {
    let mut out = Vec::with_capacity(pairs.len());
    let (mut dels, mut ins): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    let flush = |out: &mut Vec<Pair>, dels: &mut Vec<usize>, ins: &mut Vec<usize>| {
        for k in 0..dels.len().max(ins.len()) {
            out.push((dels.get(k).copied(), ins.get(k).copied()));
        }
        dels.clear();
        ins.clear();
    };
    for p in pairs {
        match p {
            (Some(i), None) => dels.push(i),
            (None, Some(j)) => ins.push(j),
            _ => {
                flush(&mut out, &mut dels, &mut ins);
                out.push(p);
            }
        }
    }
    flush(&mut out, &mut dels, &mut ins);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use KernelClass::*;

    #[test]
    fn a_fused_kernel_replaced_by_unfused_ones_pairs_with_the_first() {
        // flash attention (one kernel) against GEMM, softmax, GEMM between two GEMMs
        let a = [Gemm, Attention, Gemm, Norm];
        let b = [Gemm, Gemm, Reduce, Gemm, Gemm, Norm];
        let pairs = pair_by_class(&a, &b);
        assert_eq!(
            pairs,
            [
                (Some(0), Some(0)),
                (Some(1), Some(1)),
                (None, Some(2)),
                (None, Some(3)),
                (Some(2), Some(4)),
                (Some(3), Some(5))
            ]
        );
    }

    #[test]
    fn runs_that_cannot_reach_the_other_side_stay_where_myers_put_them() {
        let a = [Gemm, Norm, Gemm];
        let b = [Gemm, Norm, Copy, Gemm];
        assert_eq!(
            pair_by_class(&a, &b),
            [
                (Some(0), Some(0)),
                (Some(1), Some(1)),
                (None, Some(2)),
                (Some(2), Some(3))
            ]
        );
    }
}
