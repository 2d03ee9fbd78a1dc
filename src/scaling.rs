//! The scaling study behind `nimsquare scale`: the geometric grid of limits, the CSV rows it
//! writes (flushed one by one, so an interrupted run keeps every finished point), the
//! least-squares exponent fit, the skip prediction, and the log-log SVG plot.
//!
//! GUIDE §4: the exponent is the least-squares slope of log(seconds) on log(N) over a
//! geometric grid, fitted only where N >= 10^4 ([`FIT_MIN_N`]), where start-up no longer
//! dominates. For `stamped` and `bitset` the design claims 1.5 (the option-step count
//! S(N) = sum of floor(sqrt n) is about (2/3) N^1.5).
//!
//! ```
//! use nimsquare::scaling::{fit_loglog, geometric_grid};
//! let grid = geometric_grid(1_000, 1_000_000, 4);
//! assert_eq!(grid, vec![1_000, 10_000, 100_000, 1_000_000]);
//! let points: Vec<(f64, f64)> = grid.iter().map(|&n| (n as f64, 3e-9 * (n as f64).powf(1.5))).collect();
//! let fit = fit_loglog(&points).unwrap();
//! assert!((fit.slope - 1.5).abs() < 1e-9 && fit.r2 > 0.999_999);
//! ```

use crate::error::{Error, Result};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// The CSV header, in the column order of every row.
pub const CSV_HEADER: &str = "backend,n,seconds_median,seconds_min,repeats,option_steps,ns_per_step,max_value,threads,git_rev,cpu";

/// Points with N below this are kept in the CSV and the plot but left out of the fit.
pub const FIT_MIN_N: u64 = 10_000;

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

/// The median of `xs` (the mean of the middle two for an even count). `xs` must be non-empty.
pub fn median(xs: &[f64]) -> f64 {
    assert!(!xs.is_empty());
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
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
    let intercept = my - slope * mx;
    let r2 = if syy > 0.0 {
        (sxy * sxy) / (sxx * syy)
    } else {
        1.0
    };
    Some(Fit {
        slope,
        intercept,
        r2,
        points: points.len(),
    })
}

/// The fit over the rows of one back-end with N >= [`FIT_MIN_N`], as the study reports it.
pub fn fit_rows(rows: &[Row], backend: &str) -> Option<Fit> {
    let points: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.backend == backend && r.n >= FIT_MIN_N)
        .map(|r| (r.n as f64, r.seconds_median))
        .collect();
    fit_loglog(&points)
}

/// The exponent assumed for a skip prediction before two points are known: the design's 1.5.
pub const DEFAULT_EXPONENT: f64 = 1.5;

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

/// One measured point: a table back-end at one N.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub backend: String,
    pub n: u64,
    pub seconds_median: f64,
    pub seconds_min: f64,
    pub repeats: usize,
    pub option_steps: u128,
    pub ns_per_step: f64,
    pub max_value: u16,
    pub threads: usize,
    pub git_rev: String,
    pub cpu: String,
}

impl Row {
    /// The row as one CSV line (no newline), in [`CSV_HEADER`]'s column order.
    pub fn to_csv(&self) -> String {
        [
            quote(&self.backend),
            self.n.to_string(),
            format!("{:.9}", self.seconds_median),
            format!("{:.9}", self.seconds_min),
            self.repeats.to_string(),
            self.option_steps.to_string(),
            format!("{:.4}", self.ns_per_step),
            self.max_value.to_string(),
            self.threads.to_string(),
            quote(&self.git_rev),
            quote(&self.cpu),
        ]
        .join(",")
    }

    /// Parses a line written by [`Row::to_csv`].
    pub fn parse(line: &str) -> Result<Row> {
        let fields = split_csv(line)?;
        if fields.len() != 11 {
            return Err(Error::Invalid(format!(
                "expected 11 CSV fields, found {}",
                fields.len()
            )));
        }
        fn num<T: std::str::FromStr>(field: &str, name: &str) -> Result<T> {
            field
                .parse()
                .map_err(|_| Error::Invalid(format!("column {name}: cannot parse '{field}'")))
        }
        Ok(Row {
            backend: fields[0].clone(),
            n: num(&fields[1], "n")?,
            seconds_median: num(&fields[2], "seconds_median")?,
            seconds_min: num(&fields[3], "seconds_min")?,
            repeats: num(&fields[4], "repeats")?,
            option_steps: num(&fields[5], "option_steps")?,
            ns_per_step: num(&fields[6], "ns_per_step")?,
            max_value: num(&fields[7], "max_value")?,
            threads: num(&fields[8], "threads")?,
            git_rev: fields[9].clone(),
            cpu: fields[10].clone(),
        })
    }
}

