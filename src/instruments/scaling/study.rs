//! The scaling study itself: which points of a grid remain, how the points of one N are timed,
//! checked and held against their roofline bounds, and which points are skipped as too slow.
//! The CLI (`nimsquare scale`) parses the arguments, opens the [`CsvLog`] and shows what
//! happens through the [`Event`]s [`Study::run`] reports; everything it measures is decided
//! here.
//!
//! A study is a set of back-ends of one game's stage ([`Subject`]: a subtraction game's table
//! back-ends, or an octal game's) timed at each N of a geometric grid. At each N, for the
//! (back-end, N) points not yet in the log (all back-ends at one N before the next N):
//!
//! - a back-end skipped at a smaller N, or whose fitted slope predicts one run over the budget
//!   ([`Study::skip_over`]), is skipped there and at every larger N;
//! - below [`WARM_UP_BELOW_STEPS`] option steps each back-end builds the table once untimed;
//! - then `repeats` rounds, each timing every back-end once, in an order that rotates by one
//!   from round to round: a build is slowed or sped by what ran just before it, so no back-end
//!   is always timed first or always after the same one, and a drift of the machine's speed
//!   during the N falls on every back-end alike. The row holds the median and the minimum;
//! - in the first round, the first table built judges the others there
//!   ([`check::against_first_of`]): a difference stops the study with
//!   [`crate::base::error::Error::Disagreement`];
//! - the primitive rates of the roofline are measured with the judge's table (a [`RateBook`],
//!   kept while N stays) and fill the rows' bound columns.
//!
//! Invariants: a back-end's row is appended to the log, and flushed, right after its last
//! timed build, in the last round; an interrupted study keeps every row so finished, loses
//! the rounds of the N it was in for the others, and `--resume` completes it; points already
//! in the log are never measured again.
//!
//! Cost: per point, `repeats` builds (plus the warm-up below the threshold), one comparison
//! with the judge at its N, and once per N the roofline primitives
//! ([`primitives::Budget::QUICK`]); the work of a point, for progress, is [`work`], reported
//! build by build.

use super::fit::predict_seconds;
use super::log::{CsvLog, Settings};
use super::row::Row;
use crate::base::error::Result;
use crate::base::provenance::load_average;
use crate::base::provenance::Provenance;
use crate::base::stats::median;
use crate::instruments::check;
use crate::instruments::roofline::{self, primitives, RateBook};
use crate::run::workload::{Backend, Subject};
use crate::run::{planner, wisdom};
use crate::table;
use std::time::Instant;

/// Points of fewer option steps than this get one untimed build before the timed ones: a
/// build of micro- to milliseconds is slowed by what ran just before it in the process
/// (results/scaling/big-n.md, target 4). Above it one build costs a second or more, and a warm-up
/// would double the study for no visible effect.
pub const WARM_UP_BELOW_STEPS: u128 = 1 << 30;

