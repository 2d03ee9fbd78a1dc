//! `stamped-parallel`: the lane-blocked stamped mex of `stamped-lanes`, with the dominant
//! part of every super-block split across the rayon pool (`--threads T`) and pipelined with
//! the ordered part of the super-block before it.
//!
//! Algorithm: positions are processed in super-blocks [n0, n0 + B) of B positions ([`Schedule`]: 512 doubling to 4096 by default)
//! positions, cut into lane blocks of L = 32 (see [`super::lanes`]). Let d be the length of
//! the super-block before (d = 0 for the first), which starts at n0 - d.
//! 1a. In parallel over the lane blocks: the lane block at offset j0 applies every move
//!    s >= d + j0 + L. Each such option n - s (n < n0 + j0 + L) lies before n0 - d, in
//!    super-blocks finished before the previous one, so the lane blocks are independent and
//!    this phase runs while the previous super-block is still being finished. Each records
//!    the values in stamped byte arrays (one load and one byte store a step) and packs them
//!    into a bit mask per position (16, 32 or 64 bytes a compare on the portable, AVX2 or
//!    AVX-512 path, see [`super::lanes`]).
//! 2. In order over the lane blocks, once the previous super-block is done: the lane block at
//!    j0 applies the moves L <= s < d + j0 + L (contiguous reads of finished positions: in
//!    the previous super-block or earlier in this one), then the moves s < L position by
//!    position, and each g(n) is the lowest zero bit of n's mask.
//!
//! Pipeline: each step is `rayon::join(phase 2 of super-block k, phase 1a of super-block
//! k + 1)`; the thread done first steals phase-1a chunks, so no thread waits for the ordered
//! part and none falls asleep between super-blocks (the earlier design, a barrier after
//! each phase, spent a large share of a 2-thread run in the scheduler). The masks are double-buffered.
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

use super::bits::{lowest_zero_bit, set_bit};
use super::lanes::{lane_scratch_bytes, stride_for, with_stride, SeenLanes, LANES};
use super::TableBuilder;
use crate::moves::Moves;
use rayon::prelude::*;
use std::sync::Mutex;

/// Smallest super-block size in positions (a multiple of 32). Phase 2, the ordered part,
/// costs about sqrt(2B) steps per position; smaller blocks make phase 2 cheaper but
/// synchronise the threads more often.
pub const SUPER_BLOCK: usize = 512;

/// The super-block sizes of a run: `base` positions up to `grow_at[0]`, then doubling at
/// each of the three thresholds. The default doubles every factor 4 of n0 from 2^22 on, so
/// phase 2's share, about sqrt(B / n0), stays near 1-2% while the number of thread
/// synchronisations (one per super-block) drops. Tests set small thresholds so that every
/// size is reached at small N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// The first super-block size, a positive multiple of [`LANES`].
    pub base: usize,
    /// The positions from which the size doubles (ascending).
    pub grow_at: [usize; 3],
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            base: SUPER_BLOCK,
            grow_at: [0x40_0000, 0x100_0000, 0x400_0000],
        }
    }
}

impl Schedule {
    /// The super-block size from position `n0` on.
    pub fn super_block(&self, n0: usize) -> usize {
        self.base << self.grow_at.iter().filter(|&&at| n0 >= at).count()
    }

    /// The largest super-block the schedule ever uses.
    pub fn largest(&self) -> usize {
        self.base << self.grow_at.len()
    }
}

/// Parallel lane-blocked stamped mex. See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct StampedParallel {
    /// The super-block sizes.
    pub schedule: Schedule,
}

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
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize, max_before: u16) {
        assert!(
            self.schedule.base > 0 && self.schedule.base.is_multiple_of(LANES),
            "super-blocks are whole lane blocks"
        );
        let moves = moves.up_to(g.len().saturating_sub(1));
        let sched = &self.schedule;
        // The whole loop runs on a pool thread: the phase-1a splits are then cheap pushes to
        // its own deque, where from outside the pool every super-block would be a cold
        // hand-over to the pool and back.
        rayon::scope(|_| {
            let mut p = first_pending(g, from, max_before as usize, &moves, sched);
            while p.n0 < g.len() {
                let stride = stride_for(p.max);
                with_stride!(stride, G => run::<G>(g, &mut p, &moves, sched));
            }
        });
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, threads: usize) -> u64 {
        let values = moves.up_to(limit).len();
        let b = self.schedule.largest();
        // Two mask buffers of B positions with words for every value a super-block reaches,
        // one lane scratch per thread (and one for the first far phase), the move list.
        let words = (values + 2 * b) / 64 + 2;
        let masks = 2 * (b * words * 8) as u64;
        masks + (threads as u64 + 1) * lane_scratch_bytes(moves, limit) + 8 * values as u64
    }

    /// The mex scan and (stamped-parallel) the bit packing follow `--isa` ([`super::lanes`]).
    fn vector_kernels(&self) -> bool {
        true
    }
}

/// The pipeline state for a run starting at `from` (values before it final, largest
/// `max`): phase 1a of the first super-block, which has no super-block before it (d = 0),
/// runs here, since there is nothing to overlap it with. At `from` = 0 every option lies
/// inside the first super-block, so its masks start empty.
fn first_pending(g: &[u16], from: usize, max: usize, moves: &[usize], s: &Schedule) -> Pending {
    let end = (from + s.super_block(from)).min(g.len());
    let blocks = (end - from).div_ceil(LANES);
    let stride = stride_for(max);
    let words = ((max + end - from) / 64 + 1).max(stride / 64);
    let mut cur = vec![0; blocks * LANES * words];
    if from > 0 {
        with_stride!(stride, G => {
            let scratch: Vec<Mutex<SeenLanes<G>>> = (0..rayon::current_num_threads())
                .map(|_| Mutex::new(SeenLanes::new()))
                .collect();
            far_phase(&g[..from], from, 0, moves, &mut cur, words, &scratch);
        });
    }
    Pending {
        n0: from,
        d: 0,
        max,
        words,
        cur,
        next: Vec::new(),
    }
}

/// Runs the pipeline from `p` while the phase-1a stride `G` (values before the pending
/// super-block) stays the same. Each step finishes the pending super-block k (phase 2, on
/// the calling thread) while phase 1a of super-block k + 1 runs in parallel beside it; the
/// thread that finishes first steals phase-1a chunks. Each rayon thread keeps one scratch of
/// stamps for the whole run (allocating it per task cost more than the task's work at
/// N = 10^6).
fn run<const G: usize>(g: &mut [u16], p: &mut Pending, moves: &[usize], sched: &Schedule) {
    let limit = g.len() - 1;
    let scratch: Vec<Mutex<SeenLanes<G>>> = (0..rayon::current_num_threads())
        .map(|_| Mutex::new(SeenLanes::new()))
        .collect();
    while p.n0 <= limit && stride_for(p.max) == G {
        let n0 = p.n0;
        let end = (n0 + sched.super_block(n0)).min(limit + 1);
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
        let next_end = (end + sched.super_block(end)).min(limit + 1);
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
