//! The chart of a crate's inline attributes (`compare --crate`), a panel
//! under the size-against-speed panels: each attribute removed (`drop_N`,
//! labelled `N`) and each `always` added (`add_K`, labelled `+K`) a point
//! at its footprint change (x) and its speed change (y, with its 95%
//! interval as an error bar) against the crate as published, coloured by
//! what it is worth (`worth.rs`); the bar drawn either way as grey lines.
//! A variant with the published hot path's code, or not timed, is not
//! drawn (the table says so).

use crate::decide::worth::Outcome;
use crate::env::escape::plotters_text;
use crate::render::worth;
use crate::report::Report;
use plotters::coord::Shift;
use plotters::prelude::*;

/// The panel's height in pixels.
pub const HEIGHT: u32 = 400;

/// One point: its label, size change and speed interval (in percent), and
/// its outcome.
struct Point {
    label: String,
    x: f64,
    y: (f64, f64, f64),
    outcome: Outcome,
}

/// The colour of an outcome: keep green, drop red, add blue, the others
/// grey or orange.
fn colour(o: Outcome) -> RGBColor {
    match o {
        Outcome::Keep => RGBColor(0x1a, 0x8a, 0x3a),
        Outcome::Drop => RGBColor(0xc0, 0x30, 0x30),
        Outcome::Add => RGBColor(0x20, 0x50, 0xc0),
        Outcome::Unsettled => RGBColor(0xe0, 0x80, 0x10),
        Outcome::NoEffect | Outcome::NoGain | Outcome::NotTimed => RGBColor(0x80, 0x80, 0x80),
    }
}

fn points(r: &Report) -> Vec<Point> {
    let Some(a) = &r.annotations else {
        return Vec::new();
    };
    let pct = |v: f64| (v - 1.0) * 100.0;
    let mut out = Vec::new();
    let mut push =
        |label: String, size: Option<f64>, speed: Option<bench_harness::stats::Ratio>, outcome| {
            if let (Some(x), Some(s)) = (size, speed)
                && !matches!(outcome, Outcome::NoEffect | Outcome::NotTimed)
            {
                out.push(Point {
                    label,
                    x: x * 100.0,
                    y: (pct(s.low), pct(s.ratio), pct(s.high)),
                    outcome,
                });
            }
        };
    for j in worth::judge(r, a) {
        let label = match &j.row.krate {
            Some(dep) => format!("{dep} {}", j.row.number),
            None => j.row.number.to_string(),
        };
        push(label, j.size_change, j.speed, j.outcome);
    }
    for j in worth::judge_added(r, a) {
        push(
            format!("+{}", j.row.number),
            j.size_change,
            j.speed,
            j.outcome,
        );
    }
    out
}

/// Draws the panel in `area`; `None` when plotters fails (nothing to draw
/// is an empty panel that says so).
pub fn panel(area: &DrawingArea<SVGBackend<'_>, Shift>, r: &Report) -> Option<()> {
    let points = points(r);
    let bar = (r.noise().bar() - 1.0) * 100.0;
    let caption = "the crate's inline attributes: footprint change (%) against speed change (%) without each (N) and with always added (+K); grey lines: the bar";
    let span = |f: &dyn Fn(&Point) -> [f64; 2], pad: f64| {
        let (lo, hi) =
            (points.iter().flat_map(f)).fold((-pad, pad), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let margin = (hi - lo) * 0.08;
        (lo - margin)..(hi + margin)
    };
    let xs = span(&|p| [p.x, p.x], 1.0);
    let ys = span(&|p| [p.y.0, p.y.2], bar * 1.2);
    let mut chart = ChartBuilder::on(area)
        .caption(plotters_text(caption), ("sans-serif", 14))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(50)
        .build_cartesian_2d(xs.clone(), ys)
        .ok()?;
    chart
        .configure_mesh()
        .x_desc("footprint change against published (%)")
        .y_desc("speed change (%)")
        .draw()
        .ok()?;
    for level in [bar, -bar] {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(xs.start, level), (xs.end, level)],
                BLACK.mix(0.4).stroke_width(1),
            )))
            .ok()?;
    }
    for p in &points {
        let c = colour(p.outcome);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(p.x, p.y.0), (p.x, p.y.2)],
                c.stroke_width(1),
            )))
            .ok()?;
        chart
            .draw_series(std::iter::once(Circle::new((p.x, p.y.1), 4, c.filled())))
            .ok()?;
        chart
            .draw_series(std::iter::once(Text::new(
                plotters_text(&p.label),
                (p.x, p.y.1),
                ("sans-serif", 12).into_font().color(&c),
            )))
            .ok()?;
    }
    let legend = "green keep, red drop, blue add, orange unsettled, grey no gain";
    let (_, h) = area.dim_in_pixel();
    area.draw_text(
        &plotters_text(if points.is_empty() {
            "nothing moved past the noise to draw"
        } else {
            legend
        }),
        &("sans-serif", 12).into_text_style(area),
        (60, h as i32 - 14),
    )
    .ok()?;
    Some(())
}
