//! HTA's short names for operators and kernels (docs/semantics.md#short-names).

/// Names that `shorten_name` leaves alone because the prefix says what they are.
const KEEP_PREFIXES: [&str; 5] = ["Memcpy", "Memset", "hipMemcpy", "hipMemset", "dma"];

/// Drops template arguments, function arguments and return types, as HTA's `shorten_name`:
/// `void cutlass::Kernel<...>(...)` → `cutlass::Kernel`.
pub fn shorten_name(name: &str) -> String {
    if KEEP_PREFIXES.iter().any(|p| name.starts_with(p)) || (!name.contains('<') && !name.contains('(')) {
        return name.to_string();
    }
    let without_arrows = name.replace("->", "");
    let mut stack: Vec<u8> = Vec::with_capacity(without_arrows.len());
    for &b in without_arrows.as_bytes() {
        match b {
            b'>' => pop_to(&mut stack, b'<'),
            b')' => pop_to(&mut stack, b'('),
            _ => stack.push(b),
        }
    }
    let kept = String::from_utf8_lossy(&stack);
    kept.rsplit(' ').next().unwrap_or("").to_string()
}

/// [`shorten_name`] to be read, not to key a row: an `(anonymous namespace)` is kept where
/// HTA's rule drops it as if it were a parameter list (`at::native::(anonymous
/// namespace)::multi_tensor_apply_kernel`, not `at::native::::multi_tensor_apply_kernel`).
/// Only the namespace's own text is kept, so names of one short name (a kernel's template
/// variants) read alike; the rows of `--short-names` keep HTA's names and pair as before.
pub(crate) fn readable_short_name(name: &str) -> String {
    const ANONYMOUS: &str = "(anonymous namespace)";
    // The namespace goes through the shortening as one character that is no bracket or
    // space, and comes back after it.
    const MARK: char = '\u{1}';
    if !name.contains(ANONYMOUS) || name.contains(MARK) {
        return shorten_name(name);
    }
    shorten_name(&name.replace(ANONYMOUS, "\u{1}")).replace(MARK, ANONYMOUS)
}

/// Pops back to and including the last `open`, or empties the stack when there is none.
fn pop_to(stack: &mut Vec<u8>, open: u8) {
    let keep = stack.iter().rposition(|&b| b == open).unwrap_or(0);
    stack.truncate(keep);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_design_examples() {
        assert_eq!(
            shorten_name(
                "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4::Params)"
            ),
            "cutlass::Kernel"
        );
        assert_eq!(
            shorten_name(
                "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 3, 128, 1>(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)"
            ),
            "at::native::::CatArrayBatchedCopy"
        );
        assert_eq!(
            shorten_name("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"),
            "ncclKernel_AllReduce_RING_LL_Sum_float"
        );
        assert_eq!(shorten_name("aten::mm"), "aten::mm");
    }

    #[test]
    fn an_anonymous_namespace_reads_as_one() {
        let apply = |args: &str| {
            format!(
                "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<{args}>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<{args}>, std::plus<float>, float)"
            )
        };
        let (a, b) = (apply("2"), apply("3"));
        assert_eq!(
            readable_short_name(&a),
            "at::native::(anonymous namespace)::multi_tensor_apply_kernel"
        );
        // The row key stays HTA's, and both read alike as their keys are alike.
        assert_eq!(shorten_name(&a), "at::native::::multi_tensor_apply_kernel");
        assert_eq!(shorten_name(&a), shorten_name(&b));
        assert_eq!(readable_short_name(&a), readable_short_name(&b));
        assert_eq!(
            readable_short_name(
                "void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>(float*, float const*, int)"
            ),
            "(anonymous namespace)::softmax_warp_forward"
        );
        // Demangled (`--normalize-names`): `_GLOBAL__N_1` is the anonymous namespace.
        let mangled = "_ZN2at6native12_GLOBAL__N_125multi_tensor_apply_kernelEi";
        assert_eq!(
            demangled(mangled),
            "at::native::(anonymous namespace)::multi_tensor_apply_kernel(int)"
        );
        assert_eq!(
            readable_short_name(&demangled(mangled)),
            "at::native::(anonymous namespace)::multi_tensor_apply_kernel"
        );
        // Without brackets of its own the name is kept whole, as shorten_name keeps one.
        assert_eq!(
            readable_short_name("at::native::(anonymous namespace)::k"),
            "at::native::(anonymous namespace)::k"
        );
        for plain in [
            "aten::mm",
            "void cutlass::Kernel<P>(P::Params)",
            "Memcpy HtoD (Pageable -> Device)",
        ] {
            assert_eq!(readable_short_name(plain), shorten_name(plain));
        }
    }

    #[test]
    fn memory_names_and_plain_names_stay() {
        assert_eq!(
            shorten_name("Memcpy HtoD (Pageable -> Device)"),
            "Memcpy HtoD (Pageable -> Device)"
        );
        assert_eq!(shorten_name("hipMemsetAsync(x)"), "hipMemsetAsync(x)");
        assert_eq!(shorten_name("ProfilerStep#3"), "ProfilerStep#3");
    }

    #[test]
    fn unbalanced_brackets_empty_the_stack() {
        // '>' with no '<' before it pops everything
        assert_eq!(shorten_name("a b> c(d)"), "c");
        assert_eq!(shorten_name("x->y<int>"), "xy");
        assert_eq!(shorten_name("f(a) "), "");
    }
}

