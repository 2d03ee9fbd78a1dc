//! Shared kernels of the lane-blocked stamped back-ends (`stamped-lanes`, `stamped-parallel`).
//!
//! A *lane block* is [`LANES`] = 32 consecutive positions n0 .. n0 + 32. Each lane (position) owns
//! a `seen` array of `G` bytes (G a power of two); an option of value v is recorded by
//! writing the block's stamp into `seen[lane][v]`, and the mex is the first byte that does not
//! hold the stamp. One option step is therefore one 2-byte load and one 1-byte store, with no
//! read-modify-write and no variable shift: that is what makes these back-ends fast.
//!
//! Stamps: every use of a scratch [`SeenLanes`] takes a fresh stamp 1..=255, so nothing has to
//! be cleared between blocks; when the stamp wraps, the arrays are zeroed once (every 255
//! blocks).
//!
//! Invariant every caller keeps: every value written is below `G` (the index is masked with
//! `G - 1`, which is only the identity under this invariant; the masking keeps the code free
//! of bounds checks and of `unsafe`). A mex computed in a block is at most one more than the
//! largest option value, so a caller that knows all option values are `<= m` and computes at
//! most `LANES` new values in order needs `G >= m + LANES + 2`.
//!
//! Vector paths ([`crate::base::isa`]): the two scans over a lane's bytes, the mex
//! ([`first_unstamped_on`]) and the packing into bits ([`stamps_to_bits_on`]), have a scalar,
//! a portable, an AVX2 and an AVX-512 path each, all returning the same result; a
//! [`SeenLanes`] takes the path active at its creation. The AVX ones are the only `unsafe`
//! here (`mod x86`, each an unsafe `#[target_feature]` fn called only on its own path); the
//! byte stores of [`SeenLanes::stamp_moves`] have no vector path.

use crate::base::isa::{self, Isa};
use wide::u8x16;

/// Positions per lane block.
pub(crate) const LANES: usize = 32;

/// One lane's `seen` bytes, on a 64-byte boundary (G is a multiple of 64, so every lane of a
/// [`SeenLanes`] is): the 32- and 64-byte loads of the AVX paths then never straddle two
/// cache lines (a 16-byte aligned allocation made every 64-byte load of the AVX-512 path
/// touch two lines).
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Lane<const G: usize>([u8; G]);

/// Per-lane stamped `seen` arrays of `G` bytes each, with the current stamp.
pub(crate) struct SeenLanes<const G: usize> {
    lanes: Box<[Lane<G>; LANES]>,
    stamp: u8,
    /// The vector path of the mex scan and the bit packing, read once at creation (the mex
    /// runs once per position, so the choice is not re-read there).
    path: Isa,
}

impl<const G: usize> SeenLanes<G> {
    pub(crate) fn new() -> Self {
        Self::on(isa::active())
    }

    /// Lanes whose mex scan and bit packing take `path` (one [`crate::base::isa::force`] accepts).
    pub(crate) fn on(path: Isa) -> Self {
        assert!(G.is_power_of_two() && G >= 64);
        let lanes: Box<[Lane<G>; LANES]> = vec![Lane([0u8; G]); LANES]
            .into_boxed_slice()
            .try_into()
            .expect("LANES rows");
        SeenLanes {
            lanes,
            stamp: 0,
            path,
        }
    }

    /// Starts a new block: takes a fresh stamp, so every lane is empty.
    #[inline]
    pub(crate) fn next_block(&mut self) {
        if self.stamp == u8::MAX {
            self.lanes.iter_mut().for_each(|l| l.0.fill(0));
            self.stamp = 0;
        }
        self.stamp += 1;
    }

