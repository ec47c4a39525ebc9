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
mod tests;
