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
//!    [`SWEEP_CHUNK`] pairs between checks). For a game with one splitting digit (Officers,
//!    Grundy's game, most codes) the heaps go [`LANES`] at a time: heap n0 + j
//!    splits m_0 + j tokens, so for a rare r the partners g(m_0 + j - r) of the lanes are
//!    one contiguous run ([`mark_lanes`]), and so are those of a swept pair while at least
//!    [`LANE_SWEEP_MIN`] lanes still need it; then each lane still open first tries, for
//!    each rare value it misses, a short list of pairs likely to attain it (a witness list
//!    per rare value: positions a whose value is v xor a frequent value), and sweeps on alone
//!    only if one is not found; what a lane shares with no other is left to its near pass
//!    (`Left`).
//! 2. *near*, heap after heap in order: the one-heap options, the rare pairs the far pass
//!    left, the pairs with a rare position found inside the block, then c; the rare values
//!    below c not yet attained continue the far sweep where it stopped, then the first
//!    pairs, which read the block; the mex is the least value not attained.
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

use super::method::candidate_search::{fill_by_candidates, mirror_bytes};
use super::method::rare_common::{Histogram, Mask};
pub use super::method::rare_common::{PREFIX, SPARSE_FRACTION};
use super::{Builder, Kept, Rules};
use crate::base::error::Result;
use crate::base::isa;
use crate::cost::{Demand, Model, Primitive, Workload};
use crate::kernels::spin_pool::{with_spin_pool, SpinPool};
use crate::kernels::xor_pairs::{self, PairKernel, WithXorPairs};
use crate::kernels::Family;
use crate::registry::{Entry, Role};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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
/// per pair, but goes on for every lane until the slowest is done). Chosen on Xeon-167 only,
/// in a first look beside a build (results/octal/octal.md, stop 37).
pub const LANE_SWEEP_MIN: usize = 12;

/// The most witnesses listed for one rare value (see `Split::list_witnesses`).
pub const WITNESSES: usize = 256;

/// Positions of one partner value taken in each round of a witness list.
pub const WITNESS_ROUND: usize = 16;

/// Pairs swept between two checks of the rare values still missing.
pub const SWEEP_CHUNK: usize = 64;

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

/// A position and its value, as the hot loops read them (one 8-byte load).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    /// The position.
    pub at: u32,
    /// g(at).
    pub value: u32,
}

/// The positions below this bound whose value is common are kept in a list for the sweep
/// (the pairs with a rare small heap are enumerated elsewhere, so the sweep skips them);
/// a sweep past it reads g directly.
pub const SWEEP_LIST: usize = 1 << 16;

/// What the block passes know of the finished values: the mask, the rare positions and the
/// common ones below [`SWEEP_LIST`] with their values, the histogram.
struct Split {
    mask: Mask,
    /// Positions from 0 recorded so far.
    recorded: usize,
    /// The positions 1 <= r < recorded that are rare under the mask, ascending.
    rare: Vec<Pos>,
    /// The positions 1 <= a < min(recorded, SWEEP_LIST) that are common, ascending.
    sweepers: Vec<Pos>,
    histogram: Histogram,
    /// `common[p][v]` is 1 when v is common for a heap n of parity p under the mask, else 0
    /// (one byte per value of the widest row; the two agree for the first kind).
    common: [Vec<u8>; 2],
    /// For each value v rare for some heap, the pairs to try first for it ([`witness_rare`]):
    /// entries (a, u) with g(a) = u ^ v, the most frequent u first, so that a pair
    /// (a, m - a) attains v when g(m - a) = u.
    witnesses: Vec<Vec<Pos>>,
}

impl Split {
    fn new() -> Split {
        Split {
            mask: Mask::NONE,
            recorded: 0,
            rare: Vec::new(),
            sweepers: Vec::new(),
            histogram: Histogram::new(),
            common: [vec![0; MAX_WIDTH], vec![0; MAX_WIDTH]],
            witnesses: Vec::new(),
        }
    }

    /// Records g(n) = v, n being the next position.
    fn record(&mut self, n: usize, v: u16) {
        debug_assert_eq!(n, self.recorded);
        self.recorded = n + 1;
        if n == 0 {
            return;
        }
        self.histogram.add(n, v);
        if self.mask.splits() {
            let pos = Pos {
                at: n as u32,
                value: v as u32,
            };
            if self.mask.rare(v as u32, n) {
                self.rare.push(pos);
            } else if n < SWEEP_LIST {
                self.sweepers.push(pos);
            }
        }
    }

    /// The end of the positions the sweep list stands for.
    fn list_end(&self) -> usize {
        self.recorded.min(SWEEP_LIST)
    }

    fn take_mask(&mut self, mask: Mask, g: &[u16]) {
        self.mask = mask;
        self.rare.clear();
        self.sweepers.clear();
        for (r, &v) in g.iter().enumerate().skip(1) {
            let pos = Pos {
                at: r as u32,
                value: v as u32,
            };
            if mask.rare(v as u32, r) {
                self.rare.push(pos);
            } else if r < SWEEP_LIST {
                self.sweepers.push(pos);
            }
        }
        for (p, common) in self.common.iter_mut().enumerate() {
            for (v, c) in common.iter_mut().enumerate() {
                *c = !mask.rare(v as u32, p) as u8;
            }
        }
    }

    /// Forgets the mask and every list built on it (their memory given back).
    fn drop_mask(&mut self) {
        self.mask = Mask::NONE;
        self.rare = Vec::new();
        self.sweepers = Vec::new();
        self.witnesses = Vec::new();
    }

