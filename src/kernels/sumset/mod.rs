//! The sumset kernels of `value-bounded`: the word-parallel test of which positions a class
//! of positions hits through the moves (the algorithm that calls them is in
//! `table/value_bounded.rs`).
//!
//! Algorithm: a class C is a bitset; the "hit" word of positions [n0, n0 + 64) is the OR
//! over moves s of the 64-bit window of C starting at n0 - s ([`window`]), a sumset test
//! done 64 positions at a time. A kernel ([`SumsetKernel`]) supplies the window read and the
//! group pass [`SumsetKernel::far_hits`], which ORs the far moves' windows into the hit
//! words of [`SumsetKernel::GROUP`] consecutive words at once.
//!
//! Cost: one window read (a shift pair and an OR) per (move, word) on the word paths; the
//! vector group pass (`x86.rs`) does G = 4 or 8 words per move in about 4 vector ops.
//!
//! Invariant: a far move s satisfies 64·GROUP <= s <= 64·w for the group starting at word
//! w, so every window of the group reads only words below w; the group pass never reads
//! the words it is deciding.
//!
//! Paths: [`Scalar`] is the twin every other path is tested against (windows read bit by
//! bit, no group pass); [`Portable`] is the u64 word code; AVX2 and AVX-512 (with and
//! without VBMI2's funnel shift) add the group pass. The ISA dispatch of this family is
//! [`dispatch`], taken once per call of the algorithm, outside its passes: the caller's
//! generic loop ([`WithSumset::run`]) is monomorphised for the chosen kernel and, on the
//! x86 paths, inlined into a function compiled with that path's target features.

#[cfg(target_arch = "x86_64")]
mod x86;

/// What a path supplies to the class passes.
pub trait SumsetKernel {
    /// Words decided together by the group pass (1: no group pass).
    const GROUP: usize;

    /// Bits `start .. start + 64` of `bits` as one word ([`window`]'s contract).
    fn window(bits: &[u64], start: isize) -> u64;

    /// `hits[i]` |= the OR over `far` of `window(class, 64·(w + i) - s)` for i < GROUP, at
    /// least on the bits of `free[i]`; each s lies in 64·GROUP ..= 64·w, so every window
    /// reads only words below w. May stop early once every bit of every `free[i]` is hit.
    fn far_hits(class: &[u64], w: usize, far: &[usize], free: &[u64], hits: &mut [u64]) {
        far_hits_by::<Self>(class, w, far, free, hits)
    }
}

isa_family!(WithSumset: SumsetKernel, avx2: x86::avx2_entry, avx512: x86::avx512_best_entry);

/// [`SumsetKernel::far_hits`] window by window with `K::window` (the scalar twin when `K`
/// is [`Scalar`]).
pub fn far_hits_by<K: SumsetKernel + ?Sized>(
    class: &[u64],
    w: usize,
    far: &[usize],
    free: &[u64],
    hits: &mut [u64],
) {
    for (i, (hit, _)) in hits.iter_mut().zip(free).enumerate() {
        for &s in far {
            *hit |= K::window(class, (64 * (w + i)) as isize - s as isize);
        }
    }
}

/// The twin every path is tested against: windows read bit by bit, no group pass.
pub struct Scalar;

impl SumsetKernel for Scalar {
    const GROUP: usize = 1;

    fn window(bits: &[u64], start: isize) -> u64 {
        window_by_bits(bits, start)
    }
}

/// The u64 word code that ran before runtime dispatch.
pub struct Portable;

impl SumsetKernel for Portable {
    const GROUP: usize = 1;

    #[inline(always)]
    fn window(bits: &[u64], start: isize) -> u64 {
        window(bits, start)
    }
}

