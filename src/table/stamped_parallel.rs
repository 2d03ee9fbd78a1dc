//! `stamped-parallel`: the lane-blocked stamped mex of `stamped-lanes`, with the dominant
//! part of every super-block split across the rayon pool (`--threads T`) and pipelined with
//! the ordered part of the super-block before it.
//!
//! Algorithm: positions are processed in super-blocks [n0, n0 + B) of B = 512 to 4096
//! positions, cut into lane blocks of L = 32 (see [`super::lanes`]). Let d be the length of
//! the super-block before (d = 0 for the first), which starts at n0 - d.
//! 1a. In parallel over the lane blocks: the lane block at offset j0 applies every move
//!    s >= d + j0 + L. Each such option n - s (n < n0 + j0 + L) lies before n0 - d, in
//!    super-blocks finished before the previous one, so the lane blocks are independent and
//!    this phase runs while the previous super-block is still being finished. Each records
//!    the values in stamped byte arrays (one load and one byte store a step) and packs them
//!    into a bit mask per position (`wide` compares, 16 bytes at a time).
//! 2. In order over the lane blocks, once the previous super-block is done: the lane block at
//!    j0 applies the moves L <= s < d + j0 + L (contiguous reads of finished positions: in
//!    the previous super-block or earlier in this one), then the moves s < L position by
//!    position, and each g(n) is the lowest zero bit of n's mask.
//!
//! Pipeline: each step is `rayon::join(phase 2 of super-block k, phase 1a of super-block
//! k + 1)`; the thread done first steals phase-1a chunks, so no thread waits for the ordered
//! part and none falls asleep between super-blocks (the earlier design, a barrier after
//! each phase, put 14% of a 2-thread run in the scheduler). The masks are double-buffered.
//!
//! Cost: S(N) option steps in total. Phase 2 does about sqrt(2B) - sqrt(L) + #{s < L} of
//! them per position (about 27 for B = 512), against sqrt(n) in all, so for N >= 10^6 over
//! 95% of the steps run in parallel, and phase 2 itself overlaps phase 1a. Memory: the
//! table, plus two mask buffers of B·W words (W words cover every value the super-block can
//! reach) and 32·G bytes of scratch per thread.
//!
//! Invariant: phase 1a of super-block k + 1 reads only positions below n0_k (the start of
//! super-block k), finished before the step began; phase 2 of super-block k reads only
//! positions below the current one and writes only super-block k (split borrows of the
//! table, so the compiler checks this). Values read in phase 1a are at most the max m before
//! n0_k (so stride G = next power of two above m suffices; the loop re-dispatches on G when
//! it changes, and the masks carry no G), and values up to the end of super-block k + 1 are
//! at most m + B_k + B_{k+1} (a mex exceeds its largest option by at most one), which the W
//! mask words of super-block k + 1 cover.

use super::lanes::{lowest_zero_bit, stride_for, with_stride, SeenLanes, LANES};
use super::{Table, TableBuilder};
use crate::moves::Moves;
use rayon::prelude::*;
use std::sync::Mutex;

/// Smallest super-block size in positions (a multiple of 32). Phase 2, the ordered part,
/// costs about sqrt(2B) steps per position; smaller blocks make phase 2 cheaper but
/// synchronise the threads more often. Measured on one thread before the pipeline
/// (`results/table-speed.md`, when phase 2 cost about (2/3)·sqrt(B) steps a position):
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

/// The pipeline state between super-blocks: the pending super-block at `n0`, whose phase 1a
/// (moves s >= `d` + j0 + L, with `d` the length of the super-block before it) is in `cur`
/// (`words` words a position); `max` is the largest value below `n0`.
struct Pending {
    n0: usize,
    d: usize,
    max: usize,
    words: usize,
    cur: Vec<u64>,
    next: Vec<u64>,
}

impl TableBuilder for StampedParallel {
    fn build(&self, moves: &Moves, limit: usize) -> Table {
        let moves = moves.up_to(limit);
        let mut g = vec![0u16; limit + 1];
        // The first super-block has no phase 1a (every option lies inside it): empty masks.
        let words = super_block(0) / 64 + 1;
        let blocks = super_block(0).min(limit + 1).div_ceil(LANES);
        let mut p = Pending {
            n0: 0,
            d: 0,
            max: 0,
            words,
            cur: vec![0; blocks * LANES * words],
            next: Vec::new(),
        };
        // The whole loop runs on a pool thread: the phase-1a splits are then cheap pushes to
        // its own deque, where from outside the pool every super-block would be a cold
        // hand-over to the pool and back.
        rayon::scope(|_| {
            while p.n0 <= limit {
                let stride = stride_for(p.max);
                with_stride!(stride, G => run::<G>(&mut g, &mut p, &moves));
            }
        });
        Table::from_values(g)
    }
}

