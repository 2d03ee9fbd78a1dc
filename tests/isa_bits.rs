//! The bit-mask back-ends (`bitset`, `bitset-parallel`, `value-bounded`) on every
//! instruction-set path this CPU supports (`--isa`): against the naive control at every N up to 400 and on random
//! subtraction sets, and against the reference (`stamped`) at N = 10^5 and 10^6.

mod common;

use common::{random_moves, SplitMix64};
use nimsquare::base::isa::{self, Isa};
use nimsquare::base::moves::Moves;
use nimsquare::table::{self, Table};

/// The back-ends whose kernels follow `--isa` here.
const BIT_BACK_ENDS: [&str; 3] = ["bitset", "bitset-parallel", "value-bounded"];

/// Builds `name` for (moves, limit) with the path `path` forced.
fn build_on(path: Isa, name: &str, moves: &Moves, limit: usize) -> Table {
    isa::with(path, || table::build(name, moves, limit as u64))
        .expect("a supported path")
        .expect("the table builds")
}

/// Asserts that every bit back-end on every supported path gives `want`'s values.
fn assert_every_path(want: &Table, moves: &Moves, paths: &[Isa]) {
    let limit = want.limit();
    for name in BIT_BACK_ENDS {
        for &path in paths {
            let got = build_on(path, name, moves, limit);
            if let Some(n) = (0..=limit).find(|&n| got.values()[n] != want.values()[n]) {
                panic!(
                    "{name} on {path} differs at n = {n} (N = {limit}, {moves:?}): {} vs {}",
                    got.values()[n],
                    want.values()[n]
                );
            }
        }
    }
}

#[test]
fn every_path_matches_the_naive_control_for_every_n_up_to_400() {
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let paths = Isa::supported_all();
    let mut rng = SplitMix64(0x15a_b175);
    let mut sets = vec![Moves::Squares];
    sets.extend((0..3).map(|_| random_moves(&mut rng, 120)));
    for moves in &sets {
        for limit in 0..=400 {
            let want = table::build("naive-mex", moves, limit).unwrap();
            assert_every_path(&want, moves, &paths);
        }
    }
}

#[test]
fn every_path_matches_the_naive_control_on_random_sets_with_far_moves() {
    // Moves up to 1500 reach the vector group passes (s >= 256 or 512) and the partial lane
    // groups of the far-move OR; {1..=150} drives the bitset masks to 3 words and
    // value-bounded through 151 classes.
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let paths = Isa::supported_all();
    let mut rng = SplitMix64(0xfa4_b175);
    let mut sets: Vec<Moves> = (0..8).map(|_| random_moves(&mut rng, 1500)).collect();
    sets.push(Moves::list((1..=150).collect()).unwrap());
    for moves in &sets {
        let limit = rng.range(3000, 12_000);
        let want = table::build("naive-mex", moves, limit).unwrap();
        assert!(want.max_value() > 0);
        assert_every_path(&want, moves, &paths);
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release builds only: cargo test --release")]
fn every_path_matches_stamped_at_10_to_the_5() {
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let want = table::build("stamped", &Moves::Squares, 100_000).unwrap();
    assert_eq!(want.max_value(), 74);
    assert_every_path(&want, &Moves::Squares, &Isa::supported_all());
}

#[test]
#[cfg_attr(debug_assertions, ignore = "release builds only: cargo test --release")]
fn every_vector_path_matches_stamped_at_10_to_the_6() {
    // The scalar twin is left out here: value-bounded reads its windows bit by bit and
    // would take most of a minute at 10^6; it is judged at 10^5 above.
    let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let want = table::build("stamped", &Moves::Squares, 1_000_000).unwrap();
    assert_eq!(want.max_value(), 168);
    let paths: Vec<Isa> = Isa::supported_all()
        .into_iter()
        .filter(|&p| p != Isa::Scalar)
        .collect();
    assert!(paths.contains(&Isa::Portable));
    assert_every_path(&want, &Moves::Squares, &paths);
}
