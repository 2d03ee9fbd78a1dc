//! `bitset-parallel`: `bitset`'s far-move OR as phase 1a of `stamped-parallel`'s pipelined
//! super-blocks, so the dominant work runs on every thread straight into the bit masks (no
//! stamps, no packing).
//!
//! Algorithm ([`crate::kernels::pipeline`]): super-blocks [n0, n0 + B) ([`Schedule`]), cut into lane
//! blocks of L = 64 positions, `bitset`'s block. With d the length of the super-block before:
//! 1a. in parallel over the lane blocks, the block at j0 clears its masks and ORs in, with
//!    the path's far-move kernel ([`MaskKernel::far_or`]), every move s >= d + j0 + 64. The
//!    kernel's group loads of up to 64 lanes at base - s then end at or before n0 - d, so
//!    it is handed exactly the finished prefix g[..n0 - d], finished before the previous
//!    super-block began, and runs beside phase 2 of that super-block;
//! 2. in order, the moves 64 <= s < d + j0 + 64 (those with s >= j0 + 64, reading only
//!    the previous super-blocks, with the far-move kernel too) and then s < 64 position by
//!    position, the mex by the path's kernel ([`MaskKernel::mex`]).
//!
//! Cost: S(N) option steps, one vector-lane OR each, as `bitset`; phase 2 does about
//! sqrt(2B) - 8 + #{s < 64} of them per position (about 31 for B = 512), the rest is split
//! over the threads and overlaps phase 2. Memory: the table and two mask buffers of B·W
//! words. W = max/64 + 1 for the values before the super-block before, as tight as
//! `bitset`'s (the far OR's cost grows with W).
//!
//! Invariant: phase 1a of super-block k + 1 receives only g[..n0_k] and reads below
//! n0_k = n0_{k+1} - d; phase 2 of k writes only super-block k (split borrows, checked by
//! the compiler). Every value read in phase 1a is at most the max before n0_k, below 64·W.
//! A value of the previous super-block or a mex that does not fit W words (the max crossing
//! a word boundary, a few times a run) makes the pipeline redo that super-block one word
//! wider.
//!
//! Paths (`--isa`, read once per `fill`): as `bitset`, the whole fill is handed to
//! [`masks::dispatch`] as a visitor (`Fill`), so it is monomorphised per path and entered
//! through the path's `#[target_feature]` entry.

use super::{fill_pipelined, mask_mex_demand};
use crate::base::error::Result;
use crate::base::isa;
use crate::base::moves::Moves;
use crate::cost::Model;
use crate::grundy::{Builder, Kept};
use crate::kernels::masks::{self, MaskKernel, WithMasks, LANES};
use crate::kernels::pipeline::{self, FarPhase, Job, Schedule};
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use std::marker::PhantomData;

/// The registry entry of `bitset-parallel`.
pub const ENTRY: Entry<dyn Builder<Moves>> = Entry {
    name: "bitset-parallel",
    description: "bitset's far-move OR in stamped-parallel's pipelined super-blocks: options before the previous super-block ORed into the masks on all threads, the rest in order",
    cost: "O(S(N) * ceil(G/64) / threads + N * sqrt(B)) word ops, B = super-block",
    role: Role::Fast,
    model: Model {
        summary: "on all threads: per option step 1 shift-and-OR into a mask word and 1/32 span load; per position ceil(G/64) words cleared and g(n)/64+1 words scanned for the mex",
        parallel: true,
        demand: mask_mex_demand,
    },
    kernels: &[Family::Masks, Family::SuperBlocks],
    make: || Box::new(BitsetParallel::default()),
};

/// Parallel lane-blocked bitset mex. See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct BitsetParallel {
    /// The super-block sizes (`base` a multiple of 64).
    pub schedule: Schedule,
}

impl Builder<Moves> for BitsetParallel {
    fn fill(&self, moves: &Moves, g: &mut [u16], from: usize) -> Result<()> {
        self.fill_kept(moves, g, from, &mut None)
    }

    fn fill_kept(&self, moves: &Moves, g: &mut [u16], from: usize, kept: &mut Kept) -> Result<()> {
        fill_pipelined(&self.schedule, (moves, g, from), kept, |job| {
            masks::dispatch(isa::active(), Fill(job))
        })
    }

    fn scratch_bytes(&self, moves: &Moves, limit: usize, _threads: usize) -> u64 {
        // The mask buffers with words for every value (at most #moves) and one spare for a
        // widened redo; the move list.
        let values = moves.up_to(limit).len();
        self.schedule.mask_bytes(values / 64 + 2) + 8 * values as u64
    }
}

/// The pipelined fill of g[from..] (values before it final, largest `max`) as a visitor of
/// [`masks::dispatch`]: the pipeline ([`pipeline::fill`]) with phase 1a [`FarOr`] and the
/// path's mask kernels.
struct Fill<'a>(Job<'a>);

impl WithMasks for Fill<'_> {
    type Out = ();

    #[inline(always)]
    fn run<K: MaskKernel>(self) {
        let far = FarOr::<K> {
            moves: self.0.moves,
            kernel: PhantomData,
        };
        let step = |run: &mut pipeline::Run<'_>, g: &mut [u16]| {
            run.blocks::<_, K>(g, &far, |_| true);
        };
        pipeline::fill(self.0, step);
    }
}

/// Phase 1a with the far-move OR of the path `K`.
struct FarOr<'a, K> {
    moves: &'a [usize],
    kernel: PhantomData<fn() -> K>,
}

