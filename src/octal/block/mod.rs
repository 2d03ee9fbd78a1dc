//! `octal-block`: the rare/common method with the heaps decided a block at a time: the work
//! of each heap that reads only finished values first, on every thread of the pool and 32
//! heaps to a run of partners, then the rest heap by heap.
//!
//! Algorithm: under a mask M of either kind of [`super::method::rare_common`] (the first: v rare
//! when popcount(v & M) is even; the second: rare when its parity is that of n - t, so
//! whether a value is rare for heap n depends on n's parity, and the common flags are kept
//! per parity), the values common for a heap that its splits attain come only from
//! (rare r, common m - r) pairs, enumerated over the list of rare positions; the mex is the
//! least common value c not attained unless some rare value below c is attained by no
//! option. A rare value comes from a pair of two rare heaps (enumerated with the rest of
//! the rare list) or of two common ones, so one early-stopping sweep over the pairs
//! (a, m - a) with a common settles it. The heaps of a block of B are decided in two
//! passes, pipelined: the near pass of one block runs beside the far pass of the next
//! (a join of [`crate::kernels::spin_pool`], whose workers spin between blocks rather than
//! sleep), so the far pass reads only g[..F], F the start of the block before, final when
//! it begins:
//!
//! 1. *far*, for every heap of the block at once (the threads claim its groups of heaps one
//!    at a time from a counter, the near pass's thread too once its near pass is done):
//!    the options that read only g[..F]: the rare pairs (r, m - r) with m - r < F, then
//!    c_far, the least common value they miss, then the sweep over the pairs with
//!    m - a < F until every rare value below c_far is attained (in chunks of
//!    [`SWEEP_CHUNK`] pairs between checks; with several splitting digits the digits take
//!    turns of [`SWEEP_TURN`] pairs, and the far pass sweeps at most [`FAR_SWEEP`] of each,
//!    since a value one digit cannot attain would cost it m/2 pairs). For a game with one splitting digit (Officers,
//!    Grundy's game, most codes) the heaps go [`LANES`] at a time: heap n0 + j
//!    splits m_0 + j tokens, so for a rare r the partners g(m_0 + j - r) of the lanes are
//!    one contiguous run ([`mark_lanes`]), and so are those of a swept pair while at least
//!    [`LANE_SWEEP_MIN`] lanes still need it (checked every [`LANE_SWEEP_CHUNK`] pairs);
//!    then each lane still open first tries, for each rare value it misses, a short list
//!    of pairs likely to attain it (a witness list per rare value: positions a whose value
//!    is v xor a frequent value), and sweeps on alone only if one is not found; what a lane
//!    shares with no other is left to its near pass (`Left`).
//! 2. *near*, heap after heap in order: the one-heap options, the rare pairs the far pass
//!    left, the pairs with a rare position found inside the block, then c; the rare values
//!    below c not yet attained are sought among the first pairs, which read the block, and
//!    where the far sweep stopped, each digit's two runs taking turns; the mex is the least
//!    value not attained.
//!
//! Each heap's attained values are one byte per value (a store per option, no read), kept
//! from the far pass to the near one. The values of a heap's options are below W, the byte
//! width of the block (the power of two above the largest value so far, so an xor of two
//! values is below it too), and its mex is at most W: the least common value missing is
//! then W itself, one past the row. A heap whose value reaches W ends the block early, and
//! the next block is wider. Before the mask is chosen (the first [`PREFIX`] values), whenever no
//! mask leaves at most 1/[`SPARSE_FRACTION`] of the positions rare, and past values of
//! [`MAX_WIDTH`], the heaps are decided by the candidate search with the xor-pair kernel,
//! as `octal-vector` does.
//!
//! Cost: per heap, one byte store per rare position below it and per splitting digit (the
//! lanes compute 32 of their indices in four vector steps), plus the sweep (a coupon
//! collection over the rare values below c, about two thousand pairs on Officers), all of it
//! in the far pass, which the threads share, but for O(2B + rare positions below 2B) per
//! heap in the near pass and the sweep's rare remainder; the near pass overlaps the next
//! far pass, so two threads stay busy but for one join per block and the last group. It
//! uses at most one thread a core, whatever the pool holds: its workers spin between
//! blocks, and a spinning worker would take the core of a thread with work.
//!
//! Invariant: when heap n is decided in the near pass, g[..n] is final; its byte row holds
//! 1 only at values some option attains; every pair with a rare member has been marked (the
//! far pass's share and the near pass's together are the whole rare list below m); and
//! every rare value below c is marked or every pair with a common small heap has been
//! swept. So the least unmarked value is g(n).
//!
//! Its cost model against counted writes (`cargo bench --bench counts -- --model`): on a code
//! with a sparse space the stores are the model's within a few percent; on a code without one
//! the model counts every split pair of every heap as a store, which the block's early-stopping
//! search does not make, so there it is far above the count.

