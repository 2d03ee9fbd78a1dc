//! `tune`: times, on this machine, the table back-ends `auto` can pick and turns the choices
//! into [`Wisdom`] (the way FFTW's planner and ATLAS's install-time tuning measure where
//! they run instead of trusting constants measured elsewhere). This file times and models;
//! [`decide`] chooses from the numbers; [`crate::base::units`] formats seconds for people.
//!
//! Algorithm. For each thread count (one, and the whole pool when it has more), on the
//! active vector path, at a geometric grid of N (two points a decade from 100 up to
//! [`Settings::to`]): every candidate still in the race is built in alternating rounds
//! (A B C A B C …, so a slow minute of the machine hits every candidate alike), each timing a
//! batch of builds lasting at least [`MIN_TIMING`], and the median of the rounds is kept
//! (from [`ONE_ROUND_FOR_LOSERS_FROM`] on, a clear loser of the first round is timed once).
//! Candidates within [`NEAR`] of the fastest, and the choice held (the one at the N before,
//! or the built-in one at the first N), get more rounds, [`NEAR_ROUNDS`] or twice the repeats
//! in all, while the budget lasts, so their ratios to the fastest have a spread; the choice
//! then follows [`decide::choose_measured`]. The candidates' tables must be identical at each
//! N or tuning stops. A candidate more than [`DROP_RATIO`] times the fastest at two
//! consecutive points from [`DROP_FROM`] on is dropped for larger N. Past the largest N
//! timed, at the half-decades up to [`Settings::model_to`], each candidate within
//! [`DROP_RATIO`] of the fastest at the largest N timed has its time modelled: its time there
//! times the growth of its cost model's roofline bound (the alphabet and mean value
//! extrapolated from the tables built, the primitives measured twice at both N, so the growth
//! has a range), and the choice follows [`decide::choose_modelled`]. A candidate whose
//! efficiency at the largest N timed is above [`MAX_MODELLED_EFFICIENCY`] is not modelled;
//! when that is the choice held there, nothing is, and it holds past the grid.
//!
//! Cost: the builds' time, about `repeats` × (candidates) × (the time of one build) summed
//! over the grid, plus the extra rounds near a crossover, dominated by its largest N, kept
//! within [`Settings::budget_seconds`] by stopping the grid before a point predicted to
//! overrun it (then the modelled part starts from the largest N timed); and the primitives,
//! twice per thread count, at each modelled N.
//!
//! Invariant: every step of the result starts where [`decide`]'s rule moved the choice (a
//! candidate faster in every pair than the choice held, or beyond the model's range), and
//! says whether it was measured or modelled; boundaries sit at the geometric mean of the two
//! points either side.

pub mod decide;

use crate::base::error::{Error, Result};
use crate::base::moves::Moves;
use crate::grundy::Builder;
use crate::instruments::roofline::{self, primitives, Workload};
use crate::instruments::scaling::fit::{fit_loglog, geometric_grid};
use crate::registry::Entry;
use crate::run::planner;
use crate::run::wisdom::{self, Basis, Step, ThreadPlan, Timing, Wisdom, FORMAT};
use crate::table::Table;
use decide::{pair_ratio, spread, Choice, Priced, Ratio, Spread, Timed, NEAR};
use std::time::{Duration, Instant};

/// A timing runs builds until at least this long, so small N are not timer noise.
pub const MIN_TIMING: Duration = Duration::from_millis(20);

/// A candidate this many times slower than the winner at two consecutive points is dropped.
pub const DROP_RATIO: f64 = 2.0;

/// Dropping starts at this N: below it rankings still turn over by more than
/// [`DROP_RATIO`] within a decade (on AVX2 `bitset` leads at 10^4 to 10^5 and loses as its
/// mask words multiply with the values).
pub const DROP_FROM: u64 = 1_000_000;

/// From this N on, a candidate more than [`DROP_RATIO`] times the best in the first round
/// of a point is timed once only (its median is that one time).
pub const ONE_ROUND_FOR_LOSERS_FROM: u64 = 100_000;

/// Near a crossover (candidates within [`NEAR`] of the fastest) those candidates are timed in
/// at least this many alternating rounds in all (and twice `--repeat` when that is more).
pub const NEAR_ROUNDS: usize = 3;

/// The alphabet and mean value are extrapolated from the tables of this many largest points.
pub const SHAPE_FIT_POINTS: usize = 4;

