use super::*;
use crate::analysis::flamegraph::{FlameTime, StepTimes};

fn stacks(lines: &[(&str, [i64; 2])]) -> FlameStacks {
    FlameStacks {
        time: FlameTime::Device,
        stacks: lines.iter().map(|(s, ns)| (s.to_string(), *ns)).collect(),
        step: None,
    }
}

#[test]
fn a_leaf_ending_in_a_number_is_not_read_as_a_second_count() {
    let s = stacks(&[
        ("step;Block 3", [5, 7]),
        ("step;aten::mm", [1, 2]),
        ("step;x  4.5", [1, 1]),
    ]);
    assert_eq!(
        folded_side(&s, 1),
        "step;Block\u{a0}3 7\nstep;aten::mm 2\nstep;x\u{a0}\u{a0}4.5 1\n"
    );
}

fn draw(stacks: &FlameStacks, view: FlameView, still: bool) -> String {
    let options = FlameOptions {
        labels: ["fp32".into(), "bf16".into()],
        view,
        still,
    };
    String::from_utf8(svg(stacks, &options).unwrap()).unwrap()
}

/// fp32 kernels replaced by faster bf16 ones: 92.0 ms → 16.9 ms.
fn replacement() -> FlameStacks {
    stacks(&[
        ("step;ViT;aten::linear;fp32_gemm", [90_000_000, 0]),
        ("step;ViT;aten::linear;bf16_gemm", [0, 15_000_000]),
        ("step;ViT;aten::gelu;gelu_kernel", [2_000_000, 1_900_000]),
    ])
}

/// The `<g>` of the frame whose tooltip starts with `name (`.
fn frame<'a>(svg: &'a str, name: &str) -> &'a str {
    let start = svg
        .find(&format!("<g><title>{name} ("))
        .unwrap_or_else(|| panic!("no frame {name} in {svg}"));
    &svg[start..start + svg[start..].find("</g>").unwrap()]
}

#[test]
fn the_differential_title_gives_the_step_change_on_host_and_device() {
    let mut s = replacement();
    let svg = draw(&s, FlameView::Differential(FlameWidths::Test), false);
    assert!(
        svg.contains("bf16 vs fp32 · device time 92.0 ms → 16.9 ms (-81.6%)"),
        "{svg}"
    );
    // The step slower on the host while its kernels got faster: both said, and which is drawn.
    s.step = Some(StepTimes {
        host_ns: [30_000_000, 41_700_000],
        device_ns: Some([92_000_000, 16_900_000]),
    });
    let svg = draw(&s, FlameView::Differential(FlameWidths::Test), false);
    let title = "bf16 vs fp32 · step time 30.0 ms → 41.7 ms (+39.0%), device 92.0 ms → 16.9 ms (-81.6%)";
    assert!(svg.contains(&format!(">{title}<")), "{svg}");
    assert!(svg.contains(">drawn: device time · width: bf16 time"), "{svg}");
    // inferno's Search button sits at the title's right end: at 1200 pixels and the title's
    // 17-pixel font (about 10 pixels a character), a centred title of up to 95 characters
    // ends before it.
    assert!(title.chars().count() <= 95, "{}", title.chars().count());
}

