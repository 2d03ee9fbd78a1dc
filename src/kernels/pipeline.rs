//! The pipelined super-blocks the parallel table back-ends share (`stamped-parallel`,
//! `bitset-parallel`): each back-end supplies phase 1a ([`FarPhase`], the moves that reach
//! only super-blocks finished before the previous one, run in parallel) and the mask
//! kernels ([`MaskKernel`]); this module runs the frame ([`fill`]: on a pool thread, the
//! mask buffers kept from run to run), phase 2 (the remaining moves, in order) and the
//! pipeline between them.
//!
//! Positions are processed in super-blocks [n0, n0 + B) ([`Schedule`]), cut into lane blocks
//! of L positions (`FarPhase::LANES`). With d the length of the super-block before:
//! 1a. in parallel over the lane blocks, the block at j0 applies every move s >= d + j0 + L
//!    (all its options lie below n0 - d, finished before the previous super-block began);
//! 2. in order, once the previous super-block is done, the block at j0 applies the moves
//!    L <= s < d + j0 + L (those with s >= j0 + L read only finished super-blocks and go
//!    through the path's far-move kernel, the others lane by lane), then the moves s < L
//!    position by position; g(n) is the lowest zero bit of n's mask.
//!
//! Each step is `rayon::join(phase 2 of super-block k, phase 1a of super-block k + 1)`: the
//! other threads claim phase 1a's lane blocks one at a time, and the thread of phase 2
//! joins them when it is done, so no thread waits for the ordered part. Claimed one at a
//! time, the lane blocks the threads work on at once are neighbours: the line two blocks'
//! spans share is read from memory once for both (cut in halves, one a thread, each
//! thread met that line a whole block after its own previous block had read it, by then
//! out of the L2).
//!
//! Cost: phase 2 does about sqrt(2B) - sqrt(L) + #{s < L} option steps per position in
//! order; every other step runs in phase 1a, split over the threads and overlapping phase 2.
//! One synchronisation (the join) per super-block; memory two mask buffers of B·`words`
//! words, kept from run to run.
//!
//! Invariant: phase 1a of super-block k + 1 gets only `g[..n0_k]` (n0_k the start of k) and
//! phase 2 of k gets `g[..n0_k]` shared and super-block k mutable (split borrows, so the
//! compiler checks that no phase-1a read touches what phase 2 writes). Every mask has
//! `words` words; a phase-2 option or mex that does not fit them makes the super-block run
//! again, phase 1a included, one word wider (a back-end that sizes `words` for the worst
//! case never takes that path).

use super::masks::{set_bit, MaskKernel};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Smallest super-block size in positions (a multiple of both lane-block lengths). Phase 2,
/// the ordered part, costs about sqrt(2B) steps per position; smaller blocks make phase 2
/// cheaper but synchronise the threads more often.
pub const SUPER_BLOCK: usize = 512;

/// The super-block sizes of a run: `base` positions up to `grow_at[0]`, then doubling at
/// each of the three thresholds. The default doubles every factor 4 of n0 from 2^22 on, so
/// phase 2's share, about sqrt(B / n0), stays near 1-2% while the number of thread
/// synchronisations (one per super-block) drops. Tests set small thresholds so that every
/// size is reached at small N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// The first super-block size, a positive multiple of the back-end's lane block (32
    /// for `stamped-parallel`, 64 for `bitset-parallel`).
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

    /// The bytes of the pipeline's two mask buffers (the pending super-block's and the
    /// next one's) at the largest super-block, `words` words a position.
    pub fn mask_bytes(&self, words: usize) -> u64 {
        2 * (self.largest() * words * 8) as u64
    }
}

/// Phase 1a of a parallel back-end.
pub trait FarPhase: Sync {
    /// Positions per lane block.
    const LANES: usize;

    /// Mask words for a super-block whose earlier values are at most `max` and whose values
    /// up to its end are at most `max + reach`.
    fn words(&self, max: usize, reach: usize) -> usize;

    /// The moves up to N, ascending: what phase 1a hands [`FarPhase::block`] from.
    fn moves(&self) -> &[usize];

