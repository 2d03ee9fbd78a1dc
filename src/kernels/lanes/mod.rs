//! The byte-stamp lane kernels of the lane-blocked stamped back-ends (`stamped-lanes`,
//! `stamped-parallel`).
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
//! Vector paths ([`crate::base::isa`]): the two scans over a lane's bytes, the mex and the
//! packing into bits ([`LaneKernel`]), have a scalar ([`Scalar`], the twin), a portable
//! ([`Portable`]), an AVX2 and an AVX-512 path each (`x86.rs`), all returning the same
//! result; a [`SeenLanes`] takes the path's kernels as a type parameter. The path is chosen
//! in one place, [`dispatch`], which runs a [`WithLanes`] visitor with the path's kernels,
//! on the AVX paths inside a `#[target_feature]` function, so the back-end's block loop is
//! compiled for the path and the per-position mex scan inlines into it. The AVX kernels are
//! the only `unsafe` here (the span prefetch, at [`prefetch_target`], is
//! [`super::prefetch`]'s); the byte stores of [`SeenLanes::stamp_moves`] have no vector path.
//!
//! Stride: `G` is a const generic, so the stamp index mask is a constant; `with_stride!`
//! turns the runtime stride (a power of two from 64 to 131 072) into it, once per stride
//! change, outside the block loop.

use super::prefetch;
use crate::base::isa::Isa;
use std::marker::PhantomData;
use wide::u8x16;

#[cfg(target_arch = "x86_64")]
mod x86;

/// The two scans a path supplies over a lane's `seen` bytes.
pub trait LaneKernel {
    /// The index of the first byte of `seen` that is not `stamp`, or `seen.len()` if all
    /// are: the mex scan.
    fn first_unstamped(seen: &[u8], stamp: u8) -> usize;

    /// Packs `seen` (a multiple of 64 bytes) into bits: bit i of `out[i / 64]` is set when
    /// `seen[i] == stamp` (`out.len() * 64 == seen.len()`).
    fn stamps_to_bits(seen: &[u8], stamp: u8, out: &mut [u64]);
}

isa_family!(WithLanes: LaneKernel, "avx2,bmi1", "avx512f,avx512bw,avx2,bmi1");

/// The scalar path and twin: one byte a step, the definitions themselves.
pub struct Scalar;

impl LaneKernel for Scalar {
    #[inline]
    fn first_unstamped(seen: &[u8], stamp: u8) -> usize {
        first_unstamped_scalar(seen, stamp)
    }

    #[inline]
    fn stamps_to_bits(seen: &[u8], stamp: u8, out: &mut [u64]) {
        stamps_to_bits_scalar(seen, stamp, out)
    }
}

/// The portable path: 8 bytes a step as one u64 for the mex, `wide::u8x16` compares for
/// the packing.
pub struct Portable;

impl LaneKernel for Portable {
    #[inline]
    fn first_unstamped(seen: &[u8], stamp: u8) -> usize {
        first_unstamped_portable(seen, stamp)
    }

    #[inline]
    fn stamps_to_bits(seen: &[u8], stamp: u8, out: &mut [u64]) {
        stamps_to_bits_portable(seen, stamp, out)
    }
}

/// Positions per lane block.
pub const LANES: usize = 32;

/// One lane's `seen` bytes, on a 64-byte boundary (G is a multiple of 64, so every lane of a
/// [`SeenLanes`] is): the 32- and 64-byte loads of the AVX paths then never straddle two
/// cache lines (a 16-byte aligned allocation made every 64-byte load of the AVX-512 path
/// touch two lines).
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Lane<const G: usize>([u8; G]);

/// Per-lane stamped `seen` arrays of `G` bytes each, with the current stamp; the mex scan
/// and the bit packing are the path's kernels `K` (fixed by [`dispatch`], so the per-position
/// mex does not choose a path).
pub struct SeenLanes<const G: usize, K> {
    lanes: Box<[Lane<G>; LANES]>,
    stamp: u8,
    kernels: PhantomData<fn() -> K>,
}

