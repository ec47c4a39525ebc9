//! The waterfall of a step-time change (docs/breakdown.md): the control's mean step, then each
//! part's Δ (compute, exposed communication, exposed memory copies, GPU idle by its causes) floating from
//! where the previous one ended, then the test's mean step. The Δ bars add up exactly to the
//! difference of the two step bars.

use super::fmt_duration;
use super::plot::{ImageFormat, check_size, encode_png, plot_error, register_font_once};
use crate::analysis::views::overview::{BreakdownMean, Overview};
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Okabe–Ito colours (safe for the common colour-vision deficiencies): the two sides as in the
/// bar charts, growth vermillion, shrinkage bluish green.
const CONTROL: RGBColor = RGBColor(0x00, 0x72, 0xB2);
const TEST: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
const GROWTH: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
const SHRINK: RGBColor = RGBColor(0x00, 0x9E, 0x73);
const GRID: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);
const FAMILY: &str = "sans-serif";

/// A waterfall, ready to draw: both sides' mean breakdowns.
#[derive(Debug, Clone)]
pub(crate) struct Waterfall {
    /// Names of the control and test sides.
    pub labels: [String; 2],
    /// The control side's mean step and its parts.
    pub control: BreakdownMean,
    /// The test side's.
    pub test: BreakdownMean,
    /// Width of the picture, in pixels.
    pub width: u32,
    /// Height of the picture, in pixels.
    pub height: u32,
}

impl Waterfall {
    /// The waterfall of an overview; an error naming the side that has no breakdown.
    pub(crate) fn of(o: &Overview, size: (u32, u32)) -> Result<Waterfall> {
        let side = |s: &crate::analysis::views::overview::SideOverview| {
            s.breakdown.ok_or_else(|| {
                Error::usage(format!(
                    "{} has no step-time breakdown (no device events, or a summary older than the breakdown: run tracediff summarize again)",
                    s.label
                ))
            })
        };
        Ok(Waterfall {
            labels: [o.control.label.clone(), o.test.label.clone()],
            control: side(&o.control)?,
            test: side(&o.test)?,
            width: size.0,
            height: size.1,
        })
    }

    /// (name, control ns, test ns) of the parts, in the order they stack: compute, exposed
    /// communication, exposed memory copies, then GPU idle — split by its causes where both
    /// sides know them (a cause neither side has is left out).
    pub(crate) fn parts(&self) -> Vec<(&'static str, i64, i64)> {
        let (c, t) = (&self.control, &self.test);
        let mut parts = vec![
            ("compute", c.compute_ns, t.compute_ns),
            ("exposed communication", c.comm_exposed_ns, t.comm_exposed_ns),
            ("exposed memory copies", c.memory_exposed_ns, t.memory_exposed_ns),
        ];
        match (c.idle_causes, t.idle_causes) {
            (Some(ci), Some(ti)) => {
                let labels = [
                    "idle: host communication",
                    "idle: synchronize",
                    "idle: launch",
                    "idle: dataloader",
                    "idle: host compute",
                    "idle: untraced",
                ];
                for ((label, (_, a)), (_, b)) in labels.into_iter().zip(ci.parts()).zip(ti.parts()) {
                    if a != 0 || b != 0 {
                        parts.push((label, a, b));
                    }
                }
            }
            _ => parts.push(("GPU idle", c.idle_ns, t.idle_ns)),
        }
        parts
    }

    /// The bars: (label's two lines, from ns, to ns, colour), left to right.
    fn bars(&self) -> Vec<([String; 2], i64, i64, RGBColor)> {
        let side = |k: usize| [self.labels[k].clone(), "step".to_string()];
        let mut bars = vec![(side(0), 0, self.control.step_ns, CONTROL)];
        let mut level = self.control.step_ns;
        for (name, c, t) in self.parts() {
            let d = t - c;
            let (first, second) = name.split_once(' ').unwrap_or((name, ""));
            let label = [first.to_string(), second.to_string()];
            bars.push((label, level, level + d, if d >= 0 { GROWTH } else { SHRINK }));
            level += d;
        }
        bars.push((side(1), 0, self.test.step_ns, TEST));
        bars
    }
}

