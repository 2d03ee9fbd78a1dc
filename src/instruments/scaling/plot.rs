//! SVG charts of a study.
//!
//! [`plot_svg`] is the scaling study's figure (`scale --plot`), two panels side by side over
//! one legend:
//!
//! - left, `seconds_panel`: median seconds against N on log-log axes, one coloured line per
//!   back-end, a grey dashed N^1.5 guide through the first back-end's first point with
//!   N >= [`FIT_MIN_N`], and each back-end's roofline bound dashed in its colour;
//! - right, `ns_panel`: nanoseconds per option step (seconds / S(N), the cost unit) against
//!   N, log x and linear y from 0, the same lines and bounds, and the guide flat through the
//!   same point: a back-end that scales as S(N) ~ N^1.5 draws a flat line here;
//! - below, `legend`: one row per back-end, its fitted slope with the 95% confidence
//!   interval ([`Fit::slope_interval`]) and its bound's binding resource.
//!
//! Bounds that coincide (two back-ends with one cost model) are not merged: each is dashed in
//! its own colour, the dashes of touching bounds interleaved (`dash_slots`), so every
//! colour shows along the shared line.
//!
//! [`plot_loglog`] draws any named series of (x, y) points on one log-log panel, for the
//! growth study: measured series as coloured lines with markers, references grey and dashed.
//! Text is written as SVG `<text>`, so no system font is needed to write a chart.

use super::fit::{fit_points, fit_rows, Fit, FIT_MIN_N};
use super::row::Row;
use crate::base::error::{Error, Result};
use crate::base::paths::{write_output, Output};
use plotters::coord::{combinators::LogCoord, Shift};
use plotters::prelude::*;
use std::path::Path;

/// How a series of a [`Chart`] is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Measured points: a coloured line with a marker on every point.
    Measured,
    /// A model or fitted line: grey, dashed, no markers, drawn only inside the plot.
    Reference,
}

/// One named series of (x, y) points, all positive (log axes).
#[derive(Debug, Clone)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub style: Style,
}

/// A log-log chart: caption, axis labels, series.
#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
}

/// A panel's chart context on the SVG back-end, over any two f64 axes.
type Panel<'a, X, Y> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>;
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// The plotted ranges: (x0, x1, y0, y1).
type Bounds = (f64, f64, f64, f64);
type DrawResult<'a> = std::result::Result<(), Box<dyn std::error::Error + 'a>>;

/// The measured-series colours, in order (matplotlib's default cycle, so plots look familiar).
const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// The colour of reference lines.
const GRAY: RGBColor = RGBColor(90, 90, 90);

/// The width of each of the study figure's two panels, in pixels.
pub const PANEL_WIDTH: u32 = 720;
/// The height of the study figure's panels, in pixels.
pub const PANEL_HEIGHT: u32 = 520;
/// The figure's title band, above the panels.
pub const TITLE_HEIGHT: u32 = 40;
/// One legend row.
const LEGEND_ROW: u32 = 24;
/// Dashes: the length of one dash and of the gap after a group of interleaved dashes.
const DASH: f64 = 7.0;
const GAP: f64 = 5.0;
/// Two bounds closer than this factor at some common N share their dashes (`dash_slots`).
const TOUCHING: f64 = 1.03;
/// The font of captions, axis descriptions and legend text, and of tick labels.
const FONT: (&str, u32) = ("sans-serif", 15);
const LABEL_FONT: (&str, u32) = ("sans-serif", 13);

/// The pixel size (width, height) of the study figure of `backends` back-ends: two panels
/// side by side under the title, and the legend below them (a row per back-end, a row for
/// the guide and one for the note on the slopes).
pub fn study_size(backends: usize) -> (u32, u32) {
    let legend = LEGEND_ROW * (backends as u32 + 2) + 16;
    (2 * PANEL_WIDTH, TITLE_HEIGHT + PANEL_HEIGHT + legend)
}

