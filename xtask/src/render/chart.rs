//! The report's chart: footprint (x, log scale) against throughput (y) at
//! the headline cases ([`Report::headlines`]: a panel per mode family,
//! its largest block); one numbered point per group of identical hot-path
//! code (blue circles) and per peer (red triangles), with the interval of
//! its median over the measuring processes as an error bar (95% from six
//! processes, their range below: `Speed::ops_interval`), its widest
//! half-width stated in the
//! panel's title (at most a few tenths of a percent hides under a point);
//! filled when the verdict finds it Pareto-optimal, the Pareto front drawn
//! through those as a step line; the verdict's pick ringed and labelled,
//! the reference labelled. The numbers are explained in a legend under the
//! panels, so no label overlaps another.
//! SVG only: text is `<text>` elements, so no font is needed to draw it;
//! plotters escapes markup in them, `env/escape.rs` the rest.

use crate::decide::verdict::Annotation;
use crate::env::escape::{plotters_text, xml_attr, xml_comment, xml_text};
use crate::report::{Entry, Headline, Report, Status};
mod labels;

use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::HashSet;

const WIDTH: u32 = 960;
const PANELS: u32 = 420;
const LEGEND_LINE: u32 = 18;
/// Flag sets named on one line of the legend.
const SETS_PER_LINE: usize = 4;

/// What a point stands for: its number, legend text, the entry whose
/// figures it shows, footprint, whether it is a peer, whether Pareto.
struct Point<'a> {
    legend: String,
    entry: &'a Entry,
    size: f64,
    peer: bool,
    pareto: bool,
    /// `pick`, `reference`, both, or nothing: written beside the point.
    role: Option<&'static str>,
}

/// One point per identical-code group (shown by its least annotated
/// member, as the verdict counts it) and per peer. Linear in the entries
/// ([`crate::render::markdown::code_groups`]).
fn points(r: &Report) -> Vec<Point<'_>> {
    let measured = |e: &&Entry| e.status == Status::Measured && e.artifact.is_some();
    let pareto: HashSet<&str> = r.verdict.pareto.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for group in crate::render::markdown::code_groups(r) {
        let members: Vec<&Entry> = group.into_iter().filter(measured).collect();
        let Some(shown) = members.iter().min_by_key(|e| Annotation::of(&e.name)) else {
            continue;
        };
        let names: Vec<&str> = members.iter().map(|e| e.name.as_str()).collect();
        out.push(point(r, shown, names.join(" = "), false, &pareto));
    }
    for p in r.peers.iter().filter(measured) {
        out.push(point(r, p, format!("{} (peer)", p.label), true, &pareto));
    }
    out
}

fn point<'a>(
    r: &Report,
    e: &'a Entry,
    legend: String,
    peer: bool,
    pareto: &HashSet<&str>,
) -> Point<'a> {
    let pick = r.verdict.pick.as_deref() == Some(e.name.as_str());
    let reference = !peer && r.run.reference == e.name;
    let role = match (pick, reference) {
        (true, true) => Some("pick, reference"),
        (true, false) => Some("pick"),
        (false, true) => Some("reference"),
        (false, false) => None,
    };
    Point {
        role,
        legend,
        entry: e,
        size: e
            .artifact
            .as_ref()
            .map_or(1.0, |a| a.footprint_bytes as f64),
        peer,
        pareto: pareto.contains(e.name.as_str()),
    }
}

/// The SVG, or `None` when nothing was measured.
pub fn render(r: &Report) -> Option<String> {
    let heads = r.headlines();
    let points = points(r);
    if heads.is_empty() || points.is_empty() {
        return None;
    }
    // The numbers, two columns; the key, two lines (three under a flag
    // grid) and one to spare; the flag sets.
    let sets = r.flag_sets.len().div_ceil(SETS_PER_LINE) as u32;
    let legend_lines =
        legend_rows(&legend_columns(&points)) as u32 + 3 + u32::from(sets > 0) + sets;
    // A crate's report (`compare --crate`) has its attributes' panel too.
    let worth = if r.annotations.is_some() {
        crate::render::worth_chart::HEIGHT
    } else {
        0
    };
    let height = PANELS + worth + 40 + legend_lines * LEGEND_LINE;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let caption = format!(
            "{}: footprint (.text + .rodata + .data) against MB/s",
            r.cipher
        );
        let body = root
            .titled(&plotters_text(&caption), ("sans-serif", 18))
            .ok()?;
        let (upper, lower) = body.split_vertically(PANELS);
        let panels = upper.split_evenly((1, heads.len()));
        for (area, head) in panels.iter().zip(&heads) {
            panel(area, r, head, &points)?;
        }
        let (attributes, lower) = lower.split_vertically(worth);
        if worth > 0 {
            crate::render::worth_chart::panel(&attributes, r)?;
        }
        legend(r, &lower, &points)?;
        root.present().ok()?;
    }
    // A title and a label for readers that do not see the picture.
    let title = format!(
        "<title>{}</title>\n",
        xml_text(&format!("{}: footprint against throughput", r.cipher))
    );
    let label = format!(
        "<svg aria-label=\"{}\" ",
        xml_attr(
            &points
                .iter()
                .map(|p| p.legend.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        )
    );
    let svg = svg.replacen("<svg ", &label, 1);
    let svg = match svg.find('>') {
        Some(end) => format!("{}\n{title}{}", &svg[..=end], &svg[end + 1..]),
        None => svg,
    };
    let mut out = format!(
        "<!-- {} -->\n",
        xml_comment(&format!(
            "Generated by `{}`; do not edit: run it again.",
            r.generated_by
        ))
    );
    out.push_str(&svg);
    out.push('\n');
    Some(out)
}