/// A back-end whose efficiency at the largest N timed is above this is not modelled past
/// it (its cost model is no bound there: `bitset-parallel` on AVX2 showed 11 at 10^7).
pub const MAX_MODELLED_EFFICIENCY: f64 = 1.25;

/// The smallest N timed (below it every back-end takes microseconds).
pub const FROM: u64 = 100;

/// What to tune.
#[derive(Debug, Clone)]
pub struct Settings {
    pub moves: Moves,
    /// The largest N timed.
    pub to: u64,
    /// The largest N modelled (0 or at most `to`: none).
    pub model_to: u64,
    /// Alternating rounds per point; the median is kept.
    pub repeats: usize,
    /// The thread counts tuned (1 and the pool's size, by default).
    pub threads: Vec<usize>,
    /// Seconds of timing allowed in all; each thread count gets an equal share, and a
    /// point predicted to overrun its share is not timed (the grid stops there).
    pub budget_seconds: f64,
}

/// What happens, for progress and the printed lines.
pub enum Event<'a> {
    /// A point starts: `index` of `of` measured points in all.
    Point {
        threads: usize,
        n: u64,
        index: usize,
        of: usize,
    },
    /// One candidate's rounds at one point: median and range, and its pair ratios to the
    /// fastest there (None for the fastest itself).
    Timed {
        threads: usize,
        n: u64,
        table: &'a str,
        spread: Spread,
        ratio_to_best: Option<Ratio>,
    },
    /// The choice at one point, timed or modelled, with the built-in choice there and, when
    /// they differ, t(built-in)/t(choice) (None when the built-in one was not timed or
    /// modelled there). `top` is the largest N timed, from which a modelled time is scaled.
    Chosen {
        threads: usize,
        n: u64,
        choice: Choice<'a>,
        built_in: &'a str,
        against_built_in: Option<Ratio>,
        top: u64,
    },
    /// The grid stops before `n`: timing it was predicted to overrun the budget.
    Stopped {
        threads: usize,
        n: u64,
        predicted: f64,
        left: f64,
    },
    /// A candidate dropped from the race after point `n`.
    Dropped {
        threads: usize,
        n: u64,
        table: &'a str,
        ratio: f64,
    },
    /// Nothing is modelled past the grid for this thread count: the choice at the largest N
    /// timed, `n`, has a cost model that is no bound there (efficiency above
    /// [`MAX_MODELLED_EFFICIENCY`], or not finite), so no model can say another back-end
    /// overtakes it, and the choice measured last holds past the grid.
    Unmodelled {
        threads: usize,
        n: u64,
        table: &'a str,
        efficiency: f64,
    },
    /// A modelled time past the grid: the time at the largest N timed times the growth of
    /// the back-end's bound since then (`growth`: lowest and highest over the primitives'
    /// two measurements).
    Modelled {
        threads: usize,
        n: u64,
        table: &'a str,
        seconds: f64,
        efficiency: f64,
        growth: (f64, f64),
    },
}

/// The grid tuned: two points a decade from [`FROM`] to `to`.
pub fn grid(to: u64) -> Vec<u64> {
    if to <= FROM {
        return vec![to.max(1)];
    }
    let decades = (to as f64 / FROM as f64).log10();
    let points = (2.0 * decades).round().max(1.0) as usize + 1;
    geometric_grid(FROM, to, points)
}

/// The modelled points: half-decades above `to` up to `model_to` (which is included; a
/// half-decade within a factor 1.5 of it is left out).
pub fn model_grid(to: u64, model_to: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut k = 1;
    loop {
        let n = (to as f64 * 10f64.powf(k as f64 / 2.0)).round() as u64;
        if n as f64 * 1.5 >= model_to as f64 {
            break;
        }
        out.push(n);
        k += 1;
    }
    if model_to > to {
        out.push(model_to);
    }
    out
}

/// The candidates for a thread count: every back-end `auto` can pick, the parallel ones
/// only with two threads or more.
pub fn candidates(threads: usize) -> Vec<&'static Entry<dyn Builder<Moves>>> {
    planner::auto_table_candidates()
        .into_iter()
        .filter(|e| threads >= 2 || !e.model.parallel)
        .collect()
}

