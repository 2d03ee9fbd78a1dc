//! Window mode: an octal run whose table g(0..=N) lives in a file ([`spill`]), with only a
//! window of it resident: the prefix g(0..P) and the last T values before the first one not
//! yet decided. What the run reports is computed as the values stream past ([`stream`]),
//! so nothing at the end reads the whole table.
//!
//! Algorithm: the table is built in chunks, as a long run builds one ([`crate::run::longrun`],
//! whose chunk sizing this shares), by the back-end's ordinary fill step on the file's
//! mapping. After each chunk [from, to) its values go to the stream and to the caller (for
//! `--values`), and the pages of g(P..to - T) are handed back: those that just left the
//! tail, and any that a read far behind it faulted in again since, so what stays resident
//! does not grow with the reads a code makes.
//!
//! Why the values are always right: a back-end reads the mapping as it would a table in
//! memory, and a released page is read back from the file ([`spill::Spill`]). So no read
//! can see a wrong value, wherever it falls; the window only decides what stays resident.
//! It is sized for what the rare/common back-ends read of a table ([`Window`]): a read
//! outside it (a sweep that runs past the prefix, a rare position far back) costs a page
//! fault, not exactness. The one exception is a run resumed from a [`checkpoint`] without
//! its values file: the values the checkpoint did not carry are unreadable there, and a read
//! of one ends the run with an error ([`spill::Spill::forbid`]) instead of a value.
//!
//! What reads a whole table is kept out of the build: `auto` builds with `octal-block`
//! ([`WINDOW_BACKEND`], its choice for every code window mode takes) without its checks for
//! a proved period, and no period is searched at the end.
//!
//! Cost: the build's, plus a pass over each chunk for the stream, plus the kernel's
//! write-back of 2 bytes a value. Memory: the window and the back-end's own scratch,
//! whatever N; disk: 2(N + 1) bytes.

pub mod checkpoint;
pub mod plan;
pub mod spill;
pub mod stream;
pub mod table;

use crate::base::error::{Error, Result};
use crate::grundy::{Builder, Kept};
use crate::octal::auto::Choice;
use crate::octal::method::rare_common::PREFIX;
use crate::octal::{OctalPlan, Rules};
use crate::run::longrun::driver::{chunk_budget, next_chunk_end, rate_of};
use crate::run::longrun::progress::Progress;
use crate::run::longrun::signals::{self, Signal, SignalGuard};
use crate::run::longrun::tablefile::Fnv1a64;
use crate::run::plot::ValuePlot;
use checkpoint::Checkpoint;
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
    /// The values file (created; an existing file is never overwritten, but for the one a
    /// resumed run's checkpoint was written beside).
    pub file: PathBuf,
    /// Keep the values file at the end (else it is removed once the run is over).
    pub keep_file: bool,
    /// The checkpoint: resumed from when it exists, written every `every` and when the run
    /// stops or ends.
    pub checkpoint: Option<PathBuf>,
    pub every: Duration,
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
    /// Every value decided: what the stream read off them, the values file if kept, and
    /// where this run started (0, or where its checkpoint had got to).
    Finished {
        streamed: Box<Streamed>,
        file: Option<PathBuf>,
        resumed_at: usize,
        /// Why the final checkpoint could not be written (the values stand: the caller
        /// reports them, then the file as not written, exit status 4).
        unsaved: Option<Error>,
    },
    /// Stopped by a signal (or the test knob, `None`) after g(0..done); the checkpoint, if
    /// one was asked, holds it.
    Interrupted { signal: Option<Signal>, done: usize },
}

