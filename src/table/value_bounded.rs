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
//!
//! Paths (`--isa`, read once per `fill`): `portable` is the u64 word code above; `scalar`
//! is its twin with each window read bit by bit. `avx2` and `avx512` add a group pass
//! (`value_bounded_simd.rs`): the hit words of G = 4 or 8 consecutive words are OR-ed over
//! the far moves s >= 64·G in lockstep, one vector funnel shift per move (AVX-512 VBMI2
//! `vpshrdvq` when the CPU has it, else two variable shifts). A far move's windows for the
//! G words then read only words below the group, which are decided, so the lockstep is
//! exact; the near moves s < 64·G (which read words of the group itself) and the moves
//! reaching below position 0 are then applied word by word, in order, as before.

use super::TableBuilder;
use crate::base::isa::{self, Isa};
use crate::base::moves::Moves;

/// Eppstein-style value-bounded table. See the module documentation.
pub struct ValueBounded;

impl TableBuilder for ValueBounded {
    /// Decides value classes over all positions, so it ignores `from` (not resumable).
    fn fill(&self, moves: &Moves, g: &mut [u16], _from: usize, _max_before: u16) {
        let limit = g.len() - 1;
        fill_on(isa::active(), &moves.up_to(limit), g);
    }

    fn resumable(&self) -> bool {
        false
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // Two bitsets of N bits (unassigned positions, current class) and the move list.
        2 * (limit as u64 + 1).div_ceil(64) * 8 + 8 * moves.up_to(limit).len() as u64
    }

    fn vector_kernels(&self) -> bool {
        true
    }
}

/// What a path supplies to the class passes.
pub(super) trait Kernel {
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

/// [`Kernel::far_hits`] window by window with `K::window` (the scalar twin when `K` is
/// [`Scalar`]).
pub(super) fn far_hits_by<K: Kernel + ?Sized>(
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
pub(super) struct Scalar;

impl Kernel for Scalar {
    const GROUP: usize = 1;

    fn window(bits: &[u64], start: isize) -> u64 {
        window_by_bits(bits, start)
    }
}

/// The u64 word code that ran before runtime dispatch.
pub(super) struct Portable;

impl Kernel for Portable {
    const GROUP: usize = 1;

    #[inline(always)]
    fn window(bits: &[u64], start: isize) -> u64 {
        window(bits, start)
    }
}

/// `fill` on the path `isa` (supported by this CPU; [`isa::force`] guarantees it for
/// [`isa::active`]) with the moves up to N, ascending.
fn fill_on(isa: Isa, moves: &[usize], g: &mut [u16]) {
    #[cfg(target_arch = "x86_64")]
    use super::value_bounded_simd as simd;
    match isa {
        Isa::Scalar => fill_with::<Scalar>(moves, g),
        // SAFETY: `isa` is supported by this CPU (the caller's contract), so the target
        // features of these functions are present; VBMI2 is asked separately.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { simd::fill_avx2(moves, g) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512vbmi2") => unsafe {
            simd::fill_avx512_vbmi2(moves, g)
        },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { simd::fill_avx512(moves, g) },
        _ => fill_with::<Portable>(moves, g),
    }
}

/// The passes over values 0, 1, 2, …, generic over the path; inlined into each path's
/// wrapper so it is compiled with that path's target features.
#[inline(always)]
pub(super) fn fill_with<K: Kernel>(moves: &[usize], g: &mut [u16]) {
    let limit = g.len() - 1;
    let words = (limit + 1).div_ceil(64);
    let mut state = Passes {
        moves,
        near_mask: moves
            .iter()
            .take_while(|&&s| s < 64)
            .fold(0u64, |m, &s| m | (1u64 << s)),
        far_from: moves.partition_point(|&s| s < 64 * K::GROUP),
        unassigned: vec![u64::MAX; words],
        class: vec![0u64; words],
    };
    let tail = (limit + 1) % 64;
    if tail != 0 {
        state.unassigned[words - 1] = (1u64 << tail) - 1;
    }
    let mut remaining = limit + 1;
    let mut value = 0u16;
    while remaining > 0 {
        remaining -= state.pass::<K>(g, value);
        value += 1;
    }
}

/// The state the passes share.
struct Passes<'a> {
    /// The moves up to N, ascending.
    moves: &'a [usize],
    /// Bit s set for every move s < 64.
    near_mask: u64,
    /// Index of the first move >= 64·GROUP (the group pass's moves start there).
    far_from: usize,
    /// Positions not yet given a value.
    unassigned: Vec<u64>,
    /// The class being decided.
    class: Vec<u64>,
}