impl<K: MaskKernel> FarPhase for FarOr<'_, K> {
    const LANES: usize = LANES;

    /// The values read in phase 1a (at most `max`) and no more: the far OR costs a pass per
    /// chunk of words, so a spare word would slow every move; phase 2 widens when needed.
    fn words(&self, max: usize, _reach: usize) -> usize {
        max / 64 + 1
    }

    fn moves(&self) -> &[usize] {
        self.moves
    }

    #[inline(always)]
    fn block(
        &self,
        _slot: usize,
        done: &[u16],
        n: usize,
        far: &[usize],
        out: &mut [u64],
        words: usize,
    ) {
        out.fill(0);
        // Every lane, also past the table's end: each read n + j - s (j < 64) is below
        // n0 - d = done.len(), and the lanes past the end are scratch.
        K::far_or(done, out, n, LANES, words, far);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::isa::Isa;
    use crate::base::rng::SplitMix64;
    use crate::table::{NaiveMex, Stamped};

    /// Phase 1a's masks are as wide as the values it reads (at most `max`) and no wider,
    /// whatever the super-block's reach: a word up to 63, two from 64.
    #[test]
    fn the_far_or_masks_are_as_wide_as_the_values_read_and_no_wider() {
        let far = FarOr::<masks::Scalar> {
            moves: &[],
            kernel: PhantomData,
        };
        assert_eq!(far.words(0, 512), 1);
        assert_eq!(far.words(63, 512), 1);
        assert_eq!(far.words(64, 0), 2);
        assert_eq!(far.words(200, 4096), 4);
    }

    /// Super-blocks of 64, 128, 256 and 512 positions below N = 3000 (growing at 700, 1500
    /// and 2500), so every size and both kinds of boundary are reached at small N.
    const SMALL: Schedule = Schedule {
        base: 64,
        grow_at: [700, 1500, 2500],
    };

    /// A random subtraction set: a few moves below 64 (applied in phase 2 position by
    /// position), and moves up to 900, which reach phase 1a from the second super-block on.
    fn random_set(rng: &mut SplitMix64) -> Moves {
        let mut m: Vec<u64> = (0..rng.range(1, 6)).map(|_| rng.range(1, 63)).collect();
        m.extend((0..rng.range(0, 30)).map(|_| rng.range(64, 900)));
        m.sort_unstable();
        m.dedup();
        Moves::list(m).unwrap()
    }

    /// The sets every test runs: the squares, {1..=150} (g(n) = n mod 151: the running max
    /// crosses the word boundaries 64 and 128 inside super-blocks, so phase 2 widens), and
    /// random sets.
    fn sets() -> Vec<Moves> {
        let mut rng = SplitMix64(0xb175_e7ab);
        let mut sets = vec![Moves::Squares, Moves::list((1..=150).collect()).unwrap()];
        sets.extend((0..4).map(|_| random_set(&mut rng)));
        sets
    }

    /// g(0..=limit) filled in pieces ending at `cuts` (ascending), each piece resumed from
    /// the finished prefix and the max the last piece kept, as the long-run driver does.
    fn fill_in_pieces(b: &BitsetParallel, moves: &Moves, limit: usize, cuts: &[usize]) -> Vec<u16> {
        let mut g = vec![0u16; limit + 1];
        let mut from = 0;
        let mut kept = None;
        for &cut in cuts.iter().filter(|&&c| c <= limit).chain([&(limit + 1)]) {
            b.fill_kept(moves, &mut g[..cut], from, &mut kept).unwrap();
            from = cut;
        }
        g
    }

    #[test]
    fn the_small_schedule_reaches_every_size() {
        assert_eq!(
            [0, 700, 1500, 2500].map(|n| SMALL.super_block(n)),
            [64, 128, 256, 512]
        );
    }

    #[test]
    fn every_path_and_super_block_matches_stamped_at_every_n() {
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let b = BitsetParallel { schedule: SMALL };
        for moves in sets() {
            let want = Stamped.build(&moves, 3000).unwrap();
            assert_eq!(want, NaiveMex.build(&moves, 3000).unwrap(), "{moves:?}");
            for path in Isa::supported_all() {
                // Every N on the squares; every 7th (and the last) on the other sets.
                let step = if moves == Moves::Squares { 1 } else { 7 };
                for limit in (0..=3000).step_by(step).chain([3000]) {
                    let got = isa::with(path, || b.build(&moves, limit).unwrap()).unwrap();
                    assert_eq!(
                        got.values(),
                        &want.values()[..=limit],
                        "{path}, N = {limit}, {moves:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_chunked_fill_equals_a_whole_fill_on_every_path_and_pool() {
        let _guard = isa::TEST_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let b = BitsetParallel { schedule: SMALL };
        // Cuts inside super-blocks, on their boundaries, and at a size change.
        let cuts = [1, 63, 64, 699, 700, 1234, 2500, 2999];
        for moves in sets() {
            let want = Stamped.build(&moves, 3000).unwrap();
            for path in Isa::supported_all() {
                for threads in [1, 2] {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap();
                    let (whole, pieces) = isa::with(path, || {
                        pool.install(|| {
                            (
                                b.build(&moves, 3000).unwrap(),
                                fill_in_pieces(&b, &moves, 3000, &cuts),
                            )
                        })
                    })
                    .unwrap();
                    let why = format!("{path} on {threads} threads, {moves:?}");
                    assert_eq!(whole, want, "{why}");
                    assert_eq!(pieces, want.values(), "{why}");
                }
            }
        }
    }

    #[test]
    fn the_default_schedule_matches_stamped_past_the_first_growth() {
        // 2^22 + 10^5: the default schedule's first size change (512 -> 1024) on the path
        // this CPU runs, on the global pool.
        let limit = (1 << 22) + 100_000;
        let want = Stamped.build(&Moves::Squares, limit);
        let got = BitsetParallel::default().build(&Moves::Squares, limit);
        assert_eq!(got, want);
    }
}
