//! The census: every octal code of up to D digits after the point, its table up to N and
//! the period the theorem proves from it ([`crate::octal::method::period`]).
//!
//! Algorithm: list the codes 0.d1..dk and 4.d1..dk for k = 1..=D with dk != 0 (a code with
//! a trailing 0 is the shorter code, listed once under its own k; the all-zero code has no
//! move and is never listed), build each table with one back-end, and read its period,
//! largest value and verdict. The codes are independent, so they are shared out over the
//! thread pool; the rows come back in the order of the list. The until-proved census
//! ([`until`]) instead grows each code's table by doubling N until its period is proved.
//! A build that fails or panics is caught in the thread that builds it and becomes that
//! code's error row ([`Row::failed`]), so one bad code never stops (or hangs) the others.
//!
//! Cost: 2 * 7 * 8^(k-1) codes for each k (1022 for D = 3, 65 534 for D = 5), each a table
//! build and a period scan; with the control, O(N^2) per code with a splitting digit.
//!
//! Invariant: rows are in [`codes`] order, one per code, each with the N its table reached;
//! [`run_each`] reports every code it finishes exactly once (an error row included). Which codes to run and on which
//! shard is [`plan`]; the durable rows file is
//! [`crate::run::longrun::censusfile`].

pub mod plan;
pub mod until;

use crate::base::error::{Error, Result};
use crate::octal::method::period::{self, Verdict};
use crate::octal::method::rare_common::SplitSummary;
use crate::octal::{Builder, Rules};
use crate::registry::Entry;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;
use until::{Hooks, Stop, Until};

/// The most digits after the point the census takes: 65 534 codes at D = 5. D = 6 would be
/// 524 286 codes, past what a census at a useful N finishes even on a cluster; a user after
/// a few longer codes runs `octal CODE` on each.
pub const MAX_DIGITS: usize = 5;

/// One code's result (serializable, so a census spread over processes can send it whole):
/// what the table says ([`Row::facts`]) and what it cost. Two runs of one census agree on the
/// facts; the cost is a measurement and differs from run to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The code, as [`Rules::label`] prints it.
    pub code: String,
    /// The N its table reached.
    pub limit: usize,
    /// The period proved up to N, or open.
    pub verdict: Verdict,
    /// The largest g(n), n <= N.
    pub max_value: u16,
    /// Rare positions 0 <= n <= N of the table's rare/common split
    /// ([`SplitSummary`]), or None when no mask leaves the positions sparse: how much of the
    /// table the rare/common back-ends treat the slow way, the main cause of a code's cost.
    pub rare: Option<usize>,
    /// Wall-clock seconds this code took where it was built: its table and the period check
    /// (in an until-proved census, every doubling step and check, over every run).
    pub seconds: f64,
    /// Why an until-proved code stopped growing ([`until`]); None in a census at one N.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
    /// The error of a code whose build failed or panicked (its facts are then empty): an
    /// error row, reported and never kept in a rows file, so a resume builds it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Row {
    /// What the table says, without the cost: the part of the row two runs of one census
    /// agree on.
    pub fn facts(&self) -> (&str, usize, Verdict, u16, Option<usize>, Option<Stop>) {
        (
            &self.code,
            self.limit,
            self.verdict,
            self.max_value,
            self.rare,
            self.stop,
        )
    }

    /// The error row of `code` at N = `limit`: its build failed with `error`.
    pub fn failed(code: &str, limit: usize, error: String) -> Row {
        Row {
            code: code.to_string(),
            limit,
            verdict: Verdict::Open,
            max_value: 0,
            rare: None,
            seconds: 0.0,
            stop: None,
            error: Some(error),
        }
    }

    /// Positions (0..=N) a second: N + 1 over [`Row::seconds`] (0 for a time too short to
    /// measure).
    pub fn positions_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            (self.limit as f64 + 1.0) / self.seconds
        } else {
            0.0
        }
    }
}