impl Passes<'_> {
    /// Decides class `value` (writing it into `g`) and returns its size.
    #[inline(always)]
    fn pass<K: Kernel>(&mut self, g: &mut [u16], value: u16) -> usize {
        let words = self.class.len();
        self.class.iter_mut().for_each(|w| *w = 0);
        let mut assigned = 0;
        let mut w = 0;
        while w < words {
            let group = if K::GROUP > 1 && w + K::GROUP <= words {
                K::GROUP
            } else {
                1
            };
            if self.unassigned[w..w + group].iter().all(|&f| f == 0) {
                w += group;
                continue;
            }
            // Moves s <= 64·w reach no lower than position 0 from any word of the group.
            let (a, b) = (self.far_from, self.moves.partition_point(|&s| s <= 64 * w));
            let (a, b) = if group == 1 { (0, 0) } else { (a, b.max(a)) };
            let mut hits = [0u64; 8];
            if group > 1 {
                let free = &self.unassigned[w..w + group];
                K::far_hits(&self.class, w, &self.moves[a..b], free, &mut hits[..group]);
            }
            for (i, &hit) in hits.iter().enumerate().take(group) {
                let rest = [&self.moves[..a], &self.moves[b..]];
                assigned += self.decide_word::<K>(w + i, hit, rest, g, value);
            }
            w += group;
        }
        assigned
    }

    /// Decides the members of class `value` in word `w`, given the hits of some moves
    /// already (`hit`) and the others in `rest` (each ascending); returns how many.
    #[inline(always)]
    fn decide_word<K: Kernel>(
        &mut self,
        w: usize,
        mut hit: u64,
        rest: [&[usize]; 2],
        g: &mut [u16],
        value: u16,
    ) -> usize {
        let free = self.unassigned[w];
        if free == 0 {
            return 0;
        }
        let n0 = w * 64;
        for list in rest {
            for &s in list {
                if s > n0 + 63 || free & !hit == 0 {
                    break;
                }
                hit |= K::window(&self.class, n0 as isize - s as isize);
            }
        }
        let mut members = 0u64;
        let mut open = free & !hit;
        while open != 0 {
            let j = open.trailing_zeros();
            members |= 1u64 << j;
            hit |= self.near_mask << j;
            open &= open - 1;
            open &= !hit;
        }
        self.class[w] = members;
        self.unassigned[w] &= !members;
        let mut bits = members;
        while bits != 0 {
            g[n0 + bits.trailing_zeros() as usize] = value;
            bits &= bits - 1;
        }
        members.count_ones() as usize
    }
}

/// Bits `start .. start + 64` of the bitset `bits` as one word (bit i of the result is bit
/// start + i); positions below 0 read as zero. The caller guarantees start + 63 lies within
/// the bitset.
#[inline(always)]
pub(super) fn window(bits: &[u64], start: isize) -> u64 {
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
pub(super) fn window_by_bits(bits: &[u64], start: isize) -> u64 {
    (0..64).fold(0u64, |acc, i| {
        let p = start + i as isize;
        let bit = p >= 0 && (bits[p as usize / 64] >> (p as usize % 64)) & 1 == 1;
        acc | ((bit as u64) << i)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// `far_hits` of the path `isa` on its own group width, masked to the free bits (the
    /// only bits the contract promises).
    fn far_hits_on(isa: Isa, class: &[u64], w: usize, far: &[usize], free: &[u64]) -> Vec<u64> {
        assert!(isa.supported(), "{isa} is not supported here");
        let mut hits = vec![0u64; free.len()];
        match isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 | Isa::Avx512 => {
                super::super::value_bounded_simd::far_hits_on(isa, class, w, far, free, &mut hits)
            }
            Isa::Scalar => far_hits_by::<Scalar>(class, w, far, free, &mut hits),
            _ => far_hits_by::<Portable>(class, w, far, free, &mut hits),
        }
        hits.iter().zip(free).map(|(h, f)| h & f).collect()
    }

    #[test]
    fn far_hits_every_path_matches_the_scalar_twin() {
        crate::base::rng::for_each_case(31, 1500, |case, rng| {
            for isa in Isa::supported_all() {
                let group = if isa >= Isa::Avx2 {
                    if isa == Isa::Avx512 {
                        8
                    } else {
                        4
                    }
                } else {
                    1
                };
                let words = rng.range(2 * group as u64 + 1, 40) as usize;
                let w = rng.range(group as u64, (words - group) as u64) as usize;
                // Sparse classes (as most are) and dense ones; the words from w on are
                // random too, though no window may depend on them.
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
                let want = far_hits_on(Isa::Scalar, &class, w, &far, &free);
                assert_eq!(
                    far_hits_on(isa, &class, w, &far, &free),
                    want,
                    "case {case} {isa}"
                );
            }
        });
    }

    #[test]
    fn every_path_builds_the_same_table_as_the_scalar_twin() {
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        // {1..=150}: g(n) = n mod 151, 151 passes; the squares reach far moves > 512.
        for moves in [Moves::Squares, Moves::list((1..=150).collect()).unwrap()] {
            let want = isa::with(Isa::Scalar, || ValueBounded.build(&moves, 3000)).unwrap();
            assert!(want.max_value() >= 10);
            for path in Isa::supported_all() {
                let got = isa::with(path, || ValueBounded.build(&moves, 3000)).unwrap();
                assert_eq!(got, want, "{path} on {moves:?}");
            }
        }
    }
}
