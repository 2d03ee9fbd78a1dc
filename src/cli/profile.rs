//! `nimsquare profile`: samples solves (table, then count) with pprof and writes a
//! flamegraph SVG; with `--octal CODE`, builds of that octal game's table instead. This file
//! is parse (every refusal before any work) and print; the sampling is the profiler session
//! of [`nimsquare::run::profile`].

use super::args::{count, limit_parser, GameArgs, QuietArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::base::paths::{decide_output, Output};
use nimsquare::run::planner;
use nimsquare::run::profile::{Files, Session, Work};
use nimsquare::run::report;
use nimsquare::run::workload::BuildPlan;
use std::path::PathBuf;

/// The default limit: the same N as `solve`'s large default runs; the repeats, not N, make
/// the graph readable.
const DEFAULT_PROFILE_LIMIT: u64 = 1_000_000;
/// The default limit of a game of another workload than the squares' table (an octal
/// game's builds cost about a thousand times more a value, the splits), so that one build
/// stays within the sampling bound.
const DEFAULT_OCTAL_PROFILE_LIMIT: u64 = 100_000;
/// `solve`'s default back-ends: the planner's choice (tests/profile.rs checks the two agree).
const DEFAULT_TABLE: &str = nimsquare::run::planner::AUTO;
const DEFAULT_COUNT: &str = nimsquare::run::planner::AUTO;

#[derive(clap::Args)]
#[command(
    long_about = "Samples solves (table, then count) with pprof and writes a flamegraph SVG.\n\n\
    The solve is repeated until --samples samples are taken (at least one solve, at most 30 s), \
    so the graph has enough samples to read. Prints one line: where it wrote the file, how many samples it \
    took, and the answer (`wrote FILE samples=S frequency_hz=F seconds=T repeats=R limit=N \
    table=NAME count=NAME answer=A cpu_seconds=C samples_per_cpu_second=R stopped_by=samples|time load_start=L load_end=L build=REV`). \
    The timer counts CPU time and may fire less often than asked (a shared VM drops many \
    samples): when the time bound ends the sampling, a note on stderr gives the rate it \
    really sampled at. On a terminal a line on stderr says what it is sampling. A run too short to take a single sample writes no file, \
    says so on stderr and exits with status 2: raise --samples, --limit or --frequency.\n\n\
    With --octal CODE (0.6, .137, grundy) the repeats build that octal game's table with the \
    octal back-end --table names (default `auto`), no count is made, the \
    line says `count=none` and answer is the table's largest value, and the default --limit is \
    100000."
)]
pub struct Args {
    /// The largest heap size N (default 1000000; 100000 with --octal).
    #[arg(long, short = 'n', value_name = "N", value_parser = limit_parser(),
          allow_hyphen_values = true)]
    limit: Option<Limit>,
    /// Table back-end (see `nimsquare list`; the same default as `solve`). With --octal, an
    /// octal back-end (`auto`: the octal default, itself `auto`).
    #[arg(long, visible_alias = "backend", value_name = "NAME", default_value = DEFAULT_TABLE)]
    table: String,
    /// Count back-end (see `nimsquare list`; the same default as `solve`). Refused with
    /// --octal or --workload (a build alone is profiled).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_COUNT,
          conflicts_with_all = ["octal", "workload"])]
    count: String,
    #[command(flatten)]
    game: GameArgs,
    /// Where to write the flamegraph.
    #[arg(long, value_name = "FILE.svg", default_value = "flamegraph.svg")]
    out: PathBuf,
    /// Samples per second of CPU time (1 to 10000; a prime avoids beating with loops).
    #[arg(long, value_name = "HZ", default_value_t = 997, value_parser = count(1, 10_000),
          allow_hyphen_values = true)]
    frequency: u64,
    /// Repeat the solve until this many samples are taken (0 = one solve; stops after 30 s).
    #[arg(long, value_name = "COUNT", default_value_t = 1000,
          value_parser = count(0, 1_000_000), allow_hyphen_values = true)]
    samples: u64,
    /// Also write the samples as folded stacks to FILE (`thread;outer;...;inner COUNT`, one
    /// line per distinct stack, sorted): the text `inferno-flamegraph` or `flamegraph.pl`
    /// draw, and that two profiles can be diffed by (`inferno-diff-folded`). Refused if FILE
    /// exists.
    #[arg(long, value_name = "FILE")]
    folded: Option<PathBuf>,
    /// Replace an existing --out or --folded file (without it, an earlier profile is never
    /// overwritten).
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    quiet: QuietArg,
}

