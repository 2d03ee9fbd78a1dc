//! `mpirun -n P nimsquare census ...` (the `mpi` feature): the census spread over the
//! processes of an MPI job. Rank 0 is the coordinator: it plans the census exactly as one
//! process does ([`super::run`], every refusal included), hands the codes out one at a time,
//! most expensive first, and writes each row to the rows file the moment it arrives. Every
//! other rank is a worker: it builds the rows of the codes it is given with the function a
//! one-process census uses ([`census::Build::row`]: at one N, or until proved), as many at
//! once as its thread pool has threads.
//!
//! Protocol (MPI_COMM_WORLD, every payload the JSON of a struct below, as bytes):
//! - rank 0 sends every worker [`PLAN`] (back-end, N, the largest code). A worker checks that
//!   the largest table fits in its own memory and answers [`READY`] (its threads, CPU, build)
//!   or [`FAILED`]; any refusal ends the census before any work, with its message.
//! - rank 0 sends [`CODE`] (an index into its list and the code) while a worker has fewer
//!   than [`QUEUED`] codes in flight per thread; the worker answers each with [`ROW`]: the
//!   code's row, or its error row when the build failed or panicked (caught in the builder
//!   thread, so every code answers), which rank 0 reports as a one-process census does while
//!   the census goes on.
//! - termination: rank 0 sends [`STOP`] to a worker once nothing is left to hand out (or the
//!   census failed) and that worker has no code in flight; the census is over when every
//!   worker has been stopped. Rank 0 also stops every worker when it refuses the census.
//!
//! Failure: a row that cannot be kept (or a message that cannot be read) stops the handing
//! out; the codes in flight still come back and are kept, as in one process. An
//! until-proved census's workers read and write the carried tables in the rows file's
//! folder ([`super::carry`], its absolute path in [`PLAN`]), every 10 s of a code: on a
//! shared file system a resumed run goes on from them; a worker that cannot reach the folder
//! skips them, and its codes then start again from `--limit`. MPI offers no more: with the default
//! error handler a process that dies makes the launcher end the whole job (Open MPI's
//! `mpirun` sends every rank SIGTERM, then SIGKILL). Rank 0 then reports, as a one-process
//! census stopped by a signal does, how many rows its file holds and that the same command
//! with `--resume` finishes it, and ends the job (MPI_Abort) without waiting for the codes
//! in flight on ranks that may be dead. The workers outlive the launcher's SIGTERM by
//! [`WORKER_GRACE`], because `mpirun` SIGKILLs the whole job as soon as one rank dies of it. The rows already written are synced, so nothing
//! received is lost; the codes in flight are built again by the resumed run.
//!
//! Waiting: both sides poll (MPI_Improbe) and sleep between polls, the pause growing while
//! nothing comes, because Open MPI's blocking receive spins a core, which on a node where
//! the coordinator shares the cores with a worker would take a core from the census.

use super::carry::Carry;
use crate::base::error::{Error, Result};
use crate::base::provenance::{cpu_model, git_rev};
use crate::census::plan::CensusPlan;
use crate::census::until::{Carried, Hooks, Until};
use crate::census::{self, Row, Watcher};
use crate::octal::Rules;
use crate::run::longrun::{interrupted, Signal, SignalGuard};
use mpi::environment::{Threading, Universe};
use mpi::point_to_point::{MatchedReceiveVec, Source};
use mpi::topology::{Communicator, Rank, SimpleCommunicator};
use mpi::traits::Destination;
use mpi::Tag;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Rank 0 to a worker: the census's back-end and N ([`Plan`]).
pub const PLAN: Tag = 1;
/// A worker to rank 0: ready, with its threads ([`Ready`]).
pub const READY: Tag = 2;
/// A worker to rank 0: the plan or a code failed ([`Failed`]).
pub const FAILED: Tag = 3;
/// Rank 0 to a worker: build this code's row ([`Code`]).
pub const CODE: Tag = 4;
/// A worker to rank 0: a code's row ([`Done`]).
pub const ROW: Tag = 5;
/// Rank 0 to a worker: no more codes; exit (empty payload).
pub const STOP: Tag = 6;