/// What the study figure shows of one back-end.
#[derive(Debug, Clone)]
struct Line {
    name: String,
    color: RGBColor,
    /// (N, median seconds) and (N, ns per option step), where seconds > 0.
    seconds: Vec<(f64, f64)>,
    ns: Vec<(f64, f64)>,
    /// The roofline bound in seconds and in ns per step, where the rows have one (rows whose
    /// primitives were not measured hold NaN and are left out).
    bound_seconds: Vec<(f64, f64)>,
    bound_ns: Vec<(f64, f64)>,
    /// The bound's binding resources, each once, in the order of N.
    resources: Vec<String>,
    /// The fit over N >= [`FIT_MIN_N`] and how many points it had (or would have had).
    fit: Option<Fit>,
    fit_points: usize,
}

/// The lines of each back-end in `backends` that has a positive time, coloured in order.
fn lines(rows: &[Row], backends: &[String]) -> Vec<Line> {
    let mut out: Vec<Line> = Vec::new();
    for b in backends {
        let mut own: Vec<&Row> = rows
            .iter()
            .filter(|r| &r.backend == b && r.seconds_median > 0.0)
            .collect();
        if own.is_empty() {
            continue;
        }
        own.sort_by_key(|r| r.n);
        let bounded: Vec<&Row> = own
            .iter()
            .copied()
            .filter(|r| r.bound_ns_per_step > 0.0)
            .collect();
        let mut resources: Vec<String> = Vec::new();
        for r in &bounded {
            if !r.bound_resource.is_empty() && !resources.contains(&r.bound_resource) {
                resources.push(r.bound_resource.clone());
            }
        }
        let n = |r: &Row| r.n as f64;
        out.push(Line {
            name: b.clone(),
            color: PALETTE[out.len() % PALETTE.len()],
            seconds: own.iter().map(|r| (n(r), r.seconds_median)).collect(),
            ns: own.iter().map(|r| (n(r), r.ns_per_step)).collect(),
            bound_seconds: bounded
                .iter()
                .map(|r| (n(r), r.bound_ns_per_step * 1e-9 * r.option_steps as f64))
                .collect(),
            bound_ns: bounded
                .iter()
                .map(|r| (n(r), r.bound_ns_per_step))
                .collect(),
            resources,
            fit: fit_rows(rows, b),
            fit_points: fit_points(rows, b),
        });
    }
    out
}

/// Where the N^1.5 guide passes: the first line's first point with N >= [`FIT_MIN_N`] (or
/// its first point), as (N, seconds, ns per step).
fn guide_anchor(first: &Line) -> (f64, f64, f64) {
    let i = first
        .seconds
        .iter()
        .position(|p| p.0 >= FIT_MIN_N as f64)
        .unwrap_or(0);
    (first.seconds[i].0, first.seconds[i].1, first.ns[i].1)
}

/// Draws the scaling study's figure (see the module documentation) into an SVG file at
/// `path`, of [`study_size`] for the back-ends that have rows. Refused when no back-end in
/// `backends` has a positive time.
pub fn plot_svg(path: &Path, rows: &[Row], backends: &[String]) -> Result<()> {
    plot_svg_to(&Output::File(path.to_path_buf()), "--plot", rows, backends)
}

