//! The growth study itself, what `nimsquare growth` runs: c(N) or m(N) on the grid, read from
//! one build at the largest N not yet in the CSV ([`super::growth`]'s prefix readers), one row
//! appended per point, then the fit over N >= `fit_from` and the log-log plot ([`Grown`]).
//! Cost: one sieve or one table build to the grid's top, plus one pass over it.

use super::growth::{cold_prefix_counts, max_prefix_stats, Build, ColdRow, GrowthSettings, MaxRow};
use super::{fit_loglog, plot_loglog_to, Chart, CsvLog, Fit, Series, StudyRow, Style};
use crate::base::error::Result;
use crate::base::moves::Moves;
use crate::base::paths::Output;
use crate::base::provenance::Provenance;
use crate::cold;
use crate::run::report::Report;
use crate::run::wisdom;
use crate::table;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The quantity a growth study reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// c(N): the number of cold positions (g = 0) in 0..=N, from the `sieve` cold set.
    Cold,
    /// m(N): the largest Grundy value in 0..=N, from a full table.
    Max,
}

impl Quantity {
    pub fn name(self) -> &'static str {
        match self {
            Quantity::Cold => "cold",
            Quantity::Max => "max",
        }
    }
}

/// A checked study.
pub struct Study {
    pub quantity: Quantity,
    pub grid: Vec<u64>,
    pub moves: Moves,
    pub settings: GrowthSettings,
    /// The fit uses the rows with N >= this.
    pub fit_from: u64,
    /// The wisdom the planner chooses the table back-end from (`max`).
    pub wisdom: Option<Arc<wisdom::Source>>,
}

/// Where a study's files go, decided before any work.
pub struct Files<'a> {
    /// The CSV, as named (for the printed lines) and where it goes.
    pub out: (&'a Path, &'a Output),
    /// The plot, as named and where it goes, if asked.
    pub plot: Option<(&'a Path, &'a Output)>,
    /// Keep the rows already in the CSV and skip those points.
    pub resume: bool,
}

/// What a study reports while it runs.
pub enum Event {
    /// Rows were already in the CSV (`--resume`).
    Resumed { rows: usize },
    /// The one build is next, to N = `top`.
    Planned { top: u64 },
    /// The build starts (what is built, in words) ...
    Building(String),
    /// ... and ends.
    Built,
    /// A row was appended: its `row ...` line.
    Row(String),
}

/// The one-minute load average, NaN where the system reports none.
fn load() -> f64 {
    crate::base::provenance::load_average().unwrap_or(f64::NAN)
}

fn share(count: u64, n: u64) -> f64 {
    count as f64 / (n as f64 + 1.0)
}

