//! `bitset`: the mex as the lowest zero bit of a mask of option values, 64 positions a block.
//!
//! Algorithm: positions are processed in blocks of [`LANES`] consecutive n. Each position of
//! the block owns a mask of `words` 64-bit words; bit v of n's mask is set when some option
//! of n has value v. For every move s >= `LANES`, all options n - s of the block lie in
//! finished blocks, so the move contributes one contiguous read `g[n0 - s .. n0 - s + 64]`
//! OR-ed lane by lane into the masks (this is the dominant work and has no order
//! dependence). The moves s < `LANES` are then applied position by position in increasing n,
//! and g(n) is the lowest zero bit of n's mask.
//!
//! Cost: S(N) option steps, each one shift-and-OR into a mask, plus `words` word scans per
//! position for the mex. The mask widens as values grow (the max is 74 at N = 10^5, 168 at
//! 10^6, 376 at 10^7): `words` starts at max/64 + 1 for the values finished so far.
//!
//! Invariant: every option value read is below 64·`words`. Options in finished blocks are
//! at most the running max, which the width covers; a mex computed inside the block can
//! only be unrepresentable if the whole mask is full, and then the block is redone one word
//! wider.
//!
//! Paths (`--isa`, read once per `fill`): the far-move OR and the mex scan are the two
//! kernels ([`Kernel`]). `portable` is the u64 code above; `scalar` is its twin (bit by bit
//! mex, per-lane bounds checks); `avx2` and `avx512` run the far-move OR 4 or 8 lanes at a
//! time with the word of each value selected by a compare mask (`bitset_simd.rs`), and the
//! mex as a vector compare against all-ones. The whole block loop is monomorphised per path
//! and compiled with the path's target features, so nothing in the inner loops dispatches.

use super::bits::{lowest_zero_bit, lowest_zero_bit_scalar, set_bit, split_moves};
use super::TableBuilder;
use crate::base::isa::{self, Isa};
use crate::base::moves::Moves;

/// Positions per block.
pub const LANES: usize = 64;

/// Lane-blocked bitset mex. See the module documentation.
pub struct Bitset;

impl TableBuilder for Bitset {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize, max_before: u16) {
        let limit = g.len().saturating_sub(1);
        let moves = moves.up_to(limit);
        fill_on(isa::active(), &moves, g, from, max_before as usize);
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // The move list, and a block's masks wide enough for every value (at most #moves).
        let m = moves.up_to(limit).len() as u64;
        8 * m + LANES as u64 * 8 * (m / 64 + 2)
    }

    fn vector_kernels(&self) -> bool {
        true
    }
}

/// The two kernels a path supplies to the block loop.
pub(super) trait Kernel {
    /// ORs into `masks` (lane j's `words` words at `j * words`) bit g(n - s) for every lane
    /// j < `len`, n = n0 + j, and every move s in `far` (ascending) with s <= n. Every value
    /// read is below 64·`words`, and n0 + [`LANES`] - s <= `g.len()` for every s (the vector
    /// paths load whole groups of up to 64 lanes; `Scalar` and `Portable` need only
    /// n0 + `len` - s <= `g.len()`, which `stamped-parallel`'s 32-lane blocks rely on).
    fn far_or(g: &[u16], masks: &mut [u64], n0: usize, len: usize, words: usize, far: &[usize]);

    /// The lowest zero bit of `mask`, or `None` when it is full.
    fn mex(mask: &[u64]) -> Option<usize>;
}

/// The twin every path is tested against: one bit a step, bounds checked per lane.
pub(super) struct Scalar;

impl Kernel for Scalar {
    fn far_or(g: &[u16], masks: &mut [u64], n0: usize, len: usize, words: usize, far: &[usize]) {
        for &s in far {
            for j in (0..len).filter(|&j| n0 + j >= s) {
                set_bit(
                    &mut masks[j * words..(j + 1) * words],
                    g[n0 + j - s] as usize,
                );
            }
        }
    }

    fn mex(mask: &[u64]) -> Option<usize> {
        lowest_zero_bit_scalar(mask)
    }
}

/// The u64 code that ran before runtime dispatch: one contiguous read per move.
pub(super) struct Portable;

impl Kernel for Portable {
    #[inline(always)]
    fn far_or(g: &[u16], masks: &mut [u64], n0: usize, len: usize, words: usize, far: &[usize]) {
        let n_end = n0 + len;
        for &s in far {
            if s >= n_end {
                break;
            }
            let first_lane = s.saturating_sub(n0);
            let src = &g[n0 + first_lane - s..n_end - s];
            for (j, &v) in (first_lane..len).zip(src) {
                let v = v as usize;
                masks[j * words + (v >> 6)] |= 1u64 << (v & 63);
            }
        }
    }

