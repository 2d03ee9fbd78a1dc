//! A join for pipelines that meet thousands of times a second: the caller runs one closure
//! while worker threads that never sleep run another, and the join returns when all are
//! done.
//!
//! Why not `rayon::join`: a rayon worker with nothing to do goes to sleep, and a join then
//! waits for the operating system to wake it, at its start (the job is stolen late) and often
//! at its end (the caller sleeps on the latch). That costs tens of microseconds a join on a
//! virtual machine, which is a tenth of a block of `octal-block` (results/octal/octal.md, stop 38).
//! The workers here spin on an atomic counter between jobs instead (then yield, then nap
//! after a long idle stretch, so a pool left idle does not keep a core busy for ever).
//!
//! Algorithm: [`with_spin_pool`] starts `workers` scoped threads and hands the caller a
//! [`SpinPool`]. [`SpinPool::join`] posts a reference to `b` in a slot, sets the count of
//! workers still running to `workers` and advances the job counter (release); each worker
//! that sees the counter advance (acquire) runs `b` once and counts itself out (release).
//! The caller runs `a`, then waits until the count is zero (acquire), also when `a`
//! panics, before `b` can go out of scope.
//!
//! Cost: a join is a mutex lock, two atomic stores and a spin; the workers start within
//! a fraction of a microsecond while they spin.
//!
//! Invariant: the job slot holds the current `b` from its post until every worker has
//! counted itself out; a worker runs each posted job exactly once (it cannot miss one: the
//! next post waits for its count), so `b` is never called after `join` returns.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A posted job: `b` of the current [`SpinPool::join`], its lifetime erased.
#[derive(Clone, Copy)]
struct JobRef(*const (dyn Fn() + Sync));

// SAFETY: the closure is `Sync`, so calling it from another thread through a shared
// reference is sound; the pointer is only dereferenced while the join that posted it waits.
unsafe impl Send for JobRef {}

/// What the caller and the workers share.
struct Shared {
    /// Advanced by every post.
    posted: AtomicUsize,
    /// Workers that have not yet finished the current job.
    running: AtomicUsize,
    job: Mutex<Option<JobRef>>,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    stop: AtomicBool,
}

/// The workers of [`with_spin_pool`]; see the module doc.
pub struct SpinPool {
    shared: Shared,
    workers: usize,
}

/// Idle spins of a waiting thread before it yields instead (about tens of microseconds).
const SPINS: u32 = 1 << 12;

/// A worker idle this long naps ([`NAP`]) between looks at the job counter, so that a pool
/// whose caller does long serial work leaves the core free.
const NAP_AFTER: Duration = Duration::from_millis(20);

/// The nap of a long-idle worker.
const NAP: Duration = Duration::from_micros(200);

/// Runs `f` with a pool of `workers` spinning threads (none: every join runs `b` on the
/// caller, after `a`), and stops them when `f` returns.
pub fn with_spin_pool<R>(workers: usize, f: impl FnOnce(&SpinPool) -> R) -> R {
    let pool = SpinPool {
        shared: Shared {
            posted: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            job: Mutex::new(None),
            panic: Mutex::new(None),
            stop: AtomicBool::new(false),
        },
        workers,
    };
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| pool.serve());
        }
        // the workers stop when `f` returns or unwinds
        struct Stop<'p>(&'p AtomicBool);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Release);
            }
        }
        let _stop = Stop(&pool.shared.stop);
        f(&pool)
    })
}