impl Study {
    /// The table back-end the planner picks for N = `n` on this pool.
    fn table_at(
        &self,
        n: usize,
    ) -> &'static crate::registry::Entry<dyn crate::grundy::Builder<Moves>> {
        crate::run::planner::choose_table_from(
            self.wisdom.as_deref(),
            &self.moves,
            n,
            rayon::current_num_threads(),
        )
        .0
    }

    /// Refuses, before any work, a build at the grid's largest N, `to`, that would not fit in
    /// memory.
    pub fn check_memory(&self, to: u64) -> Result<()> {
        let limit = to as usize; // the grid's top, the checked --to
        let threads = rayon::current_num_threads();
        let (needed, what) = match self.quantity {
            Quantity::Cold => {
                let finder = (cold::reference().make)();
                let bits = (limit as u64 / 64 + 1) * 8;
                (
                    bits + finder.scratch_bytes(&self.moves, limit, threads),
                    format!("the sieve cold set for --to {to}"),
                )
            }
            Quantity::Max => {
                let entry = self.table_at(limit);
                let (name, builder) = (entry.name, (entry.make)());
                (
                    table::bytes_needed(&*builder, &self.moves, limit, threads),
                    format!("the '{name}' table for --to {to}"),
                )
            }
        };
        crate::base::memory::check_fits(needed, crate::base::memory::available_bytes(), &what)
    }

    /// Runs the study: the CSV opened (resumed or started), the points not in it read from
    /// one build, a row appended for each, then the fit and the plot of every row.
    pub fn run(&self, files: Files, mut on: impl FnMut(Event)) -> Result<Grown> {
        match self.quantity {
            Quantity::Cold => {
                let mut log = self.open_log::<ColdRow>(&files)?;
                self.measure_cold(&mut log, &mut on)?;
                self.finish(&files, log.rows(), |r| (r.n, r.cold as f64))
            }
            Quantity::Max => {
                let mut log = self.open_log::<MaxRow>(&files)?;
                self.measure_max(&mut log, &mut on)?;
                self.finish(&files, log.rows(), |r| (r.n, r.max_value as f64))
            }
        }
    }

    fn open_log<R: StudyRow<Settings = GrowthSettings>>(&self, files: &Files) -> Result<CsvLog<R>> {
        match files.out.1 {
            Output::File(path) if files.resume => CsvLog::resume(path, &self.settings),
            out => CsvLog::start(out),
        }
    }

    /// The grid points not yet in the log, ascending.
    fn todo<R: StudyRow>(&self, log: &CsvLog<R>, on: &mut impl FnMut(Event)) -> Vec<u64> {
        let done = log.done();
        if !done.is_empty() {
            on(Event::Resumed { rows: done.len() });
        }
        let key = self.quantity.name().to_string();
        let todo: Vec<u64> = self
            .grid
            .iter()
            .copied()
            .filter(|&n| !done.contains(&(key.clone(), n)))
            .collect();
        if let Some(&top) = todo.last() {
            on(Event::Planned { top });
        }
        todo
    }

    /// Builds the sieve cold set once at the largest pending N and appends one row per point.
    fn measure_cold(&self, log: &mut CsvLog<ColdRow>, on: &mut impl FnMut(Event)) -> Result<()> {
        let pending = self.todo(log, on);
        let Some(&top) = pending.last() else {
            return Ok(());
        };
        let provenance = Provenance::here(self.moves.label(), rayon::current_num_threads());
        let limit = top as usize; // on the grid, at most the checked --to
        let finder = (cold::reference().make)();
        on(Event::Building(format!("sieve cold set to N = {top}")));
        let load_start = load();
        let start = Instant::now();
        let set = finder.cold(&self.moves, limit);
        let seconds = start.elapsed().as_secs_f64();
        let load_end = load();
        on(Event::Built);
        for (&n, cold) in pending.iter().zip(cold_prefix_counts(&set, &pending)) {
            let row = ColdRow {
                n,
                cold,
                cold_share: share(cold, n),
                build: Build {
                    built_to: top,
                    seconds,
                    backend: cold::reference().name.into(),
                    load_start,
                    load_end,
                },
                provenance: provenance.clone(),
            };
            on(Event::Row(format!(
                "row quantity=cold n={n} cold={cold} cold_share={:.6} built_to={top} seconds={seconds:.3}",
                row.cold_share
            )));
            log.append(row)?;
        }
        Ok(())
    }

    /// Builds the table once at the largest pending N and appends one row per point.
    fn measure_max(&self, log: &mut CsvLog<MaxRow>, on: &mut impl FnMut(Event)) -> Result<()> {
        let pending = self.todo(log, on);
        let Some(&top) = pending.last() else {
            return Ok(());
        };
        let provenance = Provenance::here(self.moves.label(), rayon::current_num_threads());
        // on the grid, at most the checked --to
        let name = self.table_at(top as usize).name;
        on(Event::Building(format!("'{name}' table to N = {top}")));
        let load_start = load();
        let start = Instant::now();
        let table = table::build(name, &self.moves, top)?;
        let seconds = start.elapsed().as_secs_f64();
        let load_end = load();
        on(Event::Built);
        for stats in max_prefix_stats(table.values(), &pending) {
            let (mode, mode_count) = stats.mode();
            let cold = stats.histogram[0];
            let n = stats.n;
            let row = MaxRow {
                n,
                max_value: stats.max_value,
                max_first_at: stats.max_first_at,
                cold,
                cold_share: share(cold, n),
                mode,
                mode_count,
                counts: stats.counts_field(),
                build: Build {
                    built_to: top,
                    seconds,
                    backend: name.into(),
                    load_start,
                    load_end,
                },
                provenance: provenance.clone(),
            };
            on(Event::Row(format!(
                "row quantity=max n={n} max_value={} max_first_at={} cold={cold} mode={mode} \
                 built_to={top} seconds={seconds:.3}",
                row.max_value, row.max_first_at
            )));
            log.append(row)?;
        }
        Ok(())
    }

    /// The fit over the rows with N >= `fit_from`, and the plot of every row in the CSV.
    fn finish<R: StudyRow>(
        &self,
        files: &Files,
        rows: &[R],
        point: impl Fn(&R) -> (u64, f64),
    ) -> Result<Grown> {
        let mut points: Vec<(u64, f64)> = rows.iter().map(point).collect();
        points.sort_by_key(|p| p.0);
        let used: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.0 >= self.fit_from)
            .map(|&(n, y)| (n as f64, y))
            .collect();
        let fit = fit_loglog(&used);
        let mut plot = None;
        if let Some((name, out)) = files.plot {
            // A quantity that is 0 at every N (m(N) below the smallest move) has no point on
            // log axes; the CSV holds the answer, so this is not an error.
            let drawn = points.iter().any(|pt| pt.1 > 0.0);
            if drawn {
                plot_loglog_to(out, "--plot", &self.chart(&points, fit))?;
            }
            plot = Some((name.to_path_buf(), drawn));
        }
        Ok(Grown {
            quantity: self.quantity.name(),
            fit_from: self.fit_from,
            fitted_points: used.len(),
            fit,
            out: files.out.0.to_path_buf(),
            rows: rows.len(),
            plot,
        })
    }

    /// The log-log chart of `points` (sorted by N, at least one), with the fitted line.
    fn chart(&self, points: &[(u64, f64)], fit: Option<Fit>) -> Chart {
        let (title, y_label) = match self.quantity {
            Quantity::Cold => (
                "Cold positions c(N) in 0..=N (log-log)",
                "c(N), cold positions",
            ),
            Quantity::Max => (
                "Largest Grundy value m(N) in 0..=N (log-log)",
                "m(N), largest value",
            ),
        };
        let mut series = vec![Series {
            name: format!("{} ({})", self.quantity.name(), self.settings.moves),
            points: points.iter().map(|&(n, y)| (n as f64, y)).collect(),
            style: Style::Measured,
        }];
        if let Some(f) = fit {
            let lo = (self.fit_from.max(points[0].0)) as f64;
            let hi = points.last().map_or(lo, |p| p.0 as f64);
            series.push(Series {
                name: format!("fit: N^{:.3} over N >= {}", f.slope, self.fit_from),
                points: (0..=40)
                    .map(|i| {
                        let x = lo * (hi / lo).powf(i as f64 / 40.0);
                        (x, f.predict(x))
                    })
                    .collect(),
                style: Style::Reference,
            });
        }
        Chart {
            title: title.into(),
            x_label: "N (largest heap)".into(),
            y_label: y_label.into(),
            series,
        }
    }
}