/// The checked run: the session, and where --out and --folded go, decided before any work.
struct Job {
    session: Session,
    args: Args,
    out: Output,
    folded: Option<Output>,
}

pub fn run(args: Args) -> CliResult {
    let job = parse(args)?;
    job.args.quiet.apply();
    if let (false, Work::Solve { planned, .. }) = (job.args.quiet.quiet, &job.session.work) {
        super::common::forecast(planned);
    }
    let sampled = job.session.sample()?;
    let files = Files {
        out: (&job.args.out, &job.out),
        folded: job.folded.as_ref(),
    };
    report::print(&sampled.write(&job.session, files)?, false);
    Ok(0)
}

/// Every refusal, before any work.
fn parse(args: Args) -> Result<Job> {
    let subject = args.game.subject()?;
    // A subtraction set is solved (its table, then the count); any other game's table is
    // built alone.
    let (limit, work) = match subject.counts() {
        Some(_) if args.game.workload.is_none() => solve_work(&args)?,
        _ => build_work(subject, &args)?,
    };
    // Where each file goes, decided now: `-`, a FIFO or a device written in place, a file
    // (through a symlink) replaced only with --force.
    let out = decide_output(&args.out, "--out", Some(args.force))?;
    let folded = args
        .folded
        .as_ref()
        .map(|f| decide_output(f, "--folded", Some(args.force)))
        .transpose()?;
    Ok(Job {
        session: Session {
            limit,
            work,
            moves: args.game.moves.moves.clone(),
            frequency: args.frequency,
            samples: args.samples,
            quiet: args.quiet.quiet,
        },
        args,
        out,
        folded,
    })
}

/// The solve of `--table` and `--count` for `--moves`, planned as `solve` plans it.
fn solve_work(args: &Args) -> Result<(usize, Work)> {
    let planned = planner::Plan::new(&planner::Request {
        moves: args.game.moves.moves.clone(),
        limit: args
            .limit
            .unwrap_or(Limit::new(DEFAULT_PROFILE_LIMIT).expect("a valid limit")),
        heaps: 3,
        table: args.table.clone(),
        count: args.count.clone(),
        wisdom: Some(super::common::wisdom()),
    })?;
    let (table, count) = (planned.table, planned.count);
    Ok((
        planned.limit,
        Work::Solve {
            table_name: table.name,
            builder: (table.make)(),
            count_name: count.name,
            counter: (count.make)(),
            planned: Box::new(planned),
        },
    ))
}

/// The build of `subject`'s table by the back-end `--table` names (`auto`: its workload's
/// default), planned once (the limit, the control's size, the memory).
fn build_work(subject: nimsquare::run::workload::Subject, args: &Args) -> Result<(usize, Work)> {
    let limit = args
        .limit
        .map_or(DEFAULT_OCTAL_PROFILE_LIMIT, |l| l.as_u64());
    let backend = match args.table.as_str() {
        planner::AUTO => subject.default_backend(limit as usize),
        other => subject
            .find(other.trim())
            .map_err(|e| Error::Invalid(format!("--table: {e}")))?,
    };
    let plan = BuildPlan::new(subject, backend, limit)?;
    let builder = backend.make();
    Ok((plan.limit, Work::Build { plan, builder }))
}