/// Every code of 1 to `digits` digits after the point with a non-zero last digit, first by
/// length, then d0 = 0 before d0 = 4, then the digits in increasing order. `digits` outside
/// 1..=[`MAX_DIGITS`] is refused.
pub fn codes(digits: usize) -> Result<Vec<Rules>> {
    if !(1..=MAX_DIGITS).contains(&digits) {
        return Err(Error::Invalid(format!(
            "the census takes 1 to {MAX_DIGITS} digits after the point, not {digits}"
        )));
    }
    let mut all = Vec::new();
    for k in 1..=digits {
        for d0 in [0u8, 4] {
            // the k digits as a number in base 8, last digit non-zero
            for index in 0..8usize.pow(k as u32) {
                if index % 8 == 0 {
                    continue;
                }
                let mut code = vec![d0];
                for place in (0..k).rev() {
                    code.push(((index >> (3 * place)) & 7) as u8);
                }
                all.push(Rules::from_digits(&code));
            }
        }
    }
    Ok(all)
}

/// Where `label` (a census code as [`Rules::label`] prints it) stands in the order of
/// [`codes`], for any number of digits: (digits after the point, d0, the digits as a base-8
/// number). `None` for a label that is not such a code (no point, a digit past 7, a trailing
/// 0, `grundy`). Sorting rows by this key puts them in [`codes`] order whatever D was.
pub fn order_key(label: &str) -> Option<(usize, u8, u64)> {
    let (before, after) = label.split_once('.')?;
    let d0 = match before {
        "0" => 0,
        "4" => 4,
        _ => return None,
    };
    if after.is_empty() || after.len() > 21 || after.ends_with('0') {
        return None;
    }
    let mut number = 0u64;
    for c in after.chars() {
        number = number * 8 + u64::from(c.to_digit(8)?);
    }
    Some((after.len(), d0, number))
}

/// The row of `rules` with the table of `entry` up to `limit` (checked as
/// [`crate::octal::build`] checks it).
pub fn row(entry: &'static Entry<dyn Builder<Rules>>, rules: &Rules, limit: usize) -> Result<Row> {
    let start = Instant::now();
    // The entry itself, not its name: a test's back-end shares its name with a registered one.
    let table = crate::octal::OctalPlan::new(rules.clone(), entry, limit as u64)?.build()?;
    let verdict = period::find(rules, table.values());
    let seconds = start.elapsed().as_secs_f64();
    let split = SplitSummary::of(rules, table.values());
    Ok(Row {
        code: rules.label().to_string(),
        limit,
        verdict,
        max_value: table.max_value(),
        rare: split.mask.map(|_| split.rare),
        seconds,
        stop: None,
        error: None,
    })
}

/// [`row`] built on one thread ([`on_one_thread`]).
pub fn row_on_one_thread(
    entry: &'static Entry<dyn Builder<Rules>>,
    rules: &Rules,
    limit: usize,
) -> Result<Row> {
    on_one_thread(|| row(entry, rules, limit))
}

/// `f` run in a rayon pool of one thread that belongs to the calling thread (made on its
/// first call). For a census that builds as many codes at once as it has threads: there a
/// code's own parallel far pass (`octal-block`'s spinning workers) only takes the cores from
/// the other codes, and the spinning and yielding cost more than they give. Without the pool
/// (it could not start) `f` runs as it is.
pub fn on_one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    thread_local! {
        static ONE: Option<rayon::ThreadPool> =
            rayon::ThreadPoolBuilder::new().num_threads(1).build().ok();
    }
    ONE.with(|one| match one {
        Some(pool) => pool.install(f),
        None => f(),
    })
}

/// The variable that makes the build of one code panic, in a build with the `testing`
/// feature only: how the tests reach the panic branch of a census (an MPI worker's included).
pub const PANIC_CODE_VARIABLE: &str = "NIMSQUARE_TEST_PANIC_CODE";

/// How a census builds each code: the back-end, N, and for the until-proved census how far
/// each code grows.
#[derive(Clone, Copy)]
pub struct Build {
    pub entry: &'static Entry<dyn Builder<Rules>>,
    pub limit: usize,
    pub until: Option<Until>,
}