/// How long a worker goes on after SIGINT or SIGTERM before it exits by itself. When the
/// launcher signals the whole job, rank 0 ends it (MPI_Abort) within milliseconds, once it has
/// reported; a worker that died of the signal at once would instead make Open MPI's `mpirun`
/// SIGKILL every rank about a millisecond later, often before rank 0 had said how far its
/// file got. A signal sent to this worker alone ends it after the grace.
pub const WORKER_GRACE: Duration = Duration::from_secs(5);

/// The codes a worker holds per thread: one building and one waiting, so that a thread that
/// finishes starts its next code at once instead of waiting for the round trip to rank 0.
/// More would hold back codes another worker could be building at the end of the census.
pub const QUEUED: usize = 2;

/// [`PLAN`]'s payload: what a worker checks before it says it is ready.
#[derive(Serialize, Deserialize)]
pub struct Plan {
    backend: String,
    limit: usize,
    /// How far each code grows, in an until-proved census.
    #[serde(default)]
    until: Option<Until>,
    /// The folder of the rows file's carried tables ([`super::carry`]), absolute.
    #[serde(default)]
    tables: Option<PathBuf>,
    /// The code of the largest estimated cost, whose table the worker checks it can hold.
    largest: Option<String>,
}

/// [`READY`]'s payload: a worker's threads and where it runs.
#[derive(Serialize, Deserialize)]
pub struct Ready {
    threads: usize,
    cpu: String,
    build: String,
    host: String,
}

/// [`FAILED`]'s payload: why a worker refused the plan or a code.
#[derive(Serialize, Deserialize)]
pub struct Failed {
    error: String,
    host: String,
}

/// [`CODE`]'s payload: a code to build, with its index in rank 0's list.
#[derive(Serialize, Deserialize)]
pub struct Code {
    index: usize,
    code: String,
}

/// [`ROW`]'s payload: a code's row, with its index in rank 0's list.
#[derive(Serialize, Deserialize)]
pub struct Done {
    index: usize,
    row: Row,
}

/// Rank 0's record of one worker.
struct Worker {
    rank: Rank,
    threads: usize,
    in_flight: usize,
    stopped: bool,
    cpu: String,
}

/// This process's part in an MPI job.
pub struct Mpi {
    universe: Universe,
    /// On rank 0, every other rank; empty on a worker.
    workers: Vec<Worker>,
}

/// True when an MPI launcher started this process: Open MPI's `mpirun` sets
/// OMPI_COMM_WORLD_SIZE, a PMI launcher (MPICH's `mpiexec`, Slurm's `srun`) PMI_SIZE, a
/// PMIx one PMIX_RANK. Without one, MPI is not started at all: a singleton MPI_Init has
/// nothing to share out, and in Open MPI it starts a helper daemon, which a container may
/// not allow.
fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

