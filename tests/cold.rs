//! The cold-set back-ends: the sieve against the naive control, the stamped table's zero set
//! and the published counts.

use nimsquare::base::moves::Moves;
use nimsquare::cold::{self, ColdFinder, ColdSet, Naive, Sieve};
use nimsquare::table;
use proptest::prelude::*;

/// The registry's sieve, with its tuned window and one part per thread.
fn registry_sieve() -> Box<dyn ColdFinder> {
    (cold::find("sieve").unwrap().make)()
}

/// Asserts `got` equals `expected`, naming the first differing position.
fn assert_same(got: &ColdSet, expected: &ColdSet, what: &str) {
    assert_eq!(
        got.first_difference(expected),
        None,
        "{what}: first difference (count {} vs {})",
        got.count(),
        expected.count()
    );
    assert_eq!(got, expected, "{what}");
}

#[test]
fn sieve_matches_naive_on_squares_for_every_n_up_to_3000() {
    let sieves = [
        ("registry", registry_sieve()),
        (
            "window 61, 2 parts",
            Box::new(Sieve::with_window(61).with_parts(2)) as _,
        ),
        (
            "window 7, 1 part",
            Box::new(Sieve::with_window(7).with_parts(1)) as _,
        ),
    ];
    for limit in 0..=3000 {
        let expected = Naive.cold(&Moves::Squares, limit);
        for (name, sieve) in &sieves {
            let got = sieve.cold(&Moves::Squares, limit);
            assert_same(&got, &expected, &format!("{name} at N = {limit}"));
        }
    }
}

#[test]
fn sieve_matches_naive_with_many_windows_and_parts() {
    // Every window of 1..=40 bytes (one position a byte) with 1 to 3 parts, at limits on and
    // around window edges.
    let expected = Naive.cold(&Moves::Squares, 700);
    for window in 1..=40 {
        for parts in 1..=3 {
            let sieve = Sieve::with_window(window).with_parts(parts);
            let edge = window;
            for limit in [edge - 1, edge, edge + 1, 3 * edge, 3 * edge + 1, 700] {
                let got = sieve.cold(&Moves::Squares, limit);
                let naive = Naive.cold(&Moves::Squares, limit);
                let what = format!("window {window}, {parts} parts, N = {limit}");
                assert_same(&got, &naive, &what);
            }
            assert_same(&sieve.cold(&Moves::Squares, 700), &expected, "N = 700");
        }
    }
}

#[test]
fn cold_sizes_below_100() {
    let expected = [
        0, 2, 5, 7, 10, 12, 15, 17, 20, 22, 34, 39, 44, 52, 57, 62, 65, 67, 72, 85, 95,
    ];
    for e in cold::BACKENDS {
        let set = (e.make)().cold(&Moves::Squares, 99);
        assert_eq!(set.positions().collect::<Vec<_>>(), expected, "{}", e.name);
        assert_eq!(set.count(), expected.len() as u64, "{}", e.name);
    }
}

/// Every cold-set back-end counts `expected` cold positions of the squares up to `limit`.
fn assert_every_cold_count(limit: usize, expected: u64) {
    for e in cold::BACKENDS {
        assert_eq!(
            (e.make)().cold(&Moves::Squares, limit).count(),
            expected,
            "{}",
            e.name
        );
    }
}

#[test]
fn cold_count_up_to_100_000_is_2781() {
    assert_every_cold_count(100_000, 2781);
}

#[test]
fn eppstein_count_up_to_102_517_is_2821() {
    assert_every_cold_count(102_517, 2821);
}

#[test]
fn one_three_four_up_to_20() {
    let moves = Moves::list(vec![1, 3, 4]).unwrap();
    for e in cold::BACKENDS {
        let set = (e.make)().cold(&moves, 20);
        assert_eq!(
            set.positions().collect::<Vec<_>>(),
            [0, 2, 7, 9, 14, 16],
            "{}",
            e.name
        );
    }
}

#[test]
fn one_two_three_cold_iff_multiple_of_four() {
    let moves = Moves::list(vec![1, 2, 3]).unwrap();
    for sieve in [Sieve::default(), Sieve::with_window(10).with_parts(3)] {
        let set = sieve.cold(&moves, 10_001);
        assert!((0..=10_001).all(|n| set.contains(n) == (n % 4 == 0)));
        assert_eq!(set.count(), 2501);
    }
}

#[test]
fn memory_is_the_bits_plus_a_little() {
    let set = registry_sieve().cold(&Moves::Squares, 1 << 20);
    assert!(set.bytes() >= (1 << 20) / 8 && set.bytes() < (1 << 20) / 8 + 1024);
}

#[cfg(not(debug_assertions))]
#[test]
fn eppstein_count_up_to_104_857_942_is_358_248() {
    let set = registry_sieve().cold(&Moves::Squares, 104_857_942);
    assert_eq!(set.count(), 358_248);
}

#[cfg(not(debug_assertions))]
#[test]
fn sieve_equals_zero_set_of_stamped_parallel_at_a_million() {
    let t = table::build("stamped-parallel", &Moves::Squares, 1_000_000).unwrap();
    let got = registry_sieve().cold(&Moves::Squares, 1_000_000);
    assert_same(&got, &ColdSet::from_table(&t), "stamped-parallel at 10^6");
}

/// A random subtraction set: 1 to 8 moves, mostly small, sometimes past the limit.
fn moves_strategy() -> impl Strategy<Value = Moves> {
    let one = prop_oneof![4 => 1u64..=40, 1 => 1u64..=3000];
    prop::collection::vec(one, 1..=8).prop_map(|list| Moves::list(list).unwrap())
}

proptest! {
    #[test]
    fn sieve_naive_and_stamped_agree_on_random_sets(
        moves in moves_strategy(),
        limit in 0usize..=1500,
        window in 1usize..=200,
        parts in 1usize..=3,
    ) {
        let sieve = Sieve::with_window(window).with_parts(parts).cold(&moves, limit);
        let naive = Naive.cold(&moves, limit);
        let stamped = table::build("stamped", &moves, limit as u64).unwrap();
        prop_assert_eq!(sieve.first_difference(&naive), None, "sieve vs naive-cold");
        prop_assert_eq!(naive.first_difference(&ColdSet::from_table(&stamped)), None);
        prop_assert_eq!(&sieve, &naive);
    }
}