    /// Fills `out`, the masks of the lane block at `n` (lane j's `words` words at
    /// `j * words`, every word written), with its options under the moves `far`, each of
    /// whose reads lies in `done` (n + LANES - 1 - s < `done.len()` for every s in `far`).
    /// `slot` (below the run's [`Run::threads`]) is the calling thread's own while the
    /// phase runs: no two threads doing blocks at the same time share one, so a back-end
    /// can keep a scratch per slot.
    fn block(
        &self,
        slot: usize,
        done: &[u16],
        n: usize,
        far: &[usize],
        out: &mut [u64],
        words: usize,
    );
}

/// Phase 1a of one super-block as work that threads claim lane block by lane block: `masks`
/// (lane block b at `b * LANES * words`, lane j's words at `j * words` inside it, every word
/// written) receive the options of the super-block at `n0` under the moves s >= `d` + j0 +
/// LANES, reading only `done` = g[..n0 - d]. Every thread that calls [`FarWork::work`] takes
/// the next unclaimed block until none is left, so a thread done with its own part (phase 2)
/// takes blocks as soon as it is free.
struct FarWork<'a, F> {
    far: &'a F,
    done: &'a [u16],
    n0: usize,
    d: usize,
    words: usize,
    /// Each lane block's masks, locked only by the thread that claimed it.
    blocks: Vec<Mutex<&'a mut [u64]>>,
    next: AtomicUsize,
}

impl<'a, F: FarPhase> FarWork<'a, F> {
    fn new(
        far: &'a F,
        done: &'a [u16],
        n0: usize,
        d: usize,
        masks: &'a mut [u64],
        words: usize,
    ) -> Self {
        debug_assert_eq!(done.len(), n0 - d);
        FarWork {
            far,
            done,
            n0,
            d,
            words,
            blocks: masks.chunks_mut(F::LANES * words).map(Mutex::new).collect(),
            next: AtomicUsize::new(0),
        }
    }

    /// Claims and does lane blocks until none is left, with the scratch slot `slot`: no
    /// two threads claim with the same slot at the same time, and every slot is below
    /// [`Run::threads`] (the thread of phase 2 claims with slot 0, the others with 1 and up).
    fn work(&self, slot: usize) {
        let moves = self.far.moves();
        loop {
            let b = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(block) = self.blocks.get(b) else {
                return;
            };
            let mut out = block.lock().unwrap_or_else(|e| e.into_inner());
            let j0 = b * F::LANES;
            let first = moves.partition_point(|&s| s < self.d + j0 + F::LANES);
            let (done, n) = (self.done, self.n0 + j0);
            self.far
                .block(slot, done, n, &moves[first..], &mut out, self.words);
        }
    }

    /// The work done by `threads - 1` claimers on the rayon pool, slots 1 and up (the
    /// thread of phase 2 claims with slot 0 once it is done).
    fn on_others(&self, threads: usize) {
        (1..threads)
            .into_par_iter()
            .for_each(|slot| self.work(slot));
    }

    /// The work done by `threads` claimers on the rayon pool, slots 0 and up.
    fn on_all(&self, threads: usize) {
        (0..threads)
            .into_par_iter()
            .for_each(|slot| self.work(slot));
    }
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

/// A run of the pipeline over one table, what [`fill`] hands its back-end's step: the
/// pending super-block, once the first step has started it.
pub struct Run<'a> {
    sched: &'a Schedule,
    moves: &'a [usize],
    from: usize,
    max_before: usize,
    pending: Option<Pending>,
    threads: usize,
}

