//! The chunked table run: g(0..=N) computed in chunks of positions, so that a run of hours
//! shows progress, writes a checkpoint now and then, and stops cleanly on Ctrl-C or SIGTERM
//! keeping what it finished.
//!
//! The driver does not know the table back-ends: it takes the fill step as a closure
//! `fill(&mut g[..to], from, max_before)` that must compute exactly g[from..to] given that
//! g[..from] is finished and `max_before` = max(g[..from]) (0 when `from` = 0). A back-end
//! that can only compute from 0 is not resumable: run it with one chunk ([`LongRun::resumable`]
//! = false), and refuse `--checkpoint` and partial seeds for it before calling the driver.
//!
//! Chunks are sized from option steps (the work of g[from..to) is S(to - 1) - S(from - 1))
//! and the rate measured on the previous chunk, aiming at [`LongRun::chunk_target`] per
//! chunk; the first chunk is small, so the rate is known early. Between chunks the driver
//! updates the bar, writes the checkpoint when [`LongRun::every`] has passed since the last
//! one, and checks the signal flag.
//!
//! At the end of a finished run the checkpoint file, if one was given, is written as the
//! complete table (a complete checkpoint is a table file): running the same command again
//! then finds the whole table and skips the table stage. A failed write never throws the
//! table away: a periodic checkpoint that fails is reported on stderr and tried again at the
//! next interval, and a failed final write ends the run as [`Outcome::FinishedUnsaved`], the
//! values still in hand.

use super::progress::Progress;
use super::ruleset::Ruleset;
use super::signals::{self, Signal, SignalGuard};
use super::tablefile::{self, TableFile};
use crate::base::error::{Error, Result};
use crate::base::valgrind;
use crate::grundy::{Builder, Kept, Rulebook, Table};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The fill step: `fill(&mut g[..to], from, max_before)` computes g[from..to]. It may fail
/// (an octal back-end refuses a value past `u16::MAX`): the run then stops at the failing
/// chunk, keeps g(0..from) in the checkpoint if one was asked, and returns the error.
pub type TryFill<'a> = &'a (dyn Fn(&mut [u16], usize, u16) -> Result<()> + Sync);

/// The steps of the first chunk, before any rate is measured (a few milliseconds of work).
const FIRST_CHUNK_STEPS: u128 = 1 << 20;
/// The fewest positions in a chunk (except the last), so a fill's setup cost stays small.
const MIN_CHUNK_POSITIONS: usize = 1 << 12;
/// A chunk has at most this many times the positions of the previous one, so one noisy
/// measurement cannot make a chunk of minutes.
const MAX_GROWTH: usize = 4;

/// How a long run behaves; [`LongRun::default`] is a silent-if-piped run with no checkpoint.
#[derive(Debug, Clone)]
pub struct LongRun {
    /// Where to write the checkpoint (and, at the end, the complete table); `None`: no file.
    pub checkpoint: Option<PathBuf>,
    /// The time between two checkpoint writes.
    pub every: Duration,
    /// No progress bar even on a terminal.
    pub quiet: bool,
    /// False for a fill that ignores `from` (recomputes everything): the driver then calls it
    /// once on the whole table, from 0, and installs no signal handler (Ctrl-C ends the
    /// process as usual, there is nothing to save).
    pub resumable: bool,
    /// The aimed-at duration of one chunk: the longest wait between a signal and the stop.
    pub chunk_target: Duration,
    /// A test knob (library only): stop as if interrupted once this many positions are done,
    /// writing the checkpoint if one was asked. `Outcome::Interrupted` then has no signal.
    pub stop_after_positions: Option<usize>,
    /// Words that start the progress bar's line (e.g. the back-end); may be empty.
    pub label: String,
    /// The progress counts positions, not option steps: its rate is in values a second and
    /// its ETA assumes each position costs the same. For back-ends whose cost per position
    /// does not grow with the position (the octal rare/common ones), where an ETA from the
    /// option steps (quadratic for an octal code) would promise far too late a finish.
    pub per_position: bool,
}

