//! `value-bounded`: Eppstein's class-by-class evaluation (D. Eppstein, *Faster Evaluation of
//! Subtraction Games*, FUN 2018, arXiv:1804.06515).
//!
//! Algorithm: keep the set U of positions not yet given a value, as a bitset. For
//! v = 0, 1, 2, … decide the class C_v = {n : g(n) = v}: scanning U upward, n joins C_v
//! exactly when no n - s (s a move) is already in C_v. That is, C_v is the set of cold
//! positions of the subtraction game played on U. Remove C_v from U and go on until U is
//! empty. Each scan runs 64 positions a word: the "hit" word for positions [n0, n0 + 64) is
//! the OR over moves s of the 64-bit window of C_v starting at n0 - s (a sumset test done
//! word-parallel); inside the word, members are taken lowest first and each one adds the
//! moves below 64 shifted to its position to the hit word.
//!
//! Cost: (m + 1) passes, m the largest value, each at most S(N)/64 window reads; a word's
//! scan stops as soon as every unassigned position in it is hit, and words with no
//! unassigned position are skipped, so later passes are far cheaper than the bound. The
//! cost grows with m rather than with the move set; it beats a per-position mex while m is
//! small beside the word width and loses beyond.
//!
//! Invariant (why the class rule is right): when class v is decided, every n in U has
//! options of every value u < v, because n was not taken into C_u; so g(n) = v exactly when
//! no option has value v. The least element of U always joins C_v (its options all have
//! values below v), so every pass assigns at least one position and the loop ends.

use super::TableBuilder;
use crate::moves::Moves;

/// Eppstein-style value-bounded table. See the module documentation.
pub struct ValueBounded;

impl TableBuilder for ValueBounded {
    /// Decides value classes over all positions, so it ignores `from` (not resumable).
    fn fill(&self, moves: &Moves, g: &mut [u16], _from: usize, _max_before: u16) {
        let limit = g.len() - 1;
        let moves = moves.up_to(limit);
        let near_mask = moves
            .iter()
            .take_while(|&&s| s < 64)
            .fold(0u64, |m, &s| m | (1u64 << s));
        let words = (limit + 1).div_ceil(64);
        let mut unassigned = vec![u64::MAX; words];
        let tail = (limit + 1) % 64;
        if tail != 0 {
            unassigned[words - 1] = (1u64 << tail) - 1;
        }
        let mut remaining = limit + 1;
        let mut class = vec![0u64; words];
        let mut value = 0u16;
        while remaining > 0 {
            class.iter_mut().for_each(|w| *w = 0);
            for w in 0..words {
                let free = unassigned[w];
                if free == 0 {
                    continue;
                }
                let n0 = w * 64;
                let mut hit = 0u64;
                for &s in &moves {
                    if s > n0 + 63 || free & !hit == 0 {
                        break;
                    }
                    hit |= window(&class, n0 as isize - s as isize);
                }
                let mut members = 0u64;
                let mut open = free & !hit;
                while open != 0 {
                    let j = open.trailing_zeros();
                    members |= 1u64 << j;
                    hit |= near_mask << j;
                    open &= open - 1;
                    open &= !hit;
                }
                class[w] = members;
                unassigned[w] &= !members;
                remaining -= members.count_ones() as usize;
                let mut bits = members;
                while bits != 0 {
                    g[n0 + bits.trailing_zeros() as usize] = value;
                    bits &= bits - 1;
                }
            }
            value += 1;
        }
    }

    fn resumable(&self) -> bool {
        false
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // Two bitsets of N bits (unassigned positions, current class) and the move list.
        2 * (limit as u64 + 1).div_ceil(64) * 8 + 8 * moves.up_to(limit).len() as u64
    }
}

/// Bits `start .. start + 64` of the bitset `bits` as one word (bit i of the result is bit
/// start + i); positions below 0 read as zero. The caller guarantees start + 63 lies within
/// the bitset.
#[inline]
fn window(bits: &[u64], start: isize) -> u64 {
    if start <= -64 {
        return 0;
    }
    if start < 0 {
        return bits[0] << (-start) as u32;
    }
    let start = start as usize;
    let (q, r) = (start / 64, start % 64);
    if r == 0 {
        bits[q]
    } else {
        (bits[q] >> r) | (bits[q + 1] << (64 - r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scalar twin of `window`: bit by bit.
    fn window_by_bits(bits: &[u64], start: isize) -> u64 {
        (0..64).fold(0u64, |acc, i| {
            let p = start + i as isize;
            let bit = p >= 0 && (bits[p as usize / 64] >> (p as usize % 64)) & 1 == 1;
            acc | ((bit as u64) << i)
        })
    }

    #[test]
    fn window_matches_bitwise_reading() {
        let bits = [
            0x0123_4567_89ab_cdefu64,
            0xfedc_ba98_7654_3210,
            0xdead_beef_0bad_f00d,
        ];
        for start in -70isize..=128 {
            assert_eq!(
                window(&bits, start),
                window_by_bits(&bits, start),
                "start {start}"
            );
        }
    }
}
