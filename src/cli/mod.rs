//! The command line. Each subcommand is one file holding its clap arguments and a `run`
//! that returns the process exit code; this module parses, sets up the thread pool, and turns
//! every error into one line on stderr and a non-zero exit.

pub mod args;
mod census;
mod compare;
mod games;
mod growth;
mod list;
mod octal;
mod profile;
mod roofline;
mod scale;
mod sequence;
mod solve;
mod tables;
mod tune;
mod verify;

use clap::{Parser, Subcommand};
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::run::wisdom;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// The default limit N: Project Euler 310's bound.
pub const DEFAULT_LIMIT: &str = "100000";

/// Exit code for bad input (the same code clap uses for usage errors).
pub const EXIT_USAGE: i32 = 2;
/// Exit code when back-ends disagree or a check fails.
pub const EXIT_CHECK_FAILED: i32 = 1;

/// The exit status of a run a signal stopped: 128 plus its number (130 for SIGINT, 143 for
/// SIGTERM), what a shell reports for a process the signal ended.
pub fn exit_status_for(signal: nimsquare::run::longrun::Signal) -> i32 {
    128 + signal.number()
}

#[derive(Parser)]
#[command(
    name = "nimsquare",
    version = concat!(env!("CARGO_PKG_VERSION"), " (build ", env!("NIMSQUARE_BUILD_REV"), ")"),
    about = "Performance-research harness for impartial games: Grundy tables and xor-zero counts for Nim Square",
    long_about = "Performance-research harness for impartial games.\n\n\
        Nim Square: three heaps, a move removes a positive square from one heap. `solve` \
        counts the losing positions 0 <= a <= b <= c <= N in two stages, a Grundy table and \
        a count, each with several interchangeable back-ends (`list` shows them, `verify` \
        checks them against each other and against brute force).\n\n\
        Exit status: 0 on success, 1 when back-ends disagree or a check fails, 2 for bad input \
        (one line on stderr). When stdout is closed early (e.g. `nimsquare verify | head -1`) \
        the process ends quietly, killed by SIGPIPE like other Unix tools: status 141 in a shell."
)]
struct Cli {
    /// Worker threads for the parallel back-ends (default: all cores; at most 8 per core).
    #[arg(long, global = true, value_name = "T", value_parser = parse_threads)]
    threads: Option<usize>,

    /// Instruction-set path of the vector kernels: scalar, portable (the `wide` crate on
    /// baseline SSE2), avx2, avx512, or auto (the widest this CPU has; the default). A path the
    /// CPU lacks is refused. `list` shows what this CPU supports.
    #[arg(long, global = true, value_name = "PATH", value_parser = parse_isa)]
    isa: Option<nimsquare::base::isa::Isa>,

    /// The wisdom file `auto` chooses table back-ends from (written by `tune`). Default:
    /// $NIMSQUARE_WISDOM, else ~/.cache/nimsquare/wisdom.json (under $XDG_CACHE_HOME when set);
    /// NIMSQUARE_NO_WISDOM=1 turns the default off. A file for another CPU, build, path,
    /// thread count or moves is not used: auto then takes its built-in choices.
    #[arg(long, global = true, value_name = "FILE")]
    wisdom: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the losing positions for one limit and print the count.
    Solve(solve::Args),
    /// Run every table back-end against every count back-end and the controls.
    Verify(verify::Args),
    /// List the back-ends of each stage.
    List(list::Args),
    /// Exhaustive checkers for other impartial games (amalgamation Nim, bounded Moore's Nim,
    /// subtraction games).
    #[command(subcommand)]
    Games(games::Games),
    /// Time table back-ends on a geometric grid of N; CSV, fitted exponents, log-log SVG.
    Scale(scale::Args),
    /// Read c(N) (cold positions) or m(N) (largest value) on a geometric grid of N; CSV,
    /// fitted exponent, log-log SVG.
    #[command(long_about = growth::LONG_ABOUT)]
    Growth(growth::Args),
    /// Sample one solve with pprof and write a flamegraph SVG.
    Profile(profile::Args),
    /// Hold every back-end's time against the bound of its cost model and the measured
    /// primitives: measured and bound ns per step, binding resource, efficiency.
    Roofline(roofline::Args),
    /// Time the table back-ends `auto` can pick on this machine and write the crossovers
    /// to a wisdom file, which `auto` then follows.
    #[command(long_about = tune::LONG_ABOUT)]
    Tune(tune::Args),
    /// Is A faster than B? Two back-ends (or paths, or builds) in alternating whole runs: the
    /// median ratio with a confidence interval, a verdict, and an exit status to gate on.
    #[command(long_about = compare::LONG_ABOUT)]
    Compare(compare::Args),
    /// Write an OEIS-style b-file of the values, the cold positions or the first position of
    /// each value.
    Sequence(sequence::Args),
    /// One octal game: g(0..=N), its largest value and the period proved within N.
    #[command(long_about = octal::LONG_ABOUT)]
    Octal(octal::Args),
    /// Every octal code of up to D digits (0.d1..dD and 4.d1..dD): the period proved up to N,
    /// or open.
    #[command(long_about = census::LONG_ABOUT)]
    Census(census::Args),
}

