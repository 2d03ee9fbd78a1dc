//! Every table back-end on every vector path this CPU has, in every regime its kernels have:
//! values past `stamped-lanes`' scalar start (36), the first mask word (64), the lane strides
//! 256, 512 and 2048 (values past 128, 256 and 1024), runs resumed at random cut points after
//! the scalar start, and the parallel back-ends at every super-block size and thread count.
//! Each claim about what a case reaches is asserted, so it cannot go stale.

mod common;

use common::{fill_in_pieces, naive, regime_moves, regime_strategy, SplitMix64, REGIME_BANDS};
use nimsquare::base::isa::{self, Isa};
use nimsquare::base::moves::Moves;
use nimsquare::grundy::Builder;
use nimsquare::kernels::lanes::{stride_for, LANES};
use nimsquare::table::{self, BitsetParallel, Schedule, StampedParallel};
use proptest::prelude::*;

/// `stamped-lanes` runs its scalar loop while the running max is below this (its
/// `SCALAR_BELOW_MAX`), `bitset` on AVX-512 its AVX2 kernels below 64 (`AVX2_BELOW_MAX`).
const VECTOR_FROM: u16 = 64;

/// The first position after which the running max of `want` is at least [`VECTOR_FROM`]
/// (a resume there starts on the vector path), if any.
fn vector_start(want: &[u16]) -> Option<usize> {
    want.iter().position(|&v| v >= VECTOR_FROM).map(|n| n + 1)
}

/// Every back-end but the control, on every supported path, built whole and (when
/// resumable) resumed at `cuts`, against `want`; names the first difference.
fn assert_every_back_end_on_every_path(moves: &Moves, want: &[u16], cuts: &[usize]) {
    let limit = want.len() - 1;
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    for path in Isa::supported_all() {
        for e in table::BACKENDS.iter().filter(|e| e.name != "naive-mex") {
            let b = (e.make)();
            let whole = isa::with(path, || b.build(moves, limit).unwrap()).unwrap();
            let first_diff = |got: &[u16]| (0..=limit).find(|&n| got[n] != want[n]);
            if let Some(n) = first_diff(whole.values()) {
                panic!(
                    "{} on {path} differs at n = {n}: {} vs {} (N = {limit}, {} moves)",
                    e.name,
                    whole.values()[n],
                    want[n],
                    moves.up_to(limit).len(),
                );
            }
            if b.resumable() {
                let pieces = isa::with(path, || fill_in_pieces(&*b, moves, limit, cuts)).unwrap();
                if let Some(n) = first_diff(&pieces) {
                    panic!(
                        "{} on {path} resumed at {cuts:?} differs at n = {n} (N = {limit})",
                        e.name,
                    );
                }
            }
        }
    }
}

/// Seeded cases, one per band of the generator: every back-end on every path against the
/// naive control, resumed at random cut points past the scalar start. The largest value the
/// cases reach and the lane strides their tables end on are asserted here, so the claim in
/// the file's doc cannot silently go stale when the generator changes.
#[test]
fn every_back_end_on_every_path_reaches_every_value_regime() {
    let mut rng = SplitMix64(0x4e61_5f19);
    let mut reached = Vec::new();
    let mut resumed_in_vector = 0;
    for band in 0..REGIME_BANDS.len() {
        let (moves, limit) = regime_moves(&mut rng, Some(band));
        let want = naive(&moves, limit);
        let max = *want.iter().max().unwrap();
        let mut cuts: Vec<usize> = match vector_start(&want) {
            Some(from) => (0..3)
                .map(|_| rng.range(from as u64, limit as u64) as usize)
                .collect(),
            None => (0..3)
                .map(|_| rng.range(0, limit as u64) as usize)
                .collect(),
        };
        cuts.sort_unstable();
        // A cut resumes into the vector path when the prefix before it already has a value
        // of at least VECTOR_FROM.
        resumed_in_vector += cuts
            .iter()
            .filter(|&&c| c <= limit && want[..c].iter().any(|&v| v >= VECTOR_FROM))
            .count();
        assert_every_back_end_on_every_path(&moves, &want, &cuts);
        reached.push(max);
    }
    // Every band reached at least its dense run's lowest top, so the cases pass 36, 64, 128,
    // 256 and 1024; the tables end on four lane strides or more, 2048 among them (the running
    // max of the largest climbs through every stride from 64 on the way).
    for (band, &max) in reached.iter().enumerate() {
        assert!(
            max as u64 >= REGIME_BANDS[band].0,
            "band {band}: {reached:?}"
        );
    }
    for threshold in [36u16, 64, 128, 256, 1024] {
        assert!(
            reached.iter().any(|&m| m > threshold),
            "{threshold}: {reached:?}"
        );
    }
    let mut strides: Vec<usize> = reached
        .iter()
        .map(|&m| stride_for(m as usize + LANES))
        .collect();
    strides.sort_unstable();
    strides.dedup();
    assert!(
        strides.len() >= 4 && strides.contains(&2048),
        "{strides:?} {reached:?}"
    );
    assert!(
        resumed_in_vector >= 12,
        "{resumed_in_vector} cuts after the scalar start"
    );
}

