//! Every back-end against every other and against the naive controls.

mod common;

use common::{assert_every_count, random_moves, SplitMix64};
use nimsquare::control::{brute, game_tree};
use nimsquare::moves::Moves;
use nimsquare::{agree, count, table};

/// Every table back-end gives the same table, compared against the first (`stamped`).
fn assert_tables_agree(moves: &Moves, limit: u64) -> table::Table {
    let reference = table::build(table::BACKENDS[0].name, moves, limit).unwrap();
    for e in &table::BACKENDS[1..] {
        let t = table::build(e.name, moves, limit).unwrap();
        assert_eq!(
            t.values(),
            reference.values(),
            "{} vs {} for {} at N = {limit}",
            e.name,
            table::BACKENDS[0].name,
            moves.label()
        );
    }
    reference
}

#[test]
fn tables_agree_on_squares_for_every_n_up_to_200() {
    for limit in 0..=200 {
        assert_tables_agree(&Moves::Squares, limit);
    }
}

#[test]
fn tables_agree_on_random_subtraction_sets() {
    let mut rng = SplitMix64(0x5eed_0310);
    for case in 0..300 {
        let max_move = if case % 3 == 0 { 200 } else { 40 };
        let moves = random_moves(&mut rng, max_move);
        let limit = rng.range(0, 700);
        assert_tables_agree(&moves, limit);
    }
}

#[test]
fn tables_agree_across_block_boundaries_with_large_values() {
    // Many moves make large values, so the bitset widens past one word.
    let moves = Moves::list((1..=150).collect()).unwrap();
    let t = assert_tables_agree(&moves, 3000);
    assert!(t.max_value() > 128, "max {}", t.max_value());
}

#[test]
fn counts_equal_brute_force_for_every_n_up_to_60() {
    for limit in 0..=60 {
        let t = table::build("stamped", &Moves::Squares, limit).unwrap();
        let expected = brute(&t);
        assert_every_count(&t, expected, &format!("at N = {limit}"));
    }
}

#[test]
fn counts_equal_brute_force_on_random_subtraction_sets() {
    let mut rng = SplitMix64(0xc0_ffee);
    for _ in 0..100 {
        let moves = random_moves(&mut rng, 30);
        let limit = rng.range(0, 60);
        let t = table::build("stamped", &moves, limit).unwrap();
        let expected = brute(&t);
        assert_every_count(
            &t,
            expected,
            &format!("for {} at N = {limit}", moves.label()),
        );
    }
}

#[test]
fn rayon_sweep_agrees_when_split_into_many_chunks() {
    // Large enough that the chunked sweep really splits (chunks of at least 2^14).
    let t = table::build("stamped", &Moves::Squares, 200_000).unwrap();
    let sweep = (count::find("sweep").unwrap().make)().count(&t, 3).unwrap();
    let par = (count::find("rayon-sweep").unwrap().make)()
        .count(&t, 3)
        .unwrap();
    assert_eq!(sweep, par);
}

#[test]
fn game_tree_agrees_with_the_nim_sum_rule_up_to_20() {
    let tree = game_tree(&Moves::Squares, 20);
    let t = table::build("stamped", &Moves::Squares, 20).unwrap();
    let g = t.values();
    let mut losing = 0;
    for a in 0..=20 {
        for b in 0..=20 {
            for c in 0..=20 {
                let by_rule = g[a] ^ g[b] ^ g[c] == 0;
                assert_eq!(tree.is_losing(a, b, c), by_rule, "({a},{b},{c})");
                losing += by_rule as usize;
            }
        }
    }
    assert!(losing > 0);
}

#[test]
fn game_tree_agrees_on_other_subtraction_sets() {
    for list in [vec![1, 2, 3], vec![1, 3, 4], vec![2, 5, 7]] {
        let moves = Moves::list(list).unwrap();
        let tree = game_tree(&moves, 12);
        let t = table::build("bitset", &moves, 12).unwrap();
        let g = t.values();
        for a in 0..=12 {
            for b in 0..=12 {
                for c in 0..=12 {
                    assert_eq!(
                        tree.is_losing(a, b, c),
                        g[a] ^ g[b] ^ g[c] == 0,
                        "{} at ({a},{b},{c})",
                        moves.label()
                    );
                }
            }
        }
    }
}

#[test]
fn run_all_returns_one_row_per_pair() {
    let (t, rows) = agree::run_all(&Moves::Squares, 29, 3).unwrap();
    assert_eq!(t.limit(), 29);
    assert_eq!(rows.len(), table::BACKENDS.len() * count::BACKENDS.len());
    assert!(rows.iter().all(|r| r.answer == 1160));
}
