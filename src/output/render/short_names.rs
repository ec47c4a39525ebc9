//! Template-aware short names: a long kernel name shown as its own name and the parameters
//! that tell it apart from the other rows shown, the rest elided. Two cutlass kernels that
//! differ in one letter deep in their template list read `Kernel2<…_8x4_nn_align1>` and
//! `Kernel2<…_8x4_nt_align1>`, not `Kernel2<c…8_8x4_nn_align1>…` twice; an AMD
//! `Cijk_Ailk_Bljk_…` name of 1,000 characters keeps its start and the fields that differ.
//!
//! A name is split into words (runs of letters and digits) and the text between them; names
//! of one family (the same own name: `Kernel2`, `reduce_kernel`, `Cijk`) are compared word by
//! word (Myers' diff), and a word another member does not share in its place is kept. Pure
//! functions: the names in, the short forms out.

use std::collections::BTreeMap;
use std::ops::Range;

use super::kernel_cut;

/// The most names shortened against each other: a longer table (a pipe of 100,000 rows) is
/// cut as before, each name against its neighbours in name order, holding no copy of them.
pub(crate) const MOST_SHORTENED: usize = 5_000;

/// The most members of a family each name is compared with (the nearest in name order).
const NEAREST: usize = 16;

/// Where a piece of a name lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Region {
    /// Namespaces before the own name (`at::native::`).
    Prefix,
    /// The own name (`Kernel2`; a plain name's first word: `Cijk`).
    Head,
    /// The template list without its brackets (a plain name: all after its first word).
    Params,
    /// The argument list, brackets and all.
    Args,
    /// The template list's closing `>`, written back after the parameters.
    Close,
}

/// A word or the text between two words, as a range of character positions.
#[derive(Debug, Clone)]
struct Token {
    range: Range<usize>,
    word: bool,
    region: Region,
}

/// A name split into tokens.
struct Split {
    chars: Vec<char>,
    tokens: Vec<Token>,
    /// Whether it is a C++ function name with a template list (`<`…`>` around the params).
    template: bool,
}

impl Split {
    fn new(name: &str) -> Split {
        let chars: Vec<char> = name.chars().collect();
        let parts = kernel_cut::parts(&chars);
        let (start, base, open, end) = match parts {
            Some(p) => (p.start, p.base, p.open, p.end),
            None => {
                // A plain name (`Cijk_…`, `sm80_xmma_…`): its first word is its own name, the
                // rest its parameters.
                let first = chars.iter().position(|c| !c.is_alphanumeric()).unwrap_or(chars.len());
                (0, 0, first, chars.len())
            }
        };
        let template = parts.is_some() && open < end;
        let region = |k: usize| {
            if k < base {
                Region::Prefix
            } else if k < open || (template && k == open) {
                Region::Head
            } else if k < end {
                Region::Params
            } else {
                Region::Args
            }
        };
        let mut tokens = Vec::new();
        let mut k = start;
        while k < chars.len() {
            let word = chars[k].is_alphanumeric();
            let r = region(k);
            let mut e = k + 1;
            while e < chars.len() && chars[e].is_alphanumeric() == word && region(e) == r {
                e += 1;
            }
            // A template list's closing `>` belongs to no parameter: it is written back after them.
            if template && r == Region::Params && e == end {
                e = e.min(end.saturating_sub(1)).max(k + 1);
            }
            tokens.push(Token {
                range: k..e,
                word,
                region: if template && r == Region::Params && k == end - 1 {
                    Region::Close
                } else {
                    r
                },
            });
            k = e;
        }
        Split {
            chars,
            tokens,
            template,
        }
    }

    /// Whether it is a kernel's name: a C++ function, or a name of one word and underscores
    /// (`Cijk_…`, `sm80_xmma_…`). Operators (`aten::native_batch_norm_backward`) and names of
    /// several words (`aten::addmm [input_dims=…]`, `Memcpy HtoD (…)`, `op → kernel`) are cut
    /// as before.
    fn is_kernel(&self) -> bool {
        self.template || kernel_cut::parts(&self.chars).is_some() || !self.chars.iter().any(|&c| c == ' ' || c == ':')
    }

    fn text(&self, t: &Token) -> String {
        self.chars[t.range.clone()].iter().collect()
    }

    /// The own name: the family key.
    fn head(&self) -> String {
        self.tokens
            .iter()
            .filter(|t| t.region == Region::Head && t.word)
            .map(|t| self.text(t))
            .collect()
    }
}

