//! The numbers of the study: the geometric grid of limits, the median of repeats, the
//! least-squares line through (log N, log seconds), and the prediction `--skip-over` uses.

use super::row::Row;

/// Points with N below this are kept in the CSV and the plot but left out of the fit, since
/// start-up costs dominate there and would bend the line.
pub const FIT_MIN_N: u64 = 10_000;

/// The exponent assumed for a skip prediction before two points are known: the design's 1.5.
pub const DEFAULT_EXPONENT: f64 = 1.5;

/// `points` limits from `from` to `to` (both included), equally spaced in log(N), rounded to
/// integers, ascending, without repeats (small ranges can round two points together).
/// Requires `1 <= from <= to` and `points >= 2`.
pub fn geometric_grid(from: u64, to: u64, points: usize) -> Vec<u64> {
    assert!(from >= 1 && from <= to && points >= 2);
    let ratio = to as f64 / from as f64;
    let mut grid: Vec<u64> = (0..points)
        .map(|i| {
            if i == 0 {
                from
            } else if i == points - 1 {
                to
            } else {
                let x = from as f64 * ratio.powf(i as f64 / (points - 1) as f64);
                (x.round() as u64).clamp(from, to)
            }
        })
        .collect();
    grid.dedup();
    grid
}

/// A least-squares line through (log N, log seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// The measured exponent: d log(seconds) / d log(N).
    pub slope: f64,
    /// log(seconds) at log(N) = 0 (natural logarithms).
    pub intercept: f64,
    /// The coefficient of determination of the line (1 for a perfect power law).
    pub r2: f64,
    /// How many points the line was fitted to.
    pub points: usize,
}

impl Fit {
    /// The seconds the line predicts at `n`.
    pub fn predict(&self, n: f64) -> f64 {
        (self.intercept + self.slope * n.ln()).exp()
    }
}

