//! The command line. Each subcommand is one file holding its clap arguments and a `run`
//! that returns the process exit code; this module parses, sets up the thread pool, and turns
//! every error into one line on stderr and a non-zero exit.

pub mod args;
mod build;
mod census;
mod common;
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
mod tune;
mod verify;

use args::{parse_isa, threads_parser};
use clap::{Parser, Subcommand};
use common::{EXIT_CHECK_FAILED, EXIT_USAGE};
use nimsquare::base::error::Error;
use std::path::PathBuf;

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
    #[arg(long, global = true, value_name = "T", value_parser = threads_parser(),
          allow_hyphen_values = true)]
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
    /// Build one table of any workload with one back-end: its seconds, largest value and
    /// digest.
    Build(build::Args),
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

/// Parses the arguments, runs the subcommand, and returns the exit code.
pub fn main() -> i32 {
    // A test build's fault point reads its variable now (nothing without `testing`).
    nimsquare::base::fault::arm();
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
        let mut pool = rayon::ThreadPoolBuilder::new().num_threads(threads);
        // A counted run's one thread is this one: no worker waits (spinning, stealing,
        // yielding as long as Valgrind's scheduling lets it) for jobs handed across.
        if threads == 1 && nimsquare::base::valgrind::counting() {
            pool = pool.use_current_thread();
        }
        if let Err(e) = pool.build_global() {
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
    common::set_wisdom_flag(cli.wisdom.clone());
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
        Command::Build(args) => build::run(args),
        Command::Tune(args) => tune::run(args, common::wisdom_flag()),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            match e {
                Error::Disagreement(_) => EXIT_CHECK_FAILED,
                Error::Unwritten(_) => nimsquare::run::session::EXIT_UNSAVED,
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
