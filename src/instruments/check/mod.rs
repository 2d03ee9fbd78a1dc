//! The one checker: every registered back-end run on one input and compared with a judge.
//!
//! Like RustFFT's `check_fft_algorithm` and memchr's `Runner`, one piece of code does every
//! comparison in the project: the tests, the bench matrix's gate, `verify` and `scale` all go
//! through [`check`] or a [`Checker`]. The judge of each stage is named, never found by
//! registry position: the naive control where it affords the input (`naive-mex` up to
//! N = 10^5, `brute` to about N = 100), beyond that the stage's reference back-end
//! ([`crate::registry::Role::Reference`]). A back-end that cannot take the input (a counter
//! asked for K heaps it does not count, a control past its size) is skipped with its reason,
//! which is part of the report, not a silent omission. The cold-set back-ends (the win/lose
//! sieve and its control) are compared with the zero set of the judge's table, a check that
//! shares no kernel with the tables.
//!
//! Beside it: [`verify`], the checks `nimsquare verify` runs on one case (the published
//! checkpoint, the controls at a small N, the judges at N, the octal route), and [`saved`],
//! the check of a saved table file; the command line only parses, calls them and prints.

pub mod control;
pub mod octal_route;
pub mod saved;
pub mod verify;

use crate::base::error::{Error, Result};
use crate::base::moves::Moves;
use crate::cold::{self, ColdFinder, ColdSet};
use crate::count::{self, Counter};
use crate::grundy::Builder;
use crate::registry::Entry;
use crate::run::longrun::build_shown;
use crate::run::workload::{Backend, Subject};
use crate::table::{self, Table};
use std::fmt;
use std::time::Instant;

/// One input: the subtraction set, N and the number of heaps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub moves: Moves,
    pub limit: usize,
    pub heaps: usize,
}

/// A difference between a back-end and the judge, with the first place it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disagreement {
    /// Two tables differ; `at` is the first position where they do.
    Table {
        judge: &'static str,
        backend: &'static str,
        at: usize,
        judge_value: u16,
        value: u16,
    },
    /// Two counts differ (back-ends named `table+count`).
    Count {
        judge: String,
        backend: String,
        judge_answer: u128,
        answer: u128,
    },
    /// A cold set (win/lose sieve) differs from the zero set of the judge's table; `at` is
    /// the first position where they do.
    Cold {
        judge: &'static str,
        backend: &'static str,
        at: usize,
        judge_says_cold: bool,
    },
    /// A back-end failed where the judge answered.
    Failed { backend: String, error: String },
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Disagreement::Table {
                judge,
                backend,
                at,
                judge_value,
                value,
            } => write!(
                f,
                "table: '{judge}' gives g({at}) = {judge_value} but '{backend}' gives {value}"
            ),
            Disagreement::Count {
                judge,
                backend,
                judge_answer,
                answer,
            } => write!(
                f,
                "count: '{judge}' gives {judge_answer} but '{backend}' gives {answer}"
            ),
            Disagreement::Cold {
                judge,
                backend,
                at,
                judge_says_cold,
            } => {
                let (a, b) = if *judge_says_cold {
                    ("cold", "hot")
                } else {
                    ("hot", "cold")
                };
                write!(
                    f,
                    "cold set: '{judge}' makes {at} {a} but '{backend}' makes it {b}"
                )
            }
            Disagreement::Failed { backend, error } => write!(f, "'{backend}' failed: {error}"),
        }
    }
}

/// A back-end left out of a check, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    pub backend: &'static str,
    pub reason: String,
}

/// One (table, count) pair's answer and times.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub table: &'static str,
    pub count: &'static str,
    pub answer: u128,
    pub table_seconds: f64,
    pub count_seconds: f64,
}

