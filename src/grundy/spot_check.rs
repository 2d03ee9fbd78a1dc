//! A loaded table is checked against the rules before it is used: a file whose checksum is
//! right can still hold wrong values (an older build's bug, another tool's file), and a wrong
//! value would give a wrong answer in silence. This is the check of every workload
//! ([`Rulebook::first_wrong`]'s default), read from the rules alone: g(n) recomputed by the
//! definition ([`Rulebook::options`]) from the file's own values at sampled positions and
//! compared, within a fixed budget of option steps ([`Rulebook::option_steps`]).
//!
//! The mex of one position is found with a generation-stamped array of 2^16 entries (no
//! clearing between positions). A position n costs its options, S(n) - S(n - 1) steps, so
//! the positions are chosen by cost: every position from 0 while the steps stay within
//! [`PREFIX_BUDGET`] (at most [`FULL_PREFIX`] positions), then one random position in each
//! of k equal strata of the rest, k = [`SAMPLE_BUDGET`] / (the cost of the last position),
//! clamped to [`MIN_STRATA`]..=[`STRATA`], then the last position. For an octal game that is
//! about 10^8 steps at most for N <= 10^6 (a tenth of a second), and 16 positions of n/2
//! steps past that: at N = 10^8 about 10^9 steps, against the hours the table cost. Like
//! every sample it cannot prove a table right; it finds any wrong value in the prefix, and a
//! wrong region of more than 1/k of the rest with certainty. The invariant it tests is
//! local, so it holds for a checkpoint's prefix as for a whole table.

use super::Rulebook;
use crate::base::rng::SplitMix64;

/// Positions checked one by one from 0, at most.
pub const FULL_PREFIX: usize = 1 << 16;
/// Strata past the prefix, one random position each, at most.
pub const STRATA: usize = 2048;
/// Option steps the prefix may spend (every position from 0 until this is reached).
pub const PREFIX_BUDGET: u128 = 1 << 25;
/// Option steps the strata may spend, by the cost of the last position.
pub const SAMPLE_BUDGET: u128 = 1 << 26;
/// The fewest strata, however large the table.
pub const MIN_STRATA: usize = 16;

/// The options of heap `n`: what checking it costs.
fn options_of<R: Rulebook>(rules: &R, n: usize) -> u128 {
    let below = if n == 0 { 0 } else { rules.option_steps(n - 1) };
    rules.option_steps(n) - below
}

/// The mex of heap `n`'s options, their values read from `g` (which holds g(0..n) at least).
struct Mex {
    stamp: Vec<u32>,
    generation: u32,
    options: Vec<u16>,
}

impl Mex {
    fn new() -> Mex {
        Mex {
            stamp: vec![0; 1 << 16],
            generation: 0,
            options: Vec::new(),
        }
    }

    fn of<R: Rulebook>(&mut self, rules: &R, g: &[u16], n: usize) -> u16 {
        self.generation += 1;
        let gen = self.generation;
        rules.options(g, n, &mut self.options);
        for &v in &self.options {
            self.stamp[v as usize] = gen;
        }
        // At most 2^16 - 1 options can be marked below a mex of 2^16 - 1; a mex past u16 is
        // not stored in any table, so the search stops at u16::MAX.
        (0..u16::MAX)
            .find(|&v| self.stamp[v as usize] != gen)
            .unwrap_or(u16::MAX)
    }
}

/// The first checked position whose value is not the mex of its options in `values` (which
/// are g(0..values.len())), with the value found and the value the rules give; `None` when
/// every checked position agrees.
pub fn first_wrong<R: Rulebook>(rules: &R, values: &[u16]) -> Option<(usize, u16, u16)> {
    let done = values.len();
    if done == 0 {
        return None;
    }
    let mut mex = Mex::new();
    let mut check = |n: usize| {
        let want = mex.of(rules, values, n);
        (want != values[n]).then_some((n, values[n], want))
    };
    let mut spent = 0u128;
    let mut prefix = 0;
    while prefix < done.min(FULL_PREFIX) && spent <= PREFIX_BUDGET {
        if let Some(wrong) = check(prefix) {
            return Some(wrong);
        }
        spent += options_of(rules, prefix);
        prefix += 1;
    }
    let per_position = options_of(rules, done.saturating_sub(1)).max(1);
    let strata = ((SAMPLE_BUDGET / per_position) as usize).clamp(MIN_STRATA, STRATA);
    strata_then_last(prefix, done, strata, 0x0c7a_15ee_d000_0001, check)
}

/// The sample past a checked prefix: one random position in each of `strata` equal strata
/// of `prefix..done` (at most one per position), then the last position, each given to
/// `check` until one returns a wrong value. The draw is seeded by `seed` and `done`, so a
/// file is always checked at the same positions.
pub fn strata_then_last<W>(
    prefix: usize,
    done: usize,
    strata: usize,
    seed: u64,
    mut check: impl FnMut(usize) -> Option<W>,
) -> Option<W> {
    if done <= prefix {
        return None;
    }
    let rest = done - prefix;
    let strata = strata.min(rest);
    let mut rng = SplitMix64(seed ^ done as u64);
    for i in 0..strata {
        let lo = prefix + rest * i / strata;
        let hi = prefix + rest * (i + 1) / strata;
        if let Some(wrong) = check(lo + rng.below((hi - lo) as u64) as usize) {
            return Some(wrong);
        }
    }
    check(done - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::moves::Moves;

    /// The per-position costs come from the option steps, so the prefix's budget is spent as
    /// the rules count it: {1, 3, 4} has 1, 1, 2, 3 options at n = 1..4.
    #[test]
    fn a_position_costs_its_options() {
        let moves = Moves::list(vec![1, 3, 4]).unwrap();
        let costs: Vec<u128> = (0..6).map(|n| options_of(&moves, n)).collect();
        assert_eq!(costs, [0, 1, 1, 2, 3, 3]);
    }

    /// The check by the definition, on a subtraction set (its rules' own check is another):
    /// {1, 3, 4} repeats 0,1,0,1,2,3,2; a value changed in the prefix is found where it is,
    /// and a region changed past the prefix by the strata.
    #[test]
    fn a_changed_value_is_found_where_it_is() {
        let moves = Moves::list(vec![1, 3, 4]).unwrap();
        let at = |n: usize| [0, 1, 0, 1, 2, 3, 2][n % 7];
        let g: Vec<u16> = (0..100).map(at).collect();
        assert_eq!(first_wrong(&moves, &g), None);
        let mut bad = g.clone();
        bad[40] = 7;
        assert_eq!(first_wrong(&moves, &bad), Some((40, 7, at(40))));
        let n = FULL_PREFIX + 1_000_000;
        let mut g: Vec<u16> = (0..n).map(at).collect();
        assert_eq!(first_wrong(&moves, &g), None);
        let start = FULL_PREFIX + 500_000;
        g[start..start + 10_000].fill(9);
        let (at, _, _) = first_wrong(&moves, &g).expect("found");
        assert!((start..start + 10_000).contains(&at), "{at}");
    }
}
