//! Gates for the speed work (issue 4): every table back-end, including the lane-blocked and
//! parallel ones, gives the same table as `stamped` for N in 0..=200, on a few hundred random
//! subtraction sets, and (release builds) at N = 10^6; the planner only names registered
//! back-ends; the memory guard refuses what would not fit.

use nimsquare::moves::Moves;
use nimsquare::rng::SplitMix64;
use nimsquare::{count, planner, table};

/// Builds the table with every back-end and asserts all equal the first (`stamped`).
fn assert_all_tables_equal(moves: &Moves, limit: u64, what: &str) {
    assert_eq!(table::BACKENDS[0].name, "stamped");
    let reference = table::build("stamped", moves, limit).unwrap();
    for entry in &table::BACKENDS[1..] {
        let t = table::build(entry.name, moves, limit).unwrap();
        if t != reference {
            let n = (0..=limit as usize)
                .find(|&n| t.values()[n] != reference.values()[n])
                .unwrap();
            panic!(
                "{what}: '{}' gives g({n}) = {} but 'stamped' gives {}",
                entry.name,
                t.values()[n],
                reference.values()[n]
            );
        }
    }
}

#[test]
fn every_table_backend_agrees_for_n_up_to_200() {
    for limit in 0..=200 {
        assert_all_tables_equal(&Moves::Squares, limit, &format!("squares, N = {limit}"));
    }
}

#[test]
fn every_table_backend_agrees_on_random_subtraction_sets() {
    let mut rng = SplitMix64(2024);
    for case in 0..300 {
        let len = 1 + rng.below(12) as usize;
        let span = [10, 70, 300, 3000][rng.below(4) as usize];
        let moves: Vec<u64> = (0..len).map(|_| 1 + rng.below(span)).collect();
        // Enough positions to cross several lane blocks and, sometimes, super-blocks.
        let limit = rng.below(6000);
        let moves = Moves::list(moves).unwrap();
        assert_all_tables_equal(
            &moves,
            limit,
            &format!("case {case}, {moves:?}, N = {limit}"),
        );
    }
}

#[test]
fn every_table_backend_agrees_when_values_outgrow_the_lane_stride() {
    // {1..=150}: g(n) = n mod 151, so the max climbs to 150 within a few lane blocks and the
    // lane stride must grow from 128 to 256 mid-run (and a parallel super-block sees values
    // well above those before it).
    let moves = Moves::list((1..=150).collect()).unwrap();
    assert_all_tables_equal(&moves, 5000, "moves 1..=150");
    let t = table::build("stamped-parallel", &moves, 5000).unwrap();
    assert!((0..=5000).all(|n| t.values()[n] as usize == n % 151));
    // Large values: 1..=700 gives g(n) = n mod 701.
    let moves = Moves::list((1..=700).collect()).unwrap();
    assert_all_tables_equal(&moves, 9000, "moves 1..=700");
}

#[test]
fn parallel_table_is_the_same_on_one_and_two_threads() {
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let a = one.install(|| table::build("stamped-parallel", &Moves::Squares, 50_000).unwrap());
    let b = two.install(|| table::build("stamped-parallel", &Moves::Squares, 50_000).unwrap());
    assert_eq!(a, b);
}

/// Every table back-end gives the identical table at N = 10^6. Release builds only (the
/// README's test command, `cargo test --release`, which `.ci/run` runs): in a debug build
/// `stamped` and `value-bounded` alone would take minutes.
#[test]
#[cfg_attr(debug_assertions, ignore = "release builds only: cargo test --release")]
fn every_table_backend_is_identical_at_one_million() {
    assert_all_tables_equal(&Moves::Squares, 1_000_000, "squares, N = 10^6");
    let t = table::build("stamped-parallel", &Moves::Squares, 1_000_000).unwrap();
    // GUIDE §3: the max value up to 10^6 is 168.
    assert_eq!(t.max_value(), 168);
    let answers: Vec<(&str, u128)> = count::BACKENDS
        .iter()
        .map(|e| (e.name, (e.make)().count(&t, 3).unwrap()))
        .collect();
    nimsquare::agree::require_equal("count at N = 10^6", &answers).unwrap();
}

#[test]
fn planner_names_registered_backends_for_every_size() {
    for threads in [1, 2, 8] {
        for limit in [
            0usize,
            10,
            1000,
            100_000,
            1_000_000,
            100_000_000,
            4_000_000_000,
        ] {
            let t = planner::choose_table(&Moves::Squares, limit, threads);
            assert!(table::find(t).is_ok(), "{t}");
            let c = planner::choose_count(limit, 3, threads);
            assert!(count::find(c).is_ok(), "{c}");
        }
    }
    // One thread never gets the parallel table.
    assert_ne!(
        planner::choose_table(&Moves::Squares, 10_000_000, 1),
        "stamped-parallel"
    );
}

#[test]
fn every_count_backend_equals_brute_force_on_squares_and_random_sets() {
    let mut cases: Vec<(Moves, u64)> = (0..=60).map(|n| (Moves::Squares, n)).collect();
    let mut rng = SplitMix64(77);
    for _ in 0..200 {
        let len = 1 + rng.below(6) as usize;
        let moves: Vec<u64> = (0..len).map(|_| 1 + rng.below(40)).collect();
        cases.push((Moves::list(moves).unwrap(), rng.below(60)));
    }
    for (moves, limit) in cases {
        let t = table::build("stamped-lanes", &moves, limit).unwrap();
        let brute = nimsquare::control::brute(&t);
        for entry in count::BACKENDS {
            let answer = (entry.make)().count(&t, 3).unwrap();
            assert_eq!(answer, brute, "'{}' on {moves:?}, N = {limit}", entry.name);
        }
    }
}

/// Past 2^22 positions `stamped-parallel` switches to larger super-blocks; the table must not
/// notice. Release builds only (about two seconds there).
#[test]
#[cfg_attr(debug_assertions, ignore = "release builds only: cargo test --release")]
fn parallel_table_matches_lanes_across_the_super_block_change() {
    let a = table::build("stamped-lanes", &Moves::Squares, 5_000_000).unwrap();
    let b = table::build("stamped-parallel", &Moves::Squares, 5_000_000).unwrap();
    assert!(
        a == b,
        "stamped-parallel differs from stamped-lanes below 5 * 10^6"
    );
}
