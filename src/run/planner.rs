//! The planner: a request (moves, N, heaps, back-end names or `auto`, threads) resolved once
//! into a [`Plan`] that `solve`, `verify`, `profile` and `scale` execute and report.
//!
//! `auto` takes the table back-end from wisdom (`nimsquare tune`'s measurements on this
//! machine, [`wisdom`]) when the request carries wisdom that fits the run, else from the
//! built-in crossovers below; the plan says which ([`Plan::table_choice`]).
//!
//! One heap with `--table auto` takes the win/lose sieve instead of a table: the answer is
//! the cold count, which needs only the zero set.
//!
//! Everything that can refuse a request is checked here, before any work: the limit, the
//! back-end names, whether the counter supports the number of heaps, and the memory the run
//! needs (each back-end states its own scratch through its trait). Like RustFFT's planner
//! choosing an algorithm by length, `auto` picks a back-end from N and the thread count,
//! using crossovers measured on the project's 2-core machines (results/table/planner.md), or from
//! wisdom `tune` measured on this one.
//!
//! The planner only chooses; it never changes an answer (every back-end it can name is in
//! the registry and checked by the checker).

use crate::base::error::{Error, Result};
use crate::base::isa::Isa;
use crate::base::limit::Limit;
use crate::base::memory;
use crate::base::moves::Moves;
use crate::cold::{self, ColdFinder};
use crate::count::{self, Counter};
use crate::grundy::Builder;
use crate::registry::Entry;
use crate::run::wisdom;
use crate::table::{self, Table};
use serde_json::json;
use std::sync::Arc;

/// The name that asks the planner to choose.
pub const AUTO: &str = "auto";

/// Below this N the plain `stamped` mex wins: the lane blocks' set-up (a 32-lane scratch
/// and its stride dispatch) costs more than the few option steps there are
/// (results/table/planner.md, "Table").
pub const TABLE_LANES_FROM: usize = 100;

/// From this N on, with two or more threads, `stamped-parallel` beats `stamped-lanes`:
/// below it the per-super-block synchronisation outweighs the split work. Off the AVX-512
/// path only (results/table/planner.md, "Table").
pub const TABLE_PARALLEL_FROM: usize = 300_000;

/// On the AVX-512 path, from this N on, `bitset` beats `stamped-lanes` on one thread, and on
/// two below [`TABLE_BITSET_PARALLEL_FROM`] it also beats `stamped-parallel`: its far-move
/// OR takes 64 lanes in a few vector ops (results/table/planner.md, "The AVX-512 path").
pub const TABLE_BITSET_FROM: usize = 30_000;

/// On the AVX-512 path with two or more threads, from this N on, `bitset-parallel` beats
/// `bitset` and `stamped-parallel`: below it a super-block's far work is too short for the
/// second thread's hand-offs (results/table/planner.md, "Built-in choices against the best, per
/// machine": 1.3-1.5x faster than `bitset` from 2·10^5 to 10^6 on the EPYC's quiet studies).
pub const TABLE_BITSET_PARALLEL_FROM: usize = 200_000;

/// On the AVX-512 path the bitset back-ends are chosen only up to this N: past it the
/// largest value (for the squares) needs 7 mask words or more, and the AVX-512 far-move OR
/// takes them in groups of 16 lanes that each reread every move's lines, so the stamped
/// back-ends win (results/table/planner.md, "The AVX-512 path").
pub const TABLE_BITSET_UNTIL: usize = 10_000_000;

/// On the AVX2 path, from this N to [`TABLE_AVX2_BITSET_UNTIL`], `bitset` beats
/// `stamped-lanes` (1.4x at 10^4, 1.7x at 10^5 on the EPYC-AVX2, results/table/planner.md "Built-in
/// choices against the best, per machine"; `tune` there: 1.2-1.9x from 10^4 to 10^6).
pub const TABLE_AVX2_BITSET_FROM: usize = 10_000;

/// On the AVX2 path with two or more threads, from this N to [`TABLE_AVX2_BITSET_UNTIL`],
/// `bitset-parallel` (2.3x `stamped-lanes` at 10^5 on the EPYC-AVX2, same section).
pub const TABLE_AVX2_BITSET_PARALLEL_FROM: usize = 100_000;

/// On the AVX2 path the bitset back-ends are chosen up to this N: past it their mask words
/// multiply with the values and the stamped back-ends win (at 3·10^6 and 10^7 on the
/// EPYC-AVX2 `tune` run, results/table/planner.md).
pub const TABLE_AVX2_BITSET_UNTIL: usize = 1_000_000;

