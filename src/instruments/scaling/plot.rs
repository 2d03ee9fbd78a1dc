//! Log-log SVG charts of a study. [`plot_loglog`] draws any named series of (x, y) points
//! with axis labels: measured series as coloured lines with point markers (in the order
//! given), reference series (a model or a fitted line) as grey dashed lines clipped to the
//! measured range. [`plot_svg`] is the scaling study's chart: seconds against N per back-end
//! and a dashed N^1.5 reference through the first back-end's first point with
//! N >= [`FIT_MIN_N`] (or its first point). Text is written as SVG `<text>`, so no system
//! font is needed.

use super::fit::FIT_MIN_N;
use super::row::Row;
use crate::base::error::{Error, Result};
use plotters::coord::{combinators::LogCoord, Shift};
use plotters::prelude::*;
use std::path::Path;

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Measured points: a coloured line with a marker on every point.
    Measured,
    /// A model or fitted line: grey, dashed, no markers, drawn only inside the measured range.
    Reference,
    /// The roofline bound of the measured series named [`Series::name`] without the
    /// [`BOUND_SUFFIX`]: dashed, in that series' colour, drawn only inside the plot.
    Bound,
}

/// The name of a bound series is its back-end's name with this suffix.
pub const BOUND_SUFFIX: &str = " bound";

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

type LogLog<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;
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

/// Draws the scaling study (see the module documentation) into an SVG file at `path`.
pub fn plot_svg(path: &Path, rows: &[Row], backends: &[String]) -> Result<()> {
    let mut series = collect_series(rows, backends);
    let bounds_of: Vec<Series> = series
        .iter()
        .filter_map(|s| bound_series(rows, &s.name))
        .collect();
    if let Some(first) = series.first() {
        let &(ax, ay) = first
            .points
            .iter()
            .find(|p| p.0 >= FIT_MIN_N as f64)
            .unwrap_or(&first.points[0]);
        let (x0, x1, _, _) = bounds(&series);
        let reference = (0..=40)
            .map(|i| {
                let x = x0 * (x1 / x0).powf(i as f64 / 40.0);
                (x, ay * (x / ax).powf(1.5))
            })
            .collect();
        series.push(Series {
            name: "N^1.5 reference".into(),
            points: reference,
            style: Style::Reference,
        });
    }
    series.extend(bounds_of);
    let chart = Chart {
        title: "Nim Square table back-ends: seconds against N, dashed: roofline bound (log-log)"
            .into(),
        x_label: "N (largest heap)".into(),
        y_label: "seconds (median)".into(),
        series,
    };
    plot_loglog(path, &chart)
}

/// Draws `chart` into an SVG file at `path`. Points that are not positive are left out (log
/// axes); refused when no measured point remains.
pub fn plot_loglog(path: &Path, chart: &Chart) -> Result<()> {
    let err = |e: String| Error::Invalid(format!("cannot draw {}: {e}", path.display()));
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
    let measured: Vec<Series> = series
        .iter()
        .filter(|s| s.style == Style::Measured)
        .cloned()
        .collect();
    if measured.is_empty() {
        return Err(err("no measured points".into()));
    }
    // The bounds are part of what the chart shows, so the axes hold them too (a reference
    // line is only drawn inside the measured range and does not widen it).
    let bound_series = merge_equal_bounds(series.iter().filter(|s| s.style == Style::Bound));
    let shown: Vec<Series> = measured.iter().chain(&bound_series).cloned().collect();
    let bounds = bounds(&shown);
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut ctx = axes(&root, chart, bounds).map_err(|e| err(e.to_string()))?;
    // References and bounds first, so the measured points are drawn on top of them.
    for s in series.iter().filter(|s| s.style == Style::Reference) {
        draw_reference(&mut ctx, s, bounds, GRAY).map_err(|e| err(e.to_string()))?;
    }
    for s in &bound_series {
        let of = s.name.split(", ").next().unwrap_or(&s.name);
        let of = of.strip_suffix(BOUND_SUFFIX).unwrap_or(of);
        let color = measured
            .iter()
            .position(|m| m.name == of)
            .map_or(GRAY, |i| PALETTE[i % PALETTE.len()]);
        draw_reference(&mut ctx, s, bounds, color).map_err(|e| err(e.to_string()))?;
    }
    for (i, s) in measured.iter().enumerate() {
        draw_measured(&mut ctx, s, PALETTE[i % PALETTE.len()]).map_err(|e| err(e.to_string()))?;
    }
    ctx.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}

