//! The Walsh–Hadamard transform of a value histogram, the kernel of the `wht` count.
//!
//! Algorithm: the in-place fast transform (unnormalised, natural order) turns `data` into
//! F(k) = sum over x of (-1)^popcount(x & k) · `data[x]` by log2(W) rounds of butterflies
//! (a, b) -> (a + b, a - b) over blocks of doubling width. It turns xor convolution into
//! pointwise products, which is what the count uses it for.
//!
//! Cost: W·log2(W) additions for a length W (a power of two), in place.
//!
//! Invariant: after the round of half-width h, each block of 2h entries holds the transform
//! of its own 2h inputs; every butterfly output is a signed sum of inputs, so it cannot
//! overflow `i64` while sum |`data[x]`| < 2^63.
//!
//! Paths: one scalar loop (no ISA dispatch); [`walsh_hadamard_naive`], the transform by its
//! definition, is its twin in the tests.

/// In-place fast Walsh–Hadamard transform (unnormalised, natural order):
/// `data[k]` becomes sum over x of (-1)^popcount(x & k) · `data[x]`. `data.len()` must be a
/// power of two. O(W log W) additions.
///
/// The caller guarantees no intermediate overflows `i64`: every butterfly output is a
/// signed sum of inputs, so sum |`data[x]`| < 2^63 suffices.
pub fn walsh_hadamard(data: &mut [i64]) {
    let w = data.len();
    assert!(
        w.is_power_of_two(),
        "the transform length must be a power of two"
    );
    let mut half = 1;
    while half < w {
        for block in data.chunks_exact_mut(2 * half) {
            let (low, high) = block.split_at_mut(half);
            for (a, b) in low.iter_mut().zip(high.iter_mut()) {
                let (x, y) = (*a, *b);
                *a = x + y;
                *b = x - y;
            }
        }
        half *= 2;
    }
}

/// The transform by its definition, O(W^2): the control for [`walsh_hadamard`], used only in
/// tests.
pub fn walsh_hadamard_naive(data: &[i64]) -> Vec<i64> {
    let w = data.len();
    (0..w)
        .map(|k| {
            (0..w)
                .map(|x| {
                    if (x & k).count_ones() % 2 == 0 {
                        data[x]
                    } else {
                        -data[x]
                    }
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::base::rng::SplitMix64;

    #[test]
    fn fast_transform_equals_definition_on_random_inputs() {
        let mut rng = SplitMix64(0x9E37_79B9_7F4A_7C15);
        for log_w in 0..=9 {
            for _ in 0..20 {
                let w = 1usize << log_w;
                let data: Vec<i64> = (0..w)
                    .map(|_| rng.range(0, 2_000_000) as i64 - 1_000_000)
                    .collect();
                let mut fast = data.clone();
                walsh_hadamard(&mut fast);
                assert_eq!(fast, walsh_hadamard_naive(&data), "W = {w}");
            }
        }
    }

    #[test]
    fn transform_twice_is_w_times_identity() {
        let data: Vec<i64> = (0..64).map(|i| (i * 37 % 11) - 5).collect();
        let mut twice = data.clone();
        walsh_hadamard(&mut twice);
        walsh_hadamard(&mut twice);
        let scaled: Vec<i64> = data.iter().map(|&x| 64 * x).collect();
        assert_eq!(twice, scaled);
    }
}