/// The table back-end `auto` means for (N, threads) by the built-in crossovers, on the path this run's kernels
/// take ([`crate::base::isa::active`]).
pub fn choose_table(limit: usize, threads: usize) -> &'static Entry<dyn Builder<Moves>> {
    choose_table_on(crate::base::isa::active(), limit, threads)
}

/// `auto`'s built-in table choice for the paths `paths` with `threads` threads or more: from
/// N = `steps[i].0` on (up to the next step), the back-end named `steps[i].1`. The same
/// shape as a wisdom file's plan ([`wisdom::ThreadPlan`]), read by the same function
/// ([`wisdom::step_at`]).
pub struct Crossovers {
    pub paths: &'static [Isa],
    pub threads: usize,
    pub steps: &'static [(usize, &'static str)],
}

/// The built-in crossovers (the constants above say where each was measured): the bitset
/// kernels in the middle range of N on the AVX-512 and AVX2 paths, each with its own
/// crossovers, the stamped ones below and above it and on the scalar and portable paths
/// (results/table/planner.md, "Built-in choices against the best, per machine").
pub static BUILT_IN: &[Crossovers] = &[
    Crossovers {
        paths: &[Isa::Avx512],
        threads: 1,
        steps: &[
            (0, "stamped"),
            (TABLE_LANES_FROM, "stamped-lanes"),
            (TABLE_BITSET_FROM, "bitset"),
            (TABLE_BITSET_UNTIL + 1, "stamped-lanes"),
        ],
    },
    Crossovers {
        paths: &[Isa::Avx512],
        threads: 2,
        steps: &[
            (0, "stamped"),
            (TABLE_LANES_FROM, "stamped-lanes"),
            (TABLE_BITSET_FROM, "bitset"),
            (TABLE_BITSET_PARALLEL_FROM, "bitset-parallel"),
            (TABLE_BITSET_UNTIL + 1, "stamped-parallel"),
        ],
    },
    Crossovers {
        paths: &[Isa::Avx2],
        threads: 1,
        steps: &[
            (0, "stamped"),
            (TABLE_LANES_FROM, "stamped-lanes"),
            (TABLE_AVX2_BITSET_FROM, "bitset"),
            (TABLE_AVX2_BITSET_UNTIL + 1, "stamped-lanes"),
        ],
    },
    Crossovers {
        paths: &[Isa::Avx2],
        threads: 2,
        steps: &[
            (0, "stamped"),
            (TABLE_LANES_FROM, "stamped-lanes"),
            (TABLE_AVX2_BITSET_FROM, "bitset"),
            (TABLE_AVX2_BITSET_PARALLEL_FROM, "bitset-parallel"),
            (TABLE_AVX2_BITSET_UNTIL + 1, "stamped-parallel"),
        ],
    },
    Crossovers {
        paths: &[Isa::Scalar, Isa::Portable],
        threads: 1,
        steps: &[(0, "stamped"), (TABLE_LANES_FROM, "stamped-lanes")],
    },
    Crossovers {
        paths: &[Isa::Scalar, Isa::Portable],
        threads: 2,
        steps: &[
            (0, "stamped"),
            (TABLE_LANES_FROM, "stamped-lanes"),
            (TABLE_PARALLEL_FROM, "stamped-parallel"),
        ],
    },
];

/// The table back-end `auto` means on the instruction-set path `isa` by the built-in
/// crossovers ([`BUILT_IN`]): the row of the path with the most threads not above `threads`,
/// and in it the step that covers N.
pub fn choose_table_on(
    isa: Isa,
    limit: usize,
    threads: usize,
) -> &'static Entry<dyn Builder<Moves>> {
    let row = BUILT_IN
        .iter()
        .filter(|r| r.paths.contains(&isa) && r.threads <= threads.max(1))
        .max_by_key(|r| r.threads)
        .expect("every path has a one-thread row of built-in crossovers");
    let (_, name) = wisdom::step_at(row.steps, |s| s.0 as u64, limit as u64);
    table::find(name).expect("the built-in crossovers name registered back-ends")
}

/// The table back-end `auto` means for (moves, N, threads) on the active path, from
/// `source` when it holds wisdom that fits the run, else from the built-in crossovers; and
/// the phrase saying which (`wisdom FILE, measured DATE`, or `built-in` with the reason).
pub fn choose_table_from(
    source: Option<&wisdom::Source>,
    moves: &Moves,
    limit: usize,
    threads: usize,
) -> (&'static Entry<dyn Builder<Moves>>, String) {
    let isa = crate::base::isa::active();
    if let Some(src) = source {
        let choice = src.choose(isa, moves, limit as u64, threads);
        if let Some(entry) = choice.table {
            return (entry, choice.source);
        }
        return (choose_table_on(isa, limit, threads), choice.source);
    }
    (choose_table_on(isa, limit, threads), "built-in".into())
}