mod far;
mod mark;
mod near;
mod pipeline;
mod row;
mod split;
mod state;
pub mod stores;
mod sweep;
#[cfg(test)]
mod tests;

use super::method::candidate_search::{fill_by_candidates, mirror_bytes};
pub use super::method::rare_common::{PREFIX, SPARSE_FRACTION};
use super::{Builder, Kept, Rules};
use crate::base::error::Result;
use crate::base::isa;
use crate::cost::{Demand, Model, Primitive, Workload};
use crate::kernels::spin_pool::with_spin_pool;
use crate::kernels::xor_pairs::{self, PairKernel, WithXorPairs};
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use far::Left;
pub use mark::{mark_lanes, mark_lanes_checked, mark_partners, mark_partners_checked};
use split::Split;
pub use split::{Pos, SWEEP_LIST};

/// The registry entry of `octal-block`.
pub const ENTRY: Entry<dyn Builder<Rules>> = Entry {
    name: "octal-block",
    description: "rare/common split with the heaps decided a block at a time: the options that read finished values first, on every thread, then each heap's in-block options in order",
    cost: "O(N * R + N * C) pair steps over the threads (R = rare positions, C = the sweep for the rare values), plus O(N * (R_B + moves)) in order",
    role: Role::Fast,
    model: Model {
        summary: "on the pool's threads: per rare pair step and per swept pair 1 scattered byte store (a lower bound: the sweep is counted as long as the enumeration)",
        parallel: true,
        demand: rare_pair_stores,
    },
    kernels: &[Family::XorPairs],
    make: || Box::new(OctalBlock::DEFAULT),
};

/// Heaps per block: the near pass reads the rare positions below two blocks per heap, and
/// the threads meet once a block (a join), so smaller blocks meet more often.
/// Chosen on Xeon-167 only, in a first look beside a build (results/octal/octal.md, stop 37); not
/// checked on the EPYCs.
pub const BLOCK: usize = 512;

/// The lanes sweep together while at least this many of them still miss a rare value;
/// then each open lane sweeps on alone (a lane sweep costs about a third of a lane's own
/// per pair, but goes on for every lane until the slowest is done, and the witness lists
/// find most of a lone lane's values in a few pairs). Chosen with [`LANE_SWEEP_CHUNK`] on
/// Officers, on Xeon-167 only (results/octal/stores/README.md, stop 53); not checked on the
/// EPYCs.
pub const LANE_SWEEP_MIN: usize = 16;

/// Pairs the lanes sweep together between two checks of each open lane's rare values: a
/// check reads the rows just stored to, so it waits for those stores; a longer chunk
/// checks less often and overshoots by half a chunk on average. Chosen with
/// [`LANE_SWEEP_MIN`] (see there).
pub const LANE_SWEEP_CHUNK: usize = 128;

/// The most witnesses listed for one rare value (see `Split::list_witnesses`).
pub const WITNESSES: usize = 256;

/// Positions of one partner value taken in each round of a witness list.
pub const WITNESS_ROUND: usize = 16;

/// Pairs swept between two checks of the rare values still missing.
pub const SWEEP_CHUNK: usize = 64;

/// Positions of one run of pairs swept before the next run's turn, where a heap has several
/// (splitting digits, stretches of a): a few sweep chunks, so that a run which cannot attain
/// a missing rare value wastes at most this much per turn, while a turn's two binary searches
/// of the sweep list stay a small share of its pairs.
pub const SWEEP_TURN: usize = 4 * SWEEP_CHUNK;

/// Positions of each splitting digit's pairs the far pass sweeps for a heap of several
/// splitting digits before it leaves the rest to the near pass: one turn. The rare value the
/// far pass misses is often attained only by the near pass's first pairs (which read the
/// block), and a far sweep that cannot find it would run to m/2 on every digit. On .644 at
/// N = 3·10^4 (callgrind, Xeon model 167) one turn took 0.25·10^9 instructions, four turns
/// 0.37·10^9, sixteen 0.59·10^9; on .74 the other way but by 9% (results/octal/block-several-splits.md).
pub const FAR_SWEEP: usize = SWEEP_TURN;

/// Heaps decided together by the lane kernels of the far pass: each rare position, and each
/// swept pair, reads one contiguous run of `LANES` partners.
pub const LANES: usize = 32;

/// The widest byte row (values below `MAX_WIDTH` are decided in blocks): a wider row
/// no longer stays in the first-level cache.
pub const MAX_WIDTH: usize = 1 << 13;

/// The cost model: one scattered store per rare pair step ([`Workload::rare_steps`]), and as
/// many again for the sweep.
pub fn rare_pair_stores(w: &Workload) -> Demand {
    Demand::default().with(Primitive::Scatter, 2.0 * w.rare_steps)
}

