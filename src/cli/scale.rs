//! `nimsquare scale`: the scaling study. Times table back-ends on a geometric grid of N,
//! writes one CSV row per (back-end, N) as soon as it is measured, prints the fitted exponent
//! of each back-end, and optionally draws a log-log SVG. The fitting, CSV and plot code lives
//! in [`nimsquare::instruments::scaling`]; this file is parse (every refusal before any work), measure, render.

use super::args::{GridArgs, MovesArg, RepeatArg, StudyFileArgs};
use super::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::moves::Moves;
use nimsquare::instruments::check::Checker;
use nimsquare::instruments::roofline::{self, primitives, RateBook};
use nimsquare::instruments::scaling::{self, CsvLog, Row, Settings, FIT_MIN_N};
use nimsquare::table;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
#[command(
    long_about = "Times table back-ends on a geometric grid of N (the scaling study).\n\n\
    For each N from --from to --to (--points values, equally spaced in log N) and each back-end, \
    builds the table --repeat times (after one untimed warm-up build when a point is under \
    2^30 option steps, N below about 1.3·10^6 for the squares, so that what ran before, such as the \
    roofline primitives, does not slow its first timed build) and appends one CSV row (median and minimum seconds, option \
    steps S(N), ns per step, max value, threads, moves, git revision, CPU, vector path, and the \
    roofline: bound ns per step, binding resource, efficiency, from primitives measured once per N) \
    to --out, flushed at once, so an interrupted run keeps every finished point. An existing --out is never replaced \
    silently: pass --force to replace it, or --resume to skip the points already there (refused \
    when the file was measured with other --moves, --threads or --repeat, or by an earlier version \
    without the roofline columns; the back-end list may differ). The CSV is plain, one header line, readable as is by pandas.read_csv or Python's \
    csv.DictReader. Tables of all back-ends at one N must be identical, or the run stops. \
    Stdout gets one `row ...` line per point, `skip ...` lines, and at the end one `fit ...` line \
    per back-end: the least-squares slope of log(seconds) on log(N) over N >= 10^4, its R^2 and \
    the number of such points. A progress bar, weighted by the option steps of each point, is \
    drawn on stderr only when stderr is a terminal."
)]
pub struct Args {
    /// Table back-ends to time, comma-separated (default: every one in `nimsquare list` but
    /// the naive controls, which are there to check, not to race).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    table: Vec<String>,
    #[command(flatten)]
    grid: GridArgs,
    #[command(flatten)]
    repeat: RepeatArg,
    /// The CSV file to write (an existing one needs --force or --resume).
    #[arg(long, value_name = "FILE.csv", default_value = "scaling.csv")]
    out: PathBuf,
    #[command(flatten)]
    files: StudyFileArgs,
    /// Skip a back-end at every N where one run is predicted (from its fitted slope) to take
    /// more than this many seconds; each skip is printed as a `skip ...` line.
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    skip_over: Option<f64>,
    #[command(flatten)]
    moves: MovesArg,
}

/// A checked study: everything `run` needs, refused arguments already turned away.
struct Study {
    names: Vec<&'static str>,
    grid: Vec<u64>,
    moves: Moves,
    settings: Settings,
    skip_over: Option<f64>,
    out: PathBuf,
    plot: Option<PathBuf>,
    resume: bool,
}

pub fn run(args: Args) -> CliResult {
    let plan = parse(args)?;
    let mut log = if plan.resume {
        CsvLog::resume(&plan.out, &plan.settings)?
    } else {
        CsvLog::create(&plan.out)?
    };
    measure(&plan, &mut log)?;
    render(&plan, &log)
}