impl Build {
    /// The row of `rules`: [`row`] at N, or [`until::grow`] from N (or from the table
    /// [`Hooks::carried`] gives), on one thread when `one_thread`. A build that fails or panics is the code's error row
    /// ([`Row::failed`]), so a census goes on past it; `None` only when `hooks` stopped an
    /// until-proved code.
    pub fn row(&self, rules: &Rules, one_thread: bool, hooks: &dyn Hooks) -> Option<Row> {
        let build = || {
            #[cfg(feature = "testing")]
            if std::env::var(PANIC_CODE_VARIABLE).is_ok_and(|c| c == rules.label()) {
                panic!("{PANIC_CODE_VARIABLE} makes this build panic");
            }
            match self.until {
                None => row(self.entry, rules, self.limit).map(Some),
                Some(until) => {
                    let carried = hooks.carried(rules);
                    until::grow(self.entry, rules, self.limit, until, carried, hooks)
                }
            }
        };
        // Caught here, in the thread that builds: a panic left to unwind would end the
        // census (or leave an MPI worker's coordinator waiting for the row).
        let built = catch_unwind(AssertUnwindSafe(|| {
            if one_thread {
                on_one_thread(build)
            } else {
                build()
            }
        }))
        .unwrap_or_else(|panic| Err(panicked(rules.label(), panic.as_ref())));
        built.unwrap_or_else(|e| Some(Row::failed(rules.label(), self.limit, e.to_string())))
    }
}

/// The census of every code of [`codes`]`(digits)` up to `limit` with `entry`; `progress`
/// is called with (codes done, codes in all) after each code, from any worker thread.
pub fn census(
    entry: &'static Entry<dyn Builder<Rules>>,
    digits: usize,
    limit: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<Row>> {
    let all = codes(digits)?;
    let done = AtomicUsize::new(0);
    all.par_iter()
        .map(|rules| {
            let r = row(entry, rules, limit);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, all.len());
            r
        })
        .collect()
}

/// What [`run_each`] tells its caller, from any worker thread; as [`Hooks`] it also stops
/// and keeps the codes of an until-proved census between their chunks.
pub trait Watcher: Hooks {
    /// Code `index` of the list is about to be built.
    fn started(&self, index: usize);
    /// Code `index` is done: its row (an error row when its build failed). An error stops
    /// the run (no code starts after it) and is what [`run_each`] returns (a row that cannot
    /// be written is a failed run).
    fn finished(&self, index: usize, row: Row) -> Result<()>;
}

/// Builds the row of every code of `list` as `build` says, in the order given (callers put
/// the most expensive first, so the longest code never starts last), handed out one at a
/// time to as many workers as the thread pool has threads: a worker takes the next code when
/// it finishes one, so a slow code holds up one worker, never the others. A code whose build
/// fails or panics is reported as its error row and the others go on. Returns the number of
/// codes finished (all of `list` unless `watcher` stopped the run), or the first error of
/// [`Watcher::finished`].
pub fn run_each(build: Build, list: &[Rules], watcher: &dyn Watcher) -> Result<usize> {
    let next = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    // Set by the first failure, so no other worker starts a code after it.
    let failed = AtomicBool::new(false);
    let workers = rayon::current_num_threads().min(list.len()).max(1);
    let work = || -> Result<()> {
        loop {
            if failed.load(Ordering::Relaxed) || watcher.stop() {
                return Ok(());
            }
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(rules) = list.get(index) else {
                return Ok(());
            };
            watcher.started(index);
            // Several codes at once: each on one thread; a lone code on every thread.
            let Some(row) = build.row(rules, workers > 1, watcher) else {
                continue; // stopped: the next turn of the loop sees it
            };
            if let Err(e) = watcher.finished(index, row) {
                failed.store(true, Ordering::Relaxed);
                return Err(e);
            }
            finished.fetch_add(1, Ordering::Relaxed);
        }
    };
    if workers == 1 {
        work()?;
    } else {
        // Plain threads, not the rayon pool's: a rayon worker waiting for its one-thread
        // pool would steal and run another worker's loop inside its own, and the codes of
        // both would then share one core while the other core idled.
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..workers).map(|_| s.spawn(work)).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect::<Result<Vec<()>>>()
        })?;
    }
    Ok(finished.into_inner())
}