/// [`plot_svg`] onto an output decided before any work ([`decide_output`]): a regular file is
/// replaced atomically, a FIFO or a device is written in place, `-` is stdout; a failed write
/// names `flag`. The figure is drawn in memory first, so nothing is opened when it cannot be
/// drawn.
///
/// [`decide_output`]: crate::base::paths::decide_output
pub fn plot_svg_to(out: &Output, flag: &str, rows: &[Row], backends: &[String]) -> Result<()> {
    let err = |e: String| Error::Invalid(format!("cannot draw {}: {e}", shown(out)));
    let lines = lines(rows, backends);
    if lines.is_empty() {
        return Err(err("no measured points".into()));
    }
    let bound_ns: Vec<&[(f64, f64)]> = lines.iter().map(|l| l.bound_ns.as_slice()).collect();
    let slots = dash_slots(&bound_ns);
    let anchor = guide_anchor(&lines[0]);
    let title = match rows.first() {
        Some(r) => format!(
            "Nim Square table back-ends: moves {}, {} thread(s), {} path, {}",
            r.provenance.moves, r.provenance.threads, r.isa, r.provenance.cpu
        ),
        None => "Nim Square table back-ends".into(),
    };
    let mut svg = String::new();
    {
        draw_into(&mut svg, study_size(lines.len()), |root| {
            root.fill(&WHITE)?;
            let (top, bottom) = root.split_vertically(TITLE_HEIGHT + PANEL_HEIGHT);
            let panels = top.titled(&title, ("sans-serif", 20))?;
            let (left, right) = panels.split_horizontally(PANEL_WIDTH);
            seconds_panel(&left, &lines, &slots, anchor)?;
            ns_panel(&right, &lines, &slots, anchor)?;
            legend(&bottom, &lines)?;
            root.present()?;
            Ok(())
        })
        .map_err(err)?;
    }
    write_output(out, flag, |w| w.write_all(svg.as_bytes()))
}

/// Draws `body` on an SVG canvas of `size` held in `svg` (in memory, so that the figure is
/// written only once it is whole, to whatever output it goes); a drawing error as text.
fn draw_into<'a>(
    svg: &'a mut String,
    size: (u32, u32),
    body: impl FnOnce(Area<'a>) -> DrawResult<'a>,
) -> std::result::Result<(), String> {
    body(SVGBackend::with_string(svg, size).into_drawing_area()).map_err(|e| e.to_string())
}

/// The output's name in a message: its path, or `-` for stdout.
fn shown(out: &Output) -> String {
    match out {
        Output::Stdout => "-".into(),
        Output::Stream(p) | Output::File(p) => p.display().to_string(),
    }
}

/// The left panel: median seconds against N, log-log, with the N^1.5 guide and the bounds.
/// The axes hold every measured point and every bound, not the guide (it is clipped).
fn seconds_panel<'a>(
    area: &Area<'a>,
    lines: &[Line],
    slots: &[(usize, usize)],
    (an, asec, _): (f64, f64, f64),
) -> DrawResult<'a> {
    let shown = lines
        .iter()
        .flat_map(|l| l.seconds.iter().chain(&l.bound_seconds));
    let (x0, x1, y0, y1) = widened(range(shown), 1.5, 3.0);
    let mut ctx = ChartBuilder::on(area)
        .caption("seconds against N (log-log)", FONT)
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
    ctx.configure_mesh()
        .x_desc("N (largest heap)")
        .y_desc("seconds (median of repeats)")
        .axis_desc_style(FONT)
        .label_style(LABEL_FONT)
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| seconds_label(*y))
        .draw()?;
    let guide: Vec<(f64, f64)> = (0..=60)
        .map(|i| {
            let x = x0 * (x1 / x0).powf(i as f64 / 60.0);
            (x, asec * (x / an).powf(1.5))
        })
        .collect();
    draw_dashed(&ctx, &guide, GRAY, (0, 1))?;
    for (l, &slot) in lines.iter().zip(slots) {
        draw_dashed(&ctx, &l.bound_seconds, l.color, slot)?;
    }
    for l in lines {
        draw_measured(&mut ctx, &l.seconds, l.color)?;
    }
    Ok(())
}