    /// Records, for every move s in `moves` (ascending) and every lane j with s <= n0 + j, the
    /// option value `g[n0 + j - s]` in lane j. The caller guarantees all those options are
    /// finished and their values are below `G`, and that n0 + LANES - 1 - s indexes `g` for
    /// every s (true whenever s >= LANES or the block is complete).
    #[inline]
    pub(crate) fn stamp_moves(&mut self, g: &[u16], n0: usize, moves: &[usize]) {
        let stamp = self.stamp;
        let lanes = &mut *self.lanes;
        for (i, &s) in moves.iter().enumerate() {
            if let Some(&ahead) = moves.get(i + PREFETCH_AHEAD) {
                if ahead <= n0 {
                    prefetch_span(g, n0 - ahead);
                }
            }
            if s <= n0 {
                let src: &[u16; LANES] =
                    g[n0 - s..n0 - s + LANES].try_into().expect("LANES values");
                for (lane, &v) in lanes.iter_mut().zip(src) {
                    lane.0[v as usize & (G - 1)] = stamp;
                }
            } else if s < n0 + LANES {
                let first = s - n0;
                let src = &g[..n0 + LANES - s];
                for (lane, &v) in lanes[first..].iter_mut().zip(src) {
                    lane.0[v as usize & (G - 1)] = stamp;
                }
            } else {
                break;
            }
        }
    }

    /// Records the values of the options n - s (s in `moves`, ascending, s <= n) of the single
    /// position n = n0 + `lane`; used for the moves whose options lie inside the block.
    #[inline]
    pub(crate) fn stamp_position(&mut self, g: &[u16], n: usize, lane: usize, moves: &[usize]) {
        let stamp = self.stamp;
        let seen = &mut self.lanes[lane].0;
        for &s in moves.iter().take_while(|&&s| s <= n) {
            seen[g[n - s] as usize & (G - 1)] = stamp;
        }
    }

    /// The mex of lane `lane`: the first index whose byte is not the current stamp.
    #[inline]
    pub(crate) fn mex(&self, lane: usize) -> usize {
        first_unstamped_on(self.path, &self.lanes[lane].0, self.stamp)
    }

    /// Writes lane j's set of recorded values as a bit mask into `out[j * words ..][..G/64]`
    /// (bit v set when value v was recorded) and zeroes the remaining words of each lane.
    pub(crate) fn to_bitmasks(&self, out: &mut [u64], words: usize) {
        let w = G / 64;
        debug_assert!(words >= w && out.len() >= LANES * words);
        for (lane, mask) in self.lanes.iter().zip(out.chunks_exact_mut(words)) {
            stamps_to_bits_on(self.path, &lane.0, self.stamp, &mut mask[..w]);
            mask[w..].fill(0);
        }
    }
}

/// How many moves ahead [`SeenLanes::stamp_moves`] prefetches the span it will read: the
/// table leaves L2 past N ~ 10^6, and each move's span of LANES values is a separate stream
/// that no hardware prefetcher follows.
pub(crate) const PREFETCH_AHEAD: usize = 16;

/// Asks the CPU to start loading the cache lines of `g[at .. at + LANES]` (32 values, 64
/// bytes, at most two lines). A hint only: it has no effect on results, and on
/// targets without a prefetch instruction it does nothing.
#[inline(always)]
pub(crate) fn prefetch_span(g: &[u16], at: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = g.as_ptr().wrapping_add(at) as *const i8;
        // SAFETY: a prefetch never faults and never changes memory, whatever the address;
        // `wrapping_add` keeps the pointer arithmetic itself defined.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p);
            _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(2 * LANES - 1));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (g, at);
}

/// The index of the first byte of `seen` that is not `stamp`, or `seen.len()` if all are:
/// the mex scan, on the path [`crate::base::isa::active`] names now (what the tests force). The
/// back-ends read the path once and call [`first_unstamped_on`] (a [`SeenLanes`] keeps it
/// from its creation), so the per-position mex does not re-read it.
#[cfg(test)]
fn first_unstamped(seen: &[u8], stamp: u8) -> usize {
    first_unstamped_on(isa::active(), seen, stamp)
}