    /// Lists each rare value's witnesses from the common positions a >= `floor` below the
    /// sweep list's end and the histogram as they stand. The order is a guess, so a stale
    /// list costs time, never exactness: a try of (a, u) finds v about as often as u is
    /// frequent, but the values of Officers are far from independent (all the positions of
    /// one value can miss the heap's partners of another), so the list takes at most
    /// [`WITNESS_ROUND`] positions of each partner value u in turn, the most frequent u
    /// first, then the next ones of each.
    fn list_witnesses(&mut self, floor: usize) {
        let top = self.histogram.values().saturating_sub(1);
        let mut by_value: Vec<Vec<u32>> = vec![Vec::new(); top + 1];
        for e in &self.sweepers {
            if e.at as usize >= floor {
                by_value[e.value as usize].push(e.at);
            }
        }
        // partner values by frequency (a rare one is as good a witness, only seldom met)
        let mut partners: Vec<usize> = (0..=top).filter(|&u| self.histogram.count(u) > 0).collect();
        partners.sort_by_key(|&u| std::cmp::Reverse(self.histogram.count(u)));
        let span = row_width(top).min(MAX_WIDTH);
        self.witnesses = (0..span)
            .map(|v| {
                let mut list = Vec::new();
                if !self.mask.rare(v as u32, 0) && !self.mask.rare(v as u32, 1) {
                    return list;
                }
                for round in 0.. {
                    let before = list.len();
                    for &u in &partners {
                        let Some(positions) = by_value.get(u ^ v) else {
                            continue;
                        };
                        let turn = positions.iter().skip(round * WITNESS_ROUND);
                        let room = WITNESSES - list.len();
                        list.extend(turn.take(WITNESS_ROUND.min(room)).map(|&at| Pos {
                            at,
                            value: u as u32,
                        }));
                        if list.len() == WITNESSES {
                            return list;
                        }
                    }
                    if list.len() == before {
                        break;
                    }
                }
                list
            })
            .collect();
    }
}

/// Sets `row[(e.value ^ g[m - e.at]) & (row.len() - 1)] = 1` for every entry e: each pair
/// (e.at, m - e.at) marks its value. Needs `row.len()` a power of two and `entries`
/// ascending with every `e.at <= m` and `m - e.at < g.len()` (asserted once, on the first
/// and last entries, which the ascending order makes the extremes). Its twin
/// [`mark_partners_checked`] indexes with bounds checks.
#[inline(always)]
pub fn mark_partners(row: &mut [u8], g: &[u16], m: usize, entries: &[Pos]) {
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return;
    };
    assert!(
        row.len().is_power_of_two()
            && first.at <= last.at
            && last.at as usize <= m
            && m - (first.at as usize) < g.len()
    );
    debug_assert!(entries.windows(2).all(|w| w[0].at <= w[1].at));
    let wmask = row.len() - 1;
    for e in entries {
        // SAFETY: the entries ascend, so first.at <= e.at <= last.at <= m and
        // m - e.at <= m - first.at < g.len(), asserted above; the row index is masked
        // below row.len().
        unsafe {
            let v = e.value as usize ^ *g.get_unchecked(m - e.at as usize) as usize;
            *row.get_unchecked_mut(v & wmask) = 1;
        }
    }
}

/// [`mark_partners`] with every index checked: the twin the tests compare it with.
pub fn mark_partners_checked(row: &mut [u8], g: &[u16], m: usize, entries: &[Pos]) {
    let wmask = row.len() - 1;
    for e in entries {
        row[(e.value as usize ^ g[m - e.at as usize] as usize) & wmask] = 1;
    }
}

/// Read access to g for the passes: the finished prefix as a plain slice (the far pass),
/// or a block's view, the prefix and the block's values decided so far (the near pass).
trait Values {
    /// g(i).
    fn at(&self, i: usize) -> u16;
    /// Marks the pairs (e.at, m - e.at) of `entries` (ascending, every e.at <= m).
    fn mark(&self, row: &mut [u8], m: usize, entries: &[Pos]);
}

impl Values for [u16] {
    #[inline(always)]
    fn at(&self, i: usize) -> u16 {
        self[i]
    }

    #[inline(always)]
    fn mark(&self, row: &mut [u8], m: usize, entries: &[Pos]) {
        mark_partners(row, self, m, entries);
    }
}

/// The near pass's view of g while the next block's far pass reads `head` = g[..n0]: the
/// block's values decided so far are `tail` = g[n0..n].
struct View<'a> {
    head: &'a [u16],
    tail: &'a [u16],
}

impl Values for View<'_> {
    #[inline(always)]
    fn at(&self, i: usize) -> u16 {
        match i.checked_sub(self.head.len()) {
            None => self.head[i],
            Some(j) => self.tail[j],
        }
    }

    #[inline]
    fn mark(&self, row: &mut [u8], m: usize, entries: &[Pos]) {
        // The entries whose partner m - e.at lies in the block (e.at <= m - n0) read the tail
        // at (m - n0) - e.at; the others read the head.
        let n0 = self.head.len();
        let cut = entries.partition_point(|e| (e.at as usize) + n0 <= m);
        if cut > 0 {
            mark_partners(row, self.tail, m - n0, &entries[..cut]);
        }
        mark_partners(row, self.head, m, &entries[cut..]);
    }
}

/// Marks the pairs (r, m - r) for the entries r of `entries` with r < m, leaving out the
/// equal split r = m - r when `unequal` (Grundy's game).
#[inline(always)]
fn mark_rare_pairs<V: Values + ?Sized>(
    row: &mut [u8],
    g: &V,
    m: usize,
    entries: &[Pos],
    unequal: bool,
) {
    let end = entries.partition_point(|e| (e.at as usize) < m);
    let entries = &entries[..end];
    if unequal && m.is_multiple_of(2) {
        let half = entries.partition_point(|e| (e.at as usize) < m / 2);
        g.mark(row, m, &entries[..half]);
        let skip = (entries.get(half).map(|e| e.at as usize) == Some(m / 2)) as usize;
        g.mark(row, m, &entries[half + skip..]);
    } else {
        g.mark(row, m, entries);
    }
}

/// A block whose far pass is done and whose near pass is not: heaps n0..end, its far pass
/// having read g[..known] and the rare list's first `first_new_rare` entries (those below
/// `known`), its rows `width` bytes wide.
#[derive(Debug, Clone, Copy)]
struct Pending {
    n0: usize,
    end: usize,
    known: usize,
    first_new_rare: usize,
    width: usize,
}

/// A block's byte rows and what its far pass left to the near pass.
#[derive(Default)]
struct Rows {
    bytes: Vec<u8>,
    left: Vec<Left>,
}

