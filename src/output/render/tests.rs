//! The shared cells: numbers, wrapping, fitting tables, cutting names.

use super::*;

#[test]
fn wrapped_text_ends_each_line_at_any_width() {
    for width in [usize::MAX, 40] {
        let mut out = wrap_text("control: no straggler", width);
        out.push_str(&wrap_text("test: straggler rank 2\n", width));
        assert_eq!(out, "control: no straggler\ntest: straggler rank 2\n", "width {width}");
    }
}

#[test]
fn wrapping_keeps_a_number_with_its_unit() {
    let line = "candidate: control (rank 0, steps 2, 3, 4): step time median 303 ms (min 295 ms, max 353 ms)";
    let wrapped = wrap_line(line, 70);
    assert!(wrapped.contains("303 ms"), "{wrapped}");
    assert!(!wrapped.contains('\u{a0}'), "{wrapped}");
    assert!(wrapped.lines().all(|l| columns::text_width(l) <= 70), "{wrapped}");
    assert_eq!(wrapped.replace("\n  ", " "), line);
    // A no-break space already in the line comes out as it went in.
    assert_eq!(wrap_line("a\u{a0}b", 80), "a\u{a0}b");
}

#[test]
fn wrapping_keeps_a_count_with_its_total() {
    // At 80 columns this header broke as "iteration 2 of" / "  3)".
    let line = "control: ../shared/traces/gpu_h100/vit_precision/control (rank 0, iteration 2 of 3)";
    let wrapped = wrap_line(line, 80);
    assert!(wrapped.contains("2 of 3)"), "{wrapped}");
    assert_eq!(wrapped.replace("\n  ", " "), line);
    assert!(wrapped.lines().all(|l| columns::text_width(l) <= 80), "{wrapped}");
    // ... "step" with its number (it broke as "step" / "  2 of 3)"), and the tally of the
    // steps used with its word.
    let line = "control: ../shared/traces/gpu_h100/vit_precision/control (rank 0, step 2; 1 of 3 steps)";
    for width in [64, 66, 70, 72, 76, 80] {
        let wrapped = wrap_line(line, width);
        assert!(wrapped.contains("step 2;"), "{wrapped}");
        assert!(wrapped.contains("1 of 3 steps)"), "{wrapped}");
        assert_eq!(wrapped.replace("\n  ", " "), line);
    }
}

#[test]
fn a_note_fits_one_line_cut_after_a_clause() {
    let note = "tracediff: note: significant is null: it needs 3 or more steps (ranks × steps) per side; control has 1 selected, test 1; the traces hold no more steps";
    let cut = one_line_note(note, 80);
    assert_eq!(
        cut,
        "tracediff: note: significant is null: it needs 3 or more steps (ranks × steps)…"
    );
    let cut = one_line_note(note, 100);
    assert_eq!(
        cut,
        "tracediff: note: significant is null: it needs 3 or more steps (ranks × steps) per side;…"
    );
    assert!(columns::text_width(&cut) <= 100);
    assert_eq!(one_line_note("short", 80), "short");
    assert_eq!(one_line_note(note, usize::MAX), note);
}

#[test]
fn microseconds_are_exact() {
    assert_eq!(fmt_us(0), "0");
    assert_eq!(fmt_us(100_298_000), "100298");
    assert_eq!(fmt_us(1_500), "1.5");
    assert_eq!(fmt_us(-2_000), "-2");
    assert_eq!(fmt_us(-1), "-0.001");
    assert_eq!(fmt_us(12_340), "12.34");
    assert_eq!(json_us(1_500).to_string(), "1.5");
    assert_eq!(json_us(7_000).to_string(), "7");
}

#[test]
fn durations_for_people() {
    assert_eq!(fmt_duration(812, false), "812 ns");
    assert_eq!(fmt_duration(12_400, false), "12.4 µs");
    assert_eq!(fmt_duration(3_210_000, true), "+3.21 ms");
    assert_eq!(fmt_duration(-1_500_000_000, true), "-1.50 s");
    assert_eq!(fmt_duration(999_999, false), "1000 µs");
    assert_eq!(fmt_duration(0, true), "0 ns");
}