/// Checks every argument and output path, before any work.
fn parse(args: Args) -> Result<Study> {
    let grid = args.grid.grid()?;
    check_numbers(&args)?;
    let names = backend_names(&args.table)?;
    args.files.check(&args.out)?;
    let repeats = args.repeat.repeat;
    Ok(Study {
        names,
        grid,
        settings: Settings {
            moves: args.moves.moves.label(),
            threads: rayon::current_num_threads(),
            repeats,
        },
        moves: args.moves.moves,
        skip_over: args.skip_over,
        out: args.out,
        plot: args.files.plot,
        resume: args.files.resume,
    })
}

fn check_numbers(args: &Args) -> Result<()> {
    let refuse = |msg: String| Err(Error::Invalid(msg));
    match args.skip_over {
        Some(s) if s.is_nan() || s <= 0.0 => refuse(format!(
            "--skip-over must be a positive number of seconds, got {s}"
        )),
        _ => Ok(()),
    }
}

/// The back-ends to time, in the order given, without repeats (all of them by default).
fn backend_names(asked: &[String]) -> Result<Vec<&'static str>> {
    if asked.is_empty() {
        return Ok(nimsquare::registry::fast(table::BACKENDS)
            .map(|e| e.name)
            .collect());
    }
    let mut names = Vec::new();
    for n in asked {
        let name = table::find(n.trim())?.name;
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

/// The progress bar (hidden unless stderr is a terminal), advanced by work, not by points:
/// one point weighs its option steps times the repeats, so the bar does not stand still on
/// the last, largest points.
struct Progress {
    bar: indicatif::ProgressBar,
    points: usize,
    at: usize,
}

impl Progress {
    fn new(total_work: u64, points: usize) -> Progress {
        let bar = if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total_work.max(1));
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {percent:>3}% of the work  {msg}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar
        } else {
            indicatif::ProgressBar::hidden()
        };
        Progress { bar, points, at: 0 }
    }

    /// Prints a line on stdout without tearing the bar.
    fn say(&self, line: String) {
        self.bar.suspend(|| println!("{line}"));
    }

    /// Shows the point about to be measured.
    fn start(&mut self, name: &str, n: u64) {
        self.at += 1;
        self.bar.set_message(format!(
            "point {}/{}: {name} at N = {n}",
            self.at, self.points
        ));
    }

    /// Counts a point's work as done (measured or skipped).
    fn finish(&self, work: u64) {
        self.bar.inc(work);
    }
}

/// The work of one point: option steps of the table at `n`, times the repeats.
fn work(moves: &Moves, n: u64, repeats: usize) -> u64 {
    let steps = moves.option_steps(n as usize).max(1);
    u64::try_from(steps.saturating_mul(repeats as u128)).unwrap_or(u64::MAX)
}

