//! `nimsquare growth`: the growth study. Reads c(N) (cold positions in 0..=N) or m(N) (the
//! largest Grundy value up to N) on a geometric grid of N, writes one CSV row per N, prints
//! the fitted exponent of the quantity against N, and optionally draws a log-log SVG. The grid,
//! CSV log, fit and plot are the scaling study's ([`nimsquare::instruments::scaling`]); this file is parse
//! (every refusal before any work), measure, render.

use super::args::{limit_parser, GridArgs, MovesArg, StudyFileArgs, StudyOutputs};
use super::common::{forecast, wisdom, CliResult};
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::base::moves::Moves;
use nimsquare::base::paths::Output;
use nimsquare::base::provenance::Provenance;
use nimsquare::cold;
use nimsquare::instruments::scaling::growth::{
    cold_prefix_counts, max_prefix_stats, Build, ColdRow, GrowthSettings, MaxRow, COLD_HEADER,
    MAX_HEADER,
};
use nimsquare::instruments::scaling::{self, Chart, CsvLog, Series, StudyRow, Style};
use nimsquare::table;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

/// The quantity a growth study reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Quantity {
    /// c(N): the number of cold positions (g = 0) in 0..=N, from the `sieve` cold set.
    Cold,
    /// m(N): the largest Grundy value in 0..=N, from a full table.
    Max,
}

impl Quantity {
    fn name(self) -> &'static str {
        match self {
            Quantity::Cold => "cold",
            Quantity::Max => "max",
        }
    }
}

/// The long help. Set on the subcommand in `cli/mod.rs`: clap takes the variant's doc
/// comment over an attribute on this struct.
pub const LONG_ABOUT: &str =
    "Reads how a quantity of one heap grows with N (the growth study).\n\n\
    --quantity cold: c(N), the number of cold positions (g = 0) in 0..=N, from the `sieve` \
    cold-set back-end (N up to 4294967295). --quantity max: m(N), the largest Grundy value in \
    0..=N and where it first occurs, with the count of each value, from a full table (the \
    planner's choice of back-end; 2 bytes per position).\n\n\
    The grid is --points values of N from --from to --to, equally spaced in log N. Since g(n) \
    does not depend on the limit a table is built to, one cold set or table is built at the \
    largest N not yet in --out and every grid point is read from it as a prefix; `seconds` in \
    each row is that one build's time, `built_to` its N. One CSV row per N is appended to --out \
    and flushed at once. An existing --out is never replaced silently: pass --force to replace \
    it, or --resume to skip the N already there (refused when the file holds the other \
    quantity or other --moves). Stdout gets one `row ...` line per N and at the end one \
    `fit ...` line: the least-squares slope of log(quantity) on log(N) over the rows with \
    N >= --fit-from (default 10000, for both quantities), its R^2 and the number of such \
    rows. A fit over a finite range is a description of that range, not an asymptotic law. \
    --plot draws the quantity against N on log-log axes with the fitted line dashed. A spinner \
    is drawn on stderr only when stderr is a terminal.";

#[derive(clap::Args)]
pub struct Args {
    /// The quantity to read: cold (the cold count c(N)) or max (the largest value m(N)).
    #[arg(long, value_enum, value_name = "cold|max")]
    quantity: Quantity,
    #[command(flatten)]
    grid: GridArgs,
    /// The CSV file to write, row by row (an existing one needs --force or --resume; a FIFO
    /// or a device is written in place, a symlink through to its target).
    #[arg(long, value_name = "FILE.csv", default_value = "growth.csv")]
    out: PathBuf,
    #[command(flatten)]
    files: StudyFileArgs,
    /// Fit only the rows with N >= this (default 10000: below it both quantities are small
    /// integers whose steps bend the line).
    #[arg(long, value_name = "N", default_value = "10000", value_parser = limit_parser(),
          allow_hyphen_values = true)]
    fit_from: Limit,
    #[command(flatten)]
    moves: MovesArg,
}

/// A checked study: everything `run` needs, refused arguments already turned away.
struct Study {
    quantity: Quantity,
    grid: Vec<u64>,
    moves: Moves,
    settings: GrowthSettings,
    fit_from: u64,
    /// `--out` as named, for the printed lines.
    out: PathBuf,
    /// `--plot` as named, for the printed lines.
    plot: Option<PathBuf>,
    /// Where the files go, decided before any work.
    files: StudyOutputs,
    resume: bool,
}

pub fn run(args: Args) -> CliResult {
    let plan = parse(args)?;
    match plan.quantity {
        Quantity::Cold => {
            let mut log = open_log::<ColdRow>(&plan)?;
            measure_cold(&plan, &mut log)?;
            render(&plan, log.rows(), |r| (r.n, r.cold as f64))
        }
        Quantity::Max => {
            let mut log = open_log::<MaxRow>(&plan)?;
            if let Some(&top) = todo(&plan, &log).last() {
                // The one build at the largest pending N, as `solve` forecasts it.
                let planned =
                    nimsquare::run::planner::Plan::new(&nimsquare::run::planner::Request {
                        moves: plan.moves.clone(),
                        limit: nimsquare::base::limit::Limit::new(top)?,
                        heaps: 3,
                        table: nimsquare::run::planner::AUTO.into(),
                        count: nimsquare::run::planner::AUTO.into(),
                        wisdom: Some(wisdom()),
                    })?;
                forecast(&planned);
            }
            measure_max(&plan, &mut log)?;
            render(&plan, log.rows(), |r| (r.n, r.max_value as f64))
        }
    }
}