/// For each name longer than `width`, its short form where it has one: the own name and the
/// parameters that differ from the other names of its family among `names`, as much of the
/// rest as fits in `width`. `None` for a name that fits, has no family among `names`, or whose
/// short form would read as another row's; distinct names always keep distinct texts.
pub(crate) fn shorten(names: &[&str], width: usize) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = vec![None; names.len()];
    if width == usize::MAX || names.len() > MOST_SHORTENED {
        return out;
    }
    let long: Vec<bool> = names.iter().map(|n| n.chars().count() > width).collect();
    if !long.iter().any(|&l| l) {
        return out;
    }
    let splits: Vec<Option<Split>> = names
        .iter()
        .zip(&long)
        .map(|(n, &l)| {
            (l || n.chars().count() > 8)
                .then(|| Split::new(n))
                .filter(Split::is_kernel)
        })
        .collect();
    // Families by own name, each in name order (distinct names only).
    let mut families: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, s) in splits.iter().enumerate() {
        if let Some(s) = s {
            families.entry(s.head()).or_default().push(i);
        }
    }
    for members in families.values_mut() {
        members.sort_by(|&a, &b| names[a].cmp(names[b]).then(a.cmp(&b)));
        members.dedup_by(|a, b| names[*a] == names[*b]);
    }
    for members in families.values().filter(|m| m.len() > 1) {
        for (pos, &i) in members.iter().enumerate() {
            if !long[i] {
                continue;
            }
            let Some(split) = &splits[i] else { continue };
            let lo = pos.saturating_sub(NEAREST / 2);
            let others = members[lo..(lo + NEAREST + 1).min(members.len())]
                .iter()
                .filter(|&&j| j != i)
                .filter_map(|&j| splits[j].as_ref());
            let kept = differing(split, others);
            out[i] = Some(short_form(split, &kept, width));
        }
    }
    // Equal names are shortened alike.
    let mut first: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, name) in names.iter().enumerate() {
        let k = *first.entry(name).or_insert(i);
        if k != i {
            out[i] = out[k].clone();
        }
    }
    keep_distinct(names, &mut out);
    out
}

/// Which tokens of `split` some other name does not share in their place.
fn differing<'a>(split: &Split, others: impl Iterator<Item = &'a Split>) -> Vec<bool> {
    let texts: Vec<String> = split.tokens.iter().map(|t| split.text(t)).collect();
    let mut kept = vec![false; texts.len()];
    for other in others {
        let theirs: Vec<String> = other.tokens.iter().map(|t| other.text(t)).collect();
        let mut shared = vec![false; texts.len()];
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &texts, &theirs) {
            if let similar::DiffOp::Equal { old_index, len, .. } = op {
                shared[old_index..old_index + len].iter_mut().for_each(|s| *s = true);
            }
        }
        for (k, s) in kept.iter_mut().zip(shared) {
            *k |= !s;
        }
    }
    kept
}

/// The short form of `split`: the own name, the tokens `differs` marks in the first region
/// that has any (the parameters, else the arguments, else the namespaces), each word with the
/// text before it, the region's last word; the runs between them elided as `…`, then given
/// back from the left while the whole fits in `width`.
fn short_form(split: &Split, differs: &[bool], width: usize) -> String {
    let tokens = &split.tokens;
    let region = [Region::Params, Region::Args, Region::Prefix]
        .into_iter()
        .find(|r| tokens.iter().zip(differs).any(|(t, &d)| d && t.region == *r))
        .unwrap_or(Region::Params);
    let shown: Vec<usize> = (0..tokens.len()).filter(|&k| tokens[k].region == region).collect();
    let runs = elided_runs(split, differs, &shown);
    // `fill`: the start of a run's text written before its `…`.
    let compose_filled = |elided: &[Range<usize>], fill: Option<(usize, &str)>| -> String {
        let mut body = String::new();
        let mut n = 0;
        while n < shown.len() {
            if let Some(run) = elided.iter().find(|r| r.start == n && !r.is_empty()) {
                if let Some((_, text)) = fill.filter(|f| f.0 == n) {
                    body.push_str(text);
                }
                body.push('…');
                n = run.end;
                continue;
            }
            body.push_str(&split.text(&tokens[shown[n]]));
            n += 1;
        }
        frame(split, region, &body)
    };
    let compose = |elided: &[Range<usize>]| compose_filled(elided, None);
    let elided = give_back(runs, &|elided: &[Range<usize>]| {
        compose(elided).chars().count() <= width
    });
    let text = compose(&elided);
    let spare = width.saturating_sub(text.chars().count());
    // Room left over: the first run elided shows its first characters (`cutla…`).
    if let Some(run) = elided.iter().find(|r| !r.is_empty()).filter(|_| spare >= 3) {
        let whole: String = shown[run.clone()].iter().map(|&k| split.text(&tokens[k])).collect();
        let start: String = whole.chars().take(spare).collect();
        return compose_filled(&elided, Some((run.start, &start)));
    }
    if text.chars().count() <= width {
        return text;
    }
    // Still too long: its start, the own name and the first places that differ.
    let start: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{}…", start.trim_end_matches('…'))
}