/// Every table back-end `auto` can pick (on some path, at some N), in registry order: what
/// `tune` times. Read from [`BUILT_IN`].
pub fn auto_table_candidates() -> Vec<&'static Entry<dyn Builder<Moves>>> {
    table::BACKENDS
        .iter()
        .filter(|e| {
            BUILT_IN
                .iter()
                .any(|r| r.steps.iter().any(|&(_, name)| name == e.name))
        })
        .collect()
}

/// Runs with fewer option steps than this get no forecast (they take seconds at most).
pub const FORECAST_FROM_STEPS: f64 = 5e10;

/// The N of the calibration run behind a forecast: large enough to leave start-up behind,
/// small enough to take well under a second.
pub const CALIBRATION_LIMIT: usize = 1_000_000;

/// The count back-end `auto` means for N, the number of heaps and the thread count.
///
/// `wht` works on the value histogram the table already holds, O(G log G) per heap count,
/// against O(G^2) for `burnside` and O(N·G) for the sweeps, and it counts any K; it was the
/// fastest count back-end at every N measured (results/table/planner.md, "Count"), so there is
/// no crossover to encode.
pub fn choose_count() -> &'static Entry<dyn Counter> {
    &count::wht::ENTRY
}

/// Seconds per option step of `entry` right now: one calibration build at
/// N = min([`CALIBRATION_LIMIT`], `largest`), timed. What every forecast multiplies by.
pub fn seconds_per_step(entry: &Entry<dyn Builder<Moves>>, moves: &Moves, largest: usize) -> f64 {
    let calibration = CALIBRATION_LIMIT.min(largest);
    let start = std::time::Instant::now();
    crate::table::build_with(&*(entry.make)(), moves, calibration);
    start.elapsed().as_secs_f64() / (moves.option_steps(calibration).max(1) as f64)
}