impl Default for LongRun {
    fn default() -> Self {
        LongRun {
            checkpoint: None,
            every: Duration::from_secs(60),
            quiet: false,
            resumable: true,
            chunk_target: Duration::from_millis(500),
            stop_after_positions: None,
            label: String::new(),
            per_position: false,
        }
    }
}

/// Where a run starts.
#[derive(Debug, Clone)]
pub enum Start {
    /// From g(0).
    Fresh,
    /// From a table or checkpoint file's prefix: g(0..provides(N)) are taken from it. The file
    /// must be for the same rules (checked again here); it may be for a smaller or larger N.
    Seed(TableFile),
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// g(0..=N), complete.
    Finished(Vec<u16>),
    /// g(0..=N), complete, but the checkpoint file could not be written at the end (a full
    /// disk, a permission taken away mid-run): the values are here for the count, `error`
    /// says in one line which file and why. The file holds the last checkpoint that was
    /// written, or nothing.
    FinishedUnsaved { values: Vec<u16>, error: Error },
    /// Stopped after g(0..done): by a signal (`signal` is `Some`) or by
    /// [`LongRun::stop_after_positions`] (`None`). `checkpoint` is the file that holds
    /// g(0..done), if one was asked.
    Interrupted {
        signal: Option<Signal>,
        done: usize,
        checkpoint: Option<PathBuf>,
    },
}

/// The end of the next chunk [from, to): the largest `to` whose option steps
/// S(to - 1) - S(from - 1) stay within `budget`, at least [`MIN_CHUNK_POSITIONS`] positions, at
/// most [`MAX_GROWTH`] times the previous chunk, never past `end`.
pub(crate) fn next_chunk_end(
    rules: &dyn Ruleset,
    from: usize,
    end: usize,
    budget: u128,
    previous: Option<usize>,
) -> usize {
    let mut most = end - from;
    if let Some(p) = previous {
        most = most.min(p.saturating_mul(MAX_GROWTH).max(MIN_CHUNK_POSITIONS));
    }
    let least = MIN_CHUNK_POSITIONS.min(most);
    // Binary search on the chunk length: steps_before is O(sqrt N) for the squares, O(moves)
    // for a list and O(digits) for an octal code,
    // for a list, a few dozen calls per chunk of about half a second.
    let base = rules.steps_before(from);
    let (mut lo, mut hi) = (least, most);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if rules.steps_before(from + mid) - base <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    from + lo
}

/// The option steps of the next chunk: [`FIRST_CHUNK_STEPS`] before any rate is measured,
/// then what the last chunk's `rate` (steps a second) does in `target`, at least one.
pub(crate) fn chunk_budget(rate: Option<f64>, target: Duration) -> u128 {
    match rate {
        None => FIRST_CHUNK_STEPS,
        Some(r) => (r * target.as_secs_f64()).max(1.0) as u128,
    }
}

/// The steps a second of a chunk that took `secs` from `steps_from` to `steps_to` steps done;
/// in a counted run ([`valgrind::counting`]) always [`COUNTED_RATE`], whatever the clock
/// said, so that the chunks, and with them the instructions counted, do not depend on how
/// fast Valgrind ran this time.
pub(crate) fn rate_of(steps_from: u128, steps_to: u128, secs: f64) -> f64 {
    if valgrind::counting() {
        return COUNTED_RATE;
    }
    (steps_to - steps_from) as f64 / secs
}

/// The rate a counted run sizes its chunks by: 5·10^9 option steps a second, a native
/// table run's rate in cache (about 0.2 ns a step), so a counted run cuts its chunks about
/// where a native run on these machines does.
pub(crate) const COUNTED_RATE: f64 = 5e9;