/// Says on stderr what a run of more than [`FORECAST_NOTE_SECONDS`] will take, before it
/// starts: memory and a time estimate from S(N) and a rate measured just now. `solve`,
/// `profile`, `scale` and `growth` give the same note.
pub fn forecast(plan: &nimsquare::run::planner::Plan) {
    let Some(seconds) = plan.forecast_seconds() else {
        return;
    };
    if seconds < FORECAST_NOTE_SECONDS {
        return;
    }
    let steps = plan.moves.option_steps(plan.limit) as f64;
    eprintln!(
        "note: N = {} needs about {} of memory and at least {} ({steps:.2e} option steps at {:.2} ns each, measured just now at N = {}); --quiet hides this note",
        plan.limit,
        nimsquare::base::memory::human(plan.memory_needed),
        nimsquare::run::longrun::progress::fmt_eta(seconds),
        seconds * 1e9 / steps,
        nimsquare::run::planner::CALIBRATION_LIMIT.min(plan.limit),
    );
}

/// Runs forecast to take longer than this get a note on stderr first.
pub const FORECAST_NOTE_SECONDS: f64 = 120.0;

/// The study version of [`forecast`] (`scale`): `builds` are (back-end, N, times built).
/// Past [`nimsquare::run::planner::FORECAST_FROM_STEPS`] option steps in all, each
/// back-end is timed once on a calibration table, and a study forecast to take more than
/// [`FORECAST_NOTE_SECONDS`] gets one note on stderr before it starts.
pub fn forecast_builds(
    moves: &nimsquare::base::moves::Moves,
    builds: &[(
        &'static nimsquare::registry::Entry<dyn nimsquare::table::TableBuilder>,
        usize,
        u64,
    )],
) {
    use nimsquare::run::planner::CALIBRATION_LIMIT;
    let (total, Some(seconds)) = nimsquare::run::planner::forecast_builds(moves, builds) else {
        return;
    };
    if seconds >= FORECAST_NOTE_SECONDS {
        eprintln!(
            "note: this study builds {total:.2e} option steps and needs at least {} (each back-end timed just now at N <= {CALIBRATION_LIMIT}); --skip-over SECONDS drops the points predicted to take longer",
            nimsquare::run::longrun::progress::fmt_eta(seconds),
        );
    }
}

/// The `--wisdom` flag, set once by [`main`].
static WISDOM_FLAG: OnceLock<Option<PathBuf>> = OnceLock::new();

/// The wisdom `auto` chooses from in this run, read once on first use (so a command that
/// never resolves `auto` never reads it); the note on a file not used is printed then.
pub fn wisdom() -> Arc<wisdom::Source> {
    static SOURCE: OnceLock<Arc<wisdom::Source>> = OnceLock::new();
    SOURCE
        .get_or_init(|| {
            let flag = WISDOM_FLAG.get().cloned().flatten();
            let source = wisdom::location(flag.as_deref())
                .map(|p| wisdom::load(&p))
                .unwrap_or_default();
            if let Some(note) = &source.note {
                eprintln!("{note}");
            }
            Arc::new(source)
        })
        .clone()
}