/// Draws the waterfall as PNG or SVG bytes.
pub(crate) fn draw_waterfall(w: &Waterfall, format: ImageFormat) -> Result<Vec<u8>> {
    register_font_once()?;
    check_size(w.width, w.height)?;
    let size = (w.width, w.height);
    match format {
        ImageFormat::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
                paint(&root, w)?;
                root.present().map_err(plot_error)?;
            }
            Ok(super::xml::xml_safe(svg.into_bytes()))
        }
        ImageFormat::Png => {
            let mut pixels = vec![0u8; (w.width * w.height * 3) as usize];
            {
                let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
                paint(&root, w)?;
                root.present().map_err(plot_error)?;
            }
            encode_png(&pixels, w.width, w.height).map_err(plot_error)
        }
    }
}

/// A unit for the y axis: (divisor, name).
fn unit_for(max_ns: i64) -> (f64, &'static str) {
    match max_ns {
        ..1_000 => (1.0, "ns"),
        1_000..1_000_000 => (1e3, "µs"),
        1_000_000..1_000_000_000 => (1e6, "ms"),
        _ => (1e9, "s"),
    }
}

fn paint<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, w: &Waterfall) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(plot_error)?;
    let bars = w.bars();
    let top = bars.iter().map(|b| b.1.max(b.2)).max().unwrap_or(0).max(1);
    let (div, unit) = unit_for(top);
    let font = |size: i32| (FAMILY, size).into_font();
    let n = bars.len() as f64;
    let title = format!(
        "Where the step time went: {} → {} (mean per step)",
        w.labels[0], w.labels[1]
    );
    // The title and the colours' key above the plot, never over a bar.
    root.draw(&Text::new(title, (w.width as i32 / 2, 12), text_style(font(24), false)))
        .map_err(plot_error)?;
    legend(root, w, font(16))?;
    let decimals = super::plot::axis_decimals((top as f64 / div) * 1.15);
    let mut cc = ChartBuilder::on(root)
        .margin(20)
        .margin_top(80)
        .x_label_area_size(90)
        .y_label_area_size(90)
        .build_cartesian_2d(0f64..n, 0f64..(top as f64 / div) * 1.15)
        .map_err(plot_error)?;
    cc.configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc(format!("time per step ({unit})"))
        .y_label_formatter(&|v| format!("{v:.decimals$}"))
        .axis_desc_style(font(18))
        .label_style(font(16))
        .light_line_style(GRID)
        .draw()
        .map_err(plot_error)?;
    let parts = w.parts();
    for (i, (label, from, to, color)) in bars.iter().enumerate() {
        let x = i as f64;
        let (lo, hi) = ((*from).min(*to) as f64 / div, (*from).max(*to) as f64 / div);
        cc.draw_series(std::iter::once(Rectangle::new(
            [(x + 0.15, lo), (x + 0.85, hi)],
            color.filled(),
        )))
        .map_err(plot_error)?;
        // A connector from this bar's end to the next bar's start.
        if i + 1 < bars.len() {
            let y = *to as f64 / div;
            cc.draw_series(std::iter::once(PathElement::new(
                vec![(x + 0.85, y), (x + 1.15, y)],
                BLACK.stroke_width(1),
            )))
            .map_err(plot_error)?;
        }
        let is_delta = i > 0 && i + 1 < bars.len();
        let value = if is_delta {
            fmt_duration(to - from, true)
        } else {
            fmt_duration(*to, false)
        };
        let (cx, ty) = cc.backend_coord(&(x + 0.5, hi));
        root.draw(&Text::new(value, (cx, ty - 8), text_style(font(17), true)))
            .map_err(plot_error)?;
        // The label on two lines ("exposed" / "communication"), so neighbours never touch.
        let (_, by) = cc.backend_coord(&(x + 0.5, 0.0));
        for (k, text) in label.iter().enumerate() {
            let y = by + 8 + 20 * k as i32;
            root.draw(&Text::new(text.to_string(), (cx, y), text_style(font(16), false)))
                .map_err(plot_error)?;
        }
        if is_delta {
            let (_, c, t) = parts[i - 1];
            let sides = format!("{} → {}", fmt_duration(c, false), fmt_duration(t, false));
            root.draw(&Text::new(sides, (cx, by + 52), text_style(font(14), false)))
                .map_err(plot_error)?;
        }
    }
    Ok(())
}