    #[inline(always)]
    fn mex(mask: &[u64]) -> Option<usize> {
        lowest_zero_bit(mask)
    }
}

/// The running max below which the AVX-512 path runs the AVX2 kernels: while every mask is
/// one word the AVX2 block loop is the faster, from two words on (N ~ 6·10^4 for the
/// squares) the AVX-512 one (results/big-n.md, target 4).
pub const AVX2_BELOW_MAX: usize = 64;

/// `fill` on the path `isa` with the moves up to N (`moves`, ascending). `isa` must be
/// supported by this CPU ([`isa::force`] guarantees it for [`isa::active`]).
fn fill_on(isa: Isa, moves: &[usize], g: &mut [u16], from: usize, max_before: usize) {
    let all = usize::MAX;
    match isa {
        Isa::Scalar => {
            fill_with::<Scalar>(moves, g, from, max_before, all);
        }
        // SAFETY: `isa` is supported by this CPU (the caller's contract, upheld by
        // `isa::force`), so the target features of these functions are present.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe {
            super::bitset_simd::fill_avx2(moves, g, from, max_before, all);
        },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            // SAFETY: as above; AVX-512 support includes AVX2 (`isa::Isa::supported`).
            let (n0, max) = unsafe {
                super::bitset_simd::fill_avx2(moves, g, from, max_before, AVX2_BELOW_MAX)
            };
            // SAFETY: as above.
            unsafe { super::bitset_simd::fill_avx512(moves, g, n0, max, all) };
        }
        _ => {
            fill_with::<Portable>(moves, g, from, max_before, all);
        }
    }
}

/// The block loop, generic over the path's kernels; inlined into each path's wrapper so it
/// is compiled with that path's target features. Fills blocks from `from` while the running
/// max is below `until`; returns where it stopped and the running max.
#[inline(always)]
pub(super) fn fill_with<K: Kernel>(
    moves: &[usize],
    g: &mut [u16],
    from: usize,
    max_before: usize,
    until: usize,
) -> (usize, usize) {
    let (near, far) = split_moves(moves, LANES);
    let mut max_so_far = max_before;
    let mut masks: Vec<u64> = Vec::new();
    let mut n0 = from;
    while n0 < g.len() && max_so_far < until {
        let len = LANES.min(g.len() - n0);
        let mut words = max_so_far / 64 + 1;
        loop {
            match fill_block::<K>(g, &mut masks, n0, len, words, near, far) {
                Some(block_max) => {
                    max_so_far = max_so_far.max(block_max);
                    break;
                }
                None => words += 1,
            }
        }
        n0 += len;
    }
    (n0, max_so_far)
}

/// Computes g over `[n0, n0 + len)`, returning the block's max, or `None` when a mex did not
/// fit `words` words (the caller retries wider).
#[inline(always)]
fn fill_block<K: Kernel>(
    g: &mut [u16],
    masks: &mut Vec<u64>,
    n0: usize,
    len: usize,
    words: usize,
    near: &[usize],
    far: &[usize],
) -> Option<usize> {
    masks.clear();
    masks.resize(LANES * words, 0);
    // Moves that reach only finished blocks: contiguous reads, any order.
    K::far_or(g, masks, n0, len, words, far);
    // Moves that may reach inside the block: in order of n.
    let mut block_max = 0usize;
    for j in 0..len {
        let n = n0 + j;
        let mask = &mut masks[j * words..(j + 1) * words];
        for &s in near.iter().take_while(|&&s| s <= n) {
            let v = g[n - s] as usize;
            mask[v >> 6] |= 1u64 << (v & 63);
        }
        let mex = K::mex(mask)?;
        g[n] = mex as u16;
        block_max = block_max.max(mex);
    }
    Some(block_max)
}