/// The runs of `shown` (tokens of `split`) a short form leaves out, as ranges of `shown`; it
/// keeps each word that differs (once: `BFloat16` where it first stands for
/// `float`) with the text before it, the last word and what follows; a run of 3 characters or
/// fewer stays.
fn elided_runs(split: &Split, differs: &[bool], shown: &[usize]) -> Vec<Range<usize>> {
    let tokens = &split.tokens;
    let mut seen: Vec<String> = Vec::new();
    let mut keep: Vec<bool> = Vec::with_capacity(shown.len());
    for &k in shown {
        let text = split.text(&tokens[k]);
        // The text between words comes with the word after it, never alone (`…::…`).
        let first = differs[k] && tokens[k].word && !seen.contains(&text);
        if first {
            seen.push(text);
        }
        keep.push(first);
    }
    let last_word = shown.iter().rposition(|&k| tokens[k].word);
    for n in 0..shown.len() {
        let word = tokens[shown[n]].word;
        // A kept word keeps the text before it (`_nn`, `, 7`); the last word and what follows.
        if (word && (keep[n] || Some(n) == last_word)) || last_word.is_some_and(|l| n > l) {
            keep[n] = true;
            if n > 0 && !tokens[shown[n - 1]].word {
                keep[n - 1] = true;
            }
        }
    }
    let mut runs: Vec<Range<usize>> = Vec::new();
    let mut n = 0;
    while n < shown.len() {
        if keep[n] {
            n += 1;
            continue;
        }
        let e = n + keep[n..].iter().take_while(|k| !**k).count();
        let len: usize = shown[n..e].iter().map(|&k| tokens[k].range.len()).sum();
        if len > 3 {
            runs.push(n..e);
        } else {
            keep[n..e].iter_mut().for_each(|k| *k = true);
        }
        n = e;
    }
    runs
}

/// The runs left out once given back from the left while the short form `fits`: each run
/// whole, else as much of its start as fits (an emptied run is no longer elided).
fn give_back(runs: Vec<Range<usize>>, fits: &dyn Fn(&[Range<usize>]) -> bool) -> Vec<Range<usize>> {
    let mut elided = runs;
    for k in 0..elided.len() {
        let run = elided[k].clone();
        let mut part = elided.clone();
        part[k] = run.end..run.end;
        if fits(&part) {
            elided = part;
            continue;
        }
        // The most of its start that fits (more shown, longer: a binary search).
        let (mut lo, mut hi) = (run.start, run.end - 1);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            part[k] = mid..run.end;
            if fits(&part) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        elided[k] = lo..run.end;
    }
    elided
}

/// `body` (the shown region's text) in its place: `Kernel2<body>`, `reduce_kernel<…>(body)`,
/// `…body::softmax<…>`, `Cijkbody`.
fn frame(split: &Split, region: Region, body: &str) -> String {
    let head: String = split
        .tokens
        .iter()
        .filter(|t| t.region == Region::Head)
        .map(|t| split.text(t))
        .collect();
    let close = if split.template { ">" } else { "" };
    match region {
        Region::Params => format!("{head}{body}{close}"),
        Region::Args if split.template => format!("{head}…>{body}"),
        Region::Args => format!("{head}{body}"),
        Region::Prefix | Region::Head | Region::Close => {
            let tail = if split.template { "…>" } else { "" };
            format!("…{body}{head}{tail}")
        }
    }
}

