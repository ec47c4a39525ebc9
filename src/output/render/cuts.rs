//! Cutting names to a column's width: in the middle ([`elide_middle`]), keeping the start
//! ([`start_cut`]), or so that distinct names stay distinct and show where they differ
//! ([`Cuts`]).

use super::{kernel_cut, short_names};
use std::borrow::Cow;

/// Shortens `s` to at most `max` characters by cutting out its middle: long kernel names
/// keep their start (namespace and name) and their end. Under 5 characters only the start
/// stays (`aten…`): a cut never makes a table wider than asked.
pub(crate) fn elide_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let (head, tail) = middle_split(max);
    let start: String = s.chars().take(head).collect();
    let end: String = s.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// How many characters of its start and of its end [`elide_middle`] keeps of a name longer than
/// `max` (1 or more): below 5, only a start.
fn middle_split(max: usize) -> (usize, usize) {
    if max < 5 {
        return (max.saturating_sub(1), 0);
    }
    let keep = max - 1;
    let head = keep.div_ceil(2) + keep / 6;
    (head, keep - head)
}

/// How to cut names to `width` characters so that distinct names stay distinct and show where
/// they differ: in the middle ([`elide_middle`]) where the start kept by that cut already tells
/// a name from its neighbours in name order; otherwise the name keeps its start and the part
/// where it first differs from them (`void (an…warp_backw…at, 4, true…`, not two rows ending in
/// the same argument list). Where even that leaves two distinct names with one text (a narrow
/// column), they are numbered (`void (…#1`, `void (…#2`). A name is never kept longer than
/// `width`; equal names have equal cuts. Holds 12 bytes per name cut another way than in the
/// middle, nothing for the others.
#[derive(Debug, Clone)]
pub(super) struct Cuts {
    width: usize,
    /// (index, lo, hi), by index: keep the windows around character positions lo ≤ hi (where
    /// the name branches off from the others), or, where lo is [`NUMBERED`], number the name hi
    /// among names whose cuts stay equal.
    special: Vec<(u32, u32, u32)>,
    /// The names' template-aware short forms ([`short_names::shorten`]), by index, cut in
    /// their place: empty for a table of more than [`short_names::MOST_SHORTENED`] names.
    short: Vec<Option<String>>,
}

/// The `lo` of a name that is numbered.
const NUMBERED: u32 = u32::MAX;

