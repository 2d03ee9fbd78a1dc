//! Window mode: an octal run whose table g(0..=N) lives in a file ([`spill`]), with only a
//! window of it resident: the prefix g(0..P) and the last T values before the first one not
//! yet decided. What the run reports is computed as the values stream past ([`stream`]),
//! so nothing at the end reads the whole table.
//!
//! Algorithm: the table is built in chunks, as a long run builds one ([`crate::run::longrun`],
//! whose chunk sizing this shares), by the back-end's ordinary fill step on the file's
//! mapping. After each chunk [from, to) its values go to the stream and to the caller (for
//! `--values`), and the pages of g(P..to - T) not yet released are handed back.
//!
//! Why the values are always right: a back-end reads the mapping as it would a table in
//! memory, and a released page is read back from the file ([`spill::Spill`]). So no read
//! can see a wrong value, wherever it falls; the window only decides what stays resident.
//! It is sized for what the rare/common back-ends read of a table ([`Window`]): a read
//! outside it (a sweep that runs past the prefix, a rare position far back) costs a page
//! fault, not exactness.
//!
//! Cost: the build's, plus a pass over each chunk for the stream, plus the kernel's
//! write-back of 2 bytes a value. Memory: the window and the back-end's own scratch,
//! whatever N; disk: 2(N + 1) bytes.

pub mod plan;
pub mod spill;
pub mod stream;

use crate::base::error::Result;
use crate::octal::auto::Choice;
use crate::octal::method::rare_common::PREFIX;
use crate::octal::{OctalPlan, Rules};
use crate::run::longrun::driver::{chunk_budget, next_chunk_end, rate_of, TryFill};
use crate::run::longrun::progress::Progress;
use crate::run::longrun::signals::{self, Signal, SignalGuard};
use plan::WindowPlan;
use spill::Spill;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use stream::{Stream, Streamed};

/// The part of the table kept resident (see the module doc), in values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// g(0..prefix) stays: the small heaps every sweep reads (the rare/common back-ends keep
    /// the common ones below 2^16 in a list, and read on from g past it) and the early rare
    /// positions.
    pub prefix: usize,
    /// The last `tail` values before the first undecided stay: a heap m reads g(m - r) for
    /// each rare position r, so the tail covers the rare positions up to `tail`, the blocks
    /// the passes work on and the one-heap options.
    pub tail: usize,
}

impl Window {
    /// 2^20 values of prefix (2 MiB) and 2^25 of tail (64 MiB): far more than Officers and
    /// Grundy's game read (their last rare positions are below 10^5 up to 2^21 in published
    /// runs), still small beside a table of 2^32 values (8 GiB).
    pub const DEFAULT: Window = Window {
        prefix: 1 << 20,
        tail: 1 << 25,
    };

    /// The resident bytes of the window's values in a table of g(0..=limit): never more
    /// than the table.
    pub fn bytes(&self, limit: usize) -> u64 {
        2 * (self.prefix as u64 + self.tail as u64).min(limit as u64 + 1)
    }
}

/// How a window-mode run behaves.
#[derive(Debug, Clone)]
pub struct WindowRun {
    /// What stays resident.
    pub window: Window,
    /// The values file (created; an existing file is never overwritten).
    pub file: PathBuf,
    /// Keep the values file at the end (else it is removed once the run is over).
    pub keep_file: bool,
    /// No progress bar even on a terminal.
    pub quiet: bool,
    /// Words that start the progress line (the back-end).
    pub label: String,
    /// The aimed-at duration of one chunk: the longest wait between a signal and the stop.
    pub chunk_target: Duration,
    /// A test knob: stop as if interrupted once this many positions are done.
    pub stop_after_positions: Option<usize>,
}

/// How a window-mode run ended.
#[derive(Debug)]
pub enum WindowOutcome {
    /// Every value decided: what the stream read off them, and the values file if kept.
    Finished {
        streamed: Box<Streamed>,
        file: Option<PathBuf>,
    },
    /// Stopped by a signal (or the test knob, `None`) after g(0..done).
    Interrupted { signal: Option<Signal>, done: usize },
}

/// Builds g(0..=limit) of `rules` through `fill` in window mode (see the module doc),
/// handing each chunk's values to `each(from, values)` in order. The values file is
/// created before any work (and unlinked at once unless it is to be kept); an error (of the
/// fill, of `each`) stops the run and removes it; a stopped run keeps g(0..done) in it.
pub fn run(
    rules: &Rules,
    limit: usize,
    fill: TryFill<'_>,
    opts: &WindowRun,
    each: &mut dyn FnMut(usize, &[u16]) -> Result<()>,
) -> Result<WindowOutcome> {
    let end = limit + 1;
    let mut spill = Spill::create(&opts.file, end)?;
    if !opts.keep_file {
        // Unlinked at once: the mapping keeps the file's pages, and the disk space comes back
        // however the process ends (a closed pipe's SIGPIPE and SIGKILL included).
        remove_quietly(&opts.file);
    }
    let _guard = SignalGuard::install()?;
    let result = in_chunks(rules, limit, fill, opts, &mut spill, each);
    drop(spill);
    match result {
        Ok(WindowOutcome::Finished { streamed, .. }) => Ok(WindowOutcome::Finished {
            streamed,
            file: opts.keep_file.then(|| opts.file.clone()),
        }),
        // a kept file holds g(0..done) of a stopped run
        Ok(stopped) => Ok(stopped),
        Err(e) => {
            if opts.keep_file {
                remove_quietly(&opts.file);
            }
            Err(e)
        }
    }
}

