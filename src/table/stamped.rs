//! `stamped`: the plain stamped mex, kept as the baseline every faster back-end is measured
//! against and as the stage's reference beyond the naive control.
//!
//! Algorithm: for each n in increasing order, write n into `seen[g(n - s)]` for every move s <= n, then walk v up from 0 while
//! `seen[v] == n`; the first v not stamped with n is the mex, g(n).
//!
//! Cost: one stamp per option, S(N) = sum over n of #{s <= n} steps (for the squares
//! about (2/3)·N^1.5), plus one test per unit of value in the mex walks.
//!
//! Invariant: `seen[v] == n` exactly when some option of n has value v; stamping with n
//! instead of clearing flags means no pass is spent resetting `seen` between positions.
//! `seen` has one slot more than the number of moves, the largest possible mex.

use super::one_store_a_step_and_a_mex_walk;
use crate::base::error::Result;
use crate::base::moves::Moves;
use crate::cost::Model;
use crate::grundy::Builder;
use crate::registry::{Entry, Role};

/// The registry entry of `stamped`, the stage's reference.
pub const ENTRY: Entry<dyn Builder<Moves>> = Entry {
    name: "stamped",
    description: "stamp n into seen[g(n-s)] for every move s, walk up from 0 (the reference)",
    cost: "O(S(N)), S(N) = option steps ~ (2/3) N^1.5",
    role: Role::Reference,
    model: Model {
        summary: "per option step 1 stamp store into seen[g(n-s)] and 1/32 span load (a move's options of 32 consecutive n share one 64-byte line); per position g(n)+1 compares for the mex walk",
        parallel: false,
        demand: one_store_a_step_and_a_mex_walk,
    },
    kernels: &[],
    make: || Box::new(Stamped),
};

/// The stamped mex. See the module documentation.
pub struct Stamped;

impl Builder<Moves> for Stamped {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize) -> Result<()> {
        let moves = moves.up_to(g.len().saturating_sub(1));
        // g(0) = 0 (no move from 0), set first: the loop reads it as an option of every
        // n that is a move, and the buffer may hold anything before `from`'s fill.
        if from == 0 && !g.is_empty() {
            g[0] = 0;
        }
        // usize::MAX never equals a position, so no slot starts out stamped.
        let mut seen = vec![usize::MAX; moves.len() + 2];
        for n in from.max(1)..g.len() {
            for &s in moves.iter().take_while(|&&s| s <= n) {
                seen[g[n - s] as usize] = n;
            }
            let mut v = 0usize;
            while seen[v] == n {
                v += 1;
            }
            g[n] = v as u16;
        }
        Ok(())
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // The move list and `seen`, a usize each.
        16 * (moves.up_to(limit).len() as u64 + 2)
    }
}
