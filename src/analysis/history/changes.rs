//! Change points of a series over runs (docs/history.md#change-points): E-Divisive means
//! (Matteson and James, 2014, with α = 1, as MongoDB's CI and Apache Otava use it), each
//! candidate split tested by a seeded permutation test, so the output is the same on every run.
//!
//! For a segment `x[a..b)` and a split `τ`, the energy statistic is
//! `Q(τ) = (τ′(m−τ′)/m) · (2/(τ′(m−τ′)) Σ|xᵢ−xⱼ| − Σ_{left}|xᵢ−xₖ|/C(τ′,2) − Σ_{right}|xⱼ−xₖ|/C(m−τ′,2))`
//! (`τ′ = τ − a`, `m = b − a`; the cross sum over `i` left of the split and `j` right of it).
//! The split with the largest `Q` over every current segment is tested: the segment's values
//! are shuffled [`PERMUTATIONS`] times by a generator seeded from the segment's bounds, and the
//! split is kept when its `Q` is beaten by fewer than a share [`SIGNIFICANCE`] of the shuffles
//! (`p = (beaten + 1) / (permutations + 1)`). Kept splits cut their segment in two and the search
//! goes on; it stops at the first split not kept. Each side of a split holds at least
//! [`MIN_SEGMENT`] runs, so that one wild run is never a segment of its own. The sums of all
//! splits of a segment are found in `O(m log m)` with Fenwick trees over the values' ranks.

use serde::Serialize;

/// Shuffles per tested split.
pub(crate) const PERMUTATIONS: usize = 199;
/// The p-value under which a split is a change point.
pub(crate) const SIGNIFICANCE: f64 = 0.05;
/// The fewest runs on either side of a change point.
pub(crate) const MIN_SEGMENT: usize = 3;

/// A change point of a series.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct ChangePoint {
    /// The index of the first run after the change.
    pub index: usize,
    /// The permutation test's p-value.
    pub p_value: f64,
    /// The energy statistic of the split.
    pub q: f64,
}

/// The change points of `values`, by index.
pub(crate) fn change_points(values: &[f64]) -> Vec<ChangePoint> {
    let mut cuts: Vec<usize> = vec![0, values.len()];
    let mut found: Vec<ChangePoint> = Vec::new();
    loop {
        // The best split of each segment, the largest first (ties: the earliest).
        let mut best: Option<(usize, usize, usize, f64)> = None;
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            if let Some((tau, q)) = best_split(&values[a..b])
                && best.is_none_or(|(.., bq)| q > bq)
            {
                best = Some((a, b, a + tau, q));
            }
        }
        let Some((a, b, at, q)) = best else { break };
        let p = permutation_p(&values[a..b], q, seed_of(a, b));
        if p >= SIGNIFICANCE {
            break;
        }
        found.push(ChangePoint {
            index: at,
            p_value: p,
            q,
        });
        cuts.push(at);
        cuts.sort_unstable();
    }
    found.sort_by_key(|c| c.index);
    found
}

/// The split of `x` with the largest `Q`, as (index into `x`, `Q`), each side at least
/// [`MIN_SEGMENT`] long; `None` where `x` is too short.
pub(crate) fn best_split(x: &[f64]) -> Option<(usize, f64)> {
    let m = x.len();
    if m < 2 * MIN_SEGMENT {
        return None;
    }
    let q = split_statistics(x);
    (MIN_SEGMENT..=m - MIN_SEGMENT)
        .map(|t| (t, q[t]))
        .fold(None, |acc: Option<(usize, f64)>, (t, v)| match acc {
            Some((_, bv)) if bv >= v => acc,
            _ => Some((t, v)),
        })
}

/// `Q(τ)` for every split `τ` of `x` (index `τ`: the first value of the right side); 0 at the ends.
fn split_statistics(x: &[f64]) -> Vec<f64> {
    let m = x.len();
    let left = within_sums(x.iter().copied());
    let mut right = within_sums(x.iter().rev().copied());
    right.reverse();
    // left[t]: the sum over pairs of x[..t]; right[t]: over pairs of x[t..].
    let total = left[m];
    let mut q = vec![0.0; m + 1];
    for t in 1..m {
        let (l, r) = (t as f64, (m - t) as f64);
        let cross = total - left[t] - right[t];
        let within = |sum: f64, k: f64| if k >= 2.0 { sum / (k * (k - 1.0) / 2.0) } else { 0.0 };
        let e = 2.0 * cross / (l * r) - within(left[t], l) - within(right[t], r);
        q[t] = l * r / m as f64 * e;
    }
    q
}