/// Builds g(0..=limit) of `rules` with `builder` (named `backend`) in window mode (see the
/// module doc), handing each chunk's values to `each(from, values)` in order. Before any
/// work: the checkpoint, if it exists, is read and checked, and the values file created
/// (and unlinked at once unless it is to be kept) or, resuming, the kept one reopened. A
/// fresh run with a checkpoint and a kept file writes its checkpoint of g(0..0) before it
/// creates the file, so that from the file's first instant a kill leaves a checkpoint beside
/// it and the same command resumes. An
/// error (of the fill, of `each`) stops the run and removes a file it created; a stopped
/// run keeps g(0..done) in its checkpoint and in a kept file.
pub fn run(
    rules: &Rules,
    limit: usize,
    builder: &dyn Builder<Rules>,
    backend: &str,
    opts: &WindowRun,
    each: &mut dyn FnMut(usize, &[u16]) -> Result<()>,
) -> Result<WindowOutcome> {
    let job = Job {
        rules,
        limit,
        builder,
        backend,
        opts,
    };
    let end = limit + 1;
    let resumed = match &opts.checkpoint {
        Some(path) if path.exists() => {
            let ck = checkpoint::read(path)?;
            ck.check(rules.label(), backend, opts.window, limit)?;
            let kept = builder.load_kept(rules, &ck.kept)?;
            let stream = Stream::load(&ck.stream)?;
            if stream.len() != ck.done {
                return Err(Error::Invalid(format!(
                    "--checkpoint: {} is damaged (its stream and its values disagree)",
                    path.display()
                )));
            }
            Some((ck, kept, stream))
        }
        _ => None,
    };
    let reopen = resumed.is_some() && opts.keep_file && opts.file.exists();
    if let (true, Some((ck, _, stream))) = (reopen, &resumed) {
        check_kept_file(&opts.file, ck.done, stream.digest())?;
    }
    // A fresh run that keeps its values file writes its checkpoint of nothing (g(0..0))
    // before it creates the file: a run killed before its first real checkpoint then leaves
    // a checkpoint beside the file, and the same command resumes (reopening the file)
    // instead of refusing the file as someone else's.
    let started = match &opts.checkpoint {
        Some(path) if resumed.is_none() && opts.keep_file => {
            job.write_checkpoint(path, &[], 0, &None, &Stream::new())?;
            Some(path)
        }
        _ => None,
    };
    let mut spill = if reopen {
        Spill::open_at_least(&opts.file, end)?
    } else {
        Spill::create(&opts.file, end).inspect_err(|_| {
            if let Some(path) = started {
                remove_quietly(path);
            }
        })?
    };
    if !opts.keep_file {
        // Unlinked at once: the mapping keeps the file's pages, and the disk space comes back
        // however the process ends (a closed pipe's SIGPIPE and SIGKILL included).
        remove_quietly(&opts.file);
    }
    let start = match resumed {
        None => Start {
            done: 0,
            kept: None,
            stream: Stream::new(),
        },
        Some((ck, kept, stream)) => {
            if !reopen {
                place_window(&mut spill, &ck)?;
            }
            Start {
                done: ck.done,
                kept,
                stream,
            }
        }
    };
    let _guard = SignalGuard::install()?;
    let resumed_at = start.done;
    let result = in_chunks(&job, &mut spill, start, each);
    drop(spill);
    match result {
        Ok(WindowOutcome::Finished {
            streamed, unsaved, ..
        }) => Ok(WindowOutcome::Finished {
            streamed,
            file: opts.keep_file.then(|| opts.file.clone()),
            resumed_at,
            unsaved,
        }),
        // a kept file holds g(0..done) of a stopped run
        Ok(stopped) => Ok(stopped),
        Err(e) => {
            if opts.keep_file && !reopen {
                remove_quietly(&opts.file);
            }
            Err(e)
        }
    }
}

/// Where a run starts: g(0..done) decided, the back-end's state and the stream then.
struct Start {
    done: usize,
    kept: Kept,
    stream: Stream,
}

/// Refuses, before the file is touched, a kept values file that does not hold the g(0..done)
/// its checkpoint was written beside: fewer values (lengthening it would read zeros as
/// values), or values whose FNV-1a 64 is not the checkpoint's `digest` of g(0..done) (changed
/// on disk between sittings, they would end in the file and the picture). It reads the
/// `done` values once, in pieces of 2^16.
fn check_kept_file(file: &Path, done: usize, digest: u64) -> Result<()> {
    use std::io::Read;
    let refuse = |what: String| {
        Err(Error::Invalid(format!(
            "--window-file: {} {what}; restore the file the earlier sittings wrote, or name a new one",
            file.display()
        )))
    };
    let unreadable = |e: std::io::Error| {
        Error::Invalid(format!(
            "--window-file: cannot read {}: {e}",
            file.display()
        ))
    };
    let mut reader = std::fs::File::open(file).map_err(unreadable)?;
    let size = reader.metadata().map_err(unreadable)?.len();
    if size < 2 * done as u64 {
        return refuse(format!(
            "holds {} values, fewer than the {done} its checkpoint says were written",
            size / 2
        ));
    }
    let mut sum = Fnv1a64::default();
    let mut bytes = vec![0u8; 2 << 16];
    let mut left = 2 * done;
    while left > 0 {
        let take = left.min(bytes.len());
        reader.read_exact(&mut bytes[..take]).map_err(unreadable)?;
        sum.update(&bytes[..take]);
        left -= take;
    }
    if sum.finish() != digest {
        return refuse(format!(
            "does not hold the checkpoint's values (g(0..{done}) does not hash to its digest)"
        ));
    }
    Ok(())
}