/// Measures every point of the grid not yet in `log`, appending each row as it comes.
fn measure(plan: &Study, log: &mut CsvLog) -> Result<()> {
    let done = log.done();
    let todo: Vec<(&'static str, u64)> = plan
        .grid
        .iter()
        .flat_map(|&n| plan.names.iter().map(move |&b| (b, n)))
        .filter(|(b, n)| !done.contains(&(b.to_string(), *n)))
        .collect();
    let repeats = plan.settings.repeats;
    let total = todo.iter().fold(0u64, |s, &(_, n)| {
        s.saturating_add(work(&plan.moves, n, repeats))
    });
    let mut progress = Progress::new(total, todo.len());
    if !done.is_empty() {
        progress.say(format!(
            "resume: {} rows already in {}",
            done.len(),
            plan.out.display()
        ));
    }
    let host = (scaling::git_rev(), scaling::cpu_model());
    let mut skipped: Vec<&'static str> = Vec::new();
    // The first table measured at each N judges the others there (the one checker).
    let mut checker: Option<Checker> = None;
    // The primitive rates at the current N, measured with its first table (once per N and
    // thread count, again after a minute).
    let mut book: Option<RateBook> = None;
    for (name, n) in todo {
        if checker
            .as_ref()
            .is_some_and(|c| c.judge_table().limit() as u64 != n)
        {
            checker = None;
        }
        progress.start(name, n);
        if let Some(line) = skip_reason(plan, log, &mut skipped, name, n) {
            progress.say(line);
        } else {
            let (mut row, table) = measure_point(plan, name, n, &host)?;
            fill_bound(&mut row, &mut book, plan, &table)?;
            check_point(&mut checker, plan, name, table)?;
            progress.say(row_line(&row));
            log.append(row)?;
        }
        progress.finish(work(&plan.moves, n, repeats));
    }
    progress.bar.finish_and_clear();
    Ok(())
}

/// The `skip ...` line when `name` is not measured at `n`: skipped at a smaller N already, or
/// predicted over the `--skip-over` budget (then it is skipped from here on).
fn skip_reason(
    plan: &Study,
    log: &CsvLog,
    skipped: &mut Vec<&'static str>,
    name: &'static str,
    n: u64,
) -> Option<String> {
    if skipped.contains(&name) {
        return Some(format!(
            "skip backend={name} n={n} reason=skipped_at_smaller_n"
        ));
    }
    let budget = plan.skip_over?;
    let p = scaling::predict_seconds(log.rows(), name, n)?;
    if p <= budget {
        return None;
    }
    skipped.push(name);
    Some(format!(
        "skip backend={name} n={n} predicted_seconds={p:.1} budget_seconds={budget}"
    ))
}

/// Compares the table `name` built at one N with the first one measured there (which becomes
/// the judge when there is none yet); a difference stops the study, naming both.
fn check_point(
    checker: &mut Option<Checker>,
    plan: &Study,
    name: &'static str,
    table: table::Table,
) -> Result<()> {
    nimsquare::instruments::check::against_first(checker, &plan.moves, name, table)
}

/// Points of fewer option steps than this get one untimed build before the timed ones: a
/// build of micro- to milliseconds is slowed by what ran just before it in the process
/// (results/big-n.md, target 4). Above it one build costs a second or more, and a warm-up
/// would double the study for no visible effect.
pub const WARM_UP_BELOW_STEPS: u128 = 1 << 30;

/// Builds the table of `name` at `n` --repeat times (after one untimed warm-up build below
/// [`WARM_UP_BELOW_STEPS`]): the row and the last table.
fn measure_point(
    plan: &Study,
    name: &str,
    n: u64,
    (git_rev, cpu): &(String, String),
) -> Result<(Row, table::Table)> {
    let limit = n as usize; // on the grid, between the checked --from and --to
    let builder = (table::find(name)?.make)();
    let steps = plan.moves.option_steps(limit);
    if steps < WARM_UP_BELOW_STEPS {
        drop(builder.build(&plan.moves, limit));
    }
    let mut times = Vec::with_capacity(plan.settings.repeats);
    let mut table = None;
    for _ in 0..plan.settings.repeats {
        drop(table.take()); // only the last repeat's table is held
        let start = Instant::now();
        let t = builder.build(&plan.moves, limit);
        times.push(start.elapsed().as_secs_f64());
        table = Some(t);
    }
    let table = table.expect("at least one repeat");
    let med = scaling::median(&times);
    let row = Row {
        backend: name.to_string(),
        n,
        seconds_median: med,
        seconds_min: times.iter().copied().fold(f64::INFINITY, f64::min),
        repeats: plan.settings.repeats,
        option_steps: steps,
        ns_per_step: if steps > 0 {
            med * 1e9 / steps as f64
        } else {
            0.0
        },
        max_value: table.max_value(),
        threads: plan.settings.threads,
        moves: plan.settings.moves.clone(),
        git_rev: git_rev.clone(),
        cpu: cpu.clone(),
        isa: nimsquare::base::isa::active().name().to_string(),
        // Filled by `fill_bound` once the table is built.
        bound_ns_per_step: f64::NAN,
        bound_resource: String::new(),
        efficiency: f64::NAN,
    };
    Ok((row, table))
}

/// Fills the row's roofline columns: its back-end's cost model on this table, at the
/// primitive rates measured at this N ([`nimsquare::instruments::roofline`]).
fn fill_bound(
    row: &mut Row,
    book: &mut Option<RateBook>,
    plan: &Study,
    table: &table::Table,
) -> Result<()> {
    if book
        .as_ref()
        .is_none_or(|b| b.shape().limit != table.limit())
    {
        let shape = primitives::Shape::of_table(&plan.moves, table);
        *book = Some(RateBook::new(shape, primitives::Budget::QUICK));
    }
    let book = book.as_mut().expect("set above");
    let model = table::find(&row.backend)?.model;
    let workload = table.workload(&plan.moves, plan.settings.threads);
    let rates = book.rates(roofline::threads_for(&model, plan.settings.threads));
    let b = roofline::bound(&(model.demand)(&workload), &rates);
    let steps = (row.option_steps as f64).max(1.0);
    row.bound_ns_per_step = b.seconds * 1e9 / steps;
    row.bound_resource = b.resource.name().to_string();
    row.efficiency = roofline::efficiency(b.seconds, row.seconds_median);
    Ok(())
}

fn row_line(r: &Row) -> String {
    format!(
        "row backend={} n={} seconds_median={:.6} seconds_min={:.6} ns_per_step={:.3} max_value={} bound_ns_per_step={:.3} bound_resource={} efficiency={:.3}",
        r.backend,
        r.n,
        r.seconds_median,
        r.seconds_min,
        r.ns_per_step,
        r.max_value,
        r.bound_ns_per_step,
        r.bound_resource,
        r.efficiency
    )
}

/// The `fit ...` line of one back-end; `points` is always the number of rows with
/// N >= [`FIT_MIN_N`], also when they are too few for a line.
fn fit_line(rows: &[Row], name: &str) -> String {
    let points = scaling::fit_points(rows, name);
    match scaling::fit_rows(rows, name) {
        Some(f) => format!(
            "fit backend={name} slope={:.3} r2={:.4} points={points} min_n={FIT_MIN_N}",
            f.slope, f.r2
        ),
        None => format!(
            "fit backend={name} slope=NA r2=NA points={points} min_n={FIT_MIN_N} (fewer than two points with N >= {FIT_MIN_N})"
        ),
    }
}

/// The fit lines, the summary, and the plot of every back-end in the CSV.
fn render(plan: &Study, log: &CsvLog) -> CliResult {
    for name in &plan.names {
        println!("{}", fit_line(log.rows(), name));
    }
    println!("wrote {} ({} rows)", plan.out.display(), log.rows().len());
    if let Some(p) = &plan.plot {
        let mut in_csv: Vec<String> = Vec::new();
        for r in log.rows() {
            if !in_csv.contains(&r.backend) {
                in_csv.push(r.backend.clone());
            }
        }
        scaling::plot_svg(p, log.rows(), &in_csv)?;
        println!("wrote {} ({} back-ends)", p.display(), in_csv.len());
    }
    Ok(0)
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
            threads: 1,
            moves: "squares".into(),
            git_rev: "r".into(),
            cpu: "c".into(),
            isa: "scalar".into(),
            bound_ns_per_step: 0.5,
            bound_resource: "store".into(),
            efficiency: 0.5,
        }
    }

    #[test]
    fn fit_line_counts_the_points_it_could_not_fit() {
        // One row at N = 10 000: no line, but one point at or above the minimum.
        let line = fit_line(&[row(1_000), row(10_000)], "a");
        assert!(
            line.contains("slope=NA") && line.contains("points=1 "),
            "{line}"
        );
        assert!(fit_line(&[], "a").contains("points=0 "));
    }

    #[test]
    fn work_weighs_points_by_option_steps_and_repeats() {
        let sq = Moves::Squares;
        assert_eq!(work(&sq, 10_000, 3), 3 * 661_750);
        assert_eq!(work(&sq, 0, 1), 1);
    }
}
