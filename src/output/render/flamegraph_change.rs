//! The differential flame graph's colours and tooltips (docs/flamegraph.md).
//!
//! inferno draws one side's stacks (its layout, labels, zoom and search), and each frame is then
//! recoloured by the change of its *own* time on the step's scale
//! ([`super::flamegraph_legend`]), its label fitted to its width and its tooltip rewritten with
//! both sides' times. inferno's own differential colours are scaled to the largest frame and
//! drawn on the changed side only; a frame that vanished has no width in them. inferno has no
//! option for any of this, and the frames are found again in its output by depth and start: the
//! lines are given to it sorted, so its layout is known here. (Colours by the change of a
//! frame's time *with all above it* made the root the reddest frame and left the frames that
//! changed pale.)

use super::flamegraph_legend::{ColourScale, add_legend, fit_label, legend_svg, picture_height};
use super::{fmt_duration, fmt_percent};
use crate::analysis::flamegraph::FlameStacks;
use rustc_hash::FxHashMap;

/// The height inferno gives a frame (its default), to tell a frame's depth from its `y`.
const FRAME_HEIGHT: usize = 16;

/// The fill of a frame whose change is not known: grey, neither white (unchanged) nor a colour.
const UNKNOWN_FILL: &str = "rgb(200,200,200)";

/// What the colours of one differential picture stand against.
#[derive(Debug, Clone)]
pub(crate) struct ChangeLegend {
    /// The two sides' labels.
    pub labels: [String; 2],
    /// The side whose times are the widths (0 control, 1 test).
    pub drawn: usize,
    /// The other side's time in stacks the drawn side lacks: it has no width in the picture.
    pub not_drawn_ns: i64,
    /// The drawn side's total.
    pub drawn_total_ns: i64,
    /// What the colours stand against: the same for both sides' pictures.
    pub scale: ColourScale,
}

impl ChangeLegend {
    /// The legend of `stacks` drawn with side `drawn`'s widths.
    pub(crate) fn of(stacks: &FlameStacks, labels: &[String; 2], drawn: usize) -> ChangeLegend {
        let other = 1 - drawn;
        let not_drawn_ns = stacks
            .stacks
            .values()
            .filter(|ns| ns[drawn] == 0)
            .map(|ns| ns[other])
            .sum();
        ChangeLegend {
            labels: labels.clone(),
            drawn,
            not_drawn_ns,
            drawn_total_ns: stacks.total_ns(drawn),
            scale: ColourScale::of(stacks),
        }
    }

    /// What widths and colours mean, and what the picture leaves out; `hint` names the option
    /// that draws it. Short enough for the 1200-pixel picture with short labels.
    pub(crate) fn subtitle(&self, hint: bool) -> String {
        let t = &self.labels[1];
        let (drawn, other) = (&self.labels[self.drawn], &self.labels[1 - self.drawn]);
        // Short: the picture's subtitle is one line across its 1200 pixels.
        let mut text = format!("width: {drawn} time · colour: each frame's own time, red more in {t}, blue less");
        if self.not_drawn_ns > 0 {
            text.push_str(&format!(
                " · not drawn: {} only {other} has",
                fmt_duration(self.not_drawn_ns, false)
            ));
            if hint {
                let option = if self.drawn == 1 { "control" } else { "test" };
                text.push_str(&format!(" (--widths {option})"));
            }
        }
        text
    }

    /// A frame's tooltip: its full name, then in parentheses (inferno's script cuts the last
    /// parenthesis off to label a zoomed frame) its time on the drawn side, the other side's,
    /// the change, and where it has own time the change of that (what its colour stands for).
    fn tooltip(&self, name: &str, ns: [i64; 2], own: [i64; 2]) -> String {
        let d = self.drawn;
        let share = 100.0 * ns[d] as f64 / self.drawn_total_ns.max(1) as f64;
        let change = match ns {
            [0, _] => format!("new, {} has none", self.labels[0]),
            [_, 0] => format!("gone, {} has none", self.labels[1]),
            [c, t] => format!(
                "{} {}; {}, {}",
                self.labels[1 - d],
                fmt_duration(ns[1 - d], false),
                fmt_duration(t - c, true),
                fmt_percent(c, t)
            ),
        };
        let own = if own == [0, 0] || own == ns {
            String::new()
        } else {
            format!(
                "; own {} → {}, {}",
                fmt_duration(own[0], false),
                fmt_duration(own[1], false),
                fmt_duration(own[1] - own[0], true)
            )
        };
        format!(
            "{name} ({}, {share:.1}% of {}; {change}{own})",
            fmt_duration(ns[d], false),
            self.labels[d]
        )
    }
}