impl OctalBlock {
    /// Fills g[from..], `candidates(g, from)` filling a prefix slice by the candidate search.
    ///
    /// The blocks are pipelined: the near pass of a block runs beside the far pass of the
    /// next (`pool.join`), which reads only what was final when the first began, g[..n0]
    /// of the first block, and the rare and sweep lists as they stood then. A change of
    /// mask (at the end of the prefix and at each doubling) or of row width (a value that
    /// reached the width) first drains the pipeline.
    #[inline(always)]
    fn fill_with(
        &self,
        rules: &Rules,
        g: &mut [u16],
        from: usize,
        kept: Option<State>,
        candidates: impl Fn(&mut [u16], usize) -> Result<()>,
        pool: &SpinPool,
    ) -> Result<State> {
        let len = g.len();
        // the first position not yet in a far pass
        let mut n = from;
        let State {
            mut split,
            mut max_known,
            mut next_choice,
        } = kept.unwrap_or_else(|| {
            let mut split = Split::new();
            for (n, &v) in g[..from].iter().enumerate() {
                split.record(n, v);
            }
            State {
                split,
                max_known: g[..from].iter().copied().max().unwrap_or(0) as usize,
                // The next n at which the mask is (re)chosen: the end of the prefix, then
                // each doubling; a fill resumed past the prefix without what the last chunk
                // kept chooses at once, from the finished values.
                next_choice: self.prefix.max(1).max(from),
            }
        });
        let mut rows = [Rows::default(), Rows::default()];
        let mut pending: Option<Pending> = None;
        loop {
            let Some(p) = pending.take() else {
                if n >= len {
                    break;
                }
                if n >= next_choice {
                    self.choose_mask(rules, &mut split, &g[..n]);
                    next_choice = 2 * n;
                }
                let width = row_width(max_known);
                if width > MAX_WIDTH && split.mask.splits() {
                    split.drop_mask();
                }
                if !split.mask.splits() || width > MAX_WIDTH {
                    // No sparse split (or values too large for a byte row): the candidate
                    // search up to the next choice.
                    let end = next_choice.min(len).max(n + 1);
                    candidates(&mut g[..end], n)?;
                    for (m, &v) in g.iter().enumerate().take(end).skip(n) {
                        split.record(m, v);
                        max_known = max_known.max(v as usize);
                    }
                    n = end;
                    continue;
                }
                let end = (n + self.block).min(len).min(next_choice.max(n + 1));
                let groups = FarGroups::new(rules, &split, &g[..n], n, end, width, &mut rows[0]);
                pool.join(|| groups.work(), || groups.work());
                drop(groups);
                pending = Some(Pending {
                    n0: n,
                    end,
                    known: n,
                    first_new_rare: split.rare.len(),
                    width,
                });
                n = end;
                continue;
            };
            // The near pass of p, and beside it the far pass of the next block when one may
            // start now (same mask, inside the table).
            let next_end = (p.end + self.block)
                .min(len)
                .min(next_choice.max(p.end + 1));
            // (on one thread the far pass waits for the near one and reads one block more)
            let overlap = p.end < len && p.end < next_choice && pool.workers() > 0;
            let [mine, theirs] = &mut rows;
            let (head, rest) = g.split_at_mut(p.n0);
            let block = &mut rest[..p.end - p.n0];
            let first_new_rare = split.rare.len();
            let (done, next) = if overlap {
                let head: &[u16] = head;
                let groups = FarGroups::new(rules, &split, head, p.end, next_end, p.width, theirs);
                let done = pool.join(
                    || {
                        let done = near_block(rules, &split, head, block, p, mine);
                        groups.work();
                        done
                    },
                    || groups.work(),
                );
                drop(groups);
                let next = Pending {
                    n0: p.end,
                    end: next_end,
                    known: p.n0,
                    first_new_rare,
                    width: p.width,
                };
                (done, Some(next))
            } else {
                (near_block(rules, &split, head, block, p, mine), None)
            };
            for (m, &v) in g.iter().enumerate().take(done).skip(p.n0) {
                split.record(m, v);
                max_known = max_known.max(v as usize);
            }
            if !self.always_mask && split.rare.len() * SPARSE_FRACTION > split.recorded {
                // the rare positions outgrew the sparse share: choose again once the
                // pipeline has drained (its far pass is at most one block ahead), which
                // bounds the rare list by the share and two blocks
                next_choice = next_choice.min(p.end);
            }
            if done < p.end || max_known >= p.width {
                // a value reached the row width (the block's last heap, too): the next
                // block's far pass, made for that width, is void
                pending = None;
                n = done;
            } else {
                pending = next;
                n = if next.is_some() { next_end } else { p.end };
                rows.swap(0, 1);
            }
        }
        Ok(State {
            split,
            max_known,
            next_choice,
        })
    }

    /// Takes the best mask of the kinds `rules` admits ([`Histogram::best_mask`]) when it
    /// leaves the positions sparse (or always, with `always_mask`) and fewer rare than the
    /// current one, and the values fit a row; drops the one in use when none does: the rare
    /// list then never holds more than the sparse share of the positions and two blocks, and
    /// never beside the candidate search's mirror (see `scratch_bytes`).
    fn choose_mask(&self, rules: &Rules, split: &mut Split, g: &[u16]) {
        let top = g.iter().copied().max().unwrap_or(0) as usize;
        if row_width(top) > MAX_WIDTH {
            // values too large for a byte row: the candidate search from here on
            split.drop_mask();
            return;
        }
        let (best, count) = split.histogram.best_mask(rules.split_parity());
        let positions = g.len().saturating_sub(1);
        let sparse = self.always_mask || count * SPARSE_FRACTION <= positions;
        if sparse && (!split.mask.splits() || count < split.histogram.rare_count(split.mask)) {
            split.take_mask(best, g);
        } else if !sparse && split.mask.splits() {
            // no mask leaves the positions sparse any more: the candidate search from here
            // on, and the lists' memory given back (see `scratch_bytes`)
            split.drop_mask();
        }
        if split.mask.splits() {
            // the far pass reads the splits (a, m - a) with m - a below the block before its
            // own: a past two blocks and a group
            split.list_witnesses(2 * self.block + 2 * LANES);
        }
    }
}

/// The byte width of a block's rows when the largest value so far is `max_known`: the power
/// of two above it, so every option (an xor of two values) fits, and a mex is at most the
/// width (found as the row's length by [`least_common_missing`]). Half the width of rows that
/// held the mex too: on Officers 16 KiB for a group of lanes instead of 32 KiB, which leaves
/// the first-level cache room for the partners' windows.
fn row_width(max_known: usize) -> usize {
    (max_known + 1).next_power_of_two().max(64)
}

/// What the far pass left to the near pass, per heap and splitting digit: the rare entries
/// it marked, `rare[rare_lo..rare_hi]` of the block's start list, and the pairs: it swept
/// the common a from `near_top + 1` up to (not including) `swept`, so the near pass sweeps
/// `1..=near_top` and, if still needed, from `swept` on.
#[derive(Debug, Clone, Copy, Default)]
struct Left {
    rare_lo: usize,
    rare_hi: usize,
    near_top: usize,
    swept: usize,
}

