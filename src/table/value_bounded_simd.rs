//! The x86-64 vector paths of `value-bounded` (the algorithm is in `value_bounded.rs`).
//!
//! The group pass: for G consecutive words w .. w + G (G = 8 with AVX-512, 4 with AVX2) and
//! a far move s (64·G <= s <= 64·w), the windows of the class bitset at 64·(w + i) - s for
//! i < G are words q + i .. q + i + 1 funnel-shifted right by r, where q·64 + r = 64·w - s:
//! two unaligned vector loads of the class and one funnel shift (AVX-512 VBMI2 `vpshrdvq`,
//! or `vpsrlvq`/`vpsllvq`/`vpor`, whose shift by 64 yields 0 so r = 0 needs no branch).
//! Cost per move: about 4 vector ops for G words against about 5G scalar ops.
//!
//! Invariant: s >= 64·G keeps every window of the group below word w (decided), and
//! s <= 64·w keeps q >= 0. The word q + G may be word w (only when s = 64·G and r = 0),
//! whose bits the shift discards. Every 4 moves the pass stops if every free position of
//! the group is hit, as the word-by-word scan does per word.

use super::value_bounded::{fill_with, Kernel};
use std::arch::x86_64::*;

/// The AVX-512 kernels, with (`VBMI2`) or without the VBMI2 funnel shift; only instantiated
/// inside [`fill_avx512`] and [`fill_avx512_vbmi2`].
struct Avx512<const VBMI2: bool>;

impl<const VBMI2: bool> Kernel for Avx512<VBMI2> {
    const GROUP: usize = 8;

    #[inline(always)]
    fn window(bits: &[u64], start: isize) -> u64 {
        super::value_bounded::window(bits, start)
    }

    #[inline(always)]
    fn far_hits(class: &[u64], w: usize, far: &[usize], free: &[u64], hits: &mut [u64]) {
        // SAFETY: this type is private and only used by the AVX-512 wrappers below, which
        // run on a CPU with AVX-512 F (and VBMI2 when `VBMI2`), their own contract.
        unsafe {
            if VBMI2 {
                far_hits_avx512_vbmi2(class, w, far, free, hits)
            } else {
                far_hits_avx512(class, w, far, free, hits)
            }
        }
    }
}

/// The AVX2 kernels; only instantiated inside [`fill_avx2`].
struct Avx2;

impl Kernel for Avx2 {
    const GROUP: usize = 4;

    #[inline(always)]
    fn window(bits: &[u64], start: isize) -> u64 {
        super::value_bounded::window(bits, start)
    }

    #[inline(always)]
    fn far_hits(class: &[u64], w: usize, far: &[usize], free: &[u64], hits: &mut [u64]) {
        // SAFETY: this type is private and only used by `fill_avx2` and the test entry,
        // which run on a CPU with AVX2 (their own contract).
        unsafe { far_hits_avx2(class, w, far, free, hits) }
    }
}

/// `value-bounded`'s passes compiled for AVX-512 with VBMI2.
///
/// # Safety
/// The CPU must have AVX-512 F/BW/VL/VBMI2 and AVX2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,bmi2")]
pub(super) unsafe fn fill_avx512_vbmi2(moves: &[usize], g: &mut [u16]) {
    fill_with::<Avx512<true>>(moves, g)
}

/// `value-bounded`'s passes compiled for AVX-512 without VBMI2.
///
/// # Safety
/// The CPU must have AVX-512 F/BW/VL and AVX2.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,bmi1,bmi2")]
pub(super) unsafe fn fill_avx512(moves: &[usize], g: &mut [u16]) {
    fill_with::<Avx512<false>>(moves, g)
}

/// `value-bounded`'s passes compiled for AVX2.
///
/// # Safety
/// The CPU must have AVX2, BMI1 and BMI2.
#[target_feature(enable = "avx2,bmi1,bmi2")]
pub(super) unsafe fn fill_avx2(moves: &[usize], g: &mut [u16]) {
    fill_with::<Avx2>(moves, g)
}

/// The group pass of the path `isa` (AVX2, or AVX-512 with and without VBMI2 when the CPU
/// has it, all checked against each other by the caller's twin), for the tests.
#[cfg(test)]
pub(super) fn far_hits_on(
    isa: crate::base::isa::Isa,
    class: &[u64],
    w: usize,
    far: &[usize],
    free: &[u64],
    hits: &mut [u64],
) {
    assert!(isa.supported(), "{isa} is not supported here");
    // SAFETY: the path is supported (asserted), VBMI2 is asked before its use.
    unsafe {
        if isa == crate::base::isa::Isa::Avx2 {
            return far_hits_avx2(class, w, far, free, hits);
        }
        let mut plain = vec![0u64; hits.len()];
        far_hits_avx512(class, w, far, free, &mut plain);
        if std::arch::is_x86_feature_detected!("avx512vbmi2") {
            far_hits_avx512_vbmi2(class, w, far, free, hits);
            // Both AVX-512 variants must agree on the free bits (the only ones promised).
            for ((h, p), f) in hits.iter().zip(&plain).zip(free) {
                assert_eq!(h & f, p & f, "vbmi2 and plain avx512 differ");
            }
        } else {
            hits.copy_from_slice(&plain);
        }
    }
}

