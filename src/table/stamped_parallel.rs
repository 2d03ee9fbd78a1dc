//! `stamped-parallel`: the lane-blocked stamped mex of `stamped-lanes`, with the dominant
//! part of every super-block split across the rayon pool (`--threads T`).
//!
//! Algorithm: positions are processed in super-blocks [n0, n0 + B) of B = 512 to 4096
//! positions, cut into lane blocks of L = 32 (see [`super::lanes`]).
//! 1. In parallel over the lane blocks: the lane block at offset j0 applies every move
//!    s >= j0 + L. Each such option n - s (n < n0 + j0 + L) lies before n0, in finished
//!    super-blocks, so the lane blocks are independent. Each records the values in stamped
//!    byte arrays (one load and one byte store a step) and packs them into a bit mask per
//!    position (`wide` compares, 16 bytes at a time).
//! 2. In order over the lane blocks: the lane block at j0 applies the moves L <= s < j0 + L
//!    (contiguous reads of positions finished earlier in this pass), then the moves s < L
//!    position by position, and each g(n) is the lowest zero bit of n's mask.
//!
//! Cost: S(N) option steps in total. Phase 2 does about (2/3)·sqrt(B) + #{s < L} of them per
//! position (about 20 for B = 512), against sqrt(n) in all, so for N >= 10^6 over 97% of the
//! steps run in parallel (phase 2 is slower per step, bit masks, and took about 11% of the
//! one-thread time at 10^6 and 4% at 10^7). Memory: the table, plus B·W words of masks (W words cover every
//! value the super-block can reach) and 32·G bytes of scratch per thread.
//!
//! Invariant: phase 1 of a super-block reads only positions below n0, which phase 2 of the
//! earlier super-blocks finished; phase 2 reads only positions below the current one. Values
//! read in phase 1 are at most the max m before n0 (so stride G = next power of two above m
//! suffices), and values made in the super-block are at most m + B (a mex exceeds its largest
//! option by at most one), which the W mask words cover.

use super::lanes::{lowest_zero_bit, stride_for, with_stride, SeenLanes, LANES};
use super::{Table, TableBuilder};
use crate::moves::Moves;
use rayon::prelude::*;
use std::sync::Mutex;

/// Smallest super-block size in positions (a multiple of 32). Phase 2, the ordered part,
/// costs about (2/3)·sqrt(B) steps per position; smaller blocks make phase 2 cheaper but
/// synchronise the threads more often. Measured on one thread (`results/table-speed.md`):
/// phase 2 took 0.032 / 0.035 / 0.044 / 0.064 s of 0.32 / 0.32 / 0.31 / 0.41 s at N = 10^6
/// for B = 256 / 512 / 1024 / 2048.
pub const SUPER_BLOCK: usize = 512;

/// The super-block size from position `n0` on: [`SUPER_BLOCK`] up to 2^22, then doubling
/// every factor 4 of n0 up to 4096. Phase 2's share, about sqrt(B / n0), stays near 1-2%
/// while the number of thread synchronisations (one per super-block) drops; under
/// time-slicing with other processes each synchronisation can cost a scheduler slice.
fn super_block(n0: usize) -> usize {
    match n0 {
        0..0x40_0000 => SUPER_BLOCK,
        0x40_0000..0x100_0000 => 2 * SUPER_BLOCK,
        0x100_0000..0x400_0000 => 4 * SUPER_BLOCK,
        _ => 8 * SUPER_BLOCK,
    }
}

/// Parallel lane-blocked stamped mex. See the module documentation.
pub struct StampedParallel;