/// Threads that build the rows of the codes handed to them, each code on one thread
/// ([`Build::row`]: a failed or panicking build sends its error row), and send each row
/// back with its index: the builders of a census
/// whose codes arrive one at a time (a worker of the census over MPI). Plain threads, for
/// the reason [`run_each`] gives. Dropping it lets the threads finish the codes handed out,
/// then joins them.
pub struct RowBuilders {
    codes: Option<mpsc::Sender<(usize, String)>>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl RowBuilders {
    /// `threads` builders of the rows `build` says, sending (index, row) to `rows`; an
    /// until-proved code carries and keeps its table through `hooks` (which never stop it).
    pub fn start(
        build: Build,
        threads: usize,
        hooks: Arc<dyn Hooks + Send>,
        rows: mpsc::Sender<(usize, Row)>,
    ) -> RowBuilders {
        let (codes, queue) = mpsc::channel::<(usize, String)>();
        let queue = Arc::new(Mutex::new(queue));
        let threads = (0..threads.max(1))
            .map(|_| {
                let (queue, rows, hooks) = (Arc::clone(&queue), rows.clone(), Arc::clone(&hooks));
                std::thread::spawn(move || loop {
                    // The lock is held only while waiting for the next code.
                    let next = queue.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok((index, code)) = next else { return };
                    // Every code answers, with its error row if need be: a code without
                    // its row would leave the worker waiting for it forever (and rank 0
                    // for the worker).
                    let row = match Rules::parse(&code) {
                        Ok(rules) => build.row(&rules, true, &*hooks),
                        Err(e) => Some(Row::failed(&code, build.limit, e.to_string())),
                    };
                    let Some(row) = row else { continue };
                    if rows.send((index, row)).is_err() {
                        return;
                    }
                })
            })
            .collect();
        RowBuilders {
            codes: Some(codes),
            threads,
        }
    }

    /// Hands code `code` (list index `index`) to the next free builder.
    pub fn build(&self, index: usize, code: String) {
        if let Some(codes) = &self.codes {
            let _ = codes.send((index, code));
        }
    }
}

/// The error of code `code` whose build panicked with `payload`.
fn panicked(code: &str, payload: &(dyn std::any::Any + Send)) -> Error {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    Error::Invalid(format!(
        "census code {code}: the build panicked: {}",
        what.lines().next().unwrap_or("")
    ))
}

impl Drop for RowBuilders {
    fn drop(&mut self) {
        self.codes = None;
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_built_on_one_thread_or_by_the_builders_are_the_rows() {
        let entry = crate::octal::find("octal-block").unwrap();
        let list = ["0.07", "0.6", "4.77", "0.137", ".1377"];
        let direct: Vec<Row> = list
            .iter()
            .map(|c| row(entry, &Rules::parse(c).unwrap(), 3000).unwrap())
            .collect();
        let (rows, finished) = mpsc::channel();
        let build = Build {
            entry,
            limit: 3000,
            until: None,
        };
        let builders = RowBuilders::start(build, 2, Arc::new(until::NoHooks), rows);
        for (i, c) in list.iter().enumerate() {
            builders.build(i, c.to_string());
        }
        drop(builders);
        let mut built: Vec<(usize, Row)> = finished.iter().collect();
        built.sort_by_key(|(i, _)| *i);
        assert_eq!(built.len(), list.len());
        for ((i, r), d) in built.iter().zip(&direct) {
            assert_eq!(r.facts(), d.facts(), "{}", list[*i]);
            let one = row_on_one_thread(entry, &Rules::parse(list[*i]).unwrap(), 3000).unwrap();
            assert_eq!(one.facts(), d.facts());
        }
        // Dawson's Kayles: period 34 from 53 (the census test of tests/octal_cli.rs).
        assert!(
            matches!(direct[0].verdict, Verdict::Periodic(p) if (p.preperiod, p.period) == (53, 34))
        );
    }

    /// A back-end whose build panics on Officers (and builds every other code as the
    /// reference does).
    struct PanicsOnOfficers;

    impl Builder<Rules> for PanicsOnOfficers {
        fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
            assert!(rules.label() != "0.6", "a made-up fault on 0.6");
            (crate::octal::reference().make)().fill(rules, g, from)
        }

        fn scratch_bytes(&self, _rules: &Rules, _limit: usize, _threads: usize) -> u64 {
            0
        }
    }

