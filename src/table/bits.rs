//! Small helpers the mask-based table back-ends share: multi-word bit masks of option values
//! and the split of the moves into those that reach inside a block and those that do not.

/// The index of the lowest zero bit of a multi-word mask (bit v of word v / 64), or `None`
/// when every bit is one (the mex would not be representable in this width).
///
/// Worked value: `[u64::MAX, 0b0111]` has words 0 full and bits 64, 65, 66 set, so the
/// answer is 67 (`trailing_ones` of the first word that is not full, plus 64 per full word).
#[inline]
pub(crate) fn lowest_zero_bit(mask: &[u64]) -> Option<usize> {
    mask.iter()
        .position(|&w| w != u64::MAX)
        .map(|i| i * 64 + mask[i].trailing_ones() as usize)
}

/// The scalar twin of [`lowest_zero_bit`]: bit by bit from bit 0, the definition itself.
/// Cost O(64·words); the reference every vector path is tested against.
pub(crate) fn lowest_zero_bit_scalar(mask: &[u64]) -> Option<usize> {
    (0..mask.len() * 64).find(|&v| (mask[v / 64] >> (v % 64)) & 1 == 0)
}

/// [`lowest_zero_bit`] four words a step with AVX2: compare against all-ones, take the first
/// word that differs; the tail (fewer than 4 words) word by word.
///
/// # Safety
/// The CPU must have AVX2 (the caller checked [`crate::base::isa::active`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn lowest_zero_bit_avx2(mask: &[u64]) -> Option<usize> {
    use std::arch::x86_64::*;
    let ones = _mm256_set1_epi64x(-1);
    let mut i = 0;
    while i + 4 <= mask.len() {
        // SAFETY: i + 4 <= mask.len(), so the 32-byte unaligned load stays inside `mask`.
        let v = unsafe { _mm256_loadu_si256(mask.as_ptr().add(i) as *const __m256i) };
        let full = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, ones))) as u32;
        if full != 0b1111 {
            let w = i + (!full).trailing_zeros() as usize;
            return Some(w * 64 + mask[w].trailing_ones() as usize);
        }
        i += 4;
    }
    lowest_zero_bit(&mask[i..]).map(|v| v + i * 64)
}

/// [`lowest_zero_bit`] eight words a step with AVX-512: `vpcmpneqq` against all-ones gives
/// one mask bit per word that is not full; the tail is a masked load of the last words.
///
/// # Safety
/// The CPU must have AVX-512 F (the caller checked [`crate::base::isa::active`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) unsafe fn lowest_zero_bit_avx512(mask: &[u64]) -> Option<usize> {
    use std::arch::x86_64::*;
    let ones = _mm512_set1_epi64(-1);
    let mut i = 0;
    while i < mask.len() {
        let rest = mask.len() - i;
        let lanes: __mmask8 = if rest >= 8 { 0xff } else { (1u8 << rest) - 1 };
        // SAFETY: the masked load touches only the `rest.min(8)` words from i, all inside
        // `mask` (masked-off lanes are not accessed and fault-suppressed).
        let v = unsafe { _mm512_maskz_loadu_epi64(lanes, mask.as_ptr().add(i) as *const i64) };
        let not_full = _mm512_mask_cmpneq_epi64_mask(lanes, v, ones);
        if not_full != 0 {
            let w = i + not_full.trailing_zeros() as usize;
            return Some(w * 64 + mask[w].trailing_ones() as usize);
        }
        i += 8;
    }
    None
}

/// [`lowest_zero_bit`] on the path `isa` (the tests' and the roofline primitive's entry; the
/// back-ends call the path's function from code already compiled for it).
pub(crate) fn lowest_zero_bit_on(isa: crate::base::isa::Isa, mask: &[u64]) -> Option<usize> {
    use crate::base::isa::Isa;
    assert!(isa.supported(), "{isa} is not supported here");
    match isa {
        Isa::Scalar => lowest_zero_bit_scalar(mask),
        // SAFETY: `isa.supported()` was asserted, so the CPU has the path's features.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { lowest_zero_bit_avx2(mask) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { lowest_zero_bit_avx512(mask) },
        _ => lowest_zero_bit(mask),
    }
}

/// Sets bit v of a multi-word mask.
#[inline]
pub(crate) fn set_bit(mask: &mut [u64], v: usize) {
    mask[v >> 6] |= 1u64 << (v & 63);
}

/// Splits ascending `moves` into the moves below `block` (whose options may lie inside a
/// block of that many positions, so they are applied in position order) and the rest
/// (whose options all lie in finished blocks, so they may be applied in any order).
pub(crate) fn split_moves(moves: &[usize], block: usize) -> (&[usize], &[usize]) {
    moves.split_at(moves.partition_point(|&s| s < block))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_zero_bit_crosses_words() {
        assert_eq!(lowest_zero_bit(&[0b1011]), Some(2));
        assert_eq!(lowest_zero_bit(&[u64::MAX, 0]), Some(64));
        assert_eq!(lowest_zero_bit(&[u64::MAX, 0b111]), Some(67));
        assert_eq!(lowest_zero_bit(&[u64::MAX]), None);
    }

    #[test]
    fn lowest_zero_bit_every_path_matches_the_scalar_twin() {
        use crate::base::isa::Isa;
        crate::base::rng::for_each_case(11, 3000, |case, rng| {
            // Masks of 1..=20 words (tails on both vector widths), mostly full words so the
            // first zero lands anywhere, sometimes nowhere.
            let words = rng.range(1, 20) as usize;
            let zero_at = rng.below(words as u64 * 64 + 8) as usize;
            let mask: Vec<u64> = (0..words)
                .map(|w| match (w * 64..w * 64 + 64).contains(&zero_at) {
                    // Ones below the zero, the zero, random bits above.
                    true => {
                        let bit = 1u64 << (zero_at % 64);
                        (rng.next_u64() | (bit - 1)) & !bit
                    }
                    false if w * 64 < zero_at => u64::MAX,
                    false => rng.next_u64(),
                })
                .collect();
            let want = lowest_zero_bit_scalar(&mask);
            assert_eq!(
                want,
                (zero_at < words * 64).then_some(zero_at),
                "case {case}"
            );
            for isa in Isa::supported_all() {
                assert_eq!(lowest_zero_bit_on(isa, &mask), want, "case {case} {isa}");
            }
        });
    }

    #[test]
    fn set_bit_lands_in_the_right_word() {
        let mut m = [0u64; 2];
        set_bit(&mut m, 3);
        set_bit(&mut m, 64);
        assert_eq!(m, [8, 1]);
    }

    #[test]
    fn split_moves_at_the_block_length() {
        assert_eq!(split_moves(&[1, 4, 9, 16], 9), (&[1, 4][..], &[9, 16][..]));
        assert_eq!(split_moves(&[], 9), (&[][..], &[][..]));
    }
}
