//! `fixture-mex`: a test fixture, registered only in test builds (the `testing` feature), that
//! shows a back-end reaches everything through the registry entry alone (`tests/contract.rs`).
//!
//! Algorithm: the plain mex, written differently from `stamped` and `naive-mex`: for each n in
//! increasing order, set `marked[g(n - s)]` for every move s <= n, take the first unmarked
//! value, then clear exactly the flags it set (so `marked` is all false between positions).
//!
//! Cost: two passes over the options per position, O(S(N)); scratch: the move list and
//! #moves + 2 flags.
//!
//! Invariant: `marked` is all false when a position starts, so after the marking pass it
//! holds exactly the option values of n; the mex is at most #moves, inside `marked`.

use super::one_store_a_step_and_a_mex_walk;
use crate::base::error::Result;
use crate::base::moves::Moves;
use crate::cost::Model;
use crate::grundy::Builder;
use crate::registry::{Entry, Role};

/// The registry entry of `fixture-mex` (test builds only).
pub const ENTRY: Entry<dyn Builder<Moves>> = Entry {
    name: "fixture-mex",
    description: "test fixture: mark each option value in a flag array, take the first unmarked, clear the marks",
    cost: "O(S(N))",
    role: Role::Fast,
    model: Model {
        summary: "per option step 2 flag stores (mark, clear) counted as 1 scattered store and 1/32 span load; per position g(n)+1 flag tests",
        parallel: false,
        demand: one_store_a_step_and_a_mex_walk,
    },
    kernels: &[],
    make: || Box::new(FixtureMex),
};

/// The mark-and-clear mex. See the module documentation.
pub struct FixtureMex;

impl Builder<Moves> for FixtureMex {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize) -> Result<()> {
        let moves = moves.up_to(g.len().saturating_sub(1));
        let mut marked = vec![false; moves.len() + 2];
        for n in from..g.len() {
            let options = &moves[..moves.partition_point(|&s| s <= n)];
            for &s in options {
                marked[g[n - s] as usize] = true;
            }
            g[n] = marked.iter().position(|&m| !m).expect("a mex exists") as u16;
            for &s in options {
                marked[g[n - s] as usize] = false;
            }
        }
        Ok(())
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // The move list (a usize each) and the flags.
        let m = moves.up_to(limit).len() as u64;
        8 * m + m + 2
    }
}