impl<const G: usize, K: LaneKernel> Default for SeenLanes<G, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const G: usize, K: LaneKernel> SeenLanes<G, K> {
    /// Empty lanes (every byte 0, the stamp 0, so the first block's stamp 1 marks nothing).
    pub fn new() -> Self {
        assert!(G.is_power_of_two() && G >= 64);
        let lanes: Box<[Lane<G>; LANES]> = vec![Lane([0u8; G]); LANES]
            .into_boxed_slice()
            .try_into()
            .expect("LANES rows");
        SeenLanes {
            lanes,
            stamp: 0,
            kernels: PhantomData,
        }
    }

    /// Starts a new block: takes a fresh stamp, so every lane is empty.
    #[inline]
    pub fn next_block(&mut self) {
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
    ///
    /// Kept out of line: the same loop inlined into the block loop's AVX2 entry made
    /// `stamped-lanes` slower at 10^7 on the EPYC-AVX2 (results/instruments/tune.md, "No
    /// back-end slower than at 6a4a985"); it does one call per block of 32 positions.
    #[inline(never)]
    pub fn stamp_moves(&mut self, g: &[u16], n0: usize, moves: &[usize]) {
        let stamp = self.stamp;
        let lanes = &mut *self.lanes;
        for (i, &s) in moves.iter().enumerate() {
            if let Some(at) = prefetch_target(moves, i, n0) {
                prefetch::to_l1(g, at, LANES);
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
    pub fn stamp_position(&mut self, g: &[u16], n: usize, lane: usize, moves: &[usize]) {
        let stamp = self.stamp;
        let seen = &mut self.lanes[lane].0;
        for &s in moves.iter().take_while(|&&s| s <= n) {
            seen[g[n - s] as usize & (G - 1)] = stamp;
        }
    }

    /// The mex of lane `lane`: the first index whose byte is not the current stamp.
    #[inline]
    pub fn mex(&self, lane: usize) -> usize {
        K::first_unstamped(&self.lanes[lane].0, self.stamp)
    }

    /// Writes lane j's set of recorded values as a bit mask into `out[j * words ..][..G/64]`
    /// (bit v set when value v was recorded) and zeroes the remaining words of each lane.
    pub fn to_bitmasks(&self, out: &mut [u64], words: usize) {
        let w = G / 64;
        debug_assert!(words >= w && out.len() >= LANES * words);
        for (lane, mask) in self.lanes.iter().zip(out.chunks_exact_mut(words)) {
            K::stamps_to_bits(&lane.0, self.stamp, &mut mask[..w]);
            mask[w..].fill(0);
        }
    }
}

/// How many moves ahead [`SeenLanes::stamp_moves`] prefetches the span it will read: the
/// table leaves L2 past N ~ 10^6, and each move's span of LANES values is a separate stream
/// that no hardware prefetcher follows. Once the table leaves the L3 (N ~ 2·10^7) each span
/// is a trip to memory, and the prefetch must be issued a memory latency ahead: 16 moves
/// (some 500 option steps) were too few for that; 48 were the best of 16 to 96 at 6·10^7
/// (tuned on the EPYC family 26, results/scaling/in-cache.md).
pub const PREFETCH_AHEAD: usize = 48;

/// The span move `i` of `moves` prefetches for a block starting at `n0`: that of the move
/// [`PREFETCH_AHEAD`] places later, `g[n0 - s ..][..LANES]`, when it lies wholly below the
/// block (s <= n0; a later move reaches the block's own start, just written and cached), so
/// its lines arrive while the moves between are stamped.
#[inline(always)]
pub fn prefetch_target(moves: &[usize], i: usize, n0: usize) -> Option<usize> {
    match moves.get(i + PREFETCH_AHEAD) {
        Some(&ahead) if ahead <= n0 => Some(n0 - ahead),
        _ => None,
    }
}

/// The mex scan on the path `path`, through [`dispatch`] (the tests' entry; the back-ends
/// call [`LaneKernel::first_unstamped`] from code already compiled for the path): the index
/// of the first byte of `seen` that is not `stamp`, or `seen.len()` if all are. Every path
/// returns the same index: the scalar one is the definition, the others compare 8
/// (portable, one u64), 32 (AVX2) or 64 (AVX-512) bytes a step and finish the tail with the
/// narrower paths. Panics when this CPU lacks `path`.
pub fn first_unstamped_on(path: Isa, seen: &[u8], stamp: u8) -> usize {
    struct Scan<'a>(&'a [u8], u8);
    impl WithLanes for Scan<'_> {
        type Out = usize;
        #[inline(always)]
        fn run<K: LaneKernel>(self) -> usize {
            K::first_unstamped(self.0, self.1)
        }
    }
    dispatch(path, Scan(seen, stamp))
}

/// The scalar path and twin of [`first_unstamped_on`], byte by byte.
pub fn first_unstamped_scalar(seen: &[u8], stamp: u8) -> usize {
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

/// Packs `seen` (a multiple of 64 bytes) into bits, bit i of `out[i / 64]` set when
/// `seen[i] == stamp`, on the path `path`, through [`dispatch`] (the tests' entry). Every
/// path writes the same words: scalar one byte a step, portable 16 bytes a compare
/// (`wide::u8x16`), AVX2 two 32-byte compares and AVX-512 one 64-byte compare per word.
/// Panics when this CPU lacks `path`.
pub fn stamps_to_bits_on(path: Isa, seen: &[u8], stamp: u8, out: &mut [u64]) {
    struct Pack<'a>(&'a [u8], u8, &'a mut [u64]);
    impl WithLanes for Pack<'_> {
        type Out = ();
        #[inline(always)]
        fn run<K: LaneKernel>(self) {
            K::stamps_to_bits(self.0, self.1, self.2)
        }
    }
    assert!(seen.len().is_multiple_of(64) && out.len() * 64 == seen.len());
    dispatch(path, Pack(seen, stamp, out))
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
pub fn stamps_to_bits_scalar(seen: &[u8], stamp: u8, out: &mut [u64]) {
    for (i, word) in out.iter_mut().enumerate() {
        *word = (0..64).fold(0u64, |acc, b| {
            acc | (((seen[i * 64 + b] == stamp) as u64) << b)
        });
    }
}

/// Bytes of one [`SeenLanes`] scratch for the largest stride a table for (moves, N) can
/// need: values are at most the number of moves <= N, plus a block.
pub fn lane_scratch_bytes(moves: &crate::base::moves::Moves, limit: usize) -> u64 {
    (LANES * block_stride(moves.up_to(limit).len())) as u64
}

/// The lane stride a block needs when every value before it is at most `max`: a mex is at
/// most one more than its largest option, so the block's L values are at most max + L.
pub fn block_stride(max: usize) -> usize {
    stride_for(max + LANES)
}

/// The smallest power-of-two lane stride (at least 64) that holds every value up to `max`.
pub fn stride_for(max: usize) -> usize {
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
    use crate::kernels::for_each_path_against_scalar;

    #[test]
    fn first_unstamped_matches_scalar_on_every_path() {
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
            let want = for_each_path_against_scalar(&format!("case {case}"), |path| {
                first_unstamped_on(path, &seen, stamp)
            });
            assert_eq!(want, first_unstamped_scalar(&seen, stamp), "case {case}");
        });
    }

    #[test]
    fn first_unstamped_finds_every_single_gap_on_every_path() {
        // One unstamped byte at every offset of 200 stamped ones (stamp 0xff, so the signed
        // byte compares of the x86 paths see a negative stamp), and none at all.
        for at in 0..=200 {
            let mut seen = vec![0xffu8; 200];
            if at < 200 {
                seen[at] = 0x7f;
            }
            let got = for_each_path_against_scalar(&format!("gap at {at}"), |path| {
                first_unstamped_on(path, &seen, 0xff)
            });
            assert_eq!(got, at);
        }
    }

    #[test]
    fn stamps_to_bits_matches_scalar_on_every_path() {
        for_each_case(11, 500, |case, rng| {
            let words = 1 + rng.below(8) as usize;
            let stamp = [0u8, 1, 2, 0x80, 0xff][rng.below(5) as usize];
            let seen: Vec<u8> = (0..words * 64)
                .map(|_| [stamp, stamp ^ 1, stamp ^ 0x80][rng.below(3) as usize])
                .collect();
            let want = for_each_path_against_scalar(&format!("case {case}"), |path| {
                let mut a = vec![1u64; words];
                stamps_to_bits_on(path, &seen, stamp, &mut a);
                a
            });
            let mut b = vec![0u64; words];
            stamps_to_bits_scalar(&seen, stamp, &mut b);
            assert_eq!(want, b, "case {case}");
        });
    }

    /// Lanes of stride 128 on the path's kernels: the block at 100 with moves 64 and 100,
    /// each lane's packed bits and its mex.
    struct RecordAndPack;

    impl WithLanes for RecordAndPack {
        type Out = (Vec<u64>, Vec<usize>);
        fn run<K: LaneKernel>(self) -> Self::Out {
            let mut s = SeenLanes::<128, K>::new();
            s.next_block();
            let g: Vec<u16> = (0..200).map(|i| (i % 70) as u16).collect();
            s.stamp_moves(&g, 100, &[64, 100]);
            let mut bits = vec![0u64; LANES * 2];
            s.to_bitmasks(&mut bits, 2);
            (bits, (0..LANES).map(|j| s.mex(j)).collect())
        }
    }

    #[test]
    fn seen_lanes_record_pack_and_scan_alike_on_every_path() {
        let (bits, mexes) =
            for_each_path_against_scalar("seen lanes", |path| dispatch(path, RecordAndPack));
        for j in 0..LANES {
            // Lane j of the block at 100 sees g(100 + j - 64) = (36 + j) % 70 and
            // g(100 + j - 100) = j % 70.
            let mut want = vec![(36 + j) % 70, j % 70];
            want.sort_unstable();
            want.dedup();
            let got: Vec<usize> = (0..128)
                .filter(|&v| bits[j * 2 + v / 64] >> (v % 64) & 1 == 1)
                .collect();
            assert_eq!(got, want, "lane {j}");
            let mex = (0..).find(|v| !want.contains(v)).unwrap();
            assert_eq!(mexes[j], mex, "lane {j}");
        }
    }

    #[test]
    fn stamps_wrap_without_stale_marks() {
        let mut s = SeenLanes::<64, Portable>::new();
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

    #[test]
    fn each_move_prefetches_the_span_of_the_move_forty_eight_later_when_it_is_below_the_block() {
        let moves: Vec<usize> = (1..=80).map(|k| k * k).collect();
        // The block at 3000: moves[3] = 16 prefetches for moves[51] = 2704 <= 3000.
        assert_eq!(prefetch_target(&moves, 3, 3000), Some(3000 - 2704));
        assert_eq!(prefetch_target(&moves, 0, 3000), Some(3000 - 49 * 49));
        // moves[52] = 2809 and moves[53] = 2916 lie below the block, moves[54] = 3025 does not.
        assert_eq!(prefetch_target(&moves, 4, 3000), Some(3000 - 2809));
        assert_eq!(prefetch_target(&moves, 5, 2916), Some(0));
        assert_eq!(prefetch_target(&moves, 6, 3000), None);
        // No move 48 places on past the last.
        assert_eq!(prefetch_target(&moves, 32, 1 << 20), None);
        assert_eq!(prefetch_target(&moves, 31, 1 << 20), Some((1 << 20) - 6400));
    }

    /// A new block costs one stamp increment; the G · LANES bytes are cleared only when the
    /// stamp would wrap, once every 255 blocks (clearing every block gives the same marks and
    /// costs a memset of 32 · G bytes a block, so only this state can tell them apart).
    #[test]
    fn lanes_are_cleared_only_when_the_stamp_wraps() {
        let mut s = SeenLanes::<64, Portable>::new();
        let g = vec![7u16; 100];
        s.next_block();
        s.stamp_moves(&g, 50, &[1]);
        assert_eq!(s.stamp, 1);
        for block in 2..=255u32 {
            s.next_block();
            assert_eq!(u32::from(s.stamp), block);
            assert_eq!(
                s.lanes[0].0[7], 1,
                "block {block}: the first block's mark was cleared before the stamp wrapped"
            );
        }
        s.next_block();
        assert_eq!(
            s.stamp, 1,
            "after stamp 255 the next block starts again at 1"
        );
        assert!(
            s.lanes.iter().all(|l| l.0.iter().all(|&b| b == 0)),
            "the lanes are cleared when the stamp wraps"
        );
    }

    #[test]
    fn lanes_record_exactly_each_positions_options_near_the_start_and_past_it() {
        // For every lane j the recorded set must be {g[n0 + j - s] : s in moves, s <= n0 + j},
        // computed here by plain loops; the block starts cover moves wholly below, across and
        // past the block (s > n0, the partial start), and 20 moves reach the prefetch.
        let g: Vec<u16> = (0..300u16).map(|n| (n * 7 + 3) % 64).collect();
        let moves = [
            1, 2, 3, 5, 7, 9, 11, 13, 16, 20, 25, 31, 32, 33, 40, 50, 64, 70, 90, 100,
        ];
        for n0 in [0, 1, 5, 31, 32, 40, 64, 100, 150, 250] {
            let want: Vec<u64> = (0..LANES)
                .map(|j| {
                    let n = n0 + j;
                    moves
                        .iter()
                        .filter(|&&s| s <= n)
                        .fold(0, |bits, &s| bits | 1 << g[n - s])
                })
                .collect();
            // The table may end with the block (the last block of a run): the kernel must
            // read no value past it.
            let g = &g[..n0 + LANES];
            let mut block = SeenLanes::<64, Scalar>::new();
            block.next_block();
            block.stamp_moves(g, n0, &moves);
            let mut by_position = SeenLanes::<64, Scalar>::new();
            by_position.next_block();
            for lane in 0..LANES {
                by_position.stamp_position(g, n0 + lane, lane, &moves);
            }
            for (what, lanes) in [("block", &block), ("position", &by_position)] {
                let mut out = vec![0u64; LANES];
                lanes.to_bitmasks(&mut out, 1);
                assert_eq!(out, want, "{what} at n0 = {n0}");
            }
        }
    }

    #[test]
    fn strides_hold_every_value_and_scratch_is_one_lane_set() {
        // A stride holds the values 0..=max: 65 values need 128 bytes, 64 fit in 64.
        let strides: Vec<usize> = [0, 63, 64, 127, 128, 65_535 + LANES]
            .iter()
            .map(|&m| stride_for(m))
            .collect();
        assert_eq!(strides, [64, 64, 128, 128, 256, 131_072]);
        // A block after a max of m can end on m + 32: 31 + 32 fits in 64 bytes, 32 + 32 not.
        let blocks: Vec<usize> = [0, 31, 32, 95, 96]
            .iter()
            .map(|&m| block_stride(m))
            .collect();
        assert_eq!(blocks, [64, 64, 128, 128, 256]);
        // {1, 2, 3}: values <= 3, plus a block of 32: stride 64, 32 lanes of it.
        let few = crate::base::moves::Moves::List(vec![1, 2, 3]);
        assert_eq!(lane_scratch_bytes(&few, 100), 32 * 64);
        // The squares up to 10^4: 100 moves, + 32 = 132 -> stride 256.
        let squares = crate::base::moves::Moves::Squares;
        assert_eq!(lane_scratch_bytes(&squares, 10_000), 32 * 256);
    }
}
