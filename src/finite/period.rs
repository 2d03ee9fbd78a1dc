//! `finite-period`: the finite workload's reference, which stops computing once a period is
//! proved and copies the rest of the table.
//!
//! Algorithm. Let s_max be the largest move and W(m) the window g(m), …, g(m + s_max - 1).
//! g(m + s_max) takes every move (s <= s_max <= m + s_max) and reads only W(m), so W(m + 1)
//! is a function of W(m) for every m >= 0; if W(i) = W(i + p), then g(n + p) = g(n) for
//! every n >= i. The windows are a deterministic sequence over a finite alphabet, so they
//! are eventually periodic, with some preperiod μ and period λ; Floyd's comparison of W(i)
//! with W(2i) then holds at the least multiple i of λ with i >= max(μ, 1), so within
//! 2(μ + λ) + s_max positions. Until then each g(n) is a mex over a mask of the values of
//! its options (one bit per value, values at most |S|); once W(i) = W(2i) holds, the rest
//! of the table is g(n) = g(n - i), copied a period at a time.
//!
//! Cost: O((μ + λ) · |S|) for the mexes, one comparison of two windows per two positions
//! (usually ended by the first value), then O(N) for the copy; on {1, 3, 4} the period is
//! proved at n = 17 and the rest is a memory copy.
//!
//! Invariant: a copy starts only after the two windows were compared value by value, so a
//! copied value is a proved one.

use super::Set;
use crate::base::error::Result;
use crate::cost::Model;
use crate::grundy::Builder;
use crate::registry::{Entry, Role};

/// The registry entry of `finite-period`.
pub const ENTRY: Entry<dyn Builder<Set>> = Entry {
    name: "finite-period",
    description: "reference: mask mex until Floyd's window comparison proves a period, then the period copied",
    cost: "O((μ+λ)·#moves + N) for preperiod μ and period λ",
    role: Role::Reference,
    model: Model {
        summary: "counted as the mask mex at every position (an upper bound: past the proof the table is copied)",
        parallel: false,
        demand: super::mask_mex_demand,
    },
    kernels: &[],
    make: || Box::new(FinitePeriod),
};

/// The reference (see the module doc).
pub struct FinitePeriod;

impl Builder<Set> for FinitePeriod {
    fn fill(&self, rules: &Set, g: &mut [u16], from: usize) -> Result<()> {
        let moves = rules.moves();
        let window = rules.largest();
        let mut mask = vec![0u64; moves.len() / 64 + 1];
        let mut n = from;
        while n < g.len() {
            mask.fill(0);
            for &s in moves.iter().take_while(|&&s| s <= n) {
                let v = g[n - s] as usize;
                mask[v / 64] |= 1 << (v % 64);
            }
            let word = mask
                .iter()
                .position(|&w| w != u64::MAX)
                .expect("a mex of |S| values is at most |S|, so a word of the mask has a zero bit");
            g[n] = (word * 64 + mask[word].trailing_ones() as usize) as u16;
            // W(i) and W(2i) are both known once n = 2i + s_max - 1
            if let Some(i) = (n + 1)
                .checked_sub(window)
                .filter(|d| d % 2 == 0)
                .map(|d| d / 2)
            {
                if i >= 1 && g[i..i + window] == g[2 * i..2 * i + window] {
                    copy_period(g, n + 1, i);
                    return Ok(());
                }
            }
            n += 1;
        }
        Ok(())
    }

    fn scratch_bytes(&self, rules: &Set, _limit: usize, _threads: usize) -> u64 {
        // the mask, a bit per possible value
        8 * (rules.moves().len() as u64 / 64 + 1)
    }
}

/// g[start..] from g(n) = g(n - period), given that g[..start] is final and periodic with
/// `period` from `start - period` on: copied a period (or what is left) at a time.
fn copy_period(g: &mut [u16], start: usize, period: usize) {
    let mut at = start;
    while at < g.len() {
        let len = period.min(g.len() - at);
        g.copy_within(at - period..at - period + len, at);
        at += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finite::control_values as control;

    fn values(moves: &[usize], limit: usize) -> Vec<u16> {
        FinitePeriod
            .build(&Set::new(moves).unwrap(), limit)
            .unwrap()
            .values()
            .to_vec()
    }

    #[test]
    fn it_agrees_with_the_control_on_every_small_n_of_small_sets() {
        for moves in [
            &[1][..],
            &[2],
            &[1, 2, 3],
            &[1, 3, 4],
            &[2, 3],
            &[3, 5, 7],
            &[1, 4, 9, 16],
            &[2, 5, 6, 11],
        ] {
            for limit in 0..80 {
                assert_eq!(
                    values(moves, limit),
                    control(moves, limit),
                    "{moves:?} at {limit}"
                );
            }
        }
    }

    #[test]
    fn a_resumed_fill_gives_the_same_table() {
        let set = Set::new(&[3, 5, 7]).unwrap();
        let whole = control(&[3, 5, 7], 500);
        for from in [0, 1, 7, 20, 300] {
            let mut g = whole.clone();
            g[from..].fill(0);
            FinitePeriod.fill(&set, &mut g, from).unwrap();
            assert_eq!(g, whole, "from {from}");
        }
    }

    #[test]
    fn the_copy_repeats_the_period() {
        let mut g = vec![0, 1, 2, 0, 0, 0, 0, 0];
        copy_period(&mut g, 3, 3);
        assert_eq!(g, [0, 1, 2, 0, 1, 2, 0, 1]);
    }

    proptest::proptest! {
        /// Random sets of up to 6 moves below 40, random N: the table is the control's.
        #[test]
        fn random_sets_agree_with_the_control(
            moves in proptest::collection::vec(1usize..40, 1..6),
            limit in 0usize..3000,
        ) {
            proptest::prop_assert_eq!(values(&moves, limit), control(&moves, limit));
        }
    }
}