impl Cuts {
    /// The cuts of `count` names; `name(i)` is the i-th.
    pub(super) fn new<'a>(count: usize, name: impl Fn(usize) -> &'a str, width: usize) -> Cuts {
        let mut cuts = Cuts {
            width,
            special: Vec::new(),
            short: Vec::new(),
        };
        // More names than any table holds in memory: middle cuts.
        let Ok(count) = u32::try_from(count) else {
            return cuts;
        };
        // The short forms stand for their names from here on: cut where they do not fit.
        let short = if count as usize <= short_names::MOST_SHORTENED {
            let names: Vec<&str> = (0..count as usize).map(&name).collect();
            short_names::shorten(&names, width)
        } else {
            Vec::new()
        };
        let name = |i: u32| match short.get(i as usize) {
            Some(Some(s)) => s.as_str(),
            _ => name(i as usize),
        };
        let long = |i: &u32| name(*i).chars().count() > width;
        let cut_count = (0..count).filter(long).count();
        // Each name against its neighbours in name order, where its middle cut hides where
        // they differ.
        let mut cut: Vec<u32> = Vec::with_capacity(cut_count);
        cut.extend((0..count).filter(long));
        cut.sort_unstable_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        cuts.special = around(&cut, &name, width, false);
        drop(cut);
        cuts.special.sort_unstable_by_key(|s| s.0);
        // Names whose cuts are still equal, against each other only (names that differ in
        // the same place from different neighbours: `…_0000004_x_x` and `…_0000054_x_x`).
        let equal = cuts.equal_cuts((0..count).filter(long), cut_count, &name);
        let mut again: Vec<(u32, u32, u32)> = Vec::new();
        for group in equal.chunk_by(|a, b| a.0 == b.0) {
            let members: Vec<u32> = group.iter().map(|e| e.1).collect();
            again.extend(around(&members, &name, width, true));
        }
        drop(equal);
        cuts.merge(again);
        // Narrow columns: number what is still equal, in name order across groups (numbers
        // per group could meet again once cut short).
        let equal = cuts.equal_cuts((0..count).filter(long), cut_count, &name);
        let mut numbered: Vec<u32> = equal.iter().map(|e| e.1).collect();
        drop(equal);
        numbered.sort_unstable_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        let mut k: u32 = 0;
        let numbered: Vec<(u32, u32, u32)> = (0..numbered.len())
            .map(|j| {
                if j == 0 || name(numbered[j - 1]) != name(numbered[j]) {
                    k = k.saturating_add(1);
                }
                (numbered[j], NUMBERED, k)
            })
            .collect();
        cuts.merge(numbered);
        cuts.short = short;
        cuts
    }

    /// (hash of the cut, index) of the names (of the `count` names `cut`) whose cut another
    /// name also has, by hash then name. Names with the same hash are taken as one group (a
    /// false merge could only cut names another way than they needed).
    fn equal_cuts<'a>(
        &self,
        cut: impl Iterator<Item = u32>,
        count: usize,
        name: &impl Fn(u32) -> &'a str,
    ) -> Vec<(u32, u32)> {
        let mut texts: Vec<(u32, u32)> = Vec::with_capacity(count);
        texts.extend(cut.map(|i| (hash_of(&self.cut(i as usize, name(i))), i)));
        texts.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a.1).cmp(name(b.1))));
        let mut kept = 0;
        let mut start = 0;
        while start < texts.len() {
            let end = start + texts[start..].iter().take_while(|e| e.0 == texts[start].0).count();
            if name(texts[start].1) != name(texts[end - 1].1) {
                texts.copy_within(start..end, kept);
                kept += end - start;
            }
            start = end;
        }
        texts.truncate(kept);
        texts.shrink_to_fit();
        texts
    }

    /// Puts `updates` (index, lo, hi) in place of the entries of their names.
    fn merge(&mut self, mut updates: Vec<(u32, u32, u32)>) {
        if updates.is_empty() {
            return;
        }
        updates.sort_unstable_by_key(|s| s.0);
        let mut merged = Vec::with_capacity(self.special.len() + updates.len());
        let mut rest = std::mem::take(&mut self.special).into_iter().peekable();
        for update in updates {
            while let Some(s) = rest.next_if(|s| s.0 < update.0) {
                merged.push(s);
            }
            rest.next_if(|s| s.0 == update.0);
            merged.push(update);
        }
        merged.extend(rest);
        self.special = merged;
    }

    /// The text of name `i`.
    pub(super) fn cut<'a>(&'a self, i: usize, name: &'a str) -> Cow<'a, str> {
        if name.chars().count() <= self.width {
            return Cow::Borrowed(name);
        }
        let name = match self.short.get(i) {
            Some(Some(s)) => s.as_str(),
            _ => name,
        };
        if name.chars().count() <= self.width {
            return Cow::Borrowed(name);
        }
        let found = u32::try_from(i)
            .ok()
            .and_then(|i| self.special.binary_search_by_key(&i, |s| s.0).ok());
        match found.map(|k| self.special[k]) {
            Some((_, NUMBERED, n)) => Cow::Owned(numbered(name, n, self.width)),
            Some((_, lo, hi)) => Cow::Owned(cut_around(
                &name.chars().collect::<Vec<_>>(),
                lo as usize,
                hi as usize,
                self.width,
            )),
            None => Cow::Owned(default_cut(name, self.width)),
        }
    }
}

/// (index, lo, hi) of the names of `sorted` (indices sorted by name) to cut around the places
/// where they branch off from the others ([`differences`]): those whose middle cut to `width`
/// hides one of the places, or all of them.
fn around<'a>(sorted: &[u32], name: &impl Fn(u32) -> &'a str, width: usize, all: bool) -> Vec<(u32, u32, u32)> {
    let hidden = |run: &std::ops::Range<usize>, lo: u32, hi: u32| {
        all || {
            let chars: Vec<char> = name(sorted[run.start]).chars().collect();
            !default_cut_shows(&chars, width, lo as usize) || !default_cut_shows(&chars, width, hi as usize)
        }
    };
    // Counted first so that the list is allocated once at its size.
    let kept: usize = differences(sorted, name)
        .filter(|(run, lo, hi)| hidden(run, *lo, *hi))
        .map(|(run, _, _)| run.len())
        .sum();
    let mut special = Vec::with_capacity(kept);
    for (run, lo, hi) in differences(sorted, name) {
        if hidden(&run, lo, hi) {
            special.extend(sorted[run].iter().map(|&i| (i, lo, hi)));
        }
    }
    special
}

