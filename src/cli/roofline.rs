//! `nimsquare roofline`: every back-end's measured time held against the bound its cost
//! model and the measured primitives give ([`nimsquare::instruments::roofline`]). Parse (every
//! refusal before any work), the forecast note, then the run of
//! [`nimsquare::instruments::roofline::study`], each back-end's line printed as it finishes
//! ([`nimsquare::instruments::roofline::render`]).

use super::args::{GameArgs, JsonArg, LimitArg, RepeatArg, TablesArg};
use super::common::CliResult;
use nimsquare::base::error::Result;
use nimsquare::base::provenance::load_average;
use nimsquare::count;
use nimsquare::instruments::roofline::study::{self, Event, Plan};
use nimsquare::instruments::roofline::{primitives, render};
use nimsquare::registry::{self, Entry};
use nimsquare::run::planner;
use nimsquare::run::report;
use nimsquare::run::workload::{Backend, Subject};
use std::io::{IsTerminal, Write};

#[derive(clap::Args)]
#[command(
    long_about = "Holds every back-end's measured time against what this machine can do.\n\n\
    Measures the primitives the back-ends are made of (byte stores into L1 stamp arrays, 64-byte \
    span loads from a table of the real size for N, sequential memory bandwidth, 64-bit OR-and-scan, \
    the sweep's multiply-add), on as many threads as each back-end uses. With --octal CODE the \
    table is that octal game's, built by the octal back-ends (--table names them; no counts), \
    each priced by its entry's cost model; a model that counts only part of the work says so \
    in its line (`lower bound`). Each back-end runs in \
    --repeat rounds: one timed run (a table build, or a count on that table), then the primitives \
    its model uses, so each round's bound is priced with rates taken right beside its time. \
    Prints a header, then one line per back-end as it finishes: the median and min-max over the \
    rounds of the measured and bound nanoseconds per unit (an option step for a table, a position \
    for a count), the resource that binds, efficiency = bound / measured taken per round, and each \
    primitive's ns per op. MEASURING.md explains the model. Tables must agree, and counts, or the \
    run stops (status 1). A naive control past the N it affords is refused, as by `solve`."
)]
pub struct Args {
    #[command(flatten)]
    limit: LimitArg,
    #[command(flatten)]
    tables: TablesArg,
    /// Count back-ends to time on the table, comma-separated or repeated (default: every one
    /// but the naive controls). Refused with --octal or --workload (no counts are timed).
    #[arg(long, value_name = "NAMES", value_delimiter = ',',
          conflicts_with_all = ["octal", "workload"])]
    count: Vec<String>,
    #[command(flatten)]
    repeat: RepeatArg,
    #[command(flatten)]
    game: GameArgs,
    #[command(flatten)]
    json: JsonArg,
}

pub fn run(args: Args) -> CliResult {
    let json = args.json.json;
    let plan = parse(args)?;
    let load_start = load_average();
    match plan.forecast()? {
        Some((seconds, note)) if seconds >= super::common::FORECAST_NOTE_SECONDS => {
            eprintln!("{note}")
        }
        _ => {}
    }
    if !json {
        for line in render::header(&plan, load_start) {
            emit(&line);
        }
    }
    let lines = study::measure(&plan, |event| match event {
        Event::Start(what) if std::io::stderr().is_terminal() => eprintln!("roofline: {what}"),
        Event::Line(line) if !json => {
            emit(&render::row(line));
            if let Some(note) = render::note(&plan, line) {
                emit(&note);
            }
            if let Some(finding) = render::not_a_bound(line) {
                emit(&finding);
            }
        }
        _ => {}
    })?;
    if json {
        let report = render::Roofline {
            plan: &plan,
            lines,
            load_start,
            load_end: load_average(),
        };
        report::print(&report, true);
    }
    Ok(0)
}

/// Prints one line to stdout and flushes it, so a reader sees it now even through a pipe.
fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed stdout ends the process by SIGPIPE (see `main`); nothing to report here.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Checks every argument and the memory, before any work.
fn parse(args: Args) -> Result<Plan> {
    let limit = args.limit.limit.get();
    let game = args.game.subject()?;
    let tables = chosen_tables(&game, &args.tables.table)?;
    // The roofline counts three heaps: a named back-end that cannot is refused, the default
    // list keeps only those that can. An octal game's roofline times its tables alone.
    let mut counts = chosen(&count::STAGE, count::BACKENDS, &args.count)?;
    if args.count.is_empty() {
        counts.retain(|e| (e.make)().heaps().contains(&3));
    }
    if game.counts().is_none() {
        counts.clear();
    }
    for e in &counts {
        count::check_supports(e, 3)?;
    }
    // `solve`'s rule for the naive controls: a named one past the N it affords would run for
    // minutes to hours (`naive-mex` at 10^7: about 15 minutes).
    for &e in &tables {
        game.check_affords(
            e,
            "--limit",
            limit,
            "leave it out of --table, or lower --limit",
        )?;
    }
    for &e in &counts {
        planner::check_count_affords(e, limit, 3, "leave it out of --count, or lower --limit")?;
    }
    let threads = rayon::current_num_threads();
    // The largest table with its scratch, the judge's table kept beside it, the span
    // kernel's copy and the stream buffer.
    let needed = tables
        .iter()
        .map(|&e| game.bytes_needed(e, limit, threads))
        .max()
        .unwrap_or(0)
        + 4 * (limit as u64 + 1)
        + primitives::STREAM_BYTES as u64;
    nimsquare::base::memory::check_fits(
        needed,
        nimsquare::base::memory::available_bytes(),
        &format!("the roofline at N = {limit}"),
    )?;
    Ok(Plan {
        limit: args.limit.limit,
        tables,
        counts,
        repeats: args.repeat.repeat,
        game,
        threads,
        memory_needed: needed,
    })
}

/// The table back-ends of `game` named in `asked` (in that order, without repeats), or every
/// one that is not a control; an unknown name is refused naming the stage and the valid
/// names.
fn chosen_tables(game: &Subject, asked: &[String]) -> Result<Vec<Backend>> {
    if asked.is_empty() {
        return Ok(game.fast());
    }
    let mut out: Vec<Backend> = Vec::new();
    for name in asked {
        let e = game.find(name.trim())?;
        if !out.contains(&e) {
            out.push(e);
        }
    }
    Ok(out)
}

/// The entries named in `asked` (in that order, without repeats), or every one that is not a
/// control; an unknown name is refused naming the flag's stage and the valid names.
fn chosen<T: ?Sized>(
    stage: &registry::Stage<T>,
    entries: &'static [Entry<T>],
    asked: &[String],
) -> Result<Vec<&'static Entry<T>>> {
    if asked.is_empty() {
        return Ok(registry::fast(entries).collect());
    }
    let mut out: Vec<&'static Entry<T>> = Vec::new();
    for name in asked {
        let e = stage.find(name.trim())?;
        if !out.iter().any(|o| o.name == e.name) {
            out.push(e);
        }
    }
    Ok(out)
}