/// Bound series with the same points (two back-ends with one cost model, such as `stamped`
/// and `stamped-lanes` at small N) drawn once, labelled for all of them
/// (`stamped, stamped-lanes bound`), so none hides under another.
fn merge_equal_bounds<'a>(bounds: impl Iterator<Item = &'a Series>) -> Vec<Series> {
    let same = |a: &[(f64, f64)], b: &[(f64, f64)]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(p, q)| p.0 == q.0 && (p.1 - q.1).abs() <= 1e-9 * p.1.abs())
    };
    let mut out: Vec<(Vec<String>, Series)> = Vec::new();
    for s in bounds {
        let name = s
            .name
            .strip_suffix(BOUND_SUFFIX)
            .unwrap_or(&s.name)
            .to_string();
        match out.iter_mut().find(|(_, o)| same(&o.points, &s.points)) {
            Some((names, _)) => names.push(name),
            None => out.push((vec![name], s.clone())),
        }
    }
    out.into_iter()
        .map(|(names, s)| Series {
            name: format!("{}{BOUND_SUFFIX}", names.join(", ")),
            ..s
        })
        .collect()
}

/// The points of each back-end in `backends` that has any (seconds > 0, as log axes need).
fn collect_series(rows: &[Row], backends: &[String]) -> Vec<Series> {
    backends
        .iter()
        .map(|b| Series {
            name: b.clone(),
            points: rows
                .iter()
                .filter(|r| &r.backend == b && r.seconds_median > 0.0)
                .map(|r| (r.n as f64, r.seconds_median))
                .collect(),
            style: Style::Measured,
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// The roofline bound of `backend` in seconds (bound ns per step times the steps), where
/// the rows have one (rows whose primitives were not measured hold NaN and are left out).
fn bound_series(rows: &[Row], backend: &str) -> Option<Series> {
    let points: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.backend == backend && r.bound_ns_per_step > 0.0)
        .map(|r| {
            (
                r.n as f64,
                r.bound_ns_per_step * 1e-9 * r.option_steps as f64,
            )
        })
        .collect();
    (!points.is_empty()).then(|| Series {
        name: format!("{backend}{BOUND_SUFFIX}"),
        points,
        style: Style::Bound,
    })
}

/// The ranges of every point, widened so markers do not sit on the frame.
fn bounds(series: &[Series]) -> Bounds {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in series.iter().flat_map(|s| s.points.iter()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    (x0 / 1.5, x1 * 1.5, y0 / 3.0, y1 * 3.0)
}

/// The caption, the log-log axes and their labels.
fn axes<'a>(
    root: &DrawingArea<SVGBackend<'a>, Shift>,
    chart: &Chart,
    (x0, x1, y0, y1): Bounds,
) -> std::result::Result<LogLog<'a>, Box<dyn std::error::Error + 'a>> {
    let mut ctx = ChartBuilder::on(root)
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
    Ok(ctx)
}

/// One measured series: its line (with a legend entry) and a marker on every point.
fn draw_measured<'a>(ctx: &mut LogLog<'a>, s: &Series, color: RGBColor) -> DrawResult<'a> {
    ctx.draw_series(LineSeries::new(
        s.points.iter().copied(),
        color.stroke_width(2),
    ))?
    .label(s.name.clone())
    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    ctx.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    Ok(())
}