/// `name` cut to `width` with nothing else in view: a kernel name as [`kernel_cut::cut`] cuts
/// it (`vectorized_elementwise_kernel<4, at::na…`), any other name in the middle; a name that
/// fits stays whole.
pub(crate) fn default_cut(name: &str, width: usize) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= width {
        return name.to_string();
    }
    match kernel_cut::cut(&chars, width) {
        Some((text, _)) => text,
        None => elide_middle(name, width),
    }
}

/// Whether [`default_cut`] of `name` to `width` shows the character at `p` (a position past
/// the end counts as shown: the name ends there).
fn default_cut_shows(name: &[char], width: usize, p: usize) -> bool {
    let n = name.len();
    if p >= n || n <= width {
        return true;
    }
    if let Some((_, kept)) = kernel_cut::cut(name, width) {
        // What the cut leaves out before its start (`void `, namespaces) counts as shown: the
        // names read apart by what follows, or they are cut again against each other.
        return p < kept[0].start || kept.iter().any(|r| r.contains(&p));
    }
    // The middle cut keeps the first `head` characters and the last `width - 1 - head`.
    let (head, _) = middle_split(width);
    !(p >= head && p + width < n + 1 + head)
}

/// The runs of equal names in `sorted` (indices sorted by name; runs as ranges of `sorted`),
/// each with two places where it branches off from the other names: the deepest (where it
/// first differs from its nearest neighbours in name order, which tells it apart) and the next
/// one up (where the names that share its longer start part from the rest:
/// `softmax_warp_backward` against `softmax_warp_forward`, where the deepest is a template
/// argument), looked for among the 8 nearest names on each side. Places past 4 billion
/// characters count as just under that many.
fn differences<'s, 'a>(
    sorted: &'s [u32],
    name: &'s impl Fn(u32) -> &'a str,
) -> impl Iterator<Item = (std::ops::Range<usize>, u32, u32)> + 's {
    const LOOK: usize = 8;
    const SAME: u32 = u32::MAX;
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    // shared[q]: how many characters the names at q and q + 1 share at their start (SAME for
    // equal names): 4 bytes per name.
    let shared: Vec<u32> = sorted
        .windows(2)
        .map(|w| match (name(w[0]), name(w[1])) {
            (a, b) if a == b => SAME,
            (a, b) => u32::try_from(common(a, b)).unwrap_or(SAME - 1),
        })
        .collect();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= sorted.len() {
            return None;
        }
        let end = start + 1 + shared[start..].iter().take_while(|&&s| s == SAME).count();
        let before = start.checked_sub(1).map_or(0, |q| shared[q]);
        let after = if end < sorted.len() { shared[end - 1] } else { 0 };
        let hi = before.max(after);
        // Walking outward, what a name shares with this run is the least of the shared starts
        // crossed: the first value under `hi` on either side is the next place up.
        let next_up = |steps: &mut dyn Iterator<Item = usize>| {
            let mut least = hi;
            steps.filter(|&q| shared[q] != SAME).take(LOOK).find_map(|q| {
                least = least.min(shared[q]);
                (least < hi).then_some(least)
            })
        };
        let up = next_up(&mut (0..start).rev());
        let down = next_up(&mut (end.saturating_sub(1)..shared.len()));
        let lo = up.max(down).unwrap_or(hi);
        let run = start..end;
        start = end;
        Some((run, lo, hi))
    })
}

fn hash_of(s: &str) -> u32 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    s.hash(&mut h);
    h.finish() as u32
}

/// `name` cut to `width` with its number among names whose cuts stay equal: `void (an…#2`.
fn numbered(name: &str, n: u32, width: usize) -> String {
    let tag = format!("…#{n}");
    let room = width.saturating_sub(tag.chars().count());
    let name = name.strip_prefix("void ").unwrap_or(name);
    let start: String = name.chars().take(room).collect();
    format!("{start}{tag}")
}

