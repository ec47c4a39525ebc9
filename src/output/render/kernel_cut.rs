//! How a C++ kernel name is cut to a table's width: what identifies a kernel is its own name and
//! its template arguments, not the `void` it returns, its namespaces or its argument list, so
//! those go first (`void at::native::vectorized_elementwise_kernel<4, …>(…)` read
//! `void at::native::vectorized_elementwise_kern…` at 80 columns before).

use std::ops::Range;

/// Where the parts of a C++ function name are, as character positions: `start` past a leading
/// `void `, `base` where the function's own name begins (after its namespaces), `open` its
/// template list's `<` (`end` without one), `end` where a trailing argument list begins (the
/// name's length without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Parts {
    /// Past a leading `void `.
    pub start: usize,
    /// Where the function's own name begins.
    pub base: usize,
    /// The template list's `<`, or `end`.
    pub open: usize,
    /// Where the argument list begins, or the name's length.
    pub end: usize,
}

/// The parts of `name`, or `None` for a name that is no C++ function (no leading `void `, no
/// trailing argument list, no template list): `Memcpy HtoD (Pageable -> Device)`, `aten::mm`,
/// `sm80_xmma_gemm_…`, Triton names.
pub(crate) fn parts(name: &[char]) -> Option<Parts> {
    let n = name.len();
    let start = if name.starts_with(&['v', 'o', 'i', 'd', ' ']) {
        5
    } else {
        0
    };
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '>';
    // The argument list: the `(` that matches the final `)`, right after a name or a template
    // list (`ProfilerStep#* (GPU)` has a space there: no arguments).
    let end = (name.last() == Some(&')'))
        .then(|| matching(name, n - 1, '(', ')'))
        .flatten()
        .filter(|&a| a > start && ident(name[a - 1]))
        .unwrap_or(n);
    let open = (end > start && name[end - 1] == '>')
        .then(|| matching(&name[..end], end - 1, '<', '>'))
        .flatten()
        .filter(|&o| o > start)
        .unwrap_or(end);
    if start == 0 && end == n && open == end {
        return None;
    }
    // The last `::` outside parentheses: `(anonymous namespace)::softmax_warp_forward`. A space
    // outside them is no C++ name (`aten::mm → void cutlass::Kernel2<…>(…)`).
    let mut depth = 0i32;
    let mut base = start;
    for k in start..open {
        match name[k] {
            '(' => depth += 1,
            ')' => depth -= 1,
            ' ' if depth == 0 => return None,
            ':' if depth == 0 && k + 1 < open && name[k + 1] == ':' => base = k + 2,
            _ => {}
        }
    }
    Some(Parts { start, base, open, end })
}