/// Runs the pipeline from `p` while the phase-1a stride `G` (values before the pending
/// super-block) stays the same. Each step finishes the pending super-block k (phase 2, on
/// the calling thread) while phase 1a of super-block k + 1 runs in parallel beside it; the
/// thread that finishes first steals phase-1a chunks. Each rayon thread keeps one scratch of
/// stamps for the whole run (allocating it per task cost more than the task's work at
/// N = 10^6).
fn run<const G: usize>(g: &mut [u16], p: &mut Pending, moves: &[usize]) {
    let limit = g.len() - 1;
    let scratch: Vec<Mutex<SeenLanes<G>>> = (0..rayon::current_num_threads())
        .map(|_| Mutex::new(SeenLanes::new()))
        .collect();
    while p.n0 <= limit && stride_for(p.max) == G {
        let n0 = p.n0;
        let end = (n0 + super_block(n0)).min(limit + 1);
        let (done, rest) = g.split_at_mut(n0);
        let block = &mut rest[..end - n0];
        let cur = &mut p.cur[..];
        let (d, words, max) = (p.d, p.words, p.max);
        if end > limit {
            // The last super-block: nothing to overlap.
            p.max = near_phase(done, block, moves, cur, words, d, max);
            p.n0 = end;
            break;
        }
        let next_end = (end + super_block(end)).min(limit + 1);
        let next_blocks = (next_end - end).div_ceil(LANES);
        // Values below `end` are at most max + (end - n0); super-block k + 1 adds at most
        // its length (a mex exceeds its largest option by at most one).
        let next_words = ((max + next_end - n0) / 64 + 1).max(G / 64);
        // No clearing: phase 1a writes every word of every lane's mask.
        p.next.resize(next_blocks * LANES * next_words, 0);
        let next = &mut p.next[..];
        let (new_max, ()) = rayon::join(
            || near_phase(done, block, moves, cur, words, d, max),
            || far_phase(done, end, end - n0, moves, next, next_words, &scratch),
        );
        std::mem::swap(&mut p.cur, &mut p.next);
        (p.n0, p.d, p.max, p.words) = (end, end - n0, new_max, next_words);
    }
}

/// Phase 1a: every lane block (offset j0) of the super-block at `n0` records its options
/// with s >= `d` + j0 + L, all below n0 - `d` (in `done`), and writes them as bit masks of
/// `words` words.
fn far_phase<const G: usize>(
    done: &[u16],
    n0: usize,
    d: usize,
    moves: &[usize],
    masks: &mut [u64],
    words: usize,
    scratch: &[Mutex<SeenLanes<G>>],
) {
    debug_assert_eq!(done.len(), n0 - d);
    masks
        .par_chunks_mut(LANES * words)
        .enumerate()
        .for_each(|(b, out)| {
            // Each thread uses its own slot, so the lock is never contended.
            let slot = rayon::current_thread_index().unwrap_or(0) % scratch.len();
            let mut seen = scratch[slot].lock().unwrap_or_else(|e| e.into_inner());
            let j0 = b * LANES;
            let first = moves.partition_point(|&s| s < d + j0 + LANES);
            seen.next_block();
            // n0 + j0 + L - 1 - s < n0 - d = done.len() for every such s.
            seen.stamp_moves(done, n0 + j0, &moves[first..]);
            seen.to_bitmasks(out, words);
        });
}

/// Phase 2 (with 1b folded in): finishes the super-block `block` = g[n0 .. n0 + len), with
/// n0 = `done.len()`, in order. The lane block at j0 applies the moves L <= s < `d` + j0 + L
/// (contiguous reads of finished positions, before n0 in `done` or earlier in `block`), then
/// the moves s < L position by position; g(n) is the lowest zero bit of n's mask. Returns
/// the running max after the super-block (`max` is the max before it).
fn near_phase(
    done: &[u16],
    block: &mut [u16],
    moves: &[usize],
    masks: &mut [u64],
    words: usize,
    d: usize,
    mut max: usize,
) -> usize {
    let n0 = done.len();
    let near_end = moves.partition_point(|&s| s < LANES);
    for (b, block_masks) in masks.chunks_exact_mut(LANES * words).enumerate() {
        let j0 = b * LANES;
        let len = LANES.min(block.len() - j0);
        let mid_end = moves.partition_point(|&s| s < d + j0 + LANES);
        for &s in &moves[near_end..mid_end] {
            // s >= L: every option n0 + j0 + j - s is below n0 + j0, finished. Lanes j <
            // split read `done`, the others the super-block itself.
            let first = s.saturating_sub(n0 + j0).min(len);
            let split = s.saturating_sub(j0).clamp(first, len);
            for j in first..split {
                set_bit(
                    &mut block_masks[j * words..],
                    done[n0 + j0 + j - s] as usize,
                );
            }
            for j in split..len {
                set_bit(&mut block_masks[j * words..], block[j0 + j - s] as usize);
            }
        }
        for j in 0..len {
            let (p, n) = (j0 + j, n0 + j0 + j);
            let mask = &mut block_masks[j * words..(j + 1) * words];
            for &s in moves[..near_end].iter().take_while(|&&s| s <= n) {
                let v = if s <= p { block[p - s] } else { done[n - s] };
                set_bit(mask, v as usize);
            }
            let mex = lowest_zero_bit(mask)
                .expect("the mask words cover every value a super-block can reach");
            block[p] = mex as u16;
            max = max.max(mex);
        }
    }
    max
}

/// Sets bit v of a multi-word mask.
#[inline]
fn set_bit(mask: &mut [u64], v: usize) {
    mask[v >> 6] |= 1u64 << (v & 63);
}
