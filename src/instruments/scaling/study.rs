//! The scaling study itself: which points of a grid remain, how one point is timed, checked
//! and held against its roofline bound, and which points are skipped as too slow. The CLI
//! (`nimsquare scale`) parses the arguments, opens the [`CsvLog`] and shows what happens
//! through the [`Event`]s [`Study::run`] reports; everything it measures is decided here.
//!
//! A study is a set of table back-ends timed at each N of a geometric grid. For every
//! (back-end, N) point not yet in the log, in grid order (all back-ends at one N before the
//! next N):
//!
//! - below [`WARM_UP_BELOW_STEPS`] option steps the table is built once untimed, then
//!   `repeats` times timed; the row holds the median and the minimum;
//! - the first table built at each N judges the others there ([`check::against_first`]): a
//!   difference stops the study with [`crate::base::error::Error::Disagreement`];
//! - the primitive rates of the roofline are measured with the first table of each N (a
//!   [`RateBook`], kept while N stays) and fill the row's bound columns;
//! - with a budget ([`Study::skip_over`]), a back-end whose fitted slope predicts one run
//!   over the budget is skipped there and at every larger N.
//!
//! Invariants: every row is appended to the log, and flushed, before the next point starts,
//! so an interrupted study keeps every finished point and `--resume` completes it; points
//! already in the log are never measured again.
//!
//! Cost: per point, `repeats` builds (plus the warm-up below the threshold), one comparison
//! with the first table at its N, and once per N the roofline primitives
//! ([`primitives::Budget::QUICK`]); the work of a point, for progress, is [`work`].

use super::fit::predict_seconds;
use super::log::{CsvLog, Settings};
use super::row::Row;
use crate::base::error::Result;
use crate::base::moves::Moves;
use crate::base::provenance::load_average;
use crate::base::provenance::Provenance;
use crate::base::stats::median;
use crate::instruments::check::{self, Checker};
use crate::instruments::roofline::{self, primitives, RateBook};
use crate::instruments::{planner, wisdom};
use crate::registry::Entry;
use crate::table;
use std::time::Instant;

/// Points of fewer option steps than this get one untimed build before the timed ones: a
/// build of micro- to milliseconds is slowed by what ran just before it in the process
/// (results/big-n.md, target 4). Above it one build costs a second or more, and a warm-up
/// would double the study for no visible effect.
pub const WARM_UP_BELOW_STEPS: u128 = 1 << 30;

/// A checked scaling study: what to time, on which grid, under which settings.
#[derive(Debug, Clone)]
pub struct Study {
    /// The table back-ends, in the order they are timed at each N (registry names, or
    /// [`planner::AUTO`]: the back-end `auto` picks at each N, timed under the name `auto`).
    pub names: Vec<&'static str>,
    /// The wisdom `auto` chooses from (None: the built-in crossovers).
    pub wisdom: Option<std::sync::Arc<wisdom::Source>>,
    /// The limits N, ascending, each a valid table limit.
    pub grid: Vec<u64>,
    /// The subtraction set.
    pub moves: Moves,
    /// The settings every row records (and a resumed log must share): `moves` is the label
    /// of [`Study::moves`], `threads` the worker threads, `repeats` the timed runs per point
    /// (at least one).
    pub settings: Settings,
    /// Skip a back-end from the first N where one run is predicted to take more than this
    /// many seconds (a positive number), or never.
    pub skip_over: Option<f64>,
}

/// Why a point is not measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Skip {
    /// The back-end was skipped at a smaller N already.
    AtSmallerN,
    /// Its fitted slope predicts `seconds` for one run, over the `budget`.
    Predicted { seconds: f64, budget: f64 },
}