impl Run<'_> {
    /// The threads that do phase 1a (the rayon pool's): the slots a back-end's
    /// [`FarPhase::block`] is handed are below this.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The largest value before the pending super-block (before `from` until the first
    /// step): what a back-end sizes its phase 1a by.
    pub fn max(&self) -> usize {
        self.pending.as_ref().map_or(self.max_before, |p| p.max)
    }

    /// True once every position of `g` is done.
    fn finished(&self, g: &[u16]) -> bool {
        self.pending.as_ref().is_some_and(|p| p.n0 >= g.len())
    }

    /// Runs super-blocks with phase 1a `far` and the mask kernels `K` while `stay(max)`
    /// holds for the running max before the pending super-block (a back-end whose phase 1a
    /// is monomorphised on the values' range stops here to re-dispatch) and the table is not
    /// done. The first call starts the pipeline at `from`.
    #[inline(always)]
    pub fn blocks<F: FarPhase, K: MaskKernel>(
        &mut self,
        g: &mut [u16],
        far: &F,
        stay: impl Fn(usize) -> bool,
    ) {
        let (from, max, sched, threads) = (self.from, self.max_before, self.sched, self.threads);
        let p = self
            .pending
            .get_or_insert_with(|| first_pending(g, from, max, sched, far, threads));
        run::<F, K>(g, p, self.moves, sched, far, threads, stay);
    }
}

/// One pipelined fill, what a parallel back-end hands its ISA dispatch: g[from..] with the
/// moves up to N (`moves`, ascending) on `sched`'s super-blocks, the values before `from`
/// final with largest value `max_before`.
pub struct Job<'a> {
    /// The super-block sizes.
    pub sched: &'a Schedule,
    /// The moves up to N, ascending.
    pub moves: &'a [usize],
    /// The table g(0..=N).
    pub g: &'a mut [u16],
    /// The first position to fill.
    pub from: usize,
    /// max(g[..from]) (0 when `from` = 0).
    pub max_before: usize,
}

impl<'a> Job<'a> {
    /// The fill of g[from..] with `moves` on `sched`, max(g[..from]) = `max_before`.
    pub fn new(
        sched: &'a Schedule,
        moves: &'a [usize],
        g: &'a mut [u16],
        from: usize,
        max_before: usize,
    ) -> Job<'a> {
        Job {
            sched,
            moves,
            g,
            from,
            max_before,
        }
    }
}

/// The frame of a pipelined fill ([`Job`]): calls `step` until the table is done; each step
/// runs super-blocks with [`Run::blocks`]. The whole loop runs on a pool
/// thread, so the phase-1a splits are cheap pushes to its own deque (from outside the pool
/// every super-block would be a cold hand-over to the pool and back); the mask buffers are
/// kept for the next run (`SPARE_MASKS`).
#[inline(always)]
pub fn fill(job: Job<'_>, mut step: impl FnMut(&mut Run<'_>, &mut [u16]) + Send) {
    let Job {
        sched,
        moves,
        g,
        from,
        max_before,
    } = job;
    rayon::scope(|_| {
        let mut run = Run {
            sched,
            moves,
            from,
            max_before,
            pending: None,
            threads: rayon::current_num_threads(),
        };
        while !run.finished(g) {
            let before = run.pending.as_ref().map(|p| p.n0);
            step(&mut run, g);
            // Every step runs at least one super-block (a back-end's step is chosen for
            // the running max and stays while it holds), so a step without progress is a
            // bug that would loop here forever: fail instead. One compare per step, outside
            // the super-block loop.
            let after = run.pending.as_ref().map(|p| p.n0);
            assert!(
                after > before,
                "the pipeline made no progress at n = {before:?} (max {})",
                run.max()
            );
        }
        if let Some(p) = run.pending {
            recycle(p);
        }
    });
}

/// The two mask buffers of the last run, kept for the next one ([`first_pending`] takes
/// them, [`recycle`] puts them back). Fresh buffers each run were allocated and freed on
/// every build, and glibc handed their pages back to the kernel each time (trimming the
/// arena top with `brk` or `madvise`), so each build page-faulted them in again, a cost
/// that weighs most on small builds (measured in results/scaling/big-n.md, target 4). What is kept
/// is the two buffers of the last run (at most what its `scratch_bytes` counted for them, a
/// few MB at N = 10^9).
static SPARE_MASKS: std::sync::Mutex<Option<[Vec<u64>; 2]>> = std::sync::Mutex::new(None);

/// Gives the buffers of a finished run back for the next one.
fn recycle(p: Pending) {
    let mut spare = SPARE_MASKS.lock().unwrap_or_else(|e| e.into_inner());
    *spare = Some([p.cur, p.next]);
}