/// Whether a chunk that ended at `done` of `end` positions writes a periodic checkpoint:
/// when `every` has passed since the last write, and never after the last chunk, whose table
/// the final write (after the loop) saves; a periodic write there would write the whole
/// table twice.
fn periodic_checkpoint_due(done: usize, end: usize, since_last: Duration, every: Duration) -> bool {
    done < end && since_last >= every
}

/// Computes g(0..=limit) through `fill` in chunks; see the module documentation. `limit` must
/// come from a [`crate::base::limit::Limit`]. Refuses, before any work, a seed for
/// other rules, and a checkpoint path that holds something other than a checkpoint for these
/// rules with at most N + 1 positions. A fill step that fails ([`TryFill`]) stops the run.
pub fn try_run_fill(
    rules: &dyn Ruleset,
    limit: usize,
    start: Start,
    fill: TryFill<'_>,
    opts: &LongRun,
) -> Result<Outcome> {
    let end = limit + 1;
    if let Some(path) = &opts.checkpoint {
        // First the kind of file: a FIFO is never opened (that would wait for a writer).
        crate::base::paths::decide_replaced_file(path, "--checkpoint", "a checkpoint")?;
        tablefile::check_overwritable(path, rules, limit)?;
    }
    let (g, done) = seed_values(rules, limit, start)?;
    if !opts.resumable && done < end {
        return fill_at_once(end, done, fill, opts);
    }
    let seeded = done;
    let mut run = Filling::new(g, done, end);

    let _guard = SignalGuard::install()?;
    let stopped = match run.in_chunks(rules, limit, fill, opts) {
        Ok(stopped) => stopped,
        Err(e) => {
            // g(0..done) are final: keep them for a rerun with other settings, best effort
            // (the fill's error is the one to report).
            if let Some(path) = &opts.checkpoint {
                let _ = run.write(path, rules, limit);
            }
            return Err(e);
        }
    };

    if let Some(signal) = stopped {
        if let Some(path) = &opts.checkpoint {
            run.write(path, rules, limit)?;
        }
        return Ok(Outcome::Interrupted {
            signal,
            done: run.done,
            checkpoint: opts.checkpoint.clone(),
        });
    }
    if let Some(path) = &opts.checkpoint {
        if !(seeded == end && holds_table(path, rules, limit, &run.g)) {
            if let Err(error) = run.write(path, rules, limit) {
                return Ok(Outcome::FinishedUnsaved {
                    values: run.g,
                    error,
                });
            }
        }
    }
    Ok(Outcome::Finished(run.g))
}

/// The values a run starts from and how many they are: none, or the prefix g(0..provides(N))
/// of a seed file, refused if it was made for other rules.
fn seed_values(rules: &dyn Ruleset, limit: usize, start: Start) -> Result<(Vec<u16>, usize)> {
    match start {
        Start::Fresh => Ok((Vec::new(), 0)),
        Start::Seed(file) => {
            file.check_usable(rules)?;
            let k = file.provides(limit);
            let mut values = file.values;
            values.truncate(k);
            Ok((values, k))
        }
    }
}

/// A back-end that cannot resume fills the whole table in one call, from a fresh start only:
/// with a checkpoint or a partial seed (`done` > 0) it is refused.
fn fill_at_once(end: usize, done: usize, fill: TryFill<'_>, opts: &LongRun) -> Result<Outcome> {
    if opts.checkpoint.is_some() || done > 0 {
        return Err(Error::Invalid(
            "this table back-end cannot resume from a checkpoint or a partial table; choose a resumable one".into(),
        ));
    }
    let mut g = crate::kernels::huge_pages::zeroed(end);
    fill(&mut g, 0, 0)?;
    Ok(Outcome::Finished(g))
}

/// The table of a chunked run: g(0..=N), of which g(0..done) are computed, with their max.
struct Filling {
    g: Vec<u16>,
    done: usize,
    max: u16,
}

