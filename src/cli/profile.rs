//! `nimsquare profile`: samples solves (table, then count) with pprof and writes a
//! flamegraph SVG; with `--octal CODE`, builds of that octal game's table instead.
//!
//! One solve at the default N takes a fraction of a second, which gives a few dozen samples,
//! mostly thread-pool start-up: unreadable. So the solve is repeated until `--samples` samples
//! (1000 by default) are taken, or [`MAX_SAMPLING_SECONDS`] have passed, whichever is first.
//! The sampling timer does not fire at the nominal frequency on every kernel (a shared
//! 2-core machine gave about 190 samples per CPU second at 997 Hz), so the count itself, not
//! a time, is the target.
//! A run too short to be sampled still writes nothing: it prints one line on stderr saying so
//! and exits with status 2, so a script never mistakes an empty graph for a profile.

use super::args::{count, limit_parser, MovesArg, QuietArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::base::moves::Moves;
use nimsquare::base::paths::{decide_output, write_output, Output};
use nimsquare::run::planner;
use nimsquare::run::workload::{BuildPlan, Made};
use std::path::PathBuf;
use std::time::Instant;

/// The default limit: the same N as `solve`'s large default runs; the repeats, not N, make
/// the graph readable.
const DEFAULT_PROFILE_LIMIT: u64 = 1_000_000;
/// The default limit of a game of another workload than the squares' table (an octal
/// game's builds cost about a thousand times more a value, the splits), so that one build
/// stays within the sampling bound.
const DEFAULT_OCTAL_PROFILE_LIMIT: u64 = 100_000;
/// The wall-clock bound on the repeats, for a frequency or machine that samples slowly.
const MAX_SAMPLING_SECONDS: f64 = 30.0;
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
    octal back-end --table names (default `octal-block`), no count is made, the \
    line says `count=none` and answer is the table's largest value, and the default --limit is \
    100000."
)]
pub struct Args {
    /// The largest heap size N (default 1000000; 100000 with --octal).
    #[arg(long, short = 'n', value_name = "N", value_parser = limit_parser(),
          allow_hyphen_values = true)]
    limit: Option<Limit>,
    /// Table back-end (see `nimsquare list`; the same default as `solve`). With --octal, an
    /// octal back-end (`auto`: `octal-block`, the octal default).
    #[arg(long, visible_alias = "backend", value_name = "NAME", default_value = DEFAULT_TABLE)]
    table: String,
    /// Count back-end (see `nimsquare list`; the same default as `solve`).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_COUNT)]
    count: String,
    #[command(flatten)]
    moves: MovesArg,
    /// Profile builds of an octal game's table instead of solves: its code (0.07, .6, 4.07)
    /// or `grundy`. Refused with --moves or --count.
    #[arg(long, value_name = "CODE", conflicts_with_all = ["moves", "count"])]
    octal: Option<String>,
    #[arg(long, value_name = "KIND[:RULES]", help = super::common::WORKLOAD_HELP,
          conflicts_with_all = ["moves", "octal", "count"])]
    workload: Option<String>,
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

/// The checked run: back-ends resolved, numbers in range, output path writable.
struct Job {
    limit: usize,
    work: Work,
    args: Args,
    /// Where --out and --folded go, decided before any work.
    out: Output,
    folded: Option<Output>,
}

/// What one repeat does.
enum Work {
    /// A solve of three heaps of a subtraction game: the table, then the count.
    Solve {
        table_name: &'static str,
        builder: Box<dyn nimsquare::grundy::Builder<nimsquare::base::moves::Moves>>,
        count_name: &'static str,
        counter: Box<dyn nimsquare::count::Counter>,
        /// The resolved plan, for the forecast note.
        planned: Box<planner::Plan>,
    },
    /// A build of a table of any workload (no count).
    Build { plan: BuildPlan, builder: Made },
}

impl Work {
    /// The table back-end's name.
    fn table_name(&self) -> &'static str {
        match self {
            Work::Solve { table_name, .. } => table_name,
            Work::Build { plan, .. } => plan.backend.name(),
        }
    }

    /// The count back-end's name, `none` for an octal game.
    fn count_name(&self) -> &'static str {
        match self {
            Work::Solve { count_name, .. } => count_name,
            Work::Build { .. } => "none",
        }
    }

    /// The game in words: `moves squares`, `octal game 0.6`.
    fn game(&self, moves: &Moves) -> String {
        match self {
            Work::Solve { .. } => format!("moves {}", moves.label()),
            Work::Build { plan, .. } => plan.subject.describe(),
        }
    }
}

