//! `nimsquare roofline`: every back-end's measured time held against the bound its cost
//! model and the measured primitives give ([`nimsquare::instruments::roofline`]). Parse (every refusal before
//! any work), measure, render.

use super::args::{JsonArg, LimitArg, MovesArg, RepeatArg};
use super::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::moves::Moves;
use nimsquare::base::provenance::load_average;
use nimsquare::count;
use nimsquare::instruments::check::Checker;
use nimsquare::instruments::roofline::{self, primitives, Bound, Model, RateBook, Rates};
use nimsquare::instruments::scaling;
use nimsquare::registry::{self, Entry};
use nimsquare::table::{self, Table};
use serde_json::json;
use std::io::IsTerminal;
use std::time::Instant;

#[derive(clap::Args)]
#[command(
    long_about = "Holds every back-end's measured time against what this machine can do.\n\n\
    Measures the primitives the back-ends are made of (byte stores into L1 stamp arrays, 64-byte \
    span loads from a table of the real size for N, sequential memory bandwidth, 64-bit OR-and-scan, \
    the sweep's multiply-add), on as many threads as each back-end uses and within a minute of \
    timing it; times each table back-end (--repeat runs, median) and each count back-end on that \
    table; and prints per back-end the measured and bound nanoseconds per unit (an option step for \
    a table, a position for a count), the resource that binds and efficiency = bound / measured. \
    MEASURING.md explains the model. Tables must agree, and counts, or the run stops (status 1)."
)]
pub struct Args {
    #[command(flatten)]
    limit: LimitArg,
    /// Table back-ends to time, comma-separated or repeated (default: every one but the
    /// naive controls).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    table: Vec<String>,
    /// Count back-ends to time on the table, comma-separated or repeated (default: every one
    /// but the naive controls).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    count: Vec<String>,
    #[command(flatten)]
    repeat: RepeatArg,
    #[command(flatten)]
    moves: MovesArg,
    #[command(flatten)]
    json: JsonArg,
}

/// A checked run.
struct Plan {
    limit: usize,
    tables: Vec<&'static Entry<dyn table::TableBuilder>>,
    counts: Vec<&'static Entry<dyn count::Counter>>,
    repeats: usize,
    moves: Moves,
    threads: usize,
    json: bool,
}

/// One back-end's line: its stage, measured time and bound.
struct Line {
    stage: &'static str,
    name: &'static str,
    model: Model,
    threads: usize,
    /// Option steps for a table, positions for a count.
    units: f64,
    seconds: f64,
    bound: Bound,
}

pub fn run(args: Args) -> CliResult {
    let plan = parse(args)?;
    let load_start = load_average();
    let (lines, rates) = measure(&plan)?;
    render(&plan, &lines, &rates, (load_start, load_average()));
    Ok(0)
}

/// Checks every argument and the memory, before any work.
fn parse(args: Args) -> Result<Plan> {
    let limit = args.limit.limit.get();
    let tables = chosen(&table::STAGE, table::BACKENDS, &args.table)?;
    // The roofline counts three heaps: a named back-end that cannot is refused, the default
    // list keeps only those that can.
    let mut counts = chosen(&count::STAGE, count::BACKENDS, &args.count)?;
    if args.count.is_empty() {
        counts.retain(|e| (e.make)().heaps().contains(&3));
    }
    for e in &counts {
        count::check_supports(e, 3)?;
    }
    let threads = rayon::current_num_threads();
    let moves = args.moves.moves;
    // The largest table with its scratch, the judge's table kept beside it, the span
    // kernel's copy and the stream buffer.
    let needed = tables
        .iter()
        .map(|e| table::bytes_needed(&*(e.make)(), &moves, limit, threads))
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
        limit,
        tables,
        counts,
        repeats: args.repeat.repeat,
        moves,
        threads,
        json: args.json.json,
    })
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

/// Says what is being measured, on stderr, only when it is a terminal.
fn progress(what: &str) {
    if std::io::stderr().is_terminal() {
        eprintln!("roofline: {what}");
    }
}