/// `name` cut to `width` characters so that positions `lo` ≤ `hi` (and a few characters
/// around them) stay: the start, `…`, a window around both places (or one around each when
/// one window cannot hold both), and `…` when the name goes on.
fn cut_around(name: &[char], lo: usize, hi: usize, width: usize) -> String {
    const CONTEXT: usize = 4;
    if width < 12 {
        return elide_middle(&name.iter().collect::<String>(), width);
    }
    // A kernel's start is its own name, not `void` and its namespaces, where the places lie
    // past them (`vectorized…FillFunctor<flo…`, not `void at::n…FillFunctor<flo…`).
    // Nor its argument list, where the places lie before it (`split_emb…at, 5ul>…`, not
    // `split_emb…at, 5ul>(at::Gene…`).
    let parts = kernel_cut::parts(name);
    let from = parts.map_or(0, |p| if lo >= p.base { p.base } else { p.start });
    let stop = parts.map_or(name.len(), |p| if hi < p.end { p.end } else { name.len() });
    let (name, lo, hi) = (&name[from..stop], lo.saturating_sub(from), hi.saturating_sub(from));
    let n = name.len();
    if n <= width {
        return name.iter().collect();
    }
    let text = |r: std::ops::Range<usize>| name[r].iter().collect::<String>();
    // A place the start keeps anyway needs no window of its own.
    let lo = if lo + CONTEXT < width / 3 { hi } else { lo };
    // The start shows where the name differs (`void cudnn::bn_f…` against `…bn_b…`).
    if hi < width - 1 {
        return format!("{}…", text(0..width - 1));
    }
    let head = (width / 3).min(lo);
    let tail = width - 1 - head;
    if n - tail + CONTEXT <= lo {
        return format!("{}…{}", text(0..head), text(n - tail..n));
    }
    let len = width - head - 2;
    // In a kernel's template list the window starts where the other name parts from it, past
    // an `(anonymous namespace)::` there (`vectorized…launch_clamp_scalar(…`, not
    // `vectorized…ve::(anonymous names…`).
    let anonymous: Vec<char> = "(anonymous namespace)::".chars().collect();
    let kernel_start = (from > 0).then(|| {
        let skip = name[lo..].starts_with(&anonymous);
        lo + if skip { anonymous.len() } else { 0 }
    });
    for start in kernel_start.into_iter().chain([lo.saturating_sub(CONTEXT)]) {
        let start = start.max(head).min(n - len);
        if start <= lo.max(head) + anonymous.len() && hi + CONTEXT < start + len {
            return format!("{}…{}…", text(0..head), text(start..start + len));
        }
    }
    // Two windows: `head…first…second…`, with a shorter start; the first starts with the word
    // it cuts into (`nchwToNhwc`, not `wToNhwc`). Too narrow for two: the deeper place only.
    if (width - width / 4 - 3) / 2 < 10 {
        let start = hi.saturating_sub(CONTEXT).max(head).min(n - len);
        return format!("{}…{}…", text(0..head), text(start..start + len));
    }
    let head = (width / 4).min(lo);
    let first_len = (width - head - 3) / 2;
    let second_len = width - head - 3 - first_len;
    let word = name[..lo]
        .iter()
        .rposition(|c| !(c.is_alphanumeric() || *c == '_'))
        .map_or(0, |k| k + 1);
    let first = word
        .max((lo + CONTEXT + 1).saturating_sub(first_len))
        .max(head)
        .min(n - first_len);
    let second = hi.saturating_sub(CONTEXT).max(first + first_len).min(n - second_len);
    if first <= head {
        // The first window goes on from the start: one piece (`softmax_warp_forwar…`).
        let first_end = head + first_len + 1;
        let second = second.max(first_end).min(n - second_len);
        return format!("{}…{}…", text(0..first_end), text(second..second + second_len));
    }
    format!(
        "{}…{}…{}…",
        text(0..head),
        text(first..first + first_len),
        text(second..second + second_len)
    )
}

/// `name` cut to `width` keeping its start: a kernel's own name, as [`kernel_cut::cut`] cuts
/// it (`bn_fw_tr_1C11_s…`, not `void cudnn::bn_fw…`), any other name's first characters.
pub(crate) fn start_cut(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        return name.to_string();
    }
    let chars: Vec<char> = name.chars().collect();
    if let Some((text, _)) = kernel_cut::cut(&chars, width) {
        return text;
    }
    let kept: String = chars.iter().take(width.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// [`Cuts`] of a few names, as text.
pub(crate) fn distinct_cuts(names: &[&str], width: usize) -> Vec<String> {
    let cuts = Cuts::new(names.len(), |i| names[i], width);
    names
        .iter()
        .enumerate()
        .map(|(i, n)| cuts.cut(i, n).into_owned())
        .collect()
}
