//! The profiler session behind `nimsquare profile`: solves (table, then count) or builds of
//! one table repeated under pprof until enough samples are taken, then the flamegraph, the
//! folded stacks and the summary ([`Profiled`]) written.
//!
//! One solve at the default N takes a fraction of a second, which gives a few dozen samples,
//! mostly thread-pool start-up: unreadable. So the work is repeated until the target number
//! of samples is taken, or [`MAX_SAMPLING_SECONDS`] have passed, whichever is first. The
//! sampling timer does not fire at the nominal frequency on every kernel (it counts CPU time,
//! and a shared machine drops ticks), so the count itself, not a time, is the target. Every
//! repeat must give the same answer. A run too short to be sampled writes nothing and is
//! refused, so a script never mistakes an empty graph for a profile.

use crate::base::error::{Error, Result};
use crate::base::moves::Moves;
use crate::base::paths::{write_output, Output};
use crate::run::planner;
use crate::run::report::Report;
use crate::run::workload::{BuildPlan, Made};
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Instant;

/// The wall-clock bound on the repeats, for a frequency or machine that samples slowly.
pub const MAX_SAMPLING_SECONDS: f64 = 30.0;

/// What one repeat does.
pub enum Work {
    /// A solve of three heaps of a subtraction game: the table, then the count.
    Solve {
        table_name: &'static str,
        builder: Box<dyn crate::grundy::Builder<Moves>>,
        count_name: &'static str,
        counter: Box<dyn crate::count::Counter>,
        /// The resolved plan, for the forecast note.
        planned: Box<planner::Plan>,
    },
    /// A build of a table of any workload (no count).
    Build { plan: BuildPlan, builder: Made },
}

impl Work {
    /// The table back-end's name.
    pub fn table_name(&self) -> &'static str {
        match self {
            Work::Solve { table_name, .. } => table_name,
            Work::Build { plan, .. } => plan.backend.name(),
        }
    }

    /// The count back-end's name, `none` for a build alone.
    pub fn count_name(&self) -> &'static str {
        match self {
            Work::Solve { count_name, .. } => count_name,
            Work::Build { .. } => "none",
        }
    }

    /// The game in words: `moves squares`, `octal game 0.6`.
    pub fn game(&self, moves: &Moves) -> String {
        match self {
            Work::Solve { .. } => format!("moves {}", moves.label()),
            Work::Build { plan, .. } => plan.subject.describe(),
        }
    }
}

/// A checked profiling run: what to repeat and how to sample it.
pub struct Session {
    pub limit: usize,
    pub work: Work,
    /// The subtraction set of a solve (`--moves`).
    pub moves: Moves,
    /// Samples per second of CPU time asked of the timer.
    pub frequency: u64,
    /// The samples to take (0: one repeat).
    pub samples: u64,
    /// No line on stderr saying what is sampled.
    pub quiet: bool,
}

/// What the sampled repeats measured.
pub struct Sampled {
    report: pprof::Report,
    samples: isize,
    seconds: f64,
    /// CPU seconds of the process (user and system) while sampling: what the samples divide.
    cpu_seconds: f64,
    /// True when the time bound, not the sample target, ended the sampling.
    stopped_by_time: bool,
    /// The one-minute load average before and after sampling.
    loads: (Option<f64>, Option<f64>),
    repeats: usize,
    answer: u128,
}

