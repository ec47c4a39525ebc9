//! The differential flame graph's colour scale, its legend (drawn in the SVG, under the frames)
//! and its frame labels (docs/flamegraph.md).
//!
//! A frame is coloured by the change of its **own** time (the weight of the stack that ends in
//! it), never by what is above it: the frame whose own time moved is the coloured one, and a
//! module whose children changed stays white. The scale is the pair's: full colour at the
//! largest own |Δ| of any frame (of both sides' frames, so that the two pictures of a pair
//! share it), on a square-root scale below that, so a frame that moved a quarter as much is
//! half way to full colour and one that moved a sixteenth a quarter of the way. The largest own
//! change, not the step's |Δ|: a step's change is the sum of many frames' (ViT fp32 → bf16:
//! −74.7 ms of device time over 12 blocks, the largest frame −0.75 ms), and against the step's
//! |Δ| every frame of that pair was pale. But never less than [`FLOOR_SHARE`] of the step's
//! time: where nothing really changed, run-to-run noise stays pale instead of full colour. The
//! legend gives the full-colour change as a share of the step's Δ.

use super::cuts::start_cut;
use super::fmt_duration;
use crate::analysis::flamegraph::FlameStacks;
use crate::analysis::names::shorten_name;

/// inferno's defaults, to tell how many characters fit in a frame: its font size (px), the
/// width of a character in font sizes, and the picture's width (px).
const FONT_SIZE: f64 = 12.0;
const FONT_WIDTH: f64 = 0.59;
const IMAGE_WIDTH: f64 = 1200.0;

/// The room the legend takes under inferno's picture, in pixels: two lines.
pub(crate) const LEGEND_HEIGHT: usize = 40;

/// The least own change that is full colour, as a share of the step's time (the larger side's
/// total of the time drawn).
pub(crate) const FLOOR_SHARE: f64 = 0.005;

/// What one differential picture's colours stand against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ColourScale {
    /// The own |Δ| (ns) at and beyond which a frame is full colour (at least 1).
    pub full_ns: u64,
    /// The step's Δ of the time drawn (test − control, ns).
    pub step_delta_ns: i64,
    /// Whether [`ColourScale::full_ns`] is the floor ([`FLOOR_SHARE`] of the step's time)
    /// rather than the largest own change.
    pub floor: bool,
}

impl ColourScale {
    /// The scale of `stacks`, both sides' frames alike (the two pictures of a pair share it).
    pub(crate) fn of(stacks: &FlameStacks) -> ColourScale {
        let totals = [stacks.total_ns(0), stacks.total_ns(1)];
        let largest = stacks
            .stacks
            .values()
            .map(|ns| (ns[1] - ns[0]).unsigned_abs())
            .max()
            .unwrap_or(0);
        let floor = (FLOOR_SHARE * totals[0].max(totals[1]).max(0) as f64).round() as u64;
        ColourScale {
            full_ns: largest.max(floor).max(1),
            step_delta_ns: totals[1] - totals[0],
            floor: floor > largest,
        }
    }

    /// A frame's colour for its own change: white unchanged, red more time in test, blue less,
    /// deeper with the square root of the change up to full colour at [`ColourScale::full_ns`].
    pub(crate) fn colour(&self, delta_ns: i64) -> (u8, u8, u8) {
        change_colour(delta_ns, self.full_ns)
    }
}

/// White for no change, red more time, blue less, deeper with the square root of |Δ| ÷ `full`
/// (full colour at `full` and beyond).
pub(crate) fn change_colour(delta_ns: i64, full_ns: u64) -> (u8, u8, u8) {
    if delta_ns == 0 || full_ns == 0 {
        return (250, 250, 250);
    }
    let depth = (delta_ns.unsigned_abs() as f64 / full_ns as f64).sqrt().min(1.0);
    let c = (250.0 - 150.0 * depth).round() as u8;
    if delta_ns > 0 { (255, c, c) } else { (c, c, 255) }
}