impl Filling {
    /// The run for `end` = N + 1 positions starting from the `done` values in `g`.
    fn new(mut g: Vec<u16>, done: usize, end: usize) -> Filling {
        // The positions still to fill are first touched here, after the huge-page advice.
        g.reserve_exact(end.saturating_sub(g.len()));
        crate::kernels::huge_pages::advise(&mut g);
        g.resize(end, 0);
        let max = g[..done].iter().copied().max().unwrap_or(0);
        Filling { g, done, max }
    }

    /// Writes g(0..done) as the table file at `path` (a checkpoint until done = N + 1).
    fn write(&self, path: &Path, rules: &dyn Ruleset, limit: usize) -> Result<()> {
        tablefile::write_atomic(path, rules, limit as u64, &self.g[..self.done], self.max)
    }

    /// Fills chunk after chunk, each sized by the rate measured on the previous one, showing
    /// progress and writing the checkpoint every `opts.every`, until the table is complete
    /// (`None`), [`LongRun::stop_after_positions`] is reached (`Some(None)`) or a signal
    /// arrived (`Some(Some(signal))`); a fill that fails ends it with its error, `done`
    /// still counting only the chunks finished before.
    fn in_chunks(
        &mut self,
        rules: &dyn Ruleset,
        limit: usize,
        fill: TryFill<'_>,
        opts: &LongRun,
    ) -> Result<Option<Option<Signal>>> {
        let end = limit + 1;
        let mut progress = Progress::new(
            rules,
            limit,
            self.done,
            opts.quiet,
            &opts.label,
            opts.per_position,
        );
        let mut last_write = Instant::now();
        let mut rate: Option<f64> = None;
        let mut previous: Option<usize> = None;
        let stop_at = opts.stop_after_positions.map(|k| k.max(self.done));
        let mut steps_done = rules.steps_before(self.done);

        let stopped = loop {
            if self.done >= end {
                break None;
            }
            if stop_at.is_some_and(|k| self.done >= k) {
                break Some(None);
            }
            let budget = chunk_budget(rate, opts.chunk_target);
            let mut to = next_chunk_end(rules, self.done, end, budget, previous);
            if let Some(k) = stop_at {
                to = to.min(k);
            }
            let secs = match self.fill_chunk(fill, to) {
                Ok(secs) => secs,
                Err(e) => {
                    progress.finish();
                    return Err(e);
                }
            };
            let steps_to = rules.steps_before(to);
            rate = Some(rate_of(steps_done, steps_to, secs));
            steps_done = steps_to;
            previous = Some(to - self.done);
            self.done = to;
            progress.update(self.done, steps_done);
            if let Some(sig) = signals::interrupted() {
                break Some(Some(sig));
            }
            if let Some(path) = &opts.checkpoint {
                if periodic_checkpoint_due(self.done, end, last_write.elapsed(), opts.every) {
                    // A failed checkpoint costs only the progress since the last good one:
                    // the run goes on and tries again at the next interval.
                    if let Err(e) = self.write(path, rules, limit) {
                        eprintln!(
                            "warning: checkpoint not written, the run goes on and tries again in {}: {e}",
                            super::progress::fmt_eta(opts.every.as_secs_f64())
                        );
                    }
                    last_write = Instant::now();
                }
            }
        };
        progress.finish();
        Ok(stopped)
    }

    /// Computes g(done..to) and folds it into the max; returns the seconds it took (at least
    /// a microsecond, so a rate is always finite). Leaves `done` to the caller.
    fn fill_chunk(&mut self, fill: TryFill<'_>, to: usize) -> Result<f64> {
        let t = Instant::now();
        fill(&mut self.g[..to], self.done, self.max)?;
        let secs = t.elapsed().as_secs_f64().max(1e-6);
        let chunk_max = self.g[self.done..to].iter().copied().max().unwrap_or(0);
        self.max = self.max.max(chunk_max);
        Ok(secs)
    }
}