/// The right panel: ns per option step against N, log x, linear y from 0, with the guide
/// flat through the same point as on the left, and the bounds.
fn ns_panel<'a>(
    area: &Area<'a>,
    lines: &[Line],
    slots: &[(usize, usize)],
    (_, _, ans): (f64, f64, f64),
) -> DrawResult<'a> {
    let shown = lines.iter().flat_map(|l| l.ns.iter().chain(&l.bound_ns));
    let (x0, x1, _, y1) = widened(range(shown), 1.5, 1.0);
    let mut ctx = ChartBuilder::on(area)
        .caption("ns per option step against N (flat = O(N^1.5))", FONT)
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d((x0..x1).log_scale(), 0.0..y1 * 1.12)?;
    ctx.configure_mesh()
        .x_desc("N (largest heap)")
        .y_desc("ns per option step (seconds / S(N))")
        .axis_desc_style(FONT)
        .label_style(LABEL_FONT)
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y:.2}"))
        .draw()?;
    draw_dashed(&ctx, &[(x0, ans), (x1, ans)], GRAY, (0, 1))?;
    for (l, &slot) in lines.iter().zip(slots) {
        draw_dashed(&ctx, &l.bound_ns, l.color, slot)?;
    }
    for l in lines {
        draw_measured(&mut ctx, &l.ns, l.color)?;
    }
    Ok(())
}

/// The legend band: per back-end its line and fitted slope on the left, its dashed bound and
/// binding resource under the right panel; then the guide and a note on the interval.
fn legend<'a>(area: &Area<'a>, lines: &[Line]) -> DrawResult<'a> {
    let text = |s: &str, x: i32, y: i32| -> DrawResult<'a> {
        area.draw(&Text::new(s.to_string(), (x, y), FONT.into_font()))?;
        Ok(())
    };
    let row_y = |i: usize| 8 + (i as u32 * LEGEND_ROW) as i32;
    let (left_x, right_x) = (24, PANEL_WIDTH as i32 + 24);
    for (i, l) in lines.iter().enumerate() {
        let (y, mid) = (row_y(i), row_y(i) + 8);
        area.draw(&PathElement::new(
            vec![(left_x, mid), (left_x + 30, mid)],
            l.color.stroke_width(2),
        ))?;
        area.draw(&Circle::new((left_x + 15, mid), 3, l.color.filled()))?;
        text(&slope_label(l), left_x + 40, y)?;
        if !l.bound_ns.is_empty() {
            // The plain dash pattern: in the legend no other bound shares the line.
            let sample = [(right_x, mid), (right_x + 30, mid)];
            for dash in dashes(&sample, (0, 1)) {
                area.draw(&PathElement::new(dash, l.color.stroke_width(2)))?;
            }
            let label = format!(
                "{} roofline bound (binding: {})",
                l.name,
                l.resources.join(", ")
            );
            text(&label, right_x + 40, y)?;
        }
    }
    let (y, mid) = (row_y(lines.len()), row_y(lines.len()) + 8);
    for dash in dashes(&[(left_x, mid), (left_x + 30, mid)], (0, 1)) {
        area.draw(&PathElement::new(dash, GRAY.stroke_width(2)))?;
    }
    let guide = format!(
        "N^1.5 guide through {} at its first N >= {FIT_MIN_N} (flat on the right)",
        lines[0].name
    );
    text(&guide, left_x + 40, y)?;
    let note = format!(
        "slope: least-squares exponent of seconds over N >= {FIT_MIN_N}; 95% CI = slope \
         ± t(points − 2) × its standard error; dashed: roofline bound in the back-end's colour"
    );
    text(&note, left_x, row_y(lines.len() + 1))
}

/// A back-end's legend text: `name: slope 1.52 (95% CI 1.49–1.56)`, or why there is no
/// slope or no interval.
fn slope_label(l: &Line) -> String {
    match (l.fit, l.fit.and_then(|f| f.slope_interval())) {
        (Some(f), Some((lo, hi))) => {
            format!("{}: slope {:.2} (95% CI {lo:.2}–{hi:.2})", l.name, f.slope)
        }
        (Some(f), None) => format!(
            "{}: slope {:.2} (no interval from {} points)",
            l.name, f.slope, f.points
        ),
        (None, _) => format!(
            "{}: no slope ({} point(s) with N >= {FIT_MIN_N}, 2 needed)",
            l.name, l.fit_points
        ),
    }
}