/// The legend's swatches: own changes as shares of the full-colour change, from the most blue
/// to the most red (a sixteenth is a quarter of the way, a quarter half of it).
const SWATCHES: [f64; 7] = [-1.0, -0.25, -1.0 / 16.0, 0.0, 1.0 / 16.0, 0.25, 1.0];

/// The legend as SVG elements, its first line's baseline at `y`: the swatches with the own
/// change each stands for, then on a second line what full colour is against the step's change.
pub(crate) fn legend_svg(scale: &ColourScale, labels: &[String; 2], y: usize) -> String {
    let [c, t] = labels;
    let head = format!("colour: own time, {t} − {c}:");
    let mut out = format!(r#"<g id="legend"><text x="10" y="{y}">{}</text>"#, xml_text(&head));
    let mut x = 10 + text_px(&head) + 8;
    for share in SWATCHES {
        let delta = (share * scale.full_ns as f64).round() as i64;
        let (r, g, b) = scale.colour(delta);
        let text = match share {
            0.0 => "same".to_string(),
            s if s.abs() == 1.0 => format!("{}{}", if s > 0.0 { "≥ " } else { "≤ " }, fmt_duration(delta, true)),
            _ => fmt_duration(delta, true),
        };
        out.push_str(&format!(
            r#"<rect x="{x}" y="{}" width="14" height="14" fill="rgb({r},{g},{b})" stroke="rgb(120,120,120)"/><text x="{}" y="{y}">{}</text>"#,
            y - 11,
            x + 18,
            xml_text(&text)
        ));
        x += 18 + text_px(&text) + 10;
    }
    let what = if scale.floor {
        format!("{:.1}% of the step's time", FLOOR_SHARE * 100.0)
    } else {
        "the largest own Δ".to_string()
    };
    let share = match scale.step_delta_ns {
        0 => "the step unchanged".to_string(),
        d => format!(
            "{:.1}% of the step's {}",
            100.0 * scale.full_ns as f64 / d.unsigned_abs() as f64,
            fmt_duration(d, true)
        ),
    };
    out.push_str(&format!(
        r#"<text x="10" y="{}">full colour: {what}, {share}; deeper with the square root of |Δ| below it</text></g>"#,
        y + 18
    ));
    out
}

/// The width of `text` in inferno's monospace font, in pixels.
fn text_px(text: &str) -> usize {
    (text.chars().count() as f64 * FONT_SIZE * FONT_WIDTH).ceil() as usize
}

/// inferno's SVG with `legend` under the picture: the picture, its viewBox and its background
/// made [`LEGEND_HEIGHT`] pixels taller, the legend before the frames.
pub(crate) fn add_legend(svg: &str, legend: &str) -> String {
    let Some(height) = attribute(svg, "height") else {
        return svg.to_string();
    };
    let taller = height + LEGEND_HEIGHT;
    let mut out = svg.replacen(&format!(r#"height="{height}""#), &format!(r#"height="{taller}""#), 1);
    let width = attribute(&out, "width").unwrap_or(IMAGE_WIDTH as usize);
    out = out.replacen(
        &format!(r#"viewBox="0 0 {width} {height}""#),
        &format!(r#"viewBox="0 0 {width} {taller}""#),
        1,
    );
    // The background rectangle.
    out = out.replacen(
        &format!(r#"width="100%" height="{height}""#),
        &format!(r#"width="100%" height="{taller}""#),
        1,
    );
    match out.find(r#"<svg id="frames""#) {
        Some(at) => {
            out.insert_str(at, legend);
            out
        }
        None => out,
    }
}

/// The picture's height before the legend (the `height` attribute of the outer `<svg>`).
pub(crate) fn picture_height(svg: &str) -> Option<usize> {
    attribute(svg, "height")
}

/// The first `name="N"` attribute's number.
fn attribute(svg: &str, name: &str) -> Option<usize> {
    let key = format!(r#" {name}=""#);
    let start = svg.find(&key)? + key.len();
    svg[start..].split('"').next()?.parse().ok()
}

/// A frame's label in a frame `width_pct` percent of the frames' width wide: the name where it
/// fits; else a kernel's start as tables cut it (`vectorized_elementwise_kernel<4, …`) where
/// eight characters fit, or the function's own name without namespaces, templates and
/// arguments (`linear` for `aten::linear`, `vectoriz…`), cut to fit with `…`; nothing where
/// fewer than four characters fit (inferno wrote `..` there). The tooltip holds the name.
pub(crate) fn fit_label(name: &str, width_pct: f64) -> String {
    // inferno's count, less one for the label's left padding.
    let fits = (width_pct / (100.0 * FONT_SIZE * FONT_WIDTH / IMAGE_WIDTH)).trunc() as usize;
    let fits = fits.saturating_sub(1);
    let n = name.chars().count();
    if n <= fits {
        return name.to_string();
    }
    if fits < 4 {
        return String::new();
    }
    let short = shorten_name(name);
    let own = short.rsplit("::").next().filter(|o| !o.is_empty()).unwrap_or(&short);
    if own.chars().count() <= fits {
        return own.to_string();
    }
    if fits >= 8 && name.contains(['<', '(']) {
        return start_cut(name, fits);
    }
    let kept: String = own.chars().take(fits - 1).collect();
    format!("{kept}…")
}

fn xml_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_deepen_with_the_square_root_of_the_change() {
        assert_eq!(change_colour(0, 100), (250, 250, 250));
        assert_eq!(change_colour(100, 100), (255, 100, 100));
        assert_eq!(change_colour(400, 100), (255, 100, 100));
        assert_eq!(change_colour(-100, 100), (100, 100, 255));
        // A quarter of full colour's change: half way.
        assert_eq!(change_colour(25, 100), (255, 175, 175));
        assert_eq!(change_colour(-25, 100), (175, 175, 255));
        assert_eq!(change_colour(5, 0), (250, 250, 250));
    }

    #[test]
    fn full_colour_is_the_largest_own_change_or_a_share_of_the_step() {
        let mut s = FlameStacks::default();
        // The step +100 over four frames of +25 each: each is full colour.
        for k in ["a", "b", "c", "d"] {
            s.stacks.insert(k.into(), [1000, 1025]);
        }
        let scale = ColourScale::of(&s);
        assert_eq!(
            scale,
            ColourScale {
                full_ns: 25,
                step_delta_ns: 100,
                floor: false,
            }
        );
        assert_eq!(scale.colour(25), (255, 100, 100));
        // Noise: +1 ns of a 4,000 ns step is measured against 0.5% of the step, 20 ns.
        let mut s = FlameStacks::default();
        s.stacks.insert("a".into(), [4000, 4001]);
        let scale = ColourScale::of(&s);
        assert_eq!((scale.full_ns, scale.floor), (20, true));
        assert_eq!(scale.colour(1), (255, 216, 216));
    }

    #[test]
    fn labels_fit_or_are_left_out() {
        // 10% of 1200 pixels: 16 characters fit, less one for the padding.
        assert_eq!(fit_label("aten::linear", 10.0), "aten::linear");
        assert_eq!(fit_label("aten::scaled_dot_product", 10.0), "scaled_dot_pro…");
        assert_eq!(fit_label("aten::linear", 5.0), "linear");
        assert_eq!(fit_label("aten::linear", 1.0), "");
        let kernel = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)";
        // The function's own name where it fits, else the kernel's start as tables cut it.
        assert_eq!(fit_label(kernel, 20.0), "vectorized_elementwise_kernel");
        let label = fit_label(kernel, 15.0);
        assert!(label.starts_with("vectorized_e") && label.ends_with('…'), "{label}");
        assert_eq!(label.chars().count(), 24, "{label}");
        assert_eq!(fit_label(kernel, 3.0), "vec…");
    }
}