/// `out[k]`: Σ|xᵢ − xⱼ| over the pairs of the first `k` values of `values` (`out.len()` = n + 1).
fn within_sums(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let v: Vec<f64> = values.collect();
    let n = v.len();
    // Ranks (ties by position), then Fenwick trees of counts and sums over them.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]).then(a.cmp(&b)));
    let mut rank = vec![0usize; n];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    let (mut count, mut sum) = (vec![0f64; n + 1], vec![0f64; n + 1]);
    let prefix = |tree: &[f64], mut i: usize| {
        let mut s = 0.0;
        while i > 0 {
            s += tree[i];
            i &= i - 1;
        }
        s
    };
    let (mut out, mut acc, mut all_sum) = (vec![0.0; n + 1], 0.0, 0.0);
    for (k, &x) in v.iter().enumerate() {
        let r = rank[k];
        let (below_n, below_s) = (prefix(&count, r), prefix(&sum, r));
        let (above_n, above_s) = (k as f64 - below_n, all_sum - below_s);
        acc += x * below_n - below_s + above_s - x * above_n;
        out[k + 1] = acc;
        all_sum += x;
        let mut i = r + 1;
        while i <= n {
            count[i] += 1.0;
            sum[i] += x;
            i += i & i.wrapping_neg();
        }
    }
    out
}

/// The share of shuffles of `x` whose best split beats `q` ((beaten + 1) / (shuffles + 1)).
fn permutation_p(x: &[f64], q: f64, seed: u64) -> f64 {
    let mut rng = SplitMix64(seed);
    let mut shuffled = x.to_vec();
    let mut beaten = 0usize;
    for _ in 0..PERMUTATIONS {
        // Fisher–Yates.
        for i in (1..shuffled.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            shuffled.swap(i, j);
        }
        if best_split(&shuffled).is_some_and(|(_, v)| v >= q) {
            beaten += 1;
        }
    }
    (beaten + 1) as f64 / (PERMUTATIONS + 1) as f64
}

/// The seed of the test of segment `a..b`: the same segment is always shuffled alike.
fn seed_of(a: usize, b: usize) -> u64 {
    0x7472_6163_6564_6966 ^ ((a as u64) << 32) ^ b as u64
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a small generator whose stream a seed fixes.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noisy(n: usize, level: f64, seed: u64) -> Vec<f64> {
        let mut r = SplitMix64(seed);
        (0..n)
            .map(|_| level * (1.0 + ((r.next() % 1000) as f64 / 1000.0 - 0.5) * 0.1))
            .collect()
    }

    #[test]
    fn the_sums_match_the_pairs() {
        let x = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        let sums = within_sums(x.iter().copied());
        for (k, sum) in sums.iter().enumerate() {
            let brute: f64 = (0..k)
                .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
                .map(|(i, j)| (x[i] - x[j]).abs())
                .sum();
            assert!((sum - brute).abs() < 1e-9, "{k}: {sum} vs {brute}");
        }
    }

    #[test]
    fn a_step_is_found_where_it_starts_and_noise_has_none() {
        let mut series = noisy(12, 100.0, 1);
        series.extend(noisy(8, 130.0, 2));
        let found = change_points(&series);
        assert_eq!(found.iter().map(|c| c.index).collect::<Vec<_>>(), vec![12], "{found:?}");
        assert!(found[0].p_value < SIGNIFICANCE);
        // The same series, the same answer.
        assert_eq!(change_points(&series), found);
        assert!(change_points(&noisy(30, 100.0, 3)).is_empty());
        // One wild run is not a change.
        let mut wild = noisy(20, 100.0, 4);
        wild[10] = 300.0;
        assert!(change_points(&wild).is_empty(), "{:?}", change_points(&wild));
        assert!(change_points(&[1.0, 2.0]).is_empty());
    }
}