/// How each bound is dashed, as (slot, of): bounds that touch (within `TOUCHING` of each
/// other at some common N, directly or through a chain of others) form a group of `of`, and
/// their dashes follow each other in turn, this bound's in place `slot`. A bound touching
/// no other is (0, 1). So two coinciding bounds show as one line of alternating colours,
/// neither hidden under the other. An empty bound is (0, 1). Cost O(B^2 · points).
fn dash_slots(bounds: &[&[(f64, f64)]]) -> Vec<(usize, usize)> {
    let touch = |a: &[(f64, f64)], b: &[(f64, f64)]| {
        a.iter().any(|p| {
            b.iter()
                .any(|q| p.0 == q.0 && p.1.max(q.1) <= TOUCHING * p.1.min(q.1))
        })
    };
    // Connected components by repeated relabelling (a handful of back-ends).
    let mut group: Vec<usize> = (0..bounds.len()).collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..bounds.len() {
            for j in 0..bounds.len() {
                if group[j] < group[i] && touch(bounds[i], bounds[j]) {
                    group[i] = group[j];
                    changed = true;
                }
            }
        }
    }
    (0..bounds.len())
        .map(|i| {
            let slot = (0..i).filter(|&j| group[j] == group[i]).count();
            let of = group.iter().filter(|&&g| g == group[i]).count();
            (slot, of)
        })
        .collect()
}

/// The dashes of the pixel polyline `pixels` for dash slot (slot, of): a period of `of`
/// dashes of `DASH` pixels and a `GAP`, this one drawing the `slot`-th dash of each
/// period. Each dash is a short polyline (it may turn a corner).
fn dashes(pixels: &[(i32, i32)], (slot, of): (usize, usize)) -> Vec<Vec<(i32, i32)>> {
    let period = of as f64 * DASH + GAP;
    let (start, end) = (slot as f64 * DASH, (slot + 1) as f64 * DASH);
    let on = |s: f64| {
        let p = s.rem_euclid(period);
        p >= start && p < end
    };
    let mut out: Vec<Vec<(i32, i32)>> = Vec::new();
    let mut current: Vec<(i32, i32)> = Vec::new();
    let mut s = 0.0;
    for w in pixels.windows(2) {
        let ((ax, ay), (bx, by)) = (
            (w[0].0 as f64, w[0].1 as f64),
            (w[1].0 as f64, w[1].1 as f64),
        );
        let len = (bx - ax).hypot(by - ay);
        // Walk the segment a pixel at a time: dashes start and stop on whole pixels.
        let steps = len.ceil().max(1.0) as usize;
        for k in 0..=steps {
            let t = (k as f64 / steps as f64).min(1.0);
            let p = (
                (ax + t * (bx - ax)).round() as i32,
                (ay + t * (by - ay)).round() as i32,
            );
            if on(s + t * len) {
                if current.last() != Some(&p) {
                    current.push(p);
                }
            } else if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
        }
        s += len;
    }
    out.push(current);
    out.retain(|d| d.len() >= 2);
    out.iter_mut().for_each(drop_straight_through);
    out
}

/// Leaves out the points of `path` that lie on a straight run between their neighbours, so
/// a dash is written as its ends and corners.
fn drop_straight_through(path: &mut Vec<(i32, i32)>) {
    let mut kept: Vec<(i32, i32)> = Vec::with_capacity(path.len());
    for &p in path.iter() {
        if let [.., a, b] = kept[..] {
            let (u, v) = ((b.0 - a.0, b.1 - a.1), (p.0 - b.0, p.1 - b.1));
            if u.0 * v.1 == u.1 * v.0 && u.0 * v.0 + u.1 * v.1 >= 0 {
                kept.pop();
            }
        }
        kept.push(p);
    }
    *path = kept;
}