/// Heaps decided together by the lane kernels of the far pass: each rare position, and each
/// swept pair, reads one contiguous run of `LANES` partners.
pub const LANES: usize = 32;

/// A far pass's groups of [`LANES`] heaps, each claimed by whichever thread is free next
/// (one atomic counter), so a thread that finishes its near pass takes the groups left
/// rather than waiting for a split of them: the threads end within one group of each other.
struct FarGroups<'a> {
    far: Far<'a>,
    first: usize,
    /// Each group's rows and leftovers, locked only by the thread that claimed it.
    groups: Vec<Mutex<(&'a mut [u8], &'a mut [Left])>>,
    next: AtomicUsize,
}

impl<'a> FarGroups<'a> {
    /// The far pass of heaps first..end, reading g[..known] = `known` and the lists as they
    /// stand (every entry below `known`), into `rows`: sized and split into groups, none
    /// done yet.
    fn new(
        rules: &'a Rules,
        split: &'a Split,
        known: &'a [u16],
        first: usize,
        end: usize,
        width: usize,
        rows: &'a mut Rows,
    ) -> FarGroups<'a> {
        let heaps = end - first;
        let digits = rules.split().len().max(1);
        // the rows are cleared by the thread that fills them (Far::heaps), not here in one go
        rows.bytes.resize(heaps * width, 0);
        rows.left.clear();
        rows.left.resize(heaps * digits, Left::default());
        let groups = rows
            .bytes
            .chunks_mut(LANES * width)
            .zip(rows.left.chunks_mut(LANES * digits))
            .map(Mutex::new)
            .collect();
        let far = Far {
            rules,
            g: known,
            rare: &split.rare,
            sweepers: &split.sweepers,
            list_end: split.list_end(),
            common: [&split.common[0][..width], &split.common[1][..width]],
            witnesses: &split.witnesses,
            width,
            digits,
        };
        FarGroups {
            far,
            first,
            groups,
            next: AtomicUsize::new(0),
        }
    }

    /// Claims and does groups until none is left.
    fn work(&self) {
        loop {
            let t = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(group) = self.groups.get(t) else {
                return;
            };
            let mut group = group
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let (bytes, left) = &mut *group;
            self.far.heaps(self.first + t * LANES, bytes, left);
        }
    }
}

/// The near pass of block `p` in order, writing its values into `block` = g[p.n0..p.end]
/// (`head` = g[..p.n0] final). Returns the first heap not decided: `p.end`, or earlier when
/// a value reached the row width.
fn near_block(
    rules: &Rules,
    split: &Split,
    head: &[u16],
    block: &mut [u16],
    p: Pending,
    rows: &mut Rows,
) -> usize {
    debug_assert!(p.known <= p.n0 && head.len() == p.n0);
    let width = p.width;
    let digits = rules.split().len().max(1);
    // the rare positions from p.known on: those merged since the far pass, then this block's
    let mut new_rare: Vec<Pos> = split.rare[p.first_new_rare..].to_vec();
    let old = &split.rare[..p.first_new_rare];
    for i in 0..p.end - p.n0 {
        let n = p.n0 + i;
        let view = View {
            head,
            tail: &block[..i],
        };
        let v = near(
            rules,
            &view,
            n,
            &mut rows.bytes[i * width..(i + 1) * width],
            &rows.left[i * digits..(i + 1) * digits],
            split,
            (old, &new_rare),
        );
        block[i] = v;
        if split.mask.rare(v as u32, n) {
            new_rare.push(Pos {
                at: n as u32,
                value: v as u32,
            });
        }
        if v as usize >= width {
            return n + 1;
        }
    }
    p.end
}

/// The far pass's shared, read-only view: g[..n0] and the lists at the block's start.
struct Far<'a> {
    rules: &'a Rules,
    g: &'a [u16],
    rare: &'a [Pos],
    sweepers: &'a [Pos],
    list_end: usize,
    /// The common flags for heaps of each parity.
    common: [&'a [u8]; 2],
    witnesses: &'a [Vec<Pos>],
    width: usize,
    digits: usize,
}