impl Mpi {
    /// Starts MPI when a launcher started this process; `None` otherwise (a plain census).
    pub fn start() -> Result<Option<Mpi>> {
        if !launched() {
            return Ok(None);
        }
        // Funneled: the worker threads build rows, only the main thread calls MPI.
        let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)
            .ok_or_else(|| Error::Invalid("MPI was already started in this process".into()))?;
        let world = universe.world();
        let workers = if world.rank() == 0 {
            (1..world.size())
                .map(|rank| Worker {
                    rank,
                    threads: 0,
                    in_flight: 0,
                    stopped: false,
                    cpu: String::new(),
                })
                .collect()
        } else {
            Vec::new()
        };
        Ok(Some(Mpi { universe, workers }))
    }

    /// This process's rank.
    pub fn rank(&self) -> Rank {
        self.universe.world().rank()
    }

    /// The number of processes.
    pub fn size(&self) -> Rank {
        self.universe.world().size()
    }

    /// Rank 0: sends every worker the plan and waits for every answer. Returns the workers'
    /// CPU models (what the rows' `cpu` column names); a worker's refusal (the table does
    /// not fit its memory) or another build is refused, naming the rank and its host.
    pub fn handshake(
        &mut self,
        census: &CensusPlan,
        largest: Option<&Rules>,
        tables: Option<PathBuf>,
    ) -> Result<String> {
        let world = self.universe.world();
        let plan = Plan {
            backend: census.entry.name.to_string(),
            limit: census.limit,
            until: census.until,
            tables,
            largest: largest.map(|r| r.label().to_string()),
        };
        for w in &self.workers {
            send(&world, w.rank, PLAN, &plan);
        }
        let mut refusal = None;
        let mut wait = Backoff::new();
        for _ in 0..self.workers.len() {
            let (rank, tag, bytes) = wait.until(|| poll(&world.any_process()));
            let answer = match tag {
                READY => decode::<Ready>(rank, &bytes).and_then(|r| {
                    if r.build == git_rev() {
                        Ok(r)
                    } else {
                        Err(Error::Invalid(format!(
                            "rank {rank} on {} runs nimsquare build {}, rank 0 build {}; start the same binary on every rank",
                            r.host,
                            r.build,
                            git_rev()
                        )))
                    }
                }),
                _ => Err(failure(rank, tag, &bytes)),
            };
            match (answer, self.worker(rank)) {
                (Ok(ready), Some(w)) => {
                    w.threads = ready.threads.max(1);
                    w.cpu = ready.cpu;
                }
                (Err(e), _) => {
                    refusal.get_or_insert(e);
                }
                (Ok(_), None) => {}
            }
        }
        if let Some(e) = refusal {
            // Dropping `self` stops the workers.
            return Err(e);
        }
        let cpus: BTreeSet<&str> = self.workers.iter().map(|w| w.cpu.as_str()).collect();
        Ok(cpus.into_iter().collect::<Vec<_>>().join(" / "))
    }

    fn worker(&mut self, rank: Rank) -> Option<&mut Worker> {
        self.workers.iter_mut().find(|w| w.rank == rank)
    }

    /// Rank 0: the rows of every code of `list`, built by the workers, reported to `watcher`
    /// as they arrive: [`census::run_each`] with processes instead of threads. Codes go out
    /// in list order (the caller's, most expensive first), to the workers with room in their
    /// queue ([`QUEUED`]). Returns the number of codes finished, or the first error; on a signal
    /// ([`Watcher::stop`]) it returns at once, leaving the codes in flight (see the module's
    /// doc).
    pub fn run_each(&mut self, list: &[Rules], watcher: &dyn Watcher) -> Result<usize> {
        let world = self.universe.world();
        let (mut next, mut finished) = (0, 0);
        let mut error: Option<Error> = None;
        let mut wait = Backoff::new();
        loop {
            if watcher.stop() {
                return Ok(finished);
            }
            for w in &mut self.workers {
                while error.is_none() && w.in_flight < QUEUED * w.threads && next < list.len() {
                    let code = Code {
                        index: next,
                        code: list[next].label().to_string(),
                    };
                    send(&world, w.rank, CODE, &code);
                    watcher.started(next);
                    w.in_flight += 1;
                    next += 1;
                }
                if w.in_flight == 0 && !w.stopped && (error.is_some() || next == list.len()) {
                    send(&world, w.rank, STOP, &());
                    w.stopped = true;
                }
            }
            if self.workers.iter().all(|w| w.stopped) {
                return error.map_or(Ok(finished), Err);
            }
            let Some((rank, tag, bytes)) = poll(&world.any_process()) else {
                wait.sleep();
                continue;
            };
            wait.reset();
            if let Some(w) = self.worker(rank) {
                w.in_flight = w.in_flight.saturating_sub(1);
            }
            let kept = match tag {
                ROW => decode::<Done>(rank, &bytes).and_then(|done| {
                    match list.get(done.index) {
                        Some(rules) if rules.label() == done.row.code => {}
                        _ => {
                            return Err(Error::Invalid(format!(
                                "rank {rank} sent the row of {} for code number {}, which is not that code",
                                done.row.code, done.index
                            )))
                        }
                    }
                    if error.is_none() {
                        watcher.finished(done.index, done.row)?;
                        finished += 1;
                    }
                    Ok(())
                }),
                _ => Err(failure(rank, tag, &bytes)),
            };
            if let Err(e) = kept {
                error.get_or_insert(e);
            }
        }
    }

    /// A worker (rank >= 1): waits for the plan, then builds the rows of the codes rank 0
    /// sends until it says stop. Its errors go to rank 0, which reports them; the worker
    /// itself exits 0.
    pub fn work(&mut self) -> Result<i32> {
        let world = self.universe.world();
        let root = world.process_at_rank(0);
        let host = mpi::environment::processor_name().unwrap_or_default();
        let fail = |error: String| {
            let failed = Failed {
                error,
                host: host.clone(),
            };
            send(&world, 0, FAILED, &failed);
        };
        let mut wait = Backoff::new();
        let (_, tag, bytes) = wait.until(|| poll(&root));
        if tag == STOP {
            return Ok(0);
        }
        let ready = (|| -> Result<_> {
            if tag != PLAN {
                return Err(Error::Invalid(format!("expected the plan, got tag {tag}")));
            }
            let plan: Plan = decode(0, &bytes)?;
            let entry = crate::octal::find(&plan.backend)?;
            let reach = plan.until.map_or(plan.limit, |u| u.max_limit);
            if let Some(code) = &plan.largest {
                crate::octal::OctalPlan::named(
                    Rules::parse(code)?,
                    Some(entry.name),
                    reach as u64,
                )?;
            }
            let build = census::Build {
                entry,
                limit: plan.limit,
                until: plan.until,
            };
            Ok((build, Tables(plan.tables.map(Carry::new))))
        })();
        let (build, tables) = match ready {
            Ok(ready) => ready,
            Err(e) => {
                fail(e.to_string());
                // Rank 0 stops every worker once it has every answer.
                while wait.until(|| poll(&root)).1 != STOP {}
                return Ok(0);
            }
        };
        let threads = rayon::current_num_threads();
        let ready = Ready {
            threads,
            cpu: cpu_model(),
            build: git_rev(),
            host: host.clone(),
        };
        send(&world, 0, READY, &ready);
        // See WORKER_GRACE: the signal only starts the grace here.
        let _guard = SignalGuard::install()?;
        let mut signalled: Option<Instant> = None;
        let (rows, finished) = mpsc::channel::<(usize, Row)>();
        let builders = census::RowBuilders::start(build, threads, Arc::new(tables), rows);
        let mut in_flight = 0usize;
        let rank = world.rank();
        let answer = |(index, mut row): (usize, Row)| {
            // An error row says where it failed, as a refusal does.
            if let Some(e) = &mut row.error {
                *e = format!("rank {rank} on {host}: {e}");
            }
            send(&world, 0, ROW, &Done { index, row })
        };
        wait.reset();
        loop {
            if let Some(signal) = interrupted() {
                let since = *signalled.get_or_insert_with(Instant::now);
                if since.elapsed() > WORKER_GRACE {
                    // Not MPI_Finalize, which would wait for the other ranks; the rows in
                    // flight are lost, as they would be to the signal, and a resumed census
                    // builds them again.
                    std::process::exit(signal.exit_status());
                }
            }
            while let Ok(done) = finished.try_recv() {
                in_flight -= 1;
                answer(done);
            }
            match poll(&root) {
                Some((_, STOP, _)) => break,
                Some((_, CODE, bytes)) => {
                    wait.reset();
                    match decode::<Code>(0, &bytes) {
                        Ok(Code { index, code }) => {
                            in_flight += 1;
                            // Each code on one thread, as a one-process census
                            // builds its rows (QUEUED a thread wait their turn).
                            builders.build(index, code);
                        }
                        Err(e) => fail(e.to_string()),
                    }
                }
                Some((_, tag, _)) => fail(format!("unexpected message (tag {tag})")),
                None => match finished.recv_timeout(wait.next()) {
                    Ok(done) => {
                        in_flight -= 1;
                        answer(done);
                        wait.reset();
                    }
                    Err(_) => continue,
                },
            }
        }
        // Rank 0 stops a worker with codes in flight only when it gave up on them; their
        // threads end before MPI does, their rows unsent.
        for _ in 0..in_flight {
            let _ = finished.recv();
        }
        Ok(0)
    }
}

