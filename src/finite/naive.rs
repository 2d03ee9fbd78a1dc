//! `finite-naive`: the finite workload's control, each mex straight from the definition.
//!
//! Algorithm: for each n in increasing order, collect the value of every option of a heap
//! of n tokens ([`Rulebook::options`]: g(n - s) for each move s <= n) and take the least value
//! not among them ([`crate::grundy::mex`]). No window, no period: it exists to check the
//! other back-ends.
//!
//! Cost: O(N · |S|); it affords N up to [`AFFORDABLE`].
//!
//! Invariant: when n is decided, g(0..n) are final, so the options are exactly n's.

use super::Set;
use crate::base::error::Result;
use crate::cost::Model;
use crate::grundy::{mex, Builder, Rulebook};
use crate::registry::{Entry, Role};

/// The registry entry of `finite-naive`.
pub const ENTRY: Entry<dyn Builder<Set>> = Entry {
    name: "finite-naive",
    description: "control: each mex straight from the definition, the options collected per position",
    cost: "O(N·#moves); affords N <= 10^6",
    role: Role::Control,
    model: Model {
        summary: "per option step one shift-and-OR and 1/32 span load, per position the mask cleared and scanned (counted as the mask mex, a lower bound)",
        parallel: false,
        demand: super::mask_mex_demand,
    },
    kernels: &[],
    make: || Box::new(FiniteNaive),
};

/// The largest N the control is run at: a check, not a race.
pub const AFFORDABLE: usize = 1_000_000;

/// The control (see the module doc).
pub struct FiniteNaive;

impl Builder<Set> for FiniteNaive {
    fn fill(&self, rules: &Set, g: &mut [u16], from: usize) -> Result<()> {
        let (mut options, mut seen) = (Vec::new(), Vec::new());
        for n in from..g.len() {
            rules.options(g, n, &mut options);
            g[n] = mex(&options, &mut seen);
        }
        Ok(())
    }

    fn scratch_bytes(&self, rules: &Set, _limit: usize, _threads: usize) -> u64 {
        // the options of one position (2 bytes each) and the seen flags
        3 * (rules.moves().len() as u64 + 1)
    }

    fn affordable_limit(&self) -> Option<usize> {
        Some(AFFORDABLE)
    }
}

#[cfg(test)]
mod tests {
    fn values(moves: &[usize], limit: usize) -> Vec<u16> {
        super::super::control_values(moves, limit)
    }

    #[test]
    fn the_seeds_sets_give_their_published_patterns() {
        // seed 003: {1,2,3} loses at the multiples of 4, g(n) = n mod 4.
        let v = values(&[1, 2, 3], 200);
        assert!(v.iter().enumerate().all(|(n, &x)| x as usize == n % 4));
        // seed 003 and the guide: {1,3,4} repeats 0,1,0,1,2,3,2 (period 7), cold positions
        // 0, 2, 7, 9, 14, 16 up to 20.
        let v = values(&[1, 3, 4], 20);
        let pattern = [0, 1, 0, 1, 2, 3, 2];
        assert!(v.iter().enumerate().all(|(n, &x)| x == pattern[n % 7]));
        let cold: Vec<usize> = (0..=20).filter(|&n| v[n] == 0).collect();
        assert_eq!(cold, [0, 2, 7, 9, 14, 16]);
    }

    #[test]
    fn a_move_larger_than_the_heap_is_not_an_option() {
        // {2,3}, worked by hand: g(0) = g(1) = 0 (no move), g(2) = mex{g(0)} = 1,
        // g(3) = mex{g(1), g(0)} = 1, g(4) = mex{g(2), g(1)} = 2, g(5) = mex{g(3), g(2)} = 0,
        // and from there the period 5 of 0,0,1,1,2.
        let v = values(&[2, 3], 30);
        assert!(v
            .iter()
            .enumerate()
            .all(|(n, &x)| x == [0, 0, 1, 1, 2][n % 5]));
    }
}