/// The points of one block size with their error bars.
// Long (140 lines): one panel drawn in the order plotters layers it
// (figures and bounds, mesh, Pareto step line, error bars, points, labels),
// all on the one chart borrowed from `area`.
fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    r: &Report,
    head: &Headline,
    points: &[Point],
) -> Option<()> {
    let hz = r.hz();
    let mb = |ops: f64| ops * head.block as f64 / 1e6;
    // (x, median, low, high) in MB/s.
    let figures: Vec<Option<(f64, f64, f64, f64)>> = points
        .iter()
        .map(|p| {
            let s = head.speed(p.entry)?;
            let (lo, hi) = s.ops_interval(hz).unwrap_or((s.ops_per_sec, s.ops_per_sec));
            Some((p.size, mb(s.ops_per_sec), mb(lo), mb(hi)))
        })
        .collect();
    // Plotters loops without end on an axis with a bound that is not a
    // finite positive number, so a figure that is not one (a report whose
    // samples say 0 ticks, say) is not drawn, and neither is a panel whose
    // range spans more than twelve decades.
    let figures: Vec<Option<(f64, f64, f64, f64)>> = figures
        .into_iter()
        .map(|f| {
            f.filter(|&(x, y, lo, hi)| {
                [x, y, lo, hi].iter().all(|v| v.is_finite() && *v >= 0.0) && x > 0.0
            })
        })
        .collect();
    let shown: Vec<&(f64, f64, f64, f64)> = figures.iter().flatten().collect();
    let (xmin, xmax, ymax) = shown.iter().fold((f64::INFINITY, 0f64, 0f64), |a, f| {
        (a.0.min(f.0), a.1.max(f.0), a.2.max(f.3))
    });
    if shown.is_empty() || xmax / xmin > 1e12 || ymax > 1e15 {
        return Some(());
    }
    let widest = (shown.iter())
        .filter(|f| f.1 > 0.0)
        .map(|&&(_, y, lo, hi)| (y - lo).max(hi - y) / y)
        .fold(0f64, f64::max);
    let kind = if r.run.processes >= 6 {
        "95% intervals".to_string()
    } else {
        format!("ranges of {} processes", r.run.processes)
    };
    let caption = format!(
        "{}; {kind} at most ±{:.1}%",
        head.describe(),
        widest * 100.0
    );
    let mut chart = ChartBuilder::on(area)
        .caption(plotters_text(&caption), ("sans-serif", 14))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(
            (xmin / 1.4..xmax * 1.4).log_scale(),
            0f64..(ymax * 1.15).max(1e-9),
        )
        .ok()?;
    chart
        .configure_mesh()
        .x_desc("footprint bytes (log scale)")
        .y_desc("MB/s (median of processes, interval)")
        .x_label_formatter(&|x| log_tick(*x))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .draw()
        .ok()?;
    // The Pareto front as a step line, smallest first: from each point
    // across to the next one's footprint, then up (or down) to it.
    let mut front: Vec<(f64, f64)> = (points.iter().zip(&figures))
        .filter(|(p, _)| p.pareto)
        .filter_map(|(_, f)| f.map(|(x, y, _, _)| (x, y)))
        .collect();
    front.sort_by(|a, b| a.0.total_cmp(&b.0));
    let steps: Vec<(f64, f64)> = (front.iter().enumerate())
        .flat_map(|(i, &(x, y))| {
            let before = i.checked_sub(1).map(|j| (x, front[j].1));
            before.into_iter().chain([(x, y)])
        })
        .collect();
    let gray = RGBColor(120, 120, 120);
    chart
        .draw_series(std::iter::once(PathElement::new(
            steps,
            gray.stroke_width(1),
        )))
        .ok()?;
    let pixels: Vec<Option<(i32, i32)>> = (figures.iter())
        .map(|f| f.map(|(x, y, _, _)| chart.backend_coord(&(x, y))))
        .collect();
    let ringed = points
        .iter()
        .position(|p| p.role.is_some_and(|r| r.starts_with("pick")));
    let marks = labels::marks(&pixels, ringed);
    let role_names: Vec<Option<&str>> = points.iter().map(|p| p.role).collect();
    // Near the bottom of the panel, where a label under a point would run
    // into the axis's tick labels.
    let low: Vec<bool> = (figures.iter())
        .map(|f| f.is_some_and(|(_, y, _, _)| y < 0.08 * ymax))
        .collect();
    let role_at = labels::role_offsets(&role_names, &low, &pixels, &marks);
    let roles: Vec<labels::Rect> = (role_names.iter().zip(&pixels).zip(&role_at))
        .filter_map(|((r, px), o)| Some(labels::text_rect((*px)?, (*o)?, (*r)?.len())))
        .collect();
    let first: Vec<bool> = (points.iter())
        .map(|p| p.pareto || p.peer || p.role.is_some())
        .collect();
    let offsets = labels::label_offsets(&pixels, &marks, &roles, ringed, &first);
    for (i, (p, f)) in points.iter().zip(&figures).enumerate() {
        let Some((x, y, lo, hi)) = *f else { continue };
        let color = colour(r, p);
        let style = if p.pareto {
            color.filled()
        } else {
            color.stroke_width(2)
        };
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, lo), (x, hi)],
                color.stroke_width(1),
            )))
            .ok()?;
        chart
            .draw_series(
                [lo, hi].map(|v| {
                    EmptyElement::at((x, v)) + PathElement::new(vec![(-4, 0), (4, 0)], color)
                }),
            )
            .ok()?;
        if p.peer {
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((x, y)) + TriangleMarker::new((0, 0), 7, style),
                ))
                .ok()?;
        } else {
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((x, y)) + Circle::new((0, 0), 5, style),
                ))
                .ok()?;
        }
        // No room left for its number (a flag grid's crowd): the point
        // alone, in its colour.
        if let Some(o) = offsets[i] {
            let label = Text::new((i + 1).to_string(), o, ("sans-serif", 13));
            chart
                .draw_series(std::iter::once(EmptyElement::at((x, y)) + label))
                .ok()?;
        }
        if let Some(role) = p.role {
            let green = RGBColor(0, 130, 60);
            let font = ("sans-serif", 13).into_font().color(&green);
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((x, y))
                        + Text::new(role, role_at[i].unwrap_or((-12, 14)), font),
                ))
                .ok()?;
            if role.starts_with("pick") {
                chart
                    .draw_series(std::iter::once(Circle::new(
                        (x, y),
                        10,
                        green.stroke_width(2),
                    )))
                    .ok()?;
            }
        }
    }
    Some(())
}