/// Seconds per build of `builder` at `n`: builds until [`MIN_TIMING`] has passed; the last
/// table is returned for the agreement check.
fn time_batch(builder: &dyn Builder<Moves>, moves: &Moves, n: usize) -> (f64, Table) {
    let start = Instant::now();
    let mut builds = 0u32;
    loop {
        let table = crate::table::build_with(builder, moves, n);
        builds += 1;
        let elapsed = start.elapsed();
        if elapsed >= MIN_TIMING {
            return (elapsed.as_secs_f64() / f64::from(builds), table);
        }
    }
}

/// The rounds of one point.
struct Point {
    /// The candidates timed, in timing order.
    names: Vec<&'static str>,
    /// Seconds per build, per candidate per round (None: not timed in that round).
    rounds: Vec<Vec<Option<f64>>>,
}

impl Point {
    fn rounds_of(&self, name: &str) -> Option<&[Option<f64>]> {
        let k = self.names.iter().position(|&x| x == name)?;
        Some(&self.rounds[k])
    }
}

/// The race at one thread count.
struct Race {
    /// Every point's rounds, in measuring order.
    points: Vec<Point>,
    /// (N, back-end, spread) in measuring order.
    timings: Vec<(u64, &'static str, Spread)>,
    /// (N, alphabet, mean value) of the table at each point.
    shapes: Vec<(u64, usize, f64)>,
    /// The candidates still in the race at the last point.
    alive: Vec<&'static Entry<dyn Builder<Moves>>>,
    /// The last point's table.
    last: Option<Table>,
    /// The choice at each point measured, then at each modelled one.
    choices: Vec<wisdom::Decision>,
}

/// Tunes every thread count of `settings`; `on` sees every event.
pub fn run(settings: &Settings, mut on: impl FnMut(Event)) -> Result<Wisdom> {
    let points = grid(settings.to);
    let of = points.len() * settings.threads.len();
    let mut plans = Vec::new();
    let mut measured_up_to = 0;
    for (t_index, &threads) in settings.threads.iter().enumerate() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Invalid(format!("cannot start {threads} threads: {e}")))?;
        let mut race = measure(
            settings,
            (threads, &pool),
            &points,
            t_index * points.len(),
            of,
            &mut on,
        )?;
        let modelled = model(settings, threads, &mut race, &mut on);
        measured_up_to = race
            .timings
            .iter()
            .map(|t| t.0)
            .fold(measured_up_to, u64::max);
        plans.push(plan_of(threads, &race, &modelled));
    }
    Ok(Wisdom {
        format: FORMAT.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        build: crate::base::provenance::BUILD_REV.into(),
        cpu: crate::base::provenance::cpu_model(),
        isa: crate::base::isa::active().name().into(),
        moves: settings.moves.label(),
        date: crate::base::provenance::utc_date_today(),
        measured_up_to,
        repeats: settings.repeats,
        plans,
    })
}

/// The built-in choice at `n` on the active path.
fn built_in(n: u64, threads: usize) -> &'static str {
    planner::choose_table_on(crate::base::isa::active(), n as usize, threads).name
}

/// Records `choice` at `n` in `race` and tells `on`, with the built-in choice there and
/// `ratio_of(built-in, choice)` when they differ.
fn record<'a>(
    race: &mut Race,
    (threads, n, top): (usize, u64, u64),
    choice: Choice<'a>,
    ratio_of: impl Fn(&str, &str) -> Option<Ratio>,
    on: &mut impl FnMut(Event),
) {
    let built_in = built_in(n, threads);
    let against_built_in = (built_in != choice.table)
        .then(|| ratio_of(built_in, choice.table))
        .flatten();
    race.choices.push(wisdom::Decision {
        n,
        table: choice.table.into(),
        basis: choice.why.name().into(),
        fastest: choice.fastest.into(),
        ratio_low: choice.ratio.map(|r| r.low),
        ratio_high: choice.ratio.map(|r| r.high),
        built_in: built_in.into(),
    });
    on(Event::Chosen {
        threads,
        n,
        choice,
        built_in,
        against_built_in,
        top,
    });
}

/// The choice at the N before the one being decided: the incumbent of [`decide`]'s rule.
fn incumbent(race: &Race) -> Option<String> {
    race.choices.last().map(|c| c.table.clone())
}