/// The rules of `--normalize-names`, applied in order: (pattern, replacement, why).
pub(crate) const NORMALIZE_RULES: [(&str, &str, &str); 3] = [
    (
        r"0x[0-9a-fA-F]+",
        "0x*",
        "memory addresses, e.g. `<built-in method add_ of Tensor object at 0x7f46...>`",
    ),
    (
        r"ProfilerStep#[0-9]+",
        "ProfilerStep#*",
        "step numbers, so step 1010 lines up with step 1012",
    ),
    (
        r"[0-9a-f]{16,}",
        "*",
        "long hexadecimal ids and hashes, e.g. process group uids",
    ),
];

/// An Itanium C++ ABI mangled name (`_Z…`: AMD's aiter kernels and some HIP or Triton builds
/// reach the trace so) demangled, as the PyTorch profiler names CUDA kernels:
/// `_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256E…` → `void
/// aiter::add_rmsnorm_quant_kernel<std::bfloat16_t, std::bfloat16_t, 256, …>(…)`. A name that
/// is not mangled, or does not demangle, is kept as it is.
pub(crate) fn demangled(name: &str) -> std::borrow::Cow<'_, str> {
    // Only a function's mangling (`_ZN` nested or `_Z<length>` plain, then its parameters)
    // names a kernel; a name that merely starts `_Z` may demangle to an operator or a
    // special name (`_Zoo` is `operator||`) and is kept.
    let mut tail = name.bytes().skip(2);
    let function = name.starts_with("_Z") && tail.next().is_some_and(|b| b == b'N' || b.is_ascii_digit());
    if !function {
        return std::borrow::Cow::Borrowed(name);
    }
    let text = cpp_demangle::Symbol::new(name).ok().and_then(|s| s.demangle().ok());
    match text {
        Some(text) if text.contains('(') => std::borrow::Cow::Owned(text),
        _ => std::borrow::Cow::Borrowed(name),
    }
}

/// Rewrites run-specific noise out of a name (see [`NORMALIZE_RULES`]), a mangled name
/// demangled first ([`demangled`]).
pub(crate) fn normalize_name(name: &str) -> std::borrow::Cow<'_, str> {
    match demangled(name) {
        std::borrow::Cow::Borrowed(name) => normalize_plain(name),
        std::borrow::Cow::Owned(text) => std::borrow::Cow::Owned(normalize_plain(&text).into_owned()),
    }
}

/// [`normalize_name`] of a name that is not mangled.
fn normalize_plain(name: &str) -> std::borrow::Cow<'_, str> {
    static RULES: std::sync::LazyLock<Vec<(regex::Regex, &'static str)>> = std::sync::LazyLock::new(|| {
        NORMALIZE_RULES
            .iter()
            .filter_map(|(p, r, _)| regex::Regex::new(p).ok().map(|re| (re, *r)))
            .collect()
    });
    // A serving loop's step annotation: its batch sizes and lengths (docs/graphs.md).
    if let Some(key) = crate::model::serving::serving_step_key(name) {
        return std::borrow::Cow::Owned(key);
    }
    let mut out = std::borrow::Cow::Borrowed(name);
    for (re, replacement) in RULES.iter() {
        if re.is_match(&out) {
            out = std::borrow::Cow::Owned(re.replace_all(&out, *replacement).into_owned());
        }
    }
    out
}

#[cfg(test)]
mod normalize_tests {
    use super::*;

    #[test]
    fn addresses_steps_and_hashes_are_normalized() {
        assert_eq!(
            normalize_name("<built-in method add_ of Tensor object at 0x7f4680bc77a0>"),
            "<built-in method add_ of Tensor object at 0x*>"
        );
        assert_eq!(normalize_name("ProfilerStep#1012"), "ProfilerStep#*");
        assert_eq!(normalize_name("pg c180dae7743d700d8e30df1902fc6b1e_0"), "pg *_0");
        assert_eq!(normalize_name("aten::mm"), "aten::mm");
        assert_eq!(normalize_name("step[DECODE bs=16]"), "step[DECODE bs=*]");
        assert!(matches!(normalize_name("aten::mm"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn mangled_kernel_names_are_demangled_and_others_kept() {
        let aiter =
            "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi8ELb1ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib";
        assert_eq!(
            normalize_name(aiter),
            "void aiter::add_rmsnorm_quant_kernel<std::bfloat16_t, std::bfloat16_t, 256, 8, true, false, true, 1>\
             (std::bfloat16_t*, std::bfloat16_t*, float*, std::bfloat16_t*, std::bfloat16_t*, std::bfloat16_t*, \
             double, int, int, int, int, int, int, int, bool)"
        );
        // Not mangled, or not demangling: kept.
        assert_eq!(demangled("_Zoo"), "_Zoo");
        assert_eq!(demangled("_Z"), "_Z");
        assert_eq!(demangled("Cijk_Alik_Bljk"), "Cijk_Alik_Bljk");
        assert!(matches!(demangled("aten::mm"), std::borrow::Cow::Borrowed(_)));
    }
}