impl SpinPool {
    /// The worker threads (not counting the caller).
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Runs `a` on this thread and `b` once on every worker, and returns `a`'s result when
    /// all have finished. A panic in `a` or in a `b` is raised here, after every worker is
    /// done with `b`. With no workers, `b` runs here after `a`.
    pub fn join<RA>(&self, a: impl FnOnce() -> RA, b: impl Fn() + Sync) -> RA {
        if self.workers == 0 {
            let ra = a();
            b();
            return ra;
        }
        let b: &(dyn Fn() + Sync) = &b;
        // SAFETY: only the lifetime changes (the fat pointer's layout does not); the
        // pointer is dereferenced by the workers only while `running > 0`, and this
        // function does not return or unwind before `running` is 0 (the guard below).
        let job = JobRef(unsafe {
            std::mem::transmute::<*const (dyn Fn() + Sync + '_), *const (dyn Fn() + Sync + 'static)>(
                b,
            )
        });
        let shared = &self.shared;
        *shared.job.lock().unwrap_or_else(|e| e.into_inner()) = Some(job);
        shared.running.store(self.workers, Ordering::Release);
        shared.posted.fetch_add(1, Ordering::Release);
        struct Wait<'s>(&'s Shared);
        impl Drop for Wait<'_> {
            fn drop(&mut self) {
                let mut spins = 0;
                while self.0.running.load(Ordering::Acquire) != 0 {
                    backoff(&mut spins);
                }
                *self.0.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
            }
        }
        let wait = Wait(shared);
        let ra = a();
        drop(wait);
        if let Some(panic) = shared
            .panic
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            resume_unwind(panic);
        }
        ra
    }

    /// A worker's loop: wait for a post (or the stop), run the job, count out.
    fn serve(&self) {
        let shared = &self.shared;
        let mut seen = 0;
        loop {
            let mut spins = 0;
            let idle = Instant::now();
            loop {
                if shared.stop.load(Ordering::Acquire) {
                    return;
                }
                let posted = shared.posted.load(Ordering::Acquire);
                if posted != seen {
                    seen = posted;
                    break;
                }
                if spins > SPINS && idle.elapsed() > NAP_AFTER {
                    std::thread::sleep(NAP);
                } else {
                    backoff(&mut spins);
                }
            }
            let job = shared
                .job
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .expect("a posted job stays in its slot until every worker has run it");
            // SAFETY: the join that posted `job` waits for this worker's count below before
            // its closure can go out of scope (see `join`).
            let run = catch_unwind(AssertUnwindSafe(|| unsafe { (*job.0)() }));
            if let Err(panic) = run {
                *shared.panic.lock().unwrap_or_else(|e| e.into_inner()) = Some(panic);
            }
            shared.running.fetch_sub(1, Ordering::Release);
        }
    }
}

/// One step of a wait: a spin hint for the first [`SPINS`] steps, then a yield.
#[inline]
fn backoff(spins: &mut u32) {
    if *spins < SPINS {
        *spins += 1;
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_worker_runs_each_job_once_and_the_caller_sees_its_writes() {
        for workers in [0, 1, 3] {
            with_spin_pool(workers, |pool| {
                let count = AtomicUsize::new(0);
                for round in 0..2_000usize {
                    let local = [round; 4];
                    let got = pool.join(
                        || local[0] * 2,
                        || {
                            count.fetch_add(local[3] + 1, Ordering::Relaxed);
                        },
                    );
                    assert_eq!(got, 2 * round);
                    // with no workers, b ran once on the caller
                    let times = workers.max(1);
                    let want: usize = (0..=round).map(|r| (r + 1) * times).sum();
                    assert_eq!(count.load(Ordering::Relaxed), want, "round {round}");
                }
            });
        }
    }

    #[test]
    fn work_shared_by_a_counter_is_done_once_in_all() {
        with_spin_pool(1, |pool| {
            let cells: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
            let next = AtomicUsize::new(0);
            let work = || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(cell) = cells.get(i) else { return };
                cell.fetch_add(1, Ordering::Relaxed);
            };
            pool.join(work, work);
            assert!(cells.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        });
    }

    #[test]
    fn a_panic_in_a_worker_reaches_the_caller_after_the_join() {
        let caught = catch_unwind(AssertUnwindSafe(|| {
            with_spin_pool(2, |pool| pool.join(|| 1, || panic!("worker")))
        }));
        let message = caught.expect_err("the worker's panic is raised in the caller");
        assert_eq!(message.downcast_ref::<&str>(), Some(&"worker"));
    }

    #[test]
    fn a_panic_in_the_caller_waits_for_the_workers() {
        let done = AtomicUsize::new(0);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            with_spin_pool(1, |pool| {
                pool.join(
                    || panic!("caller"),
                    || {
                        std::thread::sleep(Duration::from_millis(20));
                        done.fetch_add(1, Ordering::Relaxed);
                    },
                )
            })
        }));
        assert!(caught.is_err());
        assert_eq!(done.load(Ordering::Relaxed), 1);
    }
}