/// Where the windows of a far move start: (q, r) with 64·q + r = 64·w - s, and the check
/// that words q .. q + G + 1 lie inside the class (so the two loads are in bounds).
#[inline(always)]
fn split(class: &[u64], w: usize, s: usize, group: usize) -> (usize, u64) {
    let start = 64 * w - s;
    let q = start / 64;
    assert!(q + group < class.len());
    (q, (start % 64) as u64)
}

/// The AVX-512 group pass with the VBMI2 funnel shift (see the module documentation).
///
/// # Safety
/// The CPU must have AVX-512 F and VBMI2.
#[target_feature(enable = "avx512f,avx512vbmi2")]
#[inline]
unsafe fn far_hits_avx512_vbmi2(
    class: &[u64],
    w: usize,
    far: &[usize],
    free: &[u64],
    hits: &mut [u64],
) {
    far_hits_avx512_body(class, w, far, free, hits, |lo, hi, r| {
        _mm512_shrdv_epi64(lo, hi, r)
    })
}

/// The AVX-512 group pass with two variable shifts in place of the funnel shift.
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn far_hits_avx512(class: &[u64], w: usize, far: &[usize], free: &[u64], hits: &mut [u64]) {
    let sixty_four = _mm512_set1_epi64(64);
    far_hits_avx512_body(class, w, far, free, hits, |lo, hi, r| {
        _mm512_or_si512(
            _mm512_srlv_epi64(lo, r),
            _mm512_sllv_epi64(hi, _mm512_sub_epi64(sixty_four, r)),
        )
    })
}

/// The body both AVX-512 group passes share; `funnel(lo, hi, r)` is lane-wise
/// (hi:lo >> r) mod 2^64.
#[target_feature(enable = "avx512f")]
#[inline]
fn far_hits_avx512_body(
    class: &[u64],
    w: usize,
    far: &[usize],
    free: &[u64],
    hits: &mut [u64],
    funnel: impl Fn(__m512i, __m512i, __m512i) -> __m512i,
) {
    assert!(free.len() == 8 && hits.len() == 8);
    // SAFETY: both slices hold 8 u64, the 64 bytes each unaligned access touches.
    let free = unsafe { _mm512_loadu_si512(free.as_ptr() as *const __m512i) };
    let mut acc = unsafe { _mm512_loadu_si512(hits.as_ptr() as *const __m512i) };
    for (k, &s) in far.iter().enumerate() {
        let (q, r) = split(class, w, s, 8);
        // SAFETY: q + 8 < class.len() (checked by `split`), so words q .. q + 9 are inside.
        let (lo, hi) = unsafe {
            let p = class.as_ptr().add(q);
            (
                _mm512_loadu_si512(p as *const __m512i),
                _mm512_loadu_si512(p.add(1) as *const __m512i),
            )
        };
        acc = _mm512_or_si512(acc, funnel(lo, hi, _mm512_set1_epi64(r as i64)));
        if k % 4 == 3 {
            let open = _mm512_andnot_si512(acc, free);
            if _mm512_test_epi64_mask(open, open) == 0 {
                break;
            }
        }
    }
    // SAFETY: `hits` holds 8 u64 (asserted).
    unsafe { _mm512_storeu_si512(hits.as_mut_ptr() as *mut __m512i, acc) };
}

/// The AVX2 group pass, 4 words, two variable shifts per move.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn far_hits_avx2(class: &[u64], w: usize, far: &[usize], free: &[u64], hits: &mut [u64]) {
    assert!(free.len() == 4 && hits.len() == 4);
    let sixty_four = _mm256_set1_epi64x(64);
    // SAFETY: both slices hold 4 u64, the 32 bytes each unaligned access touches.
    let free = unsafe { _mm256_loadu_si256(free.as_ptr() as *const __m256i) };
    let mut acc = unsafe { _mm256_loadu_si256(hits.as_ptr() as *const __m256i) };
    for (k, &s) in far.iter().enumerate() {
        let (q, r) = split(class, w, s, 4);
        // SAFETY: q + 4 < class.len() (checked by `split`), so words q .. q + 5 are inside.
        let (lo, hi) = unsafe {
            let p = class.as_ptr().add(q);
            (
                _mm256_loadu_si256(p as *const __m256i),
                _mm256_loadu_si256(p.add(1) as *const __m256i),
            )
        };
        let r = _mm256_set1_epi64x(r as i64);
        let win = _mm256_or_si256(
            _mm256_srlv_epi64(lo, r),
            _mm256_sllv_epi64(hi, _mm256_sub_epi64(sixty_four, r)),
        );
        acc = _mm256_or_si256(acc, win);
        if k % 4 == 3 {
            let open = _mm256_andnot_si256(acc, free);
            if _mm256_testz_si256(open, open) == 1 {
                break;
            }
        }
    }
    // SAFETY: `hits` holds 4 u64 (asserted).
    unsafe { _mm256_storeu_si256(hits.as_mut_ptr() as *mut __m256i, acc) };
}
