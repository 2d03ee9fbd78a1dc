//! One build decided before any work, for every workload ([`Plan`]): the game, the back-end,
//! the checked N and the memory the build needs. `build`, `compare` and `profile` plan a
//! table of any workload through the erased handles (`run::workload::BuildPlan`); `octal`,
//! `sequence --octal` and `census` plan an octal table with its rules typed
//! (`octal::OctalPlan`). Both are this one type, so each refusal is stated once.
//!
//! Algorithm: N within [`crate::base::limit::MAX_LIMIT`] (an octal build in window mode:
//! [`crate::base::limit::MAX_WINDOW_LIMIT`]); N within what the back-end affords
//! ([`check_affords`]); the table, its histogram and the back-end's scratch on the current
//! threads against the available memory. A refusal is one line: past the range or the
//! back-end's reach it names `--limit` (and `--backend`, the other way out), and past the
//! memory it names the table and both sizes. Cost: constant but for the memory estimate (a
//! few reads of /proc).
//!
//! Invariant: a plan that exists affords its N and fits in memory as estimated when it was
//! made; nothing later checks them again.

use crate::base::error::Result;
use crate::base::limit::Limit;
use crate::base::memory;

/// What a refusal of N past a back-end's reach tells the user to change.
pub const INSTEAD: &str = "lower --limit or choose a faster --backend";

/// A back-end as a plan reads it, typed (a registry entry of one workload) or erased (the
/// instruments' handle): its name, the N it affords, and the bytes a build needs.
pub trait Backend {
    /// The game it builds: the rules, typed or erased.
    type Subject;
    /// Its registry name.
    fn name(&self) -> &'static str;
    /// The largest N it affords, if it is limited (the quadratic controls).
    fn affordable_limit(&self) -> Option<usize>;
    /// Bytes a build of `subject` to N = `limit` on `threads` threads needs: the u16 table,
    /// its histogram and the back-end's scratch ([`super::bytes_needed`]).
    fn bytes_needed(&self, subject: &Self::Subject, limit: usize, threads: usize) -> u64;
    /// The game in words, for the memory refusal (`octal game 0.6`).
    fn describe(&self, subject: &Self::Subject) -> String;
}

/// One build decided before any work (see the module doc): `S` the game, `B` the back-end.
#[derive(Debug, Clone)]
pub struct Plan<S, B> {
    /// The game.
    pub subject: S,
    /// The back-end.
    pub backend: B,
    /// N, within range and affordable by the back-end.
    pub limit: usize,
    /// Bytes the build needs on the current thread count (table, histogram, scratch).
    pub memory_needed: u64,
}

/// Refuses, before any work, `backend` at N = `limit` when it is a control past what it
/// affords, in the one line every plan gives (naming `--limit` and `--backend`).
pub fn check_affords<B: Backend>(backend: &B, limit: usize) -> Result<()> {
    super::check_affords(
        backend.name(),
        backend.affordable_limit(),
        "--limit",
        limit,
        INSTEAD,
    )
}

impl<S, B: Backend<Subject = S>> Plan<S, B> {
    /// The plan of building `subject`'s table to N = `limit` (`--limit`) with `backend`, or
    /// its refusal.
    pub fn new(subject: S, backend: B, limit: u64) -> Result<Plan<S, B>> {
        let plan = Plan::sized(subject, backend, limit)?;
        plan.check_memory()?;
        Ok(plan)
    }

    /// [`Plan::new`] but for the memory, which it states without refusing: what a caller
    /// that can build otherwise (an octal build in window mode) decides from.
    pub fn sized(subject: S, backend: B, limit: u64) -> Result<Plan<S, B>> {
        Plan::sized_to(subject, backend, Limit::new(limit)?.get())
    }

    /// [`Plan::sized`] for a build that never holds the whole table (an octal build in
    /// window mode): N up to [`crate::base::limit::MAX_WINDOW_LIMIT`]. The memory it states
    /// is still the whole table's, which such a build does not take.
    pub fn sized_window(subject: S, backend: B, limit: u64) -> Result<Plan<S, B>> {
        Plan::sized_to(subject, backend, crate::base::limit::window_limit(limit)?)
    }

    /// The plan of a checked N.
    fn sized_to(subject: S, backend: B, limit: usize) -> Result<Plan<S, B>> {
        check_affords(&backend, limit)?;
        let memory_needed = backend.bytes_needed(&subject, limit, rayon::current_num_threads());
        Ok(Plan {
            subject,
            backend,
            limit,
            memory_needed,
        })
    }

    /// Refuses the plan when its table and scratch would not fit in the memory available.
    pub fn check_memory(&self) -> Result<()> {
        memory::check_fits(
            self.memory_needed,
            memory::available_bytes(),
            &format!(
                "the '{}' table of {} for N = {}",
                self.backend.name(),
                self.backend.describe(&self.subject),
                self.limit
            ),
        )
    }
}