/// Puts a resumed run's window in the new values file it was not written beside: writes the
/// window and makes the values it does not hold unreadable ([`Spill::forbid`]), so that no
/// read can take the new file's zeros for values.
fn place_window(spill: &mut Spill, ck: &Checkpoint) -> Result<()> {
    let tail = ck.tail_from..ck.done;
    let g = spill.values_mut();
    g[..ck.prefix.len()].copy_from_slice(&ck.prefix);
    g[tail].copy_from_slice(&ck.tail);
    if ck.tail_from > ck.window.prefix {
        spill.forbid(ck.window.prefix, ck.tail_from)?;
    }
    Ok(())
}

/// What a window-mode run builds and how: [`run`]'s arguments, which every checkpoint of
/// the run names.
#[derive(Clone, Copy)]
struct Job<'a> {
    rules: &'a Rules,
    limit: usize,
    builder: &'a dyn Builder<Rules>,
    backend: &'a str,
    opts: &'a WindowRun,
}

impl Job<'_> {
    /// Writes the checkpoint of a run that has decided g(0..done) at `path` (see
    /// [`checkpoint`]): the window's values straight from the table `g`.
    fn write_checkpoint(
        &self,
        path: &Path,
        g: &[u16],
        done: usize,
        kept: &Kept,
        stream: &Stream,
    ) -> Result<()> {
        let Job {
            rules,
            limit,
            builder,
            backend,
            opts,
        } = *self;
        let window = opts.window;
        let kept = builder.save_kept(kept).ok_or_else(|| {
            Error::Invalid(format!(
                "--checkpoint: the back-end {backend} cannot save its state for a window-mode checkpoint"
            ))
        })?;
        let prefix_len = done.min(window.prefix);
        let tail_from = (done.saturating_sub(window.tail) / spill::PAGE_VALUES
            * spill::PAGE_VALUES)
            .max(prefix_len);
        let stream = stream.save();
        checkpoint::write_atomic(
            path,
            &checkpoint::Parts {
                code: rules.label(),
                backend,
                limit,
                done,
                window,
                stream: &stream,
                kept: &kept,
                prefix: &g[..prefix_len],
                tail_from,
                tail: &g[tail_from..done],
            },
        )
    }
}

/// The aimed-at duration of a chunk of an octal build in window mode: a window is released
/// and the signal flag read once a chunk.
pub const CHUNK_TARGET: Duration = Duration::from_secs(1);

/// The back-end a window-mode build runs for `auto`.
pub const WINDOW_BACKEND: &str = "octal-block";

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