/// Where inferno starts each frame of the sorted `NAME;… NS` lines: (depth, start in ns) → the
/// frame's path (`""` for inferno's `all`, depth 0). inferno merges a line's leading frames
/// with the previous line's while their names agree, as here.
fn frame_starts(lines: &[String]) -> FxHashMap<(usize, u64), &str> {
    let mut starts: FxHashMap<(usize, u64), &str> = FxHashMap::default();
    starts.insert((0, 0), "");
    let mut time = 0u64;
    let mut previous: Vec<&str> = Vec::new();
    for line in lines {
        let Some(space) = line.rfind(' ') else { continue };
        let stack = &line[..space];
        let names: Vec<&str> = stack.split(';').collect();
        let shared = names.iter().zip(&previous).take_while(|(a, b)| a == b).count();
        let mut end = 0;
        for (i, name) in names.iter().enumerate() {
            end += name.len() + usize::from(i > 0);
            if i >= shared {
                starts.insert((i + 1, time), &stack[..end]);
            }
        }
        time += line[space + 1..].parse::<u64>().unwrap_or(0);
        previous = names;
    }
    starts
}

/// One frame's `<g>` in inferno's SVG: where its `<title>` element, its rect's `fill` value and
/// its label's text are, and the rect's `y`, `fg:x` and width (percent of the frames' width).
struct FrameSpan {
    title: std::ops::Range<usize>,
    fill: std::ops::Range<usize>,
    label: Option<std::ops::Range<usize>>,
    y: usize,
    x: u64,
    width_pct: f64,
}

/// The frames of inferno's SVG, in order.
fn frame_spans(svg: &str) -> Vec<FrameSpan> {
    let mut spans = Vec::new();
    let mut at = svg.find("<svg id=\"frames\"").unwrap_or(svg.len());
    while let Some(g) = svg[at..].find("<g><title>").map(|i| at + i) {
        let title_start = g + "<g>".len();
        let Some(title_end) = svg[title_start..]
            .find("</title>")
            .map(|i| title_start + i + "</title>".len())
        else {
            break;
        };
        let Some(rect_end) = svg[title_end..].find("/>").map(|i| title_end + i) else {
            break;
        };
        let rect = title_end..rect_end;
        let value = |name: &str| {
            let key = format!(" {name}=\"");
            let start = rect.start + svg[rect.clone()].find(&key)? + key.len();
            let end = start + svg[start..rect.end].find('"')?;
            Some(start..end)
        };
        // The label: `<text …>LABEL</text>` right after the rect, inside the frame's `<g>`.
        let after = rect_end + "/>".len();
        let label = svg[after..].starts_with("<text").then(|| {
            let open = svg[after..].find('>').map(|i| after + i + 1)?;
            let close = svg[open..].find("</text>").map(|i| open + i)?;
            Some(open..close)
        });
        let width_pct = value("width")
            .and_then(|w| svg[w].trim_end_matches('%').parse::<f64>().ok())
            .unwrap_or(0.0);
        if let (Some(fill), Some(y), Some(x)) = (value("fill"), value("y"), value("fg:x"))
            && let (Ok(y), Ok(x)) = (svg[y].parse(), svg[x].parse())
        {
            spans.push(FrameSpan {
                title: title_start..title_end,
                fill,
                label: label.flatten(),
                y,
                x,
                width_pct,
            });
        }
        at = rect_end;
    }
    spans
}

fn xml_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// inferno's SVG of the sorted `lines` with every frame coloured by its own change, labelled to
/// fit and its tooltip giving both sides (a still picture: no tooltips and no script), and the
/// colours' legend under the frames.
pub(crate) fn recolour(
    svg: &[u8],
    lines: &[String],
    stacks: &FlameStacks,
    legend: &ChangeLegend,
    still: bool,
) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(svg) else {
        return svg.to_vec();
    };
    let starts = frame_starts(lines);
    let totals = stacks.frame_totals();
    let spans = frame_spans(text);
    let root_y = spans.iter().map(|f| f.y).max().unwrap_or(0);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in &spans {
        let depth = (root_y - span.y) / FRAME_HEIGHT;
        let found = starts.get(&(depth, span.x)).and_then(|p| Some((*p, totals.get(p)?)));
        let Some((path, ns)) = found else {
            // Never expected (the layout is inferno's for these sorted lines), but a frame not
            // found again must not keep the hot palette's colour, which would read as "grew".
            let title = if still { span.title.end } else { span.title.start };
            out.push_str(&text[at..span.title.start]);
            out.push_str(&text[title..span.fill.start]);
            out.push_str(UNKNOWN_FILL);
            at = span.fill.end;
            continue;
        };
        let name = if path.is_empty() {
            "all"
        } else {
            path.rsplit(';').next().unwrap_or(path)
        };
        let own = stacks.own_ns(path);
        out.push_str(&text[at..span.title.start]);
        if !still {
            out.push_str("<title>");
            out.push_str(&xml_text(&legend.tooltip(name, *ns, own)));
            out.push_str("</title>");
        }
        out.push_str(&text[span.title.end..span.fill.start]);
        let (r, g, b) = legend.scale.colour(own[1] - own[0]);
        out.push_str(&format!("rgb({r},{g},{b})"));
        at = span.fill.end;
        if let Some(label) = &span.label {
            out.push_str(&text[at..label.start]);
            out.push_str(&xml_text(&fit_label(name, span.width_pct)));
            at = label.end;
        }
    }
    out.push_str(&text[at..]);
    if let Some(height) = picture_height(&out) {
        let drawn = legend_svg(&legend.scale, &legend.labels, height + 17);
        out = add_legend(&out, &drawn);
    }
    if still {
        out = lighten(&out);
    }
    out.into_bytes()
}

