//! Time intervals on one timeline: merged unions and their length inside windows. A leaf
//! module: the overview, the summaries and the breakdown all measure with it.

/// Σ over the windows of the length of the union of `spans` inside each window.
pub(crate) fn clipped_union(spans: Vec<(i64, i64)>, windows: &[(i64, i64)]) -> i64 {
    clipped_length(&merge_spans(spans), windows)
}

/// `spans` as disjoint, sorted intervals.
pub(crate) fn merge_spans(mut spans: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    // By start alone (the union does not depend on the order of equal starts), and stable: the
    // sort then finds the runs a trace already holds in time order (its streams, its threads)
    // and merges them, where a sort from scratch took 3% of a `compare`.
    spans.sort_by_key(|&(start, _)| start);
    // In place: a trace's host spans run to millions, and a second vector would double them.
    let mut merged = 0;
    for k in 0..spans.len() {
        let (s, e) = spans[k];
        if merged > 0 && s <= spans[merged - 1].1 {
            spans[merged - 1].1 = spans[merged - 1].1.max(e);
        } else {
            spans[merged] = (s, e);
            merged += 1;
        }
    }
    spans.truncate(merged);
    spans.shrink_to_fit();
    spans
}

/// Σ over the windows of the length of `merged` (from [`merge_spans`]) inside each window.
pub(crate) fn clipped_length(merged: &[(i64, i64)], windows: &[(i64, i64)]) -> i64 {
    let mut total = 0;
    for &(ws, we) in windows {
        let first = merged.partition_point(|&(_, e)| e <= ws);
        for &(s, e) in merged[first..].iter().take_while(|&&(s, _)| s < we) {
            total += e.min(we) - s.max(ws);
        }
    }
    total
}

/// The intersection of two merged span lists (from [`merge_spans`]), merged.
pub(crate) fn intersect_merged(a: &[(i64, i64)], b: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    while i < a.len() && j < b.len() {
        let (s, e) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
        if s < e {
            out.push((s, e));
        }
        // The span that ends first can meet nothing further on the other list.
        if a[i].1 <= b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The union of two merged span lists, merged.
pub(crate) fn union_merged(a: &[(i64, i64)], b: &[(i64, i64)]) -> Vec<(i64, i64)> {
    merge_spans(a.iter().chain(b).copied().collect())
}

/// What of merged `a` lies outside merged `b`, merged (both from [`merge_spans`]).
pub(crate) fn subtract_merged(a: &[(i64, i64)], b: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let mut j = 0;
    for &(start, end) in a {
        let mut at = start;
        // Spans of `b` that end before this one starts can meet no later span of `a` either.
        while j < b.len() && b[j].1 <= at {
            j += 1;
        }
        let mut k = j;
        while k < b.len() && b[k].0 < end {
            if b[k].0 > at {
                out.push((at, b[k].0));
            }
            at = at.max(b[k].1);
            k += 1;
        }
        if at < end {
            out.push((at, end));
        }
    }
    out
}

/// Total length covered by a set of intervals.
pub(crate) fn union_length(spans: &mut [(i64, i64)]) -> i64 {
    spans.sort_unstable();
    let mut total = 0;
    let mut current: Option<(i64, i64)> = None;
    for &(a, b) in spans.iter() {
        match current {
            Some((s, e)) if a <= e => current = Some((s, e.max(b))),
            Some((s, e)) => {
                total += e - s;
                current = Some((a, b));
            }
            None => current = Some((a, b)),
        }
    }
    if let Some((s, e)) = current {
        total += e - s;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_length_counts_overlaps_once() {
        assert_eq!(union_length(&mut [(0, 10), (5, 15), (20, 25)]), 20);
        assert_eq!(union_length(&mut []), 0);
    }

    #[test]
    fn union_clipped_to_windows() {
        let spans = vec![(0, 10), (5, 20), (30, 40), (50, 60)];
        assert_eq!(clipped_union(spans.clone(), &[(0, 100)]), 40);
        assert_eq!(clipped_union(spans.clone(), &[(8, 35), (55, 100)]), 12 + 5 + 5);
        assert_eq!(clipped_union(spans, &[(20, 30)]), 0);
        assert_eq!(clipped_union(Vec::new(), &[(0, 1)]), 0);
    }

    #[test]
    fn merged_lists_intersect_and_unite() {
        let a = vec![(0, 10), (20, 30), (40, 50)];
        let b = vec![(5, 25), (28, 45), (60, 70)];
        assert_eq!(intersect_merged(&a, &b), vec![(5, 10), (20, 25), (28, 30), (40, 45)]);
        assert_eq!(union_merged(&a, &b), vec![(0, 50), (60, 70)]);
        assert_eq!(intersect_merged(&a, &[]), Vec::<(i64, i64)>::new());
        // Touching spans share no time.
        assert_eq!(intersect_merged(&[(0, 5)], &[(5, 9)]), Vec::<(i64, i64)>::new());
    }

    #[test]
    fn spans_merge_in_place_whatever_their_order() {
        // Overlapping, touching, nested, repeated and zero-length spans, out of order.
        let spans = vec![
            (30, 40),
            (0, 10),
            (5, 20),
            (20, 25),
            (31, 35),
            (50, 50),
            (50, 60),
            (0, 10),
        ];
        assert_eq!(merge_spans(spans), vec![(0, 25), (30, 40), (50, 60)]);
        assert_eq!(merge_spans(vec![(7, 9)]), vec![(7, 9)]);
        assert_eq!(merge_spans(Vec::new()), Vec::<(i64, i64)>::new());
    }

    #[test]
    fn subtraction_keeps_what_lies_outside() {
        let a = [(0, 10), (20, 30), (40, 50)];
        let b = [(2, 4), (8, 22), (25, 26), (45, 60)];
        assert_eq!(
            subtract_merged(&a, &b),
            vec![(0, 2), (4, 8), (22, 25), (26, 30), (40, 45)]
        );
        assert_eq!(subtract_merged(&a, &[]), a.to_vec());
        assert_eq!(subtract_merged(&[], &b), vec![]);
    }
}