/// What the sampled solves measured.
struct Sampled {
    report: pprof::Report,
    samples: isize,
    seconds: f64,
    /// CPU seconds of the process (user and system) while sampling: what the samples divide.
    cpu_seconds: f64,
    /// True when the time bound, not the sample target, ended the sampling.
    stopped_by_time: bool,
    /// The one-minute load average before and after sampling.
    loads: (Option<f64>, Option<f64>),
    repeats: usize,
    answer: u128,
}

/// CPU seconds (user + system) this process has used so far, all threads.
fn cpu_seconds() -> f64 {
    // SAFETY: `getrusage` writes only into the zeroed struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

pub fn run(args: Args) -> CliResult {
    let plan = parse(args)?;
    plan.args.quiet.apply();
    if let (false, Work::Solve { planned, .. }) = (plan.args.quiet.quiet, &plan.work) {
        super::common::forecast(planned);
    }
    let sampled = sample(&plan)?;
    write(&plan, &sampled)
}

/// Every refusal, before any work.
fn parse(args: Args) -> Result<Job> {
    let subject = super::common::subject(
        &args.moves.moves,
        args.octal.as_deref(),
        args.workload.as_deref(),
    )?;
    // A subtraction set is solved (its table, then the count); any other game's table is
    // built alone.
    let (limit, work) = match subject.counts() {
        Some(_) if args.workload.is_none() => solve_work(&args)?,
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
        limit,
        work,
        args,
        out,
        folded,
    })
}

