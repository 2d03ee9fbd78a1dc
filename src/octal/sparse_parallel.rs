//! `octal-sparse-parallel`: the sparse-space method on two threads, each deciding every
//! other heap while the other finishes its predecessor.
//!
//! Algorithm: the rare/common split of [`super::method::rare_common`], as `octal-sparse`. Heap n
//! reads g(n - 1) in few options: the one-heap move of 1 token (digit d1 with bit 2) and,
//! when a split may remove no tokens (Grundy's game), the split pair (1, n - 1); every
//! other option reads g[..n - 1]. So thread t decides the heaps n = from + t, from + t + 2,
//! ...: as soon as g[..n - 1] is final it marks every option that does not read g(n - 1),
//! runs the enumeration over the rare positions and the early-stopping sweep, and settles a
//! first mex; then it waits for g(n - 1) from the other thread, marks the late options and
//! settles again, which only continues what the first settle proved
//! ([`super::method::rare_common::Search`]). The heavy part of heap n overlaps the late part of
//! heap n - 1.
//!
//! Each thread keeps its own split state (mask, rare positions, histogram), recording the
//! finished values in order and choosing its mask at the end of the prefix and at each
//! doubling, as `octal-sparse` does; the two may pick their masks at different moments,
//! which changes nothing but speed, since the method is exact for any mask.
//!
//! Cost: as `octal-sparse` in steps, divided over the two threads, plus one hand-over
//! between them per heap (a spin on an atomic counter, [`super::method::published::Published`]).
//! With one rayon thread (`--threads 1`) it runs the same loop on one thread, heap after
//! heap.
//!
//! Invariant: when a thread publishes g(n), every option of n has been marked (those that
//! read g[..n - 1] in the first pass, those that read g(n - 1) in the late one) and the
//! settle saw them all, so g(n) is the mex of all its options: the table equals
//! `octal-sparse`'s.

use super::method::published::Published;
use super::method::rare_common::{Mask, RareCommon, Search, PREFIX};
use super::{Builder, Rules};
use crate::base::error::Result;
use crate::cost::Model;
use crate::registry::{Entry, Role};

/// The registry entry of `octal-sparse-parallel`.
pub const ENTRY: Entry<dyn Builder<Rules>> = Entry {
    name: "octal-sparse-parallel",
    description: "octal-sparse on two threads: each decides every other heap, the options that read g(n - 1) marked last, after the other thread publishes it; slower than octal-sparse where few positions are rare (a hand-over then costs more than a heap)",
    cost: "O(N * R + R * N) pair steps over 2 threads (R = rare positions) plus one hand-over per heap",
    role: Role::Fast,
    model: Model {
        summary: "on 2 threads: per position g(n)+1 word ops for the candidate walk, per rare pair step 1 scattered store (a lower bound: the early-stopping sweeps are left out)",
        parallel: true,
        demand: super::method::rare_common::candidate_walk_and_rare_pairs,
    },
    kernels: &[],
    make: || Box::new(OctalSparseParallel),
};

/// Fewer heaps than this are decided on one thread (the hand-over would cost more).
pub const MIN_PARALLEL: usize = 64;

/// The two-thread sparse-space method (see the module doc).
pub struct OctalSparseParallel;

impl Builder<Rules> for OctalSparseParallel {
    fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
        fill_with(rules, g, from, Choice::DEFAULT)
    }

    fn scratch_bytes(&self, _rules: &Rules, limit: usize, _threads: usize) -> u64 {
        // per thread: the rare list (at most every position), the histogram (two rows) and
        // the stamps (one entry per value, at most 2^16 each), the split list
        2 * (8 * (limit as u64 + 1) + 3 * 8 * (1 << 16) + 1024)
    }
}

/// When the mask is chosen: after `prefix` values (then at each doubling), and whether the
/// best one is taken even when it leaves many positions rare (the tests, on small tables).
#[derive(Debug, Clone, Copy)]
struct Choice {
    prefix: usize,
    always_mask: bool,
}

impl Choice {
    /// The registry's: after [`PREFIX`] values, only a sparse mask.
    const DEFAULT: Choice = Choice {
        prefix: PREFIX,
        always_mask: false,
    };
}