impl Far<'_> {
    /// The far pass of the heaps first.. whose rows and leftovers these are: whole groups of
    /// [`LANES`] heaps by the lane kernels (one splitting digit), the others one at a time.
    fn heaps(&self, first: usize, rows: &mut [u8], left: &mut [Left]) {
        rows.fill(0);
        let (width, digits) = (self.width, self.digits);
        let lanes_fit = self.rules.split().len() == 1 && LANES * width <= 1 << 16;
        let mut i = 0;
        let count = rows.len() / width;
        while i < count {
            if lanes_fit && i + LANES <= count {
                self.lanes(
                    first + i,
                    &mut rows[i * width..(i + LANES) * width],
                    &mut left[i..i + LANES],
                );
                i += LANES;
            } else {
                self.one(
                    first + i,
                    &mut rows[i * width..(i + 1) * width],
                    &mut left[i * digits..(i + 1) * digits],
                );
                i += 1;
            }
        }
    }

    /// Marks in `row` the options of heap n that read only g[..n0] (see the module doc) and
    /// records, per splitting digit, what it left to the near pass.
    #[inline]
    fn one(&self, n: usize, row: &mut [u8], left: &mut [Left]) {
        let n0 = self.g.len();
        let rules = self.rules;
        for (d, &k) in rules.split().iter().enumerate() {
            if n < k + 2 {
                left[d] = Left {
                    swept: 1,
                    ..Left::default()
                };
                continue;
            }
            let m = n - k;
            // the rare r < m with m - r < n0: r > m - n0
            let lo = self.rare.partition_point(|e| (e.at as usize) + n0 <= m);
            let hi = self.rare.partition_point(|e| (e.at as usize) < m).max(lo);
            mark_rare_pairs(row, self.g, m, &self.rare[lo..hi], rules.unequal());
            left[d] = Left {
                rare_lo: lo,
                rare_hi: hi,
                near_top: m.saturating_sub(n0),
                swept: 0,
            };
        }
        // the sweep of the pairs with m - a < n0 (a > m - n0), for the rare values below c
        let common = self.common[n & 1];
        let c = least_common_missing(row, common);
        let mut met = 0;
        for (d, &k) in rules.split().iter().enumerate() {
            if n < k + 2 {
                continue;
            }
            let m = n - k;
            let a0 = left[d].near_top + 1;
            let p = rules.split_pairs(m);
            left[d].swept = sweep(
                self.g,
                m,
                a0,
                p,
                (row, common, c, &mut met),
                self.sweepers,
                self.list_end,
            );
        }
    }

    /// The far pass of the [`LANES`] heaps first.. of a game with one splitting digit k:
    /// heap first + j splits m_j = m_0 + j tokens, so for a rare r the partners g(m_j - r)
    /// are one run, and so are those of a swept pair (a, m_j - a). The lanes share the rare
    /// entries with m_last - r < n0 <= ... and r < m_0, and the pairs a > m_last - n0; each
    /// lane's others are its near pass's. Where equal splits are forbidden (Grundy's game)
    /// the few rare r with m_0 <= 2r <= m_last are marked lane by lane, skipping the lane
    /// 2r - m_0 they would split equally; every swept a is at most split_pairs(m_0), below
    /// half of every lane's heap, so the sweep never meets an equal split.
    fn lanes(&self, first: usize, rows: &mut [u8], left: &mut [Left]) {
        let n0 = self.g.len();
        let width = self.width;
        let k = self.rules.split()[0];
        if first < k + 2 {
            for (j, (row, left)) in rows.chunks_mut(width).zip(left.iter_mut()).enumerate() {
                self.one(first + j, row, std::slice::from_mut(left));
            }
            return;
        }
        let m0 = first - k;
        let m_last = m0 + LANES - 1;
        let lo = self
            .rare
            .partition_point(|e| (e.at as usize) + n0 <= m_last);
        let hi = self.rare.partition_point(|e| (e.at as usize) < m0).max(lo);
        if self.rules.unequal() {
            // The entries r with m0 <= 2r <= m_last split some lane's heap into equal halves
            // (lane 2r - m0), which this game forbids: those lanes are marked one by one.
            let zone_lo = lo + self.rare[lo..hi].partition_point(|e| 2 * (e.at as usize) < m0);
            let zone_hi =
                zone_lo + self.rare[zone_lo..hi].partition_point(|e| 2 * (e.at as usize) <= m_last);
            mark_lanes(rows, width, self.g, m0, &self.rare[lo..zone_lo]);
            mark_lanes(rows, width, self.g, m0, &self.rare[zone_hi..hi]);
            for (j, row) in rows.chunks_mut(width).enumerate() {
                let m = m0 + j;
                for e in &self.rare[zone_lo..zone_hi] {
                    if 2 * e.at as usize != m {
                        row[(e.value as usize ^ self.g[m - e.at as usize] as usize)
                            & (width - 1)] = 1;
                    }
                }
            }
        } else {
            mark_lanes(rows, width, self.g, m0, &self.rare[lo..hi]);
        }
        // The sweep of the common a > m_last - n0 (where every lane's partner is below n0):
        // all lanes together while at least LANE_SWEEP_MIN of them still miss a rare value
        // below their c, then each open lane on its own from where the lanes stopped.
        let a0 = (m_last + 1).saturating_sub(n0).max(1);
        let p0 = self.rules.split_pairs(m0);
        let mut c = [0usize; LANES];
        let mut met = [0usize; LANES];
        let mut open = 0u64;
        for (j, row) in rows.chunks(width).enumerate() {
            let common = self.common[(first + j) & 1];
            c[j] = least_common_missing(row, common);
            if !rare_below_met(row, common, c[j], &mut met[j]) {
                open |= 1 << j;
            }
        }
        let mut next = a0;
        if open.count_ones() as usize >= LANE_SWEEP_MIN && a0 <= p0 {
            let from = self.sweepers.partition_point(|e| (e.at as usize) < a0);
            let to = self
                .sweepers
                .partition_point(|e| (e.at as usize) <= p0)
                .max(from);
            // every common a below the list's end up to p0 swept, unless stopped earlier
            next = a0.max((p0 + 1).min(self.list_end));
            for chunk in self.sweepers[from..to].chunks(SWEEP_CHUNK) {
                mark_lanes(rows, width, self.g, m0, chunk);
                let mut still = open;
                while still != 0 {
                    let j = still.trailing_zeros() as usize;
                    still &= still - 1;
                    let row = &rows[j * width..(j + 1) * width];
                    if rare_below_met(row, self.common[(first + j) & 1], c[j], &mut met[j]) {
                        open &= !(1 << j);
                    }
                }
                if (open.count_ones() as usize) < LANE_SWEEP_MIN {
                    next = chunk[chunk.len() - 1].at as usize + 1;
                    break;
                }
            }
        }
        for (j, (row, l)) in rows.chunks_mut(width).zip(left.iter_mut()).enumerate() {
            let m = m0 + j;
            let swept = if open & (1 << j) != 0
                && !witness_rare(
                    self.g,
                    (m, self.rules.split_pairs(m), n0),
                    (row, self.common[(first + j) & 1], c[j], met[j]),
                    self.witnesses,
                ) {
                sweep(
                    self.g,
                    m,
                    next,
                    self.rules.split_pairs(m),
                    (row, self.common[(first + j) & 1], c[j], &mut met[j]),
                    self.sweepers,
                    self.list_end,
                )
            } else {
                next
            };
            *l = Left {
                rare_lo: lo,
                rare_hi: hi,
                near_top: a0 - 1,
                swept,
            };
        }
    }
}

/// For each entry e and lane j < [`LANES`]: `rows[j * width + ((e.value ^ g[m0 + j - e.at])
/// & (width - 1))] = 1`, the pair (e.at, m_j - e.at) of lane j marked in its row. Needs
/// `width` a power of two with `LANES * width <= 2^16` (the row indices are u16 lanes),
/// `rows.len() == LANES * width` (asserted), and for every entry `e.at <= m0` and
/// `m0 + LANES - 1 - e.at < g.len()` (the slicing checks it). The indices are computed eight
/// lanes a step (`wide::u16x8`), the stores one by one. Its twin [`mark_lanes_checked`]
/// does the same one lane at a time with every index checked.
#[inline]
pub fn mark_lanes(rows: &mut [u8], width: usize, g: &[u16], m0: usize, entries: &[Pos]) {
    use wide::u16x8;
    assert!(width.is_power_of_two() && LANES * width <= 1 << 16 && rows.len() == LANES * width);
    let wmask = u16x8::splat((width - 1) as u16);
    let offset: [u16x8; LANES / 8] =
        std::array::from_fn(|q| u16x8::new(std::array::from_fn(|j| ((8 * q + j) * width) as u16)));
    for e in entries {
        let partners = &g[m0 - e.at as usize..][..LANES];
        let value = u16x8::splat(e.value as u16);
        for q in 0..LANES / 8 {
            let p = u16x8::new(partners[8 * q..8 * q + 8].try_into().expect("8 lanes"));
            let i: [u64; 2] = bytemuck_u64(((p ^ value) & wmask) | offset[q]);
            // Four indices a 64-bit word, split by shifts (spread over the integer ports)
            // rather than extracted one by one from the vector (one shuffle port).
            for w in i {
                for k in 0..4 {
                    let i = (w >> (16 * k)) as u16 as usize;
                    // SAFETY: i = j * width + (v & (width - 1)) < LANES * width = rows.len()
                    // (asserted above).
                    unsafe { *rows.get_unchecked_mut(i) = 1 };
                }
            }
        }
    }
}