/// The pipeline state for a run starting at `from` (values before it final, largest
/// `max`): phase 1a of the first super-block, which has no super-block before it (d = 0),
/// runs here, since there is nothing to overlap it with. Its buffers are the last run's
/// when there is one ([`SPARE_MASKS`]).
fn first_pending<F: FarPhase>(
    g: &[u16],
    from: usize,
    max: usize,
    sched: &Schedule,
    far: &F,
    threads: usize,
) -> Pending {
    assert!(
        sched.base > 0 && sched.base.is_multiple_of(F::LANES),
        "super-blocks are whole lane blocks"
    );
    let end = (from + sched.super_block(from)).min(g.len());
    let words = far.words(max, end - from);
    let spare = SPARE_MASKS.lock().unwrap_or_else(|e| e.into_inner()).take();
    let [mut cur, next] = spare.unwrap_or_default();
    cur.clear();
    cur.resize((end - from).div_ceil(F::LANES) * F::LANES * words, 0);
    // At `from` = 0 every option lies inside the first super-block: the masks start empty.
    if from > 0 {
        FarWork::new(far, &g[..from], from, 0, &mut cur, words).on_all(threads);
    }
    Pending {
        n0: from,
        d: 0,
        max,
        words,
        cur,
        next,
    }
}

/// Runs the pipeline from `p` while `stay(p.max)` holds (a back-end whose phase 1a is
/// monomorphised on the values' range stops here to re-dispatch). Each step finishes the
/// pending super-block k (phase 2, on the calling thread) while phase 1a of super-block
/// k + 1 runs in parallel beside it.
fn run<F: FarPhase, K: MaskKernel>(
    g: &mut [u16],
    p: &mut Pending,
    moves: &[usize],
    sched: &Schedule,
    far: &F,
    threads: usize,
    stay: impl Fn(usize) -> bool,
) {
    let Some(limit) = g.len().checked_sub(1) else {
        return;
    };
    while p.n0 <= limit && stay(p.max) {
        let n0 = p.n0;
        let end = (n0 + sched.super_block(n0)).min(limit + 1);
        // An empty super-block would make no progress and loop here forever (a schedule
        // bug, or a mutant of one): fail instead. One compare per super-block.
        assert!(
            end > n0,
            "the pipeline's schedule gave an empty super-block at n = {n0}"
        );
        let (done, rest) = g.split_at_mut(n0);
        let block = &mut rest[..end - n0];
        let (d, words, max) = (p.d, p.words, p.max);
        if end > limit {
            // The last super-block: nothing to overlap.
            p.max = finish::<F, K>(done, block, moves, &mut p.cur, words, d, max, far);
            p.n0 = end;
            break;
        }
        let next_end = (end + sched.super_block(end)).min(limit + 1);
        // Values below `end` are at most max + (end - n0); super-block k + 1 adds at most
        // its length (a mex exceeds its largest option by at most one).
        let next_words = far.words(max, next_end - n0);
        p.next.resize(
            (next_end - end).div_ceil(F::LANES) * F::LANES * next_words,
            0,
        );
        let (cur, next) = (&mut p.cur, &mut p.next[..]);
        let work = FarWork::new(far, done, end, end - n0, next, next_words);
        // This thread finishes super-block k, then joins the others on phase 1a of k + 1.
        let (new_max, ()) = rayon::join(
            || {
                let new_max = finish::<F, K>(done, block, moves, cur, words, d, max, far);
                work.work(0);
                new_max
            },
            || work.on_others(threads),
        );
        drop(work);
        std::mem::swap(&mut p.cur, &mut p.next);
        (p.n0, p.d, p.max, p.words) = (end, end - n0, new_max, next_words);
    }
}