/// Prints one `--json` object with the binary's `version` and `build` (its git revision)
/// added, so every JSON record names what made it.
pub fn print_json(mut value: serde_json::Value) {
    if let Some(object) = value.as_object_mut() {
        object.insert("version".into(), env!("CARGO_PKG_VERSION").into());
        object.insert(
            "build".into(),
            nimsquare::base::provenance::BUILD_REV.into(),
        );
    }
    println!("{value}");
}

/// Parses the arguments, runs the subcommand, and returns the exit code.
pub fn main() -> i32 {
    // Before parsing: `--isa auto` is the widest path the cap leaves.
    if let Err(e) = nimsquare::base::isa::cap_from_env() {
        eprintln!("error: {e}");
        return EXIT_USAGE;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return clap_exit(err),
    };
    if let Some(threads) = cli.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
        {
            eprintln!("error: cannot start {threads} threads: {e}");
            return EXIT_USAGE;
        }
    }
    if let Some(isa) = cli.isa {
        if let Err(e) = nimsquare::base::isa::force(isa) {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    }
    let tuning = matches!(cli.command, Command::Tune(_));
    if let Some(file) = cli.wisdom.as_ref().filter(|f| !tuning && !f.is_file()) {
        eprintln!(
            "error: --wisdom {}: no such file; write one with `nimsquare tune --wisdom {0}`, or omit the flag",
            file.display()
        );
        return EXIT_USAGE;
    }
    WISDOM_FLAG.get_or_init(|| cli.wisdom.clone());
    let (threads, isa) = (cli.threads, cli.isa);
    let result = match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Verify(args) => verify::run(args),
        Command::List(args) => list::run(args),
        Command::Games(game) => games::run(game),
        Command::Scale(args) => scale::run(args),
        Command::Growth(args) => growth::run(args),
        Command::Profile(args) => profile::run(args),
        Command::Roofline(args) => roofline::run(args),
        Command::Sequence(args) => sequence::run(args),
        Command::Octal(args) => octal::run(args),
        Command::Census(args) => census::run(args),
        Command::Compare(args) => compare::run(args, threads, isa),
        Command::Tune(args) => tune::run(args, WISDOM_FLAG.get().cloned().flatten()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            match e {
                Error::Disagreement(_) => EXIT_CHECK_FAILED,
                _ => EXIT_USAGE,
            }
        }
    }
}

/// Help and version go to stdout with status 0; every usage error becomes its first line
/// on stderr with status 2 (clap's own rendering adds a usage block and a hint).
fn clap_exit(err: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = err.print();
            0
        }
        // A command group without its subcommand: clap renders the whole help, whose first
        // line is the about text, which would read as a strange error.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprintln!("error: a subcommand is required (see --help for the list)");
            EXIT_USAGE
        }
        _ => {
            let text = err.to_string();
            let mut lines = text.lines().filter(|l| !l.trim().is_empty());
            let first = lines.next().unwrap_or("");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            // "the following required arguments were not provided:" names them on the
            // next line; keep them on the one line printed.
            let line = match lines.next() {
                Some(next) if first.ends_with(':') => format!("{first} {}", next.trim()),
                _ => first.to_string(),
            };
            eprintln!("error: {line} (see --help)");
            EXIT_USAGE
        }
    }
}

/// Parses a limit N: a non-negative integer, with `_` separators or `AeB` (e.g. `1e6`)
/// allowed, at most [`nimsquare::base::limit::MAX_LIMIT`]: the one place a limit from the
/// command line is checked.
pub fn parse_limit(text: &str) -> std::result::Result<Limit, String> {
    let clean: String = text.trim().chars().filter(|&c| c != '_').collect();
    if clean.starts_with('-') {
        return Err(format!("N must be a non-negative integer, got '{text}'"));
    }
    let value = if let Some((mantissa, exponent)) = clean.split_once(['e', 'E']) {
        scientific(mantissa, exponent, text)?
    } else {
        clean.parse::<u64>().map_err(|e| match e.kind() {
            std::num::IntErrorKind::PosOverflow => too_large(text),
            _ => not_integer(text),
        })?
    };
    Limit::new(value).map_err(|e| e.to_string())
}