/// `builder`'s fill step for the driver: [`Builder::fill_kept`], handing each chunk what the
/// last one kept (a table back-end its prefix's largest value, `octal-block` its split), so
/// one fill step serves every workload.
pub fn kept_fill<'a, R: Rulebook>(
    builder: &'a (dyn Builder<R> + 'a),
    rules: &'a R,
) -> impl Fn(&mut [u16], usize, u16) -> Result<()> + Sync + 'a {
    let kept: Mutex<Kept> = Mutex::new(None);
    move |g: &mut [u16], from: usize, _max: u16| {
        let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
        builder.fill_kept(rules, g, from, &mut kept)
    }
}

/// `builder`'s table g(0..=limit) of `rules`, with a progress bar labelled `label` when one
/// can be seen ([`super::progress::may_show`]): then a resumable back-end fills in chunks of
/// about half a second (the bar moves between them); otherwise, and for a back-end that
/// cannot resume, it is one plain [`Builder::build`], so pipes, logs and tests run exactly
/// the back-end's own code. No signal handler and no checkpoint: Ctrl-C ends the process as
/// usual, there is nothing to save. `limit` must have been checked.
pub fn build_shown<R: Rulebook>(
    builder: &dyn Builder<R>,
    label: &str,
    rules: &R,
    limit: usize,
) -> Result<Table> {
    if !builder.resumable() || !super::progress::may_show(false) {
        return builder.build(rules, limit);
    }
    let opts = LongRun {
        label: label.to_string(),
        ..LongRun::default()
    };
    let fill = kept_fill(builder, rules);
    let mut run = Filling::new(Vec::new(), 0, limit + 1);
    run.in_chunks(rules, limit, &fill, &opts)?;
    Ok(Table::from_values(run.g))
}

/// True when `path` already is the complete table `g` for these rules and N (so a rerun that
/// computed nothing does not rewrite it).
fn holds_table(path: &Path, rules: &dyn Ruleset, limit: usize, g: &[u16]) -> bool {
    match tablefile::read_header(path) {
        Ok(h) => {
            h.limit == limit as u64
                && h.is_complete()
                && h.moves_label == rules.label()
                && h.block_values == tablefile::BLOCK_VALUES as u64
                && h.block_sums == tablefile::block_sums(g)
        }
        Err(_) => false,
    }
}

/// The start of a run that may have a checkpoint file and a table file to seed from: whichever
/// of the two existing files provides more positions (each read and checked in full, so a bad
/// file is refused before any work). A checkpoint path that does not exist yet is not an error;
/// a checkpoint whose values are damaged from block k on gives the blocks before k, with a
/// warning on stderr naming the block and the position the run computes again from.
pub fn start_from_files(
    rules: &dyn Ruleset,
    limit: usize,
    checkpoint: Option<&Path>,
    load: Option<&Path>,
) -> Result<Start> {
    let mut best: Option<TableFile> = None;
    let mut consider = |file: Result<TableFile>, flag: &str| -> Result<()> {
        let file = file.map_err(|e| Error::Invalid(format!("{flag}: {e}")))?;
        file.check_usable(rules)
            .map_err(|e| Error::Invalid(format!("{flag}: {e}")))?;
        if best
            .as_ref()
            .is_none_or(|b| file.provides(limit) > b.provides(limit))
        {
            best = Some(file);
        }
        Ok(())
    };
    if let Some(path) = load {
        consider(tablefile::read(path), "--load-table")?;
    }
    if let Some(path) = checkpoint {
        if path.exists() {
            let file = tablefile::read_checkpoint(path);
            if let Ok(TableFile {
                damage: Some(d), ..
            }) = &file
            {
                eprintln!(
                    "warning: --checkpoint {}: {d}; keeping g(0..{}) from the blocks before it and computing again from g({})",
                    path.display(),
                    d.from,
                    d.from
                );
            }
            consider(file, "--checkpoint")?;
        }
    }
    Ok(best.map_or(Start::Fresh, Start::Seed))
}

