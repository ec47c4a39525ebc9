//! The flame graph's renderers (docs/flamegraph.md): folded stacks, both sides (the
//! differential format of inferno and FlameGraph) or one, and the SVG drawn by inferno. Pure:
//! stacks in, text or bytes out.
//!
//! The differential SVG is inferno's picture of one side's stacks (its widths) with every frame
//! coloured by the change of its *own* time on the step's scale, a legend of the colours, labels
//! that fit and tooltips giving both sides: see [`super::flamegraph_change`] and
//! [`super::flamegraph_legend`].

use super::flamegraph_change::{ChangeLegend, recolour};
use crate::analysis::flamegraph::{FlameStacks, FlameTime, StepTimes};
use inferno::flamegraph::color::{BackgroundColor, BasicPalette};
use inferno::flamegraph::{Options, Palette, from_lines};

/// `frame;frame;… CONTROL_NS TEST_NS` lines, sorted by stack.
pub(crate) fn folded_diff(stacks: &FlameStacks) -> String {
    let mut out = String::new();
    for (stack, [c, t]) in &stacks.stacks {
        out.push_str(&format!("{stack} {c} {t}\n"));
    }
    out
}

/// One side's `frame;frame;… NS` lines (0 control, 1 test), sorted, without the stacks that
/// side does not have.
pub(crate) fn folded_side(stacks: &FlameStacks, side: usize) -> String {
    let mut out = String::new();
    for (stack, ns) in &stacks.stacks {
        if ns[side] > 0 {
            out.push_str(&format!("{} {}\n", protect_trailing_number(stack), ns[side]));
        }
    }
    out
}

/// A stack whose leaf ends in white space and a number (`Block 3`), with that white space made
/// no-break spaces (U+00A0): `flamegraph.pl` and inferno read a line ending in two numbers as a
/// differential line, so `…;Block 3 1200` would lose the frame's `3` and count 3 ns. The stack
/// looks the same in the picture.
fn protect_trailing_number(stack: &str) -> std::borrow::Cow<'_, str> {
    let number = stack.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let digits = &stack[number.len()..];
    let before = number.trim_end_matches(|c: char| c.is_ascii_whitespace());
    if !digits.starts_with(|c: char| c.is_ascii_digit()) || before.len() == number.len() {
        return std::borrow::Cow::Borrowed(stack);
    }
    let spaces = number.len() - before.len();
    std::borrow::Cow::Owned(format!("{before}{}{digits}", "\u{a0}".repeat(spaces)))
}

/// Which side's times are the differential flame graph's widths.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum FlameWidths {
    /// The test run's: where it spends its time, and how each part changed.
    #[default]
    Test,
    /// The control run's: also what shrank or vanished in the test run (it has no width there).
    Control,
}

impl FlameWidths {
    /// The side's index: 0 control, 1 test.
    pub fn side(self) -> usize {
        match self {
            FlameWidths::Control => 0,
            FlameWidths::Test => 1,
        }
    }
}

/// What the picture draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlameView {
    /// Both sides: one side's widths, every frame coloured by its change.
    Differential(FlameWidths),
    /// One side's plain flame graph (0 control, 1 test).
    Side(usize),
}

/// How the SVG is drawn.
#[derive(Debug, Clone)]
pub(crate) struct FlameOptions {
    /// The two sides' labels.
    pub labels: [String; 2],
    /// Differential or one side.
    pub view: FlameView,
    /// A still picture (the report's image): no script and no tooltips, which an `<img>` never
    /// runs or shows, and no frames under 0.1% of the width (a pixel), so the page stays light.
    pub still: bool,
}

