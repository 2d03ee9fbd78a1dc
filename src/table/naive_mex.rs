//! `naive-mex`: the table control, the mex straight from the definition.
//!
//! Algorithm: for each n in increasing order, collect the values g(n - s) of every option
//! (s a move, s <= n) into a fresh set, then take the least value not in it. No stamps, no
//! blocks, no bit tricks: it exists only to check the fast back-ends, as RustFFT's `Dft`
//! checks its FFTs, and is never chosen by `auto` nor timed by the bench matrix.
//!
//! Cost: O(S(N)) set insertions plus a fresh allocation per position; it affords N up to
//! [`AFFORDABLE`].
//!
//! Invariant: when n is decided, g(0..n) are final, so the set holds exactly the option
//! values of n.

use super::one_store_a_step_and_a_mex_walk;
use crate::base::error::Result;
use crate::base::moves::Moves;
use crate::cost::Model;
use crate::grundy::Builder;
use crate::registry::{Entry, Role};
use std::collections::BTreeSet;

/// The registry entry of `naive-mex`.
pub const ENTRY: Entry<dyn Builder<Moves>> = Entry {
    name: "naive-mex",
    description: "control: the mex straight from the definition, a fresh set of option values per position",
    cost: "O(S(N)) with a set per position; affords N <= 10^5",
    role: Role::Control,
    model: Model {
        summary: "per option step 1 set insertion (counted as 1 scattered store, a lower bound) and 1/32 span load; per position g(n)+1 word ops for the mex",
        parallel: false,
        demand: one_store_a_step_and_a_mex_walk,
    },
    kernels: &[],
    make: || Box::new(NaiveMex),
};

/// The largest N the checker runs the control at (a set per position makes it many times
/// slower than `stamped`).
pub const AFFORDABLE: usize = 100_000;

/// The naive mex. See the module documentation.
pub struct NaiveMex;

impl Builder<Moves> for NaiveMex {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize) -> Result<()> {
        let moves = moves.up_to(g.len().saturating_sub(1));
        for n in from..g.len() {
            let options: BTreeSet<u16> = moves
                .iter()
                .filter(|&&s| s <= n)
                .map(|&s| g[n - s])
                .collect();
            g[n] = (0u16..)
                .find(|v| !options.contains(v))
                .expect("a mex exists");
        }
        Ok(())
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // The move list and one set of at most #moves values.
        40 * moves.up_to(limit).len() as u64
    }

    fn affordable_limit(&self) -> Option<usize> {
        Some(AFFORDABLE)
    }
}
