//! `stamped-parallel`: the lane-blocked stamped mex of `stamped-lanes`, with the dominant
//! part of every super-block split across `--threads T` threads and pipelined with
//! the ordered part of the super-block before it.
//!
//! Algorithm: positions are processed in super-blocks [n0, n0 + B) of B positions
//! ([`Schedule`]: 512 doubling to 4096 by default), cut into lane blocks of L = 32 (see [`crate::kernels::lanes`]). Let d be the length of
//! the super-block before (d = 0 for the first), which starts at n0 - d.
//! 1a. In parallel over the lane blocks: the lane block at offset j0 applies every move
//!    s >= d + j0 + L. Each such option n - s (n < n0 + j0 + L) lies before n0 - d, in
//!    super-blocks finished before the previous one, so the lane blocks are independent and
//!    this phase runs while the previous super-block is still being finished. Each records
//!    the values in stamped byte arrays (one load and one byte store a step) and packs them
//!    into a bit mask per position (16, 32 or 64 bytes a compare on the portable, AVX2 or
//!    AVX-512 path, see [`crate::kernels::lanes`]).
//! 2. In order over the lane blocks, once the previous super-block is done: the lane block at
//!    j0 applies the moves L <= s < d + j0 + L (contiguous reads of finished positions: in
//!    the previous super-block or earlier in this one; those with s >= j0 + L read only the
//!    former, through the portable far-move OR of [`crate::kernels::masks`]), then the
//!    moves s < L position by
//!    position, and each g(n) is the lowest zero bit of n's mask.
//!
//! Pipeline: each step joins phase 2 of super-block k (on the calling thread) and phase 1a
//! of super-block k + 1 (on spinning workers, which claim its lane blocks one at a time;
//! the caller joins them once phase 2 is done), so no thread waits for the ordered part and
//! none falls asleep between super-blocks. The masks are double-buffered. The schedule, the
//! pipeline's frame and phase 2 are shared with `bitset-parallel`
//! ([`crate::kernels::pipeline`]); this file supplies phase 1a.
//!
//! Paths (`--isa`, read once per `fill`): the lane kernels (the bit packing of phase 1a) are
//! chosen by handing the whole fill to [`lanes::dispatch`] as a visitor (`Fill`).
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

use super::{fill_pipelined, table_io};
use crate::base::error::Result;
use crate::base::isa;
use crate::base::moves::Moves;
use crate::cost::{Model, Primitive};
use crate::grundy::{Builder, Kept};
use crate::kernels::lanes::{
    self, lane_scratch_bytes, stride_for, with_stride, LaneKernel, SeenLanes, WithLanes, LANES,
};
use crate::kernels::masks::Portable;
use crate::kernels::pipeline::{self, FarPhase, Job, Schedule};
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use std::sync::Mutex;

/// The registry entry of `stamped-parallel`.
pub const ENTRY: Entry<dyn Builder<Moves>> = Entry {
    name: "stamped-parallel",
    description: "stamped-lanes in pipelined super-blocks: options before the previous super-block on all threads, the rest in order",
    cost: "O(S(N) / threads + N * sqrt(B)), B = super-block",
    role: Role::Fast,
    model: Model {
        summary: "on all threads: per option step 1 byte store and 1/32 span load; per position G'/16 16-byte compares packing the stamps to bits (G' the lane stride) and g(n)/64+1 words scanned",
        parallel: true,
        demand: |w| {
            let stride = (w.alphabet + 32).next_power_of_two().max(64) as f64;
            table_io(w)
                .with(Primitive::Scatter, w.steps)
                .with(Primitive::Span, w.steps / 32.0)
                .with(Primitive::OrScan, w.positions() * (stride / 16.0 + w.mean_value / 64.0 + 1.0))
        },
    },
    kernels: &[Family::Lanes, Family::Masks, Family::SuperBlocks],
    make: || Box::new(StampedParallel::default()),
};

/// Parallel lane-blocked stamped mex. See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct StampedParallel {
    /// The super-block sizes.
    pub schedule: Schedule,
}