/// Checks every argument, output path and the memory of the one build, before any work.
fn parse(args: Args) -> Result<Study> {
    let grid = args.grid.grid()?;
    let files = check_outputs(&args)?;
    let study = Study {
        quantity: args.quantity,
        grid,
        settings: GrowthSettings {
            moves: args.moves.moves.label(),
        },
        moves: args.moves.moves,
        fit_from: args.fit_from.as_u64(),
        out: args.out,
        plot: args.files.plot,
        files,
        resume: args.files.resume,
    };
    check_memory(&study, args.grid.to.as_u64())?;
    Ok(study)
}

/// An earlier study is never replaced without --force; both files must be writable; a
/// resumed file must hold the same quantity.
fn check_outputs(args: &Args) -> Result<StudyOutputs> {
    let files = args.files.check(&args.out)?;
    if files.occupied && args.files.resume {
        let first = std::fs::read_to_string(&args.out)
            .map_err(|e| Error::Invalid(format!("--out {}: {e}", args.out.display())))?;
        let first = first.lines().next().unwrap_or("");
        let other = match args.quantity {
            Quantity::Cold => (first == MAX_HEADER).then_some("max"),
            Quantity::Max => (first == COLD_HEADER).then_some("cold"),
        };
        if let Some(other) = other {
            return Err(Error::Invalid(format!(
                "--resume: {} holds --quantity {other}, this run has --quantity {}; use the \
                 same quantity, or write a new study with another --out",
                args.out.display(),
                args.quantity.name()
            )));
        }
    }
    Ok(files)
}

/// Refuses, before any work, a build at the grid's largest N that would not fit in memory.
fn check_memory(plan: &Study, to: u64) -> Result<()> {
    let limit = to as usize; // the grid's top, the checked --to
    let threads = rayon::current_num_threads();
    let (needed, what) = match plan.quantity {
        Quantity::Cold => {
            let finder = (cold::reference().make)();
            let bits = (limit as u64 / 64 + 1) * 8;
            (
                bits + finder.scratch_bytes(&plan.moves, limit, threads),
                format!("the sieve cold set for --to {to}"),
            )
        }
        Quantity::Max => {
            let entry = nimsquare::run::planner::choose_table_from(
                Some(&wisdom()),
                &plan.moves,
                limit,
                threads,
            )
            .0;
            let (name, builder) = (entry.name, (entry.make)());
            (
                table::bytes_needed(&*builder, &plan.moves, limit, threads),
                format!("the '{name}' table for --to {to}"),
            )
        }
    };
    nimsquare::base::memory::check_fits(needed, nimsquare::base::memory::available_bytes(), &what)
}

fn open_log<R: StudyRow<Settings = GrowthSettings>>(plan: &Study) -> Result<CsvLog<R>> {
    match &plan.files.out {
        Output::File(path) if plan.resume => CsvLog::resume(path, &plan.settings),
        out => CsvLog::start(out),
    }
}

/// The grid points not yet in the log, ascending.
fn todo<R: StudyRow>(plan: &Study, log: &CsvLog<R>) -> Vec<u64> {
    let done = log.done();
    if !done.is_empty() {
        println!(
            "resume: {} rows already in {}",
            done.len(),
            plan.out.display()
        );
    }
    let key = plan.quantity.name().to_string();
    plan.grid
        .iter()
        .copied()
        .filter(|&n| !done.contains(&(key.clone(), n)))
        .collect()
}

/// A spinner on stderr while the one build runs (hidden unless stderr is a terminal).
fn spinner(message: String) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}")
            .expect("a valid template"),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar.set_message(message);
    bar
}

fn share(count: u64, n: u64) -> f64 {
    count as f64 / (n as f64 + 1.0)
}

/// Builds the sieve cold set once at the largest pending N and appends one row per point.
fn measure_cold(plan: &Study, log: &mut CsvLog<ColdRow>) -> Result<()> {
    let pending = todo(plan, log);
    let Some(&top) = pending.last() else {
        return Ok(());
    };
    let provenance = Provenance::here(plan.moves.label(), rayon::current_num_threads());
    let limit = top as usize; // on the grid, at most the checked --to
    let finder = (cold::reference().make)();
    let bar = spinner(format!("sieve cold set to N = {top}"));
    let load_start = load();
    let start = Instant::now();
    let set = finder.cold(&plan.moves, limit);
    let seconds = start.elapsed().as_secs_f64();
    let load_end = load();
    bar.finish_and_clear();
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
        println!(
            "row quantity=cold n={n} cold={cold} cold_share={:.6} built_to={top} seconds={seconds:.3}",
            row.cold_share
        );
        log.append(row)?;
    }
    Ok(())
}