    static PANICKY: Entry<dyn Builder<Rules>> = Entry {
        make: || Box::new(PanicsOnOfficers),
        ..crate::octal::naive::ENTRY
    };

    #[test]
    fn a_build_that_panics_comes_back_as_that_codes_error_and_nothing_hangs() {
        let (rows, finished) = mpsc::channel();
        let build = Build {
            entry: &PANICKY,
            limit: 500,
            until: None,
        };
        let builders = RowBuilders::start(build, 2, Arc::new(until::NoHooks), rows);
        let list = ["0.07", "0.6", "0.137", "0.6", "4.77"];
        for (i, c) in list.iter().enumerate() {
            builders.build(i, c.to_string());
        }
        let mut got = Vec::new();
        for _ in list {
            let (i, row) = finished
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("every code answers");
            got.push((i, row));
        }
        drop(builders); // the threads end: the join returns
        got.sort_by_key(|(i, _)| *i);
        for (i, row) in got {
            assert_eq!(row.code, list[i]);
            match row.error {
                Some(e) if list[i] == "0.6" => {
                    assert!(e.contains("0.6") && e.contains("a made-up fault"), "{e}");
                }
                None if list[i] != "0.6" => assert!(row.limit == 500),
                other => panic!("{}: {other:?}", list[i]),
            }
        }
        // The census of one process goes on past the panic too, with the same error row.
        struct Keep(Mutex<Vec<Row>>);
        impl Hooks for Keep {}
        impl Watcher for Keep {
            fn started(&self, _: usize) {}
            fn finished(&self, _: usize, row: Row) -> Result<()> {
                self.0.lock().unwrap().push(row);
                Ok(())
            }
        }
        let keep = Keep(Mutex::new(Vec::new()));
        let rules: Vec<Rules> = list.iter().map(|c| Rules::parse(c).unwrap()).collect();
        assert_eq!(run_each(build, &rules, &keep).unwrap(), list.len());
        let rows = keep.0.into_inner().unwrap();
        let errors: Vec<&str> = rows
            .iter()
            .filter(|r| r.error.is_some())
            .map(|r| r.code.as_str())
            .collect();
        assert_eq!(errors, ["0.6", "0.6"]);
    }

    #[test]
    fn the_codes_are_listed_once_each() {
        let two = codes(2).unwrap();
        // 7 one-digit and 56 two-digit codes, each with d0 = 0 and 4
        assert_eq!(two.len(), 2 * (7 + 56));
        let labels: Vec<&str> = two.iter().map(|r| r.label()).collect();
        assert_eq!(labels[..2], ["0.1", "0.2"]);
        assert_eq!(labels[7], "4.1");
        assert_eq!(labels[14], "0.01");
        assert!(labels.contains(&"0.07") && labels.contains(&"4.77"));
        let mut unique = labels.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), labels.len());
        assert_eq!(codes(3).unwrap().len(), 1022);
        assert_eq!(codes(5).unwrap().len(), 2 * 7 * (1 + 8 + 64 + 512 + 4096));
        assert!(codes(0).is_err() && codes(6).is_err());
    }

    #[test]
    fn the_order_key_sorts_as_the_list_does() {
        let list = codes(3).unwrap();
        let keys: Vec<_> = list.iter().map(|r| order_key(r.label()).unwrap()).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        for bad in ["0.10", "1.2", "0.8", "grundy", "0.", ".7"] {
            assert_eq!(order_key(bad), None, "{bad}");
        }
    }
}