/// The position of the `open` that matches the `close` at `at`, scanning back (an `->` is no
/// bracket).
fn matching(name: &[char], at: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for k in (0..=at).rev() {
        let c = name[k];
        if c == close && !(close == '>' && k > 0 && name[k - 1] == '-') {
            depth += 1;
        } else if c == open {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// `name` (longer than `width`) cut as a kernel: the text and the ranges of character positions
/// it keeps. In order, the first that fits: the name without `void ` and with its argument list
/// as `(…)` (or `…`), with its namespaces or without; its start with 12 characters of its
/// template list or more (`cutlass::Kernel2<cutlass_80_simt_…`), the same without the
/// namespaces (`dgrad_engine<float, 512, 6, 5…`); the function's own name with `<…`
/// (`bn_fw_tr_1C11_singleread<…`); its start. A template list keeps its start: where two
/// instantiations differ further on, `Cuts` cuts them around that place. `None` for a
/// name that is no C++ function, or a width under 8.
pub(crate) fn cut(name: &[char], width: usize) -> Option<(String, [Range<usize>; 2])> {
    if width < 8 {
        return None;
    }
    let Some(p) = parts(name) else {
        return qualified_cut(name, width);
    };
    let n = name.len();
    let text = |r: Range<usize>| name[r].iter().collect::<String>();
    let none = 0..0;
    for from in [p.start, p.base] {
        let core = p.end - from;
        if p.end == n && core <= width {
            return Some((text(from..n), [from..n, none]));
        }
        if p.end < n && core + 3 <= width {
            return Some((format!("{}(…)", text(from..p.end)), [from..p.end, none]));
        }
        if p.end < n && core < width {
            return Some((format!("{}…", text(from..p.end)), [from..p.end, none]));
        }
    }
    let start_cut = |from: usize| {
        let stop = (from + width - 1).min(n);
        (format!("{}…", text(from..stop)), [from..stop, 0..0])
    };
    // `qualified<` and the start of the template list, with `min` of it at least.
    for (from, min) in [(p.start, 12), (p.base, 12), (p.base, 4)] {
        if p.open < p.end && p.open - from + 1 + min < width {
            return Some(start_cut(from));
        }
    }
    let marker = if p.open < p.end {
        "<…"
    } else if p.end < n {
        "(…)"
    } else {
        "…"
    };
    if p.open - p.base + marker.chars().count() <= width {
        return Some((format!("{}{marker}", text(p.base..p.open)), [p.base..p.open, none]));
    }
    Some(start_cut(p.base))
}

/// A qualified name without more (`at::native::vectorized_elementwise_kernel`, as
/// `--short-names` gives it) whose own name fits after a `…`: `…vectorized_elementwise_kernel`
/// (a middle cut read `at::native::vectoriz…ise_kernel`). `None` otherwise: an operator's middle
/// cut keeps its end (`aten::_scaled_d…backward`).
fn qualified_cut(name: &[char], width: usize) -> Option<(String, [Range<usize>; 2])> {
    if name
        .iter()
        .any(|c| c.is_whitespace() || matches!(c, '(' | ')' | '<' | '>'))
    {
        return None;
    }
    let base = name.windows(2).rposition(|w| w == [':', ':'])? + 2;
    let n = name.len();
    (base < n && n - base < width).then(|| {
        let text: String = name[base..].iter().collect();
        (format!("…{text}"), [base..n, 0..0])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    fn cut_to(s: &str, width: usize) -> String {
        cut(&chars(s), width).map_or_else(|| "(none)".into(), |c| c.0)
    }

    #[test]
    fn parts_of_real_kernel_names() {
        let name = chars(
            "void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>(float*, float const*, int)",
        );
        let p = parts(&name).unwrap();
        assert_eq!(
            name[p.start..p.base].iter().collect::<String>(),
            "(anonymous namespace)::"
        );
        assert_eq!(name[p.base..p.open].iter().collect::<String>(), "softmax_warp_forward");
        assert_eq!(name[p.end], '(');
        for plain in [
            "Memcpy HtoD (Pageable -> Device)",
            "ProfilerStep#* (GPU)",
            "aten::mm",
            "nvjet_sm90_tst_64x24_h_bz_NNT",
            "aten::mm → void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(cutlass_80_simt_sgemm_256x128_8x4_nn_align1::Params)",
            "<built-in method to of Tensor object at 0x*>",
        ] {
            assert_eq!(parts(&chars(plain)), None, "{plain}");
        }
        // Unbalanced brackets are no parts, never a panic.
        assert_eq!(parts(&chars("a)")), None);
        assert!(parts(&chars("void a>")).is_some());
        assert!(parts(&chars("void x<a(b>)")).is_some());
    }

    #[test]
    fn kernel_cuts_keep_what_identifies_a_kernel() {
        let vectorized = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)";
        assert_eq!(
            cut_to(vectorized, 110),
            "at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(…)"
        );
        assert_eq!(
            cut_to(vectorized, 60),
            "at::native::vectorized_elementwise_kernel<4, at::native::Fi…"
        );
        assert_eq!(cut_to(vectorized, 40), "vectorized_elementwise_kernel<4, at::na…");
        assert_eq!(cut_to(vectorized, 30), "vectorized_elementwise_kernel…");
        let cutlass = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4::Params)";
        assert_eq!(cut_to(cutlass, 30), "cutlass::Kernel2<cutlass_80_t…");
        let cudnn = "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, int, float const*, int, float*, int)";
        assert_eq!(cut_to(cudnn, 30), "dgrad_engine<float, 512, 6, 5…");
        let bn = "void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<float>)";
        assert_eq!(cut_to(bn, 30), "bn_fw_tr_1C11_singleread<floa…");
        assert_eq!(cut_to(bn, 28), "bn_fw_tr_1C11_singleread<…");
        let fmha = "fmha_cutlassB_f32_aligned_64x64_k32_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch::Sm80, float, true, false, false, 64, 64, 32, false>::Params)";
        assert_eq!(cut_to(fmha, 44), "fmha_cutlassB_f32_aligned_64x64_k32_sm80(…)");
        assert_eq!(cut_to(fmha, 30), "fmha_cutlassB_f32_aligned_64x…");
        // A short name (`--short-names`) keeps its own name; an operator too long for that its
        // middle cut.
        assert_eq!(
            cut_to("at::native::vectorized_elementwise_kernel", 31),
            "…vectorized_elementwise_kernel"
        );
        assert_eq!(
            cut_to("aten::_scaled_dot_product_efficient_attention_backward", 24),
            "(none)"
        );
        for width in 8..200 {
            for name in [vectorized, cutlass, cudnn, bn, fmha] {
                if let Some((text, _)) = cut(&chars(name), width) {
                    assert!(text.chars().count() <= width, "{text:?} at {width}");
                }
            }
        }
    }
}