/// What [`Study::run`] reports, in order: `Planned` once, `Resumed` when the log already held
/// rows, then for each remaining point `Start`, one `Row` or `Skip`, and `Done`.
#[derive(Debug)]
pub enum Event<'a> {
    /// The points to do and their total [`work`].
    Planned { points: usize, work: u64 },
    /// The log already held this many rows (never sent for zero).
    Resumed { rows: usize },
    /// Point `index` (from 1) of `of` is about to be measured or skipped.
    Start {
        name: &'static str,
        n: u64,
        index: usize,
        of: usize,
    },
    /// A measured point, checked against the first table at its N; it is appended to the
    /// log and flushed right after this event, before the next point starts.
    Row(&'a Row),
    /// A point not measured, and why.
    Skip {
        name: &'static str,
        n: u64,
        why: Skip,
    },
    /// The point just started counts as done (measured or skipped), weighing `work`.
    Done { work: u64 },
}

/// The work of one point: option steps of the table at `n` (at least one), times the
/// repeats, so that progress does not stand still on the last, largest points.
pub fn work(moves: &Moves, n: u64, repeats: usize) -> u64 {
    let steps = moves.option_steps(n as usize).max(1);
    u64::try_from(steps.saturating_mul(repeats as u128)).unwrap_or(u64::MAX)
}

impl Study {
    /// The (back-end, N) points of the grid not yet in `log`, in the order they are measured.
    pub fn todo(&self, log: &CsvLog) -> Vec<(&'static str, u64)> {
        let done = log.done();
        self.grid
            .iter()
            .flat_map(|&n| self.names.iter().map(move |&b| (b, n)))
            .filter(|(b, n)| !done.contains(&(b.to_string(), *n)))
            .collect()
    }

    /// Measures every point not yet in `log`, appending each row as it comes, and reports
    /// each step to `on`. Stops at the first error: a failed build or write, or two tables
    /// that differ at one N.
    pub fn run(&self, log: &mut CsvLog, mut on: impl FnMut(Event)) -> Result<()> {
        let already = log.rows().len();
        let todo = self.todo(log);
        let repeats = self.settings.repeats;
        let total = todo.iter().fold(0u64, |s, &(_, n)| {
            s.saturating_add(work(&self.moves, n, repeats))
        });
        on(Event::Planned {
            points: todo.len(),
            work: total,
        });
        if already > 0 {
            on(Event::Resumed { rows: already });
        }
        let host = Provenance::here(self.moves.label(), self.settings.threads);
        let mut skipped: Vec<&'static str> = Vec::new();
        // The first table measured at each N judges the others there (the one checker).
        let mut checker: Option<Checker> = None;
        // The primitive rates at the current N, measured with its first table (once per N
        // and thread count, again after a minute).
        let mut book: Option<RateBook> = None;
        let of = todo.len();
        for (i, (name, n)) in todo.into_iter().enumerate() {
            if checker
                .as_ref()
                .is_some_and(|c| c.judge_table().limit() as u64 != n)
            {
                checker = None;
            }
            on(Event::Start {
                name,
                n,
                index: i + 1,
                of,
            });
            if let Some(why) = self.skip(log, &mut skipped, name, n) {
                on(Event::Skip { name, n, why });
            } else {
                let (mut row, table) = self.measure_point(name, n, &host)?;
                self.fill_bound(&mut row, &mut book, &table)?;
                check::against_first(&mut checker, &self.moves, name, table)?;
                on(Event::Row(&row));
                log.append(row)?;
            }
            on(Event::Done {
                work: work(&self.moves, n, repeats),
            });
        }
        Ok(())
    }

    /// Why `name` is not measured at `n`, if it is not: skipped at a smaller N already, or
    /// predicted over the budget (then it is skipped from here on).
    fn skip(
        &self,
        log: &CsvLog,
        skipped: &mut Vec<&'static str>,
        name: &'static str,
        n: u64,
    ) -> Option<Skip> {
        if skipped.contains(&name) {
            return Some(Skip::AtSmallerN);
        }
        let budget = self.skip_over?;
        let seconds = predict_seconds(log.rows(), name, n)?;
        if seconds <= budget {
            return None;
        }
        skipped.push(name);
        Some(Skip::Predicted { seconds, budget })
    }