/// Times every chosen back-end, the tables checked against the first, the counts against
/// the first count; each bound from rates measured within a minute of the timing.
fn measure(plan: &Plan) -> Result<(Vec<Line>, Vec<Rates>)> {
    let mut lines = Vec::new();
    let (table, mut book) = measure_tables(plan, &mut lines)?;
    measure_counts(plan, &table, &mut book, &mut lines)?;
    Ok((lines, book.measured()))
}

/// Times the table back-ends, each against the first one's table; returns that table and
/// the rate book sized for it.
fn measure_tables(plan: &Plan, lines: &mut Vec<Line>) -> Result<(Table, RateBook)> {
    let mut judge: Option<Checker> = None;
    let mut book: Option<RateBook> = None;
    for entry in &plan.tables {
        progress(&format!("timing table {}", entry.name));
        let builder = (entry.make)();
        let (seconds, table) = timed(plan.repeats, || builder.build(&plan.moves, plan.limit));
        check_table(&mut judge, plan, entry.name, table)?;
        let judge_table = judge.as_ref().expect("set above").judge_table();
        let book = book.get_or_insert_with(|| new_book(&plan.moves, judge_table));
        let (threads, bound) = bound_for(plan, &entry.model, judge_table, book);
        lines.push(Line {
            stage: "table",
            name: entry.name,
            model: entry.model,
            threads,
            units: (plan.moves.option_steps(plan.limit) as f64).max(1.0),
            seconds,
            bound,
        });
    }
    // `--table` never leaves the list empty (no names means every fast one).
    let table = judge
        .expect("at least one table back-end")
        .judge_table()
        .clone();
    Ok((table, book.expect("measured with the first table")))
}

/// Times the count back-ends on `table` (three heaps), each against the first one's answer.
fn measure_counts(
    plan: &Plan,
    table: &Table,
    book: &mut RateBook,
    lines: &mut Vec<Line>,
) -> Result<()> {
    let mut first: Option<(&str, u128)> = None;
    for entry in &plan.counts {
        progress(&format!("timing count {}", entry.name));
        let counter = (entry.make)();
        let (seconds, answer) = timed(plan.repeats, || counter.count(table, 3));
        let answer = answer?;
        match first {
            Some((judge, want)) if want != answer => {
                return Err(Error::Disagreement(format!(
                    "count '{}' gives {answer}, '{judge}' gives {want} at N = {}",
                    entry.name, plan.limit
                )))
            }
            None => first = Some((entry.name, answer)),
            _ => {}
        }
        let (threads, bound) = bound_for(plan, &entry.model, table, book);
        lines.push(Line {
            stage: "count",
            name: entry.name,
            model: entry.model,
            threads,
            units: table.values().len() as f64,
            seconds,
            bound,
        });
    }
    Ok(())
}

/// A rate book for the shape of `table`, at the command's budget.
fn new_book(moves: &Moves, table: &Table) -> RateBook {
    progress("measuring the primitives");
    RateBook::new(
        primitives::Shape::of_table(moves, table),
        primitives::Budget::FULL,
    )
}

/// Runs `work` `repeats` times: the median seconds and the last result.
fn timed<R>(repeats: usize, mut work: impl FnMut() -> R) -> (f64, R) {
    let mut times = Vec::with_capacity(repeats);
    let mut out = None;
    for _ in 0..repeats {
        drop(out.take());
        let start = Instant::now();
        out = Some(work());
        times.push(start.elapsed().as_secs_f64());
    }
    (scaling::median(&times), out.expect("at least one repeat"))
}

/// Compares `table` with the first table built (which becomes the judge when there is none).
fn check_table(
    judge: &mut Option<Checker>,
    plan: &Plan,
    name: &'static str,
    table: Table,
) -> Result<()> {
    nimsquare::instruments::check::against_first(judge, &plan.moves, name, table)
}

