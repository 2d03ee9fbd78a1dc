//! Shared test helpers: a seeded generator, so random cases are the same on every run.
#![allow(dead_code)]

/// SplitMix64: a tiny, well-mixed, seeded generator (no crate needed for a few hundred cases).
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
}

/// A random subtraction set: 1 to 8 distinct moves drawn from 1..=max_move.
pub fn random_moves(rng: &mut SplitMix64, max_move: u64) -> nimsquare::moves::Moves {
    let count = rng.range(1, 8);
    let list = (0..count).map(|_| rng.range(1, max_move)).collect();
    nimsquare::moves::Moves::list(list).expect("non-empty, no zero")
}