/// Quotes a CSV field when it holds a comma, a quote or a line break.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// Splits one CSV line into fields, undoing [`quote`].
fn split_csv(line: &str) -> Result<Vec<String>> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (_, c) => field.push(c),
        }
    }
    if quoted {
        return Err(Error::Invalid("unterminated quote in CSV line".into()));
    }
    fields.push(field);
    Ok(fields)
}

/// The CSV file of a study: rows are appended and flushed one at a time.
pub struct CsvLog {
    file: File,
    rows: Vec<Row>,
}

impl CsvLog {
    /// Starts a fresh CSV at `path` (replacing any file there) with the header line.
    pub fn create(path: &Path) -> Result<CsvLog> {
        let mut file = File::create(path).map_err(|e| io_error(path, e))?;
        writeln!(file, "{CSV_HEADER}").map_err(|e| io_error(path, e))?;
        file.flush().map_err(|e| io_error(path, e))?;
        Ok(CsvLog {
            file,
            rows: Vec::new(),
        })
    }

    /// Reopens the CSV at `path` to append, keeping its rows (see [`read_rows`]); a missing or
    /// empty file starts fresh. A last line cut short by an interruption (no newline at the
    /// end) is dropped from the file, since its point will be measured again.
    pub fn resume(path: &Path) -> Result<CsvLog> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return CsvLog::create(path),
            Err(e) => return Err(io_error(path, e)),
        };
        if text.trim().is_empty() {
            return CsvLog::create(path);
        }
        let complete = match text.rfind('\n') {
            Some(i) => &text[..=i],
            None => "",
        };
        let rows = parse_rows(complete, path)?;
        if complete.len() != text.len() {
            std::fs::write(path, complete).map_err(|e| io_error(path, e))?;
        }
        if complete.is_empty() {
            return CsvLog::create(path);
        }
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| io_error(path, e))?;
        Ok(CsvLog { file, rows })
    }

    /// Appends one row and flushes it to the file.
    pub fn append(&mut self, row: Row) -> Result<()> {
        writeln!(self.file, "{}", row.to_csv())
            .and_then(|_| self.file.flush())
            .map_err(|e| Error::Invalid(format!("cannot write the CSV: {e}")))?;
        self.rows.push(row);
        Ok(())
    }

    /// Every row in the file, the resumed ones first.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// The (back-end, N) points already in the file.
    pub fn done(&self) -> HashSet<(String, u64)> {
        self.rows.iter().map(|r| (r.backend.clone(), r.n)).collect()
    }
}

/// Reads every row of a study CSV (the header line first, as [`CsvLog`] writes it).
pub fn read_rows(path: &Path) -> Result<Vec<Row>> {
    let file = File::open(path).map_err(|e| io_error(path, e))?;
    let mut text = String::new();
    for line in BufReader::new(file).lines() {
        text.push_str(&line.map_err(|e| io_error(path, e))?);
        text.push('\n');
    }
    parse_rows(&text, path)
}

fn parse_rows(text: &str, path: &Path) -> Result<Vec<Row>> {
    let mut lines = text.lines();
    match lines.next() {
        Some(h) if h.trim() == CSV_HEADER => {}
        _ => {
            return Err(Error::Invalid(format!(
                "{} is not a scaling CSV (its first line is not the header '{CSV_HEADER}')",
                path.display()
            )))
        }
    }
    lines
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            Row::parse(l)
                .map_err(|e| Error::Invalid(format!("{} line {}: {e}", path.display(), i + 2)))
        })
        .collect()
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::Invalid(format!("{}: {e}", path.display()))
}

/// The short git revision of the working directory (`git rev-parse --short HEAD`), with
/// `-dirty` appended when tracked files have uncommitted changes; "unknown" outside a
/// repository or without git.
pub fn git_rev() -> String {
    let run = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match run(&["rev-parse", "--short", "HEAD"]) {
        Some(rev) if !rev.is_empty() => {
            let dirty = run(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{rev}-dirty")
            } else {
                rev
            }
        }
        _ => "unknown".into(),
    }
}