/// What a check found.
#[derive(Debug, Clone)]
pub struct Report {
    pub case: Case,
    /// The judge of the table stage and its table.
    pub table_judge: &'static str,
    pub table: Table,
    /// The judge of the count stage and its answer, when some counter answered.
    pub count_judge: Option<(&'static str, u128)>,
    /// Every answering (table, count) pair.
    pub pairs: Vec<Pair>,
    /// The cold-set back-ends compared with the zero set of the judge's table.
    pub cold_sets: Vec<&'static str>,
    pub disagreements: Vec<Disagreement>,
    pub skipped: Vec<Skip>,
}

impl Report {
    /// True when nothing disagreed and at least one pair answered.
    pub fn passed(&self) -> bool {
        self.disagreements.is_empty() && !self.pairs.is_empty()
    }

    /// The report, or an [`Error::Disagreement`] naming the first disagreement.
    pub fn into_result(self) -> Result<Report> {
        match self.disagreements.first() {
            Some(d) => Err(Error::Disagreement(format!(
                "{} at N = {} ({} heaps, moves {})",
                d,
                self.case.limit,
                self.case.heaps,
                self.case.moves.label()
            ))),
            None => Ok(self),
        }
    }
}

/// Compares tables and counts with a judge as they come (`scale` feeds it the tables it
/// times; [`check`] the ones it builds).
pub struct Checker {
    report: Report,
}

impl Checker {
    /// A checker whose table judge is `judge` with its table `table`.
    pub fn new(case: Case, judge: &'static str, table: Table) -> Checker {
        Checker {
            report: Report {
                case,
                table_judge: judge,
                table,
                count_judge: None,
                pairs: Vec::new(),
                cold_sets: Vec::new(),
                disagreements: Vec::new(),
                skipped: Vec::new(),
            },
        }
    }

    /// Compares `table`, built by `backend`, with the judge's table; returns whether equal.
    pub fn table(&mut self, backend: &'static str, table: &Table) -> bool {
        let found = table_disagreement(self.report.table_judge, &self.report.table, backend, table);
        let equal = found.is_none();
        self.report.disagreements.extend(found);
        equal
    }

    /// Compares the cold set `cold`, found by `backend`, with the zero set of the judge's
    /// table; returns whether equal.
    pub fn cold(&mut self, backend: &'static str, cold: &ColdSet) -> bool {
        self.report.cold_sets.push(backend);
        let judge = ColdSet::from_table(&self.report.table);
        let Some(at) = judge.first_difference(cold) else {
            return true;
        };
        self.report.disagreements.push(Disagreement::Cold {
            judge: self.report.table_judge,
            backend,
            at,
            judge_says_cold: at <= judge.limit() && judge.contains(at),
        });
        false
    }

    /// Sets the count judge: `count` and its answer on the judge's table.
    pub fn count_judge(&mut self, count: &'static str, answer: u128) {
        self.report.count_judge = Some((count, answer));
    }

    /// Records a pair's answer (or failure) and compares it with the count judge.
    pub fn pair(&mut self, pair: std::result::Result<Pair, (String, Error)>) {
        match pair {
            Ok(p) => {
                if let Some((judge, want)) = self.report.count_judge {
                    if p.answer != want {
                        self.report.disagreements.push(Disagreement::Count {
                            judge: format!("{}+{judge}", self.report.table_judge),
                            backend: format!("{}+{}", p.table, p.count),
                            judge_answer: want,
                            answer: p.answer,
                        });
                    }
                }
                self.report.pairs.push(p);
            }
            Err((backend, e)) => self.report.disagreements.push(Disagreement::Failed {
                backend,
                error: e.to_string(),
            }),
        }
    }

    /// Records a back-end left out, and why.
    pub fn skip(&mut self, backend: &'static str, reason: String) {
        if !self.report.skipped.iter().any(|s| s.backend == backend) {
            self.report.skipped.push(Skip { backend, reason });
        }
    }

    /// The disagreements found so far.
    pub fn disagreements(&self) -> &[Disagreement] {
        &self.report.disagreements
    }

    /// The judge's table.
    pub fn judge_table(&self) -> &Table {
        &self.report.table
    }

