//! The scaling study behind `nimsquare scale`, one concern per file:
//!
//! - [`fit`]: the geometric grid of limits, the median of repeats, the least-squares
//!   exponent fit and the prediction used to skip points too slow to measure;
//! - [`row`]: one measured point, a row of the study CSV;
//! - [`log`]: the CSV file itself (create, resume, and the settings a resumed study must
//!   share), flushed row by row so an interrupted run keeps every finished point;
//! - [`plot`]: the study's two-panel SVG figure (seconds and ns per option step against N,
//!   each back-end's slope with its 95% interval) and log-log charts of named series;
//! - [`study`]: the study itself, what `nimsquare scale` runs: the points that remain, the
//!   timed builds, the check of every table against the first at its N, the roofline bound
//!   and the skips, reported as events;
//! - [`scaled`]: what `nimsquare scale` answers at the end: the fit lines, the CSV and the plot;
//! - [`growth`]: the rows and prefix readers of the growth study (`nimsquare growth`), which
//!   reuses the grid, the CSV log, the fit and the plot;
//! - [`growth_study`]: the growth study itself, what `nimsquare growth` runs: one build at
//!   the largest N pending, a row per point, the fit and the plot.
//!
//! The exponent is the least-squares slope of log(seconds) on log(N) over a geometric grid,
//! fitted only where N >= 10^4 ([`FIT_MIN_N`]), where start-up no longer dominates. For
//! `stamped` and `bitset` the design claims 1.5 (the option-step count
//! S(N) = sum of floor(sqrt n) is about (2/3) N^1.5).
//!
//! ```
//! use nimsquare::instruments::scaling::{fit_loglog, geometric_grid};
//! let grid = geometric_grid(1_000, 1_000_000, 4);
//! assert_eq!(grid, vec![1_000, 10_000, 100_000, 1_000_000]);
//! let points: Vec<(f64, f64)> = grid.iter().map(|&n| (n as f64, 3e-9 * (n as f64).powf(1.5))).collect();
//! let fit = fit_loglog(&points).unwrap();
//! assert!((fit.slope - 1.5).abs() < 1e-9 && fit.r2 > 0.999_999);
//! ```

pub mod fit;
pub mod growth;
pub mod growth_study;
pub mod log;
pub mod plot;
pub mod row;
pub mod scaled;
pub mod study;

pub use crate::base::provenance::{cpu_model, git_rev, Provenance};
pub use crate::base::stats::median;
pub use fit::{
    fit_loglog, fit_points, fit_rows, geometric_grid, predict_seconds, t_quantile_975, Fit,
    CONFIDENCE, DEFAULT_EXPONENT, FIT_MIN_N,
};
pub use log::{read_rows, read_study_rows, CsvLog, Settings, StudyRow};
pub use plot::{plot_loglog, plot_loglog_to, plot_svg, plot_svg_to, Chart, Series, Style};
pub use row::{Row, CSV_HEADER};