/// Each flag set's colour under a flag grid, in the grid's order (the
/// Tableau 10 palette, then two more; a grid has at most
/// [`crate::env::flags::MAX_SETS`] sets, and colours repeat past these).
const SET_COLOURS: [RGBColor; 12] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 128),
    RGBColor(128, 0, 0),
];

/// The colour of flag set `name` in `r`'s grid.
fn set_colour(r: &Report, name: Option<&str>) -> Option<RGBColor> {
    let i = (r.flag_sets.iter()).position(|s| Some(s.name().as_str()) == name)?;
    Some(SET_COLOURS[i % SET_COLOURS.len()])
}

/// A point's colour: its flag set's under a flag grid; else blue for a
/// variant, red for a peer.
fn colour(r: &Report, p: &Point) -> RGBColor {
    match set_colour(r, p.entry.flags.as_deref()) {
        Some(c) => c,
        None if p.peer => RED,
        None => BLUE,
    }
}

/// The characters a legend line holds in its half of the width (13-pixel
/// sans-serif, with room to spare).
const LEGEND_CHARS: usize = 72;

/// A legend line: whether it continues an entry (drawn indented), and its
/// text.
type LegendLine = (bool, String);

/// The legend's two columns of lines: each point's number and what it
/// stands for, the first half of the points on the left, an entry longer
/// than a column wrapped at its spaces onto indented lines.
fn legend_columns(points: &[Point]) -> [Vec<LegendLine>; 2] {
    let half = points.len().div_ceil(2);
    let mut columns = [Vec::new(), Vec::new()];
    for (i, p) in points.iter().enumerate() {
        let lines = &mut columns[usize::from(i >= half)];
        let mut line = format!("{}:", i + 1);
        let mut continued = false;
        for word in p.legend.split(' ') {
            if line.chars().count() + 1 + word.chars().count() > LEGEND_CHARS && !line.is_empty() {
                lines.push((continued, std::mem::take(&mut line)));
                continued = true;
            } else {
                line.push(' ');
            }
            line.push_str(word);
        }
        lines.push((continued, line));
    }
    columns
}