    /// The finished report.
    pub fn finish(self) -> Report {
        self.report
    }
}

/// The first difference between the judge's table and `backend`'s (a longer or shorter
/// table differs one past the shorter's end), if any.
pub fn table_disagreement(
    judge_name: &'static str,
    judge: &Table,
    backend: &'static str,
    table: &Table,
) -> Option<Disagreement> {
    let first = judge
        .values()
        .iter()
        .zip(table.values())
        .position(|(a, b)| a != b);
    let at =
        first.or((judge.limit() != table.limit()).then(|| judge.limit().min(table.limit()) + 1))?;
    let value_at = |t: &Table| t.values().get(at).copied().unwrap_or(u16::MAX);
    Some(Disagreement::Table {
        judge: judge_name,
        backend,
        at,
        judge_value: value_at(judge),
        value: value_at(table),
    })
}

/// The tables of one game's back-ends held against a judge's table: the check of the
/// instruments that time tables of any workload ([`Subject`]: the bench matrix's gate, `scale`,
/// `roofline`). The judge is the game's ([`Subject::judge`]) or, for [`against_first_of`], the
/// first table built.
#[derive(Debug, Clone)]
pub struct Tables {
    pub game: Subject,
    /// The judge's name and its table.
    pub judge: &'static str,
    pub table: Table,
    /// The seconds the judge's build took (NaN when not timed here).
    pub judge_seconds: f64,
    /// Each back-end compared, with the seconds its build took (NaN when not timed here).
    pub checked: Vec<(&'static str, f64)>,
    pub disagreements: Vec<Disagreement>,
}

impl Tables {
    /// Nothing compared yet against `judge`'s `table` of `game`.
    pub fn new(game: Subject, judge: &'static str, table: Table) -> Tables {
        Tables {
            game,
            judge,
            table,
            judge_seconds: f64::NAN,
            checked: Vec::new(),
            disagreements: Vec::new(),
        }
    }

    /// Compares `table`, built by `backend` in `seconds`, with the judge's; returns whether
    /// equal.
    pub fn compare(&mut self, backend: &'static str, table: &Table, seconds: f64) -> bool {
        self.checked.push((backend, seconds));
        let found = table_disagreement(self.judge, &self.table, backend, table);
        let equal = found.is_none();
        self.disagreements.extend(found);
        equal
    }

    /// Itself, or an [`Error::Disagreement`] naming the first disagreement, N and the game.
    pub fn into_result(self) -> Result<Tables> {
        match self.disagreements.first() {
            Some(d) => Err(Error::Disagreement(format!(
                "{d} at N = {} ({})",
                self.table.limit(),
                self.game.describe()
            ))),
            None => Ok(self),
        }
    }
}

/// Builds `game`'s table at N = `limit` with its judge ([`Subject::judge`]), then with each of
/// `backends` (the judge itself is not built twice), each compared with the judge's;
/// disagreements and build failures are in the result ([`Tables::into_result`]). The
/// caller checks memory and affordability first.
pub fn against_judge(game: &Subject, limit: usize, backends: &[Backend]) -> Result<Tables> {
    let judge = game.judge(limit);
    let start = Instant::now();
    let table = judge.make().build(game, limit)?;
    let mut tables = Tables::new(game.clone(), judge.name(), table);
    tables.judge_seconds = start.elapsed().as_secs_f64();
    for b in backends {
        if *b == judge {
            continue;
        }
        let start = Instant::now();
        match b.make().build(game, limit) {
            Ok(t) => {
                tables.compare(b.name(), &t, start.elapsed().as_secs_f64());
            }
            Err(e) => tables.disagreements.push(Disagreement::Failed {
                backend: b.name().to_string(),
                error: e.to_string(),
            }),
        }
    }
    Ok(tables)
}

/// Compares each table of `game` given to `first` with the first one, which becomes the
/// judge when there is none yet: how `scale` and `roofline` check that the back-ends they
/// time agree, without building a reference of their own. A difference is an
/// [`Error::Disagreement`] naming both back-ends, the first differing position and N (and
/// the game, for a game other than a subtraction game).
pub fn against_first_of(
    first: &mut Option<Tables>,
    game: &Subject,
    name: &'static str,
    table: Table,
) -> Result<()> {
    let Some(t) = first else {
        *first = Some(Tables::new(game.clone(), name, table));
        return Ok(());
    };
    if t.compare(name, &table, f64::NAN) {
        return Ok(());
    }
    Err(t
        .clone()
        .into_result()
        .expect_err("a disagreement was recorded"))
}

/// The table judge for N: the naive control where it affords N, else the reference.
pub fn table_judge(limit: usize) -> &'static Entry<dyn Builder<Moves>> {
    table::BACKENDS
        .iter()
        .find(|e| e.is_control() && affords_table(&*(e.make)(), limit))
        .unwrap_or_else(table::reference)
}

/// The count judge for (N, K): the brute-force control where it affords it, else the
/// reference if it counts K heaps, else the first fast counter that does.
pub fn count_judge(limit: usize, heaps: usize) -> Option<&'static Entry<dyn Counter>> {
    let counts = |e: &&Entry<dyn Counter>| (e.make)().heaps().contains(&heaps);
    count::BACKENDS
        .iter()
        .filter(counts)
        .find(|e| e.is_control() && (e.make)().affordable(limit, heaps))
        .or_else(|| Some(count::reference()).filter(counts))
        .or_else(|| crate::registry::fast(count::BACKENDS).find(counts))
}

