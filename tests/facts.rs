//! The published facts of Nim Square (Project Euler 310 and OEIS A014586/A030193), asserted
//! through every back-end.

mod common;

use common::assert_every_count;
use nimsquare::base::moves::Moves;
use nimsquare::instruments::check::control::brute_triples;
use nimsquare::table;

fn every_table(limit: u64) -> Vec<(&'static str, table::Table)> {
    table::BACKENDS
        .iter()
        .map(|e| {
            (
                e.name,
                table::build(e.name, &Moves::Squares, limit).unwrap(),
            )
        })
        .collect()
}

#[test]
fn first_thirty_values() {
    let expected: [u16; 30] = [
        0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2, 3, 2, 3, 4, 5,
    ];
    for (name, t) in every_table(29) {
        assert_eq!(t.values(), &expected, "{name}");
    }
}

#[test]
fn cold_sizes_below_100() {
    let expected = [
        0, 2, 5, 7, 10, 12, 15, 17, 20, 22, 34, 39, 44, 52, 57, 62, 65, 67, 72, 85, 95,
    ];
    for (name, t) in every_table(99) {
        assert_eq!(t.cold_positions(), expected, "{name}");
    }
}

#[test]
fn summary_up_to_100_000() {
    for (name, t) in every_table(100_000) {
        assert_eq!(t.cold_count(), 2781, "{name}");
        assert_eq!(t.max_value(), 74, "{name}");
        assert_eq!(t.max_value_first_at(), 99_078, "{name}");
    }
}

#[test]
fn max_values_at_smaller_limits() {
    for (limit, max) in [(40, 5), (1000, 14), (10_000, 33)] {
        for (name, t) in every_table(limit) {
            assert_eq!(t.max_value(), max, "{name} at N = {limit}");
        }
    }
}

#[test]
fn value_never_exceeds_floor_sqrt() {
    let t = table::build("stamped", &Moves::Squares, 100_000).unwrap();
    for (n, &v) in t.values().iter().enumerate() {
        assert!((v as usize) * (v as usize) <= n, "g({n}) = {v}");
    }
}

#[test]
fn losing_counts_at_known_limits() {
    for (limit, expected) in [
        (4u64, 12u128),
        (10, 100),
        (29, 1160),
        (40, 2632),
        (60, 7160),
        (100_000, 2_586_528_661_783),
    ] {
        let t = table::build("stamped", &Moves::Squares, limit).unwrap();
        assert_every_count(&t, expected, &format!("at N = {limit}"));
    }
}

#[test]
fn twelve_losing_triples_at_4() {
    let t = table::build("stamped", &Moves::Squares, 4).unwrap();
    let expected = vec![
        (0, 0, 0),
        (0, 0, 2),
        (0, 1, 1),
        (0, 1, 3),
        (0, 2, 2),
        (0, 3, 3),
        (0, 4, 4),
        (1, 1, 2),
        (1, 2, 3),
        (2, 2, 2),
        (2, 3, 3),
        (2, 4, 4),
    ];
    assert_eq!(brute_triples(&t), expected);
}

#[test]
fn option_steps_at_100_000() {
    assert_eq!(Moves::Squares.option_steps(100_000), 21_032_170);
}

#[test]
fn seed_subtraction_sets() {
    // Seed 003: {1,2,3} gives n mod 4; {1,3,4} repeats 0,1,0,1,2,3,2 with period 7.
    let mod4 = Moves::list(vec![1, 2, 3]).unwrap();
    let period7 = Moves::list(vec![1, 3, 4]).unwrap();
    let pattern = [0u16, 1, 0, 1, 2, 3, 2];
    for e in table::BACKENDS {
        let t = table::build(e.name, &mod4, 200).unwrap();
        assert!(
            t.values()
                .iter()
                .enumerate()
                .all(|(n, &v)| v as usize == n % 4),
            "{}",
            e.name
        );
        let t = table::build(e.name, &period7, 200).unwrap();
        assert!(
            t.values()
                .iter()
                .enumerate()
                .all(|(n, &v)| v == pattern[n % 7]),
            "{}",
            e.name
        );
        let t = table::build(e.name, &period7, 20).unwrap();
        assert_eq!(t.cold_positions(), [0, 2, 7, 9, 14, 16], "{}", e.name);
    }
}
