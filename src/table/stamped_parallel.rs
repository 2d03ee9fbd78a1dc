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
//!    the previous super-block or earlier in this one; those with s >= j0 + L read only the
//!    former, through `bitset`'s portable far-move OR), then the moves s < L position by
//!    position, and each g(n) is the lowest zero bit of n's mask.
//!
//! Pipeline: each step is `rayon::join(phase 2 of super-block k, phase 1a of super-block
//! k + 1)`; the thread done first steals phase-1a chunks, so no thread waits for the ordered
//! part and none falls asleep between super-blocks (the earlier design, a barrier after
//! each phase, spent a large share of a 2-thread run in the scheduler). The masks are double-buffered.
//! The schedule, the pipeline and phase 2 are shared with `bitset-parallel`
//! ([`super::pipeline`]); this file supplies phase 1a.
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

use super::bitset::Portable;
use super::lanes::{lane_scratch_bytes, stride_for, with_stride, SeenLanes, LANES};
use super::pipeline::Schedule;
use super::pipeline::{self, FarPhase, Pending};
use super::TableBuilder;
use crate::base::moves::Moves;
use rayon::prelude::*;
use std::sync::Mutex;

/// Parallel lane-blocked stamped mex. See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct StampedParallel {
    /// The super-block sizes.
    pub schedule: Schedule,
}

impl TableBuilder for StampedParallel {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize, max_before: u16) {
        let moves = moves.up_to(g.len().saturating_sub(1));
        let sched = &self.schedule;
        // The whole loop runs on a pool thread: the phase-1a splits are then cheap pushes to
        // its own deque, where from outside the pool every super-block would be a cold
        // hand-over to the pool and back.
        rayon::scope(|_| {
            let mut pending: Option<Pending> = None;
            loop {
                let max = pending.as_ref().map_or(max_before as usize, |p| p.max);
                with_stride!(stride_for(max), G => {
                    // Each rayon thread keeps one scratch of stamps for the whole run
                    // (allocating it per task cost more than the task's work at N = 10^6).
                    let scratch: Vec<Mutex<SeenLanes<G>>> = (0..rayon::current_num_threads())
                        .map(|_| Mutex::new(SeenLanes::new()))
                        .collect();
                    let far = Stamps { moves: &moves, scratch: &scratch };
                    let p = pending.get_or_insert_with(|| {
                        pipeline::first_pending(g, from, max, sched, &far)
                    });
                    // Phase 1a reads values below the pending super-block: re-dispatch when
                    // their stride changes.
                    pipeline::run::<_, Portable>(g, p, &moves, sched, &far, |p| {
                        stride_for(p.max) == G
                    });
                });
                if pending.as_ref().is_some_and(|p| p.n0 >= g.len()) {
                    break;
                }
            }
            if let Some(p) = pending {
                pipeline::recycle(p);
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

/// Phase 1a with stamps of stride `G` (every value read is below `G`): one scratch of stamps
/// per rayon thread.
struct Stamps<'a, const G: usize> {
    moves: &'a [usize],
    scratch: &'a [Mutex<SeenLanes<G>>],
}

impl<const G: usize> FarPhase for Stamps<'_, G> {
    const LANES: usize = LANES;

    /// Enough for every value the super-block can reach, so phase 2 never widens (and
    /// at least G / 64, the width the stamps are packed to).
    fn words(&self, max: usize, reach: usize) -> usize {
        ((max + reach) / 64 + 1).max(G / 64)
    }

    /// Every lane block (offset j0) records its options with s >= `d` + j0 + L, all below
    /// n0 - `d` (in `done`), in stamps and writes them as bit masks of `words` words.
    fn run(&self, done: &[u16], n0: usize, d: usize, masks: &mut [u64], words: usize) {
        debug_assert_eq!(done.len(), n0 - d);
        masks
            .par_chunks_mut(LANES * words)
            .enumerate()
            .for_each(|(b, out)| {
                // Each thread uses its own slot, so the lock is never contended.
                let slot = rayon::current_thread_index().unwrap_or(0) % self.scratch.len();
                let mut seen = self.scratch[slot].lock().unwrap_or_else(|e| e.into_inner());
                let j0 = b * LANES;
                let first = self.moves.partition_point(|&s| s < d + j0 + LANES);
                seen.next_block();
                // n0 + j0 + L - 1 - s < n0 - d = done.len() for every such s.
                seen.stamp_moves(done, n0 + j0, &self.moves[first..]);
                seen.to_bitmasks(out, words);
            });
    }
}