/// A still picture made lighter (the report embeds two): inferno's `<script>` (never run in an
/// `<img>`), its comments (links the page need not carry), the frames' `fg:x`/`fg:w` and their
/// namespace (only the script reads them) and the empty labels of frames too narrow for one
/// left out. Half the bytes of a frame go.
fn lighten(svg: &str) -> String {
    let svg = match (svg.find("<script"), svg.find("</script>")) {
        (Some(start), Some(end)) if start < end => format!("{}{}", &svg[..start], &svg[end + "</script>".len()..]),
        _ => svg.to_string(),
    };
    let header_end = svg.find("<svg id=\"frames\"").unwrap_or(svg.len());
    let header = remove_all(&svg[..header_end], "<!--", "-->", |_| true);
    // The script's controls (search, reset zoom, the hovered frame's details): nothing to click.
    let header = remove_all(&header, "<text id=\"", "</text>", |inner| {
        ["details\"", "unzoom\"", "search\"", "matched\""]
            .iter()
            .any(|id| inner.starts_with(id))
    });
    let header = header.replace(" xmlns:fg=\"http://github.com/jonhoo/inferno\"", "");
    let frames = &svg[header_end..];
    let frames = remove_all(frames, " fg:x=\"", "\"", |_| true);
    let frames = remove_all(&frames, " fg:w=\"", "\"", |_| true);
    header + &remove_all(&frames, "<text ", "</text>", |inner| inner.ends_with('>'))
}

/// `text` without each `open…close` span whose inside satisfies `remove`.
fn remove_all(text: &str, open: &str, close: &str, remove: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(start) = text[at..].find(open).map(|i| at + i) {
        let inner_start = start + open.len();
        let Some(end) = text[inner_start..].find(close).map(|i| inner_start + i) else {
            break;
        };
        out.push_str(&text[at..start]);
        if !remove(&text[inner_start..end]) {
            out.push_str(&text[start..end + close.len()]);
        }
        at = end + close.len();
    }
    out.push_str(&text[at..]);
    out
}

/// A one-side SVG as a still picture: no tooltips, no script.
pub(crate) fn strip_titles(svg: &[u8]) -> Vec<u8> {
    let Ok(text) = std::str::from_utf8(svg) else {
        return svg.to_vec();
    };
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in frame_spans(text) {
        out.push_str(&text[at..span.title.start]);
        at = span.title.end;
    }
    out.push_str(&text[at..]);
    lighten(&out).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_start_where_inferno_starts_them() {
        let lines: Vec<String> = ["s;a;x 5", "s;a;y 3", "s;b 2", "s;b;a 4"]
            .iter()
            .map(|l| l.to_string())
            .collect();
        let starts = frame_starts(&lines);
        assert_eq!(starts[&(0, 0)], "");
        assert_eq!(starts[&(1, 0)], "s");
        assert_eq!(starts[&(2, 0)], "s;a");
        assert_eq!(starts[&(3, 0)], "s;a;x");
        assert_eq!(starts[&(3, 5)], "s;a;y");
        assert_eq!(starts[&(2, 8)], "s;b");
        assert_eq!(starts[&(3, 10)], "s;b;a");
        assert_eq!(starts.len(), 7);
    }

    #[test]
    fn a_frame_not_found_again_is_grey_never_a_change_colour() {
        let stacks = FlameStacks {
            time: crate::analysis::flamegraph::FlameTime::Host,
            stacks: [("s;a".to_string(), [1, 2])].into_iter().collect(),
            step: None,
        };
        let legend = ChangeLegend::of(&stacks, &["c".into(), "t".into()], 1);
        let svg = concat!(
            r#"<svg id="frames" total_samples="2">"#,
            r#"<g><title>all (2 ns)</title><rect x="0" y="53" fill="rgb(250,10,10)" fg:x="0" fg:w="2"/></g>"#,
            r#"<g><title>s (2 ns)</title><rect x="0" y="37" fill="rgb(250,10,10)" fg:x="0" fg:w="2"/></g>"#,
            r#"<g><title>b (1 ns)</title><rect x="50%" y="21" fill="rgb(250,10,10)" fg:x="1" fg:w="1"/></g>"#,
            "</svg>"
        );
        // A picture that does not match the lines: no frame starts at depth 2, 1 ns in.
        let lines = vec!["s;a 2".to_string()];
        let out = String::from_utf8(recolour(svg.as_bytes(), &lines, &stacks, &legend, false)).unwrap();
        assert!(
            out.contains(r#"<title>all (2 ns, 100.0% of t; c 1 ns; +1 ns, +100.0%)</title>"#),
            "{out}"
        );
        assert!(
            out.contains(r#"<title>b (1 ns)</title><rect x="50%" y="21" fill="rgb(200,200,200)""#),
            "{out}"
        );
        assert!(!out.contains("rgb(250,10,10)"), "{out}");
    }
}
