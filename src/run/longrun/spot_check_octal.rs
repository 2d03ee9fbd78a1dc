//! The spot check of an octal game's loaded table: g(n) recomputed by the definition from the
//! file's own values at sampled positions and compared, within a fixed budget of option steps.
//!
//! The check of one position n looks at every option of n: the whole heap removed (value 0),
//! one heap n - k left (g(n - k)), and each split of n - k into a + b (g(a) ^ g(b), each pair
//! once, unequal parts only for Grundy's game); the mex of their values, found with a
//! generation-stamped array of 2^16 entries (no clearing between positions), must equal the
//! stored g(n). A position costs about (n/2)·(splitting digits) steps, so unlike the Nim Square
//! check ([`super::spot_check`]) the positions are chosen by cost: every position from 0 while
//! the steps stay within [`PREFIX_BUDGET`] (at most [`super::spot_check::FULL_PREFIX`]
//! positions), then one random position in each of k equal strata of the rest, k =
//! [`SAMPLE_BUDGET`] / (the cost of the last position), clamped to [`MIN_STRATA`]..=
//! [`super::spot_check::STRATA`], then the last position. Total about 10^8 steps at most for
//! N <= 10^6 (a tenth of a second), and 16 positions of n/2 steps past that: at N = 10^8 about
//! 10^9 steps, against the hours the table cost. Like every sample it cannot prove a table
//! right; it finds any wrong value in the prefix, and a wrong region of more than 1/k of the
//! rest with certainty. The invariant it tests is local, so it holds for a checkpoint's
//! prefix as for a whole table.

use crate::octal::Rules;

/// Option steps the prefix may spend (every position from 0 until this is reached).
pub const PREFIX_BUDGET: u128 = 1 << 25;
/// Option steps the strata may spend, by the cost of the last position.
pub const SAMPLE_BUDGET: u128 = 1 << 26;
/// The fewest strata, however large the table.
pub const MIN_STRATA: usize = 16;

/// The options of heap `n` under `rules`: what checking it costs.
fn options_of(rules: &Rules, n: usize) -> u128 {
    let whole = rules.whole().contains(&n) as u128;
    let one = rules.one().iter().filter(|&&k| k < n).count() as u128;
    let split: u128 = rules
        .split()
        .iter()
        .filter(|&&k| k < n)
        .map(|&k| rules.split_pairs(n - k) as u128)
        .sum();
    whole + one + split
}

/// The mex of heap `n`'s options, their values read from `g` (which holds g(0..n) at least).
struct Mex {
    stamp: Vec<u32>,
    generation: u32,
}

impl Mex {
    fn new() -> Mex {
        Mex {
            stamp: vec![0; 1 << 16],
            generation: 0,
        }
    }

    fn of(&mut self, rules: &Rules, g: &[u16], n: usize) -> u16 {
        self.generation += 1;
        let gen = self.generation;
        let mut mark = |v: u16| self.stamp[v as usize] = gen;
        if rules.whole().contains(&n) {
            mark(0);
        }
        for &k in rules.one() {
            if k < n {
                mark(g[n - k]);
            }
        }
        for &k in rules.split() {
            if k < n {
                let m = n - k;
                for a in 1..=rules.split_pairs(m) {
                    mark(g[a] ^ g[m - a]);
                }
            }
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
pub fn first_wrong(rules: &Rules, values: &[u16]) -> Option<(usize, u16, u16)> {
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
    while prefix < done.min(super::spot_check::FULL_PREFIX) && spent <= PREFIX_BUDGET {
        if let Some(wrong) = check(prefix) {
            return Some(wrong);
        }
        spent += options_of(rules, prefix);
        prefix += 1;
    }
    let per_position = options_of(rules, done.saturating_sub(1)).max(1);
    let strata =
        ((SAMPLE_BUDGET / per_position) as usize).clamp(MIN_STRATA, super::spot_check::STRATA);
    super::spot_check::strata_then_last(prefix, done, strata, 0x0c7a_15ee_d000_0001, check)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dawson's Kayles (0.07), g(0..19), from the independent table.
    const DAWSON_20: [u16; 20] = [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3];
    /// Officers (0.6), g(0..19), published.
    const OFFICERS_20: [u16; 20] = [0, 0, 1, 2, 0, 1, 2, 3, 1, 2, 3, 4, 0, 3, 4, 2, 1, 3, 2, 1];

    #[test]
    fn published_values_pass_and_a_changed_one_is_found_where_it_is() {
        let dawson = Rules::parse("0.07").unwrap();
        assert_eq!(first_wrong(&dawson, &DAWSON_20), None);
        let officers = Rules::parse("0.6").unwrap();
        assert_eq!(first_wrong(&officers, &OFFICERS_20), None);
        let mut g = OFFICERS_20;
        g[13] = 5;
        // Officers' g(13) = 3: its options 12 (0) and the splits 1+11 (4), 2+10 (2), 3+9 (0),
        // 4+8 (1), 5+7 (2), 6+6 (0) leave 3 as the mex.
        assert_eq!(first_wrong(&officers, &g), Some((13, 5, 3)));
        // n mod 4 for 0.333 (subtract 1, 2 or 3).
        let sub = Rules::parse("0.333").unwrap();
        let g: Vec<u16> = (0..200).map(|n| (n % 4) as u16).collect();
        assert_eq!(first_wrong(&sub, &g), None);
    }

    #[test]
    fn a_wrong_region_past_the_prefix_is_found_by_the_strata() {
        // 0.333: g(n) = n mod 4, cheap positions, so all 2048 strata are drawn; a region of 1%
        // of the rest zeroed covers about 20 strata.
        let sub = Rules::parse("0.333").unwrap();
        let n = super::super::spot_check::FULL_PREFIX + 1_000_000;
        let mut g: Vec<u16> = (0..n).map(|i| (i % 4) as u16).collect();
        assert_eq!(first_wrong(&sub, &g), None);
        let start = super::super::spot_check::FULL_PREFIX + 500_000;
        g[start..start + 10_000].fill(0);
        let (at, _, _) = first_wrong(&sub, &g).expect("found");
        assert!((start..start + 10_004).contains(&at), "{at}");
    }

    #[test]
    fn the_per_position_costs_add_up_to_the_option_steps() {
        for code in ["0.6", "0.07", "4.07", "grundy", "0.137", "0.333"] {
            let rules = Rules::parse(code).unwrap();
            for limit in [0, 1, 2, 7, 50, 301] {
                let sum: u128 = (0..=limit).map(|n| options_of(&rules, n)).sum();
                assert_eq!(sum, rules.option_steps(limit), "{code} up to {limit}");
            }
        }
    }
}