/// Times `builder` once at `n` on `pool` and checks its table against the point's first.
fn time_checked(
    pool: &rayon::ThreadPool,
    (builder, name): (&dyn Builder<Moves>, &str),
    (moves, n): (&Moves, u64),
    first: &mut Option<Table>,
) -> Result<f64> {
    let (s, table) = pool.install(|| time_batch(builder, moves, n as usize));
    match first {
        None => *first = Some(table),
        Some(t) if t.values() != table.values() => {
            return Err(Error::Disagreement(format!(
                "tune: '{name}' built a different table at N = {n} than the first candidate timed there; run `nimsquare verify`"
            )))
        }
        Some(_) => {}
    }
    Ok(s)
}

/// The timed race at one thread count.
fn measure(
    settings: &Settings,
    (threads, pool): (usize, &rayon::ThreadPool),
    points: &[u64],
    done: usize,
    of: usize,
    on: &mut impl FnMut(Event),
) -> Result<Race> {
    let mut alive = candidates(threads);
    let mut behind: Vec<(&'static str, u32)> = Vec::new();
    let mut race = Race {
        points: Vec::new(),
        timings: Vec::new(),
        shapes: Vec::new(),
        alive: Vec::new(),
        last: None,
        choices: Vec::new(),
    };
    let share = settings.budget_seconds / settings.threads.len().max(1) as f64;
    let start = Instant::now();
    let repeats = settings.repeats.max(1);
    for (i, &n) in points.iter().enumerate() {
        if let Some(predicted) = predict_point(&race, &alive, n, repeats) {
            let left = share - start.elapsed().as_secs_f64();
            if predicted > left {
                on(Event::Stopped {
                    threads,
                    n,
                    predicted,
                    left,
                });
                break;
            }
        }
        on(Event::Point {
            threads,
            n,
            index: done + i + 1,
            of,
        });
        let builders: Vec<_> = alive.iter().map(|e| (e.make)()).collect();
        let mut rounds: Vec<Vec<Option<f64>>> = vec![Vec::new(); alive.len()];
        let mut first = None;
        // One timed build of candidate k, checked against the first table built at this N.
        let time = |k: usize, first: &mut Option<Table>| {
            time_checked(
                pool,
                (&*builders[k], alive[k].name),
                (&settings.moves, n),
                first,
            )
        };
        for round in 0..repeats {
            let first_best = rounds
                .iter()
                .filter_map(|t| t.first().copied().flatten())
                .fold(f64::INFINITY, f64::min);
            for (k, timed) in rounds.iter_mut().enumerate() {
                // A clear loser of the first round is not timed again at large N: its one
                // timing already says it loses, and repeating it would cost the most.
                if round > 0
                    && n >= ONE_ROUND_FOR_LOSERS_FROM
                    && timed[0].is_some_and(|t| t > DROP_RATIO * first_best)
                {
                    timed.push(None);
                    continue;
                }
                timed.push(Some(time(k, &mut first)?));
            }
        }
        // Near a crossover: more alternating rounds of the candidates within [`NEAR`] of the
        // fastest, and of the incumbent (the choice at the N before, or the built-in one)
        // unless it is a clear loser, so that a ratio that could move the choice has a
        // spread; while the budget lasts.
        let held = incumbent(&race).unwrap_or_else(|| built_in(n, threads).into());
        let medians: Vec<f64> = rounds.iter().map(|r| spread(r).median).collect();
        let best = medians.iter().copied().fold(f64::INFINITY, f64::min);
        let near: Vec<bool> = medians
            .iter()
            .zip(&alive)
            .map(|(&m, e)| m <= NEAR * best || (e.name == held && m <= DROP_RATIO * best))
            .collect();
        if near.iter().filter(|&&x| x).count() >= 2 {
            let target = (2 * repeats).max(NEAR_ROUNDS);
            let round_seconds: f64 = medians
                .iter()
                .zip(&near)
                .filter(|p| *p.1)
                .map(|p| p.0.max(MIN_TIMING.as_secs_f64()))
                .sum();
            while rounds[0].len() < target && start.elapsed().as_secs_f64() + round_seconds <= share
            {
                for (k, timed) in rounds.iter_mut().enumerate() {
                    timed.push(if near[k] {
                        Some(time(k, &mut first)?)
                    } else {
                        None
                    });
                }
            }
        }
        let point = Point {
            names: alive.iter().map(|e| e.name).collect(),
            rounds,
        };
        let timed: Vec<Timed> = point
            .names
            .iter()
            .zip(&point.rounds)
            .map(|(&name, r)| Timed {
                name,
                rounds: r.clone(),
            })
            .collect();
        let fastest_k = (0..timed.len())
            .min_by(|&a, &b| {
                spread(&timed[a].rounds)
                    .median
                    .total_cmp(&spread(&timed[b].rounds).median)
            })
            .expect("one candidate at least");
        let spreads: Vec<Spread> = point.rounds.iter().map(|r| spread(r)).collect();
        for (k, e) in alive.iter().enumerate() {
            race.timings.push((n, e.name, spreads[k]));
            on(Event::Timed {
                threads,
                n,
                table: e.name,
                spread: spreads[k],
                ratio_to_best: (k != fastest_k)
                    .then(|| pair_ratio(&point.rounds[k], &point.rounds[fastest_k]))
                    .flatten(),
            });
        }
        let choice = decide::choose_measured(&timed, Some(&held));
        let ratio_of = |a: &str, b: &str| pair_ratio(point.rounds_of(a)?, point.rounds_of(b)?);
        record(&mut race, (threads, n, n), choice, ratio_of, on);
        let table = first.expect("one candidate at least");
        race.shapes.push((n, table.alphabet(), mean_value(&table)));
        race.last = Some(table);
        race.alive = alive.clone();
        race.points.push(point);
        if n < DROP_FROM {
            continue;
        }
        let mut keep = Vec::new();
        for (k, e) in alive.iter().enumerate() {
            let ratio = spreads[k].median / best;
            let strikes = behind.iter().find(|b| b.0 == e.name).map_or(0, |b| b.1);
            let strikes = if ratio > DROP_RATIO { strikes + 1 } else { 0 };
            behind.retain(|b| b.0 != e.name);
            behind.push((e.name, strikes));
            if strikes >= 2 && i + 1 < points.len() {
                on(Event::Dropped {
                    threads,
                    n,
                    table: e.name,
                    ratio,
                });
            } else {
                keep.push(*e);
            }
        }
        alive = keep;
    }
    Ok(race)
}

/// The seconds timing point `n` is predicted to take: each candidate's median at the last
/// point scaled by (n / that N)^1.5 (the table's cost), times the rounds, plus the batch
/// floor; None before the first point.
fn predict_point(
    race: &Race,
    alive: &[&'static Entry<dyn Builder<Moves>>],
    n: u64,
    repeats: usize,
) -> Option<f64> {
    let &(last_n, _, _) = race.timings.last()?;
    let growth = (n as f64 / last_n as f64).powf(1.5);
    let seconds = alive
        .iter()
        .filter_map(|e| {
            race.timings
                .iter()
                .find(|t| t.0 == last_n && t.1 == e.name)
                .map(|t| (t.2.median * growth).max(MIN_TIMING.as_secs_f64()))
        })
        .sum::<f64>();
    Some(seconds * repeats.max(1) as f64)
}

fn mean_value(table: &Table) -> f64 {
    let h = table.histogram();
    let positions: u64 = h.iter().sum();
    let sum: f64 = h
        .iter()
        .enumerate()
        .map(|(v, &c)| v as f64 * c as f64)
        .sum();
    sum / positions.max(1) as f64
}

/// The primitives for `shape` measured twice on each thread count in `counts`: the two
/// give the spread of a bound.
struct TwoRates(Vec<(usize, [roofline::Rates; 2])>);

impl TwoRates {
    fn measure(shape: &primitives::Shape, counts: impl IntoIterator<Item = usize>) -> TwoRates {
        let mut out: Vec<(usize, [roofline::Rates; 2])> = Vec::new();
        for t in counts {
            if out.iter().all(|r| r.0 != t) {
                let once = || primitives::measure(shape, t, primitives::Budget::QUICK);
                out.push((t, [once(), once()]));
            }
        }
        TwoRates(out)
    }

    /// The two bounds of `e`'s demand on `workload` run on `threads` (the pool's size).
    fn bounds(
        &self,
        e: &Entry<dyn Builder<Moves>>,
        workload: &Workload,
        threads: usize,
    ) -> [f64; 2] {
        let t = roofline::threads_for(&e.model, threads);
        let rates = &self
            .0
            .iter()
            .find(|r| r.0 == t)
            .expect("measured for every count")
            .1;
        let demand = (e.model.demand)(workload);
        [
            roofline::bound(&demand, &rates[0]).seconds,
            roofline::bound(&demand, &rates[1]).seconds,
        ]
    }
}

/// The modelled times past the grid: (N, back-end, seconds) for every contender at the
/// largest N timed, at each point of [`model_grid`] whose primitives fit in memory, and the
/// choice at each such point (recorded in `race`).
fn model(
    settings: &Settings,
    threads: usize,
    race: &mut Race,
    on: &mut impl FnMut(Event),
) -> Vec<(u64, &'static str, f64)> {
    let moves = &settings.moves;
    let Some((top, shape, workload, last_alphabet)) = race.last.as_ref().map(|last| {
        (
            last.limit() as u64,
            primitives::Shape::of_table(moves, last),
            last.workload(moves, threads),
            last.alphabet(),
        )
    }) else {
        return Vec::new();
    };
    // Each candidate's efficiency at the largest N timed, with primitives measured there.
    let at_top = |name: &str| {
        race.timings
            .iter()
            .rev()
            .find(|t| t.0 == top && t.1 == name)
            .map_or(f64::NAN, |t| t.2.median)
    };
    let best = race
        .alive
        .iter()
        .map(|e| at_top(e.name))
        .fold(f64::INFINITY, f64::min);
    // Only the contenders at the largest N timed are modelled: a model extrapolates a
    // back-end's own efficiency, it does not revive one that was clearly losing.
    let contenders: Vec<_> = race
        .alive
        .iter()
        .filter(|e| at_top(e.name) <= DROP_RATIO * best)
        .copied()
        .collect();
    let rates_top = TwoRates::measure(
        &shape,
        contenders
            .iter()
            .map(|e| roofline::threads_for(&e.model, threads)),
    );
    let mut priced = Vec::new();
    for e in &contenders {
        let b = rates_top.bounds(e, &workload, threads);
        let eff = roofline::efficiency((b[0] + b[1]) / 2.0, at_top(e.name));
        priced.push((*e, at_top(e.name), eff, b));
    }
    let holder = incumbent(race).unwrap_or_default();
    let trusted = match modellable(
        &priced
            .iter()
            .map(|p| (p.0.name, p.1, p.2))
            .collect::<Vec<_>>(),
        holder.as_str(),
    ) {
        Ok(trusted) => trusted,
        Err((name, eff)) => {
            on(Event::Unmodelled {
                threads,
                n: top,
                table: name,
                efficiency: eff,
            });
            return Vec::new();
        }
    };
    let trusted: Vec<_> = priced
        .into_iter()
        .filter(|p| trusted.iter().any(|t| t.0 == p.0.name))
        .collect();
    // The largest points' tables, where the growth of the values has settled.
    let fitted = &race.shapes[race.shapes.len().saturating_sub(SHAPE_FIT_POINTS)..];
    let big: Vec<(f64, f64)> = fitted.iter().map(|s| (s.0 as f64, s.1 as f64)).collect();
    let means: Vec<(f64, f64)> = fitted
        .iter()
        .filter(|s| s.2 > 0.0)
        .map(|s| (s.0 as f64, s.2))
        .collect();
    let (Some(alphabet_fit), Some(mean_fit)) = (fit_loglog(&big), fit_loglog(&means)) else {
        return Vec::new();
    };
    // Each contender's rounds at the largest N timed, for the pair ratios there.
    let top_rounds: Vec<Vec<Option<f64>>> = trusted
        .iter()
        .map(|p| {
            race.points
                .last()
                .and_then(|pt| pt.rounds_of(p.0.name))
                .map_or_else(Vec::new, <[Option<f64>]>::to_vec)
        })
        .collect();
    let mut out = Vec::new();
    for n in model_grid(top, settings.model_to) {
        let limit = n as usize;
        // The span primitive reads a table of N + 1 values.
        let needed = 2 * (n + 1);
        if crate::base::memory::check_fits(needed, crate::base::memory::available_bytes(), "")
            .is_err()
        {
            break;
        }
        let alphabet = (alphabet_fit.predict(n as f64).round() as usize).max(last_alphabet);
        let shape = primitives::Shape {
            limit,
            alphabet,
            moves: moves.up_to(limit),
        };
        let workload = Workload {
            limit,
            steps: moves.option_steps(limit) as f64,
            alphabet,
            mean_value: mean_fit.predict(n as f64),
            threads,
            rare_steps: 0.0,
        };
        let rates = TwoRates::measure(
            &shape,
            trusted
                .iter()
                .map(|p| roofline::threads_for(&p.0.model, threads)),
        );
        let mut here = Vec::new();
        for (&(e, seconds_top, eff, bt), top_rounds) in trusted.iter().zip(&top_rounds) {
            let bn = rates.bounds(e, &workload, threads);
            let ratios = [bn[0] / bt[0], bn[0] / bt[1], bn[1] / bt[0], bn[1] / bt[1]];
            let growth = (
                ratios.iter().copied().fold(f64::INFINITY, f64::min),
                ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            );
            let seconds = seconds_top * (bn[0] + bn[1]) / (bt[0] + bt[1]);
            out.push((n, e.name, seconds));
            on(Event::Modelled {
                threads,
                n,
                table: e.name,
                seconds,
                efficiency: eff,
                growth,
            });
            here.push(Priced {
                name: e.name,
                seconds,
                top: top_rounds.clone(),
                growth,
            });
        }
        let held = incumbent(race).unwrap_or_default();
        let choice = decide::choose_modelled(&here, built_in(n, threads), &held);
        let ratio_of = |a: &str, b: &str| {
            let a = here.iter().find(|p| p.name == a)?;
            let b = here.iter().find(|p| p.name == b)?;
            Some(decide::modelled_ratio(a, b))
        };
        record(race, (threads, n, top), choice, ratio_of, on);
    }
    out
}

/// The contenders whose cost model may extrapolate them, from (contender, seconds at the
/// largest N timed, efficiency there): those whose efficiency is positive and at most
/// [`MAX_MODELLED_EFFICIENCY`] (far above 1 a model counts work the back-end skips, so it is
/// no bound there), each with its efficiency. Err((the holder, its efficiency)) when
/// `holder`, the choice at the largest N timed (the fastest when no contender is named so),
/// is not among them: modelling only the others could hand the N past the grid to a
/// back-end the measurements did not choose (it happened: on two threads `bitset-parallel`
/// modelled from 5.6·10^6 on, twice `stamped-parallel`'s time at 10^7).
fn modellable<T: Copy + PartialEq>(
    priced: &[(T, f64, f64)],
    holder: T,
) -> std::result::Result<Vec<(T, f64)>, (T, f64)> {
    let trusted = |eff: f64| eff.is_finite() && eff > 0.0 && eff <= MAX_MODELLED_EFFICIENCY;
    let winner = priced
        .iter()
        .find(|p| p.0 == holder)
        .or_else(|| priced.iter().min_by(|a, b| a.1.total_cmp(&b.1)));
    match winner {
        Some(&(w, _, eff)) if !trusted(eff) => Err((w, eff)),
        _ => Ok(priced
            .iter()
            .filter(|p| trusted(p.2))
            .map(|&(t, _, eff)| (t, eff))
            .collect()),
    }
}

/// The steps of one thread count: the choice at each point, measured then modelled, merged
/// where it does not change, each boundary at the geometric mean of the points either side.
fn plan_of(threads: usize, race: &Race, modelled: &[(u64, &'static str, f64)]) -> ThreadPlan {
    let mut steps: Vec<Step> = Vec::new();
    let mut previous_n = 0u64;
    for c in &race.choices {
        let basis = decide::Why::parse(&c.basis).map_or(Basis::Measured, decide::Why::basis);
        let n = c.n;
        let name = c.table.as_str();
        match steps.last() {
            Some(s) if s.table == name && (s.basis == basis || basis == Basis::Measured) => {}
            Some(_) => steps.push(Step {
                from: ((previous_n as f64) * (n as f64)).sqrt().round() as u64,
                table: name.into(),
                basis,
            }),
            None => steps.push(Step {
                from: 0,
                table: name.into(),
                basis,
            }),
        }
        previous_n = n;
    }
    let measured = race.timings.iter().map(|&(n, table, s)| Timing {
        n,
        table: table.into(),
        seconds: s.median,
        min_seconds: Some(s.min),
        max_seconds: Some(s.max),
        rounds: Some(s.count),
    });
    let modelled = modelled.iter().map(|&(n, table, seconds)| Timing {
        n,
        table: table.into(),
        seconds,
        min_seconds: None,
        max_seconds: None,
        rounds: None,
    });
    ThreadPlan {
        threads,
        steps,
        timings: measured.chain(modelled).collect(),
        choices: race.choices.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holder_whose_model_is_no_bound_stops_the_modelling() {
        // (name, seconds at the largest N timed, efficiency there)
        let fair = [("a", 8.0, 0.7), ("b", 10.0, 1.3), ("c", 11.0, 0.9)];
        assert_eq!(modellable(&fair, "a"), Ok(vec![("a", 0.7), ("c", 0.9)]));
        let untrusted_winner = [("a", 8.0, 1.4), ("b", 10.0, 0.9), ("c", 11.0, 0.8)];
        assert_eq!(modellable(&untrusted_winner, "a"), Err(("a", 1.4)));
        // The holder is the choice at the largest N timed, kept within noise though `a`
        // was faster by median: its model must be a bound, the fastest's need not.
        assert_eq!(
            modellable(&untrusted_winner, "b"),
            Ok(vec![("b", 0.9), ("c", 0.8)])
        );
        assert_eq!(modellable(&fair, "b"), Err(("b", 1.3)));
        // No holder named among them: the fastest stands for it.
        assert_eq!(modellable(&untrusted_winner, "z"), Err(("a", 1.4)));
        let unpriced_winner = [("b", 10.0, 0.9), ("a", 8.0, f64::NAN)];
        assert!(matches!(modellable(&unpriced_winner, "a"), Err(("a", e)) if e.is_nan()));
        let at_the_limit = [("a", 8.0, MAX_MODELLED_EFFICIENCY)];
        assert_eq!(
            modellable(&at_the_limit, "a"),
            Ok(vec![("a", MAX_MODELLED_EFFICIENCY)])
        );
        assert_eq!(modellable::<&str>(&[], "a"), Ok(vec![]));
    }

    #[test]
    fn the_grid_has_two_points_a_decade_and_models_past_it() {
        assert_eq!(grid(10_000), vec![100, 316, 1000, 3162, 10_000]);
        assert_eq!(grid(50), vec![50]);
        assert_eq!(
            model_grid(10_000_000, 1_000_000_000),
            vec![31_622_777, 100_000_000, 316_227_766, 1_000_000_000]
        );
        assert!(model_grid(10_000, 10_000).is_empty());
    }

    #[test]
    fn steps_follow_the_choices_with_boundaries_between_points() {
        let decision = |n: u64, table: &str, basis: &str| wisdom::Decision {
            n,
            table: table.into(),
            basis: basis.into(),
            fastest: table.into(),
            ratio_low: None,
            ratio_high: None,
            built_in: "stamped".into(),
        };
        let one = Spread {
            median: 1.0,
            min: 0.9,
            max: 1.1,
            count: 3,
        };
        let race = Race {
            points: Vec::new(),
            timings: vec![(100, "stamped", one), (100, "bitset", one)],
            shapes: Vec::new(),
            alive: Vec::new(),
            last: None,
            choices: vec![
                decision(100, "stamped", "measured"),
                decision(10_000, "bitset", "measured"),
                // Kept within noise: no new step.
                decision(1_000_000, "bitset", "within-noise"),
                decision(10_000_000, "stamped", "modelled"),
                decision(100_000_000, "stamped", "modelled-within-noise"),
                // Held past the grid as the built-in choice: a modelled step.
                decision(316_227_766, "bitset", "built-in-within-noise"),
            ],
        };
        let modelled = [(10_000_000, "stamped", 6.0), (10_000_000, "bitset", 7.0)];
        let plan = plan_of(2, &race, &modelled);
        let got: Vec<(u64, &str, Basis)> = plan
            .steps
            .iter()
            .map(|s| (s.from, s.table.as_str(), s.basis))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, "stamped", Basis::Measured),
                (1000, "bitset", Basis::Measured),
                (3_162_278, "stamped", Basis::Modelled),
                (177_827_941, "bitset", Basis::Modelled),
            ]
        );
        assert_eq!(plan.timings.len(), 4);
        assert_eq!(plan.timings[0].min_seconds, Some(0.9));
        assert_eq!(plan.timings[3].rounds, None);
        assert_eq!(plan.choices.len(), 6);
    }
}
