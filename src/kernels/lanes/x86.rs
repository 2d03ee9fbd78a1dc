//! The x86-64 paths of the lane kernels (the algorithm is in `mod.rs`): the mex scan and
//! the packing into bits with AVX2 and AVX-512, as the two path types that the family's
//! `#[target_feature]` entries (`isa_family!` in `mod.rs`) hand a visitor.
//!
//! Each kernel is an `unsafe fn` only because it is compiled for instructions the baseline
//! target lacks: the caller must know the CPU has them. Every load is unaligned and within
//! the slice (the loops step over whole `chunks_exact` chunks), so no other condition
//! applies.

use super::{first_unstamped_portable, LaneKernel};
use std::arch::x86_64::*;

/// The AVX2 lane kernels; only instantiated inside `super::avx2_entry` (and
/// `super::avx512_entry`, whose features include AVX2's).
pub(super) struct Avx2;

impl LaneKernel for Avx2 {
    #[inline(always)]
    fn first_unstamped(seen: &[u8], stamp: u8) -> usize {
        // SAFETY: this type is private to this family and only handed to a visitor by
        // `avx2_entry`, whose contract is a CPU with AVX2 and BMI1 (the pool threads the
        // visitor hands work to run on the same CPU).
        unsafe { first_unstamped_avx2(seen, stamp) }
    }

    #[inline(always)]
    fn stamps_to_bits(seen: &[u8], stamp: u8, out: &mut [u64]) {
        // SAFETY: as for `first_unstamped`.
        unsafe { stamps_to_bits_avx2(seen, stamp, out) }
    }
}

/// The AVX-512 lane kernels; only instantiated inside `super::avx512_entry`.
pub(super) struct Avx512;

impl LaneKernel for Avx512 {
    #[inline(always)]
    fn first_unstamped(seen: &[u8], stamp: u8) -> usize {
        // SAFETY: this type is private to this family and only handed to a visitor by
        // `avx512_entry`, whose contract is a CPU with AVX-512 F/BW, AVX2 and BMI1 (the
        // pool threads the visitor hands work to run on the same CPU).
        unsafe { first_unstamped_avx512(seen, stamp) }
    }

    #[inline(always)]
    fn stamps_to_bits(seen: &[u8], stamp: u8, out: &mut [u64]) {
        // SAFETY: as for `first_unstamped`.
        unsafe { stamps_to_bits_avx512(seen, stamp, out) }
    }
}

/// [`super::first_unstamped_on`], 32 bytes a step: `cmpeq` against the stamp, `movemask`
/// to one bit a byte, and the first zero bit is the first unstamped byte.
///
/// # Safety
/// The CPU must have AVX2 and BMI1.
#[inline]
#[target_feature(enable = "avx2,bmi1")]
unsafe fn first_unstamped_avx2(seen: &[u8], stamp: u8) -> usize {
    let s = _mm256_set1_epi8(stamp as i8);
    let mut chunks = seen.chunks_exact(32);
    for (i, chunk) in chunks.by_ref().enumerate() {
        // SAFETY: `chunk` is 32 readable bytes; `loadu` takes any alignment.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
        let equal = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, s)) as u32;
        if equal != u32::MAX {
            return i * 32 + (!equal).trailing_zeros() as usize;
        }
    }
    let done = seen.len() - chunks.remainder().len();
    done + first_unstamped_portable(chunks.remainder(), stamp)
}

/// [`super::first_unstamped_on`], 64 bytes a step: `cmpneq` against the stamp gives a
/// 64-bit mask of the unstamped bytes directly, whose lowest set bit is the answer.
///
/// # Safety
/// The CPU must have AVX-512 F and BW, and AVX2 and BMI1 (for the tail).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx2,bmi1")]
unsafe fn first_unstamped_avx512(seen: &[u8], stamp: u8) -> usize {
    let s = _mm512_set1_epi8(stamp as i8);
    let mut chunks = seen.chunks_exact(64);
    for (i, chunk) in chunks.by_ref().enumerate() {
        // SAFETY: `chunk` is 64 readable bytes; `loadu` takes any alignment.
        let v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
        let unstamped = _mm512_cmpneq_epi8_mask(v, s);
        if unstamped != 0 {
            return i * 64 + unstamped.trailing_zeros() as usize;
        }
    }
    let rest = chunks.remainder();
    let done = seen.len() - rest.len();
    // SAFETY: the caller guarantees AVX2 and BMI1 as well.
    done + unsafe { first_unstamped_avx2(rest, stamp) }
}

/// [`super::stamps_to_bits_on`], two 32-byte `cmpeq` + `movemask` per 64-bit word.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
unsafe fn stamps_to_bits_avx2(seen: &[u8], stamp: u8, out: &mut [u64]) {
    let s = _mm256_set1_epi8(stamp as i8);
    for (chunk, word) in seen.chunks_exact(64).zip(out.iter_mut()) {
        // SAFETY: `chunk` is 64 readable bytes, read as two unaligned halves.
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(chunk.as_ptr().cast()),
                _mm256_loadu_si256(chunk.as_ptr().add(32).cast()),
            )
        };
        let lo = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, s)) as u32 as u64;
        let hi = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, s)) as u32 as u64;
        *word = lo | hi << 32;
    }
}

/// [`super::stamps_to_bits_on`], one 64-byte `cmpeq` per word: its mask is the word.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn stamps_to_bits_avx512(seen: &[u8], stamp: u8, out: &mut [u64]) {
    let s = _mm512_set1_epi8(stamp as i8);
    for (chunk, word) in seen.chunks_exact(64).zip(out.iter_mut()) {
        // SAFETY: `chunk` is 64 readable bytes; `loadu` takes any alignment.
        let v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
        *word = _mm512_cmpeq_epi8_mask(v, s);
    }
}