/// Runs resumed a few positions in, where a block starts off the 64-position grid: the far
/// moves (s >= 64) then reach a lane at the end of a block one position after the start, a
/// case the grid-aligned cuts above never make. Moves 1, 64 and 65: the move 64 applies
/// first at n = 64, the last lane of the block that starts at n = 1.
#[test]
fn every_back_end_on_every_path_resumes_off_the_block_grid() {
    let moves = Moves::list(vec![1, 64, 65]).unwrap();
    let want = naive(&moves, 400);
    // By hand: g(n) = n mod 2 below 64, and g(64) = mex{g(63), g(0)} = mex{1, 0} = 2.
    assert_eq!((want[63], want[64]), (1, 2));
    for cut in [1, 2, 3, 63, 64, 65, 127, 129] {
        assert_every_back_end_on_every_path(&moves, &want, &[cut]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Random sets of every regime (a dense run of every band, up to 300 more moves,
    /// N up to 10^4), every back-end on every path, resumed at random cuts.
    #[test]
    fn every_back_end_on_every_path_agrees_on_random_regime_sets(
        (moves, limit) in regime_strategy(),
        cuts in proptest::collection::vec(0usize..10_000, 0..4),
    ) {
        let want = naive(&moves, limit);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (limit + 1)).collect();
        cuts.sort_unstable();
        assert_every_back_end_on_every_path(&moves, &want, &cuts);
    }
}

/// The parallel back-ends at every super-block size of a small schedule (64 to 512) and of
/// one with the default's sizes (512 to 4096) reached early, with values past 1024, on
/// 1, 2, 3, 5 and 8 threads (pools built here, whatever the machine's core count), whole and
/// resumed across the size changes.
#[test]
fn parallel_back_ends_at_every_super_block_size_and_thread_count_with_large_values() {
    let mut moves: Vec<u64> = (1..=1100).collect();
    moves.extend([1500, 2222, 2900, 3001, 4097]);
    let moves = Moves::list(moves).unwrap();
    let limit = 20_000;
    let want = naive(&moves, limit);
    assert!(*want.iter().max().unwrap() > 1024);
    let small = Schedule {
        base: 64,
        grow_at: [1000, 2000, 4000],
    };
    let def = Schedule::default();
    // The default's sizes (512, 1024, 2048, 4096, reached from 2^22 on), here from 4096.
    let early = Schedule {
        base: def.base,
        grow_at: [4096, 8192, 12288],
    };
    assert_eq!(
        [0, 4096, 8192, 12288].map(|n| early.super_block(n)),
        [0, 0x40_0000, 0x100_0000, 0x400_0000].map(|n| def.super_block(n))
    );
    assert_eq!(
        [0, 1000, 2000, 4000].map(|n| small.super_block(n)),
        [64, 128, 256, 512]
    );
    let cuts = [999, 1000, 2500, 4001, 8191, 12289];
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    for schedule in [small, early] {
        let builders: [(&str, Box<dyn Builder<Moves>>); 2] = [
            ("stamped-parallel", Box::new(StampedParallel { schedule })),
            ("bitset-parallel", Box::new(BitsetParallel { schedule })),
        ];
        for threads in [1, 2, 3, 5, 8] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert_eq!(pool.install(rayon::current_num_threads), threads);
            for (name, b) in &builders {
                let got = pool.install(|| b.build(&moves, limit).unwrap());
                assert!(
                    got.values() == &want[..],
                    "{name} {schedule:?} on {threads} threads"
                );
                let pieces = pool.install(|| fill_in_pieces(&**b, &moves, limit, &cuts));
                assert!(
                    pieces == want,
                    "{name} {schedule:?} resumed on {threads} threads"
                );
            }
        }
    }
}

/// `rayon-sweep` splits the count into chunks by thread: on 1, 2, 3, 5 and 8 threads it gives
/// Project Euler 310's answer at N = 10^5.
#[test]
fn the_parallel_count_is_the_same_on_every_thread_count() {
    let t = table::build("stamped", &Moves::Squares, 100_000).unwrap();
    let counter = (nimsquare::count::find("rayon-sweep").unwrap().make)();
    for threads in [1, 2, 3, 5, 8] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let got = pool.install(|| counter.count(&t, 3)).unwrap();
        assert_eq!(got, 2_586_528_661_783, "{threads} threads");
    }
}