/// The one-minute load average, NaN where the system reports none.
fn load() -> f64 {
    nimsquare::base::provenance::load_average().unwrap_or(f64::NAN)
}

/// Builds the table once at the largest pending N and appends one row per point.
fn measure_max(plan: &Study, log: &mut CsvLog<MaxRow>) -> Result<()> {
    let pending = todo(plan, log);
    let Some(&top) = pending.last() else {
        return Ok(());
    };
    let threads = rayon::current_num_threads();
    let provenance = Provenance::here(plan.moves.label(), threads);
    let name = nimsquare::run::planner::choose_table_from(
        Some(&wisdom()),
        &plan.moves,
        top as usize, // on the grid, at most the checked --to
        threads,
    )
    .0
    .name;
    let bar = spinner(format!("'{name}' table to N = {top}"));
    let load_start = load();
    let start = Instant::now();
    let table = table::build(name, &plan.moves, top)?;
    let seconds = start.elapsed().as_secs_f64();
    let load_end = load();
    bar.finish_and_clear();
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
        println!(
            "row quantity=max n={n} max_value={} max_first_at={} cold={cold} mode={mode} \
             built_to={top} seconds={seconds:.3}",
            row.max_value, row.max_first_at
        );
        log.append(row)?;
    }
    Ok(())
}

/// The `fit ...` line over the (N, quantity) points with N >= `fit_from`; `points` is always
/// the number of such points, also when they are too few for a line.
fn fit_line(
    quantity: &str,
    points: &[(u64, f64)],
    fit_from: u64,
) -> (String, Option<scaling::Fit>) {
    let used: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.0 >= fit_from)
        .map(|&(n, y)| (n as f64, y))
        .collect();
    let fit = scaling::fit_loglog(&used);
    let line = match fit {
        Some(f) => format!(
            "fit quantity={quantity} slope={:.4} r2={:.5} points={} fit_from={fit_from}",
            f.slope,
            f.r2,
            used.len()
        ),
        None => format!(
            "fit quantity={quantity} slope=NA r2=NA points={} fit_from={fit_from} (fewer than \
             two positive points with N >= {fit_from})",
            used.len()
        ),
    };
    (line, fit)
}

/// The fit line, the summary, and the plot of every row in the CSV.
fn render<R: StudyRow>(plan: &Study, rows: &[R], point: impl Fn(&R) -> (u64, f64)) -> CliResult {
    let mut points: Vec<(u64, f64)> = rows.iter().map(point).collect();
    points.sort_by_key(|p| p.0);
    let q = plan.quantity.name();
    let (line, fit) = fit_line(q, &points, plan.fit_from);
    println!("{line}");
    println!("wrote {} ({} rows)", plan.out.display(), rows.len());
    if let (Some(p), Some(plot)) = (
        plan.plot.as_ref(),
        plan.files
            .plot
            .as_ref()
            .filter(|_| points.iter().any(|pt| pt.1 > 0.0)),
    ) {
        let (title, y_label) = match plan.quantity {
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
            name: format!("{q} ({})", plan.settings.moves),
            points: points.iter().map(|&(n, y)| (n as f64, y)).collect(),
            style: Style::Measured,
        }];
        if let Some(f) = fit {
            let lo = (plan.fit_from.max(points[0].0)) as f64;
            let hi = points.last().map_or(lo, |p| p.0 as f64);
            series.push(Series {
                name: format!("fit: N^{:.3} over N >= {}", f.slope, plan.fit_from),
                points: (0..=40)
                    .map(|i| {
                        let x = lo * (hi / lo).powf(i as f64 / 40.0);
                        (x, f.predict(x))
                    })
                    .collect(),
                style: Style::Reference,
            });
        }
        let chart = Chart {
            title: title.into(),
            x_label: "N (largest heap)".into(),
            y_label: y_label.into(),
            series,
        };
        scaling::plot_loglog_to(plot, "--plot", &chart)?;
        println!("wrote {}", p.display());
    } else if let Some(p) = &plan.plot {
        // A quantity that is 0 at every N (m(N) below the smallest move) has no point on
        // log axes; the CSV holds the answer, so this is not an error.
        println!(
            "no plot {}: every value is 0, which log axes cannot show",
            p.display()
        );
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_line_counts_points_from_the_threshold() {
        let pts: Vec<(u64, f64)> = [1_000u64, 10_000, 100_000, 1_000_000]
            .iter()
            .map(|&n| (n, 2.0 * (n as f64).powf(0.7)))
            .collect();
        let (line, fit) = fit_line("cold", &pts, 10_000);
        let f = fit.unwrap();
        assert!((f.slope - 0.7).abs() < 1e-9, "{line}");
        assert!(line.contains("points=3 "), "{line}");
        let (line, fit) = fit_line("cold", &pts, 1_000_000);
        assert!(fit.is_none() && line.contains("slope=NA") && line.contains("points=1 "));
    }
}
