//! Any number of heaps K: the `wht` and `burnside` back-ends against brute-force enumeration
//! of multisets, the three-heap-only back-ends refusing K != 3, and overflow refused.

use nimsquare::control::brute_multisets;
use nimsquare::count::{self, burnside_count_big, wht_count_big};
use nimsquare::moves::Moves;
use nimsquare::table::{self, Table};
use num_bigint::BigUint;

/// The back-ends that answer for every K.
const ANY_K: [&str; 2] = ["wht", "burnside"];

fn sets() -> Vec<Moves> {
    vec![
        Moves::Squares,
        Moves::parse("1,3,4").unwrap(),
        Moves::parse("2,5,7").unwrap(),
    ]
}

fn counted(name: &str, t: &Table, heaps: usize) -> u128 {
    (count::find(name).unwrap().make)()
        .count(t, heaps)
        .unwrap_or_else(|e| panic!("{name} at K = {heaps}: {e}"))
}

/// Every any-K back-end gives the brute-force count on (moves, N, K).
fn any_k_equal_brute_force(table_backend: &str, moves: &Moves, n: u64, heaps: usize) {
    let t = table::build(table_backend, moves, n).unwrap();
    let brute = brute_multisets(&t, heaps);
    for name in ANY_K {
        assert_eq!(
            counted(name, &t, heaps),
            brute,
            "{name}, moves {}, K = {heaps}, N = {n}",
            moves.label()
        );
    }
}

#[test]
fn any_k_back_ends_equal_brute_force_on_small_n() {
    for moves in sets() {
        for heaps in 1..=5usize {
            let max_n = if heaps <= 4 { 30 } else { 20 };
            for n in 0..=max_n {
                any_k_equal_brute_force("stamped", &moves, n, heaps);
            }
        }
    }
}

#[test]
fn any_k_back_ends_equal_brute_force_on_random_sets() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |m: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % m
    };
    for _ in 0..100 {
        let len = 1 + next(5) as usize;
        let list: Vec<u64> = (0..len).map(|_| 1 + next(12)).collect();
        let moves = Moves::list(list).unwrap();
        let heaps = 1 + next(6) as usize;
        let n = next(if heaps <= 4 { 25 } else { 12 });
        any_k_equal_brute_force("bitset", &moves, n, heaps);
    }
}

#[test]
fn brute_multisets_at_three_heaps_is_the_triple_control() {
    for moves in sets() {
        for n in 0..=40u64 {
            let t = table::build("stamped", &moves, n).unwrap();
            assert_eq!(brute_multisets(&t, 3), nimsquare::control::brute(&t));
        }
    }
}

#[test]
fn three_heaps_equal_every_existing_back_end() {
    for moves in sets() {
        for n in (0..=200u64).chain([1000, 5000]) {
            let t = table::build("stamped", &moves, n).unwrap();
            let answers: Vec<(&str, u128)> = count::BACKENDS
                .iter()
                .map(|e| (e.name, counted(e.name, &t, 3)))
                .collect();
            nimsquare::agree::require_equal(&format!("N = {n}"), &answers).unwrap();
        }
    }
}

#[test]
fn nim_square_facts_through_wht() {
    let t = table::build("bitset", &Moves::Squares, 100_000).unwrap();
    assert_eq!(counted("wht", &t, 3), 2_586_528_661_783);
    for (n, want) in [
        (4u64, 12u128),
        (10, 100),
        (29, 1160),
        (40, 2632),
        (60, 7160),
    ] {
        let t = table::build("stamped", &Moves::Squares, n).unwrap();
        assert_eq!(counted("wht", &t, 3), want, "L({n})");
    }
    // One heap: the count is the number of cold positions (21 below 100, 2781 up to 10^5).
    let t99 = table::build("stamped", &Moves::Squares, 99).unwrap();
    assert_eq!(counted("wht", &t99, 1), 21);
    assert_eq!(counted("wht", &t, 1), 2781);
}