/// A checked scaling study: what to time, on which grid, under which settings.
#[derive(Debug, Clone)]
pub struct Study {
    /// The back-ends of [`Study::game`]'s stage, in the order they are timed at each N
    /// (registry names, or for a subtraction game [`planner::AUTO`]: the back-end `auto`
    /// picks at each N, timed under the name `auto`).
    pub names: Vec<&'static str>,
    /// The wisdom `auto` chooses from (None: the built-in crossovers).
    pub wisdom: Option<std::sync::Arc<wisdom::Source>>,
    /// The limits N, ascending, each a valid table limit.
    pub grid: Vec<u64>,
    /// The game whose tables are timed: a subtraction set or an octal code.
    pub game: Subject,
    /// The settings every row records (and a resumed log must share): `moves` is the label
    /// of [`Study::game`] ([`Subject::label`]: `squares`, `1,3,4`, or an octal code such as
    /// `0.6`), `threads` the worker threads, `repeats` the timed runs per point (at least
    /// one).
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

/// A point to time at one N: its number in the study (from 1) and its back-end's name.
#[derive(Debug, Clone, Copy)]
struct Point {
    index: usize,
    name: &'static str,
}

/// What [`Study::run`] reports, in order: `Planned` once, `Resumed` when the log already held
/// rows, then at each N a `Skip` and a `Done` for each point skipped there, and for each timed
/// build a `Start` and a `Done`, the `Row` of a point following its last build.
#[derive(Debug)]
pub enum Event<'a> {
    /// The points to do and their total [`work`].
    Planned { points: usize, work: u64 },
    /// The log already held this many rows (never sent for zero).
    Resumed { rows: usize },
    /// Timed build `round` (from 1) of `rounds` of point `index` (from 1) of `of` is about to
    /// start.
    Start {
        name: &'static str,
        n: u64,
        index: usize,
        of: usize,
        round: usize,
        rounds: usize,
    },
    /// A measured point, checked against the judge at its N; it is appended to the log and
    /// flushed right after this event, before the next build starts.
    Row(&'a Row),
    /// A point not measured, and why.
    Skip {
        name: &'static str,
        n: u64,
        why: Skip,
    },
    /// Work done: one timed build (the option steps of its table, at least one) or a skipped
    /// point (its whole [`work`]).
    Done { work: u64 },
}

/// The work of one point: option steps of the table at `n` (at least one), times the
/// repeats, so that progress does not stand still on the last, largest points.
pub fn work(game: &Subject, n: u64, repeats: usize) -> u64 {
    let steps = game.option_steps(n as usize).max(1);
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
            s.saturating_add(work(&self.game, n, repeats))
        });
        on(Event::Planned {
            points: todo.len(),
            work: total,
        });
        if already > 0 {
            on(Event::Resumed { rows: already });
        }
        let host = Provenance::here(self.game.label(), self.settings.threads);
        let mut skipped: Vec<&'static str> = Vec::new();
        // The primitive rates at the current N, measured with its judge's table (once per N
        // and thread count, again after a minute).
        let mut book: Option<RateBook> = None;
        let of = todo.len();
        let mut index = 0;
        for &n in &self.grid {
            let mut timed: Vec<Point> = Vec::new();
            for &(name, _) in todo.iter().filter(|&&(_, at)| at == n) {
                index += 1;
                if let Some(why) = self.skip(log, &mut skipped, name, n) {
                    on(Event::Skip { name, n, why });
                    on(Event::Done {
                        work: work(&self.game, n, repeats),
                    });
                } else {
                    timed.push(Point { index, name });
                }
            }
            if !timed.is_empty() {
                self.measure_n(n, &timed, of, &host, &mut book, log, &mut on)?;
            }
        }
        Ok(())
    }

    /// Times the `points` at `n` in rotating rounds (see the module doc), checks each
    /// back-end's first table against the first one built, and appends each point's row
    /// (bound filled) right after its last build.
    #[allow(clippy::too_many_arguments)]
    fn measure_n(
        &self,
        n: u64,
        points: &[Point],
        of: usize,
        host: &Provenance,
        book: &mut Option<RateBook>,
        log: &mut CsvLog,
        on: &mut impl FnMut(Event),
    ) -> Result<()> {
        let limit = n as usize; // on the grid, a valid limit
        let load_start = load_average().unwrap_or(f64::NAN);
        let entries = points
            .iter()
            .map(|p| self.entry(p.name, n))
            .collect::<Result<Vec<_>>>()?;
        let builders: Vec<_> = entries.iter().map(|e| e.make()).collect();
        let steps = self.game.option_steps(limit);
        if steps < WARM_UP_BELOW_STEPS {
            for builder in &builders {
                drop(builder.build(&self.game, limit)?);
            }
        }
        let repeats = self.settings.repeats;
        let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(repeats); points.len()];
        // The first table built at this N judges the others (the one checker).
        let mut checker: Option<check::Tables> = None;
        for round in 0..repeats {
            for k in 0..points.len() {
                let j = (k + round) % points.len();
                let Point { index, name } = points[j];
                on(Event::Start {
                    name,
                    n,
                    index,
                    of,
                    round: round + 1,
                    rounds: repeats,
                });
                let start = Instant::now();
                let table = builders[j].build(&self.game, limit)?;
                times[j].push(start.elapsed().as_secs_f64());
                if round == 0 {
                    check::against_first_of(&mut checker, &self.game, name, table)?;
                } else {
                    drop(table);
                }
                on(Event::Done {
                    work: u64::try_from(steps.max(1)).unwrap_or(u64::MAX),
                });
                if round + 1 == repeats {
                    let judged = checker.as_ref().expect("set in the first round");
                    let table = &judged.table;
                    let mut row = self.row(name, entries[j].name(), table, &times[j], host);
                    row.load_start = load_start;
                    self.fill_bound(&mut row, book, table)?;
                    on(Event::Row(&row));
                    log.append(row)?;
                }
            }
        }
        Ok(())
    }

    /// The row of `name` (the back-end `chosen` for it) from its timed builds of `table` (or
    /// of a table checked equal to it); its bound and its starting load not yet filled.
    fn row(
        &self,
        name: &str,
        chosen: &str,
        table: &table::Table,
        times: &[f64],
        host: &Provenance,
    ) -> Row {
        let n = table.limit() as u64;
        let steps = self.game.option_steps(table.limit());
        let med = median(times);
        Row {
            backend: name.to_string(),
            n,
            seconds_median: med,
            seconds_min: times.iter().copied().fold(f64::INFINITY, f64::min),
            repeats: times.len(),
            option_steps: steps,
            ns_per_step: if steps > 0 {
                med * 1e9 / steps as f64
            } else {
                0.0
            },
            max_value: table.max_value(),
            chosen: (name == planner::AUTO).then(|| chosen.to_string()),
            provenance: host.clone(),
            isa: crate::base::isa::active().name().to_string(),
            // Filled by `fill_bound` and the caller.
            bound_ns_per_step: f64::NAN,
            bound_resource: String::new(),
            efficiency: f64::NAN,
            load_start: f64::NAN,
            load_end: load_average().unwrap_or(f64::NAN),
        }
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

    /// The back-end `name` means at `n`: the game's stage's (an octal game's `auto` is one of
    /// them), or for [`planner::AUTO`] of a subtraction game the one the planner picks there
    /// with this study's wisdom and threads.
    pub fn entry(&self, name: &str, n: u64) -> Result<Backend> {
        if let (planner::AUTO, Some(moves)) = (name, self.game.counts()) {
            let limit = n as usize; // on the grid, a valid limit
            return Ok(table::WORKLOAD.backend(
                planner::choose_table_from(
                    self.wisdom.as_deref(),
                    moves,
                    limit,
                    self.settings.threads,
                )
                .0,
            ));
        }
        self.game.find(name)
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
            let shape = primitives::Shape::of_game(&self.game, table);
            *book = Some(RateBook::new(shape, primitives::Budget::QUICK));
        }
        let book = book.as_mut().expect("set above");
        let threads = self.settings.threads;
        let model = self.entry(&row.backend, row.n)?.model();
        let workload = self.game.workload(table, threads);
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
        let sq = crate::run::workload::squares();
        assert_eq!(work(&sq, 10_000, 3), 3 * 661_750);
        assert_eq!(work(&sq, 0, 1), 1);
    }

    #[test]
    fn rounds_rotate_the_order_and_each_row_follows_its_last_build() {
        let dir = std::env::temp_dir().join(format!("nimsquare-study-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rounds.csv");
        let _ = std::fs::remove_file(&path);
        let mut log = CsvLog::create(&path).unwrap();
        let study = Study {
            names: vec!["stamped", "bitset", "value-bounded"],
            wisdom: None,
            grid: vec![300, 600],
            game: crate::run::workload::squares(),
            settings: Settings {
                moves: crate::base::moves::Moves::Squares.label(),
                threads: 1,
                repeats: 3,
            },
            skip_over: None,
        };
        let mut seen = Vec::new();
        let mut work_done = 0;
        let mut planned = 0;
        study
            .run(&mut log, |e| match e {
                Event::Planned { work, .. } => planned = work,
                Event::Start { name, n, round, .. } => seen.push(format!("{n} {round} {name}")),
                Event::Row(row) => seen.push(format!("{} row {}", row.n, row.backend)),
                Event::Done { work } => work_done += work,
                _ => {}
            })
            .unwrap();
        let want_at = |n: u64| {
            [
                "1 stamped",
                "1 bitset",
                "1 value-bounded",
                "2 bitset",
                "2 value-bounded",
                "2 stamped",
                "3 value-bounded",
                "row value-bounded",
                "3 stamped",
                "row stamped",
                "3 bitset",
                "row bitset",
            ]
            .map(|s| format!("{n} {s}"))
        };
        let want: Vec<String> = want_at(300).into_iter().chain(want_at(600)).collect();
        assert_eq!(seen, want);
        assert_eq!(work_done, planned);
        assert_eq!(log.rows().len(), 6);
        assert!(log
            .rows()
            .iter()
            .all(|r| r.repeats == 3 && r.seconds_min <= r.seconds_median));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