/// The bound of a back-end with `model` on `table`: its threads and its model's demand at
/// the rates measured on that many threads.
fn bound_for(plan: &Plan, model: &Model, table: &Table, book: &mut RateBook) -> (usize, Bound) {
    let threads = roofline::threads_for(model, plan.threads);
    let workload = table.workload(&plan.moves, plan.threads);
    let bound = roofline::bound(&(model.demand)(&workload), &book.rates(threads));
    (threads, bound)
}

/// A load average as printed (`unknown` where the system reports none).
fn fmt_load(load: Option<f64>) -> String {
    load.map_or_else(|| "unknown".into(), |l| format!("{l:.2}"))
}

/// The text table or the one JSON object.
fn render(plan: &Plan, lines: &[Line], rates: &[Rates], loads: (Option<f64>, Option<f64>)) {
    let isa = nimsquare::base::isa::active().name();
    if plan.json {
        let json = json!({
            "version": env!("CARGO_PKG_VERSION"),
            "build": nimsquare::base::provenance::BUILD_REV,
            "load_average_start": loads.0,
            "load_average_end": loads.1,
            "limit": plan.limit,
            "moves": plan.moves.label(),
            "threads": plan.threads,
            "repeats": plan.repeats,
            "isa": isa,
            "primitives": rates.iter().map(rates_json).collect::<Vec<_>>(),
            "backends": lines.iter().map(line_json).collect::<Vec<_>>(),
        });
        println!("{json}");
        return;
    }
    println!(
        "roofline N = {}, moves {}, {} threads, isa {isa}, median of {}, build {}, load average {} at start and {} at end",
        plan.limit,
        plan.moves.label(),
        plan.threads,
        plan.repeats,
        nimsquare::base::provenance::BUILD_REV,
        fmt_load(loads.0),
        fmt_load(loads.1)
    );
    for r in rates {
        let parts: Vec<String> = roofline::Primitive::ALL
            .iter()
            .map(|&p| format!("{} {:.4}", p.name(), r.ns(p)))
            .collect();
        let plural = if r.threads == 1 { "" } else { "s" };
        println!(
            "primitives ns/op, {} thread{plural}: {}",
            r.threads,
            parts.join(", ")
        );
    }
    println!(
        "stage  backend            threads  unit      measured ns  bound ns  resource   efficiency"
    );
    for l in lines {
        println!(
            "{:<6} {:<18} {:>7}  {:<8} {:>12.4} {:>9.4}  {:<10} {:>10.3}",
            l.stage,
            l.name,
            l.threads,
            unit(l.stage),
            l.seconds * 1e9 / l.units,
            l.bound.seconds * 1e9 / l.units,
            l.bound.resource.name(),
            roofline::efficiency(l.bound.seconds, l.seconds)
        );
    }
}

/// The unit a stage's times are divided by.
fn unit(stage: &str) -> &'static str {
    if stage == "table" {
        "step"
    } else {
        "position"
    }
}

fn rates_json(r: &Rates) -> serde_json::Value {
    let ns: serde_json::Map<String, serde_json::Value> = roofline::Primitive::ALL
        .iter()
        .map(|&p| (p.name().to_string(), json!(r.ns(p))))
        .collect();
    json!({"threads": r.threads, "ns_per_op": ns})
}

fn line_json(l: &Line) -> serde_json::Value {
    let per: serde_json::Map<String, serde_json::Value> = roofline::Resource::ALL
        .iter()
        .zip(l.bound.per_resource)
        .map(|(r, s)| (r.name().to_string(), json!(s)))
        .collect();
    json!({
        "stage": l.stage,
        "backend": l.name,
        "threads": l.threads,
        "unit": unit(l.stage),
        "measured_seconds": l.seconds,
        "measured_ns_per_unit": l.seconds * 1e9 / l.units,
        "bound_seconds": l.bound.seconds,
        "bound_ns_per_unit": l.bound.seconds * 1e9 / l.units,
        "bound_resource": l.bound.resource.name(),
        "bound_seconds_per_resource": per,
        "efficiency": roofline::efficiency(l.bound.seconds, l.seconds),
        "model": l.model.summary,
    })
}