/// The SVG: differential (one side's widths, each frame coloured by the change of its own time,
/// red more time in test, blue less) or one side's, searchable and zoomable with
/// inferno's script. An empty selection draws inferno's "no stack counts" picture.
pub(crate) fn svg(stacks: &FlameStacks, options: &FlameOptions) -> std::io::Result<Vec<u8>> {
    let mut opts = Options::default();
    // Colours from the names, never random: the same input gives the same bytes.
    opts.deterministic = true;
    opts.count_name = "ns".to_string();
    opts.name_type = "Frame:".to_string();
    if options.still {
        opts.no_javascript = true;
        opts.min_width = 0.1;
    }
    let time = match stacks.time {
        FlameTime::Host => "host self time",
        FlameTime::Device => "device time",
    };
    let mut bytes = match options.view {
        FlameView::Differential(widths) => differential(stacks, options, widths, time, opts)?,
        FlameView::Side(side) => {
            opts.title = format!("{}: {time}", options.labels[side]);
            opts.colors = Palette::Basic(BasicPalette::Hot);
            let text = folded_side(stacks, side);
            let mut bytes = Vec::new();
            from_lines(&mut opts, text.lines(), &mut bytes)?;
            if options.still {
                bytes = super::flamegraph_change::strip_titles(&bytes);
            }
            bytes
        }
    };
    // inferno ends the document without a newline: a terminal's prompt ran on after `</svg>`
    // (`-o -`), and a text file ends in one.
    if bytes.last() != Some(&b'\n') {
        bytes.push(b'\n');
    }
    Ok(super::xml::xml_safe(bytes))
}

fn differential(
    stacks: &FlameStacks,
    options: &FlameOptions,
    widths: FlameWidths,
    time: &str,
    mut opts: Options<'_>,
) -> std::io::Result<Vec<u8>> {
    let drawn = widths.side();
    opts.title = differential_title(stacks, &options.labels, time);
    let legend = ChangeLegend::of(stacks, &options.labels, drawn);
    // A fixed width: inferno's script would otherwise fit the picture to the window on load and
    // write every label again its own way (`..ward` for `Sequential.backward`), over the labels
    // fitted here; it still labels the frames of a zoom.
    opts.image_width = Some(1200);
    opts.text_truncate_direction = inferno::flamegraph::TextTruncateDirection::Right;
    // Which time is drawn opens the subtitle: the title holds the step's changes only, short
    // enough to stay clear of inferno's Search button at the top right of 1200 pixels.
    opts.subtitle = Some(format!("drawn: {time} · {}", legend.subtitle(!options.still)));
    // Every frame is recoloured below: a grey background, not the yellow of the hot palette.
    opts.bgcolors = Some(BackgroundColor::Grey);
    // The lines in inferno's own order, given sorted so that the frames can be found again.
    let mut lines: Vec<String> = stacks
        .stacks
        .iter()
        .filter(|(_, ns)| ns[drawn] > 0)
        .map(|(stack, ns)| format!("{stack} {}", ns[drawn]))
        .collect();
    lines.sort_unstable();
    opts.no_sort = true;
    let mut bytes = Vec::new();
    from_lines(&mut opts, lines.iter().map(String::as_str), &mut bytes)?;
    Ok(recolour(&bytes, &lines, stacks, &legend, options.still))
}

/// The differential picture's title: the step's time (its ProfilerStep span, per step, as
/// `compare`'s step row) and the device time launched in it, each with its change
/// (`bf16 vs fp32 · step time 30.1 ms → 41.9 ms (+39.2%), device 20.1 ms → 9.0 ms (-55.0%)`);
/// without the step's times, the totals of the time drawn. Which time is drawn is the
/// subtitle's first words.
pub(crate) fn differential_title(stacks: &FlameStacks, labels: &[String; 2], time: &str) -> String {
    let [c, t] = labels;
    let change = |[a, b]: [i64; 2]| {
        format!(
            "{} → {} ({})",
            super::fmt_duration(a, false),
            super::fmt_duration(b, false),
            super::fmt_percent(a, b)
        )
    };
    match stacks.step {
        Some(StepTimes { host_ns, device_ns }) => {
            let device = device_ns.map(|d| format!(", device {}", change(d))).unwrap_or_default();
            format!("{t} vs {c} · step time {}{device}", change(host_ns))
        }
        None => {
            let drawn = change([stacks.total_ns(0), stacks.total_ns(1)]);
            format!("{t} vs {c} · {time} {drawn}")
        }
    }
}

#[cfg(test)]
mod tests {
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
}