/// The CPU's "model name" from /proc/cpuinfo, or "unknown".
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// Draws the study as an SVG: log-log axes (N against seconds), one line with point markers
/// per back-end (in the order given), and a dashed N^1.5 reference line through the first
/// back-end's first point with N >= [`FIT_MIN_N`] (or its first point). Text is written as
/// SVG `<text>`, so no system font is needed.
pub fn plot_svg(path: &Path, rows: &[Row], backends: &[String]) -> Result<()> {
    use plotters::prelude::*;
    let err = |e: String| Error::Invalid(format!("cannot draw {}: {e}", path.display()));
    let series: Vec<(&String, Vec<(f64, f64)>)> = backends
        .iter()
        .map(|b| {
            let mut pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| &r.backend == b && r.seconds_median > 0.0)
                .map(|r| (r.n as f64, r.seconds_median))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            (b, pts)
        })
        .filter(|(_, pts)| !pts.is_empty())
        .collect();
    let all = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if series.is_empty() {
        return Err(err("no measured points".into()));
    }
    let (x0, x1) = (x0 / 1.5, x1 * 1.5);
    let (y0, y1) = (y0 / 3.0, y1 * 3.0);

    let root = SVGBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Nim Square table back-ends: seconds against N (log-log)",
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
        .map_err(|e| err(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("N (largest heap)")
        .y_desc("seconds (median)")
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()
        .map_err(|e| err(e.to_string()))?;

    let palette = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(23, 190, 207),
    ];
    for (i, (name, pts)) in series.iter().enumerate() {
        let color = palette[i % palette.len()];
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(|e| err(e.to_string()))?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| err(e.to_string()))?;
    }

    // The reference: seconds proportional to N^1.5, through one measured point.
    let first = &series[0].1;
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
        let gray = RGBColor(90, 90, 90);
        chart
            .draw_series(DashedLineSeries::new(reference, 6, 4, gray.stroke_width(1)))
            .map_err(|e| err(e.to_string()))?
            .label("N^1.5 reference")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], gray));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(e.to_string()))?;
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(backend: &str, n: u64, seconds: f64) -> Row {
        Row {
            backend: backend.into(),
            n,
            seconds_median: seconds,
            seconds_min: seconds * 0.9,
            repeats: 3,
            option_steps: 12345,
            ns_per_step: 1.25,
            max_value: 74,
            threads: 2,
            git_rev: "abc1234".into(),
            cpu: "AMD EPYC 7B13, \"quoted\" model".into(),
        }
    }

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
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
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

    #[test]
    fn csv_round_trips_including_quoted_fields() {
        let r = Row {
            seconds_min: 0.1,
            ..row("value-bounded", 1_000_000, 0.123456789)
        };
        let line = r.to_csv();
        assert!(
            line.starts_with("value-bounded,1000000,0.123456789,"),
            "{line}"
        );
        assert_eq!(Row::parse(&line).unwrap(), r);
        assert_eq!(CSV_HEADER.split(',').count(), 11);
        assert!(Row::parse("a,1,2").is_err());
        assert!(Row::parse("a,x,1,1,1,1,1,1,1,r,c").is_err());
    }

    #[test]
    fn resume_completes_a_partial_csv_without_duplicates() {
        let dir = std::env::temp_dir().join(format!("nimsquare-scaling-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.csv");

        let mut log = CsvLog::create(&path).unwrap();
        log.append(row("a", 100, 1.0)).unwrap();
        log.append(row("b", 100, 2.0)).unwrap();
        drop(log);
        // An interruption mid-line: the cut line is dropped on resume.
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("a,1000,0.5");
        std::fs::write(&path, text).unwrap();

        let mut log = CsvLog::resume(&path).unwrap();
        assert_eq!(log.rows().len(), 2);
        let done = log.done();
        assert!(done.contains(&("a".to_string(), 100)) && done.contains(&("b".to_string(), 100)));
        assert!(!done.contains(&("a".to_string(), 1000)));
        log.append(row("a", 1000, 3.0)).unwrap();
        drop(log);

        let rows = read_rows(&path).unwrap();
        let keys: Vec<(String, u64)> = rows.iter().map(|r| (r.backend.clone(), r.n)).collect();
        assert_eq!(
            keys,
            vec![("a".into(), 100), ("b".into(), 100), ("a".into(), 1000)]
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches(CSV_HEADER).count(), 1);

        // A file that is not a study CSV is refused, not appended to.
        std::fs::write(&path, "something else\n").unwrap();
        assert!(CsvLog::resume(&path).is_err());
        // A missing file starts fresh.
        std::fs::remove_file(&path).unwrap();
        assert!(CsvLog::resume(&path).unwrap().rows().is_empty());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            format!("{CSV_HEADER}\n")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
