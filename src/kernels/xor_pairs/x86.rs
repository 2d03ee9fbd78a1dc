//! The AVX2 and AVX-512 paths of the xor-pair search (the dispatch is in `mod.rs`).
//!
//! Algorithm: load a register of u16 lanes from each slice, xor them, compare every lane
//! with x; AVX2 turns the compare into a 32-bit byte mask (two bits per lane, so the lane
//! is the lowest set bit / 2), AVX-512 BW compares straight into a 32-bit lane mask. The
//! AVX2 path finishes the last len mod 16 pairs on the scalar twin; the AVX-512 path
//! finishes the last len mod 32 with one masked load and a masked compare, so it never
//! reads a lane past the slices' end.
//!
//! Cost: len/16 (AVX2) or len/32 (AVX-512) vector steps until the first hit.
//!
//! The marking xors and masks a register of pairs, stores the indices to a buffer on the
//! stack and writes one byte per index from it (the tail on the scalar twin).
//!
//! Invariant: the answer equals the scalar twin's ([`super::first_match_scalar`]), and the
//! row marked equals the twin's ([`super::mark_scalar`]). The
//! functions are `unsafe fn` only because they are compiled for instructions the baseline
//! target lacks; full-width loads are taken through bounds-checked sub-slices.

use super::{first_match_scalar, mark_scalar, PairKernel};
use std::arch::x86_64::*;

/// The AVX2 search. Private to the family: generic code gets it only through
/// `super::avx2_entry`, whose contract is a CPU with AVX2.
pub(super) struct Avx2;

impl PairKernel for Avx2 {
    #[inline(always)]
    fn first_match(lo: &[u16], hi: &[u16], x: u16) -> Option<usize> {
        // SAFETY: only reachable inside `avx2_entry`, which runs on a CPU with AVX2.
        unsafe { first_match_avx2(lo, hi, x) }
    }

    #[inline(always)]
    fn mark(lo: &[u16], hi: &[u16], row: &mut [u8]) {
        // SAFETY: as above.
        unsafe { mark_avx2(lo, hi, row) }
    }
}

/// The AVX-512 search. Private to the family: only through `super::avx512_entry`
/// (AVX-512 F/BW and AVX2).
pub(super) struct Avx512;

impl PairKernel for Avx512 {
    #[inline(always)]
    fn first_match(lo: &[u16], hi: &[u16], x: u16) -> Option<usize> {
        // SAFETY: only reachable inside `avx512_entry`, which runs on a CPU with AVX-512 F
        // and BW.
        unsafe { first_match_avx512(lo, hi, x) }
    }

    #[inline(always)]
    fn mark(lo: &[u16], hi: &[u16], row: &mut [u8]) {
        // SAFETY: as above.
        unsafe { mark_avx512(lo, hi, row) }
    }
}

/// Sixteen lanes a step.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn first_match_avx2(lo: &[u16], hi: &[u16], x: u16) -> Option<usize> {
    let len = lo.len().min(hi.len());
    let whole = len / 16 * 16;
    let want = _mm256_set1_epi16(x as i16);
    for at in (0..whole).step_by(16) {
        let a: &[u16; 16] = lo[at..at + 16].try_into().expect("16 lanes");
        let b: &[u16; 16] = hi[at..at + 16].try_into().expect("16 lanes");
        // SAFETY: `a` and `b` are 32 readable bytes each; `loadu` takes any alignment.
        let (va, vb) = unsafe {
            (
                _mm256_loadu_si256(a.as_ptr().cast()),
                _mm256_loadu_si256(b.as_ptr().cast()),
            )
        };
        let eq = _mm256_cmpeq_epi16(_mm256_xor_si256(va, vb), want);
        let bytes = _mm256_movemask_epi8(eq) as u32;
        if bytes != 0 {
            return Some(at + bytes.trailing_zeros() as usize / 2);
        }
    }
    first_match_scalar(&lo[whole..len], &hi[whole..len], x).map(|i| whole + i)
}