/// A worker's hooks of an until-proved census: the tables of the rows file's folder, read
/// and written where that folder is (a cluster's shared file system; rank 0 removes them).
/// A table the worker cannot write is skipped, not an error: the folder may not be on its
/// node, and then the code only loses what a stop would have kept.
struct Tables(Option<Carry>);

impl Hooks for Tables {
    fn carried(&self, rules: &Rules) -> Option<Carried> {
        self.0.as_ref()?.carried(rules)
    }

    fn checkpoint(&self, rules: &Rules, values: &[u16], seconds: f64) -> Result<()> {
        if let Some(carry) = &self.0 {
            let _ = carry.keep(rules, values, seconds, false);
        }
        Ok(())
    }
}

impl Drop for Mpi {
    /// Rank 0: stops every worker not yet stopped (a refusal, an error, the end), or, when a
    /// worker still has codes in flight (a signal stopped the census), ends the whole job
    /// with MPI_Abort rather than wait for ranks that may be dead. Then MPI ends (the
    /// universe's own drop).
    fn drop(&mut self) {
        let world = self.universe.world();
        if self.workers.iter().any(|w| w.in_flight > 0) {
            let status = interrupted().map_or(1, Signal::exit_status);
            world.abort(status);
        }
        for w in self.workers.iter().filter(|w| !w.stopped) {
            send(&world, w.rank, STOP, &());
        }
    }
}