/// The aimed-at duration of a chunk of an octal build in window mode: a window is released
/// and the signal flag read once a chunk.
pub const CHUNK_TARGET: Duration = Duration::from_secs(1);

/// What a finished window-mode octal build reports beside the stream: what `auto` chose,
/// read off the prefix (the whole table is not there to replay its checks on).
#[derive(Debug)]
pub struct Built {
    pub outcome: WindowOutcome,
    /// `auto`'s choice, when the plan's back-end is `auto` and the prefix was built.
    pub choice: Option<Choice>,
    /// Seconds of the build.
    pub seconds: f64,
}

/// Builds the table `plan` decides in window mode as `window` decides it, handing each
/// chunk's values to `each(from, values)` (see [`run`]).
pub fn build_octal(
    plan: &OctalPlan,
    window: &WindowPlan,
    quiet: bool,
    each: &mut dyn FnMut(usize, &[u16]) -> Result<()>,
) -> Result<Built> {
    let opts = WindowRun {
        window: window.window,
        file: window.file.clone(),
        keep_file: window.keep_file,
        quiet,
        label: plan.backend.name.to_string(),
        chunk_target: CHUNK_TARGET,
        stop_after_positions: None,
    };
    // the first PREFIX + 1 values, what auto chose from
    let mut prefix: Vec<u16> = Vec::new();
    let fill = plan.chunk_fill();
    let started = Instant::now();
    let outcome = run(
        &plan.subject,
        plan.limit,
        &fill,
        &opts,
        &mut |from, values| {
            if from <= PREFIX {
                let take = (PREFIX + 1 - from).min(values.len());
                prefix.extend_from_slice(&values[..take]);
            }
            each(from, values)
        },
    )?;
    let choice = (plan.backend.name == crate::octal::auto::NAME && !prefix.is_empty())
        .then(|| Choice::of(&plan.subject, &prefix));
    Ok(Built {
        outcome,
        choice,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Removes the values file of a run that does not keep it (a failure leaves only disk used).
fn remove_quietly(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// The chunks of [`run`].
fn in_chunks(
    rules: &Rules,
    limit: usize,
    fill: TryFill<'_>,
    opts: &WindowRun,
    spill: &mut Spill,
    each: &mut dyn FnMut(usize, &[u16]) -> Result<()>,
) -> Result<WindowOutcome> {
    let end = limit + 1;
    let mut progress = Progress::new(rules, limit, 0, opts.quiet, &opts.label, true);
    let mut stream = Stream::new();
    let (mut done, mut max) = (0usize, 0u16);
    // released: g(prefix..released) is handed back; both ends on page edges, so no page
    // straddles two releases and stays behind
    let mut released = opts.window.prefix.next_multiple_of(spill::PAGE_VALUES);
    let mut rate: Option<f64> = None;
    let mut previous: Option<usize> = None;
    let mut steps_done = 0u128;
    let stopped = loop {
        if done >= end {
            break None;
        }
        if opts.stop_after_positions.is_some_and(|k| done >= k) {
            break Some(None);
        }
        let mut to = next_chunk_end(
            rules,
            done,
            end,
            chunk_budget(rate, opts.chunk_target),
            previous,
        );
        if let Some(k) = opts.stop_after_positions {
            to = to.min(k.max(done + 1));
        }
        let t = Instant::now();
        let g = spill.values_mut();
        let filled = fill(&mut g[..to], done, max);
        if let Err(e) = filled {
            progress.finish();
            return Err(e);
        }
        let secs = t.elapsed().as_secs_f64().max(1e-6);
        let chunk = &g[done..to];
        max = max.max(chunk.iter().copied().max().unwrap_or(0));
        stream.push(chunk);
        if let Err(e) = each(done, chunk) {
            progress.finish();
            return Err(e);
        }
        let steps_to = crate::run::longrun::Ruleset::steps_before(rules, to);
        rate = Some(rate_of(steps_done, steps_to, secs));
        steps_done = steps_to;
        previous = Some(to - done);
        done = to;
        let keep_from =
            done.saturating_sub(opts.window.tail) / spill::PAGE_VALUES * spill::PAGE_VALUES;
        if keep_from > released {
            spill.release(released, keep_from);
            released = keep_from;
        }
        progress.update(done, steps_done);
        if let Some(signal) = signals::interrupted() {
            break Some(Some(signal));
        }
    };
    progress.finish();
    Ok(match stopped {
        None => WindowOutcome::Finished {
            streamed: Box::new(stream.finish(rules)),
            file: None,
        },
        Some(signal) => WindowOutcome::Interrupted { signal, done },
    })
}

#[cfg(test)]
mod tests;