/// CPU seconds (user + system) this process has used so far, all threads.
fn cpu_seconds() -> f64 {
    // SAFETY: `getrusage` writes only into the zeroed struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

impl Session {
    /// Runs the work under the profiler until `samples` samples are taken (at least once, at
    /// most [`MAX_SAMPLING_SECONDS`]); every repeat must give the same answer.
    pub fn sample(&self) -> Result<Sampled> {
        let guard = pprof::ProfilerGuardBuilder::default()
            .frequency(self.frequency as i32)
            .blocklist(&["libc", "libgcc", "pthread", "vdso"])
            .build()
            .map_err(|e| Error::Invalid(format!("cannot start the profiler: {e}")))?;
        if crate::run::longrun::progress::may_show(self.quiet) {
            eprintln!(
                "profile: sampling solves of N = {} ({}, {} table, {} count) at {} Hz until {} samples or {} s",
                self.limit,
                self.work.game(&self.moves),
                self.work.table_name(),
                self.work.count_name(),
                self.frequency,
                self.samples,
                MAX_SAMPLING_SECONDS
            );
        }
        let load_start = crate::base::provenance::load_average();
        let (start, cpu_start) = (Instant::now(), cpu_seconds());
        let target = self.samples as isize;
        let over_time = || start.elapsed().as_secs_f64() >= MAX_SAMPLING_SECONDS;
        // Reading the count locks the profiler (samples arriving meanwhile are lost), so it is
        // read after batches sized from the rate so far, not after every solve.
        let (mut repeats, mut batch) = (0usize, 1usize);
        let mut answer = None;
        loop {
            for _ in 0..batch {
                let a = self.solve_once()?;
                if *answer.get_or_insert(a) != a {
                    return Err(Error::Disagreement(format!(
                        "profile: repeat {} of the solve gave {a}, the first gave {}",
                        repeats + 1,
                        answer.unwrap_or_default()
                    )));
                }
                repeats += 1;
                if over_time() {
                    break;
                }
            }
            let taken: isize = guard
                .report()
                .build_unresolved()
                .map_or(0, |r| r.data.values().sum());
            if taken >= target || over_time() {
                break;
            }
            let per_repeat = (taken.max(1) as f64) / repeats as f64;
            batch = (((target - taken) as f64 / per_repeat).ceil() as usize).clamp(1, 1000);
        }
        let seconds = start.elapsed().as_secs_f64();
        let cpu_seconds = cpu_seconds() - cpu_start;
        let report = guard
            .report()
            .build()
            .map_err(|e| Error::Invalid(format!("cannot build the profile: {e}")))?;
        let samples: isize = report.data.values().sum();
        Ok(Sampled {
            report,
            stopped_by_time: samples < target && over_time(),
            loads: (load_start, crate::base::provenance::load_average()),
            samples,
            seconds,
            cpu_seconds,
            repeats,
            answer: answer.expect("at least one solve"),
        })
    }

    /// One solve: the table, then the count of three heaps; for a build alone, its table,
    /// whose largest value stands for the answer.
    fn solve_once(&self) -> Result<u128> {
        match &self.work {
            Work::Solve {
                table_name,
                builder,
                counter,
                ..
            } => {
                let t = crate::run::longrun::build_shown(
                    &**builder,
                    table_name,
                    &self.moves,
                    self.limit,
                )?;
                counter.count(&t, 3)
            }
            Work::Build { plan, builder } => Ok(u128::from(
                builder.build(&plan.subject, plan.limit)?.max_value(),
            )),
        }
    }
}

/// The report as folded stacks, one `thread;outer;...;inner COUNT\n` line per stack, sorted:
/// the lines pprof itself hands the flamegraph renderer.
fn folded_lines(report: &pprof::Report) -> Vec<String> {
    let mut lines: Vec<String> = report
        .data
        .iter()
        .map(|(stack, count)| {
            let mut names = vec![stack.thread_name_or_id()];
            for frame in stack.frames.iter().rev() {
                names.extend(frame.iter().rev().map(|symbol| symbol.to_string()));
            }
            format!("{} {count}\n", names.join(";"))
        })
        .collect();
    lines.sort();
    lines
}

/// Where the files go, decided before any work.
pub struct Files<'a> {
    /// The flamegraph (`--out`) as named, for the summary, and where it goes.
    pub out: (&'a std::path::Path, &'a Output),
    /// The folded stacks (`--folded`), if asked.
    pub folded: Option<&'a Output>,
}