/// Bits `start .. start + 64` of the bitset `bits` as one word (bit i of the result is bit
/// start + i); positions below 0 read as zero. The caller guarantees start + 63 lies within
/// the bitset.
#[inline(always)]
pub fn window(bits: &[u64], start: isize) -> u64 {
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

/// The scalar twin of [`window`]: bit by bit.
pub fn window_by_bits(bits: &[u64], start: isize) -> u64 {
    (0..64).fold(0u64, |acc, i| {
        let p = start + i as isize;
        let bit = p >= 0 && (bits[p as usize / 64] >> (p as usize % 64)) & 1 == 1;
        acc | ((bit as u64) << i)
    })
}

/// `v` run on every sumset kernel this CPU has, the scalar twin first, each with its name:
/// the paths of [`dispatch`], plus plain AVX-512 beside AVX-512 with VBMI2 when the CPU has
/// both. The per-path tests compare every result with the first.
#[cfg(test)]
pub(crate) fn each_kernel<V: WithSumset + Clone>(v: V) -> Vec<(&'static str, V::Out)> {
    let mut out = vec![
        ("scalar", v.clone().run::<Scalar>()),
        ("portable", v.clone().run::<Portable>()),
    ];
    #[cfg(target_arch = "x86_64")]
    x86::each_kernel(v, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::isa::Isa;

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

    /// One random group-pass case, generated for the kernel's own group width and answered
    /// by the kernel and by the scalar twin, masked to the free bits (the only bits the
    /// contract promises).
    #[derive(Clone)]
    struct FarHitsCase(u64);

    impl WithSumset for FarHitsCase {
        type Out = (Vec<u64>, Vec<u64>);

        fn run<K: SumsetKernel>(self) -> Self::Out {
            let mut rng = crate::base::rng::SplitMix64(self.0);
            let group = K::GROUP;
            let words = rng.range(2 * group as u64 + 1, 40) as usize;
            let w = rng.range(group as u64, (words - group) as u64) as usize;
            // Sparse classes (as most are) and dense ones; the words from w on are random
            // too, though no window may depend on them.
            let density = rng.below(4);
            let class: Vec<u64> = (0..words)
                .map(|_| (0..density).fold(u64::MAX, |m, _| m & rng.next_u64()))
                .collect();
            let free: Vec<u64> = (0..group)
                .map(|_| rng.next_u64() | rng.next_u64())
                .collect();
            let mut far: Vec<usize> = (0..rng.range(0, 30))
                .map(|_| rng.range(64 * group as u64, 64 * w as u64) as usize)
                .collect();
            far.sort_unstable();
            far.dedup();
            let masked = |hits: Vec<u64>| -> Vec<u64> {
                hits.iter().zip(&free).map(|(h, f)| h & f).collect()
            };
            let mut got = vec![0u64; group];
            K::far_hits(&class, w, &far, &free, &mut got);
            let mut want = vec![0u64; group];
            far_hits_by::<Scalar>(&class, w, &far, &free, &mut want);
            (masked(got), masked(want))
        }
    }

    #[test]
    fn far_hits_every_path_matches_the_scalar_twin() {
        crate::base::rng::for_each_case(31, 1500, |case, rng| {
            for (path, (got, want)) in each_kernel(FarHitsCase(rng.next_u64())) {
                assert_eq!(got, want, "case {case} {path}");
            }
        });
    }

    /// The kernel a path runs, as its group width and its type's name.
    struct Group;

    impl WithSumset for Group {
        type Out = (usize, &'static str);

        fn run<K: SumsetKernel>(self) -> Self::Out {
            // `a::b::Avx512<true>` -> `Avx512`.
            let path = std::any::type_name::<K>()
                .split('<')
                .next()
                .unwrap_or_default();
            (K::GROUP, path.rsplit("::").next().unwrap_or_default())
        }
    }

    /// Each path runs its own kernel: the scalar path the scalar twin (which has the same
    /// group width as the portable kernel, so only the name tells them apart).
    #[test]
    fn each_path_dispatches_to_its_own_kernel() {
        for isa in Isa::supported_all() {
            let want = match isa {
                Isa::Scalar => (1, "Scalar"),
                Isa::Portable => (1, "Portable"),
                Isa::Avx2 => (4, "Avx2"),
                // `Avx512<true>` with VBMI2, `Avx512<false>` without: both are `Avx512`.
                Isa::Avx512 => (8, "Avx512"),
            };
            assert_eq!(dispatch(isa, Group), want, "{isa}");
        }
    }

    /// The full type name of the kernel a path runs (generic arguments kept).
    struct FullName;

    impl WithSumset for FullName {
        type Out = &'static str;

        fn run<K: SumsetKernel>(self) -> Self::Out {
            std::any::type_name::<K>()
        }
    }

    /// On AVX-512 the VBMI2 funnel shift is taken exactly when the CPU has VBMI2 (the
    /// plain AVX-512 pass gives the same hits, so only the kernel's type tells).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_takes_the_funnel_shift_exactly_when_the_cpu_has_vbmi2() {
        if !Isa::Avx512.supported() {
            return;
        }
        let want = if std::arch::is_x86_feature_detected!("avx512vbmi2") {
            "Avx512<true>"
        } else {
            "Avx512<false>"
        };
        let got = dispatch(Isa::Avx512, FullName);
        assert!(got.ends_with(want), "{got}, want {want}");
    }

    /// Five far moves over a class whose words are all 0xff: at s = 64·G + 8j the windows
    /// are the word rotated right by 64 - 8j bits, so the moves j = 0..4 give bits
    /// 8j..8j + 8. The free bits are the low 32: every one is hit after the fourth move.
    #[derive(Clone)]
    struct FourMovesFillTheFreeBits;

    impl WithSumset for FourMovesFillTheFreeBits {
        type Out = (usize, Vec<u64>);

        fn run<K: SumsetKernel>(self) -> Self::Out {
            let group = K::GROUP;
            let w = 2 * group + 2;
            let class = vec![0xffu64; w + group + 2];
            let far: Vec<usize> = (0..5).map(|j| 64 * group + 8 * j).collect();
            let free = vec![0xffff_ffffu64; group];
            let mut hits = vec![0u64; group];
            K::far_hits(&class, w, &far, &free, &mut hits);
            (group, hits)
        }
    }

    /// The group passes test for a full group every 4 moves and stop there: after the
    /// fourth move here, so the fifth move's bits (32..40, outside the free ones) stay out;
    /// the passes without a group test (the scalar twin, the word code) read all five.
    #[test]
    fn the_group_passes_stop_after_the_fourth_move_once_every_free_bit_is_hit() {
        for (path, (group, hits)) in each_kernel(FourMovesFillTheFreeBits) {
            let want = if group == 1 {
                0xff_ffff_ffff
            } else {
                0xffff_ffff
            };
            assert_eq!(hits, vec![want; group], "{path}");
        }
    }
}