/// The eight u16 lanes of `v` as two little-endian 64-bit words (lanes 0-3, then 4-7).
#[inline(always)]
fn bytemuck_u64(v: wide::u16x8) -> [u64; 2] {
    let a = v.to_array();
    let word = |h: usize| {
        (a[h] as u64) | (a[h + 1] as u64) << 16 | (a[h + 2] as u64) << 32 | (a[h + 3] as u64) << 48
    };
    [word(0), word(4)]
}

/// [`mark_lanes`] one lane at a time with every index checked: the twin the tests compare
/// it with.
pub fn mark_lanes_checked(rows: &mut [u8], width: usize, g: &[u16], m0: usize, entries: &[Pos]) {
    for e in entries {
        for j in 0..LANES {
            let v = (e.value as usize ^ g[m0 + j - e.at as usize] as usize) & (width - 1);
            rows[j * width + v] = 1;
        }
    }
}

/// The least value v with `common[v] == 1` and `row[v] == 0`, or the row's width when every
/// common value below it is marked (the mex is at most the width: see [`row_width`]).
#[inline]
fn least_common_missing(row: &[u8], common: &[u8]) -> usize {
    for (w, (r, c)) in row.chunks_exact(8).zip(common.chunks_exact(8)).enumerate() {
        let r = u64::from_le_bytes(r.try_into().unwrap());
        let c = u64::from_le_bytes(c.try_into().unwrap());
        let miss = c & !r;
        if miss != 0 {
            return 8 * w + (miss.trailing_zeros() / 8) as usize;
        }
    }
    row.len()
}

/// True when every rare value v < c has `row[v] == 1`; `met` is how many values from 0 are
/// known to be settled (attained or common), and grows.
#[inline]
fn rare_below_met(row: &[u8], common: &[u8], c: usize, met: &mut usize) -> bool {
    let mut w = *met / 8;
    while 8 * w < c {
        let r = u64::from_le_bytes(row[8 * w..8 * w + 8].try_into().unwrap());
        let k = u64::from_le_bytes(common[8 * w..8 * w + 8].try_into().unwrap());
        // bytes 0x01 where v is rare and unmarked
        let open = !(r | k) & 0x0101_0101_0101_0101;
        let below = c - 8 * w;
        let open = if below < 8 {
            open & ((1u64 << (8 * below)) - 1)
        } else {
            open
        };
        if open != 0 {
            *met = 8 * w + (open.trailing_zeros() / 8) as usize;
            return false;
        }
        w += 1;
    }
    *met = c;
    true
}

/// Tries to find, for every rare value v < c that `row` misses (from `met` on), a pair
/// (a, m - a) that attains it among v's witnesses (see [`Split::witnesses`]), marking v
/// when one does. A pair counts when it is a split of m (1 <= a <= `p`) and reads only the
/// values known (m - a < `known`). True when every one was found; false at the first that
/// was not (the values found so far stay marked: each is attained).
#[inline]
fn witness_rare<V: Values + ?Sized>(
    g: &V,
    (m, p, known): (usize, usize, usize),
    (row, common, c, met): (&mut [u8], &[u8], usize, usize),
    witnesses: &[Vec<Pos>],
) -> bool {
    for v in met..c {
        if row[v] != 0 || common[v] != 0 {
            continue;
        }
        let found = witnesses.get(v).is_some_and(|list| {
            list.iter().any(|e| {
                let a = e.at as usize;
                a <= p && a + known > m && g.at(m - a) == e.value as u16
            })
        });
        if !found {
            return false;
        }
        row[v] = 1;
    }
    true
}

/// A heap's row and what its sweep is after: the common flags, c, and the settled prefix.
type Goal<'r> = (&'r mut [u8], &'r [u8], usize, &'r mut usize);

/// Sweeps the pairs (a, m - a) with a common, a0 <= a <= p, marking their values in the row,
/// until every rare value below c is marked; returns the first a not swept (p + 1 when all
/// were). Below `list_end` the common small heaps come from `sweepers` (the pairs with a
/// rare small heap are the rare enumeration's); from it on, every a is read from g.
#[inline]
fn sweep<V: Values + ?Sized>(
    g: &V,
    m: usize,
    a0: usize,
    p: usize,
    (row, common, c, met): Goal,
    sweepers: &[Pos],
    list_end: usize,
) -> usize {
    if a0 > p || rare_below_met(row, common, c, met) {
        return a0;
    }
    let lo = sweepers.partition_point(|e| (e.at as usize) < a0);
    let hi = sweepers.partition_point(|e| (e.at as usize) <= p.min(list_end.saturating_sub(1)));
    if lo < hi {
        for chunk in sweepers[lo..hi].chunks(SWEEP_CHUNK) {
            g.mark(row, m, chunk);
            if rare_below_met(row, common, c, met) {
                return chunk[chunk.len() - 1].at as usize + 1;
            }
        }
    }
    let mut a = a0.max(list_end);
    let wmask = row.len() - 1;
    while a <= p {
        let stop = (a + SWEEP_CHUNK - 1).min(p);
        for x in a..=stop {
            row[(g.at(x) ^ g.at(m - x)) as usize & wmask] = 1;
        }
        a = stop + 1;
        if rare_below_met(row, common, c, met) {
            break;
        }
    }
    a
}

