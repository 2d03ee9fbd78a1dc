//! A table filled in order by several threads, each reading only the finished prefix: the
//! one place the octal back-ends share values between threads without a lock.
//!
//! [`Published`] borrows the table mutably for its lifetime. Position `done` is the next to
//! be written; [`Published::publish`] claims it (one caller only, by compare-and-swap),
//! writes the value and then advances `done` with release ordering. [`Published::prefix`]
//! loads `done` with acquire ordering and returns the finished values g[..done] as a shared
//! slice. A slice handed out never overlaps a position written after it was taken, since
//! writes happen only at `done` or beyond: that is the whole safety argument of the one
//! `unsafe` block pair below.
//!
//! Threads that wait for a position ([`Published::wait_for`]) spin briefly, then yield, and
//! return `None` once any thread has [`Published::abandon`]ed the run (an error on one
//! thread must not leave the other waiting forever).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A table written in position order, readable by every thread up to the written prefix.
pub struct Published<'a> {
    values: *mut u16,
    len: usize,
    /// The next position to be claimed by a writer.
    claimed: AtomicUsize,
    /// g[..done] are written and final.
    done: AtomicUsize,
    abandoned: AtomicBool,
    _table: PhantomData<&'a mut [u16]>,
}

// SAFETY: the raw pointer is only read below `done` (published with release, read with
// acquire) and only written at the one position a writer claimed, which no reader can see
// yet; so sharing between threads is race-free.
unsafe impl Send for Published<'_> {}
unsafe impl Sync for Published<'_> {}

impl<'a> Published<'a> {
    /// Shares `g`, whose first `done` values are final.
    pub fn new(g: &'a mut [u16], done: usize) -> Published<'a> {
        assert!(done <= g.len(), "done {done} past the table's {}", g.len());
        Published {
            values: g.as_mut_ptr(),
            len: g.len(),
            claimed: AtomicUsize::new(done),
            done: AtomicUsize::new(done),
            abandoned: AtomicBool::new(false),
            _table: PhantomData,
        }
    }

    /// The table's length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an empty table.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The finished values g[..done], as of now.
    pub fn prefix(&self) -> &[u16] {
        let done = self.done.load(Ordering::Acquire);
        // SAFETY: g[..done] were written before `done` was released and are never written
        // again (positions are claimed once, in order); the borrow of the table lasts 'a.
        unsafe { std::slice::from_raw_parts(self.values, done) }
    }

    /// Writes g(n) = v. Panics unless n is the next position (each is written once, in
    /// order, by one caller).
    pub fn publish(&self, n: usize, v: u16) {
        assert!(n < self.len, "position {n} past the table's {}", self.len);
        let claimed = self
            .claimed
            .compare_exchange(n, n + 1, Ordering::AcqRel, Ordering::Acquire);
        assert!(
            claimed.is_ok(),
            "position {n} published out of order (next is {})",
            self.done.load(Ordering::Acquire)
        );
        // Positions are finished in order: if n - 1 is claimed but not yet written, wait for
        // its writer (callers normally wait for g(n - 1) first, so this does not spin).
        while self.done.load(Ordering::Acquire) != n {
            std::hint::spin_loop();
        }
        // SAFETY: n < len, and this caller alone claimed n; no slice from `prefix` covers it
        // (done = n).
        unsafe { self.values.add(n).write(v) };
        self.done.store(n + 1, Ordering::Release);
    }

    /// Waits until g[..len] are final and returns the finished prefix (at least `len`
    /// long), or `None` once the run is abandoned.
    pub fn wait_for(&self, len: usize) -> Option<&[u16]> {
        let mut spins = 0u32;
        loop {
            if self.abandoned.load(Ordering::Acquire) {
                return None;
            }
            if self.done.load(Ordering::Acquire) >= len {
                return Some(self.prefix());
            }
            spins += 1;
            if spins < 1 << 10 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Marks the run abandoned: every [`Published::wait_for`] returns `None` from now on.
    pub fn abandon(&self) {
        self.abandoned.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_threads_alternating_build_the_same_prefix_sums() {
        // g(n) = g(n - 1) + 1 mod 2^16, written by two threads taking turns: each needs the
        // other's last value, so a lost or torn publication shows as a wrong value.
        let mut g = vec![0u16; 20_001];
        g[0] = 7;
        let shared = Published::new(&mut g, 1);
        std::thread::scope(|s| {
            for parity in [1usize, 0] {
                let shared = &shared;
                s.spawn(move || {
                    let mut n = if parity == 1 { 1 } else { 2 };
                    while n < shared.len() {
                        let done = shared.wait_for(n).expect("not abandoned");
                        shared.publish(n, done[n - 1].wrapping_add(1));
                        n += 2;
                    }
                });
            }
        });
        let want: Vec<u16> = (0..20_001u32).map(|n| (7 + n) as u16).collect();
        assert_eq!(g, want);
    }

    #[test]
    #[should_panic(expected = "out of order")]
    fn a_position_published_twice_is_refused() {
        let mut g = vec![0u16; 4];
        let shared = Published::new(&mut g, 0);
        shared.publish(0, 1);
        shared.publish(0, 2);
    }

    #[test]
    fn an_abandoned_run_wakes_the_waiters() {
        let mut g = vec![0u16; 4];
        let shared = Published::new(&mut g, 1);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| shared.wait_for(3).is_none());
            shared.abandon();
            assert!(waiter.join().unwrap());
        });
        assert_eq!(shared.prefix().len(), 1);
    }
}