/// `M` times 10^`E` for `MeE` with a decimal mantissa (`1.5e3` is 1500), refused unless the
/// product is a whole number.
fn scientific(mantissa: &str, exponent: &str, text: &str) -> std::result::Result<u64, String> {
    let e: u32 = exponent.parse().map_err(|_| not_integer(text))?;
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(not_integer(text));
    }
    // mantissa = digits / 10^places; the value is digits * 10^(e - places).
    let places = fraction.len() as u32;
    let digits = digits.trim_start_matches('0');
    let digits: u128 = if digits.is_empty() {
        0
    } else {
        digits.parse().map_err(|_| too_large(text))?
    };
    let value = if e >= places {
        10u128
            .checked_pow(e - places)
            .and_then(|p| p.checked_mul(digits))
            .ok_or_else(|| too_large(text))?
    } else {
        let divisor = 10u128
            .checked_pow(places - e)
            .ok_or_else(|| not_integer(text))?;
        if !digits.is_multiple_of(divisor) {
            return Err(format!("N must be a whole number, and {text} is not"));
        }
        digits / divisor
    };
    u64::try_from(value).map_err(|_| too_large(text))
}

fn not_integer(text: &str) -> String {
    format!("N must be a non-negative integer like 100000 or 1e6, got '{text}'")
}

fn too_large(text: &str) -> String {
    format!(
        "{text} is above the supported maximum {} (values are stored as u16)",
        nimsquare::base::limit::MAX_LIMIT
    )
}

/// How many threads per reported core `--threads` accepts: some oversubscription is a
/// legitimate experiment, tens of thousands of threads only exhaust the machine.
pub const MAX_THREADS_PER_CORE: usize = 8;

/// The largest `--threads` accepted on this machine: [`MAX_THREADS_PER_CORE`] times the
/// cores `std::thread::available_parallelism` reports (1 core when it cannot tell).
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    MAX_THREADS_PER_CORE * cores
}

/// Parses a thread count: a positive integer, at most [`max_threads`].
fn parse_threads(text: &str) -> std::result::Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(0) => Err("--threads must be at least 1 (omit it to use all cores)".into()),
        Ok(t) if t > max_threads() => Err(format!(
            "--threads {t} is above the limit {} ({MAX_THREADS_PER_CORE} per core, {} cores \
             reported); more threads than that only add start-up and switching cost",
            max_threads(),
            max_threads() / MAX_THREADS_PER_CORE
        )),
        Ok(t) => Ok(t),
        Err(_) => Err(format!("--threads takes a positive integer, got '{text}'")),
    }
}

/// Parses `--isa` (whether the CPU has the path is checked after parsing, by
/// [`nimsquare::base::isa::force`]).
fn parse_isa(text: &str) -> std::result::Result<nimsquare::base::isa::Isa, String> {
    nimsquare::base::isa::Isa::parse(text).map_err(|e| e.to_string())
}

/// Parses a number of heaps for `--heaps`: an integer from 1 to [`nimsquare::count::MAX_HEAPS`].
pub fn parse_heaps(text: &str) -> std::result::Result<usize, String> {
    let heaps: usize = text.trim().parse().map_err(|_| {
        format!(
            "--heaps takes an integer from 1 to {}, got '{text}'",
            nimsquare::count::MAX_HEAPS
        )
    })?;
    nimsquare::count::check_heaps(heaps).map_err(|e| e.to_string())?;
    Ok(heaps)
}

/// Parses a subtraction set for `--moves`.
pub fn parse_moves(text: &str) -> std::result::Result<nimsquare::base::moves::Moves, String> {
    nimsquare::base::moves::Moves::parse(text).map_err(|e| e.to_string())
}

/// Formats seconds for the text tables: three significant digits in their own unit.
pub(crate) fn fmt_seconds(s: f64) -> String {
    nimsquare::base::units::human_seconds(s)
}

/// Keeps `Result` in scope for the subcommand files.
pub(crate) type CliResult = Result<i32>;