/// What `growth` answers: the fit, the CSV written and the plot.
pub struct Grown {
    pub quantity: &'static str,
    pub fit_from: u64,
    /// The rows with N >= `fit_from`, also when they are too few for a line.
    pub fitted_points: usize,
    pub fit: Option<Fit>,
    /// The CSV as named, and the rows it holds.
    pub out: PathBuf,
    pub rows: usize,
    /// The plot as named, and whether it was drawn (not when every value is 0).
    pub plot: Option<(PathBuf, bool)>,
}

impl Grown {
    /// The `fit ...` line.
    fn fit_line(&self) -> String {
        let (quantity, fit_from) = (self.quantity, self.fit_from);
        match self.fit {
            Some(f) => format!(
                "fit quantity={quantity} slope={:.4} r2={:.5} points={} fit_from={fit_from}",
                f.slope, f.r2, self.fitted_points
            ),
            None => format!(
                "fit quantity={quantity} slope=NA r2=NA points={} fit_from={fit_from} (fewer than \
                 two positive points with N >= {fit_from})",
                self.fitted_points
            ),
        }
    }
}

impl Report for Grown {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", self.fit_line())?;
        writeln!(out, "wrote {} ({} rows)", self.out.display(), self.rows)?;
        match &self.plot {
            Some((p, true)) => writeln!(out, "wrote {}", p.display()),
            Some((p, false)) => writeln!(
                out,
                "no plot {}: every value is 0, which log axes cannot show",
                p.display()
            ),
            None => Ok(()),
        }
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "quantity": self.quantity,
            "fit_from": self.fit_from,
            "points": self.fitted_points,
            "slope": self.fit.map(|f| f.slope),
            "r2": self.fit.map(|f| f.r2),
            "out": self.out.display().to_string(),
            "rows": self.rows,
            "plot": self.plot.as_ref().filter(|p| p.1).map(|p| p.0.display().to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grown(points: &[(u64, f64)], fit_from: u64) -> Grown {
        let used: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.0 >= fit_from)
            .map(|&(n, y)| (n as f64, y))
            .collect();
        Grown {
            quantity: "cold",
            fit_from,
            fitted_points: used.len(),
            fit: fit_loglog(&used),
            out: "g.csv".into(),
            rows: points.len(),
            plot: None,
        }
    }

    #[test]
    fn fit_line_counts_points_from_the_threshold() {
        let pts: Vec<(u64, f64)> = [1_000u64, 10_000, 100_000, 1_000_000]
            .iter()
            .map(|&n| (n, 2.0 * (n as f64).powf(0.7)))
            .collect();
        let g = grown(&pts, 10_000);
        let line = g.fit_line();
        assert!((g.fit.unwrap().slope - 0.7).abs() < 1e-9, "{line}");
        assert!(line.contains("points=3 "), "{line}");
        let g = grown(&pts, 1_000_000);
        let line = g.fit_line();
        assert!(g.fit.is_none() && line.contains("slope=NA") && line.contains("points=1 "));
    }
}
