//! `nimsquare roofline`: every back-end's measured time held against the bound its cost
//! model and the measured primitives give ([`nimsquare::instruments::roofline`]). Parse (every
//! refusal before any work), forecast, then measure back-end by back-end in rounds (the
//! back-end, then its primitives, `--repeat` times), each one's line printed as it finishes
//! ([`render`]).

mod render;

use super::args::{JsonArg, LimitArg, MovesArg, RepeatArg};
use super::common::CliResult;
use nimsquare::base::error::{Error, Result};
use nimsquare::base::limit::Limit;
use nimsquare::base::provenance::load_average;
use nimsquare::count;
use nimsquare::instruments::check;
use nimsquare::instruments::roofline::{
    self, primitives, Demand, Model, Primitive, Round, Summary,
};
use nimsquare::registry::{self, Entry};
use nimsquare::run::planner;
use nimsquare::run::workload::{Backend, Subject};
use nimsquare::table::Table;
use render::Output;
use std::io::IsTerminal;
use std::time::Instant;

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
    /// Table back-ends to time, comma-separated or repeated (default: every one but the
    /// naive controls).
    #[arg(
        long,
        visible_alias = "backend",
        value_name = "NAMES",
        value_delimiter = ','
    )]
    table: Vec<String>,
    /// Count back-ends to time on the table, comma-separated or repeated (default: every one
    /// but the naive controls).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    count: Vec<String>,
    #[command(flatten)]
    repeat: RepeatArg,
    #[command(flatten)]
    moves: MovesArg,
    /// Time an octal game instead (0.6, .137, grundy): --table then names octal back-ends
    /// (default: every one but the control `octal-naive`), and no counts are timed.
    #[arg(long, value_name = "CODE", conflicts_with_all = ["moves", "count"])]
    octal: Option<String>,
    #[arg(long, value_name = "KIND[:RULES]", help = super::common::WORKLOAD_HELP,
          conflicts_with_all = ["moves", "octal", "count"])]
    workload: Option<String>,
    #[command(flatten)]
    json: JsonArg,
}

/// A checked run.
struct Plan {
    limit: Limit,
    tables: Vec<Backend>,
    counts: Vec<&'static Entry<dyn count::Counter>>,
    /// Rounds per back-end (`--repeat`).
    repeats: usize,
    game: Subject,
    threads: usize,
    json: bool,
    /// Bytes the run needs at most (what the memory guard checked).
    memory_needed: u64,
}

impl Plan {
    fn n(&self) -> usize {
        self.limit.get()
    }
}

/// One back-end's measurements: its rounds and what they say.
struct Line {
    stage: &'static str,
    name: &'static str,
    model: Model,
    threads: usize,
    /// Option steps for a table, positions for a count.
    units: f64,
    /// The primitives its model uses (the ones each round measured), in `Primitive::ALL`
    /// order.
    used: Vec<Primitive>,
    /// Each round's rates (NaN for the primitives not used).
    rates: Vec<roofline::Rates>,
    rounds: Vec<Round>,
    summary: Summary,
    /// The one-minute load average when the back-end's last round ended.
    load: Option<f64>,
}

pub fn run(args: Args) -> CliResult {
    let plan = parse(args)?;
    let load_start = load_average();
    forecast(&plan)?;
    let mut out = Output::start(&plan, load_start);
    measure(&plan, &mut out)?;
    out.finish(load_average());
    Ok(0)
}

