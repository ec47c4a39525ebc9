//! The flame graph's renderers (docs/flamegraph.md): folded stacks, both sides (the
//! differential format of inferno and FlameGraph) or one, and the differential SVG drawn by
//! inferno. Pure: stacks in, text or bytes out.

use crate::analysis::flamegraph::{FlameStacks, FlameTime};
use inferno::flamegraph::{Options, Palette, color::BasicPalette, from_lines};

/// `frame;frame;… CONTROL_NS TEST_NS` lines, sorted by stack.
pub fn folded_diff(stacks: &FlameStacks) -> String {
    let mut out = String::new();
    for (stack, [c, t]) in &stacks.stacks {
        out.push_str(&format!("{stack} {c} {t}\n"));
    }
    out
}

/// One side's `frame;frame;… NS` lines (0 control, 1 test), sorted, without the stacks that
/// side does not have.
pub fn folded_side(stacks: &FlameStacks, side: usize) -> String {
    let mut out = String::new();
    for (stack, ns) in &stacks.stacks {
        if ns[side] > 0 {
            out.push_str(&format!("{stack} {}\n", ns[side]));
        }
    }
    out
}

/// The differential lines the SVG draws: those with test time. A stack only control has is
/// drawn with no width, yet inferno would still scale every colour against its change, so a
/// vanished kernel of -16 ms left the new ones (+1.6 ms) a pale pink: the scale is the largest
/// change *in the picture*, as the page says.
fn folded_drawn(stacks: &FlameStacks) -> String {
    let mut out = String::new();
    for (stack, [c, t]) in &stacks.stacks {
        if *t > 0 {
            out.push_str(&format!("{stack} {c} {t}\n"));
        }
    }
    out
}

/// What the picture says about itself.
#[derive(Debug, Clone)]
pub struct FlameTitle {
    /// The two sides' labels.
    pub labels: [String; 2],
    /// One side only (0 control, 1 test), else the differential graph.
    pub side: Option<usize>,
}

/// The SVG: differential (width = test, red = grew, blue = shrank against control) or one
/// side's, searchable and zoomable with inferno's script. An empty selection draws inferno's
/// "no stack counts" picture.
pub fn svg(stacks: &FlameStacks, title: &FlameTitle) -> std::io::Result<Vec<u8>> {
    let [c, t] = &title.labels;
    let time = match stacks.time {
        FlameTime::Host => "host self time",
        FlameTime::Device => "device time",
    };
    let mut opts = Options::default();
    // Colours from the names, never random: the same input gives the same bytes.
    opts.deterministic = true;
    opts.count_name = "ns".to_string();
    opts.name_type = "Frame:".to_string();
    let text = match title.side {
        None => {
            opts.title = format!("{t} vs {c}: {time}");
            opts.subtitle = Some(format!(
                "width = {t}; red grew, blue shrank against {c}; frames only {c} has are in `--side control`"
            ));
            folded_drawn(stacks)
        }
        Some(side) => {
            opts.title = format!("{}: {time}", title.labels[side]);
            opts.colors = Palette::Basic(BasicPalette::Hot);
            folded_side(stacks, side)
        }
    };
    let mut bytes = Vec::new();
    from_lines(&mut opts, text.lines(), &mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::flamegraph::FlameTime;

    #[test]
    fn colours_scale_to_the_largest_change_that_is_drawn() {
        let mut stacks = FlameStacks {
            time: FlameTime::Device,
            stacks: Default::default(),
        };
        // Gone in test: no width, and a change ten times the drawn one.
        stacks.stacks.insert("step;old_kernel".into(), [16_000, 0]);
        stacks.stacks.insert("step;new_kernel".into(), [0, 1_600]);
        stacks.stacks.insert("step;same".into(), [500, 500]);
        let title = FlameTitle {
            labels: ["c".into(), "t".into()],
            side: None,
        };
        let svg = String::from_utf8(svg(&stacks, &title).unwrap()).unwrap();
        // The one change drawn is the largest: full red, not a pale pink.
        assert!(svg.contains(r#"fill="rgb(255,100,100)""#), "{svg}");
        assert!(!svg.contains("old_kernel"));
        assert!(folded_diff(&stacks).contains("step;old_kernel 16000 0"));
    }
}