/// One reference or bound series, dashed in `color`, only where it stays inside the plot.
fn draw_reference<'a>(
    ctx: &mut LogLog<'a>,
    s: &Series,
    (x0, x1, y0, y1): Bounds,
    color: RGBColor,
) -> DrawResult<'a> {
    let inside: Vec<(f64, f64)> = s
        .points
        .iter()
        .copied()
        .filter(|&(x, y)| x >= x0 && x <= x1 && y >= y0 && y <= y1)
        .collect();
    if inside.len() >= 2 {
        ctx.draw_series(DashedLineSeries::new(inside, 6, 4, color.stroke_width(1)))?
            .label(s.name.clone())
            // Dashed in the legend as on the plot: two dashes and a gap.
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (7, 0)], color)
                    + PathElement::new(vec![(12, 0), (19, 0)], color)
            });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::row::tests::row;
    use super::*;

    #[test]
    fn plot_has_one_line_per_backend_and_a_reference() {
        let dir = std::env::temp_dir().join(format!("nimsquare-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.svg");
        let mut rows = Vec::new();
        for n in [1_000u64, 10_000, 100_000] {
            for (b, c) in [("a", 1e-9), ("b", 3e-9)] {
                // No roofline columns: measured lines and the reference only.
                let r = row(b, n, c * (n as f64).powf(1.5));
                rows.push(Row {
                    bound_ns_per_step: f64::NAN,
                    ..r
                });
            }
        }
        plot_svg(&path, &rows, &["a".into(), "b".into()]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains("<svg"));
        // plotters writes each label on its own line inside <text>.
        for label in ["a", "b", "N^1.5 reference"] {
            assert!(
                svg.contains(&format!(">\n{label}\n</text>")),
                "no label {label}"
            );
        }
        // The data lines and the legend samples: two polylines per back-end colour.
        assert_eq!(svg.matches("stroke=\"#1F77B4\"").count(), 2);
        assert_eq!(svg.matches("stroke=\"#FF7F0E\"").count(), 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn equal_bounds_are_drawn_once_for_both_and_a_low_bound_widens_the_axis() {
        let dir = std::env::temp_dir().join(format!("nimsquare-plot-equal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.svg");
        let mut rows = Vec::new();
        for n in [1_000u64, 10_000, 100_000] {
            for (b, c) in [("a", 1e-9), ("b", 3e-9)] {
                let r = row(b, n, c * (n as f64).powf(1.5));
                // The same bound for both, 1000 times below a's time: under its points.
                let bound = 1e-3 * 1e-9 * (n as f64).powf(1.5) * 1e9 / r.option_steps as f64;
                rows.push(Row {
                    bound_ns_per_step: bound,
                    ..r
                });
            }
        }
        plot_svg(&path, &rows, &["a".into(), "b".into()]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(
            svg.contains(">\na, b bound\n</text>"),
            "one legend entry for both"
        );
        assert!(!svg.contains(">\nb bound\n</text>"));
        // Drawn (dashes in a's colour beyond its line and legend sample), so inside the axes.
        assert!(svg.matches("stroke=\"#1F77B4\"").count() > 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn plot_draws_each_bound_dashed_in_its_back_ends_colour() {
        let dir = std::env::temp_dir().join(format!("nimsquare-plot-bound-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("p.svg");
        let rows: Vec<Row> = [1_000u64, 10_000, 100_000]
            .iter()
            .map(|&n| {
                let r = row("a", n, 1e-9 * (n as f64).powf(1.5));
                // A bound at half the measured time: inside the plotted range.
                let half = 0.5 * r.seconds_median * 1e9 / r.option_steps as f64;
                Row {
                    bound_ns_per_step: half,
                    ..r
                }
            })
            .collect();
        plot_svg(&path, &rows, &["a".into()]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.contains(">\na bound\n</text>"), "no bound label");
        // Line and legend of the measured series, legend and dashes of its bound: more than 2.
        assert!(svg.matches("stroke=\"#1F77B4\"").count() > 3);
        // A row without a bound (NaN) draws none.
        let none: Vec<Row> = rows
            .iter()
            .map(|r| Row {
                bound_ns_per_step: f64::NAN,
                ..r.clone()
            })
            .collect();
        assert!(bound_series(&none, "a").is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
