//! Shared test helpers: a seeded generator, so random cases are the same on every run.
#![allow(dead_code)]

pub use nimsquare::rng::SplitMix64;

/// A random subtraction set: 1 to 8 distinct moves drawn from 1..=max_move.
pub fn random_moves(rng: &mut SplitMix64, max_move: u64) -> nimsquare::moves::Moves {
    let count = rng.range(1, 8);
    let list = (0..count).map(|_| rng.range(1, max_move)).collect();
    nimsquare::moves::Moves::list(list).expect("non-empty, no zero")
}