/// The near pass of heap n (g[..n] final in `g`): marks the options the far pass left out
/// (see [`Left`]): the rare entries `old` outside the far pass's share, every one of `new`
/// (the rare positions from the far pass's `known` on), then settles the mex (see the
/// module doc).
fn near<V: Values + ?Sized>(
    rules: &Rules,
    g: &V,
    n: usize,
    row: &mut [u8],
    left: &[Left],
    split: &Split,
    (old, new): (&[Pos], &[Pos]),
) -> u16 {
    let wmask = row.len() - 1;
    let unequal = rules.unequal();
    // The options of [`Rules::each_option`], split between the far pass and this one by
    // what they read (the split loops keep per-digit state, so they walk every digit); the
    // tests hold the tables against the control's.
    if rules.removes_whole(n) {
        row[0] = 1;
    }
    for h in rules.one_heap_left(n) {
        row[g.at(h) as usize & wmask] = 1;
    }
    for (d, &k) in rules.split().iter().enumerate() {
        if n < k + 2 {
            continue;
        }
        let m = n - k;
        let l = left[d];
        mark_rare_pairs(row, g, m, &old[..l.rare_lo], unequal);
        mark_rare_pairs(row, g, m, &old[l.rare_hi..], unequal);
        mark_rare_pairs(row, g, m, new, unequal);
    }
    let common = &split.common[n & 1][..row.len()];
    let c = least_common_missing(row, common);
    let mut met = 0;
    if !rare_below_met(row, common, c, &mut met) {
        // the pairs the far pass did not sweep: from where it stopped, then the first ones
        // (the list stands for the positions below the far pass's known prefix at least)
        let list_end = split.list_end();
        for (d, &k) in rules.split().iter().enumerate() {
            if n < k + 2 {
                continue;
            }
            let m = n - k;
            let p = rules.split_pairs(m);
            let l = left[d];
            for (a0, top) in [(l.swept.max(1), p), (1, l.near_top.min(p))] {
                sweep(
                    g,
                    m,
                    a0,
                    top,
                    (row, common, c, &mut met),
                    &split.sweepers,
                    list_end,
                );
            }
        }
    }
    // the least unmarked value (c when every rare value below it is marked)
    row[..c].iter().position(|&b| b == 0).unwrap_or(c) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::octal::{code_strategy, control_values as control};

    fn build(method: OctalBlock, code: &str, limit: usize) -> Vec<u16> {
        let mut g = vec![0u16; limit + 1];
        method
            .fill(&Rules::parse(code).unwrap(), &mut g, 0)
            .unwrap();
        g
    }

    /// Small prefixes and blocks, the mask always taken: the block passes on small tables.
    fn small(prefix: usize, block: usize) -> OctalBlock {
        OctalBlock {
            prefix,
            block,
            always_mask: true,
        }
    }

    #[test]
    fn a_mask_that_no_longer_leaves_the_positions_sparse_is_dropped_with_its_lists() {
        // 40 zeros, rare under every mask of the first kind (popcount 0 is even) and at every
        // other position under the second, then 1 and 2: no mask leaves these 41 positions
        // sparse, so a mask taken before (by hand here) goes.
        let mut g = vec![0u16; 40];
        g.extend((0..40).map(|i| 1 + (i % 2) as u16));
        let method = OctalBlock {
            always_mask: false,
            ..small(8, 8)
        };
        let mut split = Split::new();
        for (n, &v) in g[..42].iter().enumerate() {
            split.record(n, v);
        }
        let rules = Rules::parse("0.6").unwrap();
        split.take_mask(Mask::value(1), &g[..42]);
        assert!(!split.rare.is_empty());
        method.choose_mask(&rules, &mut split, &g[..42]);
        assert!(!split.mask.splits());
        assert!(split.rare.is_empty() && split.sweepers.is_empty() && split.witnesses.is_empty());
        // values too wide for a byte row drop the mask whatever the sparseness
        let wide = [vec![0u16; 100], vec![MAX_WIDTH as u16]].concat();
        let mut split = Split::new();
        for (n, &v) in wide.iter().enumerate() {
            split.record(n, v);
        }
        split.take_mask(Mask::value(1), &wide);
        method.choose_mask(&rules, &mut split, &wide);
        assert!(!split.mask.splits());
    }

    #[test]
    fn chunks_that_keep_the_split_give_the_controls_table_and_a_stale_one_is_not_used() {
        for code in ["0.6", "grundy", "0.127", "4.07", "0.16"] {
            let rules = Rules::parse(code).unwrap();
            let want = control(code, 3000);
            for (prefix, block, step) in [(64, 64, 97), (16, 7, 500), (64, 64, 3001)] {
                let method = OctalBlock {
                    always_mask: false,
                    ..small(prefix, block)
                };
                let mut g = vec![0u16; 3001];
                let mut kept: Kept = None;
                let mut from = 0;
                while from < g.len() {
                    let end = (from + step).min(g.len());
                    method
                        .fill_kept(&rules, &mut g[..end], from, &mut kept)
                        .unwrap();
                    from = end;
                }
                assert_eq!(
                    g, want,
                    "{code}, prefix {prefix}, block {block}, step {step}"
                );
                // what a chunk kept for 0..3001 is not taken for a fill from 1000
                let mut again = want.clone();
                again[1000..].fill(0);
                method
                    .fill_kept(&rules, &mut again, 1000, &mut kept)
                    .unwrap();
                assert_eq!(again, want, "{code}: a fill from 1000 after a kept 3001");
            }
        }
    }

    #[test]
    fn small_blocks_give_the_controls_table_on_every_code_of_two_digits() {
        let mut codes: Vec<String> = vec!["grundy".into(), "0.6".into(), "4.07".into()];
        for d0 in [0, 4] {
            for d1 in 0..8 {
                for d2 in 0..8 {
                    codes.push(format!("{d0}.{d1}{d2}"));
                }
            }
        }
        for code in &codes {
            let want = control(code, 500);
            for (prefix, block) in [(8, 1), (16, 4), (16, 7), (32, 64)] {
                assert_eq!(
                    build(small(prefix, block), code, 500),
                    want,
                    "{code}, prefix {prefix}, block {block}"
                );
            }
        }
    }

    #[test]
    fn officers_with_its_mask_gives_the_controls_table() {
        let want = control("0.6", 12_000);
        for block in [1, 3, 64, 512] {
            let got = build(
                OctalBlock {
                    prefix: 64,
                    block,
                    always_mask: false,
                },
                "0.6",
                12_000,
            );
            assert_eq!(got, want, "block {block}");
        }
    }

    #[test]
    fn a_fill_from_the_middle_finishes_the_same_table() {
        let want = control("0.6", 6000);
        let mut g = want.clone();
        g[5000..].fill(0);
        small(64, 100)
            .fill(&Rules::parse("0.6").unwrap(), &mut g, 5000)
            .unwrap();
        assert_eq!(g, want);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
        #[test]
        fn random_codes_and_blocks_give_the_controls_table(
            code in code_strategy(),
            limit in 0usize..=700,
            prefix in 1usize..=64,
            block in 1usize..=80,
        ) {
            let want = control(&code, limit);
            proptest::prop_assert_eq!(build(small(prefix, block), &code, limit), want);
        }

        #[test]
        fn random_codes_with_masks_chosen_and_dropped_as_sparseness_says_give_the_controls_table(
            code in code_strategy(),
            limit in 0usize..=2500,
            prefix in 1usize..=64,
            block in 1usize..=80,
        ) {
            let method = OctalBlock { always_mask: false, ..small(prefix, block) };
            proptest::prop_assert_eq!(build(method, &code, limit), control(&code, limit));
        }

        #[test]
        fn mark_partners_marks_what_its_checked_twin_marks(
            g in proptest::collection::vec(0u16..300, 2..400),
            picks in proptest::collection::vec(0usize..400, 0..60),
            bits in 9u32..=11,
        ) {
            let m = g.len() - 1;
            let mut at: Vec<usize> = picks.into_iter().map(|a| a % (m + 1)).collect();
            at.sort_unstable();
            let entries: Vec<Pos> = at
                .iter()
                .map(|&a| Pos { at: a as u32, value: g[a] as u32 })
                .collect();
            let (mut fast, mut slow) = (vec![0u8; 1 << bits], vec![0u8; 1 << bits]);
            mark_partners(&mut fast, &g, m, &entries);
            mark_partners_checked(&mut slow, &g, m, &entries);
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn mark_lanes_marks_what_its_checked_twin_marks(
            g in proptest::collection::vec(0u16..1000, 40..300),
            picks in proptest::collection::vec(0usize..300, 0..40),
            bits in 6u32..=11,
        ) {
            let m0 = g.len() - LANES;
            let mut at: Vec<usize> = picks.into_iter().map(|a| a % (m0 + 1)).collect();
            at.sort_unstable();
            let entries: Vec<Pos> = at
                .iter()
                .map(|&a| Pos { at: a as u32, value: g[a] as u32 })
                .collect();
            let width = 1usize << bits;
            let (mut fast, mut slow) = (vec![0u8; LANES * width], vec![0u8; LANES * width]);
            mark_lanes(&mut fast, width, &g, m0, &entries);
            mark_lanes_checked(&mut slow, width, &g, m0, &entries);
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    #[test]
    #[should_panic]
    fn mark_lanes_refuses_rows_wider_than_u16_indices() {
        let g = vec![0u16; 64];
        let width = 1 << 12;
        mark_lanes(&mut vec![0u8; LANES * width], width, &g, 0, &[]);
    }

    #[test]
    #[should_panic]
    fn mark_partners_refuses_a_partner_past_the_table() {
        let g = [0u16, 1, 2, 3];
        // m = 5 reads g[5 - 1] = g[4], past the end
        mark_partners(&mut [0u8; 64], &g, 5, &[Pos { at: 1, value: 1 }]);
    }

    #[test]
    fn a_view_reads_and_marks_as_the_whole_table_does() {
        let g: Vec<u16> = (0..100u16).map(|i| (i * 37 + 11) % 61).collect();
        let entries: Vec<Pos> = [1u32, 4, 9, 30, 55]
            .iter()
            .map(|&a| Pos {
                at: a,
                value: g[a as usize] as u32,
            })
            .collect();
        for cut in [0, 1, 50, 99, 100] {
            let view = View {
                head: &g[..cut],
                tail: &g[cut..],
            };
            assert!((0..100).all(|i| view.at(i) == g[i]), "cut {cut}");
            let (mut by_view, mut by_slice) = ([0u8; 128], [0u8; 128]);
            view.mark(&mut by_view, 90, &entries);
            g[..].mark(&mut by_slice, 90, &entries);
            assert_eq!(by_view, by_slice, "cut {cut}");
        }
    }

    #[test]
    fn grundys_game_leaves_out_the_equal_split() {
        // m = 4 with rare entries 1, 2, 3: the pair (2, 2) is not a move of Grundy's game
        let g = [0u16, 0, 0, 1, 0];
        let entries: Vec<Pos> = (1..4)
            .map(|a| Pos {
                at: a,
                value: g[a as usize] as u32,
            })
            .collect();
        let mut row = [0u8; 64];
        mark_rare_pairs(&mut row, &g[..], 4, &entries, true);
        // (1, 3) and (3, 1): 0 ^ 1 = 1; (2, 2) would mark 0
        assert_eq!((row[0], row[1]), (0, 1));
        mark_rare_pairs(&mut row, &g[..], 4, &entries, false);
        assert_eq!(row[0], 1);
    }

    #[test]
    fn the_row_width_holds_every_option_and_mex() {
        // values up to 5: xors up to 7, width 8 (at least 64)
        assert_eq!(row_width(5), 64);
        assert_eq!(row_width(63), 64);
        assert_eq!(row_width(64), 128);
        assert_eq!(row_width(325), 512);
        assert_eq!(row_width(511), 512);
        assert_eq!(row_width(512), 1024);
    }

    #[test]
    fn the_least_common_missing_value_and_the_rare_check_read_the_row() {
        // mask 1: odd values common
        let common: Vec<u8> = (0..64).map(|v| (v % 2) as u8).collect();
        let mut row = vec![0u8; 64];
        assert_eq!(least_common_missing(&row, &common), 1);
        for v in [1, 3, 5, 7, 9, 0, 2, 4] {
            row[v] = 1;
        }
        assert_eq!(least_common_missing(&row, &common), 11);
        let mut met = 0;
        // rare 6 and 8 below 11 unmarked
        assert!(!rare_below_met(&row, &common, 11, &mut met));
        assert_eq!(met, 6);
        row[6] = 1;
        row[8] = 1;
        // 10 is rare and below 11
        assert!(!rare_below_met(&row, &common, 11, &mut met));
        assert_eq!(met, 10);
        row[10] = 1;
        assert!(rare_below_met(&row, &common, 11, &mut met));
        // 10 unmarked, but not below 10
        assert!(rare_below_met(&row, &common, 10, &mut 0));
    }
}
