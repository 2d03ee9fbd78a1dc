//! The spot check of a subtraction game's loaded table ([`crate::grundy::Rulebook::first_wrong`]
//! for [`Moves`]), cheaper than the generic one ([`crate::grundy::spot_check`]): a position's
//! options are a prefix of the move list, so no option values are collected.
//!
//! The check recomputes g(n) = mex{g(n - s) : s a move, s <= n} from the file's own values at
//! a set of positions and compares: every position of a prefix of [`FULL_PREFIX`] positions,
//! then one position drawn at random in each of [`STRATA`] equal strata of the rest, and the
//! last position. Cost: O(moves <= n) per position checked, about (2/3)·STRATA·sqrt(N) option
//! steps for the squares (10^6 steps at N = 10^6, 2·10^7 at 10^9), a small fraction of the
//! S(N) the table cost to build. A sample cannot prove a table right; it finds a wrong region
//! of more than 1/STRATA of the positions with certainty, and any wrong value in the prefix.
//! The invariant it tests is local, so it holds for a checkpoint's prefix as for a whole table.

use crate::base::moves::Moves;
use crate::grundy::spot_check::{strata_then_last, FULL_PREFIX, STRATA};

/// The first checked position whose value is not the mex of its options in `values` (which
/// are g(0..values.len())), with the value found and the value the rules give; `None` when
/// every checked position agrees.
pub fn first_wrong(moves: &Moves, values: &[u16]) -> Option<(usize, u16, u16)> {
    let done = values.len();
    if done == 0 {
        return None;
    }
    let all = moves.up_to(done - 1);
    let mut seen = vec![false; all.len() + 2];
    let mut check = |n: usize| -> Option<(usize, u16, u16)> {
        let count = all.partition_point(|&s| s <= n);
        seen[..count + 2].fill(false);
        for &s in &all[..count] {
            let v = values[n - s] as usize;
            if v <= count {
                seen[v] = true;
            }
        }
        let mex = seen.iter().position(|&b| !b).unwrap_or(count + 1) as u16;
        (mex != values[n]).then_some((n, values[n], mex))
    };
    let prefix = done.min(FULL_PREFIX);
    if let Some(wrong) = (0..prefix).find_map(&mut check) {
        return Some(wrong);
    }
    strata_then_last(prefix, done, STRATA, 0x7ab1_e5ee_d000_0001, check)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// g for the squares from the seeds: 0,1,0,1,2,0,1,0,1,2, ..., 2,3,4,5 at n = 25..29.
    const SQUARES_30: [u16; 30] = [
        0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 3, 2, 3, 4, 5,
    ];

    #[test]
    fn a_right_table_passes_and_a_changed_value_is_found_where_it_is() {
        assert_eq!(first_wrong(&Moves::Squares, &SQUARES_30), None);
        let mut g = SQUARES_30;
        g[26] = 4;
        // 26 is the first wrong position; 27..29 may then also disagree, but come later.
        assert_eq!(first_wrong(&Moves::Squares, &g), Some((26, 4, 2)));
        // {1, 3, 4}: g = 0,1,0,1,2,3,2 repeating (the seeds).
        let moves = Moves::list(vec![1, 3, 4]).unwrap();
        let g: Vec<u16> = (0..100).map(|n| [0, 1, 0, 1, 2, 3, 2][n % 7]).collect();
        assert_eq!(first_wrong(&moves, &g), None);
        let mut bad = g.clone();
        bad[0] = 1;
        assert_eq!(first_wrong(&moves, &bad), Some((0, 1, 0)));
    }

    #[test]
    fn a_wrong_region_past_the_prefix_is_found_by_the_strata() {
        // {1, 2, 3}: g(n) = n mod 4 (the seeds), a table past the prefix; a region of 1% of
        // the rest zeroed covers about 20 strata.
        let moves = Moves::list(vec![1, 2, 3]).unwrap();
        let n = FULL_PREFIX + 1_000_000;
        let mut g: Vec<u16> = (0..n).map(|i| (i % 4) as u16).collect();
        assert_eq!(first_wrong(&moves, &g), None);
        let start = FULL_PREFIX + 500_000;
        g[start..start + 10_000].fill(0);
        let (at, _, _) = first_wrong(&moves, &g).expect("found");
        assert!((start..start + 10_003).contains(&at), "{at}");
    }
}
