//! The numbers of the study: the geometric grid of limits, the median of repeats, the
//! least-squares line through (log N, log seconds) with a confidence interval on its slope,
//! and the prediction `--skip-over` uses.

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
    /// The standard error of the slope, sqrt(SSE / (k - 2) / Sxx) over the k points (SSE the
    /// residual sum of squares, Sxx the sum of squared deviations of log N); None with fewer
    /// than three points, where no residual is left to estimate the scatter from.
    pub slope_se: Option<f64>,
}

/// The confidence level of [`Fit::slope_interval`].
pub const CONFIDENCE: f64 = 0.95;

impl Fit {
    /// The seconds the line predicts at `n`.
    pub fn predict(&self, n: f64) -> f64 {
        (self.intercept + self.slope * n.ln()).exp()
    }

    /// The [`CONFIDENCE`] interval of the slope, slope -+ t·SE with t Student's 0.975
    /// quantile for k - 2 degrees of freedom ([`t_quantile_975`]): the interval that holds
    /// the true exponent 95 times in 100 when log(seconds) is a line in log(N) plus
    /// independent normal scatter of one size. None with fewer than three points. Points on
    /// an exact line give a zero-width interval.
    pub fn slope_interval(&self) -> Option<(f64, f64)> {
        let se = self.slope_se?;
        let half = t_quantile_975(self.points.checked_sub(2)?)? * se;
        Some((self.slope - half, self.slope + half))
    }
}

/// Student's t quantile at 0.975 (the two-sided 95% critical value) for 1 to 30 degrees of
/// freedom, to 6 decimals.
const T_975: [f64; 30] = [
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157,
    2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
    2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831,
    2.048407, 2.045230, 2.042272,
];

/// Student's t quantile at 0.975 for `df` degrees of freedom: the table `T_975` up to 30,
/// past it the Cornish-Fisher expansion around the normal quantile 1.959964 (terms to
/// 1/df^4, within 1e-6 of the exact value from 30 on). None for 0 degrees of freedom.
pub fn t_quantile_975(df: usize) -> Option<f64> {
    match df {
        0 => None,
        1..=30 => Some(T_975[df - 1]),
        _ => Some(t_expansion_975(df as f64)),
    }
}

/// The Cornish-Fisher expansion of Student's t quantile at 0.975 in powers of 1/df
/// (Abramowitz and Stegun 26.7.5), accurate for large df.
fn t_expansion_975(df: f64) -> f64 {
    let z: f64 = 1.959_963_984_540_054;
    let g1 = (z.powi(3) + z) / 4.0;
    let g2 = (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / 96.0;
    let g3 = (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / 384.0;
    let g4 = (79.0 * z.powi(9) + 776.0 * z.powi(7) + 1482.0 * z.powi(5)
        - 1920.0 * z.powi(3)
        - 945.0 * z)
        / 92160.0;
    z + g1 / df + g2 / df.powi(2) + g3 / df.powi(3) + g4 / df.powi(4)
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
    let intercept = my - slope * mx;
    let r2 = if syy > 0.0 {
        (sxy * sxy) / (sxx * syy)
    } else {
        1.0
    };
    // The residuals summed directly (not syy - slope·sxy, which cancels to noise for points
    // close to a line).
    let sse: f64 = xs
        .iter()
        .zip(&ys)
        .map(|(x, y)| (y - intercept - slope * x).powi(2))
        .sum();
    let slope_se = (points.len() >= 3).then(|| (sse / (k - 2.0) / sxx).sqrt());
    Some(Fit {
        slope,
        intercept,
        r2,
        points: points.len(),
        slope_se,
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
    fn slope_interval_of_a_hand_computed_example() {
        // log N = 1, 2, 3, 4 and log seconds = 1, 3, 2, 4. By hand: means 2.5 and 2.5,
        // Sxx = 5, Sxy = 4, slope 0.8, intercept 0.5; residuals -0.3, 0.9, -0.9, 0.3, so
        // SSE = 1.8, s^2 = 1.8 / 2 = 0.9, SE = sqrt(0.9 / 5) = sqrt(0.18) = 0.424264; t for 2
        // degrees of freedom is 4.302653 (closed form: 0.95 / sqrt(2 · 0.975 · 0.025)), so
        // the interval is 0.8 -+ 4.302653 · 0.424264 = 0.8 -+ 1.825461.
        let e = std::f64::consts::E;
        let pts: Vec<(f64, f64)> = [(1, 1), (2, 3), (3, 2), (4, 4)]
            .iter()
            .map(|&(x, y)| (e.powi(x), e.powi(y)))
            .collect();
        let fit = fit_loglog(&pts).unwrap();
        assert!((fit.slope - 0.8).abs() < 1e-12, "{fit:?}");
        assert!((fit.intercept - 0.5).abs() < 1e-12, "{fit:?}");
        assert!((fit.r2 - 0.64).abs() < 1e-12, "{fit:?}");
        assert!(
            (fit.slope_se.unwrap() - 0.18f64.sqrt()).abs() < 1e-12,
            "{fit:?}"
        );
        let (lo, hi) = fit.slope_interval().unwrap();
        assert!((lo - (0.8 - 1.825_461)).abs() < 1e-5, "{lo}");
        assert!((hi - (0.8 + 1.825_461)).abs() < 1e-5, "{hi}");
    }

    #[test]
    fn slope_interval_is_zero_on_an_exact_line_and_absent_below_three_points() {
        let pts: Vec<(f64, f64)> = [10_000u64, 100_000, 1_000_000, 10_000_000]
            .iter()
            .map(|&n| (n as f64, 3e-9 * (n as f64).powf(1.5)))
            .collect();
        let (lo, hi) = fit_loglog(&pts).unwrap().slope_interval().unwrap();
        assert!(
            (lo - 1.5).abs() < 1e-9 && (hi - 1.5).abs() < 1e-9,
            "{lo} {hi}"
        );
        // Two points make a line but leave no residual: no interval, rather than a made-up one.
        let two = fit_loglog(&pts[..2]).unwrap();
        assert!((two.slope - 1.5).abs() < 1e-9);
        assert_eq!(two.slope_se, None);
        assert_eq!(two.slope_interval(), None);
    }

    #[test]
    fn t_quantiles_agree_with_closed_forms_and_the_expansion() {
        assert_eq!(t_quantile_975(0), None);
        // One degree of freedom is the Cauchy law: tan(pi · (0.975 - 0.5)).
        let cauchy = (std::f64::consts::PI * 0.475).tan();
        assert!((t_quantile_975(1).unwrap() - cauchy).abs() < 1e-6);
        // Two: p' / sqrt(2 p (1 - p)) with p' = 2p - 1.
        let two = 0.95 / (2.0f64 * 0.975 * 0.025).sqrt();
        assert!((t_quantile_975(2).unwrap() - two).abs() < 1e-6);
        // The table's last entry and the expansion used past it agree where they meet.
        assert!((t_expansion_975(30.0) - t_quantile_975(30).unwrap()).abs() < 2e-6);
        // And the quantile falls towards the normal 1.959964 as df grows.
        let t = |d| t_quantile_975(d).unwrap();
        assert!(t(31) < t(30) && t(1000) < t(31) && (t(1_000_000) - 1.959_964).abs() < 1e-5);
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