    /// The back-end `name` means at `n`: the registry's, or for [`planner::AUTO`] the one
    /// the planner picks there with this study's wisdom and threads.
    pub fn entry(&self, name: &str, n: u64) -> Result<&'static Entry<dyn table::TableBuilder>> {
        if name == planner::AUTO {
            let limit = n as usize; // on the grid, a valid limit
            return Ok(planner::choose_table_from(
                self.wisdom.as_deref(),
                &self.moves,
                limit,
                self.settings.threads,
            )
            .0);
        }
        table::find(name)
    }

    /// Builds the table of `name` at `n` `repeats` times (after one untimed warm-up build
    /// below [`WARM_UP_BELOW_STEPS`]): the row (its bound not yet filled) and the last table.
    fn measure_point(&self, name: &str, n: u64, host: &Provenance) -> Result<(Row, table::Table)> {
        let limit = n as usize; // on the grid, a valid limit
        let load_start = load_average().unwrap_or(f64::NAN);
        let entry = self.entry(name, n)?;
        let builder = (entry.make)();
        let steps = self.moves.option_steps(limit);
        if steps < WARM_UP_BELOW_STEPS {
            drop(builder.build(&self.moves, limit));
        }
        let repeats = self.settings.repeats;
        let mut times = Vec::with_capacity(repeats);
        let mut table = None;
        for _ in 0..repeats {
            drop(table.take()); // only the last repeat's table is held
            let start = Instant::now();
            let t = builder.build(&self.moves, limit);
            times.push(start.elapsed().as_secs_f64());
            table = Some(t);
        }
        let table = table.expect("at least one repeat");
        let med = median(&times);
        let row = Row {
            backend: name.to_string(),
            n,
            seconds_median: med,
            seconds_min: times.iter().copied().fold(f64::INFINITY, f64::min),
            repeats,
            option_steps: steps,
            ns_per_step: if steps > 0 {
                med * 1e9 / steps as f64
            } else {
                0.0
            },
            max_value: table.max_value(),
            chosen: (name == planner::AUTO).then(|| entry.name.to_string()),
            provenance: host.clone(),
            isa: crate::base::isa::active().name().to_string(),
            // Filled by `fill_bound` once the table is built.
            bound_ns_per_step: f64::NAN,
            bound_resource: String::new(),
            efficiency: f64::NAN,
            load_start,
            load_end: load_average().unwrap_or(f64::NAN),
        };
        Ok((row, table))
    }

    /// Fills the row's roofline columns: its back-end's cost model on this table, at the
    /// primitive rates measured at this N ([`crate::instruments::roofline`]).
    fn fill_bound(
        &self,
        row: &mut Row,
        book: &mut Option<RateBook>,
        table: &table::Table,
    ) -> Result<()> {
        if book
            .as_ref()
            .is_none_or(|b| b.shape().limit != table.limit())
        {
            let shape = primitives::Shape::of_table(&self.moves, table);
            *book = Some(RateBook::new(shape, primitives::Budget::QUICK));
        }
        let book = book.as_mut().expect("set above");
        let threads = self.settings.threads;
        let model = self.entry(&row.backend, row.n)?.model;
        let workload = table.workload(&self.moves, threads);
        let rates = book.rates(roofline::threads_for(&model, threads));
        let b = roofline::bound(&(model.demand)(&workload), &rates);
        let steps = (row.option_steps as f64).max(1.0);
        row.bound_ns_per_step = b.seconds * 1e9 / steps;
        row.bound_resource = b.resource.name().to_string();
        row.efficiency = roofline::efficiency(b.seconds, row.seconds_median);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_weighs_points_by_option_steps_and_repeats() {
        let sq = Moves::Squares;
        assert_eq!(work(&sq, 10_000, 3), 3 * 661_750);
        assert_eq!(work(&sq, 0, 1), 1);
    }
}
