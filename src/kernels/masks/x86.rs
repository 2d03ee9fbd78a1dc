//! The x86-64 paths of the mask kernels (the algorithm is in `mod.rs`): AVX2 and AVX-512
//! versions of the far-move OR and of the lowest-zero-bit mex, as the two path types that
//! the family's `#[target_feature]` entries (`isa_family!` in `mod.rs`) hand a visitor.
//!
//! Far-move OR: lanes are taken in groups of L consecutive positions (up to 64), V vectors
//! of 8 (AVX-512) or 4 (AVX2) u64 lanes. For one group and a chunk of C mask words, C·V
//! vector accumulators hold word w0 + c of every lane of the group; each far move loads the
//! group's option values (u16, zero-extended to u64 lanes), turns value v into the bit
//! 1 << (v mod 64) and ORs it into the accumulator of word v / 64 only. AVX-512 selects the
//! word with a compare mask (`vpcmpeqq` to a k register, masked `vporq`), AVX2 with a
//! variable shift by v - 64·w that is zero whenever v lies outside word w (`vpsllvq` yields
//! 0 for counts above 63, and a negative difference is a huge unsigned count). Cost per
//! move and vector: one load and about 3 + 2C ops, against 8 (or 4) scalar
//! read-shift-OR-store steps. Taking the whole block (V = 8) per move, not 8 lanes at a
//! time, reads each move's 128 bytes of g once per block rather than once per 8 lanes; C·V
//! is kept within the register file. Each move also prefetches the lines it will read in
//! the next block (past N ~ 10^6 g no longer fits L2 and the block loop otherwise waits on
//! memory). What each of the two gains is measured in `results/table/isa-bits.md`.
//!
//! Invariant: a move s takes the vector step for a group only when s <= n0 + jg (every lane
//! of the group has its option), so the loads g[n0 + jg - s ..][..L] lie in finished blocks
//! (s >= 64, jg + L <= 64); the few moves that reach into the group's lanes are done lane by
//! lane.

use super::{lowest_zero_bit, next_block_first, set_bit, MaskKernel};
use crate::kernels::prefetch;
use std::arch::x86_64::*;

/// The AVX-512 kernels; only instantiated inside `super::avx512_entry`.
pub(super) struct Avx512;

impl MaskKernel for Avx512 {
    #[inline(always)]
    fn far_or(g: &[u16], masks: &mut [u64], n0: usize, len: usize, words: usize, far: &[usize]) {
        // SAFETY: this type is private to this family and only handed to a visitor by
        // `avx512_entry`, whose contract is a CPU with AVX-512 F (the pool threads the
        // visitor hands work to run on the same CPU).
        unsafe { far_or_avx512(g, masks, n0, len, words, far) }
    }

    #[inline(always)]
    fn mex(mask: &[u64]) -> Option<usize> {
        // SAFETY: as for `far_or`: only reached from code that runs with AVX-512 F.
        unsafe { lowest_zero_bit_avx512(mask) }
    }
}

/// The AVX2 kernels; only instantiated inside `super::avx2_entry` (and
/// `super::avx512_entry`, whose features include AVX2's).
pub(super) struct Avx2;

impl MaskKernel for Avx2 {
    #[inline(always)]
    fn far_or(g: &[u16], masks: &mut [u64], n0: usize, len: usize, words: usize, far: &[usize]) {
        // SAFETY: this type is private to this family and only handed to a visitor by
        // `avx2_entry`, whose contract is a CPU with AVX2 (the pool threads the visitor
        // hands work to run on the same CPU).
        unsafe { far_or_avx2(g, masks, n0, len, words, far) }
    }

    #[inline(always)]
    fn mex(mask: &[u64]) -> Option<usize> {
        // SAFETY: as for `far_or`: only reached from code that runs with AVX2.
        unsafe { lowest_zero_bit_avx2(mask) }
    }
}

