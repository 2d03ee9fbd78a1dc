//! The table contract: every back-end resumes from any finished prefix, the parallel table's
//! every super-block size runs at small N against the naive control, the result does not
//! depend on the thread count, and (release builds) every back-end agrees at N = 10^6.

mod common;

use common::{assert_agree, fill_in_pieces, moves_strategy, naive, on_every_path};
use nimsquare::base::moves::Moves;
use nimsquare::grundy::Builder;
use nimsquare::registry;
use nimsquare::run::planner;
use nimsquare::table::{self, Schedule, StampedParallel};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A run resumed at any positions (inside a lane block, at its edge, anywhere in a
    /// super-block) gives the same table as the control, for every resumable back-end, on
    /// every vector path the CPU has.
    #[test]
    fn every_resumable_back_end_resumes_from_any_prefix(
        moves in prop_oneof![Just(Moves::Squares), moves_strategy(200)],
        limit in 0usize..4000,
        mut cuts in proptest::collection::vec(0usize..4000, 0..5),
    ) {
        cuts.sort_unstable();
        let want = naive(&moves, limit);
        on_every_path(|| {
            for e in table::BACKENDS {
                let b = (e.make)();
                if b.resumable() {
                    assert_eq!(&fill_in_pieces(&*b, &moves, limit, &cuts), &want, "{} cut at {:?}", e.name, &cuts);
                }
            }
        });
    }
}

/// Every back-end builds in position order and resumes, but `value-bounded`, which decides
/// value classes over all positions at once (so the resume test above is not vacuous, and
/// `solve --checkpoint` refuses exactly that one).
#[test]
fn every_back_end_but_value_bounded_resumes() {
    let not_resumable: Vec<&str> = table::BACKENDS
        .iter()
        .filter(|e| !(e.make)().resumable())
        .map(|e| e.name)
        .collect();
    assert_eq!(not_resumable, ["value-bounded"]);
}

/// Only the naive control is limited, to N = 10^5 (where `solve` and the checker stop it);
/// every other back-end affords any N.
#[test]
fn only_the_naive_control_is_limited_and_to_ten_to_the_five() {
    let limited: Vec<(&str, usize)> = table::BACKENDS
        .iter()
        .filter_map(|e| (e.make)().affordable_limit().map(|max| (e.name, max)))
        .collect();
    assert_eq!(limited, [("naive-mex", 100_000)]);
}

/// `fill` computes every position from `from` on, g(0) included, whatever the buffer held
/// before: over a buffer of 7s (another table's leftovers), from 0 and resumed at a cut with
/// the 7s still past it, every back-end gives the control's table on every path.
#[test]
fn every_back_end_overwrites_whatever_the_buffer_held_past_the_finished_prefix() {
    for (moves, limit) in [
        (Moves::Squares, 3000),
        (Moves::parse("1,3,4").unwrap(), 500),
        (Moves::parse("2,5,7").unwrap(), 40),
    ] {
        let want = naive(&moves, limit);
        on_every_path(|| {
            for e in table::BACKENDS {
                let b = (e.make)();
                let mut g = vec![7u16; limit + 1];
                b.fill(&moves, &mut g, 0).unwrap();
                assert_eq!(g, want, "{} from 0 on {moves:?}", e.name);
                let cut = limit / 3;
                let mut g = want[..cut].to_vec();
                g.resize(limit + 1, 7);
                b.fill(&moves, &mut g, cut).unwrap();
                assert_eq!(g, want, "{} resumed at {cut} on {moves:?}", e.name);
            }
        });
    }
}

#[test]
fn every_super_block_size_of_the_parallel_table_runs_in_ci() {
    // A schedule that grows at 1000, 2000 and 4000 goes through all four super-block sizes
    // (64, 128, 256, 512) below N = 6000; the default one does the same past 2^22.
    let sched = Schedule {
        base: 64,
        grow_at: [1000, 2000, 4000],
    };
    assert_eq!(
        [0, 1000, 2000, 4000].map(|n| sched.super_block(n)),
        [64, 128, 256, 512]
    );
    let def = Schedule::default();
    assert_eq!(
        [0, 1 << 22, 1 << 24, 1 << 26].map(|n| def.super_block(n)),
        [512, 1024, 2048, 4096]
    );
    let b = StampedParallel { schedule: sched };
    for moves in [Moves::Squares, Moves::list((1..=150).collect()).unwrap()] {
        let want = naive(&moves, 6000);
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let got = pool.install(|| b.build(&moves, 6000).unwrap());
            assert_eq!(got.values(), &want[..], "{moves:?} on {threads} threads");
            let pieces =
                pool.install(|| fill_in_pieces(&b, &moves, 6000, &[999, 1000, 2500, 4001]));
            assert_eq!(pieces, want, "{moves:?} resumed on {threads} threads");
        }
    }
}

#[test]
fn parallel_table_is_the_same_on_one_and_two_threads() {
    let build = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| table::build("stamped-parallel", &Moves::Squares, 50_000).unwrap())
    };
    assert_eq!(build(1), build(2));
}

#[test]
fn the_planner_names_only_registered_fast_back_ends() {
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
            let t = planner::choose_table(limit, threads);
            let c = planner::choose_count();
            assert!(!t.is_control() && !c.is_control());
        }
    }
    assert_eq!(registry::reference(table::BACKENDS).name, "stamped");
}

/// Every back-end against the reference at N = 10^6, whose max value is 168 (a fact of the
/// subtract-a-square game). Release builds only: in a debug build it takes minutes.
#[test]
#[cfg_attr(debug_assertions, ignore = "release builds only: cargo test --release")]
fn every_back_end_agrees_at_a_million() {
    let report = assert_agree(&Moves::Squares, 1_000_000, 3);
    assert_eq!(report.table_judge, "stamped");
    assert_eq!(report.table.max_value(), 168);
    assert!(report.skipped.iter().any(|s| s.backend == "naive-mex"));
}

/// Past 2^22 positions the default schedule switches to larger super-blocks; the table
/// must not notice. Release builds only.
#[test]
#[cfg_attr(debug_assertions, ignore = "release builds only: cargo test --release")]
fn parallel_table_matches_lanes_across_the_default_super_block_change() {
    let a = table::build("stamped-lanes", &Moves::Squares, 5_000_000).unwrap();
    let b = table::build("stamped-parallel", &Moves::Squares, 5_000_000).unwrap();
    assert!(
        a == b,
        "stamped-parallel differs from stamped-lanes below 5 * 10^6"
    );
}
