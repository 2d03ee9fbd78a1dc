//! The log-log SVG of a study: N against seconds, one line with point markers per back-end
//! (in the order given), and a dashed N^1.5 reference line through the first back-end's first
//! point with N >= [`FIT_MIN_N`] (or its first point). Text is written as SVG `<text>`, so no
//! system font is needed.

use super::fit::FIT_MIN_N;
use super::row::Row;
use crate::error::{Error, Result};
use plotters::coord::{combinators::LogCoord, Shift};
use plotters::prelude::*;
use std::path::Path;

/// One back-end's measured (N, seconds) points, N ascending.
type Series<'a> = (&'a str, Vec<(f64, f64)>);
type LogLog<'a> = ChartContext<'a, SVGBackend<'a>, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;
/// The plotted ranges: (x0, x1, y0, y1).
type Bounds = (f64, f64, f64, f64);

/// The back-end colours, in order (matplotlib's default cycle, so plots look familiar).
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

/// The colour of the reference line.
const GRAY: RGBColor = RGBColor(90, 90, 90);

/// Draws the study (see the module documentation) into an SVG file at `path`.
pub fn plot_svg(path: &Path, rows: &[Row], backends: &[String]) -> Result<()> {
    let err = |e: String| Error::Invalid(format!("cannot draw {}: {e}", path.display()));
    let series = collect_series(rows, backends);
    if series.is_empty() {
        return Err(err("no measured points".into()));
    }
    let bounds = bounds(&series);
    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = axes(&root, bounds).map_err(|e| err(e.to_string()))?;
    for (i, (name, pts)) in series.iter().enumerate() {
        draw_backend(&mut chart, name, pts, PALETTE[i % PALETTE.len()])
            .map_err(|e| err(e.to_string()))?;
    }
    draw_reference(&mut chart, &series[0].1, bounds).map_err(|e| err(e.to_string()))?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))
}

/// The points of each back-end in `backends` that has any (seconds > 0, as log axes need).
fn collect_series<'a>(rows: &[Row], backends: &'a [String]) -> Vec<Series<'a>> {
    backends
        .iter()
        .map(|b| {
            let mut pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| &r.backend == b && r.seconds_median > 0.0)
                .map(|r| (r.n as f64, r.seconds_median))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            (b.as_str(), pts)
        })
        .filter(|(_, pts)| !pts.is_empty())
        .collect()
}

/// The ranges of every point, widened so markers do not sit on the frame.
fn bounds(series: &[Series]) -> Bounds {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in series.iter().flat_map(|(_, p)| p.iter()) {
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
    (x0, x1, y0, y1): Bounds,
) -> std::result::Result<LogLog<'a>, Box<dyn std::error::Error + 'a>> {
    let mut chart = ChartBuilder::on(root)
        .caption(
            "Nim Square table back-ends: seconds against N (log-log)",
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("N (largest heap)")
        .y_desc("seconds (median)")
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()?;
    Ok(chart)
}

/// One back-end: its line (with a legend entry) and a marker on every point.
fn draw_backend<'a>(
    chart: &mut LogLog<'a>,
    name: &str,
    pts: &[(f64, f64)],
    color: RGBColor,
) -> std::result::Result<(), Box<dyn std::error::Error + 'a>> {
    chart
        .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    Ok(())
}

/// The dashed reference: seconds proportional to N^1.5 through one measured point of
/// `first`, drawn only where it stays inside the plot.
fn draw_reference<'a>(
    chart: &mut LogLog<'a>,
    first: &[(f64, f64)],
    (x0, x1, y0, y1): Bounds,
) -> std::result::Result<(), Box<dyn std::error::Error + 'a>> {
    let &(ax, ay) = first
        .iter()
        .find(|p| p.0 >= FIT_MIN_N as f64)
        .unwrap_or(&first[0]);
    let reference: Vec<(f64, f64)> = (0..=40)
        .map(|i| {
            let x = x0 * (x1 / x0).powf(i as f64 / 40.0);
            (x, ay * (x / ax).powf(1.5))
        })
        .filter(|&(_, y)| y >= y0 && y <= y1)
        .collect();
    if reference.len() >= 2 {
        chart
            .draw_series(DashedLineSeries::new(reference, 6, 4, GRAY.stroke_width(1)))?
            .label("N^1.5 reference")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], GRAY));
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
            rows.push(row("a", n, 1e-9 * (n as f64).powf(1.5)));
            rows.push(row("b", n, 3e-9 * (n as f64).powf(1.5)));
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
}
