//! The x86-64 sumset kernels: the group pass on AVX2 and AVX-512, and the entries that run
//! a [`WithSumset`] computation compiled for each path (the dispatch is in `mod.rs`).
//!
//! Algorithm: for G consecutive words w .. w + G (G = 8 with AVX-512, 4 with AVX2) and a far
//! move s (64·G <= s <= 64·w), the windows of the class bitset at 64·(w + i) - s for i < G
//! are words q + i .. q + i + 1 funnel-shifted right by r, where q·64 + r = 64·w - s: two
//! unaligned vector loads of the class and one funnel shift (AVX-512 VBMI2 `vpshrdvq`, or
//! `vpsrlvq`/`vpsllvq`/`vpor`, whose shift by 64 yields 0 so r = 0 needs no branch).
//!
//! Cost per move: about 4 vector ops for G words against about 5G scalar ops.
//!
//! Invariant: s >= 64·G keeps every window of the group below word w (decided), and
//! s <= 64·w keeps q >= 0. The word q + G may be word w (only when s = 64·G and r = 0),
//! whose bits the shift discards. Every 4 moves the pass stops if every free position of
//! the group is hit, as the word-by-word scan does per word.

use super::{window, SumsetKernel, WithSumset};
use std::arch::x86_64::*;

/// The AVX-512 kernels, with (`VBMI2`) or without the VBMI2 funnel shift. Private, and only
/// handed to generic code by [`avx512_vbmi2_entry`] and [`avx512_entry`], whose contract is
/// a CPU with the features.
struct Avx512<const VBMI2: bool>;

impl<const VBMI2: bool> SumsetKernel for Avx512<VBMI2> {
    const GROUP: usize = 8;

    #[inline(always)]
    fn window(bits: &[u64], start: isize) -> u64 {
        window(bits, start)
    }

    #[inline(always)]
    fn far_hits(class: &[u64], w: usize, far: &[usize], free: &[u64], hits: &mut [u64]) {
        // SAFETY: this type is private and reaches generic code only through the AVX-512
        // entries below, which run on a CPU with AVX-512 F (and VBMI2 when `VBMI2`), their
        // own contract; the CPU's features do not change while the process runs.
        unsafe {
            if VBMI2 {
                far_hits_avx512_vbmi2(class, w, far, free, hits)
            } else {
                far_hits_avx512(class, w, far, free, hits)
            }
        }
    }
}

/// The AVX2 kernels. Private, and only handed to generic code by [`avx2_entry`], whose
/// contract is a CPU with AVX2.
struct Avx2;

impl SumsetKernel for Avx2 {
    const GROUP: usize = 4;

    #[inline(always)]
    fn window(bits: &[u64], start: isize) -> u64 {
        window(bits, start)
    }

    #[inline(always)]
    fn far_hits(class: &[u64], w: usize, far: &[usize], free: &[u64], hits: &mut [u64]) {
        // SAFETY: this type is private and reaches generic code only through `avx2_entry`,
        // which runs on a CPU with AVX2 (its own contract).
        unsafe { far_hits_avx2(class, w, far, free, hits) }
    }
}

isa_entry! {
    /// `v` on the AVX-512 kernels with VBMI2, compiled for those features.
    avx512_vbmi2_entry: WithSumset => Avx512<true>, "avx512f,avx512bw,avx512vl,avx512vbmi2,avx2,bmi1,bmi2"
}

isa_entry! {
    /// `v` on the AVX-512 kernels without VBMI2, compiled for those features.
    avx512_entry: WithSumset => Avx512<false>, "avx512f,avx512bw,avx512vl,avx2,bmi1,bmi2"
}

isa_entry! {
    /// `v` on the AVX2 kernels, compiled for AVX2.
    avx2_entry: WithSumset => Avx2, "avx2,bmi1,bmi2"
}

/// `v` on the widest AVX-512 kernels this CPU has: with VBMI2's funnel shift when the CPU
/// has it (asked here, once per dispatch, outside the caller's loop), else without.
///
/// # Safety
/// The CPU must have AVX-512 F/BW/VL, AVX2, BMI1 and BMI2 ([`crate::base::isa::Isa::Avx512`]
/// supported).
#[inline]
pub(super) unsafe fn avx512_best_entry<V: WithSumset>(v: V) -> V::Out {
    // SAFETY: the caller guarantees the features of `avx512_entry`; VBMI2 is asked first.
    unsafe {
        if std::arch::is_x86_feature_detected!("avx512vbmi2") {
            avx512_vbmi2_entry(v)
        } else {
            avx512_entry(v)
        }
    }
}

/// Appends `v` run on every x86 kernel this CPU has: AVX2, plain AVX-512, and AVX-512 with
/// VBMI2, for [`super::each_kernel`].
#[cfg(test)]
pub(super) fn each_kernel<V: WithSumset + Clone>(v: V, out: &mut Vec<(&'static str, V::Out)>) {
    use crate::base::isa::Isa;
    // SAFETY: each entry runs only after the CPU was asked for its features.
    unsafe {
        if Isa::Avx2.supported() {
            out.push(("avx2", avx2_entry(v.clone())));
        }
        if Isa::Avx512.supported() {
            out.push(("avx512", avx512_entry(v.clone())));
            if std::arch::is_x86_feature_detected!("avx512vbmi2") {
                out.push(("avx512-vbmi2", avx512_vbmi2_entry(v)));
            }
        }
    }
}

/// Where the windows of the far moves start, for one group pass: what does not depend on the
/// move is computed once, before the loop over the moves (the compiler did not always hoist
/// it, at one instruction a move in the hottest loop of `value-bounded`).
struct Starts {
    /// 64·w.
    base: usize,
    /// class.len() - G (0 when the class is not longer than G, so every move is refused).
    room: usize,
}

impl Starts {
    #[inline(always)]
    fn new(class: &[u64], w: usize, group: usize) -> Starts {
        Starts {
            base: 64 * w,
            room: class.len().saturating_sub(group),
        }
    }

    /// (q, r) with 64·q + r = 64·w - s, and the check that words q .. q + G + 1 lie inside
    /// the class (q + G < class.len(), so the two loads are in bounds).
    #[inline(always)]
    fn of(&self, s: usize) -> (usize, u64) {
        let start = self.base - s;
        let q = start / 64;
        assert!(q < self.room);
        (q, (start % 64) as u64)
    }
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
    let starts = Starts::new(class, w, 8);
    for (k, &s) in far.iter().enumerate() {
        let (q, r) = starts.of(s);
        // SAFETY: q + 8 < class.len() (checked by `Starts::of`), so words q .. q + 9 are inside.
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
    let starts = Starts::new(class, w, 4);
    for (k, &s) in far.iter().enumerate() {
        let (q, r) = starts.of(s);
        // SAFETY: q + 4 < class.len() (checked by `Starts::of`), so words q .. q + 5 are inside.
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