impl Builder<Moves> for StampedParallel {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize) -> Result<()> {
        self.fill_kept(moves, g, from, &mut None)
    }

    fn fill_kept(&self, moves: &Moves, g: &mut [u16], from: usize, kept: &mut Kept) -> Result<()> {
        fill_pipelined(&self.schedule, (moves, g, from), kept, |job| {
            lanes::dispatch(isa::active(), Fill(job))
        })
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, threads: usize) -> u64 {
        // The mask buffers with words for every value a super-block reaches, one lane
        // scratch per thread (and one for the first far phase), the move list.
        let values = moves.up_to(limit).len();
        let words = (values + 2 * self.schedule.largest()) / 64 + 2;
        let lanes = (threads as u64 + 1) * lane_scratch_bytes(moves, limit);
        self.schedule.mask_bytes(words) + lanes + 8 * values as u64
    }
}

/// The pipelined fill of g[from..] (values before it final, largest `max`) as a visitor of
/// [`lanes::dispatch`]: the pipeline ([`pipeline::fill`]) with phase 1a [`Stamps`] on the
/// path's lane kernels, re-dispatched on the stride as the max grows; phase 2 takes the
/// portable mask kernels.
struct Fill<'a>(Job<'a>);

impl WithLanes for Fill<'_> {
    type Out = ();

    #[inline(always)]
    fn run<K: LaneKernel>(self) {
        let moves = self.0.moves;
        let step = |run: &mut pipeline::Run<'_>, g: &mut [u16]| {
            with_stride!(stride_for(run.max()), G => {
                // Each thread keeps one scratch of stamps for the whole run (allocating it
                // per task cost more than the task's work at N = 10^6).
                let scratch: Vec<Mutex<SeenLanes<G, K>>> = (0..run.threads())
                    .map(|_| Mutex::new(SeenLanes::new()))
                    .collect();
                let far = Stamps { moves, scratch: &scratch };
                // Phase 1a reads values below the pending super-block: re-dispatch when
                // their stride changes.
                run.blocks::<_, Portable>(g, &far, |max| stride_for(max) == G);
            });
        };
        pipeline::fill(self.0, step);
    }
}

/// Phase 1a with stamps of stride `G` (every value read is below `G`) on the lane kernels
/// `K`: one scratch of stamps per thread of the run.
struct Stamps<'a, const G: usize, K> {
    moves: &'a [usize],
    scratch: &'a [Mutex<SeenLanes<G, K>>],
}

impl<const G: usize, K: LaneKernel> FarPhase for Stamps<'_, G, K> {
    const LANES: usize = LANES;

    /// Enough for every value the super-block can reach, so phase 2 never widens (and
    /// at least G / 64, the width the stamps are packed to).
    fn words(&self, max: usize, reach: usize) -> usize {
        ((max + reach) / 64 + 1).max(G / 64)
    }

    fn moves(&self) -> &[usize] {
        self.moves
    }

    /// Records the lane block's options in stamps and writes them as bit masks of `words`
    /// words.
    #[inline(always)]
    fn block(
        &self,
        slot: usize,
        done: &[u16],
        n: usize,
        far: &[usize],
        out: &mut [u64],
        words: usize,
    ) {
        // A slot past the scratches would share one: the same values, only slower.
        let mut seen = self.scratch[slot % self.scratch.len()]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        seen.next_block();
        seen.stamp_moves(done, n, far);
        seen.to_bitmasks(out, words);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The masks hold every value a super-block can reach (max + reach, and one word more
    /// for the bit of that value itself), and at least the G / 64 words the stamps are
    /// packed to.
    #[test]
    fn the_stamps_masks_hold_every_value_the_super_block_can_reach() {
        let narrow = Stamps::<64, lanes::Scalar> {
            moves: &[],
            scratch: &[],
        };
        assert_eq!(narrow.words(0, 0), 1);
        assert_eq!(narrow.words(63, 0), 1);
        assert_eq!(narrow.words(100, 28), 3);
        let wide = Stamps::<256, lanes::Scalar> {
            moves: &[],
            scratch: &[],
        };
        assert_eq!(wide.words(0, 0), 4);
        assert_eq!(wide.words(300, 100), 7);
    }
}
