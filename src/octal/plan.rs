//! One octal build decided before any work ([`OctalPlan`]): the rules, the back-end, the
//! checked N and the memory, from the command's arguments; what `octal`, `sequence --octal`
//! and `census` (every code of a census, and each MPI worker) build from, so each refusal is
//! stated once.
//!
//! Algorithm: the back-end by name (or [`super::default_backend`]); N within
//! [`crate::base::limit::MAX_LIMIT`]; N within what the back-end affords; the table, its
//! histogram and the back-end's scratch against the available memory. Each refusal is one
//! line naming its flag (`--backend` or `--limit`). Cost: constant but for the memory
//! estimate (a few reads of /proc).
//!
//! Invariant: a plan that exists affords its N and fits in memory as estimated when it was
//! made; nothing later checks them again.

use super::{Builder, Kept, Rules};
use crate::base::error::{Error, Result};
use crate::base::limit::Limit;
use crate::grundy::Table;
use crate::registry::Entry;
use std::sync::Mutex;

/// What a refusal of N past a back-end's reach tells the user to change.
const INSTEAD: &str = "lower --limit or choose a faster --backend";

/// One octal build decided before any work (see the module doc).
pub struct OctalPlan {
    /// The game.
    pub rules: Rules,
    /// The back-end's registry entry.
    pub entry: &'static Entry<dyn Builder<Rules>>,
    /// The back-end, made.
    pub builder: Box<dyn Builder<Rules>>,
    /// N, within range and affordable by the back-end.
    pub limit: usize,
    /// Bytes the build needs on the current thread count (table, histogram, scratch).
    pub memory_needed: u64,
}

/// The back-end named by `--backend` (`None`: the default), refused when unknown or when it
/// does not afford N = `limit` (`--limit`), in one line naming the flag: the part of a plan
/// that does not depend on the code (a census checks it before choosing its codes).
pub fn choose_backend(
    backend: Option<&str>,
    limit: usize,
) -> Result<&'static Entry<dyn Builder<Rules>>> {
    let entry = match backend {
        Some(name) => super::find(name).map_err(|e| Error::Invalid(format!("--backend: {e}")))?,
        None => super::default_backend(),
    };
    crate::grundy::check_affords(
        entry.name,
        (entry.make)().affordable_limit(),
        "--limit",
        limit,
        INSTEAD,
    )?;
    Ok(entry)
}

impl OctalPlan {
    /// The plan of building the table of `rules` to N = `limit` (`--limit`) with the
    /// back-end named `backend` (`--backend`; `None`: the default), or its refusal.
    pub fn new(rules: Rules, backend: Option<&str>, limit: u64) -> Result<OctalPlan> {
        let limit = Limit::new(limit)?.get();
        let entry = choose_backend(backend, limit)?;
        let builder = (entry.make)();
        let memory_needed =
            crate::grundy::bytes_needed(&*builder, &rules, limit, rayon::current_num_threads());
        crate::base::memory::check_fits(
            memory_needed,
            crate::base::memory::available_bytes(),
            &format!(
                "the '{}' octal table of {rules} for N = {limit}",
                entry.name
            ),
        )?;
        Ok(OctalPlan {
            rules,
            entry,
            builder,
            limit,
            memory_needed,
        })
    }

    /// The table the plan decided, built in one call.
    pub fn build(&self) -> Result<Table> {
        self.builder.build(&self.rules, self.limit)
    }

    /// The fill step of a long run ([`crate::grundy::Builder::fill_kept`]): what each chunk
    /// leaves for the next (`octal-block` keeps its split) is kept between the calls, which
    /// the long-run driver makes in order on one table.
    pub fn chunk_fill(&self) -> impl Fn(&mut [u16], usize, u16) -> Result<()> + Sync + '_ {
        let kept: Mutex<Kept> = Mutex::new(None);
        move |g: &mut [u16], from: usize, _max: u16| {
            let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
            self.builder.fill_kept(&self.rules, g, from, &mut kept)
        }
    }

    /// True when the back-end spends about the same on every position (every octal
    /// back-end but the quadratic control), so the long run's ETA counts positions.
    pub fn per_position(&self) -> bool {
        !self.entry.is_control()
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
            let e = OctalPlan::new(rules.clone(), backend, limit)
                .err()
                .expect("refused")
                .to_string();
            assert!(e.contains(flag) && !e.contains('\n'), "{e}");
        }
        let plan = OctalPlan::new(rules.clone(), None, 1000).unwrap();
        assert_eq!(plan.entry.name, "octal-block");
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
