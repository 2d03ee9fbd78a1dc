//! Routes to the count that share no code: `wht` and `burnside` (which both reach K != 3
//! through `count::cycle_index`) against the brute-force control for K = 1 to 16 at small N,
//! and against a dynamic programme over sorted tuples written here (position by position,
//! no histogram, no cycle index, no transform) on random tables and histograms.

mod common;

use common::SplitMix64;
use nimsquare::base::moves::Moves;
use nimsquare::count::{self, burnside_count_big, wht_count_big};
use nimsquare::table::{self, Table};
use num_bigint::BigUint;

/// The number of sorted K-tuples 0 <= a_1 <= ... <= a_K <= N whose values in `g` xor to
/// zero, by a DP over the positions in order: a sorted tuple is a multiplicity c_n >= 0 for
/// each n with sum K, and n adds g(n) to the xor when c_n is odd. State: (heaps placed, xor
/// so far). Exact in u128 while C(N + K, K) fits (checked).
fn sorted_tuples_by_position(g: &[u16], heaps: usize) -> u128 {
    let w = (*g.iter().max().unwrap() as usize + 1).next_power_of_two();
    let mut ways = vec![vec![0u128; w]; heaps + 1];
    ways[0][0] = 1;
    for &v in g {
        let mut next = vec![vec![0u128; w]; heaps + 1];
        for (placed, row) in ways.iter().enumerate() {
            for (x, &here) in row.iter().enumerate() {
                if here == 0 {
                    continue;
                }
                for c in 0..=heaps - placed {
                    let y = if c % 2 == 1 { x ^ v as usize } else { x };
                    let cell = &mut next[placed + c][y];
                    *cell = cell.checked_add(here).expect("the count fits u128");
                }
            }
        }
        ways = next;
    }
    ways[heaps][0]
}

fn counted(name: &str, t: &Table, heaps: usize) -> u128 {
    (count::find(name).unwrap().make)()
        .count(t, heaps)
        .unwrap_or_else(|e| panic!("{name} at K = {heaps}: {e}"))
}

/// The largest N at which brute force enumerates at most `budget` sorted K-tuples.
fn brute_limit(heaps: usize, budget: u128) -> usize {
    (0..)
        .take_while(|&n| count::brute::multisets(n, heaps).is_some_and(|m| m <= budget))
        .last()
        .unwrap_or(0)
}

#[test]
fn every_k_from_1_to_16_agrees_with_brute_force_and_the_position_dp() {
    for moves in [Moves::Squares, Moves::parse("1,3,4").unwrap()] {
        for heaps in 1..=16usize {
            let top = brute_limit(heaps, 200_000).min(60);
            assert!(top >= 5, "K = {heaps}: brute affords only N = {top}");
            let t = table::build("stamped", &moves, top as u64).unwrap();
            for n in 0..=top {
                let t = Table::from_values(t.values()[..=n].to_vec());
                let brute = counted("brute", &t, heaps);
                assert_eq!(
                    sorted_tuples_by_position(t.values(), heaps),
                    brute,
                    "DP, K = {heaps}, N = {n}"
                );
                for name in ["wht", "burnside"] {
                    assert_eq!(
                        counted(name, &t, heaps),
                        brute,
                        "{name}, K = {heaps}, N = {n}"
                    );
                }
            }
        }
    }
}

#[test]
fn wht_and_burnside_agree_with_the_position_dp_on_random_histograms() {
    let mut rng = SplitMix64(0x0707_e519);
    let mut alphabets = Vec::new();
    for case in 0..12 {
        // A random histogram, laid out in a random order (the counters see only a table):
        // every other case a small alphabet (at most 8 values, up to 4 positions each), else
        // 129 to 200 values (each on 0 or 1 position, the last on one), so N stays near 100.
        let (alphabet, most) = if case % 2 == 0 {
            (rng.range(1, 8) as usize, 4)
        } else {
            (rng.range(129, 200) as usize, 1)
        };
        let mut values: Vec<u16> = Vec::new();
        for v in 0..alphabet {
            let times = if v + 1 == alphabet {
                1
            } else {
                rng.range(0, most)
            };
            values.extend(std::iter::repeat_n(v as u16, times as usize));
        }
        for i in (1..values.len()).rev() {
            let j = rng.range(0, i as u64) as usize;
            values.swap(i, j);
        }
        let t = Table::from_values(values);
        alphabets.push(t.alphabet());
        for heaps in 1..=16usize {
            let want = sorted_tuples_by_position(t.values(), heaps);
            let exact = BigUint::from(want);
            assert_eq!(
                wht_count_big(&t, heaps).unwrap(),
                exact,
                "wht, case {case}, K = {heaps}"
            );
            assert_eq!(
                burnside_count_big(&t, heaps).unwrap(),
                exact,
                "burnside, case {case}, K = {heaps}"
            );
            if heaps == 3 {
                assert_eq!(counted("sweep", &t, 3), want, "sweep, case {case}");
            }
        }
    }
    // The cases span small and large alphabets (several xor widths of the transform).
    assert!(alphabets.iter().any(|&g| g <= 8) && alphabets.iter().any(|&g| g > 128));
}