/// Declares the far-move OR of both paths, [`far_or_avx512`] and [`far_or_avx2`], from one
/// table on the mask width `words`: a row `words => (L, C, V), (L, C, V)` gives each path
/// (AVX-512, then AVX2) L lanes a group and C words a chunk for [`groups`], and C, V vectors
/// a move and L for its `group_*`, all consts (so the accumulators stay in registers).
macro_rules! far_or_paths {
    ($($pat:pat => ($l5:literal, $c5:literal, $v5:literal), ($l2:literal, $c2:literal, $v2:literal)),+ $(,)?) => {
        far_or_paths!(@path
            /// The AVX-512 far-move OR: C up to 8 words and L = 8·V lanes, so the C·V
            /// accumulators stay in registers (at most 24 of the 32) and one move's V loads
            /// share its cache lines.
            far_or_avx512, "avx512f", group_avx512; $($pat => ($l5, $c5, $v5)),+);
        far_or_paths!(@path
            /// As [`far_or_avx512`] with AVX2 (4 lanes a vector, 16 registers: C·V <= 12).
            far_or_avx2, "avx2", group_avx2; $($pat => ($l2, $c2, $v2)),+);
    };
    (@path $(#[$doc:meta])* $name:ident, $features:literal, $group:ident;
     $($pat:pat => ($l:literal, $c:literal, $v:literal)),+) => {
        $(#[$doc])*
        ///
        /// # Safety
        #[doc = concat!("The CPU must have ", $features, ".")]
        #[target_feature(enable = $features)]
        #[inline]
        unsafe fn $name(
            g: &[u16],
            m: &mut [u64],
            n0: usize,
            len: usize,
            words: usize,
            far: &[usize],
        ) {
            match words {
                $($pat => groups::<$l, $c>(g, m, n0, len, words, far, |g, b, f, w| {
                    $group::<$c, $v, $l>(g, b, f, w)
                }),)+
            }
        }
    };
}

far_or_paths! {
    // words => AVX-512 (L, C, V), AVX2 (L, C, V)
    1 => (64, 1, 8), (32, 1, 8),
    2 => (64, 2, 8), (16, 2, 4),
    3 => (64, 3, 8), (8, 3, 2),
    4 => (32, 4, 4), (8, 4, 2),
    // 10^7 needs 6 words: AVX-512 one pass of 6 over 32 lanes, not two of 4; AVX2 one
    // chunk (the word constants spill to memory operands).
    5 | 6 => (32, 6, 4), (8, 6, 2),
    _ => (16, 8, 2), (4, 8, 1),
}

/// The group loop shared by both widths: for each group of L lanes, the moves with every
/// lane's option present go to `group` (C words at a time, scattered into the [lane][word]
/// masks), the rest lane by lane.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn groups<const L: usize, const C: usize>(
    g: &[u16],
    masks: &mut [u64],
    n0: usize,
    len: usize,
    words: usize,
    far: &[usize],
    group: impl Fn(&[u16], usize, &[usize], usize) -> [[u64; L]; C],
) {
    for jg in (0..len).step_by(L) {
        let base = n0 + jg;
        let whole = far.partition_point(|&s| s <= base);
        let lanes = jg..(jg + L).min(len);
        for w0 in (0..words).step_by(C) {
            let acc = group(g, base, &far[..whole], w0);
            for (c, row) in acc.iter().enumerate().take(words - w0) {
                for (j, &bits) in lanes.clone().zip(row) {
                    masks[j * words + w0 + c] |= bits;
                }
            }
        }
        for &s in &far[whole..] {
            if s >= n0 + lanes.end {
                break;
            }
            for j in lanes.clone().filter(|&j| n0 + j >= s) {
                set_bit(
                    &mut masks[j * words..(j + 1) * words],
                    g[n0 + j - s] as usize,
                );
            }
        }
    }
}

/// Words w0 .. w0 + C of the masks of the L = 8·V lanes from `base`, over the moves `far`
/// (each s <= base and s >= 64, so g[base - s .. base - s + L] is finished and in bounds).
// `i` picks both the lanes of g to load and the accumulator of those lanes in every
// word's row: an index reads more plainly than zipped iterators over the rows.
#[allow(clippy::needless_range_loop)]
#[target_feature(enable = "avx512f")]
#[inline]
fn group_avx512<const C: usize, const V: usize, const L: usize>(
    g: &[u16],
    base: usize,
    far: &[usize],
    w0: usize,
) -> [[u64; L]; C] {
    const { assert!(L == 8 * V) };
    let one = _mm512_set1_epi64(1);
    let low6 = _mm512_set1_epi64(63);
    let word: [__m512i; C] = std::array::from_fn(|c| _mm512_set1_epi64((w0 + c) as i64));
    let mut acc = [[_mm512_setzero_si512(); V]; C];
    for &s in far {
        let at = base - s;
        assert!(at + L <= g.len());
        prefetch_next_block(g, at, L);
        for i in 0..V {
            // SAFETY: at + L <= g.len() (asserted once a move; one compare beside the vector
            // work), so the 16-byte load of lanes 8i .. 8i + 8 stays inside `g`.
            let p = unsafe { g.as_ptr().add(at + 8 * i) } as *const __m128i;
            let v = _mm512_cvtepu16_epi64(unsafe { _mm_loadu_si128(p) });
            let bit = _mm512_sllv_epi64(one, _mm512_and_si512(v, low6));
            let idx = _mm512_srli_epi64::<6>(v);
            for c in 0..C {
                let k = _mm512_cmpeq_epi64_mask(idx, word[c]);
                acc[c][i] = _mm512_mask_or_epi64(acc[c][i], k, acc[c][i], bit);
            }
        }
    }
    let mut out = [[0u64; L]; C];
    for c in 0..C {
        for i in 0..V {
            // SAFETY: out[c][8i .. 8i + 8] is 64 bytes inside `out`, the unaligned store's size.
            unsafe { _mm512_storeu_si512(out[c][8 * i..].as_mut_ptr() as *mut __m512i, acc[c][i]) };
        }
    }
    out
}

/// Asks for the lines the same move reads in the next block, g[[`next_block_first`]`(at)`
/// ..][..lanes], into L2: with thousands of moves no hardware stream prefetcher tracks them,
/// and beyond 10^6 (g over 2 MB) each block otherwise waits on L3 or memory for every move.
#[inline(always)]
fn prefetch_next_block(g: &[u16], at: usize, lanes: usize) {
    prefetch::to_l2(g, next_block_first(at), lanes);
}

/// As [`group_avx512`] with AVX2, L = 4·V lanes; the word is selected by the shift count
/// v - 64·w (out of range, so zero, for every other word).
// `i` picks both the lanes of g to load and the accumulator of those lanes in every
// word's row: an index reads more plainly than zipped iterators over the rows.
#[allow(clippy::needless_range_loop)]
#[target_feature(enable = "avx2")]
#[inline]
fn group_avx2<const C: usize, const V: usize, const L: usize>(
    g: &[u16],
    base: usize,
    far: &[usize],
    w0: usize,
) -> [[u64; L]; C] {
    const { assert!(L == 4 * V) };
    let one = _mm256_set1_epi64x(1);
    let word: [__m256i; C] = std::array::from_fn(|c| _mm256_set1_epi64x(64 * (w0 + c) as i64));
    let mut acc = [[_mm256_setzero_si256(); V]; C];
    for &s in far {
        let at = base - s;
        assert!(at + L <= g.len());
        prefetch_next_block(g, at, L);
        for i in 0..V {
            // SAFETY: at + L <= g.len() (asserted), so the 8-byte load of lanes 4i .. 4i + 4
            // stays inside `g`.
            let p = unsafe { g.as_ptr().add(at + 4 * i) } as *const __m128i;
            let v = _mm256_cvtepu16_epi64(unsafe { _mm_loadl_epi64(p) });
            for c in 0..C {
                let bit = _mm256_sllv_epi64(one, _mm256_sub_epi64(v, word[c]));
                acc[c][i] = _mm256_or_si256(acc[c][i], bit);
            }
        }
    }
    let mut out = [[0u64; L]; C];
    for c in 0..C {
        for i in 0..V {
            // SAFETY: out[c][4i .. 4i + 4] is 32 bytes inside `out`, the unaligned store's size.
            unsafe { _mm256_storeu_si256(out[c][4 * i..].as_mut_ptr() as *mut __m256i, acc[c][i]) };
        }
    }
    out
}

/// [`super::lowest_zero_bit`] four words a step with AVX2: compare against all-ones, take the first
/// word that differs; the tail (fewer than 4 words) word by word.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn lowest_zero_bit_avx2(mask: &[u64]) -> Option<usize> {
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

/// [`super::lowest_zero_bit`] eight words a step with AVX-512: `vpcmpneqq` against all-ones gives
/// one mask bit per word that is not full; the tail is a masked load of the last words.
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn lowest_zero_bit_avx512(mask: &[u64]) -> Option<usize> {
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
