//! The roofline run, what `nimsquare roofline` measures: back-end by back-end in rounds (one
//! timed run, a table build or a count on that table, then the primitives its model uses, so
//! each round's bound is priced with rates taken right beside its time), every table checked
//! against the first one built and every count against the first count. Cost: `repeats`
//! rounds of each back-end plus its primitives' timings
//! ([`primitives::Budget::ROUND`] each).

use super::{primitives, Demand, Model, Primitive, Round, Summary};
use crate::base::error::{Error, Result};
use crate::base::limit::Limit;
use crate::base::provenance::load_average;
use crate::count;
use crate::instruments::check;
use crate::instruments::roofline;
use crate::registry::Entry;
use crate::run::planner;
use crate::run::workload::{Backend, Subject};
use crate::table::Table;
use std::time::Instant;

/// What a run reports while it measures.
pub enum Event<'a> {
    /// A back-end's rounds start (what, in words).
    Start(String),
    /// A back-end's rounds are done.
    Line(&'a Line),
}

/// A checked run.
pub struct Plan {
    pub limit: Limit,
    pub tables: Vec<Backend>,
    pub counts: Vec<&'static Entry<dyn count::Counter>>,
    /// Rounds per back-end (`--repeat`).
    pub repeats: usize,
    pub game: Subject,
    pub threads: usize,
    /// Bytes the run needs at most (what the memory guard checked).
    pub memory_needed: u64,
}

impl Plan {
    pub fn n(&self) -> usize {
        self.limit.get()
    }

    /// What a run will take, to say before any work: the seconds and the note (None below a
    /// size that depends on N alone, or for a workload without the counts capability): `solve`'s forecast for each
    /// table back-end (S(N) at the rate of a calibration build measured just now, the planner's
    /// [`planner::Plan::forecast_seconds`], which gives none below
    /// [`planner::FORECAST_FROM_STEPS`]) times the rounds, summed over the back-ends. A lower
    /// bound: the counts and the primitives come on top. Costs one calibration build per table
    /// back-end, only when N is that large.
    pub fn forecast(&self) -> Result<Option<(f64, String)>> {
        let plan = self;
        // The planner forecasts the builds of a workload with the counts capability only;
        // another gets no note.
        let Some(moves) = plan.game.counts() else {
            return Ok(None);
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
                return Ok(None);
            };
            total += seconds * plan.repeats as f64;
            rates.push(format!(
                "{} {:.2}",
                e.name(),
                seconds * 1e9 / moves.option_steps(plan.n()) as f64
            ));
        }
        Ok(Some((
            total,
            format!(
                "note: N = {} needs about {} of memory and at least {} ({} table back-end{} x {} rounds of {:.2e} option steps; ns a step measured just now at N = {}: {})",
                plan.n(),
                crate::base::memory::human(plan.memory_needed),
                crate::run::longrun::progress::fmt_eta(total),
                plan.tables.len(),
                if plan.tables.len() == 1 { "" } else { "s" },
                plan.repeats,
                moves.option_steps(plan.n()) as f64,
                planner::CALIBRATION_LIMIT.min(plan.n()),
                rates.join(", "),
            ),
        )))
    }
}

/// One back-end's measurements: its rounds and what they say.
pub struct Line {
    pub stage: &'static str,
    pub name: &'static str,
    pub model: Model,
    pub threads: usize,
    /// Option steps for a table, positions for a count.
    pub units: f64,
    /// The primitives its model uses (the ones each round measured), in `Primitive::ALL`
    /// order.
    pub used: Vec<Primitive>,
    /// Each round's rates (NaN for the primitives not used).
    pub rates: Vec<roofline::Rates>,
    pub rounds: Vec<Round>,
    pub summary: Summary,
    /// The one-minute load average when the back-end's last round ended.
    pub load: Option<f64>,
}

/// Times every chosen back-end in rounds, the tables checked against the first, the counts
/// against the first count; each finished back-end is handed to `on` as it comes, and all
/// are returned.
pub fn measure(plan: &Plan, mut on: impl FnMut(Event)) -> Result<Vec<Line>> {
    let mut lines = Vec::new();
    let (table, shape) = measure_tables(plan, &mut on, &mut lines)?;
    measure_counts(plan, &table, &shape, &mut on, &mut lines)?;
    Ok(lines)
}

impl Line {
    /// The line of back-end `(stage, name)` from its rounds and each round's rates, taken
    /// on `threads` threads over `units` units of work; its load average is taken now.
    fn of(
        (stage, name): (&'static str, &'static str),
        model: Model,
        threads: usize,
        units: f64,
        demand: &Demand,
        (rounds, rates): (Vec<Round>, Vec<roofline::Rates>),
    ) -> Line {
        Line {
            stage,
            name,
            model,
            threads,
            units,
            used: used(demand),
            rates,
            summary: Summary::of(&rounds),
            rounds,
            load: load_average(),
        }
    }
}

/// A back-end done: handed to `on`, then kept.
fn finished(line: Line, on: &mut dyn FnMut(Event), lines: &mut Vec<Line>) {
    on(Event::Line(&line));
    lines.push(line);
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
fn measure_tables(
    plan: &Plan,
    on: &mut dyn FnMut(Event),
    lines: &mut Vec<Line>,
) -> Result<(Table, primitives::Shape)> {
    let mut judge: Option<check::Tables> = None;
    let mut shape: Option<primitives::Shape> = None;
    let game = &plan.game;
    for entry in &plan.tables {
        on(Event::Start(format!(
            "table {}: {} rounds",
            entry.name(),
            plan.repeats
        )));
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
        let line = Line::of(
            (entry.stage(), entry.name()),
            model,
            threads,
            (game.option_steps(plan.n()) as f64).max(1.0),
            &demand.expect("at least one round"),
            (rounds, rates),
        );
        finished(line, on, lines);
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
    on: &mut dyn FnMut(Event),
    lines: &mut Vec<Line>,
) -> Result<()> {
    let mut first: Option<(&str, u128)> = None;
    let workload = plan.game.workload(table, plan.threads);
    for entry in &plan.counts {
        on(Event::Start(format!(
            "count {}: {} rounds",
            entry.name, plan.repeats
        )));
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
        let units = table.values().len() as f64;
        let taken = (rounds, rates);
        finished(
            Line::of(
                ("count", entry.name),
                entry.model,
                threads,
                units,
                &demand,
                taken,
            ),
            on,
            lines,
        );
    }
    Ok(())
}