#[test]
fn a_replacement_colours_the_kernels_not_the_frames_above_them() {
    let svg = draw(&replacement(), FlameView::Differential(FlameWidths::Test), false);
    // The step, the module and the operator have no own time: white, whatever ran above.
    for name in ["step", "ViT", "aten::linear"] {
        assert!(
            frame(&svg, name).contains(r#"fill="rgb(250,250,250)""#),
            "{name}: {svg}"
        );
    }
    // The new kernel is red, paler than full: 15 ms against the 90 ms the fp32 kernel lost,
    // the largest own change (sqrt 1/6 = 0.41 of the way).
    let new = frame(&svg, "bf16_gemm");
    assert!(new.contains(r#"fill="rgb(255,189,189)""#), "{new}");
    assert!(
        new.contains("bf16_gemm (15.0 ms, 88.8% of bf16; new, fp32 has none)"),
        "{new}"
    );
    let linear = frame(&svg, "aten::linear");
    assert!(
        linear.contains("aten::linear (15.0 ms, 88.8% of bf16; fp32 90.0 ms; -75.0 ms, -83.3%)"),
        "{linear}"
    );
    // The vanished kernel has no width here, and the subtitle says how much is not drawn.
    assert!(!svg.contains("fp32_gemm"));
    assert!(
        svg.contains("not drawn: 90.0 ms only fp32 has (--widths control)"),
        "{svg}"
    );
    assert!(svg.contains("width: bf16 time"));
    // The legend, under the frames: full colour is the largest own change, 90 ms.
    assert!(svg.contains(r#"<g id="legend">"#), "{svg}");
    assert!(svg.contains("≥ +90.0 ms"), "{svg}");
    assert!(
        svg.contains("full colour: the largest own Δ, 119.8% of the step's -75.1 ms"),
        "{svg}"
    );
}

#[test]
fn control_widths_show_what_vanished() {
    let svg = draw(&replacement(), FlameView::Differential(FlameWidths::Control), false);
    // The vanished kernel lost 90 ms, the largest own change: full blue.
    let gone = frame(&svg, "fp32_gemm");
    assert!(gone.contains(r#"fill="rgb(100,100,255)""#), "{gone}");
    assert!(
        gone.contains("fp32_gemm (90.0 ms, 97.8% of fp32; gone, bf16 has none)"),
        "{gone}"
    );
    assert!(!svg.contains("bf16_gemm"));
    assert!(svg.contains("width: fp32 time"));
    assert!(
        svg.contains("not drawn: 15.0 ms only bf16 has (--widths test)"),
        "{svg}"
    );
}

#[test]
fn an_unchanged_frame_is_white_and_colours_never_depend_on_chance() {
    let same = stacks(&[("step;a", [500, 500]), ("step;b", [100, 300])]);
    let svg = draw(&same, FlameView::Differential(FlameWidths::Test), false);
    assert!(frame(&svg, "a").contains(r#"fill="rgb(250,250,250)""#), "{svg}");
    // b grew by 200 ns, the largest own change: full red; the step above it has no own time.
    assert!(frame(&svg, "b").contains(r#"fill="rgb(255,100,100)""#), "{svg}");
    assert!(frame(&svg, "step").contains(r#"fill="rgb(250,250,250)""#), "{svg}");
    assert_eq!(svg, draw(&same, FlameView::Differential(FlameWidths::Test), false));
}

#[test]
fn labels_fit_their_frames_and_the_tooltip_keeps_the_name() {
    let long = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)";
    let s = stacks(&[
        (&format!("step;wide;{long}"), [100, 120]),
        ("step;wide", [300, 300]),
        ("step;narrow", [2, 2]),
    ]);
    let svg = draw(&s, FlameView::Differential(FlameWidths::Test), false);
    assert!(
        !svg.contains(">..") && !svg.contains("..<"),
        "no inferno `..` labels: {svg}"
    );
    let at = svg
        .find("<g><title>void at::native::vectorized")
        .expect("the full name in the tooltip");
    let kernel = &svg[at..at + svg[at..].find("</g>").unwrap()];
    assert!(kernel.contains(">vectorized_elementwise_kernel</text>"), "{kernel}");
    // The narrow frame (0.5% of the width) has no label.
    assert!(frame(&svg, "narrow").ends_with("></text>"), "{svg}");
}

#[test]
fn a_still_picture_has_no_script_and_no_tooltips() {
    for view in [FlameView::Differential(FlameWidths::Test), FlameView::Side(0)] {
        let svg = draw(&replacement(), view, true);
        assert!(!svg.contains("<script"), "{svg}");
        assert!(!svg.contains("<title>"), "{svg}");
        assert!(svg.contains("aten::linear"), "the frames keep their labels");
        // Nothing to click: no search, no reset zoom.
        assert!(!svg.contains("Search") && !svg.contains("Reset Zoom"), "{svg}");
    }
    let svg = draw(&replacement(), FlameView::Differential(FlameWidths::Test), true);
    assert!(svg.contains(">all</text>"), "the root is labelled: {svg}");
}