/// Phase 2 of the super-block `block` (at n0 = `done.len()`, after one of length `d`, its
/// phase 1a in `masks`), widening the masks and redoing phase 1a while a value does not fit
/// them. Returns the running max after the super-block.
#[allow(clippy::too_many_arguments)]
fn finish<F: FarPhase, K: MaskKernel>(
    done: &[u16],
    block: &mut [u16],
    moves: &[usize],
    masks: &mut Vec<u64>,
    mut words: usize,
    d: usize,
    max: usize,
    far: &F,
) -> usize {
    loop {
        if let Some(m) = near_phase::<K>(F::LANES, done, block, moves, masks, words, d, max) {
            return m;
        }
        // Rare: the running max crossed a word boundary inside the previous super-block or
        // this one. Phase 1a reads only g[..n0 - d], which is unaffected.
        let n0 = done.len();
        // Every value here is at most max + len (a mex is at most one past the values before
        // it) and at most the number of moves, so that many bits always fit: a value that
        // still does not fit is a bug (stale mask bits, say) that would widen here forever.
        // Fail instead; this runs only when a super-block widens, which is rare.
        let enough = (max + block.len()).min(moves.len()) / 64 + 1;
        assert!(
            words < enough,
            "the pipeline widened to {words} mask words at n = {n0} (max {max}), enough \
             for every value, and a value still does not fit"
        );
        words += 1;
        masks.resize(block.len().div_ceil(F::LANES) * F::LANES * words, 0);
        // On this thread alone (slot 0, its own): the others are on the next super-block's
        // phase 1a.
        FarWork::new(far, &done[..n0 - d], n0, d, masks, words).work(0);
    }
}

/// Phase 2 (with 1b folded in): finishes the super-block `block` = g[n0 .. n0 + len), with
/// n0 = `done.len()`, in order, lane blocks of `lanes` positions (at most 64, the far-move
/// kernels' group). The lane block at j0 applies the moves L <= s < `d` + j0 + L
/// (contiguous reads of finished positions, before n0 in `done` or earlier in `block`),
/// then the moves s < L position by position; g(n) is
/// the lowest zero bit of n's mask. Returns the running max after the super-block (`max` is
/// the max before it), or `None` when an option or a mex does not fit `words` words.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn near_phase<K: MaskKernel>(
    lanes: usize,
    done: &[u16],
    block: &mut [u16],
    moves: &[usize],
    masks: &mut [u64],
    words: usize,
    d: usize,
    mut max: usize,
) -> Option<usize> {
    let n0 = done.len();
    // Every value in `done` is at most `max`: when that fits, so do all reads of `done`.
    if max / 64 >= words {
        return None;
    }
    let near_end = moves.partition_point(|&s| s < lanes);
    for (b, block_masks) in masks.chunks_exact_mut(lanes * words).enumerate() {
        let j0 = b * lanes;
        let len = lanes.min(block.len() - j0);
        let mid_end = moves.partition_point(|&s| s < d + j0 + lanes);
        // The moves j0 + L <= s < d + j0 + L read only `done` (n0 + j0 + j - s < n0 for
        // j < L), contiguously: the path's far-move kernel, as in phase 1a.
        let done_only = moves.partition_point(|&s| s < j0 + lanes).max(near_end);
        K::far_or(
            done,
            block_masks,
            n0 + j0,
            len,
            words,
            &moves[done_only..mid_end],
        );
        for &s in &moves[near_end..done_only] {
            // s >= L: every option n0 + j0 + j - s is below n0 + j0, finished. Lanes j <
            // split read `done`, the others the super-block itself.
            let first = s.saturating_sub(n0 + j0).min(len);
            let split = s.saturating_sub(j0).clamp(first, len);
            for j in first..split {
                let v = done[n0 + j0 + j - s];
                set_bit_checked(&mut block_masks[j * words..(j + 1) * words], v)?;
            }
            for j in split..len {
                let v = block[j0 + j - s];
                set_bit_checked(&mut block_masks[j * words..(j + 1) * words], v)?;
            }
        }
        for j in 0..len {
            let (p, n) = (j0 + j, n0 + j0 + j);
            let mask = &mut block_masks[j * words..(j + 1) * words];
            for &s in moves[..near_end].iter().take_while(|&&s| s <= n) {
                let v = if s <= p { block[p - s] } else { done[n - s] };
                set_bit_checked(mask, v)?;
            }
            let mex = K::mex(mask)?;
            block[p] = mex as u16;
            max = max.max(mex);
        }
    }
    Some(max)
}

