//! `nimsquare scale`: the scaling study. Times table back-ends (of a subtraction game, or
//! with `--octal` of an octal game) on a geometric grid of N,
//! writes one CSV row per (back-end, N) as soon as it is measured, prints the fitted exponent
//! of each back-end, and optionally draws a log-log SVG. The study itself (what remains, the
//! timing, the checks, the roofline bound, the skips) is
//! [`nimsquare::instruments::scaling::study`]; this file is parse (every refusal before any
//! work), the progress bar and the printed lines, render.

use super::args::{GameArgs, GridArgs, RepeatArg, StudyFileArgs, StudyOutputs, TablesArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::paths::Output;
use nimsquare::instruments::scaling::scaled::Scaled;
use nimsquare::instruments::scaling::study::{Event, Skip, Study, WARM_UP_BELOW_STEPS};
use nimsquare::instruments::scaling::{CsvLog, Row, Settings};
use nimsquare::run::planner;
use nimsquare::run::report;
use nimsquare::run::workload::Subject;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    long_about = "Times table back-ends on a geometric grid of N (the scaling study).\n\n\
    For each N from --from to --to (--points values, equally spaced in log N), builds the table \
    of each back-end once untimed when the point is under 2^30 option steps (N below about \
    1.3·10^6 for the squares), so that what ran before, such as the roofline primitives, does \
    not slow a first timed build; then --repeat rounds, each timing every back-end once, in an \
    order that rotates from round to round, so that no back-end is always timed first or after \
    the same one. After its last build, a back-end gets one CSV row (median and minimum \
    seconds, option steps S(N), ns per step, max value, threads, moves, git revision, CPU, \
    vector path, and the roofline: bound ns per step, binding resource, efficiency, from \
    primitives measured once per N) in --out, flushed at once, so an interrupted run keeps every finished row (an N cut short is timed again, for its missing back-ends, by --resume). An existing --out is never replaced \
    silently: pass --force to replace it, or --resume to skip the points already there (refused \
    when the file was measured with other --moves, --threads or --repeat, or by an earlier version \
    without the roofline columns; the back-end list may differ). The CSV is plain, one header line, readable as is by pandas.read_csv or Python's \
    csv.DictReader. Tables of all back-ends at one N must be identical, or the run stops. \
    Stdout gets one `row ...` line per point, `skip ...` lines, and at the end one `fit ...` line \
    per back-end: the least-squares slope of log(seconds) on log(N) over N >= 10^4, its 95% \
    confidence interval (slope_lo, slope_hi: Student's t for points - 2 degrees of freedom \
    times the slope's standard error; NA below three points), its R^2 and the number of such \
    points. --plot draws two panels, seconds and ns per option step against N, with each \
    back-end's slope and interval in the legend. A progress bar, weighted by the option steps of each point, is \
    drawn on stderr only when stderr is a terminal.\n\n\
    With --octal CODE the tables are that octal game's (0.6, .137, grundy), built by the octal \
    back-ends (--table names them; default every one but the control octal-naive), the unit is \
    the octal game's option steps (every removal and every split pair), and the `moves` column \
    holds the code. `--table auto` (subtraction games only) times the one the planner picks at \
    each N (wisdom or built-in, as `solve` would), as a row named auto."
)]
pub struct Args {
    #[command(flatten)]
    tables: TablesArg,
    #[command(flatten)]
    grid: GridArgs,
    #[command(flatten)]
    repeat: RepeatArg,
    /// The CSV file to write, row by row (an existing one needs --force or --resume; a FIFO
    /// or a device is written in place, a symlink through to its target).
    #[arg(long, value_name = "FILE.csv", default_value = "scaling.csv")]
    out: PathBuf,
    #[command(flatten)]
    files: StudyFileArgs,
    /// Skip a back-end at every N where one run is predicted (from its fitted slope) to take
    /// more than this many seconds; each skip is printed as a `skip ...` line.
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    skip_over: Option<f64>,
    #[command(flatten)]
    game: GameArgs,
}

/// A checked invocation: the study and where its results go, refused arguments already
/// turned away.
struct Plan {
    study: Study,
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
    let mut log = match &plan.files.out {
        Output::File(path) if plan.resume => CsvLog::resume(path, &plan.study.settings)?,
        out => CsvLog::start(out)?,
    };
    // The planner forecasts the builds of a workload with the counts capability only.
    if let Some(moves) = plan.study.game.counts() {
        let builds: Vec<_> = plan
            .study
            .todo(&log)
            .into_iter()
            .map(|(name, n)| {
                let warm_up = plan.study.game.option_steps(n as usize) < WARM_UP_BELOW_STEPS;
                let times = plan.study.settings.repeats as u64 + u64::from(warm_up);
                let chosen = plan.study.entry(name, n).expect("checked").name();
                let entry = nimsquare::table::find(chosen).expect("a table back-end");
                (entry, n as usize, times)
            })
            .collect();
        super::common::forecast_builds(moves, &builds);
    }
    measure(&plan, &mut log)?;
    finish(&plan, &log)
}