#[test]
fn wht_and_burnside_agree_at_large_n_for_every_k_that_fits() {
    let t = table::build("bitset", &Moves::Squares, 100_000).unwrap();
    for heaps in 1..=16usize {
        let a = wht_count_big(&t, heaps).unwrap();
        let b = burnside_count_big(&t, heaps).unwrap();
        assert_eq!(a, b, "K = {heaps}");
        // The u128 answer is given exactly when it fits, refused otherwise.
        for name in ANY_K {
            let got = (count::find(name).unwrap().make)().count(&t, heaps);
            if a.bits() <= 128 {
                assert_eq!(BigUint::from(got.unwrap()), a, "{name}, K = {heaps}");
            } else {
                let msg = got.unwrap_err().to_string();
                assert!(msg.contains("overflows u128"), "{name}, K = {heaps}: {msg}");
            }
        }
    }
    // C(100016, 16) is about 4.8e66, so at least the largest K cannot fit u128 ...
    assert!(wht_count_big(&t, 16).unwrap().bits() > 128);
    // ... while four heaps (at most C(100004, 4) < 2^62) must.
    assert!(wht_count_big(&t, 4).unwrap().bits() <= 64);
}

#[test]
fn three_heap_only_back_ends_refuse_other_k() {
    let t = table::build("stamped", &Moves::Squares, 10).unwrap();
    for name in ["sweep", "rayon-sweep"] {
        for heaps in [1usize, 2, 4, 16] {
            let err = (count::find(name).unwrap().make)()
                .count(&t, heaps)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(name) && err.contains(&format!("{heaps} heaps")),
                "{err}"
            );
            assert!(!err.contains('\n'));
        }
    }
}

#[test]
fn every_back_end_refuses_zero_and_too_many_heaps() {
    let t = table::build("stamped", &Moves::Squares, 10).unwrap();
    for entry in count::BACKENDS {
        for heaps in [0usize, 17, 100] {
            assert!(
                (entry.make)().count(&t, heaps).is_err(),
                "{} accepted K = {heaps}",
                entry.name
            );
        }
    }
}

/// A third route, for large N where brute force cannot go: choose heaps value by value.
/// Taking j heaps among the f(v) sizes of value v can be done in C(f(v)+j-1, j) ways
/// (a multiset) and contributes v to the xor when j is odd; a knapsack over the values with
/// state (heaps taken, xor so far) counts the multisets. No transform, no cycle index.
fn by_value_knapsack(t: &Table, heaps: usize) -> BigUint {
    let hist = t.histogram();
    let w = hist.len().next_power_of_two();
    let mut ways = vec![vec![BigUint::from(0u32); w]; heaps + 1];
    ways[0][0] = BigUint::from(1u32);
    for (v, &f) in hist.iter().enumerate() {
        // choose[j] = C(f + j - 1, j), the multisets of j sizes of value v.
        let mut choose = vec![BigUint::from(1u32)];
        for j in 1..=heaps as u64 {
            let next = choose.last().unwrap() * BigUint::from(f + j - 1) / BigUint::from(j);
            choose.push(next);
        }
        let mut next = vec![vec![BigUint::from(0u32); w]; heaps + 1];
        for (used, row) in ways.iter().enumerate() {
            for (x, count) in row.iter().enumerate() {
                if *count == BigUint::from(0u32) {
                    continue;
                }
                for (j, multisets) in choose.iter().enumerate().take(heaps - used + 1) {
                    let y = if j % 2 == 1 { x ^ v } else { x };
                    next[used + j][y] += count * multisets;
                }
            }
        }
        ways = next;
    }
    ways[heaps][0].clone()
}

#[test]
fn wht_equals_a_value_knapsack_at_large_n_for_every_k() {
    let squares = table::build("bitset", &Moves::Squares, 100_000).unwrap();
    let other = table::build("bitset", &Moves::parse("1,3,4").unwrap(), 1000).unwrap();
    for t in [&squares, &other] {
        for heaps in 1..=16usize {
            assert_eq!(
                wht_count_big(t, heaps).unwrap(),
                by_value_knapsack(t, heaps),
                "N = {}, K = {heaps}",
                t.limit()
            );
        }
    }
    // Four heaps at N = 10^5: the value a separate Python implementation of the knapsack
    // gives.
    assert_eq!(counted("wht", &squares, 4), 61_401_296_360_127_688);
}