/// The lines the legend's columns take: the longer one's.
fn legend_rows(columns: &[Vec<LegendLine>; 2]) -> usize {
    columns[0].len().max(columns[1].len())
}

/// The legend: each point's number and what it stands for, two columns;
/// under a flag grid, each flag set's name in its colour.
fn legend(r: &Report, area: &DrawingArea<SVGBackend<'_>, Shift>, points: &[Point]) -> Option<()> {
    let style = ("sans-serif", 13).into_font();
    let columns = legend_columns(points);
    let rows = legend_rows(&columns);
    for (col, lines) in columns.iter().enumerate() {
        for (row, (continued, text)) in lines.iter().enumerate() {
            area.draw(&Text::new(
                plotters_text(text),
                (
                    24 + col as i32 * (WIDTH as i32 / 2) + if *continued { 16 } else { 0 },
                    (row as u32 * LEGEND_LINE) as i32 + 4,
                ),
                style.clone(),
            ))
            .ok()?;
        }
    }
    let shapes = if r.flag_sets.is_empty() {
        "Blue circles: variants (one per group of identical hot-path code); red triangles: peers; green ring: the verdict's pick."
    } else {
        "Circles: variants (one per group of identical hot-path code); triangles: peers; a colour per flag set, below; green ring: the verdict's pick."
    };
    let mut key = vec![
        shapes,
        "Filled: Pareto-optimal in the verdict (over every crypt case), joined by the gray step line; hollow: dominated.",
    ];
    if !r.flag_sets.is_empty() {
        key.push("Where points crowd, a number with no room beside its point is left out (the front's, the pick's and the peers' go first).");
    }
    let sets_from = rows + key.len();
    for (i, line) in key.into_iter().enumerate() {
        area.draw(&Text::new(
            line,
            (24, ((rows + i) as u32 * LEGEND_LINE) as i32 + 10),
            style.clone(),
        ))
        .ok()?;
    }
    // The flag sets, four to a line, each in its colour.
    for (i, set) in r.flag_sets.iter().enumerate() {
        let (line, col) = (i / SETS_PER_LINE, i % SETS_PER_LINE);
        let name = set.name();
        let colour = set_colour(r, Some(&name)).unwrap_or(BLUE);
        area.draw(&Text::new(
            plotters_text(&format!("■ {name}")),
            (
                24 + (col as u32 * (WIDTH - 48) / SETS_PER_LINE as u32) as i32,
                ((sets_from + line) as u32 * LEGEND_LINE) as i32 + 10,
            ),
            style.clone().color(&colour),
        ))
        .ok()?;
    }
    Some(())
}

/// A log axis's tick label: the ticks at 1, 2 and 5 times a power of ten
/// are named, the others left blank. Across two decades a label at every
/// tick (40000, 50000, ... 100000) runs into its neighbours.
fn log_tick(x: f64) -> String {
    let lead = x / 10f64.powf(x.log10().floor());
    if [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (lead - m).abs() < 1e-6)
    {
        format!("{x:.0}")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::{LEGEND_CHARS, legend_columns, legend_rows, log_tick, points};

    /// A committed report's legend (the library peers' long names among
    /// them): every line fits its column, each entry is all there in order,
    /// and the rows are the longer column's.
    #[test]
    fn legend_lines_fit_their_column() {
        let path = crate::env::workspace::root().join("reports/aes.json");
        let bytes = std::fs::read(&path).expect("the committed aes report");
        let r = crate::report::reader::parse_report(&bytes, "aes").expect("it parses");
        let points = points(&r);
        let columns = legend_columns(&points);
        let mut entries = Vec::new();
        for (continued, line) in columns.iter().flatten() {
            assert!(line.chars().count() <= LEGEND_CHARS, "{line}");
            if *continued {
                let last: &mut String = entries.last_mut().expect("a first line");
                last.push(' ');
                last.push_str(line);
            } else {
                entries.push(line.clone());
            }
        }
        let want: Vec<String> = (points.iter().enumerate())
            .map(|(i, p)| format!("{}: {}", i + 1, p.legend))
            .collect();
        assert_eq!(entries, want);
        assert!(
            columns.iter().flatten().any(|(c, _)| *c),
            "a long name wrapped"
        );
        assert_eq!(
            legend_rows(&columns),
            columns[0].len().max(columns[1].len())
        );
    }

    /// Across two decades only 1, 2 and 5 times a power of ten are named.
    #[test]
    fn log_ticks_name_one_two_five() {
        let named: Vec<String> = [
            10_000.0, 20_000.0, 30_000.0, 40_000.0, 50_000.0, 70_000.0, 100_000.0, 200_000.0,
        ]
        .into_iter()
        .map(log_tick)
        .collect();
        assert_eq!(
            named,
            ["10000", "20000", "", "", "50000", "", "100000", "200000"]
        );
    }
}
