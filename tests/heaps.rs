//! Any number of heaps K: every counter that says it counts K against brute-force
//! enumeration of multisets (through the checker), a third route by value at large N, the
//! counters that do not count K refused naming those that do, and overflow refused.

mod common;

use common::{assert_agree, moves_strategy, on_every_path};
use nimsquare::base::moves::Moves;
use nimsquare::count::{self, burnside_count_big, wht_count_big};
use nimsquare::registry;
use nimsquare::table::{self, Table};
use num_bigint::BigUint;
use proptest::prelude::*;

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

/// The count back-ends (controls aside) that say they count K heaps.
fn counting(heaps: usize) -> Vec<&'static str> {
    registry::fast(count::BACKENDS)
        .filter(|e| (e.make)().heaps().contains(&heaps))
        .map(|e| e.name)
        .collect()
}

#[test]
fn every_k_agrees_with_brute_force_on_small_n() {
    for moves in sets() {
        for heaps in 1..=5usize {
            let max_n = if heaps <= 4 { 30 } else { 20 };
            for n in 0..=max_n {
                let report = assert_agree(&moves, n, heaps);
                let judge = report.count_judge.map(|(name, _)| name);
                assert_eq!(judge, Some("brute"), "K = {heaps}, N = {n}");
                // Every counter that says it counts K answered; the others were skipped.
                let answered: Vec<&str> = report
                    .pairs
                    .iter()
                    .filter(|p| p.table == report.table_judge && p.count != "brute")
                    .map(|p| p.count)
                    .collect();
                assert_eq!(answered, counting(heaps), "K = {heaps}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// On every vector path the CPU has, not only the active one.
    #[test]
    fn every_k_agrees_with_brute_force_on_random_sets(
        moves in moves_strategy(12),
        heaps in 1usize..=6,
        n in 0usize..25,
    ) {
        let n = if heaps <= 4 { n } else { n.min(12) };
        on_every_path(|| {
            assert_agree(&moves, n, heaps);
        });
    }
}

#[test]
fn any_k_is_counted_by_more_than_one_route() {
    // The any-K check is only a check if two independent routes answer.
    for heaps in 1..=16 {
        assert!(
            counting(heaps).len() >= 2,
            "K = {heaps}: {:?}",
            counting(heaps)
        );
    }
}

#[test]
fn three_heaps_agree_at_larger_n() {
    for moves in sets() {
        for n in [150usize, 1000, 5000] {
            assert_agree(&moves, n, 3);
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
        // The u128 answer is given exactly when it fits, refused otherwise; each counter is
        // compared with the other's exact value (not with the route it calls itself).
        for (name, exact) in [("wht", &b), ("burnside", &a)] {
            let got = (count::find(name).unwrap().make)().count(&t, heaps);
            if exact.bits() <= 128 {
                assert_eq!(BigUint::from(got.unwrap()), *exact, "{name}, K = {heaps}");
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
fn a_counter_asked_for_k_it_does_not_count_is_refused_naming_those_that_do() {
    for entry in count::BACKENDS {
        for heaps in [0usize, 1, 2, 4, 16, 17] {
            let counts = (entry.make)().heaps().contains(&heaps);
            let refusal = count::check_supports(entry, heaps);
            assert_eq!(refusal.is_ok(), counts, "{} K = {heaps}", entry.name);
            if let Err(e) = refusal {
                let msg = e.to_string();
                assert!(msg.contains(entry.name) && !msg.contains('\n'), "{msg}");
            }
        }
        assert!(!(entry.make)().heaps().contains(&0));
        assert!(!(entry.make)().heaps().contains(&17));
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

/// `count_exact`, the big-integer answer `solve` prints, is every counter's own count for
/// each K it counts: by value (the knapsack above) at N = 60 on the squares, where the
/// answers are small enough for every back-end, the brute-force control included.
#[test]
fn every_counters_exact_answer_is_its_count_for_every_k_it_counts() {
    let t = table::build("stamped", &Moves::Squares, 60).unwrap();
    for entry in count::BACKENDS {
        let counter = (entry.make)();
        for heaps in counter.heaps().filter(|&k| k <= 4) {
            let want = by_value_knapsack(&t, heaps);
            assert_eq!(
                counter.count_exact(&t, heaps).unwrap(),
                want,
                "{} K = {heaps}",
                entry.name
            );
            assert_eq!(
                BigUint::from(counter.count(&t, heaps).unwrap()),
                want,
                "{} K = {heaps}",
                entry.name
            );
        }
    }
}