/// Builds the table `plan` decides in window mode as `window` decides it, with the
/// checkpoint `checkpoint` (resumed when it exists, written every `every`), handing each
/// chunk's values to `each(from, values)` (see [`run`]).
///
/// With `plot`, every value goes to it too, in order: a resumed run first reads g(0..k)
/// back from its values file, the one its checkpoint was written beside (the plan refuses
/// `--plot` on a resume without it, [`plan::Ask::plot`]), in pieces, so that the picture
/// costs no memory beyond its own.
pub fn build_octal(
    plan: &OctalPlan,
    window: &WindowPlan,
    (quiet, checkpoint, every): (bool, Option<&Path>, Duration),
    mut plot: Option<&mut ValuePlot>,
    each: &mut dyn FnMut(usize, &[u16]) -> Result<()>,
) -> Result<Built> {
    let opts = WindowRun {
        window: window.window,
        file: window.file.clone(),
        keep_file: window.keep_file,
        checkpoint: checkpoint.map(Path::to_path_buf),
        every,
        quiet,
        label: WINDOW_BACKEND.to_string(),
        chunk_target: CHUNK_TARGET,
        stop_after_positions: None,
    };
    // the first PREFIX + 1 values, what auto chose from: a resumed run's from its checkpoint
    let (mut prefix, done): (Vec<u16>, usize) = match checkpoint.filter(|p| p.exists()) {
        Some(path) => {
            let ck = checkpoint::read(path)?;
            (ck.prefix, ck.done)
        }
        None => (Vec::new(), 0),
    };
    if let Some(plot) = plot.as_deref_mut() {
        if done > 0 {
            replay_values(&window.file, done, plot)?;
        }
    }
    prefix.truncate(PREFIX + 1);
    // `auto` in window mode builds with `octal-block` (what it chooses for a code with a sparse
    // space, which window mode requires) but without its checks for a proved period: each
    // reads the whole table, which window mode keeps on disk.
    let entry = if plan.backend.name == crate::octal::auto::NAME {
        crate::octal::find(WINDOW_BACKEND)?
    } else {
        plan.backend
    };
    let builder = (entry.make)();
    let started = Instant::now();
    let outcome = run(
        &plan.subject,
        plan.limit,
        &*builder,
        entry.name,
        &opts,
        &mut |from, values| {
            if from == prefix.len() && from <= PREFIX {
                let take = (PREFIX + 1 - from).min(values.len());
                prefix.extend_from_slice(&values[..take]);
            }
            if let Some(plot) = plot.as_deref_mut() {
                plot.push(values);
            }
            each(from, values)
        },
    )?;
    let choice = (plan.backend.name == crate::octal::auto::NAME && prefix.len() > PREFIX)
        .then(|| Choice::of(&plan.subject, &prefix));
    Ok(Built {
        outcome,
        choice,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Pushes g(0..done) from the values file `file` (little-endian u16) to `plot`, read in
/// pieces of 2^16 values with plain reads (no mapping, so none of it stays resident).
fn replay_values(file: &Path, done: usize, plot: &mut ValuePlot) -> Result<()> {
    let failed = |e: std::io::Error| {
        Error::Invalid(format!(
            "--plot: cannot read g(0..{done}) back from the values file {}: {e}; resume with the --window-file the earlier sittings wrote, or drop --plot",
            file.display()
        ))
    };
    let mut reader = std::fs::File::open(file).map_err(failed)?;
    replay(&mut reader, done, &mut |values| plot.push(values)).map_err(failed)
}

/// Reads g(0..done) from `reader` (little-endian u16, the values file's layout) in pieces of
/// 2^16 values, handing each to `each`; an error if it ends before `done` values.
pub fn replay(
    reader: &mut impl std::io::Read,
    done: usize,
    each: &mut dyn FnMut(&[u16]),
) -> std::io::Result<()> {
    let mut bytes = vec![0u8; 2 << 16];
    let mut values = Vec::with_capacity(1 << 16);
    let mut at = 0;
    while at < done {
        let take = (done - at).min(1 << 16);
        reader.read_exact(&mut bytes[..2 * take])?;
        values.clear();
        values.extend(
            bytes[..2 * take]
                .chunks_exact(2)
                .map(|b| u16::from_le_bytes([b[0], b[1]])),
        );
        each(&values);
        at += take;
    }
    Ok(())
}

/// Removes the values file of a run that does not keep it (a failure leaves only disk used).
fn remove_quietly(path: &Path) {
    let _ = std::fs::remove_file(path);
}

/// The chunks of [`run`].
fn in_chunks(
    job: &Job,
    spill: &mut Spill,
    start: Start,
    each: &mut dyn FnMut(usize, &[u16]) -> Result<()>,
) -> Result<WindowOutcome> {
    let Job {
        rules,
        limit,
        builder,
        opts,
        ..
    } = *job;
    let end = limit + 1;
    let Start {
        mut done,
        mut kept,
        mut stream,
    } = start;
    let mut progress = Progress::new(rules, limit, done, opts.quiet, &opts.label, true);
    // g(behind..keep_from) is handed back after every chunk, both ends on page edges: the
    // values that just left the tail, and any page behind them that a read far back (a long
    // sweep's partners near m/2) brought back into the mapping since
    let behind = opts.window.prefix.next_multiple_of(spill::PAGE_VALUES);
    let mut rate: Option<f64> = None;
    let mut previous: Option<usize> = None;
    let mut steps_done = done as u128;
    let mut last_write = Instant::now();
    let keep = |spill: &Spill, done: usize, kept: &Kept, stream: &Stream| -> Result<()> {
        match &opts.checkpoint {
            None => Ok(()),
            Some(path) => {
                if opts.keep_file {
                    // the checkpoint says the kept file holds g(0..done): make that so on disk
                    spill.sync()?;
                }
                job.write_checkpoint(path, spill.values(), done, kept, stream)
            }
        }
    };
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
        if let Err(e) = builder.fill_kept(rules, &mut g[..to], done, &mut kept) {
            progress.finish();
            return Err(e);
        }
        let secs = t.elapsed().as_secs_f64().max(1e-6);
        let chunk = &g[done..to];
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
        if keep_from > behind {
            spill.release(behind, keep_from);
        }
        progress.update(done, steps_done);
        if let Some(signal) = signals::interrupted() {
            break Some(Some(signal));
        }
        if done < end && last_write.elapsed() >= opts.every {
            // a failed periodic write costs only the progress since the last good one
            if let Err(e) = keep(spill, done, &kept, &stream) {
                eprintln!("warning: checkpoint not written, the run goes on: {e}");
            }
            last_write = Instant::now();
        }
    };
    progress.finish();
    // the last checkpoint: where a stop left the run (which fails without it: nothing would
    // resume it), or the whole table's (a later run with a larger N goes on from it), whose
    // failure leaves the values standing and is reported after them
    let last = keep(spill, done, &kept, &stream);
    Ok(match stopped {
        None => WindowOutcome::Finished {
            streamed: Box::new(stream.finish(rules)),
            file: None,
            resumed_at: 0,
            unsaved: last.err(),
        },
        Some(signal) => {
            last?;
            WindowOutcome::Interrupted { signal, done }
        }
    })
}

#[cfg(test)]
mod tests;