/// The mex scan on the path `path`: the index of the first byte of `seen` that is not
/// `stamp`, or `seen.len()` if all are. `path` must be one [`crate::base::isa::force`] accepted (in
/// practice [`crate::base::isa::active`] read by the caller), so the CPU has its instructions.
/// Every path returns the same index: the scalar one is the definition, the others compare
/// 8 (portable, one u64), 32 (AVX2) or 64 (AVX-512) bytes a step and finish the tail with
/// the narrower paths.
#[inline]
pub(crate) fn first_unstamped_on(path: Isa, seen: &[u8], stamp: u8) -> usize {
    debug_assert!(path.supported());
    match path {
        Isa::Scalar => first_unstamped_scalar(seen, stamp),
        Isa::Portable => first_unstamped_portable(seen, stamp),
        // SAFETY: `path` was accepted by `isa::force` (or is `Isa::best`), so the CPU has
        // AVX2 and BMI1.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::first_unstamped_avx2(seen, stamp) },
        // SAFETY: as above, the CPU has AVX-512 F and BW (and AVX2 for the tail).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::first_unstamped_avx512(seen, stamp) },
        #[cfg(not(target_arch = "x86_64"))]
        Isa::Avx2 | Isa::Avx512 => first_unstamped_portable(seen, stamp),
    }
}

/// The scalar path and twin of [`first_unstamped_on`], byte by byte.
pub(crate) fn first_unstamped_scalar(seen: &[u8], stamp: u8) -> usize {
    seen.iter().position(|&b| b != stamp).unwrap_or(seen.len())
}

/// The portable path of [`first_unstamped_on`]: 8 bytes a step as one u64, whose xor with the
/// stamp pattern is non-zero first at the byte sought (little-endian, so trailing zeros / 8).
fn first_unstamped_portable(seen: &[u8], stamp: u8) -> usize {
    let pattern = u64::from_ne_bytes([stamp; 8]);
    let mut chunks = seen.chunks_exact(8);
    for (i, chunk) in chunks.by_ref().enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) ^ pattern;
        if word != 0 {
            return i * 8 + (word.trailing_zeros() / 8) as usize;
        }
    }
    let done = seen.len() - chunks.remainder().len();
    done + first_unstamped_scalar(chunks.remainder(), stamp)
}

/// Packs `seen` (a multiple of 64 bytes) into bits: bit i of `out[i / 64]` is set when
/// `seen[i] == stamp`, on the path [`crate::base::isa::active`] names now (what the tests force;
/// [`SeenLanes::to_bitmasks`] calls [`stamps_to_bits_on`] with its own path).
#[cfg(test)]
fn stamps_to_bits(seen: &[u8], stamp: u8, out: &mut [u64]) {
    stamps_to_bits_on(isa::active(), seen, stamp, out)
}

/// Packs `seen` (a multiple of 64 bytes) into bits, bit i of `out[i / 64]` set when
/// `seen[i] == stamp`, on the path `path` (one [`crate::base::isa::force`] accepted). Every path
/// writes the same words: scalar one byte a step, portable 16 bytes a compare
/// (`wide::u8x16`), AVX2 two 32-byte compares and AVX-512 one 64-byte compare per word.
#[inline]
pub(crate) fn stamps_to_bits_on(path: Isa, seen: &[u8], stamp: u8, out: &mut [u64]) {
    debug_assert!(seen.len().is_multiple_of(64) && out.len() * 64 == seen.len());
    debug_assert!(path.supported());
    match path {
        Isa::Scalar => stamps_to_bits_scalar(seen, stamp, out),
        Isa::Portable => stamps_to_bits_portable(seen, stamp, out),
        // SAFETY: `path` was accepted by `isa::force`, so the CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { x86::stamps_to_bits_avx2(seen, stamp, out) },
        // SAFETY: as above, the CPU has AVX-512 F and BW.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { x86::stamps_to_bits_avx512(seen, stamp, out) },
        #[cfg(not(target_arch = "x86_64"))]
        Isa::Avx2 | Isa::Avx512 => stamps_to_bits_portable(seen, stamp, out),
    }
}

/// The portable path of [`stamps_to_bits_on`]: `wide::u8x16` compares, 16 bits a compare.
fn stamps_to_bits_portable(seen: &[u8], stamp: u8, out: &mut [u64]) {
    let s = u8x16::splat(stamp);
    for (chunk, word) in seen.chunks_exact(64).zip(out.iter_mut()) {
        let mut bits = 0u64;
        for (k, part) in chunk.chunks_exact(16).enumerate() {
            let v = u8x16::new(part.try_into().expect("16 bytes"));
            bits |= (v.simd_eq(s).to_bitmask() as u64) << (16 * k);
        }
        *word = bits;
    }
}