impl TableBuilder for StampedParallel {
    fn build(&self, moves: &Moves, limit: usize) -> Table {
        let moves = moves.up_to(limit);
        let mut g = vec![0u16; limit + 1];
        let mut masks: Vec<u64> = Vec::new();
        // The whole loop runs on a pool thread: the phase-1 splits are then cheap pushes to
        // its own deque, where from outside the pool every super-block would be a cold
        // hand-over to the pool and back.
        rayon::scope(|_| {
            let (mut n0, mut max) = (0usize, 0usize);
            while n0 <= limit {
                let stride = stride_for(max);
                (n0, max) =
                    with_stride!(stride, G => run::<G>(&mut g, n0, max, &moves, &mut masks));
            }
        });
        Table::from_values(g)
    }
}

/// Fills super-blocks from `n0` while the phase-1 stride `G` (values before a super-block)
/// stays the same; returns the next super-block start and the running max. Each rayon
/// thread keeps one scratch of stamps for the whole run (allocating it per task cost more
/// than the task's work at N = 10^6).
fn run<const G: usize>(
    g: &mut [u16],
    mut n0: usize,
    mut max: usize,
    moves: &[usize],
    masks: &mut Vec<u64>,
) -> (usize, usize) {
    let limit = g.len() - 1;
    let near_end = moves.partition_point(|&s| s < LANES);
    let scratch: Vec<Mutex<SeenLanes<G>>> = (0..rayon::current_num_threads())
        .map(|_| Mutex::new(SeenLanes::new()))
        .collect();
    while n0 <= limit && stride_for(max) == G {
        let block = super_block(n0);
        let end = (n0 + block).min(limit + 1);
        let blocks = (end - n0).div_ceil(LANES);
        let words = ((max + block) / 64 + 1).max(G / 64);
        // No clearing: phase 1 writes every word of every lane's mask.
        masks.resize(blocks * LANES * words, 0);
        // Phase 1: options before n0, in parallel.
        far_phase(&g[..n0], n0, moves, masks, words, &scratch);
        // Phase 2: options inside the super-block, in order.
        for (b, block_masks) in masks.chunks_exact_mut(LANES * words).enumerate() {
            let j0 = b * LANES;
            let m0 = n0 + j0;
            let len = LANES.min(end - m0);
            let mid_end = moves.partition_point(|&s| s < j0 + LANES);
            for &s in &moves[near_end..mid_end] {
                // s >= L: every option m0 + j - s is below m0, finished.
                let first = s.saturating_sub(m0);
                for j in first..len {
                    set_bit(&mut block_masks[j * words..], g[m0 + j - s] as usize);
                }
            }
            for j in 0..len {
                let n = m0 + j;
                let mask = &mut block_masks[j * words..(j + 1) * words];
                for &s in moves[..near_end].iter().take_while(|&&s| s <= n) {
                    set_bit(mask, g[n - s] as usize);
                }
                let mex = lowest_zero_bit(mask)
                    .expect("the mask words cover every value a super-block can reach");
                g[n] = mex as u16;
                max = max.max(mex);
            }
        }
        n0 = end;
    }
    (n0, max)
}

/// Phase 1: every lane block of the super-block at `n0` records its options with s >= its
/// offset + L (all below `n0`, in `done`) and writes them as bit masks of `words` words.
fn far_phase<const G: usize>(
    done: &[u16],
    n0: usize,
    moves: &[usize],
    masks: &mut [u64],
    words: usize,
    scratch: &[Mutex<SeenLanes<G>>],
) {
    masks
        .par_chunks_mut(LANES * words)
        .enumerate()
        .for_each(|(b, out)| {
            // Each thread uses its own slot, so the lock is never contended.
            let slot = rayon::current_thread_index().unwrap_or(0) % scratch.len();
            let mut seen = scratch[slot].lock().unwrap_or_else(|e| e.into_inner());
            let j0 = b * LANES;
            let first = moves.partition_point(|&s| s < j0 + LANES);
            seen.next_block();
            seen.stamp_moves(done, n0 + j0, &moves[first..]);
            seen.to_bitmasks(out, words);
        });
}

/// Sets bit v of a multi-word mask.
#[inline]
fn set_bit(mask: &mut [u64], v: usize) {
    mask[v >> 6] |= 1u64 << (v & 63);
}