/// The forecast of a study's `builds` (back-end, N, times built): the option steps in all
/// and, past [`FORECAST_FROM_STEPS`] of them, the seconds they take at each back-end's
/// [`seconds_per_step`] (one calibration per back-end, at its largest N or less).
pub fn forecast_builds(
    moves: &Moves,
    builds: &[(&'static Entry<dyn Builder<Moves>>, usize, u64)],
) -> (f64, Option<f64>) {
    forecast_builds_at(moves, builds, |entry, largest| {
        seconds_per_step(entry, moves, largest)
    })
}

/// [`forecast_builds`] with the seconds per option step of a back-end, given its largest N
/// in the study, from `per_step` (called once per back-end, and only past
/// [`FORECAST_FROM_STEPS`]): the arithmetic apart from the timing.
pub fn forecast_builds_at(
    moves: &Moves,
    builds: &[(&'static Entry<dyn Builder<Moves>>, usize, u64)],
    mut per_step: impl FnMut(&Entry<dyn Builder<Moves>>, usize) -> f64,
) -> (f64, Option<f64>) {
    let steps = |n: usize, times: u64| moves.option_steps(n) as f64 * times as f64;
    let total: f64 = builds.iter().map(|&(_, n, k)| steps(n, k)).sum();
    if total < FORECAST_FROM_STEPS {
        return (total, None);
    }
    let mut seconds = 0.0;
    let mut names: Vec<&str> = Vec::new();
    for &(entry, _, _) in builds {
        if names.contains(&entry.name) {
            continue;
        }
        names.push(entry.name);
        let mine = builds.iter().filter(|b| b.0.name == entry.name);
        let largest = mine.clone().map(|b| b.1).max().unwrap_or(0);
        let work: f64 = mine.map(|&(_, n, k)| steps(n, k)).sum();
        seconds += work * per_step(entry, largest);
    }
    (total, Some(seconds))
}

/// What the user asked for, before anything is checked.
#[derive(Debug, Clone)]
pub struct Request {
    pub moves: Moves,
    pub limit: Limit,
    pub heaps: usize,
    /// A table back-end name or [`AUTO`].
    pub table: String,
    /// A count back-end name or [`AUTO`].
    pub count: String,
    /// Wisdom for `auto`'s table choice (None: the built-in crossovers).
    pub wisdom: Option<Arc<wisdom::Source>>,
}

/// A checked request: the chosen back-ends, the limit, the memory, the threads.
pub struct Plan {
    pub moves: Moves,
    pub limit: usize,
    pub heaps: usize,
    pub table: &'static Entry<dyn Builder<Moves>>,
    pub count: &'static Entry<dyn Counter>,
    /// What was asked for (`auto` or a name), for the report.
    pub table_requested: String,
    pub count_requested: String,
    /// Where the table back-end came from: `named` when asked for by name, else the
    /// source of `auto`'s choice ([`choose_table_from`]).
    pub table_choice: String,
    pub threads: usize,
    /// The win/lose sieve when only g = 0 matters (one heap, `--table auto`): the answer is
    /// the number of cold positions, and no table is built.
    pub cold: Option<&'static Entry<dyn ColdFinder>>,
    /// Bytes the run needs (table, scratch of both stages) and bytes available, if known.
    pub memory_needed: u64,
    pub memory_available: Option<u64>,
}

impl Plan {
    /// Resolves and checks `request` on the current rayon pool; refuses, before any work,
    /// anything that cannot run.
    pub fn new(request: &Request) -> Result<Plan> {
        let limit = request.limit.get();
        let threads = rayon::current_num_threads();
        count::check_heaps(request.heaps)?;
        let mut table_choice = String::from("named");
        let table = resolve(
            &request.table,
            || {
                let (entry, why) =
                    choose_table_from(request.wisdom.as_deref(), &request.moves, limit, threads);
                table_choice = why;
                Ok(entry)
            },
            table::find,
        )?;
        let count = resolve(&request.count, || Ok(choose_count()), count::find)?;
        count::check_supports(count, request.heaps)?;
        let cold = (request.heaps == 1 && request.table == AUTO).then(|| cold::STAGE.reference());
        let builder = (table.make)();
        check_table_affords(table, limit, "choose another --table or auto")?;
        check_count_affords(
            count,
            limit,
            request.heaps,
            "choose another --count or auto",
        )?;
        let memory_needed = bytes_needed(request, (limit, threads), &*builder, count, cold);
        let memory_available = memory::available_bytes();
        memory::check_fits(
            memory_needed,
            memory_available,
            &format!(
                "the '{}' run for N = {limit}",
                cold.map_or(table.name, |c| c.name)
            ),
        )?;
        Ok(Plan {
            moves: request.moves.clone(),
            limit,
            heaps: request.heaps,
            table,
            count,
            table_requested: request.table.clone(),
            count_requested: request.count.clone(),
            table_choice,
            threads,
            cold,
            memory_needed,
            memory_available,
        })
    }

    /// A forecast of the table stage, for runs large enough to deserve one: the option
    /// steps S(N) times the rate the planned back-end shows right now on a calibration run
    /// at N = [`CALIBRATION_LIMIT`] (a lower bound: the rate per step grows once the table
    /// leaves the caches). `None` below [`FORECAST_FROM_STEPS`] or on the sieve route.
    pub fn forecast_seconds(&self) -> Option<f64> {
        let steps = self.moves.option_steps(self.limit) as f64;
        if self.cold.is_some() || steps < FORECAST_FROM_STEPS {
            return None;
        }
        Some(steps * seconds_per_step(self.table, &self.moves, self.limit))
    }

    /// Counts with the planned back-end.
    pub fn count(&self, table: &Table) -> Result<u128> {
        (self.count.make)().count(table, self.heaps)
    }

    /// The planned back-end's count as an exact decimal string: the `u128` count, or, when
    /// that overflows (many heaps), the back-end's big-integer count where it has one.
    pub fn count_exact(&self, table: &Table) -> Result<String> {
        match self.count(table) {
            Ok(n) => Ok(n.to_string()),
            Err(Error::Overflow(_)) => (self.count.make)()
                .count_exact(table, self.heaps)
                .map(|n| n.to_string()),
            Err(e) => Err(e),
        }
    }

    /// The plan's facts as JSON fields (merged into each command's report). On the sieve
    /// route `table` and `count` are null (neither runs) and `cold` names the sieve.
    pub fn to_json(&self) -> serde_json::Value {
        let (table, count) = match self.cold {
            Some(_) => (None, None),
            None => (Some(self.table.name), Some(self.count.name)),
        };
        json!({
            "version": env!("CARGO_PKG_VERSION"),
            "build": crate::base::provenance::BUILD_REV,
            "limit": self.limit,
            "moves": self.moves.label(),
            "heaps": self.heaps,
            "table": table,
            "count": count,
            "cold": self.cold.map(|c| c.name),
            "table_requested": self.table_requested,
            "count_requested": self.count_requested,
            "table_choice": self.table_choice,
            // What each stage ran on: all of the pool for a parallel back-end, else one.
            "threads": self.cold.map_or_else(
                || threads_used(self.table.model.parallel, self.threads),
                |_| self.threads,
            ),
            "count_threads": threads_used(self.count.model.parallel, self.threads),
            "pool_threads": self.threads,
            "memory_needed_bytes": self.memory_needed,
            "memory_available_bytes": self.memory_available,
        })
    }
}

/// The threads a back-end runs on in a pool of `pool`: all of them when it is parallel.
fn threads_used(parallel: bool, pool: usize) -> usize {
    if parallel {
        pool
    } else {
        1
    }
}

/// Bytes a run needs: the table and both stages' scratch, or on the sieve route an N-bit
/// set and the sieve's scratch.
fn bytes_needed(
    request: &Request,
    (limit, threads): (usize, usize),
    builder: &dyn Builder<Moves>,
    count: &Entry<dyn Counter>,
    cold: Option<&Entry<dyn ColdFinder>>,
) -> u64 {
    if let Some(c) = cold {
        // The cold set's u64 words (`ColdSet`: N / 64 + 1 of them).
        let set = 8 * (limit as u64 / 64 + 1);
        return set + (c.make)().scratch_bytes(&request.moves, limit, threads);
    }
    // Values are at most the number of moves <= N, so that bounds the alphabet.
    let alphabet = request.moves.up_to(limit).len() + 1;
    table::bytes_needed(builder, &request.moves, limit, threads)
        + (count.make)().scratch_bytes(alphabet, threads)
}

/// Refuses the table back-end `entry` at N = `limit` past the largest N it affords (only a
/// naive control has one: quadratic, it would run for hours), naming `--limit` and what it
/// affords; `instead` ends the message with what to do (the caller knows its flags). The one
/// rule for every command that builds a named table (`solve`, `roofline`).
pub fn check_table_affords(
    entry: &'static Entry<dyn Builder<Moves>>,
    limit: usize,
    instead: &str,
) -> Result<()> {
    let most = (entry.make)().affordable_limit();
    crate::grundy::check_affords(entry.name, most, "--limit", limit, instead)
}

/// Refuses the count back-end `entry` for K = `heaps` heaps at N = `limit` when it does not
/// afford them (the brute-force control is polynomial of degree K), as
/// [`check_table_affords`] does for tables.
pub fn check_count_affords(
    entry: &'static Entry<dyn Counter>,
    limit: usize,
    heaps: usize,
    instead: &str,
) -> Result<()> {
    if (entry.make)().affordable(limit, heaps) {
        return Ok(());
    }
    Err(refusal(
        entry.name,
        format!("--limit {limit} with {heaps} heaps"),
        instead,
    ))
}

/// The error of a naive control asked for `what` it does not afford.
fn refusal(name: &'static str, what: String, instead: &str) -> Error {
    Error::Unsupported {
        backend: name,
        what: format!(
            "{what}: it is a naive control, run only on small inputs (see `nimsquare list`); {instead}"
        ),
    }
}

/// `auto` through the planner's choice, any other name through the registry; an unknown
/// name lists the valid ones with `auto` first.
fn resolve<T: ?Sized + 'static>(
    requested: &str,
    auto: impl FnOnce() -> Result<&'static Entry<T>>,
    find: impl FnOnce(&str) -> Result<&'static Entry<T>>,
) -> Result<&'static Entry<T>> {
    if requested == AUTO {
        return auto();
    }
    find(requested).map_err(|e| match e {
        Error::UnknownBackend {
            stage,
            name,
            mut valid,
        } => {
            valid.insert(0, AUTO);
            Error::UnknownBackend { stage, name, valid }
        }
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(table: &str, count: &str, limit: u64, heaps: usize) -> Request {
        Request {
            moves: Moves::Squares,
            limit: Limit::new(limit).unwrap(),
            heaps,
            table: table.into(),
            count: count.into(),
            wisdom: None,
        }
    }

    #[test]
    fn auto_resolves_and_unknown_names_list_auto() {
        let p = Plan::new(&request(AUTO, AUTO, 1_000_000, 3)).unwrap();
        // Which of these depends on the path and the threads (`thresholds_order` pins it).
        let fast = [
            "stamped-lanes",
            "stamped-parallel",
            "bitset",
            "bitset-parallel",
        ];
        assert!(fast.contains(&p.table.name) && p.count.name == "wht");
        let p = Plan::new(&request("bitset", "sweep", 10, 3)).unwrap();
        assert_eq!((p.table.name, p.count.name), ("bitset", "sweep"));
        let msg = Plan::new(&request("nope", AUTO, 10, 3))
            .err()
            .unwrap()
            .to_string();
        assert!(msg.contains("auto, naive-mex, stamped"), "{msg}");
        let msg = Plan::new(&request(AUTO, "nope", 10, 3))
            .err()
            .unwrap()
            .to_string();
        assert!(msg.contains("auto, brute, sweep"), "{msg}");
    }

    #[test]
    fn a_counter_that_cannot_do_k_heaps_is_refused_naming_those_that_can() {
        let msg = Plan::new(&request(AUTO, "sweep", 10, 5))
            .err()
            .unwrap()
            .to_string();
        assert!(
            msg.contains("'sweep'") && msg.contains("burnside") && msg.contains("wht"),
            "{msg}"
        );
        assert!(!msg.contains("brute"), "controls are not suggested: {msg}");
    }

    #[test]
    fn a_control_past_its_size_is_refused() {
        assert!(Plan::new(&request("naive-mex", "brute", 100, 3)).is_ok());
        let msg = Plan::new(&request(AUTO, "brute", 101, 3))
            .err()
            .unwrap()
            .to_string();
        assert!(
            msg.contains("'brute'") && msg.contains("naive control"),
            "{msg}"
        );
        let msg = Plan::new(&request("naive-mex", AUTO, 100_001, 3))
            .err()
            .unwrap()
            .to_string();
        assert!(
            msg.contains("'naive-mex'")
                && msg.contains("--limit 100001 (it affords N <= 100000)")
                && msg.contains("choose another --table or auto"),
            "{msg}"
        );
        // The rule itself, as `roofline` calls it, with the caller's advice.
        let naive = table::find("naive-mex").unwrap();
        assert!(check_table_affords(naive, 100_000, "x").is_ok());
        let msg = check_table_affords(naive, 10_000_000, "leave it out")
            .unwrap_err()
            .to_string();
        assert!(msg.ends_with("; leave it out"), "{msg}");
        let brute = count::find("brute").unwrap();
        assert!(check_count_affords(brute, 100, 3, "x").is_ok());
        assert!(check_count_affords(brute, 101, 3, "x").is_err());
    }

    #[test]
    fn one_heap_goes_through_the_sieve_unless_a_table_is_named() {
        let p = Plan::new(&request(AUTO, AUTO, 1_000_000_000, 1)).unwrap();
        assert_eq!(p.cold.map(|c| c.name), Some("sieve"));
        // An eighth of a byte a position, not two bytes.
        assert!(p.memory_needed < 400_000_000, "{}", p.memory_needed);
        assert!(Plan::new(&request("stamped", AUTO, 100, 1))
            .unwrap()
            .cold
            .is_none());
        assert!(Plan::new(&request(AUTO, AUTO, 100, 3))
            .unwrap()
            .cold
            .is_none());
    }

    #[test]
    fn the_built_in_crossovers_are_well_formed_on_every_path() {
        for isa in [Isa::Scalar, Isa::Portable, Isa::Avx2, Isa::Avx512] {
            let rows: Vec<&Crossovers> =
                BUILT_IN.iter().filter(|r| r.paths.contains(&isa)).collect();
            assert!(
                rows.iter().any(|r| r.threads == 1),
                "{isa}: no one-thread row"
            );
            for r in rows {
                assert_eq!(r.steps[0].0, 0, "{isa}, {} threads", r.threads);
                assert!(r.steps.windows(2).all(|w| w[0].0 < w[1].0), "{isa}");
                for (_, name) in r.steps {
                    let e = table::find(name).unwrap();
                    assert!(!e.is_control());
                    assert!(
                        r.threads >= 2 || !e.model.parallel,
                        "{isa}: {name} on one thread"
                    );
                }
            }
        }
        let names: Vec<&str> = auto_table_candidates().iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            [
                "stamped",
                "bitset",
                "stamped-lanes",
                "stamped-parallel",
                "bitset-parallel"
            ]
        );
    }

    /// The moves {1, 2}: up to N there are N + (N − 1) option steps (19 at 10, 39 at 20,
    /// 9 at 5); the move {1} alone has 1 at N = 1.
    fn one_two() -> Moves {
        Moves::list(vec![1, 2]).unwrap()
    }

    #[test]
    fn a_forecast_below_its_threshold_counts_the_steps_and_times_nothing() {
        let (stamped, bitset) = (
            table::find("stamped").unwrap(),
            table::find("bitset").unwrap(),
        );
        let mut timed = 0;
        let got = forecast_builds_at(&one_two(), &[(stamped, 10, 3), (bitset, 10, 2)], |_, _| {
            timed += 1;
            1.0
        });
        assert_eq!((got, timed), ((95.0, None), 0));
        assert_eq!(
            forecast_builds(&one_two(), &[(stamped, 10, 3)]),
            (57.0, None)
        );
        // Exactly FORECAST_FROM_STEPS steps is forecast; one fewer is not.
        let one = Moves::list(vec![1]).unwrap();
        let at = FORECAST_FROM_STEPS as u64;
        let forecast = |times| forecast_builds_at(&one, &[(stamped, 1, times)], |_, _| 2.0);
        assert_eq!(forecast(at), (5e10, Some(1e11)));
        assert_eq!(forecast(at - 1), (5e10 - 1.0, None));
    }

    #[test]
    fn a_forecast_times_each_back_end_once_at_its_largest_n_and_sums_its_own_work() {
        let (stamped, bitset) = (
            table::find("stamped").unwrap(),
            table::find("bitset").unwrap(),
        );
        let builds = [
            (stamped, 10, 4e9 as u64),
            (bitset, 20, 1e9 as u64),
            (stamped, 5, 1e9 as u64),
        ];
        let mut calls = Vec::new();
        let got = forecast_builds_at(&one_two(), &builds, |entry, largest| {
            calls.push((entry.name, largest));
            if entry.name == "stamped" {
                1.0
            } else {
                1000.0
            }
        });
        // stamped: 19·4e9 + 9·1e9 steps at 1 s; bitset: 39·1e9 at 1000 s.
        assert_eq!(got, (124e9, Some(85e9 + 39e12)));
        assert_eq!(calls, [("stamped", 10), ("bitset", 20)]);
    }

    #[test]
    fn only_a_table_run_past_the_forecast_threshold_is_forecast() {
        // 10^6 squares: S(N) about 6.7·10^8 steps, below FORECAST_FROM_STEPS.
        let small = Plan::new(&request("stamped", AUTO, 1_000_000, 3)).unwrap();
        assert_eq!(small.forecast_seconds(), None);
        // 10^9: about 2.1·10^13 steps at the rate of a calibration at 10^6, which is between
        // a picosecond and 10 µs a step (a step is nanoseconds).
        let big = Plan::new(&request("stamped", AUTO, 1_000_000_000, 3)).unwrap();
        let steps = Moves::Squares.option_steps(1_000_000_000) as f64;
        let seconds = big.forecast_seconds().expect("a forecast at 10^9");
        assert!(
            seconds > steps * 1e-12 && seconds < steps * 1e-5,
            "{seconds}"
        );
        // One heap with `auto` is the sieve's: no table, so no forecast.
        let sieve = Plan::new(&request(AUTO, AUTO, 1_000_000_000, 1)).unwrap();
        assert_eq!(sieve.forecast_seconds(), None);
    }

    #[test]
    fn a_plan_forecast_starts_at_exactly_the_threshold() {
        // The moves 1..=25 have 25·N − 300 option steps up to N: 5·10^10 at N = 2·10^9 + 12.
        let at = |limit: u64| Request {
            moves: Moves::list((1..=25).collect()).unwrap(),
            ..request("stamped", AUTO, limit, 3)
        };
        assert_eq!(
            at(2_000_000_012).moves.option_steps(2_000_000_012),
            50_000_000_000
        );
        assert!(Plan::new(&at(2_000_000_012))
            .unwrap()
            .forecast_seconds()
            .is_some());
        assert!(Plan::new(&at(2_000_000_011))
            .unwrap()
            .forecast_seconds()
            .is_none());
    }

    #[test]
    fn a_plan_reports_the_threads_each_stage_runs_on() {
        let pool = rayon::current_num_threads();
        let one = Plan::new(&request("stamped", "sweep", 1000, 3))
            .unwrap()
            .to_json();
        assert_eq!(
            (one["threads"].as_u64(), one["count_threads"].as_u64()),
            (Some(1), Some(1))
        );
        let all = Plan::new(&request("stamped-parallel", "rayon-sweep", 1000, 3))
            .unwrap()
            .to_json();
        let pool = Some(pool as u64);
        assert_eq!(
            (all["threads"].as_u64(), all["count_threads"].as_u64()),
            (pool, pool)
        );
        assert_eq!(all["pool_threads"].as_u64(), pool);
    }

    #[test]
    fn a_plans_memory_is_its_table_its_histogram_and_both_stages_scratch_worked_by_hand() {
        // N = 128^2: 128 squares, so the values are below 129 and the counter's alphabet
        // (W = 256 for 129 values) is one past a power of two.
        let plan = Plan::new(&request("stamped", "sweep", 16_384, 3)).unwrap();
        // u16 table, u64 histogram, stamped's list and `seen` (16 · 130), sweep (44 · 256).
        assert_eq!(
            plan.memory_needed,
            2 * 16_385 + 8 * 129 + 16 * 130 + 44 * 256
        );
        // One heap: the sieve's N-bit set (157 words at 10^4) and its scratch (a window of
        // 10 001 bytes a thread, 32 bytes for each of 631 + 64 cursors).
        let pool = rayon::current_num_threads() as u64;
        let sieve = Plan::new(&request(AUTO, AUTO, 10_000, 1)).unwrap();
        assert_eq!(sieve.memory_needed, 8 * 157 + pool * 10_001 + 32 * 695);
    }

    #[test]
    fn a_step_of_stamped_is_timed_at_well_under_ten_microseconds() {
        // 10^4 squares is 6.6·10^5 steps, about a millisecond: a step is nanoseconds, and a
        // bound of 10 µs holds on any machine these tests run on, unoptimised or loaded.
        let per_step = seconds_per_step(table::find("stamped").unwrap(), &Moves::Squares, 10_000);
        assert!(per_step > 0.0 && per_step < 1e-5, "{per_step}");
    }

    #[test]
    fn thresholds_order() {
        let pick = |limit, threads| choose_table_on(Isa::Avx2, limit, threads);
        const { assert!(TABLE_LANES_FROM < TABLE_AVX2_BITSET_FROM) };
        const { assert!(TABLE_AVX2_BITSET_FROM < TABLE_AVX2_BITSET_PARALLEL_FROM) };
        const { assert!(TABLE_AVX2_BITSET_PARALLEL_FROM < TABLE_AVX2_BITSET_UNTIL) };
        assert_eq!(pick(TABLE_AVX2_BITSET_FROM - 1, 1).name, "stamped-lanes");
        assert_eq!(pick(TABLE_AVX2_BITSET_FROM, 2).name, "bitset");
        assert_eq!(pick(TABLE_AVX2_BITSET_PARALLEL_FROM, 1).name, "bitset");
        assert_eq!(
            pick(TABLE_AVX2_BITSET_PARALLEL_FROM, 2).name,
            "bitset-parallel"
        );
        assert_eq!(pick(TABLE_AVX2_BITSET_UNTIL, 1).name, "bitset");
        assert_eq!(pick(TABLE_AVX2_BITSET_UNTIL, 2).name, "bitset-parallel");
        assert_eq!(pick(TABLE_AVX2_BITSET_UNTIL + 1, 1).name, "stamped-lanes");
        assert_eq!(
            pick(TABLE_AVX2_BITSET_UNTIL + 1, 2).name,
            "stamped-parallel"
        );
        for isa in [Isa::Scalar, Isa::Portable] {
            let pick = |limit, threads| choose_table_on(isa, limit, threads);
            assert_eq!(pick(TABLE_LANES_FROM - 1, 2).name, "stamped");
            assert_eq!(pick(TABLE_LANES_FROM, 2).name, "stamped-lanes");
            assert_eq!(pick(TABLE_PARALLEL_FROM, 2).name, "stamped-parallel");
            assert_eq!(pick(TABLE_PARALLEL_FROM, 1).name, "stamped-lanes");
        }
        let pick = |limit, threads| choose_table_on(Isa::Avx512, limit, threads);
        const { assert!(TABLE_LANES_FROM < TABLE_BITSET_FROM) };
        const { assert!(TABLE_BITSET_FROM < TABLE_BITSET_PARALLEL_FROM) };
        assert_eq!(pick(TABLE_LANES_FROM - 1, 2).name, "stamped");
        assert_eq!(pick(TABLE_BITSET_FROM - 1, 2).name, "stamped-lanes");
        assert_eq!(pick(TABLE_BITSET_FROM, 1).name, "bitset");
        assert_eq!(pick(TABLE_BITSET_PARALLEL_FROM - 1, 2).name, "bitset");
        assert_eq!(pick(TABLE_BITSET_PARALLEL_FROM, 2).name, "bitset-parallel");
        assert_eq!(pick(TABLE_BITSET_UNTIL, 1).name, "bitset");
        assert_eq!(pick(TABLE_BITSET_UNTIL, 2).name, "bitset-parallel");
        assert_eq!(pick(TABLE_BITSET_UNTIL + 1, 1).name, "stamped-lanes");
        assert_eq!(pick(TABLE_BITSET_UNTIL + 1, 2).name, "stamped-parallel");
        assert_eq!(pick(usize::MAX, 1).name, "stamped-lanes");
    }

    #[test]
    fn auto_follows_the_active_path() {
        let _guard = crate::base::isa::TEST_LOCK
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        for isa in Isa::supported_all() {
            let got = crate::base::isa::with(isa, || choose_table(10_000_000, 2)).unwrap();
            assert_eq!(got.name, choose_table_on(isa, 10_000_000, 2).name, "{isa}");
        }
    }
}