/// The colours' key, centred under the title.
fn legend<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, w: &Waterfall, font: FontDesc<'_>) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let entries = [
        (format!("longer in {}", w.labels[1]), GROWTH),
        (format!("shorter in {}", w.labels[1]), SHRINK),
    ];
    let style = TextStyle::from(font.clone());
    let mut widths = Vec::new();
    for (label, _) in &entries {
        widths.push(root.estimate_text_size(label, &style).map_err(plot_error)?.0 as i32 + 20);
    }
    let gap = 30;
    let mut x = (w.width as i32 - widths.iter().sum::<i32>() - gap) / 2;
    for ((label, color), width) in entries.iter().zip(widths) {
        root.draw(&Rectangle::new([(x, 50), (x + 14, 64)], color.filled()))
            .map_err(plot_error)?;
        root.draw(&Text::new(label.clone(), (x + 20, 49), font.color(&BLACK)))
            .map_err(plot_error)?;
        x += width + gap;
    }
    Ok(())
}

/// Centred text, black, anchored at its bottom (`above`) or top.
fn text_style(font: FontDesc<'_>, above: bool) -> TextStyle<'_> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let v = if above { VPos::Bottom } else { VPos::Top };
    font.color(&BLACK).pos(Pos::new(HPos::Center, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean(step: i64, compute: i64, comm: i64, memory: i64) -> BreakdownMean {
        BreakdownMean {
            step_ns: step,
            compute_ns: compute,
            comm_total_ns: comm,
            comm_overlapped_ns: 0,
            comm_exposed_ns: comm,
            memory_exposed_ns: memory,
            idle_ns: step - compute - comm - memory,
            idle_causes: None,
            compute_by_class: None,
            overlap_ratio: None,
        }
    }

    #[test]
    fn idle_splits_into_the_causes_either_side_has() {
        use crate::model::summary::IdleCauses;
        let with = |m: BreakdownMean, launch: i64, sync: i64| BreakdownMean {
            idle_causes: Some(IdleCauses {
                launch_ns: launch,
                synchronize_ns: sync,
                untraced_ns: m.idle_ns - launch - sync,
                ..IdleCauses::default()
            }),
            ..m
        };
        let (c, t) = (mean(100, 40, 0, 0), mean(120, 40, 0, 0));
        let w = Waterfall {
            labels: ["a".into(), "b".into()],
            control: with(c, 10, 0),
            test: with(t, 30, 0),
            width: 1200,
            height: 700,
        };
        let names: Vec<&str> = w.parts().iter().map(|p| p.0).collect();
        assert_eq!(
            names,
            [
                "compute",
                "exposed communication",
                "exposed memory copies",
                "idle: launch",
                "idle: untraced"
            ]
        );
        let bars = w.bars();
        assert_eq!(bars.last().map(|b| b.2), Some(120), "the test step");
        assert_eq!(bars[bars.len() - 2].2, 120, "the last Δ ends at the test step");
        // Where one side lacks the causes (an older summary), the idle bar stays whole.
        let whole = Waterfall { control: c, ..w };
        assert_eq!(whole.parts().last().map(|p| p.0), Some("GPU idle"));
    }

    #[test]
    fn deltas_float_from_the_control_step_to_the_test_step() {
        let w = Waterfall {
            labels: ["a100".into(), "v100".into()],
            control: mean(77_500_000, 46_900_000, 14_700_000, 3_200_000),
            test: mean(124_000_000, 91_200_000, 12_200_000, 16_100_000),
            width: 1200,
            height: 700,
        };
        let bars = w.bars();
        assert_eq!(bars.len(), 6);
        assert_eq!((bars[1].1, bars[1].2), (77_500_000, 121_800_000));
        assert_eq!(bars[4].2, 124_000_000, "the last Δ ends at the test step");
        assert_eq!(bars[2].3, SHRINK);
        let svg = String::from_utf8(draw_waterfall(&w, ImageFormat::Svg).unwrap()).unwrap();
        assert!(svg.contains("+44.3 ms") && svg.contains("memory copies"), "{svg}");
        assert_eq!(draw_waterfall(&w, ImageFormat::Svg).unwrap(), svg.into_bytes());
        let png = draw_waterfall(&w, ImageFormat::Png).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
    }
}