/// The block method (see the module doc), with its parameters (the tests shrink them).
#[derive(Debug, Clone, Copy)]
pub struct OctalBlock {
    /// Heaps decided by the candidate search before the mask is first chosen.
    pub prefix: usize,
    /// Heaps per block.
    pub block: usize,
    /// Take the best mask even when it leaves more than 1/[`SPARSE_FRACTION`] rare (the
    /// tests, so that small tables run the block passes).
    pub always_mask: bool,
}

impl OctalBlock {
    /// The registry's parameters.
    pub const DEFAULT: OctalBlock = OctalBlock {
        prefix: PREFIX,
        block: BLOCK,
        always_mask: false,
    };
}

impl Builder<Rules> for OctalBlock {
    fn fill(&self, rules: &Rules, g: &mut [u16], from: usize) -> Result<()> {
        xor_pairs::dispatch(
            isa::active(),
            Fill {
                method: *self,
                rules,
                g,
                from,
                kept: None,
            },
        )
        .map(drop)
    }

    fn fill_kept(&self, rules: &Rules, g: &mut [u16], from: usize, kept: &mut Kept) -> Result<()> {
        // what the last chunk left, if it ended where this one starts
        let state = kept
            .take()
            .and_then(|k| k.downcast::<State>().ok())
            .filter(|s| s.split.recorded == from)
            .map(|s| *s);
        let state = xor_pairs::dispatch(
            isa::active(),
            Fill {
                method: *self,
                rules,
                g,
                from,
                kept: state,
            },
        )?;
        *kept = Some(Box::new(state));
        Ok(())
    }

    fn save_kept(&self, kept: &Kept) -> Option<Vec<u8>> {
        match kept {
            // nothing kept yet: the next chunk starts from g[..from] (empty bytes)
            None => Some(Vec::new()),
            Some(k) => k.downcast_ref::<State>().map(|s| self.save_state(s)),
        }
    }

    fn load_kept(&self, _rules: &Rules, bytes: &[u8]) -> Result<Kept> {
        if bytes.is_empty() {
            return Ok(None);
        }
        Ok(Some(Box::new(self.load_state(bytes)?)))
    }

    fn scratch_bytes(&self, rules: &Rules, limit: usize, _threads: usize) -> u64 {
        let positions = limit as u64 + 1;
        let digits = rules.split().len().max(1) as u64;
        // the candidate search's mirror or (never both, see `choose_mask`) the rare list, at
        // most the sparse share of the positions and two blocks, with the near pass's copy of
        // its tail, 8 bytes an entry; the sweep list; the witness lists; the histogram and
        // the common flags (per parity of n); per heap of two blocks (the pipeline's) its
        // byte row and what the far pass leaves to the near one
        let block = self.block as u64;
        let rare_list = 8 * (positions / SPARSE_FRACTION as u64 + 4 * block + 2 * block);
        mirror_bytes(limit).max(rare_list)
            + 8 * positions.min(SWEEP_LIST as u64)
            + 8 * (MAX_WIDTH * WITNESSES) as u64
            + 2 * 8 * (1 << 16)
            + 2 * MAX_WIDTH as u64
            + 2 * self.block as u64
                * (MAX_WIDTH as u64 + digits * std::mem::size_of::<Left>() as u64)
    }
}

/// The fill as a visitor of [`xor_pairs::dispatch`].
struct Fill<'a> {
    method: OctalBlock,
    rules: &'a Rules,
    g: &'a mut [u16],
    from: usize,
    kept: Option<State>,
}

impl WithXorPairs for Fill<'_> {
    type Out = Result<State>;

    #[inline(always)]
    fn run<K: PairKernel>(self) -> Result<State> {
        let Fill {
            method,
            rules,
            g,
            from,
            kept,
        } = self;
        let candidates = |g: &mut [u16], from: usize| {
            fill_by_candidates(rules, g, from, |lo, hi, x| {
                K::first_match(lo, hi, x).is_some()
            })
        };
        // The far passes are shared with spinning workers, one fewer than the pool's
        // threads (the caller is the other), and no more than the cores: a worker that
        // spins where another thread has work would take its core.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let workers = rayon::current_num_threads().min(cores).max(1) - 1;
        with_spin_pool(workers, |pool| {
            method.fill_with(rules, g, from, kept, candidates, pool)
        })
    }
}

/// What a fill leaves for the next chunk of a long run ([`Builder::fill_kept`]): the
/// split of g[..split.recorded], the largest value there, and the next mask choice, so the
/// next chunk starts where this one ended instead of reading g[..from] again.
pub struct State {
    split: Split,
    max_known: usize,
    next_choice: usize,
}