impl Sampled {
    /// Writes the flamegraph and the folded stacks, and returns the summary; refuses an
    /// empty profile (nothing written). A note on stderr gives the rate the timer really
    /// reached when the time bound ended the sampling.
    pub fn write(&self, session: &Session, files: Files) -> Result<Profiled> {
        let s = self;
        if s.samples <= 0 {
            return Err(Error::Invalid(format!(
                "no samples: {} solves took {:.4} s, too short to sample at {} Hz; \
                 no file written (raise --samples, --limit or --frequency)",
                s.repeats, s.seconds, session.frequency
            )));
        }
        let work = &session.work;
        let mut options = pprof::flamegraph::Options::default();
        options.title = format!(
            "nimsquare: table {} + count {}, N = {}, {}, {} threads, {} path",
            work.table_name(),
            work.count_name(),
            session.limit,
            work.game(&session.moves),
            rayon::current_num_threads(),
            crate::base::isa::active().name()
        );
        let per_cpu_second = s.samples as f64 / s.cpu_seconds.max(1e-9);
        // The rate the timer really reached, not the one asked: a shared VM drops many ticks,
        // and a title saying 997 Hz over a quarter of that misleads whoever reads the widths
        // as time.
        options.subtitle = Some(format!(
            "{} samples over {:.1} CPU seconds: {:.0} per CPU second ({} Hz asked), {} solves",
            s.samples, s.cpu_seconds, per_cpu_second, session.frequency, s.repeats
        ));
        write_output(files.out.1, "--out", |w| {
            s.report
                .flamegraph_with_options(w, &mut options)
                .map_err(io::Error::other)
        })?;
        if let Some(folded) = files.folded {
            let text: String = folded_lines(&s.report).concat();
            write_output(folded, "--folded", |w| w.write_all(text.as_bytes()))?;
        }
        if s.stopped_by_time {
            eprintln!(
                "note: stopped after {:.1} s with {} of {} samples; the profiling timer fired {:.0} times \
                 per CPU second against {} asked, so a sample stands for {:.4} CPU seconds here",
                s.seconds,
                s.samples,
                session.samples,
                per_cpu_second,
                session.frequency,
                1.0 / per_cpu_second.max(1e-9)
            );
        }
        Ok(Profiled {
            out: files.out.0.to_path_buf(),
            samples: s.samples,
            frequency_hz: session.frequency,
            seconds: s.seconds,
            repeats: s.repeats,
            limit: session.limit,
            table: work.table_name(),
            count: work.count_name(),
            answer: s.answer,
            cpu_seconds: s.cpu_seconds,
            samples_per_cpu_second: per_cpu_second,
            stopped_by_time: s.stopped_by_time,
            loads: s.loads,
        })
    }
}

/// What `profile` answers: where the graph went and what the sampling reached.
pub struct Profiled {
    pub out: PathBuf,
    pub samples: isize,
    pub frequency_hz: u64,
    pub seconds: f64,
    pub repeats: usize,
    pub limit: usize,
    pub table: &'static str,
    pub count: &'static str,
    /// The solves' answer (a build's largest value).
    pub answer: u128,
    pub cpu_seconds: f64,
    pub samples_per_cpu_second: f64,
    /// True when the time bound, not the sample target, ended the sampling.
    pub stopped_by_time: bool,
    /// The one-minute load average before and after sampling.
    pub loads: (Option<f64>, Option<f64>),
}

impl Profiled {
    fn stopped_by(&self) -> &'static str {
        if self.stopped_by_time {
            "time"
        } else {
            "samples"
        }
    }
}

impl Report for Profiled {
    fn text(&self, out: &mut dyn Write) -> io::Result<()> {
        let load = |l: Option<f64>| l.map_or_else(|| "unknown".into(), |l| format!("{l:.2}"));
        writeln!(
            out,
            "wrote {} samples={} frequency_hz={} seconds={:.3} repeats={} limit={} table={} count={} answer={} cpu_seconds={:.3} samples_per_cpu_second={:.1} stopped_by={} load_start={} load_end={} build={}",
            self.out.display(),
            self.samples,
            self.frequency_hz,
            self.seconds,
            self.repeats,
            self.limit,
            self.table,
            self.count,
            self.answer,
            self.cpu_seconds,
            self.samples_per_cpu_second,
            self.stopped_by(),
            load(self.loads.0),
            load(self.loads.1),
            crate::base::provenance::BUILD_REV
        )
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "wrote": self.out.display().to_string(),
            "samples": self.samples,
            "frequency_hz": self.frequency_hz,
            "seconds": self.seconds,
            "repeats": self.repeats,
            "limit": self.limit,
            "table": self.table,
            "count": self.count,
            "answer": self.answer.to_string(),
            "cpu_seconds": self.cpu_seconds,
            "samples_per_cpu_second": self.samples_per_cpu_second,
            "stopped_by": self.stopped_by(),
            "load_start": self.loads.0,
            "load_end": self.loads.1,
        })
    }
}
