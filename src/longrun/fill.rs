//! A resumable fill step: the stamped mex over g[from..to), given g[..from].
//!
//! The table back-ends do not expose a resumable `fill` on this branch yet, so `solve` uses
//! this one for the `stamped` back-end when it runs through the driver (checkpoints,
//! `--load-table`), and the tests use it as the reference. It is the seed's algorithm
//! (see `crate::table::Stamped`): stamp n into `seen[g(n - s)]` for every move s <= n, the
//! first value not stamped with n is g(n). Nothing in it depends on `from` except where the
//! loop starts, which is what makes it resumable.

use crate::moves::Moves;

/// Computes g[from..g.len()] in place, given that g[..from] is finished. `max_before` is not
/// needed by this algorithm (the scratch is sized by the number of moves).
pub fn stamped_fill(moves: &Moves, g: &mut [u16], from: usize, _max_before: u16) {
    let Some(last) = g.len().checked_sub(1) else {
        return;
    };
    if from == 0 {
        g[0] = 0; // no moves from an empty heap
    }
    let moves = moves.up_to(last);
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
}