fn affords_table(b: &dyn Builder<Moves>, limit: usize) -> bool {
    b.affordable_limit().is_none_or(|max| limit <= max)
}

/// Runs every entry of `tables` and `counts` on `case` and compares each with the judges;
/// refuses (before any work) a case whose two largest tables would not fit in memory.
/// Disagreements are in the report ([`Report::into_result`] turns them into an error).
pub fn check(
    case: &Case,
    tables: &[&'static Entry<dyn Builder<Moves>>],
    counts: &[&'static Entry<dyn Counter>],
    colds: &[&'static Entry<dyn ColdFinder>],
) -> Result<Report> {
    check_memory(case, tables)?;
    let judge = table_judge(case.limit);
    let start = Instant::now();
    let judge_table = build_shown(&*(judge.make)(), judge.name, &case.moves, case.limit)?;
    let judge_seconds = start.elapsed().as_secs_f64();
    let mut checker = Checker::new(case.clone(), judge.name, judge_table);
    if let Some(cj) = count_judge(case.limit, case.heaps) {
        match (cj.make)().count(checker.judge_table(), case.heaps) {
            Ok(answer) => checker.count_judge(cj.name, answer),
            Err(e @ Error::Overflow(_)) => checker.skip(cj.name, e.to_string()),
            Err(e) => checker.pair(Err((cj.name.to_string(), e))),
        }
    }
    for &entry in tables {
        check_table(
            &mut checker,
            case,
            entry,
            (judge.name, judge_seconds),
            counts,
        );
    }
    for &entry in colds {
        check_cold(&mut checker, case, entry);
    }
    Ok(checker.finish())
}

/// Builds the table of `entry` (unless it is the judge's, timed at `judge_seconds`),
/// compares it with the judge's, and counts it with every counter of `counts`.
fn check_table(
    checker: &mut Checker,
    case: &Case,
    entry: &'static Entry<dyn Builder<Moves>>,
    (judge, judge_seconds): (&str, f64),
    counts: &[&'static Entry<dyn Counter>],
) {
    let builder = (entry.make)();
    if !affords_table(&*builder, case.limit) {
        let max = builder.affordable_limit().unwrap_or(0);
        checker.skip(entry.name, format!("a control, run only up to N = {max}"));
        return;
    }
    let outcomes = if entry.name == judge {
        count_pairs(
            case,
            entry.name,
            checker.judge_table(),
            judge_seconds,
            counts,
        )
    } else {
        let start = Instant::now();
        let t = build_shown(&*builder, entry.name, &case.moves, case.limit)
            .expect("a table back-end's values fit a u16");
        let seconds = start.elapsed().as_secs_f64();
        if !checker.table(entry.name, &t) {
            return;
        }
        count_pairs(case, entry.name, &t, seconds, counts)
    };
    for outcome in outcomes {
        match outcome {
            Outcome::Skip(name, why) => checker.skip(name, why),
            Outcome::Answer(pair) => checker.pair(pair),
        }
    }
}

/// Finds the cold set with `entry` and compares it with the zero set of the judge's table.
fn check_cold(checker: &mut Checker, case: &Case, entry: &'static Entry<dyn ColdFinder>) {
    let finder = (entry.make)();
    match finder.affordable_limit() {
        Some(max) if case.limit > max => {
            checker.skip(entry.name, format!("a control, run only up to N = {max}"));
        }
        _ => {
            checker.cold(entry.name, &finder.cold(&case.moves, case.limit));
        }
    }
}

/// What one counter did with one table.
enum Outcome {
    Skip(&'static str, String),
    Answer(std::result::Result<Pair, (String, Error)>),
}

/// Every counter of `counts` on `t` (built by `table` in `table_seconds`).
fn count_pairs(
    case: &Case,
    table: &'static str,
    t: &Table,
    table_seconds: f64,
    counts: &[&'static Entry<dyn Counter>],
) -> Vec<Outcome> {
    let mut out = Vec::new();
    for &entry in counts {
        let counter = (entry.make)();
        if !counter.heaps().contains(&case.heaps) {
            let why = count::check_supports(entry, case.heaps)
                .err()
                .map(|e| e.to_string());
            out.push(Outcome::Skip(entry.name, why.unwrap_or_default()));
            continue;
        }
        if !counter.affordable(case.limit, case.heaps) {
            out.push(Outcome::Skip(
                entry.name,
                "a control, too slow for this N and K".into(),
            ));
            continue;
        }
        let start = Instant::now();
        let result = counter.count(t, case.heaps);
        let count_seconds = start.elapsed().as_secs_f64();
        out.push(match result {
            Err(e @ Error::Overflow(_)) => Outcome::Skip(entry.name, e.to_string()),
            Err(e) => Outcome::Answer(Err((format!("{table}+{}", entry.name), e))),
            Ok(answer) => Outcome::Answer(Ok(Pair {
                table,
                count: entry.name,
                answer,
                table_seconds,
                count_seconds,
            })),
        });
    }
    out
}

/// Refuses a check whose judge table plus the largest other table would not fit.
fn check_memory(case: &Case, tables: &[&'static Entry<dyn Builder<Moves>>]) -> Result<()> {
    let threads = rayon::current_num_threads();
    let need = |e: &Entry<dyn Builder<Moves>>| {
        table::bytes_needed(&*(e.make)(), &case.moves, case.limit, threads)
    };
    let largest = tables.iter().map(|e| need(e)).max().unwrap_or(0);
    crate::base::memory::check_fits(
        need(table_judge(case.limit)) + largest,
        crate::base::memory::available_bytes(),
        &format!("checking the table back-ends at N = {}", case.limit),
    )
}

/// Every registered table, count and cold-set back-end, controls included.
pub fn everything(case: &Case) -> Result<Report> {
    let tables: Vec<_> = table::BACKENDS.iter().collect();
    let counts: Vec<_> = count::BACKENDS.iter().collect();
    let colds: Vec<_> = cold::BACKENDS.iter().collect();
    check(case, &tables, &counts, &colds)
}

/// Deliberately wrong back-ends for the tests of the checker and of `verify`, built only
/// for the unit tests and with the `testing` feature (which the test command enables), so
/// the shipped binary never carries them: a wrong table ([`WRONG_AT_17`]), a wrong counter
/// ([`WRONG_COUNT`]) and a counter that fails ([`FAILING_COUNT`]). They are in no registry:
/// a test passes them to [`check`] itself, and a test build of the binary takes them by name
/// (`verify --with-wrong NAME`, [`find`]).
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use super::*;
    use std::ops::RangeInclusive;

    /// The registry entry of a test-only back-end: a name, no cost, no model, no kernels.
    const fn test_only<T: ?Sized>(name: &'static str, make: fn() -> Box<T>) -> Entry<T> {
        Entry {
            name,
            description: "test only",
            cost: "",
            role: crate::registry::Role::Fast,
            model: crate::cost::Model::NOT_MODELLED,
            kernels: &[],
            make,
        }
    }

    /// The reference with one value changed (g(17) + 1).
    struct OffByOneAt(usize);

    impl Builder<Moves> for OffByOneAt {
        fn fill(&self, moves: &Moves, g: &mut [u16], from: usize) -> Result<()> {
            table::Stamped.fill(moves, g, from)?;
            if self.0 < g.len() {
                g[self.0] += 1;
            }
            Ok(())
        }
        fn scratch_bytes(&self, _: &Moves, _: usize, _: usize) -> u64 {
            0
        }
    }

    pub static WRONG_AT_17: Entry<dyn Builder<Moves>> =
        test_only("wrong-at-17", || Box::new(OffByOneAt(17)));

    /// The octal reference with one value changed (g(n) xor 1 at a fixed n): a wrong octal
    /// back-end, for the gate tests.
    struct OctalOffAt(usize);

    impl crate::octal::Builder<crate::octal::Rules> for OctalOffAt {
        fn fill(&self, rules: &crate::octal::Rules, g: &mut [u16], from: usize) -> Result<()> {
            (crate::octal::STAGE.reference().make)().fill(rules, g, from)?;
            if (from..g.len()).contains(&self.0) {
                g[self.0] ^= 1;
            }
            Ok(())
        }
        fn scratch_bytes(&self, _: &crate::octal::Rules, _: usize, _: usize) -> u64 {
            0
        }
    }

    /// `octal-wrong-at-500`: the octal reference's table with g(500) xor 1.
    pub static OCTAL_WRONG_AT_500: Entry<dyn crate::octal::Builder<crate::octal::Rules>> =
        test_only("octal-wrong-at-500", || Box::new(OctalOffAt(500)));

    /// A counter that answers through `count` and takes every heap count: the one shape of
    /// the wrong counters below.
    struct WrongCounter(fn(&Table, usize) -> Result<u128>);

    impl Counter for WrongCounter {
        fn count(&self, table: &Table, heaps: usize) -> Result<u128> {
            (self.0)(table, heaps)
        }
        fn heaps(&self) -> RangeInclusive<usize> {
            1..=count::MAX_HEAPS
        }
        fn scratch_bytes(&self, _: usize, _: usize) -> u64 {
            0
        }
    }

    /// The Walsh-Hadamard count of the table without its last position: the off-by-one of a
    /// loop that stops at N - 1. Wrong for every N >= 1 and K >= 2, since (0, .., 0, N, N)
    /// is a losing tuple that it never sees.
    fn drops_the_last(table: &Table, heaps: usize) -> Result<u128> {
        let short = &table.values()[..table.limit().max(1)];
        count::Wht.count(&Table::from_values(short.to_vec()), heaps)
    }

    pub static WRONG_COUNT: Entry<dyn Counter> = test_only("wrong-drops-last", || {
        Box::new(WrongCounter(drops_the_last))
    });

    /// A counter that always fails (an error that is not an overflow, so it is reported).
    fn always_fails(_: &Table, _: usize) -> Result<u128> {
        Err(Error::Invalid("a deliberate failure".into()))
    }

    pub static FAILING_COUNT: Entry<dyn Counter> =
        test_only("failing-count", || Box::new(WrongCounter(always_fails)));

    /// A deliberately wrong back-end of either stage.
    #[derive(Clone, Copy)]
    pub enum Wrong {
        Table(&'static Entry<dyn Builder<Moves>>),
        Count(&'static Entry<dyn Counter>),
    }

    /// Every deliberately wrong back-end.
    pub fn all() -> [Wrong; 3] {
        [
            Wrong::Table(&WRONG_AT_17),
            Wrong::Count(&WRONG_COUNT),
            Wrong::Count(&FAILING_COUNT),
        ]
    }

    /// The wrong back-end called `name`, or an error listing their names.
    pub fn find(name: &str) -> Result<Wrong> {
        let name_of = |w: &Wrong| match w {
            Wrong::Table(e) => e.name,
            Wrong::Count(e) => e.name,
        };
        all()
            .into_iter()
            .find(|w| name_of(w) == name)
            .ok_or_else(|| {
                let names: Vec<&str> = all().iter().map(name_of).collect();
                Error::Invalid(format!(
                    "--with-wrong takes one of {}, got '{name}'",
                    names.join(", ")
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::testing::{FAILING_COUNT, WRONG_AT_17, WRONG_COUNT};

    fn case(limit: usize) -> Case {
        Case {
            moves: Moves::Squares,
            limit,
            heaps: 3,
        }
    }

    /// The naive cold control runs up to N = 10^7, its documented limit, and is skipped past
    /// it with the reason (the skip decides before any work, so the case's N alone tells);
    /// the sieve runs at any N.
    #[test]
    fn the_naive_cold_control_runs_up_to_ten_million_and_is_skipped_past_it() {
        let naive = cold::find("naive-cold").unwrap();
        let small = table::build("stamped", &Moves::Squares, 1000).unwrap();
        let mut checker = Checker::new(case(1000), "stamped", small.clone());
        check_cold(&mut checker, &case(1000), naive);
        // The sieve has no limit (the trait's default): it runs too.
        check_cold(&mut checker, &case(1000), cold::find("sieve").unwrap());
        let report = checker.finish();
        assert_eq!(report.cold_sets, ["naive-cold", "sieve"]);
        assert!(report.skipped.is_empty() && report.disagreements.is_empty());

        let past = 10_000_001;
        let mut checker = Checker::new(case(past), "stamped", small);
        check_cold(&mut checker, &case(past), naive);
        let report = checker.finish();
        assert!(report.cold_sets.is_empty());
        assert_eq!(report.skipped.len(), 1);
        assert_eq!(report.skipped[0].backend, "naive-cold");
        assert_eq!(
            report.skipped[0].reason,
            "a control, run only up to N = 10000000"
        );
    }

    #[test]
    fn against_first_takes_the_first_table_as_judge_and_names_a_difference() {
        let m = Moves::Squares;
        let game = crate::run::workload::subtraction(m.clone());
        let good = table::build("stamped", &m, 300).unwrap();
        let mut values = good.values().to_vec();
        values[123] ^= 1;
        let mut first = None;
        against_first_of(&mut first, &game, "stamped", good.clone()).unwrap();
        against_first_of(&mut first, &game, "bitset", good).unwrap();
        let e = against_first_of(&mut first, &game, "wrong", Table::from_values(values))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("wrong") && e.contains("stamped") && e.contains("123"),
            "{e}"
        );
    }

    #[test]
    fn a_wrong_table_is_named_with_its_first_wrong_position() {
        let report = check(
            &case(40),
            &[table::find("stamped").unwrap(), &WRONG_AT_17],
            &[],
            &[],
        )
        .unwrap();
        assert_eq!(report.table_judge, "naive-mex");
        assert_eq!(
            report.disagreements,
            vec![Disagreement::Table {
                judge: "naive-mex",
                backend: "wrong-at-17",
                at: 17,
                judge_value: 0, // 17 is a cold position of subtract-a-square
                value: 1,
            }]
        );
        let err = report.into_result().unwrap_err().to_string();
        assert!(
            err.contains("'wrong-at-17' gives 1") && err.contains("g(17) = 0"),
            "{err}"
        );
    }

    #[test]
    fn a_wrong_count_is_named_with_both_pairs_and_the_case() {
        // Independent values: L(40) = 2632 (the seeds' facts); without position 40 the count
        // is L(39), which misses (0, 40, 40) at least.
        let stamped = table::find("stamped").unwrap();
        let report = check(&case(40), &[stamped], &[&WRONG_COUNT], &[]).unwrap();
        assert_eq!(report.count_judge, Some(("brute", 2632)));
        assert_eq!(report.disagreements.len(), 1, "{:?}", report.disagreements);
        let Disagreement::Count {
            judge,
            backend,
            judge_answer,
            answer,
        } = &report.disagreements[0]
        else {
            panic!("{:?}", report.disagreements)
        };
        assert_eq!(
            (judge.as_str(), backend.as_str(), *judge_answer),
            ("naive-mex+brute", "stamped+wrong-drops-last", 2632)
        );
        // Exactly the count without position 40: L(39), from the brute-force judge at 39.
        let l39 = check(&case(39), &[stamped], &[], &[]).unwrap().count_judge;
        assert_eq!(l39.map(|(_, c)| c), Some(*answer));
        assert!(*answer < 2632, "{answer}");
        let answer = *answer;
        let err = report.into_result().unwrap_err().to_string();
        let want = format!(
            "disagreement: count: 'naive-mex+brute' gives 2632 but 'stamped+wrong-drops-last' gives {answer} at N = 40 (3 heaps, moves squares)"
        );
        assert_eq!(err, want);
    }

    #[test]
    fn a_failing_count_is_reported_as_failed_with_its_error() {
        let stamped = table::find("stamped").unwrap();
        let report = check(&case(30), &[stamped], &[&FAILING_COUNT], &[]).unwrap();
        assert!(!report.passed());
        assert_eq!(
            report.disagreements,
            vec![Disagreement::Failed {
                backend: "stamped+failing-count".into(),
                error: "a deliberate failure".into(),
            }]
        );
        assert_eq!(
            report.disagreements[0].to_string(),
            "'stamped+failing-count' failed: a deliberate failure"
        );
    }

    #[test]
    fn a_cold_set_that_differs_from_the_tables_zero_set_is_named() {
        let c = case(40);
        let t = table::build("stamped", &c.moves, 40).unwrap();
        let mut checker = Checker::new(c.clone(), "stamped", t.clone());
        assert!(checker.cold("sieve", &cold::Sieve::default().cold(&c.moves, 40)));
        let wrong = ColdSet::from_table(&table::build("stamped", &c.moves, 39).unwrap());
        assert!(!checker.cold("short", &wrong));
        let d = checker.finish().disagreements;
        assert_eq!(d.len(), 1);
        assert!(d[0].to_string().contains("'short'"), "{}", d[0]);
    }

    #[test]
    fn judges_are_the_controls_while_affordable_then_the_references() {
        assert_eq!(table_judge(100_000).name, "naive-mex");
        assert_eq!(table_judge(100_001).name, "stamped");
        assert_eq!(count_judge(100, 3).unwrap().name, "brute");
        assert_eq!(count_judge(101, 3).unwrap().name, "sweep");
        assert_eq!(count_judge(1000, 5).unwrap().name, "burnside");
    }

    #[test]
    fn refusals_are_skips_with_reasons() {
        let counts: Vec<_> = count::BACKENDS.iter().collect();
        let c = Case {
            heaps: 5,
            ..case(20)
        };
        let r = check(&c, &[table::find("stamped").unwrap()], &counts, &[]).unwrap();
        assert!(r.passed(), "{:?}", r.disagreements);
        let skipped: Vec<&str> = r.skipped.iter().map(|s| s.backend).collect();
        assert_eq!(skipped, vec!["sweep", "rayon-sweep"]);
        assert!(r.skipped[0].reason.contains("3 heaps only"));
    }
}
