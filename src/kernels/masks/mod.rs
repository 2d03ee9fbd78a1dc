//! The bit-mask kernels: multi-word masks of option values, the far-move OR into one mask
//! per position, and the mex as the lowest zero bit.
//!
//! Algorithm: a block of [`LANES`] consecutive positions n0 .. n0 + 64 owns one mask of
//! `words` 64-bit words per position; bit v of n's mask is set when some option of n has
//! value v. A move s whose options all lie before the block contributes one contiguous read
//! `g[n0 - s .. n0 - s + 64]`, OR-ed lane by lane into the masks ([`MaskKernel::far_or`],
//! the dominant work, no order dependence); the mex of n is the lowest zero bit of its
//! mask ([`MaskKernel::mex`]).
//!
//! Cost: one shift-and-OR per option step, and `words` word compares per position for the
//! mex.
//!
//! Invariant: every value OR-ed into a mask is below 64·`words` (the caller sizes the
//! masks; a mex that does not fit is reported as `None`, so the caller can widen).
//!
//! Paths ([`crate::base::isa`]): [`Scalar`] is the twin every path is tested against (bit by
//! bit mex, bounds checked per lane), [`Portable`] the u64 code; the AVX2 and AVX-512 paths
//! (`x86.rs`) run the far-move OR 4 or 8 lanes at a time with the word of each value
//! selected by a compare mask, and the mex as a vector compare against all-ones. The path
//! is chosen in one place, [`dispatch`], which hands a [`WithMasks`] visitor the path's
//! kernels as a type: on the AVX paths the visitor runs inside a `#[target_feature]`
//! function, so the back-end's whole block loop is monomorphised and compiled for the path
//! and nothing in its inner loops dispatches.

use crate::base::isa::Isa;

#[cfg(target_arch = "x86_64")]
mod x86;

/// Positions per mask block (the far-move OR's widest lane group).
pub const LANES: usize = 64;

/// The two kernels a path supplies to a mask back-end's block loop.
pub trait MaskKernel {
    /// ORs into `masks` (lane j's `words` words at `j * words`) bit g(n - s) for every lane
    /// j < `len`, n = n0 + j, and every move s in `far` (ascending) with s <= n. Every value
    /// read is below 64·`words`, and n0 + [`LANES`] - s <= `g.len()` for every s (the vector
    /// paths load whole groups of up to 64 lanes; [`Scalar`] and [`Portable`] need only
    /// n0 + `len` - s <= `g.len()`, which `stamped-parallel`'s 32-lane blocks rely on).
    fn far_or(g: &[u16], masks: &mut [u64], n0: usize, len: usize, words: usize, far: &[usize]);

    /// The lowest zero bit of `mask`, or `None` when it is full.
    fn mex(mask: &[u64]) -> Option<usize>;
}

isa_family!(WithMasks: MaskKernel, "avx2,bmi1,bmi2", "avx512f,avx512bw,avx512vl,avx2,bmi1,bmi2");

/// The twin every path is tested against: one bit a step, bounds checked per lane.
pub struct Scalar;

impl MaskKernel for Scalar {
    fn far_or(g: &[u16], masks: &mut [u64], n0: usize, len: usize, words: usize, far: &[usize]) {
        for &s in far {
            for j in (0..len).filter(|&j| n0 + j >= s) {
                set_bit(
                    &mut masks[j * words..(j + 1) * words],
                    g[n0 + j - s] as usize,
                );
            }
        }
    }

    fn mex(mask: &[u64]) -> Option<usize> {
        lowest_zero_bit_scalar(mask)
    }
}

/// The u64 code that ran before runtime dispatch: one contiguous read per move.
pub struct Portable;

impl MaskKernel for Portable {
    #[inline(always)]
    fn far_or(g: &[u16], masks: &mut [u64], n0: usize, len: usize, words: usize, far: &[usize]) {
        let n_end = n0 + len;
        for &s in far {
            if s >= n_end {
                break;
            }
            let first_lane = s.saturating_sub(n0);
            let src = &g[n0 + first_lane - s..n_end - s];
            for (j, &v) in (first_lane..len).zip(src) {
                let v = v as usize;
                masks[j * words + (v >> 6)] |= 1u64 << (v & 63);
            }
        }
    }

    #[inline(always)]
    fn mex(mask: &[u64]) -> Option<usize> {
        lowest_zero_bit(mask)
    }
}

/// The index of the lowest zero bit of a multi-word mask (bit v of word v / 64), or `None`
/// when every bit is one (the mex would not be representable in this width).
///
/// Worked value: `[u64::MAX, 0b0111]` has words 0 full and bits 64, 65, 66 set, so the
/// answer is 67 (`trailing_ones` of the first word that is not full, plus 64 per full word).
#[inline]
pub fn lowest_zero_bit(mask: &[u64]) -> Option<usize> {
    mask.iter()
        .position(|&w| w != u64::MAX)
        .map(|i| i * 64 + mask[i].trailing_ones() as usize)
}

/// The scalar twin of [`lowest_zero_bit`]: bit by bit from bit 0, the definition itself.
/// Cost O(64·words); the reference every vector path is tested against.
pub fn lowest_zero_bit_scalar(mask: &[u64]) -> Option<usize> {
    (0..mask.len() * 64).find(|&v| (mask[v / 64] >> (v % 64)) & 1 == 0)
}