/// `points` dashed in `color` at dash slot `slot` (`dashes`), where they fall inside the
/// panel's plotting area (points outside are left out).
fn draw_dashed<'a, X, Y>(
    ctx: &Panel<'a, X, Y>,
    points: &[(f64, f64)],
    color: RGBColor,
    slot: (usize, usize),
) -> DrawResult<'a>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let (xr, yr) = ctx.plotting_area().get_pixel_range();
    let pixels: Vec<(i32, i32)> = points
        .iter()
        .map(|p| ctx.backend_coord(p))
        .filter(|(x, y)| xr.contains(x) && yr.contains(y))
        .collect();
    let screen = ctx.plotting_area().use_screen_coord();
    for dash in dashes(&pixels, slot) {
        screen.draw(&PathElement::new(dash, color.stroke_width(2)))?;
    }
    Ok(())
}

/// One measured series: its line and a marker on every point.
fn draw_measured<'a, X, Y>(
    ctx: &mut Panel<'a, X, Y>,
    points: &[(f64, f64)],
    color: RGBColor,
) -> DrawResult<'a>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    ctx.draw_series(LineSeries::new(
        points.iter().copied(),
        color.stroke_width(2),
    ))?;
    ctx.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    Ok(())
}

/// A tick of the seconds axis in the unit that makes it 1 to 999: `2 ms`, `100 µs`, `1.5 s`.
fn seconds_label(y: f64) -> String {
    let (value, unit) = [(1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")]
        .iter()
        .find(|(scale, _)| y >= *scale * 0.9995)
        .map_or((y * 1e9, "ns"), |&(scale, unit)| (y / scale, unit));
    // Three significant digits at most, without trailing zeros.
    let digits = if value >= 99.95 {
        0
    } else if value >= 9.995 {
        1
    } else {
        2
    };
    let text = format!("{value:.digits$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text} {unit}")
}

/// The smallest and largest x and y of `points`: (x0, x1, y0, y1).
fn range<'p>(points: impl Iterator<Item = &'p (f64, f64)>) -> Bounds {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    (x0, x1, y0, y1)
}

/// `bounds` widened by the factors `fx` and `fy` on log axes, so markers do not sit on the
/// frame.
fn widened((x0, x1, y0, y1): Bounds, fx: f64, fy: f64) -> Bounds {
    (x0 / fx, x1 * fx, y0 / fy, y1 * fy)
}

/// Draws `chart` on one log-log panel into an SVG file at `path` (900 x 600), with a legend
/// in the upper left. Points that are not positive are left out (log axes); refused when no
/// measured point remains.
pub fn plot_loglog(path: &Path, chart: &Chart) -> Result<()> {
    plot_loglog_to(&Output::File(path.to_path_buf()), "--plot", chart)
}

/// [`plot_loglog`] onto an output decided before any work, as [`plot_svg_to`] does.
pub fn plot_loglog_to(out: &Output, flag: &str, chart: &Chart) -> Result<()> {
    let err = |e: String| Error::Invalid(format!("cannot draw {}: {e}", shown(out)));
    let series: Vec<Series> = chart
        .series
        .iter()
        .map(|s| {
            let mut points: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|&(x, y)| x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite())
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            Series {
                points,
                ..s.clone()
            }
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let measured = || series.iter().filter(|s| s.style == Style::Measured);
    if measured().next().is_none() {
        return Err(err("no measured points".into()));
    }
    let mut svg = String::new();
    {
        draw_into(&mut svg, (900, 600), |root| {
            root.fill(&WHITE)?;
            let (x0, x1, y0, y1) = widened(range(measured().flat_map(|s| &s.points)), 1.5, 3.0);
            let mut ctx = ChartBuilder::on(&root)
                .caption(&chart.title, ("sans-serif", 22))
                .margin(15)
                .x_label_area_size(45)
                .y_label_area_size(70)
                .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
            ctx.configure_mesh()
                .x_desc(&chart.x_label)
                .y_desc(&chart.y_label)
                .x_label_formatter(&|x| format!("{x:.0e}"))
                .y_label_formatter(&|y| format!("{y:.0e}"))
                .draw()?;
            // References first, so the measured points are drawn on top of them.
            for s in series.iter().filter(|s| s.style == Style::Reference) {
                draw_dashed(&ctx, &s.points, GRAY, (0, 1))?;
                legend_entry(&mut ctx, &s.name, GRAY, true)?;
            }
            for (i, s) in measured().enumerate() {
                let color = PALETTE[i % PALETTE.len()];
                draw_measured(&mut ctx, &s.points, color)?;
                legend_entry(&mut ctx, &s.name, color, false)?;
            }
            ctx.configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()?;
            root.present()?;
            Ok(())
        })
        .map_err(err)?;
    }
    write_output(out, flag, |w| w.write_all(svg.as_bytes()))
}

/// A legend entry of plotters' own legend box: a solid or dashed sample in `color`.
fn legend_entry<'a>(
    ctx: &mut Panel<'a, LogCoord<f64>, LogCoord<f64>>,
    name: &str,
    color: RGBColor,
    dashed: bool,
) -> DrawResult<'a> {
    ctx.draw_series(std::iter::empty::<Circle<(f64, f64), u32>>())?
        .label(name)
        .legend(move |(x, y)| {
            // Two pieces either way (one element type): touching, or with a gap (dashed).
            let gap = if dashed { 5 } else { 0 };
            EmptyElement::at((x, y))
                + PathElement::new(vec![(0, 0), (8, 0)], color.stroke_width(2))
                + PathElement::new(vec![(8 + gap, 0), (16 + gap, 0)], color.stroke_width(2))
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::row::tests::row;
    use super::*;

    /// A fresh scratch folder for one test.
    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("nimsquare-plot-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Rows of back-ends `a` (1 ns N^1.5) and `b` (3 ns N^1.5) at three N, with bound
    /// `bound(backend, row)` in ns per step (NaN: none).
    fn two_backends(bound: impl Fn(&str, &Row) -> f64) -> Vec<Row> {
        let mut rows = Vec::new();
        for n in [1_000u64, 10_000, 100_000, 1_000_000] {
            for (b, c) in [("a", 1e-9), ("b", 3e-9)] {
                let r = row(b, n, c * (n as f64).powf(1.5));
                rows.push(Row {
                    bound_ns_per_step: bound(b, &r),
                    ..r
                });
            }
        }
        rows
    }

    #[test]
    fn legend_carries_each_slope_with_its_interval() {
        let dir = scratch("legend");
        let path = dir.join("p.svg");
        let rows = two_backends(|_, _| f64::NAN);
        plot_svg(&path, &rows, &["a".into(), "b".into()]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        // Exact N^1.5 over three points from 10^4: slope 1.5 with a zero-width interval.
        // plotters writes each text on its own line inside <text>.
        for label in [
            "a: slope 1.50 (95% CI 1.50–1.50)",
            "b: slope 1.50 (95% CI 1.50–1.50)",
            "ns per option step against N (flat = O(N^1.5))",
        ] {
            assert!(svg.contains(&format!(">\n{label}\n</text>")), "no {label}");
        }
        // No bound in the rows, so no bound in the legend.
        assert!(
            !svg.contains("roofline bound (binding"),
            "a bound without rows"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn coinciding_bounds_keep_a_label_and_a_colour_each() {
        let dir = scratch("equal");
        let path = dir.join("p.svg");
        // The same bound for both, 1000 times below a's time: under its points.
        let rows = two_backends(|_, r| 1e-3 * (r.n as f64).powf(1.5) / r.option_steps as f64);
        plot_svg(&path, &rows, &["a".into(), "b".into()]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        for label in [
            "a roofline bound (binding: store)",
            "b roofline bound (binding: store)",
        ] {
            assert!(svg.contains(&format!(">\n{label}\n</text>")), "no {label}");
        }
        let l = lines(&rows, &["a".into(), "b".into()]);
        let bounds: Vec<&[(f64, f64)]> = l.iter().map(|l| l.bound_ns.as_slice()).collect();
        assert_eq!(dash_slots(&bounds), vec![(0, 2), (1, 2)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn dash_slots_group_bounds_that_touch_directly_or_through_another() {
        let at = |ys: [f64; 2]| vec![(1.0, ys[0]), (2.0, ys[1])];
        // a and b meet at x = 1 (within 3%), b and c at x = 2; d touches none; e is empty.
        let (a, b, c, d) = (
            at([1.0, 5.0]),
            at([1.02, 2.0]),
            at([9.0, 2.05]),
            at([50.0, 50.0]),
        );
        let slots = dash_slots(&[&a, &b, &c, &d, &[]]);
        assert_eq!(slots, vec![(0, 3), (1, 3), (2, 3), (0, 1), (0, 1)]);
        // 4% apart is apart.
        assert_eq!(
            dash_slots(&[&at([1.0, 1.0]), &at([1.04, 1.04])]),
            vec![(0, 1), (0, 1)]
        );
    }

    #[test]
    fn dashes_of_one_group_take_turns_along_the_line() {
        let line = [(0, 0), (100, 0)];
        let xs = |slot| -> Vec<(i32, i32)> {
            dashes(&line, slot)
                .iter()
                .map(|d| (d[0].0, d.last().unwrap().0))
                .collect()
        };
        // Alone: 7 on, 5 off, from the start.
        assert_eq!(&xs((0, 1))[..3], &[(0, 6), (12, 18), (24, 30)]);
        // Two in a group: period 19, the second dash where the first stops.
        assert_eq!(&xs((0, 2))[..2], &[(0, 6), (19, 25)]);
        assert_eq!(&xs((1, 2))[..2], &[(7, 13), (26, 32)]);
        // A corner is followed: a dash across it has three points.
        let bent = dashes(&[(0, 0), (3, 0), (3, 10)], (0, 1));
        assert_eq!(bent[0].first(), Some(&(0, 0)));
        assert_eq!(bent[0], vec![(0, 0), (3, 0), (3, 3)]);
        assert!(dashes(&[(5, 5)], (0, 1)).is_empty());
    }

    #[test]
    fn seconds_ticks_read_in_their_unit() {
        let cases = [
            (1.0, "1 s"),
            (20.0, "20 s"),
            (0.1, "100 ms"),
            (2e-3, "2 ms"),
            (1e-3, "1 ms"),
            (5e-4, "500 µs"),
            (1.5e-5, "15 µs"),
            (1e-9, "1 ns"),
            (1e-10, "0.1 ns"),
        ];
        for (y, want) in cases {
            assert_eq!(seconds_label(y), want, "{y}");
        }
    }

    #[test]
    fn nothing_to_draw_is_refused() {
        let dir = scratch("empty");
        let path = dir.join("p.svg");
        let e = plot_svg(&path, &[], &["a".into()]).unwrap_err();
        assert!(e.to_string().contains("no measured points"), "{e}");
        assert!(!path.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_chart_has_its_series_and_a_dashed_reference() {
        let dir = scratch("chart");
        let path = dir.join("p.svg");
        let chart = Chart {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![
                Series {
                    name: "m".into(),
                    points: vec![(10.0, 1.0), (100.0, 10.0), (1000.0, 100.0)],
                    style: Style::Measured,
                },
                Series {
                    name: "r".into(),
                    points: (0..=10)
                        .map(|i| (10f64.powf(1.0 + 0.2 * i as f64), 2.0))
                        .collect(),
                    style: Style::Reference,
                },
            ],
        };
        plot_loglog(&path, &chart).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        for label in ["m", "r"] {
            assert!(
                svg.contains(&format!(">\n{label}\n</text>")),
                "no label {label}"
            );
        }
        // The reference in dashes: many short grey paths.
        assert!(svg.matches("stroke=\"#5A5A5A\"").count() > 10);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