/// The solve of `--table` and `--count` for `--moves`, planned as `solve` plans it.
fn solve_work(args: &Args) -> Result<(usize, Work)> {
    let planned = planner::Plan::new(&planner::Request {
        moves: args.moves.moves.clone(),
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

/// Runs the solve under the profiler until `--samples` samples are taken (at least once, at
/// most [`MAX_SAMPLING_SECONDS`]); every repeat must give the same answer.
fn sample(plan: &Job) -> Result<Sampled> {
    let guard = pprof::ProfilerGuardBuilder::default()
        .frequency(plan.args.frequency as i32)
        .blocklist(&["libc", "libgcc", "pthread", "vdso"])
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start the profiler: {e}")))?;
    if nimsquare::run::longrun::progress::may_show(plan.args.quiet.quiet) {
        eprintln!(
            "profile: sampling solves of N = {} ({}, {} table, {} count) at {} Hz until {} samples or {} s",
            plan.limit,
            plan.work.game(&plan.args.moves.moves),
            plan.work.table_name(),
            plan.work.count_name(),
            plan.args.frequency,
            plan.args.samples,
            MAX_SAMPLING_SECONDS
        );
    }
    let load_start = nimsquare::base::provenance::load_average();
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    let target = plan.args.samples as isize;
    let over_time = || start.elapsed().as_secs_f64() >= MAX_SAMPLING_SECONDS;
    // Reading the count locks the profiler (samples arriving meanwhile are lost), so it is
    // read after batches sized from the rate so far, not after every solve.
    let (mut repeats, mut batch) = (0usize, 1usize);
    let mut answer = None;
    loop {
        for _ in 0..batch {
            let a = solve_once(plan)?;
            if *answer.get_or_insert(a) != a {
                return Err(Error::Disagreement(format!(
                    "profile: repeat {} of the solve gave {a}, the first gave {}",
                    repeats + 1,
                    answer.unwrap_or_default()
                )));
            }
            repeats += 1;
            if over_time() {
                break;
            }
        }
        let taken: isize = guard
            .report()
            .build_unresolved()
            .map_or(0, |r| r.data.values().sum());
        if taken >= target || over_time() {
            break;
        }
        let per_repeat = (taken.max(1) as f64) / repeats as f64;
        batch = (((target - taken) as f64 / per_repeat).ceil() as usize).clamp(1, 1000);
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu_seconds = cpu_seconds() - cpu_start;
    let report = guard
        .report()
        .build()
        .map_err(|e| Error::Invalid(format!("cannot build the profile: {e}")))?;
    let samples: isize = report.data.values().sum();
    Ok(Sampled {
        report,
        stopped_by_time: samples < target && over_time(),
        loads: (load_start, nimsquare::base::provenance::load_average()),
        samples,
        seconds,
        cpu_seconds,
        repeats,
        answer: answer.expect("at least one solve"),
    })
}

/// One solve: the table, then the count of three heaps; for an octal game, its table, whose
/// largest value stands for the answer.
fn solve_once(plan: &Job) -> Result<u128> {
    match &plan.work {
        Work::Solve {
            table_name,
            builder,
            counter,
            ..
        } => {
            let t = nimsquare::run::longrun::build_shown(
                &**builder,
                table_name,
                &plan.args.moves.moves,
                plan.limit,
            )?;
            counter.count(&t, 3)
        }
        Work::Build { plan, builder } => Ok(u128::from(
            builder.build(&plan.subject, plan.limit)?.max_value(),
        )),
    }
}

/// The report as folded stacks, one `thread;outer;...;inner COUNT\n` line per stack, sorted:
/// the lines pprof itself hands the flamegraph renderer.
fn folded_lines(report: &pprof::Report) -> Vec<String> {
    let mut lines: Vec<String> = report
        .data
        .iter()
        .map(|(stack, count)| {
            let mut names = vec![stack.thread_name_or_id()];
            for frame in stack.frames.iter().rev() {
                names.extend(frame.iter().rev().map(|symbol| symbol.to_string()));
            }
            format!("{} {count}\n", names.join(";"))
        })
        .collect();
    lines.sort();
    lines
}

/// Writes the flamegraph and the summary line, or refuses an empty profile.
fn write(plan: &Job, s: &Sampled) -> CliResult {
    let out = &plan.args.out;
    if s.samples <= 0 {
        return Err(Error::Invalid(format!(
            "no samples: {} solves took {:.4} s, too short to sample at {} Hz; \
             no file written (raise --samples, --limit or --frequency)",
            s.repeats, s.seconds, plan.args.frequency
        )));
    }
    let mut options = pprof::flamegraph::Options::default();
    options.title = format!(
        "nimsquare: table {} + count {}, N = {}, {}, {} threads, {} path",
        plan.work.table_name(),
        plan.work.count_name(),
        plan.limit,
        plan.work.game(&plan.args.moves.moves),
        rayon::current_num_threads(),
        nimsquare::base::isa::active().name()
    );
    let per_cpu_second = s.samples as f64 / s.cpu_seconds.max(1e-9);
    // The rate the timer really reached, not the one asked: a shared VM drops many ticks, and
    // a title saying 997 Hz over a quarter of that misleads whoever reads the widths as time.
    options.subtitle = Some(format!(
        "{} samples over {:.1} CPU seconds: {:.0} per CPU second ({} Hz asked), {} solves",
        s.samples, s.cpu_seconds, per_cpu_second, plan.args.frequency, s.repeats
    ));
    write_output(&plan.out, "--out", |w| {
        s.report
            .flamegraph_with_options(w, &mut options)
            .map_err(std::io::Error::other)
    })?;
    if let Some(folded) = &plan.folded {
        let text: String = folded_lines(&s.report).concat();
        write_output(folded, "--folded", |w| w.write_all(text.as_bytes()))?;
    }
    if s.stopped_by_time {
        eprintln!(
            "note: stopped after {:.1} s with {} of {} samples; the profiling timer fired {:.0} times \
             per CPU second against {} asked, so a sample stands for {:.4} CPU seconds here",
            s.seconds,
            s.samples,
            plan.args.samples,
            per_cpu_second,
            plan.args.frequency,
            1.0 / per_cpu_second.max(1e-9)
        );
    }
    println!(
        "wrote {} samples={} frequency_hz={} seconds={:.3} repeats={} limit={} table={} count={} answer={} cpu_seconds={:.3} samples_per_cpu_second={:.1} stopped_by={} load_start={} load_end={} build={}",
        out.display(),
        s.samples,
        plan.args.frequency,
        s.seconds,
        s.repeats,
        plan.limit,
        plan.work.table_name(),
        plan.work.count_name(),
        s.answer,
        s.cpu_seconds,
        per_cpu_second,
        if s.stopped_by_time { "time" } else { "samples" },
        s.loads.0.map_or_else(|| "unknown".into(), |l| format!("{l:.2}")),
        s.loads.1.map_or_else(|| "unknown".into(), |l| format!("{l:.2}")),
        nimsquare::base::provenance::BUILD_REV
    );
    Ok(0)
}
