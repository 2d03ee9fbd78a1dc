//! SplitMix64, a tiny seeded generator for the random cases of the tests (random subtraction
//! sets, random inputs for a SIMD helper and its scalar twin), so every failing case
//! reproduces from its seed. Not for anything that needs statistical quality beyond that.

/// SplitMix64 (Steele, Lea and Flood): the state advances by a fixed odd constant and the
/// output is a mix of it. The field is the state; any seed is valid.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n > 0`; the slight modulo bias does not matter for test cases).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A value in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
}

/// Runs `check(case, rng)` for cases 0..`cases`, all drawn in turn from one generator seeded
/// with `seed`, so a failure that names its case reproduces from the seed alone.
#[cfg(test)]
pub(crate) fn for_each_case(
    seed: u64,
    cases: usize,
    mut check: impl FnMut(usize, &mut SplitMix64),
) {
    let mut rng = SplitMix64(seed);
    for case in 0..cases {
        check(case, &mut rng);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_outputs() {
        // The first outputs of SplitMix64 from seed 0, as published with the algorithm.
        let mut rng = SplitMix64(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn range_stays_inside() {
        let mut rng = SplitMix64(42);
        assert!((0..1000).all(|_| (3..=7).contains(&rng.range(3, 7))));
    }
}
