//! The AVX2 and AVX-512 paths of [`super::XorSweep::dot`] (the dispatch is in `mod.rs`).
//!
//! Algorithm: four zero-extended u32 counts per 256-bit vector; `mul_epu32` multiplies the
//! low 32 bits of each 64-bit lane, so each lane holds one exact P_c[y]·S[y xor h]. AVX-512
//! takes two blocks of four a step (S read at x xor h and (x + 4) xor h, each contiguous).
//!
//! Cost: G/4 (AVX2) or G/8 (AVX-512) vector multiply-adds per call, G the padded alphabet.
//!
//! Invariant: the counts fit u32 (the caller's [`super::XorSweep::fits`]), so the 32x32 ->
//! 64-bit products are exact. The functions are `unsafe fn` only because they are compiled
//! for instructions the baseline target lacks; the slices are indexed with bounds checks,
//! so a wrong length panics rather than reads out of bounds.

use super::DotKernel;
use std::arch::x86_64::*;

/// The AVX2 block sum. Private to the family: generic code gets it only through
/// `super::avx2_entry`, whose contract is a CPU with AVX2.
pub(super) struct Avx2;

impl DotKernel for Avx2 {
    #[inline(always)]
    fn dot(p: &[u32], suffix: &[u32], h: usize) -> u64 {
        // SAFETY: only reachable inside `avx2_entry`, which runs on a CPU with AVX2.
        unsafe { dot_avx2(p, suffix, h) }
    }
}

/// The AVX-512 block sum. Private to the family: only through `super::avx512_entry`
/// (AVX-512 F and AVX2).
pub(super) struct Avx512;

impl DotKernel for Avx512 {
    #[inline(always)]
    fn dot(p: &[u32], suffix: &[u32], h: usize) -> u64 {
        // SAFETY: only reachable inside `avx512_entry`, which runs on a CPU with AVX-512 F
        // and AVX2.
        unsafe { dot_avx512(p, suffix, h) }
    }
}

/// The four counts `s[at .. at + 4]` (bounds-checked), zero-extended to four u64 lanes.
///
/// # Safety
/// The CPU must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn widen4(s: &[u32], at: usize) -> __m256i {
    let four: &[u32; 4] = s[at..at + 4].try_into().expect("4 counts");
    // SAFETY: `four` is 16 readable bytes; `loadu` takes any alignment.
    _mm256_cvtepu32_epi64(unsafe { _mm_loadu_si128(four.as_ptr().cast()) })
}

/// One block of four products P_c[x..x+4]·S[(x xor h)..+4] in u64 lanes: `mul_epu32`
/// multiplies the low 32 bits of each 64-bit lane, which hold the zero-extended counts.
///
/// # Safety
/// The CPU must have AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn block4(p: &[u32], suffix: &[u32], x: usize, h: usize) -> __m256i {
    // SAFETY: the caller guarantees AVX2.
    unsafe { _mm256_mul_epu32(widen4(p, x), widen4(suffix, x ^ h)) }
}

/// [`super::XorSweep::dot`] four y a step, in four u64 accumulators.
///
/// # Safety
/// The CPU must have AVX2; `p.len()` is a multiple of 4.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn dot_avx2(p: &[u32], suffix: &[u32], h: usize) -> u64 {
    let mut acc = _mm256_setzero_si256();
    for x in (0..p.len()).step_by(4) {
        // SAFETY: the caller guarantees AVX2.
        acc = _mm256_add_epi64(acc, unsafe { block4(p, suffix, x, h) });
    }
    let mut lanes = [0u64; 4];
    // SAFETY: `lanes` is 32 writable bytes; `storeu` takes any alignment.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), acc) };
    lanes.iter().sum()
}

/// [`super::XorSweep::dot`] eight y a step: the blocks at x and x + 4 (S read at
/// x xor h and (x + 4) xor h, each contiguous) widened into one 512-bit multiply; a last
/// odd block of four goes through the AVX2 step.
///
/// # Safety
/// The CPU must have AVX-512 F and AVX2; `p.len()` is a multiple of 4.
#[target_feature(enable = "avx512f,avx2")]
#[inline]
unsafe fn dot_avx512(p: &[u32], suffix: &[u32], h: usize) -> u64 {
    let mut acc = _mm512_setzero_si512();
    let pairs = p.len() / 8 * 8;
    for x in (0..pairs).step_by(8) {
        // SAFETY: the caller guarantees AVX-512 F and AVX2 (`widen4`).
        let (pv, sv) = unsafe {
            let eight: &[u32; 8] = p[x..x + 8].try_into().expect("8 counts");
            let pv = _mm256_loadu_si256(eight.as_ptr().cast());
            let lo = widen4(suffix, x ^ h);
            let hi = widen4(suffix, (x + 4) ^ h);
            (
                _mm512_cvtepu32_epi64(pv),
                _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi),
            )
        };
        acc = _mm512_add_epi64(acc, _mm512_mul_epu32(pv, sv));
    }
    let mut total = _mm512_reduce_add_epi64(acc) as u64;
    if pairs < p.len() {
        let mut lanes = [0u64; 4];
        // SAFETY: AVX2 is guaranteed; `lanes` is 32 writable bytes.
        unsafe {
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), block4(p, suffix, pairs, h));
        }
        total += lanes.iter().sum::<u64>();
    }
    total
}