/// The far-move OR of one block into `masks` ([`LANES`] lanes × `words` words) on the path
/// `isa`: what the tests compare across paths, and what the roofline's `or_scan_word`
/// primitive times, so the bound of `bitset` follows `--isa`. Same contract as
/// [`Kernel::far_or`]. Panics when this CPU lacks `isa`.
pub(crate) fn far_or_on(
    isa: Isa,
    g: &[u16],
    masks: &mut [u64],
    (n0, len, words): (usize, usize, usize),
    far: &[usize],
) {
    assert!(isa.supported(), "{isa} is not supported here");
    assert!(masks.len() >= LANES * words);
    match isa {
        Isa::Scalar => Scalar::far_or(g, masks, n0, len, words, far),
        // SAFETY: the path is supported (asserted above).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe {
            super::bitset_simd::far_or_avx2_entry(g, masks, n0, len, words, far)
        },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe {
            super::bitset_simd::far_or_avx512_entry(g, masks, n0, len, words, far)
        },
        _ => Portable::far_or(g, masks, n0, len, words, far),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::SplitMix64;

    /// A random block: 1 to 12 mask words (every chunk width, and chunks of 8 then 4),
    /// values below 64·words before n0, far moves (some reaching past n0,
    /// so partial lane groups occur), a full or a short last block.
    fn random_block(rng: &mut SplitMix64) -> (Vec<u16>, usize, usize, usize, Vec<usize>) {
        let words = rng.range(1, 12) as usize;
        let n0 = rng.range(0, 600) as usize;
        let len = if rng.below(3) == 0 {
            rng.range(1, 64) as usize
        } else {
            LANES
        };
        let g: Vec<u16> = (0..n0 + len)
            .map(|_| rng.below(64 * words as u64) as u16)
            .collect();
        let mut far: Vec<usize> = (0..rng.range(0, 40))
            .map(|_| rng.range(LANES as u64, 700) as usize)
            .collect();
        far.sort_unstable();
        far.dedup();
        (g, n0, len, words, far)
    }

    #[test]
    fn far_or_every_path_matches_the_scalar_twin() {
        crate::base::rng::for_each_case(21, 1500, |case, rng| {
            let (g, n0, len, words, far) = random_block(rng);
            let on = |isa| {
                let mut masks = vec![0u64; LANES * words];
                far_or_on(isa, &g, &mut masks, (n0, len, words), &far);
                masks
            };
            let want = on(Isa::Scalar);
            assert!(far.iter().all(|&s| s >= n0 + len) || want.iter().any(|&w| w != 0));
            for isa in Isa::supported_all() {
                let got = on(isa);
                // Lanes at or past `len` are scratch no path promises anything about.
                assert_eq!(got[..len * words], want[..len * words], "case {case} {isa}");
            }
        });
    }

    #[test]
    fn every_path_builds_the_same_table_as_the_scalar_twin() {
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        // {1..=150} drives the mask from 1 to 3 words mid-run (g(n) = n mod 151).
        for moves in [Moves::Squares, Moves::list((1..=150).collect()).unwrap()] {
            let want = isa::with(Isa::Scalar, || Bitset.build(&moves, 3000)).unwrap();
            assert!(want.max_value() >= 10);
            for path in Isa::supported_all() {
                let got = isa::with(path, || Bitset.build(&moves, 3000)).unwrap();
                assert_eq!(got, want, "{path} on {moves:?}");
            }
            // The AVX-512 path starts on the AVX2 kernels (below AVX2_BELOW_MAX) and hands
            // over mid-run; its own kernels from position 0 give the same table.
            #[cfg(target_arch = "x86_64")]
            if Isa::Avx512.supported() {
                let listed = moves.up_to(3000);
                let mut g = vec![0u16; 3001];
                // SAFETY: the CPU has AVX-512 (checked above), which includes AVX2.
                let (end, max) = unsafe {
                    super::super::bitset_simd::fill_avx512(&listed, &mut g, 0, 0, usize::MAX)
                };
                assert_eq!((end, max), (3001, want.max_value() as usize));
                assert_eq!(g, want.values(), "avx512 from 0 on {moves:?}");
            }
        }
    }

    #[test]
    fn fill_stops_at_the_first_block_whose_max_reaches_until() {
        let moves = Moves::Squares.up_to(5000);
        // The reference back-end, `stamped`, shares no kernel with this one.
        let want = crate::table::build("stamped", &Moves::Squares, 5000)
            .unwrap()
            .values()
            .to_vec();
        let mut g = vec![0u16; 5001];
        let (n0, max) = fill_with::<Portable>(&moves, &mut g, 0, 0, 20);
        // It stopped at a block boundary, right after the block that reached 20 ...
        assert!(n0 % LANES == 0 && max >= 20, "{n0} {max}");
        let before: u16 = *want[..n0 - LANES].iter().max().unwrap();
        assert!((before as usize) < 20 && *want[..n0].iter().max().unwrap() as usize == max);
        assert_eq!(g[..n0], want[..n0]);
        // ... and continuing from there finishes the same table.
        fill_with::<Portable>(&moves, &mut g, n0, max, usize::MAX);
        assert_eq!(g, want);
    }
}