#[cfg(test)]
mod tests {
    use super::super::progress::steps_before;
    use super::*;
    use crate::base::moves::Moves;

    #[test]
    fn chunks_grow_at_most_fourfold_and_stop_at_end() {
        let m = Moves::Squares;
        let end = 100_000_000;
        assert_eq!(next_chunk_end(&m, 0, 10, 1 << 20, None), 10);
        let to = next_chunk_end(&m, 1_000_000, end, 1 << 40, Some(5000));
        assert_eq!(to, 1_000_000 + 20_000);
        // 10^6 steps at 1000 moves per position: 1000 positions, raised to the minimum.
        let to = next_chunk_end(&m, 1_000_000, end, 1_000_000, None);
        assert_eq!(to, 1_000_000 + MIN_CHUNK_POSITIONS);
        let to = next_chunk_end(&m, 1_000_000, end, 100_000_000, None);
        let base = steps_before(&m, 1_000_000);
        assert!(steps_before(&m, to) - base <= 100_000_000);
        assert!(steps_before(&m, to + 1) - base > 100_000_000);
        // From 0 the price grows with the position: S(p - 1) <= budget, S(p) > budget.
        let to = next_chunk_end(&m, 0, end, 1 << 20, None);
        assert!(steps_before(&m, to) <= 1 << 20 && steps_before(&m, to + 1) > 1 << 20);
    }

    #[test]
    fn a_chunk_is_budgeted_the_steps_the_last_rate_does_in_the_target_time() {
        assert_eq!(chunk_budget(None, Duration::from_secs(9)), 1 << 20);
        let half = Duration::from_millis(500);
        assert_eq!(chunk_budget(Some(1e6), half), 500_000);
        assert_eq!(chunk_budget(Some(0.1), half), 1);
        // 3000 steps in half a second.
        assert_eq!(rate_of(1000, 4000, 0.5), 6000.0);
    }

    #[test]
    fn a_periodic_checkpoint_is_due_once_the_interval_passes_and_never_after_the_last_chunk() {
        let min = Duration::from_secs(60);
        assert!(periodic_checkpoint_due(99, 100, min, min));
        assert!(!periodic_checkpoint_due(
            99,
            100,
            min - Duration::from_nanos(1),
            min
        ));
        assert!(!periodic_checkpoint_due(100, 100, 2 * min, min));
        assert!(!periodic_checkpoint_due(100, 100, min, Duration::ZERO));
    }

    /// The rules of `inner`, counting the calls of `steps_before`.
    struct Counting<'a> {
        inner: &'a dyn Ruleset,
        calls: std::sync::atomic::AtomicUsize,
    }

    impl Ruleset for Counting<'_> {
        fn label(&self) -> String {
            self.inner.label()
        }
        fn steps_before(&self, p: usize) -> u128 {
            self.calls
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.inner.steps_before(p)
        }
        fn first_wrong(&self, values: &[u16]) -> Option<(usize, u16, u16)> {
            self.inner.first_wrong(values)
        }
    }

    #[test]
    fn a_chunk_end_is_found_by_bisection_in_a_logarithmic_number_of_calls() {
        // A range of 4·10^6 candidate lengths (four times a chunk of 10^6): 22 halvings and
        // the base, whatever the budget lets through (here all of it, half of it, none).
        let m = Moves::Squares;
        for budget in [1u128 << 60, 1 << 36, 0] {
            let rules = Counting {
                inner: &m,
                calls: 0.into(),
            };
            next_chunk_end(&rules, 1_000_000, 100_000_000, budget, Some(1_000_000));
            let calls = rules.calls.into_inner();
            assert!((2..=24).contains(&calls), "budget {budget}: {calls} calls");
        }
    }
}
