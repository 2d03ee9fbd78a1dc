//! What `nimsquare scale` answers at the end of a study ([`Scaled`]): one `fit ...` line per
//! back-end (the slope over N >= [`FIT_MIN_N`] with its 95% interval, R^2 and the points
//! used), the CSV written, and the plot of every back-end in the CSV.

use super::{fit_points, fit_rows, plot_svg_to, Row, FIT_MIN_N};
use crate::base::error::Result;
use crate::base::paths::Output;
use crate::run::report::Report;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A finished study's fits, CSV and plot.
pub struct Scaled {
    /// One `fit ...` line per back-end timed, in the order they were timed.
    pub fits: Vec<String>,
    /// The CSV as named, and the rows it holds.
    pub out: PathBuf,
    pub rows: usize,
    /// The plot as named, and how many back-ends it draws.
    pub plot: Option<(PathBuf, usize)>,
}

impl Scaled {
    /// The fits of `names` over `rows` (every row of the CSV), and the plot of every
    /// back-end in them drawn to `plot` (as named, and where it goes), if asked.
    pub fn of(
        names: &[&str],
        rows: &[Row],
        out: &Path,
        plot: Option<(&Path, &Output)>,
    ) -> Result<Scaled> {
        let plot = match plot {
            Some((name, to)) => {
                let mut in_csv: Vec<String> = Vec::new();
                for r in rows {
                    if !in_csv.contains(&r.backend) {
                        in_csv.push(r.backend.clone());
                    }
                }
                plot_svg_to(to, "--plot", rows, &in_csv)?;
                Some((name.to_path_buf(), in_csv.len()))
            }
            None => None,
        };
        Ok(Scaled {
            fits: names.iter().map(|name| fit_line(rows, name)).collect(),
            out: out.to_path_buf(),
            rows: rows.len(),
            plot,
        })
    }
}

impl Report for Scaled {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        for line in &self.fits {
            writeln!(out, "{line}")?;
        }
        writeln!(out, "wrote {} ({} rows)", self.out.display(), self.rows)?;
        if let Some((p, backends)) = &self.plot {
            writeln!(out, "wrote {} ({backends} back-ends)", p.display())?;
        }
        Ok(())
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "fits": self.fits,
            "out": self.out.display().to_string(),
            "rows": self.rows,
            "plot": self.plot.as_ref().map(|p| p.0.display().to_string()),
        })
    }
}

/// The `fit ...` line of one back-end; `points` is always the number of rows with
/// N >= [`FIT_MIN_N`], also when they are too few for a line. `slope_lo` and `slope_hi` bound
/// the slope's 95% confidence interval ([`super::Fit::slope_interval`]), `NA` below three
/// points.
pub fn fit_line(rows: &[Row], name: &str) -> String {
    let points = fit_points(rows, name);
    match fit_rows(rows, name) {
        Some(f) => {
            let (interval, why) = match f.slope_interval() {
                Some((lo, hi)) => (format!("slope_lo={lo:.3} slope_hi={hi:.3}"), String::new()),
                None => (
                    "slope_lo=NA slope_hi=NA".to_string(),
                    " (no interval with fewer than three points)".to_string(),
                ),
            };
            format!(
                "fit backend={name} slope={:.3} {interval} r2={:.4} points={points} min_n={FIT_MIN_N}{why}",
                f.slope, f.r2
            )
        }
        None => format!(
            "fit backend={name} slope=NA slope_lo=NA slope_hi=NA r2=NA points={points} min_n={FIT_MIN_N} (fewer than two points with N >= {FIT_MIN_N})"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u64) -> Row {
        Row {
            backend: "a".into(),
            n,
            seconds_median: 1.0,
            seconds_min: 1.0,
            repeats: 1,
            option_steps: 1,
            ns_per_step: 1.0,
            max_value: 1,
            chosen: None,
            provenance: crate::base::provenance::Provenance {
                threads: 1,
                moves: "squares".into(),
                git_rev: "r".into(),
                cpu: "c".into(),
            },
            isa: "scalar".into(),
            bound_ns_per_step: 0.5,
            bound_resource: "store".into(),
            efficiency: 0.5,
            load_start: 0.0,
            load_end: 0.0,
        }
    }

    #[test]
    fn fit_line_counts_the_points_it_could_not_fit() {
        // One row at N = 10 000: no line, but one point at or above the minimum.
        let line = fit_line(&[row(1_000), row(10_000)], "a");
        assert!(
            line.contains("slope=NA slope_lo=NA slope_hi=NA") && line.contains("points=1 "),
            "{line}"
        );
        assert!(fit_line(&[], "a").contains("points=0 "));
    }

    /// A row of back-end `a` at `n` taking `seconds`.
    fn timed(n: u64, seconds: f64) -> Row {
        Row {
            seconds_median: seconds,
            ..row(n)
        }
    }

    #[test]
    fn fit_line_carries_the_slope_interval_from_three_points() {
        // Seconds exactly N^1.5 / 10^9 at three N: slope 1.5, a zero-width interval.
        let exact: Vec<Row> = [10_000u64, 100_000, 1_000_000]
            .iter()
            .map(|&n| timed(n, 1e-9 * (n as f64).powf(1.5)))
            .collect();
        let line = fit_line(&exact, "a");
        assert!(
            line.contains("slope=1.500 slope_lo=1.500 slope_hi=1.500 r2=1.0000 points=3 "),
            "{line}"
        );
        // log N = 10, 11, 12 (N rounded to whole numbers, which moves log N by < 1e-4) and
        // log seconds = 1, 3, 2. By hand: Sxx = 2, Sxy = 1, slope 0.5; residuals -0.5, 1,
        // -0.5, SSE = 1.5 over 1 degree of freedom, SE = sqrt(1.5 / 2) = 0.866025, t(1) =
        // 12.706205, so the interval is 0.5 -+ 11.0039.
        let e = std::f64::consts::E;
        let noisy: Vec<Row> = [(10, 1), (11, 3), (12, 2)]
            .iter()
            .map(|&(x, y)| timed(e.powi(x).round() as u64, e.powi(y)))
            .collect();
        let line = fit_line(&noisy, "a");
        assert!(line.contains("points=3 "), "{line}");
        let key = |k: &str| -> f64 {
            line.split(&format!(" {k}="))
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!((key("slope") - 0.5).abs() < 2e-3, "{line}");
        assert!((key("slope_lo") - (0.5 - 11.0039)).abs() < 2e-3, "{line}");
        assert!((key("slope_hi") - (0.5 + 11.0039)).abs() < 2e-3, "{line}");
        // Two points: a slope, no interval.
        let line = fit_line(&exact[..2], "a");
        assert!(
            line.contains("slope=1.500 slope_lo=NA slope_hi=NA "),
            "{line}"
        );
    }
}