/// Thirty-two lanes a step; the tail in one masked step.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn first_match_avx512(lo: &[u16], hi: &[u16], x: u16) -> Option<usize> {
    let len = lo.len().min(hi.len());
    let whole = len / 32 * 32;
    let want = _mm512_set1_epi16(x as i16);
    for at in (0..whole).step_by(32) {
        let a: &[u16; 32] = lo[at..at + 32].try_into().expect("32 lanes");
        let b: &[u16; 32] = hi[at..at + 32].try_into().expect("32 lanes");
        // SAFETY: `a` and `b` are 64 readable bytes each; `loadu` takes any alignment.
        let (va, vb) = unsafe {
            (
                _mm512_loadu_si512(a.as_ptr().cast()),
                _mm512_loadu_si512(b.as_ptr().cast()),
            )
        };
        let hits = _mm512_cmpeq_epi16_mask(_mm512_xor_si512(va, vb), want);
        if hits != 0 {
            return Some(at + hits.trailing_zeros() as usize);
        }
    }
    let rest = len - whole;
    if rest == 0 {
        return None;
    }
    let (a, b) = (&lo[whole..len], &hi[whole..len]);
    let keep: __mmask32 = (1u32 << rest) - 1; // rest < 32
                                              // SAFETY: the mask enables only the `rest` lanes of `a` and `b`, which are readable;
                                              // masked-off lanes are not accessed (and raise no fault).
    let (va, vb) = unsafe {
        (
            _mm512_maskz_loadu_epi16(keep, a.as_ptr().cast()),
            _mm512_maskz_loadu_epi16(keep, b.as_ptr().cast()),
        )
    };
    let hits = _mm512_mask_cmpeq_epi16_mask(keep, _mm512_xor_si512(va, vb), want);
    (hits != 0).then(|| whole + hits.trailing_zeros() as usize)
}

/// Sixteen xors a step into a buffer, then a byte store each.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn mark_avx2(lo: &[u16], hi: &[u16], row: &mut [u8]) {
    assert!(
        row.len().is_power_of_two(),
        "a row's length is a power of two"
    );
    let len = lo.len().min(hi.len());
    let whole = len / 16 * 16;
    let last = row.len() - 1;
    let keep = _mm256_set1_epi16(last.min(0xffff) as u16 as i16);
    let mut at_once = [0u16; 16];
    for at in (0..whole).step_by(16) {
        let a: &[u16; 16] = lo[at..at + 16].try_into().expect("16 lanes");
        let b: &[u16; 16] = hi[at..at + 16].try_into().expect("16 lanes");
        // SAFETY: `a`, `b` and `at_once` are 32 bytes each; `loadu`/`storeu` take any
        // alignment.
        unsafe {
            let v = _mm256_and_si256(
                _mm256_xor_si256(
                    _mm256_loadu_si256(a.as_ptr().cast()),
                    _mm256_loadu_si256(b.as_ptr().cast()),
                ),
                keep,
            );
            _mm256_storeu_si256(at_once.as_mut_ptr().cast(), v);
        }
        for &i in &at_once {
            row[usize::from(i) & last] = 1;
        }
    }
    mark_scalar(&lo[whole..len], &hi[whole..len], row);
}

/// Thirty-two xors a step into a buffer, then a byte store each.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
unsafe fn mark_avx512(lo: &[u16], hi: &[u16], row: &mut [u8]) {
    assert!(
        row.len().is_power_of_two(),
        "a row's length is a power of two"
    );
    let len = lo.len().min(hi.len());
    let whole = len / 32 * 32;
    let last = row.len() - 1;
    let keep = _mm512_set1_epi16(last.min(0xffff) as u16 as i16);
    let mut at_once = [0u16; 32];
    for at in (0..whole).step_by(32) {
        let a: &[u16; 32] = lo[at..at + 32].try_into().expect("32 lanes");
        let b: &[u16; 32] = hi[at..at + 32].try_into().expect("32 lanes");
        // SAFETY: `a`, `b` and `at_once` are 64 bytes each; `loadu`/`storeu` take any
        // alignment.
        unsafe {
            let v = _mm512_and_si512(
                _mm512_xor_si512(
                    _mm512_loadu_si512(a.as_ptr().cast()),
                    _mm512_loadu_si512(b.as_ptr().cast()),
                ),
                keep,
            );
            _mm512_storeu_si512(at_once.as_mut_ptr().cast(), v);
        }
        for &i in &at_once {
            row[usize::from(i) & last] = 1;
        }
    }
    mark_scalar(&lo[whole..len], &hi[whole..len], row);
}
