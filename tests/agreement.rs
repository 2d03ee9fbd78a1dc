//! Every back-end against the judges the checker names: the naive controls where they afford
//! the input, the references beyond; on the squares, on random subtraction sets (proptest,
//! shrinking to a minimal failing set), and across the block and stride boundaries.

mod common;

use common::{assert_agree, moves_strategy, on_every_path};
use nimsquare::base::moves::Moves;
use nimsquare::instruments::check::control::game_tree;
use nimsquare::table;
use proptest::prelude::*;

#[test]
fn every_back_end_agrees_with_the_controls_on_squares_for_every_n_up_to_200() {
    for limit in 0..=200 {
        let report = assert_agree(&Moves::Squares, limit, 3);
        assert_eq!(report.table_judge, "naive-mex");
        let judge = report.count_judge.map(|(name, _)| name);
        assert_eq!(judge, Some(if limit <= 100 { "brute" } else { "sweep" }));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// On every vector path the CPU has, not only the active one.
    #[test]
    fn every_back_end_agrees_on_random_subtraction_sets(
        moves in moves_strategy(300),
        limit in 0usize..=10_000,
        heaps in 1usize..=4,
    ) {
        // Brute force judges the counts only at small N; the tables are judged by the
        // naive mex at every N here.
        let limit = if heaps == 3 { limit } else { limit.min(40) };
        on_every_path(|| {
            assert_agree(&moves, limit, heaps);
        });
    }
}

#[test]
fn every_back_end_agrees_when_values_outgrow_the_lane_stride() {
    // {1..=150}: g(n) = n mod 151, so the max climbs to 150 within a few lane blocks and the
    // lane stride must grow from 128 to 256 mid-run; 1..=700 gives g(n) = n mod 701.
    for (top, limit) in [(150u64, 5000usize), (700, 9000)] {
        let moves = Moves::list((1..=top).collect()).unwrap();
        let report = assert_agree(&moves, limit, 3);
        let period = top as usize + 1;
        assert!((0..=limit).all(|n| report.table.values()[n] as usize == n % period));
    }
}

#[test]
fn game_tree_agrees_with_the_nim_sum_rule() {
    for (moves, max) in [
        (Moves::Squares, 20),
        (Moves::list(vec![1, 2, 3]).unwrap(), 12),
        (Moves::list(vec![1, 3, 4]).unwrap(), 12),
        (Moves::list(vec![2, 5, 7]).unwrap(), 12),
    ] {
        let tree = game_tree(&moves, max);
        let t = table::build("naive-mex", &moves, max as u64).unwrap();
        let g = t.values();
        let mut losing = 0;
        for a in 0..=max {
            for b in 0..=max {
                for c in 0..=max {
                    let by_rule = g[a] ^ g[b] ^ g[c] == 0;
                    assert_eq!(
                        tree.is_losing(a, b, c),
                        by_rule,
                        "{moves:?} at ({a},{b},{c})"
                    );
                    losing += by_rule as usize;
                }
            }
        }
        assert!(losing > 0);
    }
}

#[test]
fn the_random_cases_run_on_every_supported_path_and_name_the_failing_one() {
    use nimsquare::base::isa::{self, Isa};
    let seen = std::sync::Mutex::new(Vec::new());
    on_every_path(|| seen.lock().unwrap().push(isa::active()));
    assert_eq!(seen.into_inner().unwrap(), Isa::supported_all());
    let last = *Isa::supported_all().last().unwrap();
    let failed = std::panic::catch_unwind(|| {
        on_every_path(|| assert!(isa::active() != last, "wrong here"));
    })
    .unwrap_err();
    let msg = failed.downcast_ref::<String>().unwrap();
    assert_eq!(msg, &format!("on the {} path: wrong here", last.name()));
}