/// The scalar path and twin of [`stamps_to_bits_on`].
pub(crate) fn stamps_to_bits_scalar(seen: &[u8], stamp: u8, out: &mut [u64]) {
    for (i, word) in out.iter_mut().enumerate() {
        *word = (0..64).fold(0u64, |acc, b| {
            acc | (((seen[i * 64 + b] == stamp) as u64) << b)
        });
    }
}

/// The AVX2 and AVX-512 paths of the two lane kernels. Each is an `unsafe fn` only because
/// it is compiled for instructions the baseline target lacks: the caller must know the CPU
/// has them. Every load is unaligned and within the slice (the loops step over whole
/// `chunks_exact` chunks), so no other condition applies.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::first_unstamped_portable;
    use std::arch::x86_64::*;

    /// [`super::first_unstamped_on`], 32 bytes a step: `cmpeq` against the stamp, `movemask`
    /// to one bit a byte, and the first zero bit is the first unstamped byte.
    ///
    /// # Safety
    /// The CPU must have AVX2 and BMI1.
    #[inline]
    #[target_feature(enable = "avx2,bmi1")]
    pub(super) unsafe fn first_unstamped_avx2(seen: &[u8], stamp: u8) -> usize {
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
    pub(super) unsafe fn first_unstamped_avx512(seen: &[u8], stamp: u8) -> usize {
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
    pub(super) unsafe fn stamps_to_bits_avx2(seen: &[u8], stamp: u8, out: &mut [u64]) {
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
    pub(super) unsafe fn stamps_to_bits_avx512(seen: &[u8], stamp: u8, out: &mut [u64]) {
        let s = _mm512_set1_epi8(stamp as i8);
        for (chunk, word) in seen.chunks_exact(64).zip(out.iter_mut()) {
            // SAFETY: `chunk` is 64 readable bytes; `loadu` takes any alignment.
            let v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
            *word = _mm512_cmpeq_epi8_mask(v, s);
        }
    }
}

/// Bytes of one [`SeenLanes`] scratch for the largest stride a table for (moves, N) can
/// need: values are at most the number of moves <= N, plus a block.
pub(crate) fn lane_scratch_bytes(moves: &crate::base::moves::Moves, limit: usize) -> u64 {
    (LANES * stride_for(moves.up_to(limit).len() + LANES)) as u64
}

/// The smallest power-of-two lane stride (at least 64) that holds every value up to `max`.
pub(crate) fn stride_for(max: usize) -> usize {
    (max + 1).next_power_of_two().max(64)
}

/// Calls `$body` with `$G` bound to the const lane stride equal to the runtime `$g`
/// (a power of two from 64 to 131 072, which covers every u16 value plus a block).
macro_rules! with_stride {
    ($g:expr, $G:ident => $body:expr) => {
        match $g {
            64 => {
                const $G: usize = 64;
                $body
            }
            128 => {
                const $G: usize = 128;
                $body
            }
            256 => {
                const $G: usize = 256;
                $body
            }
            512 => {
                const $G: usize = 512;
                $body
            }
            1024 => {
                const $G: usize = 1024;
                $body
            }
            2048 => {
                const $G: usize = 2048;
                $body
            }
            4096 => {
                const $G: usize = 4096;
                $body
            }
            8192 => {
                const $G: usize = 8192;
                $body
            }
            16384 => {
                const $G: usize = 16384;
                $body
            }
            32768 => {
                const $G: usize = 32768;
                $body
            }
            65536 => {
                const $G: usize = 65536;
                $body
            }
            131072 => {
                const $G: usize = 131072;
                $body
            }
            other => unreachable!("lane stride {other} is not a power of two in 64..=131072"),
        }
    };
}
pub(crate) use with_stride;

#[cfg(test)]
mod tests {
    use super::*;

    use crate::base::rng::for_each_case;

    /// Runs `body` once on every path this CPU supports, that path forced.
    fn on_every_path(mut body: impl FnMut(Isa)) {
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        for path in Isa::supported_all() {
            isa::with(path, || body(path)).expect("a supported path");
        }
    }

    #[test]
    fn first_unstamped_matches_scalar_on_every_path() {
        on_every_path(|path| {
            assert_eq!(isa::active(), path);
            for_each_case(7, 2000, |case, rng| {
                // Lengths past two 64-byte steps and every tail length.
                let len = rng.below(300) as usize;
                let stamp = rng.below(4) as u8;
                // Mostly stamped bytes, so the first unstamped one lands anywhere, and
                // sometimes none at all.
                let rare = [3, 40, 1000][rng.below(3) as usize];
                let seen: Vec<u8> = (0..len)
                    .map(|_| {
                        if rng.below(rare) == 0 {
                            rng.below(4) as u8
                        } else {
                            stamp
                        }
                    })
                    .collect();
                assert_eq!(
                    first_unstamped(&seen, stamp),
                    first_unstamped_scalar(&seen, stamp),
                    "{path}, case {case}"
                );
            });
        });
    }

    #[test]
    fn first_unstamped_finds_every_single_gap_on_every_path() {
        // One unstamped byte at every offset of 200 stamped ones (stamp 0xff, so the signed
        // byte compares of the x86 paths see a negative stamp), and none at all.
        on_every_path(|path| {
            for at in 0..=200 {
                let mut seen = vec![0xffu8; 200];
                if at < 200 {
                    seen[at] = 0x7f;
                }
                assert_eq!(first_unstamped(&seen, 0xff), at, "{path}");
            }
        });
    }

    #[test]
    fn stamps_to_bits_matches_scalar_on_every_path() {
        on_every_path(|path| {
            for_each_case(11, 500, |case, rng| {
                let words = 1 + rng.below(8) as usize;
                let stamp = [0u8, 1, 2, 0x80, 0xff][rng.below(5) as usize];
                let seen: Vec<u8> = (0..words * 64)
                    .map(|_| [stamp, stamp ^ 1, stamp ^ 0x80][rng.below(3) as usize])
                    .collect();
                let (mut a, mut b) = (vec![0u64; words], vec![1u64; words]);
                stamps_to_bits(&seen, stamp, &mut a);
                stamps_to_bits_scalar(&seen, stamp, &mut b);
                assert_eq!(a, b, "{path}, case {case}");
            });
        });
    }

    #[test]
    fn seen_lanes_keep_the_path_active_at_creation() {
        on_every_path(|path| {
            let mut s = SeenLanes::<128>::new();
            assert_eq!(s.path, path);
            s.next_block();
            let g: Vec<u16> = (0..200).map(|i| (i % 70) as u16).collect();
            // Lane j of the block at 100 sees g(100 + j - 64) = (36 + j) % 70 and
            // g(100 + j - 100) = j % 70.
            s.stamp_moves(&g, 100, &[64, 100]);
            let mut bits = vec![0u64; LANES * 2];
            s.to_bitmasks(&mut bits, 2);
            for j in 0..LANES {
                let want = [(36 + j) % 70, j % 70];
                let got: Vec<usize> = (0..128)
                    .filter(|&v| bits[j * 2 + v / 64] >> (v % 64) & 1 == 1)
                    .collect();
                let mut want = want.to_vec();
                want.sort_unstable();
                want.dedup();
                assert_eq!(got, want, "{path}, lane {j}");
                let mex = (0..).find(|v| !want.contains(v)).unwrap();
                assert_eq!(s.mex(j), mex, "{path}, lane {j}");
            }
        });
    }

    #[test]
    fn stamps_wrap_without_stale_marks() {
        let mut s = SeenLanes::<64>::new();
        let g = vec![3u16; 200];
        for _ in 0..600 {
            s.next_block();
            assert_eq!(s.mex(5), 0, "a fresh block sees nothing");
            s.stamp_moves(&g, 100, &[64]);
            assert_eq!(s.mex(5), 0);
            s.stamp_position(&[0u16; 200], 105, 5, &[1]);
            assert_eq!(s.mex(5), 1);
        }
    }
}