/// Drops the short forms that read as another name's text (its short form, or the name itself
/// where it is shown whole), until none do.
fn keep_distinct(names: &[&str], out: &mut [Option<String>]) {
    loop {
        let mut texts: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, name) in names.iter().enumerate() {
            texts.entry(out[i].as_deref().unwrap_or(name)).or_default().push(i);
        }
        let clashes: Vec<usize> = texts
            .values()
            .filter(|ix| ix.iter().any(|&i| names[i] != names[ix[0]]))
            .flatten()
            .copied()
            .filter(|&i| out[i].is_some())
            .collect();
        if clashes.is_empty() {
            return;
        }
        for i in clashes {
            out[i] = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NN: &str = "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(cutlass_80_simt_sgemm_256x128_8x4_nn_align1::Params)";
    const NT: &str = "void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nt_align1>(cutlass_80_simt_sgemm_256x128_8x4_nt_align1::Params)";

    fn short(names: &[&str], width: usize) -> Vec<String> {
        shorten(names, width)
            .into_iter()
            .zip(names)
            .map(|(s, n)| s.unwrap_or_else(|| format!("(whole) {n}")))
            .collect()
    }

    #[test]
    fn cutlass_kernels_keep_the_letters_that_differ() {
        let s = short(&[NN, NT], 20);
        assert_eq!(s, ["Kernel2<…_nn_align1>", "Kernel2<…_nt_align1>"]);
        // Room left over shows the start of what was left out.
        let s = short(&[NN, NT], 26);
        assert_eq!(s, ["Kernel2<cutlas…_nn_align1>", "Kernel2<cutlas…_nt_align1>"]);
        // With room, more of the template list comes back, from its start.
        let s = short(&[NN, NT], 52);
        assert_eq!(s[0], "Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>");
        let s = short(&[NN, NT], 40);
        assert!(s[0].starts_with("Kernel2<cutlass_80_simt"), "{s:?}");
        assert!(s[0].ends_with("_nn_align1>") && s[1].ends_with("_nt_align1>"), "{s:?}");
        assert!(s.iter().all(|t| t.chars().count() <= 40), "{s:?}");
    }

    #[test]
    fn names_alone_in_their_family_or_that_fit_are_left_alone() {
        let gemm = "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float> >(int)";
        assert_eq!(shorten(&[NN, gemm], 30)[1], None);
        assert_eq!(shorten(&[NN, NT], 200), [None, None]);
        assert_eq!(shorten(&[NN, NT], usize::MAX), [None, None]);
    }

    #[test]
    fn template_arguments_that_differ_are_kept() {
        let a = "void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>(float*, float const*, int)";
        let b = "void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, true, false>(float*, float const*, int)";
        let s = short(&[a, b], 34);
        assert_eq!(
            s,
            [
                "softmax_warp_forward<…, 4…, false>",
                "softmax_warp_forward<…, 7…, false>"
            ]
        );
        // Only the arguments differ: they are shown.
        let a = "void k<int>(float*)";
        let b = "void k<int>(double*)";
        assert_eq!(short(&[a, b], 14), ["k<…>(float*)", "k<…>(double*)"]);
    }

    #[test]
    fn plain_names_keep_their_first_word_and_the_fields_that_differ() {
        let field = |mt: &str, wg: &str| {
            format!(
                "Cijk_Ailk_Bljk_HHS_BH_MT{mt}_MI32x32x8x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_DTL0_DTVA0_DVO0_ETSP_EPS1_FL0_GRPM1_GRVW8_GSU1_GSUASB_GLS0_ISA90a_IU1_K1_KLA_LBSPP128_LPA0_LPB8_LDL1_LRVW16_LWPMn1_LDW0_FMA_MIAV1_MDA2_MO40_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA1_NLCB1_ONLL1_OPLV0_PK0_PAP0_PGR1_PLR5_SIA3_SS1_SU32_SUM0_SUS256_SCIUI1_SPO0_SRVW0_SSO0_SVW4_SNLL0_TT4_64_TLDS1_USFGROn1_VAW2_VSn1_VW4_WSGRA0_WSGRB0_WS64_WG{wg}_4_1_WGM8"
            )
        };
        let a = field("128x128x32", "32");
        let b = field("256x128x32", "64");
        let s = short(&[&a, &b], 60);
        assert!(s[0].starts_with("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32"), "{s:?}");
        assert!(s[0].contains("_WG32") && s[1].contains("_WG64"), "{s:?}");
        assert!(
            s[0].ends_with("_WGM8") && s.iter().all(|t| t.chars().count() <= 60),
            "{s:?}"
        );
    }

    #[test]
    fn short_forms_never_read_as_another_row() {
        // `k<a, b>` shares every word with `k<a, b, c>`: whatever their short forms, they differ.
        let a = "void k<alpha_alpha, beta_beta_beta>(int)";
        let b = "void k<alpha_alpha, beta_beta_beta, gamma>(int)";
        let s = shorten(&[a, b], 12);
        let texts: Vec<&str> = s.iter().zip([a, b]).map(|(s, n)| s.as_deref().unwrap_or(n)).collect();
        assert_ne!(texts[0], texts[1]);
        // Equal names stay equal and are shortened alike.
        let s = shorten(&[NN, NT, NN], 20);
        assert_eq!(s[0], s[2]);
    }
}