/// Fits log(seconds) = intercept + slope·log(N) by least squares to `(N, seconds)` points.
/// None when fewer than two distinct N are given or any value is not positive.
pub fn fit_loglog(points: &[(f64, f64)]) -> Option<Fit> {
    if points.len() < 2 || points.iter().any(|&(n, s)| !(n > 0.0 && s > 0.0)) {
        return None;
    }
    let k = points.len() as f64;
    let xs: Vec<f64> = points.iter().map(|p| p.0.ln()).collect();
    let ys: Vec<f64> = points.iter().map(|p| p.1.ln()).collect();
    let mx = xs.iter().sum::<f64>() / k;
    let my = ys.iter().sum::<f64>() / k;
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let syy: f64 = ys.iter().map(|y| (y - my) * (y - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let r2 = if syy > 0.0 {
        (sxy * sxy) / (sxx * syy)
    } else {
        1.0
    };
    Some(Fit {
        slope,
        intercept: my - slope * mx,
        r2,
        points: points.len(),
    })
}

/// The (N, seconds) points of one back-end that the fit uses: N >= [`FIT_MIN_N`].
fn fitted(rows: &[Row], backend: &str) -> Vec<(f64, f64)> {
    rows.iter()
        .filter(|r| r.backend == backend && r.n >= FIT_MIN_N)
        .map(|r| (r.n as f64, r.seconds_median))
        .collect()
}

/// How many rows of one back-end have N >= [`FIT_MIN_N`]: the points a fit would use, also
/// when there are too few of them for a line.
pub fn fit_points(rows: &[Row], backend: &str) -> usize {
    fitted(rows, backend).len()
}

/// The fit over the rows of one back-end with N >= [`FIT_MIN_N`], as the study reports it.
pub fn fit_rows(rows: &[Row], backend: &str) -> Option<Fit> {
    fit_loglog(&fitted(rows, backend))
}

/// Predicts one run's seconds at `n` for `backend` from its rows with smaller N: the slope of
/// the fit over its points with N >= [`FIT_MIN_N`] (or over its last two points, or
/// [`DEFAULT_EXPONENT`] with one point), extrapolated from its largest measured N. The slope
/// is taken as at least 1, since no table is cheaper than linear. None without any point.
pub fn predict_seconds(rows: &[Row], backend: &str, n: u64) -> Option<f64> {
    let mut own: Vec<&Row> = rows
        .iter()
        .filter(|r| r.backend == backend && r.n < n)
        .collect();
    own.sort_by_key(|r| r.n);
    let last = *own.last()?;
    let slope = fit_rows(rows, backend)
        .map(|f| f.slope)
        .or_else(|| {
            let pts: Vec<(f64, f64)> = own
                .iter()
                .rev()
                .take(2)
                .map(|r| (r.n as f64, r.seconds_median))
                .collect();
            fit_loglog(&pts).map(|f| f.slope)
        })
        .unwrap_or(DEFAULT_EXPONENT)
        .max(1.0);
    Some(last.seconds_median * (n as f64 / last.n as f64).powf(slope))
}

#[cfg(test)]
mod tests {
    use super::super::row::tests::row;
    use super::*;

    #[test]
    fn grid_is_geometric_inclusive_and_deduplicated() {
        assert_eq!(
            geometric_grid(1_000, 10_000_000, 5),
            vec![1_000, 10_000, 100_000, 1_000_000, 10_000_000]
        );
        let g = geometric_grid(1_000, 10_000_000, 13);
        assert_eq!(g.len(), 13);
        assert_eq!(g[3], 10_000);
        assert!((g[1] as f64 - 2154.43).abs() < 1.0, "{g:?}");
        assert_eq!(geometric_grid(5, 5, 4), vec![5]);
        assert_eq!(geometric_grid(1, 3, 5), vec![1, 2, 3]);
    }

    #[test]
    fn fit_recovers_a_known_exponent() {
        // seconds = 2e-9 * N^1.5 exactly: slope 1.5, R^2 = 1.
        let pts: Vec<(f64, f64)> = geometric_grid(10_000, 10_000_000, 7)
            .into_iter()
            .map(|n| (n as f64, 2e-9 * (n as f64).powf(1.5)))
            .collect();
        let fit = fit_loglog(&pts).unwrap();
        assert!((fit.slope - 1.5).abs() < 1e-12, "{fit:?}");
        assert!((fit.intercept - 2e-9f64.ln()).abs() < 1e-9, "{fit:?}");
        assert!(fit.r2 > 1.0 - 1e-12);
        assert!((fit.predict(4e6) - 2e-9 * 4e6f64.powf(1.5)).abs() < 1e-9);

        // Exponent 1.2 with +-10% alternating noise: slope near 1.2, R^2 below 1 but high.
        let noisy: Vec<(f64, f64)> = geometric_grid(10_000, 10_000_000, 10)
            .into_iter()
            .enumerate()
            .map(|(i, n)| {
                let noise = if i % 2 == 0 { 1.1 } else { 0.9 };
                (n as f64, 5e-8 * (n as f64).powf(1.2) * noise)
            })
            .collect();
        let fit = fit_loglog(&noisy).unwrap();
        assert!((fit.slope - 1.2).abs() < 0.03, "{fit:?}");
        assert!(fit.r2 < 1.0 && fit.r2 > 0.99, "{fit:?}");
    }

    #[test]
    fn fit_refuses_degenerate_input() {
        assert!(fit_loglog(&[]).is_none());
        assert!(fit_loglog(&[(10.0, 1.0)]).is_none());
        assert!(fit_loglog(&[(10.0, 1.0), (10.0, 2.0)]).is_none());
        assert!(fit_loglog(&[(10.0, 1.0), (100.0, 0.0)]).is_none());
    }

    #[test]
    fn fit_rows_ignores_small_n_and_other_backends() {
        let mut rows = vec![row("a", 100, 1.0), row("a", 1_000, 1.0)]; // start-up dominated
        for n in [10_000u64, 100_000, 1_000_000] {
            rows.push(row("a", n, 1e-9 * (n as f64).powi(2)));
            rows.push(row("b", n, 1e-9 * n as f64));
        }
        let fa = fit_rows(&rows, "a").unwrap();
        assert!((fa.slope - 2.0).abs() < 1e-9 && fa.points == 3, "{fa:?}");
        let fb = fit_rows(&rows, "b").unwrap();
        assert!((fb.slope - 1.0).abs() < 1e-9, "{fb:?}");
        assert!(fit_rows(&rows, "c").is_none());
        assert_eq!(fit_points(&rows, "a"), 3);
    }

    #[test]
    fn fit_points_counts_a_single_point_that_cannot_make_a_line() {
        let rows = vec![row("a", 1_000, 1.0), row("a", 10_000, 2.0)];
        assert!(fit_rows(&rows, "a").is_none());
        assert_eq!(fit_points(&rows, "a"), 1);
        assert_eq!(fit_points(&rows, "b"), 0);
    }

    #[test]
    fn prediction_extrapolates_the_fitted_slope() {
        let rows: Vec<Row> = [10_000u64, 100_000, 1_000_000]
            .iter()
            .map(|&n| row("a", n, 1e-9 * (n as f64).powf(1.5)))
            .collect();
        let p = predict_seconds(&rows, "a", 10_000_000).unwrap();
        assert!((p - 1e-9 * 1e7f64.powf(1.5)).abs() / p < 1e-9, "{p}");
        // One point: the default exponent 1.5.
        let one = [row("b", 1_000, 2.0)];
        assert!((predict_seconds(&one, "b", 4_000).unwrap() - 16.0).abs() < 1e-9);
        assert!(predict_seconds(&one, "c", 4_000).is_none());
    }
}