/// Checks every argument and output path, before any work.
fn parse(args: Args) -> Result<Plan> {
    let grid = args.grid.grid()?;
    check_numbers(&args)?;
    let game = args.game.subject()?;
    let names = backend_names(&game, &args.tables.table)?;
    // `solve`'s rule for the naive controls: one named past the N it affords would run for
    // minutes to hours at the top of the grid.
    let top = grid.last().copied().unwrap_or(0) as usize;
    for &name in names.iter().filter(|&&n| n != planner::AUTO) {
        game.check_affords(
            game.find(name)?,
            "--to",
            top,
            "leave it out of --table, or lower --to",
        )?;
    }
    let files = args.files.check(&args.out)?;
    let repeats = args.repeat.repeat;
    Ok(Plan {
        study: Study {
            names,
            wisdom: Some(super::common::wisdom()),
            grid,
            settings: Settings {
                moves: game.label(),
                threads: rayon::current_num_threads(),
                repeats,
            },
            game,
            skip_over: args.skip_over,
        },
        out: args.out,
        plot: args.files.plot,
        files,
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

/// The back-ends of `game`'s stage to time, in the order given, without repeats (all but the
/// controls by default); `auto` only for a subtraction game.
fn backend_names(game: &Subject, asked: &[String]) -> Result<Vec<&'static str>> {
    if asked.is_empty() {
        return Ok(game.fast().iter().map(|b| b.name()).collect());
    }
    // `auto` is the planner of a workload with the counts capability
    let subtraction = game.counts().is_some();
    let mut names = Vec::new();
    for n in asked {
        let name = match n.trim() {
            planner::AUTO if subtraction => planner::AUTO,
            other => game
                .find(other)
                .map_err(|e| match e {
                    Error::UnknownBackend {
                        stage,
                        name,
                        mut valid,
                    } if subtraction => {
                        valid.insert(0, planner::AUTO);
                        Error::UnknownBackend { stage, name, valid }
                    }
                    e => e,
                })?
                .name(),
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

/// The progress bar (hidden unless stderr is a terminal), advanced by work, not by points
/// ([`nimsquare::instruments::scaling::study::work`]).
fn progress_bar(total_work: u64) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total_work.max(1));
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {percent:>3}% of the work  {msg}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar
}

/// Runs the study, printing its `resume`, `row` and `skip` lines on stdout without tearing
/// the bar.
fn measure(plan: &Plan, log: &mut CsvLog) -> Result<()> {
    let mut bar = indicatif::ProgressBar::hidden();
    let say = |bar: &indicatif::ProgressBar, line: String| bar.suspend(|| println!("{line}"));
    plan.study.run(log, |event| match event {
        Event::Planned { work, .. } => bar = progress_bar(work),
        Event::Resumed { rows } => say(
            &bar,
            format!("resume: {rows} rows already in {}", plan.out.display()),
        ),
        Event::Start {
            name,
            n,
            index,
            of,
            round,
            rounds,
        } => bar.set_message(format!(
            "point {index}/{of}: {name} at N = {n}, run {round}/{rounds}"
        )),
        Event::Row(row) => say(&bar, row_line(row)),
        Event::Skip { name, n, why } => say(&bar, skip_line(name, n, why)),
        Event::Done { work } => bar.inc(work),
    })?;
    bar.finish_and_clear();
    Ok(())
}

/// The `skip ...` line of a point not measured.
fn skip_line(name: &str, n: u64, why: Skip) -> String {
    match why {
        Skip::AtSmallerN => format!("skip backend={name} n={n} reason=skipped_at_smaller_n"),
        Skip::Predicted { seconds, budget } => format!(
            "skip backend={name} n={n} predicted_seconds={seconds:.1} budget_seconds={budget}"
        ),
    }
}

fn row_line(r: &Row) -> String {
    let chose = r
        .chosen
        .as_ref()
        .map_or(String::new(), |c| format!(" chose={c}"));
    format!(
        "row backend={}{chose} n={} seconds_median={:.6} seconds_min={:.6} ns_per_step={:.3} max_value={} bound_ns_per_step={:.3} bound_resource={} efficiency={:.3}",
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

/// What the study answers: the fit of each back-end, the CSV and the plot of every row.
fn finish(plan: &Plan, log: &CsvLog) -> CliResult {
    let plot = plan.plot.as_deref().zip(plan.files.plot.as_ref());
    let scaled = Scaled::of(&plan.study.names, log.rows(), &plan.out, plot)?;
    report::print(&scaled, false);
    Ok(0)
}