/// Checks every argument and the memory, before any work.
fn parse(args: Args) -> Result<Plan> {
    let limit = args.limit.limit.get();
    let game = super::common::subject(
        &args.moves.moves,
        args.octal.as_deref(),
        args.workload.as_deref(),
    )?;
    let tables = chosen_tables(&game, &args.table)?;
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
        json: args.json.json,
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

/// Says on stderr, before any work, what a long run will take: `solve`'s forecast for each
/// table back-end (S(N) at the rate of a calibration build measured just now, the planner's
/// [`planner::Plan::forecast_seconds`], which gives none below
/// [`planner::FORECAST_FROM_STEPS`]) times the rounds, summed over the back-ends. A lower
/// bound: the counts and the primitives come on top. Costs one calibration build per table
/// back-end, only when N is that large.
fn forecast(plan: &Plan) -> Result<()> {
    // The planner forecasts the builds of a workload with the counts capability only;
    // another gets no note.
    let Some(moves) = plan.game.counts() else {
        return Ok(());
    };
    let mut total = 0.0;
    let mut rates = Vec::new();
    for e in &plan.tables {
        let solve_plan = planner::Plan::new(&planner::Request {
            moves: moves.clone(),
            limit: plan.limit,
            heaps: 3,
            table: e.name().to_string(),
            count: planner::AUTO.to_string(),
            wisdom: None,
        })?;
        // None below a size that depends on N alone: then for every back-end.
        let Some(seconds) = solve_plan.forecast_seconds() else {
            return Ok(());
        };
        total += seconds * plan.repeats as f64;
        rates.push(format!(
            "{} {:.2}",
            e.name(),
            seconds * 1e9 / moves.option_steps(plan.n()) as f64
        ));
    }
    if total >= super::common::FORECAST_NOTE_SECONDS {
        eprintln!(
            "note: N = {} needs about {} of memory and at least {} ({} table back-end{} x {} rounds of {:.2e} option steps; ns a step measured just now at N = {}: {})",
            plan.n(),
            nimsquare::base::memory::human(plan.memory_needed),
            nimsquare::run::longrun::progress::fmt_eta(total),
            plan.tables.len(),
            if plan.tables.len() == 1 { "" } else { "s" },
            plan.repeats,
            moves.option_steps(plan.n()) as f64,
            planner::CALIBRATION_LIMIT.min(plan.n()),
            rates.join(", "),
        );
    }
    Ok(())
}

/// Says what is being measured, on stderr, only when it is a terminal.
fn progress(what: &str) {
    if std::io::stderr().is_terminal() {
        eprintln!("roofline: {what}");
    }
}

/// Times every chosen back-end in rounds, the tables checked against the first, the counts
/// against the first count, and hands each finished back-end to `out`.
fn measure(plan: &Plan, out: &mut Output) -> Result<()> {
    let (table, shape) = measure_tables(plan, out)?;
    measure_counts(plan, &table, &shape, out)
}

/// The primitives `demand` uses, in [`Primitive::ALL`] order.
fn used(demand: &Demand) -> Vec<Primitive> {
    Primitive::ALL
        .into_iter()
        .filter(|&p| demand.of(p) != 0.0)
        .collect()
}

/// One round's primitives: those of `demand` on `threads` threads, then the bound they give.
fn price(
    shape: &primitives::Shape,
    threads: usize,
    demand: &Demand,
) -> (roofline::Rates, roofline::Bound) {
    let rates = primitives::measure_only(shape, threads, primitives::Budget::ROUND, &used(demand));
    (rates, roofline::bound(demand, &rates))
}

/// Times the table back-ends in rounds, every table checked against the first one built;
/// returns that table and the primitives' shape taken from it.
fn measure_tables(plan: &Plan, out: &mut Output) -> Result<(Table, primitives::Shape)> {
    let mut judge: Option<check::Tables> = None;
    let mut shape: Option<primitives::Shape> = None;
    let game = &plan.game;
    for entry in &plan.tables {
        progress(&format!("table {}: {} rounds", entry.name(), plan.repeats));
        let builder = entry.make();
        let model = entry.model();
        let threads = roofline::threads_for(&model, plan.threads);
        let (mut rounds, mut rates) = (Vec::new(), Vec::new());
        let mut demand = None;
        for _ in 0..plan.repeats {
            let start = Instant::now();
            let table = builder.build(game, plan.n())?;
            let seconds = start.elapsed().as_secs_f64();
            // Checked, then dropped before the primitives run (their span table is as big).
            check::against_first_of(&mut judge, game, entry.name(), table)?;
            let judge_table = &judge.as_ref().expect("set above").table;
            let shape = shape.get_or_insert_with(|| primitives::Shape::of_game(game, judge_table));
            let demand = demand
                .get_or_insert_with(|| (model.demand)(&game.workload(judge_table, plan.threads)));
            let (r, bound) = price(shape, threads, demand);
            rounds.push(Round { seconds, bound });
            rates.push(r);
        }
        out.line(Line {
            stage: entry.stage(),
            name: entry.name(),
            model,
            threads,
            units: (game.option_steps(plan.n()) as f64).max(1.0),
            used: used(&demand.expect("at least one round")),
            rates,
            summary: Summary::of(&rounds),
            rounds,
            load: load_average(),
        });
        // An octal model that leaves work out bounds nothing tight: said beside its line
        // (the JSON carries every model's summary).
        if !plan.json && game.counts().is_none() && model.summary.contains("lower bound") {
            println!(
                "note backend={}: its cost model counts only part of its work, so its bound is a floor, not a roofline: {}",
                entry.name(),
                model.summary
            );
        }
    }
    // `--table` never leaves the list empty (no names means every fast one).
    let table = judge.expect("at least one table back-end").table;
    Ok((table, shape.expect("shaped with the first table")))
}

/// Times the count back-ends on `table` (three heaps) in rounds, every answer checked
/// against the first count's.
fn measure_counts(
    plan: &Plan,
    table: &Table,
    shape: &primitives::Shape,
    out: &mut Output,
) -> Result<()> {
    let mut first: Option<(&str, u128)> = None;
    let workload = plan.game.workload(table, plan.threads);
    for entry in &plan.counts {
        progress(&format!("count {}: {} rounds", entry.name, plan.repeats));
        let counter = (entry.make)();
        let threads = roofline::threads_for(&entry.model, plan.threads);
        let demand = (entry.model.demand)(&workload);
        let (mut rounds, mut rates) = (Vec::new(), Vec::new());
        for _ in 0..plan.repeats {
            let start = Instant::now();
            let answer = counter.count(table, 3)?;
            let seconds = start.elapsed().as_secs_f64();
            match first {
                Some((judge, want)) if want != answer => {
                    return Err(Error::Disagreement(format!(
                        "count '{}' gives {answer}, '{judge}' gives {want} at N = {}",
                        entry.name,
                        plan.n()
                    )))
                }
                None => first = Some((entry.name, answer)),
                _ => {}
            }
            let (r, bound) = price(shape, threads, &demand);
            rounds.push(Round { seconds, bound });
            rates.push(r);
        }
        out.line(Line {
            stage: "count",
            name: entry.name,
            model: entry.model,
            threads,
            units: table.values().len() as f64,
            used: used(&demand),
            rates,
            summary: Summary::of(&rounds),
            rounds,
            load: load_average(),
        });
    }
    Ok(())
}
