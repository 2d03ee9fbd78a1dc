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