/// [`lowest_zero_bit`] on the path `isa`, through [`dispatch`] (the tests' and the roofline
/// primitive's entry; the back-ends call the path's kernel from code already compiled for
/// it). Panics when this CPU lacks `isa`.
pub fn lowest_zero_bit_on(isa: Isa, mask: &[u64]) -> Option<usize> {
    struct Mex<'a>(&'a [u64]);
    impl WithMasks for Mex<'_> {
        type Out = Option<usize>;
        #[inline(always)]
        fn run<K: MaskKernel>(self) -> Option<usize> {
            K::mex(self.0)
        }
    }
    dispatch(isa, Mex(mask))
}

/// The far-move OR of one block into `masks` ([`LANES`] lanes × `words` words) on the path
/// `isa`, through [`dispatch`]: what the tests compare across paths, and what the
/// roofline's `or_scan_word` primitive times, so the bound of `bitset` follows `--isa`.
/// Same contract as [`MaskKernel::far_or`]. Panics when this CPU lacks `isa`.
pub fn far_or_on(
    isa: Isa,
    g: &[u16],
    masks: &mut [u64],
    (n0, len, words): (usize, usize, usize),
    far: &[usize],
) {
    struct FarOr<'a> {
        g: &'a [u16],
        masks: &'a mut [u64],
        n0: usize,
        len: usize,
        words: usize,
        far: &'a [usize],
    }
    impl WithMasks for FarOr<'_> {
        type Out = ();
        #[inline(always)]
        fn run<K: MaskKernel>(self) {
            K::far_or(self.g, self.masks, self.n0, self.len, self.words, self.far)
        }
    }
    assert!(masks.len() >= LANES * words);
    dispatch(
        isa,
        FarOr {
            g,
            masks,
            n0,
            len,
            words,
            far,
        },
    )
}

/// Where the span a move reads from `g[at ..]` for a group of one block starts in the next
/// block: the block [`LANES`] positions on reads the same move [`LANES`] values on (its
/// option of n + LANES is g[n + LANES - s]). The far-move groups prefetch it.
#[inline(always)]
pub fn next_block_first(at: usize) -> usize {
    at + LANES
}

/// Sets bit v of a multi-word mask.
#[inline]
pub fn set_bit(mask: &mut [u64], v: usize) {
    mask[v >> 6] |= 1u64 << (v & 63);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;
    use crate::kernels::for_each_path_against_scalar;

    #[test]
    fn the_next_block_reads_each_move_one_block_further_on() {
        // A group at `base` reads g[base - s ..] for the move s; the group of the next block
        // is at base + 64 and reads g[base + 64 - s ..].
        for (base, s) in [(64, 64), (64, 1), (128, 100), (4096, 4096), (1 << 20, 999)] {
            assert_eq!(
                next_block_first(base - s),
                base + 64 - s,
                "base {base}, move {s}"
            );
        }
    }

    #[test]
    fn lowest_zero_bit_crosses_words() {
        assert_eq!(lowest_zero_bit(&[0b1011]), Some(2));
        assert_eq!(lowest_zero_bit(&[u64::MAX, 0]), Some(64));
        assert_eq!(lowest_zero_bit(&[u64::MAX, 0b111]), Some(67));
        assert_eq!(lowest_zero_bit(&[u64::MAX]), None);
    }

    #[test]
    fn lowest_zero_bit_every_path_matches_the_scalar_twin() {
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
            let want = for_each_path_against_scalar(&format!("case {case}"), |isa| {
                lowest_zero_bit_on(isa, &mask)
            });
            assert_eq!(want, lowest_zero_bit_scalar(&mask), "case {case}");
            assert_eq!(
                want,
                (zero_at < words * 64).then_some(zero_at),
                "case {case}"
            );
        });
    }

    /// A random block: 1 to 12 mask words (every chunk width, and chunks of 8 then 4),
    /// values below 64·words before n0, far moves (some reaching past n0,
    /// so partial lane groups occur), a full or a short last block.
    fn random_block(rng: &mut SplitMix64) -> (Vec<u16>, usize, usize, usize, Vec<usize>) {
        let words = rng.range(1, 12) as usize;
        let n0 = rng.range(0, 600) as usize;
        let len = if rng.below(3) == 0 {
            rng.range(1, 64) as usize
        } else {
            LANES
        };
        let g: Vec<u16> = (0..n0 + len)
            .map(|_| rng.below(64 * words as u64) as u16)
            .collect();
        let mut far: Vec<usize> = (0..rng.range(0, 40))
            .map(|_| rng.range(LANES as u64, 700) as usize)
            .collect();
        far.sort_unstable();
        far.dedup();
        (g, n0, len, words, far)
    }

    #[test]
    fn far_or_every_path_matches_the_scalar_twin() {
        crate::base::rng::for_each_case(21, 1500, |case, rng| {
            let (g, n0, len, words, far) = random_block(rng);
            let want = for_each_path_against_scalar(&format!("case {case}"), |isa| {
                let mut masks = vec![0u64; LANES * words];
                far_or_on(isa, &g, &mut masks, (n0, len, words), &far);
                // Lanes at or past `len` are scratch no path promises anything about.
                masks.truncate(len * words);
                masks
            });
            assert!(far.iter().all(|&s| s >= n0 + len) || want.iter().any(|&w| w != 0));
        });
    }

    #[test]
    fn set_bit_lands_in_the_right_word() {
        let mut m = [0u64; 2];
        set_bit(&mut m, 3);
        set_bit(&mut m, 64);
        assert_eq!(m, [8, 1]);
    }
}