#[test]
fn percent_and_signs() {
    assert_eq!(fmt_percent(100, 150), "+50.0%");
    assert_eq!(fmt_percent(0, 5), "new");
    assert_eq!(fmt_percent(5, 0), "gone");
    assert_eq!(fmt_signed(3), "+3");
    assert_eq!(fmt_signed(-3), "-3");
}

#[test]
fn elision_keeps_both_ends() {
    let name = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<int> >(int)";
    let short = elide_middle(name, 40);
    assert_eq!(short.chars().count(), 40);
    assert!(short.starts_with("void at::native::vectorize"), "{short}");
    assert!(short.ends_with("<int> >(int)"), "{short}");
    assert_eq!(elide_middle("aten::mm", 40), "aten::mm");
}

#[test]
fn cuts_keep_distinct_names_distinct() {
    let names = [
        "aten::addmm [input_dims=[[128,100],[100,64],[64]], input_type=[float,float,float]]",
        "aten::addmm [input_dims=[[128,100],[100,32],[32]], input_type=[float,float,float]]",
        "aten::addmm [input_dims=[[64,100],[100,64],[64]], input_type=[float,float,float]]",
        "aten::mm",
    ];
    let plain: Vec<String> = names.iter().map(|n| elide_middle(n, 40)).collect();
    assert_eq!(plain[0], plain[1], "the middle cut hides the difference");
    let cuts = distinct_cuts(&names, 40);
    assert_eq!(
        cuts,
        [
            "aten::addmm […s=[[128,100],[100,64],[64…",
            "aten::addmm […s=[[128,100],[100,32],[32…",
            "aten::addmm [input_dims=[[64,100],[100,…",
            "aten::mm"
        ]
    );
}

/// Real kernel names of the H100 ResNet pair that differ far from their start.
const SOFTMAX: [&str; 4] = [
    "void (anonymous namespace)::softmax_warp_forward<float, float, float, 4, true, false>(float*, float const*, int, int, int, bool const*, int, bool)",
    "void (anonymous namespace)::softmax_warp_backward<float, float, float, 4, true, false>(float*, float const*, float const*, int, int, int, bool const*)",
    "void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, true, false>(float*, float const*, int, int, int, bool const*, int, bool)",
    "void (anonymous namespace)::softmax_warp_backward<float, float, float, 7, true, false>(float*, float const*, float const*, int, int, int, bool const*)",
];

#[test]
fn cuts_show_where_names_differ() {
    let cuts = distinct_cuts(&SOFTMAX, 32);
    // Their own name and where they differ; not `void (an…`, not their argument lists.
    assert_eq!(
        cuts,
        [
            "softmax_warp_forward<…, 4…, fal…",
            "softmax_warp_backward<…, 4…, fa…",
            "softmax_warp_forward<…, 7…, fal…",
            "softmax_warp_backward<…, 7…, fa…",
        ]
    );
}

#[test]
fn cuts_around_differences_stay_out_of_a_kernels_argument_list() {
    let args = "(at::GenericPackedTensorAccessor<float, 2ul, at::RestrictPtrTraits, int>, int)";
    let names = [
        format!(
            "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float, float, float, 5ul>{args}"
        ),
        format!(
            "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float, float, float, 2ul>{args}"
        ),
    ];
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    for width in [20, 28, 40] {
        let cuts = distinct_cuts(&refs, width);
        assert_ne!(cuts[0], cuts[1]);
        for c in &cuts {
            assert!(c.starts_with("split_") && !c.contains("(at::"), "{c} at {width}");
            assert!(c.contains("5ul>") || c.contains("2ul>"), "{c} at {width}");
        }
    }
}

#[test]
fn distinct_names_get_distinct_cuts_at_every_width() {
    let mut names: Vec<&str> = SOFTMAX.to_vec();
    names.extend([
        "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4::Params)",
        "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nn_align4::Params)",
        "triton_poi_fused_add_relu_0",
        "triton_poi_fused_add_relu_1",
        "triton_poi_fused_add_relu_10",
        "aten::mm",
        SOFTMAX[0],
    ]);
    for width in 5..=160 {
        let cuts = distinct_cuts(&names, width);
        for (i, a) in cuts.iter().enumerate() {
            assert!(a.chars().count() <= width, "{a:?} at {width}");
            for (j, b) in cuts.iter().enumerate().skip(i + 1) {
                assert_eq!(a == b, names[i] == names[j], "{a:?} for {} and {}", names[i], names[j]);
            }
        }
    }
    // Narrow columns number the names they cannot otherwise tell apart.
    assert_eq!(distinct_cuts(&SOFTMAX[..2], 9), ["void …ol)", "void …t*)"]);
    assert_eq!(distinct_cuts(&[SOFTMAX[2], SOFTMAX[0]], 9), ["(anony…#2", "(anony…#1"]);
}