/// Sets bit `v` of `mask`, or `None` when the mask is too narrow for it.
#[inline(always)]
fn set_bit_checked(mask: &mut [u64], v: u16) -> Option<()> {
    let v = v as usize;
    (v >> 6 < mask.len()).then(|| set_bit(mask, v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::masks::{Portable, Scalar};

    /// Phase 1a by plain loops, `L` lanes a block: for every lane j of block b (j0 = b·L),
    /// n = n0 + j0 + j, bit g(n - s) for each move s >= d + j0 + L with s <= n.
    struct PlainFar<'a, const L: usize> {
        moves: &'a [usize],
    }

    impl<const L: usize> FarPhase for PlainFar<'_, L> {
        const LANES: usize = L;

        fn words(&self, max: usize, _reach: usize) -> usize {
            max / 64 + 1
        }

        fn moves(&self) -> &[usize] {
            self.moves
        }

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
            for j in 0..L {
                for &s in far.iter().filter(|&&s| s <= n + j) {
                    assert!(n + L - 1 - s < done.len(), "phase 1a reads g[..n0 - d]");
                    let v = done[n + j - s] as usize;
                    out[j * words + v / 64] |= 1 << (v % 64);
                }
            }
        }
    }

    /// g(0..=limit) by the definition: the least value no move reaches.
    fn naive(moves: &[usize], limit: usize) -> Vec<u16> {
        let mut g: Vec<u16> = Vec::new();
        for n in 0..=limit {
            let options: Vec<u16> = moves
                .iter()
                .filter(|&&s| s <= n)
                .map(|&s| g[n - s])
                .collect();
            g.push((0..).find(|v| !options.contains(v)).unwrap());
        }
        g
    }

    /// g[from..] filled by the pipeline with phase 1a `PlainFar<L>` and the mask kernels `K`.
    fn piped<const L: usize, K: MaskKernel>(
        sched: &Schedule,
        moves: &[usize],
        g: &mut [u16],
        from: usize,
    ) {
        let far = PlainFar::<L> { moves };
        let max = g[..from].iter().copied().max().unwrap_or(0) as usize;
        fill(Job::new(sched, moves, g, from, max), |run, g| {
            run.blocks::<_, K>(g, &far, |_| true)
        });
    }

    #[test]
    fn every_table_length_across_every_super_block_size_matches_the_definition() {
        // Super-blocks of 64 up to 128, then 128, 256 and 512 (growing at 130, 300 and 500):
        // from 0 they end at 64, 128, 192, 320 and 576 (by hand: 128 < 130 <= 192, 320 =
        // 192 + 128 >= 300, 576 = 320 + 256 >= 500). The tables end before, at and past each
        // of those (and have every length up to 70), each filled from 0, resumed from the
        // middle and from its last position.
        // {1..=150} has g(n) = n mod 151, so the running max crosses 64 and 128 inside
        // super-blocks (phase 2 widens); the squares and a sparse set reach phase 1a.
        let sched = Schedule {
            base: 64,
            grow_at: [130, 300, 500],
        };
        let sets: [Vec<usize>; 3] = [
            (1..=26).map(|k| k * k).collect(),
            (1..=150).collect(),
            vec![1, 3, 7, 32, 64, 65, 100, 129, 200, 333, 512],
        ];
        for moves in &sets {
            let want = naive(moves, 700);
            let ends = [64, 128, 192, 320, 576];
            let lens = (1..=70).chain(ends.iter().flat_map(|&e| [e - 1, e, e + 1, e + 2]));
            for len in lens.chain([700]) {
                for from in [0, len / 2, len - 1] {
                    let mut g = want[..len].to_vec();
                    g[from..].fill(0);
                    piped::<64, Portable>(&sched, moves, &mut g, from);
                    assert_eq!(
                        g,
                        want[..len],
                        "L = 64, {len} positions from {from}, {moves:?}"
                    );
                    g[from..].fill(0);
                    piped::<32, Scalar>(&sched, moves, &mut g, from);
                    assert_eq!(
                        g,
                        want[..len],
                        "L = 32, {len} positions from {from}, {moves:?}"
                    );
                }
            }
        }
    }

    /// A broken phase 1a that marks every value as an option, so no mex ever fits.
    struct FullFar;

    impl FarPhase for FullFar {
        const LANES: usize = 64;

        fn words(&self, max: usize, _reach: usize) -> usize {
            max / 64 + 1
        }

        fn moves(&self) -> &[usize] {
            &[]
        }

        fn block(&self, _: usize, _: &[u16], _: usize, _: &[usize], out: &mut [u64], _: usize) {
            out.fill(u64::MAX);
        }
    }

    /// The widening stops at the width that holds every possible value: here moves 1..=100
    /// and g(n) = n below 64 (max 63), so min(63 + 64, 100) / 64 + 1 = 2 words hold every
    /// value of the super-block 64..128, and the broken phase 1a makes the pipeline widen
    /// from 1 word to 2 and then fail, instead of widening for ever.
    #[test]
    #[should_panic(expected = "the pipeline widened to 2 mask words at n = 64 (max 63)")]
    fn a_phase_that_fits_no_mex_fails_at_the_width_that_holds_every_value() {
        let moves: Vec<usize> = (1..=100).collect();
        let mut g: Vec<u16> = (0..128).collect();
        let sched = Schedule {
            base: 64,
            grow_at: [1 << 20; 3],
        };
        fill(Job::new(&sched, &moves, &mut g, 64, 63), |run, g| {
            run.blocks::<_, Portable>(g, &FullFar, |_| true)
        });
    }

    /// `PlainFar`, which also checks that the slot it is handed is below the run's threads
    /// and held by no other thread at the same time (a back-end keeps one scratch a slot).
    struct SlotCheck<'a> {
        plain: PlainFar<'a, 32>,
        busy: Vec<std::sync::atomic::AtomicBool>,
    }

    impl FarPhase for SlotCheck<'_> {
        const LANES: usize = 32;

        fn words(&self, max: usize, reach: usize) -> usize {
            self.plain.words(max, reach)
        }

        fn moves(&self) -> &[usize] {
            self.plain.moves
        }

        fn block(
            &self,
            slot: usize,
            done: &[u16],
            n: usize,
            far: &[usize],
            out: &mut [u64],
            words: usize,
        ) {
            let busy = &self.busy[slot];
            assert!(
                !busy.swap(true, Ordering::AcqRel),
                "slot {slot} taken twice"
            );
            self.plain.block(slot, done, n, far, out, words);
            busy.store(false, Ordering::Release);
        }
    }

    #[test]
    fn every_thread_claims_lane_blocks_with_a_slot_of_its_own() {
        let moves: Vec<usize> = (1..=60).map(|k| k * k).collect();
        let want = naive(&moves, 3000);
        let sched = Schedule {
            base: 64,
            grow_at: [500, 1000, 2000],
        };
        for threads in [1, 2, 3, 5] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let far = SlotCheck {
                plain: PlainFar::<32> { moves: &moves },
                busy: (0..threads).map(|_| Default::default()).collect(),
            };
            let mut g = vec![0u16; want.len()];
            pool.install(|| {
                fill(Job::new(&sched, &moves, &mut g, 0, 0), |run, g| {
                    assert_eq!(run.threads(), threads);
                    run.blocks::<_, Portable>(g, &far, |_| true)
                })
            });
            assert_eq!(g, want, "{threads} threads");
        }
    }

    #[test]
    fn the_largest_super_block_is_the_base_doubled_at_each_threshold() {
        // Three doublings: 64 -> 128 -> 256 -> 512, and 512 -> 4096 for the default.
        let small = Schedule {
            base: 64,
            grow_at: [700, 1500, 2500],
        };
        assert_eq!(small.largest(), 512);
        assert_eq!(small.super_block(2499), 256);
        assert_eq!(small.super_block(1 << 40), 512);
        assert_eq!(Schedule::default().largest(), 4096);
    }
}
