//! The progress line of a census: codes done of the total, positions a second, an ETA
//! carried over the estimated costs still to do, and the slowest code in flight. The workers
//! count into a [`Tracker`]; one thread prints it at an interval.
//!
//! Invariant: every code of the run's list is counted done exactly once (by
//! [`Tracker::finished`]), so the line's count ends at the share's size when the census
//! completes.

use crate::base::units::human_seconds;
use crate::run::longrun::progress;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The interval between two progress lines when stderr is not a terminal (a batch job's
/// log), unless `NIMSQUARE_PROGRESS_EVERY` says otherwise: a census is many short jobs, so
/// a line every few seconds shows it alive without flooding a day-long log (17 000 lines).
pub const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// The interval between two redraws of the progress line on a terminal.
const REDRAW_EVERY: Duration = Duration::from_millis(500);

/// The progress of a census: what the progress line reports, updated from the workers and
/// read by one ticking thread.
pub struct Tracker {
    shown: bool,
    terminal: bool,
    every: Duration,
    started: Instant,
    /// How far the codes are built: `up to N = 1000`, `from N = 64 until proved ...`.
    reach: String,
    total: usize,
    done: AtomicUsize,
    /// Positions of the codes finished by this run.
    positions: AtomicU64,
    /// The estimated cost of each code of the run's list, and the sum of those finished.
    costs: Vec<f64>,
    cost_done: Mutex<f64>,
    in_flight: Mutex<BTreeMap<usize, (String, Instant)>>,
    /// Set when the run is over: the ticking thread stops.
    over: (Mutex<bool>, std::sync::Condvar),
}

impl Tracker {
    pub fn new(quiet: bool, total: usize, done: usize, reach: String, costs: Vec<f64>) -> Tracker {
        let terminal = std::io::stderr().is_terminal();
        let every = if terminal {
            REDRAW_EVERY
        } else if std::env::var_os("NIMSQUARE_PROGRESS_EVERY").is_some() {
            progress::plain_every()
        } else {
            PLAIN_EVERY
        };
        Tracker {
            shown: !quiet,
            terminal,
            every,
            started: Instant::now(),
            reach,
            total,
            done: AtomicUsize::new(done),
            positions: AtomicU64::new(0),
            costs,
            cost_done: Mutex::new(0.0),
            in_flight: Mutex::new(BTreeMap::new()),
            over: (Mutex::new(false), std::sync::Condvar::new()),
        }
    }

    pub fn started(&self, index: usize, code: &str) {
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(index, (code.to_string(), Instant::now()));
    }

    /// Code `index` is done, its table of `positions` (N + 1 of the N it reached) built.
    pub fn finished(&self, index: usize, positions: u64) {
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&index);
        *self.cost_done.lock().unwrap_or_else(|e| e.into_inner()) += self.costs[index];
        self.positions.fetch_add(positions, Ordering::Relaxed);
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// `census: 312/1022 codes, 2.10e6 positions/s, ETA 3m 10s, slowest in flight 0.6 (41s)`.
    pub fn line(&self) -> String {
        let elapsed = self.started.elapsed().as_secs_f64();
        let done = self.done.load(Ordering::Relaxed);
        let rate = self.positions.load(Ordering::Relaxed) as f64 / elapsed.max(1e-9);
        let cost_done = *self.cost_done.lock().unwrap_or_else(|e| e.into_inner());
        let cost_all: f64 = self.costs.iter().sum();
        // The rate of estimated cost so far, carried over the cost still to do.
        let eta = if cost_done > 0.0 {
            progress::fmt_eta(elapsed * (cost_all - cost_done).max(0.0) / cost_done)
        } else {
            "unknown".into()
        };
        let slowest = self
            .in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .min_by_key(|(_, since)| *since)
            .map(|(code, since)| {
                format!(
                    ", slowest in flight {code} ({})",
                    human_seconds(since.elapsed().as_secs_f64())
                )
            })
            .unwrap_or_default();
        format!(
            "census: {done}/{} codes {}, {rate:.3e} positions/s, ETA {eta}{slowest}",
            self.total, self.reach
        )
    }

    /// Prints the progress line at its interval until [`Tracker::finish`].
    pub fn tick_until_done(&self) {
        let (lock, wake) = &self.over;
        let mut over = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let (guard, _) = wake
                .wait_timeout(over, self.every)
                .unwrap_or_else(|e| e.into_inner());
            over = guard;
            if *over {
                return;
            }
            if self.shown {
                if self.terminal {
                    eprint!("\r{}\x1b[K", self.line());
                } else {
                    eprintln!("{}", self.line());
                }
            }
        }
    }

    /// Stops the ticking thread and prints the last line.
    pub fn finish(&self) {
        let (lock, wake) = &self.over;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
        if self.shown {
            let lead = if self.terminal { "\r\x1b[K" } else { "" };
            eprintln!(
                "{lead}census: {}/{} codes {} in {}",
                self.done.load(Ordering::Relaxed),
                self.total,
                self.reach,
                human_seconds(self.started.elapsed().as_secs_f64())
            );
        }
    }
}
