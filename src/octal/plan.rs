//! One octal build decided before any work ([`OctalPlan`]): the rules, the back-end, the
//! checked N and the memory, from the command's arguments; what `octal`, `sequence --octal`
//! and `census` (every code of a census, and each MPI worker) build from. It is the one plan
//! of every workload ([`crate::grundy::plan::Plan`]) with the rules typed, so its refusals
//! are those of `build` and `compare`, stated once.
//!
//! Algorithm: the back-end by name (or [`super::default_backend`]), then the plan's checks
//! (N in range, within what the back-end affords, the memory). Each refusal is one line
//! naming its flag (`--backend` or `--limit`). Cost: constant but for the memory estimate (a
//! few reads of /proc).
//!
//! Invariant: a plan that exists affords its N and fits in memory as estimated when it was
//! made; nothing later checks them again.

use super::{Builder, Kept, Rules};
use crate::base::error::{Error, Result};
use crate::grundy::plan::{self, Plan};
use crate::grundy::{Rulebook, Table};
use crate::registry::Entry;
use std::sync::Mutex;

/// A registry entry of an octal back-end.
pub type OctalEntry = &'static Entry<dyn Builder<Rules>>;

/// One octal build decided before any work (see the module doc): the rules are
/// `plan.subject`, the back-end's entry `plan.backend`.
pub type OctalPlan = Plan<Rules, OctalEntry>;

impl plan::Backend for OctalEntry {
    type Subject = Rules;

    fn name(&self) -> &'static str {
        self.name
    }

    fn affordable_limit(&self) -> Option<usize> {
        (self.make)().affordable_limit()
    }

    fn bytes_needed(&self, rules: &Rules, limit: usize, threads: usize) -> u64 {
        crate::grundy::bytes_needed(&*(self.make)(), rules, limit, threads)
    }

    fn describe(&self, rules: &Rules) -> String {
        rules.describe()
    }
}

/// The back-end named by `--backend` (`None`: the default), refused when unknown.
fn find_backend(backend: Option<&str>) -> Result<OctalEntry> {
    match backend {
        Some(name) => super::find(name).map_err(|e| Error::Invalid(format!("--backend: {e}"))),
        None => Ok(super::default_backend()),
    }
}

/// The back-end named by `--backend` (`None`: the default), refused when unknown or when it
/// does not afford N = `limit` (`--limit`), in one line naming the flag: the part of a plan
/// that does not depend on the code (a census checks it before choosing its codes).
pub fn choose_backend(backend: Option<&str>, limit: usize) -> Result<OctalEntry> {
    let entry = find_backend(backend)?;
    plan::check_affords(&entry, limit)?;
    Ok(entry)
}

impl OctalPlan {
    /// The plan of building the table of `rules` to N = `limit` (`--limit`) with the
    /// back-end named `backend` (`--backend`; `None`: the default), or its refusal.
    pub fn named(rules: Rules, backend: Option<&str>, limit: u64) -> Result<OctalPlan> {
        Plan::new(rules, find_backend(backend)?, limit)
    }

    /// [`OctalPlan::named`] but for the memory of the whole table, which it states without
    /// refusing ([`Plan::sized`]): what window mode decides from.
    pub fn named_sized(rules: Rules, backend: Option<&str>, limit: u64) -> Result<OctalPlan> {
        Plan::sized(rules, find_backend(backend)?, limit)
    }

    /// [`OctalPlan::named_sized`] for window mode only ([`Plan::sized_window`]): N up to
    /// [`crate::base::limit::MAX_WINDOW_LIMIT`].
    pub fn named_sized_window(
        rules: Rules,
        backend: Option<&str>,
        limit: u64,
    ) -> Result<OctalPlan> {
        Plan::sized_window(rules, find_backend(backend)?, limit)
    }

    /// The table the plan decided, built in one call.
    pub fn build(&self) -> Result<Table> {
        (self.backend.make)().build(&self.subject, self.limit)
    }

    /// The fill step of a long run ([`crate::grundy::Builder::fill_kept`]): what each chunk
    /// leaves for the next (`octal-block` keeps its split) is kept between the calls, which
    /// the long-run driver makes in order on one table.
    pub fn chunk_fill(&self) -> impl Fn(&mut [u16], usize, u16) -> Result<()> + Sync + '_ {
        let builder = (self.backend.make)();
        let kept: Mutex<Kept> = Mutex::new(None);
        move |g: &mut [u16], from: usize, _max: u16| {
            let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
            builder.fill_kept(&self.subject, g, from, &mut kept)
        }
    }

    /// What `auto` chose for this plan's table, read off its values `g`
    /// ([`Choice::of_table`]: the choice is a function of the rules and the prefix alone,
    /// where it stopped computing one of the values below each of its checks); None for a
    /// back-end named otherwise.
    ///
    /// [`Choice::of_table`]: super::auto::Choice::of_table
    pub fn auto_choice(&self, g: &[u16]) -> Option<super::auto::Choice> {
        (self.backend.name == super::auto::NAME)
            .then(|| super::auto::Choice::of_table(&self.subject, g))
    }

    /// True when the back-end spends about the same on every position (every octal
    /// back-end but the quadratic control), so the long run's ETA counts positions.
    pub fn per_position(&self) -> bool {
        !self.backend.is_control()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refusal_is_one_line_naming_its_flag() {
        let rules = Rules::parse("0.07").unwrap();
        let past = (super::super::naive::AFFORDABLE + 1) as u64;
        for (backend, limit, flag) in [
            (Some("no-such"), 100, "--backend"),
            (Some("octal-naive"), past, "--limit"),
        ] {
            let e = OctalPlan::named(rules.clone(), backend, limit)
                .err()
                .expect("refused")
                .to_string();
            assert!(e.contains(flag) && !e.contains('\n'), "{e}");
        }
        let plan = OctalPlan::named(rules.clone(), None, 1000).unwrap();
        assert_eq!(plan.backend.name, "auto");
        assert!(plan.memory_needed >= 2 * 1001);
        // the chunked fill keeps what it needs between chunks and ends with the one-call table
        let mut g = vec![0u16; 1001];
        let fill = plan.chunk_fill();
        for (from, to) in [(0, 300), (300, 700), (700, 1001)] {
            fill(&mut g[..to], from, 0).unwrap();
        }
        assert_eq!(g, plan.build().unwrap().values());
    }
}