/// Sends `message` as JSON to `rank` with `tag`.
fn send<T: Serialize>(world: &SimpleCommunicator, rank: Rank, tag: Tag, message: &T) {
    let bytes = serde_json::to_vec(message).expect("a protocol message serializes");
    world.process_at_rank(rank).send_with_tag(&bytes[..], tag);
}

/// A message waiting from `source`, received: (its rank, its tag, its bytes).
fn poll(source: &impl Source) -> Option<(Rank, Tag, Vec<u8>)> {
    let (bytes, status) = source
        .immediate_matched_probe()?
        .matched_receive_vec::<u8>();
    Some((status.source_rank(), status.tag(), bytes))
}

fn decode<T: DeserializeOwned>(rank: Rank, bytes: &[u8]) -> Result<T> {
    serde_json::from_slice(bytes).map_err(|e| {
        Error::Invalid(format!(
            "rank {rank} sent a message this build cannot read ({e}); start the same binary on every rank"
        ))
    })
}

/// The error a worker's [`FAILED`] (or any message rank 0 did not expect) stands for.
fn failure(rank: Rank, tag: Tag, bytes: &[u8]) -> Error {
    if tag != FAILED {
        return Error::Invalid(format!(
            "rank {rank} sent an unexpected message (tag {tag})"
        ));
    }
    match decode::<Failed>(rank, bytes) {
        Ok(f) => Error::Invalid(format!("rank {rank} on {}: {}", f.host, f.error)),
        Err(e) => e,
    }
}

/// The pause between two polls: short after a message (the next often follows), doubling
/// while nothing comes, up to a bound that keeps an idle process's wake-ups rare.
struct Backoff(Duration);

impl Backoff {
    const FIRST: Duration = Duration::from_micros(50);
    const MOST: Duration = Duration::from_millis(1);

    fn new() -> Backoff {
        Backoff(Backoff::FIRST)
    }

    fn reset(&mut self) {
        self.0 = Backoff::FIRST;
    }

    /// The pause to take now; the next one is twice as long.
    fn next(&mut self) -> Duration {
        let now = self.0;
        self.0 = (now * 2).min(Backoff::MOST);
        now
    }

    fn sleep(&mut self) {
        std::thread::sleep(self.next());
    }

    /// Polls `f` until it gives a value, sleeping between tries.
    fn until<T>(&mut self, mut f: impl FnMut() -> Option<T>) -> T {
        loop {
            if let Some(v) = f() {
                self.reset();
                return v;
            }
            self.sleep();
        }
    }
}