#[test]
fn cuts_never_keep_a_name_longer_than_the_width() {
    let cudnn = "void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<float>)";
    let cutlass = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_32x6_nt_align4::Params)";
    // The same name twice (a gate's time and count rows) is not a collision.
    let names = [cudnn, cutlass, cudnn, cutlass];
    for width in [5, 8, 12, 24, 40] {
        let cuts = distinct_cuts(&names, width);
        for c in &cuts {
            assert!(c.chars().count() <= width, "{c:?} at {width}");
        }
        assert_eq!(cuts[0], cuts[2]);
        assert_eq!(cuts[1], cuts[3]);
    }
    assert_ne!(distinct_cuts(&names, 24)[0], distinct_cuts(&names, 24)[1]);
    // Names no cut of the width can tell apart are cut all the same.
    let alike = [
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa2",
    ];
    for c in distinct_cuts(&alike, 10) {
        assert!(c.chars().count() <= 10, "{c:?}");
    }
    assert_eq!(elide_middle("aten::mm", 4), "ate…");
}

#[test]
fn columns_are_dropped_a_pair_at_a_time_until_names_get_their_minimum() {
    // 7 value columns of 8: 7 × 11 = 77 columns, plus the name's padding.
    let values = [8; 7];
    let order: &[&[usize]] = &[&[0, 1], &[3, 4], &[2]];
    assert_eq!(fit_columns(60, &values, 1, order, 200), (vec![true; 7], 60));
    let (shown, name) = fit_columns(60, &values, 1, order, 100);
    assert_eq!(shown, [false, false, true, true, true, true, true]);
    assert_eq!(name, 100 - 5 * 11 - 2);
    let (shown, name) = fit_columns(60, &values, 1, order, 80);
    assert_eq!(shown, [false, false, true, false, false, true, true]);
    assert_eq!(name, 80 - 3 * 11 - 2);
    // Short names need no room beyond their own.
    assert_eq!(fit_columns(10, &values, 1, order, 90).0, vec![true; 7]);
}

#[test]
fn prose_wraps_at_spaces_and_breaks_long_words() {
    let line = "control: /a/very/long/path/to/some/traces/directory (rank 0, iteration 1 of 3)";
    let wrapped = wrap_line(line, 40);
    assert!(wrapped.lines().all(|l| l.chars().count() <= 40), "{wrapped}");
    assert!(wrapped.lines().skip(1).all(|l| l.starts_with("  ")), "{wrapped}");
    assert_eq!(wrap_line(line, usize::MAX), line);
}

#[test]
fn csv_and_markdown_escaping() {
    assert_eq!(csv_field("a, b"), "\"a, b\"");
    assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_eq!(csv_field("aten::mm"), "aten::mm");
    assert_eq!(md_cell("a|b<int>"), "a\\|b\\<int\\>");
}

#[test]
fn formats_from_extensions() {
    assert_eq!(Format::from_extension(Path::new("x.CSV")), Some(Format::Csv));
    assert_eq!(Format::from_extension(Path::new("x.md")), Some(Format::Markdown));
    assert_eq!(Format::from_extension(Path::new("x.png")), None);
}

#[test]
fn an_indented_line_continues_deeper_than_it_starts() {
    let line = "    kernels: nvjet_sm103_tst_128x8_64x12_2x1_v_bz_NNT (gemm) → nvjet_sm103_tst_256x8 (gemm)";
    let wrapped = wrap_line_under(line, 70, "      ");
    assert_eq!(
        wrapped,
        "    kernels: nvjet_sm103_tst_128x8_64x12_2x1_v_bz_NNT (gemm) →\n      nvjet_sm103_tst_256x8 (gemm)"
    );
    assert_eq!(wrap_line_under("    short", 70, "      "), "    short");
}