/// Fills g[from..] as [`Builder::fill`] does, the mask chosen as `choice` says.
fn fill_with(rules: &Rules, g: &mut [u16], from: usize, choice: Choice) -> Result<()> {
    let len = g.len();
    let shared = Published::new(g, from);
    if rayon::current_num_threads() < 2 || len - from < MIN_PARALLEL {
        return decide_every(rules, &shared, from, 1, choice);
    }
    std::thread::scope(|scope| {
        let other = scope.spawn(|| decide_every(rules, &shared, from + 1, 2, choice));
        let mine = decide_every(rules, &shared, from, 2, choice);
        let theirs = other
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        mine.and(theirs)
    })
}

/// Abandons the shared run when its thread unwinds, so the other thread stops waiting.
struct AbandonOnPanic<'s, 'a>(&'s Published<'a>);

impl Drop for AbandonOnPanic<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abandon();
        }
    }
}

/// Decides the heaps first, first + step, ... of `shared` (step 1: every heap, alone; step
/// 2: every other heap, beside a thread doing the rest).
fn decide_every(
    rules: &Rules,
    shared: &Published,
    first: usize,
    step: usize,
    choice: Choice,
) -> Result<()> {
    let _guard = AbandonOnPanic(shared);
    let mut s = RareCommon::new(rules, Mask::NONE);
    let mut next_choice = choice.prefix.max(1);
    let mut n = first;
    while n < shared.len() {
        // g[..n - 1] final: every option but the late ones can be marked.
        let Some(g) = shared.wait_for(n.saturating_sub(1)) else {
            return Ok(()); // the other thread failed and reports why
        };
        let known = g.len().min(n);
        while s.recorded() < known {
            if s.recorded() >= next_choice {
                s.rechoose_mask(g, choice.always_mask);
                next_choice = 2 * s.recorded();
            }
            s.record(g[s.recorded()]);
        }
        s.mark_options(g, n, known);
        let mut search = Search::default();
        let mut value = s.settle(g, n, known, &mut search);
        if value.is_ok() && known < n {
            let Some(g) = shared.wait_for(n) else {
                return Ok(());
            };
            s.mark_late(g, n, known);
            value = s.settle(g, n, n, &mut search);
        }
        match value {
            Ok(v) => shared.publish(n, v),
            Err(e) => {
                shared.abandon();
                return Err(e);
            }
        }
        n += step;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::octal::control_values as control;

    fn on_two_threads(rules: &Rules, g: &mut [u16], from: usize) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| OctalSparseParallel.fill(rules, g, from))
            .unwrap();
    }

    #[test]
    fn two_threads_give_the_controls_table_past_the_prefix() {
        // Officers (a late one-heap option at every heap), Grundy's game (a late split pair
        // too), 0.137 (no sparse space: M stays 0), 4.07 (d0 = 4).
        for code in ["0.6", "grundy", "0.137", "4.07", "0.4"] {
            let want = control(code, 9000);
            let mut g = vec![0u16; 9001];
            on_two_threads(&Rules::parse(code).unwrap(), &mut g, 0);
            assert_eq!(g, want, "{code}");
        }
    }

    #[test]
    fn small_prefixes_give_the_controls_table_on_two_threads() {
        // The mask chosen after a few values and taken however many it leaves rare: the
        // split of either kind on small tables (.127 and 0.6 admit the second kind, 0.77
        // does not), with the late options of the two threads.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for code in ["0.127", "0.6", "grundy", "4.07", "0.77", "0.4", "0.1337"] {
            let want = control(code, 900);
            for prefix in [1, 8, 33] {
                let mut g = vec![0u16; 901];
                let choice = Choice {
                    prefix,
                    always_mask: true,
                };
                pool.install(|| fill_with(&Rules::parse(code).unwrap(), &mut g, 0, choice))
                    .unwrap();
                assert_eq!(g, want, "{code}, prefix {prefix}");
            }
        }
    }

    #[test]
    fn a_fill_from_the_middle_finishes_the_same_table() {
        let rules = Rules::parse("0.6").unwrap();
        let want = control("0.6", 6000);
        for from in [4999, 5000] {
            let mut g = want.clone();
            g[from..].fill(0);
            on_two_threads(&rules, &mut g, from);
            assert_eq!(g, want, "from {from}");
        }
    }

    #[test]
    fn subtract_one_two_or_three_is_n_mod_4_on_two_threads() {
        // 0.333: a closed form no back-end computes (g(n) = n mod 4), one-heap moves only.
        let mut g = vec![0u16; 600];
        on_two_threads(&Rules::parse("0.333").unwrap(), &mut g, 0);
        assert!(g.iter().enumerate().all(|(n, &v)| v as usize == n % 4));
    }
}
